"""Editing on the floor plan, driven through the real window: drops, drags, keys, menu actions, overlays.

The project is built here (one hall, a row of four racks, one standalone
rack) so positions can be asserted to the millimetre whatever the samples
hold.
"""
from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from designer.analysis import analyze
from designer.commands import AddDeviceCommand, MoveObjectsCommand
from designer.model import FloorDevice, Hall, MountedDevice, Project, Rack
from widgets.app import style
from widgets.app.main_window import MainWindow

RACK = "rack-48u-600x1200"


def _project() -> Project:
    hall = Hall("hall-1", "Hall 1", ((0, 0), (10800, 0), (10800, 9000), (0, 9000)), 600.0,
                rack_power_limit_kw=40.0)
    row = [Rack(f"a0{i}", f"A0{i}", "hall-1", RACK, 1800.0 + 600 * (i - 1), 3000.0, 0.0, "A",
                devices=(MountedDevice(f"a0{i}-d1", "dgx-b200", 5.0),)) for i in range(1, 5)]
    lone = Rack("s1", "S1", "hall-1", RACK, 8100.0, 7200.0, 0.0)
    cdu = FloorDevice("cdu-1", "cdu-inrow-2mw", "hall-1", 9600.0, 1200.0, 0.0, "CDU-1", ("a01",))
    return Project("Editing", halls=(hall,), racks=(*row, lone), floor_devices=(cdu,))


@pytest.fixture
def win(qtbot, catalog):
    w = MainWindow(catalog, _project())
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    w.view.fit_hall()
    return w


@pytest.fixture
def refusals(win):
    got: list[str] = []
    win.scene.refused.connect(got.append)
    return got


def _vp(win, x: float, y: float) -> QPoint:
    """The viewport pixel over scene point (x, y) (hall 1 sits at the scene origin)."""
    return win.view.mapFromScene(QPointF(x, y))


def _drop(win, device_id: str, x: float, y: float) -> None:
    """What a palette drag ends in: drag-enter then drop on the viewport, with the palette's own MIME data."""
    mime = win.palette.mime_data_for(device_id)
    pt = _vp(win, x, y)
    vp = win.view.viewport()
    enter = QDragEnterEvent(pt, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(vp, enter)
    assert enter.isAccepted()
    drop = QDropEvent(QPointF(pt), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(vp, drop)


def _drag(win, start: tuple[float, float], end: tuple[float, float], modifiers=Qt.KeyboardModifier.NoModifier):
    """Press on ``start``, move in steps to ``end`` and release, all in scene mm."""
    vp = win.view.viewport()
    a, b = _vp(win, *start), _vp(win, *end)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, modifiers, a)
    for k in range(1, 6):
        QTest.mouseMove(vp, a + (b - a) * (k / 5))
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, modifiers, b)


def _pos(win, rid: str) -> tuple[float, float, float]:
    r = win.project.rack(rid)
    return r.x, r.y, r.rotation


def _item_pos(win, rid: str) -> tuple[float, float]:
    p = win.scene.rack_items[rid].pos()
    return p.x(), p.y()


# -- drops from the palette --------------------------------------------------------------------
def test_dropping_an_nvl72_adds_one_rack_holding_it_and_undo_redo(win):
    before = {r.id for r in win.project.racks}
    _drop(win, "gb200-nvl72", 5000, 7600)
    new = [r for r in win.project.racks if r.id not in before]
    assert len(new) == 1
    rack = new[0]
    assert rack.type == "rack-48u-600x1200"
    assert [(d.type, d.u) for d in rack.devices] == [("gb200-nvl72", 1.0)]
    assert win.scene.rack_items[rack.id].role == "rack_scale"
    assert win.undo_action.isEnabled() and win.undo_action.text() == "Undo Add rack"
    win.undo_action.trigger()
    assert not win.project.has_rack(rack.id) and rack.id not in win.scene.rack_items
    assert win.redo_action.text() == "Redo Add rack"
    win.redo_action.trigger()
    assert win.project.rack(rack.id) == rack
    assert rack.id in win.scene.rack_items


