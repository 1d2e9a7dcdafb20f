"""Search + estimate: the best plan as a full Estimate, and a short list saying why the others lose."""
from __future__ import annotations

import numpy as np

from .errors import NothingFits, TrainingError
from .estimate import estimate
from .memory import offload_layers, recompute_layers
from .plan import plan_at
from .search import batch_dp, loses_because, search_plans


def _row(model, cols, res, i) -> dict:
    """One searched plan as a row; a plan that does not fit in memory has no speed (null), as an estimate has none.
    Expert TP is null for a model without experts."""
    p = plan_at(cols, i)
    runs = not res["bad"]["memory"][i]
    return {"tp": p.tp, "pp": p.pp, "dp": p.dp, "cp": p.cp, "ep": p.ep, "micro_batch": p.micro_batch,
            "virtual_stages": p.virtual_stages, "recompute": p.recompute,
            "recompute_layers": recompute_layers(res["memory"], i, p.recompute), "zero": p.zero,
            "hybrid_shard": p.hybrid_shard, "offload": p.offload, "expert_tp": p.etp if model.moe else None,
            "offload_layers": offload_layers(res["memory"], i, p.offload),
            "tokens_per_s": round(float(res["tokens_per_s"][i]), 1) if runs else None,
            "mfu": round(float(res["mfu"][i]), 4) if runs else None,
            "memory_gb_per_gpu": round(float(res["memory"]["total_gb"][i]), 2)}


def naive_plan_index(cols):
    """The index of the plan a newcomer writes first (search.naive_mask), or None."""
    import numpy as np

    from .search import naive_mask

    idx = np.nonzero(naive_mask(cols))[0]
    return int(idx[0]) if len(idx) else None


def why_nothing_runs(model, training, cluster, fixed: dict) -> str:
    """The rule the fixed fields break when the search finds no plan that can run."""
    cp, tp, hs, zero = fixed.get("cp"), fixed.get("tp"), fixed.get("hs"), fixed.get("zero")
    if cp and cp > 1 and not training.software.context_parallel:
        return f"{training.software.name} has no context parallelism (CP {cp})"
    if cp and cp > 1 and model.seq % (2 * cp):
        return f"the sequence of {model.seq} is not divisible by 2·CP = {2 * cp}"
    if tp and (model.heads % tp or (model.kv_heads % tp and tp % model.kv_heads)):
        return f"TP {tp} does not divide the {model.heads} attention heads ({model.kv_heads} KV heads)"
    if hs and zero == 0:
        return "hybrid sharding needs ZeRO 1 or more"
    if hs:
        return (f"hybrid sharding needs a data-parallel group wider than one NVLink domain "
                f"({cluster.nvlink_domain} GPUs)")
    if fixed.get("pp") and fixed["pp"] > model.layers:
        return f"PP {fixed['pp']} is more than the model's {model.layers} layers"
    if fixed.get("off"):
        return _why_no_offload(model, training, cluster, fixed)
    etp = fixed.get("etp")
    if etp and model.expert_ffn % etp:
        return f"expert TP {etp} does not divide the experts' FFN of {model.expert_ffn}"
    if etp:
        return (f"no TP·PP·CP·DP within the GPUs holds expert TP {etp} × EP as whole groups and divides the global "
                f"batch of {training.global_batch}")
    return (f"no TP·PP·CP·DP within the GPUs divides the global batch of {training.global_batch} "
            f"with the given constraints")


