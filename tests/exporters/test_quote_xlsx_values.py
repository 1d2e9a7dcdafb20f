"""The quote workbook's formula cells carry their values: a reader that does not recalculate (a previewer,
pandas, a mail client; here openpyxl with ``data_only``) shows every total, and each value is what the formula
computes, as ``formulas`` and LibreOffice compute it."""
from __future__ import annotations

import io
import zipfile
from datetime import date, datetime

import openpyxl
import pytest

from designer.analysis import analyze
from designer.cli import main
from designer.commands import SetDiscountCommand
from designer.fileformat import load
from designer.quote_settings import ExchangeRate, PriceEntry
from designer.samples import DGX_B200_SU
from exporters import cli as export_command
from exporters.quote_xlsx import COST, SUMMARY, build_workbook, write_quote_xlsx
from exporters.quote_xlsx_values import Cached, serial, with_values

from tests.exporters.test_quote_xlsx import Evaluated, recalculated_by_libreoffice, row_of, section_sheets, subtotal


@pytest.fixture(scope="module")
def project(catalog):
    project = load(DGX_B200_SU, catalog)
    return project.with_quote(project.quote.updated(quote_date="2026-12-01"))


@pytest.fixture(scope="module")
def mixed(project, catalog):
    """Discounts that round to the cent (one on a half cent), a rack priced in EUR, a switch converted from GBP and
    the catalog's unpriced lines: every kind of formula the workbook writes."""
    for section, percent in (("compute", 10), ("power", 7.3), ("software", 12.5), ("optics", 12.345)):
        project = SetDiscountCommand(section, percent).apply(project, catalog)[0]
    # and a switch priced in GBP, converted to USD at a stated rate (a price with a third of a cent in it)
    quote = project.quote.updated(prices=(PriceEntry("AR3307", 2000.0, "EUR", "2026-01-05", "Rack vendor quote"),
                                          PriceEntry("920-9B210-00FN-0M0", 24999.99, "GBP", "2026-11-20", "UK")),
                                  exchange_rates=(ExchangeRate("GBP", "USD", 1.2677, "2026-12-01", "BoE"),),
                                  customer="Acme Research", quote_number="Q-2026-017", validity_days=45)
    return analyze(project.with_quote(quote), catalog)


def formula_cells(path):
    """Every formula cell of the workbook at ``path``: (sheet, cell, formula)."""
    wb = openpyxl.load_workbook(path)
    return [(ws.title, c.coordinate, c.value) for ws in wb for row in ws.iter_rows() for c in row
            if c.data_type == "f"]


def cached_values(path) -> dict[tuple[str, str], object]:
    wb = openpyxl.load_workbook(path, data_only=True)
    return {(ws.title, c.coordinate): c.value for ws in wb for row in ws.iter_rows() for c in row}


def as_number(value) -> float:
    """A cached value as the number the cell holds (a date is its day number)."""
    if isinstance(value, datetime):
        return serial(value.date())
    assert isinstance(value, (int, float)) and not isinstance(value, bool), value
    return float(value)


@pytest.mark.parametrize("design", ["mixed", "dgx", "nvl72", "spectrum_x"])
def test_every_formula_cell_holds_what_it_computes(design, request, tmp_path):
    analysis = request.getfixturevalue(design)
    path = tmp_path / "q.xlsx"
    write_quote_xlsx(analysis, path)
    formulas_in = formula_cells(path)
    cached = cached_values(path)
    ev = Evaluated(path)
    assert len(formulas_in) > 50
    for sheet, cell, formula in formulas_in:
        value = cached[(sheet, cell)]
        assert value is not None, f"{sheet}!{cell} {formula} has no value"
        assert as_number(value) == pytest.approx(ev(sheet, cell), abs=0.005), f"{sheet}!{cell} {formula}"


def test_the_cached_totals_are_the_bill_and_the_cost_of_ownership(mixed, tmp_path):
    path = tmp_path / "q.xlsx"
    write_quote_xlsx(mixed, path)
    wb = openpyxl.load_workbook(path, data_only=True)
    bom, cost, summary = mixed.bom, mixed.cost, wb[SUMMARY]

    def total(label: str) -> float:
        return summary[f"B{row_of(summary, 'A', label)}"].value

    assert total("Total after discount (USD)") == pytest.approx(bom.price_total, abs=0.005)
    assert total("Total at list price (USD)") == pytest.approx(bom.list_total, abs=0.005)
    assert total("Discount (USD)") == pytest.approx(bom.discount_total, abs=0.005)
    assert total("Lines priced in EUR, not converted and not in the totals") == pytest.approx(
        bom.other_currencies["EUR"], abs=0.005)
    for section, ws in zip(bom.sections, section_sheets(wb), strict=True):
        assert ws[subtotal(ws, "Net subtotal (USD)")].value == pytest.approx(section.subtotal, abs=0.005)
        assert ws[subtotal(ws, "List subtotal (USD)")].value == pytest.approx(section.list_subtotal, abs=0.005)
        for ln in section.lines:
            row = next(r for r in ws.iter_rows(min_row=5) if r[0].value == ln.line)
            assert (row[11].value, row[12].value) == (ln.net_unit_price, ln.extended_price)
    sheet = wb[COST]
    got = {r[0]: r[1] for r in sheet.iter_rows(values_only=True) if r[0]}
    assert got["Capital: one-off net total (hardware and services)"] == pytest.approx(cost.capital, abs=0.005)
    assert got["Yearly cost"] == pytest.approx(cost.yearly_cost, abs=0.005)
    assert got["Total over the depreciation period"] == pytest.approx(cost.total_over_period, abs=0.005)
    # the analysis gives no rate with lines in another currency left out; the sheet's formula gives one
    assert cost.cost_per_gpu_hour is None
    assert got["Cost per GPU-hour"] == pytest.approx(cost.yearly_cost / cost.gpu_hours_per_year, rel=1e-9)


