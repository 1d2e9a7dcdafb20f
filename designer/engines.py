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

import os
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from functools import partial
from types import MappingProxyType
from typing import Any, Callable, Collection, Mapping

import numpy as np

from catalog import Catalog

from .arrays import DesignArrays, flatten
from .collector import paused
from .findings import Finding
from .forked import FORK_SAFE, Child, start
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
    #: Engines run on several threads: the first to ask builds what is derived, the others wait for it.
    _deriving: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def build(cls, project: Project, catalog: Catalog) -> Context:
        return cls(project, catalog, project.settings, flatten(project, catalog))

    @property
    def geometry(self):
        """Every rack's and floor unit's footprint in the hall plane (:func:`designer.placement.placed_objects`),
        built on first use and shared by the engines that read it."""
        with self._deriving:
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


#: Engines run at once, at most: a fat tree's link columns spend most of their time in numpy, which lets go of the
#: interpreter, so the checks and the power and cooling sums run beside it (a million-GPU site's engines: 6.3-6.9 s
#: one after another, 5.0-5.3 s on two threads). More threads than cores only contend.
WORKERS = max(1, min(2, os.cpu_count() or 1))
#: Below this many GPUs the engines run one after another: a smaller design's columns are too short for numpy to
#: let go of the interpreter for long, and two threads taking turns at it were slower (an SU: 98-112 ms one after
#: another, 114-116 ms on two threads; 100,000 GPUs: no difference; 300,000 GPUs: 2.1-2.6 s, 1.7-1.9 s on two).
THREADS_FROM_GPUS = 200_000
#: From this many GPUs a command line runs the engines it names ``apart`` (the training engine) in a forked child
#: process beside the others (:func:`run_engines`). A 100,000-GPU hall's engines: 0.43-0.50 s one after another,
#: 0.30-0.32 s with the training engine's four plan searches forked. In a scalable unit the searches are most of
#: the analysis and the parent only waits for them (576 GPUs: 0.16-0.19 s either way), so smaller designs, the
#: test suite's many among them, keep to one process.
APART_FROM_GPUS = 20_000
#: The interpreter's switch interval for a process that runs engines on threads (Python's default: 5 ms). The
#: fabric engine, mostly numpy, lets go of the interpreter lock during each array operation; when one ends its
#: thread waits for the lock until the thread running a pure-Python engine is made to let go, up to the interval,
#: and that thousands of times per analysis. A million-GPU site's engines took 2.36-2.64 s at 0.5 ms (median 2.54,
#: four runs) against 2.95-3.21 s at 5 ms (median 3.01, five runs); 1 ms and 0.2 ms were no better than 0.5 ms.
SWITCH_INTERVAL_S = 0.0005


def share_the_interpreter_often() -> None:
    """Set the process's switch interval to :data:`SWITCH_INTERVAL_S` (every command line takes it, the window's
    included: its own thread gets the lock back as soon, while an analysis runs)."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)


def _downstream(engines: tuple[Engine, ...]) -> dict[str, int]:
    """How many engines read each engine's result, directly or through others (the longest chains start first)."""
    readers: dict[str, set] = {e.name: set() for e in engines}
    for engine in reversed(engines):
        for need in engine.needs:
            if need in readers:
                readers[need] |= {engine.name} | readers[engine.name]
    return {name: len(r) for name, r in readers.items()}


@paused()  # the engines make many containers and no cycle: five full collections walking a million-GPU design's
# objects cost a sixth of its analysis
def run_engines(engines: tuple[Engine, ...], ctx: Context,
                given: Mapping[str, EngineResult] | None = None, workers: int | None = None,
                apart: Collection[str] = (), apart_from_gpus: int | None = None) -> dict[str, EngineResult]:
    """Run ``engines``, each seeing the results it declared and nothing else; an engine whose result is ``given``
    (run already on inputs it reads the same) is not run again. Engines whose needs are met run at once on up to
    ``workers`` threads (by default :data:`WORKERS` from :data:`THREADS_FROM_GPUS` GPUs, else one), those with the
    most engines reading them first. Run one after another, the engines named in ``apart`` each run in a forked
    child process (:mod:`designer.forked`) from designs of ``apart_from_gpus`` GPUs (None: :data:`APART_FROM_GPUS`),
    their needs first, while this process runs the others. An engine is a pure function of the context, so the
    results, returned in ``engines``' order, are the same whatever ran when. An engine that raises stops the run:
    the first such engine in ``engines``' order is the error raised."""
    done: dict[str, EngineResult] = dict(given or {})
    names = [e.name for e in engines]
    for i, engine in enumerate(engines):
        missing = [n for n in engine.needs if n not in names[:i]] if engine.name not in done else []
        if missing:
            raise RuntimeError(f"engine {engine.name!r} needs {missing[0]!r}, which does not run before it")
    todo = [e for e in engines if e.name not in done]
    if workers is None:
        workers = WORKERS if ctx.arrays.gpus >= THREADS_FROM_GPUS else 1
    workers = max(1, workers)
    if apart_from_gpus is None:
        apart_from_gpus = APART_FROM_GPUS
    apart = [n for n in apart if n in {e.name for e in todo}] if ctx.arrays.gpus >= apart_from_gpus else []
    if apart and workers == 1 and FORK_SAFE and _run_apart(todo, ctx, done, set(apart)):
        return {name: done[name] for name in names}
    if workers == 1 or len(todo) < 2:
        for engine in todo:
            done[engine.name] = engine.run(ctx.seeing({n: done[n] for n in engine.needs}))
    else:
        _run_threaded(todo, ctx, done, workers, _downstream(engines))
    return {name: done[name] for name in names}


