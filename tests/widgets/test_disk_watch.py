"""A window never writes over its file silently when another program changed it on disk.

The window's design is the hand-drawn DGX B200 SU (19 racks); "another writer" (the command line, say)
saves the GB200 NVL72 SU (10 racks) to the same file while the window is open. The question Save asks is
the real message box, answered by clicking its buttons; the bar above the plan is clicked like a user would.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import replace

import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

import drawn as samples
from designer.commands import MoveObjectsCommand
from designer.fileformat import load, save
from widgets.app.disk_state import DiskState, fingerprint
from widgets.app.file_actions import FileController
from widgets.app.main_window import MainWindow

ASK_DISK_CONFLICT = FileController.ask_disk_conflict  # the real one: conftest answers "cancel" for others


@pytest.fixture
def design(tmp_path):
    """The user's file, holding the DGX design."""
    path = tmp_path / "hall.podplan.json"
    shutil.copy(samples.DGX_B200_SU, path)
    return path


@pytest.fixture
def win(qtbot, catalog, tmp_path, design, monkeypatch):
    """A window open on ``design``, whose Save over a changed file asks with the real message box."""
    monkeypatch.setattr(FileController, "ask_disk_conflict", ASK_DISK_CONFLICT)
    w = MainWindow(catalog, settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                   recovery_dir=tmp_path / "recovery", debounce_ms=0)
    w.runner.sync = True
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_path(design), w.last_error
    return w


def other_writer(catalog, path) -> None:
    """What ``podplanner new … -o path`` does: an atomic save of another design over the file."""
    save(load(samples.GB200_NVL72_SU, catalog), path, catalog=catalog)


def on_disk(catalog, path):
    project = load(path, catalog)
    return project.name, len(project.racks)


THEIRS = ("GB200 NVL72 SuperPOD - 1 scalable unit", 10)
MINE = ("DGX B200 SuperPOD - 1 scalable unit", 19)


def edit(window) -> None:
    window.document.push(MoveObjectsCommand(racks={"a01": (7800.0, 7200.0, 0.0)}))
    assert window.document.dirty


def answer(button_text: str, asked: list) -> None:
    """Click ``button_text`` in the next message box shown (modal: found once its event loop runs)."""

    def click():
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(10, click)
            return
        asked.append((box.text(), [b.text() for b in box.buttons()]))
        next(b for b in box.buttons() if b.text() == button_text).click()

    QTimer.singleShot(0, click)


def test_save_over_a_file_rewritten_by_another_writer_asks_and_cancel_keeps_theirs(win, catalog, design):
    edit(win)
    other_writer(catalog, design)
    asked = []
    answer("Cancel", asked)
    assert not win.files.save()
    assert on_disk(catalog, design) == THEIRS
    assert len(asked) == 1
    text, buttons = asked[0]
    assert "changed on disk by another program" in text
    assert {"Overwrite", "Save mine as…", "Compare…", "Discard mine and reload", "Cancel"} <= set(buttons)
    assert win.document.dirty and len(win.project.racks) == 19  # the window's work is still there


def test_the_save_action_asks_too_even_without_edits(win, catalog, design):
    other_writer(catalog, design)
    asked = []
    answer("Cancel", asked)
    win.save_action.trigger()  # File ▸ Save and its shortcut
    assert asked and on_disk(catalog, design) == THEIRS
    assert "Reload" in asked[0][1]  # nothing of the window's to lose: a plain reload


def test_overwrite_writes_mine_only_when_chosen(win, catalog, design):
    edit(win)
    other_writer(catalog, design)
    answer("Overwrite", [])
    assert win.files.save()
    assert on_disk(catalog, design) == MINE and not win.document.dirty
    assert win.files.watch.check() is DiskState.SAME  # ours again: the next Save does not ask
    assert win.files.save()


def test_reload_from_the_save_question_shows_the_other_design(win, catalog, design):
    edit(win)
    other_writer(catalog, design)
    answer("Discard mine and reload", [])
    assert not win.files.save()
    assert (win.project.name, len(win.project.racks)) == THEIRS
    assert not win.document.dirty and win.path == design
    assert on_disk(catalog, design) == THEIRS
    trashed = win.files.trashed()  # the discarded edits were autosaved first: File ▸ Recover has them
    assert len(trashed) == 1 and on_disk(catalog, trashed[0].latest.path) == MINE
    assert win.files.save()  # what is on disk is what the window read: no question


def test_save_mine_as_keeps_both(win, catalog, design, tmp_path, monkeypatch):
    mine = tmp_path / "mine.podplan.json"
    monkeypatch.setattr(FileController, "ask_save_path", lambda self: str(mine))
    edit(win)
    other_writer(catalog, design)
    answer("Save mine as…", [])
    assert not win.files.save()  # nothing written over the file
    assert on_disk(catalog, design) == THEIRS
    assert on_disk(catalog, mine) == MINE
    assert win.path == mine and not win.document.dirty
    assert win.files.watch.path == mine


