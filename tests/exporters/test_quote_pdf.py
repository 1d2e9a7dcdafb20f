"""The quote PDFs, the customer's copy and the internal technical appendix: written from one analysis, read back
with pypdf and rendered with pypdfium2.

Every figure is compared with the bill as the analysis holds it, formatted the way a
customer reads it ("USD 1,081,000.00"), so a total that drifts from the bill, a lost
section or a price printed as zero fails here.
"""
from __future__ import annotations

import dataclasses
import json
import re
from datetime import date
from types import MappingProxyType

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader

from catalog import load_catalog
from catalog.registry import DATA_DIR
from designer.analysis import analyze
from designer.fileformat import load
from designer.findings import Finding
from designer.model import MountedDevice
from designer.samples import DGX_B200_SU, GB200_NVL72_SU
from designer.views import ViewError
from exporters.base import ExportError
from exporters.quote_pdf import derived_quote_number, write_appendix_pdf, write_quote_pdf

CUSTOMER = "Acme AI Labs & Partners <EU>"
QUOTE_NUMBER = "QT-2026-0042"


def usd(x: float) -> str:
    return f"USD {x:,.2f}"


def unpriced_lines(analysis) -> list:
    return [ln for sec in analysis.bom.sections for ln in sec.lines if ln.unit_price is None]


def lines_word(n: int) -> str:
    return f"{n} unpriced line{'s' if n != 1 else ''}"


def pages_text(path) -> list[str]:
    return [p.extract_text() for p in PdfReader(str(path)).pages]


def quoted(catalog, sample=DGX_B200_SU, **quote):
    project = load(sample, catalog)
    return analyze(project.with_quote(project.quote.updated(**quote)), catalog)


@pytest.fixture(scope="module")
def analysis(catalog):
    return quoted(catalog, customer=CUSTOMER, prepared_by="Jane Doe, Solutions Engineering",
                  quote_number=QUOTE_NUMBER, quote_date="2026-11-20", validity_days=45,
                  discounts={"network": 12.5, "compute": 5})


@pytest.fixture(scope="module")
def written(analysis, tmp_path_factory):
    path = tmp_path_factory.mktemp("quote") / "quote.pdf"
    account = write_quote_pdf(analysis, path)
    return path, account, pages_text(path)


@pytest.fixture(scope="module")
def appendix(analysis, tmp_path_factory):
    path = tmp_path_factory.mktemp("appendix") / "appendix.pdf"
    account = write_appendix_pdf(analysis, path)
    return path, account, pages_text(path)


def toc_checks(path, pages, checks: dict[str, str]) -> None:
    """Each title is in the contents with the page its chapter opens on."""
    toc = pages[1]
    assert "Contents" in toc
    for title, opening in checks.items():
        # the dotted leader and the page number are drawn when the entry is: pypdf may read them before it
        m = (re.search(r"^" + re.escape(title) + r"[ .]+(\d+)\s*$", toc, re.M)
             or re.search(r"[ .]+ (\d+)\n" + re.escape(title) + r"\s*$", toc, re.M))
        assert m, title
        assert opening in pages[int(m.group(1)) - 1], title


def test_account_names_lines_and_pages(analysis, written):
    path, account, pages = written
    assert account == f"{analysis.bom.lines} lines, {len(pages)} pages"
    assert path.read_bytes().startswith(b"%PDF-")
    assert [p.name for p in path.parent.iterdir()] == ["quote.pdf"]  # the atomic writer left no temporary file


def test_cover_names_customer_quote_and_dates(written):
    _, _, pages = written
    cover = pages[0]
    assert CUSTOMER in cover and QUOTE_NUMBER in cover and "Jane Doe, Solutions Engineering" in cover
    assert "20 November 2026" in cover and "4 January 2027" in cover  # 45 days of validity
    assert "USD" in cover


def test_every_page_has_header_and_page_n_of_m(written):
    _, _, pages = written
    n = len(pages)
    for i, text in enumerate(pages, 1):
        assert f"Page {i} of {n}" in text
        assert "Prices in USD, excluding tax and shipping" in text and "Valid until 4 January 2027" in text
        if i > 1:
            assert f"Quote {QUOTE_NUMBER}" in text and "DGX B200 SuperPOD - 1 scalable unit" in text


