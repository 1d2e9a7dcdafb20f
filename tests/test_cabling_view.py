"""The cabling view's figures: a rack's links, their routes on the plan, the length histogram, the summary."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from drawn import DGX_B200_SU as DRAWN_DGX

from designer import samples
from designer.analysis import analyze
from designer.cabling_view import (MEDIUM_KEYS, cabling_summary, devices_in_rack, length_histogram, links_of,
                                   route_points, wiring_message)
from designer.fabric import geometry
from designer.fileformat import load
from designer.model import Project
from exporters.cabling import cabling_plan

SAMPLES = {"dgx": samples.DGX_B200_SU, "nvl72": samples.GB200_NVL72_SU, "drawn-dgx": DRAWN_DGX}


@pytest.fixture(scope="module", params=list(SAMPLES))
def design(request, catalog):
    project = load(SAMPLES[request.param], catalog)
    return request.param, project, analyze(project, catalog)


def touching(analysis, rack_id: str) -> np.ndarray:
    """Indices of the wiring plan's rows with an end in the rack, found the plain way."""
    plan = analysis.result("fabric").plan
    rack_of = [plan.inv.rack_ids[r] for r in plan.inv.devices.rack]
    return np.asarray([i for i, (a, b) in enumerate(zip(plan.a_dev.tolist(), plan.b_dev.tolist()))
                       if rack_of[a] == rack_id or rack_of[b] == rack_id], dtype=np.int64)


@pytest.mark.parametrize(("name", "rack", "links"), [("dgx", "su01-01", 16), ("nvl72", "su01-01", 72)])
def test_a_compute_rack_has_every_wiring_row_that_touches_it(catalog, name, rack, links):
    project = load(SAMPLES[name], catalog)
    analysis = analyze(project, catalog)
    plan = analysis.result("fabric").plan
    rows = links_of(analysis, project, catalog, rack)
    expected = touching(analysis, rack)
    assert rows.total == len(rows) == len(expected) == links  # 2 DGX x 8 rails; 18 trays x 4 ports
    assert sorted(rows.link.tolist()) == expected.tolist()
    assert np.array_equal(rows.length_m, plan.choice["length_m"][rows.link])
    assert np.array_equal(rows.needed_m, plan.raw_m[rows.link])
    assert rows.rack_name == "SU01-01" and rows.far_racks == 2 and rows.in_rack == 0
    assert set(rows.far_rack_id) == {"su01-neta", "su01-netb"}
    assert set(rows.medium) == {"mmf"} and set(rows.tier) == {"node-leaf"}


def test_every_rack_lists_each_of_its_links_once(design, catalog):
    _, project, analysis = design
    plan = analysis.result("fabric").plan
    seen = np.zeros(len(plan), dtype=np.int64)
    for rack in project.racks:
        rows = links_of(analysis, project, catalog, rack.id)
        assert rows.total == len(rows) == len(set(rows.link.tolist()))
        np.add.at(seen, rows.link, 1)
    # a link counts in both its racks, once when both ends share a rack
    rack = np.asarray(plan.inv.devices.rack)
    assert np.array_equal(seen, np.where(rack[plan.a_dev] == rack[plan.b_dev], 1, 2))


def test_rows_name_each_end_as_the_cabling_export_does(design, catalog):
    _, project, analysis = design
    text = cabling_plan(analysis).text
    for rack in ("su01-neta", "su01-01", "b09", "a01"):
        if not project.has_rack(rack):
            continue
        rows = links_of(analysis, project, catalog, rack)
        assert len(rows) > 0
        for i, link in enumerate(rows.link.tolist()):
            # the near end is the one in the rack (the a end when both are)
            near, far = ("a", "b") if text["a_rack"][link] == rack else ("b", "a")
            assert (rows.near_device[i], rows.near_port[i]) == (text[f"{near}_device_name"][link],
                                                                text[f"{near}_port"][link])
            assert (rows.far_rack[i], rows.far_device[i], rows.far_port[i]) == (
                text[f"{far}_rack_name"][link], text[f"{far}_device_name"][link], text[f"{far}_port"][link])
            assert rows.far_rack_id[i] == text[f"{far}_rack"][link]
            assert rows.cable[i] == text["cable"][link]


