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
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainterPath, QPen, QPolygonF, QStaticText
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

from ..app import style

#: A label is drawn only when its footprint can hold text at least this many pixels tall on screen; a name too
#: long to fit at that size is drawn at it, elided in the middle, so a long name shows wherever a short one does.
MIN_LABEL_PX = 7.0
#: Below this many screen pixels per tile the floor grid is noise, so it is skipped.
MIN_TILE_PX = 6.0


_SELECTED_PEN = QPen(style.ACCENT, 3.0)
_SELECTED_PEN.setCosmetic(True)
_SELECTED_PEN.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
_SELECTED_FILL = QBrush(style.ACCENT)
_SELECTED_HALO = QPen(QColor("#FFFFFF"), 1.5)
_SELECTED_HALO.setCosmetic(True)
_SELECTED_HALO.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
# Refused: a dashed black outline over a hatch on a pale ground, so it never reads as a load colour.
_INVALID_PEN = QPen(style.INVALID, 2.0, Qt.PenStyle.DashLine)
_INVALID_PEN.setCosmetic(True)
_INVALID_GROUND = QBrush(QColor(255, 255, 255, 200))
_INVALID_HATCH = QBrush(style.INVALID, Qt.BrushStyle.BDiagPattern)


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

    _metrics: tuple[QFontMetricsF, QFontMetricsF] | None = None

    @classmethod
    def metrics(cls) -> tuple[QFontMetricsF, QFontMetricsF]:
        """Bold and regular metrics at the reference size, made once: a big plan lays out thousands of labels."""
        if cls._metrics is None:
            cls._metrics = (QFontMetricsF(_font(cls.REF, True)), QFontMetricsF(_font(cls.REF)))
        return cls._metrics

    def __init__(self, text: str, box_w: float, box_h: float, max_px: float, bold_first: bool = True):
        words = text.split(maxsplit=1) or [""]
        self.lines = words
        self.bold_first = bold_first
        bold, regular = self.metrics()
        if not bold_first:
            bold = regular
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
        #: The first line's size for a name short enough to fit the box across: the box's, not the text's,
        #: so it decides for every footprint of a size and turn alike whether there is room for a name.
        self.fit_px = self.REF * min(box_h / bold.height(), max_px / self.REF)
        self.box_w = box_w
        self.sizes = sizes
        # Line heights scale with the pixel size; fonts are made when first drawn (most labels of a big
        # plan never are).
        self.heights = [(bold if i == 0 else regular).height() * px / self.REF for i, px in enumerate(sizes)]
        # widths from the same metrics: a static text knows its size only once drawn, too late to centre it
        self.widths = [(bold if i == 0 else regular).horizontalAdvance(words[i]) * px / self.REF
                       for i, px in enumerate(sizes)]
        self._fonts: list[QFont] | None = None
        self._static: list[QStaticText] | None = None
        self._elided: tuple[int, QFont, str] | None = None

    @property
    def fonts(self) -> list[QFont]:
        if self._fonts is None:
            self._fonts = [_font(px, i == 0 and self.bold_first) for i, px in enumerate(self.sizes)]
        return self._fonts

    def _static_texts(self) -> list[QStaticText]:
        # Laid out once and kept: a frame of a big plan draws a hundred labels, and laying each line out
        # again per frame costs more than the rest of the frame.
        if self._static is None:
            self._static = []
            for line in self.lines:
                text = QStaticText(line)
                text.setTextFormat(Qt.TextFormat.PlainText)
                text.setPerformanceHint(QStaticText.PerformanceHint.AggressiveCaching)
                self._static.append(text)
        return self._static

    def visible(self, lod: float) -> bool:
        """True when the box holds a readable name at this level of detail (whatever the name's length)."""
        return self.fit_px * lod >= MIN_LABEL_PX

    def draw(self, painter, center: QPointF, lod: float) -> None:
        """Draw the lines big enough to read at this level of detail, centred together.

        A first line fitted smaller than that (a long name) is drawn at the smallest readable size instead,
        elided in the middle to the box's width, with nothing below it.
        """
        if self.px * lod < MIN_LABEL_PX:
            self._draw_elided(painter, center, lod)
            return
        shown = [i for i, px in enumerate(self.sizes) if px * lod >= MIN_LABEL_PX]
        y = center.y() - sum(self.heights[i] for i in shown) / 2
        statics, fonts = self._static_texts(), self.fonts
        for i in shown:
            painter.setFont(fonts[i])
            text = statics[i]
            painter.drawStaticText(QPointF(center.x() - self.widths[i] / 2, y), text)
            y += self.heights[i]

    def elided_text(self, lod: float) -> str:
        """The first line as drawn at the smallest readable size for ``lod`` (elided when it does not fit)."""
        return self._elided_at(lod)[2]

    def _elided_at(self, lod: float) -> tuple[int, QFont, str]:
        px = max(1, math.ceil(MIN_LABEL_PX / max(lod, 1e-9)))
        if self._elided is None or self._elided[0] != px:  # kept per zoom: a frame only draws
            font = _font(px, self.bold_first)
            text = QFontMetricsF(font).elidedText(self.lines[0], Qt.TextElideMode.ElideMiddle, self.box_w)
            self._elided = (px, font, text)
        return self._elided

    def _draw_elided(self, painter, center: QPointF, lod: float) -> None:
        px, font, text = self._elided_at(lod)
        painter.setFont(font)
        box = QRectF(center.x() - self.box_w / 2, center.y() - px, self.box_w, 2 * px)
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)


