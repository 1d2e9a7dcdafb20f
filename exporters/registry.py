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


def _write_pdf(analysis, path) -> str:
    from .quote_pdf import write_quote_pdf

    return write_quote_pdf(analysis, path)


def _write_xlsx(analysis, path) -> str:
    from .quote_xlsx import write_quote_xlsx

    return write_quote_xlsx(analysis, path)


def _write_csv(analysis, path) -> str:
    from .bom_csv import write_bom_csv

    return write_bom_csv(analysis, path)


FORMATS: dict[str, ExportFormat] = {f.name: f for f in (
    ExportFormat("pdf", "Quote (PDF)", ".pdf",
                 "the priced quote: cover, summary, floor plan, rack elevations, bill of materials, cost of "
                 "ownership, power, cooling and fabric details, findings, sources", _write_pdf),
    ExportFormat("xlsx", "Quote (XLSX)", ".xlsx",
                 "the bill of materials as a workbook with live formulas: one sheet per section, summary and "
                 "cost of ownership", _write_xlsx),
    ExportFormat("csv", "Bill of materials (CSV)", ".csv",
                 "one row per bill line: part numbers, quantities, prices and their sources", _write_csv),
    ExportFormat("cabling", "Cabling plan", ".csv",
                 "the fabric's port-to-port cabling plan: both ends, tier, medium, cable part, "
                 "orderable length, transceivers, rail and racks", _write_cabling),
)}

__all__ = ["FORMATS", "ExportError", "ExportFormat"]
