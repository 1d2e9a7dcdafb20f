"""The inspector's foldable groups: a titled section, one of figure lines, the rows' busway table, a hall's figures.

Lines come worded from :mod:`.facility_view`; these widgets only lay them out, in
the inspector's colours (a figure over what it is held to in its refusal red).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (QAbstractItemView, QApplication, QFormLayout, QHeaderView, QLabel, QSizePolicy,
                               QTableWidget, QTableWidgetItem, QToolButton, QVBoxLayout, QWidget)

from designer.formatting import MISSING, percent

from ..app import style
from .facility_view import (NBSP, OVER_TEXT, PENDING, Line, hall_air_lines, hall_power_lines, hall_rows, is_over,
                            kw)

if TYPE_CHECKING:  # the views are read, never built, here; they load with the first analysis
    from designer.views import RowPower


def _colour(label: QLabel, color: QColor | None) -> None:
    """Colour a label's text; None: the ordinary text colour again."""
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText,
                     color if color is not None else QApplication.palette(label).color(QPalette.ColorRole.WindowText))
    label.setPalette(palette)


class _Body(QWidget):
    """A section's body. When a page is first shown, QFormLayout lays out the new size with the row heights
    it worked out while the body was still empty: a line that wraps would be drawn over the next one.
    Every new size lays the rows out again (the body's own size does not change, so this settles)."""

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.layout() is not None:
            self.layout().invalidate()


class Section(QWidget):
    """A titled group whose body folds away under its heading (long pages stay readable in a short dock)."""

    def __init__(self, title: str, parent: QWidget | None = None, expanded: bool = True):
        super().__init__(parent)
        self.toggle = QToolButton()
        self.toggle.setText(title)
        self.toggle.setCheckable(True)
        self.toggle.setChecked(expanded)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setAutoRaise(True)
        self.toggle.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.toggle.setStyleSheet(f"QToolButton {{ font-weight: bold; color: {style.MUTED_TEXT.name()}; "
                                  "text-align: left; padding: 2px 0px; border: none; }")
        self.body = _Body()
        self.form = QFormLayout(self.body)
        self.form.setContentsMargins(14, 0, 0, 4)  # indented under the heading's arrow
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 6, 0, 0)
        box.setSpacing(2)
        box.addWidget(self.toggle)
        box.addWidget(self.body)
        self.toggle.toggled.connect(self._fold)
        self._fold(expanded)

    def _fold(self, open_: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        self.body.setVisible(open_)

    @property
    def expanded(self) -> bool:
        return self.toggle.isChecked()


class FiguresSection(Section):
    """A section of :class:`Line` rows; the labels are reused, so a refresh does not rebuild the form."""

    def __init__(self, title: str, parent: QWidget | None = None, expanded: bool = True):
        super().__init__(title, parent, expanded)
        self._rows: list[tuple[QLabel, QLabel]] = []
        self.lines: list[Line] = []

    def show_lines(self, lines: list[Line] | None) -> None:
        """Show ``lines``; None: the analysis shown is not of the project, so one line says it is computing."""
        self.lines = list(lines) if lines is not None else [Line("", PENDING, muted=True)]
        while len(self._rows) < len(self.lines):
            name, value = QLabel(), QLabel()
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            _colour(name, style.MUTED_TEXT)
            self.form.addRow(name, value)
            self._rows.append((name, value))
        for i, (name, value) in enumerate(self._rows):
            shown = i < len(self.lines)
            self.form.setRowVisible(i, shown)
            if not shown:
                continue
            line = self.lines[i]
            name.setText(line.label)
            value.setText(line.text)
            _colour(value, QColor(OVER_TEXT) if line.over else style.MUTED_TEXT if line.muted else None)

    def text(self) -> str:
        """Every line shown, one per line ('Feed A: 66.0 kW of …'), for tests and the clipboard."""
        text = "\n".join(f"{line.label}: {line.text}" if line.label else line.text for line in self.lines)
        return text.replace(NBSP, " ")


#: Columns of the rows table: (heading, feed, key in the feed).
ROW_COLUMNS = [("A", "A", "utilisation"), ("A if B\nfails", "A", "failover_utilisation"),
               ("B", "B", "utilisation"), ("B if A\nfails", "B", "failover_utilisation")]


class RowLoadTable(QTableWidget):
    """Each row's distribution per feed, normal and failover, as a share of what it may carry."""

    #: Rows shown before the table scrolls on its own (a hall of a big design has hundreds).
    MAX_VISIBLE = 8

    def __init__(self, parent: QWidget | None = None):
        super().__init__(0, 1 + len(ROW_COLUMNS), parent)
        self.setHorizontalHeaderLabels(["Row"] + [c[0] for c in ROW_COLUMNS])
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setAlternatingRowColors(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def show_rows(self, rows: list[RowPower]) -> None:
        self.setRowCount(len(rows))
        over_brush = QColor(OVER_TEXT)
        for r, row in enumerate(rows):
            name = QTableWidgetItem(row.row or "(no row)")
            self.setItem(r, 0, name)
            checked = row.rating_a is not None  # a row is checked only against a rating its hall states
            for c, (_, side, key) in enumerate(ROW_COLUMNS, start=1):
                feed = getattr(row.feeds, side)
                share = getattr(feed, key) if checked else None
                item = QTableWidgetItem(percent(share) if checked else MISSING)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if is_over(share):
                    item.setForeground(over_brush)
                # the share is the busiest run's, so the tooltip gives that run's load and one run's limit
                runs = row.runs
                failover = "failover" in key
                load = feed.run_failover_kw if failover else feed.run_normal_kw
                limit = row.failover_capacity_kw if failover else row.capacity_kw
                where = f"busiest of {runs} runs: " if runs > 1 else ""
                item.setToolTip(f"{where}{kw(load)} of {kw(limit / runs)}" if checked and limit
                                else "no rating set for this row: not checked")
                self.setItem(r, c, item)
        visible = min(len(rows), self.MAX_VISIBLE)
        height = self.horizontalHeader().sizeHint().height() + visible * self.verticalHeader().defaultSectionSize()
        self.setFixedHeight(height + 2 * self.frameWidth())
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded if len(rows) > self.MAX_VISIBLE
                                        else Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def cell_text(self, row: int, column: int) -> str:
        item = self.item(row, column)
        return item.text() if item is not None else ""


class HallFacilityView(QWidget):
    """The hall page's figures: its power chain (UPS, generators), its rows' busways, its air and water."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.power = FiguresSection("Power chain")
        self.row_section = Section("Rows: power distribution")
        self.rows_caption = QLabel("Share of each feed's capacity; hover a figure for its kW.")
        self.rows_caption.setWordWrap(True)
        self.rows_caption.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        self.rows = RowLoadTable()
        self.row_section.form.addRow(self.rows_caption)
        self.row_section.form.addRow(self.rows)
        self.air = FiguresSection("Air and water")
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        for section in (self.power, self.row_section, self.air):
            box.addWidget(section)

    def show_hall(self, analysis, hall_id: str) -> None:
        """Figures of ``hall_id`` from ``analysis``, or 'computing…' when it is None."""
        self.power.show_lines(hall_power_lines(analysis, hall_id) if analysis is not None else None)
        rows = hall_rows(analysis, hall_id) if analysis is not None else []
        self.rows.show_rows(rows)
        self.rows.setVisible(bool(rows))
        self.rows_caption.setText("Share of each feed's capacity; hover a figure for its kW." if rows else
                                  PENDING if analysis is None else "No racks in rows yet.")
        self.air.show_lines(hall_air_lines(analysis, hall_id) if analysis is not None else None)
