"""One design of a sweep, generated and analysed, as rows: one per workload, in the columns below.

A task is one design point with every workload of the grid: the design is generated once, its engines that do
not read the workload run once (:func:`designer.analysis.analyze_workloads`), and each workload costs one
training search (without the throughput-vs-size chart, which a row does not show:
:data:`designer.registry.ROW_ENGINES`). The function is pure and importable by name, so a process pool or a Dask
worker runs it as it is; the catalog is read once per process.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from catalog import Catalog, CatalogError, load_catalog

from ..analysis import Analysis, analyze_workloads
from ..design_errors import design_errors
from ..registry import ROW_ENGINES
from ..generate.spec import GenerateError, fabric_for
from .allocator import keep_freed_memory
from .grid import DesignPoint, WorkloadPoint


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # text | int | float | bool
    doc: str


#: Every column of a sweep's output, in order (CSV header and Parquet schema); names and units are kept.
COLUMNS: tuple[Column, ...] = (
    Column("design", "int", "the design's number in the grid, from 1 (its workloads' rows share it)"),
    Column("system", "text", "the system asked for (catalog id)"),
    Column("fabric", "text", "the compute fabric: the one asked for, or the system's reference architecture's"),
    Column("gpus_asked", "int", "GPUs asked for (empty when the grid gives scalable units)"),
    Column("sus_asked", "int", "scalable units asked for (empty when the grid gives GPUs)"),
    Column("hall_mw", "float", "the hall's IT power limit asked for, MW (empty: the hall fitted to the design)"),
    Column("hall", "text", "the hall's width x depth asked for, m (empty: fitted)"),
    Column("model", "text", "the model (preset, or the grid's name for its shape)"),
    Column("plan", "text", "the parallelism plan: search (the best one found) or the plan the grid states"),
    Column("precision", "text", "training precision"),
    Column("status", "text", "ok; errors (built, with error findings: see message); invalid (cannot be built "
                             "as asked: see message); failed (an internal error: see message)"),
    Column("message", "text", "why the design is invalid or failed, or its first error findings"),
    Column("gpus", "int", "GPUs in the design"),
    Column("racks", "int", "racks"),
    Column("halls", "int", "halls"),
    Column("it_power_typical_kw", "float", "IT power at typical load, kW"),
    Column("it_power_max_kw", "float", "IT power at maximum load, kW"),
    Column("facility_power_kw", "float", "facility power (IT at maximum times PUE), kW"),
    Column("liquid_heat_kw", "float", "heat to the liquid loop, kW"),
    Column("air_heat_kw", "float", "heat to the room's air, kW"),
    Column("coolant_flow_lpm", "float", "coolant flow, l/min"),
    Column("leaf", "int", "compute-fabric leaf switches (every plane)"),
    Column("spine", "int", "compute-fabric spine switches"),
    Column("core", "int", "compute-fabric core switches"),
    Column("cables", "int", "compute-fabric cables"),
    Column("price_total", "float", "the bill's total, in currency"),
    Column("currency", "text", "the bill's currency"),
    Column("price_estimated", "bool", "some price in the total is an estimate, not a list price"),
    Column("cost_per_gpu_hour", "float", "capital, energy and support per GPU-hour, in currency"),
    Column("cost_per_million_tokens", "float", "the same per million tokens trained, in currency"),
    Column("errors", "int", "error findings of the design and its workload"),
    Column("warnings", "int", "warning findings"),
    Column("preliminary", "bool", "a part's figures are its vendor's preliminary ones (announced, not shipping)"),
    Column("fits", "bool", "the plan fits in the GPUs' memory (throughput columns are empty when it does not)"),
    Column("tp", "int", "tensor parallelism"),
    Column("pp", "int", "pipeline parallelism"),
    Column("dp", "int", "data parallelism"),
    Column("cp", "int", "context parallelism"),
    Column("ep", "int", "expert parallelism"),
    Column("expert_tp", "int", "expert tensor parallelism: GPUs splitting each expert (TP unless folded)"),
    Column("micro_batch", "int", "micro-batch, sequences"),
    Column("global_batch", "int", "global batch, sequences"),
    Column("recompute", "text", "activation recomputation"),
    Column("recompute_layers", "int", "partial recompute: layers of the fullest pipeline stage run again"),
    Column("zero", "int", "ZeRO / FSDP stage of the data-parallel group"),
    Column("offload", "text", "what the plan keeps in host memory: none, optimizer, activations, both"),
    Column("offload_layers", "int", "activation offload: layers whose activations go to host memory"),
    Column("step_time_s", "float", "time per step, s"),
    Column("tokens_per_s", "float", "tokens per second, the whole job"),
    Column("tokens_per_s_per_gpu", "float", "tokens per second per GPU"),
    Column("mfu", "float", "model FLOPs utilisation, 0-1"),
    Column("memory_gb_per_gpu", "float", "memory per GPU, GB"),
    Column("time_to_train_days", "float", "days to train the tokens at the step rate"),
    Column("wall_time_days", "float", "days including failures, restarts and checkpoints"),
)
NAMES = tuple(c.name for c in COLUMNS)
#: characters of a message kept in a row
MESSAGE_CHARS = 500


@dataclass(frozen=True)
class Task:
    """One design point and every workload of the grid; ``catalog_dirs``: the catalog folders given on the command
    line, read by the process that runs it (on a Dask cluster, the same paths must exist on the workers); None:
    the folders every command reads by default (PODPLANNER_CATALOG, the user's catalog folder)."""

    number: int
    design: DesignPoint
    workloads: tuple[WorkloadPoint, ...]
    catalog_dirs: tuple[str, ...] | None = None


#: each catalog a process has read, by its folders (None: the user's implicit ones, as every command reads)
_CATALOGS: dict[tuple[str, ...] | None, Catalog] = {}


def _catalog(dirs: tuple[str, ...] | None) -> Catalog:
    if dirs not in _CATALOGS:
        _CATALOGS[dirs] = load_catalog(None if dirs is None else list(dirs))
    return _CATALOGS[dirs]


def evaluate(task: Task, catalog: Catalog | None = None) -> list[tuple]:
    """The task's rows, one per workload in the grid's order, each a tuple in :data:`COLUMNS` order. Never raises
    for a design: what cannot be built or fails is a row that says so."""
    keep_freed_memory()
    if catalog is None:
        try:
            catalog = _catalog(task.catalog_dirs)
        except CatalogError as exc:
            return [_row(task, w, "failed", f"catalog: {exc}") for w in task.workloads]
    from ..generate.build import generate  # the generator loads where a design is made, not where rows are read

    point = task.design
    fabric = None
    try:
        fabric = fabric_for(catalog, point.system, point.fabric)
        generated = generate(point.spec(), catalog)
    except GenerateError as exc:
        return [_row(task, w, "invalid", str(exc), fabric) for w in task.workloads]
    except Exception as exc:  # a bug, reported in its row: one design must not end a day's sweep
        return [_failed(task, w, exc, fabric) for w in task.workloads]
    rows: list[tuple] = []
    while len(rows) < len(task.workloads):
        # the design's shared engines run again only after a workload failed inside (a generator that raised
        # is spent): the failure stays in that workload's row
        left = task.workloads[len(rows):]
        try:
            # one thread per design: the sweep already runs a design on every core (or dask thread)
            for workload, analysis in zip(left, analyze_workloads(generated.project, catalog,
                                                                  (w.as_dict() for w in left), ROW_ENGINES,
                                                                  workers=1)):
                rows.append(_analysed(task, workload, analysis, fabric))
        except Exception as exc:
            rows.append(_failed(task, task.workloads[len(rows)], exc, fabric))
    return rows


def _failed(task: Task, workload: WorkloadPoint, exc: Exception, fabric: str | None) -> tuple:
    return _row(task, workload, "failed", f"internal error: {type(exc).__name__}: {exc}", fabric)


def _row(task: Task, workload: WorkloadPoint, status: str, message: str, fabric: str | None = None,
         **figures: Any) -> tuple:
    p = task.design
    values = {"design": task.number, "system": p.system, "fabric": fabric or p.fabric or "", "gpus_asked": p.gpus,
              "sus_asked": p.sus, "hall_mw": p.hall_mw, "hall": f"{p.hall[0]:g}x{p.hall[1]:g}" if p.hall else "",
              "model": workload.model, "plan": workload.plan, "precision": workload.precision, "status": status,
              "message": " ".join(message.split())[:MESSAGE_CHARS], **figures}
    return tuple(None if (v := values.get(c.name)) is None else _TYPES[c.kind](v) for c in COLUMNS)


#: each kind's Python type: the engines' figures may be numpy scalars, and a file wants plain numbers
_TYPES = {"text": str, "int": int, "float": float, "bool": bool}


def _analysed(task: Task, workload: WorkloadPoint, a: Analysis, fabric: str) -> tuple:
    s, t = a.summary, a.training
    errors = design_errors(a)
    figures = {
        "gpus": s.gpus, "racks": s.racks, "halls": s.halls, "it_power_typical_kw": s.it_power_typical_kw,
        "it_power_max_kw": s.it_power_max_kw, "facility_power_kw": s.facility_power_kw,
        "liquid_heat_kw": s.liquid_heat_kw, "air_heat_kw": s.air_heat_kw, "coolant_flow_lpm": s.coolant_flow_lpm,
        "leaf": s.switches.leaf, "spine": s.switches.spine, "core": s.switches.core, "cables": s.cables,
        "price_total": s.price_total, "currency": s.currency, "price_estimated": s.price_estimated,
        "errors": errors.count, "warnings": sum(f.severity == "warning" for f in a.findings),
        "preliminary": any(f.code == "catalog-preliminary" for f in a.findings),
    }
    if a.has("cost"):
        figures["cost_per_gpu_hour"] = a.cost.cost_per_gpu_hour
    if t.ok:
        figures.update(fits=t.fits, tp=t.tp, pp=t.pp, dp=t.dp, cp=t.cp, ep=t.ep, micro_batch=t.micro_batch,
                       global_batch=t.global_batch, recompute=t.recompute,
                       recompute_layers=t.recompute_layers, zero=t.zero, offload=t.offload,
                       offload_layers=t.offload_layers, expert_tp=t.expert_tp,
                       memory_gb_per_gpu=t.memory_gb_per_gpu)
        if t.fits:  # a plan that does not fit runs at no rate: its figures would be a promise
            figures.update(step_time_s=t.step_time_s, tokens_per_s=t.tokens_per_s,
                           tokens_per_s_per_gpu=t.tokens_per_s_per_gpu, mfu=t.mfu,
                           time_to_train_days=t.time_to_train_days, wall_time_days=t.wall_time_days)
            if a.has("cost"):
                figures["cost_per_million_tokens"] = a.cost.cost_per_million_tokens
    message = "; ".join(errors.first) + (f"; and {errors.count - len(errors.first)} more"
                                         if errors.count > len(errors.first) else "")
    return _row(task, workload, "errors" if errors else "ok", message, fabric, **figures)
