"""The cable routes of a selection drawn over the floor plan: one path per medium, a highlighted route on top.

Colours are Okabe–Ito's colour-blind-safe set, one per medium; a run no cable reaches
is vermillion and dashed, so it reads as a problem without relying on the hue alone.
Each line has a light casing, so it stays legible over a rack of any fill.
Every path is built once per :meth:`CableRoutesItem.set_routes`, so a repaint (each pan
and zoom) only strokes a handful of ready paths however many routes there are.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem

from designer import colours as scheme
from designer.cabling_view import MEDIUM_KEYS, medium_name

#: medium key (:data:`designer.cabling_view.MEDIUM_KEYS`) -> colour, from the one colour scheme.
MEDIUM_COLORS: dict[str, QColor] = {key: QColor(hexa) for key, hexa in scheme.CABLE_MEDIA.items()}
OTHER_COLOR = QColor(scheme.CABLE_OTHER)
#: Above the racks (10), floor units (9), the overview (8) and hall titles (20): routes cross racks.
ROUTES_Z = 30.0
LINE_PX, HIGHLIGHT_PX, END_PX = 2.0, 5.0, 7.0
#: While one route is highlighted the others fade to this opacity, so the one stands out where routes share a tray.
FADED_ALPHA = 0.3
#: A light casing under each line keeps it legible over rack fills of any colour.
CASING = QColor(255, 255, 255, 210)
#: Scene millimetres around the routes that repaint with them: a cosmetic pen's few pixels are this wide at the
#: plan's farthest zoom (0.002 px/mm), and a bounding rect cannot follow the zoom.
PAD_MM = 4000.0


def medium_color(medium: str) -> QColor:
    return QColor(MEDIUM_COLORS.get(medium, OTHER_COLOR))


def _pen(color: QColor, width: float, dashed: bool = False, cap=Qt.PenCapStyle.RoundCap) -> QPen:
    pen = QPen(color, width)
    pen.setCosmetic(True)
    pen.setCapStyle(cap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    if dashed:
        pen.setStyle(Qt.PenStyle.DashLine)
    return pen


class CableRoutesItem(QGraphicsItem):
    """Routes as polylines in scene coordinates, coloured by medium; takes no clicks (racks below stay clickable)."""

    def __init__(self):
        super().__init__()
        self.setZValue(ROUTES_Z)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setAcceptHoverEvents(False)
        self._routes: list[tuple[str, QPolygonF]] = []
        self._paths: list[tuple[QPen, QPen, QPainterPath]] = []
        self._end_pens: list[tuple[QPen, QPolygonF]] = []
        self._highlight: int | None = None
        self._highlight_path = QPainterPath()
        self._highlight_pens: tuple[QPen, QPen] | None = None
        self._bounds = QRectF()
        self._media: list[str] = []

    # ---- public API -------------------------------------------------------------------------------------
    @property
    def route_count(self) -> int:
        return len(self._routes)

    def routes(self) -> list[tuple[str, QPolygonF]]:
        """The routes drawn, as given to :meth:`set_routes`."""
        return [(m, QPolygonF(p)) for m, p in self._routes]

    @property
    def highlighted(self) -> int | None:
        return self._highlight

    def legend(self) -> list[tuple[QColor, str]]:
        """(colour, label, "line") for each medium drawn now, for the plan's legend (drawn as a line)."""
        return [(QColor(pen.color()), f"{medium_name(m)} route", "line")
                for m, (_, pen, _) in zip(self._media, self._paths)]

    def set_routes(self, routes) -> None:
        """Draw ``routes``, a list of (medium key, QPolygonF in scene coordinates); an empty list clears."""
        self._routes = [(str(m), QPolygonF(p)) for m, p in routes]
        by_medium: dict[str, QPainterPath] = {}
        ends: dict[str, QPolygonF] = {}
        bounds = QRectF()
        for medium, poly in self._routes:
            if poly.size() < 2:
                continue
            path = by_medium.setdefault(medium, QPainterPath())
            path.addPolygon(poly)
            ends.setdefault(medium, QPolygonF()).append(poly.last())
            bounds = bounds.united(poly.boundingRect())
        order = sorted(by_medium, key=lambda m: MEDIUM_KEYS.index(m) if m in MEDIUM_KEYS else len(MEDIUM_KEYS))
        self._media = order
        self._paths = [(_pen(CASING, LINE_PX + 2.5), _pen(medium_color(m), LINE_PX, dashed=m == "none"), by_medium[m])
                       for m in order]
        self._end_pens = [(_pen(medium_color(m), END_PX), ends[m]) for m in order]
        self.prepareGeometryChange()
        self._bounds = bounds.adjusted(-PAD_MM, -PAD_MM, PAD_MM, PAD_MM) if not bounds.isNull() else QRectF()
        self._set_highlight(self._highlight if self._highlight is not None and
                            self._highlight < len(self._routes) else None)
        self.update()
        if self.scene() is not None:  # the plan's legend names the media drawn
            self.scene().update()

    def set_highlight(self, index: int | None) -> None:
        """Draw route ``index`` (of the last :meth:`set_routes`) thicker, on top; None for none."""
        self._set_highlight(index if index is not None and 0 <= index < len(self._routes) else None)
        self.update()

    # ---- drawing ----------------------------------------------------------------------------------------
    def _set_highlight(self, index: int | None) -> None:
        self._highlight = index
        self._highlight_path = QPainterPath()
        self._highlight_pens = None
        if index is None:
            return
        medium, poly = self._routes[index]
        self._highlight_path.addPolygon(poly)
        self._highlight_pens = (_pen(CASING, HIGHLIGHT_PX + 3), _pen(medium_color(medium), HIGHLIGHT_PX,
                                                                      dashed=medium == "none"))
        self._highlight_end = _pen(medium_color(medium), HIGHLIGHT_PX + END_PX)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        painter.setBrush(Qt.BrushStyle.NoBrush)
        highlight = self._highlight_pens is not None
        painter.setOpacity(FADED_ALPHA if highlight else 1.0)
        for casing, _, path in self._paths:
            painter.setPen(casing)
            painter.drawPath(path)
        for _, pen, path in self._paths:
            painter.setPen(pen)
            painter.drawPath(path)
        for pen, points in self._end_pens:
            painter.setPen(pen)
            painter.drawPoints(points)
        if highlight:
            painter.setOpacity(1.0)
            casing, pen = self._highlight_pens
            painter.setPen(casing)
            painter.drawPath(self._highlight_path)
            painter.setPen(pen)
            painter.drawPath(self._highlight_path)
            painter.setPen(self._highlight_end)
            painter.drawPoint(self._highlight_path.currentPosition())


def polygon(points, offset: QPointF | None = None, last_offset: QPointF | None = None,
            far_from: int = -1) -> QPolygonF:
    """Plan points (mm) as a scene polygon: ``offset`` added to every point, ``last_offset`` (if given) instead to
    the points from ``far_from`` on (the last one by default): those in another hall's plane."""
    offset = offset if offset is not None else QPointF(0, 0)
    pts = [QPointF(x + offset.x(), y + offset.y()) for x, y in points]
    if pts and last_offset is not None:
        start = far_from % len(pts) if far_from < 0 else min(far_from, len(pts) - 1)
        for i in range(start, len(pts)):
            x, y = points[i]
            pts[i] = QPointF(x + last_offset.x(), y + last_offset.y())
    return QPolygonF(pts)
