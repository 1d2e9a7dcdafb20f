"""Generated halls hold their air handlers: perimeter CRAHs, N+1 on the air heat and the racks' airflow, in
galleries with service space, the hall lengthened where its walls are too short (designer/generate/air_handling.py).

Figures: ``crah-cw-200kw`` removes 200 kW and moves 31,700 CFM (catalog); it is 2,550 x 900 mm; the gallery is
its depth in whole 600 mm tiles, 1.2 m, and the 1.2 m the racks' grid keeps before its outer racks its service
space.
"""
from __future__ import annotations

import math

import pytest
from shapely.geometry import Polygon, box as shapely_box

from catalog import default_catalog
from designer.analysis import analyze
from designer.generate import SuperpodSpec, generate
from designer.generate.air_handling import CRAH_TYPE, gallery_mm, place_units, room_for, units_needed
from designer.placement.footprints import floor_footprint, rack_footprint
from designer.quote.lines import FACILITY_EXCLUDED


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def crahs(project):
    return [f for f in project.floor_devices if f.type == CRAH_TYPE]


def poly(fp):
    return shapely_box(*fp.box)


@pytest.fixture(scope="module")
def b200_4su(catalog):
    return generate(SuperpodSpec(system="dgx-b200", sus=4), catalog)


def test_unit_count_is_n_plus_1_on_heat_or_airflow_whichever_needs_more(catalog):
    assert units_needed(0.0, 0.0, catalog) == 0
    assert units_needed(400.0, 1000.0, catalog) == 3  # 2 for the heat, + 1
    assert units_needed(400.0, 3 * 31700.0 + 1, catalog) == 5  # 4 for the airflow, + 1
    assert units_needed(200.0001, 0.0, catalog) == 3


def test_generated_b200_hall_holds_n_plus_1_air_handlers_and_no_cooling_finding(catalog, b200_4su):
    analysis = analyze(b200_4su.project, catalog)
    hall = analysis.cooling.halls[0]
    units = crahs(b200_4su.project)
    assert len(units) == units_needed(hall.air_kw, hall.air_cfm, catalog) == 11  # 1,948 kW of air: 10 + 1
    assert hall.air_handlers.redundancy == "N+1"
    assert hall.air_handlers.capacity_kw == 2200.0 and hall.air_handlers.capacity_n_minus_1_kw == 2000.0
    assert hall.air_handlers.airflow_cfm >= hall.air_handlers.demand_cfm
    assert not [f for f in analysis.findings if f.code.startswith("crah-")]
    assert not [f for f in analysis.findings if f.severity == "error"]


def test_air_handlers_stand_against_the_side_walls_with_service_space_before_the_racks(catalog, b200_4su):
    project = b200_4su.project
    (x0, y0), (x1, y1) = project.halls[0].outline[0], project.halls[0].outline[2]
    hall = Polygon(project.halls[0].outline).buffer(1e-6)  # a turned footprint's bounds carry rounding
    g = gallery_mm(catalog)
    assert g == 1200.0
    walls = []
    for f in crahs(project):
        fp = poly(floor_footprint(f, catalog))
        assert hall.contains(fp)
        fx0, fy0, fx1, fy1 = fp.bounds
        gaps = {"left": fx0 - x0, "right": x1 - fx1}
        wall = min(gaps, key=gaps.get)
        assert gaps[wall] == pytest.approx(0.0, abs=1e-6)  # against a side wall
        walls.append(wall)
    assert walls.count("left") == 6 and walls.count("right") == 5
    # the 15.6 m of rows hold 4 units a side: the hall is lengthened to 19.8 m for 6, the racks in the middle
    assert y1 - y0 == 19800.0 and any("the hall is 19.8 m deep, not the racks' 15.6 m" in n for n in b200_4su.notes)
    inner = shapely_box(x0 + g + 1200.0, y0, x1 - g - 1200.0, y1)  # the side galleries and the service space
    for r in project.racks:
        assert inner.contains(poly(rack_footprint(r, catalog))), r.id
    ys = [r.y for r in project.racks]
    # the first row's centre: the 1.2 m margin, half a rack, and 1.8 m of the 4.2 m added (whole tiles)
    assert min(ys) - y0 - 1200.0 - 600.0 == pytest.approx(1800.0)


def test_a_small_hall_keeps_its_air_handlers_on_the_side_walls(catalog):
    project = generate(SuperpodSpec(system="dgx-b200", sus=1), catalog).project
    assert project.halls[0].outline[2] == (10200.0, 10800.0)  # the rows' 7.8 m and two 1.2 m galleries
    assert sorted(f.rotation for f in crahs(project)) == [90.0, 90.0, 270.0, 270.0]
    assert min(r.x for r in project.racks) - 300.0 == gallery_mm(catalog) + 1200.0  # the service space


def test_walls_too_short_lengthen_the_hall_and_say_so(catalog):
    g = generate(SuperpodSpec(system="dgx-b200", sus=16), catalog)
    project = g.project
    w, d = project.halls[0].outline[2]
    units = crahs(project)
    assert len(units) == 41  # 7,983 kW of air heat: 40 + 1
    assert room_for(w, d, catalog, ends=False) >= 41 and d == 67200.0  # 21 a side at 3.15 m
    assert any("the hall is 67.2 m deep" in n and "41 air handlers" in n for n in g.notes)
    hall = analyze(project, catalog).cooling.halls[0]
    assert hall.air_handlers.redundancy == "N+1"