def test_compare_opens_the_comparison_and_writes_nothing(win, catalog, design, qtbot):
    from widgets.dashboards.compare_dialog import CompareDialog

    other_writer(catalog, design)
    answer("Compare…", [])
    assert not win.files.save()
    dialogs = [d for d in win.findChildren(CompareDialog) if d.isVisible()]
    assert len(dialogs) == 1 and design.name in dialogs[0].windowTitle()
    assert on_disk(catalog, design) == THEIRS
    dialogs[0].close()


def test_the_bar_says_so_as_soon_as_the_file_changes_and_reloads(win, catalog, design, qtbot):
    bar = win.disk_bar
    assert not bar.isVisible()
    other_writer(catalog, design)
    qtbot.waitUntil(bar.isVisible, timeout=5000)
    assert "hall.podplan.json was changed on disk by another program" in bar.label.text()
    assert bar.reload_button.text() == "Reload" and not bar.save_as_button.isVisible()
    qtbot.mouseClick(bar.reload_button, qtbot_left())
    assert (win.project.name, len(win.project.racks)) == THEIRS
    assert not bar.isVisible()


def test_with_edits_the_bar_offers_to_keep_mine(win, catalog, design, qtbot, tmp_path, monkeypatch):
    mine = tmp_path / "mine.podplan.json"
    monkeypatch.setattr(FileController, "ask_save_path", lambda self: str(mine))
    edit(win)
    other_writer(catalog, design)
    bar = win.disk_bar
    qtbot.waitUntil(bar.isVisible, timeout=5000)
    assert "your unsaved changes are only in this window" in bar.label.text()
    assert bar.reload_button.text() == "Discard mine and reload"
    assert bar.save_as_button.isVisible() and bar.compare_button.isVisible()
    qtbot.mouseClick(bar.save_as_button, qtbot_left())
    assert on_disk(catalog, mine) == MINE and on_disk(catalog, design) == THEIRS
    assert not bar.isVisible()  # the window now follows mine.podplan.json, which holds its design


def test_a_dismissed_bar_comes_back_on_the_next_rewrite_and_save_still_asks(win, catalog, design, qtbot):
    bar = win.disk_bar
    other_writer(catalog, design)
    qtbot.waitUntil(bar.isVisible, timeout=5000)
    qtbot.mouseClick(bar.dismiss_button, qtbot_left())
    assert not bar.isVisible()
    asked = []
    answer("Cancel", asked)
    assert not win.files.save() and asked
    # a second rewrite (by rename: the watch on the old inode is gone, the folder's brings it back)
    project = load(samples.GB200_NVL72_SU, catalog)
    save(replace(project, name="Rewritten again"), design, catalog=catalog)
    qtbot.waitUntil(bar.isVisible, timeout=5000)
    assert on_disk(catalog, design)[0] == "Rewritten again"


def test_our_own_save_and_a_touch_are_not_changes(win, catalog, design, qtbot):
    edit(win)
    assert win.files.save()
    qtbot.wait(400)  # the folder's events from our own rename have settled
    assert not win.disk_bar.isVisible()
    stat = design.stat()
    os.utime(design, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))  # same bytes, newer time
    qtbot.wait(400)
    assert not win.disk_bar.isVisible()
    assert win.files.watch.check() is DiskState.SAME
    assert win.files.save()  # no question (conftest would have answered "cancel")


def test_a_deleted_file_is_said_and_save_recreates_it_after_asking(win, catalog, design, qtbot):
    design.unlink()
    bar = win.disk_bar
    qtbot.waitUntil(bar.isVisible, timeout=5000)
    assert "deleted or moved on disk" in bar.label.text()
    assert not bar.reload_button.isVisible() and bar.save_button.isVisible()
    asked = []
    answer("Save", asked)
    assert win.files.save()
    assert "deleted" in asked[0][0]
    assert on_disk(catalog, design) == MINE
    assert not bar.isVisible()


def test_the_autosave_writes_only_the_recovery_copy_and_a_restore_is_checked(win, catalog, design, qtbot,
                                                                             tmp_path):
    before = fingerprint(design)
    edit(win)
    assert win.files.autosave()
    assert fingerprint(design) == before  # the user's file is not touched by the autosave
    autosaved = win.files.recovery_path
    assert autosaved is not None and autosaved.is_relative_to(tmp_path / "recovery")
    session = win.files.store.own()
    assert session.original == str(design) and session.original_disk == before

    other_writer(catalog, design)  # while the window (then its process) is gone
    other = MainWindow(catalog, settings=win.settings, recovery_dir=tmp_path / "other", debounce_ms=0)
    qtbot.addWidget(other)
    other.runner.sync = True
    assert other.files.restore(session)
    assert other.path == design and other.document.dirty
    assert other.files.watch.state is DiskState.CHANGED
    asked = []
    answer("Cancel", asked)
    assert not other.files.save()
    assert asked and on_disk(catalog, design) == THEIRS


def qtbot_left():
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton
