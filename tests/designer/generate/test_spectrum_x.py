"""The DGX B300 SuperPOD on Spectrum-X (RA-11337-001) and GB300 NVL72 on Spectrum-X, counted from the RA's rules.

The hand arithmetic, per plane (each GPU's 800G ConnectX-8 port runs as 2 x 400 GbE, one half per plane):
an SU is 64 DGX B300 x 8 rails = 512 ports of 400G; an SN5610 runs its 64 x 800G cages as 128 x 400G, so a
non-blocking leaf has 64 ports down and 64 up. One leaf per rail per SU: 8 leaves; their 8 x 64 = 512 uplinks
land on 512 / 128 = 4 spines (4 divides each leaf's 64 uplinks: 16 to each). Two planes double every count.
The two-tier ceiling is 128 leaves x 64 ports = 8,192 GPU ports per plane = 16 SUs; past it a super-spine.
"""
from __future__ import annotations

from collections import Counter

import pytest

from designer.generate import GenerateError, SuperpodSpec, generate

from ._support import bad_findings, count_types, run, show


def _hand(sus: int) -> dict:
    """Counts of N SUs over both planes, from the rules above."""
    leaves_per_plane = 8 * sus
    spines_per_plane = 512 * sus // 128
    return {"leaf": 2 * leaves_per_plane, "spine": 2 * spines_per_plane, "core": 0,
            "node_leaf": 2 * 512 * sus, "leaf_spine": 2 * leaves_per_plane * 64}


