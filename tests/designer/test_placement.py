"""Placement rules: footprints, the space index, snapping, names, and the commands that enforce them.

The golden design has one 6000 x 4800 mm hall, racks A01 (x 1500) and A02
(x 2100) side by side at y 2400, both 600 x 1200 at rotation 0, and a 1200 x
1200 mm CDU at (4200, 2400).
"""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from designer import placement as pl
from designer import samples
from designer.checks import check_space
from designer.commands import (AddObjectsCommand, CommandError, Document, MacroCommand, MoveObjectsCommand,
                               PlaceRackCommand, UpdateHallCommand, UpdateRackCommand)
from designer.fileformat import load, loads
from designer.model import FloorDevice, Rack
from designer.placement.footprints import footprints_of, placed_columns
from designer.placement.index import overlap_areas
from tests.designer.test_fileformat import GOLDEN

RACK = "rack-42u-600x1200"


@pytest.fixture
def project(catalog):
    return load(GOLDEN, catalog)


@pytest.fixture
def doc(catalog, project):
    return Document(project, catalog)


def _rack(rid: str, name: str, x: float, y: float = 2400.0, rotation: float = 0.0, rtype: str = RACK) -> Rack:
    return Rack(rid, name, "h1", rtype, x, y, rotation)


# -- footprints --------------------------------------------------------------------------------
def test_corners_turn_clockwise_with_the_front_toward_minus_y(catalog):
    assert pl.corners(1000, 2000, 600, 1200, 0) == [(700, 1400), (1300, 1400), (1300, 2600), (700, 2600)]
    # A quarter turn clockwise (y grows downward): the front-left corner goes to the top right.
    turned = pl.corners(1000, 2000, 600, 1200, 90)
    assert [tuple(p) for p in turned] == [pytest.approx(p) for p in ((1600, 1700), (1600, 2300), (400, 2300),
                                                                     (400, 1700))]
    assert pl.box(1000, 2000, 600, 1200, 90) == pytest.approx((400, 1700, 1600, 2300))
    assert pl.extent(600, 1200, 90) == pytest.approx((1200, 600))
    assert pl.rear_offset(90, 1000) == pytest.approx((-1000, 0))


def test_vectorised_corners_and_polygons_match_the_scalar_ones():
    rows = [(1000, 2000, 600, 1200, 0), (500, 700, 800, 1200, 90), (0, 0, 750, 1070, 33)]
    arrays = pl.corner_arrays(np.array(rows, dtype=float))
    for row, got in zip(rows, arrays):
        assert got.ravel().tolist() == pytest.approx([v for p in pl.corners(*row) for v in p])
    polys = pl.rectangles(rows)
    assert [round(p.area) for p in polys] == [600 * 1200, 800 * 1200, 750 * 1070]


def test_footprint_of_a_rack_and_a_floor_unit(project, catalog):
    rack = pl.footprint_of(project, catalog, "rack:r1")
    assert (rack.label, rack.width, rack.depth, rack.box) == ("rack A01", 600, 1200, (1200, 1800, 1800, 3000))
    cdu = pl.footprint_of(project, catalog, "floor:c1")
    assert (cdu.label, cdu.width, cdu.depth, cdu.solid) == ("floor unit CDU-1", 1200, 1200, True)


# -- the index: overlap, touching, the wall ----------------------------------------------------
def test_touching_neighbours_pass_and_an_overlap_is_named(project, catalog):
    index = pl.SpaceIndex(project, catalog)
    beside = pl.rack_footprint(_rack("n", "A03", 2700), catalog)  # shares A02's edge at x 2400
    assert index.check([beside]) is None
    over = beside.moved(2500, 2400)
    problem = index.check([over])
    assert problem.message == "rack A03 would overlap rack A02"
    assert (problem.bad, problem.hit) == ({"rack:n"}, {"rack:r2"})