def test_every_section_title_with_its_subtotals(analysis, written):
    _, _, pages = written
    text = "\n".join(pages)
    bom = analysis.bom
    assert len(bom.sections) == 8  # every section but cooling: the sample is air-cooled
    for sec in bom.sections:
        assert f"{sec.title} subtotal" in text
        assert usd(sec.subtotal) in text
    network = next(s for s in bom.sections if s.section == "network")
    assert network.discount_percent == 12.5 and network.discount > 0
    assert "Networking at list price" in text and usd(network.list_subtotal) in text
    assert "Discount 12.5 % on Networking" in text and "−" + usd(network.discount) in text


def test_grand_total_is_the_bills_total(analysis, written):
    _, _, pages = written
    bom = analysis.bom
    assert bom.discount_total > 0
    totals = next(t for t in pages if "Total at list price" in t and "Bill of materials" not in t[:200]
                  and "Totals" in t)
    n = len(unpriced_lines(analysis))
    assert re.search(r"Total \(net\), excluding " + lines_word(n) + r"\s*" + re.escape(usd(bom.price_total)), totals)
    assert usd(bom.list_total) in totals and "−" + usd(bom.discount_total) in totals
    assert usd(bom.price_total) in pages[0]  # on the cover too
    assert round(sum(s.subtotal for s in bom.sections), 2) == bom.price_total


def test_part_numbers_and_lines_are_printed(analysis, written):
    _, _, pages = written
    text = "\n".join(pages)
    lines = [ln for sec in analysis.bom.sections for ln in sec.lines]
    part_numbers = {ln.part_number for ln in lines if ln.part_number}
    assert len(part_numbers) >= 10
    for pn in part_numbers:
        assert pn in text, pn
    dgx = next(ln for ln in lines if ln.id == "dgx-b200")
    # a discounted line shows its list price, the net unit under it, and the extended net price
    assert dgx.discount_percent == 5.0
    assert f"{dgx.unit_price:,.2f}" in text and f"net {dgx.net_unit_price:,.2f}" in text
    assert f"{dgx.extended_price:,.2f}" in text


def test_unpriced_line_says_no_price_and_totals_exclude_it(analysis, written):
    _, _, pages = written
    # the sample's UFM licence has no published price
    unpriced = unpriced_lines(analysis)
    assert "NVIDIA UFM Enterprise licence and support" in [ln.description for ln in unpriced]
    for sec in analysis.bom.sections:
        if sec.unpriced:
            page = next(t for t in pages if f"{sec.title} subtotal" in t)
            assert page.count("no price") >= 2 * sec.unpriced  # its unit price and its extended price
            assert f"excludes {lines_word(sec.unpriced)}" in page
    assert sum(s.unpriced for s in analysis.bom.sections) == len(unpriced)


def test_indicative_and_stale_prices_are_marked_with_a_legend(written):
    _, _, pages = written
    text = "\n".join(pages)
    assert "† indicative: press, third-party or planning estimate" in text
    assert re.search(r"[\d,]+\.\d\d†", text)
    assert "‡ price older than 365 days" in text


def test_table_of_contents_lists_chapters_with_their_pages(written, appendix):
    path, _, pages = written
    toc_checks(path, pages, {"Executive summary": "is a design of 248 GPUs", "Floor plan": "Scale 1:",
                             "Rack elevations": "distinct build", "Bill of materials": "Unit price is the list price",
                             "Terms and acceptance": "This quotation is valid for 45 days"})
    outline = [item.title for item in PdfReader(str(path)).outline if not isinstance(item, list)]
    assert outline == ["Executive summary", "Floor plan", "Rack elevations", "Bill of materials",
                       "Terms and acceptance"]
    path, _, pages = appendix
    toc_checks(path, pages, {"Technical summary": "is a design of 248 GPUs",
                             "Cost of ownership": "Straight-line cost of ownership",
                             "Power, cooling, fabric and storage": "Power",
                             "Findings": "The design checks report", "Assumptions and sources": "Quote assumptions"})
    outline = [item.title for item in PdfReader(str(path)).outline if not isinstance(item, list)]
    assert outline == ["Technical summary", "Cost of ownership", "Power, cooling, fabric and storage", "Findings",
                       "Assumptions and sources"]