def test_a_tray_of_a_rack_scale_system_reads_as_one(catalog):
    project = load(samples.GB200_NVL72_SU, catalog)
    rows = links_of(analyze(project, catalog), project, catalog, "su01-01")
    assert rows.near_device[0] == "nvl72-0001 compute tray 1" and rows.near_port[0] == "1"
    assert {d.split(" compute tray ")[0] for d in rows.near_device} == {"nvl72-0001"}
    assert len(set(rows.near_device)) == 18


def test_rows_run_by_device_then_port_and_page(catalog):
    project = load(samples.DGX_B200_SU, catalog)
    analysis = analyze(project, catalog)
    rows = links_of(analysis, project, catalog, "su01-neta")
    # 16 compute racks, the spine rack, and the UFM appliances in SU01-NET-B
    assert rows.total == 256 and rows.far_racks == 18 and "SU01-NET-B" in set(rows.far_rack)
    names = rows.near_device.tolist()
    assert names[0] == "leaf-0001-r0" and names == sorted(names)
    first = [p for n, p in zip(names, rows.near_port) if n == "leaf-0001-r0"]
    assert first[:4] == ["1/1", "1/2", "2/1", "2/2"] and len(first) == 64
    pages = [links_of(analysis, project, catalog, "su01-neta", offset=o, limit=100) for o in (0, 100, 200)]
    assert [len(p) for p in pages] == [100, 100, 56] and all(p.total == 256 for p in pages)
    assert np.array_equal(np.concatenate([p.link for p in pages]), rows.link)


def test_a_switch_shows_only_its_own_links(catalog):
    project = load(DRAWN_DGX, catalog)
    analysis = analyze(project, catalog)
    devices = devices_in_rack(analysis, catalog, "b09")
    assert [(d, n) for d, n, _ in devices][:2] == [("b09-leaf1", "leaf-r4"), ("b09-leaf2", "leaf-r5")]
    rack = links_of(analysis, project, catalog, "b09")
    assert rack.total == 380 and rack.in_rack == 128  # leaf-spine DAC pairs stay inside b09
    # a link between two devices of the rack is one of the rack's but one of each device's
    assert sum(n for _, _, n in devices) == rack.total + rack.in_rack
    for device, _, n in devices:
        rows = links_of(analysis, project, catalog, device)
        assert rows.total == n and set(rows.near_device_id) == {device} and rows.rack_id == "b09"
        plan = analysis.result("fabric").plan
        ids = set(rows.link.tolist())
        assert ids <= set(rack.link.tolist())
        assert all(plan.inv.devices.labels[plan.a_dev[i]] == rows.near_device[0]
                   or plan.inv.devices.labels[plan.b_dev[i]] == rows.near_device[0] for i in ids)
    spine = links_of(analysis, project, catalog, "b09-spine1")
    assert set(spine.medium) == {"dac", "mmf"} and spine.total == 64


def test_the_far_rack_is_named_as_the_design_reads_now(catalog):
    project = load(samples.DGX_B200_SU, catalog)
    analysis = analyze(project, catalog)
    rack = project.rack("su01-neta")
    renamed = project.with_racks([replace(rack, name="Leaves A")])
    rows = links_of(analysis, renamed, catalog, "su01-01")
    assert set(rows.far_rack) == {"Leaves A", "SU01-NET-B"}
    assert links_of(analysis, renamed, catalog, "su01-neta").rack_name == "Leaves A"


