"""File ▸ Compare with…: this design beside another, key figure by key figure, with the change.

Both designs are analysed on a worker thread (a 100,000-GPU design takes about a second)
and compared by :func:`designer.compare.compare`, the same comparison ``podplanner
compare`` prints; the dialog shows "computing…" until the result crosses back to the
GUI thread by a queued signal. A design that cannot be read says why in the dialog.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QHeaderView, QLabel, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from catalog import Catalog
from designer.analysis import analyze
from designer.compare import compare, row_texts
from designer.fileformat import ProjectFileError, load
from designer.model import Project

from . import style

#: The worker pool: one comparison at a time is plenty.
_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="compare")


class CompareDialog(QDialog):
    """This design (A) beside the one in ``path`` (B)."""

    #: worker -> GUI thread: the comparison document, or the message of what went wrong
    _done = Signal(object, str)

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
        self.resize(780, 440)
        self._done.connect(self._show, Qt.ConnectionType.QueuedConnection)
        _POOL.submit(self._work, project, Path(path), catalog)

    def _work(self, project: Project, path: Path, catalog: Catalog) -> None:
        try:
            other = load(path, catalog)
            doc = compare(analyze(project, catalog), analyze(other, catalog), project.name, str(path))
        except ProjectFileError as exc:
            self._done.emit(None, str(exc))
        except Exception as exc:  # a bug must still reach the user as a line, not vanish on the worker
            self._done.emit(None, f"the comparison failed: {type(exc).__name__}: {exc}")
        else:
            self._done.emit(doc, "")

    def _show(self, doc: dict | None, error: str) -> None:
        self.doc, self.error = doc, error
        if doc is None:
            self.status.setText(error)
            self.status.setStyleSheet("color: #B3261E;")
            return
        self.status.setText(f"A: {doc['a']['name']} (this design)   B: {doc['b']['name']}   "
                            "change: B − A, and its share of A")
        self.table.setHorizontalHeaderLabels(["", "A", "B", "change"])
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

    def cell(self, row_key: str, column: int) -> str:
        """The text shown for a figure (``gpus``, ``price_total`` …) in a column (1 A, 2 B, 3 change)."""
        keys = [f["key"] for f in (self.doc or {}).get("figures", [])]
        item = self.table.item(keys.index(row_key), column)
        return item.text() if item is not None else ""