def test_every_font_is_embedded_vera(written):
    path, _, _ = written
    reader = PdfReader(str(path))
    names = set()

    def check(fonts):
        for ref in fonts.values():
            font = ref.get_object()
            names.add(str(font["/BaseFont"]))
            descriptor = font.get("/FontDescriptor")
            if descriptor is None and "/DescendantFonts" in font:
                descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
            assert descriptor is not None, font["/BaseFont"]
            assert "/FontFile2" in descriptor.get_object(), font["/BaseFont"]

    def walk(resources):
        resources = resources.get_object() if resources is not None else {}
        if "/Font" in resources:
            check(resources["/Font"].get_object())
        for xobj in (resources.get("/XObject") or {}).values():
            xobj = xobj.get_object()
            if xobj.get("/Subtype") == "/Form":
                walk(xobj.get("/Resources"))

    for page in reader.pages:
        walk(page.get("/Resources"))
    assert names and all("Vera" in n for n in names), names


def test_pages_render_with_content(written):
    path, _, pages = written
    bom_page = next(i for i, t in enumerate(pages) if "Optics and cables" in t and "Part number" in t)
    pdf = pdfium.PdfDocument(str(path))
    try:
        for index in (0, 3, bom_page):
            image = pdf[index].render(scale=100 / 72).to_pil().convert("L")
            w, h = image.size
            # the content area, inside the margins, header and footer
            content = image.crop((int(w * 0.08), int(h * 0.1), int(w * 0.92), int(h * 0.88)))
            dark = sum(content.histogram()[:160])
            assert dark > 0.01 * content.width * content.height, index
    finally:
        pdf.close()


def test_rack_builds_share_one_elevation(written):
    _, _, pages = written
    text = "\n".join(pages)
    assert "23 racks in 9 distinct builds" in text
    assert "Build 1  × 15 racks" in text and "e.g. SU01-01, SU01-02, SU01-03 …" in text


def test_cost_of_ownership_inputs_and_results(analysis, appendix):
    _, _, pages = appendix
    cost = analysis.cost
    page = next(t for t in pages if "Straight-line cost of ownership" in t)
    for name, amount in (("capital", cost.capital), ("depreciation", cost.depreciation_per_year),
                         ("energy", cost.energy_per_year), ("yearly", cost.yearly_cost),
                         ("total", cost.total_over_period)):
        assert usd(amount) in page, name
    assert usd(cost.cost_per_gpu_hour) in page and usd(cost.cost_per_million_tokens) in page
    assert f"{cost.energy_kwh_per_year:,.0f} kWh × USD 0.10/kWh" in page
    for assumption in cost.assumptions:
        assert assumption[:1].upper() + assumption[1:40] in page


def test_sources_cite_the_catalog_with_unconfirmed_marked(analysis, appendix):
    _, _, pages = appendix
    text = "\n".join(pages)
    src = analysis.catalog.sources[analysis.catalog.get("dgx-b200").figure("price.amount").source]
    assert src.title in text
    assert "unconfirmed" in text and "References" in text


def test_exclusions_and_caveats_of_the_bill_are_printed(analysis, written, appendix):
    """The customer reads what the quote leaves out; the appendix also holds the notes its figures rest on."""
    text = re.sub(r"\s+", " ", "\n".join(written[2]))
    assert "Not included" in text
    for line in analysis.bom.exclusions:
        assert line in text
    text = re.sub(r"\s+", " ", "\n".join(appendix[2]))
    assert "Not included" in text
    for line in analysis.bom.exclusions + analysis.bom.notes:
        assert line in text


def test_derived_quote_number_and_fallbacks(catalog, tmp_path):
    assert derived_quote_number("DGX B200 SuperPOD - 1 scalable unit", date(2026, 12, 3)) == "Q-20261203-DGXB200S1SU"
    a = quoted(catalog, quote_date="2026-03-16")
    path = tmp_path / "q.pdf"
    write_quote_pdf(a, path)
    cover = pages_text(path)[0]
    assert "Q-20260316-DGXB200S1SU" in cover and "derived from the project name and date" in cover
    assert "To be confirmed" in cover and "15 April 2026" in cover  # 30 days after 16 March


