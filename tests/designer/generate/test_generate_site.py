"""Designs larger than one hall: sites of data halls and network rooms in buildings, every link cableable."""
from __future__ import annotations

import json

import numpy as np
import pytest

from designer.analysis import analyze
from designer.fabric import media
from designer.fileformat import dumps, load, loads
from designer.generate import GenerateError, SuperpodSpec, generate
from designer.generate.site import DEFAULT_HALL_KW, split_halls
from designer.storage.fabric import _Lengths, _walk, node_leaves, storage_fabric

from ._support import run


@pytest.fixture(scope="module")
def gb300(catalog):
    g = generate(SuperpodSpec(system="gb300-nvl72", gpus=100_000), catalog)
    return g, analyze(g.project, catalog)


@pytest.fixture(scope="module")
def b300(catalog):
    g = generate(SuperpodSpec(system="dgx-b300", gpus=100_000), catalog)
    return g, analyze(g.project, catalog)


def _errors(a):
    return [f.message for f in a.findings if f.severity == "error"]


def _rooms(project):
    return [h for h in project.halls if h.kind == "data"], [h for h in project.halls if h.kind == "network"]


def test_100k_gb300_is_halls_of_whole_pods_in_buildings_with_no_error(gb300):
    g, a = gb300
    data, network = _rooms(g.project)
    # 174 SUs of about 1.2 MW: 40 MW halls hold 27 SUs; the three-tier fabric's pods of 3 SUs stay whole
    assert len(data) == 7 and len(network) == 2
    assert {h.building for h in data} == {"Building 1", "Building 2"}
    assert [h.building for h in network] == ["Building 1", "Building 2"]
    assert _errors(a) == []
    power = {p["id"]: p for p in a["power"]["halls"]}
    for h in data:  # each hall its own power block, fitted, with its own UPS and generators
        assert power[h.id]["it_max_kw"] <= DEFAULT_HALL_KW[True]
        assert h.power_capacity_kw >= power[h.id]["it_max_kw"] and h.facility.ups_modules and h.facility.generators
    assert sum(p["it_max_kw"] for p in power.values()) == pytest.approx(a.summary.it_power_max_kw, rel=1e-6)
    # every GPU's rack is in a data hall; the cores and the shared networks stand in the network rooms
    by_hall = {h.id: h for h in g.project.halls}
    assert all(by_hall[r.hall].kind == "data" for r in g.project.racks if r.name.startswith("SU"))
    cores = [r for r in g.project.racks if r.name.startswith("CORE-")]
    assert cores and all(by_hall[r.hall].kind == "network" for r in cores)
    assert {r.hall for r in cores} == {h.id for h in network}  # shared out over every building


def test_every_compute_link_is_cableable_and_only_the_upper_tier_leaves_its_room(gb300):
    g, a = gb300
    plan = a.result("fabric").plan
    assert not (plan.choice["medium"] == media.NONE).any()
    rack = np.asarray(plan.inv.devices.rack)
    hall = plan.inv.sites.hall
    apart = hall[rack[plan.a_dev]] != hall[rack[plan.b_dev]]
    assert not apart[plan.tier < 2].any()  # node-leaf and leaf-spine inside the hall
    assert apart[plan.tier == 2].all()  # spine-core to the network rooms
    # a run between rooms goes out by its room's entry, along the corridor and in: longer than in any one hall,
    # within the 500 m of the XDR twin-port DR4 modules
    assert 150 < plan.raw_m[plan.tier == 2].max() <= 500
    assert plan.raw_m[plan.tier < 2].max() < 60


def test_a_site_round_trips_through_its_file(gb300, catalog):
    g, _ = gb300
    doc = json.loads(dumps(g.project, catalog))
    assert doc["format_version"] == 6
    halls = doc["halls"]
    assert halls[0]["building"] == "Building 1" and len(halls[0]["site_origin"]) == 2
    assert "kind" not in halls[0] and {h.get("kind") for h in halls} == {None, "network"}
    again = loads(json.dumps(doc), catalog)
    assert [(h.id, h.building, h.site_origin, h.kind) for h in again.halls] == \
        [(h.id, h.building, h.site_origin, h.kind) for h in g.project.halls]


