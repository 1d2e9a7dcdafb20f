"""Text cells a spreadsheet opening an export must show, never run: the one sanitiser of every CSV and XLSX writer.

A spreadsheet reads a CSV field that starts with ``=``, ``+``, ``-`` or ``@`` as a formula, and some
read one starting with a tab or a carriage return the same way after trimming it; a rack named
``=cmd|' /C calc'!A0`` would then run on the machine of whoever opens the cabling plan. OWASP's advice
for CSV injection (https://owasp.org/www-community/attacks/CSV_Injection) is followed: such a text
cell is written with a single quote in front, which spreadsheets show and never evaluate.

Only text cells are escaped: a number column (a length, a U position, a coordinate, a price) is
written as the number it is, so ``-1.5`` stays ``-1.5``. A name that legitimately starts with ``-`` or
``+`` ("+5V") gets the quote as well; the NetBox folder's README says so. A text that already starts
with a quote followed by one of these characters (or by another quote) gets one more, so that
:func:`unescape` gives every text back exactly.

In XLSX a cell has a type, so the text is kept as it is and written as a string, never as a formula:
:func:`looks_like_formula` tells the workbook writers which cells need that said explicitly.
"""
from __future__ import annotations

from typing import Iterable

#: what a spreadsheet may read as the start of a formula (OWASP: = + - @ tab carriage return)
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"
_AFTER_QUOTE = FORMULA_PREFIXES + (QUOTE,)


def looks_like_formula(text: str) -> bool:
    """Whether a spreadsheet could take ``text`` for a formula (it starts with one of :data:`FORMULA_PREFIXES`)."""
    return text[:1] in FORMULA_PREFIXES


def needs_escape(text: str) -> bool:
    """Whether :func:`csv_text` changes ``text``: a formula prefix, or a quote that :func:`unescape` would take off."""
    first = text[:1]
    return first in FORMULA_PREFIXES or (first == QUOTE and text[1:2] in _AFTER_QUOTE)


def csv_text(text: str) -> str:
    """A text cell of a CSV: ``text`` as it is, or with a single quote in front where a spreadsheet could run it."""
    return QUOTE + text if needs_escape(text) else text


def csv_cell(value):
    """A cell of a CSV row: text through :func:`csv_text`; a number, None or anything else as it is."""
    return csv_text(value) if isinstance(value, str) else value


def csv_texts(values: Iterable[str]) -> list[str]:
    """:func:`csv_text` of each value, each distinct value looked at once (a rack's name repeats on every link)."""
    seen: dict[str, str] = {}
    return [seen[v] if v in seen else seen.setdefault(v, csv_text(v)) for v in values]


def unescape(text: str) -> str:
    """The text :func:`csv_text` was given: one leading quote taken off where :func:`csv_text` put it."""
    if text[:1] == QUOTE and text[1:2] in _AFTER_QUOTE:
        return text[1:]
    return text
