"""A quote's revision letter on the PDF and the workbook, and the PDF's page of changes since an earlier revision."""
from __future__ import annotations

import importlib
from dataclasses import replace

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader

from designer.analysis import analyze
from designer.cli import main
from designer.compare_bill import bill_changes
from designer.fileformat import load, save
from designer.formatting import money
from designer.quote_settings import PriceEntry
from designer.samples import DGX_B200_SU
from exporters import cli as export_command
from exporters.quote_pdf import write_quote_pdf

changes_page = importlib.import_module("exporters.quote_pdf.changes")  # (the package's ``changes`` is the chapter)

HEADING = "Changes since revision A"


def run(capsys, *args):
    code = main(list(args), commands=[export_command])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def revisions(catalog, tmp_path_factory):
    """Revision A of the sample without the Mission Control line, and revision B of it: one DGX rack fewer, NVIDIA
    AI Enterprise taken off, Mission Control put on, 7 % off networking and a price list for the SN5600."""
    folder = tmp_path_factory.mktemp("revisions")
    a = load(DGX_B200_SU, catalog)
    a = a.with_quote(a.quote.updated(excluded=("mission-control",), quote_number="Q-118"))
    b = a.removing_racks([r.id for r in a.racks if r.name == "SU01-16"])
    b = b.with_quote(b.quote.updated(revision="B", excluded=("nvaie",), discounts={"network": 7},
                                     prices=(PriceEntry("MSN5600-VS2FO", 52500.0, "USD", "2026-11-01", "Acme 4711"),)))
    pa, pb = folder / "a.podplan.json", folder / "b.podplan.json"
    save(a, pa)
    save(b, pb)
    return pa, pb, analyze(a, catalog), analyze(b, catalog)


def pages(path) -> list[str]:
    return [p.extract_text() for p in PdfReader(str(path)).pages]


def changes_pages(texts: list[str]) -> list[str]:
    """The pages of the changes chapter (the contents page names it too, and is left out)."""
    return [t for t in texts if HEADING in t and "Contents" not in t]


def test_the_pdf_lists_what_changed_since_the_earlier_revision_and_the_net_change(capsys, tmp_path, revisions):
    pa, pb, aa, ab = revisions
    pdf = tmp_path / "q.pdf"
    code, out, err = run(capsys, "export", str(pb), "--pdf", str(pdf), "--changes-since", str(pa))
    assert code == 0, err
    texts = pages(pdf)
    assert "supersedes revision A" in texts[0]
    found = changes_pages(texts)
    assert len(found) == 1
    page = found[0]
    ch = bill_changes(aa, ab)
    assert ch["added"] and ch["removed"] and ch["changed"] and ch["total_delta"] < 0
    # a line added, a line removed, a quantity that changed and the net change, as the bills hold them
    assert "Added" in page and "Mission Control" in page
    assert "Removed" in page and "NVIDIA AI Enterprise subscription" in page
    assert "NVIDIA DGX B200" in page and "was 31" in page
    assert "was 60,000.00" in page and "52,500.00" in page  # the SN5600's unit price from the price list
    assert money(ch["total_delta"], "USD") in page and "Net change" in page
    assert money(aa.bom.price_total, "USD") in page and money(ab.bom.price_total, "USD") in page
    removed = next(r for r in ch["removed"] if "AI Enterprise" in r["description"])
    assert money(-removed["extended_price"]) in page
    # after the priced bill, before the terms
    at = texts.index(page)
    assert any("Bill of materials" in t for t in texts[:at]) and "Terms and acceptance" in "".join(texts[at + 1:])


def test_the_revision_letter_is_on_the_cover_every_header_and_the_subject(capsys, tmp_path, revisions):
    _, pb, _, _ = revisions
    pdf, xlsx = tmp_path / "q.pdf", tmp_path / "q.xlsx"
    code, _, err = run(capsys, "export", str(pb), "--pdf", str(pdf), "--xlsx", str(xlsx))
    assert code == 0, err
    texts = pages(pdf)
    assert "No. Q-118 rev. B" in texts[0] and "Revision\nB" in texts[0]
    assert all("Quote Q-118 rev. B" in t for t in texts[1:])
    assert PdfReader(str(pdf)).metadata.subject == "Quotation Q-118 rev. B"
    assert not changes_pages(texts)  # no page of changes without an earlier revision
    summary = {row[0]: row[1] for row in load_workbook(xlsx).worksheets[0].iter_rows(values_only=True) if row[0]}
    assert summary["Quote number"] == "Q-118" and summary["Revision"] == "B"


