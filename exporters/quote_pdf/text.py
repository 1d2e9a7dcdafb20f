"""The quote's words around its figures: the price marks, the dates, the quote number, and how figures are written.

Every figure in the quote is written by :mod:`designer.formatting`, so the PDF, the window and the CLI print
one figure alike (decimals per unit, half up, thousands separators, "58 %"); this module only adds what is
the quote's own. Data reaches paragraph markup through :func:`text`, which escapes it.

A setting without a unit (PUE, power factor, oversubscription, years of depreciation) is printed as the
user typed it (``f"{pue:g}"``), as the CLI prints it: "PUE 1.3", not "PUE 1.30".

User text (names, a description) may be of any length, and is never laid out in full when it is long: a
name is cut to :data:`NAME_ROOM` points (:func:`name`), a table cell's text to :data:`CELL_LINES` lines of
its column, and any other data to :data:`PARAGRAPH_CHARS` characters (:func:`text`), each with an ellipsis.
"""
from __future__ import annotations

import re
from datetime import date

from designer.formatting import DECIMALS, count, name_code, number, percent

from .. import pdf_style as st
from ..pdf_text import clip, shorten

#: Marks beside a unit price (explained in the bill's legend): indicative, stale, undated.
DAGGER, DOUBLE_DAGGER, SECTION_MARK = "†", "‡", "§"
#: Mark beside a bill line whose part the vendor calls preliminary (the next of the classic footnote marks).
PRELIMINARY_MARK = "¶"
INDICATIVE = "indicative: press, third-party or planning estimate"
#: The name this module has always given the formatter's ``count``, kept importable from exporters.quote_pdf.
plural = count


#: Data in running text is cut after this many characters: some 3 pages of body text, more than any
#: sentence the quote writes, and a 10 MB text is never laid out.
PARAGRAPH_CHARS = 20_000
#: A name of a rack, hall, row or unit is cut to this many points of 7.5-point text (some 100 characters):
#: two or three lines of a narrow table column.
NAME_ROOM = 420.0
#: A table cell's text is cut to this many lines of its column (wrapped, it may take up to twice as many).
CELL_LINES = 12


def text(data: object) -> str:
    """Data as paragraph text: printable, markup escaped (a project named "A&B <test>" prints as typed), and
    cut to :data:`PARAGRAPH_CHARS` characters."""
    return st.para_text(shorten(str(data), PARAGRAPH_CHARS))


def name(data: object, room: float = NAME_ROOM) -> str:
    """A user's name for something, printable and cut to ``room`` points of 7.5-point text with an ellipsis."""
    return clip(data, st.FONT, 7.5, room)


def lines_room(width: float, lines: int, size: float) -> float:
    """The room of ``lines`` lines ``width`` points wide for text cut to fit them: a line broken inside a long
    word leaves up to a character's width (``size``) of it empty."""
    return lines * max(width - size, size)


def fit_lines(data: object, width: float, lines: int = CELL_LINES, *, font: str = st.FONT,
              size: float = 7.5) -> str:
    """Text for a column ``width`` points wide (its padding taken off), cut to ``lines`` lines' worth."""
    return clip(data, font, size, lines_room(width - 7.0, lines, size))


def cell(x: float | None, unit: str) -> str:
    """A figure in a table column whose header names the unit ("Load (kW)"): the unit's decimals, no unit."""
    return number(x, DECIMALS[unit])


def percent_typed(x: float) -> str:
    """A percentage as the user set it (a discount of 12.5, spares of 2): its decimal only when it has one."""
    return percent(x / 100, 1 if x % 1 else 0)


def long_date(d: date) -> str:
    """``16 March 2026``: the day without a leading zero, as the cover and the legend print dates."""
    return f"{d.day} {d:%B %Y}"


_UNIT_AFTER_NUMBER = re.compile(r"(\d) (m|mm|kW|W|U|GB|TB|A|V|kVA)\b")


def keep_units(line: str) -> str:
    """A number and its unit joined by a no-break space, so "20 m" never wraps into "20" and "m"."""
    return _UNIT_AFTER_NUMBER.sub("\\1\u00a0\\2", line)


def derived_quote_number(name: str, on: date) -> str:
    """A quote number from the project name and date when none is set: ``Q-20261203-DGXB200S1SU``."""
    return f"Q-{on:%Y%m%d}-{name_code(name) or 'DESIGN'}"
