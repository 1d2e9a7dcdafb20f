from __future__ import annotations

import json

import pytest

from designer.commands import CommandError, Document, SetDiscountCommand, UpdateQuoteCommand
from designer.fileformat import FORMAT_VERSION, ProjectFileError, dumps, loads, to_dict
from designer.quote_settings import PriceEntry, QuoteError, QuoteSettings, quote_from_json
from designer.samples import DGX_B200_SU


def sample_doc() -> dict:
    return json.loads(DGX_B200_SU.read_text())


def test_quote_round_trips_through_the_project_file(catalog):
    project = loads(DGX_B200_SU.read_text(), catalog)
    quote = QuoteSettings(customer="Acme AI Labs", prepared_by="J. Doe", quote_number="Q-2026-0042",
                          quote_date="2026-12-01", validity_days=45, discounts=(("compute", 7.5), ("optics", 20.0)),
                          spares_percent=5, term_years=5, excluded=("nvaie",), price_max_age_days=90,
                          prices=(PriceEntry("DGXB-G1440+P1CMI36", 480000, "USD", "2026-11-01", "quote 4711"),),
                          price_list_name="prices.csv", depreciation_years=5, utilisation=0.9,
                          energy_price_per_kwh=0.12)
    again = loads(dumps(project.with_quote(quote)), catalog)
    assert again.quote == quote
    assert to_dict(again)["format_version"] == FORMAT_VERSION == 6


def test_default_quote_is_not_written_and_version_2_files_load(catalog):
    doc = sample_doc()
    assert doc["format_version"] in (2, 3, 4, 5, 6) and "quote" not in doc
    doc["format_version"] = 2
    project = loads(json.dumps(doc), catalog)
    assert project.quote == QuoteSettings() and "quote" not in to_dict(project)


@pytest.mark.parametrize("quote, where", [
    ({"discounts": {"compute": 120}}, "quote.discounts.compute"),
    ({"discounts": {"gpus": 5}}, "quote.discounts.gpus"),
    ({"validity_days": 1.5}, "quote.validity_days"),
    ({"quote_date": "2026-13-01"}, "quote.quote_date"),
    ({"utilisation": 0}, "quote.utilisation"),
    ({"energy_price_per_kwh": float("nan")}, "quote.energy_price_per_kwh"),
    ({"customer": "x" * 500}, "quote.customer"),
    ({"customer": "bad\udc80"}, "quote.customer"),
    ({"prices": [{"part_number": "A", "amount": -1, "currency": "USD"}]}, "quote.prices[0].amount"),
    ({"prices": [{"part_number": "A", "amount": 1, "currency": "usd"}]}, "quote.prices[0].currency"),
    ({"prices": [{"part_number": "A", "amount": 1}]}, "quote.prices[0]"),
    ({"colour": "red"}, "quote.colour"),
    ({"term_years": 10**400}, "quote.term_years"),
])
def test_bad_quote_settings_name_their_key(catalog, quote, where):
    doc = sample_doc()
    doc["quote"] = quote
    with pytest.raises(ProjectFileError) as exc:
        loads(json.dumps(doc) if "\udc80" not in str(quote) else json.dumps(doc, ensure_ascii=True), catalog)
    assert str(exc.value).startswith(where)


def test_quote_edits_are_undoable_commands(catalog):
    doc = Document(loads(DGX_B200_SU.read_text(), catalog), catalog)
    doc.push(SetDiscountCommand("network", 15))
    doc.push(UpdateQuoteCommand({"customer": "Acme"}))
    assert doc.project.quote.discount("network") == 15 and doc.project.quote.customer == "Acme"
    doc.undo()
    assert doc.project.quote.customer == "" and doc.project.quote.discount("network") == 15
    doc.undo()
    assert doc.project.quote.discounts == ()
    with pytest.raises(CommandError, match="spares_percent"):
        doc.push(UpdateQuoteCommand({"spares_percent": 250}))
    with pytest.raises(CommandError, match="not a section"):
        doc.push(SetDiscountCommand("gpus", 5))
    assert doc.project.quote == QuoteSettings()


def test_typing_a_discount_merges_into_one_undo_step(catalog):
    doc = Document(loads(DGX_B200_SU.read_text(), catalog), catalog)
    for pct in (1, 12, 12.5):
        doc.push(SetDiscountCommand("compute", pct))
    doc.undo()
    assert doc.project.quote.discounts == ()


def test_zero_discount_removes_the_entry():
    q = QuoteSettings().with_discount("compute", 10).with_discount("compute", 0)
    assert q.discounts == ()
    with pytest.raises(QuoteError):
        quote_from_json({"discounts": ["compute"]})


@pytest.mark.parametrize("changes, message", [
    ({"excluded": "nvaie"}, "quote.excluded: must be a list"),
    ({"prices": [{"part_number": "A", "amount": 1, "currency": "USD"}]}, r"quote.prices\[0\]: must be a price entry"),
    ({"quote_date": 0}, "quote.quote_date: must be text"),
    ({"discounts": {"compute": 12.3456}}, "give at most three decimals"),
    ({"customer": "Acme\ufffe"}, "non-character"),
    ({"prices": (PriceEntry("A", 1, "USD"), PriceEntry("a", 2, "USD"))}, "listed twice"),
])
def test_quote_edits_of_the_wrong_type_are_refused(catalog, changes, message):
    doc = Document(loads(DGX_B200_SU.read_text(), catalog), catalog)
    with pytest.raises(CommandError, match=message):
        doc.push(UpdateQuoteCommand(changes))


def test_lists_are_kept_as_tuples_so_the_project_stays_comparable(catalog):
    doc = Document(loads(DGX_B200_SU.read_text(), catalog), catalog)
    doc.push(UpdateQuoteCommand({"excluded": ["nvaie"], "prices": [PriceEntry("A", 1, "USD")]}))
    assert doc.project.quote.excluded == ("nvaie",) and isinstance(doc.project.quote.prices, tuple)
    assert loads(dumps(doc.project), catalog).quote == doc.project.quote
