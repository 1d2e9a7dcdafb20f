"""The physical bounds of a design's values and the rule for its text, shared by the file reader and the
commands: whatever an edit makes, the reader opens again.

A file may come from anywhere, and no value in it may reach an engine, an exporter or a library that
cannot take it (a shapely overflow warning at a corner 1e308 mm away, a division by a capacity of
5e-324 kW). Each bound is physical, with its reason. Text is kept in NFC (one text, however it was
composed), and text UTF-8 cannot hold (a lone surrogate, which :mod:`json` reads from ``\\udcff``) is
refused.

Every text is held to a length a person writes (``MAX_TEXT_CHARS``; the description ``MAX_PROSE_CHARS``)
and to one line: a control character (NUL, ESC, CR, LF, ...) would reach a CSV cell, a NetBox file or a
terminal raw. An id is compared with the others after NFKC (``ｓｕ01`` is ``su01``) and may not hold a
default-ignorable character (a zero-width space makes two ids that read the same).
"""
from __future__ import annotations

import re
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

#: The longest id, name or other one-line text, in characters: longer than any name a person gives a hall,
#: a rack or a device, and as the quote's texts (designer.quote_settings).
MAX_TEXT_CHARS = 200
#: The longest description, in characters (some pages of prose); it alone may hold tabs and line breaks.
MAX_PROSE_CHARS = 10_000
#: Control characters and the line and paragraph separators: a one-line text holds none.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
#: What prose may hold besides: tab, line feed, carriage return.
_PROSE_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): characters drawn as nothing.
_IGNORABLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
                        "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
                        "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")


def encodable(text: str) -> bool:
    """Whether UTF-8 holds ``text``: it holds every character but a lone surrogate."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def stored(text: str, *, ident: bool = False) -> bool:
    """Whether the reader keeps ``text`` as it is (in NFC, encodable, within the bounds of one line), so
    the fast reader may take it; an id only in ASCII (another is compared after NFKC)."""
    if text.isascii():
        return len(text) <= MAX_TEXT_CHARS and text.isprintable()
    return (not ident and len(text) <= MAX_TEXT_CHARS and encodable(text)
            and unicodedata.is_normalized("NFC", text) and _CONTROL.search(text) is None)


def text_problem(text: str, *, ident: bool = False, prose: bool = False) -> str | None:
    """Why a design cannot keep ``text`` (``text`` in NFC), or None: its length, a control character, a
    default-ignorable character in an id."""
    limit = MAX_PROSE_CHARS if prose else MAX_TEXT_CHARS
    if len(text) > limit:
        return f"is {len(text):,} characters long (at most {limit:,})"
    bad = (_PROSE_CONTROL if prose else _CONTROL).search(text)
    if bad is not None:
        return f"holds a control character ({ascii(bad.group())[1:-1]}); {'prose' if prose else 'one line of text'} " \
               f"holds none"
    if ident and not text.isascii():
        bad = _IGNORABLE.search(text)
        if bad is not None:
            return f"holds an invisible character (U+{ord(bad.group()):04X}); an id holds only characters that show"
    return None


def stored_text(text: str, *, ident: bool = False, prose: bool = False) -> str:
    """``text`` as a design keeps it (NFC); a ValueError saying why where it cannot keep it (a lone
    surrogate, too long, a control character, an invisible character in an id)."""
    if text.isascii() and len(text) <= MAX_TEXT_CHARS and text.isprintable():
        return text  # printable ASCII within every limit: what nearly every text is, kept as it is
    if not text.isascii():
        if not encodable(text):
            raise ValueError(LONE_SURROGATE)
        text = unicodedata.normalize("NFC", text)
    problem = text_problem(text, ident=ident, prose=prose)
    if problem is not None:
        raise ValueError(problem)
    return text


def id_key(ident: str) -> str:
    """What an id is compared by: its NFKC form (a full-width ``ｓｕ01`` is ``su01``)."""
    return ident if ident.isascii() else unicodedata.normalize("NFKC", ident)
