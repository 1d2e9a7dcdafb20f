"""The one colour scheme: rack roles, load levels, chart series and states, as hex strings.

The window (``widgets/app/style.py``) and the PDF (``exporters/pdf_style.py``) both
read their colours from here, so a rack is the same colour on screen, in the
legend, in a chart and on paper. Plain hex values keep this free of Qt and of
reportlab.

Every hue is chosen to stay apart under the common colour-vision deficiencies:
roles take the Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008);
load levels take ColorBrewer's diverging RdBu scale (Brewer, colorbrewer2.org,
marked colour-blind safe), whose steps differ in lightness as well as hue, so
"at the limit" reads apart from "well under" even without telling red from
green. Load is shown in bands, not a blend: a legend can then list exactly the
colours a plan shows, and two racks in one band are one colour everywhere.
"""
from __future__ import annotations

import math

#: Background outside any hall, the hall floor, its outline, tile grid and text.
CANVAS = "#E8EBF0"
HALL_FILL = "#FBFBFA"
HALL_BORDER = "#38414D"
GRID = "#E1E5EA"
TEXT = "#27303B"
MUTED_TEXT = "#5C6673"

#: rack role (every one of :data:`designer.rack_roles.ROLES`) -> (fill, legend label), in legend order.
ROLES: dict[str, tuple[str, str]] = {
    "compute": ("#0072B2", "Compute"),
    "rack_scale": ("#8E5FA8", "Rack-scale system"),
    "network": ("#E69F00", "Network"),
    "storage": ("#F0E442", "Storage"),
    "management": ("#8A939F", "Management"),
    "empty": ("#C3C9D1", "Empty rack"),
}
CDU = ("#009E73", "CDU")
FLOOR_OTHER = ("#56B4E9", "Floor unit")
#: What a block in an elevation is for, beyond the rack roles.
POWER_DEVICE = "#A7853A"
PDU = "#4F5B69"
#: A hall's electrical room (designer.power.electrical_room): its floor, and its equipment by kind, in the power
#: devices' brown family, told apart by lightness (switchgear mid, UPS dark, batteries light).
ELECTRICAL_FLOOR = "#F4F1EA"
ELECTRICAL: dict[str, str] = {"switchgear": POWER_DEVICE, "distribution": POWER_DEVICE, "ups": "#6B4F1D",
                              "battery": "#D9C38F"}

#: Load bands: (key, upper bound of the share of the limit, fill, legend label), lowest first.
#: "at_limit" is a band of its own (a rack drawing exactly its limit is full, not "near").
LOAD_BANDS: tuple[tuple[str, float, str, str], ...] = (
    ("well_under", 0.60, "#2166AC", "Under 60 % of limit"),
    ("moderate", 0.85, "#67A9CF", "60–85 % of limit"),
    ("near", 0.995, "#EF8A62", "85–99 % of limit"),
    ("at_limit", 1.0 + 1e-9, "#B2182B", "At the limit"),
    ("over", math.inf, "#4D0019", "Over the limit"),
)
NO_DATA = ("#D5DAE0", "No figure: not analysed yet, or no limit")

#: States drawn over a role or load colour. A refused placement is hatched black, never red, so it
#: cannot be read as a load at its limit; the selection is a blue outline.
SELECTED = "#1F6FEB"
REFUSED = "#111111"
REFUSED_LABEL = "Refused: cannot stand here"
CLEARANCE_FRONT = ("#2E84D6", "Front clearance 1.2 m")
CLEARANCE_REAR = ("#E07034", "Rear clearance 1.0 m")

#: Chart series, by what they show.
SERIES: dict[str, str] = {
    "limit": "#222222",
    "used": ROLES["network"][0],
    "free": "#D5DBE3",
    "liquid": CDU[0],
    "air": FLOOR_OTHER[0],
    "tokens": ROLES["compute"][0],
    "days": "#D55E00",
    # the job with one of two fabric planes down: a hollow mark of the tokens/s colour
    "plane_lost": ROLES["compute"][0],
}

#: Cable routes on the plan, by medium (designer.cabling_view.MEDIUM_KEYS): lines drawn over rack and CDU
#: fills, so none takes a fill's colour: the common multimode fibre is black, the others Paul Tol's
#: colour-blind safe indigo, wine, olive and the Okabe-Ito reddish purple. A run no cable reaches (and a
#: medium not listed) is vermillion, dashed: it needs a look.
CABLE_MEDIA: dict[str, str] = {
    "mmf": "#000000",
    "smf": "#332288",
    "dac": "#882255",
    "acc": "#CC79A7",
    "splitter": "#999933",
    "none": "#D55E00",
}
CABLE_OTHER = "#D55E00"

#: Finding severities, in the findings panel and the quote PDF alike.
SEVERITY: dict[str, str] = {"error": "#B3261E", "warning": "#B07800", "info": ROLES["compute"][0]}


def load_band(share: float | None) -> str:
    """The band key for a load as a share of its limit; ``"no_data"`` when unknown (None or NaN)."""
    if share is None or math.isnan(share):
        return "no_data"
    for key, upper, _, _ in LOAD_BANDS:
        if share < upper:
            return key
    return LOAD_BANDS[-1][0]


#: band key -> (fill, legend label), including "no_data".
BAND_COLOURS: dict[str, tuple[str, str]] = {key: (fill, label) for key, _, fill, label in LOAD_BANDS}
BAND_COLOURS["no_data"] = NO_DATA


def load_colour(share: float | None) -> str:
    """The fill of the band ``share`` falls in."""
    return BAND_COLOURS[load_band(share)][0]

#: The single-line diagram: each feed's wires (A and B apart by hue and by lightness, Okabe–Ito blue and
#: vermillion), a box's fill by what it is, and the outline of a box loaded past its design margin.
SLD_FEEDS: dict[str, str] = {"A": "#0072B2", "B": "#D55E00", "": "#38414D"}
SLD_FILLS: dict[str, str] = {"utility": "#E6ECF3", "generators": "#F3EBDC", "switchgear": "#ECEFF3",
                             "ups": "#E3F0EA", "busway": "#F7F7F2", "racks": "#FFFFFF"}
SLD_OVER = SEVERITY["warning"]