def test_a_selection_the_analysis_does_not_know_has_no_rows(catalog):
    project = load(samples.DGX_B200_SU, catalog)
    analysis = analyze(project, catalog)
    for unknown in ("no-such-rack", ""):
        rows = links_of(analysis, project, catalog, unknown)
        assert rows.total == len(rows) == 0 and rows.rack_id == "" and route_points(analysis, rows) == []
    pdus = links_of(analysis, project, catalog, "su01-01-pdu1")
    assert pdus.total == 0


def test_routes_run_between_the_racks_as_the_length_rule_measures(design, catalog):
    _, project, analysis = design
    plan = analysis.result("fabric").plan
    inv = plan.inv
    z = np.asarray(inv.devices.z_mm)
    for rack_id in ("su01-01", "su01-neta", "b09", "a01"):
        if not project.has_rack(rack_id):
            continue
        rows = links_of(analysis, project, catalog, rack_id)
        routes = route_points(analysis, rows)
        away = {str(r) for r, i in zip(rows.far_rack_id, rows.far_rack_index) if i != rows.rack_index}
        assert [r.far_rack for r in routes] == sorted(away, key=lambda r: inv.rack_ids.index(r))
        assert sum(r.links for r in routes) == rows.total - rows.in_rack
        here = project.rack(rack_id)
        by_far = {r.far_rack: r for r in routes}
        for route in routes:
            far = project.rack(route.far_rack)
            assert route.points[0] == (here.x, here.y) and route.points[-1] == (far.x, far.y)
            assert route.hall == here.hall and route.far_hall == far.hall
            assert len(route.points) == (2 if here.x == far.x or here.y == far.y else 3)
            # Rows of racks run across their fronts: a rack turned 0 or 180 degrees leaves along x first.
            if len(route.points) == 3:
                assert route.points[1] == (far.x, here.y)
        # each link's length is its route's plan length, plus the drops to the tray and the slack
        for i in np.nonzero(rows.far_rack_index != rows.rack_index)[0].tolist():
            pts = np.asarray(by_far[rows.far_rack_id[i]].points)
            tray = float(np.abs(np.diff(pts, axis=0)).sum())
            link = int(rows.link[i])
            a, b = int(plan.a_dev[link]), int(plan.b_dev[link])
            top_a = inv.rack_top[inv.devices.rack[a]]
            top_b = inv.rack_top[inv.devices.rack[b]]
            run = tray + (top_a - z[a]) + (top_b - z[b]) + 2 * geometry.TRAY_ABOVE_RACK_MM
            run += max(geometry.SLACK_MIN_MM, geometry.SLACK_FRACTION * run)
            assert rows.needed_m[i] == pytest.approx(run / 1000)


def test_a_route_takes_the_medium_most_of_its_links_use(catalog):
    project = load(DRAWN_DGX, catalog)
    analysis = analyze(project, catalog)
    rows = links_of(analysis, project, catalog, "b09")
    for route in route_points(analysis, rows):
        media_of = rows.medium[rows.far_rack_id == route.far_rack].tolist()
        assert route.medium == max(set(media_of), key=media_of.count) and route.links == len(media_of)


def test_the_histogram_counts_the_cables_the_bill_orders(design):
    _, _, analysis = design
    hist = length_histogram(analysis)
    fabric = analysis["fabric"]
    assert sum(sum(c.values()) for c in hist.values()) == fabric["cables_total"]
    ch = analysis.result("fabric").plan.choice
    medium_of = {ch["cable_ids"][c]: MEDIUM_KEYS[m] for c, m in zip(ch["cable"].tolist(), ch["medium"].tolist())
                 if c >= 0}
    ordered: dict = {}
    for section in analysis["bom"]["sections"]:
        for line in section["lines"]:
            # the compute fabric's cables (the storage fabric's fibres are lines of their own)
            if line["id"] in medium_of and not line["spare"] and "storage fabric" not in line["description"]:
                key = medium_of[line["id"]]
                ordered.setdefault(key, {})[line["length_m"]] = line["quantity"]
    assert hist == ordered
    assert list(hist) == [k for k in MEDIUM_KEYS if k in hist]
    assert all(list(c) == sorted(c) for c in hist.values())