@pytest.mark.parametrize(("x", "rotation", "inside"), [
    (300.0, 0, True),      # the left edge on the wall
    (299.6, 0, True),      # 0.4 mm through it: rounding, within the tolerance
    (299.0, 0, False),     # 1 mm through it
    (600.0, 90, True),     # turned: its 1200 mm depth runs along x and just reaches the wall
    (599.0, 90, False),
    (5700.0, 0, True),     # the right wall
    (5701.0, 0, False),
])
def test_index_and_findings_agree_at_the_wall(project, catalog, x, rotation, inside):
    moved = project.with_racks([replace(project.rack("r1"), x=x, y=1800.0, rotation=rotation)])
    finding = [f for f in check_space(moved, catalog) if f.code == "outside-hall"]
    problem = pl.check_move(project, catalog, [pl.rack_footprint(moved.rack("r1"), catalog)])
    assert (problem is None) == inside == (not finding)
    if not inside:
        assert problem.message == "rack A01 would leave hall Hall 1"
        assert finding[0].message == "rack A01 is not inside hall Hall 1"


def test_one_tolerance_for_the_wall(project):
    shape = pl.hall_shape(project.hall("h1"))
    assert shape.bounds == pytest.approx((-pl.WALL_TOLERANCE_MM, -pl.WALL_TOLERANCE_MM,
                                          6000 + pl.WALL_TOLERANCE_MM, 4800 + pl.WALL_TOLERANCE_MM))


def test_a_crossed_outline_is_a_finding_not_a_refusal(project, catalog):
    bow = project.with_hall(replace(project.hall("h1"), outline=((0, 0), (6000, 4800), (6000, 0), (0, 4800))))
    assert pl.hall_shape(bow.hall("h1")) is None
    assert pl.check_move(bow, catalog, [pl.footprint_of(bow, catalog, "rack:r1").moved(1500, 600)]) is None
    assert [f.code for f in check_space(bow, catalog)] == ["hall-outline-invalid"]


def test_overlap_areas_of_turned_and_unturned_rectangles():
    a = pl.rectangles([(0, 0, 600, 1200, 0), (0, 0, 600, 1200, 45), (0, 0, 600, 1200, 90)])
    b = pl.rectangles([(300, 0, 600, 1200, 0), (300, 0, 600, 1200, 0), (900, 0, 600, 1200, 0)])
    exact = [a[i].intersection(b[i]).area for i in range(3)]
    assert overlap_areas(a, b).tolist() == pytest.approx(exact)
    assert exact[0] == 300 * 1200 and exact[2] == 0  # the turned one only touches


# -- the index per project value ---------------------------------------------------------------
def test_the_index_is_built_once_per_project_value(project, catalog, monkeypatch):
    first = pl.space_index(project, catalog)
    assert pl.space_index(project, catalog) is first
    builds = []
    monkeypatch.setattr(pl.SpaceIndex, "__init__", lambda self, *a: builds.append(a) or None)
    doc = Document(project, catalog)
    for y in (1800.0, 1900.0, 2000.0):  # typing y into the inspector: three project values
        doc.push(PlaceRackCommand("r1", {"y": y}))
    pl.space_index(doc.project, catalog)
    assert builds == []  # each value's index was derived from the last one's


def test_a_derived_index_answers_like_a_fresh_one(project, catalog):
    doc = Document(project, catalog)
    pl.space_index(project, catalog)
    doc.push(MoveObjectsCommand(racks={"r1": (600.0, 3600.0, 90.0)}))
    doc.push(AddObjectsCommand(racks=(_rack("n", "A03", 1500),)))  # into r1's old place
    derived = pl.space_index(doc.project, catalog)
    fresh = pl.SpaceIndex(doc.project, catalog)
    probe = pl.rack_footprint(_rack("p", "P", 0), catalog)
    for x in range(300, 5800, 150):
        for y in (600.0, 1800.0, 2400.0, 3600.0, 4200.0):
            spot = [probe.moved(float(x), y)]
            a, b = derived.check(spot), fresh.check(spot)
            assert (a and (a.bad, a.hit)) == (b and (b.bad, b.hit)), (x, y)
    assert derived.check([probe.moved(1500.0, 2400.0)]).hit == {"rack:n"}
    assert derived.check([probe.moved(900.0, 3600.0)]).hit == {"rack:r1"}


# -- snapping, align, distribute, clearances ----------------------------------------------------
def test_snapping():
    assert pl.snap_delta(890, 600) == 600 and pl.snap_delta(-301, 600) == -600 and pl.snap_delta(17, 0) == 17
    # A 600 mm wide footprint dropped at 5250: its left edge 4950 goes to the nearest tile edge, 4800.
    assert pl.snap_centre(5250, 600, 600) == 5100
    assert pl.snap_centre(5250, 600, 600, phase=150) == 5250  # a row whose edges sit at 150 + k * 600


