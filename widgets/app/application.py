"""Start the GUI: ``run_app(path, catalog)`` is what ``podplanner gui`` calls.

A file that cannot be opened never ends in a traceback: the error is one line
on stderr (for the command line) and in a message box, and the window starts
with an empty project (and still offers what a crash left in the recovery folder).
Any other uncaught error goes to the log file and a message box (:mod:`.error_log`),
and makes the exit code 1.
"""
from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from catalog import Catalog
from catalog.files import sweep_temporaries
from designer import samples
from designer.fileformat import ProjectFileError, load

from . import error_log, file_limit, welcome
from .disk_state import fingerprint
from .main_window import APP_NAME, MainWindow


def application() -> QApplication:
    """The process's QApplication, created once with PodPlanner's names (settings paths use them)."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    return app


def run_app(path: str | None, catalog: Catalog, quit_after_s: float | None = None) -> int:
    """Open the window and run until it closes; 0, or 1 when an uncaught error was logged meanwhile.

    ``quit_after_s``: quit by itself after that many seconds, as a smoke test of a built app needs.
    """
    app = application()
    file_limit.apply_saved(QSettings())  # before the first file is read
    error_log.install(app)
    errors_before = error_log.error_count()
    try:
        window = _open_window(path, catalog, offer_recovery=quit_after_s is None)
    except Exception as exc:  # noqa: BLE001 - a window that cannot be built must say why, not vanish
        error_log.report_exception(exc)
        error_log.uninstall()
        return 1
    # A timer object, not a single shot: one still pending once the window was closed by hand would
    # stop the next event loop that runs in this process.
    quit_timer = QTimer(window)
    quit_timer.setSingleShot(True)
    quit_timer.timeout.connect(lambda: _quit(app, window))
    if quit_after_s is not None:
        quit_timer.start(max(0, round(quit_after_s * 1000)))
    try:
        code = app.exec()
    finally:
        quit_timer.stop()
        error_log.uninstall()
    return 1 if error_log.error_count() > errors_before else code


def _open_window(path: str | None, catalog: Catalog, offer_recovery: bool = True) -> MainWindow:
    target = path or str(samples.DEFAULT)
    project, error = None, None
    known = fingerprint(target)  # before reading: a change made meanwhile shows as one
    try:
        project = load(target, catalog)
    except ProjectFileError as exc:
        error = str(exc)
        print(f"podplanner: error: {error}", file=sys.stderr)
    window = MainWindow(catalog, project, path if project is not None else None, disk=known)
    if window.first_start:
        # The screen's whole work area first: without a window manager (a kiosk, a remote X session) the
        # maximise request alone leaves the window at its default size.
        screen = window.screen() or QApplication.primaryScreen()
        if screen is not None:
            window.setGeometry(screen.availableGeometry())
        window.showMaximized()
    else:
        window.show()
    window.view.fit_hall()
    welcome.show_on_first_start(window)
    if error and file_limit.too_large(target) is not None:
        # larger than the limit: the window asks whether to raise it and open the file, else says why not
        QTimer.singleShot(0, window, lambda: window.open_path(target))
    elif error:
        window.last_error = error
        QTimer.singleShot(0, window, lambda: window.show_error(error))
    if catalog.warnings:
        QTimer.singleShot(0, window, lambda: show_catalog_warnings(window, catalog.warnings))
    if offer_recovery:  # not in a timed smoke run; and also when the file failed: the work may be in an autosave
        QTimer.singleShot(0, window, window.files.offer_recovery)
    _sweep_temporaries(window, target)
    return window


def show_catalog_warnings(window: MainWindow, warnings: tuple[str, ...]) -> None:
    """A broken user catalog folder or entry: the rest of the catalog works, so the window opens; the user
    is told what was left out, in the status bar and, whole, in the log."""
    for line in warnings:
        error_log.log_warning(f"catalog: {line}")
    more = f" (and {len(warnings) - 1} more; see the log)" if len(warnings) > 1 else ""
    window.statusBar().showMessage(f"Catalog: {warnings[0]}{more}", 30000)


def _sweep_temporaries(window: MainWindow, target: str) -> None:
    """Remove what saves killed half-way left beside the files this user works on (each write also sweeps
    its own folder, but a folder only read from would keep them)."""
    folders = {Path(target).parent} | {Path(p).parent for p in window.files.recent_files()}
    for folder in folders:
        sweep_temporaries(folder)


def _quit(app: QApplication, window: MainWindow) -> None:
    # Exit first: every event loop then returns at once, so a question the close may raise (unsaved
    # changes, a recovery offer still open) cannot wait for a click that never comes.
    app.exit(0)
    # Closing the last window would post a quit that outlives this loop and closes the windows of
    # whoever runs the next one in this process.
    quit_on_close = app.quitOnLastWindowClosed()
    app.setQuitOnLastWindowClosed(False)
    try:
        window.close()
    finally:
        app.setQuitOnLastWindowClosed(quit_on_close)