def test_dropped_rack_snaps_its_edges_to_the_tiles(win):
    _drop(win, "rack-42u-600x1200", 5250, 7950)
    rack = win.project.racks[-1]
    # 600 x 1200 footprint: left edge 4950 -> 4800 (tile 8), top edge 7350 -> 7200 (tile 12).
    assert (rack.x, rack.y, rack.rotation) == (5100.0, 7800.0, 0.0)
    assert rack.name == "R1" and rack.devices == ()
    assert win.scene.selected_ids() == [f"rack:{rack.id}"]


def test_a_rack_dropped_beside_a_row_continues_it(win):
    _drop(win, RACK, 4230, 3100)
    rack = win.project.racks[-1]
    assert (rack.x, rack.y, rack.rotation) == (4200.0, 3000.0, 0.0)
    assert (rack.name, rack.row) == ("A05", "A")


def test_a_cdu_drop_adds_a_floor_unit(win):
    _drop(win, "cdu-inrow-2mw", 1300, 7800)
    dev = win.project.floor_devices[-1]
    assert (dev.type, dev.x, dev.y, dev.name) == ("cdu-inrow-2mw", 1200.0, 7800.0, "CDU-2")
    assert dev.id in win.scene.floor_items


def test_a_server_dropped_on_a_rack_is_left_to_the_elevation(win, qtbot, refusals):
    before = win.project
    with qtbot.waitSignal(win.scene.status_message) as blocker:
        _drop(win, "dgx-b200", 1800, 3000)
    assert "rack elevation" in blocker.args[0] and "A01" in blocker.args[0]
    assert win.project is before
    assert "rack elevation" in win.statusBar().currentMessage()


def test_a_drop_onto_a_rack_is_refused(win, refusals):
    before = win.project
    _drop(win, RACK, 2400, 3000)
    assert win.project is before
    assert refusals and "overlap" in refusals[0]


# -- moving with the mouse -----------------------------------------------------------------------
def test_dragging_a_rack_moves_it_by_whole_tiles(win, refusals):
    _drag(win, (3600, 3000), (3600 + 1280, 3000 + 2430))
    assert refusals == []
    assert _pos(win, "a04") == (4800.0, 5400.0, 0.0)
    assert _item_pos(win, "a04") == (4800.0, 5400.0)
    assert win.undo_action.text() == "Undo Move rack"
    win.undo_action.trigger()
    assert _pos(win, "a04") == (3600.0, 3000.0, 0.0) and _item_pos(win, "a04") == (3600.0, 3000.0)
    win.redo_action.trigger()
    assert _pos(win, "a04") == (4800.0, 5400.0, 0.0)


def test_dragging_a_rack_onto_another_is_refused_and_it_returns(win, refusals):
    before = win.project
    _drag(win, (1800, 3000), (2400, 3000))
    assert win.project is before and not win.undo_action.isEnabled()
    assert refusals == ["Move refused: rack A01 would overlap rack A02"]
    assert _item_pos(win, "a01") == (1800.0, 3000.0)
    assert not win.scene.rack_items["a01"].invalid and not win.scene.rack_items["a02"].invalid


def test_dragging_out_of_the_hall_is_refused(win, refusals):
    before = win.project
    _drag(win, (8100, 7200), (8100, 9300))
    assert win.project is before
    assert refusals == ["Move refused: rack S1 would leave hall Hall 1"]
    assert _item_pos(win, "s1") == (8100.0, 7200.0)


def test_items_are_marked_refused_during_a_drag_that_would_overlap(win):
    vp = win.view.viewport()
    a, b = _vp(win, 1800, 3000), _vp(win, 2400, 3000)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    for k in range(1, 6):
        QTest.mouseMove(vp, a + (b - a) * (k / 5))
    assert win.scene.rack_items["a01"].invalid and win.scene.rack_items["a02"].invalid
    assert style.REFUSED_LEGEND in win.scene.legend()  # the legend names the hatch while it is shown
    assert win.project.rack("a01").x == 1800.0  # the model is untouched while dragging
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)
    assert not win.scene.rack_items["a01"].invalid
    assert style.REFUSED_LEGEND not in win.scene.legend()


