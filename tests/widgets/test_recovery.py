"""Recovery that cannot lose work: a second crash, a hasty "no", a document autosave cannot write."""
from __future__ import annotations

import json
import threading

import pytest
from PySide6.QtCore import QSettings

import drawn as samples
from designer.commands import MoveObjectsCommand
from designer.fileformat import load
from widgets.app.main_window import MainWindow
from widgets.app.recovery_store import KEEP_VERSIONS


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def make(qtbot, catalog, settings, tmp_path):
    """``make(path=DGX sample)``: a window on the shared recovery folder ``tmp_path/recovery``."""

    def build(path=samples.DGX_B200_SU):
        project = load(path, catalog) if path else None
        w = MainWindow(catalog, project, path, settings=settings, recovery_dir=tmp_path / "recovery",
                       debounce_ms=10)
        qtbot.addWidget(w)
        w.show()
        return w

    return build


def crash(window) -> None:
    """What a killed process leaves: no close, no save, no discard. The kernel releases the session's lock
    (here: its descriptor is closed) and every thread stops; the window just goes."""
    window.files.quiet.stop()
    window.files.timer.stop()
    window.files._pool.shutdown(wait=True)
    window.files.store._release()
    window.runner.shutdown(wait=True)
    window.hide()
    window.files.maybe_save = lambda: True  # the test's teardown closes it: that close must not tidy up
    window.files.discard_recovery = lambda: None
    window.files.shutdown = lambda: None


def moved_y(window) -> float:
    return window.project.rack("m01").y


def test_restored_work_survives_a_second_crash(make):
    first = make()
    first.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    assert first.files.autosave()
    crash(first)

    second = make(None)
    offered = []
    second.files.ask_restore = lambda session: offered.append(session) or "restore"
    assert second.files.offer_recovery()
    assert len(offered) == 1 and offered[0].original == str(samples.DGX_B200_SU)
    assert moved_y(second) == 7200.0 and second.document.dirty
    assert second.path == samples.DGX_B200_SU
    crash(second)  # before any autosave of its own could run

    third = make(None)
    again = []
    third.files.ask_restore = lambda session: again.append(session) or "restore"
    assert third.files.offer_recovery()
    assert len(again) == 1 and moved_y(third) == 7200.0 and third.document.dirty


def test_keep_for_later_keeps_it_and_discard_asks_then_keeps_a_copy_for_a_week(make):
    first = make()
    first.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    assert first.files.autosave()
    crash(first)

    later = make(None)
    later.files.ask_restore = lambda session: "later"
    assert not later.files.offer_recovery()
    assert len(later.files.orphaned_recoveries()) == 1  # offered again next time

    declined = make(None)
    declined.files.ask_restore = lambda session: "discard"
    declined.files.ask_discard = lambda session: False  # "are you sure?" - no
    assert not declined.files.offer_recovery()
    assert len(declined.files.orphaned_recoveries()) == 1

    discarding = make(None)
    discarding.files.ask_restore = lambda session: "discard"
    discarding.files.ask_discard = lambda session: True
    assert not discarding.files.offer_recovery()
    assert discarding.files.orphaned_recoveries() == []
    trashed = discarding.files.trashed()
    assert len(trashed) == 1 and load(trashed[0].latest.path, discarding.catalog).rack("m01").y == 7200.0
    # still recoverable from the trash
    assert discarding.files.restore(trashed[0])
    assert moved_y(discarding) == 7200.0 and discarding.files.trashed() == []


def test_autosave_follows_each_change_after_a_pause_off_the_gui_thread(make, qtbot):
    win = make()
    win.files.quiet.setInterval(50)
    threads = []
    real = win.files.store.write
    win.files.store.write = lambda *a, **k: threads.append(threading.current_thread().name) or real(*a, **k)
    win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    qtbot.waitUntil(lambda: win.files.recovery_path is not None, timeout=60000)
    assert load(win.files.recovery_path, win.catalog).rack("m01").y == 7200.0
    assert threads and all(name.startswith("autosave") for name in threads)
    assert threading.current_thread().name not in threads
    win.document.undo()  # back to what is on disk: nothing to recover
    win.files.flush()
    assert win.files.recovery_path is None


def test_an_edit_after_a_save_is_autosaved_though_an_older_autosave_was_still_queued(make, tmp_path):
    # a large design keeps the autosave thread busy: an autosave queued before a save must not write the
    # edit made after it, which the clear queued by the save would then delete
    win = make()
    gate = threading.Event()
    win.files._submit(gate.wait)  # the thread busy, as with a long write
    win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    win.files.autosave_soon()  # queued behind it
    assert win.files.save_as(tmp_path / "saved.podplan.json")  # queues the clear
    win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7800.0, 0.0)}))
    win.files.autosave_soon()
    gate.set()
    win.files.flush()
    assert win.files.recovery_path is not None
    assert load(win.files.recovery_path, win.catalog).rack("m01").y == 7800.0