def _why_no_offload(model, training, cluster, fixed: dict) -> str:
    """Why no plan can run with the offload the user fixed: the rule it breaks, or the host memory it overfills."""
    from .offload import HOST_USABLE
    from .plan import OFFLOAD

    mode, sw = OFFLOAD[fixed["off"]], training.software
    name = cluster.system or cluster.gpu_name
    if mode not in sw.offload_modes:
        return f"{sw.name} does not offload {mode} (it offers: {', '.join(sw.offload_modes)})"
    if cluster.host_link_gbs <= 0 or cluster.host_gb_per_gpu <= 0:
        return f"the catalog has no host memory or GPU-to-host link for {name}: nothing can be offloaded"
    if mode in ("optimizer", "both") and cluster.host_gbs_per_gpu <= 0:
        return f"the catalog has no host memory bandwidth for {name}: the CPU's optimizer step cannot be timed"
    if mode in ("activations", "both") and (fixed.get("pp") or 1) > 1:
        return "activation offload needs PP 1 (Megatron-Core offloads no activations with a pipeline)"
    if mode in ("activations", "both") and fixed.get("rc"):
        return "activation offload needs no recompute (Megatron-Core refuses the two together)"
    if mode in ("optimizer", "both") and fixed.get("zero") == 0:
        return "optimizer offload needs ZeRO 1 or more (Megatron's distributed optimizer)"
    return (f"what the plans offload does not fit in the host memory's share per GPU "
            f"({HOST_USABLE:.0%} of {cluster.host_gb_per_gpu:,.0f} GB)")


def binding_limit(cols, res, cluster) -> str | None:
    """Why no plan fits, in words: memory binds, and the leanest plan that breaks no other rule says by how much
    (what it needs, how far over and its largest part), so the user sees how far the GPUs are from the model.
    None when every plan breaks another rule too: then memory is not what binds."""
    from .estimate import memory_short

    bad = res["bad"]
    other = np.logical_or.reduce([v for k, v in bad.items() if k != "memory"]) if len(bad) > 1 else None
    total = res["memory"]["total_gb"]
    only_memory = np.nonzero(~other)[0] if other is not None else np.arange(len(total))
    if not len(only_memory):
        return None
    i = int(only_memory[np.argmin(total[only_memory])])
    p = plan_at(cols, i)
    return (f"memory binds: the leanest plan, TP{p.tp} PP{p.pp} DP{p.dp} CP{p.cp} EP{p.ep}"
            + (f" ETP{p.etp}" if p.etp != p.tp else "") + f" micro-batch "
            f"{p.micro_batch} recompute {p.recompute} ZeRO-{p.zero}"
            + (f" offload {p.offload}" if p.offload != "none" else "")
            + f", {memory_short(res['memory'], i, cluster.hbm_gb)}")


def _refuse_expert_tp_without_experts(model, etp) -> None:
    """A dense model has no expert TP: given one, say so rather than search or estimate around it."""
    if etp and not model.moe:
        raise TrainingError(f"expert TP splits experts; {model.name} has none")


def best_plan(model, training, cluster, *, top: int = 5, **fixed):
    """(Estimate of the best plan, search summary dict). Raises TrainingError if no plan fits."""
    from .search import why_not

    _refuse_expert_tp_without_experts(model, fixed.get("etp"))
    out = search_plans(model, training, cluster, top=top, **fixed)
    cols, res = out["cols"], out["result"]
    if out["best"] is None:
        memory = binding_limit(cols, res, cluster) if out["runnable"] else None
        if memory is None:
            raise TrainingError(f"no plan for {model.name} can run on {cluster.gpus} GPUs: "
                                + why_nothing_runs(model, training, cluster, fixed))
        raise NothingFits(f"no plan for {model.name} fits {cluster.gpus}× {cluster.gpu_name} "
                          f"({cluster.hbm_gb:g} GB each) with global batch {training.global_batch}: "
                          f"{memory}; add GPUs or shrink the batch or sequence")
    best = out["best"]
    est = estimate(model, training, plan_at(cols, best), cluster, allow_idle=True)
    ranked = []
    for rank, i in enumerate(out["ranked"], 1):
        row = _row(model, cols, res, i)
        row["rank"] = rank
        row["why"] = "best: highest tokens/s among plans that fit" if i == best else loses_because(res, best, i)
        ranked.append(row)
    summary = {"evaluated": out["evaluated"], "runnable": out["runnable"], "valid": out["valid"], "ranked": ranked}
    naive = naive_plan_index(cols)
    if naive is not None:
        row = _row(model, cols, res, naive)
        reasons = why_not(res, naive)
        row["why"] = "; ".join(reasons) if reasons else loses_because(res, best, naive)
        row["fits"] = "does not fit in GPU memory" not in reasons
        summary["naive"] = row
    return est, summary


