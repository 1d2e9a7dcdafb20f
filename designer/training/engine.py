"""The vectorised core: score plan columns for a model, training settings and cluster.

Step time (Narayanan 2021 §2.2, Calculon's composition, reference §1.1 and §2.2):
    T_step = (m + (p−1)/v) · T_stage + exposed PP + exposed DP + optimizer
where T_stage is one micro-batch's forward + backward (+ recompute) through the
slowest pipeline stage (the one with most layers, or the last with the output
layer), including the TP, CP and EP communication left exposed after overlap.
(p−1)/v·T_stage is the 1F1B / interleaved bubble.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .comm import bandwidths, cp_comm, dp_comm, dp_groups, ep_comm, overlapped, per_domain, pp_p2p, tp_comm
from .compute import Peaks, layer_times
from .efficiency import generation, straggler_factor
from .memory import GB, RC_FULL, RC_OP, RC_PARTIAL, memory, stage_layers
from .offload import HOST_USABLE, activation_exposed, copy_rate, modes, optimizer_step
from .offload import breaks_rules as offload_rules
from .plan import OFFLOAD, RECOMPUTE, expert_tp

#: FSDP2's copy-out of all-gathered weights (2 × (2 + 2) B) and copy-in of gradients to the
#: reduce-scatter (4 + 4 B), per parameter of a layer per micro-batch (PyTorch FSDP2 design:
#: "all-gather copy-in / copy-out", reduce-scatter copy-in).
FSDP_COPY_BYTES = 16.0
#: Adam step: read fp32 master, m, v and the grad (16 B), write master, m, v, BF16 copy (14 B).
OPTIMIZER_BYTES_PER_PARAM = 30.0

REASONS = {
    "gpus": "TP·PP·DP·CP exceeds the GPU count",
    "batch": "global batch not divisible by DP × micro-batch",
    "layers": "layers cannot be split over the pipeline stages",
    "interleave": "interleaving needs PP > 1, micro-batches a multiple of PP and stage layers a multiple of v",
    "heads": "attention heads (or KV heads) not divisible by TP",
    "seq": "sequence not divisible by 2·CP (or, with sequence parallelism, by TP), or CP without a framework "
           "that offers it",
    "experts": "experts not divisible by EP (a model without experts has EP 1)",
    "expert-grid": "expert TP × EP does not divide TP·DP·CP: the expert layers fold a pipeline stage's GPUs into "
                   "whole expert-TP × EP groups",
    "expert-tp": "expert TP must divide the experts' FFN; a model without experts has no expert TP of its own",
    "moe-sp": "a model with experts needs sequence parallelism when TP > 1 (Megatron-Core requires it)",
    "zero": "ZeRO stage must be 0–3 (hybrid sharding needs ZeRO ≥ 1)",
    "recompute": "the software profile does not offer that recompute mode",
    "partial": "partial recompute is no recompute or full recompute here: no layer of a stage needs running again, "
               "or every layer does (use --recompute none or full)",
    "schedule": "DualPipe needs an even PP, no interleaving and at least PP micro-batches",
    "offload": "the offload is not one the software offers, or not with this plan: activations go to the host only "
               "without a pipeline (PP 1) and without recompute, the optimizer state only with ZeRO 1 or more, and "
               "only on a system whose host memory and link are known",
    "offload-idle": "activation offload moves no layer here: the activations fit on the GPU as they are "
                    "(use --offload none, or optimizer)",
    "host": "what the plan offloads does not fit in the host memory's share per GPU",
    "memory": "does not fit in GPU memory",
    "tp-ib": "TP group spans InfiniBand (TP > NVLink domain)",
}


def _not_offered(col, offered_modes, order) -> np.ndarray:
    """Plans whose ``col`` (an index into ``order``) names a mode the software does not offer."""
    offered = np.zeros(len(col), dtype=bool)
    for mode in offered_modes:
        offered |= col == order.index(mode)
    return ~offered


def _expert_rules(model, c) -> dict:
    """Plans whose expert layout cannot run, by rule: EP must divide the experts, the folded expert grid (expert
    TP × EP) the GPUs of a pipeline stage, expert TP the expert FFN; a model without experts has no expert TP of
    its own; experts with TP need sequence parallelism."""
    t, d, cp, e = (c[k] for k in ("tp", "dp", "cp", "ep"))
    u = expert_tp(c)
    if not model.moe:
        no = np.zeros(len(t), dtype=bool)
        return {"experts": e != 1, "expert-grid": no, "expert-tp": u != t, "moe-sp": no}
    return {"experts": model.experts % e != 0, "expert-grid": (t * d * cp) % np.maximum(u * e, 1) != 0,
            "expert-tp": (u < 1) | (model.expert_ffn % np.maximum(u, 1) != 0),
            "moe-sp": (t > 1) & (c["sp"] == 0)}


def validity(model, training, c, gpus):
    """Dict reason → boolean array (True = the plan breaks that rule)."""
    t, p, d, cp, e, b, v = (c[k] for k in ("tp", "pp", "dp", "cp", "ep", "b", "v"))
    L = model.layers
    per, last = stage_layers(L, p)
    mb = np.where(d * b > 0, training.global_batch // np.maximum(d * b, 1), 0)
    g = model.kv_heads
    return {
        "gpus": t * p * d * cp > gpus,
        "batch": (training.global_batch % np.maximum(d * b, 1) != 0) | (mb < 1),
        "layers": (p > L) | (last < 1),
        "interleave": (v > 1) & ((p == 1) | (mb % p != 0) | (per % v != 0)),
        "schedule": (p > 1) & ((p % 2 != 0) | (v > 1) | (mb < p)) if training.software.pp_schedule == "dualpipe"
        else np.zeros(len(p), dtype=bool),
        "heads": (model.heads % t != 0) | ((g % t != 0) & (t % g != 0)),
        "seq": (((cp > 1) & ((model.seq % (2 * cp) != 0) | (not training.software.context_parallel)))
                | ((c["sp"] > 0) & (t > 1) & (model.seq % t != 0))),
        **_expert_rules(model, c),
        "zero": (c["zero"] < 0) | (c["zero"] > 3) | ((c["hs"] > 0) & (c["zero"] < 1)),
        "recompute": _not_offered(c["rc"], training.software.recompute_modes, RECOMPUTE),
        "offload": (_not_offered(c["off"], training.software.offload_modes, OFFLOAD) if "off" in c
                    else np.zeros(len(p), dtype=bool)) | offload_rules(c),
    }


def screen(model, training, c: dict, cluster):
    """The cheap half of evaluate: (broken rules, memory, ZeRO sharding group, micro-batches)."""
    t, p, d, cp = (c[k] for k in ("tp", "pp", "dp", "cp"))
    bad = validity(model, training, c, cluster.gpus)
    m = np.maximum(training.global_batch // np.maximum(d * c["b"], 1), 1).astype(float)
    shard, _, _ = dp_groups(c, cluster)
    mem = memory(model, c, m, training.software.flash, training.grad_bytes, training.precision in ("fp8", "fp4"),
                 shard, training.software.pp_schedule == "dualpipe", cluster.hbm_gb,
                 training.software.expandable_segments, training.software.expert_imbalance)
    per, _ = stage_layers(model.layers, p)
    bad["memory"] = mem["total_gb"] > cluster.hbm_gb
    # partial with nothing to recompute is none, and with every layer (and it fits) is full: the same plan twice;
    # when even every layer leaves it over the memory, it stays a plan that does not fit
    k = mem["recompute_layers"]
    bad["partial"] = (c["rc"] == RC_PARTIAL) & ((k == 0) | ((k >= per) & ~bad["memory"]))
    bad["tp-ib"] = t > cluster.nvlink_domain
    opt, act = modes(c)
    # each mechanism needs the figures it is timed with: the link and host memory, and for a CPU step its bandwidth
    unknown = cluster.host_link_gbs <= 0 or cluster.host_gb_per_gpu <= 0
    bad["offload"] |= ((opt | act) & unknown) | (opt & (cluster.host_gbs_per_gpu <= 0))
    bad["offload-idle"] = act & (mem["offload_layers"] == 0)
    bad["host"] = (opt | act) & (mem["host_gb"] > cluster.host_gb_per_gpu * HOST_USABLE)
    return bad, mem, shard, m


def evaluate(model, training, c: dict, cluster, *, prune: bool = False, keep=None) -> dict:
    """Every figure for every plan column (arrays of the same length).

    With ``prune`` the step time is worked out only for plans that break no rule and fit
    in memory (and those ``keep`` marks); the others get NaN figures — the search's way of
    spending its time on plans that can win."""
    if "etp" not in c:  # columns written before expert TP: unfolded, as they ran
        c = {**c, "etp": c["tp"]}
    bad, mem, shard, m = screen(model, training, c, cluster)
    if not prune:
        return _timing(model, training, c, cluster, bad, mem, shard, m)
    ok = ~np.logical_or.reduce(list(bad.values())) if bad else np.ones(len(m), dtype=bool)
    if keep is not None:
        ok = ok | keep
    idx = np.nonzero(ok)[0]
    sub = {k: v[idx] for k, v in c.items()}
    sub_mem = {k: (v[idx] if isinstance(v, np.ndarray) and v.shape == m.shape else v) for k, v in mem.items()}
    part = _timing(model, training, sub, cluster, {k: v[idx] for k, v in bad.items()}, sub_mem, shard[idx], m[idx])
    out = {"bad": bad, "memory": mem, "micro_batches": m}
    for key, val in part.items():
        if key in out:
            continue
        full = np.full(len(m), np.nan)
        full[idx] = val
        out[key] = full
    return out


#: The plan columns a layer's compute time depends on (not PP, DP, v, ZeRO ...).
LAYER_KEYS = ("tp", "cp", "ep", "b", "sp", "rc", "etp")


@lru_cache(maxsize=512)
def _layer_times_memo(model, key: tuple, peak, hbm, gen, precision, sw) -> dict:
    cols = {k: np.asarray(v, dtype=np.int64) for k, v in zip(LAYER_KEYS, key)}
    out = layer_times(model, cols, peak, hbm, gen, precision, sw)
    for v in out.values():
        v.flags.writeable = False  # shared between calls
    return out


def _layer_times_once(model, c, peak, hbm, gen, precision, sw) -> dict:
    """layer_times for each distinct (TP, CP, EP, micro-batch, SP, recompute) of the columns,
    spread back over the plans: a search of 10⁵ plans has a few hundred distinct layers."""
    n = len(c["tp"])
    if n < 64:  # one estimate: the same layer shapes recur from call to call (plans, recompute modes)
        return _layer_times_memo(model, tuple(tuple(c[k].tolist()) for k in LAYER_KEYS), peak, hbm, gen,
                                 precision, sw)
    key = np.zeros(n, dtype=np.int64)
    for k in LAYER_KEYS:  # mixed radix: each column's own range, so no two layers share a key
        key = key * (int(c[k].max()) + 1) + c[k]
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    sub = {k: c[k][first] for k in LAYER_KEYS}
    lt = layer_times(model, sub, peak, hbm, gen, precision, sw)
    return {k: v[inverse] for k, v in lt.items()}


def _layer_comm(model, c: dict, T, cluster, gen, nvl, ib, lt: dict, sw, precision: str, rerun) -> tuple:
    """Per layer, the tensor-, context- and expert-parallel communication left exposed, forward and backward
    (recomputing a layer repeats its forward's in the backward: ``rerun`` is the share of layers that do)."""
    t = c["tp"]
    tp_f, tp_b = tp_comm(model, c, T, cluster, nvl, ib)
    usage_tp = np.where(t <= cluster.nvlink_domain, gen.nvlink_sm_usage, gen.ib_sm_usage)
    if sw.tp_overlap:
        tp_fwd = overlapped(tp_f, lt["gemm_fwd"], usage_tp)
        tp_bwd = overlapped(tp_b, 2 * lt["gemm_fwd"], usage_tp) + rerun * tp_fwd
    else:
        tp_fwd, tp_bwd = tp_f, tp_b + rerun * tp_f
    cp_f, cp_b = cp_comm(model, c, T, cluster, nvl, ib)
    # ring attention overlaps each K/V hop with the attention block of the previous one
    cp_fwd = overlapped(cp_f, lt["attn_fwd"], gen.nvlink_sm_usage)
    cp_bwd = overlapped(cp_b, lt["attn_total"] - lt["attn_fwd"], gen.nvlink_sm_usage) + rerun * cp_fwd
    ep_f, ep_b = ep_comm(model, c, T, cluster, nvl, ib, sw, precision)
    if sw.ep_overlap:
        # DualPipe / dual-batch overlap: one micro-batch's all-to-alls run beside another's compute, on SMs
        # kept for communication (DeepSeek-V3: 20 of 132, the NVLink tier's share)
        ep_fwd = overlapped(ep_f, lt["fwd"], gen.nvlink_sm_usage)
        ep_bwd = overlapped(ep_b, lt["bwd"] + lt["recompute"], gen.nvlink_sm_usage) + rerun * ep_fwd
    else:
        ep_fwd, ep_bwd = ep_f, ep_b + rerun * ep_f
    return tp_fwd, tp_bwd, cp_fwd, cp_bwd, ep_fwd, ep_bwd


def _stage_dp(dpc: dict, c: dict, mem: dict, heavy, fwd_l, bwd_l, u, hbm, gen, sw) -> tuple:
    """The data-parallel traffic a pipeline stage waits for within a micro-batch: ZeRO-3's per-layer
    gathers and reduce-scatters (with FSDP's copies), and ZeRO-2's per-micro-batch reduce-scatter."""
    ag, rs = dpc["layer_ag"], dpc["layer_rs"]
    copies = np.zeros_like(fwd_l)
    if sw.dp_impl == "fsdp":
        # FSDP2 copies each gathered layer out into its parameters (read and write 2 B, twice a
        # micro-batch) and the gradients into the reduce-scatter buffer (fp32, read and write 4 B):
        # 16 B of HBM traffic per parameter of the layer, on the compute stream
        copies = np.where(c["zero"] == 3, FSDP_COPY_BYTES * mem["layer_params"] / (hbm * gen.hbm_eff), 0.0)
    if sw.dp_overlap:
        # ZeRO-3/FSDP: each layer's gather is prefetched during the previous layer's compute;
        # the first gather of a pass and the last reduce-scatter have nothing to hide behind
        z3 = (ag + (heavy - 1) * overlapped(ag, fwd_l, u)
              + ag + (heavy - 1) * overlapped(ag + rs, bwd_l, u) + rs)
        z2 = overlapped(dpc["mb_rs"], heavy * bwd_l, u) + dpc["mb_rs"] / heavy
    else:
        z3 = heavy * (2 * ag + rs)
        z2 = dpc["mb_rs"]
    z3 = z3 + heavy * copies
    return z3, z2


def _step_exposed(model, c: dict, T, cluster, gen, nvl, ib, dpc: dict, m, heavy, fwd_l, bwd_l, u, sw) -> tuple:
    """What a step waits for outside the stages: pipeline point-to-point sends and the once-a-step
    data-parallel reductions and gathers."""
    p, v = c["pp"], c["v"]
    p2p = pp_p2p(model, c, T, cluster, nvl, ib)
    if sw.pp_overlap:
        pp_exp = 2 * (p - 1) * p2p + 2 * m * v * p2p * gen.ib_sm_usage
    else:
        pp_exp = 2 * (p - 1) * p2p + 2 * m * v * p2p
    once = dpc["step_rs"] + dpc["replica_ar"]
    if sw.dp_overlap:
        # bucketed: reductions run beside the last micro-batch's backward, the parameter
        # gather beside the next step's first forward; the last bucket of each is exposed
        # (DeepSpeed's ZeRO-1/2 gathers the updated weights after the optimizer step, blocking)
        gather = dpc["step_ag"] if sw.dp_impl == "deepspeed" else (
            overlapped(dpc["step_ag"], heavy * fwd_l, u) + dpc["step_ag"] / heavy)
        dp_exp = overlapped(once, heavy * bwd_l, u) + once / heavy + gather
    else:
        dp_exp = once + dpc["step_ag"]
    return pp_exp, dp_exp


def _hardware_flops(model, c: dict, tokens, flash, mf, rerun):
    """FLOPs the GPUs execute in a step, recomputation included (model FLOPs without recompute)."""
    full = model.hardware_flops_per_token("full", flash) * tokens
    hf = np.where(c["rc"] == RC_FULL, full, model.hardware_flops_per_token("selective", flash) * tokens)
    hf = np.where(c["rc"] == RC_PARTIAL, mf + rerun * (full - mf), hf)
    hf = np.where(c["rc"] == RC_OP, model.hardware_flops_per_token("op", flash) * tokens, hf)
    return np.where(c["rc"] == 0, mf, hf)


def _timing(model, training, c: dict, cluster, bad, mem, shard, m) -> dict:
    gen = generation(cluster.generation)
    sw = training.software
    # a power cap slows compute-bound work by the clock ratio; HBM keeps its own clock (gpu_power.py)
    peak = Peaks(cluster.peak_tflops(training.precision) * 1e12 * cluster.clock_ratio,
                 cluster.peak_tflops("bf16") * 1e12 * cluster.clock_ratio)
    hbm = cluster.hbm_tbps * 1e12
    flash = sw.flash
    t, p, d, cp, v = (c[k] for k in ("tp", "pp", "dp", "cp", "v"))
    n = t * p * d * cp  # the GPUs the plan runs on (the rest of the cluster, if any, idle)
    T = c["b"] * model.seq / cp

    lt = dict(_layer_times_once(model, c, peak, hbm, gen, training.precision, sw))
    # partial recompute reruns the forward of k of the stage's layers: each layer is charged that share of its
    # forward (full recompute's share is 1, already in layer_times)
    rerun = mem["recompute_share"]
    lt["recompute"] = np.where(c["rc"] == RC_PARTIAL, rerun * lt["fwd"], lt["recompute"])
    nvl, ib = bandwidths(cluster, gen)
    tp_fwd, tp_bwd, cp_fwd, cp_bwd, ep_fwd, ep_bwd = _layer_comm(model, c, T, cluster, gen, nvl, ib, lt, sw,
                                                                 training.precision, rerun)

    slow = straggler_factor(gen, n)
    f_layer = lt["fwd"] * slow
    b_layer = (lt["bwd"] + lt["recompute"]) * slow
    fwd_l = f_layer + tp_fwd + cp_fwd + ep_fwd
    bwd_l = b_layer + tp_bwd + cp_bwd + ep_bwd
    t_layer = fwd_l + bwd_l
    per, last = stage_layers(model.layers, p)
    # the last stage also runs the multi-token-prediction modules: a layer and an output layer each
    last = last + model.mtp_depth
    heavy = np.maximum(per, last)
    stage_compute = np.maximum(per * t_layer, last * t_layer + lt["logits"] * (1 + model.mtp_depth) * slow)

    psi = mem["params_on_gpu"]
    dpc = dp_comm(mem["layer_params"], psi, c, cluster, nvl, ib, sw)
    # NCCL kernels that also drive NVLink hops hold SMs the whole time (Calculon's NVLink tier)
    u = np.where(per_domain(shard, t, cluster) > 1, gen.nvlink_sm_usage, gen.ib_sm_usage)
    z3, z2 = _stage_dp(dpc, c, mem, heavy, fwd_l, bwd_l, u, hbm, gen, sw)
    opt_off, act_off = modes(c)
    # activation copies to and from the host that the neighbouring layers' compute does not hide
    offload = np.zeros(len(t))
    if act_off.any():
        # the share of a micro-batch the data-parallel traffic keeps the scale-out NIC busy (on x86 hosts it
        # crosses the same PCIe link as the copies)
        spans = d * cp * t > cluster.nvlink_domain
        net = heavy * (2 * dpc["layer_ag"] + dpc["layer_rs"]) + dpc["mb_rs"]
        busy = np.where(spans, np.clip(net / np.maximum(stage_compute, 1e-12), 0.0, 1.0), 0.0)
        offload = np.where(act_off, activation_exposed(mem["offload_layers"], mem["offload_layer_bytes"], fwd_l,
                                                       bwd_l, copy_rate(cluster, busy)), 0.0)
    stage = stage_compute + z3 + z2 + offload

    # DualPipe: (PP/2 − 1)·(F&B + B − 3W); a paired forward-and-backward chunk costs F + B + W, and B ≈ W (input
    # and weight gradients are GEMMs of one size), so the bubble is (PP/2 − 1) stage forwards
    dual = sw.pp_schedule == "dualpipe"
    bubble = np.maximum(p / 2 - 1, 0) * heavy * fwd_l if dual else (p - 1) / v * stage
    pipeline = m * stage + bubble
    pp_exp, dp_exp = _step_exposed(model, c, T, cluster, gen, nvl, ib, dpc, m, heavy, fwd_l, bwd_l, u, sw)
    # the optimizer steps the state this GPU holds: the dense part's ZeRO shard and the experts' expert-DP shard
    optimizer = mem["stepped_params"] * OPTIMIZER_BYTES_PER_PARAM / (hbm * gen.hbm_eff)
    if opt_off.any():
        # the CPU steps the state the memory model moved there: experts' shards are wider than the dense part's
        optimizer = np.where(opt_off, optimizer_step(mem["stepped_params"], cluster), optimizer)
    step = pipeline + pp_exp + dp_exp + optimizer

    tokens = training.global_batch * model.seq
    tok_s = tokens / step
    mf = model.model_flops_per_token() * tokens
    hf = _hardware_flops(model, c, tokens, flash, mf, rerun)
    compute_layer = f_layer + b_layer
    return {
        "step_time_s": step, "tokens_per_s": tok_s, "tokens_per_s_per_gpu": tok_s / n,
        "tflops_per_gpu": mf / step / n / 1e12, "hw_tflops_per_gpu": hf / step / n / 1e12,
        "mfu": mf / step / (n * peak_bf16(cluster)), "hfu": hf / step / (n * peak_bf16(cluster)),
        "micro_batches": m, "stage_time_s": stage, "bubble_s": bubble, "bubble_fraction": bubble / step,
        "compute_s": m * per * compute_layer,
        "exposed_tp_s": m * per * (tp_fwd + tp_bwd), "exposed_cp_s": m * per * (cp_fwd + cp_bwd),
        "exposed_ep_s": m * per * (ep_fwd + ep_bwd),
        "exposed_pp_s": pp_exp, "exposed_dp_s": dp_exp + m * (z3 + z2), "optimizer_s": optimizer,
        "offload_s": m * offload,
        "memory": mem, "bad": bad, "idle_gpus": cluster.gpus - n,
    }


def peak_bf16(cluster) -> float:
    """MFU is reported against the dense BF16 peak whatever the precision, as NVIDIA and Meta do."""
    return cluster.peak_tflops("bf16") * 1e12


__all__ = ["evaluate", "validity", "REASONS", "GB"]
