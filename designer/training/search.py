"""Plan search: enumerate every plan for a model and cluster as numpy columns, score them
all in one vectorised pass, and rank the ones that are valid and fit.

Candidates: TP over the divisors of the heads that fit an NVLink domain, PP up to the
layer count, CP over powers of two dividing the sequence, EP over the divisors of
the experts, expert TP over powers of two up to TP (models with experts), micro-batch
1–8, virtual stages 1–8, the recompute modes the software offers, ZeRO 0–3, the offloads
the software and the system's host allow; DP is what is left of the GPU count. Enumeration
is a Cartesian product of small integer arrays (np.meshgrid), so 10⁵–10⁶ plans cost tens
of milliseconds.
"""
from __future__ import annotations

from functools import lru_cache, partial

import numpy as np

from ..formatting import quantity
from .engine import REASONS, evaluate
from .offload import breaks_rules, modes
from .plan import OFFLOAD, PLAN_COLUMNS, RECOMPUTE, plan_at


def _divisors(n: int, cap: int | None = None) -> list[int]:
    out = [k for k in range(1, (cap or n) + 1) if n % k == 0]
    return out


def _pow2(limit: int) -> list[int]:
    out, k = [], 1
    while k <= limit:
        out.append(k)
        k *= 2
    return out


#: Pipeline depths practitioners use whether or not they divide the GPU count (the GPUs left
#: over idle as spares).
#: At most 1/IDLE_LIMIT of the GPUs may stay idle in a searched plan (more never wins in practice).
IDLE_LIMIT = 2
USUAL_PP = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 20, 24, 28, 32)


def candidate_space(model, cluster, software, **fixed) -> dict[str, list[int]]:
    """The values each plan field may take; a field given in ``fixed`` takes only that."""
    n = cluster.gpus
    space = {
        "tp": [k for k in _pow2(min(cluster.nvlink_domain, model.heads)) if k <= n],
        "pp": sorted(set(_divisors(n, min(model.layers, n))) | {k for k in USUAL_PP if k <= min(model.layers, n)}),
        "cp": [k for k in _pow2(16 if software.context_parallel else 1)
               if k <= n and (k == 1 or model.seq % (2 * k) == 0)],
        "ep": [k for k in _divisors(model.experts) if k <= n],
        # expert TP (MoE parallel folding): each expert split over a power of two of GPUs up to the attention's
        # TP (the recipes' range: whole experts, or split as the attention is); 0 = as TP, the only value a model
        # without experts has
        "etp": ([k for k in _pow2(min(cluster.nvlink_domain, n)) if model.expert_ffn % k == 0] if model.moe
                else [0]),
        "b": [1, 2, 4, 8],
        "v": [1, 2, 3, 4, 6, 8],
        # with FlashAttention, selective recompute is what the kernel already does: one plan, not two;
        # a framework that lacks a mode cannot pick it
        "rc": [RECOMPUTE.index(r) for r in software.recompute_modes if not (software.flash and r == "selective")],
        "sp": [1],
        "zero": [0, 1, 2, 3],
        "hs": [0, 1],
        # offload only where the system's host memory and link are known (the CPU step needs its bandwidth too)
        "off": [OFFLOAD.index(o) for o in software.offload_modes
                if o == "none" or (cluster.host_link_gbs > 0 and cluster.host_gb_per_gpu > 0
                                   and (o == "activations" or cluster.host_gbs_per_gpu > 0))],
    }
    for k, val in fixed.items():
        if val is not None:
            space[k] = list(val) if isinstance(val, (list, tuple)) else [val]
    return space


def considered(model, training, cluster, **fixed) -> int:
    """Plans the search considers: every combination of the candidate space (most are
    discarded by the rules while the grid is built, before any timing)."""
    space = candidate_space(model, cluster, training.software, **fixed)
    # expert TP is tried up to TP only, unless fixed: count the (TP, expert TP) pairs the search builds
    pairs = sum(1 for t in space["tp"] for u in space["etp"] if u <= t or fixed.get("etp") is not None)
    return int(pairs * np.prod([len(space[k]) for k in PLAN_COLUMNS if k not in ("dp", "tp", "etp")], dtype=float))


def _grid(space: dict, keys) -> dict[str, np.ndarray]:
    grids = np.meshgrid(*[np.asarray(space[k], dtype=np.int64) for k in keys], indexing="ij")
    return {k: g.ravel() for k, g in zip(keys, grids)}


def _cross(cols: dict, extra: dict, rule) -> dict:
    """Every row of ``cols`` with every combination of ``extra`` (a small grid) for which ``rule(rows, extra)``
    holds, in the order of the whole product (row by row). The rule sees the rows as a column (n×1) and the
    combinations as a row (1×m): the n×m pairs are tested by broadcasting and only the kept ones are built
    (building every pair first cost more than scoring the plans)."""
    n, m = len(next(iter(cols.values()))), len(next(iter(extra.values())))
    keep = rule({k: v[:, None] for k, v in cols.items()}, {k: v[None, :] for k, v in extra.items()})
    r, c = np.nonzero(np.broadcast_to(keep, (n, m)))
    return {**{k: v[r] for k, v in cols.items()}, **{k: v[c] for k, v in extra.items()}}


