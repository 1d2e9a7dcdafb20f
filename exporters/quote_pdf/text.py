"""The quote's words around its figures: the price marks, the dates, the quote number, and how figures are written.

Every figure in the quote is written by :mod:`designer.formatting`, so the PDF, the window and the CLI print
one figure alike (decimals per unit, half up, thousands separators, "58 %"); this module only adds what is
the quote's own. Data reaches paragraph markup through :func:`text`, which escapes it.

A setting without a unit (PUE, power factor, oversubscription, years of depreciation) is printed as the
user typed it (``f"{pue:g}"``), as the CLI prints it: "PUE 1.3", not "PUE 1.30".
"""
from __future__ import annotations

import re
import unicodedata
from datetime import date

from designer.formatting import DECIMALS, count, number, percent

from .. import pdf_style as st

#: Marks beside a unit price (explained in the bill's legend): indicative, stale, undated.
DAGGER, DOUBLE_DAGGER, SECTION_MARK = "†", "‡", "§"
#: Mark beside a bill line whose part the vendor calls preliminary (the next of the classic footnote marks).
PRELIMINARY_MARK = "¶"
INDICATIVE = "indicative: press, third-party or planning estimate"
#: The name this module has always given the formatter's ``count``, kept importable from exporters.quote_pdf.
plural = count


def text(data: object) -> str:
    """Data as paragraph text: printable, markup escaped (a project named "A&B <test>" prints as typed)."""
    return st.para_text(data)


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
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()  # "Zürich" -> "Zurich"
    parts = re.findall(r"[A-Za-z0-9]+", ascii_name)
    slug = "".join(p.upper() if (p.isupper() or any(c.isdigit() for c in p) or len(parts) == 1) else p[0].upper()
                   for p in parts)
    return f"Q-{on:%Y%m%d}-{slug[:16] or 'DESIGN'}"
