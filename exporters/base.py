"""What an export format is, and the error it raises for a design it cannot write."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from designer.analysis import Analysis


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

    @property
    def metavar(self) -> str:
        return "DIR" if self.folder else f"OUT{self.suffix}"