def test_escape_during_a_drag_puts_the_items_back_and_ends_the_gesture(win, refusals):
    vp = win.view.viewport()
    a, b = _vp(win, 1800, 3000), _vp(win, 2400, 3000)
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, a)
    assert win.scene.interaction is not None and not win.scene.dragging  # a press is not a drag yet
    for k in range(1, 6):
        QTest.mouseMove(vp, a + (b - a) * (k / 5))
    assert win.scene.dragging and win.scene.rack_items["a01"].invalid
    QTest.keyClick(win.view, Qt.Key.Key_Escape)
    assert win.scene.interaction is None and not win.scene.dragging
    assert _item_pos(win, "a01") == (1800.0, 3000.0) and not win.scene.rack_items["a01"].invalid
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, b)
    assert _item_pos(win, "a01") == (1800.0, 3000.0) and win.project.rack("a01").x == 1800.0
    assert refusals == [] and not win.undo_action.isEnabled()


def test_a_click_on_a_rack_starts_no_move(win):
    vp = win.view.viewport()
    QTest.mouseClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _vp(win, 1800, 3000))
    assert win.scene.selected_ids() == ["rack:a01"]
    assert win.scene.interaction is None and not win.undo_action.isEnabled()


def test_rubber_band_selects_the_racks_it_touches(win, qtbot):
    with qtbot.waitSignal(win.scene.selection_changed) as blocker:
        _drag(win, (1300, 1700), (2300, 2700))
    assert win.scene.selected_ids() == ["rack:a01", "rack:a02"]
    assert blocker.args == ["rack", ["a01", "a02"]]


def test_ctrl_click_adds_to_the_selection(win):
    vp = win.view.viewport()
    QTest.mouseClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, _vp(win, 1800, 3000))
    QTest.mouseClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, _vp(win, 8100, 7200))
    assert win.scene.selected_ids() == ["rack:a01", "rack:s1"]


def test_a_rack_and_a_cdu_dragged_together_are_one_move(win, refusals):
    # S1 against the wall beside the CDU (x 9000..10200); dragged left together, S1 lands in the CDU's old place.
    win.document.push(MoveObjectsCommand(racks={"s1": (10500.0, 1200.0, 0.0)}))
    win.scene.select_many(["rack:s1", "floor:cdu-1"])
    _drag(win, (9600, 1200), (9600 - 1200, 1200))
    assert refusals == []
    assert _pos(win, "s1")[:2] == (9300.0, 1200.0)
    assert (win.project.floor_device("cdu-1").x, win.project.floor_device("cdu-1").y) == (8400.0, 1200.0)
    assert win.undo_action.text() == "Undo Move 2 objects"
    win.undo_action.trigger()
    assert _pos(win, "s1")[:2] == (10500.0, 1200.0) and win.project.floor_device("cdu-1").x == 9600.0


# -- keyboard and menu edits --------------------------------------------------------------------
def test_rotate_action_turns_about_the_centre_and_undoes(win):
    win.scene.select("rack:s1")
    win.rotate_action.trigger()
    assert _pos(win, "s1") == (8100.0, 7200.0, 90.0)
    assert win.scene.rack_items["s1"].rotation() == 90.0
    win.undo_action.trigger()
    assert _pos(win, "s1") == (8100.0, 7200.0, 0.0)


def test_rotating_into_a_neighbour_is_refused(win, refusals):
    win.scene.select("rack:a02")
    win.rotate_action.trigger()
    assert _pos(win, "a02")[2] == 0.0
    assert refusals and "overlap" in refusals[0]


