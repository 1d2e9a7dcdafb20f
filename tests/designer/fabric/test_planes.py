"""Twin-plane fabrics: each node port split over two independent trees, Ethernet switches run split."""
from __future__ import annotations

import json

import pytest

from designer.analysis import analyze
from designer.cli import fabric as cli
from designer.fabric import FabricError, size_fat_tree
from designer.fabric.sizing import fabric_ports
from designer.generate import SuperpodSpec, generate
from designer.settings import Settings, SettingsError, settings_from_json

from .test_fabric_cli import parse


def test_an_ethernet_switch_runs_its_cages_split_and_a_quantum_one_does_not(catalog):
    sn5610, sn5600, q3400 = (catalog.get(i) for i in ("sn5610", "sn5600", "q3400"))
    g = fabric_ports(sn5610, 400)
    assert (g.count, g.speed_gbps, g.ports_per_cage) == (128, 400, 2)
    g = fabric_ports(sn5600, 200)  # 256 x 200 GbE (SN5000 manual)
    assert (g.count, g.speed_gbps, g.ports_per_cage) == (256, 200, 4)
    with pytest.raises(FabricError, match="sn5610 cannot run 200G fabric ports: its 800G ports split at most 2"):
        fabric_ports(sn5610, 200)
    with pytest.raises(FabricError, match="q3400 cannot run 400G fabric ports: its 800G ports do not split"):
        fabric_ports(q3400, 400)


def test_two_planes_halve_the_port_and_double_the_switches(catalog):
    # 4 SUs of 64 DGX B300: per plane 2,048 ports of 400G on 64-down leaves = 32 leaves, 32 x 64 / 128 = 16 spines
    two = size_fat_tree(4 * 64 * 8, catalog.get("sn5610"), su_nodes=64, node_port_gbps=800, node_cage_ports=1,
                        planes=2)
    assert (two.planes, two.technology, two.port_gbps, two.radix) == (2, "spectrum-x", 400, 128)
    assert (two.leaf, two.spine, two.leaf_switches, two.spine_switches, two.switches) == (32, 16, 64, 32, 96)
    assert two.node_cage_ports == 2 and two.node_port_gbps == 400
    doc = two.to_json(catalog)
    assert (doc["leaf"], doc["spine"], doc["switches"]) == (64, 32, 96)
    assert doc["links"] == {"node_leaf": 4096, "leaf_spine": 4096, "spine_core": 0}
    assert doc["per_plane"]["links"] == {"node_leaf": 2048, "leaf_spine": 2048, "spine_core": 0}
    assert doc["ports"]["leaf"]["total"] == 64 * 128 and doc["ports"]["leaf"]["free"] == 0
    # one twin-port module per GPU cage carries both planes; every switch cage one module
    assert doc["transceivers"] == {"osfp-800g-2xsr4": 96 * 64, "osfp-800g-2xsr4-flat": 2048}
    assert doc["cables_total"] == 8192
    with pytest.raises(FabricError, match="planes must be 1 or 2"):
        size_fat_tree(512, catalog.get("sn5610"), planes=3)
    with pytest.raises(FabricError, match="q3400 cannot run 400G"):
        size_fat_tree(512, catalog.get("q3400"), node_port_gbps=800, planes=2)


def test_the_fabric_command_takes_planes(catalog, capsys):
    args = parse("--endpoints", "512", "--switch", "sn5610", "--su-nodes", "64", "--node-port-gbps", "800",
                 "--planes", "2", "--json")
    assert cli.run(args, catalog) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["technology"], doc["planes"], doc["leaf"], doc["spine"]) == ("spectrum-x", 2, 16, 8)
    assert cli.run(parse("--endpoints", "512", "--switch", "sn5610", "--node-port-gbps", "800", "--planes", "2"),
                   catalog) == 0
    assert "2 planes, each node port split over them" in capsys.readouterr().out
    for argv, says in ((("--planes", "3"), "--planes: must be 1 or 2, got '3'"),
                       (("--switch", "q3400", "--planes", "2"), "--planes 2: the q3400's 800G ports do not split")):
        with pytest.raises(FabricError, match=says):
            cli.run(parse("--endpoints", "512", *argv), catalog)