@pytest.mark.parametrize("sus", [1, 2, 4, 8, 16])
def test_dgx_b300_on_spectrum_x_has_the_ras_counts_on_two_planes(design, sus):
    hand = _hand(sus)
    g, a = design("dgx-b300", sus, fabric="spectrum-x")
    f = a.fabric
    assert (f.technology, f.planes, f.switch, f.port_gbps, f.tiers) == ("spectrum-x", 2, "sn5610", 400, 2)
    assert (f.leaf, f.spine, f.core) == (hand["leaf"], hand["spine"], 0)
    assert (f.per_plane.leaf, f.per_plane.spine) == (hand["leaf"] // 2, hand["spine"] // 2)
    assert (f.links.node_leaf, f.links.leaf_spine, f.links.spine_core) == (hand["node_leaf"], hand["leaf_spine"], 0)
    assert g.gpus == 512 * sus and f.scalable_units == sus and f.reserved_ports == 0
    types = count_types(g.project)
    # no node makes way for UFM and no UFM is placed: a Spectrum-X fabric has none
    assert types["dgx-b300"] == 64 * sus and not any(t.startswith("ufm-") for t in types)
    assert types["sn5610"] == hand["leaf"] + hand["spine"]
    assert not [x for x in a.findings if x.severity == "error"], show(a.findings)
    assert not bad_findings(a), show(bad_findings(a))
    # every cable is wired, none too long; one twin-port module per GPU cage on the node side
    assert f.unwired_links.node_leaf == f.unwired_links.leaf_spine == 0 and f.too_long_links == 0
    assert a["fabric"]["wired_links"]["node_leaf"] == hand["node_leaf"]


def test_the_two_tier_ceiling_is_16_sus_and_100000_gpus_build_a_super_spine(catalog):
    g = generate(SuperpodSpec(system="dgx-b300", gpus=100_000, fabric="spectrum-x"), catalog)
    t = g.networks.compute
    # 12,500 DGX B300 in ceil(12,500 / 64) = 196 SUs: 196 leaf blocks, 8 rails -> 1,568 leaves a plane; pods of
    # k/2 = 64 leaves (8 blocks): 24 full pods and one of 4 blocks (32 leaves); a full pod's spines take
    # 64 x 64 / 64 = 64, the last 32 x 64 / 64 = 32 -> 24 x 64 + 32 = 1,568 spines a plane. Each spine has 64
    # uplinks; 25 pods need core groups of at least ceil(25 x 64 / 128) = 13 cores dividing 64: 16, so
    # 64 spine positions x 16 = 1,024 super-spines a plane.
    assert (t.tiers, t.planes, t.scalable_units, t.nodes) == (3, 2, 196, 12_500)
    assert (t.leaf, t.spine, t.core, t.pods) == (1568, 1568, 1024, 25)
    assert (t.leaf_switches, t.spine_switches, t.core_switches) == (3136, 3136, 2048)
    names = Counter(d.name.rsplit("-", 1)[0] for r in g.project.racks for d in r.devices
                    if d.name.startswith("superspine-"))
    assert names == {"superspine-a": 1024, "superspine-b": 1024}
    sixteen = generate(SuperpodSpec(system="dgx-b300", sus=16, fabric="spectrum-x"), catalog).networks.compute
    seventeen = generate(SuperpodSpec(system="dgx-b300", sus=17, fabric="spectrum-x"), catalog).networks.compute
    assert (sixteen.tiers, seventeen.tiers) == (2, 3) and sixteen.max_endpoints == 8192


def test_each_plane_is_its_own_tree_and_every_gpu_port_reaches_both(design):
    g, a = design("dgx-b300", 1, fabric="spectrum-x")
    links = a.result("fabric").links()
    by_plane = Counter(link.plane for link in links)
    assert by_plane == {"A": 2048 // 2, "B": 2048 // 2}
    for link in links:  # a plane's switches link only to their own plane's
        for end in (link.a_device, link.b_device):
            if end.startswith(("leaf-", "spine-")):
                assert end.split("-")[1] == link.plane.lower(), link
    # a DGX's cage r carries port r/1 to plane A and r/2 to plane B, both on rail r
    dgx = sorted((link.a_port, link.plane, link.rail, link.b_device.rsplit("-", 1)[1])
                 for link in links if link.a_device == "dgx-0001")
    assert dgx == sorted((f"{r + 1}/{p + 1}", "AB"[p], r, f"r{r}") for r in range(8) for p in range(2))


def test_the_bill_holds_ethernet_compute_parts_only(design, catalog):
    g, a = design("dgx-b300", 1, fabric="spectrum-x")
    parts = a.result("fabric").parts()
    kinds = {catalog.get(t).kind for t in parts}
    assert kinds == {"cable", "transceiver"}
    # 512 GPU cages each take one twin-port flat-top module (its two 400G halves to the two planes); the
    # switches' 24 x 64 cages each a finned twin-port module
    assert parts["osfp-800g-2xsr4-flat"] == 512 and parts["osfp-800g-2xsr4"] == 24 * 64
    bom = Counter()
    for section in a["bom"]["sections"]:
        for line in section["lines"]:
            bom[line["id"]] += line["quantity"]
    types = count_types(g.project)
    assert bom["sn5610"] == types["sn5610"] == 24
    for ib in ("qm9700", "qm9790", "q3400", "ufm-appliance", "ufm-appliance-xdr", "ufm-licence"):
        assert ib not in types and ib not in bom, ib


def test_gb300_nvl72_on_spectrum_x_builds_its_enterprise_ras_dual_plane(design):
    # SU = 1 rack of 18 trays x 4 rails; per plane 8 racks = 144 trays -> ceil(144 / 64) = 3 leaf blocks x 4
    # rails = 12 leaves, 12 x 64 / 128 = 6 spines -> 8 (the smallest divisor of 64 at least 6)
    g, a = design("gb300-nvl72", 8, fabric="spectrum-x")
    f = a.fabric
    assert (f.technology, f.planes, f.rails, f.scalable_units) == ("spectrum-x", 2, 4, 8)
    assert (f.leaf, f.spine, f.core) == (24, 16, 0)
    assert f.links.node_leaf == 2 * 576
    assert not bad_findings(a), show(bad_findings(a))


def test_the_dc_busbar_b300_defaults_to_its_ras_spectrum_x_and_the_ac_one_to_infiniband(design):
    _, dc = design("dgx-b300-dc", 1)
    _, ac = design("dgx-b300", 1)
    assert (dc.fabric.technology, dc.fabric.planes, dc.fabric.switch) == ("spectrum-x", 2, "sn5610")
    assert (ac.fabric.technology, ac.fabric.planes, ac.fabric.switch) == ("infiniband", 1, "q3400")


@pytest.mark.parametrize("args, says", [
    (("--system", "dgx-b200", "--fabric", "spectrum-x"), "--fabric spectrum-x: dgx-b200 has no Ethernet"),
    (("--system", "gb200-nvl72", "--fabric", "spectrum-x"), "allowed for gb200-nvl72: infiniband"),
    (("--system", "dgx-b300", "--fabric", "spectrum-x", "--planes", "3"), "--planes: must be 1 or 2, got 3"),
    (("--system", "dgx-b300", "--fabric", "spectrum-x", "--switch", "q3400"),
     "--switch: q3400 is not an Ethernet fabric switch, which --fabric spectrum-x needs; allowed: sn5600, sn5610"),
    (("--system", "dgx-b300", "--planes", "2"), "--planes 2: the q3400's 800G ports do not split"),
    (("--system", "dgx-b300", "--fabric", "ethernet"), "--fabric: 'ethernet' is not a fabric"),
])
def test_bad_fabric_flags_are_one_line_and_exit_2(capsys, tmp_path, args, says):
    code, out, err = run(capsys, "new", "superpod", *args, "--sus", "1", "-o", str(tmp_path / "x.json"))
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "x.json").exists()


def test_the_choice_is_stored_and_reported(capsys, tmp_path):
    path = tmp_path / "x.podplan.json"
    code, out, err = run(capsys, "new", "superpod", "--system", "dgx-b300", "--fabric", "spectrum-x", "--sus", "1",
                         "-o", str(path), "--json")
    assert code == 0, err
    import json
    doc = json.loads(path.read_text())
    assert doc["settings"]["fabric_technology"] == "spectrum-x" and doc["settings"]["fabric_planes"] == 2
    code, out, err = run(capsys, "analyze", str(path), "--json")
    fabric = json.loads(out)["fabric"]
    assert (fabric["technology"], fabric["planes"], fabric["leaf"], fabric["spine"]) == ("spectrum-x", 2, 16, 8)
    assert fabric["per_plane"] == {"leaf": 8, "spine": 4, "core": 0,
                                   "links": {"node_leaf": 512, "leaf_spine": 512, "spine_core": 0}}
    code, out, err = run(capsys, "analyze", str(path))
    assert code == 0 and "fabric        Spectrum-X Ethernet, 2 planes of 400G (8 + 4 each): 16 leaf + 8 spine " \
                         "NVIDIA Spectrum-4 SN5610 Ethernet switch, 2 tiers, 2,048 cables" in out


def test_a_single_plane_whose_ports_no_optic_joins_is_refused_naming_the_flag(catalog):
    # one plane runs each DGX B300 port whole at 800G on an SN5610 cage: the catalog has no single-port 800G
    # Ethernet module for it, so the design would be all unwired links; the RA's two planes have them
    with pytest.raises(GenerateError, match=r"--planes 1: each dgx-b300 port would run at 800G, and the catalog "
                                            r"has no optic that joins it to the sn5610's cages .*; --planes 2, the "
                                            r"reference architecture's, has them"):
        generate(SuperpodSpec(system="dgx-b300", sus=1, fabric="spectrum-x", planes=1), catalog)
    with pytest.raises(GenerateError, match="--planes: must be 1 or 2"):
        generate(SuperpodSpec(system="dgx-b300", sus=1, fabric="spectrum-x", planes=0), catalog)


def test_a_ratio_above_the_pod_on_two_tiers_is_said_to_go_unused(catalog):
    g = generate(SuperpodSpec(system="dgx-h100", sus=2, fabric="roce", core_oversubscription=7), catalog)
    assert g.networks.compute.tiers == 2
    assert any("7:1 above the pod is not used: 2 tiers reach these GPUs" in n for n in g.notes), g.notes
