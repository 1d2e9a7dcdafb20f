"""The training engine on runs it was never shown, and the sanity every estimate must keep."""
from __future__ import annotations

import pytest

from designer.training import Plan, Training, best_plan, cluster_from_system, estimate, preset
from designer.training.batch import MIN_TOKENS, critical_batch_tokens, default_global_batch
from designer.training.heldout import HELDOUT, MOVED_TO_REFERENCE
from designer.training.planner import given_plan
from designer.training.software import profile
from designer.training.validation import (ROWS, compare, every_row, leave_one_source_out, reference_rows, row_run,
                                          set_errors)


#: Held-out rows more than 25 % off, and the sign of their error (see test_error_over_every_row).
KNOWN_MISSES = {"h-mtnlg-2240": +1, "h-zoo-qwen3-deepep-ep32-overlap": +1, "h-zoo-qwen3-a2a-pp32": +1,
                "h-zoo-qwen3-deepep-tp4": +1}


@pytest.fixture(scope="module")
def rows():
    return compare()


# -- the held-out validation ----------------------------------------------------------
def test_heldout_rows_span_what_users_buy(rows):
    held = [r for r in rows if r["set"] == "held-out"]
    assert len(held) >= 19
    # H200's only held-out row (torchtitan's) chose recompute mode 'op' and is a reference row now: no H200 is
    # held out until a source not yet used is found
    assert {r["system"] for r in held} >= {"dgx-a100", "dgx-h100", "dgx-b200", "gb200-nvl72"}
    assert {r["precision"] for r in held} == {"bf16", "fp8"}
    plans = [h["plan"] for h in HELDOUT]
    assert any(p.get("zero") == 3 for p in plans) and any(p.get("hs") for p in plans)
    assert any((p.get("cp") or 1) > 1 for p in plans) and any((p.get("ep") or 1) > 1 for p in plans)
    assert any(h["model"].moe for h in HELDOUT) and any(not h["model"].moe for h in HELDOUT)
    assert {r["software"].split()[0] for r in held} >= {"megatron-2022", "deepspeed-2021", "fsdp-2024", "nemo-2024"}


def test_error_over_every_row(rows):
    errs = [abs(r["error_pct"]) for r in rows if r["row"] not in KNOWN_MISSES]
    assert len(rows) == len(ROWS) + len(MOVED_TO_REFERENCE) + len(HELDOUT) >= 64
    assert sum(errs) / len(errs) <= 10.0
    # four rows stay above 25 %, all held out and all over-predicted: MT-NLG on DeepSpeed's 2021 pipeline engine
    # (it ran well below Megatron-LM's own 530B run, see its note in heldout.py), and three of Megatron-Core's
    # Qwen3-235B-A22B runs on 256 H100, which ran at 167-276 TF/GPU where the estimator's kernels and exposed
    # all-to-alls give 1.5-2.1x that: the cost of a fine-grained expert layer (128 experts of FFN 1,536: small
    # grouped GEMMs, routing, permutation, a host sync per dispatch) is under-charged, not yet modelled
    misses = {r["row"]: r["error_pct"] for r in rows if abs(r["error_pct"]) > 25}
    assert set(misses) == set(KNOWN_MISSES)
    assert all((misses[k] > 0) == (sign > 0) for k, sign in KNOWN_MISSES.items())
    assert 25 < misses["h-mtnlg-2240"] <= 30.0
    assert max(misses.values()) <= 110.0


def test_leave_one_source_out_is_reported_beside_the_derived_errors():
    out = leave_one_source_out()
    assert len(out) == len(every_row())
    kept = [r for r in out if r["row"] not in KNOWN_MISSES]
    derived = [abs(r["error_as_derived_pct"]) for r in kept]
    held = [abs(r["error_held_out_pct"]) for r in kept]
    assert sum(held) / len(held) <= 10.0 and max(held) <= 30.0
    assert sum(derived) / len(derived) <= 10.0
    assert len({r["source"] for r in out}) >= 10


