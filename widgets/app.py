"""Start the GUI: ``run_app(path, catalog)`` is what ``podplanner gui`` calls.

A file that cannot be opened never ends in a traceback: the error is one line
on stderr (for the command line) and in a message box, and the window starts
with an empty project.
"""
from __future__ import annotations

import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from catalog import Catalog
from designer import samples
from designer.fileformat import ProjectFileError, load

from .main_window import APP_NAME, MainWindow


def application() -> QApplication:
    """The process's QApplication, created once with PodPlanner's names (settings paths use them)."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setApplicationDisplayName(APP_NAME)
    return app


def run_app(path: str | None, catalog: Catalog) -> int:
    app = application()
    target = path or str(samples.DEFAULT)
    project, error = None, None
    try:
        project = load(target, catalog)
    except ProjectFileError as exc:
        error = str(exc)
        print(f"podplanner: error: {error}", file=sys.stderr)
    window = MainWindow(catalog, project, path if project is not None else None)
    if window.first_start:
        window.showMaximized()
    else:
        window.show()
    window.view.fit_hall()
    if error:
        window.last_error = error
        QTimer.singleShot(0, window, lambda: window.show_error(error))
    else:
        QTimer.singleShot(0, window, window.files.offer_recovery)
    return app.exec()