def _run_apart(todo: list[Engine], ctx: Context, done: dict, apart: set[str]) -> bool:
    """Run ``todo`` one after another here, but the engines in ``apart``: one forked child runs those, in list
    order, started as soon as what they need from here is done (those engines run first) and waited for when an
    engine here needs one of them, or at the end. An engine that failed in the child runs again here, so that
    its own error is raised, as it was; after a failure only engines before it in the list still run, so the
    error raised is the one a run in list order meets first. Where an engine the child needs from here needs
    one of the child's, nothing is set apart and nothing runs: False."""
    order = {e.name: i for i, e in enumerate(todo)}
    by_name = {e.name: e for e in todo}
    seen, wanted = set(apart), list(apart)
    while wanted:  # what the child needs, through its own engines too
        for need in by_name[wanted.pop()].needs:
            if need in by_name and need not in seen:
                seen.add(need)
                wanted.append(need)
    first = seen - apart
    if any(n in apart for name in first for n in by_name[name].needs):
        return False
    failed: dict[str, BaseException] = {}
    child: Child | None = None

    def settle(outcomes: dict) -> None:
        for name, (ok, value) in outcomes.items():
            if ok:
                done[name] = value
            elif value is None:  # failed in the child: its error is raised here, as a run here raises it
                settle(_outcomes((by_name[name],), ctx, done))
            else:
                failed[name] = value

    def skipped(engine: Engine) -> bool:
        return (bool(failed) and order[engine.name] > min(order[n] for n in failed)
                or any(n in failed for n in engine.needs))

    try:
        for engine in [e for e in todo if e.name in first]:
            if not skipped(engine):
                settle(_outcomes((engine,), ctx, done))
        run = partial(_outcomes, tuple(e for e in todo if e.name in apart and not skipped(e)), ctx, dict(done),
                      quiet=True)
        child = start(run)
        if child is None:
            settle(run())
        for engine in [e for e in todo if e.name not in first | apart]:
            if child is not None and apart.intersection(engine.needs):
                settle(child.result())
                child = None
            if not skipped(engine):
                settle(_outcomes((engine,), ctx, done))
        if child is not None:
            settle(child.result())
            child = None
    finally:
        if child is not None:  # leaving early (Ctrl-C): no child outlives the analysis
            child.stop()
    if failed:
        raise failed[min(failed, key=order.__getitem__)]
    return True


def _outcomes(engines: tuple[Engine, ...], ctx: Context, done: dict, *,
              quiet: bool = False) -> dict[str, tuple[bool, object]]:
    """Run ``engines`` in order, each seeing what it needs from ``done`` and from those before it; per engine
    (True, result) or (False, its error; None when ``quiet``: a child sends no error back, as one may not survive
    pickling whole). An engine whose need failed is left out."""
    out: dict[str, tuple[bool, object]] = {}
    for engine in engines:
        if any(n in out and not out[n][0] for n in engine.needs):
            continue
        try:
            result = engine.run(ctx.seeing({n: out[n][1] if n in out else done[n] for n in engine.needs}))
        except Exception as exc:
            out[engine.name] = (False, None if quiet else exc)
        else:
            out[engine.name] = (True, result)
    return out


def _run_threaded(todo: list[Engine], ctx: Context, done: dict, workers: int, rank: dict[str, int]) -> None:
    order = {e.name: i for i, e in enumerate(todo)}
    waiting = sorted(todo, key=lambda e: (-rank[e.name], order[e.name]))
    failed: dict[str, BaseException] = {}
    running: dict[Future, str] = {}
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="podplanner-engines")
    try:
        while True:
            # After a failure only engines before it in the list still start: the error raised is then the one
            # a run in list order would have met first, whatever the threads' timing.
            before = min((order[n] for n in failed), default=len(todo))
            waiting = [e for e in waiting if order[e.name] < before]
            for engine in [e for e in waiting if all(n in done for n in e.needs)][:workers - len(running)]:
                waiting.remove(engine)
                running[pool.submit(engine.run, ctx.seeing({n: done[n] for n in engine.needs}))] = engine.name
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                name = running.pop(future)
                error = future.exception()
                if error is None:
                    done[name] = future.result()
                else:
                    failed[name] = error
    except BaseException:
        # Ctrl-C (or a time limit's signal) reaches this thread in wait(): return at once, not after the engines
        # still running (a million-GPU fabric takes seconds); their threads end with them, their results unread.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    if failed:
        raise failed[min(failed, key=order.__getitem__)]
