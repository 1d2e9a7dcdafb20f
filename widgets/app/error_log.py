"""Uncaught errors go to a log file and a message box, never to a silent exit.

A packaged PodPlanner has no console: an exception in a slot would otherwise
vanish, and support would have nothing to go on. :func:`install` routes every
uncaught exception, on the GUI thread or any other, to ``podplanner.log`` with
its traceback, and tells the user in a message box where that file is. Each
start adds a line naming the version, Python, Qt and platform, so a log sent in
says what ran.

The log stays small: past :data:`MAX_BYTES` it becomes ``podplanner.log.1``
(replacing the older backup) and a new file starts. A log folder that cannot be
written is replaced by one in the temporary folder, and the log says so. Nothing
here raises: a failing error handler would itself end in the silent exit it is
there to prevent.
"""
from __future__ import annotations

import getpass
import os
import platform
import sys
import tempfile
import threading
import time
import traceback
from contextlib import suppress
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QObject, QStandardPaths, Qt, QUrl, Signal, qVersion
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox

LOG_NAME = "podplanner.log"
#: Size past which the log is moved to its ``.1`` backup and a new one begins.
MAX_BYTES = 1_000_000
FALLBACK_APP_NAME = "PodPlanner"


def default_log_dir() -> Path:
    """Where the log goes when that folder can be written: the app's local data folder, ``logs``."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation)
    if not base:
        base = str(Path.home() / ".local" / "share" / FALLBACK_APP_NAME)
    return Path(base) / "logs"


def fallback_log_dir() -> Path:
    # One folder per user: a shared name in the temporary folder could be another user's, or a planted link.
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name known: the process id keeps it apart
        user = str(os.getpid())
    return Path(tempfile.gettempdir()) / f"{FALLBACK_APP_NAME}-{user}" / "logs"


class _Reporter(QObject):
    """Lives on the GUI thread: a worker thread's error reaches the message box through its queued signal."""

    report = Signal(str, str, str)  # summary, traceback, repeat key

    def __init__(self, parent: QObject | None):
        super().__init__(parent)
        self.report.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def _show(self, summary: str, details: str, key: str) -> None:
        _log.announce(summary, details, key)


class _Log:
    def __init__(self):
        self.lock = threading.RLock()
        self.path: Path | None = None
        #: why the log is not where it should be ("" when it is)
        self.fallback_note = ""
        self.errors = 0
        self.installed = False
        self.previous_hook = None
        self.previous_thread_hook = None
        self.reporter: _Reporter | None = None
        self.box_open = False
        #: errors already shown once: an error raised on every repaint is logged each time, boxed once
        self.boxed: set[str] = set()

    # -- the file -------------------------------------------------------------
    def choose(self, preferred: Path) -> None:
        self.fallback_note = ""
        self.path = _writable_log(preferred)
        if self.path is None:
            fallback = fallback_log_dir()
            self.path = _writable_log(fallback)
            reason = _last_write_error.get(str(preferred), "it cannot be written")
            if self.path is not None:
                self.fallback_note = f"the log folder {preferred} cannot be written ({reason}); logging to {fallback}"
            else:
                self.fallback_note = f"neither {preferred} nor {fallback} can be written ({reason}); no log file"

    def write(self, text: str) -> bool:
        """Append ``text`` to the log; True when it went there, False when it went to stderr instead."""
        if not text.endswith("\n"):
            text += "\n"
        with self.lock:
            if self.path is not None:
                try:
                    _rotate(self.path, len(text.encode("utf-8")))
                    with open(self.path, "a", encoding="utf-8", errors="replace") as f:
                        f.write(text)
                    return True
                except OSError as exc:
                    _echo(f"{FALLBACK_APP_NAME}: cannot write the log {self.path}: {exc}")
            _echo(text)
            return False

    # -- errors ---------------------------------------------------------------
    def record(self, exc_type, exc, tb, thread_name: str = "") -> tuple[str, str, str]:
        details = "".join(traceback.format_exception(exc_type, exc, tb))
        where = f" in thread {thread_name}" if thread_name else ""
        with self.lock:
            self.errors += 1
        if self.write(f"{_stamp()} ERROR uncaught exception{where}\n{details}"):
            _echo(details)  # a terminal, when there is one, shows it too
        summary = f"{exc_type.__name__}: {exc}" if str(exc) else exc_type.__name__
        last = traceback.extract_tb(tb)[-1] if tb is not None else None
        key = f"{exc_type.__name__}|{exc}|{last.filename}:{last.lineno}" if last else f"{exc_type.__name__}|{exc}"
        return summary, details, key

    def announce(self, summary: str, details: str, key: str) -> None:
        """Show the box for one error, unless one is open or this same error was shown already."""
        if self.box_open or key in self.boxed:
            return
        self.boxed.add(key)
        self.box_open = True
        try:
            show_error_box(error_text(summary, self.path, self.fallback_note), details)
        except Exception:  # noqa: BLE001 - the box failing must not raise from an error handler
            self.write(f"{_stamp()} ERROR the error message box could not be shown\n{traceback.format_exc()}")
        finally:
            self.box_open = False


