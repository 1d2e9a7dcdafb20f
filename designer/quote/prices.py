"""A user's price list (CSV or XLSX): part number -> price, currency and date, overriding catalog prices.

The first row names the columns; names are matched loosely ("Part number", "PN", "SKU";
"Price", "Unit price", "List price"; "Currency"; "Date", "Price date"; "Source", "Note").
A part number and a price are required on every row; currency may instead be given once
for the whole list (``default_currency``). Every error names the file and the row.
"""
from __future__ import annotations

import csv
import io
import math
import re
from datetime import date, datetime
from pathlib import Path

from catalog.files import read_bytes

from .settings import PriceEntry, QuoteError, check_price_entry, part_key

#: Largest price list read (a distributor's whole list is a few MB).
PRICE_LIST_LIMIT = 32 * 1024 * 1024
MAX_ROWS = 100_000
COLUMNS = {
    "part_number": ("part number", "part no", "part", "pn", "sku", "ordering part number", "opn", "item", "id"),
    "amount": ("price", "unit price", "list price", "unit list price", "amount", "cost"),
    "currency": ("currency", "cur", "ccy"),
    "date": ("date", "price date", "as of", "valid from"),
    "source": ("source", "note", "notes", "quote", "reference"),
}


def _norm(header: object) -> str:
    return re.sub(r"[^a-z0-9]+", " ", str(header or "").lower()).strip()


def _columns(header: list, where: str) -> dict[str, int]:
    names = [_norm(h) for h in header]
    found: dict[str, int] = {}
    for field, aliases in COLUMNS.items():
        for i, name in enumerate(names):
            if name in aliases or name.replace(" ", "_") == field:
                found.setdefault(field, i)
    for need in ("part_number", "amount"):
        if need not in found:
            raise QuoteError(f"{where}: row 1 names no {need.replace('_', ' ')} column (columns: "
                             f"{', '.join(str(h) for h in header if h not in (None, '')) or 'none'})")
    return found


def _amount(raw: object, where: str) -> float:
    if isinstance(raw, bool):
        raise QuoteError(f"{where}: price {raw!r} is not a number")
    if isinstance(raw, (int, float)):
        value = float(raw)
    else:
        text = str(raw).strip().replace(",", "").replace("$", "").replace("€", "").replace("£", "")
        if len(text) > 40:
            raise QuoteError(f"{where}: price {text[:20]!r}… is not a number")
        try:
            value = float(text)
        except ValueError:
            raise QuoteError(f"{where}: price {str(raw)[:40]!r} is not a number") from None
    if not math.isfinite(value) or value < 0 or value > 1e12:
        raise QuoteError(f"{where}: price {str(raw)[:40]!r} is not a price between 0 and 1e12")
    return value


def _date(raw: object) -> str:
    if isinstance(raw, datetime):
        return raw.date().isoformat()
    if isinstance(raw, date):
        return raw.isoformat()
    return str(raw or "").strip()


def _rows_csv(raw: bytes, where: str) -> list[list]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuoteError(f"{where}: is not UTF-8 text (byte {exc.start})") from None
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    try:
        return [row for row in csv.reader(io.StringIO(text), dialect)]
    except csv.Error as exc:
        raise QuoteError(f"{where}: is not a readable CSV file ({exc})") from None


def _rows_xlsx(raw: bytes, where: str) -> list[list]:
    from openpyxl import load_workbook  # only an XLSX list needs it

    try:
        wb = load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises zipfile, KeyError, XML and its own errors on a broken file
        raise QuoteError(f"{where}: is not a readable XLSX workbook ({type(exc).__name__})") from None
    try:
        sheet = wb.worksheets[0]
        rows = []
        for row in sheet.iter_rows(values_only=True):
            rows.append(list(row))
            if len(rows) > MAX_ROWS + 1:
                break
        return rows
    finally:
        wb.close()


def parse_price_rows(rows: list[list], where: str, default_currency: str = "") -> tuple[PriceEntry, ...]:
    rows = [r for r in rows if any(c not in (None, "") and str(c).strip() for c in r)]
    if not rows:
        raise QuoteError(f"{where}: holds no rows")
    if len(rows) > MAX_ROWS + 1:
        raise QuoteError(f"{where}: has more than {MAX_ROWS:,} rows")
    cols = _columns(rows[0], where)
    entries: dict[str, PriceEntry] = {}
    for n, row in enumerate(rows[1:], start=2):
        at = f"{where}: row {n}"

        def cell(field: str) -> object:
            i = cols.get(field)
            return row[i] if i is not None and i < len(row) else None

        pn = str(cell("part_number") or "").strip()
        if not pn:
            raise QuoteError(f"{at}: no part number")
        currency = str(cell("currency") or default_currency or "").strip().upper()
        if not currency:
            raise QuoteError(f"{at}: no currency (add a currency column or give the list's currency)")
        entry = PriceEntry(part_number=pn, amount=_amount(cell("amount"), at), currency=currency,
                           date=_date(cell("date")), source=str(cell("source") or "").strip()[:200])
        try:
            check_price_entry(entry, at)
        except QuoteError as exc:
            raise QuoteError(str(exc).replace(f"{at}.", f"{at}: ", 1)) from None
        if part_key(pn) in entries:
            raise QuoteError(f"{at}: part number {pn!r} is listed twice")
        entries[part_key(pn)] = entry
    return tuple(entries.values())


def read_price_list(path: str | Path, default_currency: str = "") -> tuple[tuple[PriceEntry, ...], str]:
    """(the list's entries, its file name) from a CSV or XLSX file, read through the safe reader."""
    path = Path(path)
    raw = read_bytes(path, PRICE_LIST_LIMIT)
    where = path.name
    if raw[:2] == b"PK" or path.suffix.lower() in (".xlsx", ".xlsm"):
        rows = _rows_xlsx(raw, where)
    else:
        rows = _rows_csv(raw, where)
    return parse_price_rows(rows, where, default_currency), path.name
