"""What a design gives its training job beyond GPUs and fabric: the storage its checkpoints are written to
and read back from, and how often its parts interrupt it; and what the estimate says of both.

The job runs on the design's main GPU system (the one with the most GPUs, :mod:`.hardware`), so it is
charged the failures of that system's GPUs and hosts and its share, by GPUs, of the compute and storage
fabrics' links and switches. The storage is shared: the job may use all the GB/s the design delivers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from designer.findings import Finding

from ..formatting import number, percent, quantity
from ..inventory import dominant_system
from ..storage.tiers import TIERS, tiers_above
from .failures import JobFailures, scenario_gpu_mtbf_hours
from .goodput import daly_interval, goodput

#: share of training time checkpoints may cost (pauses and work redone) before a finding says so
CHECKPOINT_SHARE_LIMIT = 0.05
#: effective training time below which a finding says where the rest goes (Llama 3 reports "higher than 90 %")
ETTR_LIMIT = 0.90
WHERE = "project:training"


@dataclass(frozen=True)
class DesignIO:
    """What a design gives its training job's checkpoints: storage GB/s, the tier behind them, its failures."""

    write_gbs: float
    read_gbs: float
    failures: JobFailures
    tier: object = None  # designer.storage.tiers.Tier, or None
    placed: bool = False
    #: (tier id, write GB/s, read GB/s) of each higher tier the design's storage does not already meet
    tiers_above: tuple = ()
    #: what one GPU host's storage ports carry, GB/s (0: unknown)
    host_gbs: float = 0.0


def _host_parts(ctx, dev) -> list:
    """The catalog types that are a system's hosts: the server itself, or a rack system's compute trays."""
    if dev.kind != "rack_system":
        return [dev]
    return [p for c in dev.components if (p := ctx.catalog.find(c.id)) is not None and p.ports_of("compute")]


def _hosts(ctx, dev, systems: int) -> int:
    """Hosts of ``systems`` of ``dev``: each server, or each compute tray of a rack system."""
    if dev.kind != "rack_system":
        return systems
    trays = {p.id for p in _host_parts(ctx, dev)}
    return systems * sum(c.count for c in dev.components if c.id in trays)


def _host_storage_gbs(ctx, dev) -> float:
    """GB/s of one host's storage ports: a server's, or one compute tray's (a rack system may list its trays'
    storage ports on the rack: then its share per tray)."""
    parts = _host_parts(ctx, dev)
    own = sum(g.count * g.speed_gbps for g in (parts[0].ports_of("storage") if parts else ()))
    if not own and dev.kind == "rack_system":
        hosts = _hosts(ctx, dev, 1)
        own = sum(g.count * g.speed_gbps for g in dev.ports_of("storage")) / hosts if hosts else 0.0
    return own / 8.0


def design_io(ctx, gpus: int) -> DesignIO | None:
    """The storage and failure rates the training job on the design's main system sees (``gpus`` of them)."""
    by_system = ctx["devices"].gpus_by_system
    main = dominant_system(by_system)
    if main is None:
        return None
    dev = ctx.catalog.get(main)
    share = gpus / max(sum(by_system.values()), 1)  # of the fabrics' links and switches
    storage, tree = ctx["storage"], ctx["fabric_sizing"].tree
    links = (tree.links_node_leaf + tree.links_leaf_spine + tree.links_spine_core) * tree.planes if tree else 0
    switches = tree.switches if tree else 0
    sf = storage.fabric
    links += sf.node_links + sf.uplinks
    switches += sf.leaves + sf.spines + sf.cores
    # the job runs on every system of the main system's GPU (as the estimate's cluster takes them): their hosts
    counts = ctx["devices"].counts
    hosts = sum(_hosts(ctx, ctx.catalog.get(k), counts.get(k, 0)) for k in by_system
                if ctx.catalog.get(k).gpu == dev.gpu)
    failures = JobFailures(gpus, hosts, round(links * share), round(switches * share))
    if storage.write_gbs <= 0 or storage.read_gbs <= 0:
        return DesignIO(0.0, 0.0, failures, storage.tier, storage.placed)
    above = ()
    if storage.tier is not None:
        needs = ((t, *TIERS[t].need(gpus)) for t in tiers_above(storage.tier))
        above = tuple((t, write, read) for t, read, write in needs
                      if write > storage.write_gbs or read > storage.read_gbs)
    return DesignIO(storage.write_gbs, storage.read_gbs, failures, storage.tier, storage.placed, above,
                    _host_storage_gbs(ctx, dev))


def io_fields(io: DesignIO | None, gpus: int) -> dict:
    """The Training fields a design's storage and failure rates set (none: the engine's defaults)."""
    if io is None:
        return {}
    out = {"gpu_mtbf_hours": io.failures.gpu_mtbf_hours}
    if io.write_gbs > 0:
        out |= {"checkpoint_gbs_per_gpu": io.write_gbs / gpus, "restore_gbs_per_gpu": io.read_gbs / gpus}
    if io.host_gbs > 0:
        out["host_storage_gbs"] = io.host_gbs
    return out


def _basis(io: DesignIO) -> str:
    if io.write_gbs <= 0:
        why = "the design's storage delivers nothing, see the storage findings" if io.placed else \
            "no storage tier for these systems"
        return f"the engine's default of 0.15 GB/s per GPU (BLOOM's checkpoint writes): {why}"
    if io.placed:
        return "the design's storage appliances"
    unconfirmed = ", unconfirmed for these systems" if io.tier.evidence == "U" else ""
    return f"the {io.tier.name} tier's RA figures (no storage appliances placed{unconfirmed})"


