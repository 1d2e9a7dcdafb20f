"""The rack elevation follows the selection and the undo stack: it never shows a rack that is not selected."""
from __future__ import annotations

import pytest

from designer import samples
from designer.commands import AddObjectsCommand
from designer.model import Rack


@pytest.fixture
def window(synced_window):
    return synced_window(samples.GB200_NVL72_SU)


def test_selecting_a_cdu_or_the_hall_clears_the_elevation(window):
    assert window.scene.select("rack:su01-01")
    assert window.elevation.rack is not None and window.elevation.title.text() == "SU01-01"
    assert window.scene.select("floor:su01-cdu1")
    assert window.elevation.rack is None and window.elevation.title.text() == "No rack selected"
    assert window.scene.select("rack:su01-02")
    window.scene.select_many([])
    assert window.elevation.rack is None


def test_after_undo_the_elevation_is_empty(window):
    hall = window.project.halls[0]
    # at the right wall, near the far corner: the air handlers stand along the left wall
    rack = Rack("new-rack", "NEW-01", hall.id, "rack-48u-600x1200", hall.bounds[2] - 600.0, 9900.0, 0.0, "X")
    window.document.push(AddObjectsCommand(racks=(rack,)))
    assert window.scene.select("rack:new-rack")
    assert window.elevation.title.text() == "NEW-01"
    window.document.undo()
    assert not window.project.has_rack("new-rack")
    assert window.elevation.rack is None and window.elevation.title.text() == "No rack selected"
    assert window.inspector.kind in ("hall", "")


def test_the_first_start_opens_maximised_and_later_starts_keep_their_layout(qtbot, catalog, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from widgets.app import application as app_module
    from widgets.app.main_window import MainWindow

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    shown = []
    monkeypatch.setattr(MainWindow, "showMaximized", lambda self: shown.append("maximised"))
    monkeypatch.setattr(MainWindow, "show", lambda self: shown.append("as saved"))
    made = []
    monkeypatch.setattr(app_module, "MainWindow", lambda *a, **k: made.append(
        MainWindow(*a, settings=settings, recovery_dir=tmp_path / "r", **k)) or made[-1])
    monkeypatch.setattr(app_module.QApplication, "exec", lambda *a: 0, raising=False)
    app_module.run_app(str(samples.DGX_B200_SU), catalog)
    assert shown == ["maximised"]
    # the screen's work area even where no window manager acts on the maximise request
    assert made[0].geometry() == (made[0].screen() or QApplication.primaryScreen()).availableGeometry()
    first = MainWindow(catalog, settings=settings, recovery_dir=tmp_path / "r")
    qtbot.addWidget(first)
    first.save_layout()
    shown.clear()
    app_module.run_app(str(samples.DGX_B200_SU), catalog)
    assert shown == ["as saved"]


def test_a_finding_about_many_racks_selects_them_all(qtbot, synced_window):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    w = synced_window(samples.DGX_B200_SU)
    [finding] = [f for f in w.analysis.findings if f.code == "feed-loss-throttle"]
    holding = sorted(f"rack:{r.id}" for r in w.project.racks if any(d.type == "dgx-b200" for d in r.devices))
    assert len(holding) == 16 and sorted(finding.places) == holding
    assert finding.message.startswith("NVIDIA DGX B200 (31 in 16 racks)")  # names, not catalog ids
    panel = w.findings
    row = next(i for i in range(panel.row_count()) if panel.where_at(i) == finding.where
               and panel.proxy.index(i, 1).data() == "feed-loss-throttle")
    panel.view.scrollTo(panel.proxy.index(row, 2))  # the layout workspace's findings strip is short
    rect = panel.view.visualRect(panel.proxy.index(row, 2))
    with qtbot.waitSignal(panel.places_activated):
        QTest.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert sorted(w.scene.selected_ids()) == holding
    assert w.elevation.rack is not None  # the first of them, as for any rack selection
