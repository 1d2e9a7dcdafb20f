"""Quote ▸ Quote settings… and the price list: who the quote is for, its terms, and the prices it uses.

Every field pushes :class:`~designer.commands.UpdateQuoteCommand` on the window's
document, so an edit is undone like any other and typing into one field is one undo
step; the command checks the value and a refusal is shown under the fields. A price
list is read by :func:`designer.quote.prices.read_price_list` and stored in the project
(the quote then prices the same on any machine). Questions and error boxes are methods
of :class:`QuoteActions`, so tests can replace them instead of meeting a modal dialog.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (QCheckBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFileDialog, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QMenu, QMessageBox, QPushButton, QSpinBox, QVBoxLayout,
                               QWidget)

from catalog.records import QUOTE_KINDS
from designer.commands import Document, MacroCommand, SetDiscountCommand, UpdateQuoteCommand
from designer.model import Project
from designer.quote_settings import MAX_TEXT, MIN_DISCOUNT, SECTION_KEYS, QuoteError, QuoteSettings, next_revision

from ..app.doc_binding import bind, push
from ..facility.project_form import form_heading
from .seller_dialog import SellerDialog



@dataclass
class _PriceListEdit(UpdateQuoteCommand):
    """Loading or clearing a price list: its own undo step, never merged into the edit before it
    (two list edits in a row touch the same fields, which would otherwise make them one step)."""

    merge_key = None


@dataclass
class _RevisionEdit(UpdateQuoteCommand):
    """A revision letter typed or a new revision: its own undo step (two new revisions are two steps)."""

    merge_key = None


PRICE_LIST_FILTER = "Price lists (*.csv *.xlsx);;All files (*)"
#: (field, label) of the free-text fields, typed into and pushed as they change
TEXT_FIELDS = [("customer", "Customer"), ("prepared_by", "Prepared by"), ("quote_number", "Quote number")]
#: (field, label, suffix, minimum, maximum, decimals, shown per stored unit); decimals None = a whole number.
#: The ranges are the quote's own (designer.quote_settings.check_quote), so the boxes cannot ask for a refusal.
NUMBER_FIELDS = [
    ("validity_days", "Valid for", " days", 1, 3650, None, 1),
    ("spares_percent", "Spare optics and cables", " %", 0.0, 100.0, 1, 1),
    ("term_years", "Subscription term", " years", 1, 10, None, 1),
    ("price_max_age_days", "Flag prices older than", " days", 1, 36500, None, 1),
    ("depreciation_years", "Depreciation", " years", 0.5, 30.0, 1, 1),
    ("utilisation", "Utilisation", " %", 1.0, 100.0, 0, 100),
    ("energy_price_per_kwh", "Energy price", " per kWh", 0.0, 100.0, 3, 1),
]


class QuoteForm(QDialog):
    """A non-modal dialog with the quote's settings; it follows the window's document."""

    def __init__(self, actions: QuoteActions, parent: QWidget | None = None):
        super().__init__(parent)
        self.actions = actions
        self.setWindowTitle("Quote settings")
        self.setModal(False)
        self._document: Document | None = None
        self._loading = False
        form = QFormLayout()
        form.addRow(form_heading("The quote"))
        self.texts: dict[str, QLineEdit] = {}
        for key, label in TEXT_FIELDS:
            edit = QLineEdit()
            edit.setMaxLength(MAX_TEXT)
            edit.textEdited.connect(lambda text, k=key: self._push({k: text}))
            self.texts[key] = edit
            form.addRow(label, edit)
        self._add_revision(form)
        self.quote_date = QLineEdit()
        self.quote_date.setPlaceholderText("the day of the analysis (or YYYY-MM-DD)")
        self.quote_date.setToolTip("The day prices are quoted on; empty means the day the design is analysed")
        # Pushed when typing ends: half a date ("2026-0") is not a date to refuse at every keystroke.
        self.quote_date.editingFinished.connect(self._push_date)
        form.addRow("Quote date", self.quote_date)
        self.numbers: dict[str, QSpinBox | QDoubleSpinBox] = {}
        for key, label, suffix, lo, hi, decimals, scale in NUMBER_FIELDS:
            if key == "depreciation_years":
                self._add_optional_lines(form, actions.window.catalog)
                form.addRow(form_heading("Cost of ownership"))
            box = QSpinBox() if decimals is None else QDoubleSpinBox()
            if decimals is not None:
                box.setDecimals(decimals)
            box.setRange(lo, hi)
            box.setSuffix(suffix)
            box.setAlignment(Qt.AlignmentFlag.AlignRight)
            box.setKeyboardTracking(False)  # one push when the value is entered, not one per digit
            box.valueChanged.connect(lambda v, k=key, s=scale, d=decimals: self._push(
                {k: int(v) if d is None else round(v / s, 6)}))
            self.numbers[key] = box
            form.addRow(label, box)
        form.addRow(form_heading("Prices"))
        self.price_list = QLabel()
        self.price_list.setWordWrap(True)
        self.load_button = QPushButton("Load…")
        self.load_button.clicked.connect(lambda: actions.load_price_list())
        self.clear_button = QPushButton("Clear")
        # In a dialog every push button defaults to Enter: Enter in a field commits it, never opens a file dialog.
        for button in (self.load_button, self.clear_button):
            button.setAutoDefault(False)
            button.setDefault(False)
        self.clear_button.clicked.connect(actions.clear_price_list)
        row = QHBoxLayout()
        row.addWidget(self.price_list, 1)
        row.addWidget(self.load_button)
        row.addWidget(self.clear_button)
        form.addRow("Price list", row)
        self._add_whole_discount(form)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #B3261E;")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.hide)
        box = QVBoxLayout(self)
        box.addLayout(form)
        box.addWidget(self.status)
        box.addStretch(1)
        box.addWidget(buttons)
        self.setMinimumWidth(640)  # the optional lines' names whole

    def _add_revision(self, form: QFormLayout) -> None:
        """The revision letter (A, B, ... Z, AA ... ZZ), checked by the command, and a button to the next one."""
        self.revision = QLineEdit()
        self.revision.setMaxLength(2)
        self.revision.setMaximumWidth(60)
        self.revision.setToolTip("The quote's revision letter: A for the first issue, then B, C, ... Z, AA ... ZZ")
        # Pushed when typing ends: a letter being replaced is not one to refuse at every keystroke.
        self.revision.editingFinished.connect(self._push_revision)
        self.new_revision = QPushButton("New revision")
        self.new_revision.setToolTip("Re-issue the quote under the next revision letter (one undo step)")
        self.new_revision.setAutoDefault(False)
        self.new_revision.setDefault(False)
        self.new_revision.clicked.connect(self.next_revision)
        row = QHBoxLayout()
        row.addWidget(self.revision)
        row.addWidget(self.new_revision)
        row.addStretch(1)
        form.addRow("Revision", row)

    def _push_revision(self) -> None:
        text = self.revision.text().strip()
        if self._document is not None and text != self._document.project.quote.revision:
            self._push_command(_RevisionEdit({"revision": text}, label="Set revision"))

    def next_revision(self) -> None:
        """The next revision letter (B after A), as one undoable edit; past ZZ the refusal is shown."""
        if self._document is None:
            return
        try:
            letter = next_revision(self._document.project.quote.revision)
        except QuoteError as exc:
            self.status.setText(str(exc))
            return
        self._push_command(_RevisionEdit({"revision": letter}, label=f"New revision {letter}"))

    def _add_optional_lines(self, form: QFormLayout, catalog) -> None:
        """One box per quote-only line of the catalog (subscriptions, services, cords): ticked = on the bill."""
        form.addRow(form_heading("Lines on the bill"))
        self.optional: dict[str, QCheckBox] = {}
        for dev in sorted(catalog.of_kind(*QUOTE_KINDS), key=lambda d: (d.kind, d.name)):
            box = QCheckBox(dev.name)
            price = dev.price
            box.setToolTip(dev.description + (f" ({price.currency} {price.amount:,.0f}"
                                               f"{' per year' if dev.per_year else ''})" if price else
                                               " (no price known)"))
            box.toggled.connect(self._push_excluded)
            self.optional[dev.id] = box
            form.addRow("", box)

    def _push_excluded(self) -> None:
        # lines this catalog does not list (a colleague's own entries) stay excluded as the file says
        kept = {k for k in self._document.project.quote.excluded if k not in self.optional} if self._document else set()
        unticked = {k for k, box in self.optional.items() if not box.isChecked()}
        self._push({"excluded": tuple(sorted(kept | unticked))})

    # ---- document ---------------------------------------------------------------------------
    def set_document(self, document: Document | None) -> None:
        self._document = document
        self.status.setText("")
        if document is not None:
            bind(document, self, "_on_project_changed")
            self.load(document.project)

    def _on_project_changed(self, project: Project, change) -> None:
        self.load(project)

    def load(self, project: Project) -> None:
        """Show ``project``'s quote settings (never pushing them back)."""
        q: QuoteSettings = project.quote
        self._loading = True
        try:
            for key, edit in self.texts.items():
                if edit.text() != getattr(q, key):
                    edit.setText(getattr(q, key))
            if not self.revision.hasFocus() and self.revision.text() != q.revision:
                self.revision.setText(q.revision)
            if not self.quote_date.hasFocus() and self.quote_date.text() != q.quote_date:
                self.quote_date.setText(q.quote_date)
            for key, _label, _suffix, _lo, _hi, _decimals, scale in NUMBER_FIELDS:
                box, value = self.numbers[key], getattr(q, key) * scale
                if abs(box.value() - value) > 1e-9:
                    box.setValue(value)
            self.numbers["energy_price_per_kwh"].setPrefix(f"{project.currency} ")
            for key, box in self.optional.items():
                box.setChecked(key not in q.excluded)
            if q.price_list_name or q.prices:
                self.price_list.setText(f"{q.price_list_name or 'unnamed list'}: {len(q.prices):,} "
                                        f"price{'s' if len(q.prices) != 1 else ''}")
            else:
                self.price_list.setText("none (catalog prices)")
            self.clear_button.setEnabled(bool(q.prices or q.price_list_name))
        finally:
            self._loading = False

    # ---- edits ------------------------------------------------------------------------------
    def _push(self, changes: dict) -> None:
        if self._loading:
            return
        self._push_command(UpdateQuoteCommand(changes))

    def _push_command(self, command: UpdateQuoteCommand) -> None:
        if push(self._document, command, self.status.setText):
            self.status.setText("")

    def _push_date(self) -> None:
        text = self.quote_date.text().strip()
        if self._document is not None and text != self._document.project.quote.quote_date:
            self._push({"quote_date": text})


    def _add_whole_discount(self, form: QFormLayout) -> None:
        """One discount (or uplift, below zero) for the whole quote: every section's, as export --discount."""
        self.whole = QDoubleSpinBox()
        self.whole.setRange(MIN_DISCOUNT, 100.0)
        self.whole.setDecimals(2)
        self.whole.setSuffix(" %")
        self.whole.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.whole.setToolTip("A discount off list for the whole quote (negative: an uplift over list); each "
                              "section's own is set in the Bill of materials tab")
        self.apply_whole = QPushButton("Apply to every section")
        self.apply_whole.setAutoDefault(False)
        self.apply_whole.setToolTip("Set every section's discount to this one, as one undoable edit")
        self.apply_whole.clicked.connect(lambda: self.set_whole_discount(round(self.whole.value(), 2)))
        row = QHBoxLayout()
        row.addWidget(self.whole, 1)
        row.addWidget(self.apply_whole)
        form.addRow("Whole-quote discount", row)

    def set_whole_discount(self, percent: float) -> bool:
        """Every section's discount set to ``percent`` as one undo step (a negative one is an uplift)."""
        command = MacroCommand([SetDiscountCommand(key, percent) for key in SECTION_KEYS],
                               label="Set the whole quote's discount")
        if push(self._document, command, self.status.setText):
            self.status.setText("")
            return True
        return False


