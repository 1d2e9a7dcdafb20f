from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import replace
from datetime import date

import pytest

from catalog import load_catalog
from designer.analysis import analyze
from designer.commands import SetDiscountCommand, UpdateQuoteCommand
from designer.fileformat import load
from designer.quote.lines import QuoteCounts, build_bill, cable_part_number, length_code
from designer.quote_settings import PriceEntry, QuoteSettings
from designer.samples import DGX_B200_SU, GB200_NVL72_SU
from tests.conftest import edit_json

QUOTE = QuoteSettings(quote_date="2026-12-01")


def lines_of(bom, section=None):
    return [ln for s in bom["sections"] if section in (None, s["section"]) for ln in s["lines"]]


@pytest.fixture(scope="module")
def dgx(catalog):
    project = load(DGX_B200_SU, catalog)
    return project.with_quote(QUOTE)


@pytest.fixture(scope="module")
def dgx_bom(dgx, catalog):
    return analyze(dgx, catalog)


def test_sample_bill_counts_what_the_engines_counted(dgx_bom, catalog):
    bom = dgx_bom["bom"]
    (dgx_line,) = lines_of(bom, "compute")
    assert (dgx_line["id"], dgx_line["quantity"], dgx_line["part_number"]) == ("dgx-b200", 31, "DGXB-G1440+P1CMI36")
    assert dgx_line["extended_price"] == 31 * catalog.get("dgx-b200").price.amount
    # a blog figure and a third-party SKU: indicative, and the SKU is marked unconfirmed
    assert dgx_line["price_confirmed"] is False and "unconfirmed" in dgx_line["flags"]
    assert dgx_line["part_number_unconfirmed"] is True
    # the compute fabric's fibres; the storage fabric's are lines of their own
    fibre = [ln for ln in lines_of(bom, "optics") if ln["id"] == "fiber-mpo12-mmf" and not ln["spare"]
             and not ln["description"].endswith(", storage fabric")]
    assert sum(ln["quantity"] for ln in fibre) == dgx_bom["fabric"]["cables"]["fiber-mpo12-mmf"]
    assert {ln["part_number"] for ln in fibre} == {f"MFP7E10-N{int(ln['length_m']):03d}" for ln in fibre}
    racks = lines_of(bom, "racks")
    assert sum(ln["quantity"] for ln in racks) == len(dgx_bom.project.racks) == 23  # with the storage array rack
    # six C19/C20 cords per DGX B200 (its user guide), one installation per system
    cords = next(ln for ln in lines_of(bom, "power") if ln["id"] == "power-cord-c19-c20")
    assert cords["quantity"] == 6 * 31
    install = next(ln for ln in lines_of(bom, "services") if ln["id"] == "service-install-dgx")
    assert install["quantity"] == 31


def test_totals_add_up_and_summary_reads_them(dgx_bom):
    bom = dgx_bom["bom"]
    priced = [ln for ln in lines_of(bom) if ln["extended_price"] is not None]
    assert math.isclose(bom["price_total"], sum(ln["extended_price"] for ln in priced), abs_tol=0.005)
    assert math.isclose(bom["price_total"], sum(s["subtotal"] for s in bom["sections"]), abs_tol=0.005)
    assert math.isclose(bom["price_total"], bom["one_off_total"] + bom["yearly_total"] * bom["term_years"],
                        abs_tol=0.01)
    assert bom["list_total"] == bom["price_total"] and bom["discount_total"] == 0
    assert [ln["line"] for ln in lines_of(bom)] == list(range(1, bom["lines"] + 1))
    assert dgx_bom.summary_json["price_total"] == bom["price_total"] and dgx_bom.summary_json["currency"] == "USD"
    assert dgx_bom.summary_json["price_estimated"] is True


def test_unpriced_line_is_never_zero(dgx_bom):
    bom = dgx_bom["bom"]
    (ufm,) = [ln for ln in lines_of(bom) if ln["id"] == "ufm-licence"]
    assert ufm["quantity"] == 31 and ufm["unit"] == "node-year" and ufm["term_years"] == 3
    assert ufm["unit_price"] is None and ufm["extended_price"] is None
    assert ufm["flags"] == ["unpriced", "no-part-number"] and ufm["part_number_note"]
    assert bom["unpriced"] == ["NVIDIA UFM Enterprise licence and support"]
    assert next(s for s in bom["sections"] if s["section"] == "software")["unpriced"] == 1
    assert "bom-unpriced" in {f.code for f in dgx_bom.findings}
    assert dgx_bom.summary_json["unpriced_lines"] == 1


