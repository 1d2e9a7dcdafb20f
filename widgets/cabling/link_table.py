"""The cabling panel's table: one rack's links, formatted cell by cell as the view shows them."""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

from catalog import Catalog
from designer.cabling_view import MEDIUM_SHORT, LinkRows
from designer.fabric.geometry import natural_key
from designer.formatting import DECIMALS, number, quantity

from ..plan.cable_routes import medium_color

#: The invalid index: the table's root, the default parent of the row and column counts.
ROOT = QModelIndex()


def _length_text(length: float, needed: float) -> str:
    return f"none reaches {number(needed, DECIMALS['m'])}" if math.isnan(length) else number(length, DECIMALS["m"])


class LinkTableModel(QAbstractTableModel):
    """The rows of a :class:`~designer.cabling_view.LinkRows`, formatted cell by cell as the view shows them."""

    HEADERS = ("From", "To", "Medium", "Length m")
    FROM, TO, MEDIUM, LENGTH = range(4)

    def __init__(self, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self.rows: LinkRows | None = None
        self._order = np.zeros(0, dtype=np.int64)

    def set_rows(self, rows: LinkRows | None) -> None:
        self.beginResetModel()
        self.rows = rows
        self._order = np.arange(len(rows) if rows is not None else 0)
        self.endResetModel()

    def row_of(self, view_row: int) -> int:
        """The index into :attr:`rows` shown at ``view_row`` (the table may be sorted)."""
        return int(self._order[view_row])

    def rowCount(self, parent=ROOT) -> int:
        return 0 if parent.isValid() else len(self._order)

    def columnCount(self, parent=ROOT) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def text(self, view_row: int, column: int) -> str:
        r, i = self.rows, self.row_of(view_row)
        if column == self.FROM:
            return f"{r.near_device[i]} · P{r.near_port[i]}"
        if column == self.TO:
            return f"{r.far_rack[i]} · {r.far_device[i]} · P{r.far_port[i]}"
        if column == self.MEDIUM:
            return MEDIUM_SHORT[r.medium[i]]
        return _length_text(float(r.length_m[i]), float(r.needed_m[i]))

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self.rows is None:
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text(index.row(), col)
        if role == Qt.ItemDataRole.DecorationRole and col == self.MEDIUM:
            return medium_color(self.rows.medium[self.row_of(index.row())])
        if role == Qt.ItemDataRole.TextAlignmentRole and col == self.LENGTH:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(self.row_of(index.row()))
        return None

    def _tooltip(self, i: int) -> str:
        r = self.rows
        cable = self.catalog.find(r.cable[i]) if r.cable[i] else None
        part = cable.name if cable is not None else "no catalog cable is long enough"
        length = r.length_m[i]
        ordered = "nothing to order" if math.isnan(length) else f"{quantity(length, 'm')} ordered"
        return (f"{r.near_device[i]} port {r.near_port[i]} to {r.far_rack[i]}, {r.far_device[i]} port "
                f"{r.far_port[i]}\n{r.tier[i]} link · {r.medium_name(i)} · {part}\n"
                f"the route needs {quantity(r.needed_m[i], 'm')} · {ordered}")

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        r = self.rows
        if r is None or not len(r):
            return
        self.layoutAboutToBeChanged.emit()
        base = np.arange(len(r))  # the rows arrive sorted by near device and port: every other key falls back to it
        if column == self.TO:
            keys = sorted(base.tolist(), key=lambda i: (natural_key(str(r.far_rack[i])),
                                                        natural_key(str(r.far_device[i])),
                                                        natural_key(str(r.far_port[i])), i))
            idx = np.asarray(keys, dtype=np.int64)
        elif column == self.MEDIUM:
            idx = np.lexsort((base, r.medium_code))
        elif column == self.LENGTH:
            idx = np.lexsort((base, np.where(np.isnan(r.length_m), np.inf, r.length_m)))
        else:
            idx = base
        self._order = idx[::-1].copy() if order == Qt.SortOrder.DescendingOrder else idx
        self.layoutChanged.emit()
