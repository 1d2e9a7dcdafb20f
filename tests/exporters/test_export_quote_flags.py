"""The quote's number, validity and section discounts from the command line, as the window's quote edits set them."""
from __future__ import annotations

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader

from designer.cli import main
from designer.samples import DGX_B200_SU
from exporters import cli as export_command


def run(capsys, *args):
    code = main(list(args), commands=[export_command])
    out = capsys.readouterr()
    return code, out.out, out.err


def _summary(path) -> dict:
    ws = load_workbook(path).worksheets[0]
    return {row[0]: row[1] for row in ws.iter_rows(values_only=True) if row and row[0]}


def test_number_validity_and_section_discounts_reach_the_workbook_and_the_pdf(capsys, tmp_path):
    xlsx, pdf = tmp_path / "q.xlsx", tmp_path / "q.pdf"
    code, out, _ = run(capsys, "export", str(DGX_B200_SU), "--xlsx", str(xlsx), "--pdf", str(pdf),
                       "--quote-number", "Q-2026-118", "--valid-days", "45",
                       "--section-discount", "network=8", "--section-discount", "STORAGE=5")
    assert code == 0, out
    summary = _summary(xlsx)
    assert summary["Quote number"] == "Q-2026-118" and summary["Valid for (days)"] == 45
    text = "\n".join(p.extract_text() for p in PdfReader(str(pdf)).pages)
    assert "Q-2026-118" in text
    # the discounts are the bill's own: the sections' net subtotals carry them
    from catalog import load_catalog
    from designer.analysis import analyze
    from designer.commands import UpdateQuoteCommand
    from designer.fileformat import load

    catalog = load_catalog([])
    project = load(DGX_B200_SU, catalog)
    project = UpdateQuoteCommand({"discounts": {"network": 8, "storage": 5}}).apply(project, None)[0]
    bom = analyze(project, catalog).bom
    sections = {s.section: s for s in bom.sections}
    assert sections["network"].discount_percent == 8 and sections["storage"].discount_percent == 5
    assert f"{bom.price_total:,.2f}" in text


@pytest.mark.parametrize("args, message", [
    (["--valid-days", "0"], "--valid-days: '0' is not a whole number of days from 1 to 3650"),
    (["--valid-days", "4000"], "from 1 to 3650"),
    (["--section-discount", "gpus=5"], "--section-discount: 'gpus=5' is not SECTION=PCT"),
    (["--section-discount", "network=150"], "network: '150' is not a percentage from -100 to 100"),
    (["--discount", "-103"], "--discount: the whole quote: '-103' is not a percentage"),
    (["--discount", "8.0001"], "at most three decimals"),
    (["--section-discount", "network=nan"], "is not a percentage"),
    (["--quote-number", "  "], "--quote-number: give the quote's number"),
])
def test_bad_quote_flags_exit_2_naming_the_flag(capsys, tmp_path, args, message):
    out = tmp_path / "q.xlsx"
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--xlsx", str(out), *args)
    assert code == 2 and message in err and not out.exists()


def test_quote_flags_need_a_quote_format(capsys, tmp_path):
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--svg", str(tmp_path / "p.svg"), "--quote-number", "Q")
    assert code == 2 and "--quote-number applies to the quote" in err


def test_a_quote_settings_file_sets_the_quote_and_the_flags_override_it(capsys, tmp_path):
    settings = tmp_path / "quote.json"
    settings.write_text('{"quote": {"customer": "Acme AI", "quote_number": "Q-7", "validity_days": 60, '
                        '"discounts": {"compute": 4}}}')
    xlsx = tmp_path / "q.xlsx"
    code, out, _ = run(capsys, "export", str(DGX_B200_SU), "--xlsx", str(xlsx), "--quote-settings", str(settings),
                       "--valid-days", "21", "--section-discount", "network=8")
    assert code == 0, out
    summary = _summary(xlsx)
    assert (summary["Customer"], summary["Quote number"], summary["Valid for (days)"]) == ("Acme AI", "Q-7", 21)
    # the discounts the export applied: the file's for compute, the flag's for networking
    from argparse import Namespace

    from catalog import load_catalog
    from designer.fileformat import load
    from exporters.cli import _with_quote_flags

    args = Namespace(prices=None, customer=None, quote_number=None, valid_days="21",
                     section_discount=["network=8"], quote_settings=settings, seller=None, discount=None)
    quote = _with_quote_flags(load(DGX_B200_SU, load_catalog([])), args).quote
    assert quote.discount_map == {"compute": 4, "network": 8} and quote.validity_days == 21


@pytest.mark.parametrize("text, message", [
    ('{"quote": {"customer": "A", "colour": "red"}}', "quote.colour: is not a quote setting"),
    ('{"customer": "A", "customer": "B"}', "'customer' is given twice in one object"),
    ('{"validity_days": 0}', "quote.validity_days"),
    ("{not json", "not valid JSON"),
])
def test_a_bad_quote_settings_file_exits_2_naming_the_key(capsys, tmp_path, text, message):
    settings = tmp_path / "quote.json"
    settings.write_text(text)
    out = tmp_path / "q.xlsx"
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--xlsx", str(out), "--quote-settings", str(settings))
    assert code == 2 and message in err and not out.exists()


