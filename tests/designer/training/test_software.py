"""Software profiles and their knobs: from the CLI, the project's workload and the engine."""
from __future__ import annotations

import json

import numpy as np
import pytest

from designer.cli import main
from designer.training import Plan, Training, TrainingError, cluster_from_system, estimate, preset, training_section
from designer.training.comm import LL128_BW, RING_BASE_US, RING_HOP_NET_US, RING_HOP_NVLINK_US, bandwidths, ring
from designer.training.efficiency import generation, moe_load_factor, straggler_factor, tile_utilisation
from designer.training.software import DEFAULT_PROFILE, PROFILES, profile


def _train(capsys, *flags):
    assert main(["train", "--system", "dgx-a100", "--gpus", "64", "--model", "gpt3-175b", "--tp", "8", "--pp", "8",
                 "--global-batch", "64", *flags, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_echoes_the_profile_and_every_knob(capsys):
    doc = _train(capsys)
    sw = doc["software"]
    assert sw["name"] == DEFAULT_PROFILE == "nemo-2024"
    assert set(sw) >= {"attention", "tp_overlap", "dp_overlap", "pp_overlap", "dp_impl", "grad_comm_bytes",
                       "recompute_modes", "fp8", "fused_kernels", "context_parallel", "default_zero"}
    assert doc["chosen"]["recompute"].startswith(doc["recompute"])


def test_older_software_is_slower_on_the_same_plan(capsys):
    new = _train(capsys)
    old = _train(capsys, "--software", "megatron-2022", "--recompute", "selective")
    older = _train(capsys, "--software", "MEGATRON-2021", "--recompute", "full")
    assert old["software"]["attention"] == "unfused" and not old["software"]["tp_overlap"]
    assert older["tokens_per_s"] < old["tokens_per_s"] < new["tokens_per_s"]


def test_a_flag_beside_a_profile_overrides_it(capsys):
    doc = _train(capsys, "--software", "megatron-2022", "--attention", "flash2", "--tp-overlap")
    assert doc["software"]["name"] == "megatron-2022"
    assert doc["software"]["attention"] == "flash2" and doc["software"]["tp_overlap"] is True
    doc = _train(capsys, "--no-dp-overlap", "--grad-comm-bytes", "4")
    assert doc["software"]["dp_overlap"] is False and doc["software"]["grad_comm_bytes"] == 4


@pytest.mark.parametrize(("flags", "message"), [
    (["--software", "megatron-2030"], "unknown software profile 'megatron-2030'; known: megatron-2021"),
    (["--software", "megatron-2022", "--precision", "fp8"], "has no FP8 training"),
    (["--software", "megatron-2021", "--recompute", "selective"], "does not offer that recompute mode"),
    (["--software", "megatron-2022", "--cp", "2"], "CP without a framework"),
])
def test_profile_errors_are_one_line(capsys, flags, message):
    code = main(["train", "--system", "dgx-h100", "--gpus", "64", "--model", "llama3-8b", *flags, "--json"])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_workload_takes_software_and_knobs(catalog):
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    settings = type("S", (), {"pue": 1.25})()
    # TP 4: megatron-2022 keeps whole optimizer states on every GPU (no ZeRO), so TP 1 would not fit and run
    base = {"model": "llama3-8b", "global_batch": 64, "tp": 4, "pp": 1}
    new, _ = training_section(cluster, settings, base)
    old, _ = training_section(cluster, settings, {**base, "software": "megatron-2022", "fused_kernels": "false"})
    assert new["software"]["name"] == "nemo-2024" and old["software"]["name"] == "megatron-2022"
    assert new["fits"] and old["fits"]
    assert old["software"]["fused_kernels"] is False and old["tokens_per_s"] < new["tokens_per_s"]
    bad, findings = training_section(cluster, settings, {**base, "software": "nosuch"})
    assert bad["status"] == "error" and findings[0].code == "training-workload"
    bad, findings = training_section(cluster, settings, {**base, "dp_overlap": "sometimes"})
    assert "must be true or false" in bad["error"]


def test_profiles_are_what_their_era_ran():
    assert {"megatron-2021", "megatron-2022", "deepspeed-2021", "nemo-2024", "fsdp-2024"} <= set(PROFILES)
    assert profile("megatron-2021").recompute_modes == ("none", "full")
    assert profile("deepspeed-2021").dp_impl == "deepspeed" and profile("fsdp-2024").default_zero == 3
    assert not profile("fsdp-2024").fused_kernels and profile("fsdp-2024", fused_kernels=True).fused_kernels
    with pytest.raises(TrainingError, match="whole number"):
        profile("nemo-2024", grad_comm_bytes="four")


# -- the physics pieces, by hand ------------------------------------------------------
def test_ring_is_nccl_cost_model(catalog):
    cl = cluster_from_system(catalog, "dgx-h100", 64)
    nvl, ib = bandwidths(cl, generation(cl.generation))
    size = 1e9
    t = float(ring(size, 8, 1, cl, nvl, ib, "ar"))
    moved = 2 * size * 7 / 8 / nvl
    simple = (RING_BASE_US["simple"] + 14 * RING_HOP_NVLINK_US["simple"]) * 1e-6 + moved
    assert t == pytest.approx(simple)  # a gigabyte: the Simple protocol's bandwidth wins
    small = float(ring(64e3, 8, 1, cl, nvl, ib, "ag"))
    ll128 = (RING_BASE_US["ll128"] + 7 * RING_HOP_NVLINK_US["ll128"]) * 1e-6 + 64e3 * 7 / 8 / nvl / LL128_BW
    assert small == pytest.approx(ll128)  # 64 kB: latency-bound, LL128
    # across 8 nodes each ring leaves a node through its own NIC: 8 NICs' worth of bus bandwidth
    wide = float(ring(size, 64, 1, cl, nvl, ib, "ag"))
    lat = (RING_BASE_US["simple"] + 56 * RING_HOP_NVLINK_US["simple"] + 7 * RING_HOP_NET_US["simple"]) * 1e-6
    assert wide == pytest.approx(lat + size * 63 / 64 / min(nvl, 8 * ib))
    # with one member per node (TP 8 apart) the same bytes go through one NIC
    assert float(ring(size, 8, 8, cl, nvl, ib, "ag")) > 5 * float(ring(size, 8, 1, cl, nvl, ib, "ag"))


def test_tile_quantisation():
    assert float(tile_utilisation(256 * 132, 256, 1, 132)) == pytest.approx(1.0)
    assert float(tile_utilisation(129, 128, 1, 132)) < 0.01  # one partly filled tile, 131 SMs idle
    assert float(tile_utilisation(2048, 1280, 1, 132)) < 0.65  # 160 tiles on 132 SMs: a second, nearly empty wave


def test_moe_and_straggler_factors():
    assert float(moe_load_factor(1e6, 8)) < 1.01 < float(moe_load_factor(1e3, 64))
    hopper = generation("hopper")
    assert float(straggler_factor(hopper, 1)) == 1.0
    assert 1.0 < float(straggler_factor(hopper, 64)) < float(straggler_factor(hopper, 16384)) < 1.06
    assert float(straggler_factor(generation("blackwell"), 64)) > float(straggler_factor(hopper, 64))


def test_zero_stages_move_what_they_should(catalog):
    """ZeRO-1 reduces once a step, ZeRO-2 every micro-batch, ZeRO-3 also re-gathers the weights."""
    cl = cluster_from_system(catalog, "dgx-h100", 256)
    m = preset("llama3-8b")
    t = Training(global_batch=1024)
    dp = {z: estimate(m, t, Plan(dp=256, zero=z, recompute="full", micro_batch=1), cl).exposed_comm_s["dp"]
          for z in (1, 2, 3)}
    assert dp[1] < dp[2] < dp[3]
    hsdp = estimate(m, t, Plan(dp=256, zero=3, recompute="full", hybrid_shard=True), cl)
    assert hsdp.exposed_comm_s["dp"] < dp[3] and hsdp.plan.hybrid_shard
    assert hsdp.memory_breakdown_gb["optimizer"] > estimate(m, t, Plan(dp=256, zero=3, recompute="full"),
                                                            cl).memory_breakdown_gb["optimizer"]
    assert np.isfinite(hsdp.step_time_s)


# -- what a cold review found ------------------------------------------------------------
def test_search_and_estimate_agree_on_every_tp_of_an_nvl72(catalog):
    """Layer times are shared between plans with the same layer shape, never across TPs."""
    from designer.training.plan import plan_at
    from designer.training.search import search_plans

    cl = cluster_from_system(catalog, "gb200-nvl72", 576)
    m, t = preset("llama3-405b"), Training(global_batch=576)
    out = search_plans(m, t, cl, dp=9, pp=1, cp=1, top=20)
    for i in out["ranked"]:
        est = estimate(m, t, plan_at(out["cols"], i), cl, allow_idle=True)
        assert est.tokens_per_s == pytest.approx(out["result"]["tokens_per_s"][i], rel=1e-4)


def test_odd_sequences_search_without_context_parallelism(capsys):
    assert main(["train", "--system", "dgx-h100", "--gpus", "64", "--model", "llama3-8b", "--seq", "4097",
                 "--search", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cp"] == 1


@pytest.mark.parametrize(("flags", "message"), [
    (["--cp", "3", "--search"], "not divisible by 2·CP = 6"),
    (["--gpus", "8", "--hybrid-shard", "--search"], "wider than one NVLink domain"),
    (["--hybrid-shard", "--zero", "0", "--search"], "needs ZeRO 1 or more"),
])
def test_a_search_that_finds_nothing_names_the_rule(capsys, flags, message):
    argv = ["train", "--system", "dgx-h100", "--gpus", "64", "--model", "llama3-8b", *flags]
    if "--gpus" in flags:
        argv = ["train", "--system", "dgx-h100", "--model", "llama3-8b", *flags]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("gpus", [24, 40, 72, 1000])
def test_the_default_batch_divides_the_default_plan(capsys, gpus):
    assert main(["train", "--system", "dgx-h100", "--gpus", str(gpus), "--model", "llama3-8b", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["global_batch"] % doc["dp"] == 0 and doc["dp"] * doc["tp"] == gpus


@pytest.mark.parametrize(("workload", "message"), [
    ({"tp": "8.5"}, "workload tp must be a whole number"),
    ({"tp": "abc"}, "workload tp must be a whole number"),
    ({"dp": "x"}, "workload dp must be a whole number"),
    ({"zero": 7}, "workload zero must be 0–3"),
    ({"micro_batch": 0}, "at least 1"),
    ({"tp": float("nan")}, "whole number"),
    ({"tp": [8]}, "whole number"),
    ({"global_batch": True}, "whole number"),
    ({"hybrid_shard": "perhaps", "tp": 1}, "must be true or false"),
    ({"recompute": "sometimes", "tp": 1}, "workload recompute must be one of"),
])
def test_a_bad_workload_is_a_finding_never_a_traceback(catalog, workload, message):
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    settings = type("S", (), {"pue": 1.25})()
    section, findings = training_section(cluster, settings, {"model": "llama3-8b", **workload})
    assert section["status"] == "error" and message in section["error"]
    assert findings and findings[0].code == "training-workload"


def test_workload_flags_read_as_people_write_them(catalog):
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    settings = type("S", (), {"pue": 1.25})()
    base = {"model": "llama3-8b", "global_batch": 64, "tp": "8", "zero": "1"}
    section, _ = training_section(cluster, settings, {**base, "hybrid_shard": "no", "sequence_parallel": "false"})
    assert section["tp"] == 8 and section["hybrid_shard"] is False and section["sequence_parallel"] is False
    section, _ = training_section(cluster, settings, {**base, "search": "no"})
    assert section["tp"] == 8 and "search" not in section


def test_full_recompute_repeats_ring_attention_too(catalog):
    cl = cluster_from_system(catalog, "dgx-h100", 64)
    m, t = preset("llama3-70b"), Training(global_batch=64)
    none = estimate(m, t, Plan(tp=8, cp=2, pp=4, recompute="none", virtual_stages=1), cl)
    full = estimate(m, t, Plan(tp=8, cp=2, pp=4, recompute="full", virtual_stages=1), cl)
    assert full.exposed_comm_s["cp"] > 1.3 * none.exposed_comm_s["cp"] > 0


def test_fp8_current_scaling_costs_an_amax_pass_and_deepspeed_gathers_after_the_step(catalog):
    cl = cluster_from_system(catalog, "dgx-h100", 64)
    m = preset("llama3-8b")
    plan = Plan(dp=64, recompute="full")  # no recompute does not fit 80 GB, and a plan that does not fit never runs
    delayed = estimate(m, Training(global_batch=128, precision="fp8", software=profile("nemo-2024")), plan, cl)
    current = estimate(m, Training(global_batch=128, precision="fp8", software=profile("nemo-2024", fp8="dynamic")),
                       plan, cl)
    assert current.step_time_s > delayed.step_time_s
    z2 = Plan(dp=64, recompute="full", zero=2)
    mega = estimate(m, Training(global_batch=128, software=profile("nemo-2024")), z2, cl)
    ds = estimate(m, Training(global_batch=128, software=profile("nemo-2024", dp_impl="deepspeed")), z2, cl)
    assert ds.exposed_comm_s["dp"] > mega.exposed_comm_s["dp"]


def test_a_short_run_takes_the_floor_and_says_so():
    from designer.training.batch import default_global_batch

    gbs, why = default_global_batch(preset("llama3-8b"), 4096, 8, 1e9)
    assert gbs * 8192 >= 4 * 2**20 and "4M-token floor" in why
