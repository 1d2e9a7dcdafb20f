"""The site view: the design's halls and buildings on one plan, with a table of every room's figures.

A site of several halls is read here first: where each building and room stands, how much of its
power each room uses, how many fabric links run between rooms and between buildings, and which
rooms have errors. Double-clicking a room (on the plan or in the table) asks the window to open
that hall's floor plan (:attr:`SitePanel.hall_opened`); the window scopes the findings to it.

The plan is the analysed snapshot's :class:`designer.site_plan.SitePlan`; until the first analysis
of a document arrives it shows the rooms alone. While the tab is hidden nothing is rebuilt: the
latest analysis is drawn when it is next shown.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QTransform
from PySide6.QtWidgets import (QGraphicsScene, QGraphicsView, QHeaderView, QLabel, QSplitter, QTreeWidget,
                               QTreeWidgetItem, QVBoxLayout, QWidget)

from designer.formatting import count, number, percent
from designer.model import Project
from designer.site_plan import SitePlan
from designer.totals import TotalsCounter

from ..app import style
from ..plan import overlay
from . import bundle_labels
from .site_items import (ELECTRICAL_FILL, LINE_PX, NETWORK_FILL, ROOM_BUNDLE, SITE_BUNDLE, TITLE_PX, BuildingItem,
                         BundleItem, RoomItem, mw, title_rooms)

COLUMNS = ["Room", "Building", "IT load", "Capacity", "Use", "Racks", "GPUs", "Errors", "Warnings"]
#: The hall id of a table row, and the number a column sorts by.
HALL_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2
#: The site's legend: what a room's fill says, and what the lines are.
HEAT_HEADING = "Rooms: IT load of capacity"
#: Behind a building's title, which the bundles' lines cross.
TITLE_TAB = QColor(255, 255, 255, 200)


class SiteScene(QGraphicsScene):
    """Items for one :class:`SitePlan`."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plan: SitePlan | None = None
        self.room_items: dict[str, RoomItem] = {}
        self.bundle_items: list[BundleItem] = []
        self.building_items: list[BuildingItem] = []
        #: counts the plans shown: what the view placed its labels for (an id could be a freed plan's again)
        self.revision = 0

    def show_plan(self, plan: SitePlan) -> None:
        self.revision += 1
        self.clear()
        self.room_items.clear()
        self.bundle_items = []
        self.plan = plan
        rooms = title_rooms(plan.buildings)
        self.building_items = [BuildingItem(b, rooms[b.name]) for b in plan.buildings]
        for item in self.building_items:
            self.addItem(item)
        for room in plan.rooms:
            item = RoomItem(room)
            self.room_items[room.id] = item
            self.addItem(item)
        names = {r.id: r.name for r in plan.rooms}
        buildings = {b.name: b.name for b in plan.buildings}
        buildings[""] = "Rooms without a building"
        widths = {r.id: r.rect[2] - r.rect[0] for r in plan.rooms}
        for bundle in plan.room_bundles:
            self.bundle_items.append(BundleItem(bundle, names, False, min(widths[bundle.a], widths[bundle.b])))
        for bundle in plan.building_bundles:
            self.bundle_items.append(BundleItem(bundle, buildings, True))
        for item in self.bundle_items:
            self.addItem(item)
        x0, y0, x1, y1 = plan.extent
        # room round the site to pan, and to move it clear of the key when fitted (a view scrolls only within this)
        pad = max(x1 - x0, y1 - y0) + 40000.0
        self.setSceneRect(QRectF(x0, y0, x1 - x0, y1 - y0).adjusted(-pad, -pad, pad, pad))

    def extent(self) -> QRectF:
        if self.plan is None:
            return QRectF()
        x0, y0, x1, y1 = self.plan.extent
        return QRectF(x0, y0, x1 - x0, y1 - y0)

    def legend(self) -> list[tuple]:
        if self.plan is None or not self.plan.rooms:
            return []
        bands = []
        for room in self.plan.rooms:
            if room.kind != "network":
                band = style.HEAT_BANDS[style.heat_band(room.utilisation)]
                if band not in bands:
                    bands.append(band)
        order = list(style.HEAT_BANDS.values())
        out = [(style.LEGEND_HEADING, HEAT_HEADING)] + sorted(bands, key=order.index)
        if any(r.kind == "network" for r in self.plan.rooms):
            out.append((NETWORK_FILL, "Network room"))
        if any(r.electrical is not None for r in self.plan.rooms):
            out.append((ELECTRICAL_FILL, "Electrical room"))
        if self.plan.room_bundles:
            out.append((ROOM_BUNDLE, "Links between rooms", "line"))
        if self.plan.building_bundles:
            out.append((SITE_BUNDLE, "Links between buildings", "line"))
        return out

    def room_at(self, pos) -> str | None:
        for item in self.items(pos):
            if isinstance(item, RoomItem):
                return item.room.id
        return None


