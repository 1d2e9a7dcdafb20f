"""A user's price list (CSV or XLSX): part number -> price, currency and date, overriding catalog prices.

The first row names the columns; names are matched loosely ("Part number", "PN", "SKU";
"Price", "Unit price", "List price"; "Currency"; "Date", "Price date"; "Source", "Note"; and, for the seller,
"Cost" beside a price column (what a unit costs the seller: the appendix's margins) and "Seller part number"
(the seller's number for a part the vendor gives none).
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

from ..quote_settings import PriceEntry, QuoteError, check_price_entry, part_key

#: Largest price list read (a distributor's whole list is a few MB).
PRICE_LIST_LIMIT = 32 * 1024 * 1024
MAX_ROWS = 100_000
COLUMNS = {
    "part_number": ("part number", "part no", "pn", "sku", "ordering part number", "opn", "part", "catalog id"),
    "amount": ("price", "unit price", "list price", "unit list price", "amount", "cost"),
    "currency": ("currency", "cur", "ccy"),
    "date": ("date", "price date", "as of", "valid from"),
    "source": ("source", "note", "notes", "quote", "reference"),
    # what a unit costs the seller (the appendix's margins): a "Cost" column beside a price column, or by name
    "cost": ("cost", "unit cost", "buy price", "purchase price", "our cost", "net cost"),
    # the seller's own number for a part the vendor gives none (a service, a generic cord)
    "seller_part_number": ("seller part number", "seller sku", "our part number", "our sku", "reseller part number",
                           "seller pn"),
}


def _norm(header: object) -> str:
    return re.sub(r"[^a-z0-9]+", " ", str(header or "").lower()).strip()


def _columns(header: list, where: str) -> dict[str, int]:
    names = [_norm(h) for h in header]
    found: dict[str, int] = {}
    for field, aliases in COLUMNS.items():
        # the first alias any column carries wins: "Part number" before a "Part" column beside it; a column is one
        # field's ("Cost" alone is the price, as lists of costs have always been read; beside a price, the cost)
        for alias in (field.replace("_", " "), *aliases):
            if alias in names and names.index(alias) not in found.values():
                found[field] = names.index(alias)
                break
    for need in ("part_number", "amount"):
        if need not in found:
            raise QuoteError(f"{where} names no {need.replace('_', ' ')} column (columns: "
                             f"{', '.join(str(h) for h in header if h not in (None, '')) or 'none'})")
    return found


#: currency symbols a price cell may carry, and the codes each may stand for
SYMBOLS = {"$": None, "€": {"EUR"}, "£": {"GBP"}, "¥": {"JPY", "CNY"}}
_THOUSANDS = re.compile(r"^\d{1,3}(,\d{3})+(\.\d+)?$")  # 480,000.00
_EURO_THOUSANDS = re.compile(r"^\d{1,3}(\.\d{3})+(,\d+)?$")  # 480.000,00
_DECIMAL_COMMA = re.compile(r"^\d+,\d{1,2}$")  # 1234,50


def _plain_number(text: str, where: str, raw: object) -> str:
    """A price written with thousands separators or a decimal comma, as Python reads numbers.

    Only unambiguous forms are taken: 480,000.00 and 480.000,00 and 1234,50; anything else with
    a comma (1,2345) is refused rather than guessed, since a wrong guess is off by 100 or 1,000.
    """
    if "," not in text:
        return text
    if _THOUSANDS.match(text):
        return text.replace(",", "")
    if _EURO_THOUSANDS.match(text):
        return text.replace(".", "").replace(",", ".")
    if _DECIMAL_COMMA.match(text):
        return text.replace(",", ".")
    raise QuoteError(f"{where}: price {str(raw)[:40]!r} is ambiguous: write it as 1234.50 or 1,234.50")


def _amount(raw: object, where: str, currency: str) -> float:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        raise QuoteError(f"{where}: no price")
    if isinstance(raw, bool):
        raise QuoteError(f"{where}: price {raw!r} is not a number")
    if isinstance(raw, (int, float)):
        try:
            value = float(raw)
        except OverflowError:
            raise QuoteError(f"{where}: price of {len(str(abs(raw)))} digits is not a price") from None
    else:
        text = str(raw).strip().replace(" ", "").replace("\u00a0", "")
        if len(text) > 40:
            raise QuoteError(f"{where}: price {text[:20]!r}… is not a number")
        for symbol, codes in SYMBOLS.items():
            if symbol in text:
                if codes is not None and currency not in codes or codes is None and not currency.endswith("D"):
                    raise QuoteError(f"{where}: price {text!r} is marked {symbol} but its currency is {currency}")
                text = text.replace(symbol, "")
        text = _plain_number(text, where, raw)
        try:
            value = float(text)
        except ValueError:
            raise QuoteError(f"{where}: price {str(raw)[:40]!r} is not a number") from None
    if not math.isfinite(value) or value < 0 or value > 1e12:
        raise QuoteError(f"{where}: price {str(raw)[:40]!r} is not a price between 0 and 1e12")
    return value + 0.0  # -0.0 is 0.0


def _date(raw: object) -> str:
    if isinstance(raw, datetime):
        return raw.date().isoformat()
    if isinstance(raw, date):
        return raw.isoformat()
    return str(raw or "").strip()


def _rows_csv(raw: bytes, where: str) -> list[tuple[int, list]]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuoteError(f"{where}: is not UTF-8 text (byte {exc.start})") from None
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    try:
        return [(reader.line_num, row) for reader in [csv.reader(io.StringIO(text), dialect)] for row in reader]
    except csv.Error as exc:
        raise QuoteError(f"{where}: is not a readable CSV file ({exc})") from None


#: Most an XLSX price list may unpack to: its size limit guards the zip, not what it inflates to.
XLSX_UNPACKED_LIMIT = 256 * 1024 * 1024


def _rows_xlsx(raw: bytes, where: str) -> tuple[list[tuple[int, list]], str]:
    """The first sheet's rows, and the sheet's name (errors name it: a workbook may hold several)."""
    import zipfile

    from openpyxl import load_workbook  # only an XLSX list needs it

    try:
        unpacked = sum(info.file_size for info in zipfile.ZipFile(io.BytesIO(raw)).infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        raise QuoteError(f"{where}: is not a readable XLSX workbook (not a zip archive)") from None
    if unpacked > XLSX_UNPACKED_LIMIT:
        raise QuoteError(f"{where}: unpacks to {unpacked / 2**20:,.0f} MB, more than a price list "
                         f"needs (at most {XLSX_UNPACKED_LIMIT // 2**20} MB)")
    try:
        wb = load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises zipfile, KeyError, XML and its own errors on a broken file
        raise QuoteError(f"{where}: is not a readable XLSX workbook ({type(exc).__name__})") from None
    try:
        # read-only workbooks parse the sheet lazily: a damaged sheet fails here, not in load_workbook
        sheet = wb.worksheets[0]
        rows = []
        for n, row in enumerate(sheet.iter_rows(values_only=True), start=1):
            rows.append((n, list(row)))
            if len(rows) > MAX_ROWS + 1:
                break
        return rows, sheet.title
    except Exception as exc:
        raise QuoteError(f"{where}: is not a readable XLSX workbook ({type(exc).__name__})") from None
    finally:
        wb.close()


def parse_price_rows(rows: list[tuple[int, list]], where: str, default_currency: str = "",
                     rows_of: dict[str, int] | None = None) -> tuple[PriceEntry, ...]:
    """``rows``: (row number in the file, cells); blank rows are skipped, errors name the file's row.
    ``rows_of``, when given, is filled with each entry's row (by :func:`part_key`), for saying which rows
    match nothing."""
    rows = [(n, r) for n, r in rows if any(c not in (None, "") and str(c).strip() for c in r)]
    if not rows:
        raise QuoteError(f"{where}: holds no rows")
    if len(rows) > MAX_ROWS + 1:
        raise QuoteError(f"{where}: has more than {MAX_ROWS:,} rows")
    first, header = rows[0]
    cols = _columns(header, f"{where}: row {first}")
    entries: dict[str, PriceEntry] = {}
    for n, row in rows[1:]:
        at = f"{where}: row {n}"

        def cell(field: str, row: list = row) -> object:
            i = cols.get(field)
            return row[i] if i is not None and i < len(row) else None

        pn = str(cell("part_number") or "").strip()
        if not pn:
            raise QuoteError(f"{at}: no part number")
        currency = str(cell("currency") or default_currency or "").strip().upper()
        if not currency:
            raise QuoteError(f"{at}: no currency (add a currency column)")
        cost = cell("cost")
        if cost is not None and not str(cost).strip():
            cost = None
        entry = PriceEntry(part_number=pn, amount=_amount(cell("amount"), at, currency), currency=currency,
                           date=_date(cell("date")), source=str(cell("source") or "").strip()[:200],
                           cost=None if cost is None else _amount(cost, f"{at}, cost", currency),
                           seller_part_number=str(cell("seller_part_number") or "").strip()[:200])
        try:
            check_price_entry(entry, at)
        except QuoteError as exc:
            raise QuoteError(str(exc).replace(f"{at}.", f"{at}: ", 1)) from None
        if part_key(pn) in entries:
            raise QuoteError(f"{at}: part number {pn!r} is listed twice")
        entries[part_key(pn)] = entry
        if rows_of is not None:
            rows_of[part_key(pn)] = n
    return tuple(entries.values())


def read_price_list(path: str | Path, default_currency: str = "",
                    rows_of: dict[str, int] | None = None) -> tuple[tuple[PriceEntry, ...], str]:
    """(the list's entries, its file name) from a CSV or XLSX file, read through the safe reader; ``rows_of``:
    see :func:`parse_price_rows`."""
    path = Path(path)
    raw = read_bytes(path, PRICE_LIST_LIMIT)
    where = path.name
    if raw[:2] == b"PK" or path.suffix.lower() in (".xlsx", ".xlsm"):
        rows, sheet = _rows_xlsx(raw, where)
        where = f"{where}, sheet {sheet}"
    else:
        rows = _rows_csv(raw, where)
    return parse_price_rows(rows, where, default_currency, rows_of), path.name
