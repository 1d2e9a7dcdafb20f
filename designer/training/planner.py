"""Search + estimate: the best plan as a full Estimate, and a short list saying why the others lose."""
from __future__ import annotations

from .errors import TrainingError
from .estimate import estimate
from .plan import plan_at
from .search import loses_because, search_plans


def _row(cols, res, i) -> dict:
    p = plan_at(cols, i)
    return {"tp": p.tp, "pp": p.pp, "dp": p.dp, "cp": p.cp, "ep": p.ep, "micro_batch": p.micro_batch,
            "virtual_stages": p.virtual_stages, "recompute": p.recompute, "zero": p.zero,
            "tokens_per_s": round(float(res["tokens_per_s"][i]), 1), "mfu": round(float(res["mfu"][i]), 4),
            "memory_gb_per_gpu": round(float(res["memory"]["total_gb"][i]), 2)}


def naive_plan_index(cols, res, cluster):
    """The plan a newcomer writes first: pure data parallelism (TP1 PP1 CP1, ZeRO-1, micro-batch 1,
    no recompute) — or, if that does not exist, the first enumerated plan."""
    import numpy as np

    want = (cols["tp"] == 1) & (cols["pp"] == 1) & (cols["cp"] == 1) & (cols["b"] == 1) & (cols["rc"] == 0) \
        & (cols["zero"] == 1) & (cols["v"] == 1) & (cols["ep"] == 1)
    idx = np.nonzero(want)[0]
    return int(idx[0]) if len(idx) else None


def best_plan(model, training, cluster, *, top: int = 5, **fixed):
    """(Estimate of the best plan, search summary dict). Raises TrainingError if no plan fits."""
    from .search import why_not

    out = search_plans(model, training, cluster, top=top, **fixed)
    cols, res = out["cols"], out["result"]
    if out["best"] is None:
        if out["evaluated"] == 0:
            raise TrainingError(f"no parallelism plan divides {cluster.gpus} GPUs for {model.name} "
                                f"with the given constraints")
        raise TrainingError(f"no plan for {model.name} fits {cluster.gpus}× {cluster.gpu} "
                            f"({cluster.hbm_gb:g} GB each) with global batch {training.global_batch}; "
                            f"add GPUs or shrink the batch or sequence")
    best = out["best"]
    est = estimate(model, training, plan_at(cols, best), cluster)
    ranked = []
    for rank, i in enumerate(out["ranked"], 1):
        row = _row(cols, res, i)
        row["rank"] = rank
        row["why"] = "best: highest tokens/s among plans that fit" if i == best else loses_because(res, best, i)
        ranked.append(row)
    summary = {"evaluated": out["evaluated"], "valid": out["valid"], "ranked": ranked}
    naive = naive_plan_index(cols, res, cluster)
    if naive is not None:
        row = _row(cols, res, naive)
        reasons = why_not(res, naive)
        row["why"] = "; ".join(reasons) if reasons else loses_because(res, best, naive)
        row["fits"] = "does not fit in GPU memory" not in reasons
        summary["naive"] = row
    return est, summary
