"""Collective-communication time estimates (alpha-beta model) with NCCL's bus-bandwidth convention.

Why NCCL's convention: users compare our numbers with ``nccl-tests`` output, which
reports *bus bandwidth* = algorithm bandwidth (size / time) x a factor that makes
it comparable to the link speed: all-reduce 2(n-1)/n; all-gather, reduce-scatter
and all-to-all (n-1)/n. ``size`` is what nccl-tests calls size: the per-rank
buffer for all-reduce and all-to-all, the total (gathered) buffer for all-gather
and reduce-scatter. Conversely the bandwidth term of a collective is
``factor * size / busbw`` and the latency term ``steps * alpha``.

Which bandwidth a group sees (``group_bus_bw``): inside one NVLink domain, the
per-GPU NVLink bandwidth (one direction); across domains, NCCL runs one ring per
NIC, so a ring crosses each node boundary on every NIC at once and the bus
bandwidth is ``min(NVLink, GPUs per domain x per-GPU network bandwidth)``. The
network share drops by the oversubscription when the group leaves one leaf.
All bandwidths are bytes/s; sizes bytes; times seconds.
"""
from __future__ import annotations

import math

import numpy as np

BUS_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
}
#: NCCL's own cost model for ring collectives (``src/graph/tuning.cc``, NCCL 2.7),
#: microseconds: a base latency per collective and a hardware latency per ring step on
#: NVLink and on the network, for the LL128 and Simple protocols. NCCL takes whichever is
#: faster for the message; LL128 carries 120 of every 128 bytes (its 0.92).
RING_BASE_US = {"ll128": 10.0, "simple": 8.4}
RING_HOP_NVLINK_US = {"ll128": 1.9, "simple": 3.4}
RING_HOP_NET_US = {"ll128": 4.0, "simple": 9.6}
LL128_BW = 0.92
#: Per-step latencies of the alpha-beta estimates: NCCL's LL128 ring hop on each medium.
ALPHA_NVLINK_S = RING_HOP_NVLINK_US["ll128"] * 1e-6
ALPHA_NETWORK_S = RING_HOP_NET_US["ll128"] * 1e-6


def _check(size: float, n: int) -> None:
    if size < 0:
        raise ValueError(f"message size must be >= 0 bytes, got {size}")
    if n < 1:
        raise ValueError(f"a group needs at least 1 rank, got {n}")


def bus_bandwidth(op: str, size: float, n: int, seconds: float) -> float:
    """nccl-tests' busbw for a measured or estimated time."""
    return size / seconds * BUS_FACTOR[op](n) if seconds > 0 else math.inf


def ring_all_reduce(size: float, n: int, bw: float, alpha: float = 0.0) -> float:
    """Reduce-scatter then all-gather around a ring: 2(n-1) steps, 2(n-1)/n of the buffer per rank."""
    _check(size, n)
    return 0.0 if n == 1 else 2 * (n - 1) * alpha + 2 * (n - 1) / n * size / bw


def tree_all_reduce(size: float, n: int, bw: float, alpha: float = 0.0) -> float:
    """NCCL's double binary tree: same bytes per rank as the ring, but 2*ceil(log2 n) latency steps."""
    _check(size, n)
    return 0.0 if n == 1 else 2 * math.ceil(math.log2(n)) * alpha + 2 * (n - 1) / n * size / bw


def all_gather(size: float, n: int, bw: float, alpha: float = 0.0) -> float:
    """Ring all-gather of a ``size``-byte result: n-1 steps of size/n."""
    _check(size, n)
    return 0.0 if n == 1 else (n - 1) * alpha + (n - 1) / n * size / bw


def reduce_scatter(size: float, n: int, bw: float, alpha: float = 0.0) -> float:
    """Ring reduce-scatter of a ``size``-byte input: the mirror of all-gather."""
    return all_gather(size, n, bw, alpha)


def all_to_all(size: float, n: int, bw_local: float, bw_remote: float | None = None, domain: int | None = None,
               alpha: float = 0.0) -> float:
    """Each rank sends size/n to every other rank, n-1 exchange steps.

    Inside an NVLink domain the ``domain - 1`` peers get their share over NVLink
    (``bw_local``) while the rest goes through the rank's own NIC (``bw_remote``) at
    the same time; the slower side sets the time. No aggregation helps here: every
    GPU sends to remote peers at once.
    """
    _check(size, n)
    if n == 1:
        return 0.0
    g = min(domain or n, n)
    local = (g - 1) / n * size / bw_local
    remote = (n - g) / n * size / bw_remote if n > g else 0.0
    return (n - 1) * alpha + max(local, remote)


def hierarchical_all_reduce(size: float, n: int, domain: int, bw_nvlink: float, bw_network: float,
                            alpha_nvlink: float = 0.0, alpha_network: float = 0.0) -> float:
    """Reduce-scatter in the NVLink domain, ring all-reduce of 1/domain of the buffer across domains
    (each GPU on its own rail), all-gather in the domain."""
    _check(size, n)
    g = min(domain, n)
    m = math.ceil(n / g)
    inside = reduce_scatter(size, g, bw_nvlink, alpha_nvlink) if g > 1 else 0.0
    across = ring_all_reduce(size / g, m, bw_network, alpha_network) if m > 1 else 0.0
    return 2 * inside + across


def group_bus_bw(n, domain, bw_nvlink, bw_network):
    """Bus bandwidth a flat ring/tree over ``n`` GPUs, ``domain`` of them in each NVLink
    domain, sees (see the module docstring). Scalars give a float; arrays (the training
    engine's plan columns) an array."""
    out = np.where(np.asarray(n) <= domain, bw_nvlink, np.minimum(bw_nvlink, np.multiply(domain, bw_network)))
    return float(out) if out.ndim == 0 else out


def estimates(size: float, n: int, domain: int, bw_nvlink: float, bw_network: float, *,
              alpha_nvlink: float = ALPHA_NVLINK_S, alpha_network: float = ALPHA_NETWORK_S) -> dict:
    """Every collective for one message size and group, with time and NCCL bus bandwidth."""
    flat = group_bus_bw(n, domain, bw_nvlink, bw_network)
    alpha = alpha_nvlink if n <= domain else alpha_network
    times = {
        "all_reduce_ring": ("all_reduce", ring_all_reduce(size, n, flat, alpha)),
        "all_reduce_tree": ("all_reduce", tree_all_reduce(size, n, flat, alpha)),
        "all_reduce_hierarchical": ("all_reduce", hierarchical_all_reduce(
            size, n, domain, bw_nvlink, bw_network, alpha_nvlink, alpha_network)),
        "all_gather": ("all_gather", all_gather(size, n, flat, alpha)),
        "reduce_scatter": ("reduce_scatter", reduce_scatter(size, n, flat, alpha)),
        "all_to_all": ("all_to_all", all_to_all(size, n, bw_nvlink, bw_network, domain, alpha)),
    }
    out = {}
    for name, (op, t) in times.items():
        out[name] = {"time_ms": round(t * 1e3, 4),
                     "bus_bw_gbs": round(bus_bandwidth(op, size, n, t) / 1e9, 2) if t > 0 else None}
    return out