class QuoteActions(QObject):
    """The Quote menu of one :class:`~widgets.app.main_window.MainWindow`: settings and price lists."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.form: QuoteForm | None = None
        self.seller_dialog: SellerDialog | None = None

    def build_menu(self, menubar) -> QMenu:
        menu = menubar.addMenu("&Quote")
        self.settings_action = menu.addAction("Quote &settings…")
        self.settings_action.triggered.connect(self.show_settings)
        self.seller_action = menu.addAction("S&eller…")
        self.seller_action.triggered.connect(self.show_seller)
        self.currency_action = menu.addAction("C&urrency and exchange rates…")
        self.currency_action.triggered.connect(self.show_currency)
        self.load_action = menu.addAction("&Load price list…")
        self.load_action.triggered.connect(lambda: self.load_price_list())
        self.clear_action = menu.addAction("&Clear price list")
        self.clear_action.triggered.connect(self.clear_price_list)
        menu.addSeparator()
        self.changes_action = menu.addAction("Quote PDF with &changes since an earlier revision…")
        self.changes_action.setToolTip("The customer's quote PDF with a page of what changed in the bill since the "
                                       "revision in another project file")
        self.changes_action.triggered.connect(lambda: self.window.exports.export_changes_since())
        menu.aboutToShow.connect(self._update_actions)
        self.menu = menu
        return menu

    def _update_actions(self) -> None:
        q = self.window.document.project.quote
        self.clear_action.setEnabled(bool(q.prices or q.price_list_name))

    def show_settings(self) -> QuoteForm:
        if self.form is None:
            self.form = QuoteForm(self, self.window)
            self.form.set_document(self.window.document)
            self.window.document_replaced.connect(self.form.set_document)
        self.form.show()
        self.form.raise_()
        self.form.activateWindow()
        return self.form

    def show_seller(self) -> SellerDialog:
        """Quote ▸ Seller…: a window-modal dialog filled from the current quote's seller (returns at once)."""
        if self.seller_dialog is not None:
            self.seller_dialog.close()
            self.seller_dialog.deleteLater()
        dialog = SellerDialog(self.window.document, self.window)
        # another document opened behind it (a recovery, a sample) must not receive this one's seller
        self.window.document_replaced.connect(dialog.reject)
        self.seller_dialog = dialog
        dialog.open()
        return dialog

    def show_currency(self):
        """Quote ▸ Currency and exchange rates…: a window-modal dialog filled from the design (returns at once)."""
        from .currency_dialog import CurrencyDialog

        dialog = CurrencyDialog(self.window.document, self.window)
        self.window.document_replaced.connect(dialog.reject)
        self.currency_dialog = dialog
        dialog.open()
        return dialog

    # -- questions (tests replace these to avoid modal dialogs) -----------------
    def ask_price_list_path(self) -> str | None:
        start = str(self.window.path.parent) if self.window.path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(self.window, "Load price list", start, PRICE_LIST_FILTER)
        return path or None

    def report_error(self, text: str) -> None:
        QMessageBox.warning(self.window, "Price list", text)

    # -- price lists --------------------------------------------------------------
    def load_price_list(self, path: str | Path | None = None) -> bool:
        """Read a CSV or XLSX price list and make it the quote's; a file that cannot be used is reported."""
        from designer.quote.prices import read_price_list

        path = path or self.ask_price_list_path()
        if not path:
            return False
        try:
            # a list without a currency column is in the project's currency, as on the command line
            entries, name = read_price_list(path, default_currency=self.window.project.currency)
        except QuoteError as exc:
            self.report_error(f"The price list was not loaded: {exc}")
            return False
        except OSError as exc:  # catalog.files.FileReadError says why in words; a bare OSError has strerror
            self.report_error(f"The price list was not loaded: {Path(path).name} cannot be read "
                              f"({getattr(exc, 'reason', None) or exc.strerror or exc})")
            return False
        command = _PriceListEdit({"prices": entries, "price_list_name": name}, label="Load price list")
        if not push(self.window.document, command, self.report_error):
            return False
        self.window.statusBar().showMessage(
            f"Loaded price list {name}: {len(entries):,} price{'s' if len(entries) != 1 else ''}", 8000)
        return True

    def clear_price_list(self) -> None:
        """Back to the catalog's prices (one undo step)."""
        q = self.window.document.project.quote
        if q.prices or q.price_list_name:
            push(self.window.document, _PriceListEdit({"prices": (), "price_list_name": ""}, label="Clear price list"),
                 self.report_error)