@pytest.mark.parametrize(("value", "words"), [
    ({"kind": "office"}, "halls[0].kind: must be one of data, network, got 'office'"),
    ({"site_origin": [1, 2, 3]}, "halls[0].site_origin: must be [x, y] in mm"),
    ({"site_origin": [1, 1e12]}, "halls[0].site_origin[1]"),
])
def test_bad_site_fields_name_the_path(catalog, value, words):
    from designer.fileformat import ProjectFileError

    doc = {"format_version": 6, "halls": [{"id": "h", "name": "H", "outline": [[0, 0], [1000, 0], [1000, 1000]],
                                            **value}]}
    with pytest.raises(ProjectFileError) as info:
        loads(json.dumps(doc), catalog)
    assert words in str(info.value)


def test_an_infiniband_site_past_its_optics_reach_is_built_on_spectrum_x(b300):
    g, a = b300
    assert g.project.settings.fabric_technology == "spectrum-x"
    assert g.notes[0].startswith("built on Spectrum-X Ethernet, not the reference architecture's InfiniBand: across "
                                 "this site the InfiniBand fabric's runs to its upper tier would reach at least 658 m, "
                                 "past the 500 m of the longest optic its q3400 cages take")
    assert _errors(a) == []
    plan = a.result("fabric").plan
    assert not (plan.choice["medium"] == media.NONE).any()
    # the runs between buildings take the 2 x FR4 modules (2 km), the shorter ones DR
    parts = a.result("fabric").section["transceivers"]
    assert parts["osfp-800g-2xfr4"] > 0 and parts["osfp-800g-2xdr4-500m"] > 0


def _reach_spy(monkeypatch):
    """The longest upper-tier runs the generator works out, in the order it does; and how many halls it fills."""
    from designer.generate import build, reach

    runs, placed = [], []
    longest, place = reach.longest_upper_run_m, build._place_scalable_units
    monkeypatch.setattr(reach, "longest_upper_run_m", lambda *a: runs.append(longest(*a)) or runs[-1])
    monkeypatch.setattr(build, "_place_scalable_units", lambda *a: placed.append(a[0].hall) or place(*a))
    return runs, placed


def test_a_site_past_reach_before_its_racks_are_placed_goes_to_spectrum_x_at_once(catalog, monkeypatch):
    runs, placed = _reach_spy(monkeypatch)
    g = generate(SuperpodSpec(system="dgx-b300", gpus=200_000), catalog)
    # one count, from the rooms' grids alone: past 500 m, so no hall was filled for InfiniBand
    assert [round(r) for r in runs] == [576]
    assert len(placed) == sum(h.kind == "data" for h in g.project.halls) == 25
    assert g.project.settings.fabric_technology == "spectrum-x"
    assert "runs to its upper tier would reach at least 576 m, past the 500 m" in g.notes[0]


@pytest.mark.parametrize(("gpus", "bound", "built"), [(100_000, 336, 658), (150_000, 429, 759)])
def test_the_early_count_is_below_the_runs_of_the_site_built(catalog, monkeypatch, gpus, bound, built):
    # under the reach from the grids alone, the site is built and counted again with its racks and air handlers:
    # that count is never below the first (rooms only grow; along a row the first takes off what its building's
    # rooms could widen by, the second adds each room's farthest rack)
    runs, _ = _reach_spy(monkeypatch)
    generate(SuperpodSpec(system="dgx-b300", gpus=gpus), catalog)
    assert [round(r) for r in runs] == [bound, built]


def test_the_early_count_holds_for_halls_of_a_stated_size_in_a_row_of_buildings(catalog, monkeypatch):
    # one hall to a building and halls of a stated size: a hall's entry comes nearer a network room of another
    # building's column as the rooms are built wider than their grids (107.4 m between entries on the grids, 92.4 m
    # as built); the first count takes off what the rooms could widen by, and stays below the site's
    runs, _ = _reach_spy(monkeypatch)
    generate(SuperpodSpec(system="dgx-b300", gpus=12000, hall_power_kw=8000, halls_per_building=1, tiers=3,
                          hall=(60, 10)), catalog)
    assert len(runs) == 3 and runs[0] < min(runs[1:])


