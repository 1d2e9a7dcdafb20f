"""``analyze(project)``: every engine's result for one project snapshot.

The GUI, the CLI and the exporters all call this one function and read what it
returns; none recomputes. The engines and their order are in :mod:`designer.registry`.
They read it through the typed views (``analysis.power.it_max_kw``, ``analysis.rack(id).liquid_kw``,
:mod:`designer.views`); ``summary_json`` and ``sections`` are the same figures as ``analyze --json`` prints them.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping

from catalog import Catalog

from .engines import Context, EngineResult, run_engines
from .findings import Finding, listed, sort_findings
from .model import Project
from .registry import ENGINES, WORKLOAD_READERS

if TYPE_CHECKING:
    from .views import (BandwidthView, BomView, CoolingView, CostView, DeviceCounts, FabricView, FloorView,
                        PowerView, RackView, StorageView, Summary, TrainingView)


@dataclass(frozen=True)
class Analysis:
    """The summary, one JSON section per engine, every finding, and the engines' typed results."""

    #: the ``summary`` of ``analyze --json``; consumers read :attr:`summary`, its typed view
    summary_json: Mapping[str, Any]
    sections: Mapping[str, Mapping[str, Any]]
    findings: tuple[Finding, ...] = field(default=())
    #: engine name -> its typed result (the wiring plan, the fat tree, per-rack arrays ...)
    results: Mapping[str, EngineResult] = field(default_factory=dict)
    #: the immutable snapshot this analysis is of, and the catalog it was read with (exporters draw
    #: the plan and name the parts from them)
    project: Project | None = field(default=None, compare=False, repr=False)
    catalog: Catalog | None = field(default=None, compare=False, repr=False)

    def __getitem__(self, key: str) -> Mapping[str, Any]:
        return self.sections[key]

    def result(self, engine: str) -> EngineResult:
        return self.results[engine]

    def has(self, section: str) -> bool:
        """Whether the engine that fills ``section`` ran for this analysis (one made with some engines left
        out has no power or training section); its figures are then read through the view."""
        return section in self.sections

    def _view(self, name: str, cls_name: str):
        # The views load on first read: `analyze --json` prints the sections and never needs them.
        from . import views

        if name not in self.sections:
            raise views.ViewError(f"{name}: this analysis has no {name} section (its engine did not run)")
        return views.build(getattr(views, cls_name), self.sections[name], name)

    # -- the typed read side: each built on first read, then kept (the analysis never changes) ----------------
    @cached_property
    def summary(self) -> Summary:
        from .views import Summary, build

        return build(Summary, self.summary_json, "summary")

    @cached_property
    def devices(self) -> DeviceCounts:
        return self._view("devices", "DeviceCounts")

    @cached_property
    def power(self) -> PowerView:
        return self._view("power", "PowerView")

    @cached_property
    def cooling(self) -> CoolingView:
        return self._view("cooling", "CoolingView")

    @cached_property
    def floor(self) -> FloorView:
        return self._view("floor", "FloorView")

    @cached_property
    def fabric(self) -> FabricView:
        return self._view("fabric", "FabricView")

    @cached_property
    def bandwidth(self) -> BandwidthView:
        return self._view("bandwidth", "BandwidthView")

    @cached_property
    def storage(self) -> StorageView:
        return self._view("storage", "StorageView")

    @cached_property
    def training(self) -> TrainingView:
        return self._view("training", "TrainingView")

    @cached_property
    def bom(self) -> BomView:
        return self._view("bom", "BomView")

    @cached_property
    def cost(self) -> CostView:
        return self._view("cost", "CostView")

    @cached_property
    def _racks(self):
        from .views import RackIndex

        return RackIndex(self.sections)

    def rack(self, rack_id: str) -> RackView | None:
        """Every engine's figures for one rack (``limit_kw``, ``max_kw``, ``utilisation``, ``liquid_kw``,
        ``weight_kg`` ...), or None for a rack this analysis does not know."""
        return self._racks.get(rack_id)

    def to_json(self) -> dict:
        out: dict[str, Any] = {"summary": dict(self.summary_json)}
        out.update((name, dict(section)) for name, section in self.sections.items())
        kept, left_out = listed(self.findings)
        out["findings"] = [f.to_json() for f in kept]
        out["findings_left_out"] = {lo.code: lo.count for lo in left_out}
        return out


