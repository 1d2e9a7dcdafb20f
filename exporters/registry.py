"""The export formats, listed once for the command line and the window's File ▸ Export.

An export format is a function ``write(analysis, path) -> str`` that reads one
:class:`~designer.analysis.Analysis` (never recomputing an engine), writes ``path``
through :func:`catalog.files.write_atomic`, and returns a short account of what it
wrote ("1,488 links"). A new format is a module with such a function and one entry here.
"""
from __future__ import annotations

from .base import ExportError, ExportFormat
from .cabling import write_cabling_csv

FORMATS: dict[str, ExportFormat] = {f.name: f for f in (
    ExportFormat("cabling", "Cabling plan", ".csv",
                 "the fabric's port-to-port cabling plan: both ends, tier, medium, cable part, "
                 "orderable length, transceivers, rail and racks", write_cabling_csv),
)}

__all__ = ["FORMATS", "ExportError", "ExportFormat"]