_NO_COLOR = QColor()
#: Rectangles by footprint size, and brushes, pens and text colour by fill: a site has tens of thousands of
#: footprints of a few sizes in a few role colours, and making these for each took a third of opening one.
#: Items only read them (QRectF.adjusted and the painter copy), so one object serves every item of a size or fill.
_SHAPES: dict[tuple[float, float], tuple[QRectF, QRectF, QRectF]] = {}
_LOOKS: dict[int, tuple[QBrush, QPen, QBrush, QColor]] = {}
_LOOKS_MAX = 4096  # heat-map fills are many: start again rather than grow without bound


def _shape(w: float, d: float) -> tuple[QRectF, QRectF, QRectF]:
    """(footprint, bounds, front band) of a w × d footprint centred on the origin."""
    got = _SHAPES.get((w, d))
    if got is None:
        rect = QRectF(-w / 2, -d / 2, w, d)
        got = _SHAPES[(w, d)] = (rect, rect.adjusted(-2, -2, 2, 2), QRectF(rect.left(), rect.top(), w,
                                                                             min(90.0, d * 0.08)))
    return got


def _look(fill: QColor) -> tuple[QBrush, QPen, QBrush, QColor]:
    """(fill brush, edge pen, front-band brush, text colour) of a footprint filled with ``fill``."""
    key = fill.rgba()
    got = _LOOKS.get(key)
    if got is None:
        if len(_LOOKS) >= _LOOKS_MAX:
            _LOOKS.clear()
        got = _LOOKS[key] = (QBrush(fill), _cosmetic(fill.darker(150)), QBrush(fill.darker(185)), style.text_on(fill))
    return got