def test_yearly_lines_count_the_term(dgx_bom):
    (nvaie,) = [ln for ln in lines_of(dgx_bom["bom"]) if ln["id"] == "nvaie"]
    assert (nvaie["quantity"], nvaie["unit"], nvaie["term_years"]) == (248, "GPU-year", 3)
    assert nvaie["extended_price"] == 248 * 4500 * 3
    # the earnings-call figure of November 2023 is over a year old on 2026-12-01
    assert "stale" in nvaie["flags"] and nvaie["price_date"] == "2023-11-21"


def test_spares_are_their_own_lines_rounded_up(dgx_bom):
    optics = lines_of(dgx_bom["bom"], "optics")
    for spare in (ln for ln in optics if ln["spare"]):
        base = next(ln for ln in optics if not ln["spare"] and ln["part_number"] == spare["part_number"]
                    and ln.get("length_m") == spare.get("length_m")
                    and spare["description"] == "Spare: " + ln["description"])
        assert spare["quantity"] == math.ceil(base["quantity"] * 0.03)
        assert spare["description"].startswith("Spare: ")
    assert any(ln["spare"] for ln in optics)


def test_rack_scale_systems_bring_their_own_rack_and_parts(catalog):
    project = load(GB200_NVL72_SU, catalog).with_quote(QUOTE)
    a = analyze(project, catalog)
    bom = a["bom"]
    ids = {ln["id"] for ln in lines_of(bom)}
    assert "gb200-nvl72" in ids and "gb200-compute-tray" not in ids and "gb200-power-shelf" not in ids
    nvl72_racks = sum(1 for r in project.racks if any(d.type == "gb200-nvl72" for d in r.devices))
    assert nvl72_racks == 8
    assert sum(ln["quantity"] for ln in lines_of(bom, "racks")) == len(project.racks) - nvl72_racks
    # the UFM licence counts compute trays: 18 per NVL72
    (ufm,) = [ln for ln in lines_of(bom) if ln["id"] == "ufm-licence"]
    assert ufm["quantity"] == 8 * 18
    (install,) = [ln for ln in lines_of(bom) if ln["id"] == "service-install-nvl72"]
    assert install["quantity"] == 8
    assert not [ln for ln in lines_of(bom) if ln["id"] == "power-cord-c19-c20"]


def test_discount_by_section_with_and_without(dgx, catalog, dgx_bom):
    discounted, _ = SetDiscountCommand("compute", 12.5).apply(dgx, catalog)
    bom = analyze(discounted, catalog)["bom"]
    compute = next(s for s in bom["sections"] if s["section"] == "compute")
    unit = catalog.get("dgx-b200").price.amount
    assert compute["discount_percent"] == 12.5 and compute["lines"][0]["net_unit_price"] == round(unit * 0.875, 2)
    assert compute["subtotal"] == round(unit * 0.875, 2) * 31
    assert compute["list_subtotal"] == unit * 31
    assert compute["discount"] == compute["list_subtotal"] - compute["subtotal"]
    assert bom["list_total"] == dgx_bom["bom"]["price_total"]
    assert math.isclose(bom["price_total"], bom["list_total"] - bom["discount_total"], abs_tol=0.005)
    network = next(s for s in bom["sections"] if s["section"] == "network")
    assert network["discount"] == 0


