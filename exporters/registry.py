"""The export formats, listed once for the command line and the window's File ▸ Export.

An export format is a function ``write(analysis, path) -> str`` that reads one
:class:`~designer.analysis.Analysis` (never recomputing an engine), writes ``path``
through :func:`catalog.files.write_atomic`, and returns a short account of what it
wrote ("1,488 links"). A new format is a module with such a function and one entry here.
"""
from __future__ import annotations

from .base import ExportError, ExportFormat, check_target


def _write_cabling(analysis, path) -> str:
    # Imported on first use: listing the formats (podplanner --help) must not load the engines.
    # A plain import, so the layer contracts see it.
    from .cabling import write_cabling_csv

    return write_cabling_csv(analysis, path)


def _write_pdf(analysis, path) -> str:
    from .quote_pdf import write_quote_pdf

    return write_quote_pdf(analysis, path)


def _write_pdf_appendix(analysis, path) -> str:
    from .quote_pdf import write_appendix_pdf

    return write_appendix_pdf(analysis, path)


def _write_xlsx(analysis, path) -> str:
    from .quote_xlsx import write_quote_xlsx

    return write_quote_xlsx(analysis, path)


def _write_csv(analysis, path) -> str:
    from .bom_csv import write_bom_csv

    return write_bom_csv(analysis, path)


def _write_dxf(analysis, path) -> str:
    from .dxf import write_dxf

    return write_dxf(analysis, path)


def _write_svg(analysis, path) -> str:
    from .plan_image import write_svg

    return write_svg(analysis, path)


def _write_png(analysis, path, dpi: int = 150) -> str:
    from .plan_image import write_png

    return write_png(analysis, path, dpi=dpi)


def _write_heatmap(analysis, path, dpi: int = 150) -> str:
    from .plan_image import write_heatmap_png

    return write_heatmap_png(analysis, path, dpi=dpi)


def _write_netbox(analysis, folder) -> str:
    from .netbox_export import write_netbox

    return write_netbox(analysis, folder)


def _write_cabling_xlsx(analysis, path) -> str:
    from .cabling_xlsx import write_cabling_xlsx

    return write_cabling_xlsx(analysis, path)


#: what the NetBox export writes into its folder (exporters/netbox_export.py OWNED), listed here so that
#: checking a target does not load the exporter
_NETBOX_FILES = ("00-custom-fields.csv", "01-sites.csv", "02-locations.csv", "03-manufacturers.csv",
                 "04-device-roles.csv", "05-rack-types.csv", "06-racks.csv", "07-device-types", "08-devices.csv",
                 "09-interfaces.csv", "10-cables.csv", "11-power-panels.csv", "12-power-feeds.csv",
                 "13-power-ports.csv", "14-power-outlets.csv", "15-power-cables.csv",
                 "16-feed-cables.csv", "README.txt")

FORMATS: dict[str, ExportFormat] = {f.name: f for f in (
    ExportFormat("pdf", "Quote (PDF)", ".pdf",
                 "the customer's priced quote: cover, summary, floor plan, rack elevations, bill of materials "
                 "with part numbers, terms and acceptance block", _write_pdf),
    ExportFormat("pdf-appendix", "Quote technical appendix (PDF)", ".pdf",
                 "the quote's internal technical appendix: training estimate, cost of ownership, power, cooling, "
                 "fabric and storage details, findings, price sources and their dates", _write_pdf_appendix),
    ExportFormat("xlsx", "Quote (XLSX)", ".xlsx",
                 "the bill of materials as a workbook with live formulas: one sheet per section, summary and "
                 "cost of ownership", _write_xlsx),
    ExportFormat("csv", "Bill of materials (CSV)", ".csv",
                 "one row per bill line: part numbers, quantities, prices and their sources", _write_csv),
    ExportFormat("dxf", "Floor plan (DXF)", ".dxf",
                 "the floor plan for CAD at 1 unit = 1 mm: layers by purpose, a block per rack type with its "
                 "name, type, kW and GPUs", _write_dxf),
    ExportFormat("svg", "Floor plan (SVG)", ".svg",
                 "the floor plan to scale as a vector drawing, with legend and scale bar", _write_svg),
    ExportFormat("png", "Floor plan (PNG)", ".png",
                 "the floor plan to scale as an image at --dpi (150), with legend and scale bar", _write_png,
                 options=("dpi",)),
    ExportFormat("heat-map", "Heat map (PNG)", ".png",
                 "the floor plan coloured by each rack's power against its limit, as an image at --dpi (150)",
                 _write_heatmap, options=("dpi",)),
    ExportFormat("netbox", "NetBox import files", "",
                 "a folder of CSV files for NetBox's bulk import (sites, locations, racks, devices, interfaces, "
                 "cables) and device-type YAML, with the order to import them", _write_netbox, folder=True,
                 owned=_NETBOX_FILES),
    ExportFormat("cabling", "Cabling plan", ".csv",
                 "the fabric's port-to-port cabling plan: both ends, tier, medium, cable part, "
                 "orderable length, transceivers, rail and racks", _write_cabling),
    ExportFormat("cabling-xlsx", "Cabling plan (XLSX)", ".xlsx",
                 "the cabling plan as a workbook, with a pull list by part and length", _write_cabling_xlsx),
)}

__all__ = ["FORMATS", "ExportError", "ExportFormat", "check_target"]
