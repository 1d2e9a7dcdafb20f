"""The current generation built as its reference architectures build it: DGX B300 on Quantum-X800, GB300 NVL72,
DGX Rubin NVL8, and the GB200 fixes (UFM ports open no SU; partial SUs get the full SU's leaves).

Every expected count is worked out by hand in the test from the rules of hardware.md §7.1/§7.3, not read
back from the engine: leaves = rails x ceil(SU slots / leaf down-ports); spines = the smallest divisor of a
leaf's uplinks (k/2) that is at least ceil(leaf uplinks in total / k).
"""
from __future__ import annotations

import math

import pytest

from designer.generate import SYSTEMS, GenerateError, SuperpodSpec, generate

from ._support import bad_findings, count_types, show


def _spines(leaves: int, k: int) -> int:
    """hardware.md §7.1: S = smallest divisor of k/2 that is >= ceil(leaves x k/2 / k)."""
    up = k // 2
    need = math.ceil(leaves * up / k)
    return next(d for d in range(need, up + 1) if up % d == 0)


@pytest.mark.parametrize("sus, leaf, spine", [(1, 8, 4), (2, 16, 8), (4, 32, 18), (8, 64, 36)])
def test_dgx_b300_on_quantum_x800_follows_the_xdr_reference_architecture(design, sus, leaf, spine):
    # RA-11339-001: 72 DGX B300 per SU, 8 rails, Q3400 with k = 144 (72 down, 72 up): one leaf per rail
    # per SU, and no DGX taken out for UFM (the NDR RAs' 31-node SU does not apply)
    assert leaf == 8 * sus and spine == _spines(leaf, 144)
    g, a = design("dgx-b300", sus)
    f = a.fabric
    gpus = 576 * sus
    assert (f.leaf, f.spine, f.core, f.tiers, f.scalable_units) == (leaf, spine, 0, 2, sus)
    assert f.links.node_leaf == f.links.leaf_spine == gpus == g.gpus
    assert f.switch == "q3400" and f.port_gbps == 800
    types = count_types(g.project)
    assert types["dgx-b300"] == 72 * sus and types["ufm-appliance-xdr"] == 2
    # storage on RoCE (the RA's alternative to NDR): no NDR switch or NDR UFM anywhere in the design
    assert "ufm-appliance" not in types and "qm9700" not in types and "sn5600" in types
    assert not bad_findings(a), show(bad_findings(a))


@pytest.mark.parametrize("sus", [1, 4, 8, 16])
def test_gb200_scalable_units_are_what_was_asked_for_and_ufm_opens_no_pod(design, sus):
    # 8 racks x 18 trays = 144 compute trays per SU, 4 rails, QM9700 (32 down): leaves for exactly `sus` SUs
    trays = 144 * sus
    leaf = 4 * math.ceil(trays / 32)
    g, a = design("gb200-nvl72", sus)
    f = a.fabric
    assert f.scalable_units == sus
    assert f.leaf == leaf and f.links.leaf_spine == leaf * 32
    if leaf <= 64:  # two tiers (2,048 ports of QM9700): spines by the even-uplink rule
        assert f.spine == _spines(leaf, 64)
    else:  # three tiers, built for the endpoints (hardware.md §7.2): as many spines as leaves
        assert f.spine == leaf
    # no leaf carries only a UFM link: every leaf block holds trays
    names = {d.name for r in g.project.racks for d in r.devices if d.name and d.name.startswith("leaf-")}
    assert len(names) == leaf
    assert not bad_findings(a), show(bad_findings(a))


def test_gb200_full_scalable_unit_at_4_su_is_72_leaves_and_72_spines(design):
    _, a = design("gb200-nvl72", 4)
    assert (a.fabric.leaf, a.fabric.spine) == (72, 72)
    notes = [x for x in a.findings if x.code == "fabric-appliance-no-port"]
    # 576 trays fill all 18 blocks of 32: the UFM appliances find no leaf port, and say so
    assert len(notes) == 1 and notes[0].severity == "info" and "ufm-compute-1" in notes[0].message


