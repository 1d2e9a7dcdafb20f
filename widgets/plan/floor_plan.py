"""The floor plan's scene: items that mirror a document's halls, racks and floor units.

One scene unit is one millimetre; scene y grows downward like the model's y.
Halls after the first are laid out to the right of the one before (the model
gives every hall its own coordinate plane), so ``hall_offsets`` maps a hall
to where its origin sits in the scene.

The scene follows a :class:`designer.commands.Document`: each
:class:`~designer.commands.Change` updates, adds or removes only the items it
names (a full rebuild happens only when the document is replaced or a hall
changes). Gestures never edit the model: they go through
:class:`widgets.plan.canvas_tools.CanvasTools`, which pushes one command per edit.

A floor plan is mostly static, so the scene keeps Qt's BSP index and an
explicit scene rect; a drag of many items switches to ``NoIndex`` while it lasts.

This module mirrors the model and dispatches input; the scene's other concerns
are objects it holds, never base classes:

- gestures are :class:`~.interactions.UserInteraction` objects: the scene holds
  the current one and forwards mouse and key events to it first; it ends itself
  (a release) or is cancelled (Escape). A press that no gesture takes is the
  scene's: it selects and may start :class:`~.interactions.MoveSelection`;
- layers drawn over or instead of the footprints are plain helpers the scene owns:
  ``heat`` (:mod:`.floor_heatmap`), ``clearance`` (:mod:`.floor_clearance`) and
  ``overview`` (:mod:`.floor_overview`); they read the scene's item tables and
  never each other;
- :class:`~.floor_selection.SelectionReport` turns Qt's per-item selection
  changes into one ``selection_changed`` per change.
"""
from __future__ import annotations

from collections import Counter

import shiboken6
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPainterPath
from PySide6.QtWidgets import QGraphicsScene

from catalog import Catalog
from designer.commands import Change, Document
from designer.formatting import number, quantity
from designer.model import Project
from designer.placement import floor_footprint, rack_size
from designer.power.electrical_room import electrical_rooms
from designer.site import hall_origins

from ..app import style
from .canvas_tools import CanvasTools
from .electrical_item import ElectricalRoomItem
from .floor_clearance import ClearanceLayer
from .floor_heatmap import HeatMapLayer
from .floor_items import FloorDeviceItem, FootprintItem, HallItem, HallTitleItem, RackItem
from .floor_overview import OverviewLayer
from .floor_selection import SelectionReport
from .interactions import MoveSelection, UserInteraction

