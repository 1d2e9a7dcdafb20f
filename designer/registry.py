"""The engines of an analysis, in dependency order.

A new engine is a module with ``run(ctx) -> EngineResult`` (see :mod:`designer.engines`)
and one line here: its name (the ``analyze --json`` section it fills), the function,
and the engines whose results it reads. ``analyze`` runs this list top to bottom.
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np

from .bom import analyze_bom
from .checks import check_space
from .cooling import analyze_cooling
from .cost import analyze_cost
from .engines import Context, Engine, EngineResult
from .fabric import analyze_bandwidth, analyze_fabric, size_fabric
from .findings import Finding
from .floor_loading import analyze_floor
from .inventory import run as count_devices
from .model import Rename
from .power import analyze_power
from .storage.engine import analyze_storage
from .training import analyze_training


def check_placement(ctx: Context) -> EngineResult:
    """Overlaps, racks outside their hall and U collisions: findings only, no section."""
    return EngineResult(findings=tuple(check_space(ctx.project, ctx.catalog, ctx.geometry)))


def report_catalog_facts(ctx: Context) -> EngineResult:
    """What the catalog says about the design's types, as info findings only: ids the design's file named that
    the catalog has renamed since (``ctx.project.renames``, set when the file was read: the devices opened as
    the new entries, and a save writes the new ids), and types whose vendor calls their figures preliminary
    (every figure the analysis gives for them may change before they ship)."""
    return EngineResult(findings=tuple(_renamed(r) for r in ctx.project.renames) + preliminary_findings(ctx))


def preliminary_findings(ctx: Context) -> tuple[Finding, ...]:
    """One info finding per preliminary catalog type the design holds (mounted, on the floor or as a rack),
    naming the places that hold it."""
    a, project = ctx.arrays, ctx.project
    flagged = [i for i, t in enumerate(a.types.types) if t.preliminary]
    if not flagged:
        return ()
    out = []
    for i in flagged:
        racks = np.unique(np.concatenate([a.dev_rack[a.dev_type == i], np.nonzero(a.rack_type == i)[0]]))
        floor = np.nonzero(a.floor_type == i)[0]
        count = int((a.dev_type == i).sum() + (a.rack_type == i).sum() + floor.size)
        if not count:
            continue
        t = a.types.types[i]
        places = tuple(f"rack:{a.rack_ids[r]}" for r in racks) + \
            tuple(f"floor:{project.floor_devices[f].id}" for f in floor)
        out.append(Finding("info", "catalog-preliminary",
                           f"{count:,} × {t.name}: preliminary catalog figures ({t.preliminary}); every figure "
                           "this analysis gives for it may change before it ships", places[0], places))
    return tuple(out)


def _renamed(rename: Rename) -> Finding:
    things = "object" if rename.count == 1 else "objects"
    return Finding("info", "catalog-renamed",
                   f"{rename.count:,} {things} in the file named {rename.old!r}, which the catalog now calls "
                   f"{rename.new!r}: they opened as {rename.new!r}, and saving writes the new id",
                   rename.places[0] if rename.places else "project:catalog", rename.places)


ENGINES: tuple[Engine, ...] = (
    Engine("devices", count_devices),
    Engine("space", check_placement),
    Engine("catalog", report_catalog_facts),
    Engine("power", analyze_power),
    Engine("cooling", analyze_cooling),
    Engine("floor", analyze_floor),
    Engine("fabric_sizing", size_fabric),
    Engine("fabric", analyze_fabric, needs=("fabric_sizing",)),
    Engine("bandwidth", analyze_bandwidth, needs=("fabric_sizing",)),
    Engine("storage", analyze_storage, needs=("devices",)),
    Engine("training", analyze_training, needs=("devices", "fabric_sizing", "bandwidth", "storage")),
    Engine("bom", analyze_bom, needs=("devices", "fabric", "storage")),
    Engine("cost", analyze_cost, needs=("bom", "power", "devices", "training")),
)

#: The engines of a design read as one row of figures (a sweep's row, a goal's option): all of them, the training
#: engine without its throughput-vs-size chart, three plan searches no row shows (``analyze`` of the design draws it)
ROW_ENGINES: tuple[Engine, ...] = tuple(replace(e, run=partial(analyze_training, scaling=False))
                                        if e.name == "training" else e for e in ENGINES)

#: The engines that read the project's workload (its model, tokens and plan); every other engine's result is the
#: same whatever the workload, so :func:`designer.analysis.analyze_workloads` runs those once per design.
WORKLOAD_READERS: tuple[str, ...] = ("training",)

#: The engines a command line runs in a forked child process beside the others (:mod:`designer.forked`): the
#: training engine's four plan searches need only the devices, the fabric's sizing and the storage, and were a
#: third of a 100,000-GPU hall's analysis, run while nothing else could.
APART: tuple[str, ...] = ("training",)
