"""Widget tests run headless: the offscreen platform must be chosen before Qt is imported."""
from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import QSettings, QStandardPaths  # noqa: E402


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory):
    """Keep tests away from the user's settings, recent files and recovery folder, and from each other's: a
    workspace, a dock size or the heat map left on by one test must not become the next one's start."""
    QStandardPaths.setTestModeEnabled(True)
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                      str(tmp_path_factory.mktemp("settings")))
    yield


@pytest.fixture(autouse=True)
def _no_modal_dialogs(monkeypatch):
    """A modal box would block an offscreen test: closing an edited window discards, errors are recorded."""
    from widgets.app.file_actions import FileController
    from widgets.app.main_window import MainWindow

    monkeypatch.setattr(FileController, "ask_save_changes", lambda self: "discard")
    monkeypatch.setattr(FileController, "ask_restore", lambda self, recovery: False)
    monkeypatch.setattr(FileController, "ask_save_path", lambda self: None)
    monkeypatch.setattr(MainWindow, "show_error", lambda self, text: self.statusBar().showMessage(text))


@pytest.fixture
def window(qtbot, catalog):
    """A main window on the bundled sample, shown at 1400 x 900 (test files may define their own)."""
    from widgets.app.main_window import MainWindow

    w = MainWindow(catalog)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.fixture
def synced_window(qtbot, catalog):
    """``synced_window(sample=None)``: a window shown at 1400 x 900 whose engines run inside each request (every
    edit has its analysis at once), on ``sample`` when one is given."""
    from widgets.app.main_window import MainWindow

    def make(sample=None):
        w = MainWindow(catalog, debounce_ms=0)
        w.runner.sync = True
        qtbot.addWidget(w)
        w.resize(1400, 900)
        w.show()
        qtbot.waitExposed(w)
        if sample is not None:
            assert w.open_path(sample), w.last_error
        return w

    return make
