"""The recovery folder without a window: versions, the trash's week, sessions of earlier versions."""
from __future__ import annotations

import json
import os
import time

import drawn as samples
from designer.fileformat import SUFFIX, load
from widgets.app.recovery_store import KEEP_VERSIONS, TRASH_KEEP_S, VERSION_EVERY_S, RecoveryStore


def test_a_version_is_replaced_until_it_is_old_then_a_new_one_starts(tmp_path, catalog):
    project = load(samples.DGX_B200_SU, catalog)
    store = RecoveryStore(tmp_path)
    t0 = 1_000_000.0
    first = store.write(project, None, "plan", now=t0)
    assert store.write(project, None, "plan", now=t0 + VERSION_EVERY_S - 1) == first
    second = store.write(project, None, "plan", now=t0 + VERSION_EVERY_S)
    assert second != first and [v.path for v in store.own().versions] == [second, first]
    for i in range(KEEP_VERSIONS + 3):
        store.write(project, None, "plan", now=t0 + VERSION_EVERY_S * (i + 2))
    assert len(store.own().versions) == KEEP_VERSIONS
    meta = json.loads((store.folder / "session.json").read_text())
    assert meta["title"] == "plan" and meta["pid"] == os.getpid()


def test_the_trash_keeps_a_discard_for_a_week(tmp_path, catalog):
    project = load(samples.DGX_B200_SU, catalog)
    store = RecoveryStore(tmp_path)
    store.write(project, "/x/plan.podplan.json", "plan")
    discarded_at = time.time()
    moved = store.discard(now=discarded_at)
    assert moved.parent == store.trash and not store.folder.exists()
    assert [s.original for s in store.trashed()] == ["/x/plan.podplan.json"]
    assert store.purge(now=discarded_at + TRASH_KEEP_S - 60) == []
    assert store.purge(now=discarded_at + TRASH_KEEP_S + 60) == [moved]
    assert store.trashed() == [] and not moved.exists()


def test_a_live_session_is_not_an_orphan_a_released_one_is(tmp_path, catalog):
    project = load(samples.DGX_B200_SU, catalog)
    alive, other = RecoveryStore(tmp_path), RecoveryStore(tmp_path)
    alive.write(project, None, "plan")
    assert other.orphans() == []
    alive._release()  # what the kernel does when the process dies
    assert [s.title for s in other.orphans()] == ["plan"]


def test_an_autosave_of_an_earlier_version_is_offered(tmp_path, catalog):
    project_text = samples.DGX_B200_SU.read_text()
    legacy = tmp_path / f"autosave-999999999{SUFFIX}"
    legacy.write_text(project_text)
    legacy.with_suffix(".meta").write_text(json.dumps({"pid": 999999999, "original": "/a/b.podplan.json",
                                                       "saved_at": 1.0}))
    [session] = RecoveryStore(tmp_path).orphans()
    assert session.original == "/a/b.podplan.json" and session.title == "b.podplan.json"
    assert load(session.latest.path, catalog).name == load(samples.DGX_B200_SU, catalog).name
    assert not legacy.exists() and not legacy.with_suffix(".meta").exists()


def test_a_session_that_crashed_before_its_first_autosave_is_tidied(tmp_path):
    empty = tmp_path / "123-abcd"
    empty.mkdir()
    (empty / "lock").write_text("")
    assert RecoveryStore(tmp_path).orphans() == [] and empty.exists()  # maybe a window starting up
    old = time.time() - 120
    os.utime(empty, (old, old))
    assert RecoveryStore(tmp_path).orphans() == [] and not empty.exists()


def test_a_path_utf8_cannot_hold_is_kept_for_the_restore(tmp_path, catalog):
    # a file named with bytes that are not UTF-8 ("caf\xe9") reaches Python with a lone surrogate
    original = str(tmp_path / "caf\udce9.podplan.json")
    alive, other = RecoveryStore(tmp_path / "rec"), RecoveryStore(tmp_path / "rec")
    alive.write(load(samples.DGX_B200_SU, catalog), original, "plan")
    alive._release()
    [session] = other.orphans()
    assert session.original == original and os.fsencode(session.original).endswith(b"caf\xe9.podplan.json")


def test_a_session_another_window_takes_meanwhile_is_passed_over(tmp_path, catalog, monkeypatch):
    from widgets.app import recovery_store

    gone = tmp_path / "rec" / "4242-deadbeef"
    gone.mkdir(parents=True)
    kept = RecoveryStore(tmp_path / "rec")
    kept.write(load(samples.DGX_B200_SU, catalog), None, "plan")
    kept._release()
    real = recovery_store._session

    def taken_meanwhile(folder):
        if folder == gone:  # another window restores or tidies it between the listing and the look
            gone.rmdir()
            return None
        return real(folder)

    monkeypatch.setattr(recovery_store, "_session", taken_meanwhile)
    assert [s.title for s in RecoveryStore(tmp_path / "rec").orphans()] == ["plan"]