#: Each held-out row's fingerprint: what its prediction is made from (model shape, system, GPUs, batch, plan,
#: software, precision, the measured figure). A held-out row changed after its error was seen is no longer held
#: out: this test then fails, and the row belongs in heldout.MOVED_TO_REFERENCE with what it chose.
HELD_OUT_PINNED = {
    "h-megascale-256": "37946a10b01b", "h-megascale-12288": "82b018aaa5e6", "h-bloom": "22538ae9a033",
    "h-mtnlg-2240": "1d5cdea46a15", "h-tt-70b-a100": "89db4cef3b8a", "h-fms-13b-a100": "e0314055885d",
    "h-fms-7b-a100-hsdp": "8d9f458846da", "h-mpt-70b-a100": "5d1e4b3fa01b", "h-llama3-16k": "7ff270595658",
    "h-llama3-128k-cp16": "2dc25de9180d", "h-fms-70b-h100": "2f1e1299d0f0", "h-mpt-70b-h100": "740d7593ac13",
    "h-mpt-13b-h100": "7b2e901a40ee", "h-nemo-70b-h100-fp8": "c99dfe3bc48e", "h-nemo-70b-b200-fp8": "4dc7f121bed6",
    "h-nemo-175b-b200-fp8": "17754a511547", "h-nemo-mixtral-b200-fp8": "99087e8043a4",
    "h-nemo-175b-gb200-fp8": "15b5b4b3ebc4", "h-nemo-mixtral-gb200-fp8": "9955ed160cd2",
    "h-mb-dsv3-gb200-bf16": "0112ece3ff75",
    # Megatron-Core's MoE model zoo (Qwen3-235B-A22B), held out with expert TP, before any was estimated
    "h-zoo-qwen3-deepep-ep32": "b564116b26b3", "h-zoo-qwen3-deepep-ep32-overlap": "749431c671dc",
    "h-zoo-qwen3-a2a-pp32": "0adc89fd9b55", "h-zoo-qwen3-deepep-tp4": "e8484d45ec2c",
    # the same zoo's long-context runs with the router forced to balance, held out with the expert imbalance
    "h-zoo-qwen3-16k-balanced": "45c25a38271b", "h-zoo-qwen3-32k-balanced": "b7dad32f844a",
    "h-zoo-qwen3-64k-balanced": "a7f960c736d2", "h-zoo-qwen3-128k-balanced": "383d5eb3a8dc",
    # the zoo's GB200 and GB300 NVL72 runs (a later version of its page), held out before any was estimated
    "h-zoo-qwen3-gb200-bf16": "ece509d518a6", "h-zoo-qwen3-gb200-mxfp8": "49109c8708fb",
    "h-zoo-qwen3-gb300-mxfp8": "424070762e36", "h-zoo-qwen3-gb300-128k": "706f0228ad06",
    # NeMo 26.08's expert models on GB200 and GB300 NVL72, held out before any was estimated
    "h-mb26-dsv3-gb200": "3eabc6842e7b", "h-mb26-qwen3-30b-gb300": "a2a37c5d583a",
    "h-mb26-qwen3-30b-gb200": "39e7cfcab7d7", "h-mb26-qwen3-235b-gb300": "ce7a30b38e5a",
    "h-mb26-qwen3-235b-gb200": "8bfdaa6ce839",
}
SHAPE = ("name", "layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "seq", "activation", "experts",
         "top_k", "tied_embeddings")


SHAPE_2025 = ("head_size", "q_rank", "kv_rank", "rope_dim", "v_head_size", "expert_ffn_hidden", "shared_experts",
              "dense_layers", "route_nodes", "mtp_depth")


def _fingerprint(row: dict) -> str:
    import hashlib
    import json

    d = {k: v for k, v in row.items() if k not in ("note", "source", "model")}
    d["model"] = {k: getattr(row["model"], k) for k in SHAPE}
    # the shape fields of expert models of 2024-26, where a row's model uses them
    d["model"].update({k: getattr(row["model"], k) for k in SHAPE_2025 if getattr(row["model"], k)})
    return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:12]


def test_held_out_rows_are_as_they_were_when_held_out():
    assert {h["row"]: _fingerprint(h) for h in HELDOUT} == HELD_OUT_PINNED