def test_arrow_keys_nudge_by_a_tile_and_shift_by_10_mm(win):
    win.scene.select("rack:s1")
    win.view.setFocus()
    QTest.keyClick(win.view, Qt.Key.Key_Left)
    assert _pos(win, "s1")[:2] == (7500.0, 7200.0)
    QTest.keyClick(win.view, Qt.Key.Key_Down, Qt.KeyboardModifier.ShiftModifier)
    assert _pos(win, "s1")[:2] == (7500.0, 7210.0)
    win.undo_action.trigger()
    win.undo_action.trigger()
    assert _pos(win, "s1")[:2] == (8100.0, 7200.0)


def test_nudging_into_a_neighbour_is_refused(win, refusals):
    win.scene.select("rack:a02")
    win.view.setFocus()
    QTest.keyClick(win.view, Qt.Key.Key_Left)
    assert _pos(win, "a02")[:2] == (2400.0, 3000.0)
    assert refusals == ["Move refused: rack A02 would overlap rack A01"]


def test_a_row_nudged_along_itself_moves_as_one_block(win, refusals):
    # Each rack steps into its neighbour's old place: only the row's new places count.
    win.scene.select_many([f"rack:a0{i}" for i in range(1, 5)])
    win.view.setFocus()
    QTest.keyClick(win.view, Qt.Key.Key_Right)
    assert refusals == []
    assert [_pos(win, f"a0{i}")[0] for i in range(1, 5)] == [2400.0, 3000.0, 3600.0, 4200.0]
    assert win.undo_action.text() == "Undo Move 4 racks"


def test_copy_paste_makes_new_racks_on_the_next_free_tile_row(win):
    win.scene.select_many(["rack:a01", "rack:a02"])
    win.copy_action.trigger()
    assert win.paste_action.isEnabled()
    ids = {r.id for r in win.project.racks}
    win.paste_action.trigger()
    new = [r for r in win.project.racks if r.id not in ids]
    assert len(new) == 2 and not {r.id for r in new} & ids
    assert sorted(r.name for r in new) == ["A05", "A06"]
    # One and minus one tile row overlap the originals; two rows down is free.
    assert sorted((r.x, r.y) for r in new) == [(1800.0, 4200.0), (2400.0, 4200.0)]
    assert all(r.devices and r.devices[0].type == "dgx-b200" for r in new)
    assert win.scene.selected_ids() == sorted(f"rack:{r.id}" for r in new)
    win.undo_action.trigger()
    assert {r.id for r in win.project.racks} == ids


def test_pasted_devices_get_ids_free_in_the_whole_design(win):
    # a device id not made from its rack's id ("gpu-node") is copied as it is no more: one id per design
    rack = win.project.rack("a03")
    win.document.push(AddDeviceCommand("a03", MountedDevice("gpu-node", "qm9700", 40, "rear")))
    win.scene.select_many(["rack:a03"])
    win.copy_action.trigger()
    win.paste_action.trigger()
    win.paste_action.trigger()
    new = [r for r in win.project.racks if r.id not in {"a01", "a02", "a03", "a04", "s1"}]
    ids = [d.id for r in win.project.racks for d in r.devices]
    assert len(new) == 2 and len(ids) == len(set(ids)) == 5 + 2 * 2
    assert win.project.device_rack("gpu-node") == rack.id
    # "a03-d1" follows the rack's new id; "gpu-node", taken, gets the next free one
    assert [[d.id for d in r.devices] for r in new] == [[f"{r.id}-d1", f"{r.id}-d2"] for r in new]


def test_a_rack_and_a_cdu_paste_as_one_command(win):
    win.scene.select_many(["rack:s1", "floor:cdu-1"])
    win.copy_action.trigger()
    win.paste_action.trigger()
    rack, dev = win.project.racks[-1], win.project.floor_devices[-1]
    # One tile row down overlaps the originals; two rows down both fit (the rack's back on the wall).
    assert (rack.name, rack.x, rack.y) == ("S2", 8100.0, 8400.0)
    assert (dev.name, dev.x, dev.y) == ("CDU-2", 9600.0, 2400.0)
    assert win.undo_action.text() == "Undo Paste 2 objects"
    win.undo_action.trigger()
    assert len(win.project.racks) == 5 and len(win.project.floor_devices) == 1


