"""Training over Ethernet: the per-technology network model (designer/fabric/technology.py), the bandwidth
section and the training estimate on it, the plane-lost scenario of a twin-plane fabric, and the train
command's --fabric and --planes. Pure: no Qt."""
from __future__ import annotations

import json
import math

from dataclasses import replace

import pytest

from designer.analysis import analyze
from designer.cli import main
from designer.fabric import bandwidth_figures
from designer.fabric.collectives import ALPHA_NETWORK_S
from designer.fabric.technology import (EVIDENCE, ROCE_FRAMING_RATIO, TECHNOLOGIES, TECHNOLOGY_NAMES,
                                        ecmp_efficiency, path_hops, relative_to_infiniband, technology)
from designer.generate.build import generate
from designer.generate.spec import SuperpodSpec
from designer.training.errors import TrainingError
from designer.training.estimate import estimate
from designer.training.hardware import cluster_from_system, with_plane_lost
from designer.training.models import preset
from designer.training.plan import Plan, Training
from designer.training.section import plane_lost
from designer.settings import FABRIC_TECHNOLOGIES


@pytest.fixture(autouse=True)
def _no_user_catalog(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    monkeypatch.delenv("PODPLANNER_CATALOG", raising=False)


# --- the figures ---------------------------------------------------------------------------------------------

def test_every_settings_technology_has_figures_with_source_and_evidence():
    assert set(TECHNOLOGY_NAMES) == set(FABRIC_TECHNOLOGIES) == set(TECHNOLOGIES)
    for tech in TECHNOLOGIES.values():
        doc = tech.to_json()
        for fig in [*doc["figures"].values(), *doc["claims"]]:
            assert fig["evidence"] in EVIDENCE and len(fig["source"]) > 20, fig


def test_infiniband_link_efficiency_is_the_nccl_maintainers_46_to_48_of_50_gbs():
    ib = technology("infiniband")
    assert ib.link_efficiency.value == pytest.approx(0.94)
    assert 46 / 50 <= ib.link_efficiency.value <= 48 / 50
    assert ib.link_efficiency.evidence == "published" and "nccl-tests issue #290" in ib.link_efficiency.source
    assert technology(None) is ib and technology(" InfiniBand ") is ib


def test_roce_link_efficiency_is_infinibands_times_the_framing_arithmetic():
    # 4096-byte MTU: RoCEv2 82 bytes of framing a packet, InfiniBand 26
    ratio = ROCE_FRAMING_RATIO
    assert ratio == pytest.approx((4096 / 4178) / (4096 / 4122))
    assert ratio == pytest.approx(0.9866, abs=1e-4)
    # and the payload share matches perftest's 392 of 400 Gb/s on ConnectX-7 RoCE
    payload = 4096 / 4178
    assert payload == pytest.approx(392 / 400, abs=0.002)
    for name in ("spectrum-x", "roce"):
        assert technology(name).link_efficiency.value == pytest.approx(0.94 * ROCE_FRAMING_RATIO, abs=1e-4)
        assert technology(name).link_efficiency.evidence == "derived"


def test_ecmp_is_balls_in_bins_and_adaptive_routing_is_not():
    assert ecmp_efficiency(1) == pytest.approx(1 - 1 / math.e)
    assert ecmp_efficiency(2) == pytest.approx((1 * 2 * math.exp(-2) + 2 * (1 - 3 * math.exp(-2))) / 2)
    values = [ecmp_efficiency(q) for q in (1, 2, 4, 8, 64)]
    assert values == sorted(values) and values[-1] < 1 and values[-1] > 0.95
    with pytest.raises(ValueError):
        ecmp_efficiency(0)
    assert technology("infiniband").load_balance == technology("spectrum-x").load_balance == 1.0
    roce = technology("roce")
    assert roce.routing == "ecmp" and roce.load_balance == pytest.approx(0.632, abs=1e-3)
    # within a leaf no hash is taken; each tier crossed upwards hashes once
    assert roce.efficiency(False) == roce.link_efficiency.value
    assert roce.efficiency(True, 2) == pytest.approx(roce.link_efficiency.value * 0.6321, abs=1e-4)
    assert roce.efficiency(True, 3) == pytest.approx(roce.link_efficiency.value * 0.6321 ** 2, abs=1e-4)


def test_vendor_claims_are_marked_and_not_inputs():
    spx, roce = technology("spectrum-x"), technology("roce")
    (claim,) = spx.claims
    assert claim.evidence == "vendor-claim" and claim.value == 0.95
    assert [c.evidence for c in roce.claims] == ["vendor-claim", "secondary"]
    # the model lands near the claims without using them: 92.7 % vs 58.6 % of line rate beyond a leaf
    assert spx.efficiency(True) != 0.95 and abs(spx.efficiency(True) - 0.95) < 0.03
    assert roce.efficiency(True) != 0.60 and abs(roce.efficiency(True) - 0.60) < 0.03
    assert technology("infiniband").claims == ()


def test_latency_per_hop_is_added_over_ncclls_infiniband_calibration():
    assert path_hops(1) == 1 and path_hops(2) == 3 and path_hops(3) == 5
    assert technology("infiniband").extra_hop_latency_us(5) == 0.0
    eth = technology("spectrum-x")
    assert eth.switch_latency_us.evidence == "unconfirmed"
    assert eth.extra_hop_latency_us(3) == pytest.approx(3 * (0.6 - 0.15))
    assert eth.extra_hop_latency_us(5) > eth.extra_hop_latency_us(3) > eth.extra_hop_latency_us(1) > 0


def test_unknown_technology_is_refused():
    with pytest.raises(ValueError, match="known: infiniband, spectrum-x, roce"):
        technology("omni-path")
    assert relative_to_infiniband("infiniband", True) == 1.0
    assert relative_to_infiniband("roce", True) < relative_to_infiniband("spectrum-x", True) < 1.0


# --- the bandwidth figures --------------------------------------------------------------------------------------

def _figures(tech, **kw):
    return bandwidth_figures(gpus=2048, gpus_per_node=8, rails=16, port_gbps=400, nvlink_gbs=1800, domain=8,
                             leaf_down=64, technology=tech, planes=2, **kw)


def test_bandwidth_without_technology_keeps_peak_rates():
    peak = bandwidth_figures(gpus=2048, gpus_per_node=8, rails=16, port_gbps=400, nvlink_gbs=1800, domain=8,
                             leaf_down=64)
    assert "technology" not in peak and "scale_out_effective_gbs" not in peak["per_gpu"]
    assert peak["collective_assumptions"]["alpha_network_us"] == ALPHA_NETWORK_S * 1e6


def test_bandwidth_per_technology():
    ib, spx, roce = (_figures(t) for t in ("infiniband", "spectrum-x", "roce"))
    assert ib["per_gpu"]["scale_out_gbs"] == spx["per_gpu"]["scale_out_gbs"] == 100.0  # same ports, same peak
    assert ib["per_gpu"]["scale_out_effective_gbs_beyond_leaf"] == 94.0
    assert spx["per_gpu"]["scale_out_effective_gbs_beyond_leaf"] == pytest.approx(92.74, abs=0.01)
    assert roce["per_gpu"]["scale_out_effective_gbs"] == spx["per_gpu"]["scale_out_effective_gbs"]
    assert roce["per_gpu"]["scale_out_effective_gbs_beyond_leaf"] == pytest.approx(58.62, abs=0.01)
    assert spx["technology"]["planes"] == 2 and spx["technology"]["name"] == "spectrum-x"
    assert ib["collective_assumptions"]["alpha_network_us"] == pytest.approx(4.0)
    assert spx["collective_assumptions"]["alpha_network_us"] == pytest.approx(4.0 + 1.35)
    for op in ("all_reduce_ring", "all_reduce_hierarchical", "reduce_scatter", "all_gather", "all_to_all"):
        t = [d["collectives"]["all_gpus"][op]["time_ms"] for d in (ib, spx, roce)]
        assert t[0] < t[1] < t[2], (op, t)
    # inside one NVLink domain the network plays no part
    assert ib["collectives"]["one_nvlink_domain"] == roce["collectives"]["one_nvlink_domain"]


# --- the training estimate on each technology --------------------------------------------------------------------

def _exposed_run(catalog, fabric, planes=1):
    """Llama 3 70B on 2,048 B300 with a ZeRO-3 plan whose data-parallel traffic is partly exposed."""
    cluster = cluster_from_system(catalog, "dgx-b300", 2048, fabric=fabric, planes=planes)
    model = preset("llama3-70b")
    training = Training(global_batch=512)
    return estimate(model, training, Plan(tp=8, dp=256, zero=3, micro_batch=2, recompute="none"), cluster)


def test_same_cluster_ib_spectrum_x_roce_differ_where_communication_is_exposed(catalog):
    ib, spx, roce = (_exposed_run(catalog, f) for f in ("infiniband", "spectrum-x", "roce"))
    assert ib.exposed_comm_s["dp"] > 0
    assert ib.tokens_per_s > spx.tokens_per_s > roce.tokens_per_s
    assert ib.exposed_comm_s["dp"] < spx.exposed_comm_s["dp"] < roce.exposed_comm_s["dp"]
    assert ib.time_breakdown_s["compute"] == spx.time_breakdown_s["compute"] == roce.time_breakdown_s["compute"]
    assert spx.to_json()["fabric"]["bandwidth_vs_infiniband"] == pytest.approx(ROCE_FRAMING_RATIO, abs=1e-4)
    assert ib.to_json()["fabric"] == {"technology": "infiniband", "planes": 1, "scale_out_gbs_per_gpu": 100.0,
                                      "oversubscription": 1.0, "beyond_leaf": True, "bandwidth_vs_infiniband": 1.0,
                                      "network_step_latency_us": 9.6}


def test_infiniband_estimate_is_unchanged_by_the_technology_model(catalog):
    default = cluster_from_system(catalog, "dgx-b300", 2048)
    assert default.fabric == "infiniband" and default.planes == 1
    plan = Plan(tp=8, dp=256, zero=3, micro_batch=2, recompute="none")
    a = estimate(preset("llama3-70b"), Training(global_batch=512), plan, default)
    assert a.figures == _exposed_run(catalog, "infiniband").figures


def test_plane_lost_halves_the_bandwidth_and_the_job_runs_on(catalog):
    normal = _exposed_run(catalog, "spectrum-x", planes=2)
    lost = plane_lost(normal)
    assert lost["planes_up"] == 1 and lost["scale_out_gbs_per_gpu"] == 50.0
    assert 0 < lost["tokens_per_s"] < normal.tokens_per_s
    assert lost["step_time_s"] > normal.step_time_s
    assert lost["exposed_comm_s"]["dp"] > normal.exposed_comm_s["dp"]
    assert lost["relative_tokens_per_s"] == pytest.approx(lost["tokens_per_s"] / normal.tokens_per_s, abs=1e-4)
    assert lost["time_to_train_days"] > normal.time_to_train_days
    assert lost["extra_days"] == pytest.approx(lost["time_to_train_days"] - normal.time_to_train_days, abs=0.01)
    # half the bandwidth cannot cost more than the communication there is to slow down
    assert lost["step_time_s"] < 2 * normal.step_time_s
    assert plane_lost(_exposed_run(catalog, "spectrum-x", planes=1)) is None
    with pytest.raises(TrainingError, match="no plane to lose"):
        with_plane_lost(cluster_from_system(catalog, "dgx-b300", 64))


# --- a DGX B300 design of 4 scalable units, analysed ----------------------------------------------------------------

@pytest.fixture(scope="module")
def b300_designs():
    from catalog import load_catalog

    cat = load_catalog([])
    spx = generate(SuperpodSpec(system="dgx-b300", sus=4, fabric="spectrum-x"), cat, with_phases=False).project
    ib = generate(SuperpodSpec(system="dgx-b300", gpus=2048, fabric="infiniband"), cat, with_phases=False).project
    roce = spx.with_settings(spx.settings.updated(fabric_technology="roce"))  # the same Ethernet switches, ECMP
    return cat, {"infiniband": ib, "spectrum-x": spx, "roce": roce}


def test_b300_design_on_each_technology(b300_designs):
    cat, designs = b300_designs
    results = {name: analyze(p, cat) for name, p in designs.items()}
    docs = {name: r.to_json() for name, r in results.items()}
    # the typed views read the new figures
    spx = results["spectrum-x"]
    assert spx.bandwidth.technology.name == "spectrum-x" and spx.bandwidth.technology.planes == 2
    assert spx.bandwidth.per_gpu.scale_out_effective_gbs == pytest.approx(92.74, abs=0.01)
    assert spx.training.fabric.technology == "spectrum-x"
    assert spx.training.scenarios.plane_lost.scale_out_gbs_per_gpu == 50.0
    assert results["infiniband"].training.scenarios.plane_lost is None
    for name, doc in docs.items():
        assert doc["bandwidth"]["technology"]["name"] == name
        assert doc["training"]["status"] == "ok" and doc["training"]["gpus"] == 2048
        assert doc["training"]["fabric"]["technology"] == name
    tps = {name: doc["training"]["tokens_per_s"] for name, doc in docs.items()}
    assert tps["infiniband"] >= tps["spectrum-x"] > tps["roce"]
    assert tps["roce"] < 0.97 * tps["spectrum-x"]  # ECMP collisions show where DP traffic is exposed
    eff = {name: doc["bandwidth"]["per_gpu"]["scale_out_effective_gbs_beyond_leaf"] for name, doc in docs.items()}
    assert eff == {"infiniband": 94.0, "spectrum-x": pytest.approx(92.74, abs=0.01),
                   "roce": pytest.approx(58.62, abs=0.01)}
    # twin-plane designs carry the scenario; the single-plane InfiniBand one says null
    assert docs["infiniband"]["training"]["scenarios"]["plane_lost"] is None
    for name in ("spectrum-x", "roce"):
        lost = docs[name]["training"]["scenarios"]["plane_lost"]
        assert lost["scale_out_gbs_per_gpu"] == 50.0
        assert lost["tokens_per_s"] < docs[name]["training"]["tokens_per_s"]
        assert lost["step_time_s"] > docs[name]["training"]["step_time_s"]


def test_analyze_text_prints_the_plane_lost_line_only_for_two_planes(b300_designs, tmp_path, capsys):
    from designer.fileformat import save

    cat, designs = b300_designs
    for name, shown in (("infiniband", "InfiniBand"), ("spectrum-x", "Spectrum-X Ethernet")):
        path = tmp_path / f"{name}.podplan.json"
        save(designs[name], path)
        assert main(["analyze", str(path)]) == 0
        out = capsys.readouterr().out
        assert f"on {shown}\n" in out and "training" in out  # the name people read, not the id
        assert ("plane lost" in out) == (name == "spectrum-x")


# --- the train command ------------------------------------------------------------------------------------------------

TRAIN = ["train", "--system", "dgx-b300", "--gpus", "256", "--model", "llama3-8b", "--tp", "1", "--dp", "256",
         "--json"]


def _doc(capsys, *extra):
    assert main([*TRAIN, *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_train_fabric_and_planes(capsys):
    default, roce = _doc(capsys), _doc(capsys, "--fabric", "ROCE")
    assert default["fabric"]["technology"] == "infiniband" and default["fabric"]["planes"] == 1
    assert default["scenarios"] == {"plane_lost": None}
    assert roce["fabric"]["technology"] == "roce" and roce["tokens_per_s"] < default["tokens_per_s"]
    twin = _doc(capsys, "--fabric", "spectrum-x", "--planes", "2")
    lost = twin["scenarios"]["plane_lost"]
    assert lost["scale_out_gbs_per_gpu"] == twin["fabric"]["scale_out_gbs_per_gpu"] / 2
    assert lost["tokens_per_s"] < twin["tokens_per_s"]


@pytest.mark.parametrize(("args", "words"), [
    (("--fabric", "ethernet"), "argument --fabric: invalid choice: 'ethernet'"),
    (("--planes", "3"), "argument --planes: 3 is out of range (1 to 2)"),
    (("--planes", "two"), "argument --planes: 'two' is not a whole number"),
    (("--planes", "0"), "argument --planes: 0 is out of range (1 to 2)"),
])
def test_train_bad_fabric_flags_are_one_line_exit_2(capsys, args, words):
    code = main([*TRAIN, *args])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("podplanner: error: ") and words in lines[0], err


def test_cluster_refuses_an_unknown_fabric(catalog):
    cluster = cluster_from_system(catalog, "dgx-b300", 64)
    with pytest.raises(TrainingError, match="fabric must be one of"):
        replace(cluster, fabric="token-ring").validate()
    with pytest.raises(TrainingError, match="planes must be 1 or 2"):
        replace(cluster, planes=3).validate()
