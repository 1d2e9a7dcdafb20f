"""The physical bounds of a design's values and the rule for its text, shared by the file reader and the
commands: whatever an edit makes, the reader opens again.

A file may come from anywhere, and no value in it may reach an engine, an exporter or a library that
cannot take it (a shapely overflow warning at a corner 1e308 mm away, a division by a capacity of
5e-324 kW). Each bound is physical, with its reason. Text is kept in NFC (one text, however it was
composed), and text UTF-8 cannot hold (a lone surrogate, which :mod:`json` reads from ``\\udcff``) is
refused.
"""
from __future__ import annotations

import unicodedata

#: Plan coordinates (hall corners, rack and floor unit centres), mm: 10 km either way of the origin,
#: beyond any campus; inside it shapely's buffers and areas stay finite and exact to far below a mm.
COORD_MM = 1e7
#: A hall's power and cooling capacities, kW: 1 W to 10 GW, beyond any site built or announced;
#: a capacity a few floats above zero would make the load over it infinite.
CAPACITY_KW = (0.001, 1e7)
#: The smallest rack power limit, kW (1 W): a limit of 5e-324 kW would make every load over it infinite.
RACK_KW_MIN = 0.001
#: A rack's or a hall's per-rack power limit, kW: as the settings' own rack limits (designer.settings).
RACK_LIMIT_KW = (RACK_KW_MIN, 10000.0)
#: Floor rating, kg/m²: up to 100 t/m², some 30 times a heavy-duty data-centre slab.
FLOOR_RATING_KG_M2 = (1.0, 1e5)
#: Workload numbers: the training engine reads none beyond 1e30 (designer.training.section).
WORKLOAD_MAX = 1e30
#: A hall's optional figures and their bounds.
HALL_BOUNDS = {"power_capacity_kw": CAPACITY_KW, "cooling_capacity_kw": CAPACITY_KW,
               "liquid_cooling_capacity_kw": CAPACITY_KW, "floor_rating_kg_m2": FLOOR_RATING_KG_M2,
               "rack_power_limit_kw": RACK_LIMIT_KW}

LONE_SURROGATE = "contains a character that cannot be stored (a lone surrogate)"


def encodable(text: str) -> bool:
    """Whether UTF-8 holds ``text``: it holds every character but a lone surrogate."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def stored(text: str) -> bool:
    """Whether the reader keeps ``text`` as it is: in NFC, and encodable."""
    return text.isascii() or (encodable(text) and unicodedata.is_normalized("NFC", text))


def stored_text(text: str) -> str:
    """``text`` as a design keeps it (NFC); a ValueError saying why where UTF-8 cannot hold it."""
    if text.isascii():
        return text
    if not encodable(text):
        raise ValueError(LONE_SURROGATE)
    return unicodedata.normalize("NFC", text)
