"""The C allocator's settings (designer.allocator): a large block freed stays with the process for the next one,
the settings are asked of glibc alone and in the order that cannot leave it worse, and every command line (the
window's included) takes them before it reads a design."""
from __future__ import annotations

import importlib
import os
import platform
import subprocess
import sys

import pytest

from designer import allocator

try:
    from numpy._core import multiarray as np_multiarray
except ImportError:  # numpy before 2.0
    from numpy.core import multiarray as np_multiarray
from designer.samples import GB200_NVL72_SU

cli_main = importlib.import_module("designer.cli.main")  # the module (designer.cli.main is its function)

#: RSS (kB) after a 400 MB block is filled and freed in the main thread; the settings taken first with "keep"
FREED = """
import sys
from designer.allocator import keep_freed_memory
if sys.argv[1] == "keep":
    assert keep_freed_memory()
block = bytearray(400 << 20)
block[::4096] = b"x" * len(block[::4096])
del block
print(next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS")))
"""


def _rss_after_free(mode: str) -> int:
    # glibc's defaults, whatever this machine's environment tunes
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    done = subprocess.run([sys.executable, "-c", FREED, mode], capture_output=True, text=True, check=True, env=env)
    return int(done.stdout)


def test_a_large_block_freed_stays_with_the_process_only_with_the_settings():
    if not allocator.glibc():  # macOS, Windows, musl: no settings are made, and the allocator is its own
        assert allocator.keep_freed_memory() is False
        return
    kept, returned = _rss_after_free("keep"), _rss_after_free("plain")
    # glibc's default gives a block this large back to the kernel when it is freed: the next column would be
    # fresh pages to zero; with the settings the 400 MB stay in the heap for the next one
    assert returned < 200_000 < 400_000 < kept


class FakeLibc:
    """Stands for the C library: its mallopt records each call and answers as told."""

    def __init__(self, answers: dict[int, int]) -> None:
        self.calls: list[tuple[int, int]] = []
        self.mallopt = _Mallopt(self.calls, answers)


class _Mallopt:
    """A C function's stand-in: takes argtypes and restype as ctypes' functions do."""

    def __init__(self, calls: list, answers: dict[int, int]) -> None:
        self.calls, self.answers = calls, answers

    def __call__(self, param: int, value: int) -> int:
        self.calls.append((param, value))
        return self.answers.get(param, 1)


def _with_libc(monkeypatch, libc: FakeLibc, glibc: bool = True) -> None:
    monkeypatch.setattr(allocator, "glibc", lambda: glibc)
    monkeypatch.setattr(allocator.ctypes, "CDLL", lambda name: libc)


@pytest.fixture
def fresh_settings(monkeypatch):
    """No settings taken yet in this process, as numpy's huge-page advice was; both restored after."""
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    advice = np_multiarray._get_madvise_hugepage()
    np_multiarray._set_madvise_hugepage(True)
    allocator.keep_freed_memory.cache_clear()
    yield
    allocator.keep_freed_memory.cache_clear()
    np_multiarray._set_madvise_hugepage(advice)


def test_the_threshold_then_the_trim_once_per_process(monkeypatch, fresh_settings):
    libc = FakeLibc({})
    _with_libc(monkeypatch, libc)
    assert allocator.keep_freed_memory() is True and allocator.keep_freed_memory() is True
    assert libc.calls == [(allocator.M_MMAP_THRESHOLD, 1 << 30), (allocator.M_TRIM_THRESHOLD, 1 << 30)]
    # kept heap memory and numpy's huge-page advice on it are the slow pair: the advice goes with the settings
    assert np_multiarray._get_madvise_hugepage() is False


def test_a_refused_threshold_leaves_glibcs_own_settings(monkeypatch, fresh_settings):
    """A trim threshold set alone would pin the mmap threshold at its lowest: it is not asked for then."""
    libc = FakeLibc({allocator.M_MMAP_THRESHOLD: 0})
    _with_libc(monkeypatch, libc)
    assert allocator.keep_freed_memory() is False
    assert libc.calls == [(allocator.M_MMAP_THRESHOLD, 1 << 30)]
    assert np_multiarray._get_madvise_hugepage() is True  # large arrays still come fresh from the kernel


def test_a_refused_trim_threshold_still_turns_the_advice_off(monkeypatch, fresh_settings):
    """The mmap threshold taken alone already puts large blocks on the heap: the advice goes then too."""
    libc = FakeLibc({allocator.M_TRIM_THRESHOLD: 0})
    _with_libc(monkeypatch, libc)
    assert allocator.keep_freed_memory() is False
    assert np_multiarray._get_madvise_hugepage() is False


def test_a_users_own_numpy_setting_stands(monkeypatch, fresh_settings):
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    _with_libc(monkeypatch, FakeLibc({}))
    assert allocator.keep_freed_memory() is True
    assert np_multiarray._get_madvise_hugepage() is True


def test_nothing_is_asked_of_a_c_library_that_is_not_glibc(monkeypatch, fresh_settings):
    libc = FakeLibc({})
    _with_libc(monkeypatch, libc, glibc=False)
    assert allocator.keep_freed_memory() is False and libc.calls == []
    assert np_multiarray._get_madvise_hugepage() is True


def test_glibc_is_recognised_where_it_runs():
    assert allocator.glibc() is (platform.libc_ver()[0] == "glibc")


def test_the_command_line_takes_the_settings_before_reading_a_design(monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(cli_main, "keep_freed_memory", lambda: calls.append("allocator"))
    monkeypatch.setattr(cli_main, "share_the_interpreter_often", lambda: calls.append("switch interval"))
    real_load = cli_main.load
    monkeypatch.setattr(cli_main, "load", lambda *a, **k: (calls.append("load"), real_load(*a, **k))[1])
    assert cli_main.main(["analyze", str(GB200_NVL72_SU)]) in (0, 1)
    assert calls[:3] == ["allocator", "switch interval", "load"]


def test_a_sweep_worker_keeping_its_heap_turns_the_advice_off_too(monkeypatch, fresh_settings):
    from designer.sweep import allocator as sweep_allocator

    libc = FakeLibc({})
    monkeypatch.setattr(sweep_allocator, "_done", False)
    _with_libc(monkeypatch, libc)
    assert sweep_allocator.keep_freed_memory() is True
    assert [param for param, _ in libc.calls] == [allocator.M_MMAP_THRESHOLD, allocator.M_TRIM_THRESHOLD,
                                                   sweep_allocator.M_TOP_PAD]
    assert np_multiarray._get_madvise_hugepage() is False