def test_a_stated_hall_keeps_its_size_and_says_how_many_units_it_lacks(catalog):
    # the 16-SU rows with both side galleries and room for the end walls' too: still fewer than the 41 units
    g = generate(SuperpodSpec(system="dgx-b200", sus=16, hall=(28.2, 30.0)), catalog)
    outline = g.project.halls[0].outline
    assert outline[2] == (28200.0, 30000.0)
    room = room_for(28200.0, 30000.0, catalog)
    assert room == len(crahs(g.project)) == 32
    assert len({f.rotation for f in crahs(g.project)}) == 4  # every wall takes units
    assert any("41 air handlers are needed for 7,982.5 kW of air heat (N+1), and the walls of the hall as given "
               "hold 32" in n for n in g.notes)
    findings = analyze(g.project, catalog).findings
    assert [f.code for f in findings if f.code.startswith("crah-")] == ["crah-over-capacity", "crah-airflow"]


def test_gb200_hall_gets_air_handlers_for_its_air_share(catalog):
    g = generate(SuperpodSpec(system="gb200-nvl72", sus=4), catalog)
    analysis = analyze(g.project, catalog)
    hall = analysis.cooling.halls[0]
    assert len(crahs(g.project)) == math.ceil(max(hall.air_kw / 200.0, hall.air_cfm / 31700.0)) + 1
    assert hall.air_handlers.redundancy == "N+1"


def test_every_phase_has_the_rooms_air_handlers(catalog):
    g = generate(SuperpodSpec(system="dgx-b200", sus=4, phase_sus=2), catalog)
    assert len(g.phases) == 2
    assert [len(crahs(p)) for p in g.phases] == [len(crahs(g.project))] * 2


def test_units_spread_over_the_walls_without_overlap(catalog):
    units = place_units(13, "h", 30000.0, 24000.0, catalog)
    assert len(units) == 13
    prints = [poly(floor_footprint(u, catalog)) for u in units]
    for i, a in enumerate(prints):
        for b in prints[i + 1:]:
            assert not a.intersects(b) or a.intersection(b).area == 0
    assert len({u.rotation for u in units}) == 4  # all four walls
    assert [u.name for u in units[:2]] == ["CRAH-01", "CRAH-02"]


def test_the_bill_leaves_the_air_handlers_to_the_facility_and_says_so(catalog, b200_4su):
    analysis = analyze(b200_4su.project, catalog)
    bill = analysis.sections["bom"]
    described = [ln["description"] for s in bill["sections"] for ln in s["lines"]]
    assert not any("air handler" in d.lower() for d in described)
    facility = [e for e in bill["exclusions"] if e.startswith(FACILITY_EXCLUDED.removesuffix("."))]
    assert facility == [FACILITY_EXCLUDED.removesuffix(".") + ", and the room's air handlers on the plan (11 x "
                        "Perimeter chilled-water air handler, 200 kW class (Vertiv Liebert HPM range)): the "
                        "building's mechanical works."]


def test_a_room_whose_units_fit_one_side_wall_has_one_gallery(catalog):
    g = generate(SuperpodSpec(system="gb200-nvl72", sus=1), catalog)
    units = crahs(g.project)
    # 3 units (the NVL72s' air share and the network racks) fit the 10.8 m side wall: one gallery, on the left
    assert len(units) == 3 and {u.rotation for u in units} == {90.0} and {u.x for u in units} == {450.0}
    # the SU's one row (two CDUs, eight NVL72, two network racks: 8.4 m), 1.2 m free each end, the gallery
    assert g.project.halls[0].outline[2] == (12000.0, 10800.0)
    width = g.project.halls[0].outline[2][0]
    assert width == g.grid.width_mm + gallery_mm(catalog)
    # the row starts past the gallery and the 1.2 m service space: its first CDU (1.2 m wide), then the racks
    cdu = min((f for f in g.project.floor_devices if f.type == "cdu-inrow-2mw"), key=lambda f: f.x)
    assert cdu.x - 600.0 == gallery_mm(catalog) + 1200.0 == min(r.x for r in g.project.racks) - 300.0 - 1200.0
    assert analyze(g.project, catalog).cooling.halls[0].air_handlers.redundancy == "N+1"


@pytest.mark.parametrize("system, sus", [("gb200-nvl72", 1), ("dgx-h100", 1), ("dgx-b200", 1), ("dgx-b200", 4)])
def test_a_generated_halls_size_given_back_builds_the_same_room_on_the_tile_grid(catalog, system, sus):
    first = generate(SuperpodSpec(system=system, sus=sus), catalog).project
    w, d = first.halls[0].outline[2]
    again = generate(SuperpodSpec(system=system, sus=sus, hall=(w / 1000, d / 1000)), catalog).project
    assert again.halls[0].outline == first.halls[0].outline
    assert [(f.x, f.y, f.rotation) for f in crahs(again)] == [(f.x, f.y, f.rotation) for f in crahs(first)]
    for project in (first, again):
        # every rack's edges on the 600 mm tiles, as the plan's grid draws them
        assert all(rack_footprint(r, catalog).box[0] % 600 == 0 for r in project.racks)
        assert not [f for f in analyze(project, catalog).findings if f.severity == "error"]