def test_price_list_overrides_by_part_number(dgx, catalog):
    prices = (PriceEntry("dgxb-g1440+p1cmi36", 480000, "USD", "2026-11-01", "Distributor quote 4711"),
              PriceEntry("MFP7E10-N010", 95, "USD", "2026-11-01"),
              PriceEntry("q3400", 100000, "USD", "2026-11-01"),
              PriceEntry("NOT-ON-THE-BILL", 1, "USD"))
    project, _ = UpdateQuoteCommand({"prices": prices, "price_list_name": "prices.csv"}).apply(dgx, catalog)
    bom = analyze(project, catalog)["bom"]
    (dgx_line,) = lines_of(bom, "compute")
    assert dgx_line["unit_price"] == 480000 and dgx_line["price_confirmed"] and dgx_line["price_from_list"]
    assert dgx_line["price_source"] == "Distributor quote 4711" and dgx_line["flags"] == []
    fibre10 = [ln for ln in lines_of(bom) if ln["part_number"] == "MFP7E10-N010"]
    assert fibre10 and all(ln["unit_price"] == 95 and ln["price_source"] == "price list prices.csv" for ln in fibre10)
    assert bom["price_list"]["used"] == 2 and bom["price_list"]["unused"] == ["NOT-ON-THE-BILL", "q3400"]
    findings = [f for f in analyze(project, catalog).findings if f.code == "bom-price-list-unused"]
    assert [f.severity for f in findings] == ["info"] and "NOT-ON-THE-BILL, q3400" in findings[0].message
    nothing = dgx.with_quote(replace(dgx.quote, prices=(PriceEntry("1", 5, "USD"),), price_list_name="p.csv"))
    (finding,) = [f for f in analyze(nothing, catalog).findings if f.code == "bom-price-list-unused"]
    assert finding.severity == "warning" and "none of the 1 prices of p.csv" in finding.message


def test_old_list_price_is_flagged(dgx, catalog):
    project = dgx.with_quote(replace(dgx.quote, prices=(PriceEntry("DGXB-G1440+P1CMI36", 480000, "USD", "2024-01-01"),),
                                     price_max_age_days=180))
    (dgx_line,) = lines_of(analyze(project, catalog)["bom"], "compute")
    assert dgx_line["flags"] == ["stale"]
    undated = dgx.with_quote(replace(dgx.quote, prices=(PriceEntry("DGXB-G1440+P1CMI36", 480000, "USD"),)))
    assert lines_of(analyze(undated, catalog)["bom"], "compute")[0]["flags"] == ["undated"]


def test_excluded_optional_lines_leave_the_bill(dgx, catalog):
    excluded = ("nvaie", "ufm-licence", "mission-control", "service-install-dgx")
    project, _ = UpdateQuoteCommand({"excluded": excluded}).apply(dgx, catalog)
    bom = analyze(project, catalog)["bom"]
    ids = {ln["id"] for ln in lines_of(bom)}
    assert not ids & set(excluded)
    assert bom["unpriced"] == [] and bom["yearly_total"] == 0
    assert {s["section"] for s in bom["sections"]} == {"compute", "network", "storage", "optics", "power", "racks"}


def test_length_codes_follow_the_vendor_table(catalog):
    assert [length_code(m) for m in (1, 1.5, 2.5, 3, 30, 0.5, 100)] == ["001", "01A", "02A", "003", "030", "00A", "100"]
    assert cable_part_number(catalog.get("dac-osfp-splitter-2x400g"), 1.5) == ("MCP7Y00-N01A", "980-9I926-00N01A")
    assert cable_part_number(catalog.get("fiber-mpo12-mmf"), 30) == ("MFP7E10-N030", "980-9I570-00N030")
    assert cable_part_number(catalog.get("fiber-mpo12-mmf"), 7) == ("MFP7E10-N007", "")


def test_money_rounds_per_line(tmp_path):
    (tmp_path / "x.json").write_text(json.dumps({
        "id": "widget", "kind": "appliance", "name": "W", "manufacturer": "A", "category": "misc", "source": "EST",
        "u_height": 1, "power_max_w": 1, "price": {"amount": 0.105, "currency": "USD"}}))
    bom, _ = build_bill(Counter({"widget": 3}), load_catalog([tmp_path]), "USD", QUOTE)
    assert bom["sections"][0]["lines"][0]["unit_price"] == 0.11
    assert bom["price_total"] == 0.33