def test_autosave_never_raises_and_says_why_in_the_status_bar(make, tmp_path):
    win = make()
    broken = win.project.renamed("hall \udcff plan")  # a name no file can hold
    win.adopt_project(broken, None, dirty=True)
    assert not win.files.autosave()
    assert "surrogate" in win.files.autosave_error
    assert win.autosave_label.isVisibleTo(win) and "surrogate" in win.autosave_label.toolTip()
    assert "Autosave failed" in win.statusBar().currentMessage()
    # a recovery folder that cannot be made: the reason names the path
    win2 = make()
    (tmp_path / "blocked").write_text("a file where the folder should be")
    win2.files.store.root = tmp_path / "blocked"
    win2.files.store.folder = tmp_path / "blocked" / "session"
    win2.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    assert not win2.files.autosave()
    assert str(tmp_path / "blocked") in win2.files.autosave_error
    win2.files.store.root = tmp_path / "recovery"
    win2.files.store.folder = tmp_path / "recovery" / "fine"
    assert win2.files.autosave() and not win2.autosave_label.isVisibleTo(win2)


def test_a_start_up_file_that_fails_still_offers_recovery(make, catalog, tmp_path, qtbot, monkeypatch):
    from widgets.app import application as app
    from widgets.app.file_actions import FileController

    first = make()
    first.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    assert first.files.autosave()
    crash(first)
    broken = tmp_path / "broken.podplan.json"
    broken.write_text("{ not json")
    import subprocess
    import sys

    from catalog.files import TEMP_SUFFIX
    dead_pid = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                                  capture_output=True, text=True, check=True).stdout)
    left = tmp_path / f".broken.podplan.json.{dead_pid}-{'4' * 16}{TEMP_SUFFIX}"
    left.write_text("half a save")  # what a save killed half-way leaves
    offered = []
    monkeypatch.setattr(FileController, "ask_restore", lambda self, session: offered.append(session) or "later")
    import widgets.app.file_actions as fa
    monkeypatch.setattr(fa, "default_recovery_dir", lambda: tmp_path / "recovery")
    window = app._open_window(str(broken), catalog)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: bool(offered), timeout=60000)
    assert window.last_error and "broken.podplan.json" in window.last_error
    assert offered[0].original == str(samples.DGX_B200_SU)
    assert not left.exists()  # the start swept the folder of the file it was given


def test_versions_are_kept_and_offered_in_file_recover(make, qtbot, monkeypatch):
    import widgets.app.recovery_store as rs

    win = make()
    monkeypatch.setattr(rs, "VERSION_EVERY_S", 0)  # every autosave a version of its own
    ys = [7000.0 + 100 * i for i in range(KEEP_VERSIONS + 2)]
    for y in ys:
        win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, y, 0.0)}))
        assert win.files.autosave()
    own = win.files.own_versions()
    assert len(own) == KEEP_VERSIONS
    assert [load(v.path, win.catalog).rack("m01").y for v in own] == ys[::-1][:KEEP_VERSIONS]
    menu = win.recover_menu
    menu.fill()
    labels = [a.text() for a in menu.menu.actions()]
    assert labels.count("This window: earlier versions") == 1
    earlier = [a for a in menu.menu.actions() if a.text().startswith("Autosaved")]
    assert len(earlier) == KEEP_VERSIONS - 1
    earlier[-1].trigger()  # the oldest kept
    assert moved_y(win) == ys[-KEEP_VERSIONS] and win.document.dirty
    win.files.flush()
    kept = [load(v.path, win.catalog).rack("m01").y for v in win.files.own_versions()]
    assert ys[-1] in kept  # the newest state is still a version after going back


def test_the_recover_menu_restores_a_crashed_window_and_says_when_empty(make):
    win = make()
    win.recover_menu.fill()
    assert [a.text() for a in win.recover_menu.menu.actions() if not a.isSeparator()][0] == "No autosaved work"
    win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    assert win.files.autosave()
    crash(win)
    other = make(None)
    other.recover_menu.fill()
    texts = [a.text() for a in other.recover_menu.menu.actions()]
    assert any("closed without saving" in t for t in texts) and "Discard…" in texts
    next(a for a in other.recover_menu.menu.actions() if a.text().startswith("Autosaved")).trigger()
    assert moved_y(other) == 7200.0 and other.document.dirty and other.files.orphaned_recoveries() == []



def test_save_and_autosave_write_the_catalog_the_window_edits_with(make, tmp_path):
    win = make()  # the sample file names no catalog
    win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    assert win.files.autosave()
    assert json.loads(win.files.recovery_path.read_text())["catalog_version"] == win.catalog.version
    saved = tmp_path / "saved.podplan.json"
    assert win.files.save_as(saved)
    assert json.loads(saved.read_text())["catalog_version"] == win.catalog.version
