"""``new superpod --fabric roce`` and ``--core-oversubscription``: a Meta-like RoCE cluster, counted by hand.

hardware-2026.md §5.4: Meta's 24K H100 RoCE cluster, a three-layer Clos, pods of full bisection joined at 1:7.
Ours is built rail-optimized on Spectrum-4 SN5600 (NVIDIA RA style), so the pods are not Meta's 3,072 GPUs.
"""
from __future__ import annotations

import json

import pytest

from designer.analysis import analyze
from designer.fabric.sizing import ROCE_NOTE
from designer.fileformat import load
from designer.generate import SuperpodSpec, generate
from designer.generate.spec import GenerateError

from ._support import run


@pytest.fixture(scope="module")
def meta(catalog):
    g = generate(SuperpodSpec(system="dgx-h100", gpus=24_576, fabric="roce", tiers="3", core_oversubscription=7),
                 catalog)
    return g, analyze(g.project, catalog)


def test_meta_like_24k_h100_roce_cluster(meta):
    g, a = meta
    # 24,576 GPUs / 8 per DGX H100 = 3,072 systems = 96 SUs of 32 (the InfiniBand RA's SU: NVIDIA publishes no
    # RoCE one). No UFM on Ethernet, so no node slot is given up for it.
    assert (g.nodes, g.sus) == (3072, 96)
    # (the storage fabric stays InfiniBand, with its own UFM, as the DGX H100's storage ports are)
    assert g.networks.ufm_compute == 0 and g.networks.compute.reserved_ports == 0
    t = g.networks.compute
    f = a.result("fabric").section
    assert (f["technology"], f["planes"], f["tiers"], f["switch"]) == ("roce", 1, 3, "sn5600")
    # SN5600 as 128 x 400G. Leaves: 3,072 nodes / 64 down-ports = 48 blocks x 8 rails = 384.
    # Spines at 7:1: 112 ports down, 16 up; pods of 112 // 8 = 14 blocks, so 4 pods (14, 14, 14, 6 blocks).
    # Full pod: 64 spines (each 112 leaf links, ceil(112 / 7) = 16 up); last pod of 48 leaves: 32 spines
    # (smallest divisor of 64 >= ceil(48 x 64 / 112) = 28), each 96 down and ceil(96 / 7) = 14 up.
    # Spines 3 x 64 + 32 = 224. Spine-core links 3 x 64 x 16 + 32 x 14 = 3,520.
    # Cores: 16 uplinks x 4 pods = 64 ports a spine position takes on one core; two positions share a
    # 128-port core: 64 / 2 = 32 cores.
    assert (f["leaf"], f["spine"], f["core"], f["pods"]) == (384, 224, 32, 4)
    assert f["links"] == {"node_leaf": 24_576, "leaf_spine": 24_576, "spine_core": 3_520}
    assert f["placed"] == {"leaf": 384, "spine": 224, "core": 32}
    assert f["wired_links"] == f["links"] and not any(f["unwired_links"].values())
    assert f["core_oversubscription"] == 7.0 and f["spine_ports"] == {"down": 112, "up": 16}
    assert ROCE_NOTE in f["notes"]
    assert (t.leaf, t.spine, t.core) == (384, 224, 32)  # the generator's plan is the analysis's tree
    # Bisection across pods: 3,520 links x 400 Gb/s / 2 = 704 Tb/s; within a pod of 896 nodes (7,168 GPUs):
    # 7,168 x 400 / 2 = 1,433.6 Tb/s. A GPU's 400G (50 GB/s) beyond its pod: 50 / 7 = 7.143 GB/s.
    b = a.result("bandwidth").section
    assert b["bisection_tbps_across_pods"] == 704.0
    assert b["bisection_tbps_within_pod"] == 1433.6
    assert b["per_gpu"]["scale_out_gbs"] == 50.0
    assert b["per_gpu"]["scale_out_gbs_beyond_pod"] == 7.143
    assert g.project.settings.fabric_core_oversubscription == 7
    assert g.project.settings.fabric_technology == "roce"
    errors = [x for x in a.findings if x.severity == "error" or x.code.startswith("fabric")]
    assert not errors, errors


def test_the_engine_reads_the_setting(meta, catalog):
    """The same floor at 1:1 above the pod needs 6 pods of 64 leaves, 384 spines and 256 cores: the 224 spines
    and 32 cores placed are too few, and the analysis says so."""
    g, _ = meta
    project = g.project.with_settings(g.project.settings.updated(fabric_core_oversubscription=1.0))
    a = analyze(project, catalog)
    f = a.result("fabric").section
    assert (f["leaf"], f["spine"], f["core"]) == (384, 384, 256)
    assert "core_oversubscription" not in f
    assert {x.code for x in a.findings} >= {"fabric-too-few-switches"}


