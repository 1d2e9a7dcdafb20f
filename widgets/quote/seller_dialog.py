"""Quote ▸ Seller…: who sells, as the quote's cover, footer and terms print it.

One field per :data:`designer.quote_seller.FIELDS` entry, labelled from ``LABELS``: a line for a one-line
text, a box of lines for an address or terms (``MULTILINE``), and a Choose… button beside the logo's path.
OK pushes one :class:`~designer.commands.UpdateQuoteCommand` with the whole seller, so one undo puts the
previous seller back; the command checks every field and a refusal is shown in the dialog, which stays
open. Cancel changes nothing. The file dialog is a method (:meth:`SellerDialog.ask_logo_path`), so tests
can replace it instead of meeting a modal dialog.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget)

from designer.commands import Document, UpdateQuoteCommand
from designer.quote_seller import FIELDS, LABELS, MULTILINE, Seller

from ..app.doc_binding import push
from ..facility.project_form import form_heading

LOGO_FILTER = "Images (*.png *.jpg *.jpeg *.svg);;PNG (*.png);;JPEG (*.jpg *.jpeg);;SVG (*.svg)"
#: lines a box of terms shows before it scrolls (an address shows four)
_BOX_LINES = 3


def _box_height(edit: QPlainTextEdit, lines: int) -> int:
    """The height that shows ``lines`` whole lines of ``edit``, never less than the box needs for its frame."""
    text = lines * edit.fontMetrics().lineSpacing() + 2 * edit.document().documentMargin() + 2 * edit.frameWidth()
    return max(int(text + 0.5) + 2, edit.minimumSizeHint().height())


@dataclass
class SellerEdit(UpdateQuoteCommand):
    """The seller as the dialog's OK sets it: its own undo step, never merged with the edit before it."""

    merge_key = None


class SellerDialog(QDialog):
    """The seller of ``document``'s quote, filled from it; OK sets it as one undoable edit."""

    def __init__(self, document: Document | None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Seller")
        self._document = document
        self.fields: dict[str, QLineEdit | QPlainTextEdit] = {}
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for name, limit in FIELDS:
            if name == "payment_terms":
                form.addRow(form_heading("Default terms"))
            if name in MULTILINE:
                edit = QPlainTextEdit()
                edit.setTabChangesFocus(True)  # Tab moves on, as in every other field
                edit.setFixedHeight(_box_height(edit, 4 if name == "address" else _BOX_LINES))
            else:
                edit = QLineEdit()
                edit.setMaxLength(limit)
            self.fields[name] = edit
            if name == "logo":
                edit.setPlaceholderText("none")
                self.logo_button = QPushButton("Choose…")
                # in a dialog a push button defaults to Enter: Enter accepts the dialog, never opens a file dialog
                self.logo_button.setAutoDefault(False)
                self.logo_button.clicked.connect(self.choose_logo)
                row = QHBoxLayout()
                row.addWidget(edit, 1)
                row.addWidget(self.logo_button)
                form.addRow(LABELS[name], row)
            else:
                form.addRow(LABELS[name], edit)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #B3261E;")
        self.status.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        box = QVBoxLayout(self)
        box.addLayout(form)
        box.addSpacing(6)
        box.addWidget(self.status)
        box.addWidget(self.buttons)
        self.setMinimumWidth(520)
        if document is not None:
            self.load(document.project.quote.seller)

    def load(self, seller: Seller) -> None:
        for name, edit in self.fields.items():
            value = getattr(seller, name)
            if isinstance(edit, QPlainTextEdit):
                edit.setPlainText(value)
            else:
                edit.setText(value)

    def values(self) -> dict[str, str]:
        """Every field as typed (an address's lines as typed; one-line texts without surrounding spaces)."""
        out = {}
        for name, edit in self.fields.items():
            if isinstance(edit, QPlainTextEdit):
                out[name] = edit.toPlainText().strip("\n")
            else:
                out[name] = edit.text().strip()
        return out

    # -- the logo --------------------------------------------------------------------
    def ask_logo_path(self) -> str | None:
        current = self.fields["logo"].text().strip()
        start = str(Path(current).parent) if current else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self, "Seller's logo", start, LOGO_FILTER)
        return path or None

    def choose_logo(self) -> None:
        path = self.ask_logo_path()
        if path:
            self.fields["logo"].setText(path)

    # -- OK and Cancel ---------------------------------------------------------------
    def show_refusal(self, text: str) -> None:
        self.status.setText(f"The seller was not changed: {text}")
        self.status.show()

    def accept(self) -> None:
        """Set the seller as one undo step; a refused field is shown here and the dialog stays open."""
        if self._document is None:
            self.show_refusal("no document is open")
            return
        values = self.values()
        if values == {name: getattr(self._document.project.quote.seller, name) for name, _ in FIELDS}:
            super().accept()  # nothing changed: no empty undo step
            return
        if push(self._document, SellerEdit({"seller": values}, label="Edit seller"), self.show_refusal):
            self.status.hide()
            super().accept()
