"""The main window on the bundled samples: scene contents, zoom, file errors, totals."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, QRectF

import drawn as samples
from designer.commands import MoveObjectsCommand
from designer.fileformat import load
from widgets.plan.floor_items import FloorDeviceItem, HallItem, RackItem


@pytest.fixture
def b200(window):
    assert window.open_path(samples.DGX_B200_SU), window.last_error
    return window


def _visible_scene_rect(view) -> QRectF:
    return view.mapToScene(view.viewport().rect()).boundingRect()


def test_b200_sample_has_one_item_per_rack_at_its_position(b200, catalog):
    project = load(samples.DGX_B200_SU, catalog)
    scene = b200.scene
    rack_items = [i for i in scene.items() if isinstance(i, RackItem)]
    assert len(rack_items) == len(project.racks) == 19
    assert set(scene.rack_items) == {r.id for r in project.racks}
    for rack in project.racks:
        item = scene.rack_items[rack.id]
        assert item.rack_id == rack.id
        assert item.name == rack.name
        assert (item.pos().x(), item.pos().y()) == (rack.x, rack.y)
        centre = item.sceneBoundingRect().center()
        assert centre.x() == pytest.approx(rack.x, abs=0.01)
        assert centre.y() == pytest.approx(rack.y, abs=0.01)
        assert item.rotation() == rack.rotation
    a01 = scene.rack_items[next(r.id for r in project.racks if r.name == "A01")]
    # 600 x 1200 mm footprint centred on (1800, 3000), so it spans x 1500..2100, y 2400..3600.
    rect = a01.sceneBoundingRect().adjusted(2, 2, -2, -2)
    assert (rect.left(), rect.top(), rect.right(), rect.bottom()) == pytest.approx((1500, 2400, 2100, 3600))


def test_racks_are_coloured_by_what_they_hold(b200):
    by_name = {i.name: i.role for i in b200.scene.rack_items.values()}
    assert by_name["A01"] == "compute"
    assert by_name["A09 network"] == by_name["B09 network"] == "network"
    assert by_name["M01 management"] == "management"
    labels = [text for _, text in b200.scene.legend()]
    assert labels == ["Compute", "Network", "Management"]


def test_hall_outline_item_has_the_halls_bounds(b200):
    halls = [i for i in b200.scene.items() if isinstance(i, HallItem)]
    assert len(halls) == 1 and halls[0].hall_id == "hall-1"
    rect = halls[0].mapRectToScene(halls[0].polygon.boundingRect())
    assert (rect.left(), rect.top(), rect.right(), rect.bottom()) == (0, 0, 10800, 9000)
    assert b200.scene.halls_rect() == QRectF(0, 0, 10800, 9000)


def test_zoom_in_and_out_change_the_scale(b200):
    view = b200.view
    start = view.scale_factor()
    b200.zoom_in_action.trigger()
    zoomed_in = view.scale_factor()
    assert zoomed_in == pytest.approx(start * 1.25)
    b200.zoom_out_action.trigger()
    b200.zoom_out_action.trigger()
    assert view.scale_factor() == pytest.approx(start * 1.25 * 0.8 * 0.8)
    view.zoom_by(1e9)
    assert view.scale_factor() == view.MAX_SCALE
    view.zoom_by(1e-9)
    assert view.scale_factor() == view.MIN_SCALE


def test_fit_hall_shows_the_whole_hall(b200):
    view = b200.view
    view.zoom_by(6.0)
    assert not _visible_scene_rect(view).contains(QRectF(0, 0, 10800, 9000))
    b200.fit_action.trigger()
    visible = _visible_scene_rect(view)
    assert visible.contains(QRectF(0, 0, 10800, 9000))
    # ...and it is fitted, not merely zoomed far out: the hall fills most of the viewport one way.
    vp = view.viewport()
    assert max(10800 * view.scale_factor() / vp.width(), 9000 * view.scale_factor() / vp.height()) > 0.8


def test_broken_file_reports_one_line_and_keeps_the_project(b200, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(b200, "show_error", shown.append)
    before = b200.project
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    assert b200.open_path(broken) is False
    assert b200.last_error == shown[0]
    assert str(broken) in b200.last_error and "not valid JSON" in b200.last_error
    assert "\n" not in b200.last_error
    assert b200.project is before
    assert len(b200.scene.rack_items) == 19


def test_gb200_sample_has_8_nvl72_racks_2_network_racks_and_2_cdus(window):
    assert window.open_path(samples.GB200_NVL72_SU)
    scene = window.scene
    assert len([i for i in scene.items() if isinstance(i, RackItem)]) == 10
    cdus = [i for i in scene.items() if isinstance(i, FloorDeviceItem)]
    assert sorted(i.device_id for i in cdus) == ["cdu-1", "cdu-2"]
    assert sorted(i.name for i in cdus) == ["CDU-1", "CDU-2"]
    assert scene.floor_items["cdu-1"].pos() == QPointF(1200, 3600)
    assert [i.role for i in scene.rack_items.values()].count("rack_scale") == 8
    assert {scene.rack_items["n01"].role, scene.rack_items["n02"].role} <= {"network", "management"}
    assert "576 GPUs" in window.totals_label.text()
    assert window.totals_label.text().startswith("10 racks · ")


def test_status_bar_and_title_for_b200(b200):
    assert "248 GPUs" in b200.totals_label.text()
    assert b200.totals_label.text().startswith("19 racks · ")
    # "[*]" is where Qt shows the unsaved-changes mark
    assert b200.windowTitle() == "DGX B200 SuperPOD - 1 scalable unit[*] — PodPlanner"
    assert not b200.isWindowModified()


def test_scene_follows_document_edits_and_undo(b200):
    rack = b200.project.racks[0]
    b200.document.push(MoveObjectsCommand(racks={rack.id: (rack.x + 600, rack.y + 1200, 90)}))
    item = b200.scene.rack_items[rack.id]
    assert (item.pos().x(), item.pos().y(), item.rotation()) == (rack.x + 600, rack.y + 1200, 90)
    b200.document.undo()
    item = b200.scene.rack_items[rack.id]
    assert (item.pos().x(), item.pos().y(), item.rotation()) == (rack.x, rack.y, rack.rotation)


def test_opening_a_file_replaces_the_document(b200, qtbot):
    old = b200.document
    with qtbot.waitSignal(b200.document_replaced) as blocker:
        b200.open_path(samples.GB200_NVL72_SU)
    assert blocker.args[0] is b200.document is not old
    assert b200.windowTitle().startswith("GB200 NVL72 SuperPOD")


def test_sample_menu_lists_every_sample(window):
    from designer import samples as bundled

    titles = [a.text() for a in window.samples_menu.actions()]
    assert len(titles) == len(bundled.all_samples()) == 2
    assert "DGX B200 SuperPOD - 1 scalable unit" in titles
    window.samples_menu.actions()[titles.index("GB200 NVL72 SuperPOD - 1 scalable unit")].trigger()
    # the generated SU: 8 NVL72 racks, 2 SU network racks, spine, storage, storage array, in-band and management racks
    from designer.fileformat import load

    assert len(window.scene.rack_items) == len(load(bundled.GB200_NVL72_SU, window.catalog).racks) == 16
