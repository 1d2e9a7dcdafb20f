"""Colours and the rack "role" used to colour the floor plan.

Kept apart from the items so the legend, the floor plan and later views
(elevations, reports rendered by widgets) agree on one palette.
"""
from __future__ import annotations

from PySide6.QtGui import QColor

from catalog import Catalog
from designer.model import Rack

#: Background outside any hall, the hall floor, its outline and tile grid.
CANVAS = QColor("#E8EBF0")
HALL_FILL = QColor("#FBFBFA")
HALL_BORDER = QColor("#38414D")
GRID = QColor("#E1E5EA")
TEXT = QColor("#27303B")
MUTED_TEXT = QColor("#5C6673")

#: role -> (fill, label shown in the legend). Order is the legend's order.
ROLES: dict[str, tuple[QColor, str]] = {
    "compute": (QColor("#3D6FA8"), "Compute"),
    "rack_scale": (QColor("#6D56A6"), "Rack-scale system"),
    "network": (QColor("#D9822B"), "Network"),
    "management": (QColor("#8A939F"), "Management"),
    "empty": (QColor("#C3C9D1"), "Empty rack"),
}
CDU = (QColor("#2E9C95"), "CDU")
FLOOR_OTHER = (QColor("#9AA5B1"), "Floor unit")


def rack_role(rack: Rack, catalog: Catalog) -> str:
    """What a rack is for, judged by what it holds (a rack-scale system wins, then GPUs, then appliances).

    Appliances decide "management" before switches do, because a management rack
    also holds the out-of-band switches; a rack of only switches is "network".
    """
    kinds = set()
    for d in rack.devices:
        dev = catalog.find(d.type)
        if dev is None:
            continue
        if dev.fills_rack or dev.kind == "rack_system":
            return "rack_scale"
        if dev.gpu_count or dev.kind in ("server", "tray"):
            kinds.add("compute")
        elif dev.kind in ("switch", "appliance"):
            kinds.add(dev.kind)
    if "compute" in kinds:
        return "compute"
    if "appliance" in kinds:
        return "management"
    if "switch" in kinds:
        return "network"
    return "empty"


def text_on(fill: QColor) -> QColor:
    """White on dark fills, near-black on light ones (by perceived luminance)."""
    lum = 0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue()
    return QColor("#FFFFFF") if lum < 150 else TEXT