_log = _Log()
_last_write_error: dict[str, str] = {}


def _writable_log(folder: Path) -> Path | None:
    path = folder / LOG_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)  # can the file be created or appended to, not only the folder
    except OSError as exc:
        _last_write_error[str(folder)] = exc.strerror or str(exc)
        return None
    return path


def _rotate(path: Path, incoming: int) -> None:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if size and size + incoming > MAX_BYTES:
        os.replace(path, path.with_name(path.name + ".1"))


def _stamp() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


def _echo(text: str) -> None:
    """Also to stderr when there is one (a packaged windowed app has none), so a terminal shows the traceback."""
    stream = sys.stderr
    if stream is None:
        return
    with suppress(OSError, ValueError):  # a closed or broken stream: the log still has it
        stream.write(text if text.endswith("\n") else text + "\n")
        stream.flush()


def startup_line() -> str:
    """What ran: PodPlanner's version, Python, Qt and PySide6, the platform, packaged or not."""
    import PySide6

    from designer import __version__

    runtime = "packaged" if getattr(sys, "frozen", False) else sys.executable
    return (f"PodPlanner {__version__} | Python {platform.python_version()} ({runtime}) | "
            f"Qt {qVersion()}, PySide6 {PySide6.__version__} | {platform.platform()}")


def error_text(summary: str, path: Path | None, fallback_note: str = "") -> str:
    """The message box's text: what went wrong in one line, and the full path of the file with the details."""
    text = (f"{FALLBACK_APP_NAME} hit an unexpected error:\n{summary}\n\n"
            "The window stays open, but the last action may not have completed; "
            "check your design, and save it under a new name if anything looks wrong.\n\n")
    if path is not None:
        text += f"The details were written to\n{path}\nPlease send this file with your report."
    else:
        text += "The details could not be written to a log file."
    if fallback_note:
        text += f"\n\n(Note: {fallback_note}.)"
    return text


def show_error_box(text: str, details: str) -> None:
    """The modal box for an uncaught error (tests replace it, as they do ``MainWindow.show_error``)."""
    app = QApplication.instance()
    if app is None:
        return
    box = QMessageBox(QMessageBox.Icon.Critical, QCoreApplication.applicationName() or FALLBACK_APP_NAME, text,
                      QMessageBox.StandardButton.Close, QApplication.activeWindow())
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.setDetailedText(details)
    path = _log.path
    folder_button = box.addButton("Open log folder", QMessageBox.ButtonRole.ActionRole) if path else None
    box.exec()
    if folder_button is not None and box.clickedButton() is folder_button:
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(path.parent)))