def test_a_partial_gb200_su_gets_the_full_sus_leaves(catalog):
    # 1,000 GPUs = 14 racks (13.9 rounded up) = 252 trays in 2 SUs: the RA builds the leaves and leaf-spine
    # cables of both whole SUs (288 slots = 9 blocks of 32 = 36 leaves), not just the 8 blocks the trays fill
    g = generate(SuperpodSpec(system="gb200-nvl72", gpus=1000), catalog)
    from designer.analysis import analyze
    a = analyze(g.project, catalog)
    assert (g.sus, g.nodes) == (2, 14)
    assert a.fabric.leaf == 36 and a.fabric.links.leaf_spine == 36 * 32
    assert a.fabric.links.node_leaf == 14 * 72 + 4  # every tray port, and the UFM ports in free slots


def test_gb300_nvl72_four_sus_validate_clean(design):
    g, a = design("gb300-nvl72", 4)
    assert not bad_findings(a), show(bad_findings(a))
    assert a.fabric.switch == "q3400" and (a.fabric.leaf, a.fabric.spine) == (32, _spines(32, 144))
    assert a.fabric.links.node_leaf == 32 * 72 == g.gpus
    assert count_types(g.project)["gb300-nvl72"] == 32
    assert g.project.name.startswith("NVIDIA DGX GB300 NVL72 SuperPOD - 4 scalable units")


def test_dgx_rubin_nvl8_racks_are_busbar_fed_eight_to_a_rack(design, catalog):
    g, a = design("dgx-rubin-nvl8", 1)
    compute = [r for r in g.project.racks if any(d.type == "dgx-rubin-nvl8" for d in r.devices)]
    assert len(compute) == 9  # 72 systems, 8 per rack (the Rubin NVL8 RA's rack)
    for rack in compute:
        types = [d.type for d in rack.devices]
        assert types.count("dgx-rubin-nvl8") == 8 and not any(t.startswith("pdu-") for t in types)
        # 8 x 24 kW = 192 kW on 33 kW shelves: 6 carry it, one spare (N+1)
        assert types.count("mgx-power-shelf-33kw") == math.ceil(8 * 24 / 33) + 1
    assert a.fabric.switch == "q3400" and a.fabric.links.node_leaf == 576
    assert not [f for f in a.findings if f.severity == "error"], show(a.findings)


def test_dgx_b300_dc_racks_take_power_shelves_not_pdus(design):
    g, _ = design("dgx-b300-dc", 1)
    rack = next(r for r in g.project.racks if any(d.type == "dgx-b300-dc" for d in r.devices))
    types = [d.type for d in rack.devices]
    n = types.count("dgx-b300-dc")
    # air decides the rack unasked (4 per rack needs rear-door heat exchangers): 2 x 14.5 kW; the shelves
    # carry the systems' 19 kW peak each with one spare, as NVIDIA's 4 shelves carry 4 at >= 3 active
    assert n == 2 and types.count("mgx-power-shelf-33kw") == math.ceil(n * 19.0 / 33) + 1
    assert not any(t.startswith("pdu-") for t in types)


def test_vera_rubin_nvl72_is_refused_in_words_no_su_is_published(catalog):
    with pytest.raises(GenerateError, match="no DGX SuperPOD scalable unit for Vera Rubin NVL72"):
        generate(SuperpodSpec(system="vera-rubin-nvl72", sus=1), catalog)


def test_the_generators_scalable_units_are_the_catalogs(catalog):
    for system, su in SYSTEMS.items():
        dev = catalog.get(system)
        assert dev.su_systems == su, system
        assert dev.figure("su_systems").source  # each SU cites its reference architecture


def test_the_ras_rack_of_four_b300_is_one_flag_away_and_said_why_it_is_not_the_default(design):
    g, _ = design("dgx-b300", 1)
    assert any("not the reference architecture's 4" in n and "--nodes-per-rack 4" in n for n in g.notes)
    g4, a4 = design("dgx-b300", 1, nodes_per_rack=4)
    compute = [r for r in g4.project.racks if any(d.type == "dgx-b300" for d in r.devices)]
    assert len(compute) == 18  # 72 / 4, each rack limited to 4 x 14.5 kW = 58 kW
    assert g4.project.halls[0].rack_power_limit_kw == 58.0
    # 58 kW to air per rack: the cooling engine names the remedy, a rear-door heat exchanger
    air = [f for f in a4.findings if f.severity == "warning" and "rear-door" in f.message]
    assert len(air) == 1 and len(air[0].places) == 18 and air[0].message.startswith("18 racks (SU01-01")


