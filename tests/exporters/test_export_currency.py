"""--currency and --exchange-rate: a price list in EUR on a USD quote, converted at a stated rate and date, and
the rate printed on the customer's PDF, the appendix and the workbook; bad rates exit 2 naming the flag."""
from __future__ import annotations

import openpyxl
import pytest
from pypdf import PdfReader

from designer.cli import main
from designer.samples import DGX_B200_SU
from exporters import cli as export_command

RATE_TEXT = "1 EUR = 1.085 USD (2026-12-01)"


def run(capsys, *args):
    code = main(list(args), commands=[export_command])
    out = capsys.readouterr()
    return code, out.out, out.err


def _text(path) -> str:
    return " ".join(" ".join(p.extract_text().split()) for p in PdfReader(str(path)).pages)


@pytest.fixture()
def eur_list(tmp_path):
    path = tmp_path / "eur.csv"
    path.write_text("part_number,price,currency,date\ndgx-b200,450000,EUR,2026-11-01\n")
    return path


def test_a_euro_price_list_on_a_dollar_quote_is_converted_and_stated(capsys, tmp_path, eur_list):
    pdf, appendix, xlsx = tmp_path / "q.pdf", tmp_path / "a.pdf", tmp_path / "q.xlsx"
    code, out, err = run(capsys, "export", str(DGX_B200_SU), "--pdf", str(pdf), "--pdf-appendix", str(appendix),
                         "--xlsx", str(xlsx), "--prices", str(eur_list), "--exchange-rate", "eur=1.085@2026-12-01")
    assert code == 0, err
    sentence = f"Prices in EUR are converted to USD at {RATE_TEXT}, on 1 line of the bill."
    customer = _text(pdf)
    assert sentence in customer
    # the terms say so too, and no longer that nothing is converted
    assert "not converted" not in customer
    assert "488,250.00" in customer  # 450,000 EUR at 1.085
    assert f"prices in other currencies converted at {RATE_TEXT}" in _text(appendix)
    cells = [c for ws in openpyxl.load_workbook(xlsx, data_only=True) for row in ws.iter_rows(values_only=True)
             for c in row if isinstance(c, str)]
    assert sentence in cells


def test_the_quote_currency_from_the_command_line(capsys, tmp_path):
    pdf = tmp_path / "q.pdf"
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--pdf", str(pdf), "--currency", "eur",
                       "--exchange-rate", "USD=0.92@2026-12-01")
    assert code == 0, err
    text = _text(pdf)
    assert "All prices are in EUR" in text and "1 USD = 0.92 EUR (2026-12-01)" in text


@pytest.mark.parametrize("args, message", [
    (["--currency", "EURO"], "--currency: currency: 'EURO' is not an ISO 4217 code"),
    (["--exchange-rate", "EUR:1.1"], "--exchange-rate: 'EUR:1.1' is not CUR=RATE@DATE"),
    (["--exchange-rate", "EUR=x@2026-12-01"], "--exchange-rate: 'x' is not a number"),
    (["--exchange-rate", "EUR=1.1@2026-13-01"], "--exchange-rate.date: '2026-13-01' is not a date"),
    (["--exchange-rate", "USD=1.1@2026-12-01"], "converts USD to itself"),
    (["--exchange-rate", "EUR=-1@2026-12-01"], "--exchange-rate.rate: must be between"),
])
def test_bad_currency_flags_exit_2_naming_the_flag(capsys, tmp_path, args, message):
    out = tmp_path / "q.pdf"
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--pdf", str(out), *args)
    assert code == 2 and message in err and not out.exists()


def test_currency_flags_need_a_quote_format(capsys, tmp_path):
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--svg", str(tmp_path / "p.svg"), "--currency", "EUR")
    assert code == 2 and "--currency applies to the quote" in err


def test_a_sellers_list_puts_its_part_numbers_on_the_quote_and_its_margins_in_the_appendix_only(capsys, tmp_path):
    prices = tmp_path / "acme.csv"
    prices.write_text("Part number,List price,Cost,Currency,Date,Seller part number\n"
                      "service-install-dgx,22000,15000,USD,2026-11-20,ACME-SVC-DGX-INST\n"
                      "mgmt-node,26000,,USD,2026-11-20,ACME-MGMT-2U\n")
    pdf, appendix, xlsx = tmp_path / "q.pdf", tmp_path / "a.pdf", tmp_path / "q.xlsx"
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--pdf", str(pdf), "--pdf-appendix", str(appendix),
                       "--xlsx", str(xlsx), "--prices", str(prices))
    assert code == 0, err
    customer, internal = _text(pdf), _text(appendix)
    assert "ACME-SVC-DGX-INST" in customer and "ACME-MGMT-2U" in customer
    # 31 DGX systems at 22,000 net and 15,000 cost: 217,000.00 of margin, 31.8 %
    assert "Services 1 of 1 682,000.00 465,000.00 217,000.00 31.8 %" in internal
    assert "Lines with the smallest margin" in internal
    for text in ("465,000.00", "Margin", "31.8 %"):
        assert text not in customer
    cells = [c for ws in openpyxl.load_workbook(xlsx) for row in ws.iter_rows(values_only=True) for c in row]
    assert 465000 not in cells and 15000 not in cells and "ACME-SVC-DGX-INST" in cells


def test_an_uplift_is_a_negative_discount_and_every_copy_calls_it_one(capsys, tmp_path):
    pdf, appendix = tmp_path / "q.pdf", tmp_path / "a.pdf"
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--pdf", str(pdf), "--pdf-appendix", str(appendix),
                       "--section-discount", "services=-10", "--section-discount", "network=4")
    assert code == 0, err
    customer, internal = _text(pdf), _text(appendix)
    # the services section: 31 installations at 25,000.00 list, 10 % over it (and 4 % off networking)
    assert "Uplift 10 % on Services USD 77,500.00" in customer
    # 77,500.00 over list on services, 45,640.00 off it on networking: 31,860.00 over list in all
    assert ("The net total of USD 23,823,422.00 is after discounts and uplifts, USD 31,860.00 over list in all"
            in customer)
    assert "Discount 4 % on Networking" in customer
    assert "Price adjustments on list: Networking discount 4 %, Services uplift 10 %." in internal