def test_a_row_that_chose_something_is_a_reference_row_and_says_what(rows):
    assert MOVED_TO_REFERENCE and all(r.get("chose") for r in MOVED_TO_REFERENCE)
    assert not any("chose" in h for h in HELDOUT)
    moved = {r["row"] for r in MOVED_TO_REFERENCE}
    # the torchtitan rows that chose recompute mode 'op', and the NeMo rows that chose no allocator headroom
    # and DeepSeek-V3 on NeMo 25.09, given its recipe's expert TP and dispatcher once folding was built for it
    # and the zoo's four dropless long-context runs, which set the expert imbalance a learned router leaves
    assert moved == {"r-tt-8b-a100", "r-tt-8b-h200-fp8", "r-nemo-8b-h100-fp8", "r-nemo-405b-b200-fp8",
                     "r-nemo-70b-gb200-fp8", "r-nemo-405b-gb200-fp8", "r-mb-dsv3-h100", "r-zoo-qwen3-16k-dropless",
                     "r-zoo-qwen3-32k-dropless", "r-zoo-qwen3-64k-dropless", "r-zoo-qwen3-128k-dropless"}
    assert {r["row"] for r in rows if r["set"] == "reference"} == {r["row"] for r in reference_rows()} >= moved
    assert not moved & set(HELD_OUT_PINNED)


def test_each_set_is_reported_on_its_own(rows):
    sets = set_errors(rows)
    assert sets["reference"]["rows"] == len(ROWS) + 11 and sets["held-out"]["rows"] == len(HELDOUT) == 37
    assert sets["all"]["rows"] == sets["reference"]["rows"] + sets["held-out"]["rows"]
    held = [abs(r["error_pct"]) for r in rows if r["set"] == "held-out"]
    assert sets["held-out"]["mean_abs_err_pct"] == pytest.approx(sum(held) / len(held), abs=0.006)
    # 5.5 % since partial recompute: Llama 3 405B (row 19) and DeepSeek-V3 (dsv3-h800) no longer need full
    # recompute to fit, and their +10 % / +20 % show the compute the full recompute had hidden
    assert sets["reference"]["mean_abs_err_pct"] <= 6.0
    # the held-out mean is above the 10 % the issue asks for since Megatron-Core's Qwen3-235B runs joined
    assert 15.0 < sets["held-out"]["mean_abs_err_pct"] <= 20.0
    others = [abs(r["error_pct"]) for r in rows if r["set"] == "held-out" and r["row"] not in KNOWN_MISSES]
    assert sum(others) / len(others) <= 10.0


# -- sanity ---------------------------------------------------------------------------
def _best(catalog, system, model, gpus, **kw):
    m = preset(model)
    cluster = cluster_from_system(catalog, system, gpus)
    gbs, _ = default_global_batch(m, gpus, cluster.nvlink_domain, 15e12)
    return best_plan(m, Training(global_batch=gbs, **kw), cluster, top=1)[0]


@pytest.mark.parametrize("system", ["dgx-h100", "dgx-b200", "gb200-nvl72"])
@pytest.mark.parametrize("model", ["llama3-70b", "llama3-405b", "gpt3-175b"])
def test_bf16_dense_mfu_stays_below_the_sustained_matmul_rate(catalog, system, model):
    """BF16 MFU of the best plan for a large dense model stays at or below 62 % on Hopper and
    Blackwell: under their sustained matmul rates (71 % and 63 % of peak), and near the highest
    hardware utilisation published runs reach without recompute (MPT-70B on H100: 57 % HFU)."""
    small = _best(catalog, system, model, 128 if model != "llama3-70b" else 64)
    large = _best(catalog, system, model, 1024)
    assert small.mfu <= 0.62 and large.mfu <= 0.62
    if system != "dgx-h100":
        assert large.mfu <= 0.57