# -- hooks ------------------------------------------------------------------------
def _excepthook(exc_type, exc, tb) -> None:
    with suppress(BaseException):  # an excepthook that raises is itself reported nowhere
        if issubclass(exc_type, KeyboardInterrupt) and _log.previous_hook is not None:
            _log.previous_hook(exc_type, exc, tb)
            return
        summary, details, key = _log.record(exc_type, exc, tb)
        _request_box(summary, details, key)


def _thread_hook(args) -> None:
    with suppress(BaseException):  # as in _excepthook
        if args.exc_type is SystemExit:  # as the default hook: a thread ending itself is not an error
            return
        name = args.thread.name if args.thread is not None else ""
        summary, details, key = _log.record(args.exc_type, args.exc_value, args.exc_traceback, name)
        _request_box(summary, details, key)


def _request_box(summary: str, details: str, key: str) -> None:
    # Always queued, even on the GUI thread: the error may come from inside a paint or a drag,
    # where a modal loop must not start.
    reporter = _log.reporter
    if reporter is not None:
        reporter.report.emit(summary, details, key)


# -- public -----------------------------------------------------------------------
def install(app: QCoreApplication | None, *, log_dir: Path | None = None) -> Path | None:
    """Send uncaught exceptions (``sys.excepthook``, ``threading.excepthook``) to the log and a message box.

    Writes the start-up line; returns the log file (None when no folder at all could be written).
    Installing again only starts a new log location and start-up line; :func:`uninstall` restores
    the hooks that were there before the first install.
    """
    try:
        _log.choose(Path(log_dir) if log_dir is not None else default_log_dir())
        _log.write(f"{_stamp()} START {startup_line()}")
        if _log.fallback_note:
            _log.write(f"{_stamp()} WARNING {_log.fallback_note}")
        if not _log.installed:
            _log.previous_hook = sys.excepthook
            _log.previous_thread_hook = threading.excepthook
            _log.installed = True
        sys.excepthook = _excepthook
        threading.excepthook = _thread_hook
        if _log.reporter is not None:
            _log.reporter.deleteLater()
        _log.reporter = _Reporter(app)
        _log.boxed.clear()
    except Exception as exc:  # noqa: BLE001 - start-up must go on without a log rather than fail on it
        _echo(f"{FALLBACK_APP_NAME}: the error log could not be set up: {exc}")
    return _log.path


def uninstall() -> None:
    """Put back the hooks :func:`install` replaced (the caller gets the process back as it was)."""
    if not _log.installed:
        return
    sys.excepthook = _log.previous_hook
    threading.excepthook = _log.previous_thread_hook
    _log.installed = False
    if _log.reporter is not None:
        _log.reporter.deleteLater()
        _log.reporter = None


def report_exception(exc: BaseException) -> None:
    """Log ``exc`` and show the box now (for an error caught before the event loop runs, e.g. at start-up)."""
    with suppress(BaseException):  # reporting a failure must not become one
        summary, details, key = _log.record(type(exc), exc, exc.__traceback__)
        _log.announce(summary, details, key)


def log_path() -> Path:
    """The log file: the one in use once installed, else where :func:`install` will put it."""
    return _log.path if _log.path is not None else default_log_dir() / LOG_NAME


def fallback_note() -> str:
    """Why the log is not in its usual folder ("" when it is)."""
    return _log.fallback_note


def log_start_failure(text: str) -> Path | None:
    """Write why the app could not start (no window was ever shown) to the log; the log file, or None."""
    try:
        if _log.path is None:
            _log.choose(default_log_dir())
        _log.write(f"{_stamp()} START-FAILED {startup_line()}\n{text.rstrip()}")
    except Exception:  # noqa: BLE001 - never fail while reporting a failure
        return None
    return _log.path


def log_warning(text: str) -> None:
    """One line in the log marked WARNING (not counted as an error): a problem the user is told of in the window."""
    _log.write(f"{_stamp()} WARNING {text}")


def error_count() -> int:
    """Uncaught errors logged in this process so far."""
    return _log.errors