def checkpoints(section: dict, est, io: DesignIO) -> list[Finding]:
    """The goodput section's storage basis and failure breakdown, the 2 %-a-month scenario and the data the job
    reads; findings when checkpoints cost more than CHECKPOINT_SHARE_LIMIT of the time (naming the tier that
    brings it under) and when the effective training time is under ETTR_LIMIT (naming where it goes)."""
    gp = section["goodput"]
    gp["storage_basis"] = _basis(io)
    gp["storage_tier"] = io.tier.id if io.tier else None
    gp["failures"] = io.failures.to_json()
    gpus = est.cluster.gpus
    scenario = goodput(est.model.params, gpus, replace(est.training, gpu_mtbf_hours=scenario_gpu_mtbf_hours()))
    days = est.time_to_train_days
    section["scenarios"]["two_percent_gpus_a_month"] = {
        "job_mtbf_h": round(scenario["job_mtbf_h"], 4), "ettr": round(scenario["ettr"], 4),
        "checkpoint_interval_s": round(scenario["checkpoint_interval_s"], 1),
        "checkpoint_share": round(scenario["checkpoint_share"], 4),
        "wall_time_days": round(days / scenario["ettr"], 2) if days else None,
        "note": "every GPU failing at 2 % a month and nothing else: a planning figure with no source found"}
    # the token stream the job reads: Megatron's indexed datasets hold a token in 2 bytes under a 65,500-word
    # vocabulary and 4 above (megatron/core/datasets/indexed_dataset.py, best_fitting_dtype)
    per_token = 2 if est.model.vocab < 65_500 else 4
    # a plan that does not fit reads nothing: it never runs
    need = est.tokens_per_s * per_token / 1e9 if est.tokens_per_s is not None else None
    section["data_loading"] = {"bytes_per_token": per_token, "read_gb_s": round(need, 6) if need is not None else None,
                               "share_of_storage_read": round(need / gp["read_gb_s"], 6)
                               if need is not None and gp["read_gb_s"] else None}
    return [f for f in (_share_finding(gp, est, io), _ettr_finding(gp)) if f is not None]


def _share_finding(gp: dict, est, io: DesignIO) -> Finding | None:
    share = gp["checkpoint_share"]
    if share <= CHECKPOINT_SHARE_LIMIT:
        return None
    gpus = est.cluster.gpus
    fix = None
    for tier_id, write, read in io.tiers_above:
        trial = goodput(est.model.params, gpus, replace(est.training, checkpoint_gbs_per_gpu=write / gpus,
                                                        restore_gbs_per_gpu=read / gpus))
        if trial["checkpoint_share"] <= CHECKPOINT_SHARE_LIMIT:
            fix = (TIERS[tier_id].name, trial["checkpoint_share"], write)
            break
    if fix:
        advice = (f"storage sized to the {fix[0]} tier ({quantity(fix[2], 'GB/s')} of write) brings it to "
                  f"{percent(fix[1], 1)}")
    else:
        advice = f"no higher tier brings it under {percent(CHECKPOINT_SHARE_LIMIT)}"
        if not gp["async_checkpoint"]:
            advice += ("; asynchronous checkpoints (the async_checkpoint knob) would pause the job only for the "
                       "copy to host memory")
    if gp.get("interval_stated"):  # the interval, not the storage, is what the workload chose
        advice = _stated_interval(gp) + "; " + advice
    tier = f" ({io.tier.name} tier)" if io.tier else ""
    return Finding("warning", "training-checkpoint-share",
                   f"checkpoints cost {percent(share, 1)} of training time (a {quantity(gp['checkpoint_tb'], 'TB')} "
                   f"checkpoint takes {quantity(gp['checkpoint_s'], 's')} at the storage's "
                   f"{quantity(gp['write_gb_s'], 'GB/s')}{tier}, one every "
                   f"{number(gp['checkpoint_interval_s'] / 60, 1)} min against a failure every "
                   f"{number(gp['job_mtbf_h'] * 60, 0)} min): {advice}", WHERE)


def _stated_interval(gp: dict) -> str:
    """What a stated checkpoint interval costs against Daly's optimum for the job's failure rate."""
    best = daly_interval(gp["checkpoint_blocking_s"], gp["job_mtbf_h"] * 3600)
    return (f"the workload states one checkpoint every {number(gp['checkpoint_interval_s'] / 60, 1)} min, where "
            f"Daly's optimum for this failure rate is {number(best / 60, 1)} min")


def _ettr_finding(gp: dict) -> Finding | None:
    """Where the time goes when failures leave under ETTR_LIMIT of it: restarts (e^(-R/M), Daly's limit with
    instant checkpoints) and checkpoints (the rest)."""
    if gp["ettr"] >= ETTR_LIMIT:
        return None
    mtbf_s = gp["job_mtbf_h"] * 3600
    restarts = 1 - math.exp(-gp["restart_s"] / mtbf_s)
    return Finding("warning", "training-ettr",
                   f"failures leave {percent(gp['ettr'], 1)} of the wall time to training: one every "
                   f"{number(gp['job_mtbf_h'] * 60, 0)} min, each costing a {number(gp['restart_s'] / 60, 1)}-min "
                   f"restart (detect, reschedule, reload), lose {percent(restarts, 1)}; checkpoints "
                   f"{percent(gp['checkpoint_share'], 1)}. Faster recovery (spare nodes kept warm, in-memory "
                   f"checkpoints) or a smaller job raise it; faster storage changes little"
                   + (f"; {_stated_interval(gp)}" if gp.get("interval_stated") else ""), WHERE)
