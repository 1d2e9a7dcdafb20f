"""The engine contract: a registry in dependency order, frozen typed results, and the stable JSON."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from designer import engines
from designer.analysis import analyze
from designer.engines import Context, Engine, EngineResult, run_engines
from designer.fileformat import load
from designer.registry import ENGINES
from drawn import DGX_B200_SU, GB200_NVL72_SU

from keypaths import key_paths

GOLDEN = Path(__file__).parent / "golden"


def test_registry_runs_every_engine_after_what_it_needs():
    names = [e.name for e in ENGINES]
    assert names == ["devices", "space", "catalog", "power", "cooling", "floor", "fabric_sizing", "fabric",
                     "bandwidth", "storage", "training", "bom", "cost"]
    for i, engine in enumerate(ENGINES):
        assert set(engine.needs) <= set(names[:i]), engine.name


def test_the_interpreter_is_shared_in_half_millisecond_turns():
    """The fabric's thread gets the interpreter back within 0.5 ms of an array operation, not Python's 5 ms."""
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        engines.share_the_interpreter_often()
        assert sys.getswitchinterval() == pytest.approx(0.0005)
    finally:
        sys.setswitchinterval(before)


def test_bandwidth_and_training_read_the_sized_tree_not_the_cables(catalog):
    """They start as soon as the tree is sized, beside the wiring and the cable choice (most of a large fabric's
    time), and see the same tree the fabric engine wired."""
    needs = {e.name: set(e.needs) for e in ENGINES}
    assert "fabric" not in needs["bandwidth"] | needs["training"]
    assert "fabric_sizing" in needs["bandwidth"] & needs["training"] & needs["fabric"]
    analysis = analyze(load(GB200_NVL72_SU, catalog), catalog)
    assert analysis.results["fabric"].tree is analysis.results["fabric_sizing"].tree
    assert "fabric_sizing" not in analysis.to_json()  # no section of its own: the fabric section says it all


def test_an_engine_sees_only_what_it_declared(catalog):
    project = load(DGX_B200_SU, catalog)
    seen = {}

    def spy(ctx: Context) -> EngineResult:
        seen["keys"] = set(ctx.results)
        with pytest.raises(KeyError, match="not declared"):
            ctx["power"]
        return EngineResult(section={"fabric_leaf": ctx["fabric"].section["leaf"]})

    engines = ENGINES + (Engine("spy", spy, needs=("fabric",)),)
    analysis = analyze(project, catalog, engines)
    assert seen["keys"] == {"fabric"}
    assert analysis["spy"] == {"fabric_leaf": 8}


def test_an_engine_listed_before_its_dependency_is_refused(catalog):
    project = load(DGX_B200_SU, catalog)
    with pytest.raises(RuntimeError, match="needs 'fabric'"):
        run_engines((Engine("bandwidth", lambda ctx: EngineResult(), needs=("fabric",)),),
                    Context.build(project, catalog))


def _analysis_json(project, catalog, workers: int) -> str:
    from designer.analysis import _analysis

    done = run_engines(ENGINES, Context.build(project, catalog), workers=workers)
    assert list(done) == [e.name for e in ENGINES]  # the registry's order, whichever finished first
    return json.dumps(_analysis(project, catalog, done).to_json(), default=str)


@pytest.mark.parametrize("path", [DGX_B200_SU, GB200_NVL72_SU])
def test_engines_on_two_threads_give_the_analysis_of_one(path, catalog):
    project = load(path, catalog)
    one = _analysis_json(project, catalog, workers=1)
    assert _analysis_json(project, catalog, workers=2) == one
    assert json.loads(one)["summary"]["gpus"] > 0


def test_independent_engines_run_at_once_and_a_reader_waits_for_what_it_needs(catalog):
    """Two engines that need nothing run together (each waits, under a timeout, for the other to start); the
    one that reads both starts after both have finished."""
    import threading

    started = threading.Barrier(2, timeout=20)
    log = []

    def side(name):
        def run(ctx):
            started.wait()  # raises BrokenBarrierError if the other never runs beside this one
            log.append(name)
            return EngineResult(section={"name": name})
        return run

    def reader(ctx):
        log.append("reader")
        return EngineResult(section={"read": [ctx["left"].section["name"], ctx["right"].section["name"]]})

    engines = (Engine("left", side("left")), Engine("right", side("right")),
               Engine("reader", reader, needs=("left", "right")))
    done = run_engines(engines, Context.build(load(DGX_B200_SU, catalog), catalog), workers=2)
    assert list(done) == ["left", "right", "reader"]
    assert sorted(log[:2]) == ["left", "right"] and log[2] == "reader"
    assert done["reader"].section["read"] == ["left", "right"]


def test_a_design_of_fewer_gpus_than_the_threshold_runs_its_engines_one_after_another(catalog, monkeypatch):
    """Below THREADS_FROM_GPUS two threads only take turns at the interpreter: no pool is made; at or above it the
    default is WORKERS threads."""
    import designer.engines as engines

    made = []
    real_pool = engines.ThreadPoolExecutor
    monkeypatch.setattr(engines, "ThreadPoolExecutor", lambda *a, **k: made.append(k) or real_pool(*a, **k))
    monkeypatch.setattr(engines, "WORKERS", 2)
    project = load(GB200_NVL72_SU, catalog)
    assert Context.build(project, catalog).arrays.gpus == 576
    run_engines(ENGINES, Context.build(project, catalog))
    assert made == []
    monkeypatch.setattr(engines, "THREADS_FROM_GPUS", 576)
    run_engines(ENGINES, Context.build(project, catalog))
    assert [k["max_workers"] for k in made] == [2]


def test_a_failing_engine_stops_the_run_and_the_first_failure_in_order_is_raised(catalog):
    import threading

    both = threading.Barrier(2, timeout=20)
    ran = []

    def fails(message):
        def run(ctx):
            both.wait()  # both failures happen, whichever thread gets there first
            raise ValueError(message)
        return run

    engines = (Engine("first", fails("first broke")), Engine("second", fails("second broke")),
               Engine("after", lambda ctx: ran.append("after") or EngineResult(), needs=("first",)))
    for _ in range(5):
        with pytest.raises(ValueError, match="first broke"):
            run_engines(engines, Context.build(load(DGX_B200_SU, catalog), catalog), workers=2)
    assert ran == []


def test_footprints_are_built_once_when_engines_ask_at_once(catalog, monkeypatch):
    import threading

    from designer import placement

    calls = []
    real = placement.placed_objects
    gate = threading.Barrier(2, timeout=20)
    monkeypatch.setattr(placement, "placed_objects", lambda *a: calls.append(1) or real(*a))

    def reads(ctx):
        gate.wait()
        return EngineResult(section={"where": ctx.geometry.wheres[0]})

    done = run_engines((Engine("a", reads), Engine("b", reads)),
                       Context.build(load(DGX_B200_SU, catalog), catalog), workers=2)
    assert len(calls) == 1
    assert done["a"].section["where"] == done["b"].section["where"] == "rack:a01"


def test_footprints_are_built_once_per_analysis(catalog):
    ctx = Context.build(load(DGX_B200_SU, catalog), catalog)
    view = ctx.seeing({})
    assert view.geometry is ctx.geometry  # one build, shared by every engine's view of the context
    assert len(ctx.geometry.wheres) == 19 and ctx.geometry.wheres[0] == "rack:a01"


def test_results_are_frozen(catalog):
    analysis = analyze(load(GB200_NVL72_SU, catalog), catalog)
    power = analysis.result("power")
    with pytest.raises(TypeError):
        power.section["it_max_kw"] = 0.0
    with pytest.raises(ValueError):
        power.rack_limit_kw[0] = 1.0
    with pytest.raises(AttributeError):
        power.it_max_kw = 0.0
    with pytest.raises(TypeError):
        analysis.sections["power"] = {}
    # The rack-scale limit the power engine applied, read as typed figures and as JSON alike.
    i = power.rack_ids.index("r01")
    assert power.rack_limit_kw[i] == 132.0 == analysis.rack("r01").limit_kw
    assert np.allclose(power.rack_utilisation, [r["utilisation"] for r in analysis["power"]["racks"]], atol=1e-4)


def test_summary_reads_the_engines(catalog):
    analysis = analyze(load(DGX_B200_SU, catalog), catalog)
    s, r = analysis.summary_json, analysis.results
    assert s["gpus"] == r["devices"].gpus == 248
    assert s["it_power_max_kw"] == r["power"].it_max_kw == analysis["power"]["it_max_kw"]
    assert s["price_total"] == r["bom"].price_total == analysis["bom"]["price_total"]
    assert s["switches"] == {"leaf": 8, "spine": 4, "core": 0}
    assert analysis["devices"]["by_type"]["dgx-b200"] == 31


@pytest.mark.parametrize("name, path", [("dgx-b200-su", DGX_B200_SU), ("gb200-nvl72-su", GB200_NVL72_SU)])
def test_analyze_json_keeps_every_key(name, path, capsys):
    """The keys scripts rely on: ``analyze --json`` of both samples has exactly the golden key set."""
    from designer.cli import main

    assert main(["analyze", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    golden = set((GOLDEN / f"analyze-keys-{name}.txt").read_text().split())
    got = key_paths(doc)
    assert not golden - got, f"keys lost: {sorted(golden - got)[:10]}"
    assert not got - golden, f"keys added without updating the golden list: {sorted(got - golden)[:10]}"
    assert list(doc) == ["summary", "devices", "power", "cooling", "floor", "fabric", "bandwidth", "storage",
                         "training", "bom", "cost", "findings", "findings_left_out"]


def test_each_rack_says_whose_limit_holds_it(catalog):
    from dataclasses import replace

    nvl = load(GB200_NVL72_SU, catalog)
    assert analyze(nvl, catalog).rack("r01").limit_source == "hall"  # the sample's hall sets 132 kW
    bare = nvl.with_hall(replace(nvl.halls[0], rack_power_limit_kw=None))
    analysis = analyze(bare, catalog)
    assert (analysis.rack("r01").limit_kw, analysis.rack("r01").limit_source) == (132.0, "rack_system")
    assert analysis.rack("n01").limit_source == "project"
    own = bare.with_racks([replace(bare.rack("r01"), power_limit_kw=150.0)])
    assert analyze(own, catalog).rack("r01").limit_source == "rack"


def test_cdu_loops_carry_their_utilisation(catalog):
    loop = analyze(load(GB200_NVL72_SU, catalog), catalog)["cooling"]["cdu_loops"][0]
    assert loop["utilisation"] == round(loop["load_kw"] / loop["capacity_kw"], 4) > 0


def test_the_error_raised_is_the_one_a_run_in_order_meets_first(catalog):
    """An engine read by many starts first and fails at once; the first engine of the list, read by none, fails
    too but starts later: its error is the one raised, as a run one engine after another would raise it."""
    def broke(message):
        def run(ctx):
            raise ValueError(message)
        return run

    engines = (Engine("first", broke("first broke")), Engine("hub", broke("hub broke")),
               Engine("slow", lambda ctx: EngineResult()),
               Engine("r1", lambda ctx: EngineResult(), needs=("hub", "slow")),
               Engine("r2", lambda ctx: EngineResult(), needs=("hub",)))
    ctx = Context.build(load(DGX_B200_SU, catalog), catalog)
    for workers in (1, 2, 2, 2):
        with pytest.raises(ValueError, match="first broke"):
            run_engines(engines, ctx, workers=workers)


def test_an_interrupt_returns_without_waiting_for_the_engines_still_running(catalog):
    """Ctrl-C or a time limit's signal arrives in the main thread while it waits for the engines: the run ends
    then, not when the engine still running (a million-GPU fabric takes seconds) has finished."""
    import signal
    import threading
    import time

    class Interrupted(Exception):
        """What the signal handler raises in the main thread."""

    def stop(signum, frame):
        raise Interrupted

    release = threading.Event()
    engines = (Engine("long", lambda ctx: release.wait(30) and EngineResult()),
               Engine("short", lambda ctx: EngineResult()),
               Engine("after", lambda ctx: EngineResult(), needs=("long",)))
    ctx = Context.build(load(DGX_B200_SU, catalog), catalog)
    previous = signal.signal(signal.SIGALRM, stop)
    t0 = time.monotonic()
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        with pytest.raises(Interrupted):
            run_engines(engines, ctx, workers=2)
        back_while_running = not release.is_set()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        release.set()
    assert back_while_running
    assert time.monotonic() - t0 < 25  # the 30 s engine was not waited for
