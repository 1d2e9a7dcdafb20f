"""The C allocator's settings for a process that analyses large designs.

A million-GPU design's fabric is built from columns of 4 to 8 million rows: each step makes new arrays of
tens of megabytes and drops the last ones. glibc hands a block that large straight from the kernel (mmap)
and gives it back when it is freed, so every new column is fresh memory that the kernel must zero, page by
page, on first touch: at 1,000,000 GPUs that was about a second of the analysis (5.1 s end to end against
4.2-4.4 s with the settings below). Kept in the heap instead, a freed column's memory is reused by the next.
In the main thread that holds for every block under 1 GiB; a worker thread (the engines of a design of
200,000 GPUs and more, the window's analysis) allocates from an arena of its own, where glibc still maps a
block over 64 MB apart, so there it holds for the blocks under that (a column of 8 M four-byte or 4 M
eight-byte values).

The price: free memory at the top of the heap, up to 1 GiB, stays with the process for its next analysis
rather than going back to the system, and a block freed below one still in use is never given back; so a
window that has analysed a large design keeps about that much memory until it closes. Only glibc is set
(Linux); elsewhere (musl, macOS, Windows) this does nothing.

Huge pages: numpy advises the kernel to back each array of 4 MB and more with 2 MB pages (madvise
MADV_HUGEPAGE). On memory the kernel maps fresh that pays, but on heap memory reused from block to block, as
above, the advice stays on the region after numpy frees it and the kernel's faults there cost far more (numpy
issue 31590). Measured here (Linux 6.18, transparent huge pages on advice): 300 columns of 0.5-8 M doubles, a
dozen alive at a time, took 2.0 s (1.6 s in the kernel) with the heap kept and the advice on, 0.75 s (0.3 s)
with the advice off, 2.2 s with neither setting; a million-GPU analysis spent 2.2-2.6 s in the kernel against
0.8-1.1 s, and took 0.4-1.3 s longer. So with the heap kept, numpy's advice is turned off.
"""
from __future__ import annotations

import ctypes
import functools
import os

#: mallopt's parameters (malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
#: a block under this comes from the heap, and freed memory this large stays with the process: above any
#: one column of a million-GPU design (8 M rows of 8 bytes is 64 MB), within mallopt's int
KEEP_BYTES = 1 << 30


def glibc() -> bool:
    """Whether this process runs on glibc (the only C library whose mallopt this sets)."""
    try:
        return bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (AttributeError, ValueError, OSError):  # no confstr (Windows) or no such name (macOS, musl)
        return False


@functools.cache  # once per process
def keep_freed_memory() -> bool:
    """Large blocks from the heap, kept when freed (glibc only). True when glibc took the settings."""
    # the threshold first: a trim threshold set alone would fix the mmap threshold at glibc's lowest (128 kB),
    # which makes every column a fresh mapping, the opposite of the point
    return take_settings(((M_MMAP_THRESHOLD, KEEP_BYTES), (M_TRIM_THRESHOLD, KEEP_BYTES)))


def take_settings(settings) -> bool:
    """Ask glibc's mallopt for each (parameter, value) of ``settings`` in turn, stopping at the first it refuses;
    True when it took them all, False off glibc. Once an mmap threshold is taken, large blocks come from the heap,
    so numpy's huge-page advice is turned off (:func:`no_huge_page_advice`)."""
    if not glibc():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library this process already runs on
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    for param, value in settings:
        if not mallopt(param, value):
            return False
        if param == M_MMAP_THRESHOLD:
            no_huge_page_advice()
    return True


def no_huge_page_advice() -> bool:
    """Turn numpy's huge-page advice for large arrays off (see the module's docstring); False where this numpy
    has no such switch, or where the user set numpy's own NUMPY_MADVISE_HUGEPAGE (their choice stands)."""
    if os.environ.get("NUMPY_MADVISE_HUGEPAGE"):
        return False
    try:  # in numpy._core from numpy 2.0, numpy.core before
        from numpy._core import multiarray
    except ImportError:
        from numpy.core import multiarray
    setter = getattr(multiarray, "_set_madvise_hugepage", None)
    if setter is None:
        return False
    setter(False)
    return True
