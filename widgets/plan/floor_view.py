"""The floor-plan view: zoom around the cursor, pan, fit the hall, drops, and the overlays fixed to the viewport."""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QTransform
from PySide6.QtWidgets import QGraphicsView

from . import overlay
from ..app import style
from .floor_items import HallItem
from .palette import MIME_DEVICE

if TYPE_CHECKING:
    from .floor_plan import FloorPlanScene


class FloorPlanView(QGraphicsView):
    """Wheel zoom around the cursor; drag empty floor to select, the middle button (or Space) to pan."""

    MIN_SCALE, MAX_SCALE = 0.002, 5.0  # screen pixels per millimetre
    FIT_PADDING_PX = 56

    def __init__(self, scene: FloorPlanScene, parent=None):
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing)
        self.setBackgroundBrush(style.CANVAS)
        self.setFrameShape(QGraphicsView.Shape.NoFrame)
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
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
        self._update_item_cache()

    def fit_hall(self) -> None:
        """Show every hall whole, centred, with room for its title and the overlays."""
        rect = self.scene().halls_rect()
        if rect.isEmpty():
            rect = self.scene().itemsBoundingRect()
        if rect.isEmpty():
            return
        self._fit(rect)
        self._auto_fit = True

    def _fit(self, rect: QRectF) -> None:
        pad = self.FIT_PADDING_PX
        vp = self.viewport().rect()
        s = min((vp.width() - 2 * pad) / max(rect.width(), 1.0), (vp.height() - 2 * pad) / max(rect.height(), 1.0))
        s = min(max(s, self.MIN_SCALE), self.MAX_SCALE)
        self.setTransform(QTransform.fromScale(s, s))
        self.centerOn(rect.center())
        self._update_item_cache()

    def _update_item_cache(self) -> None:
        """The overview while a rack's short side is too small on screen to hold a label."""
        overview = self.scene().overview
        overview.set_on(self.scale_factor() * 600.0 <= overview.max_px)

    def center_on_object(self, where: str) -> bool:
        """Centre a rack, floor unit or hall (``"rack:a01"``...); zoom out if it would not fit. False if unknown."""
        item = self.scene().item_for(where)
        if item is None:
            return False
        rect = item.sceneBoundingRect() if not isinstance(item, HallItem) else \
            item.mapRectToScene(item.polygon.boundingRect())
        self._auto_fit = False
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        if rect.width() > visible.width() * 0.9 or rect.height() > visible.height() * 0.9:
            self._fit(rect)
        else:
            self.centerOn(rect.center())
        return True

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
            self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    ARROWS = {Qt.Key.Key_Left: (-1, 0), Qt.Key.Key_Right: (1, 0), Qt.Key.Key_Up: (0, -1), Qt.Key.Key_Down: (0, 1)}

    def keyPressEvent(self, event) -> None:
        scene = self.scene()
        key = event.key()
        # Escape during a drag reaches the scene's gesture through super(): it puts the items back.
        if key in self.ARROWS and scene.selected_footprints() and not scene.dragging:
            ux, uy = self.ARROWS[key]
            fine = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            scene.tools.nudge(ux, uy, fine=fine)
            event.accept()
            return
        if key == Qt.Key.Key_Space and not event.isAutoRepeat():
            self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
            event.accept()
            return
        super().keyReleaseEvent(event)

    # -- drops from the palette -------------------------------------------------------
    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasFormat(MIME_DEVICE):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        if event.mimeData().hasFormat(MIME_DEVICE):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        mime = event.mimeData()
        if not mime.hasFormat(MIME_DEVICE):
            event.ignore()
            return
        device_id = bytes(mime.data(MIME_DEVICE)).decode("utf-8").strip()
        scene_pos = self.mapToScene(event.position().toPoint())
        self.scene().tools.drop_device(device_id, scene_pos)
        event.acceptProposedAction()

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
