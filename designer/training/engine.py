"""The vectorised core: score plan columns for a model, training settings and cluster.

Step time (Narayanan 2021 §2.2, Calculon's composition, reference §1.1 and §2.2):
    T_step = (m + (p−1)/v) · T_stage + exposed PP + exposed DP + optimizer
where T_stage is one micro-batch's forward + backward (+ recompute) through the
slowest pipeline stage (the one with most layers, or the last with the output
layer), including the TP, CP and EP communication left exposed after overlap.
(p−1)/v·T_stage is the 1F1B / interleaved bubble.
"""
from __future__ import annotations

import numpy as np

from .comm import bandwidths, cp_comm, dp_comm, ep_comm, overlapped, pp_p2p, tp_comm
from .compute import layer_times
from .efficiency import generation
from .memory import GB, memory, stage_layers

#: Adam step: read fp32 master, m, v and the grad (16 B), write master, m, v, BF16 copy (14 B).
OPTIMIZER_BYTES_PER_PARAM = 30.0

REASONS = {
    "gpus": "TP·PP·DP·CP does not equal the GPU count",
    "batch": "global batch not divisible by DP × micro-batch",
    "layers": "layers cannot be split over the pipeline stages",
    "interleave": "interleaving needs PP > 1, micro-batches a multiple of PP and stage layers a multiple of v",
    "heads": "attention heads (or KV heads) not divisible by TP",
    "seq": "sequence not divisible by 2·CP (or, with sequence parallelism, by TP)",
    "experts": "experts not divisible by EP, or EP does not divide DP·CP",
    "zero": "ZeRO stage must be 0–3",
    "memory": "does not fit in GPU memory",
    "tp-ib": "TP group spans InfiniBand (TP > NVLink domain)",
}