class FootprintItem(QGraphicsItem):
    """A rotated rectangle on the floor: centre at ``pos()``, front (darker band) toward local -y."""

    RADIUS = 0.0

    def __init__(self, width: float, depth: float):
        super().__init__()
        self._w, self._d = float(width), float(depth)
        self._rect, self._bounds, self._front = _shape(self._w, self._d)
        self._name, self._laid, self._label_along = "", None, False
        self._fill = self._edge = self._band = self._text = _NO_COLOR
        self._base = self._heat = None
        self._invalid = False
        self.setZValue(10)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)

    @property
    def size(self) -> tuple[float, float]:
        """(width, depth) of the footprint in mm."""
        return self._w, self._d

    @property
    def fill_color(self) -> QColor:
        """The colour the footprint is filled with now (its role's, or the heat map's)."""
        return QColor(self._fill.color())

    @property
    def invalid(self) -> bool:
        """True while a preview puts this item where it may not stand (drawn hatched)."""
        return self._invalid

    def set_invalid(self, invalid: bool) -> None:
        if invalid != self._invalid:
            self._invalid = invalid
            self.update()
            self._notify()

    def set_heat(self, color: QColor | None, update: bool = True) -> None:
        """Fill with ``color`` instead of the role colour (heat map), or back to the role colour with None."""
        self._heat = color
        self._apply_fill(update)

    def _apply_fill(self, update: bool = True) -> None:
        fill = self._heat if self._heat is not None else self._base
        if fill is None:
            return
        self._fill, self._edge, self._band, self._text = _look(fill)
        if update:
            self.update()
            self._notify()

    @property
    def name(self) -> str:
        """The label shown inside (kept because paint needs it)."""
        return self._name

    def set_style(self, name: str, fill: QColor) -> None:
        self._base = fill  # the role colours are constants; nothing changes a colour in place
        self._apply_fill(update=False)
        if name != self._name or self._laid is None:
            self._name = name
            self._layout_label()
        self.update()

    def place(self, x: float, y: float, rotation: float) -> None:
        """Move and turn; the label is re-laid out because it stays upright."""
        self.setPos(x, y)
        if rotation != self.rotation() or self._laid is None:
            self.setRotation(rotation)
            self._layout_label()
        self._notify()

    def _notify(self) -> None:
        """Tell a scene drawing the overview that this footprint's look or place changed."""
        scene = self.scene()
        if scene is not None and not self.isSelected() and hasattr(scene, "overview_dirty"):
            scene.overview_dirty()

    def _layout_label(self) -> None:
        """Lay the name out again when next painted: most footprints of a big site are never painted with a label
        (another hall, or zoomed out to the overview), and laying out two candidates each took half of opening one."""
        self._label_stale = True

    _label_stale = True

    @property
    def _label(self) -> _Label:
        """The name as laid out for the footprint's size and turn, laid out now if it changed since."""
        if self._label_stale or self._laid is None:
            self._label_stale = False
            self._measure_label()
        return self._laid

    def _measure_label(self) -> None:
        a = math.radians(self.rotation())
        upright_w, upright_h = (self._w, self._d) if abs(math.cos(a)) >= abs(math.sin(a)) else (self._d, self._w)
        inset = self._front.height() * 2 + 40
        across = _Label(self._name, upright_w - 80, upright_h - inset, max_px=150)
        # A narrow footprint (a rack seen from above) reads its name along its length: larger type, so
        # the name shows at the zoom that fits a whole hall on screen.
        # Along the depth the name runs past the middle only, centred in what the front band leaves.
        # Regular weight: a long name ("STORAGE-01") then still fits a 1200 mm rack at a whole-hall zoom.
        along = _Label(self._name, upright_h - self._front.height() - 40, upright_w - 80, max_px=220,
                       bold_first=False)
        self._label_along = along.px > across.px * 1.15
        self._laid = along if self._label_along else across

    def boundingRect(self) -> QRectF:
        return self._bounds

    _in_overview = False

    @property
    def in_overview(self) -> bool:
        """Drawn by the scene's overview instead (a zoomed-out big plan)."""
        return self._in_overview

    @in_overview.setter
    def in_overview(self, on: bool) -> None:
        if on != self._in_overview:
            self._in_overview = on
            # Qt then never calls paint(): no Python per item per frame, yet the item still
            # takes clicks, rubber bands and drags.
            self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, on)

    def paint(self, painter, option, widget=None) -> None:
        lod = _lod(painter)
        selected = self.isSelected()
        if lod * min(self._w, self._d) < 3:  # a few pixels: just a dot of colour
            painter.fillRect(self._rect, _INVALID_HATCH if self._invalid else _SELECTED_FILL if selected
                             else self._fill)
            return
        painter.setPen(_INVALID_PEN if self._invalid else self._edge)
        for brush in ((_INVALID_GROUND, _INVALID_HATCH) if self._invalid else (self._fill,)):
            painter.setBrush(brush)
            if self.RADIUS:
                painter.drawRoundedRect(self._rect, self.RADIUS, self.RADIUS)
            else:
                painter.drawRect(self._rect)
        painter.fillRect(self._front, self._band)
        label = self._label if self._name else None
        if label is not None and label.visible(lod):
            painter.save()
            if self._label_along:
                painter.translate(0, self._front.height() / 2)
            painter.rotate(-self.rotation() - (90 if self._label_along else 0))
            painter.setPen(style.TEXT if self._invalid else self._text)
            label.draw(painter, QPointF(0, 0), lod)
            painter.restore()
        if selected:
            # Inset by the pen's half width so the outline never leaves the bounding rect at any zoom.
            inset = min(1.5 / max(lod, 1e-6), min(self._w, self._d) / 4)
            painter.setPen(_SELECTED_PEN)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(self._rect.adjusted(inset, inset, -inset, -inset))
            # A white line inside the outline: the selection reads on a blue load band or role fill too.
            halo = min(inset + 2.5 / max(lod, 1e-6), min(self._w, self._d) / 3)
            painter.setPen(_SELECTED_HALO)
            painter.drawRect(self._rect.adjusted(halo, halo, -halo, -halo))


class RackItem(FootprintItem):
    """One rack; ``rack_id`` ties it to :class:`designer.model.Rack`."""

    def __init__(self, rack_id: str, width: float, depth: float):
        super().__init__(width, depth)
        self.rack_id = rack_id
        self.role = "empty"

    @property
    def where(self) -> str:
        return f"rack:{self.rack_id}"


