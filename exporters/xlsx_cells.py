"""What the workbooks (the quote, the cabling plan) share: their fonts and fills, sheet names Excel accepts,
text that stays text, and references between sheets."""
from __future__ import annotations

import re
from typing import Mapping

from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.worksheet.worksheet import Worksheet

from .cell_text import looks_like_formula

MONEY = "#,##0.00"
BOLD = Font(bold=True)
TITLE = Font(bold=True, size=14)
NOTE = Font(italic=True, color="595959")
ESTIMATE = Font(italic=True, color="7F6000")
HEADER_FILL = PatternFill("solid", fgColor="D9E1F2")
INPUT_FILL = PatternFill("solid", fgColor="FFF2CC")
TOTAL_BORDER = Border(top=Side(style="thin"))
WRAP = Alignment(wrap_text=True, vertical="top")
RIGHT = Alignment(horizontal="right")

_FORBIDDEN = str.maketrans({c: "-" for c in "[]:*?/\\"})


def sheet_name(title: str, taken: set[str]) -> str:
    """A title as Excel allows it: at most 31 characters, none of ``[]:*?/\\``, not quoted at either end,
    and unlike every name already used (Excel compares names without case)."""
    base = title.translate(_FORBIDDEN).strip().strip("'").strip()[:31] or "Section"
    name, n = base, 2
    while name.lower() in taken:
        suffix = f" ({n})"
        name, n = base[:31 - len(suffix)] + suffix, n + 1
    taken.add(name.lower())
    return name


#: Characters XML 1.0 cannot carry: an XLSX holding one does not open.
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def put_text(cell, value) -> None:
    """Write text from the design or a price list as text: a name starting with = stays a name, never a formula."""
    if isinstance(value, str):
        value = NOT_XML.sub("\ufffd", value)
        cell.value = value
        as_text(cell)
    else:
        cell.value = value


def as_text(cell):
    """``cell`` (its value set) kept as text where a spreadsheet could take its text for a formula
    (:func:`exporters.cell_text.looks_like_formula`): a string cell, never a formula, and with Excel's quote
    prefix, so that editing the cell keeps it text. Returns the cell."""
    if isinstance(cell.value, str) and looks_like_formula(cell.value):
        cell.data_type = "s"
        cell.quotePrefix = True
    return cell


def ref(sheet: str, cell: str) -> str:
    """A reference to another sheet, quoted as formulas need it."""
    return "'" + sheet.replace("'", "''") + "'!" + cell


def fit_columns(ws: Worksheet, widths: Mapping[str, float]) -> None:
    for letter, width in widths.items():
        ws.column_dimensions[letter].width = width
