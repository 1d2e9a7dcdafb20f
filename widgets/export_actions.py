"""File ▸ Export: one entry per format of :data:`exporters.registry.FORMATS`, the list the command line offers.

An export reads the window's analysis of the design as it is now. While the engines
are still computing an edit, the export waits for that analysis instead of writing
figures of an older design; a write error is shown, never lost.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from exporters.registry import FORMATS, ExportError, ExportFormat


class ExportController(QObject):
    """Owns the Export submenu of one :class:`~widgets.main_window.MainWindow`."""

    #: A file was written: (path, what it holds in words).
    exported = Signal(str, str)

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self._pending: tuple[ExportFormat, Path] | None = None
        #: the runner revision the window's analysis belongs to (None: no analysis of any edit yet)
        self._analysis_revision: int | None = None
        window.runner.finished.connect(self._on_analysis)
        window.runner.failed.connect(self._on_failure)

    def build_menu(self, parent_menu) -> QMenu:
        menu = parent_menu.addMenu("&Export")
        self.actions = {}
        for fmt in FORMATS.values():
            act = menu.addAction(f"{fmt.title}…")
            act.setToolTip(fmt.description)
            act.triggered.connect(lambda _=False, f=fmt: self.export(f))
            self.actions[fmt.name] = act
        return menu

    # -- questions (tests replace these to avoid modal dialogs) -----------------
    def ask_path(self, fmt: ExportFormat) -> str | None:
        start = self.window.path.with_suffix("").with_suffix(fmt.suffix) if self.window.path else \
            Path.home() / f"{self.window.project.name}{fmt.suffix}"
        path, _ = QFileDialog.getSaveFileName(self.window, f"Export {fmt.title.lower()}", str(start),
                                              fmt.file_filter)
        return path or None

    def report_error(self, text: str) -> None:
        QMessageBox.warning(self.window, "Export failed", text)

    # -- exporting ----------------------------------------------------------------
    def export(self, fmt: ExportFormat, path: str | Path | None = None) -> None:
        path = path or self.ask_path(fmt)
        if not path:
            return
        path = Path(path)
        if not path.suffix:
            path = path.with_suffix(fmt.suffix)
        if self._current():
            self._write(fmt, path)
            return
        if not self.window.runner.busy:
            # The engines failed on the design as it is: nothing current to write from.
            self.report_error(f"{fmt.title}: the analysis of the current design failed; "
                              "correct the design, then export again")
            return
        self._pending = (fmt, path)
        self.window.statusBar().showMessage(f"{fmt.title} will be written when the analysis is done…")

    def _current(self) -> bool:
        """Whether the window's analysis is of the design as it is now (the newest edit's)."""
        return (self.window.analysis is not None and not self.window.runner.busy
                and self._analysis_revision == self.window.runner.latest_revision)

    def _on_analysis(self, revision: int, analysis) -> None:
        self._analysis_revision = revision
        # The runner delivers only the newest request's result; a newer edit may still be pending.
        if self._pending is not None and revision == self.window.runner.latest_revision:
            fmt, path = self._pending
            self._pending = None
            self._write(fmt, path)

    def _on_failure(self, revision: int, message: str) -> None:
        if self._pending is not None and revision == self.window.runner.latest_revision:
            fmt, _ = self._pending
            self._pending = None
            self.report_error(f"{fmt.title} was not written: the analysis failed ({message})")

    def _write(self, fmt: ExportFormat, path: Path) -> None:
        try:
            account = fmt.write(self.window.analysis, path)
        except ExportError as exc:
            self.report_error(f"{fmt.title}: {exc}")
            return
        except OSError as exc:
            self.report_error(f"{fmt.title}: {path} cannot be written ({exc.strerror or exc})")
            return
        self.window.statusBar().showMessage(f"Wrote {path.name}: {account}", 8000)
        self.exported.emit(str(path), account)