def test_align_distribute_and_clearances():
    boxes = [(0, 0, 600, 1200), (1000, 300, 1600, 1500), (3000, 100, 3600, 1300)]
    assert pl.align(boxes, "top") == [(0, 0), (0, -300), (0, -100)]
    # 3600 mm from the first left edge to the last right one, 1800 of racks: 900 mm gaps.
    assert pl.distribute(boxes, "x") == [(0, 0), (500, 0), (0, 0)]
    front, rear = pl.clearance_bands(1000, 2000, 600, 1200, 0)
    assert front == [(700, 200), (1300, 200), (1300, 1400), (700, 1400)]
    assert rear == [(700, 2600), (1300, 2600), (1300, 3600), (700, 3600)]


# -- names and ids -----------------------------------------------------------------------------
def test_names():
    assert pl.split_name("A09 network") == ("A", 9, 2, " network")
    assert pl.split_name("NVL72-01") == ("NVL72-", 1, 2, "")
    assert pl.split_name("spare") is None
    assert pl.next_names("A", ["A01", "A07", "B09"], 2) == ["A08", "A09"]
    assert pl.next_row_letter(["A", "B", "AA"]) == "C" and pl.next_row_letter(["Z"]) == "AA"
    assert pl.next_row_letter([]) == "A"


def test_new_ids_are_fresh_across_halls_racks_and_floor_units(project):
    # h1, r1, r2, c1 are taken: ids start after the object count and skip used ones.
    assert pl.new_ids(project, "r", 3) == ["r5", "r6", "r7"]
    crowded = replace(project, racks=project.racks + (replace(project.rack("r1"), id="r5"),))
    assert pl.new_ids(crowded, "r", 2) == ["r6", "r7"]
    assert not any(crowded.uses_id(i) for i in pl.new_ids(crowded, "c", 4))


# -- the commands enforce the rules ------------------------------------------------------------
REFUSED = [
    ("add over A02", lambda: AddObjectsCommand(racks=(_rack("n", "A03", 2300),)), "rack A03 would overlap rack A02"),
    ("add outside", lambda: AddObjectsCommand(racks=(_rack("n", "A03", -99999),)), "rack A03 would leave hall Hall 1"),
    ("two new racks on one spot", lambda: AddObjectsCommand(racks=(_rack("n", "A03", 2700), _rack("m", "A04", 2800))),
     "rack A03 would overlap rack A04"),
    ("move onto A02", lambda: MoveObjectsCommand(racks={"r1": (2100, 2400, 0)}), "rack A01 would overlap rack A02"),
    ("move outside", lambda: MoveObjectsCommand(racks={"r1": (1500, 9000, 0)}), "rack A01 would leave hall Hall 1"),
    ("turn into A02", lambda: MoveObjectsCommand(racks={"r1": (1800, 2400, 90)}), "rack A01 would overlap rack A02"),
    ("type x onto A02", lambda: PlaceRackCommand("r1", {"x": 1900.0}), "rack A01 would overlap rack A02"),
    ("type x outside", lambda: PlaceRackCommand("r1", {"x": -99999.0}), "rack A01 would leave hall Hall 1"),
    ("type a turn past the wall", lambda: PlaceRackCommand("r1", {"rotation": 90.0, "y": 4600.0}),
     "rack A01 would leave hall Hall 1"),
    ("a wider rack type", lambda: UpdateRackCommand("r1", {"type": "rack-48u-800x1200"}),
     "rack A01 would overlap rack A02"),
    ("add a CDU on A01",
     lambda: AddObjectsCommand(floor_devices=(FloorDevice("c2", "cdu-inrow-2mw", "h1", 1200, 2400),)),
     "floor unit c2 would overlap rack A01"),
    ("move the CDU outside", lambda: MoveObjectsCommand(floor_devices={"c1": (5900, 2400, 0)}),
     "floor unit CDU-1 would leave hall Hall 1"),
    ("move the CDU onto A02", lambda: MoveObjectsCommand(floor_devices={"c1": (2400, 2400, 0)}),
     "floor unit CDU-1 would overlap rack A02"),
    ("paste a rack and a CDU on each other", lambda: AddObjectsCommand(
        (_rack("n", "A03", 3000, 600),), (FloorDevice("c2", "cdu-inrow-2mw", "h1", 3300, 600, name="CDU-2"),)),
     "rack A03 would overlap floor unit CDU-2"),
    ("a rack and a CDU moved onto each other", lambda: MoveObjectsCommand({"r1": (1500, 900, 0)},
                                                                          {"c1": (1800, 900, 0)}),
     "rack A01 would overlap floor unit CDU-1"),
]


