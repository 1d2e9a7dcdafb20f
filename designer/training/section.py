"""The ``training`` section of ``analyze --json``: the design's own cluster, the project's
workload (or a stated default), the estimate and its findings."""
from __future__ import annotations

import math

from dataclasses import replace

from designer.engines import EngineResult
from designer.findings import Finding

from ..formatting import number, quantity
from .errors import TrainingError
from ..fabric.technology import SHORT_NAMES
from .estimate import estimate
from .design_io import DesignIO, checkpoints, design_io, io_fields
from .hardware import cluster_from_counts, with_plane_lost, with_power_cap
from .models import model_from_params, override, preset
from .plan import OFFLOAD, RECOMPUTE, Training
from .batch import default_global_batch
from .planner import best_plan, given_plan
from .software import KNOBS, parse_flag, profile

DEFAULT_WORKLOAD = {"model": "llama3-70b", "tokens": 15e12, "global_batch": None, "precision": "bf16"}
PLAN_KEYS = ("tp", "pp", "dp", "cp", "ep", "micro_batch", "virtual_stages", "recompute", "zero",
             "sequence_parallel", "hybrid_shard", "offload", "expert_tp")
MODEL_KEYS = ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "seq", "activation", "experts", "top_k",
              "tied_embeddings", "head_size", "q_rank", "kv_rank", "rope_dim", "v_head_size", "expert_ffn_hidden",
              "shared_experts", "dense_layers", "route_nodes", "mtp_depth")


def _model(workload: dict):
    name = workload.get("model", "llama3-70b")
    if isinstance(name, dict):
        spec = preset(name.get("preset", "llama3-70b")) if "preset" in name else None
        fields = {k: name.get(k) for k in MODEL_KEYS}
        return override(spec, **fields) if spec else override(model_from_params(float(name["params"])), **fields)
    base = preset(name) if name else model_from_params(float(workload["params"]))
    return override(base, **{k: workload.get(k) for k in MODEL_KEYS})


def _number(value, key: str):
    """A workload number, or a TrainingError naming the key (a file may hold text or 1e999)."""
    if value is None:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError, OverflowError):
        raise TrainingError(f"workload {key} must be a number, got {value!r}") from None
    if not math.isfinite(out) or out <= 0 or out > 1e30:
        raise TrainingError(f"workload {key} must be a positive number, got {value!r}")
    return out


def _whole(value, key: str, least: int) -> int:
    """A workload field that must be a whole number ≥ ``least`` (text such as "8" allowed)."""
    if isinstance(value, bool):
        raise TrainingError(f"workload {key} must be a whole number, got {value!r}")
    try:
        number = float(str(value).strip()) if isinstance(value, str) else float(value)
    except (TypeError, ValueError, OverflowError):
        raise TrainingError(f"workload {key} must be a whole number, got {value!r}") from None
    if not math.isfinite(number) or number != int(number) or number < least or number > 2**40:
        raise TrainingError(f"workload {key} must be a whole number of at least {least}, got {value!r}")
    return int(number)


#: The goodput assumptions a workload may state (the ``plan`` command's --failure-rate and --checkpoint-interval):
#: interruptions per 1,000 GPU-days in place of the rate the design's parts give, and a checkpoint interval in
#: minutes in place of Daly's optimum. Llama 3 saw 0.47 per 1,000 GPU-days (419 in 54 days on 16,384 H100).
FAILURE_KEY, INTERVAL_KEY = "failures_per_1000_gpu_days", "checkpoint_interval_min"
#: The workload key of the expert imbalance (software.expert_imbalance, a knob the workload may state).
IMBALANCE_KEY = "expert_imbalance"
#: Bounds: from one interruption per 10⁷ GPU-days to one per GPU a day; an interval from a minute to a week.
FAILURE_RANGE, INTERVAL_RANGE = (1e-4, 1000.0), (1.0, 10_080.0)


def goodput_fields_of(wl: dict) -> dict:
    """The Training fields a workload's stated failure rate and checkpoint interval set (each checked)."""
    out = {}
    for key, (low, high) in ((FAILURE_KEY, FAILURE_RANGE), (INTERVAL_KEY, INTERVAL_RANGE)):
        if isinstance(wl.get(key), bool):  # true would read as 1
            raise TrainingError(f"workload {key} must be a number, got {wl[key]!r}")
        value = _number(wl.get(key), key)
        if value is None:
            continue
        if not low <= value <= high:
            raise TrainingError(f"workload {key} must be from {low:g} to {high:g}, got {value:g}")
        if key == FAILURE_KEY:
            out["gpu_mtbf_hours"] = 1000.0 * 24.0 / value
        else:
            out["checkpoint_interval_s"] = value * 60.0
    return out