class FloorDeviceItem(FootprintItem):
    """A unit standing on its own footprint (a CDU, a floor PDU); rounded to tell it from racks."""

    RADIUS = 60.0

    def __init__(self, device_id: str, width: float, depth: float):
        super().__init__(width, depth)
        self.device_id = device_id
        self.setZValue(9)

    @property
    def where(self) -> str:
        return f"floor:{self.device_id}"


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

    def __init__(self, title: str, detail: str, width_mm: float = 0.0):
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self._title, self._detail = title, detail
        #: the hall's width: a title shortens to it, so that halls side by side on a site keep theirs apart
        self._width_mm = width_mm
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

    def fitted(self, room_px: float | None) -> tuple[str, str]:
        """(title, detail) as drawn over a hall ``room_px`` wide on screen: whole where it fits (or the width is
        not known), else the size left out and the name shortened to the hall's width."""
        if room_px is None or room_px >= self._bounds.width():
            return self._title, self._detail
        return QFontMetricsF(self._bold).elidedText(self._title, Qt.TextElideMode.ElideRight, max(room_px, 12.0)), ""

    def _room_px(self, widget) -> float | None:
        """The hall's width on screen, in pixels (None: not known, or no hall width given)."""
        view = widget.parent() if widget is not None else None
        if not self._width_mm or view is None or not hasattr(view, "transform"):
            return None
        return self._width_mm * abs(view.transform().m11())

    def paint(self, painter, option, widget=None) -> None:
        r = self._bounds
        title, detail = self.fitted(self._room_px(widget))
        painter.setPen(style.TEXT)
        painter.setFont(self._bold)
        painter.drawText(r, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
        if detail:
            painter.setPen(style.MUTED_TEXT)
            painter.setFont(self._regular)
            painter.drawText(r.adjusted(self._title_w + self._gap, 0, 0, 0),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, detail)


class ClearanceItem(QGraphicsItem):
    """The free bands in front of and behind a set of racks, as two paths (one item, however many racks).

    Sits under the racks (z 5) so a band never hides a footprint; ``set_bands``
    takes corner lists in scene coordinates.
    """

    def __init__(self, z: float = 5.0):
        super().__init__()
        self._front, self._rear = QPainterPath(), QPainterPath()
        self._bounds = QRectF()
        self._count = 0
        self._front_brush, self._rear_brush = QBrush(style.CLEARANCE_FRONT), QBrush(style.CLEARANCE_REAR)
        self._front_pen = _cosmetic(QColor(style.CLEARANCE_FRONT.red(), style.CLEARANCE_FRONT.green(),
                                           style.CLEARANCE_FRONT.blue(), 150))
        self._rear_pen = _cosmetic(QColor(style.CLEARANCE_REAR.red(), style.CLEARANCE_REAR.green(),
                                          style.CLEARANCE_REAR.blue(), 150))
        self._front_pen.setStyle(Qt.PenStyle.DashLine)
        self._rear_pen.setStyle(Qt.PenStyle.DashLine)
        self.setZValue(z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    @property
    def band_count(self) -> int:
        """How many bands (front plus rear) are drawn."""
        return self._count

    def front_path(self) -> QPainterPath:
        return QPainterPath(self._front)

    def rear_path(self) -> QPainterPath:
        return QPainterPath(self._rear)

    def set_bands(self, fronts, rears) -> None:
        front, rear = QPainterPath(), QPainterPath()
        front.setFillRule(Qt.FillRule.WindingFill)
        rear.setFillRule(Qt.FillRule.WindingFill)
        fronts, rears = list(fronts), list(rears)
        self._count = len(fronts) + len(rears)
        for pts in fronts:
            front.addPolygon(QPolygonF([QPointF(x, y) for x, y in pts]))
            front.closeSubpath()
        for pts in rears:
            rear.addPolygon(QPolygonF([QPointF(x, y) for x, y in pts]))
            rear.closeSubpath()
        self.prepareGeometryChange()
        self._front, self._rear = front, rear
        self._bounds = front.boundingRect().united(rear.boundingRect()).adjusted(-2, -2, 2, 2)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        painter.setPen(self._front_pen)
        painter.setBrush(self._front_brush)
        painter.drawPath(self._front)
        painter.setPen(self._rear_pen)
        painter.setBrush(self._rear_brush)
        painter.drawPath(self._rear)
