"""A hall's electrical room, worked by hand: what stands in it per UPS system, how the line-ups wrap and face their
aisles, and how big the room comes out (designer.power.electrical_room)."""
from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import pytest

from designer import samples
from designer.facility import Facility
from designer.fileformat import load
from designer.model import Hall
from designer.power import electrical_room as er


def _hall(width: float = 12_000.0, depth: float = 10_000.0, **facility) -> Hall:
    f = Facility(**{"ups_scheme": "2N", "ups_module_kw": 1200.0, "ups_modules": 2, **facility})
    return Hall("h", "Hall", ((0.0, 0.0), (width, 0.0), (width, depth), (0.0, depth)), facility=f)


def test_a_module_of_1200_kw_takes_five_battery_racks_for_five_minutes():
    # 1,200 kW x 5 min / 0.96 = 104.2 kWh from racks of 34.6 kWh at 80 % end of life and 90 % usable: 24.9 each
    assert er.batteries_per_module(1200.0) == 5
    assert er.batteries_per_module(600.0) == 3  # 52.1 / 24.9 = 2.09
    assert er.batteries_per_module(1.0) == 1


def test_a_2n_hall_of_two_rows_gets_two_line_ups_wrapped_into_facing_rows():
    room = er.electrical_room(_hall(), rows=2)
    assert room.systems == ("A", "B")
    # per system: a main and two sections for the 2 modules' 6 breakers (input, output, bypass); 2 UPS with 5
    # racks each; a main and one feeder section for its 2 busway runs (2 rows x feed A x 1 run)
    assert (room.count("switchgear"), room.count("ups"), room.count("battery"), room.count("distribution")) == \
        (6, 4, 20, 4)
    # usable width 12.0 - 2 x 1.2 = 9.6 m: 3 SG, a UPS and its 5 racks (8.646 m) on the first row, the second UPS,
    # its racks and the two DB sections (7.732 m) on the next; each system two rows, 1.829 m deep (switchgear)
    ys = sorted({round(i.y) for i in room.items if i.kind == "switchgear"})
    assert len(ys) == 2  # A's and B's first rows
    assert room.x == 0.0 and room.y == 10_300.0 and room.width == 12_000.0
    assert room.depth == pytest.approx(2 * (1829.0 + 1800.0 + 1829.0))  # two pairs of rows across an aisle
    assert len(room.aisles) == 2
    assert room.area_m2 == pytest.approx(12.0 * 10.916)
    assert room.summary() == ("12.0 × 10.9 m (131 m²): 4 UPS modules in 2 systems, 20 battery cabinets, "
                              "10 switchgear sections")
    assert {i.system for i in room.items if i.y < 10_300.0 + 5458.0} == {"A"}  # A and B never share a row


def test_equipment_stands_inside_the_room_without_overlap_and_fronts_its_aisle():
    room = er.electrical_room(_hall(ups_modules=7, distribution_runs=2), rows=5)
    for i in room.items:
        assert room.x + er.END_MM - 1e-6 <= i.x and i.x + i.w <= room.x + room.width - er.END_MM + 1e-6
        assert room.y - 1e-6 <= i.y and i.y + i.d <= room.y + room.depth + 1e-6
        front = i.y + i.d if i.faces_down else i.y
        assert any(abs(front - (ay if i.faces_down else ay + ad)) < 1e-6 for _, ay, _, ad in room.aisles)
    for a, b in combinations(room.items, 2):
        assert a.x + a.w <= b.x + 1e-6 or b.x + b.w <= a.x + 1e-6 or a.y + a.d <= b.y + 1e-6 or b.y + b.d <= a.y + 1e-6
    assert all(d == er.AISLE_MM for _, _, _, d in room.aisles)
    # 10 busway runs a system (5 rows x 2 runs, feed A): a main and 3 feeder sections; 7 modules' 21 breakers: 6
    assert room.count("distribution") == 2 * 4 and room.count("switchgear") == 2 * 7
    assert room.count("ups") == 14 and room.count("battery") == 70


def test_one_system_carries_both_feeds_and_distributed_redundant_blocks_share_them():
    one = er.electrical_room(_hall(ups_scheme="N+1", ups_modules=3, ups_redundant_modules=1), rows=4)
    assert one.systems == ("",) and one.count("ups") == 3
    assert one.count("distribution") == 1 + 2  # 8 runs (4 rows x A and B): two feeder sections
    dr = er.electrical_room(_hall(ups_scheme="DR", ups_blocks=4, ups_modules=1), rows=6)
    assert dr.systems == ("1", "2", "3", "4") and dr.count("ups") == 4
    assert dr.count("distribution") == 4 * (1 + 1)  # 12 runs over 4 blocks: 3 each, one feeder section
    assert [i.label for i in dr.items if i.kind == "ups"] == ["UPS 1.1", "UPS 2.1", "UPS 3.1", "UPS 4.1"]


def test_a_narrow_hall_gets_a_room_as_wide_as_its_widest_piece_and_a_hall_without_ups_none():
    room = er.electrical_room(_hall(width=2000.0), rows=1)
    assert room.width == er.UPS_W + 2 * er.END_MM
    assert er.electrical_room(replace(_hall(), facility=Facility()), rows=3) is None


def test_the_samples_rooms_follow_their_facility_and_rows(catalog):
    project = load(samples.GB200_NVL72_SU, catalog)
    rooms = er.electrical_rooms(project)
    hall = project.halls[0]
    assert list(rooms) == [hall.id] and er.rows_per_hall(project.racks) == {hall.id: 2}
    room = rooms[hall.id]
    assert room.count("ups") == 2 * hall.facility.ups_modules == 4
    assert room.y == hall.bounds[3] + er.WALL_MM and room.width == hall.bounds[2] - hall.bounds[0]


def test_no_aisle_is_shared_by_two_systems_even_when_a_system_ends_on_an_odd_row():
    # 3 modules a side in a 12 m hall: A wraps onto three rows, its last alone before its own aisle
    room = er.electrical_room(_hall(ups_modules=3), rows=2)
    for _, ay, _, ad in room.aisles:
        facing = {i.system for i in room.items if abs((i.y + i.d if i.faces_down else i.y) - (ay if i.faces_down
                                                                                                 else ay + ad)) < 1e-6}
        assert len(facing) == 1, (ay, facing)
    assert {i.system for i in room.items} == {"A", "B"}


def test_a_room_past_what_a_plan_holds_is_not_laid_out_and_its_count_says_why():
    hostile = _hall(ups_scheme="DR", ups_blocks=16, ups_modules=1000, ups_module_kw=100_000.0)
    assert er.pieces(hostile.facility, 40) > er.MAX_PIECES
    assert er.electrical_room(hostile, rows=40) is None  # counted, not laid out: no millions of pieces
    ordinary = _hall(ups_modules=36)
    assert er.pieces(ordinary.facility, 40) == len(er.electrical_room(ordinary, rows=40).items)
    assert er.electrical_room(_hall(ups_modules=1, ups_scheme="N"), rows=1).summary().startswith(
        "12.0 × 3.6 m (44 m²): 1 UPS module, 5 battery cabinets, 4 switchgear sections")
