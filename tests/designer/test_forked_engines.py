"""Engines run in a forked child beside the others (designer.forked): the same results, the same first error,
and the engine run here whenever no child can give its result."""
from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
import threading
from contextlib import redirect_stdout

import pytest

from designer import engines, forked
from designer.analysis import analyze
from designer.cli import main
from designer.engines import Context, Engine, EngineResult, run_engines
from designer.fileformat import load
from designer.registry import APART, ENGINES
from drawn import GB200_NVL72_SU

PARENT = os.getpid()


def _children() -> list[int]:
    """This process's children still in the process table (a child not reaped stays as a zombie)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid():
                out.append(int(entry))
    return out


@pytest.fixture(autouse=True)
def one_thread(monkeypatch):
    """The process counts as one thread, whatever idle threads earlier tests of the session left behind (a fork
    beside another thread is refused, and tested so below)."""
    monkeypatch.setattr(forked.threading, "active_count", lambda: 1)


@pytest.fixture
def ctx(catalog):
    return Context.build(load(GB200_NVL72_SU, catalog), catalog)


def test_the_training_engine_runs_apart_on_linux():
    assert APART == ("training",)
    assert forked.FORK_SAFE  # the suite runs on Linux: the forked path is the one these tests take


def test_a_forked_training_engine_gives_the_analysis_run_in_one_process(catalog, ctx):
    here = run_engines(ENGINES, ctx, workers=1)
    apart = run_engines(ENGINES, ctx, workers=1, apart=APART, apart_from_gpus=0)
    assert list(apart) == [e.name for e in ENGINES]
    project = load(GB200_NVL72_SU, catalog)
    one = analyze(project, catalog).to_json()
    both = analyze(project, catalog, apart=APART).to_json()  # the sample is below APART_FROM_GPUS: not forked
    assert one == both
    assert dict(apart["training"].section) == dict(here["training"].section)
    assert apart["training"].section["mfu"] == here["training"].section["mfu"] > 0.2
    assert apart["training"].findings == here["training"].findings
    assert apart["cost"].section == here["cost"].section  # cost reads training: it waited for the child
    assert _children() == []


def test_a_result_sent_back_is_read_only_again(ctx):
    done = run_engines(ENGINES, ctx, workers=1, apart=APART, apart_from_gpus=0)
    with pytest.raises(TypeError):
        done["training"].section["mfu"] = 1.0
    assert type(done["training"].section).__name__ == "mappingproxy"


def _engines(*behaviours, needs: dict | None = None) -> tuple[Engine, ...]:
    """Engines a, b, c …, each needing a (or as ``needs`` says); each returns its name or raises, as its
    behaviour says."""
    out = []
    for i, behave in enumerate(behaviours):
        name = "abcdefg"[i]

        def run(ctx, name=name, behave=behave):
            if behave == "raise":
                raise ValueError(f"{name} failed")
            if behave == "die in a child" and os.getpid() != PARENT:
                os._exit(7)  # the child ends without a word: the parent runs the engine itself
            if behave == "unpicklable":
                return EngineResult(section={"f": lambda: 0})
            return EngineResult(section={"name": name, "pid_is_parent": os.getpid() == PARENT, "pid": os.getpid()})
        out.append(Engine(name, run, needs=(needs or {}).get(name, ("a",) if i else ())))
    return tuple(out)


def test_the_engine_apart_runs_in_another_process_and_the_rest_here(ctx):
    done = run_engines(_engines("ok", "ok", "ok"), ctx, workers=1, apart=("b",), apart_from_gpus=0)
    assert [done[n].section["pid_is_parent"] for n in "abc"] == [True, False, True]


def test_engines_apart_share_one_child_and_a_later_one_sees_the_earlier(ctx):
    # c needs b: both run in the child, b first; d, run here, needs c and waits for the child
    done = run_engines(_engines("ok", "ok", "ok", "ok", needs={"c": ("b",), "d": ("c",)}), ctx, workers=1,
                       apart=("b", "c"), apart_from_gpus=0)
    assert [done[n].section["pid_is_parent"] for n in "abcd"] == [True, False, False, True]
    assert done["b"].section["pid"] == done["c"].section["pid"]
    with pytest.raises(ValueError, match="b failed"):  # c is left out: its need failed
        run_engines(_engines("ok", "raise", "ok", "ok", needs={"c": ("b",)}), ctx, workers=1, apart=("b", "c"),
                    apart_from_gpus=0)
    assert _children() == []


def test_below_the_threshold_or_where_fork_is_unsafe_everything_runs_here(ctx, monkeypatch):
    done = run_engines(_engines("ok", "ok"), ctx, workers=1, apart=("b",), apart_from_gpus=ctx.arrays.gpus + 1)
    assert done["b"].section["pid_is_parent"]
    monkeypatch.setattr(engines, "FORK_SAFE", False)
    done = run_engines(_engines("ok", "ok"), ctx, workers=1, apart=("b",), apart_from_gpus=0)
    assert done["b"].section["pid_is_parent"]
    monkeypatch.setattr(engines, "FORK_SAFE", True)
    monkeypatch.setattr(forked, "FORK_SAFE", False)  # forked.start itself refuses: runs it in place
    done = run_engines(_engines("ok", "ok"), ctx, workers=1, apart=("b",), apart_from_gpus=0)
    assert done["b"].section["pid_is_parent"]


def test_beside_another_thread_nothing_is_forked(ctx, monkeypatch):
    monkeypatch.undo()  # the real count of threads
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        done = run_engines(_engines("ok", "ok"), ctx, workers=1, apart=("b",), apart_from_gpus=0)
    finally:
        release.set()
        other.join()
    assert done["b"].section["pid_is_parent"]


def test_a_child_that_dies_has_its_engine_run_here(ctx):
    done = run_engines(_engines("ok", "die in a child", "ok"), ctx, workers=1, apart=("b",), apart_from_gpus=0)
    assert done["b"].section["name"] == "b" and done["b"].section["pid_is_parent"]
    assert _children() == []


def test_the_first_error_in_list_order_is_raised_whoever_ran_it(ctx):
    # the forked engine (b) fails and so does a later one run here (c): b's error, as in one process
    with pytest.raises(ValueError, match="b failed"):
        run_engines(_engines("ok", "raise", "raise"), ctx, workers=1, apart=("b",), apart_from_gpus=0)
    # c, forked, starts before b runs here; both fail, and b comes first in the list: b's error
    with pytest.raises(ValueError, match="b failed"):
        run_engines(_engines("ok", "raise", "raise"), ctx, workers=1, apart=("c",), apart_from_gpus=0)
    with pytest.raises(ValueError, match="b failed"):
        run_engines(_engines("ok", "raise", "ok"), ctx, workers=1, apart=("c",), apart_from_gpus=0)
    with pytest.raises(ValueError, match="a failed"):
        run_engines(_engines("raise", "ok", "ok"), ctx, workers=1, apart=("b",), apart_from_gpus=0)
    assert _children() == []


def test_a_result_that_cannot_be_sent_back_is_worked_out_here(ctx):
    done = run_engines(_engines("ok", "unpicklable"), ctx, workers=1, apart=("b",), apart_from_gpus=0)
    assert done["b"].section["f"]() == 0
    assert _children() == []


class Described(Exception):
    """An error that builds its message from its argument (pickled, it would be rebuilt from the message)."""

    def __init__(self, what: str):
        super().__init__(f"{what} at the third layer")


def test_an_engine_that_fails_in_the_child_raises_its_own_error_here(ctx):
    def fails(ctx):
        raise Described("bad tokens") from KeyError("tokens")

    chain = (_engines("ok")[0], Engine("b", fails, needs=("a",)), Engine("c", fails, needs=()))
    with pytest.raises(Described) as raised:
        run_engines(chain, ctx, workers=1, apart=("b",), apart_from_gpus=0)
    assert str(raised.value) == "bad tokens at the third layer"
    assert isinstance(raised.value.__cause__, KeyError)


def test_when_the_child_would_need_what_needs_it_nothing_is_set_apart(ctx):
    # c (apart) needs x (here), which needs b (apart): no order lets one child run b and c, so all run here
    chain = _engines("ok", "ok", "ok") + (Engine("x", _engines("ok", "ok")[1].run, needs=("b",)),)
    chain = chain[:2] + (chain[3], Engine("c", chain[2].run, needs=("x",)))
    done = run_engines(chain, ctx, workers=1, apart=("b", "c"), apart_from_gpus=0)
    assert [done[n].section["pid_is_parent"] for n in ("a", "b", "x", "c")] == [True] * 4


def _never(read_end: int) -> None:
    """Block until the process is killed: a read of a pipe whose write end stays open and is never written."""
    os.read(read_end, 1)


def test_leaving_early_kills_the_child_and_closes_its_pipe(ctx):
    read_end, write_end = os.pipe()

    def slow(ctx):
        if os.getpid() != PARENT:
            _never(read_end)
        return EngineResult()

    def interrupted(ctx):
        raise KeyboardInterrupt

    fds = len(os.listdir("/proc/self/fd"))
    chain = (_engines("ok")[0], Engine("b", slow, needs=("a",)), Engine("c", interrupted, needs=("a",)))
    try:
        for _ in range(3):
            with pytest.raises(KeyboardInterrupt):
                run_engines(chain, ctx, workers=1, apart=("b",), apart_from_gpus=0)
        assert len(os.listdir("/proc/self/fd")) == fds
        assert _children() == []
    finally:
        os.close(read_end)
        os.close(write_end)


CHILD_OUTLIVES = """
import os, sys
from designer.engines import Context, Engine, EngineResult, run_engines
from designer.fileformat import load
from catalog import load_catalog
catalog = load_catalog()
ctx = Context.build(load(sys.argv[1], catalog), catalog)
parent = os.getpid()
told, tell = os.pipe()   # the child writes its pid here
hold, _ = os.pipe()      # never written: the child blocks reading it
def slow(ctx):
    if os.getpid() != parent:
        os.write(tell, f"{os.getpid()}\\n".encode())
        os.read(hold, 1)
    return EngineResult()