def plan_fields_of(wl: dict) -> dict:
    """The plan a workload states, each field checked and typed (None: not stated)."""
    out = {}
    for key in ("tp", "pp", "dp", "cp", "ep", "micro_batch", "virtual_stages", "expert_tp"):
        if wl.get(key) is not None:
            out[key] = _whole(wl[key], key, 1)
    if wl.get("zero") is not None:
        out["zero"] = _whole(wl["zero"], "zero", 0)
        if out["zero"] > 3:
            raise TrainingError(f"workload zero must be 0–3, got {wl['zero']!r}")
    if wl.get("recompute") is not None:
        mode = str(wl["recompute"]).strip().lower()
        if mode not in RECOMPUTE:
            raise TrainingError(f"workload recompute must be one of {', '.join(RECOMPUTE)}, got {wl['recompute']!r}")
        out["recompute"] = mode
    if wl.get("offload") is not None:
        mode = str(wl["offload"]).strip().lower()
        if mode not in OFFLOAD:
            raise TrainingError(f"workload offload must be one of {', '.join(OFFLOAD)}, got {wl['offload']!r}")
        out["offload"] = mode
    for key in ("sequence_parallel", "hybrid_shard"):
        if wl.get(key) is not None:
            out[key] = parse_flag(wl[key], f"workload {key}")
    return out


def check_workload(workload: dict) -> None:
    """Every field of ``workload`` that can be checked without a cluster, as the estimate reads it (a
    TrainingError naming the first bad one): the model, tokens, batch, software, precision and plan fields."""
    wl = dict(workload)
    model = _model(wl)
    _number(wl.get("tokens"), "tokens")
    if wl.get("global_batch") is not None:
        _whole(wl["global_batch"], "global_batch", 1)
    software = profile(wl.get("software"), **{k: wl.get(k) for k in KNOBS})
    Training(global_batch=1, tokens=15e12, precision=str(wl.get("precision") or "bf16").lower(),
             software=software).validate()
    plan_fields_of(wl)
    goodput_fields_of(wl)
    model.validate()


def analyze_training(ctx, *, scaling: bool = True) -> EngineResult:
    """The training engine: the project's workload on the design's GPUs and on the fabric the
    fabric-sizing engine sized (its oversubscription and per-GPU scale-out), never a fabric of its own.
    ``scaling``: work out the best plan at smaller sizes for the throughput chart (three more plan searches; a
    caller that shows no chart, such as the goal planner's many designs, leaves it out)."""
    fabric, bandwidth = ctx["fabric_sizing"], ctx["bandwidth"]
    oversubscription = ctx.settings.fabric_oversubscription
    ib_gbs = None
    # no sized fabric: the technology and planes the settings ask for, traffic taken to leave the leaf
    net = {"fabric": ctx.settings.fabric_technology, "planes": ctx.settings.fabric_planes}
    tree = fabric.tree
    if tree is not None:
        oversubscription = max(1.0, round(tree.actual_oversubscription, 4))
        ib_gbs = (bandwidth.section.get("per_gpu") or {}).get("scale_out_gbs") or None
        net = {"fabric": tree.technology, "planes": tree.planes, "fabric_tiers": tree.tiers,
               "leaf_nodes": tree.leaf_down}
    cluster = cluster_from_counts(ctx.catalog, ctx["devices"].gpus_by_system, oversubscription=oversubscription,
                                  ib_gbs_per_gpu=ib_gbs, **net)
    io = design_io(ctx, cluster.gpus) if cluster is not None else None
    section, findings = training_section(cluster, ctx.settings, ctx.project.workload_dict, io=io, scaling=scaling)
    if tree is not None and tree.tiers == 3 and getattr(tree, "actual_core_oversubscription", 1.0) > 1 \
            and section.get("status") == "ok":
        findings.append(_above_pod(tree, section))
    return EngineResult(section=section, findings=tuple(findings))


