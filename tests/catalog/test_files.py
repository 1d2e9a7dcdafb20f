"""The one safe reader and atomic writer: what they refuse, and what they leave behind on failure."""
from __future__ import annotations

import os
import stat
import threading

import pytest

from catalog.files import FileReadError, read_bytes, read_text, write_atomic


def test_reads_a_regular_file(tmp_path):
    p = tmp_path / "a.json"
    p.write_bytes("\ufeff{\"é\": 1}".encode("utf-8"))
    assert read_text(p) == '{"é": 1}'  # a byte-order mark from a Windows editor is dropped


def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.podplan.json"
    os.mkfifo(fifo)
    result = {}

    def read():
        try:
            read_bytes(fifo)
        except FileReadError as exc:
            result["error"] = str(exc)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), "reading a FIFO must not wait for a writer"
    assert result["error"] == "is not a regular file (a pipe, socket or device)"


@pytest.mark.parametrize("make, message", [
    (lambda p: None, "no such file"),
    (lambda p: p.mkdir(), "is a folder, not a file"),
    (lambda p: p.write_bytes(b"x" * 101), "is 101 bytes, more than the 100 bytes allowed"),
    (lambda p: p.write_bytes(b"\xff\xfe"), "is not UTF-8 text (byte 0)"),
])
def test_bad_files_are_named_in_words(tmp_path, make, message):
    p = tmp_path / "f"
    make(p)
    with pytest.raises(FileReadError) as err:
        read_text(p, limit=100)
    assert str(err.value) == message and err.value.path == str(p)


def test_write_keeps_the_mode_and_leaves_no_temporary(tmp_path):
    p = tmp_path / "out.csv"
    p.write_text("old")
    os.chmod(p, 0o640)
    write_atomic(p, "new\n")
    assert p.read_text() == "new\n"
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["out.csv"]


def test_a_failed_write_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    p = tmp_path / "out.csv"
    p.write_text("old")

    def half(fh):
        fh.write("half a fi")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        write_atomic(p, half)
    assert p.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.csv"]


def test_write_into_a_missing_folder_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "nope" / "x.csv", b"x")
    assert os.listdir(tmp_path) == []


def test_a_new_file_follows_the_umask_and_a_link_stays_a_link(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.csv", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.csv").stat().st_mode) == 0o640
    (tmp_path / "link.csv").symlink_to(tmp_path / "new.csv")
    write_atomic(tmp_path / "link.csv", "through the link")
    assert (tmp_path / "link.csv").is_symlink()
    assert (tmp_path / "new.csv").read_text() == "through the link"
    assert sorted(os.listdir(tmp_path)) == ["link.csv", "new.csv"]


def test_write_never_replaces_a_pipe_or_a_folder(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="is not a regular file"):
        write_atomic(fifo, "x")
    assert fifo.is_fifo() and [p.name for p in tmp_path.iterdir()] == ["pipe.csv"]  # no temporary left
    (tmp_path / "folder").mkdir()
    with pytest.raises(OSError, match="is not a regular file"):
        write_atomic(tmp_path / "folder", "x")