def validity(model, training, c, gpus):
    """Dict reason → boolean array (True = the plan breaks that rule)."""
    t, p, d, cp, e, b, v = (c[k] for k in ("tp", "pp", "dp", "cp", "ep", "b", "v"))
    L = model.layers
    per, last = stage_layers(L, p)
    mb = np.where(d * b > 0, training.global_batch // np.maximum(d * b, 1), 0)
    g = model.kv_heads
    return {
        "gpus": t * p * d * cp != gpus,
        "batch": (training.global_batch % np.maximum(d * b, 1) != 0) | (mb < 1),
        "layers": (p > L) | (last < 1),
        "interleave": (v > 1) & ((p == 1) | (mb % p != 0) | (per % v != 0)),
        "heads": (model.heads % t != 0) | ((g % t != 0) & (t % g != 0)),
        "seq": ((cp > 1) & (model.seq % (2 * cp) != 0)) | ((c["sp"] > 0) & (t > 1) & (model.seq % t != 0)),
        "experts": (model.experts % e != 0) | ((d * cp) % e != 0),
        "zero": (c["zero"] < 0) | (c["zero"] > 3),
    }


def evaluate(model, training, c: dict, cluster) -> dict:
    """Every figure for every plan column (arrays of the same length)."""
    gen = generation(cluster.generation)
    peak = cluster.peak_tflops(training.precision) * 1e12
    hbm = cluster.hbm_tbps * 1e12
    flash = training.flash_attention
    n = cluster.gpus
    t, p, d, cp, v = (c[k] for k in ("tp", "pp", "dp", "cp", "v"))
    bad = validity(model, training, c, n)
    safe_db = np.maximum(d * c["b"], 1)
    m = np.maximum(training.global_batch // safe_db, 1).astype(float)
    T = c["b"] * model.seq / cp

    lt = layer_times(model, c, peak, hbm, gen, training.precision, flash)
    nvl, ib = bandwidths(cluster, gen)
    tp_f, tp_b = tp_comm(model, c, T, cluster, gen, nvl, ib)
    usage_tp = np.where(t <= cluster.nvlink_domain, gen.nvlink_sm_usage, gen.ib_sm_usage)
    rc_full = c["rc"] == 2
    if training.overlap_tp:
        tp_exp = overlapped(tp_f, lt["gemm_fwd"], usage_tp) + overlapped(tp_b, 2 * lt["gemm_fwd"], usage_tp)
        tp_exp = tp_exp + np.where(rc_full, overlapped(tp_f, lt["gemm_fwd"], usage_tp), 0.0)
    else:
        tp_exp = tp_f + tp_b + np.where(rc_full, tp_f, 0.0)
    cp_f, cp_b = cp_comm(model, c, T, cluster, gen, nvl, ib)
    cp_exp = overlapped(cp_f + cp_b, lt["attn_total"], gen.nvlink_sm_usage)
    ep_f, ep_b = ep_comm(model, c, T, cluster, gen, nvl, ib)
    ep_exp = ep_f + ep_b + np.where(rc_full, ep_f, 0.0)

    compute_layer = lt["fwd"] + lt["bwd"] + lt["recompute"]
    t_layer = compute_layer + tp_exp + cp_exp + ep_exp
    per, last = stage_layers(model.layers, p)
    stage = np.maximum(per * t_layer, last * t_layer + lt["logits"])

    mem = memory(model, c, m, flash, training.grad_bytes, training.precision == "fp8")
    psi = mem["params_on_gpu"]
    dp_step, dp_mb = dp_comm(psi, c, cluster, gen, nvl, ib, 2.0)
    zero3_exp = overlapped(dp_mb, stage, gen.ib_sm_usage)
    stage = stage + zero3_exp

    bubble = (p - 1) / v * stage
    pipeline = m * stage + bubble
    p2p = pp_p2p(model, c, T, cluster, gen, nvl, ib)
    if training.overlap_pp:
        pp_exp = 2 * (p - 1) * p2p + 2 * m * v * p2p * gen.ib_sm_usage
    else:
        pp_exp = 2 * (p - 1) * p2p + 2 * m * v * p2p
    window = per * (lt["bwd"] + lt["recompute"])
    if training.overlap_dp:
        dp_exp = overlapped(dp_step, window, gen.ib_sm_usage) + dp_step / per
    else:
        dp_exp = dp_step
    shard = np.where(c["zero"] >= 1, (d * cp).astype(float), 1.0)
    optimizer = psi * OPTIMIZER_BYTES_PER_PARAM / shard / (hbm * gen.hbm_eff)
    step = pipeline + pp_exp + dp_exp + optimizer

    tokens = training.global_batch * model.seq
    tok_s = tokens / step
    mf = model.model_flops_per_token() * tokens
    hf = model.hardware_flops_per_token("full", flash) * tokens
    hf = np.where(rc_full, hf, model.hardware_flops_per_token("selective", flash) * tokens)
    hf = np.where(c["rc"] == 0, mf, hf)
    bad["memory"] = mem["total_gb"] > cluster.hbm_gb
    bad["tp-ib"] = t > cluster.nvlink_domain
    return {
        "step_time_s": step, "tokens_per_s": tok_s, "tokens_per_s_per_gpu": tok_s / n,
        "tflops_per_gpu": mf / step / n / 1e12, "hw_tflops_per_gpu": hf / step / n / 1e12,
        "mfu": mf / step / (n * peak), "hfu": hf / step / (n * peak),
        "micro_batches": m, "stage_time_s": stage, "bubble_s": bubble, "bubble_fraction": bubble / step,
        "compute_s": m * per * compute_layer,
        "exposed_tp_s": m * per * tp_exp, "exposed_cp_s": m * per * cp_exp, "exposed_ep_s": m * per * ep_exp,
        "exposed_pp_s": pp_exp, "exposed_dp_s": dp_exp + m * zero3_exp, "optimizer_s": optimizer,
        "memory": mem, "bad": bad,
    }


__all__ = ["evaluate", "validity", "REASONS", "GB"]
