"""The overview of a big, zoomed-out floor plan: every unselected footprint in one paint call."""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, Qt, QTimer
from PySide6.QtGui import QBrush, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

if TYPE_CHECKING:
    from .floor_plan import FloorPlanScene


class OverviewItem(QGraphicsItem):
    """Every unselected footprint of a zoomed-out plan, drawn in one ``paint`` call.

    One path per colour for the fills, the front bands and the edges. Antialiasing is off:
    at a few pixels per rack it only blurs, and it costs most of the frame.
    """

    def __init__(self, groups):
        super().__init__()
        self.setZValue(8)  # under the live footprints (9, 10), over the hall and clearances
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self._groups = []
        bounds = QRectF()
        for (fill, band, edge), fill_path, band_path, edge_path in groups:
            pen = QPen(edge, 0)
            pen.setCosmetic(True)
            self._groups.append((QBrush(fill), QBrush(band), pen, fill_path, band_path, edge_path))
            bounds = bounds.united(fill_path.boundingRect())
        self._bounds = bounds

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(Qt.PenStyle.NoPen)
        for fill, band, _pen, fill_path, band_path, _edge_path in self._groups:
            painter.setBrush(fill)
            painter.drawPath(fill_path)
            if lod * 100 >= 2:  # the 100 mm front band is at least 2 px
                painter.setBrush(band)
                painter.drawPath(band_path)
        if lod * 600 >= 6:  # edges only once a rack is wide enough to show them apart
            painter.setBrush(Qt.BrushStyle.NoBrush)
            for _, _, pen, _, _, edge_path in self._groups:
                painter.setPen(pen)
                painter.drawPath(edge_path)


class OverviewLayer:
    """Switching one :class:`~widgets.plan.floor_plan.FloorPlanScene` between live footprints and one
    :class:`OverviewItem`."""

    #: Plans with more footprints than this switch to the overview when zoomed out.
    min_items = 2000
    #: ...once a rack's short side is this many screen pixels or fewer (no label fits then).
    max_px = 32

    def __init__(self, scene: FloorPlanScene):
        self.scene = scene
        #: the overview is drawn (a big plan, zoomed out)
        self.on = False
        self._pending = False
        self._items: list[OverviewItem] = []

    def set_on(self, on: bool) -> None:
        """Zoomed out on a big plan: draw the unselected footprints as a few native path items.

        A Python ``paint`` call costs a few microseconds; 15,000 of them per frame miss the
        16 ms budget. In the overview, each colour of fill, front band and edge is one
        path drawn by one :class:`OverviewItem`, and the footprint items return from
        ``paint`` at once; they stay ordinary items for clicks, rubber bands and drags.
        Selected and refused (red) footprints paint themselves on top.
        """
        scene = self.scene
        on = bool(on) and len(scene.rack_items) + len(scene.floor_items) >= self.min_items
        if on == self.on:
            return
        self.on = on
        if on:
            self._rebuild()
        else:
            self._clear()
            for item in (*scene.rack_items.values(), *scene.floor_items.values()):
                item.in_overview = False

    def dirty(self) -> None:
        """An unselected footprint changed look or place: redraw the overview once the burst is over."""
        if self.on and not self._pending:
            self._pending = True
            QTimer.singleShot(0, self.scene, self._rebuild)

    def items_cleared(self) -> None:
        """The scene removed every item, the overview's with them."""
        self._items = []

    def _clear(self) -> None:
        for item in self._items:
            self.scene.removeItem(item)
        self._items = []

    def _rebuild(self) -> None:
        self._pending = False
        if not self.on:
            return
        self._clear()
        fills: dict[int, QPainterPath] = {}
        bands: dict[int, QPainterPath] = {}
        edges: dict[int, QPainterPath] = {}
        colours: dict[int, tuple] = {}
        for item in (*self.scene.rack_items.values(), *self.scene.floor_items.values()):
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
        self.scene.addItem(overview)
        self._items.append(overview)
