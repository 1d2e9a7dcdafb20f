"""Training-engine benchmark: vectorised plan-search speed and the published-row comparison.

    python -m bench.training_bench
"""
from __future__ import annotations

import json

from .timing import best_of


def bench() -> dict:
    from catalog import default_catalog
    from designer.training import Training, cluster_from_system, preset, search_plans
    from designer.training.validation import compare, set_errors

    from designer.training.search import _last_enumerated

    def cold_search(*args):  # each run enumerates afresh: the search keeps its last space for the next precision
        _last_enumerated.cache_clear()
        return search_plans(*args)

    catalog = default_catalog()
    model = preset("llama3-405b")
    cluster = cluster_from_system(catalog, "dgx-h100", 16384)
    training = Training(global_batch=2048, tokens=15.6e12)
    full_s, out = best_of(lambda: cold_search(model, training, cluster))
    # throughput on a larger, fixed space: every plan of a 70B model on 4,096 GPUs
    m70 = preset("llama3-70b")
    c4k = cluster_from_system(catalog, "dgx-b200", 4096)
    t70 = Training(global_batch=512)
    t_70, out70 = best_of(lambda: cold_search(m70, t70, c4k))
    rows = compare()
    # one estimate() of a full plan at a time, over distinct plans, as the GUI and CLI call it
    from designer.training import Plan, estimate

    plans = [Plan(tp=8, pp=16, dp=128, virtual_stages=v, recompute=rc) for v in (1, 2, 4, 8) for rc in ("none", "full")]
    from designer.training.engine import _layer_times_memo

    def estimates():  # cold: nothing remembered from an earlier run
        _layer_times_memo.cache_clear()
        return [estimate(model, training, p, cluster) for p in plans]

    est_s, _ = best_of(estimates)
    errs = [abs(r["error_pct"]) for r in rows]
    sets = set_errors(rows)
    return {
        "plan_search_plans_per_s": round((out["evaluated"] + out70["evaluated"]) / (full_s + t_70)),
        "plan_search_405b_16k_s": round(full_s, 4),
        "plan_search_405b_16k_plans": out["evaluated"],
        "plan_search_405b_16k_runnable": out["runnable"],
        "plan_search_405b_16k_valid": out["valid"],
        "estimate_per_s": round(len(plans) / est_s),
        "training_validation_mean_abs_err_pct": round(sum(errs) / len(errs), 2),
        "training_validation_max_abs_err_pct": max(errs),
        # each set on its own: the reference rows (constants read or chosen from them) and the held-out rows
        **{f"training_validation_{name}_{key}": value for name, figures in
           (("reference", sets["reference"]), ("heldout", sets["held-out"])) for key, value in figures.items()},
        "training_validation": [{k: r[k] for k in ("row", "set", "model", "gpus", "plan", "measured", "predicted",
                                                   "error_pct")} for r in rows],
    }


if __name__ == "__main__":
    print(json.dumps(bench(), indent=2))
