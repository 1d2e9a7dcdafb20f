"""The engine contract: one immutable context in, one frozen typed result out.

Every engine is a pure function ``run(ctx) -> EngineResult``. The context is built
once per analysis (project, catalog, settings, the design flattened into arrays,
its footprints on first use) and carries the results of the engines an engine
declares it needs, and only those, so an engine cannot quietly depend on one it did not name and the
registry's order is checked rather than trusted. A result holds the engine's
JSON section (``None`` for an engine that only checks) and its findings, plus
the typed figures other engines and views read instead of recomputing.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np

from catalog import Catalog

from .arrays import DesignArrays, flatten
from .collector import paused
from .findings import Finding
from .model import Project
from .settings import Settings


def frozen_array(values) -> np.ndarray:
    """A read-only numpy array, so a result shared by several views cannot be edited by one."""
    arr = np.array(values, dtype=float)
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True, kw_only=True)
class EngineResult:
    #: The engine's section of ``analyze --json`` (stable keys), or None for a check-only engine.
    section: Mapping[str, Any] | None = None
    findings: tuple[Finding, ...] = ()

    def __post_init__(self):
        if self.section is not None and not isinstance(self.section, MappingProxyType):
            object.__setattr__(self, "section", MappingProxyType(self.section))
        object.__setattr__(self, "findings", tuple(self.findings))


@dataclass(frozen=True)
class Context:
    """What every engine reads: the design and the results of the engines it depends on."""

    project: Project
    catalog: Catalog
    settings: Settings
    arrays: DesignArrays
    results: Mapping[str, EngineResult] = field(default_factory=lambda: MappingProxyType({}))
    #: What is derived from the inputs on first use (the footprints); shared by every view of this context.
    _derived: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(cls, project: Project, catalog: Catalog) -> Context:
        return cls(project, catalog, project.settings, flatten(project, catalog))

    @property
    def geometry(self):
        """Every rack's and floor unit's footprint in the hall plane (:func:`designer.placement.placed_objects`),
        built on first use and shared by the engines that read it."""
        if "geometry" not in self._derived:
            from .placement import placed_objects

            self._derived["geometry"] = placed_objects(self.project, self.catalog)
        return self._derived["geometry"]

    def __getitem__(self, engine: str) -> EngineResult:
        try:
            return self.results[engine]
        except KeyError:
            raise KeyError(f"engine result {engine!r} was not declared as a dependency") from None

    def seeing(self, results: Mapping[str, EngineResult]) -> Context:
        return replace(self, results=MappingProxyType(dict(results)))


@dataclass(frozen=True)
class Engine:
    """One registered engine: its name (the JSON section it fills), what it reads, how it runs."""

    name: str
    run: Callable[[Context], EngineResult]
    needs: tuple[str, ...] = ()


@paused()  # the engines make many containers and no cycle: five full collections walking a million-GPU design's
# objects cost a sixth of its analysis
def run_engines(engines: tuple[Engine, ...], ctx: Context,
                given: Mapping[str, EngineResult] | None = None) -> dict[str, EngineResult]:
    """Run ``engines`` in order, each seeing the results it declared and nothing else; an engine whose result
    is ``given`` (run already on inputs it reads the same) is not run again."""
    done: dict[str, EngineResult] = {}
    for engine in engines:
        if given and engine.name in given:
            done[engine.name] = given[engine.name]
            continue
        missing = [n for n in engine.needs if n not in done]
        if missing:
            raise RuntimeError(f"engine {engine.name!r} needs {missing[0]!r}, which does not run before it")
        done[engine.name] = engine.run(ctx.seeing({n: done[n] for n in engine.needs}))
    return done
