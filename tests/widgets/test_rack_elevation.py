"""Rack elevation: drops from the palette, refusals, moves, Delete, and the NVL72's trays."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication
from PySide6.QtTest import QTest

import drawn as samples
from designer.commands import AddDeviceCommand, CommandError, Document
from designer.fileformat import load
from designer.model import MountedDevice
from widgets.elevation.rack_elevation import DEVICE_MIME, MOUNTED_MIME, RackElevationPanel


@pytest.fixture
def b200_doc(catalog):
    return Document(load(samples.DGX_B200_SU, catalog), catalog)


@pytest.fixture
def panel(qtbot, catalog, b200_doc):
    p = RackElevationPanel(catalog)
    qtbot.addWidget(p)
    p.set_document(b200_doc)
    p.show_rack("a01")
    p.resize(520, 760)
    p.show()
    qtbot.waitExposed(p)
    return p


def _drop(view, u: int, mime: QMimeData) -> QDropEvent:
    """Send the enter / move / drop sequence a real drag produces, at the centre of U ``u``."""
    pos = view.point_for_u(u)
    actions = Qt.DropAction.CopyAction | Qt.DropAction.MoveAction
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(pos.toPoint(), actions, mime, buttons, mods)
    QApplication.sendEvent(view, enter)
    assert enter.isAccepted()
    QApplication.sendEvent(view, QDragMoveEvent(pos.toPoint(), actions, mime, buttons, mods))
    drop = QDropEvent(QPointF(pos), actions, mime, buttons, mods)
    QApplication.sendEvent(view, drop)
    return drop


def _palette_mime(type_id: str) -> QMimeData:
    mime = QMimeData()
    mime.setData(DEVICE_MIME, type_id.encode("utf-8"))
    return mime


def test_drop_dgx_b200_into_free_slot_then_undo(panel, b200_doc):
    before = b200_doc.project
    _drop(panel.front, 30, _palette_mime("dgx-b200"))
    rack = b200_doc.project.rack("a01")
    added = [d for d in rack.devices if d.id not in {x.id for x in before.rack("a01").devices}]
    assert [(d.type, d.u, d.face) for d in added] == [("dgx-b200", 30.0, "front")]
    assert panel.status.text() == ""
    assert any(b.device_id == added[0].id and b.u == 30 and b.height == 10 for b in panel.blocks("front"))
    assert any(b.device_id == added[0].id and b.ghost for b in panel.blocks("rear"))
    b200_doc.undo()
    assert b200_doc.project is before
    assert not any(b.device_id == added[0].id for b in panel.blocks("front"))


def test_drop_on_occupied_slot_is_refused_with_a_message(qtbot, panel, b200_doc):
    before = b200_doc.project
    with qtbot.waitSignal(panel.refused) as blocker:
        drop = _drop(panel.front, 10, _palette_mime("dgx-b200"))
    assert b200_doc.project is before
    assert not drop.isAccepted()
    assert "collides" in blocker.args[0]
    assert "collides" in panel.status.text()


def test_drop_above_the_top_is_refused(panel, b200_doc):
    before = b200_doc.project
    _drop(panel.rear, 45, _palette_mime("dgx-b200"))
    assert b200_doc.project is before
    assert "above the rack" in panel.status.text()


def test_rear_view_drop_mounts_a_switch_on_the_rear_face(panel, b200_doc):
    _drop(panel.rear, 40, _palette_mime("qm9700"))
    added = b200_doc.project.rack("a01").devices[-1]
    assert (added.type, added.u, added.face) == ("qm9700", 40.0, "rear")


def test_rack_is_refused_as_a_rack_device(panel, b200_doc):
    before = b200_doc.project
    _drop(panel.front, 40, _palette_mime("rack-42u-600x1200"))
    assert b200_doc.project is before
    assert "does not go into a rack" in panel.status.text()


def test_dragging_a_device_moves_it_and_changes_face(panel, b200_doc):
    mime = QMimeData()
    mime.setData(MOUNTED_MIME, json.dumps({"rack": "a01", "device": "a01-dgx2", "grab": 0}).encode())
    _drop(panel.rear, 30, mime)
    moved = b200_doc.project.rack("a01").device("a01-dgx2")
    assert (moved.u, moved.face) == (30.0, "rear")
    b200_doc.undo()
    assert b200_doc.project.rack("a01").device("a01-dgx2").u == 17.0


def test_delete_key_removes_the_selected_device(qtbot, panel, b200_doc):
    QTest.mouseClick(panel.front, Qt.MouseButton.LeftButton, pos=panel.front.point_for_u(20).toPoint())
    assert panel.selected == "a01-dgx2"
    QTest.keyClick(panel.front, Qt.Key.Key_Delete)
    assert "a01-dgx2" not in {d.id for d in b200_doc.project.rack("a01").devices}
    b200_doc.undo()
    assert "a01-dgx2" in {d.id for d in b200_doc.project.rack("a01").devices}


def test_rear_pdus_are_strips_beside_the_rails(panel):
    assert len(panel.rear.strips) == 4 and panel.front.strips == []
    assert {s.side for s in panel.rear.strips} == {0, 1}


def test_nvl72_rack_shows_its_35_trays_and_shelves(qtbot, catalog):
    doc = Document(load(samples.GB200_NVL72_SU, catalog), catalog)
    p = RackElevationPanel(catalog)
    qtbot.addWidget(p)
    p.set_document(doc)
    p.show_rack("r01")
    trays = [b for b in p.blocks("front") if b.component]
    assert len(trays) == 35
    kinds = [b.component for b in trays]
    assert kinds.count("gb200-compute-tray") == 18
    assert kinds.count("nvlink-switch-tray") == 9
    assert kinds.count("gb200-power-shelf") == 8
    spans = sorted((b.u, b.u + b.height) for b in trays)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])) and spans[-1][1] <= 49
    assert all(b.illustrative for b in trays)
    assert "illustrative" in p.subtitle.text()


def test_rebinding_to_another_document_and_missing_rack(qtbot, panel, catalog):
    doc = Document(load(samples.GB200_NVL72_SU, catalog), catalog)
    panel.set_document(doc)
    assert panel.rack is None and panel.title.text() == "No rack selected"
    panel.show_rack("r02")
    assert panel.title.text() == "NVL72-02"


def test_tooltip_text_names_the_tray_and_its_figures(qtbot, catalog):
    doc = Document(load(samples.GB200_NVL72_SU, catalog), catalog)
    p = RackElevationPanel(catalog)
    qtbot.addWidget(p)
    p.set_document(doc)
    p.show_rack("r01")
    tray = next(b for b in p.blocks("front") if b.component == "gb200-compute-tray")
    text = p.describe(tray)
    assert "GB200 NVL72 compute tray" in text and "5.4 kW max (unconfirmed)" in text and "illustrative" in text


def test_an_nvl72_rack_says_what_is_free_and_draws_no_empty_slot(qtbot, catalog):
    """The NVL72 takes its whole 48 U rack: its 35 U of trays are drawn, and the 13 U around them are drawn as
    its unmapped part, so the caption's '0 U free' is what the elevation shows (and what the rules enforce)."""
    doc = Document(load(samples.GB200_NVL72_SU, catalog), catalog)
    p = RackElevationPanel(catalog)
    qtbot.addWidget(p)
    p.set_document(doc)
    p.show_rack("r01")
    text = p.subtitle.text()
    assert "48 U, all taken by the NVIDIA DGX GB200 NVL72 (35 U of trays drawn, 13 U unmapped) · 0 U free" in text
    front = p.blocks("front")
    unmapped = [b for b in front if b.component is None]
    assert sum(b.height for b in unmapped) == 13 and all(b.ghost and b.illustrative for b in unmapped)
    spans = sorted((b.u, b.u + b.height) for b in front)
    assert spans[0][0] == 1 and spans[-1][1] == 49  # every U of the front is drawn as the system's
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert "NVIDIA DGX GB200 NVL72" in p.describe(unmapped[0]) and "illustrative" in p.describe(unmapped[0])
    # really none free: a 1 U switch in the lowest empty-looking U is refused
    switch = next(d.id for d in catalog if d.kind == "switch" and d.u_height == 1)
    with pytest.raises(CommandError):
        doc.push(AddDeviceCommand("r01", MountedDevice("extra", switch, 1.0)))


def test_a_dgx_rack_counts_its_free_units(panel):
    panel.show_rack("a01")
    rack = panel.rack
    assert "all taken" not in panel.subtitle.text()
    assert panel.subtitle.text().startswith(f"{panel.catalog.get(rack.type).name} · 48 U · ")
    assert " U free" in panel.subtitle.text()