class SiteView(QGraphicsView):
    """Wheel zoom around the cursor, drag to pan, double-click a room to open it; the whole site fits on resize
    until the user zooms."""

    room_opened = Signal(str)
    MIN_SCALE, MAX_SCALE = 0.0002, 0.5  # px per mm
    PAD_PX = 48
    LABEL_PX = 60

    def __init__(self, scene: SiteScene, parent=None):
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setBackgroundBrush(style.CANVAS)
        self.setFrameShape(QGraphicsView.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Labels are painted at a fixed screen size, beyond their items' extent in mm at the smallest zooms: a
        # site is a few hundred items, so the whole view is repainted rather than leave parts of them behind.
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.FullViewportUpdate)
        self._auto_fit = True
        self._labels_key: tuple | None = None  # what the titles and counts were last placed for (labels)
        self._labels: tuple = ([], [])
        self._more: dict = {}  # the counts between buildings placed again, and the view they were for (_shown)
        self._rooms_key: tuple | None = None  # what the counts between rooms were last placed for (room_count_labels)
        self._rooms: list = []
        self._more_rooms: dict = {}  # the same for the counts between rooms

    def scale_factor(self) -> float:
        return self.transform().m11()

    def fit_site(self) -> None:
        rect = self.scene().extent()
        if rect.isEmpty():
            return
        vp = self.viewport().rect()
        key = overlay.legend_size(self.scene().legend(), front=False)
        # the key stands at the right, and counts beside the lines reach past the rooms: room for both
        width = max(vp.width() - 2 * self.PAD_PX - key.width() - self.LABEL_PX, 50)
        s = min(width / rect.width(), max(vp.height() - 2 * self.PAD_PX, 50) / rect.height())
        s = min(max(s, self.MIN_SCALE), self.MAX_SCALE)
        self.resetTransform()
        self.scale(s, s)
        self.centerOn(rect.center().x() + (key.width() + self.LABEL_PX) / 2 / s, rect.center().y())
        self._auto_fit = True

    def zoom_by(self, factor: float) -> None:
        current = self.scale_factor()
        target = min(max(current * factor, self.MIN_SCALE), self.MAX_SCALE)
        if target != current:
            self.scale(target / current, target / current)
        self._auto_fit = False

    def wheelEvent(self, event) -> None:
        self.zoom_by(1.0015 ** event.angleDelta().y())
        event.accept()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._auto_fit:
            self.fit_site()

    def mouseDoubleClickEvent(self, event) -> None:
        hall = self.scene().room_at(self.mapToScene(event.position().toPoint()))
        if hall is not None:
            self.room_opened.emit(hall)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def key_rect(self) -> QRectF:
        """Where the colour key stands: the viewport's top right, in its pixels."""
        vp, m = self.viewport().rect(), overlay.LEGEND_MARGIN_PX
        size = overlay.legend_size(self.scene().legend(), front=False)
        return QRectF(vp.width() - size.width() - m, m, size.width(), size.height())

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        painter.save()
        painter.resetTransform()
        vp = self.viewport().rect()
        if self.scene().plan is not None and self.scene().plan.rooms:
            titles, counts = self.labels()
            for text, font, where in titles:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(TITLE_TAB)
                painter.drawRoundedRect(where, 3, 3)
                painter.setFont(font)
                painter.setPen(style.TEXT)
                painter.drawText(where.adjusted(2, 0, 0, 0), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                                 text)
            for placed in counts + self.room_count_labels():
                placed.item.paint_label(painter, placed.box)
            # the scale bar and the key last: a title or a count that reaches under them is covered, not they
            overlay.draw_scale_bar(painter, vp, self.scale_factor())
            overlay.draw_legend(painter, self.key_rect(), self.scene().legend(), front=False)
        painter.restore()

    def labels(self) -> tuple[list[tuple[str, QFont, QRectF]], list[bundle_labels.Placed]]:
        """The buildings' titles and the counts of the bundles between buildings, as drawn over the plan
        (viewport pixels).

        Placed once per zoom (and plan shown), over the whole site in pixels from the scene's origin, and only
        moved with the view: a pan then shows the same counts at the same places on the plan, where placing
        them for each view position made counts appear and vanish as the plan moved under the mouse. Each
        repaint asks (a pan repaints on every mouse move), and placing 120 counts of a million-GPU campus takes
        milliseconds; moving them is microseconds. A count is shown only where it lies whole in the view and
        clear of the key and the scale bar, which stay put while the plan moves under them."""
        t = self.viewportTransform()
        key = (t.m11(), t.m22(), self.scene().revision)
        if key != self._labels_key:
            at_origin = QTransform.fromScale(t.m11(), t.m22())
            titles = self._titles(at_origin)
            self._labels = titles, self._counts(at_origin, [where for *_, where in titles])
            self._labels_key = key
        titles, counts = self._labels
        titles = [(text, font, where.translated(t.dx(), t.dy())) for text, font, where in titles]

        def blocked() -> list[QRectF]:  # the titles and the buildings, for the counts placed again
            return [where for *_, where in titles] + [t.mapRect(b.rect) for b in self.scene().building_items]

        return titles, self._shown(counts, self._between, [], blocked, self._more)

    def _shown(self, placed: list[bundle_labels.Placed], items: Callable[[], list], avoid: list[QRectF],
               blocked: Callable[[], list[QRectF]], again: dict) -> list[bundle_labels.Placed]:
        """Counts ``placed`` for this zoom (pixels from the scene's origin), moved with the view and shown where
        they lie whole in it, clear of the key, the scale bar and ``avoid``; then the counts of ``items()`` not
        shown whose place is out of view or under the key, placed again on the part of their lines in view, clear
        of all those and of ``blocked()`` (zoomed in, most bundles' middles are off screen). Those are worked out
        per view position, as they do move with a pan, and kept in ``again`` (its "placed") for the view they
        were placed for; only the bundles with a point in view are tried."""
        t = self.viewportTransform()
        vp = QRectF(self.viewport().rect())
        fixed = [self.key_rect(), overlay.scale_bar_rect(vp, self.scale_factor())]
        gap = bundle_labels.GAP_PX
        clear = [r.adjusted(-gap, -gap, gap, gap) for r in fixed + avoid]
        shown = []
        for p in placed:
            box = p.box.translated(t.dx(), t.dy())
            if vp.contains(box) and not any(box.intersects(r) for r in clear):
                shown.append(bundle_labels.Placed(box, p.item))
        key = (t.m11(), t.m22(), t.dx(), t.dy(), vp.getRect(), self.scene().revision, fixed[0].getRect(),
               tuple(r.getRect() for r in avoid))
        if again.get("key") != key:
            have = {id(p.item) for p in shown}
            wanted = [(i, i.label_points(), i.label) for i in items() if id(i) not in have]
            wanted = [w for w in wanted if any(vp.contains(t.map(p)) for p in w[1])]
            again["placed"] = bundle_labels.place(
                wanted, t.map, QFontMetricsF(wanted[0][0].label_font()),
                fixed + avoid + [p.box for p in shown] + blocked(), inside=vp) if wanted else []
            again["key"] = key
        return shown + again["placed"]

    def building_titles(self) -> list[tuple[str, QFont, QRectF]]:
        """Each building's title as drawn over the plan: (text, font, viewport rect); none where too narrow. All in
        one size: the larger while every building's name fits it, else the smaller."""
        return self.labels()[0]

    def count_labels(self, for_zoom_only: bool = False) -> list[bundle_labels.Placed]:
        """Where the counts of the bundles between buildings are drawn (viewport pixels), none over another, a
        building, its title, the key or the scale bar; ``for_zoom_only``: those placed for the zoom alone, which a
        pan moves with the plan (the rest are placed again for each view position)."""
        counts = self.labels()[1]
        again = self._more.get("placed", [])
        return [p for p in counts if not any(p is q for q in again)] if for_zoom_only else counts

    def room_count_labels(self) -> list[bundle_labels.Placed]:
        """Where the counts of the bundles between the rooms of a building are drawn (viewport pixels): each only
        while it fits its narrower room on screen, and none over another count, a building's title, the key or the
        scale bar. Drawn by each bundle beside its own middle, the counts of a corridor's bundles, which all run to
        its network room, covered each other and the building's title once zoomed in. Placed once per zoom, as
        the counts between buildings, and moved with a pan; one whose place is out of view is placed again on the
        part of its line in view."""
        titles, between = self.labels()
        t = self.viewportTransform()
        key = (t.m11(), t.m22(), self.scene().revision)
        if key != self._rooms_key:
            at_origin = QTransform.fromScale(t.m11(), t.m22())
            placed_titles, placed_between = self._labels
            self._rooms = self._room_counts(at_origin, [where for *_, where in placed_titles]
                                            + [p.box for p in placed_between])
            self._rooms_key = key
        return self._shown(self._rooms, lambda: self._fitting_rooms(abs(t.m11())), [p.box for p in between],
                           lambda: [where for *_, where in titles], self._more_rooms)

    def _fitting_rooms(self, scale: float) -> list:
        """The bundles between rooms whose count fits the narrower room at ``scale`` (pixels per mm), largest
        first."""
        within = [i for i in self.scene().bundle_items if not i.between_buildings]
        if not within:
            return []
        fm = QFontMetricsF(within[0].label_font())
        return sorted((i for i in within if fm.horizontalAdvance(i.label) + 14 <= i.room_width_mm * scale),
                      key=lambda i: (-i.bundle.all_links, i.bundle.a, i.bundle.b))

    def _room_counts(self, to_px: QTransform, blocked: list[QRectF]) -> list[bundle_labels.Placed]:
        fits = self._fitting_rooms(abs(to_px.m11()))
        if not fits:
            return []
        fm = QFontMetricsF(fits[0].label_font())
        return bundle_labels.place([(i, i.label_points(), i.label) for i in fits], to_px.map, fm, blocked)

    def _titles(self, to_px: QTransform) -> list[tuple[str, QFont, QRectF]]:
        scale = self.scale_factor()
        items = self.scene().building_items
        px = TITLE_PX if all(b.name_fits(scale, TITLE_PX) for b in items) else LINE_PX
        titles = (b.title_box(to_px.map, scale, px) for b in items)
        return [t for t in titles if t[0]]

    def _between(self) -> list:
        """The bundles between buildings, in the order their counts are placed: the largest first."""
        return sorted((i for i in self.scene().bundle_items if i.between_buildings),
                      key=lambda i: (-i.bundle.all_links, i.bundle.a, i.bundle.b))

    def _counts(self, to_px: QTransform, titles: list[QRectF]) -> list[bundle_labels.Placed]:
        """The counts placed over the whole site (``to_px``: scene to pixels at this zoom, from the origin)."""
        between = self._between()
        if not between:
            return []
        blocked = [to_px.mapRect(b.rect) for b in self.scene().building_items] + titles
        fm = QFontMetricsF(between[0].label_font())
        return bundle_labels.place([(i, i.label_points(), i.label) for i in between], to_px.map, fm, blocked)


