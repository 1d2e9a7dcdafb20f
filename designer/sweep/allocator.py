"""The C allocator's settings for a process that runs thousands of training estimates.

Each plan search builds and frees numpy arrays of a few megabytes. With glibc's defaults the heap's top is
given back to the system after each, and taken again by the next: a sweep spent a third of its time in the
kernel (7.3 s of 22 s for 200 rows), zeroing pages it had just returned. Keeping up to 256 MB of freed memory
and serving blocks below 32 MB from the heap removes that time (22.4 s -> 13.5 s, the same rows); the memory
kept is what the process used anyway. With the heap kept, numpy's huge-page advice is turned off, as for the
command line (:mod:`designer.allocator` says why).
"""
from __future__ import annotations

import ctypes
import ctypes.util

from ..allocator import no_huge_page_advice

#: mallopt's parameters (glibc's malloc.h)
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
#: freed memory kept at the heap's top, and the padding taken with each growth, bytes
KEEP_BYTES = 256 * 2**20
#: blocks from this size up are mapped apart (glibc's largest allowed on 64-bit)
MMAP_FROM_BYTES = 32 * 2**20

_done = False


def keep_freed_memory() -> bool:
    """Set the allocator as above, once per process; False where the C library is not glibc."""
    global _done
    if _done:
        return True
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # musl, macOS, Windows: their allocators behave otherwise
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    _done = all(mallopt(param, value) == 1 for param, value in (
        (M_MMAP_THRESHOLD, MMAP_FROM_BYTES), (M_TRIM_THRESHOLD, KEEP_BYTES), (M_TOP_PAD, KEEP_BYTES)))
    if _done:
        no_huge_page_advice()
    return _done
