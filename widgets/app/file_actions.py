"""Files for the main window: new, save, save as, recent files, unsaved-changes prompt, autosave and recovery.

Autosave writes the document to this window's recovery session a moment after each change
(debounced, on a thread of its own, so a 100,000-GPU design does not stall the plan) and keeps
its last few versions (:mod:`.recovery_store`). Saving clears the session; closing a document
without saving moves it to a trash kept a week. A session whose window is gone without either
is a crash: at start the user is offered to restore it, and File ▸ Recover offers every version
of every session at any time. Autosave never raises: what it cannot write is reported in the
status bar with the reason. Saving goes through :func:`designer.fileformat.save`, which is atomic.

The autosave writes only into the recovery folder, never the user's file. The file itself is watched
(:mod:`.file_watch`): Save re-reads it first and, when another program changed or deleted it since this
window read or wrote it, asks instead of writing (reload theirs, keep mine under another name, compare,
or overwrite). The fingerprint of the file as read goes with each autosave, so work restored after a
crash is checked against the file the same way.
"""
from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, QStandardPaths, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox

from designer.fileformat import SUFFIX, ProjectFileError, load, save

from .disk_state import DiskState, Fingerprint, describe, fingerprint
from .file_watch import FileWatch
from .recovery_store import TRASH_KEEP_S, RecoveryStore, Session, Version

RECENT_KEY = "recent_files"
MAX_RECENT = 8
#: Quiet time after the last change before the autosave is written.
AUTOSAVE_QUIET_MS = 2_000
#: A failed autosave is tried again this often while the document stays unsaved.
AUTOSAVE_RETRY_MS = 60_000


def default_recovery_dir() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".local" / "share" / "PodPlanner") / "recovery"


def _reason(exc: BaseException) -> str:
    """Why a write failed, in words: the OS's own for a file error, else the message."""
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    return str(exc) or type(exc).__name__