def test_cut_then_paste_puts_them_back(win):
    win.scene.select("rack:s1")
    win.cut_action.trigger()
    assert not win.project.has_rack("s1")
    win.paste_action.trigger()
    rack = win.project.racks[-1]
    assert (rack.x, rack.y, rack.type) == (8100.0, 7200.0, RACK)


def test_duplicate_row_copies_behind_the_row_with_the_next_letter(win):
    win.scene.select_many([f"rack:a0{i}" for i in range(1, 5)])
    ids = {r.id for r in win.project.racks}
    win.duplicate_action.trigger()
    new = sorted((r for r in win.project.racks if r.id not in ids), key=lambda r: r.x)
    assert [r.name for r in new] == ["B01", "B02", "B03", "B04"]
    assert {r.row for r in new} == {"B"}
    # Rack depth 1200 + aisle 1200 toward the rear (+y at rotation 0).
    assert [(r.x, r.y) for r in new] == [(1800.0 + 600 * i, 5400.0) for i in range(4)]
    assert win.undo_action.text() == "Undo Duplicate row"


def test_delete_removes_and_undo_restores(win):
    win.scene.select_many(["rack:a01", "floor:cdu-1"])
    win.delete_action.trigger()
    assert not win.project.has_rack("a01") and not win.project.has_floor_device("cdu-1")
    assert "a01" not in win.scene.rack_items and "cdu-1" not in win.scene.floor_items
    win.undo_action.trigger()
    assert win.project.has_rack("a01") and "cdu-1" in win.scene.floor_items


def _three_apart(win):
    win.document.push(MoveObjectsCommand(racks={"a01": (1800.0, 7000.0, 0.0), "a02": (3000.0, 7600.0, 0.0),
                                        "a03": (5100.0, 7300.0, 0.0)}))
    win.scene.select_many(["rack:a01", "rack:a02", "rack:a03"])


def test_align_top_and_left(win, refusals):
    _three_apart(win)
    win.align_actions["top"].trigger()
    assert [win.project.rack(r).y for r in ("a01", "a02", "a03")] == [7000.0, 7000.0, 7000.0]
    win.align_actions["left"].trigger()  # all three on one spot: refused
    assert refusals and "overlap" in refusals[0]
    assert win.project.rack("a02").x == 3000.0


def test_align_centres_vertically(win):
    _three_apart(win)
    win.align_actions["vcenter"].trigger()
    assert [win.project.rack(r).y for r in ("a01", "a02", "a03")] == [7300.0, 7300.0, 7300.0]  # the mean


def test_distribute_leaves_equal_gaps(win):
    _three_apart(win)
    win.distribute_actions["x"].trigger()
    # Outer racks stay (1500..2100 and 4800..5400); 3900 - 3 x 600 = 2100 of gap, 1050 each side of a02.
    assert [win.project.rack(r).x for r in ("a01", "a02", "a03")] == [1800.0, 3450.0, 5100.0]
    assert win.undo_action.text() == "Undo Distribute 3 racks"


def test_select_all_action(win):
    win.select_all_action.trigger()
    assert len(win.scene.selected_ids()) == 6
    assert win.align_menu.isEnabled() and win.distribute_menu.isEnabled()


# -- the scene as a mirror ---------------------------------------------------------------------
def test_a_move_updates_only_that_item(win):
    items = dict(win.scene.rack_items)
    positions = {rid: item.pos() for rid, item in items.items()}
    win.document.push(MoveObjectsCommand(racks={"s1": (7500.0, 7200.0, 0.0)}))
    assert win.scene.rack_items == items
    assert all(win.scene.rack_items[rid] is item for rid, item in items.items())
    assert items["s1"].pos() == QPointF(7500, 7200)
    assert all(items[rid].pos() == positions[rid] for rid in items if rid != "s1")


