"""Wiring plan from the floor plan: the 1-SU sample, cable choice by length, findings."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from designer.model import MountedDevice

from designer.analysis import analyze
from designer.fabric import plan_wiring
from designer.fabric import geometry, media
from designer.fileformat import load
from drawn import DGX_B200_SU, GB200_NVL72_SU


#: A QM9700 cage: two 400G ports, finned top.
NDR_SWITCH = media.Cage(400.0, 2, "finned", "OSFP", True)


@pytest.fixture(scope="module")
def sample(catalog):
    return load(DGX_B200_SU, catalog)


def fabric_of(project, catalog):
    """The fabric engine's result, as ``analyze`` runs it."""
    return analyze(project, catalog).result("fabric")


def test_one_su_sample_lists_every_cable_with_a_length(sample, catalog):
    links = fabric_of(sample, catalog).links()
    # Table 4, 1 SU: 31 DGX x 8 + 4 UFM links to the leaves, and 256 leaf-spine links
    assert len(links) == 252 + 256
    for link in links:
        assert link.cable and math.isfinite(link.length_m) and link.length_m > 0
        assert link.length_m in catalog.get(link.cable).lengths_m  # an orderable length
    node_leaf = [link for link in links if link.tier == "node-leaf"]
    dgx_links = [link for link in node_leaf if link.a_device.startswith("dgx-")]
    every_rail_of_every_dgx = {(f"dgx-{i:02d}", r) for i in range(1, 32) for r in range(8)}
    assert {(link.a_device, link.rail) for link in dgx_links} == every_rail_of_every_dgx
    assert len([link for link in node_leaf if link.a_device.startswith("ufm-")]) == 4
    assert all(link.b_device == f"leaf-r{link.rail}" for link in node_leaf)  # rail-optimized
    assert all(link.medium == "mmf" and link.a_transceiver == "osfp-800g-2xsr4-flat" for link in dgx_links)
    leaf_spine = [link for link in links if link.tier == "leaf-spine"]
    same_rack = [link for link in leaf_spine if link.a_rack == link.b_rack == "b09"]
    assert same_rack and all(link.medium == "dac" and link.length_m <= 2 for link in same_rack)
    assert all(link.medium == "mmf" for link in leaf_spine if link.a_rack == "a09")


def test_counts_follow_nvidia_conventions(sample, catalog):
    counts = plan_wiring(sample, catalog).counts()
    # fibre: one cable per link; a twin-port DAC carries two links
    assert counts["cables"]["fiber-mpo12-mmf"] + 2 * counts["cables"]["dac-osfp-800g"] == 252 + 256
    assert sum(counts["cables_by_length"]["fiber-mpo12-mmf"].values()) == counts["cables"]["fiber-mpo12-mmf"]
    # 4 twin flat modules per DGX; switch modules only on cages that carry fibre
    assert counts["transceivers"]["osfp-800g-2xsr4-flat"] == 31 * 4
    assert counts["transceivers"]["osfp-400g-sr4"] == 4  # single-port modules on the UFM side
    assert counts["transceivers"]["osfp-800g-2xsr4"] == 8 * 16 + 4 * 16 + 4 * 16


def test_length_from_rack_positions_by_hand(sample, catalog):
    inv = geometry.inventory(sample, catalog)
    dgx = inv.devices.labels.index("dgx-01")   # rack a01 (1800, 3000), U5, 10 U
    leaf = inv.devices.labels.index("leaf-r0")  # rack a09 (6600, 3000), U20, 1 U
    u = geometry.U_MM
    top = catalog.get("rack-48u-600x1200").height_mm
    run = 4800 + (top - (4 * u + 5 * u)) + (top - (19 * u + 0.5 * u)) + 2 * geometry.TRAY_ABOVE_RACK_MM
    expected = (run + max(geometry.SLACK_MIN_MM, geometry.SLACK_FRACTION * run)) / 1000
    got = geometry.cable_lengths_m(inv, np.array([dgx]), np.array([leaf]))[0]
    assert got == pytest.approx(expected)
    spine = inv.devices.labels.index("spine-1")  # same rack as leaf-r4: straight up the rack
    leaf4 = inv.devices.labels.index("leaf-r4")
    assert geometry.cable_lengths_m(inv, np.array([leaf4]), np.array([spine]))[0] == pytest.approx(
        (10 * u + geometry.IN_RACK_SLACK_MM) / 1000)


