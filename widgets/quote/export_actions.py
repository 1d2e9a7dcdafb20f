"""File ▸ Export: one entry per format of :data:`exporters.registry.FORMATS`, the list the command line offers.

An export reads the window's analysis of the design as it is now. While the engines
are still computing an edit, the export waits for that analysis instead of writing
figures of an older design; a write error is shown, never lost.

The write itself (a PDF of a 100,000-GPU design takes seconds) runs on one worker
thread, like the engines: exports asked for in a row are written one after the other,
in order, while a progress bar in the status bar says one is under way. The worker only
calls the format's ``write`` on the immutable analysis and hands the outcome back through
a queued signal. Closing the window waits for the files being written, so they are finished
(the writer replaces a file whole or not at all); an export still waiting for the analysis
of an edit, when the window closes or another design is opened, is reported as not written.

A quote (PDF, appendix, XLSX) of a design whose quote has no seller is written with the user's default seller
(widgets/quote/seller_profile.py), when one is saved, and the status says so; the design is not changed.
"""
from __future__ import annotations

import dataclasses
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import suppress
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QProgressBar

from designer.design_errors import design_errors
from exporters.registry import FORMATS, ExportError, ExportFormat, check_target

from .seller_profile import FROM_DEFAULT, read_default

#: the formats that print the quote's seller: they take the user's default seller when the quote has none
SELLER_FORMATS = frozenset({"pdf", "pdf-appendix", "xlsx"})


