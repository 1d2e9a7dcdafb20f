"""The bill of materials of the latest analysis: sections, lines, prices, discounts and totals.

The panel reads only the analysis' ``bom`` section (built by :mod:`designer.quote.lines`):
every number shown is the engine's, formatted, never recomputed. A section's
discount is a spin box on its row that pushes :class:`~designer.commands.SetDiscountCommand`
on the document, so it is one undo step like any edit; the new subtotals arrive with the
next analysis. When an analysis keeps the bill's lines (a discount, a price), the rows are
updated in place, so an open editor, the scroll position and collapsed sections survive;
only a bill with other lines is built anew, once per analysis.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QModelIndex, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (QAbstractItemView, QDoubleSpinBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QStyledItemDelegate, QTreeView, QVBoxLayout, QWidget)

from designer.commands import Document, SetDiscountCommand
from designer.formatting import MISSING, adjustment, count, money
from designer.quote_settings import MIN_DISCOUNT

from ..app import style
from ..app.doc_binding import push

if TYPE_CHECKING:  # the views are read, never built, here; they load with the first analysis
    from designer.views import BomLine, BomSection, BomView

COLUMNS = ["Part number", "Description", "Qty", "Unit price", "Extended"]
PART, DESCRIPTION, QTY, UNIT, EXTENDED = range(len(COLUMNS))
#: A section row's discount box sits at the right of its description cell (a column of its own would
#: take width from the descriptions on every line for eight boxes).
DISCOUNT = DESCRIPTION
SECTION_ROLE = Qt.ItemDataRole.UserRole + 1   # on a section row's items: its key ("compute")
DISCOUNT_ROLE = Qt.ItemDataRole.UserRole + 2  # on a section row's description item: percent as the bill has it
LINE_ROLE = Qt.ItemDataRole.UserRole + 3      # on a line row's first item: the line (a BomLine view)
WARNING_TEXT = QColor("#B26A00")  # the palette's colour for unconfirmed figures: a price to look at
INDICATIVE = "†"
STALE = "‡"
UNDATED = "§"
#: bill flag -> its mark, in the order marks are printed (as in the PDF quote)
MARKS = (("unconfirmed", INDICATIVE), ("stale", STALE), ("undated", UNDATED))
NO_PRICE = "no price"


class _DiscountDelegate(QStyledItemDelegate):
    """A 0-100 % spin box on each section row; a committed value goes to the panel, not into the model."""

    WIDTH = 92

    def __init__(self, panel: BomPanel):
        super().__init__(panel)
        self.panel = panel

    def createEditor(self, parent, option, index):
        if index.data(SECTION_ROLE) is None:
            return None
        spin = QDoubleSpinBox(parent)
        spin.setRange(MIN_DISCOUNT, 100.0)
        spin.setDecimals(2)
        spin.setSingleStep(1.0)
        spin.setSuffix(" %")
        spin.setAlignment(Qt.AlignmentFlag.AlignRight)
        # Commit on Enter, focus out or an arrow step, not on every keystroke: typing 15 is not 1, then 15.
        spin.setKeyboardTracking(False)
        spin.setToolTip(f"Discount off list on every line of {index.data(Qt.ItemDataRole.ToolTipRole)} "
                        "(negative: an uplift over list)")
        spin.valueChanged.connect(lambda _v, s=spin: self.commitData.emit(s))
        return spin

    def setEditorData(self, editor, index) -> None:
        value = float(index.data(DISCOUNT_ROLE) or 0.0)
        if abs(editor.value() - value) > 1e-9:
            editor.blockSignals(True)  # showing the bill's value is not an edit
            editor.setValue(value)
            editor.blockSignals(False)
        editor.lineEdit().deselect()

    def eventFilter(self, editor, event) -> bool:
        # Qt's delegate turns Tab into "edit the next cell", which in a tree of persistent editors cycles
        # between the view and the last box forever; commit the value and leave the bill instead.
        if event.type() == QEvent.Type.KeyPress and event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
            editor.interpretText()
            self.commitData.emit(editor)
            forward = event.key() == Qt.Key.Key_Tab and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier
            target = self.panel.filter if not forward else self._after_view()
            target.setFocus(Qt.FocusReason.TabFocusReason)
            return True
        return super().eventFilter(editor, event)

    def _after_view(self) -> QWidget:
        """The first widget after the bill's tree in the window's tab order that takes focus by Tab."""
        view = self.panel.view
        widget = view.nextInFocusChain()
        while widget is not None and widget is not view:
            if (not view.isAncestorOf(widget) and widget.isVisible() and widget.isEnabled()
                    and widget.focusPolicy() & Qt.FocusPolicy.TabFocus):
                return widget
            widget = widget.nextInFocusChain()
        return self.panel.filter

    def setModelData(self, editor, model, index) -> None:
        value = round(editor.value(), 2)
        if abs(value - float(index.data(DISCOUNT_ROLE) or 0.0)) > 1e-9:
            self.panel.set_discount(index.data(SECTION_ROLE), value)

    def updateEditorGeometry(self, editor, option, index) -> None:
        rect = option.rect
        width = min(self.WIDTH, rect.width())
        editor.setGeometry(rect.right() - width + 1, rect.top(), width, rect.height())

    def sizeHint(self, option, index) -> QSize:
        hint = super().sizeHint(option, index)
        if index.data(SECTION_ROLE) is not None:
            hint.setHeight(max(hint.height(), self.panel.section_row_height))
        return hint


class BomPanel(QWidget):
    """The bill by section, filterable, with editable section discounts and the totals underneath."""

    #: A discount was refused; the reason.
    refused = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._document: Document | None = None
        self.bom: BomView | None = None
        self._shape: tuple | None = None
        self._collapsed: set[str] = set()
        self._rows: dict[str, QStandardItem] = {}
        self.section_row_height = QDoubleSpinBox().sizeHint().height() + 2
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(COLUMNS)
        self.view = QTreeView()
        self.view.setModel(self.model)
        self.view.setAlternatingRowColors(True)
        self.view.setIndentation(14)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)  # only the persistent spin boxes
        self.delegate = _DiscountDelegate(self)
        self.view.setItemDelegateForColumn(DISCOUNT, self.delegate)
        header = self.view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(DESCRIPTION, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(40)
        for col in (QTY, UNIT, EXTENDED):
            self.model.horizontalHeaderItem(col).setTextAlignment(Qt.AlignmentFlag.AlignRight
                                                                  | Qt.AlignmentFlag.AlignVCenter)
        self.model.horizontalHeaderItem(UNIT).setToolTip("Net unit price: list price less the section's discount "
                                                         "(the list price is in each price's tooltip)")
        self.model.horizontalHeaderItem(DESCRIPTION).setToolTip("On a section's row: its discount off list, "
                                                                "in percent, for every line of it")
        self.view.collapsed.connect(lambda index: self._remember(index, True))
        self.view.expanded.connect(lambda index: self._remember(index, False))
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter by part number or description")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._apply_filter)
        self.counts = QLabel()
        self.counts.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setStyleSheet("color: #B3261E;")
        self.status.hide()
        self.totals = QLabel()
        self.totals.setWordWrap(True)
        self.totals.setTextFormat(Qt.TextFormat.RichText)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        self.empty = QLabel("No bill yet: the bill of materials appears here once the design holds equipment "
                            "and the engines have run.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.counts)
        box = QVBoxLayout(self)
        box.setContentsMargins(6, 4, 6, 4)
        box.addLayout(top)
        box.addWidget(self.view, 1)
        box.addWidget(self.empty, 1)
        box.addWidget(self.status)
        box.addWidget(self.totals)
        box.addWidget(self.notes)
        self.set_bom(None)

    # ---- public API -------------------------------------------------------------------------
    def set_document(self, document: Document | None) -> None:
        """The document discounts are pushed on (the window's, replaced when a file is opened)."""
        self._document = document
        self.status.hide()

    def set_analysis(self, analysis) -> None:
        """Show ``analysis.bom`` (None clears the panel; so does a bill without sections, of an empty design)."""
        self.set_bom(analysis.bom if analysis is not None else None)

    def set_bom(self, bom: BomView | None) -> None:
        self.bom = bom if bom is not None and bom.sections else None
        sections = self.bom.sections if self.bom else []
        shape = tuple((s.section, tuple((ln.id, ln.part_number, ln.description, ln.spare) for ln in s.lines))
                      for s in sections)
        if shape != self._shape:
            self._rebuild(sections)
            self._shape = shape
        else:
            for sec in sections:
                self._fill_section(self._rows[sec.section], sec)
        self._fill_totals()
        self.view.setVisible(self.bom is not None)
        self.empty.setVisible(self.bom is None)
        self.filter.setEnabled(self.bom is not None)

    def set_discount(self, section: str, percent: float) -> bool:
        """Push the section's new discount; the panel shows the bill's figures for it after the next analysis."""
        ok = push(self._document, SetDiscountCommand(section, percent), self._refuse)
        row = self._rows.get(section)
        if ok:
            self.status.hide()
            if row is not None:  # the value on screen is the one asked for, so it is not pushed again
                self._set_discount_item(row, percent)
        elif row is not None:
            index = self.model.indexFromItem(self.model.item(row.row(), DISCOUNT))
            self.model.dataChanged.emit(index, index)  # the spin box goes back to the bill's value
        return ok

    # ---- for tests and the report view: what is on screen ------------------------------------
    def section_keys(self, visible_only: bool = True) -> list[str]:
        root = QModelIndex()
        return [self.model.item(r, PART).data(SECTION_ROLE) for r in range(self.model.rowCount())
                if not (visible_only and self.view.isRowHidden(r, root))]

    def section_text(self, section: str, column: int) -> str:
        return self.model.item(self._rows[section].row(), column).text()

    def line_rows(self, visible_only: bool = True) -> list[BomLine]:
        """The bill's lines of the rows shown (all rows when ``visible_only`` is false)."""
        out = []
        for r in range(self.model.rowCount()):
            parent = self.model.item(r, PART)
            if visible_only and self.view.isRowHidden(r, QModelIndex()):
                continue
            for c in range(parent.rowCount()):
                if not (visible_only and self.view.isRowHidden(c, parent.index())):
                    out.append(parent.child(c, PART).data(LINE_ROLE))
        return out

    def line_text(self, line: int, column: int) -> str:
        """The text in ``column`` of the bill's line number ``line``."""
        for r in range(self.model.rowCount()):
            parent = self.model.item(r, PART)
            for c in range(parent.rowCount()):
                if parent.child(c, PART).data(LINE_ROLE).line == line:
                    return parent.child(c, column).text()
        raise KeyError(line)

    def discount_editor(self, section: str) -> QDoubleSpinBox:
        return self.view.indexWidget(self.model.indexFromItem(self.model.item(self._rows[section].row(), DISCOUNT)))

    # ---- building -----------------------------------------------------------------------------
    def _rebuild(self, sections: list[BomSection]) -> None:
        self.model.removeRows(0, self.model.rowCount())
        self._rows = {}
        for sec in sections:
            row = [QStandardItem() for _ in COLUMNS]
            for item in row:
                item.setEditable(False)
                item.setData(sec.section, SECTION_ROLE)
            font = row[PART].font()
            font.setBold(True)
            for col in (PART, EXTENDED):
                row[col].setFont(font)
            for _line in sec.lines:
                cells = [QStandardItem() for _ in COLUMNS]
                for item in cells:
                    item.setEditable(False)
                row[PART].appendRow(cells)
            self.model.appendRow(row)
            self._rows[sec.section] = row[PART]
            self._fill_section(row[PART], sec)
        for key, item in self._rows.items():
            index = item.index()
            self.view.openPersistentEditor(self.model.index(index.row(), DISCOUNT))
            # The view selects an editor's text when it opens it; eight highlighted boxes read as eight edits.
            self.discount_editor(key).lineEdit().deselect()
            self.view.setExpanded(index, key not in self._collapsed)
        self._apply_filter()
        self._fit_columns()

    def _fit_columns(self) -> None:
        # The longest part numbers (22 characters) are elided past 185 px, whole in their tooltips.
        widths = {PART: min(185, self._widest(PART) + self.view.indentation() + 12),
                  QTY: self._widest(QTY) + 14, UNIT: self._widest(UNIT) + 14, EXTENDED: self._widest(EXTENDED) + 14}
        for col, width in widths.items():
            self.view.setColumnWidth(col, width)

    def _widest(self, column: int) -> int:
        metrics = self.view.fontMetrics()
        bold = QFont(self.view.font())
        bold.setBold(True)
        bold_metrics = QFontMetrics(bold)
        widest = metrics.horizontalAdvance(COLUMNS[column])
        for r in range(self.model.rowCount()):
            parent = self.model.item(r, PART)
            widest = max(widest, bold_metrics.horizontalAdvance(self.model.item(r, column).text()))
            for c in range(parent.rowCount()):
                widest = max(widest, metrics.horizontalAdvance(parent.child(c, column).text()))
        return widest

    def _set_discount_item(self, section_item: QStandardItem, percent: float) -> None:
        item = self.model.item(section_item.row(), DISCOUNT)
        if item.data(DISCOUNT_ROLE) != percent:
            item.setData(percent, DISCOUNT_ROLE)

    def _fill_section(self, section_item: QStandardItem, sec: BomSection) -> None:
        r = section_item.row()
        cells = [self.model.item(r, c) for c in range(len(COLUMNS))]
        currency = sec.currency
        lines = sec.lines
        cells[PART].setText(sec.title)
        for item in cells:
            item.setToolTip(sec.title)
        described = [count(len(lines), "line")]
        if sec.unpriced:
            described.append(f"{sec.unpriced:,} without a price")
        if sec.other_currencies:
            described.append(" + ".join(money(v, c) for c, v in sec.other_currencies.items()) + " not in the total")
        described.append("discount")  # the box beside it
        cells[DESCRIPTION].setText(" · ".join(described))
        cells[DESCRIPTION].setForeground(style.MUTED_TEXT)
        self._set_discount_item(section_item, float(sec.discount_percent))
        cells[EXTENDED].setText(money(sec.subtotal))
        cells[EXTENDED].setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        tip = f"{sec.title}: net {money(sec.subtotal, currency)}"
        if sec.discount:
            tip += (f" = list {money(sec.list_subtotal)} with {adjustment(sec.discount_percent)} "
                    f"({money(-sec.discount)})")
        if sec.unpriced:
            tip += f"; leaves out {count(sec.unpriced, 'line')} without a price"
        cells[EXTENDED].setToolTip(tip)
        for i, ln in enumerate(lines):
            self._fill_line([section_item.child(i, c) for c in range(len(COLUMNS))], ln, currency)

    def _fill_line(self, cells: list[QStandardItem], ln: BomLine, currency: str) -> None:
        cells[PART].setData(ln, LINE_ROLE)
        pn = ln.part_number
        cells[PART].setText(pn or MISSING)
        part_tip = [pn or "No part number known for this line"]
        if ln.alt_part_number:
            part_tip.append(f"ordering part number: {ln.alt_part_number}")
        if ln.part_number_unconfirmed:
            part_tip.append("part number not confirmed by a vendor source")
        if ln.manufacturer:
            part_tip.append(ln.manufacturer)
        cells[PART].setToolTip("\n".join(part_tip))
        cells[PART].setForeground(style.TEXT if pn else style.MUTED_TEXT)
        # a part whose vendor calls its figures preliminary says so on its line, and why in the tooltip
        cells[DESCRIPTION].setText(ln.description + (f" · {style.PRELIMINARY}" if ln.preliminary else ""))
        cells[DESCRIPTION].setToolTip(ln.description + (f"\nCounted: {ln.basis}" if ln.basis else "")
                                      + (f"\n{style.PRELIMINARY}: {ln.preliminary}" if ln.preliminary else ""))
        qty = f"{ln.quantity:,}"
        if ln.per_year:
            cells[QTY].setText(f"{qty} × {ln.term_years} yr")
            cells[QTY].setToolTip(f"{qty} {ln.unit} a year, for {count(ln.term_years, 'year')}")
        else:
            cells[QTY].setText(qty)
            cells[QTY].setToolTip("")
        for col in (QTY, UNIT, EXTENDED):
            cells[col].setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if ln.unit_price is None:  # the bill leaves a line it has no price for out of its totals
            for col in (UNIT, EXTENDED):
                cells[col].setText(NO_PRICE)
                cells[col].setForeground(WARNING_TEXT)
                cells[col].setToolTip("No price is known for this part: it is left out of the totals. "
                                      "Load a price list that names it to price it.")
            return
        marks = "".join(mark for flag, mark in MARKS if flag in ln.flags)
        marks = f" {marks}" if marks else ""
        prefix = "" if ln.currency == currency else f"{ln.currency} "
        cells[UNIT].setText(f"{prefix}{money(ln.net_unit_price)}{marks}")
        cells[EXTENDED].setText(f"{prefix}{money(ln.extended_price)}")
        tip = [f"List {money(ln.unit_price, ln.currency)} per {ln.unit if ln.unit != 'each' else 'unit'}"]
        if ln.discount_percent:
            tip.append(f"with {adjustment(ln.discount_percent)} = {money(ln.net_unit_price)} net")
        tip.append(("Indicative price (not a vendor quote): " if "unconfirmed" in ln.flags else "Price: ")
                   + (ln.price_source or "no source given"))
        tip.append(f"Dated {ln.price_date}" + (", older than the quote's limit" if "stale" in ln.flags else "")
                   if ln.price_date else "Undated price")
        if prefix:
            tip.append(f"In {ln.currency}, not converted: left out of the {currency} total")
        if ln.original_currency:
            tip.append(f"Converted from {money(ln.original_unit_price, ln.original_currency)} at "
                       f"{ln.exchange_rate:g} {ln.currency} per {ln.original_currency}")
        for col in (UNIT, EXTENDED):
            cells[col].setForeground(WARNING_TEXT if "stale" in ln.flags else style.TEXT)
            cells[col].setToolTip("\n".join(tip))

    def _fill_totals(self) -> None:
        bom = self.bom
        if bom is None:
            self.totals.setText("")
            self.notes.setText("")
            self.counts.setText("")
            return
        cur = bom.currency
        parts = [f"List {money(bom.list_total, cur)}"]
        if bom.discount_total:
            parts.append(f"discount {money(-bom.discount_total)}" if bom.discount_total > 0
                         else f"uplift +{money(-bom.discount_total)}")
        net = f"<b>Net {money(bom.price_total, cur)}</b>" + (" (est.)" if bom.estimated else "")
        parts.append(net)
        unpriced = sum(s.unpriced for s in bom.sections)
        if unpriced:
            parts.append(f"<span style='color:{WARNING_TEXT.name()}'>excludes {count(unpriced, 'unpriced line')}"
                         "</span>")
        for c, v in bom.other_currencies.items():
            parts.append(f"<span style='color:{WARNING_TEXT.name()}'>{money(v, c)} not converted, not in the total"
                         "</span>")
        self.totals.setText(" · ".join(parts))
        notes = [f"one-off {money(bom.one_off_total)}"]
        if bom.yearly_total:
            notes.append(f"subscriptions {money(bom.yearly_total)}/yr × {bom.term_years}")
        notes.append(f"as of {bom.as_of}")
        plist = bom.price_list
        if plist.name or plist.entries:
            notes.append(f"price list {plist.name or '(unnamed)'} ({plist.used:,} of {plist.entries:,} used)")
        else:
            notes.append("catalog prices")
        flags = {f for s in bom.sections for ln in s.lines for f in ln.flags}
        if "unconfirmed" in flags:
            notes.append(f"{INDICATIVE} indicative")
        if "stale" in flags:
            notes.append(f"{STALE} old")
        if "undated" in flags:
            notes.append(f"{UNDATED} undated")
        notes += [f"converted at {r.text}" for r in bom.exchange_rates]
        self.notes.setText(" · ".join(notes))
        self.notes.setToolTip(f"Prices are judged as of {bom.as_of}. {INDICATIVE} a press, third-party or "
                              f"planning price, not a vendor quote. {STALE} a price older than the quote's limit "
                              f"(Quote ▸ Quote settings). {UNDATED} a price-list price without a date. "
                              "Subscriptions and support are priced per year for the quote's term.")
        self._count()

    # ---- filter, collapse state ------------------------------------------------------------------
    def _apply_filter(self) -> None:
        needle = self.filter.text().strip().lower()
        root = QModelIndex()
        for r in range(self.model.rowCount()):
            parent = self.model.item(r, PART)
            shown = 0
            for c in range(parent.rowCount()):
                ln = parent.child(c, PART).data(LINE_ROLE)
                match = not needle or any(needle in text.lower()
                                          for text in (ln.part_number, ln.alt_part_number, ln.description))
                self.view.setRowHidden(c, parent.index(), not match)
                shown += match
            self.view.setRowHidden(r, root, bool(needle) and not shown)
            if needle and shown:
                self.view.setExpanded(parent.index(), True)
            elif not needle:  # back to what the user had collapsed before filtering
                self.view.setExpanded(parent.index(), parent.data(SECTION_ROLE) not in self._collapsed)
        self._count()

    def set_busy(self, busy: bool) -> None:
        """Grey the totals while the engines work on a newer revision than the one shown."""
        self.totals.setEnabled(not busy)
        self.notes.setEnabled(not busy)
        self.totals.setToolTip("updating: these are the figures before the last edit" if busy else "")

    def _count(self) -> None:
        total = sum(len(s.lines) for s in self.bom.sections) if self.bom else 0
        if self.filter.text().strip():
            self.counts.setText(f"{len(self.line_rows()):,} of {count(total, 'line')}")
        else:
            self.counts.setText(count(total, "line") if total else "")

    def _remember(self, index: QModelIndex, collapsed: bool) -> None:
        key = index.data(SECTION_ROLE)
        if key is None or self.filter.text().strip():
            return  # expanding to show a filter's matches is not the user's choice
        (self._collapsed.add if collapsed else self._collapsed.discard)(key)

    def _refuse(self, message: str) -> None:
        self.status.setText(message)
        self.status.show()
        self.refused.emit(message)
