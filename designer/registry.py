"""The engines of an analysis, in dependency order.

A new engine is a module with ``run(ctx) -> EngineResult`` (see :mod:`designer.engines`)
and one line here: its name (the ``analyze --json`` section it fills), the function,
and the engines whose results it reads. ``analyze`` runs this list top to bottom.
"""
from __future__ import annotations

from .bom import analyze_bom
from .checks import check_space
from .cooling import analyze_cooling
from .cost import analyze_cost
from .engines import Context, Engine, EngineResult
from .fabric import analyze_bandwidth, analyze_fabric
from .findings import Finding
from .floor_loading import analyze_floor
from .inventory import run as count_devices
from .model import Rename
from .power import analyze_power
from .training import analyze_training


def check_placement(ctx: Context) -> EngineResult:
    """Overlaps, racks outside their hall and U collisions: findings only, no section."""
    return EngineResult(findings=tuple(check_space(ctx.project, ctx.catalog, ctx.geometry)))


def report_renamed_types(ctx: Context) -> EngineResult:
    """Catalog ids the design's file named that the catalog has renamed since (``ctx.project.renames``, set
    when the file was read): info findings only (the devices opened as the new entries, and a save writes the
    new ids)."""
    return EngineResult(findings=tuple(_renamed(r) for r in ctx.project.renames))


def _renamed(rename: Rename) -> Finding:
    things = "object" if rename.count == 1 else "objects"
    return Finding("info", "catalog-renamed",
                   f"{rename.count:,} {things} in the file named {rename.old!r}, which the catalog now calls "
                   f"{rename.new!r}: they opened as {rename.new!r}, and saving writes the new id",
                   rename.places[0] if rename.places else "project:catalog", rename.places)


ENGINES: tuple[Engine, ...] = (
    Engine("devices", count_devices),
    Engine("space", check_placement),
    Engine("renamed", report_renamed_types),
    Engine("power", analyze_power),
    Engine("cooling", analyze_cooling),
    Engine("floor", analyze_floor),
    Engine("fabric", analyze_fabric),
    Engine("bandwidth", analyze_bandwidth, needs=("fabric",)),
    Engine("training", analyze_training, needs=("devices", "fabric", "bandwidth")),
    Engine("bom", analyze_bom, needs=("devices", "fabric")),
    Engine("cost", analyze_cost, needs=("bom", "power", "devices", "training")),
)
