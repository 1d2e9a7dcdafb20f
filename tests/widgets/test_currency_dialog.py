"""Quote ▸ Currency and exchange rates…: the dialog fills from the design, OK sets the currency and the rates as
one undoable edit that the bill follows, and a refusal keeps the dialog open and changes nothing."""
from __future__ import annotations

from PySide6.QtWidgets import QDialogButtonBox

from designer.quote_settings import ExchangeRate, PriceEntry


def _open_dialog(window, qtbot):
    action = window.quote_actions.currency_action
    assert action in window.quote_menu.actions()
    action.trigger()
    dialog = window.quote_actions.currency_dialog
    qtbot.waitExposed(dialog)
    return dialog


def _ok(dialog):
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()


def _fill(dialog, row, *texts):
    for col, text in enumerate(texts):
        dialog.table.item(row, col).setText(text)


def test_a_rate_typed_in_converts_the_euro_line_and_one_undo_takes_it_back(window, qtbot):
    doc = window.document
    from designer.commands import UpdateQuoteCommand

    doc.push(UpdateQuoteCommand({"prices": (PriceEntry("dgx-b200", 450000.0, "EUR", "2026-11-01"),)}))
    dialog = _open_dialog(window, qtbot)
    assert dialog.currency.text() == "USD" and dialog.table.rowCount() == 0
    dialog.add_button.click()
    _fill(dialog, 0, "eur", "1.085", "", "2026-12-01", "ECB reference rate")
    steps = len(doc._done)
    _ok(dialog)
    assert not dialog.isVisible()
    assert doc.project.quote.exchange_rates == (ExchangeRate("EUR", "USD", 1.085, "2026-12-01", "ECB reference rate"),)
    assert len(doc._done) == steps + 1
    doc.undo()
    assert doc.project.quote.exchange_rates == () and doc.project.currency == "USD"


def test_the_currency_and_a_rate_are_set_together(window, qtbot):
    doc = window.document
    dialog = _open_dialog(window, qtbot)
    dialog.currency.setText("eur")
    dialog.add_button.click()
    _fill(dialog, 0, "USD", "0.92", "", "2026-12-01", "")
    _ok(dialog)
    assert doc.project.currency == "EUR"
    assert doc.project.quote.exchange_rates == (ExchangeRate("USD", "EUR", 0.92, "2026-12-01"),)
    doc.undo()
    assert doc.project.currency == "USD" and doc.project.quote.exchange_rates == ()


def test_a_bad_rate_is_refused_in_the_dialog_which_stays_open(window, qtbot):
    doc = window.document
    before = (doc.project.currency, doc.project.quote.exchange_rates)
    dialog = _open_dialog(window, qtbot)
    dialog.add_button.click()
    _fill(dialog, 0, "EUR", "abc", "", "2026-12-01", "")
    _ok(dialog)
    assert dialog.isVisible() and "exchange rate 1: 'abc' is not a number" in dialog.status.text()
    _fill(dialog, 0, "EUR", "1.1", "", "", "")
    _ok(dialog)
    assert dialog.isVisible() and "a rate is stated as of a date" in dialog.status.text()
    dialog.currency.setText("E1")
    _fill(dialog, 0, "EUR", "1.1", "", "2026-12-01", "")
    _ok(dialog)
    assert dialog.isVisible() and "is not an ISO 4217 code" in dialog.status.text()
    assert (doc.project.currency, doc.project.quote.exchange_rates) == before
    dialog.table.selectRow(0)
    dialog.remove_button.click()
    assert dialog.table.rowCount() == 0