def _choose(catalog, lengths, paired):
    """Links between twin cages: pairs share both cages, singles do not."""
    n = len(lengths)
    a = np.arange(n) // 2 if paired else np.arange(n)
    b = 10_000 + (np.arange(n) // 2 if paired else np.arange(n))
    zero = np.zeros(n, dtype=np.int64)
    return media.choose(catalog, np.asarray(lengths, float), a, b, zero, zero, [NDR_SWITCH])


def test_cable_choice_by_length(catalog):
    ch = _choose(catalog, [0.9, 0.95, 1.8, 2.2, 4.1, 4.6, 6.0, 6.0, 60.0, 61.0, 2500.0, 2500.0], paired=True)
    assert [media.MEDIA[m] for m in ch["medium"]] == ["dac"] * 2 + ["acc"] * 4 + ["mmf"] * 2 + ["smf"] * 2 + [""] * 2
    assert list(ch["length_m"][:10]) == [1, 1, 3, 3, 5, 5, 7, 7, 100, 100]  # pair length, rounded up
    assert ch["length_m"][2] == 3  # 2.2 m: beyond passive reach, the pair's longest link sets the length
    assert list(ch["owner"][:6]) == [True, False] * 3  # one copper cable per pair
    ids = ch["module_ids"]
    assert ids[ch["module_a"][6]] == "osfp-800g-2xsr4" and ids[ch["module_a"][8]] == "osfp-800g-2xdr4"
    assert (ch["module_a"][:6] == -1).all()  # copper needs no optics
    single = _choose(catalog, [1.0, 1.0], paired=False)  # two cages, two far cages: no twin copper
    assert [media.MEDIA[m] for m in single["medium"]] == ["mmf", "mmf"]
    assert list(single["length_m"]) == [3, 3]


def test_findings_for_a_too_long_cable_and_missing_switches(sample, catalog):
    far = sample.with_racks([replace(sample.rack("a01"), x=200_000.0)])
    result = fabric_of(far, catalog)
    section, findings = result.section, result.findings
    codes = {f.code: f for f in findings}
    assert codes["fabric-cable-too-long"].where == "rack:a01" and codes["fabric-cable-too-long"].severity == "error"
    assert section["too_long_links"] == 16
    # A 32nd DGX in B08 leaves no leaf ports for the UFM appliances (NVIDIA removes one DGX, Table 4). They
    # never open a leaf block of their own: no switch is missing, and an info finding says where they stand.
    b08 = sample.rack("b08")
    full = sample.with_racks([replace(b08, devices=b08.devices + (MountedDevice("extra", "dgx-b200", 17),))])
    full_result = fabric_of(full, catalog)
    codes = {f.code: f for f in full_result.findings}
    no_port = codes["fabric-appliance-no-port"]
    assert no_port.where == "rack:m01" and no_port.severity == "info"
    assert "fabric-ports-exhausted" not in codes and "fabric-too-few-switches" not in codes
    assert (full_result.section["leaf"], full_result.section["links"]["node_leaf"]) == (8, 256)


def test_fabric_section_of_the_sample(sample, catalog):
    analysis = analyze(sample, catalog)
    section = analysis["fabric"]
    for key in ("endpoints", "nodes", "tiers", "leaf", "spine", "core", "links", "max_endpoints", "cables",
                "transceivers", "cables_by_length", "placed", "ports"):
        assert key in section
    assert (section["nodes"], section["gpus"], section["placed"]) == (31, 248, {"leaf": 8, "spine": 4, "core": 0})
    assert (section["leaf"], section["spine"], section["links"]["node_leaf"]) == (8, 4, 252)
    bw = analysis["bandwidth"]
    assert bw["per_gpu"]["scale_out_gbs"] == 50
    assert bw["nvlink_domain_gpus"] == 8 and bw["collectives"]["all_gpus"]["gpus"] == 248


def test_nvl72_and_forbidden_tier(catalog):
    from bench.designs import dgx_b200_project

    nvl = load(GB200_NVL72_SU, catalog)
    analysis = analyze(nvl, catalog)
    section, findings = analysis["fabric"], analysis.result("fabric").findings
    # 144 compute trays x 4 rails, plus the 2 UFM appliances' 4 ports
    assert (section["nodes"], section["rails"], section["links"]["node_leaf"]) == (144, 4, 580)
    assert (section["leaf"], section["spine"]) == (20, 16) and findings == ()
    bare = nvl.removing_racks(["n01", "n02"])
    [missing] = fabric_of(bare, catalog).findings
    assert missing.code == "fabric-no-switches"
    switch = catalog.get(section["switch"])
    assert f" {switch.name} switches" in missing.message and f" {switch.id} " not in missing.message
    assert analysis["bandwidth"]["nvlink_domain_gpus"] == 72
    big = dgx_b200_project(2 * 8 * 1040)  # 2,080 DGX = 16,640 endpoints: beyond 2 tiers of QM9700
    result = fabric_of(big.with_settings(big.settings.updated(fabric_tiers="2")), catalog)
    assert result.section["tiers"] == 3 and result.tiers_exceeded
    assert "fabric-tier-forbidden" in {f.code for f in result.findings}


def test_a_single_mode_link_makes_every_link_of_its_cages_single_mode(catalog):
    # Links 0-1 share cage 0 (A side); links 1-2 share cage 100 (B side); link 3 stands alone.
    # Link 0 is beyond multimode reach, so cage 0 is single-mode, so link 1 is, so cage 100, so link 2.
    lengths = np.array([60.0, 10.0, 10.0, 10.0])
    a = np.array([0, 0, 1, 2])
    b = np.array([99, 100, 100, 101])
    zero = np.zeros(4, dtype=np.int64)
    ch = media.choose(catalog, lengths, a, b, zero, zero, [NDR_SWITCH])
    assert [media.MEDIA[m] for m in ch["medium"]] == ["smf", "smf", "smf", "mmf"]