def test_fp8_is_reported_against_the_bf16_peak_and_never_above_1_6x(catalog):
    m = preset("llama3-70b")
    for system in ("dgx-h100", "dgx-b200", "gb200-nvl72"):
        cluster = cluster_from_system(catalog, system, 64)
        plan = Plan(tp=4, pp=4, cp=2, dp=2, virtual_stages=5, recompute="none")
        bf = estimate(m, Training(global_batch=128), plan, cluster)
        f8 = estimate(m, Training(global_batch=128, precision="fp8"), plan, cluster)
        ratio = f8.tokens_per_s / bf.tokens_per_s
        assert 1.15 < ratio <= 1.6, (system, ratio)
        # MFU against the BF16 peak: the same model FLOPs over the same peak, so it scales as throughput
        assert f8.mfu / bf.mfu == pytest.approx(ratio, rel=1e-3)
        best_bf, best_f8 = _best(catalog, system, "llama3-70b", 64), _best(catalog, system, "llama3-70b", 64,
                                                                            precision="fp8")
        assert best_f8.tokens_per_s / best_bf.tokens_per_s <= 1.6


@pytest.mark.parametrize("model", ["llama3-70b", "llama3-405b", "mixtral-8x22b"])
def test_gb200_never_slower_than_dgx_b200_at_equal_gpus(catalog, model):
    for gpus in (576, 2304):
        b200 = _best(catalog, "dgx-b200", model, gpus)
        gb200 = _best(catalog, "gb200-nvl72", model, gpus)
        assert gb200.tokens_per_s >= b200.tokens_per_s, (gpus, gb200.tokens_per_s, b200.tokens_per_s)


def test_moe_with_expert_parallelism_gains_on_nvl72(catalog):
    """Expert all-to-alls over 16 GPUs leave a DGX B200's 8-GPU NVLink domain but stay inside the 72-GPU one:
    at that expert parallelism the MoE model (Qwen3-235B-A22B, 128 experts) gains more from GB200 NVL72 than
    the dense model does, and its exposed all-to-all time falls several-fold. (Mixtral's 8 experts never leave
    a DGX node, so it shows no such gain; the search may also pick a smaller EP on DGX B200.)"""
    def best(system, model, **fixed):
        m = preset(model)
        cluster = cluster_from_system(catalog, system, 576)
        gbs, _ = default_global_batch(m, 576, cluster.nvlink_domain, 15e12)
        return best_plan(m, Training(global_batch=gbs), cluster, top=1, **fixed)[0]

    moe_b, moe_g = (best(s, "qwen3-235b-a22b", ep=16) for s in ("dgx-b200", "gb200-nvl72"))
    dense_b, dense_g = (_best(catalog, s, "llama3-70b", 576) for s in ("dgx-b200", "gb200-nvl72"))
    assert moe_g.plan.ep == moe_b.plan.ep == 16
    assert moe_g.exposed_comm_s["ep"] * 4 < moe_b.exposed_comm_s["ep"]
    assert moe_g.tokens_per_s / moe_b.tokens_per_s > 1.5 * dense_g.tokens_per_s / dense_b.tokens_per_s


@pytest.mark.parametrize("row", [h for h in HELDOUT if {"tp", "pp"} <= set(h["plan"])], ids=lambda h: h["row"])
def test_published_runs_fit_with_their_published_plan(catalog, row):
    """Every run that ran fits in memory with the plan its authors state (unstated recompute: the
    least the software offers that fits, as they would choose)."""
    cluster, training = row_run(row)
    p = row["plan"]
    fields = {"tp": p["tp"], "pp": p["pp"], "cp": p.get("cp", 1), "ep": p.get("ep"), "micro_batch": p.get("b"),
              "zero": p.get("zero"), "hybrid_shard": p.get("hs"), "dp": p.get("dp"), "expert_tp": p.get("etp"),
              "recompute": {0: "none", 1: "selective", 2: "full"}.get(p.get("rc"))}
    if isinstance(p.get("v"), int):
        fields["virtual_stages"] = p["v"]
    est, _ = given_plan(row["model"], training, cluster, fields)
    assert est.fits, (row["row"], est.memory_gb_per_gpu)


def test_llama3_405b_on_16k_h100_fits_as_published(catalog):
    cluster = cluster_from_system(catalog, "dgx-h100", 16384)
    est, chosen = given_plan(preset("llama3-405b"), Training(global_batch=2048), cluster, {"tp": 8, "pp": 16})
    assert est.fits and est.plan.dp == 128 and "recompute" in chosen


