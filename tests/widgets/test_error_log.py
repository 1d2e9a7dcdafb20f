"""Uncaught errors: written to the log with their traceback, shown in a box naming the log, never a silent exit."""
from __future__ import annotations

import platform
import sys
import threading

import PySide6
import pytest
import shiboken6
from PySide6.QtCore import QEventLoop, QTimer, qVersion
from PySide6.QtWidgets import QApplication

from designer import __version__
from designer.fileformat import save
from designer.model import Project
from widgets.app import application as app_module
from widgets.app import error_log, welcome
from widgets.app.main_window import MainWindow


@pytest.fixture
def boxes(monkeypatch):
    """The error boxes the user would have seen, as (text, details)."""
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(error_log, "show_error_box", lambda text, details: shown.append((text, details)))
    return shown


@pytest.fixture
def installed(qapp, tmp_path, boxes):
    """The log installed into tmp_path/logs; the hooks put back afterwards."""
    path = error_log.install(qapp, log_dir=tmp_path / "logs")
    yield path
    error_log.uninstall()


def _raise_in_slot(marker: str) -> None:
    raise ValueError(marker)


def test_an_error_in_a_slot_is_logged_and_shown(installed, boxes, qtbot, qapp):
    assert installed is not None and installed == error_log.log_path()
    before = error_log.error_count()
    QTimer.singleShot(0, lambda: _raise_in_slot("slot-failure-1"))
    qtbot.waitUntil(lambda: bool(boxes))
    log = installed.read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in log
    assert "ValueError: slot-failure-1" in log and "_raise_in_slot" in log
    assert error_log.error_count() == before + 1
    [(text, details)] = boxes
    assert str(installed) in text
    assert "ValueError: slot-failure-1" in text and "_raise_in_slot" in details


def test_every_start_writes_what_ran(installed):
    line = next(line for line in installed.read_text(encoding="utf-8").splitlines() if " START " in line)
    assert f"PodPlanner {__version__}" in line
    assert f"Python {platform.python_version()}" in line
    assert f"Qt {qVersion()}" in line and f"PySide6 {PySide6.__version__}" in line
    assert platform.platform() in line


def test_an_error_in_a_thread_reaches_the_box_on_the_gui_thread(installed, boxes, qtbot):
    thread = threading.Thread(target=_raise_in_slot, args=("thread-failure",), name="podplanner-test-worker")
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: bool(boxes))
    log = installed.read_text(encoding="utf-8")
    assert "in thread podplanner-test-worker" in log and "ValueError: thread-failure" in log
    assert str(installed) in boxes[0][0]


def test_the_same_error_again_is_logged_but_boxed_once(installed, boxes, qtbot, qapp):
    start = error_log.error_count()
    for n in range(1, 4):
        QTimer.singleShot(0, lambda: _raise_in_slot("repeated"))
        qtbot.waitUntil(lambda n=n: error_log.error_count() == start + n)
    for _ in range(5):
        qapp.processEvents()
    assert installed.read_text(encoding="utf-8").count("ValueError: repeated") == 3
    assert len(boxes) == 1


def test_the_log_is_rotated_into_one_backup(installed, monkeypatch, qtbot):
    monkeypatch.setattr(error_log, "MAX_BYTES", 3000)
    for i in range(12):
        QTimer.singleShot(0, lambda i=i: _raise_in_slot(f"rotation {i} " + "x" * 200))
        qtbot.waitUntil(lambda i=i: f"rotation {i} " in installed.read_text(encoding="utf-8"))
    backup = installed.with_name(installed.name + ".1")
    assert backup.is_file()
    assert installed.stat().st_size <= 3000 and backup.stat().st_size <= 3000
    assert sorted(p.name for p in installed.parent.iterdir()) == [installed.name, backup.name]
    assert "rotation 11 " in installed.read_text(encoding="utf-8")


def test_an_unwritable_log_folder_falls_back_to_the_temp_folder(qapp, tmp_path, monkeypatch, boxes, qtbot):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the log folder should be")
    fallback = tmp_path / "temp" / "PodPlanner" / "logs"
    monkeypatch.setattr(error_log, "fallback_log_dir", lambda: fallback)
    try:
        path = error_log.install(qapp, log_dir=blocker / "logs")
        assert path == fallback / error_log.LOG_NAME == error_log.log_path()
        assert str(blocker / "logs") in error_log.fallback_note() and str(fallback) in error_log.fallback_note()
        log = path.read_text(encoding="utf-8")
        assert " START " in log and "WARNING the log folder" in log
        QTimer.singleShot(0, lambda: _raise_in_slot("after fallback"))
        qtbot.waitUntil(lambda: bool(boxes))
        assert str(path) in boxes[0][0] and str(fallback) in boxes[0][0]
        assert "ValueError: after fallback" in path.read_text(encoding="utf-8")
    finally:
        error_log.uninstall()