def test_select_and_centre_on_an_object(win, qtbot):
    with qtbot.waitSignal(win.scene.selection_changed) as blocker:
        assert win.scene.select("floor:cdu-1")
    assert blocker.args == ["floor", ["cdu-1"]]
    win.view.zoom_by(8)
    assert win.view.center_on_object("rack:s1")
    centre = win.view.mapToScene(win.view.viewport().rect().center())
    assert abs(centre.x() - 8100) < 50 and abs(centre.y() - 7200) < 50
    assert win.scene.select("hall:hall-1") and win.scene.selected_ids() == []
    assert not win.scene.select("rack:nope")


def test_clearance_zones_for_the_selection_and_for_all(win):
    assert win.scene.clearance.bands_shown() == 0
    win.scene.select_many(["rack:a01", "rack:a02"])
    assert win.scene.clearance.bands_shown() == 4
    front = win.scene.clearance.selection_item.front_path().boundingRect()
    # Rotation 0 faces -y: 1200 mm band in front of y 2400, 1000 behind y 3600.
    assert (front.top(), front.bottom()) == (1200.0, 2400.0)
    rear = win.scene.clearance.selection_item.rear_path().boundingRect()
    assert (rear.top(), rear.bottom()) == (3600.0, 4600.0)
    win.clearance_action.trigger()
    assert win.scene.clearance.all_item.isVisible() and win.scene.clearance.all_item.band_count == 10
    assert "Front clearance 1.2 m" in [t for _, t in win.scene.legend()]


def test_heat_map_colours_an_overloaded_rack_red(win, racks_as):
    analysis = analyze(win.project, win.catalog)
    racks = [{"id": r.id} for r in analysis.power.racks]
    racks[0] = {**racks[0], "max_kw": 50.0, "limit_kw": 40.0, "utilisation": 1.25}
    cooling = dict(analysis.sections["cooling"])
    cooling["cdu_loops"] = [{**cooling["cdu_loops"][0], "units": ["floor:cdu-1"], "load_kw": 1900.0,
                             "capacity_kw": 2000.0, "utilisation": 0.95}]
    analysis = replace(analysis, sections=MappingProxyType({**analysis.sections, "cooling": cooling}))
    win.scene.set_analysis(racks_as(analysis, racks))
    item = win.scene.rack_items[racks[0]["id"]]
    assert item.fill_color == style.ROLES["compute"][0]  # overlay off: role colours
    win.heat_map_action.trigger()
    assert item.fill_color == style.HEAT_OVER
    assert item.fill_color.red() > 2 * item.fill_color.green()
    light = win.scene.rack_items["s1"]  # an empty rack draws almost nothing
    assert light.fill_color.green() > light.fill_color.red()
    # The heat map shows the engine's utilisation as it is: without one a rack is unknown, whatever its kW.
    racks[1] = {**racks[1], "max_kw": 60.0, "limit_kw": 40.0, "utilisation": None}
    win.scene.set_analysis(racks_as(analysis, [r for r in racks if r["id"] != "a03"]))
    assert win.scene.rack_items[racks[1]["id"]].fill_color == style.HEAT_NO_DATA
    assert win.scene.rack_items["a03"].fill_color == style.HEAT_NO_DATA  # a rack the analysis does not know
    cdu = win.scene.floor_items["cdu-1"].fill_color
    assert cdu == style.heat_color(0.95) and cdu.red() > cdu.blue()
    assert "Over the limit" in [t for _, t in win.scene.legend()]
    win.heat_map_action.trigger()
    assert item.fill_color == style.ROLES["compute"][0]


def _swatches(scene) -> set[str]:
    return {entry[0].name() for entry in scene.legend() if entry[0].alpha() > 0}


