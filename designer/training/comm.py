"""Communication time of each parallelism, and how much of it stays exposed after overlap.

Collective costs follow nccl-tests' bus-bandwidth model (reference §2.5):
all-reduce S·2(n−1)/n / B, reduce-scatter and all-gather S·(n−1)/n / B,
all-to-all S·(n−1)/n / B, plus a start-up latency per step. A group placed inside
an NVLink domain uses NVLink bus bandwidth; one that spans domains is bounded by
each GPU's own NIC (rail-optimised fabric, one NIC per GPU), divided by the
fabric's oversubscription. Data-parallel collectives are hierarchical: the
members inside a domain reduce over NVLink first, so only S/k crosses the fabric.

Megatron rank order is TP fastest, then CP, EP (inside DP), DP, PP: a TP group of
t ≤ domain is inside a node; DP peers sit t·c ranks apart; PP neighbours t·c·d.
"""
from __future__ import annotations

import numpy as np

from .efficiency import Generation


def bandwidths(cluster, gen: Generation):
    """(NVLink bus GB/s, fabric bus GB/s) per GPU, in bytes/s."""
    nvl = cluster.nvlink_gbs_uni * gen.nvlink_busbw_eff * 1e9
    ib = cluster.ib_gbs_per_gpu * gen.ib_busbw_eff * 1e9 / cluster.oversubscription
    return nvl, ib


def group_bw(span, cluster, nvl, ib):
    """Bus bandwidth of a group whose members span ``span`` consecutive ranks."""
    return np.where(span <= cluster.nvlink_domain, nvl, ib)


def ring(size_bytes, n, bw, factor, gen: Generation):
    """Ring collective: ``factor`` 2 all-reduce, 1 reduce-scatter / all-gather / all-to-all."""
    n = np.asarray(n, dtype=float)
    frac = np.where(n > 1, (n - 1) / np.maximum(n, 1), 0.0)
    return np.where(n > 1, factor * (size_bytes * frac / bw + gen.latency_s * (n - 1)), 0.0)


def hierarchical(size_bytes, d, stride, cluster, nvl, ib, factor, gen: Generation):
    """A DP collective over ``d`` members ``stride`` ranks apart: NVLink inside the domain,
    the fabric across domains carrying 1/k of the data (k members per domain)."""
    d = np.asarray(d, dtype=float)
    k = np.clip(cluster.nvlink_domain // np.maximum(stride, 1), 1, None).astype(float)
    k = np.minimum(k, d)
    outer = d / k
    inner_t = ring(size_bytes, k, nvl, factor, gen)
    outer_t = ring(size_bytes / k, outer, ib, factor, gen)
    return inner_t + outer_t


def overlapped(comm, window, usage):
    """What stays exposed when ``comm`` runs beside ``window`` seconds of compute: the excess,
    plus the compute it slows by stealing SMs (Calculon ``processor_usage``)."""
    return np.maximum(comm - window, 0.0) + usage * np.minimum(comm, window)


def tp_comm(m, c, T, cluster, gen, nvl, ib):
    """Per layer per micro-batch: 2 collectives forward, 2 backward, of T·h·2 bytes
    (all-reduce; with sequence parallelism reduce-scatter + all-gather of the same volume;
    Narayanan 2021 §3.2). Returns (fwd seconds, bwd seconds, bandwidth used)."""
    t = c["tp"]
    bw = group_bw(t, cluster, nvl, ib)
    one = ring(T * m.hidden * 2.0, t, bw, 2, gen)
    return 2 * one, 2 * one


def cp_comm(m, c, T, cluster, gen, nvl, ib):
    """Ring attention: each of c−1 steps passes the local K and V forward; backward passes
    K, V and their gradients (2×)."""
    cpn = c["cp"]
    bw = group_bw(c["tp"] * cpn, cluster, nvl, ib)
    kv = T * 2 * np.maximum(m.kv_heads / c["tp"], 1) * m.head_dim * 2.0
    step = kv / bw + gen.latency_s
    fwd = np.where(cpn > 1, (cpn - 1) * step, 0.0)
    return fwd, 2 * fwd


def ep_comm(m, c, T, cluster, gen, nvl, ib):
    """Token dispatch and combine all-to-alls, twice forward and twice backward, of the
    T·top_k routed tokens (h·2 bytes each). EP ranks sit t·c apart (inside DP)."""
    e = c["ep"]
    if not m.moe:
        z = np.zeros(len(e))
        return z, z
    span = c["tp"] * c["cp"] * e
    bw = group_bw(span, cluster, nvl, ib)
    one = ring(T * m.top_k * m.hidden * 2.0, e, bw, 1, gen)
    return 2 * one, 2 * one


def pp_p2p(m, c, T, cluster, gen, nvl, ib):
    """One activation (or its gradient) sent between stages: T·h·2 bytes, split across
    the TP ranks (scatter/gather optimisation; with SP they hold 1/t each)."""
    span = c["tp"] * c["cp"] * c["dp"] * 2
    bw = group_bw(span, cluster, nvl, ib)
    return np.where(c["pp"] > 1, T * m.hidden * 2.0 / c["tp"] / bw + gen.latency_s, 0.0)


def dp_comm(params_local, c, cluster, gen, nvl, ib, grad_bytes: float = 2.0):
    """Per step: gradient reduction + parameter all-gather of the data-parallel group
    (ZeRO/distributed optimizer: reduce-scatter + all-gather = one all-reduce's volume).
    Returns (per-step seconds, per-micro-batch seconds for ZeRO-3's re-gathers). The
    optimizer is sharded over DP×CP, as Megatron does."""
    dp = c["dp"] * c["cp"]
    stride = c["tp"]
    s = params_local * grad_bytes
    step = hierarchical(s, dp, stride, cluster, nvl, ib, 2, gen)
    z3 = c["zero"] == 3
    # ZeRO-3/FSDP: all-gather weights before forward and before backward, reduce-scatter grads,
    # every micro-batch (3 half-collectives), nothing extra per step.
    per_mb = np.where(z3, 3 * hierarchical(params_local * 2.0, dp, stride, cluster, nvl, ib, 1, gen), 0.0)
    step = np.where(z3, 0.0, step)
    return step, per_mb
