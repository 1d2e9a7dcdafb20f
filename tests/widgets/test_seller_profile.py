"""The user's default seller: saved from Quote ▸ Seller… into the settings the window was given, filled back
into the dialog, used by the window's quote exports when the design's quote has no seller (and said so), never
written into the design; a broken stored value is ignored with a message."""
from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QDialogButtonBox

import drawn as samples
from designer.quote_seller import Seller
from widgets.app.main_window import MainWindow
from widgets.quote.seller_dialog import SellerDialog
from widgets.quote.seller_profile import KEY, read_default, save_default

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
