"""Two documents from one quote: the customer's copy (terms and an acceptance block, nothing internal) and the
internal technical appendix (findings, the training estimate, price sources and their dates), read back with pypdf.
"""
from __future__ import annotations

import re
from datetime import date

import pytest
from pypdf import PdfReader

from designer.analysis import analyze
from designer.cli import main
from designer.fileformat import load
from designer.quote_settings import PriceEntry
from designer.samples import DGX_B200_SU
from exporters import cli as export_command
from exporters.quote_pdf import write_appendix_pdf, write_quote_pdf
from exporters.registry import FORMATS

CUSTOMER = "Northwind Compute GmbH"


def words(path) -> str:
    """Every page's text, each run of white space as one space."""
    return " ".join(" ".join(p.extract_text().split()) for p in PdfReader(str(path)).pages)


def outline(path) -> list[str]:
    return [item.title for item in PdfReader(str(path)).outline if not isinstance(item, list)]


@pytest.fixture(scope="module")
def analysis(catalog):
    project = load(DGX_B200_SU, catalog)
    quote = project.quote.updated(customer=CUSTOMER, quote_number="Q-77", quote_date="2026-11-20", validity_days=45,
                                  prices=(PriceEntry("AR3307", 2400, "USD", "2026-10-01", "Rack reseller 12"),),
                                  price_list_name="prices.csv")
    return analyze(project.with_quote(quote), catalog)


@pytest.fixture(scope="module")
def customer(analysis, tmp_path_factory):
    path = tmp_path_factory.mktemp("split") / "quote.pdf"
    write_quote_pdf(analysis, path)
    return path, words(path)


@pytest.fixture(scope="module")
def internal(analysis, tmp_path_factory):
    path = tmp_path_factory.mktemp("split") / "appendix.pdf"
    account = write_appendix_pdf(analysis, path)
    return path, words(path), account


def test_the_customer_copy_holds_the_terms_and_the_acceptance_block(analysis, customer):
    _, text = customer
    assert "Terms and acceptance" in text
    assert "This quotation is valid for 45 days from its date (20 November 2026), until 4 January 2027." in text
    assert "All prices are in USD, excluding tax and shipping" in text
    assert f"quoted for a term of {analysis.bom.term_years} years" in text
    assert f"Accepted for {CUSTOMER}" in text
    assert f"By signing below, {CUSTOMER} accepts quotation Q-77 for USD {analysis.bom.price_total:,.2f}" in text
    block = text[text.index(f"Accepted for {CUSTOMER}"):]
    assert re.search(r"Name\s+Title\s+Date\s+Signature", block)
    for line in analysis.bom.exclusions:
        assert line in text


def test_the_customer_copy_leaves_out_what_is_internal(customer):
    path, text = customer
    assert "Findings" not in outline(path) and "The design checks report" not in text
    assert "training" not in text.lower()  # no training page, no training tile or figure
    assert "Checkpoints and failures" not in text and "Cost of ownership" not in text
    assert "http" not in text and "References" not in text and "Where prices and part numbers come from" not in text
    assert "blog" not in text


def test_the_customer_copy_keeps_the_priced_bill_with_part_numbers(analysis, customer):
    _, text = customer
    for sec in analysis.bom.sections:
        assert f"{sec.title} subtotal" in text
    for ln in (ln for sec in analysis.bom.sections for ln in sec.lines if ln.part_number):
        assert ln.part_number in text, ln.part_number
    assert f"USD {analysis.bom.price_total:,.2f}" in text


def test_without_a_customer_the_block_accepts_for_the_customer(catalog, tmp_path):
    path = tmp_path / "q.pdf"
    write_quote_pdf(analyze(load(DGX_B200_SU, catalog), catalog), path)
    text = words(path)
    assert "Accepted for the customer" in text and "By signing below, the customer accepts" in text


def test_the_appendix_holds_findings_training_and_dated_sources(analysis, internal):
    path, text, account = internal
    assert account == f"{len(analysis.findings)} findings, {len(PdfReader(str(path)).pages)} pages"
    assert outline(path) == ["Technical summary", "Cost of ownership", "Power, cooling, fabric and storage",
                             "Findings", "Assumptions and sources"]
    assert "The design checks report" in text
    training = analysis.training
    assert f"Training workload {training.model}" in text and "Checkpoints and failures" in text
    assert "Days to train" in text and "Failure rate: this design against the planning figure" in text
    assert "Where prices and part numbers come from" in text and "References" in text and "http" in text
    # a catalog price with its date and age on the quote's date; the price list's, likewise
    age = (date(2026, 11, 20) - date(2025, 3, 16)).days
    assert f"dated 16 March 2025, {age:,} days before the quote" in text
    assert "the price list loaded dated 1 October 2026, 50 days before the quote" in text
    assert "undated" in text  # a catalog price without a date says so


def test_the_appendix_is_a_format_with_its_own_flag():
    fmt = FORMATS["pdf-appendix"]
    assert fmt.flag == "--pdf-appendix" and fmt.suffix == ".pdf" and fmt.metavar == "OUT.pdf"
    assert list(FORMATS).index("pdf-appendix") == list(FORMATS).index("pdf") + 1


def test_export_writes_both_documents_in_one_run(capsys, tmp_path):
    q, a = tmp_path / "q.pdf", tmp_path / "a.pdf"
    code = main(["export", str(DGX_B200_SU), "--pdf", str(q), "--pdf-appendix", str(a), "--customer", CUSTOMER],
                commands=[export_command])
    out, _ = capsys.readouterr()
    assert code == 0 and f"wrote {q}" in out and f"wrote {a}" in out
    quote, appendix = words(q), words(a)
    assert f"Accepted for {CUSTOMER}" in quote and "The design checks report" not in quote
    assert "The design checks report" in appendix and CUSTOMER in appendix  # the customer's name on its cover too
    assert "Accepted for" not in appendix
