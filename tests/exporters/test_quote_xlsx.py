"""The quote workbook: read back with openpyxl, and its formulas evaluated with ``formulas``, as Excel would.

The totals a buyer sees are the workbook's own formulas, so they are checked by
computing them, against the analysis' bill to the cent, with and without discounts,
and after the buyer changes one section's discount cell.
"""
from __future__ import annotations

import os
import re

import formulas
import openpyxl
import pytest

from designer.analysis import analyze
from designer.commands import SetDiscountCommand
from designer.fileformat import load
from designer.model import Project
from designer.quote_settings import PriceEntry
from drawn import DGX_B200_SU, GB200_NVL72_SU
from exporters.base import ExportError
from exporters.quote_xlsx import COST, DISCOUNT_CELL, HEADER_ROW, LINE_COLUMNS, SUMMARY, sheet_name, \
    write_quote_xlsx

COL = {name: i for i, name in enumerate(LINE_COLUMNS)}
_KEY = re.compile(r"^'\[(?P<book>[^\]]+)\](?P<sheet>.+)'!(?P<cell>[A-Z]+[0-9]+)$")


class Evaluated:
    """The value every cell of a workbook computes to, as ``formulas`` evaluates it."""

    def __init__(self, path):
        solution = formulas.ExcelModel().loads(str(path)).finish().calculate()
        self.cells = {}
        for key, value in solution.items():
            m = _KEY.match(key)
            if m:
                v = getattr(value, "value", value)
                self.cells[(m["sheet"], m["cell"])] = v[0][0] if hasattr(v, "__getitem__") else v

    def __call__(self, sheet: str, cell: str) -> float:
        return float(self.cells[(sheet.upper(), cell)])


def row_of(ws, column: str, text: str) -> int:
    """The row whose cell in ``column`` reads ``text``."""
    rows = [c.row for c in ws[column] if c.value == text]
    assert len(rows) == 1, f"{text!r} is in rows {rows} of {ws.title}"
    return rows[0]


def subtotal(ws, label: str) -> str:
    """The cell of a section sheet's subtotal row, found by its label."""
    return f"M{row_of(ws, 'L', label)}"


def line_rows(ws):
    """The line table's rows, as values."""
    return [r for r in ws.iter_rows(min_row=HEADER_ROW + 1, values_only=True) if isinstance(r[0], int)]


def section_sheets(wb):
    return [ws for ws in wb.worksheets if ws.title not in (SUMMARY, COST)]


def assert_totals_match(wb, ev: Evaluated, bom) -> None:
    """Every section subtotal and the grand totals the workbook computes equal the bill's, to the cent."""
    summary = wb[SUMMARY]
    cur = bom.currency
    for section, ws in zip(bom.sections, section_sheets(wb), strict=True):
        assert ws.title == section.title
        net = ev(ws.title, subtotal(ws, f"Net subtotal ({cur})"))
        assert net == pytest.approx(section.subtotal, abs=0.005)
        assert ev(ws.title, subtotal(ws, f"List subtotal ({cur})")) == pytest.approx(section.list_subtotal,
                                                                                    abs=0.005)
        assert ev(ws.title, subtotal(ws, f"Discount ({cur})")) == pytest.approx(section.discount, abs=0.005)
        assert ev(ws.title, DISCOUNT_CELL) == section.discount_percent
        row = row_of(summary, "A", section.title)
        assert ev(SUMMARY, f"B{row}") == pytest.approx(section.list_subtotal, abs=0.005)
        assert ev(SUMMARY, f"C{row}") == section.discount_percent
        assert ev(SUMMARY, f"D{row}") == pytest.approx(section.discount, abs=0.005)
        assert ev(SUMMARY, f"E{row}") == pytest.approx(section.subtotal, abs=0.005)
    total = row_of(summary, "A", "Total")
    assert ev(SUMMARY, f"B{total}") == pytest.approx(bom.list_total, abs=0.005)
    assert ev(SUMMARY, f"D{total}") == pytest.approx(bom.discount_total, abs=0.005)
    assert ev(SUMMARY, f"E{total}") == pytest.approx(bom.price_total, abs=0.005)
    assert ev(SUMMARY, f"F{total}") == pytest.approx(bom.one_off_total, abs=0.005)
    assert ev(SUMMARY, f"G{total}") == pytest.approx(bom.yearly_total, abs=0.005)
    with_discount = row_of(summary, "A", f"Total after discount ({cur})")
    without = row_of(summary, "A", f"Total at list price ({cur})")
    assert ev(SUMMARY, f"B{with_discount}") == pytest.approx(bom.price_total, abs=0.005)
    assert ev(SUMMARY, f"B{without}") == pytest.approx(bom.list_total, abs=0.005)


