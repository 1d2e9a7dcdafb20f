"""Training engine: formulas against the reference, published rows within ±10 %, search, errors, CLI."""
from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from designer.cli.train import add_parser, run
from designer.model import MountedDevice, Project, Rack
from designer.training import (Plan, Training, TrainingError, best_plan, cluster_from_project, cluster_from_system,
                               estimate, preset, search_plans, training_section)
from designer.training.goodput import daly_interval, young_interval
from designer.training.memory import activations, model_states
from designer.training.models import ModelSpec, gpt
from designer.training.plan import columns
from designer.training.software import profile
from designer.training.validation import ROWS, compare

TRAIN_KEYS = {"step_time_s", "tokens_per_s", "tflops_per_gpu", "mfu", "memory_gb_per_gpu", "fits",
              "time_to_train_days", "tp", "pp", "dp", "cp", "ep", "micro_batch", "global_batch"}


# -- published rows ------------------------------------------------------------
@pytest.fixture(scope="module")
def comparison():
    return compare()


def test_every_reference_row_within_twelve_percent(comparison):
    reference = [r for r in comparison if r["set"] == "reference"]
    assert len(reference) == len(ROWS) + 11 >= 25  # the held-out rows that chose something (heldout.py)
    read = {r["row"] for r in ROWS}
    # the moved rows: as they were held out; DeepSeek-V3's own run: the issue's 25 % (its figure is GPU-hours
    # over the whole pre-training, batch ramp included, not a steady step)
    allowed = {"dsv3-h800": 25}
    bad = [(r["row"], r["measured"], r["predicted"], r["error_pct"]) for r in reference
           if abs(r["error_pct"]) > allowed.get(r["row"], 12 if r["row"] in read else 15)]
    assert not bad, bad
    dsv3 = next(r for r in reference if r["row"] == "dsv3-h800")
    assert 0 < dsv3["error_pct"] <= 25  # over-predicted: what the step misses, the ramp and the stops


def test_rows_cite_a_source(comparison):
    assert all(r["source"] and ("[V]" in r["source"] or "[S]" in r["source"]) for r in comparison)
    assert all(r["software"] for r in comparison)


# -- formulas --------------------------------------------------------------------
def test_parameter_counts():
    assert preset("llama3-405b").params == pytest.approx(405.85e9, rel=1e-3)
    assert preset("llama3-70b").params == pytest.approx(70.55e9, rel=1e-3)
    assert preset("llama3-8b").params == pytest.approx(8.03e9, rel=1e-3)
    mix = preset("mixtral-8x7b")
    assert mix.params == pytest.approx(46.7e9, rel=0.01) and mix.active_params == pytest.approx(12.9e9, rel=0.01)


def test_model_flops_match_korthikanti_eq7():
    m = gpt("175b", 96, 12288, 96)
    L, h, s, V = 96, 12288, 2048, 51200
    eq7 = 72 * L * h * h * (1 + s / (6 * h) + V / (12 * h * L))
    assert m.model_flops_per_token() == pytest.approx(eq7, rel=1e-9)
    # Korthikanti Table 5: 175B on 64 A100 at 13.75 s → MFU 51.4 %
    assert eq7 * 64 * 2048 / 13.75 / (64 * 312e12) == pytest.approx(0.514, abs=0.002)
    # Llama 3 405B: 430 TF/GPU ↔ 164 tok/s/GPU (reference §4)
    assert 430e12 / preset("llama3-405b").model_flops_per_token() == pytest.approx(164, abs=1)


def test_full_recompute_hardware_flops_is_narayanan_eq3():
    m = gpt("175b", 96, 12288, 96)
    L, h, s, V = 96, 12288, 2048, 51200
    eq3 = 96 * L * h * h * (1 + s / (6 * h) + V / (16 * L * h))
    assert m.hardware_flops_per_token("full") == pytest.approx(eq3, rel=1e-9)


def _cols(**kw):
    base = dict(tp=1, pp=1, dp=1, cp=1, ep=1, micro_batch=1, virtual_stages=1, recompute="none", zero=0)
    base.update(kw)
    return columns([Plan(**base)])


@pytest.mark.parametrize("tp,sp,rc,expect", [
    (1, False, "none", lambda s, b, h, a, t: s * b * h * (34 + 5 * a * s / h)),
    (8, False, "none", lambda s, b, h, a, t: s * b * h * (10 + 24 / t + 5 * a * s / (h * t))),
    (8, True, "none", lambda s, b, h, a, t: s * b * h * (34 / t + 5 * a * s / (h * t))),
    (8, False, "selective", lambda s, b, h, a, t: s * b * h * (10 + 24 / t)),
    (8, True, "selective", lambda s, b, h, a, t: 34 * s * b * h / t),
])
def test_activation_memory_is_korthikanti_table2(tp, sp, rc, expect):
    m = gpt("22b", 48, 6144, 64)
    c = _cols(tp=tp, sequence_parallel=sp, recompute=rc, pp=4, virtual_stages=1)
    per_stage = activations(m, c, np.array([8.0]), flash=False)[0]
    layers_held = 48  # first stage: p micro-batches × L/p layers
    per_layer = (per_stage - 2 * 2048 * 6144) / layers_held
    assert per_layer == pytest.approx(expect(2048, 1, 6144, 64, tp), rel=1e-9)


