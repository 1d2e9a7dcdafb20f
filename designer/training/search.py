"""Plan search: enumerate every plan for a model and cluster as numpy columns, score them
all in one vectorised pass, and rank the ones that are valid and fit.

Candidates: TP over the divisors of the heads that fit an NVLink domain, PP up to the
layer count, CP over powers of two dividing the sequence, EP over the divisors of
the experts, micro-batch 1–8, virtual stages 1–8, recompute none/selective/full,
ZeRO 0–3; DP is what is left of the GPU count. Enumeration is a Cartesian product
of small integer arrays (np.meshgrid), so 10⁵–10⁶ plans cost tens of milliseconds.
"""
from __future__ import annotations

import numpy as np

from .engine import REASONS, evaluate
from .plan import PLAN_COLUMNS, plan_at


def _divisors(n: int, cap: int | None = None) -> list[int]:
    out = [k for k in range(1, (cap or n) + 1) if n % k == 0]
    return out


def _pow2(limit: int) -> list[int]:
    out, k = [], 1
    while k <= limit:
        out.append(k)
        k *= 2
    return out


def candidate_space(model, cluster, flash: bool = True, **fixed) -> dict[str, list[int]]:
    """The values each plan field may take; a field given in ``fixed`` takes only that."""
    n = cluster.gpus
    space = {
        "tp": [k for k in _pow2(min(cluster.nvlink_domain, model.heads)) if n % k == 0],
        "pp": [k for k in _divisors(n, min(model.layers, n))],
        "cp": [k for k in _pow2(16) if n % k == 0 and model.seq % (2 * k) == 0],
        "ep": [k for k in _divisors(model.experts) if n % k == 0],
        "b": [1, 2, 4, 8],
        "v": [1, 2, 3, 4, 6, 8],
        # with FlashAttention, selective recompute is what the kernel already does: one plan, not two
        "rc": [0, 2] if flash else [0, 1, 2],
        "sp": [1],
        "zero": [0, 1, 2, 3],
    }
    for k, val in fixed.items():
        if val is not None:
            space[k] = list(val) if isinstance(val, (list, tuple)) else [val]
    return space


def enumerate_plans(model, training, cluster, **fixed) -> dict[str, np.ndarray]:
    """All combinations of the candidate space whose TP·PP·CP divides the GPUs (DP = the rest)."""
    space = candidate_space(model, cluster, training.flash_attention, **fixed)
    keys = [k for k in PLAN_COLUMNS if k != "dp"]
    grids = np.meshgrid(*[np.asarray(space[k], dtype=np.int64) for k in keys], indexing="ij")
    cols = {k: g.ravel() for k, g in zip(keys, grids)}
    prod = cols["tp"] * cols["pp"] * cols["cp"]
    keep = cluster.gpus % prod == 0
    cols = {k: v[keep] for k, v in cols.items()}
    cols["dp"] = cluster.gpus // (cols["tp"] * cols["pp"] * cols["cp"])
    if "dp" in fixed and fixed["dp"] is not None:
        keep = cols["dp"] == fixed["dp"]
        cols = {k: v[keep] for k, v in cols.items()}
    # ZeRO stages are one plan when DP·CP = 1; v > 1 only with PP > 1
    keep = ((cols["zero"] == 1) | (cols["dp"] * cols["cp"] > 1)) & ((cols["v"] == 1) | (cols["pp"] > 1))
    return {k: cols[k][keep] for k in PLAN_COLUMNS}


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

    Returns ``{"best": index, "ranked": [indices], "cols", "result", "evaluated", "valid"}``."""
    cols = enumerate_plans(model, training, cluster, **fixed)
    res = evaluate(model, training, cols, cluster)
    ok = ~failing(res)
    idx = np.nonzero(ok)[0]
    # fastest first; at equal speed (within 0.05 %) the plan needing less memory
    speed = np.round(res["tokens_per_s"][idx] / res["tokens_per_s"][idx].max() * 2000) if len(idx) else idx
    order = idx[np.lexsort((res["memory"]["total_gb"][idx], -speed))] if len(idx) else idx
    return {"cols": cols, "result": res, "ranked": order[:top].tolist(), "evaluated": len(cols["tp"]),
            "valid": int(ok.sum()), "best": int(order[0]) if len(order) else None}


def loses_because(res: dict, best: int, i: int) -> str:
    """The biggest time component where plan ``i`` is worse than ``best``."""
    parts = {"pipeline bubble": "bubble_s", "exposed TP communication": "exposed_tp_s",
             "exposed DP/FSDP communication": "exposed_dp_s", "exposed PP communication": "exposed_pp_s",
             "exposed CP communication": "exposed_cp_s", "exposed EP communication": "exposed_ep_s",
             "compute (recompute, smaller GEMMs)": "compute_s", "optimizer step": "optimizer_s"}
    deltas = {name: float(res[k][i] - res[k][best]) for name, k in parts.items()}
    name, worst = max(deltas.items(), key=lambda kv: kv[1])
    slower = float(res["step_time_s"][i] / res["step_time_s"][best] - 1) * 100
    if slower < 0.05:
        extra = float(res["memory"]["total_gb"][i] - res["memory"]["total_gb"][best])
        return f"same speed, needs {extra:.1f} GB more memory per GPU"
    return f"{slower:.1f}% slower: more {name} (+{worst:.3g} s/step)"


__all__ = ["search_plans", "enumerate_plans", "plan_at", "why_not", "loses_because"]
