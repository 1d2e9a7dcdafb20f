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
    t.join(60)  # returns as soon as the read does: the bound only catches a read that waits for a writer
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
    with pytest.raises(IsADirectoryError, match="is a folder, not a file"):
        write_atomic(tmp_path / "folder", "x")


def _names(folder):
    return sorted(p.name for p in folder.iterdir())


def test_write_never_replaces_a_socket_or_a_device(tmp_path):
    import socket

    sock_path = tmp_path / "s.csv"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        with pytest.raises(OSError, match="is not a regular file") as err:
            write_atomic(sock_path, "x")
        assert stat.S_ISSOCK(os.stat(sock_path, follow_symlinks=False).st_mode)
    assert err.value.filename == str(sock_path)
    if os.geteuid() == 0:  # only root may make a device node; CI runs as root, so the device case runs there
        dev = tmp_path / "full.csv"
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        with pytest.raises(OSError, match="is not a regular file"):
            write_atomic(dev, "x")
        assert stat.S_ISCHR(os.stat(dev).st_mode)
    # a link to a device is judged by what it points at
    (tmp_path / "link.csv").symlink_to("/dev/null")
    with pytest.raises(OSError, match="is not a regular file"):
        write_atomic(tmp_path / "link.csv", "x")
    assert not [n for n in _names(tmp_path) if "tmp" in n]


def test_a_read_only_file_is_refused_by_its_mode_even_for_root(tmp_path):
    p = tmp_path / "kept.podplan.json"
    p.write_text("old")
    os.chmod(p, 0o444)
    with pytest.raises(PermissionError, match="is read-only") as err:
        write_atomic(p, "new")
    assert err.value.filename == str(p)
    assert p.read_text() == "old" and _names(tmp_path) == ["kept.podplan.json"]
    # the link is followed to the read-only target, which is still refused
    (tmp_path / "link.json").symlink_to(p)
    with pytest.raises(PermissionError, match="is read-only"):
        write_atomic(tmp_path / "link.json", "new")
    assert p.read_text() == "old"


def test_owner_and_group_are_kept(tmp_path):
    p = tmp_path / "shared.csv"
    p.write_text("old")
    if os.geteuid() == 0:
        os.chown(p, 12345, 23456)
        expected = (12345, 23456)
    else:  # a user may hand a file to any group they belong to
        groups = [g for g in os.getgroups() if g != os.getegid()] or [os.getegid()]
        os.chown(p, -1, groups[-1])
        expected = (os.geteuid(), groups[-1])
    write_atomic(p, "new")
    info = p.stat()
    assert (info.st_uid, info.st_gid) == expected and p.read_text() == "new"


def test_the_temporary_name_is_unguessable_and_never_followed(tmp_path, monkeypatch):
    from catalog import files

    target = tmp_path / "out.csv"
    tokens = iter(["a" * 16, "b" * 16])
    monkeypatch.setattr(files.secrets, "token_hex", lambda n: next(tokens))
    planted = tmp_path / f".out.csv.{os.getpid()}-{'a' * 16}{files.TEMP_SUFFIX}"
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched")
    planted.symlink_to(victim)  # somebody guessed the first name: the writer must take another
    write_atomic(target, "content")
    assert target.read_text() == "content" and victim.read_text() == "untouched"
    assert planted.is_symlink()


def test_stale_temporaries_are_swept(tmp_path):
    import subprocess
    import sys
    import time

    from catalog import files

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)
    killed = tmp_path / f".a.json.{dead_pid}-{'1' * 16}{files.TEMP_SUFFIX}"
    mine = tmp_path / f".b.json.{os.getpid()}-{'2' * 16}{files.TEMP_SUFFIX}"
    ancient = tmp_path / ".c.json.0123456789ab.tmp"  # an earlier version's naming
    fresh_old_style = tmp_path / ".d.json.0123456789ab.tmp"
    unrelated = tmp_path / ".e.json.tmp"
    for p in (killed, mine, ancient, fresh_old_style, unrelated):
        p.write_text("x")
    day_ago = time.time() - files.STALE_AFTER_S - 60
    os.utime(ancient, (day_ago, day_ago))
    removed = files.sweep_temporaries(tmp_path)
    assert sorted(p.name for p in removed) == sorted([killed.name, ancient.name])
    assert _names(tmp_path) == sorted([mine.name, fresh_old_style.name, unrelated.name])
    os.utime(mine, (day_ago, day_ago))  # even a live writer's temporary is stale after a day
    assert files.sweep_temporaries(tmp_path) == [mine]


def test_the_first_write_into_a_folder_sweeps_it(tmp_path):
    import subprocess
    import sys

    from catalog import files

    dead_pid = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                                  capture_output=True, text=True, check=True).stdout)
    left = tmp_path / f".x.json.{dead_pid}-{'3' * 16}{files.TEMP_SUFFIX}"
    left.write_text("half")
    files._swept.discard(os.path.abspath(tmp_path))
    write_atomic(tmp_path / "x.json", "whole")
    assert _names(tmp_path) == ["x.json"]


def test_the_read_limit_is_a_setting(tmp_path, monkeypatch):
    from catalog import files

    assert files.read_limit() == 200 * 1024 * 1024
    p = tmp_path / "big.json"
    p.write_bytes(b" " * (2 * 1024 * 1024 + 1))
    monkeypatch.setenv(files.READ_LIMIT_ENV, "2")
    with pytest.raises(FileReadError, match="more than the 2,097,152 bytes allowed"):
        read_bytes(p)
    for unusable in ("0", "-5", "abc", "9" * 5000):
        monkeypatch.setenv(files.READ_LIMIT_ENV, unusable)
        assert files.read_limit() == 200 * 1024 * 1024


@pytest.mark.parametrize("name", ["a" * 251 + ".csv", "é" * 125 + ".csv"])  # 255 bytes, as long as a name may be
def test_a_file_with_the_longest_legal_name_is_written_and_its_temporary_swept(tmp_path, monkeypatch, name):
    import subprocess
    import sys

    from catalog import files

    assert len(os.fsencode(name)) <= 255
    made = []
    real = files._create_temporary
    monkeypatch.setattr(files, "_create_temporary", lambda folder, n: made.append(real(folder, n)) or made[-1])
    write_atomic(tmp_path / name, "content")
    assert _names(tmp_path) == [name] and (tmp_path / name).read_text() == "content"
    assert len(os.fsencode(made[0][1].name)) <= 255
    # a killed writer's shortened temporary is still its own, and swept
    dead_pid = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                                  capture_output=True, text=True, check=True).stdout)
    left = tmp_path / made[0][1].name.replace(f".{os.getpid()}-", f".{dead_pid}-")
    left.write_text("half")
    assert files.sweep_temporaries(tmp_path) == [left]


def test_a_write_not_made_durable_is_still_whole_and_skips_the_fsyncs(tmp_path, monkeypatch):
    """The many parts of a NetBox folder are written without an fsync each (the README, last, is synced)."""
    import os

    from catalog.files import write_atomic

    target = tmp_path / "part.csv"
    target.write_text("old", encoding="utf-8")
    synced = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    write_atomic(target, "a,b\r\n1,2\r\n", durable=False)
    assert target.read_text(encoding="utf-8") == "a,b\n1,2\n" and synced == []
    write_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "new" and len(synced) == 2  # the file, then its folder
    assert [p.name for p in tmp_path.iterdir()] == ["part.csv"]  # no temporary left behind
