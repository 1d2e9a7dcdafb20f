"""The site plan: rooms where the engines measure them, their power and findings, and the fabric's bundles
between rooms and buildings counted from the wiring plan itself."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from designer.analysis import analyze
from designer.findings import Finding
from designer.generate import SuperpodSpec, generate
from designer.model import Hall, Project, Rack
from designer.site import hall_origins
from designer.site_plan import SitePlan, hall_of_place, room_findings
from designer.views import FabricView, ViewError, build


@pytest.fixture(scope="module")
def site(catalog):
    """GB300 NVL72, 4,608 GPUs in 3 MW halls, two halls to a building: 4 data halls and 2 network rooms."""
    g = generate(SuperpodSpec(system="gb300-nvl72", gpus=4608, hall_power_kw=3000, halls_per_building=2), catalog)
    return g.project, analyze(g.project, catalog)


def test_rooms_stand_where_the_engines_measure_them_with_their_power_and_gpus(site, catalog):
    project, a = site
    plan = SitePlan.of(project, catalog, a)
    assert plan.is_site and [r.id for r in plan.rooms] == [h.id for h in project.halls]
    power = {h.id: h for h in a.power.halls}
    for room, hall, (ox, oy) in zip(plan.rooms, project.halls, hall_origins(project.halls)):
        x0, y0, x1, y1 = hall.bounds
        assert room.rect == (x0 + ox, y0 + oy, x1 + ox, y1 + oy)
        assert room.entry == ((x0 + x1) / 2 + ox, y0 + oy)  # the middle of the corridor wall
        assert room.it_kw == power[hall.id].it_typical_kw and room.capacity_kw == hall.power_capacity_kw
        assert room.racks == sum(1 for r in project.racks if r.hall == hall.id)
        assert room.utilisation == pytest.approx(room.it_kw / room.capacity_kw)
    assert sum(r.gpus for r in plan.rooms) == a.summary.gpus == 4608
    assert all(r.gpus == 0 for r in plan.rooms if r.kind == "network")
    # two buildings, each round its rooms, with their load and GPUs summed
    assert [b.name for b in plan.buildings] == ["Building 1", "Building 2"]
    for b in plan.buildings:
        rooms = [r for r in plan.rooms if r.building == b.name]
        assert b.rooms == tuple(r.id for r in rooms) and len(rooms) == 3
        assert b.gpus == sum(r.gpus for r in rooms)
        assert b.it_kw == pytest.approx(sum(r.it_kw for r in rooms))
        # a building holds its rooms and their electrical rooms beyond their far walls
        assert b.rect[0] == min(r.rect[0] for r in rooms) and b.rect[3] == max(r.footprint[3] for r in rooms)
        assert all(r.electrical is not None and r.footprint[3] == r.electrical[3] > r.rect[3] for r in rooms)


def test_bundles_count_every_fabric_link_that_leaves_its_room(site, catalog):
    project, a = site
    plan = a.result("fabric").plan
    inv = plan.inv
    hall_of_rack = np.array([{h.id: i for i, h in enumerate(project.halls)}[r.hall] for r in project.racks])
    rack = np.asarray(inv.devices.rack)
    ha, hb = hall_of_rack[rack[plan.a_dev]], hall_of_rack[rack[plan.b_dev]]
    apart = ha != hb
    ids = [h.id for h in project.halls]
    expected = Counter((ids[min(x, y)], ids[max(x, y)]) for x, y in zip(ha[apart], hb[apart]))
    longest: dict = {}
    for x, y, m in zip(ha[apart], hb[apart], plan.raw_m[apart]):
        key = (ids[min(x, y)], ids[max(x, y)])
        longest[key] = max(longest.get(key, 0.0), float(m))
    got = {(r.a, r.b): r for r in a.fabric.room_links}
    assert set(got) == set(expected) and expected  # every pair, and only pairs that have links
    for key, n in expected.items():
        assert got[key].links == n and got[key].longest_m == pytest.approx(longest[key], abs=0.05)
    # every link between rooms is a data hall's spine to a network room's core: no node or leaf leaves its hall
    assert all(k[0].startswith("hall-") and k[1].startswith("network-") for k in got)

    site_plan = SitePlan.of(project, catalog, a)
    building = {r.id: r.building for r in site_plan.rooms}
    inside = {(b.a, b.b): b.links for b in site_plan.room_bundles}
    assert inside == {k: n for k, n in expected.items() if building[k[0]] == building[k[1]]}
    between = Counter()
    for (x, y), n in expected.items():
        if building[x] != building[y]:
            between[tuple(sorted((building[x], building[y])))] += n
    assert {(b.a, b.b): b.links for b in site_plan.building_bundles} == dict(between)
    assert sum(inside.values()) + sum(between.values()) == int(apart.sum())
    for b in site_plan.room_bundles:  # drawn along the corridor, outside both rooms' entry walls
        ra, rb = site_plan.room(b.a), site_plan.room(b.b)
        assert b.path[0] == ra.entry and b.path[-1] == rb.entry
        assert b.path[1][1] < min(ra.rect[1], rb.rect[1]) and b.path[1][1] == b.path[2][1]


def test_bundles_count_every_storage_link_that_leaves_its_room(site, catalog):
    from designer.storage.links import storage_links

    project, a = site
    _, links = storage_links(project, catalog)
    hall = [project.racks[r].hall for r, _, _ in links.devices]
    ha, hb = np.asarray(hall, dtype=object)[links.a_dev], np.asarray(hall, dtype=object)[links.b_dev]
    order = {h.id: i for i, h in enumerate(project.halls)}
    expected = Counter(tuple(sorted((x, y), key=order.get)) for x, y in zip(ha, hb) if x != y)
    # the halls' storage leaves run to the storage spines in the first building's network room
    assert expected == {("hall-1", "network-1"): 292, ("hall-2", "network-1"): 292,
                        ("hall-3", "network-1"): 292, ("hall-4", "network-1"): 292}
    assert {(r.a, r.b): r.links for r in a.storage.fabric.room_links} == expected
    plan = SitePlan.of(project, catalog, a)
    assert {(b.a, b.b): b.storage_links for b in plan.room_bundles} == {
        ("hall-1", "network-1"): 292, ("hall-2", "network-1"): 292, ("hall-3", "network-2"): 0,
        ("hall-4", "network-2"): 0}
    between, = plan.building_bundles
    assert (between.a, between.b, between.storage_links, between.all_links) == ("Building 1", "Building 2", 584,
                                                                                between.links + 584)
    assert between.storage_longest_m == max(r.longest_m for r in a.storage.fabric.room_links
                                            if r.a in ("hall-3", "hall-4"))


def test_one_hall_has_no_bundles_and_no_buildings(catalog):
    g = generate(SuperpodSpec(system="dgx-b200", gpus=256), catalog)
    a = analyze(g.project, catalog)
    assert a.fabric.room_links == () == a.storage.fabric.room_links
    plan = SitePlan.of(g.project, catalog, a)
    assert not plan.is_site and plan.buildings == () and plan.room_bundles == () == plan.building_bundles


def test_a_plan_before_its_analysis_has_rooms_without_figures(site, catalog):
    project, _ = site
    plan = SitePlan.of(project, catalog)
    assert len(plan.rooms) == 6 and all(r.it_kw is None and r.utilisation is None for r in plan.rooms)
    assert plan.room_bundles == () and sum(r.racks for r in plan.rooms) == len(project.racks)


def test_findings_belong_to_the_hall_of_their_place():
    project = Project(halls=(Hall(id="h1", name="A", outline=((0, 0), (10000, 0), (10000, 8000), (0, 8000))),
                             Hall(id="h2", name="B", outline=((0, 0), (10000, 0), (10000, 8000), (0, 8000)))),
                      racks=(Rack(id="r1", name="R1", hall="h2", type="rack-48u-600x1200", x=2000, y=2000),))
    assert hall_of_place(project, "rack:r1") == "h2"
    assert hall_of_place(project, "hall:h1") == "h1"
    assert hall_of_place(project, "project:bom") == ""
    assert hall_of_place(project, "rack:gone") == ""  # a rack an edit removed belongs to no hall
    found = room_findings(project, [Finding("error", "x", "m", "rack:r1"), Finding("info", "y", "n", "project:bom")])
    assert {k: [f.code for f in v] for k, v in found.items()} == {"h2": ["x"]}


def test_a_room_link_without_its_count_fails_where_it_is_read(site):
    _, a = site
    section = dict(a["fabric"])
    section["room_links"] = [{"a": "hall-1", "b": "network-2", "longest_m": 10.0}]
    with pytest.raises(ViewError, match=r"room_links.*links"):
        list(build(FabricView, section, "fabric").room_links)
