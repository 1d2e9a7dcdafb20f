"""Quote ▸ Currency and exchange rates…: the currency the quote is totalled in, and the rates a price in another
currency is converted at, each with the date it was stated on and where it came from.

OK pushes the currency and the rates as one undoable edit (a :class:`~designer.commands.MacroCommand` of
:class:`~designer.commands.SetCurrencyCommand` and :class:`~designer.commands.UpdateQuoteCommand`): the commands
check every value, and a refusal is shown in the dialog, which stays open. Cancel changes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QHeaderView,
                               QLabel, QLineEdit, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from designer.commands import Document, MacroCommand, SetCurrencyCommand, UpdateQuoteCommand
from designer.quote_settings import MAX_EXCHANGE_RATES, ExchangeRate

from ..app.doc_binding import push

#: the table's columns: (heading, tooltip)
COLUMNS = (("1 unit of", "The currency a price is given in (ISO 4217, such as EUR)"),
           ("Rate", "How many units of the other currency one unit buys"),
           ("In", "The currency it converts to (ISO 4217); the quote's currency when left empty"),
           ("Date", "The day the rate was stated, YYYY-MM-DD"),
           ("Source", "Where the rate comes from (a bank's reference rate, your treasury)"))
BASE, RATE, TO, DATE, SOURCE = range(len(COLUMNS))


@dataclass
class CurrencyEdit(MacroCommand):
    """The currency and the rates as the dialog's OK sets them: one undo step, never merged."""

    merge_key = None


class CurrencyDialog(QDialog):
    """The quote currency and exchange rates of ``document``, filled from it; OK sets them as one undoable edit."""

    def __init__(self, document: Document | None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Currency and exchange rates")
        self._document = document
        self.currency = QLineEdit()
        self.currency.setMaxLength(3)
        self.currency.setPlaceholderText("USD")
        self.currency.setToolTip("The currency the quote is totalled in (ISO 4217, such as USD or EUR)")
        form = QFormLayout()
        form.addRow("Quote currency", self.currency)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([h for h, _ in COLUMNS])
        for col, (_, tip) in enumerate(COLUMNS):
            self.table.horizontalHeaderItem(col).setToolTip(tip)
        header = self.table.horizontalHeader()
        for col in (BASE, RATE, TO, DATE):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(SOURCE, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.add_button = QPushButton("Add rate")
        self.remove_button = QPushButton("Remove rate")
        for b in (self.add_button, self.remove_button):
            b.setAutoDefault(False)  # Enter accepts the dialog
        self.add_button.clicked.connect(lambda: self.add_row())
        self.remove_button.clicked.connect(self.remove_selected)
        buttons_row = QHBoxLayout()
        buttons_row.addWidget(self.add_button)
        buttons_row.addWidget(self.remove_button)
        buttons_row.addStretch(1)
        hint = QLabel("A price in a currency with no rate here stays out of the quote's total, and the quote says "
                      "so. Every copy of the quote states the rates it used, with their dates.")
        hint.setWordWrap(True)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #B3261E;")
        self.status.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        box = QVBoxLayout(self)
        box.addLayout(form)
        box.addWidget(QLabel("Exchange rates"))
        box.addWidget(self.table, 1)
        box.addLayout(buttons_row)
        box.addWidget(hint)
        box.addWidget(self.status)
        box.addWidget(self.buttons)
        self.setMinimumSize(620, 360)
        if document is not None:
            self.currency.setText(document.project.currency)
            for r in document.project.quote.exchange_rates:
                self.add_row(r.base, f"{r.rate:g}", r.quote, r.date, r.source)

    def add_row(self, base: str = "", rate: str = "", to: str = "", date: str = "", source: str = "") -> int:
        if self.table.rowCount() >= MAX_EXCHANGE_RATES:
            self.show_refusal(f"a quote keeps at most {MAX_EXCHANGE_RATES} exchange rates")
            return -1
        row = self.table.rowCount()
        self.table.insertRow(row)
        for col, text in enumerate((base, rate, to, date, source)):
            self.table.setItem(row, col, QTableWidgetItem(text))
        return row

    def remove_selected(self) -> None:
        for row in sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True):
            self.table.removeRow(row)

    def _cell(self, row: int, col: int) -> str:
        item = self.table.item(row, col)
        return item.text().strip() if item is not None else ""

    def rates(self, currency: str) -> tuple[ExchangeRate, ...]:
        """The table's rows as rates (rows left wholly empty are skipped); a ValueError names a row that is not
        a rate. The commands check everything else."""
        out = []
        for row in range(self.table.rowCount()):
            cells = [self._cell(row, c) for c in range(len(COLUMNS))]
            if not any(cells):
                continue
            try:
                rate = float(cells[RATE].replace(",", ""))
            except ValueError:
                raise ValueError(f"exchange rate {row + 1}: {cells[RATE][:30]!r} is not a number") from None
            out.append(ExchangeRate(cells[BASE].upper(), (cells[TO] or currency).upper(), rate, cells[DATE],
                                    cells[SOURCE]))
        return tuple(out)

    def show_refusal(self, text: str) -> None:
        self.status.setText(f"Nothing was changed: {text}")
        self.status.show()

    def accept(self) -> None:
        """Set the currency and the rates as one undo step; a refusal is shown and the dialog stays open."""
        if self._document is None:
            self.show_refusal("no document is open")
            return
        project = self._document.project
        currency = self.currency.text().strip().upper() or project.currency
        try:
            rates = self.rates(currency)
        except ValueError as exc:
            self.show_refusal(str(exc))
            return
        if currency == project.currency and rates == project.quote.exchange_rates:
            super().accept()  # nothing changed: no empty undo step
            return
        command = CurrencyEdit([SetCurrencyCommand(currency), UpdateQuoteCommand({"exchange_rates": rates})],
                               label="Set currency and exchange rates")
        if push(self._document, command, self.show_refusal):
            self.status.hide()
            super().accept()
