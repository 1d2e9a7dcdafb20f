"""Communication time of each parallelism, and how much of it stays exposed after overlap.

Every collective is a ring, timed the way NCCL's own cost model times it
(``src/graph/tuning.cc``, NCCL 2.7; the figures live in designer/fabric/collectives.py
with the bandwidth engine's estimates): a latency of a base plus one hop latency per
ring step — an NVLink hop for steps inside an NVLink domain, a network hop for
steps between domains — plus the bytes over the bus bandwidth; NCCL picks the
protocol (LL128: low latency, 92 % of the bandwidth; Simple: full bandwidth,
higher latency) that is faster for the message, and so do we. Small messages are
latency-bound and large ones bandwidth-bound, so the achieved bandwidth depends on
the message size without a separate curve.

Bus bandwidth of a ring over n members, k of them in each NVLink domain, is the
fabric's rule (collectives.group_bus_bw): NVLink inside one domain; across domains one
ring per NIC, so k NICs' worth bounded by NVLink, and one NIC when members sit in
different domains (k = 1). Rank order is Megatron's: TP fastest, then CP, DP, PP; expert layers fold the
same GPUs into expert-TP fastest, then EP, then expert-DP (Megatron-Core's MoE parallel folding).

The fabric's technology (designer/fabric/technology.py) sets what a NIC's share delivers: the
engine's bus-bandwidth efficiency (Generation.ib_busbw_eff) is InfiniBand's, and another
technology scales it by its achievable share of the line rate over InfiniBand's (RoCE framing;
for plain RoCE, ECMP hash collisions once traffic leaves a leaf), and adds its switches' extra
latency on every network hop (``net_hop_us``). Whether traffic leaves a leaf is judged for the
whole cluster, as oversubscription is.
"""
from __future__ import annotations

import numpy as np

from designer.fabric.collectives import (LL128_BW, RING_BASE_US, RING_HOP_NET_US, RING_HOP_NVLINK_US,
                                         group_bus_bw)
from designer.fabric.technology import TECHNOLOGIES, path_hops, relative_to_infiniband

from .efficiency import Generation, rank_imbalance
from .plan import expert_tp

def fabric_factor(cluster) -> float:
    """The cluster's fabric technology's achievable bandwidth over InfiniBand's (1.0 on InfiniBand)."""
    return relative_to_infiniband(cluster.fabric, cluster.beyond_leaf, cluster.fabric_tiers)


def net_hop_us(cluster, protocol: str) -> float:
    """NCCL's network ring-step latency (InfiniBand-calibrated) plus what the cluster's switches add on the
    path a step takes: through the top tier when the traffic leaves a leaf, one switch otherwise."""
    hops = path_hops(cluster.fabric_tiers) if cluster.beyond_leaf else 1
    return RING_HOP_NET_US[protocol] + TECHNOLOGIES[cluster.fabric].extra_hop_latency_us(hops)


def bandwidths(cluster, gen: Generation):
    """(NVLink bus B/s, one NIC's fabric B/s) per GPU."""
    nvl = cluster.nvlink_gbs_uni * gen.nvlink_busbw_eff * 1e9
    ib = cluster.ib_gbs_per_gpu * gen.ib_busbw_eff * fabric_factor(cluster) * 1e9 / cluster.oversubscription
    return nvl, ib


def per_domain(n, stride, cluster):
    """Members of an ``n``-member group, ``stride`` ranks apart, that share one NVLink domain."""
    n = np.asarray(n, dtype=float)
    k = np.maximum(np.floor(cluster.nvlink_domain / np.maximum(stride, 1)), 1.0)
    return np.minimum(k, np.maximum(n, 1.0))


def ring(size_bytes, n, stride, cluster, nvl, ib, kind: str = "ag"):
    """Seconds of a ring collective of ``size_bytes`` (the full buffer: all-gather output,
    reduce-scatter input, all-reduce buffer) over ``n`` members ``stride`` ranks apart.
    ``kind``: "ag"/"rs" (n−1 steps, (n−1)/n of the bytes), "ar" (twice both)."""
    n = np.maximum(np.asarray(n, dtype=float), 1.0)
    k = per_domain(n, stride, cluster)
    domains = np.ceil(n / k)
    twice = 2.0 if kind == "ar" else 1.0
    steps = twice * (n - 1)
    inter = twice * (domains - 1)
    busbw = group_bus_bw(n, k, nvl, ib)
    moved = (twice * size_bytes) * (steps / (twice * n)) / busbw
    ll128 = 1e-6 * (RING_BASE_US["ll128"] + steps * RING_HOP_NVLINK_US["ll128"]
                    + inter * (net_hop_us(cluster, "ll128") - RING_HOP_NVLINK_US["ll128"])) + moved / LL128_BW
    simple = 1e-6 * (RING_BASE_US["simple"] + steps * RING_HOP_NVLINK_US["simple"]
                     + inter * (net_hop_us(cluster, "simple") - RING_HOP_NVLINK_US["simple"])) + moved
    return np.where(n > 1, np.minimum(ll128, simple), 0.0)