def assert_cost_matches(wb, ev: Evaluated, cost) -> None:
    ws = wb[COST]

    def value(label: str) -> float:
        return ev(COST, f"B{row_of(ws, 'A', label)}")

    assert value("Capital: one-off net total (hardware and services)") == pytest.approx(cost.capital, abs=0.005)
    assert value("Subscriptions and support per year") == pytest.approx(cost.support_per_year, abs=0.005)
    assert value("Facility power (IT × PUE)") == pytest.approx(cost.facility_kw, abs=0.0005)
    assert value("Energy per year") == pytest.approx(cost.energy_kwh_per_year, abs=0.05)
    assert value("Energy cost per year") == pytest.approx(cost.energy_per_year, abs=0.005)
    assert value("Depreciation per year") == pytest.approx(cost.depreciation_per_year, abs=0.005)
    assert value("Yearly cost") == pytest.approx(cost.yearly_cost, abs=0.005)
    assert value("Total over the depreciation period") == pytest.approx(cost.total_over_period, abs=0.005)
    assert value("GPU-hours per year") == pytest.approx(cost.gpu_hours_per_year, abs=0.05)
    assert value("Cost per GPU-hour") == pytest.approx(cost.cost_per_gpu_hour, abs=0.00005)
    assert value("Cost per million tokens") == pytest.approx(cost.cost_per_million_tokens, abs=0.00005)


@pytest.fixture(scope="module")
def project(catalog):
    # judged on a day of its own, not today: which catalog prices are too old does not change with the date
    project = load(DGX_B200_SU, catalog)
    return project.with_quote(project.quote.updated(quote_date="2026-12-01"))


@pytest.fixture(scope="module")
def analysis(project, catalog):
    return analyze(project, catalog)


@pytest.fixture(scope="module")
def written(analysis, tmp_path_factory):
    path = tmp_path_factory.mktemp("quote") / "quote.xlsx"
    account = write_quote_xlsx(analysis, path)
    return path, account


@pytest.fixture(scope="module")
def discounted(project, catalog):
    """The same design with section discounts that round net unit prices to the cent, one on a half cent
    (1,500.00 less 12.345 % is 1,314.825: the bill rounds it up to 1,314.83)."""
    for section, percent in (("compute", 10), ("power", 7.3), ("software", 12.5), ("optics", 12.345)):
        project = SetDiscountCommand(section, percent).apply(project, catalog)[0]
    return analyze(project, catalog)


