"""Every finding of the latest analysis, with its severity; activating one asks the plan to show it.

The panel only *reports* what the user picked (:attr:`FindingsPanel.finding_activated`
with the finding's ``where``, e.g. ``"rack:a01"``); selecting and centring the
object is the main window's job, so the panel works the same in a report view.
The Where column names each place as the plan and the inspector do ("Rack A01",
"Bill of materials"), read from the project the findings were made from
(:class:`designer.names.Namer`); the where-string itself stays in the rows' data,
for navigation only. Severity icons are painted once with QPainter (no image files to ship).
"""
from __future__ import annotations

import re
from html import escape
from typing import Iterable

from PySide6.QtCore import QModelIndex, QPointF, QRectF, QRegularExpression, QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QAction, QFont, QIcon, QPainter, QPainterPath, QPen, QPixmap, QStandardItem, \
    QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QHBoxLayout, QLabel, QTreeView, QVBoxLayout, QWidget

from designer.findings import Finding
from designer.formatting import count, number
from designer.model import Project
from designer.names import Namer
from designer.site_plan import hall_of_place

from ..app import style

#: The one scheme's severity colours, as the quote PDF prints them.
SEVERITY_COLOURS = style.SEVERITY
SEVERITY_RANK = {"error": 0, "warning": 1, "info": 2}
WHERE_ROLE = Qt.ItemDataRole.UserRole + 1
#: every object a finding is about (a tuple), when more than one
PLACES_ROLE = WHERE_ROLE + 100
SEVERITY_ROLE = Qt.ItemDataRole.UserRole + 2
#: What a column sorts by: a severity's rank in column 0, the text shown elsewhere.
SORT_ROLE = Qt.ItemDataRole.UserRole + 3
#: What the filter matches: "<severity> <hall id>" (the hall a finding's place lies in; none for the design's)
FILTER_ROLE = Qt.ItemDataRole.UserRole + 4
COLUMNS = ["Severity", "Code", "Message", "Where"]
MESSAGE, WHERE = 2, 3
#: The Where column grows to its longest name up to this width; the message keeps the rest of the panel.
WHERE_MAX_PX = 200


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
    p.setPen(QPen(style.text_on(colour)))
    glyph = {"error": "×", "warning": "!", "info": "i"}.get(severity, "?")
    rect = QRectF(0, 2 if severity == "warning" else 0, s, s - (1 if severity == "warning" else 0))
    p.drawText(rect, Qt.AlignmentFlag.AlignCenter, glyph)
    p.end()
    return QIcon(pix)


