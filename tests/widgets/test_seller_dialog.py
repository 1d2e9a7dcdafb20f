"""Quote ▸ Seller…: the dialog fills from the quote's seller, OK is one undoable edit, a refusal keeps it open."""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QLineEdit, QPlainTextEdit

from designer.quote_seller import FIELDS, LABELS, MULTILINE, Seller


def _open_dialog(window, qtbot):
    action = window.quote_actions.seller_action
    assert action in window.quote_menu.actions() and action.text() == "S&eller…"
    action.trigger()
    dialog = window.quote_actions.seller_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    return dialog


def _press(dialog, which):
    dialog.buttons.button(which).click()


def test_every_seller_field_has_its_widget_and_label(window, qtbot):
    dialog = _open_dialog(window, qtbot)
    assert [name for name, _ in FIELDS] == list(dialog.fields)
    for name, limit in FIELDS:
        edit = dialog.fields[name]
        assert isinstance(edit, QPlainTextEdit if name in MULTILINE else QLineEdit)
        if isinstance(edit, QLineEdit):
            assert edit.maxLength() == limit
        form = dialog.layout().itemAt(0).layout()
        label = form.labelForField(_logo_row(dialog) if name == "logo" else edit)
        assert label is not None and label.text() == LABELS[name]


def _logo_row(dialog):
    form = dialog.layout().itemAt(0).layout()
    for row in range(form.rowCount()):
        item = form.itemAt(row, form.ItemRole.FieldRole)
        if item is not None and item.layout() is not None:
            return item.layout()
    raise AssertionError("no logo row")


def test_company_and_a_two_line_address_are_set_by_ok_and_undone_in_one_step(window, qtbot):
    before = window.document.project.quote.seller
    dialog = _open_dialog(window, qtbot)
    qtbot.keyClicks(dialog.fields["company"], "Acme Compute GmbH")
    address = dialog.fields["address"]
    address.setFocus()
    qtbot.keyClicks(address, "Hauptstrasse 1")
    qtbot.keyClick(address, Qt.Key.Key_Return)
    qtbot.keyClicks(address, "10115 Berlin")
    _press(dialog, QDialogButtonBox.StandardButton.Ok)
    assert not dialog.isVisible()
    seller = window.document.project.quote.seller
    assert seller.company == "Acme Compute GmbH"
    assert seller.address_lines() == ["Hauptstrasse 1", "10115 Berlin"]
    assert window.undo_action.text() == "Undo Edit seller"
    window.undo_action.trigger()
    assert window.document.project.quote.seller == before
    window.redo_action.trigger()
    assert window.document.project.quote.seller.company == "Acme Compute GmbH"


def test_the_dialog_is_filled_from_the_current_seller(window, qtbot):
    from designer.commands import UpdateQuoteCommand

    window.document.push(UpdateQuoteCommand({"seller": {"company": "Acme", "address": "Street 1\nTown",
                                                        "payment_terms": "30 days net"}}))
    dialog = _open_dialog(window, qtbot)
    assert dialog.fields["company"].text() == "Acme"
    assert dialog.fields["address"].toPlainText() == "Street 1\nTown"
    assert dialog.fields["payment_terms"].toPlainText() == "30 days net"
    revision = window.document.revision
    _press(dialog, QDialogButtonBox.StandardButton.Ok)  # nothing changed: no new undo step
    assert not dialog.isVisible()
    assert window.undo_action.text() == "Undo Edit quote"
    assert window.document.revision == revision


def test_a_logo_that_is_not_png_jpeg_or_svg_is_refused_in_the_dialog(window, qtbot):
    before = window.document.project.quote.seller
    undo_text = window.undo_action.text()
    dialog = _open_dialog(window, qtbot)
    qtbot.keyClicks(dialog.fields["company"], "Acme")
    qtbot.keyClicks(dialog.fields["logo"], "/tmp/logo.gif")
    _press(dialog, QDialogButtonBox.StandardButton.Ok)
    assert dialog.isVisible()
    assert dialog.status.isVisible()
    assert "quote.seller.logo" in dialog.status.text() and "PNG, JPEG or SVG" in dialog.status.text()
    assert window.document.project.quote.seller == before
    assert window.undo_action.text() == undo_text
    # corrected, the same dialog sets it
    dialog.fields["logo"].setText("/tmp/logo.png")
    _press(dialog, QDialogButtonBox.StandardButton.Ok)
    assert not dialog.isVisible()
    assert window.document.project.quote.seller.logo == "/tmp/logo.png"


def test_the_logo_button_fills_the_path_it_was_given(window, qtbot, monkeypatch):
    dialog = _open_dialog(window, qtbot)
    monkeypatch.setattr(type(dialog), "ask_logo_path", lambda self: "/srv/brand/logo.jpeg")
    qtbot.mouseClick(dialog.logo_button, Qt.MouseButton.LeftButton)
    assert dialog.fields["logo"].text() == "/srv/brand/logo.jpeg"
    monkeypatch.setattr(type(dialog), "ask_logo_path", lambda self: None)  # cancelled: the path stays
    qtbot.mouseClick(dialog.logo_button, Qt.MouseButton.LeftButton)
    assert dialog.fields["logo"].text() == "/srv/brand/logo.jpeg"
    assert window.document.project.quote.seller.logo == ""  # nothing is set before OK


def test_cancel_changes_nothing(window, qtbot):
    before = window.document.project.quote.seller
    undo_text = window.undo_action.text()
    dialog = _open_dialog(window, qtbot)
    qtbot.keyClicks(dialog.fields["company"], "Not kept")
    dialog.fields["address"].setPlainText("Line 1\nLine 2")
    _press(dialog, QDialogButtonBox.StandardButton.Cancel)
    assert not dialog.isVisible()
    assert window.document.project.quote.seller == before
    assert window.undo_action.text() == undo_text
    assert not window.document.dirty


def test_screenshot_at_natural_size(window, qtbot):
    from designer.commands import UpdateQuoteCommand

    seller = Seller(company="Acme Compute GmbH", address="Hauptstrasse 1\n10115 Berlin\nGermany",
                    contact="Jane Doe", email="sales@acme.example", phone="+49 30 1234567", tax_id="DE123456789",
                    logo="/srv/brand/acme-logo.png", payment_terms="30 days net from invoice date",
                    delivery_terms="6-8 weeks after order", warranty_terms="3 years return to base",
                    incoterm="DAP Berlin")
    window.document.push(UpdateQuoteCommand({"seller": seller.to_json()}))
    dialog = _open_dialog(window, qtbot)
    dialog.show_refusal("quote.seller.logo: 'x.gif' is not a PNG, JPEG or SVG file")
    dialog.adjustSize()
    qtbot.wait(10)
    for edit in dialog.fields.values():  # nothing squeezed below what it needs
        assert edit.height() >= edit.minimumSizeHint().height()
    assert dialog.status.height() >= dialog.status.heightForWidth(dialog.status.width())
    out = Path(os.environ.get("SELLER_SHOTS", "/tmp/seller_shots"))
    out.mkdir(parents=True, exist_ok=True)
    assert dialog.grab().save(str(out / "seller_dialog.png"))


def test_two_seller_edits_in_a_row_are_two_undo_steps(window, qtbot):
    for company in ("First", "Second"):
        dialog = _open_dialog(window, qtbot)
        dialog.fields["company"].setText(company)
        _press(dialog, QDialogButtonBox.StandardButton.Ok)
    assert window.document.project.quote.seller.company == "Second"
    window.undo_action.trigger()
    assert window.document.project.quote.seller.company == "First"
