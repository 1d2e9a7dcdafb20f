"""Quote ▸ Seller…: who sells, as the quote's cover, footer and terms print it.

One field per :data:`designer.quote_seller.FIELDS` entry, labelled from ``LABELS``: a line for a one-line
text, a box of lines for an address or terms (``MULTILINE``), and a Choose… button beside the logo's path.
OK pushes one :class:`~designer.commands.UpdateQuoteCommand` with the whole seller, so one undo puts the
previous seller back; the command checks every field and a refusal is shown in the dialog, which stays
open. Cancel changes nothing. The file dialog is a method (:meth:`SellerDialog.ask_logo_path`), so tests
can replace it instead of meeting a modal dialog.

"Save as my default" keeps the fields, checked as OK checks them, as the user's default seller in the
application's settings (widgets/quote/seller_profile.py); "Fill from my default" puts the default into the
fields (and is disabled while there is none). Neither changes the design: only OK does.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget)

from designer.commands import Document, UpdateQuoteCommand
from designer.quote_seller import FIELDS, LABELS, MULTILINE, Seller, SellerError, seller_from_json

from ..app.doc_binding import push
from ..facility.project_form import form_heading
from .seller_profile import read_default, save_default

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
    """The seller of ``document``'s quote, filled from it; OK sets it as one undoable edit.

    ``settings`` holds the user's default seller: the window's own (``parent.settings``) unless given."""

    def __init__(self, document: Document | None, parent: QWidget | None = None, settings: QSettings | None = None):
        super().__init__(parent)
        self.setWindowTitle("Seller")
        self._document = document
        if settings is None:
            settings = getattr(parent, "settings", None)
        self.settings = settings if isinstance(settings, QSettings) else QSettings()
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
        self.status.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        # the user's own profile on the left, apart from OK and Cancel, which set or keep this quote's seller
        self.save_default_button = QPushButton("Save as my default")
        self.save_default_button.setToolTip("Keep these fields as your own seller profile, for every design: "
                                            "a quote without a seller is exported with it")
        self.save_default_button.clicked.connect(self.save_as_default)
        self.fill_default_button = QPushButton("Fill from my default")
        self.fill_default_button.setToolTip("Put your default seller profile into these fields (OK sets it)")
        self.fill_default_button.clicked.connect(self.fill_from_default)
        for button in (self.save_default_button, self.fill_default_button):
            button.setAutoDefault(False)  # Enter accepts the dialog
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        box = QVBoxLayout(self)
        box.addLayout(form)
        box.addSpacing(6)
        box.addWidget(self.status)
        row = QHBoxLayout()
        row.addWidget(self.save_default_button)
        row.addWidget(self.fill_default_button)
        row.addStretch(1)
        row.addWidget(self.buttons)
        box.addLayout(row)
        self.setMinimumWidth(560)
        if document is not None:
            self.load(document.project.quote.seller)
        stored = read_default(self.settings)
        self.fill_default_button.setEnabled(stored.seller is not None)
        if stored.problem:
            self.show_refusal(stored.problem[0].upper() + stored.problem[1:], prefix="")

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
    def show_refusal(self, text: str, prefix: str = "The seller was not changed: ") -> None:
        self._show(f"{prefix}{text}", error=True)

    def _show(self, text: str, error: bool) -> None:
        self.status.setStyleSheet("color: #B3261E;" if error else "color: #1B5E20;")
        self.status.setText(text)
        self.status.show()

    # -- the user's default seller -----------------------------------------------------
    def save_as_default(self) -> None:
        """Keep the fields as the default seller, checked as OK checks them; a refusal is shown here."""
        try:
            seller = seller_from_json(self.values())
        except SellerError as exc:
            self.show_refusal(str(exc), prefix="Your default seller was not saved: ")
            return
        save_default(self.settings, seller)
        self.fill_default_button.setEnabled(not seller.empty)
        self._show("Your default seller is cleared." if seller.empty else
                   "Saved as your default seller: a quote without a seller is exported with it.", error=False)

    def fill_from_default(self) -> None:
        """Put the default seller into the fields (the design changes only with OK)."""
        stored = read_default(self.settings)
        if stored.seller is None:
            self.fill_default_button.setEnabled(False)
            problem = stored.problem or "no default seller is saved"
            self.show_refusal(problem[0].upper() + problem[1:], prefix="")
            return
        self.load(stored.seller)
        self._show("Filled from your default seller; OK sets it on this quote.", error=False)

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