def test_infiniband_asked_for_is_built_and_says_what_no_optic_reaches(catalog):
    g = generate(SuperpodSpec(system="dgx-b300", gpus=100_000, fabric="infiniband"), catalog)
    errors = _errors(analyze(g.project, catalog))
    assert len(errors) == 1 and "the longest reach there is 500 m" in errors[0]


def test_storage_on_a_site_stays_in_each_hall_and_crosses_buildings_on_single_mode(b300, catalog):
    g, _ = b300
    s = storage_fabric(g.project, catalog)
    assert s.notes == ()  # no run past its fibre's reach, no leaf over its ports
    assert max(s.cables["fiber-mpo12-mmf"]) <= 30  # every node to a leaf of its own hall
    assert s.transceivers["osfp-800g-2xdr4-500m"] > 0


def test_storage_appliances_stand_beside_their_leaves_in_a_large_network_room(catalog):
    # 652 appliance ports in 11 racks of one room: the band's places alternate between the room's sides, so racks
    # filled centre-first put a block's last appliances and its next leaf across the room, 54 runs past multimode
    g = generate(SuperpodSpec(system="gb300-nvl72", gpus=300_000, hall_power_kw=20_000, halls_per_building=4),
                 catalog)
    arrays = [r for r in g.project.racks if r.name.startswith("ARRAY-")]
    assert len(arrays) > 8
    s = storage_fabric(g.project, catalog)
    assert not [n for n in s.notes if "longer than the longest orderable fibre" in n]  # 54 such runs before
    # every appliance port's run, as the fabric measures it, within the multimode fibre's 50 m
    tiers, ends, tops = _walk(g.project, catalog)
    lengths, leaves = _Lengths(g.project, tops, catalog), tiers["leaf"]
    rack, z, _, serves = ends.arrays()
    leaf = node_leaves(leaves, ends, lengths)
    metres = lengths.metres(rack[serves], z[serves], leaves.rack[leaf[serves]], leaves.z[leaf[serves]])
    assert len(metres) == 652 and metres.max() <= 50  # a block's leaf and its partner leaf
    # each rack beside the one before within a cluster of the band: most steps a rack or an aisle
    steps = [abs(a.x - b.x) + abs(a.y - b.y) for a, b in zip(arrays, arrays[1:])]
    assert sum(d <= 5000 for d in steps) >= len(steps) // 2


def test_dgx_b200_at_100k_builds_on_qm9700_at_the_campus_ratio(catalog):
    g = generate(SuperpodSpec(system="dgx-b200", gpus=100_000), catalog)
    assert g.spec.switch == "qm9700" and g.project.settings.fabric_core_oversubscription == 7
    assert any(n.startswith("the spines run 7:1 above the pods: three tiers of qm9700 at 1:1 do not reach 100,000 "
                            "fabric ports") for n in g.notes)
    assert _errors(analyze(g.project, catalog)) == []


def test_a_million_gb300_gpus_build_a_campus_with_no_error_and_every_link_cableable(catalog):
    # InfiniBand's runs across the campus pass the 500 m of any XDR optic, and three tiers of radix-128 Spectrum-X
    # planes hold 917,504 ports at full leaf bandwidth: the leaves give up the fewest uplinks that hold 1,000,008
    g = generate(SuperpodSpec(system="gb300-nvl72", gpus=1_000_000), catalog)
    s = g.project.settings
    assert g.gpus == 1_000_008 and s.fabric_technology == "spectrum-x" and s.fabric_planes == 2
    assert s.fabric_core_oversubscription == 7 and s.fabric_oversubscription == pytest.approx(72 / 56)
    assert any(n.startswith("the leaves run 72:56 (1.29:1) and the spines 7:1 above the pods: three tiers of sn5610 "
                            "hold no more than 917,504 fabric ports at full leaf bandwidth") for n in g.notes)
    a = analyze(g.project, catalog)
    assert _errors(a) == []
    plan = a.result("fabric").plan
    assert not (plan.choice["medium"] == media.NONE).any()
    assert plan.raw_m.max() <= 2000  # the 2 x FR4 modules' reach
    data, network = _rooms(g.project)
    buildings = {h.building for h in data}
    assert len(buildings) > 9 and len(network) == 4  # the upper tier in the four central buildings' rooms
    assert sum(p["it_max_kw"] for p in a["power"]["halls"]) == pytest.approx(a.summary.it_power_max_kw, rel=1e-6)