def given_plan(model, training, cluster, fields: dict):
    """The estimate of a plan the user stated (any of tp, pp, dp, cp, ep, micro_batch,
    virtual_stages, recompute, zero, hybrid_shard, sequence_parallel, offload, expert_tp). Unstated fields take
    the usual values — TP/PP/CP/EP 1, DP the rest, micro-batch 1, no interleaving, the
    software's ZeRO stage — and an unstated recompute is the least one the software offers
    that fits in memory, as practitioners choose it. Returns (Estimate, {field: why})."""
    from .plan import Plan

    t, p, c = (int(fields.get(k) or 1) for k in ("tp", "pp", "cp"))  # typed by the callers
    _refuse_expert_tp_without_experts(model, fields.get("expert_tp"))
    if t * p * c > cluster.gpus:
        raise TrainingError(f"TP{t}×PP{p}×CP{c} = {t * p * c} is more than the {cluster.gpus} GPUs")
    if cluster.gpus % (t * p * c):
        raise TrainingError(f"TP{t}×PP{p}×CP{c} = {t * p * c} does not divide {cluster.gpus} GPUs")
    sw = training.software
    b = int(fields.get("micro_batch") or 1)
    chosen = {}
    if fields.get("dp"):
        dp = int(fields["dp"])
    else:
        rest = cluster.gpus // (t * p * c)
        dp = int(batch_dp(np.array([rest]), np.array([b]), training.global_batch)[0])
        if dp != rest:
            chosen["dp"] = (f"DP {dp}: the most of the {rest} the global batch of {training.global_batch} divides "
                            f"({cluster.gpus - dp * t * p * c} GPUs idle)")
    base = {"tp": t, "pp": p, "cp": c, "dp": dp,
            "ep": int(fields.get("ep") or 1), "micro_batch": b,
            "virtual_stages": int(fields.get("virtual_stages") or 1),
            "zero": int(fields["zero"]) if fields.get("zero") is not None else sw.default_zero,
            "hybrid_shard": bool(fields.get("hybrid_shard") or False),
            "offload": str(fields.get("offload") or "none").lower(),
            "expert_tp": int(fields.get("expert_tp") or 0)}
    if fields.get("sequence_parallel") is not None:
        base["sequence_parallel"] = bool(fields["sequence_parallel"])
    if fields.get("zero") is None:
        chosen["zero"] = f"ZeRO-{sw.default_zero}: what {sw.name} uses"
    if fields.get("recompute"):
        return estimate(model, training, Plan(recompute=str(fields["recompute"]).lower(), **base), cluster,
                        allow_idle=not fields.get("dp")), chosen
    modes = [r for r in ("none", "selective", "op", "partial", "full") if r in sw.recompute_modes]
    if base["offload"] in ("activations", "both"):  # Megatron-Core offloads activations only without recompute
        modes = ["none"]
    est = None
    for mode in modes:
        try:
            est = estimate(model, training, Plan(recompute=mode, **base), cluster, allow_idle=not fields.get("dp"))
        except TrainingError:
            if mode == "partial":  # no layer count short of the whole stage: full recompute is next
                continue
            raise
        if est.fits:
            chosen["recompute"] = f"{mode}: the least recompute {sw.name} offers that fits in memory"
            return est, chosen
    chosen["recompute"] = f"{modes[-1]}: nothing fits, even with the most recompute {sw.name} offers"
    return est, chosen