def killed(ctx):
    pid = os.read(told, 32)   # blocks until the child is running
    sys.stdout.write(pid.decode())
    sys.stdout.flush()
    os.kill(os.getpid(), 9)
run_engines((Engine("a", slow), Engine("b", killed)), ctx, workers=1, apart=("a",), apart_from_gpus=0)
"""


def test_a_child_ends_with_a_parent_killed_outright():
    done = subprocess.run([sys.executable, "-c", CHILD_OUTLIVES, str(GB200_NVL72_SU)], capture_output=True,
                          timeout=120)
    assert done.returncode == -9
    child = int(done.stdout.decode().strip())
    try:
        handle = os.pidfd_open(child)
    except ProcessLookupError:
        return  # gone and reaped already
    try:
        # a pidfd turns readable when its process ends; the kernel sent SIGKILL as the parent ended
        readable, _, _ = select.select([handle], [], [], 60)
    finally:
        os.close(handle)
    assert readable, f"the child {child} still runs after its parent was killed"


def test_analyze_on_the_command_line_prints_the_same_json_forked(monkeypatch):
    def printed() -> dict:
        out = io.StringIO()
        with redirect_stdout(out):
            assert main(["analyze", str(GB200_NVL72_SU), "--json"]) == 0
        return json.loads(out.getvalue())

    alone = printed()
    calls = []
    start = forked.start
    monkeypatch.setattr(engines, "APART_FROM_GPUS", 0)
    monkeypatch.setattr(engines, "start", lambda run: calls.append(1) or start(run))
    assert printed() == alone
    assert calls == [1]  # the training engine, forked once