def test_price_list_rows_that_match_no_part_are_named_by_their_row(capsys, tmp_path):
    prices = tmp_path / "prices.csv"
    prices.write_text("part_number,price,currency\nDGXB-G1440+P1CMI36,480000,USD\nNOPE-123,5,USD\n\n"
                      "MFP7E10-N010,100,USD\nTYPO-9,1,USD\n")
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(tmp_path / "b.csv"), "--prices", str(prices))
    assert code == 0
    assert "2 rows of prices.csv match no part on the bill: row 3 (NOPE-123), row 6 (TYPO-9)" in err
    # a list whose every row prices a part says nothing
    prices.write_text("part_number,price,currency\nDGXB-G1440+P1CMI36,480000,USD\n")
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(tmp_path / "b.csv"), "--prices", str(prices))
    assert code == 0 and "match no part" not in err


def test_a_seller_file_sets_the_quotes_seller(capsys, tmp_path):
    from argparse import Namespace

    from catalog import load_catalog
    from designer.fileformat import load, loads, to_dict
    from exporters.cli import _with_quote_flags

    seller = tmp_path / "seller.json"
    seller.write_text('{"company": "Acme Systems GmbH", "address": "Hauptstr. 1\\n10115 Berlin", '
                      '"payment_terms": "30 days net", "incoterm": "DAP Berlin"}')
    args = Namespace(prices=None, customer=None, quote_number=None, valid_days=None, section_discount=None,
                     quote_settings=None, seller=seller, discount=None)
    catalog = load_catalog([])
    project = _with_quote_flags(load(DGX_B200_SU, catalog), args)
    s = project.quote.seller
    assert (s.company, s.address_lines()) == ("Acme Systems GmbH", ["Hauptstr. 1", "10115 Berlin"])
    assert s.terms == [("Payment terms", "30 days net"), ("Incoterm", "DAP Berlin")]
    # kept with the quote in the project file, and read back the same
    import json

    assert loads(json.dumps(to_dict(project)), catalog).quote.seller == s
    seller.write_text('{"company": "A", "fax": "1"}')
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--xlsx", str(tmp_path / "q.xlsx"), "--seller", str(seller))
    assert code == 2 and "seller.fax: is not a seller field" in err
    seller.write_text('{"company": "A", "logo": "logo.gif"}')
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--xlsx", str(tmp_path / "q.xlsx"), "--seller", str(seller))
    assert code == 2 and "is not a PNG, JPEG or SVG file" in err



def _png(path) -> None:
    """A 2 x 1 PNG, written by hand (no imaging library needed)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"\x00" + b"\x1f\x4e\x79" * 2
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 1, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_the_customer_quote_names_its_seller_terms_and_acceptance(capsys, tmp_path):
    """The issue's command: a customer PDF holding the seller's name and address, the payment terms and an
    acceptance block, and none of the internal material, which the appendix holds."""
    logo = tmp_path / "logo.png"
    _png(logo)
    seller = tmp_path / "seller.json"
    seller.write_text('{"company": "Acme Systems GmbH", "address": "Hauptstr. 1\\n10115 Berlin", '
                      '"email": "sales@acme.example", "tax_id": "DE123456789", "payment_terms": "30 days net", '
                      f'"incoterm": "DAP Berlin", "logo": "{logo}"}}')
    pdf, appendix = tmp_path / "q.pdf", tmp_path / "a.pdf"
    code, out, err = run(capsys, "export", str(DGX_B200_SU), "--pdf", str(pdf), "--pdf-appendix", str(appendix),
                         "--customer", "Example Labs", "--seller", str(seller), "--quote-number", "Q-1",
                         "--discount", "8")
    assert code == 0, err
    pages = [p.extract_text() for p in PdfReader(str(pdf)).pages]
    text = "\n".join(pages)
    assert "Acme Systems GmbH" in pages[0] and "10115 Berlin" in pages[0] and "DE123456789" in pages[0]
    assert all("Acme Systems GmbH" in p for p in pages)  # the footer's seller line, on every page
    assert "Payment terms: 30 days net." in text and "Incoterm: DAP Berlin." in text
    assert "Accepted for Example Labs" in text and "Q-1" in text and "Signature" in text
    assert "http" not in text and "Findings" not in text
    inside = "\n".join(p.extract_text() for p in PdfReader(str(appendix)).pages)
    assert "http" in inside and "Findings" in inside
    # the whole quote 8 % off: every section's discount, and the total 8 % under list
    from argparse import Namespace

    from catalog import load_catalog
    from designer.analysis import analyze
    from designer.fileformat import load
    from exporters.cli import _with_quote_flags

    catalog = load_catalog([])
    args = Namespace(prices=None, customer=None, quote_number=None, valid_days=None, section_discount=["compute=2"],
                     quote_settings=None, seller=None, discount="8")
    bom = analyze(_with_quote_flags(load(DGX_B200_SU, catalog), args), catalog).bom
    assert {s.section: s.discount_percent for s in bom.sections} == {s.section: (2 if s.section == "compute" else 8)
                                                                       for s in bom.sections}


def test_an_unreadable_logo_is_named(capsys, tmp_path):
    logo = tmp_path / "logo.png"
    logo.write_bytes(b"not a png")
    seller = tmp_path / "seller.json"
    seller.write_text(f'{{"company": "Acme", "logo": "{logo}"}}')
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--pdf", str(tmp_path / "q.pdf"), "--seller", str(seller))
    assert code == 2 and "the seller's logo" in err and "cannot be read as an image" in err