def test_throughput_per_gpu_never_rises_with_data_parallelism_at_a_fixed_batch(catalog):
    m = preset("llama3-70b")
    for zero in (1, 3):
        per_gpu = []
        for dp in (8, 16, 32, 64, 128):
            cluster = cluster_from_system(catalog, "dgx-h100", 8 * dp)
            est = estimate(m, Training(global_batch=512), Plan(tp=8, dp=dp, recompute="full", zero=zero), cluster)
            per_gpu.append(est.tokens_per_s_per_gpu)
        assert all(b <= a * 1.0001 for a, b in zip(per_gpu, per_gpu[1:])), (zero, per_gpu)


def test_fsdp_at_large_scale_with_a_small_batch_is_communication_bound(catalog):
    """ZeRO-3 re-gathers every layer each micro-batch over a flat ring: at 4,096 GPUs with one
    2,048-token sequence per GPU the exposed data-parallel time is a large share of the step,
    and it shrinks when each GPU holds more tokens."""
    m = preset("llama3-70b")
    cluster = cluster_from_system(catalog, "dgx-h100", 4096)
    fsdp = profile("fsdp-2024")
    small = estimate(replace_seq(m, 2048), Training(global_batch=4096, software=fsdp),
                     Plan(dp=4096, zero=3, recompute="full"), cluster)
    assert small.exposed_comm_s["dp"] > 0.25 * small.step_time_s
    big = estimate(replace_seq(m, 8192), Training(global_batch=4096, software=fsdp),
                   Plan(dp=4096, zero=3, recompute="full"), cluster)
    assert big.exposed_comm_s["dp"] / big.step_time_s < small.exposed_comm_s["dp"] / small.step_time_s


def replace_seq(model, seq):
    from dataclasses import replace

    return replace(model, seq=seq)


def test_a_long_bubble_is_a_problem_that_names_the_fix(catalog):
    cluster = cluster_from_system(catalog, "dgx-h100", 1024)
    est = estimate(preset("llama3-405b"), Training(global_batch=256), Plan(tp=8, pp=16, dp=8, recompute="full"),
                   cluster)
    assert est.bubble_fraction > 0.2
    text = " ".join(est.problems)
    assert "pipeline bubble" in text and "--virtual-stages" in text


