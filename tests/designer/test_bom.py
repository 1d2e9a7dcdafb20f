from __future__ import annotations

from collections import Counter

from designer.analysis import analyze
from designer.bom import build_bom
from designer.fileformat import load
from drawn import DGX_B200_SU, GB200_NVL72_SU


def test_sample_bom_lines_and_totals(catalog):
    r = analyze(load(DGX_B200_SU, catalog), catalog)
    bom = r["bom"]
    compute = next(s for s in bom["sections"] if s["section"] == "compute")
    (line,) = compute["lines"]
    unit = catalog.get("dgx-b200").price.amount
    assert (line["id"], line["quantity"], line["unit_price"], line["extended_price"]) == (
        "dgx-b200", 31, unit, 31 * unit)
    assert line["price_unconfirmed"] is False  # sourced to a published figure
    optics = next(s for s in bom["sections"] if s["section"] == "optics")
    fibre = [ln for ln in optics["lines"] if ln["id"] == "fiber-mpo12-mmf"]
    assert sum(ln["quantity"] for ln in fibre) == r["fabric"]["cables"]["fiber-mpo12-mmf"]
    assert all(ln["length_m"] in catalog.get("fiber-mpo12-mmf").lengths_m for ln in fibre)
    racks = next(s for s in bom["sections"] if s["section"] == "racks")
    assert sum(ln["quantity"] for ln in racks["lines"]) == 19
    assert bom["price_total"] == sum(s["subtotal"] for s in bom["sections"])
    assert r.summary["price_total"] == bom["price_total"] and r.summary["currency"] == "USD"
    assert bom["estimated"] is True  # switch and rack prices are planning estimates


def test_rack_scale_parts_are_not_sold_separately(catalog):
    bom = analyze(load(GB200_NVL72_SU, catalog), catalog)["bom"]
    ids = {ln["id"] for s in bom["sections"] for ln in s["lines"]}
    assert "gb200-nvl72" in ids and "gb200-compute-tray" not in ids


def test_cables_are_listed_by_length(catalog):
    bom, _ = build_bom(Counter({"dac-osfp-800g": 5}), catalog, "USD",
                       cable_lengths={"dac-osfp-800g": Counter({1.0: 2, 2.0: 3})})
    lines = bom["sections"][0]["lines"]
    assert [(ln["length_m"], ln["quantity"]) for ln in lines] == [(1.0, 2), (2.0, 3)]
    assert lines[0]["description"].endswith(", 1 m")
    assert bom["price_total"] == 5 * catalog.get("dac-osfp-800g").price.amount


def test_money_rounds_per_line(tmp_path):
    import json

    from catalog import load_catalog

    (tmp_path / "x.json").write_text(json.dumps({
        "id": "widget", "kind": "appliance", "name": "W", "manufacturer": "A", "category": "misc", "source": "EST",
        "u_height": 1, "power_max_w": 1, "price": {"amount": 0.105, "currency": "USD"}}))
    bom, _ = build_bom(Counter({"widget": 3}), load_catalog([tmp_path]), "USD")
    assert bom["sections"][0]["lines"][0]["unit_price"] == 0.11
    assert bom["price_total"] == 0.33


def test_other_currency_is_not_converted(catalog):
    bom, findings = build_bom(Counter({"dgx-b200": 1}), catalog, "EUR")
    assert bom["currency"] == "USD" and [f.code for f in findings] == ["bom-currency"]