def test_interleaving_multiplies_first_stage_activations():
    m = gpt("175b", 96, 12288, 96)
    one = activations(m, _cols(tp=8, pp=8, recompute="selective"), np.array([64.0]), flash=False)[0]
    three = activations(m, _cols(tp=8, pp=8, recompute="selective", virtual_stages=3), np.array([64.0]), flash=False)[0]
    emb = 2 * 2048 * 12288
    assert (three - emb) / (one - emb) == pytest.approx(1 + 7 / 24, rel=1e-9)


def test_zero_stages_match_zero_paper_figure1():
    # Ψ = 7.5B on one GPU slice, N_d = 64, K = 12, 2-byte grads: 120, 31.4, 16.6, 1.9 GB
    m = ModelSpec("zero", 1, 8, 8, 1, 1, 1, 8)  # shape irrelevant: we pass Ψ through a fake layer count
    psi = 7.5e9
    got = []
    for z in range(4):
        c = _cols(dp=64, zero=z)
        w, g, o, _ = model_states(m, c, 2)
        scale = psi / _
        extra = 2 * 2 * m.layer_params if z == 3 else 0.0  # two gathered layers (tiny here)
        got.append(((w - extra) + g + o)[0] * scale / 1e9)
    assert got == pytest.approx([120.0, 31.4, 16.6, 1.875], abs=0.06)


def test_daly_and_young_unit_tests():
    assert daly_interval(300, 24 * 3600) / 60 == pytest.approx(117, abs=0.5)
    assert daly_interval(300, 6 * 3600) / 60 == pytest.approx(57, abs=0.5)
    assert daly_interval(300, 15 * 60) / 60 == pytest.approx(9.1, abs=0.1)
    assert young_interval(300, 24 * 3600) == pytest.approx(7200)


# -- estimate --------------------------------------------------------------------
@pytest.fixture(scope="module")
def h100x64(catalog):
    return cluster_from_system(catalog, "DGX-H100", 64)


def test_estimate_llama8b(h100x64):
    est = estimate(preset("llama3-8b"), Training(global_batch=128),
                   Plan(tp=1, pp=1, dp=64, micro_batch=1, recompute="full"), h100x64)
    d = est.to_json()
    assert d.keys() >= TRAIN_KEYS
    assert 0.3 < d["mfu"] < 0.7 and d["fits"] and d["tokens_per_s"] > 0
    assert d["tokens_per_s"] == pytest.approx(128 * 8192 / d["step_time_s"], rel=1e-3)
    assert set(d["exposed_comm_s"]) == {"tp", "cp", "ep", "pp", "dp"}
    assert d["goodput"]["ettr"] < 1 and d["energy"]["energy_mwh"] > 0
    json.dumps(d)


def test_bubble_shrinks_with_interleaving(catalog):
    cl = cluster_from_system(catalog, "dgx-a100", 64)
    m, t = gpt("175b", 96, 12288, 96), Training(global_batch=64, software=profile("megatron-2022"))
    a = estimate(m, t, Plan(tp=8, pp=8, dp=1, virtual_stages=1), cl)
    b = estimate(m, t, Plan(tp=8, pp=8, dp=1, virtual_stages=3), cl)
    assert b.bubble_fraction < a.bubble_fraction and b.step_time_s < a.step_time_s


def test_fp8_faster_than_bf16(h100x64):
    m = preset("llama3-70b")
    plan = Plan(tp=8, pp=1, dp=8, micro_batch=1, recompute="full")
    bf = estimate(m, Training(global_batch=64), plan, h100x64)
    f8 = estimate(m, Training(global_batch=64, precision="fp8"), plan, h100x64)
    assert 1.1 < bf.step_time_s / f8.step_time_s < 2.0


def test_b200_beats_h100_per_gpu(catalog):
    m, t = preset("llama3-70b"), Training(global_batch=256)
    h = best_plan(m, t, cluster_from_system(catalog, "dgx-h100", 256))[0]
    b = best_plan(m, t, cluster_from_system(catalog, "dgx-b200", 256))[0]
    assert 1.7 < b.tokens_per_s / h.tokens_per_s < 2.8


# -- search ----------------------------------------------------------------------
def test_search_fits_and_beats_naive(h100x64):
    est, summary = best_plan(preset("llama3-70b"), Training(global_batch=256), h100x64)
    assert est.fits and summary["valid"] > 0
    naive = summary["naive"]
    assert not naive["fits"] or naive["tokens_per_s"] < est.tokens_per_s
    ranked = summary["ranked"]
    assert ranked[0]["tokens_per_s"] >= ranked[-1]["tokens_per_s"] and all(r["why"] for r in ranked)


def test_search_respects_nvlink_domain_and_fixed_fields(h100x64):
    out = search_plans(preset("llama3-70b"), Training(global_batch=256), h100x64, pp=4)
    assert (out["cols"]["tp"] <= 8).all() and (out["cols"]["pp"] == 4).all()


