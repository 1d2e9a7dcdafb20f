"""The C allocator's settings for a process that runs thousands of training estimates.

Each plan search builds and frees numpy arrays of a few megabytes. With glibc's defaults the heap's top is
given back to the system after each, and taken again by the next: a sweep spent a third of its time in the
kernel (7.3 s of 22 s for 200 rows), zeroing pages it had just returned. Keeping up to 256 MB of freed memory
and serving blocks below 32 MB from the heap removes that time (22.4 s -> 13.5 s, the same rows); the memory
kept is what the process used anyway. With the heap kept, numpy's huge-page advice is turned off, as for the
command line (:mod:`designer.allocator` says why).
"""
from __future__ import annotations

from ..allocator import M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, take_settings

#: mallopt's parameter for the padding taken with each growth of the heap (glibc's malloc.h)
M_TOP_PAD = -2
#: freed memory kept at the heap's top, and the padding taken with each growth, bytes
KEEP_BYTES = 256 * 2**20
#: blocks from this size up are mapped apart (glibc's largest allowed on 64-bit)
MMAP_FROM_BYTES = 32 * 2**20

_done = False


def keep_freed_memory() -> bool:
    """Set the allocator as above, once per process; False where the C library is not glibc."""
    global _done
    if not _done:
        _done = take_settings(((M_MMAP_THRESHOLD, MMAP_FROM_BYTES), (M_TRIM_THRESHOLD, KEEP_BYTES),
                               (M_TOP_PAD, KEEP_BYTES)))
    return _done
