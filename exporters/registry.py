"""The export formats, listed once for the command line and the window's File ▸ Export.

An export format is a function ``write(analysis, path) -> str`` that reads one
:class:`~designer.analysis.Analysis` (never recomputing an engine), writes ``path``
through :func:`catalog.files.write_atomic`, and returns a short account of what it
wrote ("1,488 links"). A new format is a module with such a function and one entry here.
"""
from __future__ import annotations

from .base import ExportError, ExportFormat


def _write_cabling(analysis, path) -> str:
    # Imported on first use: listing the formats (podplanner --help) must not load the engines.
    # A plain import, so the layer contracts see it.
    from .cabling import write_cabling_csv

    return write_cabling_csv(analysis, path)


FORMATS: dict[str, ExportFormat] = {f.name: f for f in (
    ExportFormat("cabling", "Cabling plan", ".csv",
                 "the fabric's port-to-port cabling plan: both ends, tier, medium, cable part, "
                 "orderable length, transceivers, rail and racks", _write_cabling),
)}

__all__ = ["FORMATS", "ExportError", "ExportFormat"]