def test_the_settings_hold_the_technology_and_save_as_before_at_their_defaults():
    assert "fabric_technology" not in Settings().to_json() and "fabric_planes" not in Settings().to_json()
    s = settings_from_json({"fabric_technology": "spectrum-x", "fabric_planes": 2})
    assert s.to_json()["fabric_technology"] == "spectrum-x" and s.to_json()["fabric_planes"] == 2
    with pytest.raises(SettingsError, match="settings.fabric_technology: .* one of infiniband, spectrum-x, roce"):
        settings_from_json({"fabric_technology": "ethernet"})
    with pytest.raises(SettingsError, match="settings.fabric_planes: .* must be 1 or 2"):
        settings_from_json({"fabric_planes": 3})


def test_infiniband_leaves_in_an_ethernet_design_are_an_error_naming_them(catalog):
    g = generate(SuperpodSpec(system="dgx-b300", sus=1), catalog)  # Quantum-X800 leaves and spines
    project = g.project.with_settings(g.project.settings.updated(fabric_technology="spectrum-x", fabric_planes=2))
    a = analyze(project, catalog)
    found = [f for f in a.findings if f.code == "fabric-technology-mismatch"]
    assert len(found) == 1 and found[0].severity == "error"
    assert "spectrum-x" in found[0].message and "Quantum-X800" in found[0].message
    # the InfiniBand switches are left out: the Ethernet fabric the nodes need has no switch placed
    assert a.fabric.technology == "spectrum-x" and a.fabric.placed.leaf == 0


def test_a_missing_switch_leaves_its_own_plane_short_and_never_crosses_planes(catalog):
    from dataclasses import replace

    g = generate(SuperpodSpec(system="dgx-b300", sus=2, fabric="spectrum-x"), catalog)
    gone = {"leaf-b-0002-r7", "spine-a-0001"}
    project = g.project.with_racks(replace(r, devices=tuple(d for d in r.devices if d.name not in gone))
                                   for r in g.project.racks)
    a = analyze(project, catalog)
    links = a.result("fabric").links()
    for link in links:  # every switch end is on the link's own plane
        for end in (link.a_device, link.b_device):
            if end.startswith(("leaf-", "spine-")):
                assert end.split("-")[1] == link.plane.lower(), link
    per_plane = {p: sum(link.plane == p and link.tier == "node-leaf" for link in links) for p in "AB"}
    # plane A keeps all 128 nodes x 8 rails; plane B loses the second block (64 nodes) with its rail-7 leaf
    assert per_plane == {"A": 1024, "B": 1024 - 512}
    # plane A's 7 spines carry what they can, plane B's 8 all of theirs: only plane A's uplinks to the lost
    # spine are unwired
    up = {p: sum(link.plane == p and link.tier == "leaf-spine" for link in links) for p in "AB"}
    assert up["B"] == 8 * 64 and up["A"] < 16 * 64
    assert a.fabric.unwired_links.node_leaf == 512
    codes = {f.code for f in a.findings}
    assert "fabric-too-few-switches" in codes


def test_settings_refuse_a_fractional_or_infiniband_second_plane():
    for bad in (2.0, 1.0, True):
        with pytest.raises(SettingsError, match="fabric_planes must be 1 or 2"):
            settings_from_json({"fabric_technology": "spectrum-x", "fabric_planes": bad})
    with pytest.raises(SettingsError, match="fabric_planes must be 1 on an InfiniBand fabric"):
        settings_from_json({"fabric_planes": 2})


def test_ethernet_leaves_in_an_infiniband_design_are_an_error_too(catalog):
    g = generate(SuperpodSpec(system="dgx-b300", sus=1, fabric="spectrum-x"), catalog)
    a = analyze(g.project.with_settings(Settings()), catalog)
    found = [f for f in a.findings if f.code == "fabric-technology-mismatch"]
    assert len(found) == 1 and "places Ethernet fabric switches" in found[0].message
    assert "24 NVIDIA Spectrum-4 SN5610" in found[0].message