def test_no_writable_folder_at_all_never_raises(qapp, tmp_path, monkeypatch, boxes, qtbot, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setattr(error_log, "fallback_log_dir", lambda: blocker / "temp")
    try:
        assert error_log.install(qapp, log_dir=blocker / "logs") is None
        QTimer.singleShot(0, lambda: _raise_in_slot("nowhere to log"))
        qtbot.waitUntil(lambda: bool(boxes))
        assert "could not be written to a log file" in boxes[0][0]
        assert "ValueError: nowhere to log" in capsys.readouterr().err
    finally:
        error_log.uninstall()


def test_uninstall_puts_the_hooks_back(qapp, tmp_path):
    hook, thread_hook = sys.excepthook, threading.excepthook
    error_log.install(qapp, log_dir=tmp_path)
    error_log.install(qapp, log_dir=tmp_path)  # twice: the hooks before the first are still the ones put back
    assert sys.excepthook is not hook and threading.excepthook is not thread_hook
    error_log.uninstall()
    assert sys.excepthook is hook and threading.excepthook is thread_hook


# -- run_app ----------------------------------------------------------------------
@pytest.fixture
def run(qapp, tmp_path, monkeypatch, boxes):
    """``run_app`` on a tiny project, its log in tmp_path; the windows it opened are disposed of afterwards."""
    monkeypatch.setattr(error_log, "default_log_dir", lambda: tmp_path / "logs")
    project = tmp_path / "tiny.podplan.json"
    save(Project(name="Tiny"), project)
    before = set(QApplication.topLevelWidgets())
    yield project
    for w in set(QApplication.topLevelWidgets()) - before:
        if isinstance(w, MainWindow) and shiboken6.isValid(w):
            w.close()
            w.deleteLater()


def _run_app(project, catalog, **kw) -> int:
    return app_module.run_app(str(project), catalog, **kw)


def _opened(before) -> MainWindow:
    [window] = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w not in before]
    return window


def test_quit_after_returns_0(run, tmp_path, catalog, boxes, qtbot, qapp):
    before = set(QApplication.topLevelWidgets())
    hook = sys.excepthook
    assert _run_app(run, catalog, quit_after_s=0.5) == 0
    # nothing of that run is left to stop the event loops of what runs next in this process (a quit
    # posted by the window's close would make every later loop return at once)
    qapp.processEvents()
    loop = QEventLoop()
    QTimer.singleShot(20, loop.quit)
    assert loop.exec() == 0
    window = _opened(before)
    assert not window.isVisible()  # closed, so its engines and exports were shut down
    assert window.project.name == "Tiny"
    assert welcome.overlay_of(window) is not None  # a first start: the overlay was shown
    assert boxes == []
    assert sys.excepthook is hook
    assert " START " in (tmp_path / "logs" / error_log.LOG_NAME).read_text(encoding="utf-8")


def test_an_error_during_the_run_makes_it_1(run, tmp_path, catalog, boxes):
    QTimer.singleShot(100, lambda: _raise_in_slot("during the run"))
    assert _run_app(run, catalog, quit_after_s=0.5) == 1
    log = (tmp_path / "logs" / error_log.LOG_NAME).read_text(encoding="utf-8")
    assert "ValueError: during the run" in log
    assert len(boxes) == 1 and str(tmp_path / "logs" / error_log.LOG_NAME) in boxes[0][0]


def test_a_window_that_cannot_be_built_is_reported_not_a_silent_exit(run, tmp_path, catalog, boxes, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no window today")

    monkeypatch.setattr(app_module, "MainWindow", broken)
    assert _run_app(run, catalog, quit_after_s=0.5) == 1
    assert "RuntimeError: no window today" in (tmp_path / "logs" / error_log.LOG_NAME).read_text(encoding="utf-8")
    assert len(boxes) == 1 and "no window today" in boxes[0][0]
