"""The floor-plan view: zoom around the cursor, pan, fit the hall, drops, and the overlays fixed to the viewport."""
from __future__ import annotations

from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QEvent, QPointF, QRectF, QSettings, Qt
from PySide6.QtGui import QPainter, QTransform
from PySide6.QtWidgets import QGraphicsView, QToolTip

from . import overlay
from ..app import style
from .floor_items import FootprintItem, HallItem
from .palette import MIME_DEVICE

if TYPE_CHECKING:
    from .floor_plan import FloorPlanScene


class FloorPlanView(QGraphicsView):
    """Wheel zoom around the cursor; drag empty floor to select, the middle button (or Space) to pan."""

    MIN_SCALE, MAX_SCALE = 0.002, 5.0  # screen pixels per millimetre
    FIT_PADDING_PX = 56  # above and below: the hall's title and the scale bar stand there
    FIT_SIDE_PADDING_PX = 32  # left and right only the walls' line: a wide hall keeps more of the width

    #: The key folded to a tab (the user's choice, kept across sessions).
    LEGEND_FOLDED_KEY = "plan/legend_folded"

    def __init__(self, scene: FloorPlanScene, parent=None, settings: QSettings | None = None):
        super().__init__(scene, parent)
        self._settings = settings or QSettings()
        self._legend_folded = self._settings.value(self.LEGEND_FOLDED_KEY, False, type=bool)
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
        #: The corner the colour key stood in last ("br", "tr", "tl", "bl"): it stays while no other covers less.
        self._legend_corner = "br"
        self._legend_key: tuple | None = None  # what the last placement was worked out for (legend_rect)
        self._legend_box = QRectF()
        #: What the last fit showed (scene): while the view stays as fitted, the key keeps off its racks first and
        #: a neighbouring hall's second; once the user zooms or pans, all count alike.
        self._focus = QRectF()
        self._focus_view: tuple | None = None

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

    def fit_room(self, hall_id: str) -> bool:
        """Show one hall whole (a room opened from the site view); False when the plan has no such hall."""
        item = self.scene().hall_items.get(hall_id)
        if item is None:
            return False
        self._fit(item.sceneBoundingRect())
        self._auto_fit = False  # the user asked for this hall: a resize keeps it, not the whole site
        return True

    def _fit(self, rect: QRectF) -> None:
        """Scale and centre ``rect`` with padding, keeping the colour key's bottom-right corner off the design.

        When the key would cover a rack, a floor unit or a cable route of the centred halls, the halls are made
        smaller only as far as it takes to clear them wholly, beside the key or above it (whichever keeps them
        larger), and moved away from it. Over empty floor the key may stay: the racks keep their size. Only what
        lies in ``rect`` counts: a hall opened from the site has neighbours all round, and the key may stand over
        them (counting them, no corner ever cleared and the key sat on the opened hall's title and walls).
        """
        self._focus = QRectF(rect)
        pad, side = self.FIT_PADDING_PX, self.FIT_SIDE_PADDING_PX
        vp = self.viewport().rect()
        w, h = max(rect.width(), 1.0), max(rect.height(), 1.0)
        key = overlay.legend_size(self.scene().legend(), self._legend_folded)
        s = min((vp.width() - 2 * side) / w, (vp.height() - 2 * pad) / h)
        dx = dy = 0.0
        if not key.isEmpty():
            m = overlay.LEGEND_MARGIN_PX
            reach_x = vp.width() - key.width() - 2 * m  # the key's left edge, less a gap
            reach_y = vp.height() - key.height() - 2 * m
            # Beside or above the key the halls clear it wholly: the smallest scale ever needed.
            floor = max(min((reach_x - side) / w, (vp.height() - 2 * pad) / h),
                        min((vp.width() - 2 * side) / w, (reach_y - pad) / h))

            def covers(scale: float, sx: float, sy: float) -> bool:
                """Whether the key, with a margin round it, covers a footprint or route of the halls at
                ``scale`` moved ``sx``, ``sy`` pixels left and up from the centre."""
                box = QRectF(rect.center().x() + (sx + reach_x - vp.width() / 2) / scale,
                             rect.center().y() + (sy + reach_y - vp.height() / 2) / scale,
                             (key.width() + m) / scale, (key.height() + m) / scale)
                return any(r.intersects(rect) for r in self._kept_clear(box))

            def placed(scale: float) -> tuple[float, float] | None:
                """The least move from the centre that clears the key at ``scale``, or None."""
                room_x = max(0.0, (vp.width() - w * scale) / 2 - side)
                room_y = max(0.0, (vp.height() - h * scale) / 2 - pad)
                need_x = min(room_x, max(0.0, (vp.width() + w * scale) / 2 - reach_x))
                need_y = min(room_y, max(0.0, (vp.height() + h * scale) / 2 - reach_y))
                for sx, sy in ((0.0, 0.0), (need_x, 0.0), (0.0, need_y), (need_x, need_y), (room_x, room_y)):
                    if not covers(scale, sx, sy):
                        return sx, sy
                return None

            # shrink only as far as clearing takes; a viewport too small to hold the key beside the halls has no
            # such scale (its floor is not positive): the halls keep their size and the key may cover them
            start, floor = s, floor if floor > 0 else s
            for _ in range(200):  # 0.97 ** 200: a 450th of the scale, past any key's need
                if (moved := placed(s)) is not None or s <= floor:
                    break
                s = max(floor, s * 0.97)
            if moved is None:  # no scale clears it: the halls keep their fitted size under the key
                s = start
            dx, dy = moved if moved is not None else (0.0, 0.0)
        s = min(max(s, self.MIN_SCALE), self.MAX_SCALE)
        self.setTransform(QTransform.fromScale(s, s))
        centre = rect.center() + QPointF(dx / s, dy / s)
        # The view scrolls only within the scene rect: a halls' rect barely smaller than the viewport
        # would pull the halls back under the key, so the rect grows to what this fit shows.
        shown = QRectF(0, 0, vp.width() / s, vp.height() / s)
        shown.moveCenter(centre)
        if not self.sceneRect().contains(shown):
            self.scene().setSceneRect(self.scene().sceneRect().united(shown.adjusted(-1, -1, 1, 1)))
        self.centerOn(centre)
        self._focus_view = self._view_state()
        self._update_item_cache()

    def _view_state(self) -> tuple:
        """Where the view stands: its scale, offset and size (what the key's placement depends on)."""
        t = self.viewportTransform()
        return t.m11(), t.m22(), t.dx(), t.dy(), self.viewport().size().toTuple()

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

    @property
    def legend_folded(self) -> bool:
        """The key shows as a tab only (a click on it toggles; remembered)."""
        return self._legend_folded

    def set_legend_folded(self, folded: bool) -> None:
        if folded == self._legend_folded:
            return
        self._legend_folded = folded
        self._settings.setValue(self.LEGEND_FOLDED_KEY, folded)
        if self._auto_fit:
            self.fit_hall()  # the room the key took or gives back
        self.viewport().update()

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip and self.legend_rect().contains(QPointF(event.pos())):
            QToolTip.showText(event.globalPos(), "Click to unfold the colour key" if self._legend_folded
                              else "Click to fold the colour key out of the way", self.viewport())
            return True
        return super().viewportEvent(event)

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.legend_rect().contains(event.position()):
            self.set_legend_folded(not self._legend_folded)
            event.accept()
            return
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

    _CORNERS = ("br", "tr", "tl", "bl")

    def legend_rect(self, entries: list | None = None) -> QRectF:
        """Where the colour key is drawn, in viewport pixels (empty when there is nothing to key).

        Bottom-right, where fitting the halls leaves room for it; once a zoom or pan puts racks under it, the
        corner whose box covers the least of the racks and floor units (the routes run between them). The
        bottom-left box sits above the scale bar.
        """
        size = overlay.legend_size(self.scene().legend() if entries is None else entries, self._legend_folded)
        if size.isEmpty():
            return QRectF()
        # Worked out again only when the view moved or what is drawn over the plan changed: every repaint asks
        # (a click on a rack repaints the plan several times), and asking the scene what lies under four
        # corners of a 12,500-rack plan costs milliseconds each time.
        key = (*self._view_state(), size.toTuple(), len(self.scene().rack_items),
               tuple((id(o), o.isVisible()) for o in self.scene().legend_overlays))
        if key == self._legend_key:
            return QRectF(self._legend_box)
        box = self._place_legend(size)
        self._legend_key, self._legend_box = key, QRectF(box)
        return box

    def _place_legend(self, size) -> QRectF:
        """The corner box of ``size`` that covers least of the design (see :meth:`legend_rect`)."""
        vp, m = self.viewport().rect(), overlay.LEGEND_MARGIN_PX
        x = {"l": m, "r": vp.width() - m - size.width()}
        y = {"t": m, "b": vp.height() - m - size.height()}
        boxes = {c: QRectF(x[c[1]], y[c[0]], size.width(), size.height()) for c in self._CORNERS}
        boxes["bl"].moveBottom(vp.height() - 50 - 8)  # above the scale bar

        def covered(box: QRectF) -> float:
            """Pixels of the design under ``box``; what the last fit showed weighs a thousand times more, so
            the key stands over a neighbouring hall rather than the one opened."""
            to_vp = self.viewportTransform()
            total = 0.0
            for r in self._kept_clear(self.mapToScene(box.toAlignedRect()).boundingRect()):
                hit = to_vp.mapRect(r).intersected(box)
                total += hit.width() * hit.height() * (1000.0 if fitted and r.intersects(self._focus) else 1.0)
            return total

        fitted = self._view_state() == self._focus_view

        best = self._legend_corner
        cost = covered(boxes[best])
        if cost > 0:
            for corner in self._CORNERS:
                if corner != best and (c := covered(boxes[corner])) < cost:
                    best, cost = corner, c
        self._legend_corner = best
        return boxes[best]

    def _kept_clear(self, box: QRectF) -> list[QRectF]:
        """Scene rects of what the key must not hide that reach into ``box`` (scene coordinates): racks and
        floor units, and each leg of the cable routes drawn over the plan (a few pixels wide)."""
        scene = self.scene()
        # bounding rects, not shapes: footprints are rectangles, and asking each for its shape costs a call per item
        out = [item.sceneBoundingRect() for item in scene.items(box, Qt.ItemSelectionMode.IntersectsItemBoundingRect)
               if isinstance(item, FootprintItem)]
        casing = 4.0 / max(self.scale_factor(), 1e-9)
        for overlay_item in scene.legend_overlays:
            if not (shiboken6.isValid(overlay_item) and hasattr(overlay_item, "routes")
                    and overlay_item.isVisible() and overlay_item.scene() is scene):
                continue
            for _, poly in overlay_item.routes():
                for i in range(poly.size() - 1):
                    leg = QRectF(poly[i], poly[i + 1]).normalized().adjusted(-casing, -casing, casing, casing)
                    if leg.intersects(box):
                        out.append(leg)
        return out

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        painter.save()
        painter.resetTransform()
        scene = self.scene()
        vp = self.viewport().rect()
        if scene.halls_rect().isEmpty() and not scene.rack_items:
            overlay.draw_placeholder(painter, vp)
        else:
            overlay.draw_scale_bar(painter, vp, self.scale_factor())
            entries = scene.legend()
            overlay.draw_legend(painter, self.legend_rect(entries), entries, self._legend_folded)
        painter.restore()