def test_every_line_is_on_its_section_sheet(analysis, written):
    path, account = written
    bom = analysis.bom
    assert account == f"{bom.lines} lines in {len(bom.sections)} sections, 1 without a price"
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == [SUMMARY, *(s.title for s in bom.sections), COST]
    for section, ws in zip(bom.sections, section_sheets(wb), strict=True):
        rows = line_rows(ws)
        assert [r[COL["Line"]] for r in rows] == [ln.line for ln in section.lines]
        assert [r[COL["Qty"]] for r in rows] == [ln.quantity for ln in section.lines]
        assert [r[COL["Part number"]] or "" for r in rows] == [ln.part_number for ln in section.lines]
        assert [r[COL["Ordering part number"]] or "" for r in rows] == [ln.alt_part_number
                                                                      for ln in section.lines]
        assert [r[COL["Years"]] for r in rows] == [ln.term_years for ln in section.lines]
        assert [r[COL["Unit list price"]] for r in rows] == [ln.unit_price for ln in section.lines]
    assert sum(len(line_rows(ws)) for ws in section_sheets(wb)) == bom.lines > 20
    assert os.listdir(path.parent) == ["quote.xlsx"]


def test_prices_are_live_formulas_over_one_discount_cell_per_section(analysis, written, catalog):
    wb = openpyxl.load_workbook(written[0])
    ws = wb["Compute"]
    row = HEADER_ROW + 1
    assert ws[DISCOUNT_CELL].value == 0
    assert ws[f"K{row}"].value == "=$K$2"
    assert ws[f"L{row}"].value == f"=ROUND(ROUND(J{row}*(100-K{row}),6),0)/100"
    assert ws[f"M{row}"].value == f"=L{row}*G{row}*I{row}"
    assert ws[f"J{row}"].value == analysis.bom.sections[0].lines[0].unit_price == \
        catalog.get("dgx-b200").price.amount
    net = subtotal(ws, "Net subtotal (USD)")
    assert ws[net].value == f'=SUMIF(N{row}:N{row},"USD",M{row}:M{row})'
    summary = wb[SUMMARY]
    r = row_of(summary, "A", "Compute")
    assert summary[f"E{r}"].value == f"='Compute'!{net}"
    assert summary[f"C{r}"].value == f"='Compute'!{DISCOUNT_CELL}"


def test_sheets_read_well(written):
    wb = openpyxl.load_workbook(written[0])
    for ws in section_sheets(wb):
        last = HEADER_ROW + len(line_rows(ws))
        assert ws.freeze_panes == f"A{HEADER_ROW + 1}"
        assert ws.auto_filter.ref == f"A{HEADER_ROW}:Q{last}"
        header = [c.value for c in ws[HEADER_ROW]]
        assert header[:9] == list(LINE_COLUMNS[:9])
        assert header[COL["Extended price"]] == "Extended price (USD)"
        assert all(c.font.bold for c in ws[HEADER_ROW])
        for r in range(HEADER_ROW + 1, last + 1):
            assert ws[f"M{r}"].number_format == ws[f"J{r}"].number_format == "#,##0.00"
        # part numbers and descriptions fit their columns
        for letter, col in (("C", "Part number"), ("E", "Description")):
            longest = max(len(str(r[COL[col]] or "")) for r in line_rows(ws))
            assert ws.column_dimensions[letter].width >= min(longest, 58)
    optics = wb["Optics and cables"]
    longest = max(len(r[COL["Description"]]) for r in line_rows(optics))
    assert optics.column_dimensions["E"].width == min(longest + 2, 60)


def test_totals_equal_the_bill_to_the_cent(analysis, written):
    wb = openpyxl.load_workbook(written[0])
    ev = Evaluated(written[0])
    assert_totals_match(wb, ev, analysis.bom)
    assert_cost_matches(wb, ev, analysis.cost)


def test_discounted_totals_equal_the_discounted_bill(discounted, tmp_path):
    bom = discounted.bom
    assert bom.discount_total > 0 and bom.sections[0].discount_percent == 10
    path = tmp_path / "discounted.xlsx"
    write_quote_xlsx(discounted, path)
    wb = openpyxl.load_workbook(path)
    assert wb["Compute"][DISCOUNT_CELL].value == 10 and wb["Power"][DISCOUNT_CELL].value == 7.3
    ev = Evaluated(path)
    assert_totals_match(wb, ev, bom)
    assert_cost_matches(wb, ev, discounted.cost)
    # each net unit price is rounded to the cent before it is multiplied, as the bill rounds it
    for section, ws in zip(bom.sections, section_sheets(wb), strict=True):
        for row, ln in enumerate(section.lines, start=HEADER_ROW + 1):
            if ln.unit_price is not None:
                assert ev(ws.title, f"L{row}") == pytest.approx(ln.net_unit_price, abs=1e-9)
                assert ev(ws.title, f"M{row}") == pytest.approx(ln.extended_price, abs=0.005)