def test_the_exported_header_names_the_quote_and_its_validity(capsys, tmp_path):
    """``podplanner export FILE --xlsx OUT``: the header holds customer, number, date and the day the quote
    runs out, read without recalculating; every formula cell holds a number."""
    out = tmp_path / "q.xlsx"
    code = main(["export", str(DGX_B200_SU), "--xlsx", str(out), "--customer", "Acme Research",
                 "--quote-number", "Q-2026-118", "--valid-days", "45"], commands=[export_command])
    assert code == 0, capsys.readouterr()
    ws = openpyxl.load_workbook(out, data_only=True)[SUMMARY]
    fields = {r[0]: r[1] for r in ws.iter_rows(values_only=True) if r and r[0]}
    assert (fields["Customer"], fields["Quote number"], fields["Valid for (days)"]) == (
        "Acme Research", "Q-2026-118", 45)
    assert (fields["Valid until"] - fields["Quote date"]).days == 45
    cached = cached_values(out)
    for sheet, cell, formula in formula_cells(out):
        assert isinstance(cached[(sheet, cell)], (int, float, datetime)), f"{sheet}!{cell} {formula}"


def _saved(wb) -> bytes:
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def test_values_go_into_the_formula_cells_only():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "A & <B>"
    other = wb.create_sheet("Other")
    ws["A1"] = 2
    cached = Cached()
    cached.put(ws["B1"], "=A1*2", 4)
    cached.put(ws["C1"], '="x"&A1', "x<2> & 'y'")
    cached.put(other["A1"], "='A & <B>'!B1/3", 4 / 3)
    ws["D1"] = "=A1+1"  # a formula the writer computes nothing for keeps no value
    data = with_values(_saved(wb), cached)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert z.testzip() is None
        sheet1 = z.read("xl/worksheets/sheet1.xml").decode()
    assert '<c r="C1" t="str"><f>"x"&amp;A1</f><v>x&lt;2&gt; &amp; \'y\'</v></c>' in sheet1
    assert '<c r="A1" t="n"><v>2</v></c>' in sheet1
    back = openpyxl.load_workbook(io.BytesIO(data), data_only=True)
    values = [[c.value for c in row] for row in back["A & <B>"].iter_rows()]
    assert values == [[2, 4, "x<2> & 'y'", None]]
    assert back["Other"]["A1"].value == 4 / 3
    kept = openpyxl.load_workbook(io.BytesIO(data))
    assert [c.value for c in kept["A & <B>"][1]] == [2, "=A1*2", '="x"&A1', "=A1+1"]


def test_a_value_goes_with_a_formula():
    ws = openpyxl.Workbook().active
    with pytest.raises(ValueError):
        Cached().put(ws["A1"], "12", 12)
    with pytest.raises(ValueError):
        Cached().put(ws["A1"], "=1/0", None)
    assert serial(date(2026, 3, 16)) == 46097


@pytest.mark.libreoffice
def test_libreoffice_recalculates_the_values_the_file_holds(mixed, tmp_path):
    """LibreOffice recalculates a copy whose stored values are all wrong (-1): what it computes is what the
    written file holds, in every formula cell, to the cent."""
    path = tmp_path / "q.xlsx"
    write_quote_xlsx(mixed, path)
    wb, _, cached = build_workbook(mixed)
    wrong = Cached()
    for sheet, cells in cached.sheets.items():
        wrong.sheets[sheet] = dict.fromkeys(cells, -1)
    poisoned = tmp_path / "poisoned.xlsx"
    poisoned.write_bytes(with_values(_saved(wb), wrong))
    ours, theirs = cached_values(path), cached_values(recalculated_by_libreoffice(poisoned, tmp_path))
    cells = formula_cells(path)
    assert len(cells) > 50
    for sheet, cell, formula in cells:
        assert as_number(theirs[(sheet, cell)]) == pytest.approx(as_number(ours[(sheet, cell)]), abs=0.005), (
            f"{sheet}!{cell} {formula}")