def overlapped(comm, window, usage):
    """What stays exposed when ``comm`` runs beside ``window`` seconds of compute: the excess,
    plus the compute it slows by stealing SMs (Calculon ``processor_usage``)."""
    return np.maximum(comm - window, 0.0) + usage * np.minimum(comm, window)


def tp_comm(m, c, T, cluster, nvl, ib):
    """Per layer per micro-batch: 2 collectives forward, 2 backward, of T·h·2 bytes
    (all-reduce; with sequence parallelism reduce-scatter + all-gather of the same volume;
    Narayanan 2021 §3.2). Returns (fwd seconds, bwd seconds)."""
    t = c["tp"]
    one = ring(T * m.hidden * 2.0, t, 1, cluster, nvl, ib, "ar")
    if not m.moe:
        return 2 * one, 2 * one
    # an expert layer's MLP half: the routed copies this GPU receives are gathered across its expert-TP group
    # and their outputs reduce-scattered back (Megatron-Core's dispatchers gather after the all-to-all: top_k
    # copies of each token, none when folding leaves each expert whole, ETP 1); shared experts are a dense MLP
    # on the attention's TP group
    u = expert_tp(c)
    routed = ring(T / t * u * m.top_k * m.hidden * 2.0, u, 1, cluster, nvl, ib, "ar")
    mlp = routed + (one if m.shared_experts else 0.0)
    return one + mlp, one + mlp


def cp_comm(m, c, T, cluster, nvl, ib):
    """Ring attention: each of c−1 steps passes the local K and V forward; backward passes
    K, V and their gradients (2×). Each step is one point-to-point hop."""
    cpn = c["cp"]
    span = c["tp"] * cpn
    inside = span <= cluster.nvlink_domain
    bw = np.where(inside, nvl, ib)
    hop = np.where(inside, RING_HOP_NVLINK_US["simple"], net_hop_us(cluster, "simple")) * 1e-6
    # latent attention passes whole key and value heads, split by TP; grouped-query its KV heads (at least one)
    heads = m.kv_elements / c["tp"] if m.mla else 2 * np.maximum(m.kv_heads / c["tp"], 1) * m.head_dim
    kv = T * heads * 2.0
    fwd = np.where(cpn > 1, (cpn - 1) * (kv / bw + hop), 0.0)
    return fwd, 2 * fwd


#: DeepEP's FP8 dispatch: one byte per element plus one fp32 scale per 128 (DeepSeek-V3 report §3.3.2).
FP8_DISPATCH_BYTES = 1.0 + 4.0 / 128


def _distinct(picks: float, bins):
    """Expected distinct bins ``picks`` independent uniform picks land in."""
    bins = np.maximum(np.asarray(bins, dtype=float), 1.0)
    return bins * (1.0 - (1.0 - 1.0 / bins) ** picks)


def ep_comm(m, c, T, cluster, nvl, ib, sw, precision: str):
    """Token dispatch and combine all-to-alls of the (T/t)·top_k routed copies of the tokens this GPU holds
    (h elements each), forward and backward. EP ranks sit ETP apart. Returns (fwd seconds, bwd seconds).

    ``alltoall`` dispatch: every copy goes to its expert's GPU, over the network when that GPU is in
    another NVLink domain. ``deepep``: a token crosses the network once per other domain holding one of
    its experts (routing limited to ``route_nodes`` domains when the model says so) and is forwarded
    inside that domain over NVLink; forward dispatch in FP8 when training in FP8. Combine, and everything
    in backward, moves BF16."""
    e = c["ep"]
    if not m.moe:
        z = np.zeros(len(e))
        return z, z
    # the expert grid folds ETP fastest, then EP (Megatron-Core's expert rank order, tp-ep-dp-pp, has no CP: with
    # context parallelism the EP ranks sit ETP apart, not TP·CP as in the layout before folding)
    stride = expert_tp(c)
    k = per_domain(e, stride, cluster)
    e_f = e.astype(float)
    # elements of one copy of the tokens this GPU routes: sequence parallelism leaves it T/t of them
    row = T / c["tp"] * m.hidden
    deepep = sw.ep_dispatch == "deepep"
    if deepep:
        domains = np.ceil(e_f / k)
        reach = np.minimum(domains, m.route_nodes) if m.route_nodes else domains
        net_copies = _distinct(m.top_k, reach) * (domains - 1) / domains
        nvl_copies = m.top_k * (e_f - 1) / np.maximum(e_f, 1)  # own-domain peers, or forwarded on arrival
    else:
        net_copies = m.top_k * (e_f - k) / np.maximum(e_f, 1)
        nvl_copies = m.top_k * (k - 1) / np.maximum(e_f, 1)
    lat = (RING_BASE_US["simple"] + (k - 1) * RING_HOP_NVLINK_US["simple"]
           + (e_f - k) * net_hop_us(cluster, "simple") / np.maximum(k, 1)) * 1e-6

    # every rank sends its own tokens' copies, but the busiest rank receives the imbalance times the mean, and
    # the all-to-all ends when it has
    load = rank_imbalance(sw.expert_imbalance, e)

    def a2a(elem_bytes: float):
        return np.where(e > 1, load * np.maximum(nvl_copies * row * elem_bytes / nvl,
                                                 net_copies * row * elem_bytes / ib) + lat, 0.0)

    combine = a2a(2.0)
    dispatch = a2a(FP8_DISPATCH_BYTES) if deepep and precision in ("fp8", "fp4") else combine
    return dispatch + combine, 2 * combine