def test_the_legend_lists_exactly_the_colours_in_use(win, racks_as):
    """Role colours with the heat map off, load bands with it on: never a colour the plan lacks, or the reverse."""
    win.scene.set_analysis(analyze(win.project, win.catalog))
    in_use = {i.fill_color.name() for i in [*win.scene.rack_items.values(), *win.scene.floor_items.values()]}
    assert _swatches(win.scene) == in_use
    analysis = analyze(win.project, win.catalog)
    racks = [{"id": r.id} for r in analysis.power.racks]
    racks[0]["utilisation"], racks[1]["utilisation"] = 1.0, 0.71  # at its limit, and the report's 71 %
    win.scene.set_analysis(racks_as(analysis, racks))
    win.heat_map_action.trigger()
    in_use = {i.fill_color.name() for i in win.scene.rack_items.values()}
    in_use |= {i.fill_color.name() for i in win.scene.floor_items.values() if i.kind == "cdu"}
    assert _swatches(win.scene) == in_use and len(in_use) >= 3
    # The 71 % rack of the report is in a band of its own colour, and the legend names that band.
    assert style.heat_color(0.71) == style.HEAT_BANDS["moderate"][0]
    assert style.heat_color(1.0) == style.HEAT_AT_LIMIT != style.HEAT_OVER


def test_the_heat_legend_follows_every_change_of_layer(win, racks_as):
    """The legend's bands are cached between repaints; no sequence of layer changes may show stale ones."""
    analysis = analyze(win.project, win.catalog)
    racks = [{"id": r.id} for r in analysis.power.racks]
    racks[0]["utilisation"], racks[1]["utilisation"] = 1.2, 0.9
    racks[2]["air_density"] = 0.7
    win.scene.set_analysis(racks_as(analysis, racks))
    win.heat_map_action.trigger()
    layers = ["rack_power", "air_density", "power_chain"]
    for step in range(40):
        # two changes while the map is off (no legend asked between them), then the map back on
        win.heat_map_action.trigger()
        win.scene.set_heat_layer(layers[step % 3])
        win.scene.set_heat_layer(layers[(step * 2 + 1) % 3])
        win.heat_map_action.trigger()
        in_use = {i.fill_color.name() for i in win.scene.rack_items.values()}
        in_use |= {i.fill_color.name() for i in win.scene.floor_items.values() if i.kind == "cdu"}
        assert _swatches(win.scene) == in_use, step


def test_refused_is_not_a_colour_of_load_or_role():
    from widgets.plan.floor_items import _INVALID_HATCH
    assert _INVALID_HATCH.style() == Qt.BrushStyle.BDiagPattern
    assert style.INVALID.name() not in {c.name() for c, _ in style.HEAT_LEGEND}
    assert style.INVALID.name() not in {c.name() for c, _ in style.ROLES.values()}


def test_heat_map_without_results_is_neutral(win):
    win.heat_map_action.trigger()
    assert all(i.fill_color == style.HEAT_NO_DATA for i in win.scene.rack_items.values())


def test_scene_follows_a_replaced_document(win, catalog):
    import drawn as samples
    old_doc, old_item = win.document, win.scene.rack_items["a01"]
    assert win.open_path(samples.DGX_B200_SU)
    assert "s1" not in win.scene.rack_items and win.scene.rack_items["a01"] is not old_item
    a01 = win.scene.rack_items["a01"]
    old_doc.push(MoveObjectsCommand(racks={"a01": (600.0, 600.0, 0.0)}))  # the old document no longer reaches the plan
    assert win.scene.rack_items["a01"] is a01 and a01.pos() == QPointF(win.project.rack("a01").x,
                                                                       win.project.rack("a01").y)
    assert not win.undo_action.isEnabled()


def test_cdu_heat_reads_the_cooling_engines_utilisation(catalog):
    from designer import samples as bundled
    from designer.fileformat import load
    from widgets.plan.floor_heatmap import cdu_shares

    real = analyze(load(bundled.GB200_NVL72_SU, catalog), catalog)
    cooling = dict(real.sections["cooling"])
    # A figure unlike load / capacity: a map dividing them itself would show 0.5.
    cooling["cdu_loops"] = [{**cooling["cdu_loops"][0], "units": ["floor:cdu-1", "floor:cdu-2"], "load_kw": 1000.0,
                             "capacity_kw": 2000.0, "utilisation": 0.8}]
    fake = replace(real, sections=MappingProxyType({**real.sections, "cooling": cooling}))
    assert cdu_shares(fake) == {"cdu-1": 0.8, "cdu-2": 0.8}
