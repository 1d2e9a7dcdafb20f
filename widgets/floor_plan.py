"""The floor plan: a scene that mirrors a project's halls, racks and floor units, and a view to zoom and pan it.

One scene unit is one millimetre; scene y grows downward like the model's y.
Halls after the first are laid out to the right of the one before (the model
gives every hall its own coordinate plane), so ``hall_offsets`` maps a hall
to where its origin sits in the scene.

A floor plan is mostly static, so the scene keeps Qt's default BSP index and
an explicit scene rect (so Qt never walks every item to find its extent).
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QTransform
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

from catalog import Catalog
from designer.model import Project

from . import overlay, style
from .floor_items import FloorDeviceItem, HallItem, HallTitleItem, RackItem

#: Space left between halls laid out side by side.
HALL_GAP_MM = 3000.0
DEFAULT_RACK = (600.0, 1200.0)


class FloorPlanScene(QGraphicsScene):
    """Items for one project value; ``set_project`` rebuilds them all."""

    def __init__(self, catalog: Catalog, parent=None):
        super().__init__(parent)
        self.catalog = catalog
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.rack_items: dict[str, RackItem] = {}
        self.floor_items: dict[str, FloorDeviceItem] = {}
        self.hall_items: dict[str, HallItem] = {}
        self.hall_offsets: dict[str, QPointF] = {}
        self._legend: list[tuple] = []
        self._halls_rect = QRectF()

    # -- building -----------------------------------------------------------
    def set_project(self, project: Project) -> None:
        self.clear()
        self.rack_items.clear(), self.floor_items.clear(), self.hall_items.clear(), self.hall_offsets.clear()
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
        roles = set()
        for rack in project.racks:
            item = RackItem(rack.id, *self._size(rack.type))
            item.role = style.rack_role(rack, self.catalog)
            roles.add(item.role)
            item.set_style(rack.name or rack.id, style.ROLES[item.role][0])
            self._add(item, rack.hall, rack.x, rack.y, rack.rotation)
            self.rack_items[rack.id] = item
        floor_kinds = set()
        for dev in project.floor_devices:
            kind = getattr(self.catalog.find(dev.type), "kind", "")
            floor_kinds.add(kind)
            item = FloorDeviceItem(dev.id, *self._size(dev.type, (600.0, 600.0)))
            item.set_style(dev.name or dev.id, (style.CDU if kind == "cdu" else style.FLOOR_OTHER)[0])
            self._add(item, dev.hall, dev.x, dev.y, dev.rotation)
            self.floor_items[dev.id] = item
        self._legend = [style.ROLES[r] for r in style.ROLES if r in roles]
        self._legend += [style.CDU] if "cdu" in floor_kinds else []
        self._legend += [style.FLOOR_OTHER] if floor_kinds - {"cdu"} else []
        self._update_scene_rect()

    def _size(self, type_id: str, default=DEFAULT_RACK) -> tuple[float, float]:
        dev = self.catalog.find(type_id)
        if dev is None:
            return default
        return dev.width_mm or default[0], dev.depth_mm or default[1]

    def _add(self, item, hall_id: str, x: float, y: float, rotation: float) -> None:
        offset = self.hall_offsets.get(hall_id, QPointF(0, 0))
        self.addItem(item)
        item.place(x + offset.x(), y + offset.y(), rotation)

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

    # -- queries ------------------------------------------------------------
    def halls_rect(self) -> QRectF:
        """The union of every hall's bounds in scene coordinates (empty when there is no hall)."""
        return QRectF(self._halls_rect)

    def legend(self) -> list[tuple]:
        """(colour, label) for each kind of item the plan shows, in legend order."""
        return list(self._legend)


class FloorPlanView(QGraphicsView):
    """Wheel zoom around the cursor, pan by dragging empty space or with the middle button."""

    MIN_SCALE, MAX_SCALE = 0.002, 5.0  # screen pixels per millimetre
    FIT_PADDING_PX = 56

    def __init__(self, scene: FloorPlanScene, parent=None):
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing)
        self.setBackgroundBrush(style.CANVAS)
        self.setFrameShape(QGraphicsView.Shape.NoFrame)
        # A canvas pans by dragging; scrollbars would only take room and suggest the scene rect is the world.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._pan_from = None
        #: Keep the halls fitted on resize until the user zooms or pans.
        self._auto_fit = True

    def scale_factor(self) -> float:
        """Screen pixels per millimetre."""
        return self.transform().m11()

    def zoom_by(self, factor: float, under_mouse: bool = False) -> None:
        current = self.scale_factor()
        target = min(max(current * factor, self.MIN_SCALE), self.MAX_SCALE)
        self._auto_fit = False
        if target == current:
            return
        anchor = (QGraphicsView.ViewportAnchor.AnchorUnderMouse if under_mouse
                  else QGraphicsView.ViewportAnchor.AnchorViewCenter)
        old = self.transformationAnchor()
        self.setTransformationAnchor(anchor)
        self.scale(target / current, target / current)
        self.setTransformationAnchor(old)

    def fit_hall(self) -> None:
        """Show every hall whole, centred, with room for its title and the overlays."""
        rect = self.scene().halls_rect()
        if rect.isEmpty():
            rect = self.scene().itemsBoundingRect()
        if rect.isEmpty():
            return
        pad = self.FIT_PADDING_PX
        vp = self.viewport().rect()
        s = min((vp.width() - 2 * pad) / rect.width(), (vp.height() - 2 * pad) / rect.height())
        s = min(max(s, self.MIN_SCALE), self.MAX_SCALE)
        self.setTransform(QTransform.fromScale(s, s))
        self.centerOn(rect.center())
        self._auto_fit = True

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._auto_fit:
            self.fit_hall()

    # -- input --------------------------------------------------------------
    def wheelEvent(self, event) -> None:
        delta = event.angleDelta().y()
        if delta:
            self.zoom_by(1.0015 ** delta, under_mouse=True)
        event.accept()

    def mousePressEvent(self, event) -> None:
        self._auto_fit = False
        if event.button() == Qt.MouseButton.MiddleButton:
            self._pan_from = event.position()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if self._pan_from is not None:
            d = event.position() - self._pan_from
            self._pan_from = event.position()
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - round(d.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - round(d.y()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.MiddleButton and self._pan_from is not None:
            self._pan_from = None
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    # -- overlays -------------------------------------------------------------
    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self.viewport().update()  # the overlays are fixed to the viewport; a pixel scroll would smear them

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        painter.save()
        painter.resetTransform()
        scene = self.scene()
        vp = self.viewport().rect()
        if scene.halls_rect().isEmpty() and not scene.rack_items:
            overlay.draw_placeholder(painter, vp)
        else:
            overlay.draw_scale_bar(painter, vp, self.scale_factor())
            overlay.draw_legend(painter, vp, scene.legend())
        painter.restore()
