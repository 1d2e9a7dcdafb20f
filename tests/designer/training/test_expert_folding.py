"""Expert tensor parallelism (Megatron-Core's MoE parallel folding): the expert layers fold the GPUs of a pipeline
stage into expert-TP × EP × expert-DP, independent of the attention's TP × CP × DP."""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from designer.training import Plan, Training, TrainingError, cluster_from_system, estimate, preset
from designer.training.comm import bandwidths, ep_comm, ring, tp_comm
from designer.training.efficiency import generation
from designer.training.engine import evaluate
from designer.training.memory import model_states, params_on_gpu
from designer.training.planner import given_plan
from designer.training.plan import columns, plan_at
from designer.training.search import enumerate_plans, search_plans
from designer.training.section import plan_fields_of
from designer.training.software import profile

QWEN3 = preset("qwen3-235b-a22b")
DSV3 = preset("deepseek-v3")


@pytest.fixture(scope="module")
def h100(catalog):
    return cluster_from_system(catalog, "dgx-h100", 256)


def _cols(**kw):
    base = dict(tp=2, pp=8, dp=16, ep=32, micro_batch=1, virtual_stages=1, recompute="none", zero=1)
    base.update(kw)
    return columns([Plan(**base)])


def test_folded_experts_are_whole_on_each_gpu_and_shard_over_the_expert_data_parallel_group():
    unfolded, folded = _cols(), _cols(expert_tp=1)
    _, layer_u = params_on_gpu(QWEN3, unfolded)
    _, layer_f = params_on_gpu(QWEN3, folded)
    experts = QWEN3.experts * QWEN3.expert_params
    # 128 experts over EP 32: 4 a GPU, split over TP 2 unfolded, whole with ETP 1
    assert layer_f - layer_u == pytest.approx(experts / 32 - experts / 64)
    # the expert-DP group (TP·DP·CP / (ETP·EP)) is as many times wider as each GPU's experts are: 4 → 8 with
    # TP 2, DP 32, EP 8, so the optimizer state per GPU is the same and only the weights held grow
    w_u, _, opt_u, _ = model_states(QWEN3, _cols(dp=32, ep=8, pp=4), 4)
    w_f, _, opt_f, _ = model_states(QWEN3, _cols(dp=32, ep=8, pp=4, expert_tp=1), 4)
    assert opt_f[0] == pytest.approx(opt_u[0], rel=1e-12)
    per = -(-QWEN3.layers // 4)
    assert w_f[0] - w_u[0] == pytest.approx(2 * per * (experts / 8 - experts / 16))


def test_without_expert_tp_no_collective_runs_across_tp_in_the_expert_half(h100):
    gen = generation(h100.generation)
    nvl, ib = bandwidths(h100, gen)
    T = np.array([4096.0])
    f_u, _ = tp_comm(QWEN3, _cols(), T, h100, nvl, ib)
    f_f, _ = tp_comm(QWEN3, _cols(expert_tp=1), T, h100, nvl, ib)
    pair = ring(T * QWEN3.hidden * 2.0, np.array([2]), 1, h100, nvl, ib, "ar")
    # folded (no shared expert): the attention's pair alone; unfolded the routed copies (T/2 · 2 · top-8) are
    # gathered over TP 2 as well, eight times the attention's tokens
    assert f_f[0] == pytest.approx(pair[0])
    gather = ring(T * 8 * QWEN3.hidden * 2.0, np.array([2]), 1, h100, nvl, ib, "ar")
    assert f_u[0] == pytest.approx(pair[0] + gather[0])
    # a shared expert is a dense MLP on the attention's TP group: its pair stays when folded
    f_s, _ = tp_comm(DSV3, _cols(expert_tp=1), T, h100, nvl, ib)
    pair_s = ring(T * DSV3.hidden * 2.0, np.array([2]), 1, h100, nvl, ib, "ar")
    assert f_s[0] == pytest.approx(2 * pair_s[0])


def test_expert_parallel_ranks_sit_expert_tp_apart(h100):
    """EP 8 with ETP 1 is one DGX's 8 GPUs (NVLink only); with ETP 2 the same 8 ranks span two nodes."""
    gen = generation(h100.generation)
    nvl, ib = bandwidths(h100, gen)
    T = np.array([4096.0])
    sw = profile("nemo-2024")
    inside, _ = ep_comm(QWEN3, _cols(ep=8, dp=16, expert_tp=1), T, h100, nvl, ib, sw, "bf16")
    across, _ = ep_comm(QWEN3, _cols(ep=8, dp=16, expert_tp=2), T, h100, nvl, ib, sw, "bf16")
    assert across[0] > 3 * inside[0]
    # each GPU sends the copies of the T/t tokens sequence parallelism leaves it: TP 2 halves them
    one, _ = ep_comm(QWEN3, _cols(tp=1, ep=8, dp=32, expert_tp=1), T, h100, nvl, ib, sw, "bf16")
    two, _ = ep_comm(QWEN3, _cols(tp=2, ep=8, dp=16, expert_tp=1), T, h100, nvl, ib, sw, "bf16")
    assert two[0] < 0.55 * one[0]


def test_the_rules_of_the_folded_grid(h100):
    tr = Training(global_batch=2048)
    ok = estimate(QWEN3, tr, Plan(tp=2, pp=8, dp=16, ep=32, expert_tp=1, virtual_stages=4, recompute="full"), h100)
    assert ok.plan.etp == 1 and ok.to_json()["expert_tp"] == 1
    # ETP 4 × EP 32 = 128 GPUs does not fold into TP 2 · DP 16 = 32
    with pytest.raises(TrainingError, match="expert TP × EP does not divide TP·DP·CP"):
        estimate(QWEN3, tr, Plan(tp=2, pp=8, dp=16, ep=32, expert_tp=4, recompute="full"), h100)
    # a dense model has no expert TP of its own
    with pytest.raises(TrainingError, match="a model without experts has no expert TP"):
        estimate(preset("llama3-70b"), tr, Plan(tp=2, pp=8, dp=16, expert_tp=1, recompute="full"), h100)
    with pytest.raises(TrainingError, match="expert TP splits experts; llama3-70b has none"):
        given_plan(preset("llama3-70b"), tr, h100, {"tp": 2, "pp": 8, "expert_tp": 1})
    # Megatron-Core refuses experts with TP and no sequence parallelism
    with pytest.raises(TrainingError, match="sequence parallelism"):
        estimate(QWEN3, tr, Plan(tp=2, pp=8, dp=16, ep=32, expert_tp=1, sequence_parallel=False, recompute="full"),
                 h100)


def test_columns_written_before_expert_tp_run_unfolded(h100):
    tr = Training(global_batch=2048)
    cols = _cols(recompute="full")
    old = {k: v for k, v in cols.items() if k != "etp"}
    a, b = evaluate(QWEN3, tr, cols, h100), evaluate(QWEN3, tr, old, h100)
    assert a["step_time_s"][0] == b["step_time_s"][0]
    assert plan_at(cols, 0).expert_tp == 0 and plan_at(cols, 0).etp == 2


def test_the_search_tries_expert_tp_for_experts_only(h100):
    tr = Training(global_batch=2048, software=profile("nemo-2024", ep_dispatch="deepep"))
    cols = enumerate_plans(QWEN3, tr, h100, tp=2, pp=8, ep=16)
    assert set(cols["etp"].tolist()) == {1, 2}  # 4 and 8 do not fold into TP 2 · DP 16 with EP 16
    dense = enumerate_plans(preset("llama3-70b"), tr, h100)
    assert (dense["etp"] == dense["tp"]).all()
    out = search_plans(QWEN3, tr, h100, top=1, tp=2, pp=8, ep=16, v=4)
    best = plan_at(out["cols"], out["best"])
    # whole experts win here: no gather of the routed copies over TP, and EP 16 spans 2 nodes, not 4
    assert best.etp == 1


def test_cli_and_workload_take_expert_tp():
    run = [sys.executable, "-m", "designer", "train", "--gpu", "h100", "--gpus", "256", "--model", "qwen3-235b-a22b",
           "--global-batch", "2048", "--tp", "2", "--pp", "8", "--ep", "32", "--expert-tp", "1",
           "--virtual-stages", "4", "--recompute", "full"]
    text = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert text.returncode == 0, text.stderr
    assert "plan: TP2 PP8 DP16 CP1 EP32 ETP1 v4" in text.stdout
    doc = json.loads(subprocess.run(run + ["--json"], capture_output=True, text=True, timeout=120).stdout)
    assert doc["expert_tp"] == 1
    dense = subprocess.run([sys.executable, "-m", "designer", "train", "--gpu", "h100", "--model", "llama3-70b",
                            "--expert-tp", "1"], capture_output=True, text=True, timeout=120)
    assert dense.returncode == 2 and "--expert-tp splits experts; llama3-70b has none" in dense.stderr
    assert plan_fields_of({"expert_tp": 1}) == {"expert_tp": 1}
    with pytest.raises(TrainingError, match="expert_tp must be a whole number"):
        plan_fields_of({"expert_tp": "two"})


def test_expert_parallel_ranks_skip_no_context_parallel_ranks(h100):
    """Megatron-Core's expert rank order (tp-ep-dp-pp) has no CP: with CP 2 and TP 1, EP 8 is one DGX, not two."""
    gen = generation(h100.generation)
    nvl, ib = bandwidths(h100, gen)
    T = np.array([2048.0])
    sw = profile("nemo-2024")
    cp2, _ = ep_comm(QWEN3, _cols(tp=1, cp=2, dp=16, ep=8), T, h100, nvl, ib, sw, "bf16")
    cp1, _ = ep_comm(QWEN3, _cols(tp=1, cp=1, dp=32, ep=8), T, h100, nvl, ib, sw, "bf16")
    assert cp2[0] == pytest.approx(cp1[0])


def test_the_expert_gather_grows_with_expert_tp(h100):
    """Each GPU gathers T/t · ETP · top_k routed copies over its expert-TP group: more with every doubling."""
    gen = generation(h100.generation)
    nvl, ib = bandwidths(h100, gen)
    T = np.array([4096.0])
    fwd = [tp_comm(QWEN3, _cols(tp=4, dp=8, ep=8, expert_tp=u), T, h100, nvl, ib)[0][0] for u in (1, 2, 4)]
    assert fwd[0] < fwd[1] < fwd[2]


def test_a_given_plan_may_split_experts_wider_than_tp_and_each_rule_names_itself(h100):
    tr = Training(global_batch=2048)
    wide = estimate(QWEN3, tr, Plan(tp=1, pp=8, dp=32, ep=4, expert_tp=8, recompute="full"), h100)
    assert wide.to_json()["expert_tp"] == 8
    odd = replace(QWEN3, expert_ffn_hidden=1000)  # 1,000 is not a multiple of 16
    with pytest.raises(TrainingError, match="expert TP must divide the experts' FFN"):
        estimate(odd, tr, Plan(tp=2, pp=8, dp=16, ep=1, expert_tp=16, recompute="full"), h100)
    with pytest.raises(TrainingError, match="plan: expert-tp must be at least 1"):
        estimate(QWEN3, tr, Plan(tp=2, pp=8, dp=16, ep=4, expert_tp=-1, recompute="full"), h100)
    dense = estimate(preset("llama3-70b"), tr, Plan(tp=8, pp=2, dp=16, recompute="full"), h100)
    assert dense.to_json()["expert_tp"] is None


def test_a_search_refuses_expert_tp_for_a_dense_model_as_a_given_plan_does(h100):
    from designer.training import best_plan

    with pytest.raises(TrainingError, match="expert TP splits experts; llama3-70b has none"):
        best_plan(preset("llama3-70b"), Training(global_batch=2048), h100, etp=1)