def pp_p2p(m, c, T, cluster, nvl, ib):
    """One activation (or its gradient) sent between stages: T·h·2 bytes, split across
    the TP ranks (scatter/gather optimisation; with SP they hold 1/t each)."""
    span = c["tp"] * c["cp"] * c["dp"] * 2
    inside = span <= cluster.nvlink_domain
    bw = np.where(inside, nvl, ib)
    hop = np.where(inside, RING_HOP_NVLINK_US["simple"], net_hop_us(cluster, "simple")) * 1e-6
    return np.where(c["pp"] > 1, T * m.hidden * 2.0 / c["tp"] / bw + RING_BASE_US["simple"] * 1e-6 + hop, 0.0)


def dp_groups(c, cluster):
    """(sharding group size, its member stride, replicas) of the data-parallel state.

    The group is DP×CP (Megatron shards the optimizer over both), members t ranks apart.
    Hybrid sharding (``hs`` = 1) shards inside an NVLink domain only and replicates across."""
    n = (c["dp"] * c["cp"]).astype(float)
    stride = c["tp"]
    inner = per_domain(n, stride, cluster)
    hybrid = (c["hs"] > 0) & (c["zero"] >= 1)
    shard = np.where(hybrid, inner, n)
    return shard, stride, n / shard


def dp_comm(layer_params, stage_params, c, cluster, nvl, ib, sw):
    """Data-parallel communication of one pipeline stage, as the framework issues it.

    Returns a dict of seconds:
      ``step_rs`` / ``step_ag`` — once per step: gradient reduce-scatter (or all-reduce at
        ZeRO-0, ``step_rs`` holds it) and parameter all-gather (ZeRO-1, and ZeRO-2's
        weights after the optimizer step);
      ``mb_rs`` — per micro-batch: ZeRO-2's gradient reduce-scatter;
      ``layer_ag`` / ``layer_rs`` — per layer per micro-batch: ZeRO-3/FSDP's weight
        all-gather (issued twice, before forward and before backward) and its gradient
        reduce-scatter;
      ``replica_ar`` — hybrid sharding: the all-reduce of the shard's gradients across
        replicas, once per step, over the fabric."""
    shard, stride, replicas = dp_groups(c, cluster)
    z = c["zero"]
    gb = float(sw.grad_comm_bytes)
    g_stage = np.broadcast_to(stage_params * gb, z.shape)
    layer_params, stage_params = np.broadcast_to(layer_params, z.shape), np.broadcast_to(stage_params, z.shape)
    zeros = np.zeros(len(z))

    def when(mask, make):
        """A collective only the plans that issue it pay for, and only for them is it worked out: ``make(rows)``
        times it for the rows ``rows`` picks."""
        if not mask.any():
            return zeros
        if mask.all():
            return make(slice(None))
        out = zeros.copy()
        out[mask] = make(mask)
        return out

    z0, z1, z2, z3 = (z == 0), (z == 1), (z == 2), (z == 3)
    rs_stage = when(z1 | z2, lambda r: ring(g_stage[r], shard[r], stride[r], cluster, nvl, ib, "rs"))
    # across replicas each shard member all-reduces its 1/shard of the gradients with its peers,
    # one per domain: a group of `replicas` members a whole domain apart (one NIC each)
    return {
        "step_rs": when(z0, lambda r: ring(g_stage[r], (c["dp"][r] * c["cp"][r]).astype(float), stride[r], cluster,
                                           nvl, ib, "ar")) + np.where(z1, rs_stage, 0.0),
        "step_ag": when(z1 | z2, lambda r: ring(stage_params[r] * 2.0, shard[r], stride[r], cluster, nvl, ib, "ag")),
        "mb_rs": np.where(z2, rs_stage, 0.0),
        "layer_ag": when(z3, lambda r: ring(layer_params[r] * 2.0, shard[r], stride[r], cluster, nvl, ib, "ag")),
        "layer_rs": when(z3, lambda r: ring(layer_params[r] * gb, shard[r], stride[r], cluster, nvl, ib, "rs")),
        "replica_ar": when((z >= 1) & (replicas > 1),
                           lambda r: ring(g_stage[r] / shard[r], replicas[r], cluster.nvlink_domain, cluster, nvl, ib,
                                          "ar")),
    }
