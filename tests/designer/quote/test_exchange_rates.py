"""Prices in another currency put on the quote at a stated rate and date: the converted line's columns multiply
in the quote's currency, the rate is named on the bill, and a currency with no rate still stays out of the total."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest

from designer.analysis import analyze
from designer.commands import CommandError, SetCurrencyCommand, UpdateQuoteCommand
from designer.fileformat import load
from designer.fileformat.writing import to_dict
from designer.quote_settings import ExchangeRate, PriceEntry, QuoteError, QuoteSettings, quote_from_json
from designer.samples import DGX_B200_SU

EUR_DGX = PriceEntry("dgx-b200", 450000.0, "EUR", "2026-11-01", "EU distributor")
ECB = ExchangeRate("EUR", "USD", 1.085, "2026-12-01", "ECB reference rate")


@pytest.fixture(scope="module")
def project(catalog):
    p = load(DGX_B200_SU, catalog)
    return p.with_quote(p.quote.updated(quote_date="2026-12-04", prices=(EUR_DGX,)))


def _line(bom, ident):
    return next(ln for s in bom.sections for ln in s.lines if ln.id == ident and not ln.spare)


def test_a_price_in_euro_is_converted_at_the_stated_rate_and_its_columns_multiply(project, catalog):
    a = analyze(project.with_quote(project.quote.updated(exchange_rates=(ECB,), discounts={"compute": 10})),
                catalog)
    ln = _line(a.bom, "dgx-b200")
    assert (ln.original_unit_price, ln.original_currency, ln.exchange_rate) == (450000.0, "EUR", 1.085)
    assert ln.currency == "USD" and ln.unit_price == 488250.0 and "converted" in ln.flags
    net = (Decimal("488250") * Decimal("0.9")).quantize(Decimal("0.01"), ROUND_HALF_UP)
    assert ln.net_unit_price == float(net) == 439425.0
    assert ln.extended_price == float(net * ln.quantity)
    # the converted line is in the quote's total; nothing is left in another currency
    assert a.bom.other_currencies == {} and a.bom.currency == "USD"
    assert [(r.base, r.quote, r.rate, r.date, r.lines) for r in a.bom.exchange_rates] == [
        ("EUR", "USD", 1.085, "2026-12-01", 1)]
    assert a.bom.conversion_notes() == ["Prices in EUR are converted to USD at 1 EUR = 1.085 USD (2026-12-01, "
                                        "ECB reference rate), on 1 line of the bill."]
    finding = next(f for f in a.findings if f.code == "bom-converted")
    assert "1 EUR = 1.085 USD (2026-12-01, ECB reference rate), 1 line" in finding.message


def test_without_a_rate_the_euro_line_stays_out_of_the_total(project, catalog):
    a = analyze(project, catalog)
    ln = _line(a.bom, "dgx-b200")
    assert ln.currency == "EUR" and ln.original_currency is None and "converted" not in ln.flags
    assert a.bom.other_currencies == {"EUR": 450000.0 * ln.quantity} and list(a.bom.exchange_rates) == []
    with_rate = analyze(project.with_quote(project.quote.updated(exchange_rates=(ECB,))), catalog)
    assert with_rate.bom.price_total == pytest.approx(a.bom.price_total + 488250.0 * ln.quantity, abs=0.005)


def test_a_rate_stated_the_other_way_is_inverted(project, catalog):
    usd_eur = ExchangeRate("USD", "EUR", 0.8, "2026-12-01")
    a = analyze(project.with_quote(project.quote.updated(exchange_rates=(usd_eur,))), catalog)
    ln = _line(a.bom, "dgx-b200")
    assert ln.exchange_rate == 1.25 and ln.unit_price == 562500.0 and ln.currency == "USD"


def test_a_quote_in_euro_converts_the_catalogs_dollar_prices(project, catalog):
    eur = SetCurrencyCommand("eur").apply(project, catalog)[0]
    assert eur.currency == "EUR"
    eur = eur.with_quote(eur.quote.updated(exchange_rates=(ExchangeRate("USD", "EUR", 0.92, "2026-12-01"),)))
    a = analyze(eur, catalog)
    assert a.bom.currency == "EUR" and a.bom.other_currencies == {}
    nic = next(ln for s in a.bom.sections for ln in s.lines if ln.original_currency == "USD")
    assert nic.unit_price == float((Decimal(str(nic.original_unit_price)) * Decimal("0.92")).quantize(
        Decimal("0.01"), ROUND_HALF_UP))
    # the EUR list price of the DGX is taken as it is
    dgx = _line(a.bom, "dgx-b200")
    assert dgx.unit_price == 450000.0 and dgx.original_currency is None


def test_rates_round_trip_through_the_project_file(project, catalog):
    p = project.with_quote(project.quote.updated(exchange_rates=(ECB,)))
    doc = to_dict(p)
    assert doc["quote"]["exchange_rates"] == [{"base": "EUR", "quote": "USD", "rate": 1.085, "date": "2026-12-01",
                                               "source": "ECB reference rate"}]
    assert quote_from_json(doc["quote"]).exchange_rates == (ECB,)
    # a quote without rates saves as before rates existed
    assert "exchange_rates" not in QuoteSettings().to_json()


@pytest.mark.parametrize("rates, message", [
    ([{"base": "EUR", "quote": "USD", "rate": 1.1}], "must be an object with base, quote, rate, date"),
    ([{"base": "EUR", "quote": "USD", "rate": 1.1, "date": ""}], "exchange_rates[0].date: a rate is stated"),
    ([{"base": "EUR", "quote": "EUR", "rate": 1, "date": "2026-12-01"}], "converts EUR to itself"),
    ([{"base": "EURO", "quote": "USD", "rate": 1, "date": "2026-12-01"}], "exchange_rates[0].base: 'EURO'"),
    ([{"base": "EUR", "quote": "USD", "rate": 0, "date": "2026-12-01"}], "exchange_rates[0].rate: must be between"),
    ([{"base": "EUR", "quote": "USD", "rate": float("nan"), "date": "2026-12-01"}], "rate: must be between"),
    ([{"base": "EUR", "quote": "USD", "rate": 1.1, "date": "2026-12-01"},
      {"base": "USD", "quote": "EUR", "rate": 0.9, "date": "2026-12-01"}], "between USD and EUR is given twice"),
    ([{"base": "EUR", "quote": "USD", "rate": 1.1, "date": "2026-12-01", "bank": "x"}], "must be an object"),
    ([{"base": "EUR", "quote": "USD", "rate": 1.1, "date": "2026-12-01"}] * 51, "51 rates; at most 50"),
])
def test_a_bad_rate_is_refused_naming_it(rates, message):
    with pytest.raises(QuoteError) as err:
        quote_from_json({"exchange_rates": rates})
    assert message in str(err.value)


def test_the_currency_command_checks_the_code_and_undoes(project, catalog):
    from designer.commands import Document

    doc = Document(project, catalog)
    doc.push(SetCurrencyCommand("chf"))
    assert doc.project.currency == "CHF"
    doc.undo()
    assert doc.project.currency == "USD"
    with pytest.raises(CommandError, match="'DOLLAR' is not an ISO 4217 code"):
        SetCurrencyCommand("dollar").apply(project, catalog)
    with pytest.raises(CommandError, match="exchange_rates"):
        UpdateQuoteCommand({"exchange_rates": ("EUR",)}).apply(project, catalog)
