"""What the site plan draws: buildings, the rooms in them, and the cable bundles between rooms and buildings.

One scene unit is one millimetre of the site, as on the floor plan. A site of a million GPUs
spans a kilometre or more, where a room is a few dozen pixels: every text is painted at a fixed
on-screen size and only where it fits its room (lines that do not fit are left out, the rest
shortened to the room's width), so rooms' labels never run over each other at any zoom; the count
on a bundle between rooms shows only while it is narrower than its rooms. The full figures of a
room or a bundle are in its tooltip.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QStyleOptionGraphicsItem

from designer import colours
from designer.formatting import mw_text, number, percent
from designer.site_plan import BuildingOnSite, Bundle, RoomOnSite


from ..app import style
from . import bundle_labels

#: Room fill of a network room (the plan's network colour, light).
NETWORK_FILL = QColor(style.ROLES["network"][0].lighter(175))
#: a room's electrical room (its UPS and switchgear) beyond its far wall
ELECTRICAL_FILL = QColor(colours.ELECTRICAL_FLOOR).darker(108)
BUILDING_FILL = QColor(255, 255, 255, 140)
BUILDING_EDGE = QColor("#8A96A6")
#: Bundles between rooms of a building, and between buildings.
ROOM_BUNDLE = QColor(style.ROLES["network"][0])
SITE_BUNDLE = QColor("#1F5FAF")
ERROR_TEXT = QColor(style.SEVERITY["error"])
#: How far outside its rooms a building's outline is drawn, mm.
BUILDING_MARGIN_MM = 3000.0
#: Text sizes on screen, px.
TITLE_PX, LINE_PX = 13, 11
#: A building title's white tab reaches this much past its text, and this much clear is kept before the next.
TITLE_PAD_PX = 6.0


def _lod(painter) -> float:
    return QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())


def _font(px: int, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(px)
    f.setBold(bold)
    return f


def _cosmetic(color: QColor, width: float = 1.0, dashed: bool = False) -> QPen:
    pen = QPen(color, width)
    pen.setCosmetic(True)
    if dashed:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


def mw(kw: float | None) -> str:
    return "—" if kw is None else mw_text(kw)


def _mw_short(kw: float) -> str:
    """The number alone where the unit follows ("30.51 of 37.30 MW"), as the capacity's unit."""
    text = mw(kw)
    return text.rsplit(" ", 1)[0] if text.endswith(" MW") else text


def room_lines(room: RoomOnSite) -> list[tuple[str, bool, QColor]]:
    """The room's label, line by line, most important first: (text, bold, colour)."""
    lines = [(room.name, True, style.TEXT)]
    if room.it_kw is not None:
        load = (f"{_mw_short(room.it_kw)} of {mw(room.capacity_kw)}" if room.capacity_kw else f"{mw(room.it_kw)} IT")
        lines.append((load, False, style.TEXT))
    counts = f"{number(room.racks)} racks" + (f" · {number(room.gpus)} GPUs" if room.gpus else "")
    lines.append((counts, False, style.MUTED_TEXT))
    if room.errors:
        lines.append((f"{number(room.errors)} error{'s' if room.errors != 1 else ''}", True, ERROR_TEXT))
    return lines


def room_tooltip(room: RoomOnSite) -> str:
    use = f" ({percent(room.utilisation)} of its capacity)" if room.utilisation is not None else ""
    kind = "Network room" if room.kind == "network" else "Data hall"
    building = f" in {room.building}" if room.building else ""
    return (f"<b>{room.name}</b> — {kind}{building}<br>IT load {mw(room.it_kw)}{use}; power capacity "
            f"{mw(room.capacity_kw)}<br>{number(room.racks)} racks, {number(room.gpus)} GPUs<br>"
            f"{number(room.errors)} errors, {number(room.warnings)} warnings<br><i>Double-click to open its floor "
            f"plan</i>")


def paint_lines(painter, rect: QRectF, lines: list[tuple[str, bool, QColor]], *, top: bool = True) -> None:
    """``lines`` at a fixed screen size inside ``rect`` (scene units), as many as fit, each shortened to it."""
    scale = _lod(painter)
    if scale <= 0:
        return
    painter.save()
    origin = painter.worldTransform().map(rect.topLeft())
    painter.resetTransform()
    width, height = rect.width() * scale - 8, rect.height() * scale - 6
    y = origin.y() + 4
    for text, bold, colour in lines:
        px = TITLE_PX if bold and text == lines[0][0] else LINE_PX
        font = _font(px, bold)
        fm = QFontMetricsF(font)
        if y + fm.height() > origin.y() + 4 + height or width < fm.averageCharWidth() * 4:
            break
        shown = fm.elidedText(text, Qt.TextElideMode.ElideRight, width)
        painter.setFont(font)
        painter.setPen(colour)
        painter.drawText(QRectF(origin.x() + 4, y, width, fm.height()), Qt.AlignmentFlag.AlignLeft, shown)
        y += fm.height()
    painter.restore()


