"""Mixture-of-experts models as they train now: latent attention, shared experts, dense first layers,
node-limited routing, DeepEP dispatch, overlapped all-to-alls and the DualPipe schedule."""
from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from catalog import default_catalog
from designer.training import Plan, Training, TrainingError, cluster_from_system, estimate, preset
from designer.training.comm import FP8_DISPATCH_BYTES, bandwidths, ep_comm
from designer.training.efficiency import generation
from designer.training.models import PRESETS, ModelSpec
from designer.training.software import profile

DSV3 = preset("deepseek-v3")


@pytest.fixture(scope="module")
def h800():
    """DeepSeek-V3's cluster: 2,048 H800, an H100 with NVLink cut to 400 GB/s (report §3.1)."""
    return replace(cluster_from_system(default_catalog(), "dgx-h100", 2048), nvlink_gbps=400.0)


def _plan(**kw):
    base = dict(tp=1, pp=16, dp=128, ep=64, micro_batch=1, recompute="full", zero=1)
    base.update(kw)
    return Plan(**base)


# -- the shape ----------------------------------------------------------------------------
def test_deepseek_v3_has_the_parameters_its_report_states():
    # 671B in all, 37B activated per token (arXiv 2412.19437, abstract); MTP modules not counted
    assert DSV3.params / 1e9 == pytest.approx(671.0, abs=0.5)
    assert DSV3.active_params / 1e9 == pytest.approx(37.5, abs=0.6)
    h, a = 7168, 128
    q = h * 1536 + 1536 * a * 192
    kv = h * (512 + 64) + 512 * a * (128 + 128)
    assert DSV3.attn_params == q + kv + a * 128 * h + 1536 + 512
    assert DSV3.qk_dim == 192 and DSV3.v_dim == 128 and DSV3.kv_elements == a * 320
    assert DSV3.moe_layers == 58 and DSV3.experts_per_token == 9


def test_model_flops_count_every_matmul_mtp_and_the_latent_attention():
    m = DSV3
    attn = 2.0 * m.seq * m.heads * (192 + 128)
    assert m.attention_core_flops_per_token() == attn
    expert = 3 * 7168 * 2048
    layers = 61 * m.attn_params + 3 * 3 * 7168 * 18432 + 58 * 9 * expert
    mtp = m.attn_params + 2 * 7168 * 7168 + 9 * expert
    want = 6 * (layers + mtp) + 6 * 7168 * 129280 * 2 + 3 * 62 * attn
    assert m.model_flops_per_token() == pytest.approx(want, rel=1e-12)
    without_mtp = replace(m, mtp_depth=0)
    assert m.model_flops_per_token() > without_mtp.model_flops_per_token() * 1.02


def test_a_gpt_keeps_megatrons_closed_form():
    m = PRESETS["gpt3-175b"]
    h, s, L, V = 12288, 2048, 96, 51200
    # Narayanan et al. 2021, eq. 3 without recompute: 72·B·s·L·h²·(1 + s/(6h) + V/(12·L·h)) a step of B·s tokens
    assert m.model_flops_per_token() == pytest.approx(72 * L * h * h * (1 + s / (6 * h) + V / (12 * L * h)),
                                                      rel=1e-12)


def test_head_size_other_than_hidden_over_heads():
    base = ModelSpec("q", 4, 4096, 12288, 64, 4, 151936, 4096, "swiglu", head_size=128).validate()
    assert base.head_dim == 128
    assert base.attn_params == 4096 * (64 * 128 + 2 * 4 * 128) + 64 * 128 * 4096


@pytest.mark.parametrize("fields, words", [
    (dict(kv_rank=0), "need kv-rank"),
    (dict(dense_layers=61), "leaves no expert layer"),
    (dict(shared_experts=-1), "shared-experts must be a whole number"),
    (dict(tied_embeddings="yes"), "tied-embeddings must be true or false"),
    (dict(activation="silu"), "activation must be one of gelu, swiglu, relu2"),
])
def test_a_shape_that_cannot_be_says_which_field(fields, words):
    with pytest.raises(TrainingError, match=words):
        replace(DSV3, **fields).validate()