def test_a_section_without_any_price_says_so(tmp_path):
    # a user catalog that overrides the rack with the same entry less its price
    rack = json.loads((DATA_DIR / "racks" / "rack-48u-600x1200.json").read_text(encoding="utf-8"))
    del rack["price"]
    folder = tmp_path / "user"
    folder.mkdir()
    (folder / "rack.json").write_text(json.dumps(rack), encoding="utf-8")
    catalog = load_catalog([folder])
    a = analyze(load(GB200_NVL72_SU, catalog), catalog)
    racks = next(s for s in a.bom.sections if s.section == "racks")
    assert racks.unpriced == len(racks.lines) >= 1 and racks.subtotal == 0
    path = tmp_path / "q.pdf"
    write_quote_pdf(a, path)
    pages = pages_text(path)
    page = next(t for t in pages if "Racks and facility subtotal" in t)
    assert f"excludes {lines_word(racks.unpriced)}" in page and "USD 0.00" in page and "no price" in page
    assert f"excluding {lines_word(len(unpriced_lines(a)))}" in "\n".join(pages)


def test_findings_are_capped_with_a_count_of_the_rest(analysis, tmp_path):
    many = tuple(Finding("warning", "test", f"synthetic finding {i}", "project:bom") for i in range(230))
    path = tmp_path / "q.pdf"
    write_appendix_pdf(dataclasses.replace(analysis, findings=(Finding("error", "x", "the worst", "hall:hall-1"),)
                                           + many), path)
    text = "\n".join(pages_text(path))
    assert "1 error, 230 warnings" in text
    assert "synthetic finding 198" in text and "synthetic finding 199" not in text
    assert "31 more findings are not listed (31 warnings)" in text
    assert text.index("the worst") < text.index("synthetic finding 0")
    # the hall as the findings panel names it: its name says "hall" already
    findings = text[text.index("The design checks report"):]
    assert "Data hall 1" in findings and "hall:hall-1" not in text


@pytest.mark.parametrize("section, figure", [("power", "cooling_equipment_kw"), ("cooling", "air_cfm"),
                                             ("cost", "yearly_cost"), ("fabric", "transceivers")])
def test_a_figure_the_analysis_lacks_fails_instead_of_printing_zero(analysis, tmp_path, section, figure):
    """The quote once printed "Cooling equipment 0.0 kW" for a figure read under a misspelt key: read through the
    typed views, a figure an engine did not write stops the quote, naming the figure (the appendix prints them
    all)."""
    sections = dict(analysis.sections)
    sections[section] = {k: v for k, v in sections[section].items() if k != figure}
    with pytest.raises(ViewError, match=rf"{section}\.{figure}"):
        write_appendix_pdf(dataclasses.replace(analysis, sections=MappingProxyType(sections)), tmp_path / "q.pdf")
    assert not (tmp_path / "q.pdf").exists()


def test_an_analysis_without_its_project_cannot_be_quoted(analysis, tmp_path):
    with pytest.raises(ExportError, match="no design"):
        write_quote_pdf(dataclasses.replace(analysis, project=None), tmp_path / "q.pdf")
    assert not list(tmp_path.iterdir())


@pytest.fixture(scope="module")
def large(catalog, tmp_path_factory):
    from bench.designs import dgx_b200_project

    a = analyze(dgx_b200_project(), catalog)
    path = tmp_path_factory.mktemp("large") / "quote.pdf"
    write_quote_pdf(a, path)
    inside = path.with_name("appendix.pdf")
    write_appendix_pdf(a, inside)
    return a, path, pages_text(path), pages_text(inside)


def test_large_design_stays_a_readable_length(large):
    a, _, pages, inside = large
    assert a.summary.gpus >= 100_000
    assert 10 < len(pages) < 40 and 10 < len(inside) < 40
    text = "\n".join(pages)
    # the total's tile, too wide to the cent, in millions
    assert f"{a.bom.price_total / 1e6:,.1f}\nUSD million, total price (net)" in text
    assert usd(a.bom.price_total) in text
    builds = re.search(r"([\d,]+) racks in (\d+) distinct builds", text)
    assert builds and int(builds.group(1).replace(",", "")) == len(a.project.racks)