class RoomItem(QGraphicsItem):
    """One room: its walls filled by how much of its power capacity it uses (a network room in the network
    colour), and its name and figures inside."""

    def __init__(self, room: RoomOnSite):
        super().__init__()
        self.room = room
        self.polygon = QPolygonF([QPointF(x, y) for x, y in room.outline])
        self._bounds = self.polygon.boundingRect()
        fill = NETWORK_FILL if room.kind == "network" else QColor(style.heat_color(room.utilisation))
        if room.kind != "network":
            fill.setAlpha(150)
        self._fill = QBrush(fill)
        self._edge = _cosmetic(ERROR_TEXT if room.errors else style.HALL_BORDER, 2.0 if room.errors else 1.5)
        self._lines = room_lines(room)
        e = room.electrical  # its electrical room beyond the far wall: the UPS and switchgear's floor
        self._electrical = QRectF(e[0], e[1], e[2] - e[0], e[3] - e[1]) if e is not None else None
        self._electrical_fill = QBrush(ELECTRICAL_FILL)
        self._electrical_edge = _cosmetic(style.HALL_BORDER, 1.0)
        if self._electrical is not None:
            self._bounds = self._bounds.united(self._electrical)
        self.setToolTip(room_tooltip(room))
        self.setAcceptHoverEvents(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setZValue(1)

    def boundingRect(self) -> QRectF:
        return self._bounds.adjusted(-1000, -1000, 1000, 1000)  # the border's pen, drawn a few pixels wide

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addPolygon(self.polygon)
        if self._electrical is not None:  # its electrical room is part of it: a click there opens the hall too
            path.addRect(self._electrical)
        return path

    def paint(self, painter, option, widget=None) -> None:
        if self._electrical is not None:
            painter.setPen(self._electrical_edge)
            painter.setBrush(self._electrical_fill)
            painter.drawRect(self._electrical)
        painter.setPen(self._edge)
        painter.setBrush(self._fill)
        painter.drawPolygon(self.polygon)
        paint_lines(painter, self.polygon.boundingRect(), self._lines)


class BuildingItem(QGraphicsItem):
    """A building's outline round its rooms; its title (name, load and GPUs), which the view draws over the
    bundles' lines (SiteView.drawForeground), is worked out here.

    The title may run past the outline to the next building of its row (``title_room_mm`` from the outline's left
    edge): a building of four rooms is narrower on a campus plan than its name and figures. Where even that is too
    narrow the figures go first, then the name loses its first letters (the number that tells buildings apart
    stays)."""

    def __init__(self, building: BuildingOnSite, title_room_mm: float | None = None):
        super().__init__()
        self.building = building
        x0, y0, x1, y1 = building.rect
        m = BUILDING_MARGIN_MM
        self.rect = QRectF(x0 - m, y0 - m, x1 - x0 + 2 * m, y1 - y0 + 2 * m)
        self.title_room = max(title_room_mm or 0.0, self.rect.width())
        # before the first analysis there is no load to give: the title leaves it out rather than show a dash
        short = building.name + (f" · {mw(building.it_kw)}" if building.it_kw is not None else "")
        self.title = short + (f" · {number(building.gpus)} GPUs" if building.gpus else "")
        self._titles = tuple(dict.fromkeys((self.title, short, building.name)))
        self.setToolTip(f"<b>{building.name}</b><br>{len(building.rooms)} rooms, IT load {mw(building.it_kw)}, "
                        f"{number(building.gpus)} GPUs")
        self.setZValue(0)

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-500, -500, 500, 500)  # the dashed outline's pen, a few pixels wide

    def title_shown(self, scale: float, px: int = TITLE_PX) -> str:
        """The title as drawn at ``scale`` (px per mm) in the ``px`` font: the longest form that fits its room, else
        the name shortened; "" when not even a few letters fit."""
        fm = QFontMetricsF(_font(px, True))
        room = self.title_room * scale - TITLE_PAD_PX
        if room <= fm.averageCharWidth() * 4:
            return ""
        for text in self._titles:
            if fm.horizontalAdvance(text) <= room:
                return text
        return fm.elidedText(self.building.name, Qt.TextElideMode.ElideLeft, room)

    def name_fits(self, scale: float, px: int) -> bool:
        return (QFontMetricsF(_font(px, True)).horizontalAdvance(self.building.name)
                <= self.title_room * scale - TITLE_PAD_PX)

    def title_box(self, to_view, scale: float, px: int = TITLE_PX) -> tuple[str, QFont, QRectF]:
        """The title, its font and where it stands (viewport pixels, above the outline's left corner);
        ``to_view`` maps a scene point."""
        font = _font(px, True)
        text = self.title_shown(scale, px)
        fm = QFontMetricsF(font)
        corner = to_view(self.rect.topLeft())
        return text, font, QRectF(corner.x(), corner.y() - fm.height() - 2, fm.horizontalAdvance(text) + TITLE_PAD_PX,
                                  fm.height())

    def paint(self, painter, option, widget=None) -> None:
        # the title is drawn by the view over the bundles' lines (SiteView.drawForeground), which would cross it
        painter.setPen(_cosmetic(BUILDING_EDGE, 1.5, dashed=True))
        painter.setBrush(BUILDING_FILL)
        painter.drawRect(self.rect)