def test_the_revision_flag_overrides_the_projects(capsys, tmp_path, revisions):
    _, pb, _, _ = revisions
    pdf = tmp_path / "q.pdf"
    code, _, err = run(capsys, "export", str(pb), "--pdf-appendix", str(pdf), "--revision", "AC")
    assert code == 0, err
    texts = pages(pdf)
    assert "No. Q-118 rev. AC" in texts[0] and "Appendix to quote Q-118 rev. AC" in texts[1]


def test_a_long_quote_number_is_cut_never_the_revision_after_it(capsys, tmp_path, revisions):
    _, pb, _, _ = revisions
    pdf = tmp_path / "q.pdf"
    code, _, err = run(capsys, "export", str(pb), "--pdf", str(pdf), "--quote-number", "Q" * 120)
    assert code == 0, err
    texts = pages(pdf)
    assert "… rev. B" in texts[0] and all("… rev. B" in t for t in texts[1:])


def test_the_appendix_carries_the_changes_page_too(capsys, tmp_path, revisions):
    pa, pb, _, _ = revisions
    pdf = tmp_path / "a.pdf"
    code, _, err = run(capsys, "export", str(pb), "--pdf-appendix", str(pdf), "--changes-since", str(pa))
    assert code == 0, err
    assert "NVIDIA AI Enterprise subscription" in changes_pages(pages(pdf))[0]


def test_a_design_against_itself_says_nothing_changed(capsys, tmp_path, revisions):
    pa, _, _, _ = revisions
    pdf = tmp_path / "q.pdf"
    code, _, err = run(capsys, "export", str(pa), "--pdf", str(pdf), "--changes-since", str(pa))
    assert code == 0, err
    page = changes_pages(pages(pdf))[0]
    assert "No line of the bill changed between revision A and revision A" in page and "Net change" not in page


def test_the_table_is_bounded_and_counts_what_it_leaves_out(monkeypatch, tmp_path, revisions):
    _, _, aa, ab = revisions
    ch = bill_changes(aa, ab)
    total = len(ch["added"]) + len(ch["removed"]) + len(ch["changed"])
    monkeypatch.setattr(changes_page, "MAX_ROWS", 5)
    pdf = tmp_path / "q.pdf"
    write_quote_pdf(ab, pdf, since=aa)
    page = changes_pages(pages(pdf))[0]
    assert f"… and {total - 5} more lines" in page
    assert page.count("Changed") + page.count("Added") + page.count("Removed") == 5
    assert money(ch["total_delta"], "USD") in page  # the net change is of every line, listed or not


def test_bills_in_two_currencies_are_compared_by_quantity_only(catalog, tmp_path, revisions):
    _, _, aa, _ = revisions
    # a project in euros with one part priced in euros: its bill is in euros (the rest not converted)
    eur = replace(load(DGX_B200_SU, catalog), currency="EUR")
    eur = eur.removing_racks([r.id for r in eur.racks if r.name == "SU01-16"])
    eur = eur.with_quote(eur.quote.updated(prices=(PriceEntry("DGXB-G1440+P1CMI36", 480000.0, "EUR"),)))
    b = analyze(eur, catalog)
    assert b.bom.currency == "EUR" and aa.bom.currency == "USD"
    pdf = tmp_path / "q.pdf"
    write_quote_pdf(b, pdf, since=aa)
    page = changes_pages(pages(pdf))[0]
    assert "Prices cannot be compared" in page and "was 31" in page and "Net change" not in page


@pytest.mark.parametrize("args, message", [
    (["--revision", "b"], "quote.revision: 'b' is not a revision letter"),
    (["--revision", "AAA"], "is not a revision letter (A to Z, then AA to ZZ)"),
    (["--changes-since", "missing.podplan.json"], "--changes-since: "),
])
def test_bad_revision_flags_exit_2_naming_what_is_wrong(capsys, tmp_path, args, message):
    pdf = tmp_path / "q.pdf"
    if args[0] == "--changes-since":
        args = [args[0], str(tmp_path / args[1])]
        message += str(tmp_path / "missing.podplan.json")
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--pdf", str(pdf), *args)
    assert code == 2 and message in err and not pdf.exists()


def test_an_invalid_earlier_design_exits_2_naming_the_file(capsys, tmp_path):
    bad = tmp_path / "old.podplan.json"
    bad.write_text('{"name": "no format"}')
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--pdf", str(tmp_path / "q.pdf"), "--changes-since",
                       str(bad))
    assert code == 2 and "--changes-since" in err and "old.podplan.json" in err


def test_changes_since_needs_a_quote_pdf(capsys, tmp_path):
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--xlsx", str(tmp_path / "q.xlsx"), "--changes-since",
                       str(DGX_B200_SU))
    assert code == 2 and "--changes-since applies to the quote PDF" in err
