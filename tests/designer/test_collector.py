"""The collector pause: nested and overlapping pauses leave the collector as it was."""
from __future__ import annotations

import gc
import threading

from designer.collector import paused


def test_nested_and_overlapping_pauses_switch_the_collector_back_on():
    assert gc.isenabled()
    p = paused()
    with p:
        with p:  # the same object re-entered
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()

    inside, release = threading.Event(), threading.Event()

    @paused()
    def slow():
        inside.set()
        assert release.wait(60)

    t = threading.Thread(target=slow)
    t.start()
    assert inside.wait(60)  # the bounds only catch a hang: the thread's pause must be open from here on
    with paused():  # opens while the thread's pause is open, closes first
        assert not gc.isenabled()
    assert not gc.isenabled()  # the thread's pause still holds
    release.set()
    t.join(60)
    assert not t.is_alive() and gc.isenabled()


def test_a_pause_restores_a_collector_that_was_off():
    gc.disable()
    try:
        with paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # off before, off after
    finally:
        gc.enable()


def test_the_engines_and_the_generator_run_with_the_collector_paused(catalog, monkeypatch):
    """A million-GPU design is a million objects: full collections walking them during its analysis or its
    generation cost a sixth and a third of each. Both run paused, and leave the collector on after."""
    from designer import engines
    from designer.fileformat import load
    from designer.generate import SuperpodSpec, build, generate
    from designer.samples import DGX_B200_SU

    seen = []
    probe = engines.Engine("probe", lambda ctx: seen.append(("engine", gc.isenabled())) or engines.EngineResult())
    assert gc.isenabled()
    project = load(DGX_B200_SU, catalog)
    engines.run_engines((probe,), engines.Context.build(project, catalog))
    real_plan_grid = build.plan_grid
    monkeypatch.setattr(build, "plan_grid", lambda *a, **k: seen.append(("generate", gc.isenabled())) or
                        real_plan_grid(*a, **k))
    assert generate(SuperpodSpec(system="dgx-b200", gpus=256), catalog).gpus >= 248
    assert set(seen) == {("engine", False), ("generate", False)}
    assert gc.isenabled()
