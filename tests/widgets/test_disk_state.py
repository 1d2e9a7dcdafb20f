"""What the window's file holds against what it last read or wrote: no Qt involved."""
from __future__ import annotations

import os

from widgets.app.disk_state import DiskState, compare, describe, fingerprint


def test_same_bytes_are_the_same_even_when_touched(tmp_path):
    path = tmp_path / "a.podplan.json"
    path.write_text('{"racks": 22}')
    known = fingerprint(path)
    assert compare(path, known) == (DiskState.SAME, known)  # size and time equal: not even read
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 10**9))
    state, now = compare(path, known)
    assert state is DiskState.SAME and now.sha256 == known.sha256 and now.mtime_ns != known.mtime_ns


def test_other_bytes_are_a_change_even_at_the_same_size_and_time(tmp_path):
    path = tmp_path / "a.podplan.json"
    path.write_text('{"racks": 22}')
    known = fingerprint(path)
    path.write_text('{"racks": 40}')
    os.utime(path, ns=(known.mtime_ns, known.mtime_ns))
    assert compare(path, known)[0] is DiskState.SAME  # the cheap check alone cannot tell...
    os.utime(path, ns=(known.mtime_ns, known.mtime_ns + 1))
    state, now = compare(path, known)
    assert state is DiskState.CHANGED and now.sha256 != known.sha256  # ...the hash does


def test_missing_and_never_read(tmp_path):
    path = tmp_path / "a.podplan.json"
    assert fingerprint(path) is None
    assert compare(path, None) == (DiskState.MISSING, None)
    path.write_text("{}")
    state, now = compare(path, None)
    assert state is DiskState.UNKNOWN and now == fingerprint(path)
    assert fingerprint(tmp_path) is None  # a folder is no file


def test_the_sentences():
    assert describe(DiskState.SAME, "a", edited=True) == ""
    assert describe(DiskState.CHANGED, "a.json", edited=False) == "a.json was changed on disk by another program."
    assert "unsaved changes are only in this window" in describe(DiskState.CHANGED, "a.json", edited=True)
    assert "saving creates it again" in describe(DiskState.MISSING, "a.json", edited=False)