def test_squared_relu_has_two_matrices():
    m = replace(PRESETS["llama3-8b"], activation="relu2").validate()
    assert m.mlp_mats == 2 and m.expert_params == 2 * 4096 * 14336


# -- expert dispatch ----------------------------------------------------------------------
def _ep(cluster, model, sw, precision="fp8", ep=64, tp=1):
    c = {"tp": np.array([tp]), "cp": np.array([1]), "ep": np.array([ep])}
    nvl, ib = bandwidths(cluster, generation("hopper"))
    return ep_comm(model, c, np.array([4096.0]), cluster, nvl, ib, profile(sw), precision)


def test_deepep_crosses_the_network_once_per_node_and_at_most_route_nodes(h800):
    alltoall = _ep(h800, DSV3, "nemo-2024")
    deepep = _ep(h800, DSV3, "deepseek-v3")
    unlimited = _ep(h800, replace(DSV3, route_nodes=0), "deepseek-v3")
    nvl, ib = bandwidths(h800, generation("hopper"))
    row = 4096 * 7168
    # all-to-all: 8 copies a token, 56 of 64 experts off the node: 7 copies on the network, BF16 both ways
    assert alltoall[0][0] == pytest.approx(2 * 7 * row * 2 / ib, rel=0.02)
    # DeepEP with routing to at most 4 of 8 nodes: 4·(1 − (3/4)^8) distinct nodes, 7/8 of them remote
    copies = 4 * (1 - 0.75 ** 8) * 7 / 8
    assert deepep[0][0] == pytest.approx(copies * row * (FP8_DISPATCH_BYTES + 2) / ib, rel=0.04)  # + latency
    assert deepep[1][0] == pytest.approx(2 * copies * row * 2 / ib, rel=0.04)
    assert deepep[0][0] < unlimited[0][0] < alltoall[0][0]
    # inside one node nothing crosses the network: NVLink carries the 7 of 8 copies that leave the GPU
    inside = _ep(h800, DSV3, "deepseek-v3", ep=8)
    assert inside[1][0] == pytest.approx(2 * 8 * 7 / 8 * row * 2 / nvl, rel=0.02)


def test_fp8_dispatch_only_when_training_in_fp8(h800):
    fp8 = _ep(h800, DSV3, "deepseek-v3", "fp8")
    bf16 = _ep(h800, DSV3, "deepseek-v3", "bf16")
    assert fp8[0][0] < bf16[0][0] == pytest.approx(bf16[1][0], rel=1e-9)


# -- the run --------------------------------------------------------------------------------
def test_overlap_hides_the_all_to_alls_that_the_2024_dispatcher_leaves_exposed(h800):
    tr = Training(global_batch=15360, precision="fp8", software=profile("deepseek-v3"))
    ds = estimate(DSV3, tr, _plan(), h800)
    old = estimate(DSV3, replace(tr, software=profile("nemo-2024")), _plan(), h800)
    assert ds.fits and old.fits
    assert ds.exposed_comm_s["ep"] < 0.15 * ds.step_time_s
    assert old.exposed_comm_s["ep"] > 1.0 * old.time_breakdown_s["compute"]
    assert ds.tokens_per_s_per_gpu > 2.5 * old.tokens_per_s_per_gpu
    no_overlap = estimate(DSV3, replace(tr, software=profile("deepseek-v3", ep_overlap=False)), _plan(), h800)
    assert no_overlap.exposed_comm_s["ep"] > 3 * ds.exposed_comm_s["ep"]


