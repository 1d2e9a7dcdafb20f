"""The quote workbook's formula cells with the values they compute to, stored beside the formulas.

openpyxl writes a formula with an empty value, which a reader that does not recalculate (a file
previewer, pandas, a mail client) shows blank. The writer knows every figure it puts a formula
on, so it keeps each one in a :class:`Cached` as it writes the formula, and :func:`with_values`
puts them into the saved file's sheets: ``<v>`` in each formula cell, ``t="str"`` on a text
result. The formulas stay, and the workbook asks to be recalculated when it is opened, so Excel
and LibreOffice compute them again.
"""
from __future__ import annotations

import io
import re
import zipfile
from datetime import date
from xml.etree import ElementTree
from xml.sax.saxutils import escape

#: Excel's day 0: a date is stored as the days since it
EPOCH = date(1899, 12, 30)

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PACKAGE_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
#: a formula cell as openpyxl writes it: its reference, its other attributes (no type), its formula and
#: an empty value (``<v />`` from the standard library's writer, ``<v></v>`` when openpyxl writes with lxml,
#: which it does whenever lxml is installed, as svglib brings it)
_FORMULA_CELL = re.compile(r'<c r="([A-Z]+[0-9]+)"((?: (?!t=)[a-z]+="[^"]*")*)>(<f>[^<]*</f>)(?:<v ?/>|<v></v>)')


def serial(day: date) -> int:
    """A date as the number a spreadsheet stores for it."""
    return (day - EPOCH).days


class Cached:
    """The value of each formula cell, by sheet and cell, recorded as the formula is written."""

    def __init__(self):
        self.sheets: dict[str, dict[str, float | int | str]] = {}

    def put(self, cell, formula: str, value: float | int | str):
        """Write ``formula`` in ``cell`` and keep ``value`` as what it computes to. Returns the cell."""
        if not formula.startswith("=") or value is None or isinstance(value, bool):
            raise ValueError(f"{cell.coordinate}: a formula and its number or text, not {formula!r} = {value!r}")
        cell.value = formula
        self.sheets.setdefault(cell.parent.title, {})[cell.coordinate] = value
        return cell

    def get(self, sheet: str, coordinate: str) -> float | int | str:
        """The value kept for a formula cell (a KeyError for a cell without one)."""
        return self.sheets[sheet][coordinate]


def _sheet_files(z: zipfile.ZipFile) -> dict[str, str]:
    """Each sheet's name and the part of the package that holds it."""
    rels = ElementTree.fromstring(z.read("xl/_rels/workbook.xml.rels"))
    target = {r.get("Id"): r.get("Target") for r in rels.iter(f"{_PACKAGE_REL}Relationship")}
    out = {}
    for sheet in ElementTree.fromstring(z.read("xl/workbook.xml")).iter(f"{_MAIN}sheet"):
        path = target[sheet.get(f"{_REL}id")]
        out[sheet.get("name")] = path.lstrip("/") if path.startswith("/") else f"xl/{path}"
    return out


def _value_xml(value) -> tuple[str, str]:
    """The type attribute and the ``<v>`` text of a cell holding ``value``."""
    if isinstance(value, str):
        return ' t="str"', escape(value)
    if isinstance(value, int):
        return "", str(value)
    return "", repr(float(value))


def _fill(xml: str, values: dict[str, float | int | str]) -> str:
    def one(m: re.Match) -> str:
        value = values.get(m[1])
        if value is None:
            return m[0]
        kind, text = _value_xml(value)
        return f'<c r="{m[1]}"{m[2]}{kind}>{m[3]}<v>{text}</v>'
    return _FORMULA_CELL.sub(one, xml)


def with_values(data: bytes, cached: Cached) -> bytes:
    """The XLSX ``data`` (as openpyxl saves it) with the values ``cached`` holds in its formula cells."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        parts = {part: cached.sheets.get(name) for name, part in _sheet_files(src).items()}
        for info in src.infolist():
            content = src.read(info)
            values = parts.get(info.filename)
            if values:
                content = _fill(content.decode("utf-8"), values).encode("utf-8")
            dst.writestr(info, content)
    return out.getvalue()
