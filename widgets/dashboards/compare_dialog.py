"""File ▸ Compare with…: this design beside another, key figure by key figure, with the change.

Both designs are analysed on a worker thread of their own (a 100,000-GPU design takes about
a second) and compared by :func:`designer.compare.compare`, the same comparison ``podplanner
compare`` prints; the dialog shows "computing…" until the result arrives. The worker never
touches the dialog: it hands the result to one relay object that lives on the GUI thread for
the whole session, which passes it on only to a dialog still open. A comparison whose dialog
was closed finishes and is thrown away; a daemon thread never holds up quitting.
"""
from __future__ import annotations

import itertools
import threading
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHeaderView, QLabel, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from catalog import Catalog
from designer.analysis import analyze
from designer.compare import compare, row_texts
from designer.fileformat import ProjectFileError, load
from designer.model import Project

from ..app import style

class _Relay(QObject):
    """Carries a worker's result to the GUI thread, and on to the dialog that asked, if it is still open."""

    delivered = Signal(int, object, str)

    def __init__(self):
        super().__init__()
        self.open: dict[int, CompareDialog] = {}
        self.delivered.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    def _deliver(self, ticket: int, doc, error: str) -> None:
        dialog = self.open.pop(ticket, None)
        if dialog is not None:
            dialog._show(doc, error)


_relay: _Relay | None = None
_tickets = itertools.count(1)


def _the_relay() -> _Relay:
    global _relay
    if _relay is None:  # made on the GUI thread, by the first dialog
        _relay = _Relay()
    return _relay


class CompareDialog(QDialog):
    """This design (A) beside the one in ``path`` (B)."""

    def __init__(self, project: Project, path: str | Path, catalog: Catalog, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"Compare with {Path(path).name}")
        self.doc: dict | None = None
        self.error = ""
        self.status = QLabel("computing…")
        self.status.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        self.status.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setAlternatingRowColors(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for c in (1, 2, 3):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        box = QVBoxLayout(self)
        box.addWidget(self.status)
        box.addWidget(self.table, 1)
        box.addWidget(buttons)
        self.resize(860, 700)  # every figure without scrolling, fabric rows included
        self.table.setHorizontalHeaderLabels(["", "A (this design)", f"B ({Path(path).name})", "change"])
        relay = _the_relay()
        self._ticket = next(_tickets)
        relay.open[self._ticket] = self
        self.finished.connect(lambda _: relay.open.pop(self._ticket, None))
        threading.Thread(target=_work, args=(relay, self._ticket, project, Path(path), catalog),
                         name="compare", daemon=True).start()

    def _show(self, doc: dict | None, error: str) -> None:
        self.doc, self.error = doc, error
        if doc is None:
            self.status.setText(error)
            self.status.setStyleSheet("color: #B3261E;")
            return
        a_name = doc["a"]["name"] or "this design"
        b_file = Path(doc["b"]["file"]).name
        b_name = doc["b"]["name"] or b_file
        if b_name == a_name:  # two variants of one design (InfiniBand and Spectrum-X) share a name: the file tells
            b_name += f" ({b_file})"
        self.status.setText(f"A: {a_name}\nB: {b_name}\nchange: B − A, and its share of A")
        rows = row_texts(doc)
        self.table.setRowCount(len(rows))
        for r, (figure, a, b, change) in enumerate(rows):
            for c, text in enumerate((figure, a, b, change)):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if c == 3 and text == "not comparable":
                    item.setForeground(QColor(style.MUTED_TEXT))
                self.table.setItem(r, c, item)

    def closeEvent(self, event) -> None:
        _the_relay().open.pop(self._ticket, None)  # a result arriving later goes nowhere
        super().closeEvent(event)

    def cell(self, row_key: str, column: int) -> str:
        """The text shown for a figure (``gpus``, ``price_total`` …) in a column (1 A, 2 B, 3 change)."""
        keys = [f["key"] for f in (self.doc or {}).get("figures", [])]
        item = self.table.item(keys.index(row_key), column)
        return item.text() if item is not None else ""


def _work(relay: _Relay, ticket: int, project: Project, path: Path, catalog: Catalog) -> None:
    """On the worker: read B, analyse both, compare; hand the result (or why not) to the relay."""
    try:
        other = load(path, catalog)
        doc = compare(analyze(project, catalog), analyze(other, catalog), project.name, str(path))
    except ProjectFileError as exc:
        relay.delivered.emit(ticket, None, str(exc))
    except Exception as exc:  # a bug must still reach the user as a line, not vanish on the worker
        relay.delivered.emit(ticket, None, f"the comparison failed: {type(exc).__name__}: {exc}")
    else:
        relay.delivered.emit(ticket, doc, "")