def test_dualpipe_bubble_memory_and_rules(h800):
    tr = Training(global_batch=15360, precision="fp8", software=profile("deepseek-v3"))
    dual = estimate(DSV3, tr, _plan(), h800)
    one = estimate(DSV3, replace(tr, software=profile("deepseek-v3", pp_schedule="1f1b")), _plan(), h800)
    assert dual.memory_breakdown_gb["weights"] == pytest.approx(2 * one.memory_breakdown_gb["weights"], abs=0.02)
    assert dual.memory_breakdown_gb["optimizer"] == pytest.approx(2 * one.memory_breakdown_gb["optimizer"], abs=0.02)
    # (PP/2 − 1) stage forwards against (PP − 1) whole stages: about a sixth of 1F1B's bubble
    assert dual.time_breakdown_s["bubble"] < one.time_breakdown_s["bubble"] / 4
    assert dual.tokens_per_s_per_gpu > one.tokens_per_s_per_gpu
    with pytest.raises(TrainingError, match="DualPipe needs an even PP"):
        estimate(DSV3, tr, _plan(pp=3, dp=640), replace(h800, gpus=1920))


def test_mtp_weighs_on_the_last_stage(h800):
    tr = Training(global_batch=15360, precision="fp8", software=profile("deepseek-v3"))
    roomy = replace(h800, hbm_gb=2000.0)  # the stage's time, whatever the memory
    plan = _plan(pp=2, dp=1024)
    with_mtp = estimate(DSV3, tr, plan, roomy)
    without = estimate(replace(DSV3, mtp_depth=0), tr, plan, roomy)
    # 61 layers on 2 stages: 31 and 30; the last also runs the MTP layer and a second output layer, and binds
    assert with_mtp.step_time_s > without.step_time_s * 1.03
    # on 16 stages (4 a stage) the last holds 1 + 1 layers and two output layers: still lighter than the others
    assert estimate(DSV3, tr, _plan(), h800).step_time_s == pytest.approx(
        estimate(replace(DSV3, mtp_depth=0), tr, _plan(), h800).step_time_s, rel=1e-6)


def test_cli_trains_deepseek_v3_and_names_a_bad_shape():
    run = [sys.executable, "-m", "designer", "train", "--gpu", "h100", "--gpus", "2048", "--model", "deepseek-v3",
           "--precision", "fp8", "--software", "deepseek-v3", "--global-batch", "15360", "--tp", "1", "--pp", "16",
           "--ep", "64"]
    out = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "deepseek-v3 (671.0 B params)" in out.stdout
    assert "experts deepep dispatch overlapped, dualpipe pipeline" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "designer", "train", "--gpu", "h100", "--model", "llama3-8b",
                          "--q-rank", "512"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "need kv-rank" in bad.stderr and "Traceback" not in bad.stderr


def test_a_workload_states_the_new_shape_fields():
    from designer.training.section import _model

    m = _model({"model": "deepseek-v3", "mtp_depth": 0, "route_nodes": 2})
    assert m.mtp_depth == 0 and m.route_nodes == 2 and m.kv_rank == 512
    custom = _model({"params": 7e9, "kv_rank": 512, "rope_dim": 64, "q_rank": 1024})
    assert custom.mla and custom.attn_params > 0
    with pytest.raises(TrainingError, match="tied-embeddings must be true or false"):
        _model({"model": "llama3-8b", "tied_embeddings": "yes"})
    with pytest.raises(TrainingError, match="q-rank, rope-dim and v-head-size describe latent attention"):
        _model({"model": "llama3-8b", "rope_dim": 64})


def test_one_stage_has_no_second_pipeline_and_keeps_both_embeddings():
    from designer.training.memory import activations, params_on_gpu

    m = replace(DSV3, mtp_depth=1)
    one = {k: np.array([v]) for k, v in dict(tp=1, pp=1, cp=1, ep=64, b=1, v=1, rc=0, sp=0, dp=64, zero=1).items()}
    psi, layer = params_on_gpu(m, one)
    # 61 layers, the MTP layer and both embeddings on the one stage
    assert psi[0] == pytest.approx(62 * layer[0] + m.embedding_params, rel=1e-12)
    # DualPipe on one stage holds what 1F1B holds: one micro-batch, not two
    mb = np.array([8.0])
    assert activations(m, one, mb, True, True, dual=True)[0] == activations(m, one, mb, True, True)[0]
