"""Every finding of the latest analysis, with its severity; activating one asks the plan to show it.

The panel only *reports* what the user picked (:attr:`FindingsPanel.finding_activated`
with the finding's ``where``, e.g. ``"rack:a01"``); selecting and centring the
object is the main window's job, so the panel works the same in a report view.
Severity icons are painted once with QPainter (no image files to ship).
"""
from __future__ import annotations

from typing import Iterable

from PySide6.QtCore import QModelIndex, QPointF, QRectF, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPainterPath, QPen, QPixmap, QStandardItem, \
    QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QHBoxLayout, QLabel, QTreeView, QVBoxLayout, QWidget

from designer.findings import Finding

from . import style

SEVERITY_COLOURS = {"error": QColor("#D64545"), "warning": QColor("#E0A526"), "info": QColor("#3D6FA8")}
SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
WHERE_ROLE = Qt.ItemDataRole.UserRole + 1
#: every object a finding is about (a tuple), when more than one
PLACES_ROLE = WHERE_ROLE + 100
SEVERITY_ROLE = Qt.ItemDataRole.UserRole + 2
COLUMNS = ["Severity", "Code", "Message", "Where"]


def severity_icon(severity: str, size: int = 16) -> QIcon:
    """A red disc with ×, an amber triangle with !, or a blue disc with i."""
    pix = QPixmap(size * 2, size * 2)  # drawn at 2x so it stays crisp on HiDPI screens
    pix.setDevicePixelRatio(2.0)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    colour = SEVERITY_COLOURS.get(severity, style.MUTED_TEXT)
    s = float(size)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(colour)
    if severity == "warning":
        path = QPainterPath(QPointF(s / 2, 1))
        path.lineTo(s - 1, s - 2)
        path.lineTo(1, s - 2)
        path.closeSubpath()
        p.drawPath(path)
    else:
        p.drawEllipse(QRectF(1, 1, s - 2, s - 2))
    font = QFont()
    font.setPixelSize(int(s * 0.7))
    font.setBold(True)
    p.setFont(font)
    p.setPen(QPen(QColor("#FFFFFF") if severity != "warning" else style.TEXT))
    glyph = {"error": "×", "warning": "!", "info": "i"}.get(severity, "?")
    rect = QRectF(0, 2 if severity == "warning" else 0, s, s - (1 if severity == "warning" else 0))
    p.drawText(rect, Qt.AlignmentFlag.AlignCenter, glyph)
    p.end()
    return QIcon(pix)


class _SeverityFilter(QSortFilterProxyModel):
    """Shows findings at or above a chosen severity; sorts severity by rank, not alphabetically."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.allowed: set[str] = set(SEVERITY_RANK)

    def filterAcceptsRow(self, row: int, parent: QModelIndex) -> bool:
        return self.sourceModel().index(row, 0, parent).data(SEVERITY_ROLE) in self.allowed

    def lessThan(self, left: QModelIndex, right: QModelIndex) -> bool:
        if left.column() == 0:
            return SEVERITY_RANK.get(left.data(SEVERITY_ROLE), 9) < SEVERITY_RANK.get(right.data(SEVERITY_ROLE), 9)
        return str(left.data() or "") < str(right.data() or "")


class FindingsPanel(QWidget):
    """A sortable, filterable list of findings."""

    #: The user clicked, double-clicked or pressed Enter on a finding; its ``where`` ("rack:a01").
    finding_activated = Signal(str)
    #: A finding about several objects was picked: all of them (``rack:<id>`` ...), its own first.
    places_activated = Signal(object)

    FILTERS = [("All severities", {"error", "warning", "info"}), ("Errors and warnings", {"error", "warning"}),
               ("Errors only", {"error"}), ("Warnings only", {"warning"}), ("Info only", {"info"})]

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._icons = {sev: severity_icon(sev) for sev in SEVERITY_RANK}
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(COLUMNS)
        self.proxy = _SeverityFilter(self)
        self.proxy.setSourceModel(self.model)
        self.view = QTreeView()
        self.view.setModel(self.proxy)
        self.view.setRootIsDecorated(False)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.header().setStretchLastSection(False)
        self.view.header().setSectionResizeMode(2, self.view.header().ResizeMode.Stretch)
        self.view.clicked.connect(self._emit)
        self.view.activated.connect(self._emit)  # double-click and Enter
        self.filter = QComboBox()
        for text, _ in self.FILTERS:
            self.filter.addItem(text)
        self.filter.currentIndexChanged.connect(self._filter_changed)
        self.counts = QLabel()
        self.counts.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        self.empty = QLabel("No findings: the design passes every check.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        top = QHBoxLayout()
        top.addWidget(self.counts, 1)
        top.addWidget(self.filter)
        box = QVBoxLayout(self)
        box.setContentsMargins(6, 4, 6, 4)
        box.addLayout(top)
        box.addWidget(self.view, 1)
        box.addWidget(self.empty, 1)
        self.set_findings(())

    # ---- public API ---------------------------------------------------------------------
    def set_findings(self, findings: Iterable[Finding]) -> None:
        """Replace the list (one analysis' findings); keeps the filter and sort order."""
        findings = list(findings)
        self.model.removeRows(0, self.model.rowCount())
        for f in findings:
            self.model.appendRow(self._row(f))
        n = {sev: sum(1 for f in findings if f.severity == sev) for sev in SEVERITY_RANK}
        self.counts.setText(f"{n['error']} error{'s' if n['error'] != 1 else ''} · "
                            f"{n['warning']} warning{'s' if n['warning'] != 1 else ''} · {n['info']} info")
        self.view.setVisible(bool(findings))
        self.empty.setVisible(not findings)
        for col in (0, 1, 3):
            self.view.resizeColumnToContents(col)

    def where_at(self, row: int) -> str:
        """The ``where`` of the visible row ``row`` (after filter and sort)."""
        return self.proxy.index(row, 0).data(WHERE_ROLE)

    def row_count(self) -> int:
        return self.proxy.rowCount()

    def set_severity_filter(self, severities: Iterable[str]) -> None:
        self.proxy.allowed = set(severities)
        self.proxy.invalidate()

    # ---- internals ----------------------------------------------------------------------
    def _row(self, f: Finding) -> list[QStandardItem]:
        items = [QStandardItem(self._icons.get(f.severity, QIcon()), f.severity), QStandardItem(f.code),
                 QStandardItem(f.message), QStandardItem(f.where)]
        for item in items:
            item.setData(f.where, WHERE_ROLE)
            item.setData(f.places, PLACES_ROLE)
            item.setData(f.severity, SEVERITY_ROLE)
            item.setToolTip(f.message)
        return items

    def _filter_changed(self, index: int) -> None:
        self.set_severity_filter(self.FILTERS[index][1])

    def _emit(self, index: QModelIndex) -> None:
        where = index.data(WHERE_ROLE)
        places = index.data(PLACES_ROLE) or ()
        if len(places) > 1:
            self.places_activated.emit(tuple(places))
        elif where:
            self.finding_activated.emit(where)