#: A floor unit without a footprint in the catalog is still drawn, as a small square, to be found and moved.
DEFAULT_FLOOR_UNIT_MM = (600.0, 600.0)


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
        #: each hall's electrical room, by hall id (drawn beyond its far wall; see designer.power.electrical_room)
        self.room_items: dict[str, ElectricalRoomItem] = {}
        self._roles: Counter = Counter()
        #: Items another view draws on the plan that have colours of their own (``legend()`` -> entries).
        self.legend_overlays: list = []
        self._floor_kinds: Counter = Counter()
        self._halls_rect = QRectF()
        #: the gesture under way (it gets every mouse and key event first), or None
        self.interaction: UserInteraction | None = None
        self._report = SelectionReport()
        self.heat = HeatMapLayer(self)
        self.clearance = ClearanceLayer(self)
        self.overview = OverviewLayer(self)
        self.clearance.add_items()
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
        with self._report.batch():
            self.clearSelection()
        self._report.reset()
        self.set_project(document.project)

    def _on_document_changed(self, document: Document, project: Project, change: Change) -> None:
        if document is not self.document:
            return  # a document this scene no longer shows
        if change.halls or project.halls != self.project.halls:
            self.set_project(project)
        else:
            self.apply_change(project, change)

    # -- building -----------------------------------------------------------------
    def set_project(self, project: Project) -> None:
        """Rebuild every item for ``project`` (the selection is kept by id)."""
        keep = self.selected_ids()
        if self.interaction is not None:
            self.interaction.abandon()  # its items are about to go
        with self._report.batch():
            self.clear()
            self.overview.items_cleared()  # cleared with everything else
            self.project = project
            self.rack_items.clear(), self.floor_items.clear(), self.hall_items.clear(), self.hall_offsets.clear()
            self.heat.items_changed()
            self._roles.clear(), self._floor_kinds.clear()
            self.clearance.add_items()
            self._halls_rect = QRectF()
            for hall, (ox, oy) in zip(project.halls, hall_origins(project.halls)):
                x0, y0, x1, y1 = hall.bounds
                offset = QPointF(ox, oy)
                self.hall_offsets[hall.id] = offset
                item = HallItem(hall.id, hall.outline, hall.tile_mm)
                item.setPos(offset)
                self.addItem(item)
                self.hall_items[hall.id] = item
                size = f"{number((x1 - x0) / 1000, 1)} × {quantity((y1 - y0) / 1000, 'm')}"
                title = HallTitleItem(hall.name or hall.id, f"{size} · {quantity(hall.area_m2, 'm²')}", x1 - x0)
                title.setPos(offset + QPointF(x0, y0))
                self.addItem(title)
                self._halls_rect = self._halls_rect.united(QRectF(x0, y0, x1 - x0, y1 - y0).translated(offset))
            for rack in project.racks:
                self._add_rack(rack)
            for dev in project.floor_devices:
                self._add_floor(dev)
            self.room_items.clear()
            self._refresh_electrical_rooms()
            self._update_scene_rect()
            self.clearance.refresh_all(None)
            for where in keep:
                item = self.item_for(where)
                if item is not None:
                    item.setSelected(True)
        self._on_qt_selection()

    def apply_change(self, project: Project, change: Change) -> None:
        """Update, add or remove just the items ``change`` names."""
        old, self.project = self.project, project
        with self._report.batch():
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
            if self._refresh_electrical_rooms():
                self._update_scene_rect()
            self._grow_scene_rect(touched)
            self.clearance.refresh_all(change.racks)
        self._on_qt_selection()
        self.clearance.show_selection(self.selected_racks())

    def _refresh_electrical_rooms(self) -> bool:
        """Draw each hall's electrical room as its facility and rows now size it (a row added or the UPS changed
        resizes it); True when any room changed. The scene takes the rooms in; the fit stays the halls' (a room
        as deep as its hall would halve the racks on screen and hide their names), the room a scroll below."""
        rooms = electrical_rooms(self.project)
        changed = False
        for hall_id in list(self.room_items):
            if rooms.get(hall_id) != self.room_items[hall_id].room:
                self.removeItem(self.room_items.pop(hall_id))
                changed = True
        for hall_id, room in rooms.items():
            if hall_id in self.room_items:
                continue
            item = ElectricalRoomItem(room)
            item.setPos(self.hall_offsets.get(hall_id, QPointF(0, 0)))
            self.addItem(item)
            self.room_items[hall_id] = item
            changed = True
        return changed

    def _restyle_rack(self, item: RackItem, rack) -> None:
        role = style.rack_role(rack, self.catalog)
        if role != item.role:
            self._roles[item.role] -= 1
            self._roles[role] += 1
            item.role = role
        item.set_style(rack.name or rack.id, style.ROLES[role][0])

    def _add_rack(self, rack) -> RackItem:
        item = RackItem(rack.id, *rack_size(self.catalog, rack.type))
        item.role = style.rack_role(rack, self.catalog)
        self._roles[item.role] += 1
        item.set_style(rack.name or rack.id, style.ROLES[item.role][0])
        if self.heat.on:
            item.set_heat(self.heat.rack_color(rack.id), update=False)
        self._add(item, rack.hall, rack.x, rack.y, rack.rotation)
        self.rack_items[rack.id] = item
        self.heat.items_changed()
        return item

    def _remove_rack(self, rack_id: str) -> None:
        item = self.rack_items.pop(rack_id)
        self.heat.items_changed()
        self._roles[item.role] -= 1
        self.removeItem(item)
        self.overview.dirty()

    def _add_floor(self, dev) -> FloorDeviceItem:
        kind = getattr(self.catalog.find(dev.type), "kind", "")
        self._floor_kinds[kind] += 1
        fp = floor_footprint(dev, self.catalog)
        item = FloorDeviceItem(dev.id, *((fp.width, fp.depth) if fp.solid else DEFAULT_FLOOR_UNIT_MM))
        item.kind = kind
        item.set_style(dev.name or dev.id, (style.CDU if kind == "cdu" else style.FLOOR_OTHER)[0])
        if self.heat.on and kind == "cdu":
            item.set_heat(self.heat.floor_color(dev.id), update=False)
        self._add(item, dev.hall, dev.x, dev.y, dev.rotation)
        self.floor_items[dev.id] = item
        self.heat.items_changed()
        return item

    def _remove_floor(self, device_id: str) -> None:
        item = self.floor_items.pop(device_id)
        self.heat.items_changed()
        self._floor_kinds[item.kind] -= 1
        self.removeItem(item)
        self.overview.dirty()

    def _add(self, item, hall_id: str, x: float, y: float, rotation: float) -> None:
        offset = self.hall_offsets.get(hall_id, QPointF(0, 0))
        self.addItem(item)
        item.place(x + offset.x(), y + offset.y(), rotation)
        self.overview.dirty()

    def _update_scene_rect(self) -> None:
        """Halls plus anything standing outside them, with room to pan around."""
        rect = QRectF(self._halls_rect)
        for item in self.room_items.values():
            rect = rect.united(item.sceneBoundingRect())
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
        if self.heat.on:  # headings first: which figure the racks show (the layer), and what CDUs show
            out = [(style.LEGEND_HEADING, self.heat.title())]
            out += [(style.LEGEND_HEADING, style.HEAT_CDU_HEADING)] if self._floor_kinds.get("cdu", 0) > 0 else []
            out += [style.HEAT_BANDS[band] for band in self.heat.bands_in_use()]
        else:
            out = [style.ROLES[r] for r in style.ROLES if self._roles.get(r, 0) > 0]
            out += [style.CDU] if self._floor_kinds.get("cdu", 0) > 0 else []
            out += [style.FLOOR_OTHER] if any(n > 0 for k, n in self._floor_kinds.items() if k != "cdu") else []
        if self.room_items:  # drawn in its own colours with the heat map on or off
            out += [style.ELECTRICAL_ROOM]
        if self.clearance.show_all:
            out += style.CLEARANCE_LEGEND
        for item in self.legend_overlays:  # drawn over the plan by a view (cable routes): their colours too
            if shiboken6.isValid(item) and item.isVisible() and item.scene() is self:
                out += item.legend()
        if self.interaction is not None:
            out += self.interaction.legend()
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

    # -- selection ------------------------------------------------------------
    def selected_footprints(self) -> list[FootprintItem]:
        return [i for i in self.selectedItems() if isinstance(i, FootprintItem)]

    def selected_racks(self) -> list[RackItem]:
        return [i for i in self.selectedItems() if isinstance(i, RackItem)]

    def selected_ids(self) -> list[str]:
        """The selection as where-strings (``"rack:a01"``, ``"floor:cdu-1"``), racks first, sorted."""
        items = self.selected_footprints()
        return sorted((i.where for i in items), key=lambda w: (not w.startswith("rack:"), w))

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
        with self._report.batch():
            self.clearSelection()
            for where in wheres:
                item = self.item_for(where)
                if isinstance(item, FootprintItem):
                    item.setSelected(True)
        self._on_qt_selection()

    def select_all(self) -> None:
        path = QPainterPath()
        path.addRect(self.sceneRect())
        with self._report.batch():
            self.setSelectionArea(path)
        self._on_qt_selection()

    def _on_qt_selection(self) -> None:
        if self._report.batching:
            return
        self.overview.dirty()  # selected footprints are drawn live, the rest in the overview
        self.clearance.show_selection(self.selected_racks())
        report = self._report.update(self.selected_ids())
        if report is not None:
            self.selection_changed.emit(*report)

    # -- the View menu's switches ------------------------------------------------
    @property
    def heat_map(self) -> bool:
        return self.heat.on

    @property
    def heat_layer(self) -> str:
        return self.heat.layer

    def set_heat_map(self, on: bool) -> None:
        self.heat.set_on(on)

    def set_heat_layer(self, layer: str) -> None:
        self.heat.set_layer(layer)

    def set_all_clearances(self, on: bool) -> None:
        self.clearance.set_show_all(on)

    def set_analysis(self, analysis) -> None:
        """Engine results (a :class:`designer.analysis.Analysis`) to colour the heat map with; None forgets them."""
        self.heat.set_analysis(analysis)

    def overview_dirty(self) -> None:
        """A footprint changed look or place (its item says so): the overview redraws once the burst is over."""
        self.overview.dirty()

    # -- input: the gesture under way first, then the scene's own press ---------------------
    def start_interaction(self, interaction: UserInteraction) -> None:
        """Make ``interaction`` the gesture under way (one left unfinished is dropped)."""
        if self.interaction is not None:
            self.interaction.abandon()
        self.interaction = interaction

    def interaction_ended(self, interaction: UserInteraction) -> None:
        """Called by an interaction as it ends: the scene handles presses itself again."""
        if self.interaction is interaction:
            self.interaction = None

    def cancel_interaction(self) -> None:
        """Cancel the gesture under way, if any (a drag's items go back)."""
        if self.interaction is not None:
            self.interaction.cancel()

    @property
    def dragging(self) -> bool:
        """True while a gesture is changing the plan (a drag past its start distance)."""
        return self.interaction is not None and self.interaction.active

    def mousePressEvent(self, event) -> None:
        if self.interaction is not None and self.interaction.mouse_press(event):
            return
        if event.button() == Qt.MouseButton.LeftButton and self._press(event):
            return
        super().mousePressEvent(event)

    def _press(self, event) -> bool:
        """A left press no gesture took: Ctrl toggles a footprint; a press on one selects it (keeping a
        selection it is part of) and may become a move; on empty floor the hall is clicked and Qt's rubber
        band may start (returns False)."""
        item = self.footprint_at(event.scenePos())
        if item is None:
            hit = self.hall_at(event.scenePos())
            if hit is not None:
                self.hall_clicked.emit(hit[0])
            return False
        event.accept()
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            item.setSelected(not item.isSelected())
            return True
        if not item.isSelected():
            self.select_many([item.where])
        self.start_interaction(MoveSelection(self, event.scenePos(), self.selected_footprints()))
        return True

    def mouseMoveEvent(self, event) -> None:
        if self.interaction is not None and self.interaction.mouse_move(event):
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self.interaction is not None and self.interaction.mouse_release(event):
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:
        if self.interaction is not None and self.interaction.key_press(event):
            return
        super().keyPressEvent(event)
