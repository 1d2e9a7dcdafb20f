from __future__ import annotations

import os

import pytest
from openpyxl import Workbook

from catalog.files import FileReadError
from designer.quote.prices import read_price_list
from designer.quote_settings import PriceEntry, QuoteError


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
    ("pn,price,currency\nX," + "9" * 5000 + ",USD\n",
     "prices.csv: row 2: price '99999999999999999999'… is not a number"),
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


@pytest.mark.parametrize("cell, currency, amount", [
    ("480,000.00", "USD", 480000.0), ("480.000,00", "EUR", 480000.0), ("1234,50", "EUR", 1234.5),
    ("$1,500", "USD", 1500.0), ("€ 95,50", "EUR", 95.5), ("25000", "GBP", 25000.0),
])
def test_prices_in_the_forms_price_lists_use(tmp_path, cell, currency, amount):
    path = write(tmp_path, "p.csv", f'Part number;Price;Currency\nX;"{cell}";{currency}\n')
    assert read_price_list(path)[0][0].amount == amount


@pytest.mark.parametrize("cell, currency, message", [
    ("1,2345", "EUR", "price '1,2345' is ambiguous"),
    ("€100", "USD", "price '€100' is marked € but its currency is USD"),
    ("$100", "EUR", "price '$100' is marked $ but its currency is EUR"),
])
def test_a_price_that_could_be_misread_is_refused(tmp_path, cell, currency, message):
    path = write(tmp_path, "p.csv", f'Part number;Price;Currency\nX;"{cell}";{currency}\n')
    with pytest.raises(QuoteError, match=message.replace("$", r"\$")):
        read_price_list(path)


def test_part_number_column_wins_over_a_line_number_column(tmp_path):
    path = write(tmp_path, "p.csv", "Item,Part,Part number,Description,Unit price,Currency\n"
                                    "1,DGX,920-9B210-00FN-0M0,QM9700,25000,USD\n")
    assert read_price_list(path)[0][0].part_number == "920-9B210-00FN-0M0"


def test_errors_name_the_file_row_and_sheet(tmp_path):
    path = write(tmp_path, "p.csv", "pn,price,currency\n\nX,abc,USD\n")
    with pytest.raises(QuoteError, match="p.csv: row 3: price 'abc'"):
        read_price_list(path)
    wb = Workbook()
    wb.active.title = "Notes"
    wb.active.append(["Prices valid in December"])
    wb.save(tmp_path / "two.xlsx")
    with pytest.raises(QuoteError, match="two.xlsx, sheet Notes: row 1 names no part number column"):
        read_price_list(tmp_path / "two.xlsx")


def test_a_huge_number_or_a_zip_bomb_is_refused(tmp_path, monkeypatch):
    from designer.quote import prices

    with pytest.raises(QuoteError, match="price of 401 digits"):
        prices.parse_price_rows([(1, ["pn", "price", "currency"]), (2, ["X", 10 ** 400, "USD"])], "p.xlsx")
    wb = Workbook()
    wb.active.append(["pn", "price", "currency"])
    wb.active.append(["X", 1, "USD"])
    wb.save(tmp_path / "list.xlsx")
    monkeypatch.setattr(prices, "XLSX_UNPACKED_LIMIT", 1000)  # the real limit is 256 MB
    with pytest.raises(QuoteError, match="list.xlsx: unpacks to"):
        read_price_list(tmp_path / "list.xlsx")
