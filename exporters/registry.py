"""The export formats, listed once for the command line and the window's File ▸ Export.

An export format is a function ``write(analysis, path) -> str`` that reads one
:class:`~designer.analysis.Analysis` (never recomputing an engine), writes ``path``
through :func:`catalog.files.write_atomic`, and returns a short account of what it
wrote ("1,488 links"). A new format is a module with such a function and one entry here.
"""
from __future__ import annotations

from importlib import import_module

from .base import ExportError, ExportFormat


def _writer(module: str, function: str):
    """The format's writer, imported when first called: listing the formats (``podplanner --help``,
    ``podplanner catalog list``) must not load the engines and numpy."""
    def write(analysis, path) -> str:
        return getattr(import_module(module), function)(analysis, path)

    write.target = f"{module}.{function}"
    return write


FORMATS: dict[str, ExportFormat] = {f.name: f for f in (
    ExportFormat("cabling", "Cabling plan", ".csv",
                 "the fabric's port-to-port cabling plan: both ends, tier, medium, cable part, "
                 "orderable length, transceivers, rail and racks", _writer("exporters.cabling", "write_cabling_csv")),
)}

__all__ = ["FORMATS", "ExportError", "ExportFormat"]
