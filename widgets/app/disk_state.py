"""Has the open file changed on disk since the window read or wrote it?

The window remembers a :class:`Fingerprint` of its file (size, modification time and a SHA-256 of the
bytes) when it opens or saves it. :func:`compare` tells what the disk holds now: the size and time are a
cheap first check (equal: nothing to read), the hash the real one (a program that rewrites the same bytes,
or only touches the file, changed nothing). Pure Python, no Qt: the window's watcher and its Save ask it.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

_CHUNK = 1 << 20


@dataclass(frozen=True)
class Fingerprint:
    """A file's size, modification time (ns) and SHA-256 of its bytes."""

    size: int
    mtime_ns: int
    sha256: str


class DiskState(Enum):
    #: the file holds what the window last read or wrote
    SAME = "same"
    #: another program changed it
    CHANGED = "changed"
    #: it is gone (deleted, or moved away)
    MISSING = "missing"
    #: it is there but the window never read it (a restored autosave whose original was not recorded)
    UNKNOWN = "unknown"


def fingerprint(path: str | os.PathLike) -> Fingerprint | None:
    """The file's fingerprint, or None when it cannot be read (gone, a folder, no permission)."""
    try:
        with open(path, "rb") as fh:
            info = os.fstat(fh.fileno())
            digest = hashlib.sha256()
            while chunk := fh.read(_CHUNK):
                digest.update(chunk)
    except OSError:
        return None
    return Fingerprint(info.st_size, info.st_mtime_ns, digest.hexdigest())


def compare(path: str | os.PathLike, known: Fingerprint | None) -> tuple[DiskState, Fingerprint | None]:
    """What ``path`` holds now against ``known`` (what the window last read or wrote), and its fingerprint
    now (``known`` itself when size and time show it unchanged; None when it is missing)."""
    path = Path(path)
    try:
        info = path.stat()
    except OSError:
        return DiskState.MISSING, None
    if known is not None and (info.st_size, info.st_mtime_ns) == (known.size, known.mtime_ns):
        return DiskState.SAME, known
    now = fingerprint(path)
    if now is None:
        return DiskState.MISSING, None
    if known is None:
        return DiskState.UNKNOWN, now
    return (DiskState.SAME if now.sha256 == known.sha256 else DiskState.CHANGED), now


def describe(state: DiskState, name: str, *, edited: bool) -> str:
    """One sentence for the window: what happened to ``name`` on disk, and what that means for its edits."""
    if state is DiskState.CHANGED:
        tail = "; your unsaved changes are only in this window." if edited else "."
        return f"{name} was changed on disk by another program{tail}"
    if state is DiskState.MISSING:
        return f"{name} was deleted or moved on disk; saving creates it again."
    if state is DiskState.UNKNOWN:
        return f"{name} may have been changed on disk since this work was autosaved."
    return ""
