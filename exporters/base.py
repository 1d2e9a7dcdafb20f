"""What an export format is, and the error it raises for a design it cannot write."""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from designer.netbox_parts import is_part_of


class ExportError(Exception):
    """A design this format cannot be written for, with the reason in words."""


@dataclass(frozen=True)
class ExportFormat:
    #: the command-line flag without dashes (``--cabling``) and the registry key
    name: str
    title: str
    suffix: str
    description: str
    #: ``write(analysis, path, **options) -> str``: writes through the atomic writer, returns what it wrote in words
    write: Callable[..., str]
    #: the format writes a folder of files (NetBox import files) rather than one file
    folder: bool = False
    #: the options ``write`` takes beside the path (``dpi`` for images), given on the command line
    options: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        return f"--{self.name}"

    @property
    def file_filter(self) -> str:
        """A file-dialog filter, e.g. ``Cabling plan (*.csv)``."""
        return f"{self.title} (*{self.suffix})"

    #: for a folder format: the names of the files and folders it writes (so an old export may be replaced)
    owned: tuple[str, ...] = ()

    def owns(self, name: str) -> bool:
        """Whether the format writes ``name`` (a part of a file it splits, ``10-cables-part02.csv``, too)."""
        return name in self.owned or is_part_of(name, self.owned)

    @property
    def metavar(self) -> str:
        return "DIR" if self.folder else f"OUT{self.suffix}"


def check_target(fmt: ExportFormat, path: str | Path) -> None:
    """Refuse, before any work, a target this format must not write: a missing or read-only folder, a folder for a file,
    a device or pipe (the atomic writer would replace it with a regular file), or for a folder format a
    folder holding files that are not this format's (an export never overwrites a stranger's README)."""
    path = Path(path)
    if not path.parent.is_dir():
        raise ExportError(f"{path.parent}: no such folder")
    # the export writes a temporary beside the target and renames it: the folder must take new files
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise ExportError(f"{path.parent}: cannot write in this folder (permission denied)")
    if fmt.folder:
        if path.exists() and not path.is_dir():
            raise ExportError(f"{path}: is a file, not a folder")
        if path.is_dir():
            strangers = sorted(p.name for p in path.iterdir() if not fmt.owns(p.name))
            if strangers:
                raise ExportError(f"{path}: holds files this export does not write ({', '.join(strangers[:3])}"
                                  f"{' …' if len(strangers) > 3 else ''}); choose a new or empty folder")
        return
    if path.is_dir():
        raise ExportError(f"{path}: is a folder")
    if path.exists() and not path.is_file():
        raise ExportError(f"{path}: is not a regular file (a device or a pipe)")
    # judged by the mode bits as the atomic writer judges them: root may write anything, but a file its owner
    # made read-only is one somebody meant to keep
    if path.is_file() and (not path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
                           or not os.access(path, os.W_OK)):
        raise ExportError(f"{path}: is read-only; make it writable or save elsewhere")
