"""The floor plan: a scene that mirrors a document's halls, racks and floor units, and a view to edit it.

One scene unit is one millimetre; scene y grows downward like the model's y.
Halls after the first are laid out to the right of the one before (the model
gives every hall its own coordinate plane), so ``hall_offsets`` maps a hall
to where its origin sits in the scene.

The scene follows a :class:`designer.commands.Document`: each
:class:`~designer.commands.Change` updates, adds or removes only the items it
names (a full rebuild happens only when the document is replaced or a hall
changes). Gestures never edit the model: they go through
:class:`widgets.canvas_tools.CanvasTools`, which pushes one command per edit.

A floor plan is mostly static, so the scene keeps Qt's BSP index and an
explicit scene rect; a drag of many items switches to ``NoIndex`` while it lasts.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QPainterPath, QPolygonF
from PySide6.QtWidgets import QApplication, QGraphicsScene

from catalog import Catalog
from designer.commands import Change, Document
from designer.model import Project
from designer.placement import clearance_bands, snap_delta

from . import style
from .canvas_tools import CanvasTools
from .floor_items import ClearanceItem, FloorDeviceItem, FootprintItem, HallItem, HallTitleItem, RackItem
from .floor_overview import OverviewItem

#: Space left between halls laid out side by side.
HALL_GAP_MM = 3000.0
DEFAULT_RACK = (600.0, 1200.0)
#: Dragging more items than this switches the scene index off for the drag.
NO_INDEX_DRAG = 300


@dataclass
class _Drag:
    """A move in progress: where it started and where every moving item was."""

    press: QPointF
    items: list[FootprintItem]
    start: dict = field(default_factory=dict)  # item -> QPointF
    started: bool = False
    delta: QPointF = field(default_factory=QPointF)
    marked: set = field(default_factory=set)  # items drawn red now
    problem: object = None
    indexed: bool = True


def where_of(item: FootprintItem) -> str:
    return item.where


class FloorPlanScene(QGraphicsScene):
    """Items for one document; edits arrive as commands and come back as changes."""

    #: The selection changed: kind ("rack", "floor", or "" for nothing) and the ids of that kind.
    #: A mixed selection reports its racks.
    selection_changed = Signal(str, list)
    #: An edit on the plan was refused (overlap, outside the hall, a command's error): the reason.
    refused = Signal(str)
    #: Empty floor of a hall was clicked (its id): the inspector shows that hall.
    hall_clicked = Signal(str)
    #: A note for the status bar that is not a refusal (a server dropped on the plan).
    status_message = Signal(str)

    def __init__(self, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.document: Document | None = None
        self._listener = None
        self.project = Project()
        self.rack_items: dict[str, RackItem] = {}
        self.floor_items: dict[str, FloorDeviceItem] = {}
        self.hall_items: dict[str, HallItem] = {}
        self.hall_offsets: dict[str, QPointF] = {}
        self._roles: Counter = Counter()
        self._floor_kinds: Counter = Counter()
        self._halls_rect = QRectF()
        self._overview = False
        self._overview_pending = False
        self._overview_items: list[OverviewItem] = []
        self._selection: tuple[str, list] = ("", [])
        self._batch = 0
        self._drag: _Drag | None = None
        self._analysis = None
        self._rack_share: dict[str, float] = {}
        self._floor_share: dict[str, float] = {}
        self.heat_map = False
        self.all_clearances = False
        self._all_bands: dict[str, tuple] = {}
        self._sel_clearance = self._all_clearance = None
        self._make_clearance_items()
        self.tools = CanvasTools(self)
        self.selectionChanged.connect(self._on_qt_selection)

    # -- document ---------------------------------------------------------------
    def set_document(self, document: Document) -> None:
        """Mirror ``document`` from now on (call again when the window's document is replaced)."""
        if self.document is not None and self._listener is not None:
            self.document.unsubscribe(self._listener)
        self.document = document
        self._listener = lambda project, change, doc=document: self._on_document_changed(doc, project, change)
        document.subscribe(self._listener)
        # A new document starts with nothing selected: ids of the old one may name other racks here.
        self._batch += 1
        try:
            self.clearSelection()
        finally:
            self._batch -= 1
        self._selection = ("", [])
        self.set_project(document.project)

    def _on_document_changed(self, document: Document, project: Project, change: Change) -> None:
        if document is not self.document:
            return  # a document this scene no longer shows
        if change.halls or project.halls != self.project.halls:
            self.set_project(project)
        else:
            self.apply_change(project, change)

    # -- building -----------------------------------------------------------------
    def _make_clearance_items(self) -> None:
        self._sel_clearance = ClearanceItem(z=5)
        self._all_clearance = ClearanceItem(z=4)
        self._all_clearance.setVisible(self.all_clearances)
        self.addItem(self._sel_clearance)
        self.addItem(self._all_clearance)

    def set_project(self, project: Project) -> None:
        """Rebuild every item for ``project`` (the selection is kept by id)."""
        keep = self.selected_ids()
        self._drag = None
        self._batch += 1
        try:
            self.clear()
            self._overview_items = []  # cleared with everything else
            self.project = project
            self.rack_items.clear(), self.floor_items.clear(), self.hall_items.clear(), self.hall_offsets.clear()
            self._roles.clear(), self._floor_kinds.clear(), self._all_bands.clear()
            self._make_clearance_items()
            self._halls_rect = QRectF()
            cursor = None
            for hall in project.halls:
                x0, y0, x1, y1 = hall.bounds
                offset = QPointF(0, 0) if cursor is None else QPointF(cursor - x0, 0)
                cursor = x1 + offset.x() + HALL_GAP_MM
                self.hall_offsets[hall.id] = offset
                item = HallItem(hall.id, hall.outline, hall.tile_mm)
                item.setPos(offset)
                self.addItem(item)
                self.hall_items[hall.id] = item
                title = HallTitleItem(hall.name or hall.id,
                                      f"{(x1 - x0) / 1000:.1f} × {(y1 - y0) / 1000:.1f} m · {hall.area_m2:.0f} m²")
                title.setPos(offset + QPointF(x0, y0))
                self.addItem(title)
                self._halls_rect = self._halls_rect.united(QRectF(x0, y0, x1 - x0, y1 - y0).translated(offset))
            for rack in project.racks:
                self._add_rack(rack)
            for dev in project.floor_devices:
                self._add_floor(dev)
            self._update_scene_rect()
            self._refresh_all_clearances(None)
            for where in keep:
                item = self.item_for(where)
                if item is not None:
                    item.setSelected(True)
        finally:
            self._batch -= 1
        self._on_qt_selection()

    def apply_change(self, project: Project, change: Change) -> None:
        """Update, add or remove just the items ``change`` names."""
        old, self.project = self.project, project
        self._batch += 1
        try:
            touched: list[FootprintItem] = []
            for rid in change.racks:
                item = self.rack_items.get(rid)
                if not project.has_rack(rid):
                    if item is not None:
                        self._remove_rack(rid)
                    continue
                rack = project.rack(rid)
                if item is None:
                    touched.append(self._add_rack(rack))
                    continue
                before = old.rack(rid) if old.has_rack(rid) else None
                if before is rack:
                    continue
                if before is None or before.type != rack.type or before.hall != rack.hall:
                    selected = item.isSelected()
                    self._remove_rack(rid)
                    item = self._add_rack(rack)
                    item.setSelected(selected)
                else:
                    self._restyle_rack(item, rack)
                    offset = self.hall_offsets.get(rack.hall, QPointF(0, 0))
                    item.place(rack.x + offset.x(), rack.y + offset.y(), rack.rotation)
                touched.append(item)
            for fid in change.floor_devices:
                item = self.floor_items.get(fid)
                if not project.has_floor_device(fid):
                    if item is not None:
                        self._remove_floor(fid)
                    continue
                dev = project.floor_device(fid)
                before = old.floor_device(fid) if old.has_floor_device(fid) else None
                if before is dev and item is not None:
                    continue
                selected = item is not None and item.isSelected()
                if item is not None:
                    self._remove_floor(fid)
                item = self._add_floor(dev)
                item.setSelected(selected)
                touched.append(item)
            self._grow_scene_rect(touched)
            self._refresh_all_clearances(change.racks)
        finally:
            self._batch -= 1
        self._on_qt_selection()
        self._refresh_selection_clearance()

    def _restyle_rack(self, item: RackItem, rack) -> None:
        role = style.rack_role(rack, self.catalog)
        if role != item.role:
            self._roles[item.role] -= 1
            self._roles[role] += 1
            item.role = role
        item.set_style(rack.name or rack.id, style.ROLES[role][0])

    def _add_rack(self, rack) -> RackItem:
        item = RackItem(rack.id, *self._size(rack.type))
        item.role = style.rack_role(rack, self.catalog)
        self._roles[item.role] += 1
        item.set_style(rack.name or rack.id, style.ROLES[item.role][0])
        if self.heat_map:
            item.set_heat(style.heat_color(self._rack_share.get(rack.id)), update=False)
        self._add(item, rack.hall, rack.x, rack.y, rack.rotation)
        self.rack_items[rack.id] = item
        return item

    def _remove_rack(self, rack_id: str) -> None:
        item = self.rack_items.pop(rack_id)
        self._roles[item.role] -= 1
        self.removeItem(item)
        self.overview_dirty()

    def _add_floor(self, dev) -> FloorDeviceItem:
        kind = getattr(self.catalog.find(dev.type), "kind", "")
        self._floor_kinds[kind] += 1
        item = FloorDeviceItem(dev.id, *self._size(dev.type, (600.0, 600.0)))
        item.kind = kind
        item.set_style(dev.name or dev.id, (style.CDU if kind == "cdu" else style.FLOOR_OTHER)[0])
        if self.heat_map and kind == "cdu":
            item.set_heat(style.heat_color(self._floor_share.get(dev.id)), update=False)
        self._add(item, dev.hall, dev.x, dev.y, dev.rotation)
        self.floor_items[dev.id] = item
        return item

    def _remove_floor(self, device_id: str) -> None:
        item = self.floor_items.pop(device_id)
        self._floor_kinds[item.kind] -= 1
        self.removeItem(item)
        self.overview_dirty()

    def _size(self, type_id: str, default=DEFAULT_RACK) -> tuple[float, float]:
        dev = self.catalog.find(type_id)
        if dev is None:
            return default
        return dev.width_mm or default[0], dev.depth_mm or default[1]

    def _add(self, item, hall_id: str, x: float, y: float, rotation: float) -> None:
        offset = self.hall_offsets.get(hall_id, QPointF(0, 0))
        self.addItem(item)
        item.place(x + offset.x(), y + offset.y(), rotation)
        if self._overview:
            self.overview_dirty()

    # -- painting large plans -------------------------------------------------------
    #: Plans with more footprints than this switch to the overview when zoomed out.
    OVERVIEW_MIN_ITEMS = 2000
    #: ...once a rack's short side is this many screen pixels or fewer (no label fits then).
    OVERVIEW_MAX_PX = 32

    def set_overview(self, on: bool) -> None:
        """Zoomed out on a big plan: draw the unselected footprints as a few native path items.

        A Python ``paint`` call costs a few microseconds; 15,000 of them per frame miss the
        16 ms budget. In the overview, each colour of fill, front band and edge is one
        path drawn by one :class:`OverviewItem`, and the footprint items return from
        ``paint`` at once; they stay ordinary items for clicks, rubber bands and drags.
        Selected and refused (red) footprints paint themselves on top.
        """
        on = bool(on) and len(self.rack_items) + len(self.floor_items) >= self.OVERVIEW_MIN_ITEMS
        if on == self._overview:
            return
        self._overview = on
        if on:
            self._rebuild_overview()
        else:
            self._clear_overview()
            for item in (*self.rack_items.values(), *self.floor_items.values()):
                item.in_overview = False

    def overview_dirty(self) -> None:
        """An unselected footprint changed look or place: redraw the overview once the burst is over."""
        if self._overview and not self._overview_pending:
            self._overview_pending = True
            QTimer.singleShot(0, self, self._rebuild_overview)

    def _clear_overview(self) -> None:
        for item in self._overview_items:
            self.removeItem(item)
        self._overview_items = []

    def _rebuild_overview(self) -> None:
        self._overview_pending = False
        if not self._overview:
            return
        self._clear_overview()
        fills: dict[int, QPainterPath] = {}
        bands: dict[int, QPainterPath] = {}
        edges: dict[int, QPainterPath] = {}
        colours: dict[int, tuple] = {}
        for item in (*self.rack_items.values(), *self.floor_items.values()):
            live = item.isSelected() or item._invalid
            # Still an item of the scene: it takes clicks, rubber bands and drags; it just paints nothing.
            item.in_overview = not live
            if live:
                continue
            fill = item._fill.color()
            key = fill.rgba()
            if key not in fills:
                fills[key], bands[key], edges[key] = QPainterPath(), QPainterPath(), QPainterPath()
                colours[key] = (fill, item._band.color(), item._edge.color())
            transform = item.sceneTransform()
            body = transform.map(QPolygonF(item._rect))
            fills[key].addPolygon(body)
            edges[key].addPolygon(body)
            bands[key].addPolygon(transform.map(QPolygonF(item._front)))
        overview = OverviewItem([(colours[k], fills[k], bands[k], edges[k]) for k in colours])
        self.addItem(overview)
        self._overview_items.append(overview)

    def _update_scene_rect(self) -> None:
        """Halls plus anything standing outside them, with room to pan around."""
        rect = QRectF(self._halls_rect)
        for item in (*self.rack_items.values(), *self.floor_items.values()):
            if not rect.contains(item.pos()):
                rect = rect.united(item.sceneBoundingRect())
        if rect.isEmpty():
            rect = QRectF(0, 0, 10000, 10000)
        margin = max(3000.0, 0.3 * max(rect.width(), rect.height()))
        self.setSceneRect(rect.adjusted(-margin, -margin, margin, margin))

    def _grow_scene_rect(self, items) -> None:
        """Widen the scene rect for changed items that stand outside it (it never shrinks on an edit)."""
        rect = self.sceneRect()
        for item in items:
            if not rect.contains(item.sceneBoundingRect()):
                rect = rect.united(item.sceneBoundingRect().adjusted(-3000, -3000, 3000, 3000))
        if rect != self.sceneRect():
            self.setSceneRect(rect)

    # -- queries ------------------------------------------------------------
    def halls_rect(self) -> QRectF:
        """The union of every hall's bounds in scene coordinates (empty when there is no hall)."""
        return QRectF(self._halls_rect)

    def legend(self) -> list[tuple]:
        """(colour, label) for each kind of item the plan shows, in legend order."""
        if self.heat_map:
            out = list(style.HEAT_LEGEND)
        else:
            out = [style.ROLES[r] for r in style.ROLES if self._roles.get(r, 0) > 0]
            out += [style.CDU] if self._floor_kinds.get("cdu", 0) > 0 else []
            out += [style.FLOOR_OTHER] if any(n > 0 for k, n in self._floor_kinds.items() if k != "cdu") else []
        if self.all_clearances:
            out += style.CLEARANCE_LEGEND
        return out

    def item_for(self, where: str):
        """The item for ``"rack:<id>"``, ``"floor:<id>"`` or ``"hall:<id>"``, or None."""
        kind, _, oid = where.partition(":")
        return {"rack": self.rack_items, "floor": self.floor_items, "hall": self.hall_items}.get(kind, {}).get(oid)

    def hall_at(self, scene_pos: QPointF) -> tuple[str, float, float] | None:
        """The hall under a scene point and the point in that hall's own plane, or None."""
        for hall_id, item in self.hall_items.items():
            local = scene_pos - self.hall_offsets[hall_id]
            if item.polygon.containsPoint(local, Qt.FillRule.OddEvenFill):
                return hall_id, local.x(), local.y()
        return None

    def footprint_at(self, scene_pos: QPointF) -> FootprintItem | None:
        for item in self.items(scene_pos):
            if isinstance(item, FootprintItem):
                return item
        return None

    # -- selection --------------------------------------------------------------
    def selected_footprints(self) -> list[FootprintItem]:
        return [i for i in self.selectedItems() if isinstance(i, FootprintItem)]

    def selected_ids(self) -> list[str]:
        """The selection as where-strings (``"rack:a01"``, ``"floor:cdu-1"``), racks first, sorted."""
        items = self.selected_footprints()
        return sorted((where_of(i) for i in items), key=lambda w: (not w.startswith("rack:"), w))

    def select(self, where: str) -> bool:
        """Select one object by where-string alone; a hall (``"hall:<id>"``) clears the selection.

        Returns False when nothing by that name is on the plan.
        """
        item = self.item_for(where)
        if item is None:
            return False
        self.select_many([where] if isinstance(item, FootprintItem) else [])
        return True

    def select_many(self, wheres) -> None:
        """Replace the selection (one ``selection_changed`` for the lot)."""
        self._batch += 1
        try:
            self.clearSelection()
            for where in wheres:
                item = self.item_for(where)
                if isinstance(item, FootprintItem):
                    item.setSelected(True)
        finally:
            self._batch -= 1
        self._on_qt_selection()

    def select_all(self) -> None:
        path = QPainterPath()
        path.addRect(self.sceneRect())
        self._batch += 1
        try:
            self.setSelectionArea(path)
        finally:
            self._batch -= 1
        self._on_qt_selection()

    def _on_qt_selection(self) -> None:
        if self._batch:
            return
        self.overview_dirty()  # selected footprints are drawn live, the rest in the overview
        ids = self.selected_ids()
        racks = [w[5:] for w in ids if w.startswith("rack:")]
        floors = [w[6:] for w in ids if w.startswith("floor:")]
        current = ("rack", racks) if racks else ("floor", floors) if floors else ("", [])
        self._refresh_selection_clearance()
        if current != self._selection:
            self._selection = current
            self.selection_changed.emit(*current)

    # -- clearance zones ------------------------------------------------------------
    def _bands_of(self, item: RackItem):
        w, d = item.size
        p = item.pos()
        return clearance_bands(p.x(), p.y(), w, d, item.rotation())

    def _refresh_selection_clearance(self) -> None:
        if self._sel_clearance is None:
            return
        racks = [i for i in self.selected_footprints() if isinstance(i, RackItem)]
        bands = [self._bands_of(i) for i in racks]
        self._sel_clearance.set_bands([b[0] for b in bands], [b[1] for b in bands])

    def clearance_bands_shown(self) -> int:
        """How many bands the selection's clearance layer draws (two per selected rack)."""
        return self._sel_clearance.band_count

    def set_all_clearances(self, on: bool) -> None:
        """Show the clearance zones of every rack, not only the selected ones."""
        self.all_clearances = bool(on)
        self._all_clearance.setVisible(self.all_clearances)
        if not on:
            self._all_bands.clear()
            self._all_clearance.set_bands([], [])
        self._refresh_all_clearances(None)
        self.update()  # the legend lists the bands

    def _refresh_all_clearances(self, changed) -> None:
        if not self.all_clearances:
            return
        if changed is None:
            self._all_bands = {rid: self._bands_of(item) for rid, item in self.rack_items.items()}
        else:
            for rid in changed:
                item = self.rack_items.get(rid)
                if item is None:
                    self._all_bands.pop(rid, None)
                else:
                    self._all_bands[rid] = self._bands_of(item)
        bands = list(self._all_bands.values())
        self._all_clearance.set_bands([b[0] for b in bands], [b[1] for b in bands])

    # -- heat map --------------------------------------------------------------------
    def set_analysis(self, analysis) -> None:
        """Engine results (a :class:`designer.analysis.Analysis`) to colour the heat map with; None forgets them."""
        self._analysis = analysis
        self._rack_share, self._floor_share = {}, {}
        if analysis is not None:
            for r in analysis["power"].get("racks", []):
                share = r.get("utilisation")
                if share is None and r.get("limit_kw"):
                    share = r["max_kw"] / r["limit_kw"]
                self._rack_share[r["id"]] = share
            for loop in analysis["cooling"].get("cdu_loops", []):
                cap = loop.get("capacity_kw") or 0.0
                share = loop["load_kw"] / cap if cap > 0 else None
                for unit in loop.get("units", []):
                    kind, _, uid = unit.partition(":")
                    if kind == "floor":
                        self._floor_share[uid] = share
        if self.heat_map:
            self._recolour()

    def set_heat_map(self, on: bool) -> None:
        """Colour racks by kW against their limit and CDUs by loop load against capacity."""
        self.heat_map = bool(on)
        self._recolour()

    def _recolour(self) -> None:
        on = self.heat_map
        for rid, item in self.rack_items.items():
            item.set_heat(style.heat_color(self._rack_share.get(rid)) if on else None, update=False)
        for fid, item in self.floor_items.items():
            heat = on and item.kind == "cdu"
            item.set_heat(style.heat_color(self._floor_share.get(fid)) if heat else None, update=False)
        self.update()

    # -- dragging selected items ---------------------------------------------------------
    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            item = self.footprint_at(event.scenePos())
            if item is None:
                hit = self.hall_at(event.scenePos())
                if hit is not None:
                    self.hall_clicked.emit(hit[0])
            if item is not None:
                if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                    item.setSelected(not item.isSelected())
                    event.accept()
                    return
                if not item.isSelected():
                    self.select_many([where_of(item)])
                items = self.selected_footprints()
                self._drag = _Drag(event.scenePos(), items, {i: i.pos() for i in items})
                event.accept()
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        drag = self._drag
        if drag is None:
            super().mouseMoveEvent(event)
            return
        event.accept()
        if not drag.started:
            moved = event.screenPos() - event.buttonDownScreenPos(Qt.MouseButton.LeftButton)
            if moved.manhattanLength() < QApplication.startDragDistance():
                return
            drag.started = True
            if len(drag.items) > NO_INDEX_DRAG:
                drag.indexed = False
                self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        delta = event.scenePos() - drag.press
        if not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            tile = self.tools.tile_of(drag.items[0])
            delta = QPointF(snap_delta(delta.x(), tile), snap_delta(delta.y(), tile))
        if delta == drag.delta:
            return
        drag.delta = delta
        for item in drag.items:
            item.setPos(drag.start[item] + delta)
        problem = self.tools.check_items(drag.items)
        drag.problem = problem
        marked = set()
        if problem is not None:
            marked = {self.item_for(w) for w in problem.bad | problem.hit} - {None}
        for item in drag.marked - marked:
            item.set_invalid(False)
        for item in marked - drag.marked:
            item.set_invalid(True)
        drag.marked = marked
        self._refresh_selection_clearance()

    def mouseReleaseEvent(self, event) -> None:
        drag = self._drag
        if drag is None or event.button() != Qt.MouseButton.LeftButton:
            super().mouseReleaseEvent(event)
            return
        event.accept()
        self._finish_drag(commit=True)

    def cancel_drag(self) -> None:
        """Put a drag's items back and forget it (Escape)."""
        self._finish_drag(commit=False)

    def _finish_drag(self, commit: bool) -> None:
        drag, self._drag = self._drag, None
        if drag is None:
            return
        for item in drag.marked:
            item.set_invalid(False)
        if not drag.indexed:
            self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        if not drag.started or drag.delta.isNull():
            return
        pushed = False
        if commit:
            if drag.problem is not None:
                self.refused.emit(f"Move refused: {drag.problem.message}")
            else:
                pushed = self.tools.commit_items(drag.items)
        if not pushed:  # back to where the model says they are
            for item, pos in drag.start.items():
                if item.scene() is self:
                    item.setPos(pos)
            self._refresh_selection_clearance()

    @property
    def dragging(self) -> bool:
        return self._drag is not None and self._drag.started
