"""A multi-format export that leaves the whole set or nothing.

Each format is written to a temporary beside its target (a file, or for the NetBox import files a
folder), so a format that fails half-way through a run leaves no partial set behind: nothing is
renamed until every format has been written, and then each temporary is renamed onto its target.
A target that already exists is kept aside first (a folder moved, a file given a second link), so
that should a rename fail, the ones already done are undone and the old files are put back; what was
kept aside is removed once all are in place.

The temporaries are named ``.<target>.<pid>-<random>.staged<suffix>``: hidden, beside the target (a
rename within one folder never copies), and keeping the target's suffix, which some writers read.
"""
from __future__ import annotations

import os
import secrets
import shutil
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from catalog.files import sweep_temporaries

from .base import ExportError, ExportFormat

#: Bytes of the target's name kept in its temporary's, so that the temporary's name is not too long where the
#: target's just fits (a name is at most 255 bytes); and the longest suffix kept (".xlsx", ".csv").
_NAME_KEEP = 100
_SUFFIX_KEEP = 16


class StagingError(ExportError):
    """A staged export that could not be put in place; ``fmt`` is the format whose rename failed."""

    def __init__(self, fmt: ExportFormat, target: Path, exc: OSError):
        super().__init__(f"{target}: cannot be written ({exc.strerror or exc})")
        self.fmt, self.target = fmt, target


@dataclass
class _Staged:
    fmt: ExportFormat
    target: Path
    temporary: Path
    #: the old target while the new one is put in place: a folder moved aside, or a second link to a file
    aside: Path | None = None
    #: a folder target was moved to ``aside``
    moved: bool = False
    #: a file target existed before (without ``aside``, when the file system makes no second link, it cannot be
    #: put back)
    existed: bool = False
    placed: bool = False


class Staging:
    """The temporaries of one export run: :meth:`temporary` for each format, then :meth:`commit` once every
    format is written, or :meth:`discard` (always safe to call; it removes what was not committed)."""

    def __init__(self):
        self._staged: list[_Staged] = []
        self._token = f"{os.getpid()}-{secrets.token_hex(8)}"
        self._count = 0
        self._swept: set[Path] = set()

    def temporary(self, fmt: ExportFormat, target: str | os.PathLike) -> Path:
        """Where ``fmt`` writes instead of ``target``: a path beside it that does not exist yet."""
        target = Path(target)
        if target.is_symlink():  # write where the link points, and keep the link (as the atomic writer does)
            target = Path(os.path.realpath(target))
        if target.parent not in self._swept:  # what a killed export left here goes first
            self._swept.add(target.parent)
            sweep_temporaries(target.parent)
        temporary = self._beside(target, "staged", target.suffix)
        self._staged.append(_Staged(fmt, target, temporary))
        return temporary

    def commit(self) -> None:
        """Every temporary renamed onto its target; on a failure, every target as it was before, and
        :class:`StagingError` naming the format."""
        for s in self._staged:
            if not (s.temporary.exists() or s.temporary.is_symlink()):
                raise StagingError(s.fmt, s.target, FileNotFoundError(2, "the format wrote nothing"))
        done: list[_Staged] = []
        try:
            for s in self._staged:
                done.append(s)
                self._place(s)
        except OSError as exc:
            self._undo(done)
            raise StagingError(done[-1].fmt, done[-1].target, exc) from None
        for s in self._staged:
            if s.aside is not None:
                _remove(s.aside)
        self._staged = []

    def _place(self, s: _Staged) -> None:
        if s.target.is_dir():
            s.aside = self._beside(s.target, "old", "")
            os.rename(s.target, s.aside)
            s.moved = True
            os.rename(s.temporary, s.target)
        else:
            _keep_mode(s.target, s.temporary)
            s.existed = s.target.exists()
            if s.existed:
                aside = self._beside(s.target, "old", s.target.suffix)
                with suppress(OSError):  # a file system without hard links: the old file cannot come back
                    os.link(s.target, aside)
                    s.aside = aside
            os.replace(s.temporary, s.target)  # readers see the old file or the new one, never none
        s.placed = True

    def _undo(self, done: list[_Staged]) -> None:
        """The targets renamed so far put back as they were; the new ones go back to their temporaries, which
        :meth:`discard` removes."""
        for s in reversed(done):
            with suppress(OSError):
                if s.moved:
                    if s.placed:
                        os.rename(s.target, s.temporary)
                    os.rename(s.aside, s.target)
                    s.aside = None
                elif s.placed:
                    if s.aside is not None:
                        os.replace(s.aside, s.target)
                        s.aside = None
                    elif not s.existed:
                        os.unlink(s.target)
        for s in done:
            if s.aside is not None and not s.moved:
                _remove(s.aside)

    def discard(self) -> None:
        """Every temporary not committed removed."""
        for s in self._staged:
            _remove(s.temporary)
        self._staged = []

    def _beside(self, target: Path, kind: str, suffix: str) -> Path:
        """A name beside ``target`` no other of this run's temporaries has (each call numbered), at most
        ``_NAME_KEEP`` bytes of the target's name and a short suffix, so that it fits where the target does."""
        self._count += 1
        stem = target.name.encode()[:_NAME_KEEP].decode(errors="ignore")
        suffix = suffix if len(suffix.encode()) <= _SUFFIX_KEEP else ""
        return target.parent / f".{stem}.{self._token}-{self._count}.{kind}{suffix}"


def _keep_mode(target: Path, temporary: Path) -> None:
    """The new file with the old one's permissions, as the atomic writer keeps them."""
    if target.is_file() and temporary.is_file():
        with suppress(OSError):
            shutil.copymode(target, temporary)


def _remove(path: Path) -> None:
    with suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
