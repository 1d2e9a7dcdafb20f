"""The window's colours, as QColors, from the one colour scheme (:mod:`designer.colours`).

Kept apart from the items so the legend, the floor plan, the charts and the
elevations agree on one palette. Which role a rack has is the domain's rule
(:func:`designer.rack_roles.rack_role`, re-exported here for the views); this
module only gives each role, load band and state its colour and label.
"""
from __future__ import annotations

from functools import cache

from PySide6.QtGui import QColor

from designer import colours as scheme
from designer.rack_roles import rack_role  # noqa: F401 - the domain's rule, re-exported for the views

CANVAS = QColor(scheme.CANVAS)
HALL_FILL = QColor(scheme.HALL_FILL)
HALL_BORDER = QColor(scheme.HALL_BORDER)
GRID = QColor(scheme.GRID)
TEXT = QColor(scheme.TEXT)
MUTED_TEXT = QColor(scheme.MUTED_TEXT)

#: role (every one of :data:`designer.rack_roles.ROLES`) -> (fill, label shown in the legend), in legend order.
ROLES: dict[str, tuple[QColor, str]] = {role: (QColor(fill), label) for role, (fill, label) in scheme.ROLES.items()}
CDU = (QColor(scheme.CDU[0]), scheme.CDU[1])
FLOOR_OTHER = (QColor(scheme.FLOOR_OTHER[0]), scheme.FLOOR_OTHER[1])
#: one legend entry for a hall's electrical room: its UPS modules' colour (switchgear and batteries its lighter kin)
ELECTRICAL_ROOM = (QColor(scheme.ELECTRICAL["ups"]), "UPS and switchgear")


def text_on(fill: QColor) -> QColor:
    """White on dark fills, near-black on light ones (by perceived luminance)."""
    lum = 0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue()
    return QColor("#FFFFFF") if lum < 150 else TEXT


#: The mark beside a catalog entry, or a device of one, whose vendor calls its figures preliminary (the palette and
#: the inspector alike; the reason is the mark's tooltip).
PRELIMINARY = "Preliminary"

#: Selection outline, a refused placement (hatched, never a load colour), clearance bands.
ACCENT = QColor(scheme.SELECTED)
INVALID = QColor(scheme.REFUSED)
REFUSED_LEGEND = (INVALID, scheme.REFUSED_LABEL, "hatch")
CLEARANCE_FRONT = QColor(scheme.CLEARANCE_FRONT[0])
CLEARANCE_FRONT.setAlpha(46)
CLEARANCE_REAR = QColor(scheme.CLEARANCE_REAR[0])
CLEARANCE_REAR.setAlpha(46)
CLEARANCE_LEGEND: list[tuple[QColor, str]] = [
    (QColor(CLEARANCE_FRONT.red(), CLEARANCE_FRONT.green(), CLEARANCE_FRONT.blue(), 110), scheme.CLEARANCE_FRONT[1]),
    (QColor(CLEARANCE_REAR.red(), CLEARANCE_REAR.green(), CLEARANCE_REAR.blue(), 110), scheme.CLEARANCE_REAR[1]),
]

#: Heat map bands: band key -> (colour, legend label), lowest load first, then "no result yet".
HEAT_BANDS: dict[str, tuple[QColor, str]] = {key: (QColor(fill), label)
                                              for key, (fill, label) in scheme.BAND_COLOURS.items()}
HEAT_OVER = HEAT_BANDS["over"][0]
HEAT_AT_LIMIT = HEAT_BANDS["at_limit"][0]
HEAT_NO_DATA = HEAT_BANDS["no_data"][0]
#: Every heat colour in legend order (the plan's legend lists only those in use).
HEAT_LEGEND: list[tuple[QColor, str]] = list(HEAT_BANDS.values())
#: A legend row without a swatch (fully transparent): a heading that says what the colours below it show.
LEGEND_HEADING = QColor(0, 0, 0, 0)
#: What a CDU's colour shows on the heat map, whichever layer colours the racks.
HEAT_CDU_HEADING = "CDUs: loop load"

#: Severity of a finding, as in the quote PDF.
SEVERITY: dict[str, QColor] = {k: QColor(v) for k, v in scheme.SEVERITY.items()}


def heat_band(share: float | None) -> str:
    """The load band a share of a limit falls in (see :mod:`designer.colours`)."""
    return scheme.load_band(share)


def heat_color(share: float | None) -> QColor:
    """The colour of the load band ``share`` falls in; grey when unknown."""
    return QColor(HEAT_BANDS[scheme.load_band(share)][0])


@cache
def _series(name: str) -> QColor:
    return QColor(scheme.SERIES[name])


def series(name: str) -> QColor:
    """A chart series' colour by what it shows: limit, used, free, liquid, air, tokens, days."""
    return QColor(_series(name))


#: Palette icon colour per catalog kind (the floor plan's role colours where they match).
KIND_COLORS: dict[str, QColor] = {
    "server": ROLES["compute"][0],
    "tray": ROLES["compute"][0].lighter(125),
    "rack_system": ROLES["rack_scale"][0],
    "switch": ROLES["network"][0],
    "appliance": ROLES["management"][0],
    "pdu": QColor(scheme.PDU),
    "power_shelf": QColor(scheme.POWER_DEVICE),
    "cdu": CDU[0],
    "rack": QColor("#5F6B7A"),
}
