"""The bill of materials as CSV: one row per bill line, as ``analysis.bom`` lists it.

Purchasing systems and spreadsheets import it, so it stays a plain table: a header
row, then lines only, no subtotal rows. Prices are written as the bill holds them,
rounded to the cent; a line without a price has empty price cells and says
"no price", because an empty cell cannot be summed into a total by mistake and a 0 can.
"""
from __future__ import annotations

import csv

from catalog.files import write_atomic
from designer.analysis import Analysis
from designer.formatting import count, number
from designer.views import BomLine, BomView

from .base import ExportError
from .cell_text import csv_text

COLUMNS = ("section", "line", "manufacturer", "part_number", "ordering_part_number", "description", "basis",
           "quantity", "unit", "years", "unit_price", "discount_percent", "net_unit_price", "extended_price",
           "currency", "price_source", "price_date", "flags")

#: the bill's flags in the words a buyer reads
FLAG_WORDS = {"unpriced": "no price", "unconfirmed": "indicative price", "stale": "stale price",
              "undated": "undated price", "no-part-number": "no part number"}


def flag_words(line: BomLine, *, indicative: str = FLAG_WORDS["unconfirmed"]) -> list[str]:
    """A line's flags in words, and an unconfirmed part number, which the bill keeps outside its flags."""
    words = [indicative if f == "unconfirmed" else FLAG_WORDS.get(f, f) for f in line.flags]
    if line.part_number_unconfirmed:
        words.append("part number unconfirmed")
    if line.preliminary:  # the vendor calls the part's figures preliminary (announced, subject to change)
        words.append("preliminary")
    return words


def bill_of(analysis: Analysis) -> BomView:
    """The analysis' bill, or :class:`ExportError` when there is nothing to write."""
    if not analysis.has("bom"):
        raise ExportError("the design has no bill of materials")
    bom = analysis.bom
    if not bom.lines:
        raise ExportError("the design's bill of materials has no lines: place racks and devices first")
    return bom


def _money(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}"


def bom_rows(analysis: Analysis):
    """The rows of the table (without the header), in the bill's order."""
    for section in bill_of(analysis).sections:
        for ln in section.lines:
            # every text cell through the one sanitiser; the numbers (line, quantity, years, prices) as they are
            yield [csv_text(section.title), ln.line, csv_text(ln.manufacturer), csv_text(ln.part_number),
                   csv_text(ln.alt_part_number), csv_text(ln.description), csv_text(ln.basis), ln.quantity,
                   csv_text(ln.unit), ln.term_years,
                   _money(ln.unit_price), f"{ln.discount_percent:g}", _money(ln.net_unit_price),
                   _money(ln.extended_price), csv_text(ln.currency or ""), csv_text(ln.price_source),
                   csv_text(ln.price_date), csv_text("; ".join(flag_words(ln)))]


def write_bom_csv(analysis: Analysis, path) -> str:
    rows = list(bom_rows(analysis))

    def write(fh) -> None:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        w.writerows(rows)

    write_atomic(path, write, newline="")
    unpriced = sum(1 for r in rows if r[10] == "")
    return count(len(rows), "line") + (f", {number(unpriced)} without a price" if unpriced else "")
