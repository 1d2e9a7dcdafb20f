"""Graphics items of the floor plan: a hall, a rack, a floor unit (CDU), a hall title.

Items hold an object id plus only what ``paint`` needs (size, colour, label),
never a copy of the model: the scene rebuilds or restyles them from the
project. Pens, brushes, fonts and label layout are built once in setters so
``paint`` stays cheap, and ``paint`` branches on level of detail (a filled
rectangle when small on screen, outline and front band from mid zoom,
labels only when they are big enough to read).
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

from . import style

#: A label is drawn only when its text would be at least this many pixels tall on screen.
MIN_LABEL_PX = 7.0
#: Below this many screen pixels per tile the floor grid is noise, so it is skipped.
MIN_TILE_PX = 6.0


def _lod(painter) -> float:
    return QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())


def _cosmetic(color: QColor, width: float = 1.0) -> QPen:
    pen = QPen(color, width)
    pen.setCosmetic(True)
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    return pen


def _font(px: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(max(1, round(px)))
    f.setBold(bold)
    f.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    return f


class _Label:
    """A name laid out to fit a box: the first word bold and as large as fits, the rest smaller below it."""

    REF = 100.0
    SECONDARY = 0.72

    def __init__(self, text: str, box_w: float, box_h: float, max_px: float):
        words = text.split(maxsplit=1) or [""]
        self.lines = words
        bold, regular = QFontMetricsF(_font(self.REF, True)), QFontMetricsF(_font(self.REF))
        box_w, box_h = max(box_w, 1.0), max(box_h, 1.0)
        k1 = min(box_w / max(bold.horizontalAdvance(words[0]), 1.0), box_h / bold.height(), max_px / self.REF)
        sizes = [self.REF * k1]
        if len(words) > 1:
            k2 = min(box_w / max(regular.horizontalAdvance(words[1]), 1.0), k1 * self.SECONDARY)
            sizes.append(self.REF * k2)
            total = bold.height() * k1 + regular.height() * k2
            if total > box_h:  # both lines together too tall: shrink both alike
                sizes = [px * box_h / total for px in sizes]
        self.px = sizes[0]
        self.sizes = sizes
        self.fonts = [_font(px, i == 0) for i, px in enumerate(sizes)]
        self.heights = [QFontMetricsF(f).height() for f in self.fonts]

    def draw(self, painter, center: QPointF, lod: float) -> None:
        """Draw the lines big enough to read at this level of detail, centred together."""
        shown = [i for i, px in enumerate(self.sizes) if px * lod >= MIN_LABEL_PX]
        y = center.y() - sum(self.heights[i] for i in shown) / 2
        for i in shown:
            painter.setFont(self.fonts[i])
            painter.drawText(QRectF(center.x() - 5000, y, 10000, self.heights[i]),
                             Qt.AlignmentFlag.AlignCenter, self.lines[i])
            y += self.heights[i]


class FootprintItem(QGraphicsItem):
    """A rotated rectangle on the floor: centre at ``pos()``, front (darker band) toward local -y."""

    RADIUS = 0.0

    def __init__(self, width: float, depth: float):
        super().__init__()
        self._w, self._d = float(width), float(depth)
        self._rect = QRectF(-self._w / 2, -self._d / 2, self._w, self._d)
        self._bounds = self._rect.adjusted(-2, -2, 2, 2)
        band = min(90.0, self._d * 0.08)
        self._front = QRectF(self._rect.left(), self._rect.top(), self._w, band)
        self._name, self._label = "", None
        self._fill = self._edge = self._band = self._text = QColor()
        self.setZValue(10)

    @property
    def name(self) -> str:
        """The label shown inside (kept because paint needs it)."""
        return self._name

    def set_style(self, name: str, fill: QColor) -> None:
        self._name = name
        self._fill, self._edge, self._band = QBrush(fill), _cosmetic(fill.darker(150)), QBrush(fill.darker(185))
        self._text = style.text_on(fill)
        self._layout_label()
        self.update()

    def place(self, x: float, y: float, rotation: float) -> None:
        """Move and turn; the label is re-laid out because it stays upright."""
        self.setPos(x, y)
        self.setRotation(rotation)
        self._layout_label()

    def _layout_label(self) -> None:
        a = math.radians(self.rotation())
        upright_w, upright_h = (self._w, self._d) if abs(math.cos(a)) >= abs(math.sin(a)) else (self._d, self._w)
        inset = self._front.height() * 2 + 40
        self._label = _Label(self._name, upright_w - 80, upright_h - inset, max_px=150)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        lod = _lod(painter)
        if lod * min(self._w, self._d) < 3:  # a few pixels: just a dot of colour
            painter.fillRect(self._rect, self._fill)
            return
        painter.setPen(self._edge)
        painter.setBrush(self._fill)
        if self.RADIUS:
            painter.drawRoundedRect(self._rect, self.RADIUS, self.RADIUS)
        else:
            painter.drawRect(self._rect)
        painter.fillRect(self._front, self._band)
        if self._label is not None and self._label.px * lod >= MIN_LABEL_PX:
            painter.save()
            painter.rotate(-self.rotation())
            painter.setPen(self._text)
            self._label.draw(painter, QPointF(0, 0), lod)
            painter.restore()


class RackItem(FootprintItem):
    """One rack; ``rack_id`` ties it to :class:`designer.model.Rack`."""

    def __init__(self, rack_id: str, width: float, depth: float):
        super().__init__(width, depth)
        self.rack_id = rack_id
        self.role = "empty"


class FloorDeviceItem(FootprintItem):
    """A unit standing on its own footprint (a CDU, a floor PDU); rounded to tell it from racks."""

    RADIUS = 60.0

    def __init__(self, device_id: str, width: float, depth: float):
        super().__init__(width, depth)
        self.device_id = device_id
        self.setZValue(9)


class HallItem(QGraphicsItem):
    """A hall's floor: filled outline, tile grid clipped to it, dark border."""

    def __init__(self, hall_id: str, outline, tile_mm: float):
        super().__init__()
        self.hall_id = hall_id
        self.polygon = QPolygonF([QPointF(x, y) for x, y in outline])
        self._clip = QPainterPath()
        self._clip.addPolygon(self.polygon)
        self._clip.closeSubpath()
        self._tile = float(tile_mm)
        self._grid = self._grid_path(self.polygon.boundingRect(), self._tile)
        self._bounds = self.polygon.boundingRect().adjusted(-4, -4, 4, 4)
        self._fill, self._grid_pen = QBrush(style.HALL_FILL), _cosmetic(style.GRID)
        self._border = _cosmetic(style.HALL_BORDER, 2.0)
        self.setZValue(0)

    @staticmethod
    def _grid_path(rect: QRectF, tile: float) -> QPainterPath:
        """Every tile line as one path, so the grid is one item, not thousands."""
        path = QPainterPath()
        if tile <= 0:
            return path
        x = math.ceil(rect.left() / tile) * tile
        while x <= rect.right():
            path.moveTo(x, rect.top())
            path.lineTo(x, rect.bottom())
            x += tile
        y = math.ceil(rect.top() / tile) * tile
        while y <= rect.bottom():
            path.moveTo(rect.left(), y)
            path.lineTo(rect.right(), y)
            y += tile
        return path

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self._fill)
        painter.drawPolygon(self.polygon)
        if self._tile * _lod(painter) >= MIN_TILE_PX:
            painter.save()
            painter.setClipPath(self._clip, Qt.ClipOperation.IntersectClip)
            painter.setPen(self._grid_pen)
            painter.drawPath(self._grid)
            painter.restore()
        painter.setPen(self._border)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPolygon(self.polygon)


class HallTitleItem(QGraphicsItem):
    """The hall's name and size above its top-left corner, at a fixed on-screen size."""

    def __init__(self, title: str, detail: str):
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self._title, self._detail = title, detail
        self._bold, self._regular = QFont(), QFont()
        self._bold.setPixelSize(14)
        self._bold.setBold(True)
        self._regular.setPixelSize(13)
        fb, fr = QFontMetricsF(self._bold), QFontMetricsF(self._regular)
        self._gap = 10.0
        self._title_w = fb.horizontalAdvance(title)
        width = self._title_w + self._gap + fr.horizontalAdvance(detail)
        self._bounds = QRectF(0, -fb.height() - 8, width + 4, fb.height() + 4)
        self.setZValue(20)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        r = self._bounds
        painter.setPen(style.TEXT)
        painter.setFont(self._bold)
        painter.drawText(r, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self._title)
        painter.setPen(style.MUTED_TEXT)
        painter.setFont(self._regular)
        painter.drawText(r.adjusted(self._title_w + self._gap, 0, 0, 0),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, self._detail)