@pytest.mark.parametrize(("make", "message"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_placement_commands_refuse_and_change_nothing(doc, make, message):
    doc.push(UpdateHallCommand("h1", {"name": "Hall 1"}))  # something to undo, so the stack is seen unchanged
    before, revision, label = doc.project, doc.revision, doc.undo_label()
    with pytest.raises(CommandError) as refused:
        doc.push(make())
    assert str(refused.value) == message
    assert doc.project is before and doc.revision == revision
    assert doc.undo_label() == label and not doc.can_redo()
    doc.undo()
    assert not doc.can_undo()  # the refused command left no step behind


def test_place_rack_through_the_python_api(catalog):
    """What a script does without the GUI: a Document and the commands, nothing else."""
    from designer.commands import Document as Doc, PlaceRackCommand as Place

    doc = Doc(load(GOLDEN, catalog), catalog)
    before = doc.project
    for changes, message in (({"x": 2100.0, "y": 2400.0}, "rack A01 would overlap rack A02"),
                             ({"x": -99999.0}, "rack A01 would leave hall Hall 1"),
                             ({"y": 99999.0}, "rack A01 would leave hall Hall 1")):
        with pytest.raises(CommandError, match=message):
            doc.push(Place("r1", changes))
        assert doc.project is before and not doc.can_undo()
    doc.push(Place("r1", {"x": 900.0}))
    assert doc.project.rack("r1").x == 900.0


def test_a_group_may_swap_and_shift_within_itself(doc):
    doc.push(MoveObjectsCommand(racks={"r1": (2100, 2400, 0), "r2": (1500, 2400, 0)}, label="Swap"))
    assert (doc.project.rack("r1").x, doc.project.rack("r2").x) == (2100, 1500)
    doc.push(MoveObjectsCommand(racks={"r2": (2100, 2400, 0), "r1": (2700, 2400, 0)}))  # the row shifts by one rack
    assert (doc.project.rack("r2").x, doc.project.rack("r1").x) == (2100, 2700)
    doc.push(MoveObjectsCommand({"r2": (1500, 1200, 0)}, {"c1": (2700, 1200, 0)}))  # a rack and a CDU together
    assert doc.project.floor_device("c1").x == 2700


def test_one_by_one_the_same_swap_collides(doc):
    with pytest.raises(CommandError, match="rack A01 would overlap rack A02"):
        doc.push(MacroCommand([MoveObjectsCommand(racks={"r1": (2100, 2400, 0)}),
                               MoveObjectsCommand(racks={"r2": (1500, 2400, 0)})]))


def test_a_turned_group_is_checked_against_itself(doc):
    with pytest.raises(CommandError, match="rack A01 would overlap rack A02"):
        doc.push(MoveObjectsCommand(racks={"r1": (1500, 2400, 90), "r2": (2100, 2400, 90)}))


def test_overlaps_from_a_file_load_and_can_be_moved_apart(catalog):
    data = json.loads(GOLDEN.read_text())
    data["racks"][1]["x"] = 1800  # A02 300 mm into A01: a file may hold this, an edit may not make it
    doc = Document(loads(json.dumps(data), catalog), catalog)
    assert [f.code for f in check_space(doc.project, catalog)] == ["overlap"]
    doc.push(MoveObjectsCommand(racks={"r1": (1500, 1200, 0), "r2": (1800, 1200, 0)}))  # rigidly, still overlapping
    with pytest.raises(CommandError, match="rack A02 would overlap rack A01"):
        doc.push(MoveObjectsCommand(racks={"r2": (1900, 1200, 0)}))
    doc.push(MoveObjectsCommand(racks={"r2": (2100, 1200, 0)}))
    assert check_space(doc.project, catalog) == []


def test_a_smaller_hall_is_taken_and_its_strays_are_findings(doc, catalog):
    doc.push(UpdateHallCommand("h1", {"outline": [[0, 0], [3000, 0], [3000, 4800], [0, 4800]]}))
    assert [(f.code, f.where) for f in check_space(doc.project, catalog)] == [("outside-hall", "floor:c1")]
    with pytest.raises(CommandError, match="floor unit CDU-1 would leave hall Hall 1"):
        doc.push(MoveObjectsCommand(floor_devices={"c1": (4200, 1200, 90)}))
    doc.push(MoveObjectsCommand(floor_devices={"c1": (2400, 600, 0)}))
    assert check_space(doc.project, catalog) == []


def test_moving_a_rack_to_another_hall_is_checked_there(doc):
    from designer.commands import AddHallCommand
    from designer.model import Hall

    doc.push(AddHallCommand(Hall("h2", "Hall 2", ((0, 0), (1000, 0), (1000, 1000), (0, 1000)))))
    with pytest.raises(CommandError, match="rack A01 would leave hall Hall 2"):
        doc.push(UpdateRackCommand("r1", {"hall": "h2"}))
    doc.push(UpdateRackCommand("r1", {"name": "A01 spare"}))  # other fields are not placement
    assert doc.project.rack("r1").name == "A01 spare"


@pytest.mark.parametrize("path", samples.all_samples(), ids=lambda p: p.name)
def test_the_samples_are_clean_and_every_object_may_stay_or_move_a_tile(catalog, path):
    project = load(path, catalog)
    assert [f for f in check_space(project, catalog) if f.code in ("overlap", "outside-hall")] == []
    wheres = [f"rack:{r.id}" for r in project.racks] + [f"floor:{f.id}" for f in project.floor_devices]
    for where in wheres:
        assert pl.check_move(project, catalog, [pl.footprint_of(project, catalog, where)]) is None, where
    doc = Document(project, catalog)
    rack = project.racks[0]
    doc.push(MoveObjectsCommand(racks={r.id: (r.x, r.y + 600 * (1 if r.rotation == 0 else -1), r.rotation)
                               for r in project.racks if r.row == rack.row}))
    doc.undo()
    assert doc.project is project


def test_halls_at_the_same_place_meet_only_their_own_racks(project, catalog):
    # every hall's plan starts at (0, 0): the index sets them apart, and a rack meets only its own hall's racks
    from designer.model import Hall

    twin = project.adding_hall(Hall("h2", "Hall 2", project.hall("h1").outline))
    a01 = twin.rack("r1")
    twin = twin.adding_racks([replace(a01, id="r9", name="B01", hall="h2")])
    assert check_space(twin, catalog) == []  # A01 and B01 stand at the same spot of two halls
    index = pl.SpaceIndex(twin, catalog)
    over_a02 = pl.footprint_of(twin, catalog, "rack:r2")
    # the same spot in hall 2 is free of A02 (A02 stands in hall 1) ...
    assert index.check([over_a02._replace(id="n1", name="N1", hall="h2")]) is None
    # ... and in hall 1 it is taken
    problem = index.check([over_a02._replace(id="n1", name="N1")])
    assert problem is not None and problem.message == "rack N1 would overlap rack A02"
    # B01 is hit in its own hall only, also through a derived index's list of changed footprints
    moved = twin.with_racks([replace(r, x=r.x + 0.0) for r in twin.racks])
    derived = index.updated(moved, catalog, ["r9"], [])
    hit = derived.check([pl.footprint_of(twin, catalog, "rack:r9")._replace(id="n2", name="N2")])
    assert hit is not None and hit.hit == {"rack:r9"}


def test_the_placed_columns_are_the_footprints_that_take_floor(project, catalog):
    """placed_objects sizes floor units once per type; it must give what each unit's own footprint gives: a
    second CDU of the same type, a unit of a type with no footprint (left out), in the project's order."""
    cdu = project.floor_devices[0]
    flat = FloorDevice("pdu-wall", "pdu-415v-32a-3ph", "h1", 300.0, 300.0, 0.0, "Wall PDU")
    assert pl.floor_footprint(flat, catalog).solid is False  # the catalog gives this PDU no footprint
    p = replace(project, floor_devices=(cdu, flat, replace(cdu, id="cdu-2", name="CDU 2", x=1200.0, rotation=90.0)))
    got = pl.placed_objects(p, catalog)
    want = placed_columns(footprints_of(p.racks, p.floor_devices, catalog))
    assert got.wheres == want.wheres == ["rack:r1", "rack:r2", "floor:c1", "floor:cdu-2"]
    assert got.labels == want.labels and list(got.halls) == list(want.halls)
    assert [poly.equals(other) for poly, other in zip(got.polys, want.polys)] == [True] * 4