def test_a_buyer_changing_the_discount_cells_gets_the_discounted_bill(discounted, written, tmp_path):
    wb = openpyxl.load_workbook(written[0])
    for title, percent in (("Compute", 10), ("Power", 7.3), ("Software and support", 12.5),
                           ("Optics and cables", 12.345)):
        wb[title][DISCOUNT_CELL] = percent
    edited = tmp_path / "edited.xlsx"
    wb.save(edited)
    assert_totals_match(openpyxl.load_workbook(edited), Evaluated(edited), discounted.bom)


def test_an_unpriced_line_has_no_price_and_stays_out_of_the_totals(analysis, written):
    bom = analysis.bom
    software = next(s for s in bom.sections if s.section == "software")
    (unpriced,) = [ln for ln in software.lines if ln.unit_price is None]
    wb = openpyxl.load_workbook(written[0])
    ws = wb["Software and support"]
    row = next(r for r in range(HEADER_ROW + 1, ws.max_row + 1) if ws[f"A{r}"].value == unpriced.line)
    assert (ws[f"J{row}"].value, ws[f"L{row}"].value, ws[f"M{row}"].value, ws[f"N{row}"].value) == (
        None, None, None, None)
    assert ws[f"Q{row}"].value == "no price; no part number"
    assert ws[f"G{row}"].value == 31
    # it sits inside the summed range, and the sum still equals the bill's, which leaves it out
    assert f"M{row}" in "".join(str(c.value) for c in ws["M"])
    ev = Evaluated(written[0])
    assert ev("Software and support", subtotal(ws, "Net subtotal (USD)")) == software.subtotal > 0
    assert ws[f"L{row_of(ws, 'L', 'Net subtotal (USD)') + 3}"].value == "Excludes 1 unpriced line (no price)"
    summary = wb[SUMMARY]
    assert summary[f"H{row_of(summary, 'A', 'Software and support')}"].value == 1
    notes = [c.value for c in summary["A"] if isinstance(c.value, str)]
    assert "The totals exclude 1 unpriced line (no price): NVIDIA UFM Enterprise licence and support" in notes


def test_indicative_prices_are_marked(analysis, written):
    wb = openpyxl.load_workbook(written[0])
    compute = wb["Compute"]
    row = HEADER_ROW + 1
    assert compute[f"Q{row}"].value == "est.; stale price; part number unconfirmed"
    assert compute[f"J{row}"].font.italic
    assert compute["A3"].value.startswith("est. = indicative price")
    notes = [c.value for c in wb[SUMMARY]["A"] if isinstance(c.value, str)]
    assert any(n.startswith("Indicative prices") and "100 % of the net total" in n for n in notes)