class _SeverityFilter(QSortFilterProxyModel):
    """Shows findings of the chosen severities (and, on a site, of the chosen hall); sorts severity by rank.

    Both are Qt's own: the filter matches column 0's "<severity> <hall>" and the sort reads :data:`SORT_ROLE`
    (a severity's rank, the other columns' text), so no Python runs per row while a big hall's thousands of
    findings are filtered and sorted."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setFilterRole(FILTER_ROLE)
        self.setFilterKeyColumn(0)
        self._hall = ""
        self.allowed = set(SEVERITY_RANK)

    @property
    def allowed(self) -> set[str]:
        return self._allowed

    @allowed.setter
    def allowed(self, severities: set[str]) -> None:
        self._allowed = set(severities)
        self._apply()

    @property
    def hall(self) -> str:
        return self._hall

    @hall.setter
    def hall(self, hall_id: str) -> None:
        """Only findings in this hall ("": every finding of the design)."""
        self._hall = hall_id
        self._apply()

    def _apply(self) -> None:
        words = "|".join(sorted(re.escape(s) for s in self._allowed))
        where = re.escape(self._hall) if self._hall else ".*"
        self.setFilterRegularExpression(QRegularExpression(f"^({words}) {where}$" if words else "(?!)"))


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
        self.view.header().setSectionResizeMode(MESSAGE, self.view.header().ResizeMode.Stretch)
        # Rows stay one line high (a big hall has thousands of findings, and uniform rows keep them fast): a
        # message too long for its column is cut at its end, where it matters least, and its tooltip holds all.
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        # The code is for scripts and for searching the documentation; people read the message, which then
        # has the room. A right click on the header brings the column back.
        self.view.setColumnHidden(1, True)
        self.show_codes_action = QAction("Show finding codes", self.view.header())
        self.show_codes_action.setCheckable(True)
        self.show_codes_action.toggled.connect(lambda on: self.view.setColumnHidden(1, not on))
        self.view.header().addAction(self.show_codes_action)
        self.view.header().setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.view.clicked.connect(self._emit)
        self.view.activated.connect(self._emit)  # double-click and Enter
        self.filter = QComboBox()
        for text, _ in self.FILTERS:
            self.filter.addItem(text)
        self.filter.currentIndexChanged.connect(self._filter_changed)
        # On a site: the findings of one hall, or of the whole design (hidden for a design of one hall).
        self.hall_filter = QComboBox()
        self.hall_filter.setToolTip("Show the findings of one hall, or of the whole site")
        self.hall_filter.currentIndexChanged.connect(self._hall_changed)
        self.hall_filter.setVisible(False)
        self.counts = QLabel()
        self.counts.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        self.empty = QLabel("No findings: the design passes every check.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        top = QHBoxLayout()
        top.addWidget(self.counts, 1)
        top.addWidget(self.hall_filter)
        top.addWidget(self.filter)
        box = QVBoxLayout(self)
        box.setContentsMargins(6, 4, 6, 4)
        box.addLayout(top)
        box.addWidget(self.view, 1)
        box.addWidget(self.empty, 1)
        self.set_findings(())

    # ---- public API ---------------------------------------------------------------------
    def set_analysis(self, analysis) -> None:
        """Show ``analysis``'s findings (None, before the first analysis of a document, empties the list)."""
        if analysis is None:
            self.set_findings(())
        else:
            self.set_findings(analysis.findings, analysis.project, analysis.catalog)

    def set_findings(self, findings: Iterable[Finding], project: Project | None = None, catalog=None) -> None:
        """Replace the list (one analysis' findings); keeps the filter and sort order.

        ``project`` is the snapshot the findings were made from (``analysis.project``) and ``catalog`` the
        one it was read with: the Where column names places from them. Without a project a place is
        named by its id, the only thing the finding itself holds."""
        findings = list(findings)
        self._namer = Namer(project, catalog)
        self._hall_of = (lambda where: hall_of_place(project, where)) if project is not None else (lambda _: "")
        # The proxy sorts once when the rows are in, not on every row appended (seconds for a big hall's
        # ten thousand findings); its sort column and filter stay as the user left them.
        self.proxy.setDynamicSortFilter(False)
        self.model.removeRows(0, self.model.rowCount())
        for f in findings:
            self.model.appendRow(self._row(f))
        self.proxy.setDynamicSortFilter(True)
        self._kinds = [(f.severity, self._hall_of(f.where)) for f in findings]
        self._show_counts()
        self.view.setVisible(bool(findings))
        self.empty.setVisible(not findings)
        for col in (0, 1, WHERE):
            self.view.resizeColumnToContents(col)
        if self.view.columnWidth(WHERE) > WHERE_MAX_PX:
            self.view.setColumnWidth(WHERE, WHERE_MAX_PX)

    def where_at(self, row: int) -> str:
        """The ``where`` of the visible row ``row`` (after filter and sort)."""
        return self.proxy.index(row, 0).data(WHERE_ROLE)

    def place_at(self, row: int) -> str:
        """What the Where column of the visible row ``row`` shows ("Rack A01", "Racks A01, A02 +14 more")."""
        return self.proxy.index(row, WHERE).data()

    def row_count(self) -> int:
        return self.proxy.rowCount()

    def set_severity_filter(self, severities: Iterable[str]) -> None:
        self.proxy.allowed = set(severities)

    def set_halls(self, halls: list[tuple[str, str]]) -> None:
        """The halls to choose from, (id, name) (none: a design of one hall, no choice shown); the choice is
        kept while its hall is still there."""
        keep = self.proxy.hall
        offered = [("", "Whole site")] + list(halls)
        if [(self.hall_filter.itemData(i), self.hall_filter.itemText(i))
                for i in range(self.hall_filter.count())] != offered:
            self.hall_filter.blockSignals(True)
            self.hall_filter.clear()
            for hall_id, name in offered:
                self.hall_filter.addItem(name, hall_id)
            self.hall_filter.blockSignals(False)
        self.hall_filter.setVisible(bool(halls))
        self.set_hall(keep if any(h == keep for h, _ in halls) else "")

    def set_hall(self, hall_id: str) -> None:
        """Show only the findings in hall ``hall_id`` ("" : all of them)."""
        index = self.hall_filter.findData(hall_id)
        if index >= 0 and index != self.hall_filter.currentIndex():
            self.hall_filter.setCurrentIndex(index)  # which sets the proxy's hall
        else:
            self.proxy.hall = hall_id if index >= 0 else ""
            self._show_counts()

    # ---- internals ----------------------------------------------------------------------
    def _row(self, f: Finding) -> list[QStandardItem]:
        places = f.places
        namer = self._namer
        texts = (f.severity, f.code, f.message, namer.summary(places))
        items = [QStandardItem(text) for text in texts]
        items[0].setIcon(self._icons.get(f.severity, QIcon()))
        # what a row is about lives in its first cell; a click on any cell reads it there
        first = items[0]
        first.setData(f.where, WHERE_ROLE)
        first.setData(places, PLACES_ROLE)
        first.setData(f.severity, SEVERITY_ROLE)
        first.setData(f"{f.severity} {self._hall_of(f.where)}", FILTER_ROLE)
        first.setData(SEVERITY_RANK.get(f.severity, len(SEVERITY_RANK)), SORT_ROLE)
        for item, text in zip(items[1:], texts[1:]):
            item.setData(text, SORT_ROLE)
        # Rich text, so Qt wraps a long message to the screen instead of one line wider than it.
        message_tip = f"<p>{escape(f.message)}</p><p><i>{escape(f.code)}</i></p>"
        for item in items[:WHERE]:
            item.setToolTip(message_tip)
        items[WHERE].setToolTip(f"<p>{escape(namer.listing(places))}</p>")  # every place; the column shows two
        return items

    def _hall_changed(self, index: int) -> None:
        self.proxy.hall = self.hall_filter.itemData(index) or ""
        self._show_counts()

    def _show_counts(self) -> None:
        """Errors, warnings and infos of the design, or of the hall chosen (then named)."""
        hall = self.proxy.hall
        kinds = [sev for sev, h in self._kinds if not hall or h == hall]
        errors, warnings, infos = (kinds.count(sev) for sev in ("error", "warning", "info"))
        text = f"{count(errors, 'error')} · {count(warnings, 'warning')} · {number(infos)} info"
        self.counts.setText(f"{self.hall_filter.currentText()}: {text}" if hall else text)

    def _filter_changed(self, index: int) -> None:
        self.set_severity_filter(self.FILTERS[index][1])

    def _emit(self, index: QModelIndex) -> None:
        first = index.siblingAtColumn(0)
        where = first.data(WHERE_ROLE)
        places = first.data(PLACES_ROLE) or ()
        if len(places) > 1:
            self.places_activated.emit(tuple(places))
        elif where:
            self.finding_activated.emit(where)
