"""The power cabling cord by cord (designer.power.cords): the same split of supplies over feeds A and B, and
the same outlets, as the feed engine counts."""
from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from designer.analysis import analyze
from designer.fileformat import load
from designer.power.cords import power_cabling, supply_ports
from designer.samples import DGX_B200_SU, GB200_NVL72_SU


@pytest.fixture(scope="module")
def b200(catalog):
    project = load(DGX_B200_SU, catalog)
    return project, power_cabling(project, catalog), analyze(project, catalog)


@pytest.fixture(scope="module")
def gb200(catalog):
    project = load(GB200_NVL72_SU, catalog)
    return project, power_cabling(project, catalog)


def test_a_dgx_b200_has_three_supplies_on_each_feed_each_into_a_c19_of_its_own_rack(b200):
    project, cabling, _ = b200
    rack_of = {d.id: r.id for r in project.racks for d in r.devices}
    dgx = [d.id for r in project.racks for d in r.devices if d.type == "dgx-b200"]
    assert len(dgx) == 31
    by_device: dict[str, list] = {}
    for c in cabling.cords:
        by_device.setdefault(c.device, []).append(c)
    for d in dgx:
        cords = by_device[d]
        assert [c.port for c in cords] == ["PSU1", "PSU2", "PSU3", "PSU4", "PSU5", "PSU6"]
        assert [c.side for c in cords] == ["A", "A", "A", "B", "B", "B"]
        assert {rack_of[c.pdu] for c in cords} == {rack_of[d]}
        assert all(c.outlet.startswith("C19-") for c in cords)
    assert cabling.unplugged == 0


def test_no_outlet_takes_two_cords_and_every_pdu_is_on_its_own_feed(b200):
    _, cabling, _ = b200
    assert max(Counter((c.pdu, c.outlet) for c in cabling.cords).values()) == 1
    side_of = {i.device: i.side for i in cabling.inlets if i.kind == "pdu"}
    assert all(side_of[c.pdu] == c.side for c in cabling.cords)
    # a rack's PDUs alternate A, B, as the feed engine takes them
    first = {}
    for i in cabling.inlets:
        first.setdefault(i.rack, i.side)
    assert set(first.values()) == {"A"}


def test_the_cords_per_rack_and_feed_are_the_feed_engines_outlets_needed(b200):
    """The C19 cords the feed engine counts per rack and side are the cords made here, rack by rack."""
    project, cabling, analysis = b200
    feeds = analysis.result("power").feeds
    rack_of = {d.id: r.id for r in project.racks for d in r.devices}
    index = {r.id: i for i, r in enumerate(project.racks)}
    got = Counter((rack_of[c.device], c.side, c.outlet[:3]) for c in cabling.cords)
    for rack, i in index.items():
        assert got[(rack, "A", "C19")] == feeds.c19_need_a[i], rack
        assert got[(rack, "B", "C19")] == feeds.c19_need_b[i], rack
        assert got[(rack, "A", "C13")] + got[(rack, "A", "C19")] == feeds.c19_need_a[i] + feeds.c13_need_a[i]


def test_panels_are_one_per_row_and_side_and_feeds_are_one_per_inlet(b200):
    project, cabling, _ = b200
    rows = {(r.hall, r.row) for r in project.racks}
    assert len(cabling.panels) == 2 * len(rows) == 6
    assert {p.side for p in cabling.panels} == {"A", "B"}
    pdus = [d.id for r in project.racks for d in r.devices if d.type.startswith("pdu-")]
    assert sorted(i.device for i in cabling.inlets) == sorted(pdus)
    for inlet in cabling.inlets:
        panel = cabling.panels[inlet.panel]
        assert panel.side == inlet.side
        assert (inlet.voltage_v, inlet.current_a, inlet.phases) == (400.0, 32.0, 3)


def test_an_nvl72_takes_a_feed_per_shelf_four_a_side_and_no_cord(gb200):
    project, cabling = gb200
    systems = [d.id for r in project.racks for d in r.devices if d.type == "gb200-nvl72"]
    assert len(systems) == 8
    for s in systems:
        inlets = [i for i in cabling.inlets if i.device == s]
        assert [i.port for i in inlets] == [f"PS{k}" for k in range(1, 9)]
        assert [i.side for i in inlets] == ["A"] * 4 + ["B"] * 4
        assert {i.kind for i in inlets} == {"system"}
    assert not any(c.device in systems for c in cabling.cords)
    assert cabling.unplugged == 0


def test_a_rack_without_pdus_leaves_its_supplies_unplugged(catalog, b200):
    project, _, _ = b200
    rack = project.racks[0]
    bare = dataclasses.replace(rack, devices=tuple(d for d in rack.devices if not d.type.startswith("pdu-")))
    supplies = sum(len(supply_ports(catalog.get(d.type), catalog)) for d in bare.devices)
    assert supplies > 0
    cabling = power_cabling(dataclasses.replace(project, racks=(bare,)), catalog)
    assert (cabling.cords, cabling.inlets, cabling.unplugged) == ((), (), supplies)


def test_supply_ports_by_type(catalog):
    dgx = supply_ports(catalog.get("dgx-b200"), catalog)
    assert [(p.name, p.coupler, p.maximum_w) for p in dgx] == [(f"PSU{k}", "C20", 3300) for k in range(1, 7)]
    pdu = supply_ports(catalog.get("pdu-415v-32a-3ph"), catalog)
    # 3 x 230 V x 32 A: the AP8886's 22 kW class
    assert [(p.name, p.coupler, p.maximum_w) for p in pdu] == [("Input", "3P+N+E", 22170)]
    assert supply_ports(catalog.get("cdu-inrow-2mw"), catalog) == []
    nvl = supply_ports(catalog.get("gb200-nvl72"), catalog)
    assert [p.name for p in nvl] == [f"PS{k}" for k in range(1, 9)]
