"""The user's default seller: saved from Quote ▸ Seller… into the settings the window was given, filled back
into the dialog, used by the window's quote exports when the design's quote has no seller (and said so), never
written into the design; a broken stored value is ignored with a message."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QDialogButtonBox

import drawn as samples
from designer.commands import UpdateQuoteCommand
from designer.quote_seller import Seller
from widgets.app.main_window import MainWindow
from widgets.quote.seller_dialog import SellerDialog
from widgets.quote.seller_profile import FROM_DEFAULT, KEY, read_default, save_default

DEFAULT = Seller(company="Default Sales Engineering Ltd", address="1 Quay Street\nDublin", email="me@dse.example",
                 payment_terms="45 days net", incoterm="DAP Dublin")


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(qtbot, catalog, settings):
    w = MainWindow(catalog, settings=settings, debounce_ms=0)
    qtbot.addWidget(w)
    assert w.open_path(samples.DGX_B200_SU), w.last_error
    qtbot.waitUntil(lambda: w.analysis is not None and not w.runner.busy, timeout=60000)
    return w


def _open_dialog(window, qtbot) -> SellerDialog:
    window.quote_actions.seller_action.trigger()
    dialog = window.quote_actions.seller_dialog
    qtbot.waitExposed(dialog)
    return dialog


# -- the stored profile ------------------------------------------------------------------
def test_the_default_is_kept_as_the_sellers_json_and_read_back(settings):
    assert read_default(settings).seller is None and read_default(settings).problem == ""
    save_default(settings, DEFAULT)
    assert json.loads(settings.value(KEY)) == DEFAULT.to_json()
    again = QSettings(settings.fileName(), QSettings.Format.IniFormat)  # on disk, as the next start reads it
    assert read_default(again).seller == DEFAULT
    save_default(settings, Seller())  # an empty seller removes the default
    assert not settings.contains(KEY) and read_default(settings).seller is None


@pytest.mark.parametrize("stored, says", [
    ("{not json", "is not JSON"),
    ('["a list"]', "must be an object"),
    ('{"company": "A", "fax": "1"}', "fax: is not a seller field"),
    ('{"company": 7}', "must be text"),
    ('{"company": "' + "x" * 300 + '"}', "at most 200"),
    ('{"logo": "logo.gif"}', "is not a PNG, JPEG or SVG file"),
    ("x" * 70000, "characters long"),
])
def test_a_broken_stored_default_is_ignored_with_a_message(settings, stored, says):
    settings.setValue(KEY, stored)
    read = read_default(settings)
    assert read.seller is None
    assert read.problem.startswith("your default seller profile was ignored") and says in read.problem


# -- the dialog ----------------------------------------------------------------------------
def test_save_as_my_default_writes_the_fields_to_the_windows_settings(window, qtbot, settings):
    dialog = _open_dialog(window, qtbot)
    assert dialog.settings is settings
    assert not dialog.fill_default_button.isEnabled()  # nothing saved yet
    qtbot.keyClicks(dialog.fields["company"], "Default Sales Engineering Ltd")
    dialog.fields["address"].setPlainText("1 Quay Street\nDublin")
    dialog.fields["payment_terms"].setPlainText("45 days net")
    revision = window.document.revision
    dialog.save_default_button.click()
    assert read_default(settings).seller == Seller(company="Default Sales Engineering Ltd",
                                                   address="1 Quay Street\nDublin", payment_terms="45 days net")
    assert "Saved as your default seller" in dialog.status.text() and dialog.status.isVisible()
    assert dialog.fill_default_button.isEnabled()
    assert dialog.isVisible() and window.document.revision == revision  # the design is not changed


def test_save_as_my_default_refuses_what_ok_refuses(window, qtbot, settings):
    dialog = _open_dialog(window, qtbot)
    qtbot.keyClicks(dialog.fields["company"], "Acme")
    qtbot.keyClicks(dialog.fields["logo"], "/srv/brand/logo.gif")
    dialog.save_default_button.click()
    refused = dialog.status.text()
    assert refused.startswith("Your default seller was not saved: ")
    assert "quote.seller.logo" in refused and "PNG, JPEG or SVG" in refused
    assert not settings.contains(KEY)
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()  # OK says the same of the same field
    assert dialog.status.text().split(": ", 1)[1] == refused.split(": ", 1)[1]


def test_fill_from_my_default_fills_every_field_and_ok_sets_it(window, qtbot, settings):
    save_default(settings, DEFAULT)
    dialog = _open_dialog(window, qtbot)
    assert dialog.fill_default_button.isEnabled()
    assert dialog.fields["company"].text() == ""
    dialog.fill_default_button.click()
    assert dialog.fields["company"].text() == DEFAULT.company
    assert dialog.fields["address"].toPlainText() == DEFAULT.address
    assert dialog.fields["incoterm"].text() == DEFAULT.incoterm
    assert window.document.project.quote.seller.empty  # only OK sets it
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert window.document.project.quote.seller == DEFAULT


def test_a_broken_stored_default_is_said_in_the_dialog_and_fills_nothing(window, qtbot, settings):
    settings.setValue(KEY, "{not json")
    dialog = _open_dialog(window, qtbot)
    assert not dialog.fill_default_button.isEnabled()
    assert dialog.status.isVisible() and "Your default seller profile was ignored" in dialog.status.text()
    dialog.fill_from_default()  # even if called: says why, changes no field
    assert dialog.fields["company"].text() == ""


# -- the window's exports ------------------------------------------------------------------
def _export(window, qtbot, monkeypatch, name, out):
    monkeypatch.setattr(type(window.exports), "ask_path", lambda self, fmt: str(out))
    with qtbot.waitSignal(window.exports.exported, timeout=60000) as sig:
        window.exports.actions[name].trigger()
    return sig.args


def _pdf_text(path) -> str:
    from pypdf import PdfReader

    return " ".join(" ".join(p.extract_text().split()) for p in PdfReader(str(path)).pages)


def test_a_quote_without_a_seller_is_exported_with_the_default(window, qtbot, monkeypatch, settings, tmp_path):
    save_default(settings, DEFAULT)
    assert window.document.project.quote.seller.empty
    revision, dirty = window.document.revision, window.document.dirty
    for name in ("pdf", "pdf-appendix"):
        path, account = _export(window, qtbot, monkeypatch, name, tmp_path / f"{name}.pdf")
        assert account.endswith(FROM_DEFAULT)
        assert FROM_DEFAULT in window.statusBar().currentMessage()
        text = _pdf_text(path)
        assert DEFAULT.company in text and "1 Quay Street" in text
    path, account = _export(window, qtbot, monkeypatch, "xlsx", tmp_path / "quote.xlsx")
    assert account.endswith(FROM_DEFAULT)
    from openpyxl import load_workbook

    cells = [c.value for ws in load_workbook(path).worksheets for row in ws.iter_rows() for c in row]
    assert any(isinstance(v, str) and DEFAULT.company in v for v in cells)
    # the design is not changed: its quote still has no seller
    assert window.document.project.quote.seller.empty
    assert (window.document.revision, window.document.dirty) == (revision, dirty)


def test_a_seller_on_the_quote_wins_over_the_default(window, qtbot, monkeypatch, settings, tmp_path):
    save_default(settings, DEFAULT)
    window.document.push(UpdateQuoteCommand({"seller": {"company": "Own Seller GmbH"}}))
    qtbot.waitUntil(lambda: window.exports._current(), timeout=60000)
    path, account = _export(window, qtbot, monkeypatch, "pdf", tmp_path / "q.pdf")
    assert FROM_DEFAULT not in account
    text = _pdf_text(path)
    assert "Own Seller GmbH" in text and DEFAULT.company not in text


def test_without_a_default_nothing_is_added(window, qtbot, monkeypatch, tmp_path):
    path, account = _export(window, qtbot, monkeypatch, "pdf", tmp_path / "q.pdf")
    assert FROM_DEFAULT not in account and DEFAULT.company not in _pdf_text(path)


def test_other_formats_do_not_mention_the_default(window, qtbot, monkeypatch, settings, tmp_path):
    save_default(settings, DEFAULT)
    _, account = _export(window, qtbot, monkeypatch, "csv", tmp_path / "bill.csv")
    assert FROM_DEFAULT not in account


def test_a_broken_default_is_said_in_the_exports_status(window, qtbot, monkeypatch, settings, tmp_path):
    settings.setValue(KEY, '{"company": "A", "fax": "1"}')
    path, account = _export(window, qtbot, monkeypatch, "pdf", tmp_path / "q.pdf")
    assert "your default seller profile was ignored" in account and "fax" in account
    assert "your default seller profile was ignored" in window.statusBar().currentMessage()
    assert path.endswith("q.pdf")


def test_an_unreadable_logo_of_the_default_is_reported_as_the_defaults(window, qtbot, monkeypatch, settings,
                                                                     tmp_path):
    bad = tmp_path / "logo.svg"
    bad.write_text("not svg", encoding="utf-8")
    save_default(settings, Seller(company="Default Ltd", logo=str(bad)))
    errors = []
    monkeypatch.setattr(type(window.exports), "report_error", lambda self, text: errors.append(text))
    monkeypatch.setattr(type(window.exports), "ask_path", lambda self, fmt: str(tmp_path / "q.pdf"))
    window.exports.actions["pdf"].trigger()
    qtbot.waitUntil(lambda: bool(errors), timeout=60000)
    assert "logo.svg" in errors[0] and FROM_DEFAULT in errors[0]
    assert not (tmp_path / "q.pdf").exists()