def _summary(project: Project, r: Mapping[str, EngineResult]) -> dict:
    devices, power, cooling, fabric = r["devices"], r["power"], r["cooling"].section, r["fabric"].section
    training, bom = r["training"].section, r["bom"]
    return {
        "name": project.name,
        "halls": len(project.halls),
        "racks": len(project.racks),
        "gpus": devices.gpus,
        "bf16_pflops": round(devices.bf16_pflops, 3),
        "it_power_typical_kw": power.it_typical_kw,
        "it_power_max_kw": power.it_max_kw,
        "facility_power_kw": power.facility_max_kw,
        "liquid_heat_kw": cooling["liquid_kw"],
        "air_heat_kw": cooling["air_kw"],
        "coolant_flow_lpm": cooling["coolant_flow_lpm"],
        "currency": bom.currency,
        "switches": {k: fabric.get(k, 0) for k in ("leaf", "spine", "core")},
        "cables": fabric.get("cables_total", 0),
        "tokens_per_s": training.get("tokens_per_s"),
        "mfu": training.get("mfu"),
        "price_total": bom.price_total,
        "list_total": bom.section["list_total"],
        "price_estimated": bom.estimated,
        "unpriced_lines": len(bom.section["unpriced"]),
        "cost_per_gpu_hour": r["cost"].cost_per_gpu_hour,
    }


def analyze(project: Project, catalog: Catalog, engines=ENGINES, *, workers: int | None = None,
            apart: Collection[str] = ()) -> Analysis:
    """The analysis of ``project``; ``workers`` threads run the engines (None: as :func:`designer.engines.run_engines`
    chooses by the design's size; a caller that already runs analyses on every core passes 1). ``apart``: engines
    a command line runs in a forked child beside the others (:data:`designer.registry.APART`); the window, whose
    process holds Qt, passes none."""
    return _analysis(project, catalog, run_engines(engines, Context.build(project, catalog), workers=workers,
                                                   apart=apart))


def analyze_workloads(project: Project, catalog: Catalog, workloads: Iterable[dict | None],
                      engines=ENGINES, *, workers: int | None = None) -> Iterator[Analysis]:
    """``analyze(project.with_workload(w))`` for each workload ``w``, in order, with the engines that do not read
    the workload (:data:`~designer.registry.WORKLOAD_READERS` and whatever reads their results) run once: a
    sweep's models and plans on one design cost a training estimate each, not a whole analysis."""
    reading = set(WORKLOAD_READERS)
    for engine in engines:
        if reading.intersection(engine.needs):
            reading.add(engine.name)
    ctx = Context.build(project, catalog)  # the flattened arrays and footprints: the workload is not in them
    shared: dict[str, EngineResult] | None = None
    for workload in workloads:
        snapshot = project.with_workload(workload)
        given = {k: v for k, v in shared.items() if k not in reading} if shared is not None else None
        done = run_engines(engines, replace(ctx, project=snapshot), given, workers=workers)
        shared = done
        yield _analysis(snapshot, catalog, done)


def _analysis(project: Project, catalog: Catalog, results: Mapping[str, EngineResult]) -> Analysis:
    sections = {name: result.section for name, result in results.items() if result.section is not None}
    findings = sort_findings(f for result in results.values() for f in result.findings)
    return Analysis(MappingProxyType(_summary(project, results)), MappingProxyType(sections), tuple(findings),
                    MappingProxyType(results), project, catalog)
