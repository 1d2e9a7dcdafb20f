"""The largest file the window opens: a preference kept in the settings, put in force at start, and offered
to be raised when the file asked for is larger."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QInputDialog

from catalog.files import READ_LIMIT_ENV, read_limit
from widgets.app import file_limit
from widgets.app.main_window import MainWindow

GOLDEN = Path(__file__).parents[1] / "designer" / "fixtures" / "golden_v1.podplan.json"
MB = 1024 * 1024


@pytest.fixture
def settings(tmp_path, monkeypatch):
    # set, then removed: monkeypatch then restores the variable's absence too, whatever the window sets in it
    monkeypatch.setenv(READ_LIMIT_ENV, "200")
    monkeypatch.delenv(READ_LIMIT_ENV)
    monkeypatch.setattr(file_limit, "_GIVEN_AT_START", None)
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def big_design(tmp_path) -> Path:
    """The golden design laid out over 3 MB of white space: 3 MB on disk (its texts are bounded, its layout not)."""
    doc = json.loads(GOLDEN.read_text())
    path = tmp_path / "big.podplan.json"
    path.write_text(json.dumps(doc, indent=2) + " " * (3 * MB))
    return path


@pytest.fixture
def window(qtbot, catalog, settings, tmp_path):
    w = MainWindow(catalog, settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(w)
    w.show()
    return w


def test_the_saved_preference_is_put_in_force_at_start(settings):
    assert read_limit() == 200 * MB
    settings.setValue(file_limit.SETTING, 1)
    file_limit.apply_saved(settings)
    assert read_limit() == 1 * MB and file_limit.limit_mb() == 1


def test_a_limit_given_by_the_environment_wins_over_the_preference(settings, monkeypatch):
    monkeypatch.setenv(READ_LIMIT_ENV, "300")
    monkeypatch.setattr(file_limit, "_GIVEN_AT_START", "300")
    settings.setValue(file_limit.SETTING, 1)
    file_limit.apply_saved(settings)
    assert read_limit() == 300 * MB


def test_a_broken_preference_leaves_the_default(settings):
    settings.setValue(file_limit.SETTING, "lots")
    file_limit.apply_saved(settings)
    settings.setValue(file_limit.SETTING, 10 ** 9)
    file_limit.apply_saved(settings)
    assert read_limit() == 200 * MB


def test_the_menu_changes_and_keeps_the_limit(window, settings, monkeypatch):
    asked = []

    def answer(parent, title, label, value, lo, hi, step):
        asked.append((title, value, lo, hi))
        return 512, True

    monkeypatch.setattr(QInputDialog, "getInt", answer)
    window.file_limit_action.trigger()
    assert asked == [("Largest file to open", 200, 1, 65536)]
    assert read_limit() == 512 * MB and int(settings.value(file_limit.SETTING)) == 512


def test_a_file_over_the_limit_is_refused_unless_the_user_raises_it(window, settings, big_design, monkeypatch):
    file_limit.set_limit(settings, 1)
    offered = []
    monkeypatch.setattr(MainWindow, "ask_raise_limit", lambda self, path, mb: offered.append((path, mb)) or False)
    assert not window.open_path(big_design)
    assert offered == [(big_design, 4)]  # 3 MB of white space and the design, rounded up
    assert "more than the 1,048,576 bytes allowed" in window.last_error
    assert window.path is None and read_limit() == 1 * MB
    monkeypatch.setattr(MainWindow, "ask_raise_limit", lambda self, path, mb: True)
    assert window.open_path(big_design)
    assert window.path == big_design and len(window.project.racks) == 2
    assert read_limit() == 4 * MB and int(settings.value(file_limit.SETTING)) == 4


def test_a_broken_file_under_the_limit_is_not_offered_a_larger_limit(window, tmp_path, monkeypatch):
    broken = tmp_path / "broken.podplan.json"
    broken.write_text("{")
    monkeypatch.setattr(MainWindow, "ask_raise_limit", lambda self, path, mb: pytest.fail("offered"))
    assert not window.open_path(broken)
    assert "not valid JSON" in window.last_error
