"""Colours, and the colour of each rack role on the floor plan.

Kept apart from the items so the legend, the floor plan and later views
(elevations, reports rendered by widgets) agree on one palette. Which role a
rack has is the domain's rule (:func:`designer.rack_roles.rack_role`, re-exported
here for the views); this module only gives each role its colour and label.
"""
from __future__ import annotations

from PySide6.QtGui import QColor

from designer.rack_roles import rack_role  # noqa: F401 - the domain's rule, re-exported for the views

#: Background outside any hall, the hall floor, its outline and tile grid.
CANVAS = QColor("#E8EBF0")
HALL_FILL = QColor("#FBFBFA")
HALL_BORDER = QColor("#38414D")
GRID = QColor("#E1E5EA")
TEXT = QColor("#27303B")
MUTED_TEXT = QColor("#5C6673")

#: role (every one of :data:`designer.rack_roles.ROLES`) -> (fill, label shown in the legend), in legend order.
ROLES: dict[str, tuple[QColor, str]] = {
    "compute": (QColor("#3D6FA8"), "Compute"),
    "rack_scale": (QColor("#6D56A6"), "Rack-scale system"),
    "network": (QColor("#D9822B"), "Network"),
    "management": (QColor("#8A939F"), "Management"),
    "empty": (QColor("#C3C9D1"), "Empty rack"),
}
CDU = (QColor("#2E9C95"), "CDU")
FLOOR_OTHER = (QColor("#9AA5B1"), "Floor unit")


def text_on(fill: QColor) -> QColor:
    """White on dark fills, near-black on light ones (by perceived luminance)."""
    lum = 0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue()
    return QColor("#FFFFFF") if lum < 150 else TEXT


#: Selection outline, a refused placement, and the clearance bands in front of and behind a rack.
ACCENT = QColor("#1F6FEB")
INVALID = QColor("#D93A3A")
CLEARANCE_FRONT = QColor(46, 132, 214, 46)
CLEARANCE_REAR = QColor(224, 112, 52, 46)

#: Heat map: share of the limit -> colour, blended between the stops; above 1 is "over".
HEAT_STOPS: tuple[tuple[float, QColor], ...] = (
    (0.0, QColor("#3FA35B")),
    (0.6, QColor("#9CC23A")),
    (0.85, QColor("#E9A23B")),
    (1.0, QColor("#D9503A")),
)
HEAT_OVER = QColor("#B0182F")
HEAT_NO_DATA = QColor("#D5DAE0")
HEAT_LEGEND: list[tuple[QColor, str]] = [
    (HEAT_STOPS[0][1], "Load well under limit"),
    (HEAT_STOPS[2][1], "Load ≥ 85 % of limit"),
    (HEAT_STOPS[3][1], "Load at the limit"),
    (HEAT_OVER, "Load over the limit"),
    (HEAT_NO_DATA, "No result yet"),
]
#: A legend row without a swatch (fully transparent): a heading that says what the colours below it show.
LEGEND_HEADING = QColor(0, 0, 0, 0)
#: What a CDU's colour shows on the heat map, whichever layer colours the racks.
HEAT_CDU_HEADING = "CDUs: loop load"
CLEARANCE_LEGEND: list[tuple[QColor, str]] = [
    (QColor(CLEARANCE_FRONT.red(), CLEARANCE_FRONT.green(), CLEARANCE_FRONT.blue(), 110), "Front clearance 1.2 m"),
    (QColor(CLEARANCE_REAR.red(), CLEARANCE_REAR.green(), CLEARANCE_REAR.blue(), 110), "Rear clearance 1.0 m"),
]


def _mix(c0: QColor, c1: QColor, t: float) -> QColor:
    """Blend in HSL so green -> amber passes through yellow, not olive."""
    h0, s0, l0 = c0.hslHueF(), c0.hslSaturationF(), c0.lightnessF()
    h1, s1, l1 = c1.hslHueF(), c1.hslSaturationF(), c1.lightnessF()
    return QColor.fromHslF(h0 + (h1 - h0) * t, s0 + (s1 - s0) * t, l0 + (l1 - l0) * t)


def heat_color(share: float | None) -> QColor:
    """Green -> amber -> red for a load as a share of its limit; deep red above it; grey when unknown."""
    if share is None or share != share:  # None or NaN
        return QColor(HEAT_NO_DATA)
    if share > 1.0 + 1e-9:
        return QColor(HEAT_OVER)
    share = max(0.0, share)
    for (s0, c0), (s1, c1) in zip(HEAT_STOPS, HEAT_STOPS[1:]):
        if share <= s1:
            return _mix(c0, c1, (share - s0) / (s1 - s0))
    return QColor(HEAT_STOPS[-1][1])


#: Palette icon colour per catalog kind (the floor plan's role colours where they match).
KIND_COLORS: dict[str, QColor] = {
    "server": ROLES["compute"][0],
    "tray": ROLES["compute"][0].lighter(125),
    "rack_system": ROLES["rack_scale"][0],
    "switch": ROLES["network"][0],
    "appliance": ROLES["management"][0],
    "pdu": QColor("#C4A21B"),
    "power_shelf": QColor("#B38A12"),
    "cdu": CDU[0],
    "rack": QColor("#5F6B7A"),
}
