"""The pieces a million-GPU campus stands on: the spiral of buildings, the central upper tier, the leaf fallback, and
network racks with enough outlets for every cord the power engine plugs."""
from __future__ import annotations

from dataclasses import replace

import pytest

from designer.analysis import analyze
from designer.fabric.sizing import limits
from designer.generate import SuperpodSpec
from designer.generate.campus_fabric import leaf_fallback
from designer.generate.rack_filling import RackBuilder
from designer.generate.site import UPPER_TIER_BUILDINGS, share_upper_tier, spiral_cells
from designer.generate.spec import check_spec, system_profile
from designer.generate.layout import Place
from designer.model import MountedDevice
from designer.settings import Settings


def test_the_spiral_starts_in_the_middle_and_each_building_stands_beside_the_last():
    assert spiral_cells(1) == [(0, 0)]
    assert spiral_cells(2) == [(0, 0), (0, 1)]
    cells = spiral_cells(31)
    assert len(set(cells)) == 31 and min(min(c) for c in cells) == 0
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in zip(cells, cells[1:]))
    # the first four a 2 x 2 block, the first nine a 3 x 3 block, nearest the middle of the 6 x 6 the 31 span
    assert {r for r, _ in cells[:4]} == {2, 3} and {c for _, c in cells[:4]} == {2, 3}
    assert len({r for r, _ in cells[:9]}) == 3 and len({c for _, c in cells[:9]}) == 3


class _Tree:  # what share_upper_tier reads of a sized tree
    tiers = 3
    technology = "spectrum-x"


def test_the_upper_tier_is_shared_over_the_central_buildings_only():
    top = [[f"s{i}"] for i in range(10)]
    rooms = share_upper_tier([("SUPERSPINE", top), ("STORAGE", [["x"]])], _Tree(), 7)
    holding = [b for b, groups in enumerate(rooms) if any(t == "SUPERSPINE" for t, _ in groups)]
    assert holding == list(range(UPPER_TIER_BUILDINGS))
    assert sum(len(stacks) for groups in rooms for t, stacks in groups if t == "SUPERSPINE") == 10
    assert [t for t, _ in rooms[0]] == ["SUPERSPINE", "STORAGE"] and rooms[5] == []


@pytest.mark.parametrize(("system", "endpoints"), [("gb300-nvl72", 1_000_008), ("dgx-b300", 1_000_000)])
def test_the_leaves_give_up_the_fewest_uplinks_that_hold_a_million_ports(catalog, system, endpoints):
    spec = check_spec(SuperpodSpec(system=system, gpus=1_000_000, fabric="spectrum-x"), catalog)
    profile = system_profile(catalog, spec.system, spec.fabric)
    rails = profile.rails
    nodes = endpoints // rails
    down, up = leaf_fallback(spec, profile, catalog, nodes, 0)
    assert (down, up) == (72, 56) and down + up == 128
    assert limits(128, rails, down, 7.0)[3] >= endpoints > limits(128, rails, 64, 7.0)[3]
    # 70 and 71 down ports hold them too, but start a leaf block only every 35 or 71 scalable units
    assert limits(128, rails, 70, 7.0)[3] >= endpoints


def test_a_room_of_switches_without_supply_data_gets_an_outlet_for_each_of_their_two_cords(catalog):
    # the catalog gives the SN2201 no supply data: the power engine plugs two cords (dual-corded), so 46 of them
    # need 46 C13-class outlets a feed, more than one PDU's 42
    b = RackBuilder(catalog, Settings())
    devices = [MountedDevice(f"oob{i}", "sn2201", 2 + i, "rear", f"OOB {i}") for i in range(46)]
    rack = b.rack("oob-01", "OOB-01", Place(0.0, 0.0, 0.0, "A"), devices)
    pdus = [d for d in rack.devices if d.type.startswith("pdu-")]
    assert len(pdus) == 4
    from designer.model import Hall, Project

    hall = Hall("hall-1", "Hall", ((0.0, 0.0), (5000.0, 0.0), (5000.0, 5000.0), (0.0, 5000.0)))
    a = analyze(Project(halls=(hall,), racks=(replace(rack, x=1000.0, y=1000.0),)), catalog)
    assert [f.message for f in a.findings if f.code == "outlet-shortfall"] == []