def test_one_su_of_dgx_b200_on_roce(catalog):
    g = generate(SuperpodSpec(system="dgx-b200", sus=1, fabric="roce"), catalog)
    # 32 DGX B200 (no UFM takes a slot, unlike the InfiniBand RA's 31), 8 x 400G each: 256 ports on one block
    # of 8 rail leaves (64 down each, 32 used); spines: smallest divisor of 64 >= ceil(8 x 64 / 128) = 4.
    assert g.nodes == 32
    t = g.networks.compute
    assert (t.technology, t.planes, t.switch, t.leaf, t.spine, t.core) == ("roce", 1, "sn5600", 8, 4, 0)


def test_roce_cli_writes_the_setting_and_prints_the_fabric(capsys, tmp_path, catalog):
    out = tmp_path / "roce.podplan.json"
    code, text, err = run(capsys, "new", "superpod", "--system", "dgx-h200", "--sus", "2", "--fabric", "roce",
                          "--json", "-o", str(out))
    assert code == 0, err
    doc = json.loads(text)
    assert (doc["fabric_technology"], doc["fabric_planes"]) == ("roce", 1)
    saved = json.loads(out.read_text())
    assert saved["settings"]["fabric_technology"] == "roce"
    assert "fabric_core_oversubscription" not in saved["settings"]  # at its default: left out
    assert load(out, catalog).settings.fabric_technology == "roce"


@pytest.mark.parametrize("argv, words", [
    (("--system", "dgx-b300", "--sus", "1", "--fabric", "roce"), "--fabric roce"),
    (("--system", "gb200-nvl72", "--sus", "1", "--fabric", "roce"), "--fabric roce"),
    (("--system", "dgx-h100", "--sus", "1", "--fabric", "ethernet"), "infiniband, spectrum-x or roce"),
    (("--system", "dgx-h100", "--sus", "1", "--core-oversubscription", "0.5"), "--core-oversubscription"),
    (("--system", "dgx-h100", "--sus", "1", "--core-oversubscription", "abc"), "--core-oversubscription"),
    (("--system", "dgx-h100", "--sus", "1", "--core-oversubscription", "65"), "--core-oversubscription"),
])
def test_bad_roce_requests_are_one_line_exit_2(capsys, tmp_path, argv, words):
    code, _, err = run(capsys, "new", "superpod", *argv, "-o", str(tmp_path / "x.json"))
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and words in err, err


def test_roce_spec_errors_name_the_fabric(catalog):
    with pytest.raises(GenerateError, match="dgx-h100, dgx-h200, dgx-b200"):
        generate(SuperpodSpec(system="dgx-b300-dc", sus=1, fabric="roce"), catalog)


def test_description_states_the_ratio_above_the_pod(meta):
    g, _ = meta
    assert "RoCE Ethernet, 3 tiers, 8 rails, 7:1 above the pod" in g.project.description
    assert "super-spine" in g.project.description


def test_a_phased_build_moves_no_switch_cable(catalog):
    """In three phases of 32 SUs the cores are placed for the whole build (32) and every spine-core cable of an
    earlier phase stays where it is: spine position j keeps its half of core j // 2 (ports 0-63 or 64-127), each
    pod its 16 ports within it, however many pods there are yet."""
    g = generate(SuperpodSpec(system="dgx-h100", gpus=24_576, fabric="roce", tiers="3", core_oversubscription=7,
                              phase_sus=32, hall_power_kw=60_000), catalog)  # phases are built in one hall
    earlier: set = set()
    for phase in g.phases:
        fabric = analyze(phase, catalog).result("fabric")
        assert fabric.section["core"] == 32 and not any(fabric.section["unwired_links"].values())
        cables = {(x.a_device, x.a_port, x.b_device, x.b_port) for x in fabric.links() if x.tier != "node-leaf"}
        assert earlier <= cables
        earlier = cables


def test_beyond_three_tiers_of_sn5600_the_error_counts_its_400g_ports(capsys, tmp_path):
    # SN5600 as 128 x 400G: 128 pods x 8 blocks x 8 rails x 64 ports = 524,288 endpoints at 1:1 above the pod
    code, _, err = run(capsys, "new", "superpod", "--system", "dgx-h100", "--fabric", "roce", "--gpus", "600000",
                       "--core-oversubscription", "1", "-o", str(tmp_path / "x.json"))
    assert code == 2 and "524,288" in err and "2 separate planes of sn5600" in err, err