class SitePanel(QWidget):
    """The site plan over a table of its rooms."""

    #: a room was double-clicked, on the plan or in the table: its hall id
    hall_opened = Signal(str)

    def __init__(self, catalog, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self._counter = TotalsCounter(catalog)  # racks and GPUs per room, recounting only what an edit changed
        self.scene = SiteScene(self)
        self.view = SiteView(self.scene, self)
        self.view.room_opened.connect(self.hall_opened)
        self.summary = QLabel()
        self.summary.setStyleSheet(f"color: {style.MUTED_TEXT.name()}; padding: 4px 8px;")
        self.table = QTreeWidget(self)
        self.table.setColumnCount(len(COLUMNS))
        self.table.setHeaderLabels(COLUMNS)
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.setAlternatingRowColors(True)
        self.table.setSortingEnabled(True)
        self.table.header().setStretchLastSection(False)
        self.table.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.itemActivated.connect(lambda item, _col: self.hall_opened.emit(item.data(0, HALL_ROLE)))
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.view)
        split.addWidget(self.table)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([700, 220])  # the plan first: the table is for reading figures across rooms
        split.setChildrenCollapsible(False)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addWidget(self.summary)
        box.addWidget(split, 1)
        #: what to draw when next shown: (project, its analysis or None)
        self._pending: tuple | None = None
        self._shown_project: Project | None = None
        self.plan: SitePlan | None = None

    # -- inputs ----------------------------------------------------------------------
    def set_project(self, project: Project) -> None:
        """The rooms of a document not yet analysed: drawn without figures until its analysis arrives. An edit
        that leaves the halls as they were keeps the figures shown until its own analysis replaces them."""
        shown = self._shown_project
        if shown is project or (self._pending is not None and self._pending[0] is project):
            return
        if shown is not None and shown.halls == project.halls and self._pending is None:
            return
        self._pending = (project, None)
        self._refresh()

    def new_document(self) -> None:
        """Another document is open: forget the one shown, and fit its site when it comes."""
        self._shown_project = None
        self._pending = None
        self.view._auto_fit = True

    def set_analysis(self, analysis) -> None:
        if analysis is None or analysis.project is None:
            return
        self._pending = (analysis.project, analysis)
        self._refresh()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._refresh()

    def _refresh(self) -> None:
        if self._pending is None or not self.isVisible():
            return
        project, analysis = self._pending
        self._pending = None
        self._shown_project = project
        self.show_plan(SitePlan.of(project, self.catalog, analysis, self._counter))

    # -- drawing ---------------------------------------------------------------------
    def show_plan(self, plan: SitePlan) -> None:
        self.plan = plan
        self.scene.show_plan(plan)
        if self.view._auto_fit:
            self.view.fit_site()
        halls = sum(1 for r in plan.rooms if r.kind != "network")
        nets = len(plan.rooms) - halls
        loads = [r.it_kw for r in plan.rooms if r.it_kw is not None]
        x0, y0, x1, y1 = plan.extent
        rooms = count(halls, "data hall") + (f" and {count(nets, 'network room')}" if nets else "")
        if plan.buildings:
            rooms += f" in {count(len(plan.buildings), 'building')}"
        text = " · ".join([rooms, f"{number(sum(r.gpus for r in plan.rooms))} GPUs",
                           f"{mw(sum(loads)) if loads else '—'} IT",
                           f"site {number((x1 - x0) / 1000)} × {number((y1 - y0) / 1000)} m"])
        self.summary.setText(text + " — double-click a room to open its floor plan")
        self._fill_table(plan)

    def _fill_table(self, plan: SitePlan) -> None:
        self.table.setSortingEnabled(False)
        self.table.clear()
        for order, room in enumerate(plan.rooms):
            values = [room.name, room.building or "—", mw(room.it_kw), mw(room.capacity_kw),
                      percent(room.utilisation) if room.utilisation is not None else "—", number(room.racks),
                      number(room.gpus), number(room.errors), number(room.warnings)]
            # the Room column keeps the project's order (data halls, then network rooms) when sorted by it
            keys = [order, room.building, room.it_kw or 0.0, room.capacity_kw or 0.0, room.utilisation or 0.0,
                    room.racks, room.gpus, room.errors, room.warnings]
            item = _Row(values)
            item.setData(0, HALL_ROLE, room.id)
            for col, key in enumerate(keys):
                item.setData(col, SORT_ROLE, key)
                if col >= 2:
                    item.setTextAlignment(col, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if room.errors:
                item.setForeground(7, style.SEVERITY["error"])
            item.setToolTip(0, "Double-click to open its floor plan")
            self.table.addTopLevelItem(item)
        self.table.setSortingEnabled(True)
        for col in range(1, len(COLUMNS)):
            self.table.resizeColumnToContents(col)

    def row_count(self) -> int:
        return self.table.topLevelItemCount()


class _Row(QTreeWidgetItem):
    """A table row that sorts numbers as numbers."""

    def __lt__(self, other) -> bool:
        col = self.treeWidget().sortColumn() if self.treeWidget() is not None else 0
        a, b = self.data(col, SORT_ROLE), other.data(col, SORT_ROLE)
        try:
            return a < b
        except TypeError:
            return str(a) < str(b)