def test_search_moe_uses_expert_parallelism(catalog):
    cl = cluster_from_system(catalog, "dgx-h100", 64)
    est, _ = best_plan(preset("mixtral-8x7b"), Training(global_batch=256), cl)
    assert est.fits and est.plan.ep >= 1 and est.tokens_per_s > 0


# -- bad inputs -----------------------------------------------------------------
def test_plan_not_dividing_gpus_refused(h100x64):
    with pytest.raises(TrainingError, match="does not equal"):
        estimate(preset("llama3-8b"), Training(global_batch=128), Plan(tp=8, pp=1, dp=3), h100x64)


def test_zero_layers_refused():
    with pytest.raises(TrainingError, match="layers"):
        ModelSpec("x", 0, 4096, 16384, 32, 32, 32000, 2048).validate()


def test_unknown_gpu_refused(catalog):
    with pytest.raises(TrainingError, match="unknown"):
        cluster_from_system(catalog, "z900", 8)


def _parse(argv):
    p = argparse.ArgumentParser()
    add_parser(p.add_subparsers(dest="command"))
    return p.parse_args(argv)


def test_cli_contract_example(catalog, capsys):
    args = _parse(["train", "--system", "dgx-h100", "--gpus", "64", "--model", "llama3-8b", "--seq", "8192",
                   "--global-batch", "128", "--tp", "1", "--pp", "1", "--dp", "64", "--micro-batch", "2", "--json"])
    assert run(args, catalog) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc.keys() >= TRAIN_KEYS and doc["dp"] == 64 and doc["micro_batch"] == 2 and doc["global_batch"] == 128


def test_cli_search_and_overrides(catalog, capsys):
    args = _parse(["train", "--gpu", "H100", "--gpus", "128", "--model", "LLAMA3-70B", "--layers", "40",
                   "--global-batch", "256", "--search", "--json"])
    assert run(args, catalog) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["fits"] and doc["search"]["ranked"] and doc["params_b"] < 40


@pytest.mark.parametrize("argv,match", [
    ("train --system dgx-h100 --gpus 64 --model llama3-8b --tp 8 --pp 1 --dp 3", "does not"),
    ("train --system dgx-h100 --gpus 64 --model llama3-8b --layers 0", "layers"),
    ("train --gpu q9999 --gpus 8 --model llama3-8b", "unknown"),
    ("train --system dgx-h100 --gpus 64 --model nosuch", "unknown model"),
])
def test_cli_bad_inputs(catalog, argv, match):
    with pytest.raises(TrainingError, match=match):
        run(_parse(argv.split()), catalog)


# -- analyze section ---------------------------------------------------------------
def _project(n_nodes: int, system: str = "dgx-h100") -> Project:
    devs = tuple(MountedDevice(f"n{i}", system, 1 + 10 * (i % 4)) for i in range(n_nodes))
    racks = tuple(Rack(f"r{k}", f"R{k}", "h", "rack-48u-600x1200", 0, 0, devices=devs[k * 4:(k + 1) * 4])
                  for k in range((n_nodes + 3) // 4))
    return Project(racks=racks)


def _section(project, catalog, workload):
    return training_section(cluster_from_project(project, catalog), project.settings, workload)


def test_training_section_default_and_workload(catalog):
    section, findings = _section(_project(16), catalog, None)
    assert section["status"] == "ok" and "default" in section["workload_source"] and section["gpus"] == 128
    assert section["fits"] and not findings
    wl = {"model": "llama3-70b", "global_batch": 64, "tokens": 1e12, "tp": 16, "pp": 1}
    section, findings = _section(_project(16), catalog, wl)
    codes = {f.code for f in findings}
    assert "training-tp-infiniband" in codes


def test_training_section_findings(catalog):
    _, findings = _section(_project(8), catalog, {"model": "llama3-405b", "global_batch": 64, "tp": 8, "pp": 1})
    [memory] = [f for f in findings if f.code == "training-memory"]
    assert "GB per GPU, NVIDIA " in memory.message  # the GPU by name, not its id
    _, findings = _section(_project(8), catalog, {"model": "llama3-8b", "global_batch": 64, "tp": 8, "pp": 3})
    [plan] = [f for f in findings if f.code == "training-plan-gpus"]
    assert " NVIDIA " in plan.message and plan.message.endswith(" GPUs")


def test_bench_figures():
    from bench.training_bench import bench

    figs = bench()
    assert figs["plan_search_plans_per_s"] > 0 and figs["plan_search_405b_16k_s"] > 0
    # every row, both sets: above 10 % since Megatron-Core's Qwen3-235B runs were held out (over-predicted 1.5-2.1x)
    assert 10 < figs["training_validation_mean_abs_err_pct"] <= 12.5
    # the largest miss: Qwen3-235B with TP 4 and intra-node EP 8 on 256 H100, held out (test_fidelity.KNOWN_MISSES)
    assert 100 <= figs["training_validation_max_abs_err_pct"] <= 110
