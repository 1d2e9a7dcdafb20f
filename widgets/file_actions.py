"""Files for the main window: new, save, save as, recent files, unsaved-changes prompt, autosave and recovery.

Autosave writes the document to a recovery file every minute while it has unsaved
changes; a clean close removes it. A recovery file still present at start-up whose
writer process is gone means a crash: the user is offered to restore it. Saving
goes through :func:`designer.fileformat.save`, which is atomic.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QStandardPaths, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox

from designer.fileformat import SUFFIX, ProjectFileError, load, save

RECENT_KEY = "recent_files"
MAX_RECENT = 8
AUTOSAVE_MS = 60_000


def default_recovery_dir() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".local" / "share" / "PodPlanner") / "recovery"


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True)
class Recovery:
    """A recovery file left by a session that did not close cleanly."""

    path: Path
    original: str | None
    saved_at: float

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.saved_at))
        return f"{self.original or 'an unsaved project'} (autosaved {when})"


class FileController(QObject):
    """Owns the file actions of one :class:`~widgets.main_window.MainWindow`."""

    #: The recent-files list changed.
    recent_changed = Signal()

    def __init__(self, window, settings: QSettings | None = None, recovery_dir: Path | None = None,
                 autosave_ms: int = AUTOSAVE_MS):
        super().__init__(window)
        self.window = window
        self.settings = settings or QSettings()
        self.recovery_dir = Path(recovery_dir) if recovery_dir else default_recovery_dir()
        self.recovery_path = self.recovery_dir / f"autosave-{os.getpid()}{SUFFIX}"
        self.timer = QTimer(self)
        self.timer.setInterval(autosave_ms)
        self.timer.timeout.connect(self.autosave)
        self.timer.start()

    # -- questions (tests replace these to avoid modal dialogs) ---------------
    def ask_save_changes(self) -> str:
        """'save', 'discard' or 'cancel'."""
        box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved changes",
                          f"Save the changes to {self.window.project.name}?",
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self.window)
        answer = box.exec()
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(QMessageBox.StandardButton(answer), "cancel")

    def ask_save_path(self) -> str | None:
        start = str(self.window.path) if self.window.path else f"{self.window.project.name}{SUFFIX}"
        path, _ = QFileDialog.getSaveFileName(self.window, "Save project", start,
                                              "PodPlanner projects (*.podplan.json)")
        if path and not path.endswith(".json"):
            path += SUFFIX
        return path or None

    def ask_restore(self, recovery: Recovery) -> bool:
        answer = QMessageBox.question(self.window, "Recover unsaved work",
                                      f"PodPlanner did not close cleanly. Restore {recovery.describe()}?")
        return answer == QMessageBox.StandardButton.Yes

    # -- saving -------------------------------------------------------------
    def save(self) -> bool:
        if self.window.path is None:
            return self.save_as()
        return self._write(Path(self.window.path))

    def save_as(self, path: str | Path | None = None) -> bool:
        path = path or self.ask_save_path()
        if not path:
            return False
        return self._write(Path(path))

    def _write(self, path: Path) -> bool:
        try:
            save(self.window.document.project, path)
        except (OSError, ValueError) as exc:
            self.window.show_error(f"{path}: cannot be saved ({getattr(exc, 'strerror', None) or exc})")
            return False
        self.window.path = path
        self.window.document.mark_clean()
        self.add_recent(path)
        self.discard_recovery()
        self.window.update_title()
        self.window.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    def maybe_save(self) -> bool:
        """Before the document goes away: True when it may (saved, discarded or clean)."""
        if not self.window.document.dirty:
            return True
        answer = self.ask_save_changes()
        if answer == "save":
            return self.save()
        return answer == "discard"

    # -- recent files -------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.settings.value(RECENT_KEY, [])
        if isinstance(value, str):
            value = [value]
        return [p for p in (value or []) if isinstance(p, str)]

    def add_recent(self, path: str | Path) -> None:
        path = str(Path(path).resolve())
        files = [path] + [p for p in self.recent_files() if p != path]
        self.settings.setValue(RECENT_KEY, files[:MAX_RECENT])
        self.recent_changed.emit()

    def clear_recent(self) -> None:
        self.settings.setValue(RECENT_KEY, [])
        self.recent_changed.emit()

    # -- autosave and recovery ---------------------------------------------
    def autosave(self) -> bool:
        """Write the recovery file if there is unsaved work; True when it wrote."""
        if not self.window.document.dirty:
            self.discard_recovery()  # back to the saved state (undo, or changes discarded)
            return False
        try:
            self.recovery_dir.mkdir(parents=True, exist_ok=True)
            save(self.window.document.project, self.recovery_path, pretty=False)
            meta = {"pid": os.getpid(), "original": str(self.window.path) if self.window.path else None,
                    "saved_at": time.time()}
            self.recovery_path.with_suffix(".meta").write_text(json.dumps(meta), encoding="utf-8")
        except OSError as exc:
            self.window.statusBar().showMessage(f"Autosave failed: {exc.strerror or exc}", 10000)
            return False
        return True

    def discard_recovery(self) -> None:
        for p in (self.recovery_path, self.recovery_path.with_suffix(".meta")):
            p.unlink(missing_ok=True)

    def orphaned_recoveries(self) -> list[Recovery]:
        """Recovery files whose writing process is gone (a crash), newest first."""
        if not self.recovery_dir.is_dir():
            return []
        found = []
        for path in self.recovery_dir.glob(f"autosave-*{SUFFIX}"):
            meta_path = path.with_suffix(".meta")
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                meta = {}
            pid = meta.get("pid") if isinstance(meta.get("pid"), int) else -1
            if path == self.recovery_path or _pid_alive(pid):
                continue
            found.append(Recovery(path, meta.get("original"), float(meta.get("saved_at") or path.stat().st_mtime)))
        return sorted(found, key=lambda r: r.saved_at, reverse=True)

    def offer_recovery(self) -> bool:
        """At start-up: offer each crash's recovery file; open the first the user accepts."""
        for rec in self.orphaned_recoveries():
            if self.ask_restore(rec):
                try:
                    project = load(rec.path, self.window.catalog)
                except ProjectFileError as exc:
                    self.window.show_error(f"recovery file is damaged: {exc}")
                    self._remove(rec.path)
                    continue
                self.window.adopt_project(project, Path(rec.original) if rec.original else None, dirty=True)
                self._remove(rec.path)
                return True
            self._remove(rec.path)
        return False

    @staticmethod
    def _remove(path: Path) -> None:
        for p in (path, path.with_suffix(".meta")):
            p.unlink(missing_ok=True)