def title_rooms(buildings) -> dict[str, float]:
    """Per building name, how far its title may run from its outline's left edge (mm): to the next building of
    its row, less a gap; three times its own width for the last of a row."""
    out = {}
    for b in buildings:
        x0, y0, x1, y1 = b.rect
        right = [o.rect[0] for o in buildings if o is not b and o.rect[0] > x0 and o.rect[1] < y1 and o.rect[3] > y0]
        out[b.name] = (min(right) - x0 - BUILDING_MARGIN_MM / 2) if right else 3 * (x1 - x0 + 2 * BUILDING_MARGIN_MM)
    return out


def bundle_width_px(links: int) -> float:
    """A bundle's drawn width grows with the log of its links: 1,000 links 3 px, 50,000 about 6 px."""
    return max(1.5, min(8.0, 1.2 * math.log10(max(links, 1)) - 0.6))


class BundleItem(QGraphicsPathItem):
    """Cables between two rooms along their corridor, or between two buildings (a curve: a bundle, not its route);
    the view places every count among the others (bundle_labels), none over another."""

    def __init__(self, bundle: Bundle, names: dict[str, str], between_buildings: bool, room_width_mm: float = 0.0):
        """``room_width_mm``: the narrower room's width; a count between rooms is shown only while it fits that
        width on screen (the view's room_count_labels)."""
        super().__init__()
        self.bundle = bundle
        self.room_width_mm = room_width_mm
        points = [QPointF(x, y) for x, y in bundle.path]
        path = QPainterPath(points[0])
        if between_buildings and len(points) == 2:
            a, b = points
            mid = (a + b) / 2
            bend = QPointF(-(b.y() - a.y()), b.x() - a.x()) * 0.15
            path.quadTo(mid + bend, b)
        else:
            for p in points[1:]:
                path.lineTo(p)
        self.setPath(path)
        colour = QColor(SITE_BUNDLE if between_buildings else ROOM_BUNDLE)
        colour.setAlpha(200)
        pen = _cosmetic(colour, bundle_width_px(bundle.all_links))
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        self.setPen(pen)
        self.between_buildings = between_buildings
        self._points: list[QPointF] | None = None
        self.label = f"{number(bundle.all_links)} links"
        a, b = names.get(bundle.a, bundle.a), names.get(bundle.b, bundle.b)
        lines = [f"{number(n)} {kind}-fabric links; the longest runs {number(m)} m"
                 for kind, n, m in (("compute", bundle.links, bundle.longest_m),
                                    ("storage", bundle.storage_links, bundle.storage_longest_m)) if n]
        self.setToolTip(f"<b>{a} – {b}</b><br>" + "<br>".join(lines))
        self.setZValue(3 if between_buildings else 2)

    def label_points(self) -> list[QPointF]:
        """Where along the curve its count may stand (scene units), middle first; worked out once."""
        if self._points is None:
            self._points = bundle_labels.points_along(self.path())
        return self._points

    def label_font(self) -> QFont:
        return _font(LINE_PX, self.between_buildings)

    def paint_label(self, painter, box: QRectF) -> None:
        """The count in ``box`` (viewport pixels; the painter untransformed), on a white tab."""
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(255, 255, 255, 220))
        painter.drawRoundedRect(box, 3, 3)
        painter.setFont(self.label_font())
        painter.setPen(self.pen().color().darker(130))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, self.label)