def test_a_table_that_spans_pages_repeats_its_header(large):
    _, _, _, pages = large
    # the per-row power table of the large design is longer than a page
    with_rows = [i for i, t in enumerate(pages) if "Racks in row" in t]
    assert len(with_rows) >= 2 and with_rows == list(range(with_rows[0], with_rows[0] + len(with_rows)))
    first, second = pages[with_rows[0]], pages[with_rows[1]]
    assert "By row of racks" in first and "By row of racks" not in second  # the header, not the heading
    assert "Typical (kW)" in second and "Maximum (kW)" in second


def test_undated_list_price_and_long_quote_number(catalog, tmp_path):
    from designer.quote_settings import PriceEntry

    a = quoted(catalog, quote_number="Q" * 120, prices=(PriceEntry("AR3307", 2400, "USD"),), price_list_name="p.csv")
    path = tmp_path / "undated.pdf"
    write_quote_pdf(a, path)
    text = re.sub(r"\s+", " ", "\n".join(pages_text(path)))
    assert "2,400.00§" in text and "§ undated price from price list p.csv" in text
    assert "§ price from a price list without a date" in text
    # the number is clipped on the cover, never drawn over the tagline
    assert "No. " + "Q" * 120 not in text and "…" in text


def test_an_empty_design_is_refused_like_the_workbook(catalog, tmp_path):
    from designer.model import Project

    with pytest.raises(ExportError, match="no lines"):
        write_quote_pdf(analyze(Project(), catalog), tmp_path / "empty.pdf")
    assert not (tmp_path / "empty.pdf").exists()


def test_findings_and_cdu_loops_name_racks_and_units_as_people_read_them(catalog, tmp_path):
    """Where a finding is, and a CDU loop's units, by name ("Rack R1", "CDU in rack SPINE-02"), never by id."""
    project = load(GB200_NVL72_SU, catalog)
    first, spine = project.rack("su01-01"), project.rack("spine-02")
    own_cdu = MountedDevice("spine-02-cdu", "cdu-inrack", 30.0, "front")
    project = project.with_racks([dataclasses.replace(first, name="R1", power_limit_kw=5.0),
                                  spine.with_device(own_cdu)])
    analysis = analyze(project, catalog)
    path = tmp_path / "q.pdf"
    write_quote_pdf(analysis, path)
    customer = "\n".join(pages_text(path))
    assert "su01-01" not in customer and "spine-02" not in customer
    write_appendix_pdf(analysis, path)
    pages = pages_text(path)
    text = "\n".join(pages)
    findings = text[text.index("The design checks report"):]
    over = next(f for f in analysis.findings if f.code == "rack-over-limit")
    assert over.where == "rack:su01-01"
    assert "Rack R1" in findings and over.message in findings.replace("\n", " ")
    assert "Bill of materials" in findings  # the bill's findings, not "project:bom"
    assert not re.search(r"\b(rack|floor|hall|project):[\w-]", text)  # no where-string anywhere
    assert "su01-01" not in text and "spine-02" not in text  # the ids, in lower case; names are upper
    loops = next(p for p in pages if "CDU loops" in p)
    assert "CDU in rack SPINE-02" in loops and "SU01 CDU-1, SU01 CDU-2" in loops


def test_lines_of_preliminary_parts_are_marked_and_the_reason_footnoted(tmp_path, catalog):
    project = load(GB200_NVL72_SU, catalog)
    racks = tuple(dataclasses.replace(r, devices=tuple(dataclasses.replace(d, type="vera-rubin-nvl72")
                                                       if d.type == "gb200-nvl72" else d for d in r.devices))
                  for r in project.racks)
    a = analyze(dataclasses.replace(project, racks=racks), catalog)
    path = tmp_path / "rubin.pdf"
    write_quote_pdf(a, path)
    text = "\n".join(pages_text(path))
    assert "NVIDIA Vera Rubin NVL72 ¶" in text
    assert "¶ part whose vendor calls its figures preliminary" in text
    why = catalog.get("vera-rubin-nvl72").preliminary
    assert f"¶ NVIDIA Vera Rubin NVL72: {why[:60]}" in " ".join(text.split())
    plain = tmp_path / "gb200.pdf"
    write_quote_pdf(analyze(project, catalog), plain)
    assert "¶" not in "\n".join(pages_text(plain))