class FileController(QObject):
    """Owns the file actions of one :class:`~widgets.app.main_window.MainWindow`."""

    #: The recent-files list changed.
    recent_changed = Signal()
    #: From the autosave thread: (file written, "") or ("", why it failed).
    autosave_done = Signal(str, str)

    def __init__(self, window, settings: QSettings | None = None, recovery_dir: Path | None = None,
                 quiet_ms: int = AUTOSAVE_QUIET_MS):
        super().__init__(window)
        self.window = window
        self.settings = settings or QSettings()
        self.recovery_dir = Path(recovery_dir) if recovery_dir else default_recovery_dir()
        self.store = RecoveryStore(self.recovery_dir)
        #: Why the last autosave failed; "" after one that worked.
        self.autosave_error = ""
        # One thread, so writes, clears and discards happen in the order they were asked for.
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="autosave")
        self._pending: tuple | None = None
        self._queued = False
        #: Bumped when the pending autosave is dropped (a save, an undo back to it, a discard): a job queued
        #: before that must not write a state handed over after it, which the clear queued between them
        #: would then delete.
        self._generation = 0
        self._mutex = threading.Lock()
        self._dirty_since_write = False
        self.quiet = QTimer(self)  # restarted by each change: the autosave waits for a pause
        self.quiet.setSingleShot(True)
        self.quiet.setInterval(quiet_ms)
        self.quiet.timeout.connect(self.autosave_soon)
        self.timer = QTimer(self)  # a failed autosave is tried again even when nothing changes
        self.timer.setInterval(AUTOSAVE_RETRY_MS)
        self.timer.timeout.connect(self._retry)
        self.timer.start()
        self.autosave_done.connect(self._on_autosave_done)
        #: the open file on disk against what this window last read or wrote
        self.watch = FileWatch(self)
        self._submit(self._quietly, self.store.purge)

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

    def ask_restore(self, session: Session) -> str:
        """'restore', 'later' (keep it, ask again next time) or 'discard'."""
        box = QMessageBox(QMessageBox.Icon.Question, "Recover unsaved work",
                          f"PodPlanner did not close cleanly. Restore {session.describe()}?", parent=self.window)
        box.setInformativeText("Keep for later leaves it in File ▸ Recover unsaved work; Discard keeps a copy for "
                               f"{TRASH_KEEP_S // 86400} days.")
        restore = box.addButton("Restore", QMessageBox.ButtonRole.AcceptRole)
        later = box.addButton("Keep for later", QMessageBox.ButtonRole.RejectRole)
        discard = box.addButton("Discard", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(restore)
        box.setEscapeButton(later)
        box.exec()
        clicked = box.clickedButton()
        return "restore" if clicked is restore else "discard" if clicked is discard else "later"

    def ask_discard(self, session: Session) -> bool:
        answer = QMessageBox.question(
            self.window, "Discard unsaved work",
            f"Discard {session.describe()}? A copy stays in the trash of the recovery folder for "
            f"{TRASH_KEEP_S // 86400} days.")
        return answer == QMessageBox.StandardButton.Yes

    def ask_disk_conflict(self, state: DiskState) -> str:
        """Save found the file changed (or gone) on disk: 'overwrite', 'save_as', 'reload', 'compare' or
        'cancel'."""
        name = Path(self.watch.path).name if self.watch.path else "The file"
        missing = state is DiskState.MISSING
        box = QMessageBox(QMessageBox.Icon.Warning, "File changed on disk",
                          describe(state, name, edited=self.window.document.dirty), parent=self.window)
        box.setInformativeText(
            f"Save {name} again where it was?" if missing else
            f"Saving now replaces what is in {name} with this window's design. "
            "Save mine as… keeps both; Compare shows the two side by side first.")
        buttons = {"overwrite": box.addButton("Save" if missing else "Overwrite",
                                              QMessageBox.ButtonRole.DestructiveRole if not missing
                                              else QMessageBox.ButtonRole.AcceptRole),
                   "save_as": box.addButton("Save mine as…", QMessageBox.ButtonRole.AcceptRole)}
        if not missing:
            buttons["compare"] = box.addButton("Compare…", QMessageBox.ButtonRole.ActionRole)
            buttons["reload"] = box.addButton("Discard mine and reload" if self.window.document.dirty
                                              else "Reload", QMessageBox.ButtonRole.ResetRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(buttons["save_as"])
        box.setEscapeButton(cancel)
        box.exec()
        clicked = box.clickedButton()
        return next((answer for answer, button in buttons.items() if button is clicked), "cancel")

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

    def _may_write(self, path: Path) -> bool:
        """Before writing over the watched file: True when it holds what this window last read or wrote, or
        the user says to write anyway; otherwise what they chose instead is done and nothing is written."""
        if self.watch.path is None or not _same_file(path, self.watch.path):
            return True  # another file: the save dialog asked about replacing it
        state = self.watch.check()
        if state is DiskState.SAME:
            return True
        answer = self.ask_disk_conflict(state)
        if answer == "overwrite":
            return True
        if answer == "save_as":
            self._save_mine_as()
        elif answer == "reload":
            self.reload()
        elif answer == "compare":
            self.window.compare_with(path)
        return False

    def _save_mine_as(self) -> bool:
        """Keep this window's design under another name (asked); the changed file stays as it is."""
        path = self.ask_save_path()
        if not path:
            return False
        return self._write(Path(path))

    def reload(self) -> bool:
        """Open the file as it is on disk now, in place of this window's design (whose unsaved changes are
        autosaved first, so they go to the trash of the recovery folder and not nowhere)."""
        path = self.watch.path
        if path is None:
            return False
        if self.window.document.dirty:
            self.autosave()
        known = fingerprint(path)
        try:
            project = load(path, self.window.catalog)
        except ProjectFileError as exc:
            self.window.show_error(f"{path} cannot be reloaded: {exc}")
            return False
        self.window.adopt_project(project, path, disk=known)
        self.window.statusBar().showMessage(f"Reloaded {path}", 5000)
        return True

    def track(self, path: Path | None, known: Fingerprint | None) -> None:
        """The window's file is now ``path``, holding ``known`` (what the window read or wrote there)."""
        self.watch.follow(path, known)

    def _write(self, path: Path) -> bool:
        if not self._may_write(path):
            return False
        try:
            save(self.window.document.project, path, catalog=self.window.catalog)
        except (OSError, ValueError) as exc:
            self.window.show_error(f"{path}: cannot be saved ({getattr(exc, 'strerror', None) or exc})")
            return False
        self.track(path, fingerprint(path))
        self.window.path = path
        self.window.document.mark_clean()
        self.add_recent(path)
        self._forget_pending()
        self._submit(self._quietly, self.store.clear)  # after any autosave still being written
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

    # -- autosave ---------------------------------------------------------------
    def document_changed(self) -> None:
        """Every change of the document: autosave after a pause, or drop the autosave once back to the saved state."""
        if self.window.document.dirty:
            self._dirty_since_write = True
            self.quiet.start()
        else:
            self.quiet.stop()
            self._forget_pending()
            self._dirty_since_write = False
            self._submit(self._quietly, self.store.clear)  # undone back to what is on disk

    def autosave_soon(self) -> None:
        """Hand the document as it is now to the autosave thread (the project is immutable: no copy)."""
        try:
            document = self.window.document
            if not document.dirty:
                return
            item = (document.project, str(self.window.path) if self.window.path else None,
                    document.project.name or "Untitled project", self.window.catalog, self.watch.known)
        except Exception as exc:  # noqa: BLE001 - autosave must never take the window down
            self._on_autosave_done("", _reason(exc))
            return
        self._dirty_since_write = False
        with self._mutex:
            self._pending = item
            if self._queued:
                return  # the job already queued writes this newer state
            self._queued = True
            generation = self._generation
        self._submit(self._write_pending, generation)

    def autosave(self) -> bool:
        """Write the autosave now and wait for it; True when it wrote (tests, and before a risky step)."""
        self.quiet.stop()
        if not self.window.document.dirty:
            return False
        self.autosave_soon()
        self.flush()
        self._on_autosave_done("", self.autosave_error)  # now, not when the thread's signal arrives
        return not self.autosave_error

    def flush(self) -> None:
        """Wait until every autosave, clear and discard asked for so far is done."""
        self._submit(lambda: None).result()

    def _submit(self, fn, *args) -> Future:
        """Run ``fn`` on the autosave thread after what is queued; once the window closed, here and now."""
        try:
            return self._pool.submit(fn, *args)
        except RuntimeError:  # shut down: a second close, or a late signal
            done: Future = Future()
            try:
                done.set_result(fn(*args))
            except Exception as exc:  # noqa: BLE001 - handed to whoever waits on it, as the pool would
                done.set_exception(exc)
            return done

    def _write_pending(self, generation: int) -> None:
        with self._mutex:
            if generation != self._generation:
                return  # dropped since: a newer job writes what came after
            item, self._pending, self._queued = self._pending, None, False
        if item is None:
            return
        try:
            project, original, title, catalog, known = item
            path = self.store.write(project, original, title, catalog=catalog, original_disk=known)
        except Exception as exc:  # noqa: BLE001 - reported in the status bar, never raised
            self.autosave_error = _reason(exc)
            self.autosave_done.emit("", self.autosave_error)
        else:
            self.autosave_error = ""
            self.autosave_done.emit(str(path), "")

    def _forget_pending(self) -> None:
        self.quiet.stop()
        with self._mutex:
            self._pending, self._queued = None, False
            self._generation += 1

    def _retry(self) -> None:
        if self.window.document.dirty and (self.autosave_error or self._dirty_since_write):
            self.autosave_soon()

    def _on_autosave_done(self, path: str, error: str) -> None:
        show = getattr(self.window, "show_autosave_state", None)
        if show is not None:
            show(error)
        if error:
            self.window.statusBar().showMessage(f"Autosave failed: {error}", 15000)

    def _quietly(self, fn, *args) -> None:
        """Run a recovery-folder step on the autosave thread; a failure is reported, never raised."""
        try:
            fn(*args)
        except Exception as exc:  # noqa: BLE001 - the recovery folder is a convenience: never fatal
            self.autosave_error = _reason(exc)
            self.autosave_done.emit("", self.autosave_error)

    @property
    def recovery_path(self) -> Path | None:
        """This window's newest autosave, if there is one."""
        self.flush()
        return self.store.latest_path()

    def discard_recovery(self) -> None:
        """The document is closed without being saved: its autosaves go to the trash for a week."""
        self._forget_pending()
        self._dirty_since_write = False
        self._submit(self._quietly, self.store.discard)

    def shutdown(self) -> None:
        """The window closes (its document saved or discarded already): finish what was asked, then stop."""
        self.quiet.stop()
        self.timer.stop()
        self._submit(self._quietly, self.store.close)
        self._pool.shutdown(wait=True)

    # -- recovery ---------------------------------------------------------------
    def orphaned_recoveries(self) -> list[Session]:
        """Sessions whose window is gone without saving or discarding (a crash), newest first."""
        self.flush()
        return self.store.orphans()

    def own_versions(self) -> list[Version]:
        """This window's autosaved versions, newest first."""
        self.flush()
        own = self.store.own()
        return list(own.versions) if own else []

    def trashed(self) -> list[Session]:
        self.flush()
        return self.store.trashed()

    def offer_recovery(self) -> bool:
        """At start-up: offer each crash's work; restore the first the user accepts. Sessions the user
        keeps for later are offered again next time (and in File ▸ Recover)."""
        for session in self.orphaned_recoveries():
            answer = self.ask_restore(session)
            if answer is True or answer == "restore":
                if self.restore(session):
                    return True
            elif answer == "discard" and self.ask_discard(session):
                self._submit(self._quietly, self.store.discard_session, session).result()
        return False

    def restore(self, session: Session, version: Version | None = None) -> bool:
        """Open ``version`` (by default the newest) of another window's session, or of one in the trash, as
        this window's unsaved document; the session becomes this window's, so nothing of it is lost."""
        version = version or session.latest
        try:
            project = load(version.path, self.window.catalog)
        except ProjectFileError as exc:
            self.window.show_error(f"This autosave cannot be opened and is kept as it is: {exc}")
            return False
        self.window.adopt_project(project, Path(session.original) if session.original else None, dirty=True,
                                  disk=session.original_disk)
        try:
            self._submit(self.store.adopt, session).result()
        except OSError as exc:
            # the work is open; the next autosave writes it into this window's own session
            self.window.statusBar().showMessage(f"The autosave stays where it was: {_reason(exc)}", 15000)
            self.autosave_soon()
        return True

    def go_back_to(self, version: Version) -> bool:
        """Open an earlier autosave of this window's own document; the versions after it are kept."""
        try:
            project = load(version.path, self.window.catalog)
        except ProjectFileError as exc:
            self.window.show_error(f"This autosave cannot be opened: {exc}")
            return False
        self.autosave()  # the edits since the last autosave become the newest version, not lost
        self.window.adopt_project(project, self.window.path, dirty=True, keep_autosaves=True)
        self.store.start_new_version()
        self.autosave_soon()
        return True

    def discard_session(self, session: Session) -> bool:
        """File ▸ Recover ▸ Discard: after asking, to the trash for a week."""
        if not self.ask_discard(session):
            return False
        self._submit(self._quietly, self.store.discard_session, session).result()
        return True


def _same_file(a: Path, b: Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return Path(a).absolute() == Path(b).absolute()