def test_three_million_gb300_gpus_say_why_no_fabric_builds_them(catalog):
    with pytest.raises(GenerateError) as info:
        generate(SuperpodSpec(system="gb300-nvl72", gpus=3_000_000), catalog)
    msg = str(info.value)
    assert "3,000,028 endpoints are more than 3 tiers of q3400 reach" in msg
    assert msg.endswith("nor with the spines at 2.8:1 or 7:1 above the pods, nor with the leaves up to 2:1 as well")


def test_halls_per_building_sets_the_buildings(capsys, tmp_path, catalog):
    out = tmp_path / "site.podplan.json"
    code, stdout, err = run(capsys, "new", "superpod", "--system", "gb300-nvl72", "--sus", "40", "--hall-mw", "10",
                            "--halls-per-building", "2", "-o", str(out))
    assert code == 0, err
    project = load(out, catalog)
    data, network = _rooms(project)
    assert len(data) == 5 and len(network) == 3  # 8 SUs to a 10 MW hall, 2 halls to a building
    assert "5 data halls and 3 network rooms in 3 buildings" in stdout
    code, _, err = run(capsys, "new", "superpod", "--system", "gb300-nvl72", "--sus", "40",
                       "--halls-per-building", "0", "-o", str(out))
    assert code == 2 and "--halls-per-building must be between 1 and 100, got 0" in err


@pytest.mark.parametrize(("sus", "most", "starts", "halls"), [
    (12, 5, [0, 3, 6, 9], [(0, 3), (3, 6), (6, 9), (9, 12)]),  # blocks of 3: one to a hall of at most 5
    (12, 6, [0, 3, 6, 9], [(0, 6), (6, 12)]),
    (10, 7, [0, 3, 6, 9], [(0, 6), (6, 10)]),  # the same number of pods in each, the last takes what is left
    (10, 4, [0, 2, 4, 6, 8], [(0, 4), (4, 8), (8, 10)]),  # leaf blocks of 2 SUs
    (10, 4, [0, 3, 6, 9], [(0, 3), (3, 6), (6, 10)]),  # the last block joins the hall before it
    (10, 4, [0, 5], []),  # a block larger than a hall: no split keeps it whole
])
def test_split_halls_keeps_blocks_whole(sus, most, starts, halls):
    assert split_halls(sus, most, starts) == halls


def test_each_room_has_its_electrical_room_beyond_its_far_wall_and_nothing_overlaps_on_the_site(gb300, catalog):
    from designer.power.electrical_room import WALL_MM, electrical_rooms
    from designer.site_plan import SitePlan

    g, _ = gb300
    plan = SitePlan.of(g.project, catalog)
    rooms = electrical_rooms(g.project)
    assert set(rooms) == {h.id for h in g.project.halls}  # data halls and network rooms each have their UPS
    boxes = []
    for h in g.project.halls:
        ox, oy = h.site_origin
        x0, y0, x1, y1 = h.bounds
        r = rooms[h.id]
        assert r.y == y1 + WALL_MM and r.count("ups") == 2 * h.facility.ups_modules
        boxes += [(ox + x0, oy + y0, ox + x1, oy + y1), (ox + r.x, oy + r.y, ox + r.x + r.width, oy + r.y + r.depth)]
        # the site plan draws it, inside its building's outline
        assert plan.room(h.id).electrical == boxes[-1]
        building = next(b for b in plan.buildings if h.id in b.rooms)
        assert building.rect[3] >= boxes[-1][3] and plan.extent[3] >= boxes[-1][3]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    # the largest hall's 2N UPS, some 36 modules a side, in a room whose equipment takes a third to a half of its
    # floor: the rest is working aisles and the passages at the rows' ends
    biggest = max(rooms.values(), key=lambda r: r.count("ups"))
    assert biggest.count("ups") >= 60
    assert 0.3 < sum(i.w * i.d for i in biggest.items) / 1e6 / biggest.area_m2 < 0.6
