"""EngineRunner: stale results dropped, bursts coalesced, errors reported, never on the GUI thread."""
from __future__ import annotations

import threading

import pytest

from designer.analysis import analyze
from designer.fileformat import load
import drawn as samples
from designer.model import Project
from widgets.app.engine_runner import EngineRunner


class SlowFake:
    """An analyze_fn that records its thread and can be held until released."""

    def __init__(self, hold_first: bool = False):
        self.threads: list[int] = []
        self.projects: list[Project] = []
        self.gate = threading.Event()
        self.started = threading.Event()
        self.hold_first = hold_first

    def __call__(self, project, catalog):
        self.threads.append(threading.get_ident())
        self.projects.append(project)
        if self.hold_first and len(self.projects) == 1:
            self.started.set()
            assert self.gate.wait(60), "test never released the first run"
        return ("result", project.name)


@pytest.fixture
def make_runner(qtbot, catalog):
    runners = []

    def make(fn, **kw):
        r = EngineRunner(catalog, analyze_fn=fn, **kw)
        runners.append(r)
        return r

    yield make
    for r in runners:
        r.shutdown()


def test_stale_result_is_dropped_and_only_the_newest_is_emitted(qtbot, make_runner):
    fake = SlowFake(hold_first=True)
    runner = make_runner(fake, debounce_ms=0)
    emitted, dropped = [], []
    runner.finished.connect(lambda rev, res: emitted.append((rev, res)))
    runner.dropped.connect(dropped.append)

    runner.request(1, Project(name="old"))
    qtbot.waitUntil(fake.started.is_set, timeout=60000)  # revision 1 is now running on the worker
    runner.request(2, Project(name="new"))
    qtbot.waitUntil(lambda: runner._pending is None, timeout=60000)  # debounced: revision 2 queues behind the held run
    with qtbot.waitSignal(runner.finished, timeout=60000):
        fake.gate.set()

    assert emitted == [(2, ("result", "new"))]
    assert dropped == [1]
    assert runner.dropped_count == 1
    assert not runner.busy


def test_debounce_coalesces_a_burst_into_one_run(qtbot, make_runner):
    fake = SlowFake()
    runner = make_runner(fake, debounce_ms=50)
    with qtbot.waitSignal(runner.finished, timeout=60000) as blocker:
        for rev, name in enumerate(["a", "b", "c"], start=1):
            runner.request(rev, Project(name=name))
    assert blocker.args == [3, ("result", "c")]
    qtbot.wait(100)
    assert runner.run_count == 1
    assert [p.name for p in fake.projects] == ["c"]


def test_engine_runs_off_the_gui_thread(qtbot, make_runner):
    fake = SlowFake()
    runner = make_runner(fake, debounce_ms=0)
    gui = threading.get_ident()
    on_gui_thread = []
    runner.finished.connect(lambda *_: on_gui_thread.append(threading.get_ident() == gui))
    with qtbot.waitSignal(runner.finished, timeout=60000):
        runner.request(1, Project())
    assert fake.threads and all(t != gui for t in fake.threads)
    assert on_gui_thread == [True]  # but the result is delivered on the GUI thread


def test_engine_error_is_reported_not_raised(qtbot, make_runner):
    def broken(project, catalog):
        raise ZeroDivisionError("no racks to divide by")

    runner = make_runner(broken, debounce_ms=0)
    busy = []
    runner.busy_changed.connect(busy.append)
    with qtbot.waitSignal(runner.failed, timeout=60000) as blocker:
        runner.request(7, Project())
    rev, message = blocker.args
    assert rev == 7
    assert message.startswith("ZeroDivisionError: no racks to divide by")
    assert busy == [True, False]


def test_sync_mode_runs_inline_with_the_real_engine(qtbot, catalog):
    runner = EngineRunner(catalog, sync=True)
    project = load(samples.DGX_B200_SU, catalog)
    with qtbot.waitSignal(runner.finished, timeout=60000) as blocker:
        runner.request(3, project)
    rev, analysis = blocker.args
    assert rev == 3
    assert analysis.summary_json == analyze(project, catalog).summary_json


def test_shutdown_ignores_pending_requests(qtbot, make_runner):
    fake = SlowFake()
    runner = make_runner(fake, debounce_ms=30)
    got = []
    runner.finished.connect(lambda *a: got.append(a))
    runner.request(1, Project())
    runner.shutdown()
    qtbot.wait(80)
    assert got == [] and fake.projects == [] and not runner.busy


class _Result:
    """A result with a per-rack lookup, as :class:`designer.analysis.Analysis` has; records who asked."""

    def __init__(self):
        self.asked_from: list[int] = []

    def rack(self, rack_id):
        self.asked_from.append(threading.get_ident())
        return None


def test_the_worker_builds_the_per_rack_lookup_before_delivering(qtbot, make_runner, catalog):
    runner = make_runner(lambda project, catalog: _Result(), debounce_ms=0)
    with qtbot.waitSignal(runner.finished, timeout=60000) as blocker:
        runner.request(1, Project())
    result = blocker.args[1]
    assert result.asked_from and threading.get_ident() not in result.asked_from
    # The real engine's result takes the same path and answers for its racks.
    real = make_runner(analyze, debounce_ms=0)
    with qtbot.waitSignal(real.finished, timeout=60000) as blocker:
        real.request(1, load(samples.DGX_B200_SU, catalog))
    assert blocker.args[1].rack("a01").limit_kw == 40.0