def test_the_histogram_of_each_sample(catalog):
    counts = {}
    for name in SAMPLES:
        project = load(SAMPLES[name], catalog)
        counts[name] = length_histogram(analyze(project, catalog))
    assert counts["dgx"] == {"mmf": {7.0: 28, 10.0: 128, 15.0: 352}}
    # the SU in one row, its network racks in the middle: no run past 10 m (400 ran 15 m over a row pair)
    assert counts["nvl72"] == {"mmf": {3.0: 2, 5.0: 31, 7.0: 346, 10.0: 841}}
    # copper pairs: 128 leaf-spine links on 64 twin-port cables
    assert counts["drawn-dgx"] == {"dac": {1.0: 40, 1.5: 24}, "mmf": {5.0: 4, 7.0: 178, 10.0: 144, 15.0: 54}}


def test_the_summary_counts_each_cable_once(design):
    _, _, analysis = design
    s = cabling_summary(analysis)
    fabric = analysis["fabric"]
    assert s.links == len(analysis.result("fabric").plan) and s.too_long == fabric["too_long_links"] == 0
    assert s.cables == fabric["cables_total"] and s.metres == fabric["cable_length_total_m"]
    assert sum(t.links for t in s.by_medium.values()) == s.links
    for key, totals in s.by_medium.items():
        assert totals.cables == sum(length_histogram(analysis)[key].values())


def test_nothing_to_cable_says_why(catalog):
    assert wiring_message(None) == "Cabling appears once the design has been analysed."
    empty = analyze(Project(), catalog)
    assert wiring_message(empty).startswith("No compute fabric in this design")
    assert length_histogram(empty) == {} and cabling_summary(empty) is None
    assert links_of(empty, Project(), catalog, "a01").total == 0
    project = load(samples.DGX_B200_SU, catalog)
    bare = project.with_racks([replace(r, devices=tuple(d for d in r.devices if "leaf" not in d.id
                                                         and "spine" not in d.id)) for r in project.racks])
    no_switches = analyze(bare, catalog)
    assert wiring_message(no_switches).startswith("No wiring plan yet: the design places no compute-fabric switches")
    assert wiring_message(analyze(project, catalog)) is None


def _shared_device_id(catalog, sample):
    """The sample with a second rack whose first device carries the first rack's device id (ids are unique
    only within a rack: a device moved to another rack keeps its own)."""
    project = load(sample, catalog)
    a, b = [r for r in project.racks if r.devices and catalog.get(r.devices[0].type).gpus][:2]
    b2 = replace(b, devices=(replace(b.devices[0], id=a.devices[0].id),) + b.devices[1:])
    project = project.with_racks([b2])
    return project, a, b2


def test_a_device_id_shared_by_two_racks_shows_the_links_of_the_one_in_the_rack(catalog):
    project, a, b = _shared_device_id(catalog, samples.DGX_B200_SU)
    analysis = analyze(project, catalog)
    shared = a.devices[0].id
    in_a = links_of(analysis, project, catalog, shared, rack=a.id)
    in_b = links_of(analysis, project, catalog, shared, rack=b.id)
    assert in_a.rack_id == a.id and in_b.rack_id == b.id and in_a.total == in_b.total == 8
    plan = analysis.result("fabric").plan
    rack_of = [plan.inv.rack_ids[r] for r in plan.inv.devices.rack]
    ends = {(rack_of[plan.a_dev[i]], rack_of[plan.b_dev[i]]) for i in in_b.link.tolist()}
    assert all(b.id in pair and a.id not in pair for pair in ends)  # none of rack A's links
    assert links_of(analysis, project, catalog, shared, rack="no-such-rack").total == 0