def test_another_currency_stays_out_of_the_totals(project, catalog, tmp_path):
    quote = project.quote.updated(prices=(PriceEntry("AR3307", 2000.0, "EUR", "2026-01-05", "Rack vendor quote"),))
    analysis = analyze(project.with_quote(quote), catalog)
    bom = analysis.bom
    racks_section = next(s for s in bom.sections if s.section == "racks")
    (rack,) = [ln for ln in racks_section.lines if ln.part_number == "AR3307"]
    eur_total = rack.quantity * 2000.0
    assert bom.other_currencies == {"EUR": eur_total} and rack.currency == "EUR"
    path = tmp_path / "eur.xlsx"
    write_quote_xlsx(analysis, path)
    wb = openpyxl.load_workbook(path)
    racks = wb["Racks and facility"]
    row = HEADER_ROW + 1 + racks_section.lines.index(rack)
    assert (racks[f"N{row}"].value, racks[f"J{row}"].value) == ("EUR", 2000.0)
    assert racks[f"M{row}"].number_format == '#,##0.00 "EUR"'
    ev = Evaluated(path)
    assert_totals_match(wb, ev, bom)
    assert ev("Racks and facility", subtotal(racks, "Net subtotal (USD)")) == racks_section.subtotal
    assert ev(SUMMARY, f"E{row_of(wb[SUMMARY], 'A', 'Total')}") == pytest.approx(bom.price_total, abs=0.005)
    eur = subtotal(racks, "Net subtotal in EUR, not converted and not in the USD totals")
    assert ev("Racks and facility", eur) == eur_total
    summary = wb[SUMMARY]
    eur_row = row_of(summary, "A", "Lines priced in EUR, not converted and not in the totals")
    assert ev(SUMMARY, f"B{eur_row}") == eur_total


def test_rack_scale_design(catalog, tmp_path):
    analysis = analyze(load(GB200_NVL72_SU, catalog), catalog)
    path = tmp_path / "nvl72.xlsx"
    write_quote_xlsx(analysis, path)
    wb = openpyxl.load_workbook(path)
    ev = Evaluated(path)
    assert_totals_match(wb, ev, analysis.bom)
    assert_cost_matches(wb, ev, analysis.cost)


def test_summary_names_the_quote(project, catalog, tmp_path):
    quote = project.quote.updated(customer="Acme Research", prepared_by="J. Smith", quote_number="Q-2026-017",
                                  quote_date="2026-03-16", validity_days=45)
    path = tmp_path / "named.xlsx"
    write_quote_xlsx(analyze(project.with_quote(quote), catalog), path)
    wb = openpyxl.load_workbook(path)
    ws = wb[SUMMARY]
    fields = {ws[f"A{r}"].value: ws[f"B{r}"].value for r in range(4, 20)}
    assert (fields["Customer"], fields["Prepared by"], fields["Quote number"]) == (
        "Acme Research", "J. Smith", "Q-2026-017")
    assert fields["Quote date"].date().isoformat() == "2026-03-16" and fields["Valid for (days)"] == 45
    assert (fields["Currency"], fields["GPUs"]) == ("USD", 248)
    valid_until = row_of(ws, "A", "Valid until")
    # 2026-03-16 is Excel day 46097; 45 days on is 2026-04-30
    assert Evaluated(path)(SUMMARY, f"B{valid_until}") == 46097 + 45
    assert wb.properties.creator == "J. Smith"


def test_sheet_names_are_what_excel_accepts():
    taken = {"summary", "cost of ownership"}
    assert sheet_name("Racks: [A/B] *?\\", taken) == "Racks- -A-B- ---"
    assert sheet_name("Software and support subscriptions and services", taken) == "Software and support subscripti"
    assert sheet_name("Software and support subscriptions and more", taken) == "Software and support subscr (2)"
    assert sheet_name("SUMMARY", taken) == "SUMMARY (2)"
    assert all(len(n) <= 31 for n in taken)


def test_a_design_with_nothing_to_quote_is_refused(catalog, tmp_path):
    with pytest.raises(ExportError, match="no lines"):
        write_quote_xlsx(analyze(Project(name="Empty"), catalog), tmp_path / "empty.xlsx")
    assert os.listdir(tmp_path) == []


