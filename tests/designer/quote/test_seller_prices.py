"""A seller's price list: its own part numbers on the lines the vendor numbers nothing for (so every priced line can
be ordered), and its costs, from which the bill counts the seller's margins by section, never guessing a cost."""
from __future__ import annotations

import pytest

from designer.analysis import analyze
from designer.fileformat import load
from designer.quote.prices import parse_price_rows
from designer.quote_settings import ExchangeRate, PriceEntry, QuoteError, quote_from_json
from designer.samples import DGX_B200_SU

#: the catalog ids of the sample's lines that carry no vendor part number, with the seller's own
SELLER_NUMBERS = {"mgmt-node": "ACME-MGMT-2U", "power-cord-c19-c20": "ACME-PC-C19C20-2M",
                  "service-install-dgx": "ACME-SVC-DGX-INST", "ufm-licence": "ACME-UFM-LIC-250"}


@pytest.fixture(scope="module")
def sample(catalog):
    return load(DGX_B200_SU, catalog)


def _lines(a):
    return [ln for s in a.bom.sections for ln in s.lines]


def test_the_sellers_numbers_leave_no_priced_line_without_a_part_number(sample, catalog):
    before = analyze(sample, catalog)
    unnumbered = {ln.id for ln in _lines(before) if not ln.part_number}
    assert unnumbered == set(SELLER_NUMBERS)  # what the sample needs the seller for
    prices = tuple(PriceEntry(ident, 100.0, "USD", "2026-11-01", seller_part_number=pn)
                   for ident, pn in SELLER_NUMBERS.items())
    a = analyze(sample.with_quote(sample.quote.updated(prices=prices)), catalog)
    for ln in _lines(a):
        assert ln.part_number, ln.description
        assert "no-part-number" not in ln.flags and not ln.part_number_note
        assert ln.part_number_by_seller == (ln.id in SELLER_NUMBERS)
        if ln.id in SELLER_NUMBERS:
            assert ln.part_number == SELLER_NUMBERS[ln.id] and not ln.part_number_unconfirmed
    assert not [f for f in a.findings if f.code == "bom-no-part-number"]


def test_a_vendor_part_number_is_never_replaced_by_the_sellers(sample, catalog):
    prices = (PriceEntry("DGXB-G1440+P1CMI36", 500000.0, "USD", "2026-11-01", seller_part_number="ACME-DGX"),)
    a = analyze(sample.with_quote(sample.quote.updated(prices=prices)), catalog)
    dgx = next(ln for ln in _lines(a) if ln.id == "dgx-b200")
    assert dgx.part_number == "DGXB-G1440+P1CMI36" and not dgx.part_number_by_seller and dgx.unit_price == 500000.0


def test_costs_give_the_margins_by_section_and_in_all(sample, catalog):
    prices = (PriceEntry("dgx-b200", 450000.0, "EUR", "2026-11-01", cost=400000.0),
              PriceEntry("service-install-dgx", 22000.0, "USD", "2026-11-01", cost=15000.0),
              PriceEntry("920-9B210-00FN-0M0", 30000.0, "USD", "2026-11-01", cost=27500.0),
              PriceEntry("mgmt-node", 26000.0, "USD", "2026-11-01"))
    quote = sample.quote.updated(prices=prices, discounts={"compute": 5},
                                 exchange_rates=(ExchangeRate("EUR", "USD", 1.085, "2026-12-01"),))
    a = analyze(sample.with_quote(quote), catalog)
    lines = {ln.id: ln for ln in _lines(a) if not ln.spare}
    dgx = lines["dgx-b200"]
    # 450,000 EUR at 1.085 = 488,250.00 list, 463,837.50 net after 5 %; the cost 400,000 EUR = 434,000.00
    assert (dgx.unit_price, dgx.net_unit_price, dgx.unit_cost) == (488250.0, 463837.5, 434000.0)
    assert dgx.extended_cost == 434000.0 * dgx.quantity
    assert dgx.margin == pytest.approx((463837.5 - 434000.0) * dgx.quantity, abs=0.005)
    assert lines["mgmt-node"].unit_cost is None and lines["mgmt-node"].margin is None
    m = a.bom.margins
    sw = next(ln for ln in _lines(a) if ln.id == "qm9700" and not ln.spare)
    svc = lines["service-install-dgx"]
    assert m.costed_lines == 3
    assert m.net == pytest.approx(dgx.extended_price + sw.extended_price + svc.extended_price, abs=0.005)
    assert m.cost == pytest.approx(dgx.extended_cost + sw.extended_cost + svc.extended_cost, abs=0.005)
    assert m.margin == pytest.approx(m.net - m.cost, abs=0.01)
    assert m.margin_percent == pytest.approx(m.margin / m.net * 100)
    by = {r.section: r for r in m.sections}
    assert by["services"].margin_percent == pytest.approx((22000 - 15000) / 22000 * 100)
    assert by["network"].costed_lines == 1 and by["network"].uncosted_lines == 4
    assert by["optics"].costed_lines == 0 and by["optics"].margin_percent is None
    assert m.uncosted_lines == sum(r.uncosted_lines for r in m.sections) > 0


def test_without_costs_no_margin_is_given(sample, catalog):
    m = analyze(sample, catalog).bom.margins
    assert (m.costed_lines, m.net, m.cost, m.margin_percent) == (0, 0.0, 0.0, None)


def test_a_price_list_with_cost_and_seller_part_number_columns(tmp_path):
    rows = [(1, ["Part number", "List price", "Cost", "Currency", "Seller part number"]),
            (2, ["service-install-dgx", "22,000.00", "15000", "USD", "ACME-SVC-DGX-INST"]),
            (3, ["920-9B210-00FN-0M0", "30000", "", "USD", ""])]
    first, second = parse_price_rows(rows, "acme.csv")
    assert (first.amount, first.cost, first.seller_part_number) == (22000.0, 15000.0, "ACME-SVC-DGX-INST")
    assert (second.cost, second.seller_part_number) == (None, "")
    # a list whose only money column is "Cost" is read as prices, as it always was
    (only,) = parse_price_rows([(1, ["PN", "Cost", "Currency"]), (2, ["x", "5", "USD"])], "costs.csv")
    assert (only.amount, only.cost) == (5.0, None)
    with pytest.raises(QuoteError, match=r"acme.csv: row 2, cost: price 'lots' is not a number"):
        parse_price_rows([rows[0], (2, ["x", "5", "lots", "USD", ""])], "acme.csv")


def test_cost_and_seller_part_number_round_trip_and_are_checked():
    doc = {"prices": [{"part_number": "x", "amount": 5, "currency": "USD", "cost": 4, "seller_part_number": "S-1"}]}
    q = quote_from_json(doc)
    assert q.prices[0].cost == 4 and q.prices[0].seller_part_number == "S-1"
    assert q.to_json()["prices"] == doc["prices"]
    with pytest.raises(QuoteError, match=r"quote.prices\[0\].cost: must be between 0 and 1e\+12"):
        quote_from_json({"prices": [{**doc["prices"][0], "cost": -1}]})