def test_currencies_are_never_mixed(catalog, tmp_path):
    (tmp_path / "eur.json").write_text(json.dumps({
        "id": "rack-eu", "kind": "rack", "name": "EU rack", "manufacturer": "A", "category": "racks",
        "source": "EST", "rack_units": 42, "width_mm": 600, "depth_mm": 1200, "height_mm": 2000,
        "price": {"amount": 2000, "currency": "EUR"}}))
    cat = load_catalog([tmp_path])
    bom, findings = build_bill(Counter({"rack-eu": 1, "rack-42u-600x1200": 1}), cat, "USD", QUOTE)
    (racks,) = bom["sections"]
    usd = cat.get("rack-42u-600x1200").price.amount
    assert racks["subtotal"] == usd and racks["other_currencies"] == {"EUR": 2000.0}
    assert bom["price_total"] == usd and bom["other_currencies"] == {"EUR": 2000.0}
    (currency,) = [f for f in findings if f.code == "bom-currency"]
    assert "EUR 2,000.00" in currency.message and "not converted" in currency.message
    # a project in EUR with only USD prices is totalled in USD, and says so
    bom, findings = build_bill(Counter({"dgx-b200": 1}), catalog, "EUR", QUOTE)
    assert bom["currency"] == "USD" and "bom-currency" in [f.code for f in findings]


def test_quote_only_lines_count_their_basis(catalog):
    counts = QuoteCounts(gpus=16, nodes=2, devices={"dgx-b200": 2})
    bom, _ = build_bill(Counter({"dgx-b200": 2}), catalog, "USD", QUOTE, counts)
    by_id = {ln["id"]: ln for ln in lines_of(bom)}
    assert by_id["nvaie"]["quantity"] == 16 and by_id["power-cord-c19-c20"]["quantity"] == 12
    assert by_id["service-install-dgx"]["quantity"] == 2
    assert "ufm-licence" not in by_id  # no UFM appliance in this design: nothing to license
    assert by_id["power-cord-c19-c20"]["basis"] == "6 per NVIDIA DGX B200"


def test_bill_is_judged_on_the_quote_date(dgx, catalog):
    early = dgx.with_quote(replace(dgx.quote, quote_date="2024-01-15"))
    bom = analyze(early, catalog)["bom"]
    assert bom["as_of"] == "2024-01-15"
    (nvaie,) = [ln for ln in lines_of(bom) if ln["id"] == "nvaie"]
    assert "stale" not in nvaie["flags"]
    assert date.fromisoformat(analyze(dgx.with_quote(QuoteSettings()), catalog)["bom"]["as_of"]) >= date(2026, 1, 1)


def test_an_ethernet_fabric_warns_of_optics_the_catalog_lists_for_infiniband_only(catalog_copy):
    """The Spectrum-X bill keeps a twin-port module sold for InfiniBand and Ethernet alike (and says so); one the
    catalog lists for InfiniBand only is billed with a warning to check its Ethernet SKU."""
    from designer.generate.build import generate
    from designer.generate.spec import SuperpodSpec

    def infiniband_only(data):
        data["protocols"] = "infiniband"

    edit_json(catalog_copy / "optics" / "osfp-800g-2xsr4.json", infiniband_only)
    catalog = load_catalog([], builtin=catalog_copy)
    project = generate(SuperpodSpec(system="dgx-b300", sus=1, fabric="spectrum-x"), catalog).project
    a = analyze(project, catalog)
    warnings = [f for f in a.findings if f.code == "bom-optics-protocol"]
    assert len(warnings) == 1 and "MMA4Z00-NS" in warnings[0].message and "infiniband only" in warnings[0].message
    flat = [ln for ln in lines_of(a["bom"]) if ln["part_number"] == "980-9I51A-00NS00" and not ln["spare"]]
    assert "assumed from its family" in flat[0]["basis"]


def test_an_infiniband_fabric_bill_says_nothing_of_protocols(dgx_bom):
    assert not [ln for ln in lines_of(dgx_bom["bom"]) if "compute fabric" in ln.get("basis", "")]


def test_a_transceiver_protocols_list_is_checked(catalog_copy):
    from catalog.loader import CatalogError

    def bad(data):
        data["protocols"] = "infiniband, nvlink"

    edit_json(catalog_copy / "optics" / "osfp-800g-2xsr4.json", bad)
    with pytest.raises(CatalogError, match="protocols"):
        load_catalog([], builtin=catalog_copy)
