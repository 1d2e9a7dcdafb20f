"""The first-start overlay: shown once, dismissed by its button or Esc, remembered, back from Help."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, QRect, QSettings, Qt
from PySide6.QtWidgets import QApplication

from widgets.app import welcome
from widgets.app.main_window import MainWindow


@pytest.fixture
def make_window(qtbot, catalog, tmp_path):
    """``make_window(ini)``: a window shown at 1400 x 900 on the settings file ``ini`` (in tmp_path)."""

    def make(ini: str = "podplanner.ini") -> MainWindow:
        w = MainWindow(catalog, settings=QSettings(str(tmp_path / ini), QSettings.Format.IniFormat))
        qtbot.addWidget(w)
        w.resize(1400, 900)
        w.show()
        qtbot.waitExposed(w)
        # Esc is a window shortcut: it reaches the overlay from the active window only, as for a user
        w.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is w)
        return w

    return make


def _global_rect(widget) -> QRect:
    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


def _below_the_menu_bar(w) -> QRect:
    return QRect(0, w.menuBar().height(), w.width(), w.height() - w.menuBar().height())


def test_first_start_shows_it_over_the_window_below_the_menus(make_window):
    w = make_window()
    assert w.first_start
    overlay = welcome.show_on_first_start(w)
    assert overlay is not None and overlay.isVisible()
    assert overlay.parentWidget() is w
    assert overlay.geometry() == _below_the_menu_bar(w)
    assert overlay.rect().contains(overlay.card.geometry())
    # the menus stay reachable
    assert not _global_rect(overlay).intersects(_global_rect(w.menuBar()))
    menu_point = w.menuBar().actionGeometry(w.menuBar().actions()[0]).center()
    assert w.childAt(w.menuBar().mapTo(w, menu_point)) is w.menuBar()
    texts = " ".join(label.text() for label in overlay.tip_labels)
    for words in ("Catalog", "elevation", "Workspace", "New SuperPOD", "Export", "Findings"):
        assert words in texts
    assert 5 <= len(welcome.TIPS) <= 7


def test_it_follows_the_window_size(make_window, qtbot):
    w = make_window()
    overlay = welcome.show_on_first_start(w)
    w.resize(900, 640)
    qtbot.waitUntil(lambda: overlay.geometry() == _below_the_menu_bar(w))
    assert overlay.rect().contains(overlay.card.geometry())
    w.resize(1600, 1000)
    qtbot.waitUntil(lambda: overlay.geometry() == _below_the_menu_bar(w))
    card = overlay.card.geometry()
    assert card.width() == welcome.CARD_MAX_WIDTH
    assert abs(card.center().x() - overlay.rect().center().x()) <= 1


def test_got_it_dismisses_and_it_stays_dismissed(make_window, qtbot):
    w = make_window()
    overlay = welcome.show_on_first_start(w)
    qtbot.mouseClick(overlay.ok_button, Qt.MouseButton.LeftButton)
    assert not overlay.isVisible()
    assert welcome.was_dismissed(w.settings)
    # a later start on the same settings: a saved layout and a dismissal, so nothing is shown
    w.close()
    again = make_window()
    assert not again.first_start
    assert welcome.show_on_first_start(again) is None
    assert welcome.overlay_of(again) is None


def test_dismissed_without_a_saved_layout_it_is_not_shown_either(make_window):
    w = make_window("one.ini")
    welcome.show_on_first_start(w).dismiss()
    fresh = MainWindow(w.catalog, settings=QSettings(str(w.settings.fileName()), QSettings.Format.IniFormat))
    assert fresh.first_start
    assert welcome.show_on_first_start(fresh) is None
    fresh.deleteLater()


def test_not_a_first_start_not_shown(make_window):
    w = make_window("seen.ini")
    w.save_layout()
    later = make_window("seen.ini")
    assert not later.first_start and not welcome.was_dismissed(later.settings)
    assert welcome.show_on_first_start(later) is None


def test_escape_dismisses_wherever_the_focus_is(make_window, qtbot):
    w = make_window()
    overlay = welcome.show_on_first_start(w)
    w.palette.setFocus()
    qtbot.keyClick(w.palette, Qt.Key.Key_Escape)
    assert not overlay.isVisible()
    assert welcome.was_dismissed(w.settings)


def test_help_brings_it_back(make_window, qtbot):
    w = make_window()
    overlay = welcome.show_on_first_start(w)
    overlay.dismiss()
    w.welcome_action.trigger()
    assert welcome.overlay_of(w) is overlay and overlay.isVisible()
    assert overlay.geometry() == _below_the_menu_bar(w)
    qtbot.keyClick(overlay.ok_button, Qt.Key.Key_Escape)
    assert not overlay.isVisible()


def test_escape_is_the_plans_again_once_dismissed(make_window, qtbot):
    w = make_window()
    welcome.show_on_first_start(w).dismiss()
    pressed = []

    class Recorder(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Escape:
                pressed.append(watched)
            return False

    recorder = Recorder(w)
    w.view.installEventFilter(recorder)
    w.view.setFocus()
    qtbot.keyClick(w.view, Qt.Key.Key_Escape)
    assert pressed == [w.view]