def test_default_batch_grows_with_scale_within_published_bounds():
    m = preset("llama3-405b")
    sizes = [default_global_batch(m, n, 8, 15e12)[0] * m.seq for n in (64, 1024, 8192, 16384, 100000)]
    assert sizes == sorted(sizes) and sizes[0] >= MIN_TOKENS * 0.99
    assert sizes[-1] <= critical_batch_tokens(m, 15e12) * 1.01
    gbs, why = default_global_batch(m, 8192, 8, 15e12)
    assert gbs % (8192 // 8) == 0 and "tokens per step" in why


def test_100k_gb200_plan_is_one_a_practitioner_recognises(catalog):
    m = preset("llama3-70b")
    cluster = cluster_from_system(catalog, "gb200-nvl72", 100008)
    gbs, _ = default_global_batch(m, cluster.gpus, cluster.nvlink_domain, 15e12)
    est, _ = best_plan(m, Training(global_batch=gbs), cluster, top=1)
    assert est.plan.tp <= 8 and est.plan.pp <= 16
    assert est.bubble_fraction <= 0.2 and 0.3 <= est.mfu <= 0.62
    # the compute-optimal batch of a 70B run (40M tokens) cannot keep 100,000 GPUs busy: the
    # plan says how many stay idle rather than pretending otherwise
    assert est.idle_gpus <= cluster.gpus // 4
    assert not est.idle_gpus or any("idle" in p for p in est.problems)


# -- a learned router's imbalance ------------------------------------------------------
def test_the_busiest_expert_rank_sets_the_expert_half_of_the_step(catalog):
    """A dropless router that sends the busiest rank 1.5x the mean makes its grouped GEMMs, the all-to-all that
    waits for it and the routed copies it holds 1.5x: the step grows, more so where experts are more of it."""
    model = preset("qwen3-235b-a22b")
    cluster = cluster_from_system(catalog, "dgx-h100", 256)
    plan = Plan(tp=4, pp=8, dp=8, cp=1, ep=8, expert_tp=1, micro_batch=1, virtual_stages=4, recompute="none")

    def run(imbalance):
        sw = profile("nemo-2024", ep_dispatch="deepep", expert_imbalance=imbalance)
        return estimate(model, Training(global_batch=2048, software=sw), plan, cluster)

    even, busy = run(1.0), run(1.5)
    # the bytes grow 1.5x; each all-to-all's fixed latency does not
    assert 1.3 * even.exposed_comm_s["ep"] < busy.exposed_comm_s["ep"] <= 1.5 * even.exposed_comm_s["ep"]
    # the layer running holds half as many routed copies again (4,096 tokens x 4,096 x 8.5 bytes over the TP 4:
    # 71 MB more); the layers stored keep the mean
    grown = busy.memory_breakdown_gb["activations"] - even.memory_breakdown_gb["activations"]
    assert 0.05 <= grown <= 0.08
    assert 1.1 < busy.step_time_s / even.step_time_s < 1.5
    # a balanced router's own random spread (about 1.14 here) is already charged to the grouped GEMMs: a stated
    # imbalance below it leaves their time as it was (the all-to-all, which never charged the spread, grows)
    slight = run(1.05)
    assert slight.time_breakdown_s["compute"] == even.time_breakdown_s["compute"]
    assert slight.exposed_comm_s["ep"] > even.exposed_comm_s["ep"]
    # the busiest of EP ranks holds at most every copy: EP times the mean, however much more is stated
    assert run(8.0).step_time_s == run(40.0).step_time_s > busy.step_time_s
    # one expert rank runs every routed copy whatever their spread: no rank is busier than another
    mixtral, local = preset("mixtral-8x7b"), Plan(tp=4, pp=4, dp=4, ep=1, micro_batch=1, recompute="full")
    one = cluster_from_system(catalog, "dgx-h100", 64)
    a, b = (estimate(mixtral, Training(global_batch=256, software=profile("nemo-2024", expert_imbalance=x)), local,
                     one) for x in (1.0, 2.0))
    assert a.fits and a.step_time_s == b.step_time_s and a.memory_gb_per_gpu == b.memory_gb_per_gpu
    # a dense model has no experts to unbalance
    dense = Plan(tp=8, pp=1, dp=32, cp=1, micro_batch=1, recompute="full")
    l70 = preset("llama3-70b")
    a, b = (estimate(l70, Training(global_batch=256, software=profile("nemo-2024", expert_imbalance=x)), dense,
                     cluster) for x in (1.0, 3.0))
    assert a.step_time_s == b.step_time_s and a.memory_gb_per_gpu == b.memory_gb_per_gpu


def test_the_imbalance_set_from_the_dropless_runs_leaves_them_close(rows):
    dropless = {r["row"]: r["error_pct"] for r in rows if r["row"].endswith("k-dropless")}
    balanced = {r["row"]: r["error_pct"] for r in rows if r["row"].endswith("k-balanced")}
    assert len(dropless) == len(balanced) == 4
    assert all(r["set"] == "reference" for r in rows if r["row"] in dropless)
    assert all(r["set"] == "held-out" for r in rows if r["row"] in balanced)
    assert sum(abs(e) for e in dropless.values()) / 4 <= 4.0 and max(abs(e) for e in dropless.values()) <= 6.5
    # the forced-balance runs, held out: within 8 % with no imbalance stated
    assert max(abs(e) for e in balanced.values()) <= 8.0


def test_expert_imbalance_is_a_checked_knob():
    from designer.training import TrainingError

    assert profile("nemo-2024", expert_imbalance="1.5").expert_imbalance == 1.5
    for bad in ("x", 0.99, "nan", "inf", True, 65, "1_5"):
        with pytest.raises(TrainingError, match="imbalance"):
            profile("nemo-2024", expert_imbalance=bad)