def _keep(cols: dict, mask) -> dict:
    return {k: v[mask] for k, v in cols.items()}


def enumerate_plans(model, training, cluster, **fixed) -> dict[str, np.ndarray]:
    """Every plan of the candidate space that can run: TP·PP·CP·DP within the GPUs, DP the most
    the batch allows, and the rules that need no timing (interleaving, heads, sequence split,
    experts) applied as the grid is built, so the engine times only plans that can run.

    The last space enumerated is kept (its columns read-only), since the same model, batch and software on the same
    cluster come again at the next precision: a sweep's or a goal's BF16 and FP8 rows. An analysis that draws the
    throughput-vs-size chart searches other sizes in between and enumerates afresh; the space kept is one search's
    columns, tens of megabytes at most."""
    try:
        key = (model, training.global_batch, training.software, cluster,
               tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in fixed.items())))
        hash(key)
    except TypeError:  # a caller's own unhashable model or cluster: enumerated afresh
        return _enumerate(model, training.global_batch, training.software, cluster, fixed)
    return dict(_last_enumerated(*key))


@lru_cache(maxsize=1)
def _last_enumerated(model, global_batch: int, software, cluster, fixed: tuple) -> dict[str, np.ndarray]:
    cols = _enumerate(model, global_batch, software, cluster, dict(fixed))
    for v in cols.values():
        v.flags.writeable = False
    return cols