def _above_pod(tree, section: dict) -> Finding:
    """Why the spines' oversubscription above the pod is not charged to the estimate, said where it is read.

    NCCL's rings run one per rail and are ordered by node, so a ring crosses each pod boundary twice: the
    few flows that leave a pod share thousands of spine uplinks, and the data-parallel all-reduce runs at the
    leaf's rate (Meta's 1:7 aggregation tier relies on the same, with topology-aware placement). An
    all-to-all across pods (expert parallelism spanning pods) would see the ratio; the estimate does not
    charge it."""
    ratio = tree.actual_core_oversubscription
    section["above_pod"] = {"oversubscription": round(ratio, 4), "charged": False,
                            "pod_gpus": int(min(tree.nodes, (tree.pod_leaves // tree.rails) * tree.leaf_down)
                                            * section.get("gpus", 0) // max(1, tree.nodes))}
    return Finding("info", "training-above-pod",
                   f"the spines' {ratio:g}:1 above the pod is not charged to the training estimate: NCCL's rings, "
                   f"one per rail in node order, cross each pod boundary twice, so the data-parallel traffic runs "
                   f"at the leaf's rate; an expert-parallel all-to-all spanning pods would see {ratio:g}:1",
                   "project:training")


def workload_training(cluster, wl: dict, pue: float, io: DesignIO | None = None) -> tuple:
    """(model, training settings, what was chosen for the workload) for workload ``wl`` on ``cluster``, as the
    training engine reads it: the global batch a real run would pick when none is given, the software profile and
    its knobs, and the design's storage and failure rates (``io``; None: the engine's stated defaults). Raises a
    TrainingError naming the first bad field."""
    model = _model(wl)
    tokens = _number(wl.get("tokens"), "tokens") or 15e12
    chosen = {}
    if wl.get("global_batch") is not None:
        gbs = _whole(wl["global_batch"], "global_batch", 1)
    else:
        gbs, chosen["global_batch"] = default_global_batch(model, cluster.gpus, cluster.nvlink_domain, tokens)
    software = profile(wl.get("software"), **{k: wl.get(k) for k in KNOBS})
    training = Training(global_batch=gbs, tokens=tokens, precision=str(wl.get("precision") or "bf16").lower(),
                        pue=pue, software=software, **(io_fields(io, cluster.gpus) | goodput_fields_of(wl))).validate()
    return model, training, chosen


def training_section(cluster, settings, workload: dict | None, io: DesignIO | None = None, *,
                     scaling: bool = True) -> tuple[dict, list[Finding]]:
    """(section dict, findings) for ``workload`` on ``cluster`` (None: the design has no GPUs); ``io``: the
    design's storage and failure rates (None: the engine's stated defaults). Never raises for a bad workload:
    it becomes a finding."""
    if cluster is None:
        return {"status": "no GPUs in the design"}, []
    stated = workload is not None
    wl = dict(DEFAULT_WORKLOAD if workload is None else workload)
    where = "project:training"
    try:
        # settings may be any object with a pue (scripts pass their own); no cap attribute: no cap
        cluster = with_power_cap(cluster, getattr(settings, "gpu_power_cap_w", None))
        model, training, chosen = workload_training(cluster, wl, settings.pue, io)
        plan_fields = plan_fields_of(wl)
        findings: list[Finding] = []
        if plan_fields and not parse_flag(wl.get("search"), "workload search"):
            full = {"tp": 1, "pp": 1, "cp": 1, **plan_fields}
            full.setdefault("dp", cluster.gpus // max(full["tp"] * full["pp"] * full["cp"], 1))
            used = full["tp"] * full["pp"] * full["cp"] * full["dp"]
            if used != cluster.gpus:
                msg = (f"training plan TP{full['tp']}×PP{full['pp']}×DP{full['dp']}×CP{full['cp']} = {used} GPUs does "
                       f"not divide the design's {cluster.gpus} {cluster.gpu_name} GPUs")
                return ({"status": "error", "error": msg, "gpus": cluster.gpus},
                        [Finding("error", "training-plan-gpus", msg, where)])
            est, picked = given_plan(model, training, cluster, plan_fields | {"dp": full["dp"]})
            chosen.update(picked)
            search = None
        else:
            est, search = best_plan(model, training, cluster)
        for problem in est.problems:
            if problem.startswith("pipeline bubble"):
                findings.append(Finding("warning", "training-bubble", f"training plan: {problem}", where))
        if not est.fits:
            findings.append(Finding("error", "training-memory",
                                    f"training plan needs {quantity(est.memory_gb_per_gpu, 'GB')} per GPU, "
                                    f"{cluster.gpu_name} has {cluster.hbm_gb:g} GB", where))
        if cluster.preliminary:
            findings.append(Finding("warning", "training-preliminary",
                                    f"training estimate on {cluster.gpu_name}: {cluster.preliminary}", where))
        if est.plan.tp > cluster.nvlink_domain:
            findings.append(Finding("warning", "training-tp-infiniband",
                                    f"TP {est.plan.tp} exceeds the NVLink domain of {cluster.nvlink_domain}: "
                                    f"tensor-parallel traffic crosses {SHORT_NAMES[cluster.fabric]}", where))
    except TrainingError as exc:
        return {"status": "error", "error": str(exc), "gpus": cluster.gpus}, [
            Finding("error", "training-workload", f"training workload: {exc}", where)]
    section = {"status": "ok", "workload_source": "project" if stated else
               "default (no workload in the project): llama3-70b on 15T tokens, searched plan",
               **est.to_json(), "chosen": chosen}
    if search:
        section["search"] = search
    if scaling:
        section["scaling"] = _scaling(model, training, cluster, full=est if search else None)
    section["scenarios"] = {"plane_lost": plane_lost(est)}
    if io is not None:
        findings += checkpoints(section, est, io)
    gp = section.get("goodput")
    if gp is not None:  # null: the design's parts' rate (or the engine's default) stands
        gp["failures_stated"] = _number(wl.get(FAILURE_KEY), FAILURE_KEY)
        if gp["failures_stated"] is not None:
            gp["failures"] = None  # the parts' breakdown is not the job's rate: the stated one is
        stated = _number(wl.get(INTERVAL_KEY), INTERVAL_KEY)
        if stated is not None and gp["checkpoint_interval_s"] > stated * 60 + 0.5:
            findings.append(Finding(
                "warning", "training-checkpoint-interval",
                f"the stated checkpoint interval of {number(stated, 1)} min cannot be kept: an asynchronous checkpoint "
                f"takes {quantity(gp['checkpoint_s'], 's')} to write and the next cannot start before it ends, so "
                f"one is taken every {number(gp['checkpoint_interval_s'] / 60, 1)} min", where))
    return section, findings


def plane_lost(est) -> dict | None:
    """The same plan with one of a twin-plane fabric's planes down: half the scale-out bandwidth, the job
    still running (None for a single-plane fabric, where losing the plane stops the job instead).

    The plan is kept as it is (a running job does not re-plan); only its communication slows."""
    cluster = est.cluster
    if cluster.planes != 2 or not est.fits:  # a plan that does not fit has no run to slow
        return None
    lost = estimate(est.model, est.training, est.plan, with_plane_lost(cluster), allow_idle=True)
    normal_tps = est.tokens_per_s
    return {"planes_up": 1, "scale_out_gbs_per_gpu": round(lost.cluster.ib_gbs_per_gpu, 3),
            "tokens_per_s": round(lost.tokens_per_s, 1), "step_time_s": round(lost.step_time_s, 4),
            "time_to_train_days": lost.time_to_train_days, "wall_time_days": lost.wall_time_days,
            "mfu": round(lost.mfu, 4), "exposed_comm_s": lost.exposed_comm_s,
            "relative_tokens_per_s": round(lost.tokens_per_s / normal_tps, 4) if normal_tps else None,
            "extra_days": round(lost.time_to_train_days - est.time_to_train_days, 2),
            "note": "one plane of two down: every GPU keeps half its scale-out bandwidth and the job runs on "
                    "with the same plan"}


def _scaling(model, training, cluster, full=None) -> list[dict]:
    """Best plan at 1/8, 1/4, 1/2 and all of the design's GPUs, for the throughput-vs-size chart.

    Smaller sizes are rounded to whole NVLink domains; a size where no plan fits is left out.
    ``full`` is the best plan at all of the GPUs when the caller has already searched it.
    """
    out = []
    step = max(cluster.nvlink_domain, 1)
    sizes = sorted({max(step, (cluster.gpus * k // 8) // step * step) for k in (1, 2, 4, 8)} | {cluster.gpus})
    for gpus in sizes:
        if full is not None and gpus == cluster.gpus:
            est = full
        else:
            try:
                est, _ = best_plan(model, training, replace(cluster, gpus=gpus), top=1)
            except TrainingError:
                continue
        out.append({"gpus": gpus, "tokens_per_s": round(est.tokens_per_s, 1), "mfu": round(est.mfu, 4),
                    "time_to_train_days": round(est.time_to_train_days, 2)})
    return out
