"""Memory between no recompute and full: partial (per-layer) recompute solved for the GPU's memory, and the
share of the activation pool the caching allocator cannot use."""
import json

import pytest

from catalog.registry import default_catalog
from designer.cli import main
from designer.training.engine import evaluate
from designer.training.errors import TrainingError
from designer.training.estimate import estimate
from designer.training.hardware import cluster_from_system
from designer.training.memory import (ALLOCATOR_WASTE, EXPANDABLE_WASTE, GB, OVERHEAD_GB, activations,
                                      model_states, stage_layers)
from designer.training.models import preset
from designer.training.plan import Plan, Training, columns
from designer.training.planner import best_plan
from designer.training.software import profile

L405 = preset("llama3-405b")
META = dict(tp=8, pp=16, dp=64, cp=1, micro_batch=1, virtual_stages=4)  # Llama 3 405B on 8,192 H100


@pytest.fixture(scope="module")
def h100_8k():
    return cluster_from_system(default_catalog(), "dgx-h100", 8192)


def _est(cluster, recompute, **kw):
    plan = Plan(recompute=recompute, **{**META, **kw})
    return estimate(L405, Training(global_batch=2048), plan, cluster)


def test_partial_recompute_runs_the_fewest_layers_that_fit(h100_8k):
    none, partial, full = (_est(h100_8k, r) for r in ("none", "partial", "full"))
    assert not none.fits and partial.fits and full.fits
    k = partial.recompute_layers
    per, _ = stage_layers(L405.layers, 16)
    assert (k, per) == (4, 8)  # whole virtual chunks: a multiple of v = 4, short of the stage's 8 layers
    assert partial.memory_gb_per_gpu <= h100_8k.hbm_gb < none.memory_gb_per_gpu
    # what k - v layers would need: the activations grow by v layers' worth of stored activations, past 80 GB
    c = columns([Plan(recompute="partial", **META)])
    m = 2048 // 64
    fewer = activations(L405, c, m, True, False, False, [k - 4])[0]
    w, g, o, _ = model_states(L405, c, 4, 64)
    need = (w[0] + g[0] + o[0] + fewer / (1 - EXPANDABLE_WASTE)) / GB + OVERHEAD_GB
    assert need > h100_8k.hbm_gb
    # time and FLOPs sit between none's and full's: half the stage's forwards run again
    assert none.fits is False and full.step_time_s > partial.step_time_s
    assert full.hfu / full.mfu == pytest.approx(L405.hardware_flops_per_token("full", True)
                                                / L405.model_flops_per_token(), rel=1e-3)
    extra = L405.hardware_flops_per_token("full", True) / L405.model_flops_per_token() - 1
    assert partial.hfu / partial.mfu == pytest.approx(1 + extra * k / per, rel=1e-3)
    assert json.loads(json.dumps(partial.to_json()))["recompute_layers"] == 4
    assert full.to_json()["recompute_layers"] is None


def test_partial_that_would_recompute_every_layer_is_refused(h100_8k):
    """One layer a virtual chunk (v = 8 of 8 layers): partial can only mean every layer, which is full."""
    with pytest.raises(TrainingError, match="no recompute or full recompute here"):
        _est(h100_8k, "partial", virtual_stages=8)


def test_partial_with_nothing_to_recompute_is_none_and_over_memory_stays_a_plan_that_does_not_fit():
    """Everything fits as it is: partial would rerun no layer, which is no recompute (refused, and the planner
    takes none). Model states alone over the GPU: the plan is reported as not fitting, not as 'use full'."""
    cat = default_catalog()
    l8, c64 = preset("llama3-8b"), cluster_from_system(cat, "dgx-h100", 64)
    plan = Plan(tp=1, pp=8, dp=8, micro_batch=1, virtual_stages=4, recompute="partial")
    with pytest.raises(TrainingError, match="no layer of a stage needs running again"):
        estimate(l8, Training(global_batch=512), plan, c64)
    none = estimate(l8, Training(global_batch=512), Plan(**{**plan.to_json(), "recompute": "none"}), c64)
    assert none.fits
    l70, c8 = preset("llama3-70b"), cluster_from_system(cat, "dgx-h100", 8)
    over = estimate(l70, Training(global_batch=64), Plan(tp=8, recompute="partial"), c8)
    full = estimate(l70, Training(global_batch=64), Plan(tp=8, recompute="full"), c8)
    assert not over.fits and over.tokens_per_s is None
    assert over.recompute_layers == 80 and over.memory_gb_per_gpu == pytest.approx(full.memory_gb_per_gpu, rel=1e-3)


def test_the_bubble_hint_names_only_interleaving_that_runs(h100_8k):
    """A bubble problem's suggested virtual stages must give a plan the estimator accepts."""
    est = _est(h100_8k, "partial", micro_batch=2, virtual_stages=1)
    hint = [p for p in est.problems if p.startswith("pipeline bubble")]
    assert hint and "no interleaving fits" in hint[0]
    for v in (2, 4, 8):  # each the hint could have named is refused (partial would rerun every layer here)
        with pytest.raises(TrainingError):
            _est(h100_8k, "partial", micro_batch=2, virtual_stages=v)


def test_the_search_and_the_planner_take_partial_where_none_does_not_fit(h100_8k):
    training = Training(global_batch=2048)
    est, summary = best_plan(L405, training, h100_8k, tp=8, pp=16, cp=1, v=4, b=1)
    assert est.plan.recompute == "partial" and est.recompute_layers == 4
    assert summary["ranked"][0]["recompute_layers"] == 4
    # a framework without block recompute falls back to full
    old = Training(global_batch=2048, software=profile("megatron-2021", attention="cudnn"))
    est_old, _ = best_plan(L405, old, h100_8k, tp=8, pp=16, cp=1, v=4, b=1)
    assert est_old.plan.recompute == "full"


def test_the_allocator_share_depends_on_its_segments(h100_8k):
    """A block-splitting allocator loses GMLake's 15 % of what it reserves for the activations; expandable
    segments 5 %. Weights, gradients and optimizer state (allocated once) are not charged."""
    c = columns([Plan(recompute="full", **META)])
    for sw, waste in (("nemo-2024", EXPANDABLE_WASTE), ("megatron-2022", ALLOCATOR_WASTE)):
        res = evaluate(L405, Training(global_batch=2048, software=profile(sw, attention="cudnn")), c, h100_8k)
        mem = res["memory"]
        assert mem["fragmentation_gb"][0] == pytest.approx(mem["activations_gb"][0] * waste / (1 - waste))
        parts = ("weights_gb", "gradients_gb", "optimizer_gb", "activations_gb", "fragmentation_gb", "overhead_gb")
        assert mem["total_gb"][0] == pytest.approx(sum(mem[k][0] for k in parts))


def test_cli_prints_the_layers_and_refuses_a_partial_that_is_full(capsys):
    base = ["train", "--gpu", "h100", "--gpus", "8192", "--model", "llama3-405b", "--tp", "8", "--pp", "16",
            "--cp", "1", "--global-batch", "2048", "--micro-batch", "1", "--recompute", "partial"]
    assert main(base + ["--virtual-stages", "4"]) == 0
    out = capsys.readouterr().out
    assert "recompute partial (4 layers a stage, 1 a virtual stage)" in out and "fragmentation" in out
    assert main(base + ["--virtual-stages", "8"]) == 2
    assert "no layer of a stage needs running again, or every layer does" in capsys.readouterr().err
