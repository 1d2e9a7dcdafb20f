"""compare: what changed in the bill between two designs, line by line."""
from __future__ import annotations

from dataclasses import replace

import pytest

from designer.analysis import analyze
from designer.compare import compare, compare_text
from designer.fileformat import load
from designer.samples import DGX_B200_SU


@pytest.fixture(scope="module")
def pair(catalog):
    a = load(DGX_B200_SU, catalog)
    # revision B: the storage appliances taken out, and 10 % off networking
    racks = tuple(replace(r, devices=tuple(d for d in r.devices if d.type != "wekapod-nitro")) for r in a.racks)
    b = replace(a, racks=racks)
    b = b.with_quote(b.quote.with_discount("network", 10))
    return analyze(a, catalog), analyze(b, catalog)


def test_removed_and_changed_lines_with_their_money(pair):
    a, b = pair
    bill = compare(a, b, "a.json", "b.json")["bill"]
    assert bill["comparable"] and bill["currency"] == "USD"
    removed = {r["id"]: r for r in bill["removed"]}
    assert removed["wekapod-nitro"]["quantity"] == 8 and removed["wekapod-nitro"]["extended_price"] == 480_000
    assert bill["added"] == []
    qm = next(r for r in bill["changed"] if r["id"] == "qm9700")
    assert qm["quantity_a"] == qm["quantity_b"] and qm["delta"] == pytest.approx(-0.10 * qm["extended_a"], abs=0.01)
    assert bill["total_delta"] == pytest.approx(b.bom.price_total - a.bom.price_total, abs=0.01)
    # the changes add up to the change of the net total
    parts = sum(r["delta"] for r in bill["changed"]) - sum(r["extended_price"] for r in bill["removed"])
    assert parts == pytest.approx(bill["total_delta"], abs=0.05)


def test_the_text_lists_them_after_the_figures(pair):
    a, b = pair
    text = compare_text(compare(a, b, "a.json", "b.json"))
    assert "Bill changes: 0 added," in text and "removed" in text
    assert "  − 8 × WEKApod Nitro storage node" in text and "(WPS155-SAE) −USD 480,000.00" in text


def test_one_design_against_itself_changes_no_line(pair):
    a, _ = pair
    assert compare_text(compare(a, a)).endswith("Bill: no line changed")