class ExportController(QObject):
    """Owns the Export submenu of one :class:`~widgets.app.main_window.MainWindow`."""

    #: A file was written: (path, what it holds in words).
    exported = Signal(str, str)
    #: True while an export is being written (or waits for its turn on the worker).
    busy_changed = Signal(bool)
    # Internal: worker -> GUI thread hop (queued connection): format, path, account or None, error or None.
    _delivered = Signal(object, object, object, object)

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        #: exports asked for while the engines compute the newest edit, in the order asked, with their document
        self._pending: list[tuple[ExportFormat, Path, object]] = []
        #: the runner revision the window's analysis belongs to (None: no analysis of any edit yet)
        self._analysis_revision: int | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._in_flight = 0
        self._busy = False
        self._closed = False
        self.push_dialog = None
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # indeterminate: a format reports no progress
        self.progress.setMaximumWidth(90)
        self.progress.setMaximumHeight(12)
        self.progress.setVisible(False)
        window.statusBar().addPermanentWidget(self.progress)
        self._delivered.connect(self._on_written, Qt.ConnectionType.QueuedConnection)
        window.runner.finished.connect(self._on_analysis)
        window.runner.failed.connect(self._on_failure)
        window.document_replaced.connect(self._on_document_replaced)

    @property
    def busy(self) -> bool:
        return self._busy

    def build_menu(self, parent_menu) -> QMenu:
        menu = parent_menu.addMenu("&Export")
        self.actions = {}
        for fmt in FORMATS.values():
            act = menu.addAction(f"{fmt.title}…")
            act.setToolTip(fmt.description)
            act.triggered.connect(lambda _=False, f=fmt: self.export(f))
            self.actions[fmt.name] = act
        menu.addSeparator()
        self.push_action = menu.addAction("Push to NetBox…")
        self.push_action.setToolTip("Compare the design with a NetBox, or push it in, through NetBox's REST API")
        self.push_action.triggered.connect(self.push_to_netbox)
        return menu

    def push_to_netbox(self):
        """The Push to NetBox dialog (one per window, kept with what it last said); returns it."""
        from .netbox_push_dialog import NetBoxPushDialog

        if self.push_dialog is None:
            self.push_dialog = NetBoxPushDialog(self.window)
        self.push_dialog.show()
        self.push_dialog.raise_()
        return self.push_dialog

    # -- questions (tests replace these to avoid modal dialogs) -----------------
    def ask_path(self, fmt: ExportFormat) -> str | None:
        if fmt.folder:
            start = self.window.path.parent if self.window.path else Path.home()
            path = QFileDialog.getExistingDirectory(self.window, f"Export {fmt.title.lower()} into a folder",
                                                    str(start))
            return path or None
        start = self.window.path.with_suffix("").with_suffix(fmt.suffix) if self.window.path else \
            Path.home() / f"{self.window.project.name}{fmt.suffix}"
        path, _ = QFileDialog.getSaveFileName(self.window, f"Export {fmt.title.lower()}", str(start),
                                              fmt.file_filter)
        return path or None

    def report_error(self, text: str) -> None:
        QMessageBox.warning(self.window, "Export failed", text)

    def confirm_errors(self, question: str, errors, button: str = "Write a draft") -> bool:
        """Whether to go on (``button``) from a design with ``errors`` all the same: the errors, then ``question``."""
        box = QMessageBox(QMessageBox.Icon.Warning, errors.headline, f"{errors.headline}:\n\n{errors.listing()}\n\n"
                          f"{question} The Findings panel lists every error.", QMessageBox.StandardButton.Cancel,
                          self.window)
        go = box.addButton(button, QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is go

    # -- exporting ----------------------------------------------------------------
    def export(self, fmt: ExportFormat, path: str | Path | None = None) -> None:
        path = path or self.ask_path(fmt)
        if not path:
            return
        path = Path(path)
        if not path.suffix and not fmt.folder:
            path = path.with_suffix(fmt.suffix)
        try:
            check_target(fmt, path)
        except ExportError as exc:
            self.report_error(f"{fmt.title} was not written: {exc}")
            return
        if self._current():
            self._write(fmt, path)
            return
        if not self.window.runner.busy:
            # The engines failed on the design as it is: nothing current to write from.
            self.report_error(f"{fmt.title}: the analysis of the current design failed; "
                              "correct the design, then export again")
            return
        self._pending.append((fmt, path, self.window.document))
        self.window.statusBar().showMessage(f"{fmt.title} will be written when the analysis is done…")

    def current(self) -> bool:
        """Whether the window's analysis is of the design as it is now (the newest edit's)."""
        return self._current()

    def _current(self) -> bool:
        """Whether the window's analysis is of the design as it is now (the newest edit's)."""
        return (self.window.analysis is not None and not self.window.runner.busy
                and self._analysis_revision == self.window.runner.latest_revision)

    def _on_analysis(self, revision: int, analysis) -> None:
        self._analysis_revision = revision
        # The runner delivers only the newest request's result; a newer edit may still be pending.
        if self._pending and revision == self.window.runner.latest_revision:
            pending, self._pending = self._pending, []
            for fmt, path, _document in pending:
                self._write(fmt, path)

    def _on_failure(self, revision: int, message: str) -> None:
        if self._pending and revision == self.window.runner.latest_revision:
            pending, self._pending = self._pending, []
            for fmt, _path, _document in pending:
                self.report_error(f"{fmt.title} was not written: the analysis failed ({message})")

    def _on_document_replaced(self, document) -> None:
        """Another design was opened: an export asked for the old one must not be written from the new one."""
        dropped = [(fmt, path) for fmt, path, doc in self._pending if doc is not document]
        self._pending = [p for p in self._pending if p[2] is document]
        for fmt, path in dropped:
            self.report_error(f"{fmt.title} was not written to {path.name}: another design was opened "
                              "before its analysis was done")

    def _write(self, fmt: ExportFormat, path: Path) -> None:
        """Hand the write to the worker; :meth:`_on_written` reports it on the GUI thread."""
        if self._closed:
            return
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="podplanner-export")
        errors = design_errors(self.window.analysis)
        if errors and not self.confirm_errors(
                f"Write {fmt.title} ({path.name}) all the same, as a draft? A quote PDF then carries a red \"DRAFT\" "
                "band on every page.", errors):
            self.window.statusBar().showMessage(f"{fmt.title} was not written: {errors.phrase}", 8000)
            return
        analysis, note = self._with_default_seller(fmt, self.window.analysis)
        self._in_flight += 1
        self._show_progress(f"Writing {path.name}…")
        future = self._executor.submit(fmt.write, analysis, path)
        future.add_done_callback(lambda f, fm=fmt, p=path, n=note: self._done(fm, p, f, n))

    def _with_default_seller(self, fmt: ExportFormat, analysis) -> tuple[object, str]:
        """The analysis to write ``fmt`` from, and what to add to its account: a quote whose seller is empty
        gets the user's default seller for this export only ("" and the analysis as it is otherwise)."""
        project = getattr(analysis, "project", None)
        if fmt.name not in SELLER_FORMATS or project is None or not project.quote.seller.empty:
            return analysis, ""
        stored = read_default(self.window.settings)
        if stored.seller is None:
            return analysis, stored.problem
        # the seller is printed, never computed from: the engines' results hold for the design with it
        project = project.with_quote(project.quote.updated(seller=stored.seller))
        return dataclasses.replace(analysis, project=project), FROM_DEFAULT

    def _done(self, fmt: ExportFormat, path: Path, future: Future, note: str = "") -> None:
        # Runs on the worker thread (or the caller's, if cancelled): only emit, never touch widgets.
        if future.cancelled():
            return
        exc = future.exception()
        account = None if exc else future.result()
        if account is not None and note:
            account = f"{account}; {note}"
        elif isinstance(exc, ExportError) and note == FROM_DEFAULT:  # the default seller's logo, say
            exc = ExportError(f"{exc} ({note})")
        with suppress(RuntimeError):  # the controller was deleted while the file was written
            self._delivered.emit(fmt, path, account, exc)

    def _on_written(self, fmt: ExportFormat, path: Path, account: str | None, exc: BaseException | None) -> None:
        self._in_flight = max(0, self._in_flight - 1)
        self._show_progress(None)
        if self._closed:
            return
        self.window.statusBar().clearMessage()  # "Writing …" is over either way
        if isinstance(exc, ExportError):
            self.report_error(f"{fmt.title}: {exc}")
        elif isinstance(exc, OSError):
            self.report_error(f"{fmt.title}: {path} cannot be written ({exc.strerror or exc})")
        elif exc is not None:  # a bug in a format: said in one line, not a traceback into the event loop
            where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
            at = f" (in {where.name}, {Path(where.filename).name}:{where.lineno})" if where else ""
            self.report_error(f"{fmt.title} was not written: {type(exc).__name__}: {exc}{at}")
        else:
            # the folder too: a file dialog's last folder is easy to lose track of
            self.window.statusBar().showMessage(f"Wrote {path.name}: {account} (in {path.parent})", 12000)
            self.exported.emit(str(path), account)

    def _show_progress(self, message: str | None) -> None:
        busy = self._in_flight > 0
        if busy != self._busy:
            self._busy = busy
            self.progress.setVisible(busy)
            self.busy_changed.emit(busy)
        if message:
            self.progress.setToolTip(message)
            self.window.statusBar().showMessage(message)
        elif not busy:
            self.progress.setToolTip("")

    def shutdown(self) -> None:
        """The window is closing: finish the exports asked for, then report nothing more."""
        self._closed = True
        dropped, self._pending = self._pending, []
        for fmt, path, _document in dropped:
            # the engines are stopped with the window: no analysis of the newest edit will come
            self.report_error(f"{fmt.title} was not written to {path.name}: the window was closed before "
                              "the analysis of the last edit was done")
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        if self.push_dialog is not None:
            self.push_dialog.done_with()

    # -- the quote PDF with the changes since an earlier revision (Quote menu) ---------
    def ask_earlier_design(self) -> str | None:
        """The project file of an earlier revision of this design (tests replace this to avoid the dialog)."""
        start = str(self.window.path.parent) if self.window.path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self.window, "Changes since an earlier revision", start,
                                              EARLIER_FILTER)
        return path or None

    def export_changes_since(self, earlier: str | Path | None = None, path: str | Path | None = None) -> None:
        """Write the customer's quote PDF with a page of what changed in the bill since the revision in
        ``earlier``, asked for when not given; that design is read and analysed on the export's worker, and a
        file that cannot be used is reported as any export error is."""
        earlier = earlier or self.ask_earlier_design()
        if earlier:
            self.export(changes_format(Path(earlier), self.window.catalog), path)


#: the project files an earlier revision is picked from
EARLIER_FILTER = "PodPlanner projects (*.podplan.json *.json)"


def changes_format(earlier: Path, catalog) -> ExportFormat:
    """The customer's quote PDF, with the page of changes since the revision in the design file ``earlier``."""
    from dataclasses import replace

    def write(analysis, path) -> str:
        from exporters.quote_pdf import earlier_analysis, write_quote_pdf

        return write_quote_pdf(analysis, path, since=earlier_analysis(earlier, catalog))

    return replace(FORMATS["pdf"], write=write)
