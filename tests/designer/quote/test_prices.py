from __future__ import annotations

import os

import pytest
from openpyxl import Workbook

from catalog.files import FileReadError
from designer.quote.prices import read_price_list
from designer.quote.settings import PriceEntry, QuoteError


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_with_loose_column_names(tmp_path):
    path = write(tmp_path, "prices.csv", "\ufeffPart No.;Unit Price;Currency;Price date;Source\n"
                                         "DGXB-G1440+P1CMI36;\"480,000.00\";usd;2026-11-01;Quote 4711\n"
                                         "MFP7E10-N010;95;USD;;\n")
    entries, name = read_price_list(path)
    assert name == "prices.csv"
    assert entries == (PriceEntry("DGXB-G1440+P1CMI36", 480000.0, "USD", "2026-11-01", "Quote 4711"),
                       PriceEntry("MFP7E10-N010", 95.0, "USD", "", ""))


def test_xlsx_price_list_with_dates_as_cells(tmp_path):
    import datetime

    wb = Workbook()
    ws = wb.active
    ws.append(["SKU", "List price", "Date"])
    ws.append(["920-9B210-00FN-0M0", 28500, datetime.date(2026, 10, 5)])
    ws.append([None, None, None])
    wb.save(tmp_path / "list.xlsx")
    entries, _ = read_price_list(tmp_path / "list.xlsx", default_currency="EUR")
    assert entries == (PriceEntry("920-9B210-00FN-0M0", 28500.0, "EUR", "2026-10-05", ""),)


@pytest.mark.parametrize("text, message", [
    ("a,b\n1,2\n", "prices.csv: row 1 names no part number column (columns: a, b)"),
    ("pn,price,currency\nX,abc,USD\n", "prices.csv: row 2: price 'abc' is not a number"),
    ("pn,price,currency\nX,1e400,USD\n", "prices.csv: row 2: price '1e400' is not a price"),
    ("pn,price,currency\nX,-5,USD\n", "prices.csv: row 2: price '-5' is not a price"),
    ("pn,price,currency\nX,5,USD\nx,6,USD\n", "prices.csv: row 3: part number 'x' is listed twice"),
    ("pn,price\nX,5\n", "prices.csv: row 2: no currency"),
    ("pn,price,currency,date\nX,5,USD,yesterday\n", "prices.csv: row 2: date: 'yesterday' is not a date"),
    ("pn,price,currency\n,5,USD\n", "prices.csv: row 2: no part number"),
    ("\n\n", "prices.csv: holds no rows"),
    ("pn,price,currency\nX," + "9" * 5000 + ",USD\n", "prices.csv: row 2: price '99999999999999999999'… is not a number"),
])
def test_bad_price_lists_say_what_and_where(tmp_path, text, message):
    with pytest.raises(QuoteError) as exc:
        read_price_list(write(tmp_path, "prices.csv", text))
    assert str(exc.value).startswith(message)


def test_broken_xlsx_and_unreadable_files(tmp_path):
    (tmp_path / "broken.xlsx").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(QuoteError, match="broken.xlsx: is not a readable XLSX workbook"):
        read_price_list(tmp_path / "broken.xlsx")
    with pytest.raises(FileReadError):
        read_price_list(tmp_path / "missing.csv")
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(FileReadError):  # never blocks waiting for a writer
        read_price_list(fifo)
