"""The cabling view: the selected rack's links (to where, medium, length), their routes on the plan, and the
design's cable lengths per medium.

Every figure is the fabric engine's wiring plan, read through :mod:`designer.cabling_view`
(one rack's links are a numpy mask over the plan's columns, so a 300,000-link design
answers in milliseconds). The table's model formats a cell only when the view asks for
it. Routes are drawn by one :class:`~widgets.plan.cable_routes.CableRoutesItem` this panel
keeps in the floor plan's scene (:mod:`.route_overlay`); the table's model is in
:mod:`.link_table`, the histogram in :mod:`.length_chart`.

An analysis describes the project it was made from: until the newer one arrives after
an edit, the panel keeps showing the last one and says it is updating.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from catalog import Catalog
from designer.cabling_view import (
    LinkRows,
    cabling_summary,
    devices_in_rack,
    links_of,
    medium_name,
    wiring_message,
)
from designer.commands import Document
from designer.formatting import DECIMALS, count, number, quantity

from ..app import style
from ..app.doc_binding import bind
from ..dashboards.figures import fabric_kind
from ..plan.cable_routes import CableRoutesItem, medium_color
from .length_chart import LengthChart
from .length_chart import key_text as _key
from .link_table import LinkTableModel
from .route_overlay import RouteOverlay

#: Rows the table holds at most: a rack's links are a few hundred, this only bounds a pathological design.
MAX_ROWS = 20_000
NO_SELECTION = "Select a rack on the plan to see its links and their routes."
UPDATING = "updating…"
NO_FABRIC_LINKS = ("Nothing in this rack plugs into the compute fabric, the one network the wiring plan cables "
                   "(storage, in-band and management networks are not planned here).")
NEWER_THAN_ANALYSIS = "This rack is newer than the last analysis: its links appear when the next one is done."


class CablingPanel(QWidget):
    """The selected rack's links, their routes on ``scene``, and the design's cable-length histogram."""

    #: A row was double-clicked: the far rack's id (the window may select it on the plan).
    rack_activated = Signal(str)

    def __init__(self, catalog: Catalog, scene, parent: QWidget | None = None):
        super().__init__(parent)
        self.catalog = catalog
        self.scene = scene
        self._document: Document | None = None
        self._analysis = None
        self.kind, self.ids = "", ()
        self.rows: LinkRows | None = None
        self._disposed = False
        self._device_names: dict[str, str] = {}
        #: the routes of the links listed, on the plan
        self.routes = RouteOverlay(scene)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.timeout.connect(self._refresh)
        self._build_titles()
        self.model = LinkTableModel(catalog, self)
        self.table = self._build_table()
        self.links_page = self._build_links_page()
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        #: the whole design's cable lengths
        self.histogram = LengthChart()
        self._build_pages()
        self.setMinimumSize(380, 420)
        self._refresh()

    def _build_titles(self) -> None:
        self.title = QLabel()
        font = self.title.font()
        font.setPixelSize(14)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.subtitle = QLabel()
        self.subtitle.setWordWrap(True)
        self.subtitle.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")

    def _build_table(self) -> QTableView:
        table = QTableView()
        table.setModel(self.model)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setSortingEnabled(True)
        table.sortByColumn(LinkTableModel.FROM, Qt.SortOrder.AscendingOrder)
        table.setAlternatingRowColors(True)
        table.setWordWrap(False)
        table.verticalHeader().hide()
        # Uniform rows: the view never measures a row, which keeps thousands of links instant.
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
        # The far end takes what the near end leaves (up to half); a name too long loses its middle, keeping the
        # rack and the port.
        table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = table.horizontalHeader()
        for col, mode in ((LinkTableModel.FROM, QHeaderView.ResizeMode.Interactive),
                          (LinkTableModel.TO, QHeaderView.ResizeMode.Stretch),
                          (LinkTableModel.MEDIUM, QHeaderView.ResizeMode.ResizeToContents),
                          (LinkTableModel.LENGTH, QHeaderView.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(col, mode)
        # Fitting a column to its text formats the rows it measures: a sample keeps a big rack quick.
        header.setResizeContentsPrecision(100)
        table.selectionModel().currentRowChanged.connect(self._on_row)
        table.doubleClicked.connect(self._on_double_click)
        return table

    def _build_links_page(self) -> QWidget:
        """The device filter, the routes switch and the table."""
        self.device_filter = QComboBox()
        self.device_filter.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.device_filter.setMinimumContentsLength(14)
        self.device_filter.setToolTip("Show the links of one device of the rack")
        self.device_filter.activated.connect(lambda _i: self._show_links())
        self.show_routes = QCheckBox("Show routes on the plan")
        self.show_routes.setChecked(True)
        self.show_routes.toggled.connect(self._on_show_routes)
        links_page = QWidget()
        links_box = QVBoxLayout(links_page)
        links_box.setContentsMargins(0, 0, 0, 0)
        links_box.setSpacing(4)
        controls = QHBoxLayout()
        controls.addWidget(self.device_filter, 1)
        controls.addWidget(self.show_routes)
        links_box.addLayout(controls)
        links_box.addWidget(self.table, 1)
        return links_page

    def _build_pages(self) -> None:
        """The content (titles, links or summary, histogram) or, without a wiring plan, a message."""
        content = QWidget()
        box = QVBoxLayout(content)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        box.addWidget(self.title)
        box.addWidget(self.subtitle)
        # Siblings rather than pages of a stack: a hidden one takes no room, so the summary's few lines leave the
        # chart the height the table would have had.
        box.addWidget(self.links_page, 3)
        box.addWidget(self.summary)
        box.addSpacing(6)
        box.addWidget(self.histogram, 2)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.message.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        self.message.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.message)
        self.pages.addWidget(content)
        self.content = content
        outer = QVBoxLayout(self)
        outer.setContentsMargins(8, 6, 8, 6)
        outer.addWidget(self.pages)

    # ---- public API -------------------------------------------------------------------------------------
    def set_document(self, document: Document | None) -> None:
        """Follow ``document`` (a removed rack clears the view; renames show at once)."""
        self._document = document
        if document is not None:
            bind(document, self, "_on_project_changed")
        self._schedule()

    def set_analysis(self, analysis) -> None:
        """The latest analysis (None: none yet); its wiring plan fills the table, routes and histogram."""
        self._analysis = analysis
        self.histogram.set_analysis(analysis)
        self._refresh()

    def show_selection(self, kind: str, ids=()) -> None:
        """Show ``kind`` ("rack", "device", "floor", "hall" or "") with the plan's selected ids.

        One rack (or one mounted device) shows its links and routes; anything else shows the
        design's summary and clears the routes.
        """
        self.kind, self.ids = kind, tuple(ids or ())
        self._refresh()

    def dispose(self) -> None:
        """Take the chart apart and the routes off the plan before the window is destroyed (pyqtgraph's items
        are Python-owned; left to Qt's destructor chain they are deleted twice)."""
        self._disposed = True
        self._refresh_timer.stop()
        self._document = None  # the document's listener then finds nothing to tell
        self.histogram.dispose()
        self.routes.dispose()

    @property
    def selected_rack(self) -> str | None:
        """The rack whose links are shown, or None."""
        return self.rows.rack_id if self.rows is not None and self.rows.rack_id else None

    @property
    def routes_item(self) -> CableRoutesItem:
        """The item that draws the routes on the plan (a new one after the scene rebuilt its items)."""
        return self.routes.item

    def histogram_tooltip(self, index: int) -> str:
        """What hovering bar ``index`` of the histogram says: the length, then the cables of each medium."""
        return self.histogram.tooltip(index)

    # ---- state -------------------------------------------------------------------------------------------
    def _schedule(self) -> None:
        """Refresh once the current event is done: the scene rebuilds its items in its own listener, which may
        run after this panel's, and a burst of edits then costs one refresh."""
        self._refresh_timer.start(0)

    def _on_project_changed(self, project, change) -> None:
        rack = self._rack_wanted(project)
        gone = self.kind in ("rack", "device") and len(self.ids) == 1 and (rack is None or not project.has_rack(rack))
        if gone:
            self.kind, self.ids = "", ()
            self._refresh()  # at once: the routes must not point at a rack that is gone
            return
        self._schedule()

    def _stale(self) -> bool:
        return (self._analysis is not None and self._document is not None
                and self._analysis.project is not self._document.project)

    def _project(self):
        if self._document is not None:
            return self._document.project
        return self._analysis.project if self._analysis is not None else None

    def _rack_wanted(self, project) -> str | None:
        """The rack the selection asks for: the rack itself, or the rack that holds the one device."""
        if len(self.ids) != 1 or project is None:
            return None
        if self.kind == "rack":
            return self.ids[0]
        if self.kind == "device":
            return next((r.id for r in project.racks if any(d.id == self.ids[0] for d in r.devices)), None)
        return None

    def _refresh(self) -> None:
        self._refresh_timer.stop()
        if self._disposed:
            return
        why = wiring_message(self._analysis)
        if why is not None:
            self.message.setText(why)
            self.pages.setCurrentWidget(self.message)
            self._set_rows(None)
            return
        self.pages.setCurrentWidget(self.content)
        project = self._project()
        rack = self._rack_wanted(project)
        if rack is None or not project.has_rack(rack):
            self._show_summary()
            return
        self._fill_filter(rack)
        self._show_links()

    # ---- the design ---------------------------------------------------------------------------------------
    def _show_summary(self) -> None:
        self._set_rows(None)
        s = cabling_summary(self._analysis)
        self.title.setText(f"Cabling: {count(s.links, 'fabric link')}")
        parts = [count(s.cables, "cable"), f"{quantity(s.metres, 'm')} of cable"]
        if self._analysis is not None and self._analysis.has("fabric"):  # what the links are of: its technology, planes
            parts.insert(0, fabric_kind(self._analysis.fabric))
        if self._stale():
            parts.append(UPDATING)
        self.subtitle.setText(" · ".join(parts))
        lines = []
        for key, t in s.by_medium.items():
            lines.append(f"{_key(medium_color(key), medium_name(key))}: {count(t.cables, 'cable')}"
                         f"{(' for ' + count(t.links, 'link')) if t.links != t.cables else ''}, "
                         f"{quantity(t.metres, 'm')}")
        if s.too_long:
            lines.append(f'<span style="color:{medium_color("none").name()}">{count(s.too_long, "link")} '
                         f"{'has' if s.too_long == 1 else 'have'} no parts: too long, or none fits</span>")
        several = self.kind == "rack" and len(self.ids) > 1
        hint = (f"{len(self.ids)} racks are selected: select one to see its links." if several else NO_SELECTION)
        lines.append(f'<span style="color:{style.MUTED_TEXT.name()}">{hint}</span>')
        self.summary.setText("<br>".join(lines))
        self._show_page(links=False)

    # ---- one rack -------------------------------------------------------------------------------------
    def _fill_filter(self, rack: str) -> None:
        """The rack's fabric devices in the filter (shown only when it has several); the choice is kept by id."""
        if self.kind == "device":
            want = self.ids[0]
        elif self.device_filter.property("rack") == rack:
            want = self.device_filter.currentData()  # a refresh of the same rack keeps the device chosen
        else:
            want = None
        devices = devices_in_rack(self._analysis, self.catalog, rack)
        self.device_filter.blockSignals(True)
        try:
            self.device_filter.clear()
            # A link between two devices of the rack is one of the rack's links but one of each device's.
            total = links_of(self._analysis, self._project(), self.catalog, rack, limit=0).total
            self.device_filter.addItem(f"All devices ({count(total, 'link')})", None)
            for did, name, n in devices:
                self.device_filter.addItem(f"{name} ({count(n, 'link')})", did)
            self._device_names = {did: name for did, name, _ in devices}
            at = self.device_filter.findData(want) if want is not None else 0
            self.device_filter.setCurrentIndex(max(at, 0))
            self.device_filter.setProperty("rack", rack)
        finally:
            self.device_filter.blockSignals(False)
        self.device_filter.setVisible(len(devices) > 1)

    def _show_links(self) -> None:
        project = self._project()
        rack = self._rack_wanted(project)
        if rack is None:
            self._show_summary()
            return
        device = self.device_filter.currentData()
        rows = (links_of(self._analysis, project, self.catalog, device, rack=rack, limit=MAX_ROWS) if device
                else links_of(self._analysis, project, self.catalog, rack, limit=MAX_ROWS))
        name = (project.rack(rack).name or rack) if project.has_rack(rack) else rows.rack_name
        if not rows.rack_id or not rows.total:
            # Nothing to list: a line saying why, not an empty table.
            self._set_rows(None)
            if rows.rack_id:
                self.title.setText(f"Rack {name}: no fabric links")
                self.subtitle.setText(UPDATING if self._stale() else "")
                why = NO_FABRIC_LINKS
            else:
                self.title.setText(f"Rack {name}")
                self.subtitle.setText(UPDATING if self._stale() else "")
                why = NEWER_THAN_ANALYSIS
            self.summary.setText(f'<span style="color:{style.MUTED_TEXT.name()}">{why}</span>')
            self._show_page(links=False)
            return
        what = count(rows.total, "link")
        if device:
            self.title.setText(f"{self._device_names.get(device, device)} in rack {name}: {what}")
        else:
            self.title.setText(f"Rack {name}: {what}")
        self.subtitle.setText(self._detail(rows))
        self._set_rows(rows)
        self._show_page(links=True)

    def _show_page(self, links: bool) -> None:
        self.links_page.setVisible(links)
        self.summary.setVisible(not links)

    @property
    def showing_links(self) -> bool:
        """True while the table of one rack's links shows (else the design's summary or a message)."""
        return self.pages.currentWidget() is self.content and not self.links_page.isHidden()

    def _detail(self, rows: LinkRows) -> str:
        parts = []
        if rows.far_racks:
            parts.append(f"to {count(rows.far_racks, 'other rack')}")
        if rows.in_rack:
            parts.append(f"{number(rows.in_rack)} inside the rack")
        lengths = rows.length_m[~np.isnan(rows.length_m)]
        if len(lengths):
            lo, hi = float(lengths.min()), float(lengths.max())
            parts.append(quantity(lo, "m") if lo == hi else f"{number(lo, DECIMALS['m'])}–{quantity(hi, 'm')}")
        if len(rows) < rows.total:
            parts.append(f"the first {number(len(rows))} shown")
        if self._stale():
            parts.append(UPDATING)
        return " · ".join(parts)

    def _set_rows(self, rows: LinkRows | None) -> None:
        self.rows = rows
        self.model.set_rows(rows)
        header = self.table.horizontalHeader()
        if header.sortIndicatorSection() != LinkTableModel.FROM or \
                header.sortIndicatorOrder() != Qt.SortOrder.AscendingOrder:
            self.model.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
        self._fit_columns()
        self._draw_routes()

    def _fit_columns(self) -> None:
        """The near end as wide as its text, but no wider than half the table: the far end's names are longer."""
        if self.rows is None or not len(self.rows):
            return
        room = self.table.viewport().width() - sum(self.table.columnWidth(c) for c in
                                                     (LinkTableModel.MEDIUM, LinkTableModel.LENGTH))
        want = max(self.table.sizeHintForColumn(LinkTableModel.FROM),
                   self.table.horizontalHeader().sectionSizeHint(LinkTableModel.FROM))
        self.table.setColumnWidth(LinkTableModel.FROM, max(60, min(want, room // 2)))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_columns()

    # ---- routes ---------------------------------------------------------------------------------------
    def _draw_routes(self) -> None:
        rows = self.rows if self.show_routes.isChecked() else None
        self.routes.draw(self._analysis, rows)
        if rows is not None and len(rows):
            self._on_row(self.table.currentIndex())

    def _on_show_routes(self, on: bool) -> None:
        self._draw_routes()

    def _on_row(self, current, previous=None) -> None:
        if self.rows is None or not current.isValid() or current.row() >= self.model.rowCount():
            self.routes.highlight(None)
            return
        self.routes.highlight(self.rows.far_rack_id[self.model.row_of(current.row())])

    def _on_double_click(self, index) -> None:
        if self.rows is not None and index.isValid():
            self.rack_activated.emit(str(self.rows.far_rack_id[self.model.row_of(index.row())]))
