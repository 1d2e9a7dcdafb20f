"""The bill as CSV: read back with the csv module and checked against the analysis' bill."""
from __future__ import annotations

import csv
import os
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal

import pytest

from designer.analysis import analyze
from designer.commands import SetDiscountCommand
from designer.fileformat import load
from designer.model import Project
from designer.quote_settings import PriceEntry
from drawn import DGX_B200_SU
from exporters.base import ExportError
from exporters.bom_csv import COLUMNS, write_bom_csv


def read(path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def project(catalog):
    # judged on a day of its own, not today: which catalog prices are too old does not change with the date
    project = load(DGX_B200_SU, catalog)
    return project.with_quote(project.quote.updated(quote_date="2026-12-01"))


@pytest.fixture(scope="module")
def analysis(project, catalog):
    return analyze(project, catalog)


def test_one_row_per_bill_line(analysis, tmp_path):
    out = tmp_path / "bom.csv"
    bom = analysis.bom
    assert write_bom_csv(analysis, out) == f"{bom.lines} lines, 1 without a price"
    with open(out, encoding="utf-8", newline="") as fh:
        assert next(csv.reader(fh)) == list(COLUMNS)
    rows = read(out)
    lines = [(s, ln) for s in bom.sections for ln in s.lines]
    assert len(rows) == bom.lines == len(lines)
    for row, (section, ln) in zip(rows, lines):
        assert row["section"] == section.title
        assert int(row["line"]) == ln.line
        assert int(row["quantity"]) == ln.quantity
        assert (row["part_number"], row["ordering_part_number"]) == (ln.part_number, ln.alt_part_number)
        assert (row["description"], row["basis"], row["unit"]) == (ln.description, ln.basis, ln.unit)
        assert int(row["years"]) == ln.term_years
    # descriptions with commas come back whole: the quoting is RFC 4180
    assert any("," in r["description"] for r in rows)
    first = rows[0]
    assert (first["section"], first["unit_price"], first["currency"]) == (
        "Compute", f"{bom.sections[0].lines[0].unit_price:.2f}", "USD")
    assert first["flags"] == "indicative price; stale price; part number unconfirmed"
    assert os.listdir(tmp_path) == ["bom.csv"]


def test_extended_prices_sum_to_the_section_subtotals(project, catalog, tmp_path):
    discounted = analyze(SetDiscountCommand("power", 7.3).apply(project, catalog)[0], catalog)
    out = tmp_path / "bom.csv"
    write_bom_csv(discounted, out)
    rows = read(out)
    sums: dict[str, Decimal] = defaultdict(Decimal)
    for r in rows:
        if r["extended_price"]:
            sums[r["section"]] += Decimal(r["extended_price"])
            assert Decimal(r["extended_price"]) == Decimal(r["net_unit_price"]) * int(r["quantity"]) * int(r["years"])
    bom = discounted.bom
    assert {s.title: float(sums[s.title]) for s in bom.sections} == {
        s.title: s.subtotal for s in bom.sections}
    assert float(sum(sums.values())) == bom.price_total
    power = [r for r in rows if r["section"] == "Power"]
    assert {r["discount_percent"] for r in power} == {"7.3"}
    for r in power:
        # the net unit price is rounded half up to the cent, as the bill rounds it (35.00 less 7.3 % is 32.45)
        net = (Decimal(r["unit_price"]) * (1 - Decimal("0.073"))).quantize(Decimal("0.01"), ROUND_HALF_UP)
        assert r["net_unit_price"] == str(net)


def test_an_unpriced_line_has_empty_price_cells(analysis, tmp_path):
    out = tmp_path / "bom.csv"
    write_bom_csv(analysis, out)
    (row,) = [r for r in read(out) if r["flags"] == "no price; no part number"]
    assert row["description"] == "NVIDIA UFM Enterprise licence and support"
    assert [row[k] for k in ("unit_price", "net_unit_price", "extended_price", "currency")] == ["", "", "", ""]
    assert (row["quantity"], row["unit"], row["years"]) == ("31", "node-year", "3")


def test_another_currency_keeps_its_code(project, catalog, tmp_path):
    quote = project.quote.updated(prices=(PriceEntry("AR3307", 2000.0, "EUR", "2026-01-05", "Rack vendor quote"),))
    analysis = analyze(project.with_quote(quote), catalog)
    out = tmp_path / "bom.csv"
    write_bom_csv(analysis, out)
    (row,) = [r for r in read(out) if r["part_number"] == "AR3307"]
    assert (row["unit_price"], row["currency"], row["price_source"], row["price_date"]) == (
        "2000.00", "EUR", "Rack vendor quote", "2026-01-05")
    assert "indicative price" not in row["flags"]  # a price list's price is a confirmed one
    eur = sum(Decimal(r["extended_price"]) for r in read(out) if r["currency"] == "EUR")
    assert float(eur) == analysis.bom.other_currencies["EUR"]


def test_a_design_with_nothing_to_quote_is_refused(catalog, tmp_path):
    with pytest.raises(ExportError, match="no lines"):
        write_bom_csv(analyze(Project(name="Empty"), catalog), tmp_path / "empty.csv")
    assert os.listdir(tmp_path) == []


def test_text_that_looks_like_a_formula_stays_text(catalog, tmp_path):
    import csv as _csv

    from designer.analysis import analyze
    from designer.fileformat import load
    from designer.quote_settings import PriceEntry
    from designer.samples import DGX_B200_SU
    from exporters.bom_csv import write_bom_csv

    project = load(DGX_B200_SU, catalog)
    project = project.with_quote(project.quote.updated(
        prices=(PriceEntry("AR3307", 2400, "USD", "2026-11-01", '=HYPERLINK("http://x","click")'),)))
    write_bom_csv(analyze(project, catalog), tmp_path / "b.csv")
    rows = list(_csv.DictReader((tmp_path / "b.csv").open(encoding="utf-8")))
    (rack,) = [r for r in rows if r["part_number"] == "AR3307"]
    assert rack["price_source"] == "'=HYPERLINK(\"http://x\",\"click\")"


def test_spectrum_x_bill_orders_ethernet_switches_and_optics_only_on_the_compute_fabric(spectrum_x, tmp_path):
    """1 SU of DGX B300 on Spectrum-X: 16 leaves and 8 spines (two planes of 8 + 4) are SN5610s; the 512
    node cages take 512 flat-top twin-port modules and the 1,536 switch cages carrying links (512 leaf down,
    512 leaf up, 512 spine) finned ones, each line saying the part runs Ethernet; no InfiniBand switch, no UFM."""
    out = tmp_path / "bom.csv"
    write_bom_csv(spectrum_x, out)
    rows = [r for r in read(out) if not r["description"].startswith("Spare:")]
    compute = [r for r in rows if "compute fabric" in r["basis"]]
    assert sorted((r["part_number"], int(r["quantity"])) for r in compute) == [
        ("980-9I510-00NS00", 1536), ("980-9I51A-00NS00", 512)]
    for r in compute:
        assert "InfiniBand and Ethernet" in r["basis"] and "Spectrum-X Ethernet" in r["basis"]
    sn5610 = [r for r in rows if "SN5610" in r["description"]]
    assert [int(r["quantity"]) for r in sn5610] == [24]
    text = " ".join(r["description"] + " " + r["part_number"] + " " + r["basis"] for r in rows)
    for infiniband in ("Quantum", "QM9", "Q3400", "UFM", "Unified Fabric Manager", "MQM"):
        assert infiniband not in text
    assert not [f for f in spectrum_x.findings if f.code == "bom-optics-protocol"]