def _enumerate(model, global_batch: int, software, cluster, fixed: dict) -> dict[str, np.ndarray]:
    space = candidate_space(model, cluster, software, **fixed)
    n = cluster.gpus
    cols = _grid(space, ("tp", "pp", "cp", "b"))
    prod = cols["tp"] * cols["pp"] * cols["cp"]
    ok = (prod <= n) & (cols["pp"] <= model.layers)
    ok &= (model.heads % cols["tp"] == 0) & ((model.kv_heads % cols["tp"] == 0) | (cols["tp"] % model.kv_heads == 0))
    ok &= (cols["cp"] == 1) | ((model.seq % (2 * cols["cp"]) == 0) & software.context_parallel)
    cols, prod = _keep(cols, ok), prod[ok]
    if "dp" in fixed and fixed["dp"] is not None:
        cols["dp"] = np.full(len(prod), int(fixed["dp"]), dtype=np.int64)
        cols = _keep(cols, prod * cols["dp"] <= n)
    else:
        dp = batch_dp(n // prod, cols["b"], global_batch)
        # spares, not waste: a plan that leaves half the GPUs idle is not one (the newcomer's
        # pure data-parallel plan is kept, on every GPU, whether the batch divides or not)
        naive = (cols["tp"] == 1) & (cols["pp"] == 1) & (cols["cp"] == 1) & (cols["b"] == 1)
        cols["dp"] = np.where(naive, n // prod, dp)
        cols = _keep(cols, (prod * cols["dp"] * IDLE_LIMIT >= n * (IDLE_LIMIT - 1)) | naive)
    # interleaving: v > 1 only with PP > 1, micro-batches a multiple of PP, stage layers of v
    per = -(-model.layers // cols["pp"])
    mb = global_batch // np.maximum(cols["dp"] * cols["b"], 1)
    interleaves, per = ((cols["pp"] > 1) & (mb % cols["pp"] == 0))[:, None], per[:, None]
    cols = _cross(cols, {"v": np.asarray(space["v"], dtype=np.int64)},
                  lambda r, x: (x["v"] == 1) | (interleaves & (per % x["v"] == 0)))
    cols = _cross(cols, _grid(space, ("ep", "rc", "sp", "zero", "hs", "off", "etp")),
                  partial(_runs, zero_first=space["zero"][0], domain=cluster.nvlink_domain,
                          etp_fixed=fixed.get("etp") is not None))
    cols["etp"] = np.where(cols["etp"] == 0, cols["tp"], cols["etp"])
    return {k: cols[k] for k in PLAN_COLUMNS}


def _runs(r: dict, x: dict, *, zero_first: int, domain: int, etp_fixed: bool):
    """The rules a plan's data-parallel, expert, ZeRO and offload fields obey, for plan rows ``r`` crossed with
    field combinations ``x`` (:func:`_cross`)."""
    etp = np.where(x["etp"] == 0, r["tp"], x["etp"])
    dpc = r["dp"] * r["cp"]
    spans = dpc * r["tp"] > domain
    opt, _ = modes(x)
    # ZeRO stages are one plan when DP·CP = 1; hybrid sharding only when ZeRO shards something
    # and the data-parallel group spans more than one NVLink domain; expert TP × EP inside TP·DP·CP; activation
    # offload only without a pipeline or recompute, optimizer offload only with a sharded (distributed) optimizer
    # (with DP·CP = 1 optimizer offload still needs Megatron's distributed optimizer: ZeRO 1 is kept for it)
    one_zero = (x["zero"] == zero_first) | (opt & (x["zero"] == 1))
    return ((one_zero | (dpc > 1)) & ((x["hs"] == 0) | ((x["zero"] >= 1) & spans))
            & ((dpc * r["tp"]) % (x["ep"] * etp) == 0)
            & ((etp <= r["tp"]) | etp_fixed) & ~breaks_rules({**r, **x}))


def batch_dp(dp_max, micro_batch, global_batch: int):
    """The data-parallel degree a plan runs at: the largest d ≤ ``dp_max`` (all the GPUs the
    model-parallel group leaves) for which d × micro-batch divides the global batch — the rest
    of the GPUs stay idle as spares, as practitioners do with a GPU count that factors badly.
    Where no such d exists, ``dp_max`` (and the plan is refused for its batch)."""
    dp_max = np.asarray(dp_max, dtype=np.int64)
    out = dp_max.copy()
    for b in np.unique(micro_batch):
        rows = micro_batch == b
        if global_batch % int(b):
            continue
        divisors = np.asarray(_divisors(global_batch // int(b)), dtype=np.int64)
        at = np.searchsorted(divisors, dp_max[rows], side="right") - 1
        out[rows] = np.where(at >= 0, divisors[np.maximum(at, 0)], dp_max[rows])
    return out


def naive_mask(cols) -> np.ndarray:
    """The plan a newcomer writes first: pure data parallelism (TP1 PP1 CP1 EP1, ZeRO-1,
    micro-batch 1, no recompute, no interleaving, no hybrid sharding)."""
    return ((cols["tp"] == 1) & (cols["pp"] == 1) & (cols["cp"] == 1) & (cols["b"] == 1) & (cols["rc"] == 0)
            & (cols["zero"] == 1) & (cols["v"] == 1) & (cols["ep"] == 1) & (cols["hs"] == 0) & (cols["off"] == 0)
            & (cols["etp"] == cols["tp"]))


def failing(result: dict) -> np.ndarray:
    bad = result["bad"]
    out = np.zeros(len(result["step_time_s"]), dtype=bool)
    for v in bad.values():
        out |= v
    return out


def why_not(result: dict, i: int) -> list[str]:
    return [REASONS[k] for k, v in result["bad"].items() if v[i]]


def search_plans(model, training, cluster, *, top: int = 5, **fixed) -> dict:
    """Best plan and a ranked short list; each runner-up says why it loses.

    Returns ``{"best": index, "ranked": [indices], "cols", "result", "evaluated", "runnable", "valid"}``:
    plans considered (every combination of the candidate space), those that can run at all
    (timed by the engine), and those that also fit."""
    cols = enumerate_plans(model, training, cluster, **fixed)
    res = evaluate(model, training, cols, cluster, prune=True, keep=naive_mask(cols))
    ok = ~failing(res)
    idx = np.nonzero(ok)[0]
    # fastest first; at equal speed (within 0.05 %) the plan needing less memory
    speed = np.round(res["tokens_per_s"][idx] / res["tokens_per_s"][idx].max() * 2000) if len(idx) else idx
    # only the plans as fast as the top-th are ranked (sorting them all cost a tenth of a search); speeds that are
    # not numbers (no plan moves a token) are sorted whole, as before, NaN last
    if 0 < top < len(idx) and np.isfinite(speed).all():
        near = speed >= np.partition(speed, len(idx) - top)[len(idx) - top]
        idx, speed = idx[near], speed[near]
    order = idx[np.lexsort((res["memory"]["total_gb"][idx], -speed))] if len(idx) else idx
    return {"cols": cols, "result": res, "ranked": order[:top].tolist(), "runnable": len(cols["tp"]),
            "evaluated": considered(model, training, cluster, **fixed),
            "valid": int(ok.sum()), "best": int(order[0]) if len(order) else None}


def loses_because(res: dict, best: int, i: int) -> str:
    """The biggest time component where plan ``i`` is worse than ``best``."""
    parts = {"pipeline bubble": "bubble_s", "exposed TP communication": "exposed_tp_s",
             "exposed DP/FSDP communication": "exposed_dp_s", "exposed PP communication": "exposed_pp_s",
             "exposed CP communication": "exposed_cp_s", "exposed EP communication": "exposed_ep_s",
             "compute (recompute, smaller GEMMs)": "compute_s", "optimizer step": "optimizer_s",
             "host-memory copies": "offload_s"}
    deltas = {name: float(res[k][i] - res[k][best]) for name, k in parts.items()}
    name, worst = max(deltas.items(), key=lambda kv: kv[1])
    slower = float(res["step_time_s"][i] / res["step_time_s"][best] - 1) * 100
    if slower < 0.05:
        extra = float(res["memory"]["total_gb"][i] - res["memory"]["total_gb"][best])
        return f"same speed, needs {quantity(extra, 'GB')} more memory per GPU"
    return f"{slower:.1f}% slower: more {name} (+{worst:.3g} s/step)"


__all__ = ["search_plans", "enumerate_plans", "plan_at", "why_not", "loses_because"]