@pytest.mark.parametrize("system", ["dgx-b300", "gb300-nvl72"])
def test_neither_bill_holds_an_ndr_part(design, catalog, system):
    # NDR is InfiniBand at 400G: no switch, appliance or system on the bill has an InfiniBand port at 400G, no
    # part is named NDR, and every compute-fabric module and cable runs at 800G. The storage fabric's 400GbE
    # modules are the ones NVIDIA pairs for Spectrum-4 (MMA4Z00-NS with the QSFP112 SR4, LinkX QSFP112 page).
    _, a = design(system, 4)
    fabric_parts = set(a.fabric.transceivers) | set(a.fabric.cables)
    assert fabric_parts and all(catalog.get(p).speed_gbps == 800 for p in fabric_parts), fabric_parts
    for section in a.bom.sections:
        for line in section.lines:
            dev = catalog.find(line.id)
            if dev is None:
                continue
            assert "NDR" not in dev.name, line.description
            assert not [g for g in dev.ports if g.protocol == "infiniband" and g.speed_gbps == 400], dev.id
            if dev.kind in ("transceiver", "cable") and dev.speed_gbps == 400:
                assert line.description.endswith("storage fabric"), line.description


def test_a_gpu_power_cap_is_stated_where_the_power_is(capsys, tmp_path):
    from designer.cli import main

    out = tmp_path / "cap.podplan.json"
    assert main(["new", "superpod", "--system", "gb300-nvl72", "--sus", "1", "--gpu-power-w", "1100",
                 "-o", str(out)]) == 0
    assert "every GPU capped at 1,100 W" in capsys.readouterr().out
    assert main(["analyze", str(out)]) == 0
    assert "(every GPU capped at 1,100 W)" in capsys.readouterr().out


def test_a_gb300_rack_names_no_gb200_part(catalog):
    # the power shelves and NVLink 5 switch trays are the ones GB200 racks use: named for both, so the
    # GB300 quote's elevations and bill read GB300 or neutral names only
    rack = catalog.get("gb300-nvl72")
    names = [catalog.get(c.id).name for c in rack.components]
    assert not [n for n in names if "GB200" in n and "GB300" not in n], names


@pytest.mark.parametrize("system, per_rack, kw_each", [("dgx-rubin-nvl8", 4, 24.0), ("dgx-b300-dc", 3, 14.5)])
def test_a_busbar_rack_of_any_count_is_sized_to_that_count(design, system, per_rack, kw_each):
    g, _ = design(system, 1, nodes_per_rack=per_rack)
    racks = [r for r in g.project.racks if any(d.type == system for d in r.devices)]
    assert racks and all(sum(d.type == system for d in r.devices) <= per_rack for r in racks)
    assert g.project.halls[0].rack_power_limit_kw == math.ceil(per_rack * kw_each)


def test_the_ufm_appliance_follows_the_fabric_switch_not_the_nodes(design):
    # DGX B300 (800G ports) on a Quantum-2 QM9700 fabric: the NDR appliance, whose 400G ports its cages take
    g, _ = design("dgx-b300", 1, switch="qm9700")
    types = count_types(g.project)
    assert types["ufm-appliance"] == 2 and "ufm-appliance-xdr" not in types
    g, _ = design("gb200-nvl72", 1, switch="q3400")  # and the XDR one on a Quantum-X800, for 400G trays too
    assert count_types(g.project)["ufm-appliance-xdr"] == 2


def test_a_cap_below_the_modelled_floor_is_an_error_and_the_draw_stops_at_the_floor(design, catalog):
    from dataclasses import replace

    from designer.analysis import analyze

    g, _ = design("dgx-b300", 1)
    settings = g.project.settings

    def it(cap):
        a = analyze(g.project.with_settings(replace(settings, gpu_power_cap_w=cap)), catalog)
        return a.power.it_max_kw, [f for f in a.findings if f.severity == "error"]

    floor_kw, floor_errors = it(440.0)  # 40 % of the B300's 1,100 W TDP: the lowest cap modelled
    low_kw, low_errors = it(200.0)
    assert not floor_errors and low_errors and "440 W floor" in low_errors[0].message
    assert low_kw == floor_kw  # not the 200 W the model refuses
