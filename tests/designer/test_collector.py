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
