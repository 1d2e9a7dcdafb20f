"""An oversubscription above the pod (down:up at the spines of a three-tier tree), as Meta's RoCE clusters have.

hardware-2026.md §5.4: Meta's 24K H100 cluster is a three-layer Clos whose pods have full bisection and whose
aggregation layer joins eight pods at 1:7. The counts below are worked by hand from the sizing rules.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from designer.cli import fabric as cli
from designer.fabric import FabricError, size_fat_tree
from designer.fabric.sizing import ROCE_NOTE, limits
from designer.fabric.topology import all_tiers
from designer.settings import Settings, SettingsError, settings_from_json

from .test_fabric_cli import parse


@pytest.fixture(scope="module")
def sn5600(catalog):
    return catalog.get("sn5600")


def meta_like(switch, core: float = 7.0):
    """24,576 H100 ports (3,072 DGX H100 x 8 rails of 400G) on SN5600 run as 128 x 400G, three tiers."""
    return size_fat_tree(24_576, switch, rails=8, su_nodes=32, tiers=3, node_port_gbps=400,
                         core_oversubscription=core, technology="roce")


def test_meta_like_24k_cluster_at_1_to_7_above_the_pod(sn5600):
    t = meta_like(sn5600)
    # SN5600: 64 x 800G, each cage split in two: k = 128 ports of 400G.
    assert (t.radix, t.port_gbps) == (128, 400)
    # Leaf 1:1: 64 down, 64 up. 3,072 nodes / 64 slots = 48 blocks of 8 rail leaves = 384 leaves.
    assert (t.leaf_down, t.leaf_up, t.nodes, t.leaf) == (64, 64, 3072, 384)
    # Spine at 7:1: up = ceil(128 / (1 + 7)) = 16, down = 128 - 16 = 112.
    assert (t.spine_down, t.radix - t.spine_down) == (112, 16)
    # A pod holds 112 // 8 = 14 blocks = 112 leaves (896 nodes, 7,168 GPUs); 48 blocks -> ceil(48 / 14) = 4 pods,
    # the last of 48 - 3 x 14 = 6 blocks = 48 leaves.
    assert (t.pods, t.pod_leaves, t.last_pod_leaves) == (4, 112, 48)
    # Spines of a full pod: smallest divisor of the 64 uplinks >= 112 x 64 / 112 = 64 -> 64 spines with one link
    # from each leaf (112 down) and ceil(112 / 7) = 16 up.
    assert (t.pod_spines, t.spine_downlinks_of_pod(0), t.spine_uplinks_of_pod(0)) == (64, 112, 16)
    # The last pod: smallest divisor of 64 >= ceil(48 x 64 / 112) = 28 -> 32 spines, each 48 x 64 / 32 = 96 down
    # and ceil(96 / 7) = ceil(13.7) = 14 up.
    assert (t.last_pod_spines, t.spine_downlinks_of_pod(3), t.spine_uplinks_of_pod(3)) == (32, 96, 14)
    # 3 x 64 + 32 = 224 spines; 3 x 64 x 16 + 32 x 14 = 3,072 + 448 = 3,520 spine-core links.
    assert t.spine == 224
    assert t.links_spine_core == 3_520
    # Core group: each spine's 16 uplinks on one core (4 pods x 16 = 64 <= 128 ports), so 64 spine positions;
    # a core's 128 ports hold two positions' 64 each -> 64 / 2 = 32 cores, 3,520 of their 4,096 ports used.
    assert (t.core_group, t.core_ports_per_pod, t.core_share, t.core) == (1, 16, 2, 32)
    assert int(t.core_ports_used().sum()) == 3_520
    # 384 + 224 + 32 = 640 switches.
    assert t.switches == 640
    # Bisection (one direction): across pods 3,520 x 400G / 2 = 704 Tb/s; within a full pod 7,168 x 400G / 2 =
    # 1,433.6 Tb/s; non-blocking it would be 24,576 x 400G / 2 = 4,915.2 Tb/s.
    b = t.bisection()
    assert b == {"across_pods_tbps": 704.0, "within_pod_tbps": 1433.6, "pod_endpoints": 7168,
                 "oversubscription_across_pods": 7.0}
    # The largest three-tier tree: 128 pods of 14 blocks x 8 rails x 64 ports = 917,504 endpoints.
    assert t.max_endpoints == 128 * 14 * 8 * 64 == limits(128, 8, 64, 7.0)[3]


def test_the_same_cluster_non_blocking_above_the_pod(sn5600):
    t = meta_like(sn5600, 1.0)
    # Spine 1:1: 64 down; pods of 64 // 8 = 8 blocks (64 leaves), 48 / 8 = 6 pods of 64 spines, 64 uplinks each.
    assert (t.pods, t.pod_leaves, t.pod_spines, t.spine_down) == (6, 64, 64, 64)
    # Core group: smallest divisor of 64 >= ceil(6 x 64 / 128) = 3 -> 4 cores per position, 16 ports per pod:
    # 64 x 4 = 256 cores; every leaf uplink goes on up.
    assert (t.spine, t.core_group, t.core, t.core_share) == (384, 4, 256, 1)
    assert t.links_spine_core == t.links_leaf_spine == 24_576
    # 1,024 switches at 1:1 against 640 at 7:1
    assert t.switches == 1024 and meta_like(sn5600).switches == 640
    assert t.bisection()["across_pods_tbps"] == 4915.2


def test_llama_4_ratio_rounds_toward_less_oversubscription(sn5600):
    # 1:2.8 (Llama 4): spine up = ceil(128 / 3.8) = 34, down 94 -> pods of 94 // 8 = 11 blocks (88 leaves),
    # 5 pods; 64 spines of a full pod take 88 links each and send ceil(88 / 2.8) = ceil(31.4) = 32 up: 88/32 = 2.75.
    t = meta_like(sn5600, 2.8)
    assert (t.spine_down, t.pods, t.pod_leaves, t.spine_uplinks_of_pod(0)) == (94, 5, 88, 32)
    assert t.actual_core_oversubscription == 2.75
    assert t.to_json()["core_oversubscription"] == 2.75
    assert t.to_json()["core_oversubscription_requested"] == 2.8


@pytest.mark.parametrize("switch, gbps", [("sn5600", 400), ("qm9700", 400), ("q3400", 800)])
@pytest.mark.parametrize("endpoints", [16_384, 24_576, 40_000, 65_536])
@pytest.mark.parametrize("core", [1.0, 1.5, 2.8, 7.0, 15.0])
def test_wiring_lands_every_link_on_its_own_port(catalog, switch, gbps, endpoints, core):
    """The wiring plan matches the counts: each spine and core port carries at most one link, the links per
    switch are the ports the sizing counts, and no uplink leaves a spine through a leaf-facing port."""
    t = size_fat_tree(endpoints, catalog.get(switch), tiers=3, node_port_gbps=gbps, core_oversubscription=core)
    _, ls, sc = all_tiers(t)
    assert len(sc) == t.links_spine_core
    spine_ports = np.concatenate([ls.b_index * 1000 + ls.b_port, sc.a_index * 1000 + sc.a_port])
    assert len(np.unique(spine_ports)) == len(spine_ports)
    assert (ls.b_port < t.spine_down).all() and (sc.a_port >= t.spine_down).all() and (sc.a_port < t.radix).all()
    core_ports = sc.b_index * 1000 + sc.b_port
    assert len(np.unique(core_ports)) == len(core_ports)
    assert (sc.b_port < t.radix).all() and (sc.b_index < t.core).all()
    assert (np.bincount(sc.b_index, minlength=t.core) == t.core_ports_used()).all()
    assert (np.bincount(np.concatenate([ls.b_index, sc.a_index]), minlength=t.spine) == t.spine_ports_used()).all()
    if core > 1:  # fewer spine uplinks, never more oversubscribed than asked
        assert t.links_spine_core < t.links_leaf_spine
        assert t.actual_core_oversubscription <= core + 1e-9


def test_at_one_nothing_changes(catalog, sn5600):
    """At 1 (the default) the tree, its document and the settings file are what they were."""
    for switch, endpoints in (("qm9700", 1024), ("qm9700", 16_384), ("q3400", 40_000), ("sn5600", 24_576)):
        sw = catalog.get(switch)
        t = size_fat_tree(endpoints, sw, tiers="auto")
        assert t == size_fat_tree(endpoints, sw, tiers="auto", core_oversubscription=1.0)
        doc = t.to_json()
        for key in ("core_oversubscription", "core_oversubscription_requested", "spine_ports", "bisection"):
            assert key not in doc
        if t.tiers == 3:
            assert (t.spine_down, t.core_share, t.links_spine_core) == (t.radix // 2, 1, t.links_leaf_spine)
    assert "fabric_core_oversubscription" not in Settings().to_json()
    assert Settings(fabric_core_oversubscription=7).to_json()["fabric_core_oversubscription"] == 7
    assert settings_from_json({"fabric_core_oversubscription": 7}).fabric_core_oversubscription == 7


@pytest.mark.parametrize("bad", [0.5, 0, 65, math.nan, math.inf, True, "7"])
def test_bad_core_oversubscription(sn5600, bad):
    with pytest.raises(FabricError, match="core oversubscription"):
        size_fat_tree(24_576, sn5600, tiers=3, core_oversubscription=bad)
    with pytest.raises(SettingsError, match="fabric_core_oversubscription"):
        settings_from_json({"fabric_core_oversubscription": bad})


def test_two_tiers_take_no_part_in_it(catalog):
    # Table 4's 4 SU: 2 tiers, nothing above the pod; the ratio is kept, the counts are the 1:1 ones
    qm = catalog.get("qm9700")
    t = size_fat_tree(1024, qm, reserved_ports=4, core_oversubscription=7)
    assert (t.tiers, t.leaf, t.spine, t.core) == (2, 32, 16, 0)
    assert t.to_json()["bisection"]["across_pods_tbps"] == t.to_json()["bisection"]["within_pod_tbps"]


def test_roce_tree_says_its_leaves_are_rail_optimized(sn5600):
    assert ROCE_NOTE in meta_like(sn5600).to_json()["notes"]
    assert "rail-optimized" in ROCE_NOTE and "top-of-rack" in ROCE_NOTE
    assert ROCE_NOTE not in size_fat_tree(24_576, sn5600, tiers=3).to_json()["notes"]


def test_fabric_cli_flag(catalog, capsys):
    args = parse("--endpoints", "24576", "--switch", "sn5600", "--node-port-gbps", "400", "--tiers", "3",
                 "--core-oversubscription", "7", "--json")
    assert cli.run(args, catalog) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["leaf"], doc["spine"], doc["core"]) == (384, 224, 32)
    assert doc["links"] == {"node_leaf": 24_576, "leaf_spine": 24_576, "spine_core": 3_520}
    assert doc["core_oversubscription"] == 7.0 and doc["spine_ports"] == {"down": 112, "up": 16}
    assert doc["bisection"]["across_pods_tbps"] == 704.0
    # the default leaves the document as it was
    assert cli.run(parse("--endpoints", "24576", "--switch", "sn5600", "--node-port-gbps", "400", "--json"),
                   catalog) == 0
    assert "core_oversubscription" not in json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("value", ["0.5", "nan", "65", "-7"])
def test_fabric_cli_bad_flag_is_one_line_naming_it(catalog, value):
    with pytest.raises(FabricError) as info:
        cli.run(parse("--endpoints", "256", "--core-oversubscription", value), catalog)
    text = str(info.value)
    assert "\n" not in text and text.startswith("podplanner fabric: --core-oversubscription")


@pytest.mark.parametrize("value", ["abc", "0.5"])
def test_fabric_cli_bad_flag_exits_2(capsys, value):
    from designer.cli import main

    assert main(["fabric", "--endpoints", "256", "--core-oversubscription", value]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--core-oversubscription" in err


def test_fabric_cli_text_states_the_bisection_above_the_pod(catalog, capsys):
    assert cli.run(parse("--endpoints", "24576", "--switch", "sn5600", "--node-port-gbps", "400", "--tiers", "3",
                         "--core-oversubscription", "7"), catalog) == 0
    out = capsys.readouterr().out
    assert "above the pod: spines 7:1 (112 ports down, 16 up); bisection 704 Tb/s across pods, 1,433.6 Tb/s " \
           "within a pod of 7,168 endpoints" in out