def test_names_that_look_like_formulas_stay_text(project, catalog, tmp_path):
    from dataclasses import replace

    from designer.quote_settings import PriceEntry

    quote = project.quote.updated(customer="=SUM(1,2)", prices=(
        PriceEntry("AR3307", 2400, "USD", "2026-11-01", '=HYPERLINK("http://x","click")'),))
    path = tmp_path / "inject.xlsx"
    write_quote_xlsx(analyze(replace(project, name="=1+1").with_quote(quote), catalog), path)
    wb = openpyxl.load_workbook(path)
    ws = wb[SUMMARY]
    cells = {ws[f"A{r}"].value: ws[f"B{r}"] for r in range(4, 20)}
    assert cells["Project"].value == "=1+1" and cells["Project"].data_type == "s"
    assert cells["Customer"].value == "=SUM(1,2)" and cells["Customer"].data_type == "s"
    racks = wb["Racks and facility"]
    source = next(racks.cell(r, 15) for r in range(HEADER_ROW + 1, racks.max_row + 1)
                  if racks.cell(r, 3).value == "AR3307")
    assert source.data_type == "s" and source.value.startswith("=HYPERLINK")


def test_no_cell_names_a_design_object_by_its_id(catalog, tmp_path):
    """The workbook is read by people: a rack, CDU, hall or device is never named by its id in it (the ids
    here are lower case, the names upper case, so a case-sensitive search tells them apart)."""
    project = load(GB200_NVL72_SU, catalog)
    ids = {r.id for r in project.racks} | {f.id for f in project.floor_devices} | {h.id for h in project.halls} \
        | {d.id for r in project.racks for d in r.devices}
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(ids, key=len, reverse=True))) + r")(?![\w-])")
    path = tmp_path / "ids.xlsx"
    write_quote_xlsx(analyze(project, catalog), path)
    texts = [v for ws in openpyxl.load_workbook(path) for row in ws.iter_rows(values_only=True) for v in row
             if isinstance(v, str)]
    assert texts and not [t for t in texts if pattern.search(t) or re.search(r"\b(rack|floor|hall|project):\w", t)]


#: LibreOffice told to recalculate every formula of an XLSX it opens (by default it keeps the values stored)
RECALCULATE_ALWAYS = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
</oor:items>
"""


def recalculated_by_libreoffice(src, tmp_path):
    """The workbook at ``src`` as LibreOffice saves it after recalculating every formula: its path."""
    import shutil
    import subprocess

    soffice = shutil.which("soffice")
    assert soffice is not None, "LibreOffice (soffice) is needed: make test-consumers reads the files back with it"
    profile = tmp_path / "profile"
    (profile / "user").mkdir(parents=True, exist_ok=True)
    (profile / "user" / "registrymodifications.xcu").write_text(RECALCULATE_ALWAYS)
    out = tmp_path / "lo"
    subprocess.run([soffice, f"-env:UserInstallation=file://{profile}", "--headless", "--calc",
                    "--convert-to", "xlsx", "--outdir", str(out), str(src)], check=True, timeout=180,
                   capture_output=True)
    return out / src.name


@pytest.mark.libreoffice
def test_spectrum_x_quote_recalculated_by_libreoffice(spectrum_x, tmp_path):
    """The Spectrum-X quote as a buyer's spreadsheet computes it: LibreOffice opens it, recalculates every
    formula and saves it; the totals it gets are the bill's, and the lines name only Ethernet switches."""
    src = tmp_path / "q.xlsx"
    write_quote_xlsx(spectrum_x, src)
    wb = openpyxl.load_workbook(recalculated_by_libreoffice(src, tmp_path), data_only=True)
    totals = [r for r in wb[SUMMARY].iter_rows(values_only=True) if r and r[0] == "Total after discount (USD)"]
    assert totals and totals[0][1] == pytest.approx(spectrum_x.bom.price_total, abs=0.01)
    texts = " ".join(str(v) for ws in wb for row in ws.iter_rows(values_only=True) for v in row if isinstance(v, str))
    assert "Spectrum-4 SN5610" in texts and "InfiniBand and Ethernet part" in texts
    for infiniband in ("Quantum", "UFM", "QM9700", "Q3400"):
        assert infiniband not in texts
