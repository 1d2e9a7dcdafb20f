"""Where the counts of the bundles between buildings stand on the site plan, so that none covers another.

A campus of thirty buildings has a hundred or more bundles, most of them running to the few buildings
that hold the network rooms: each count drawn at its bundle's middle piled into an unreadable heap
there. Here the counts are placed in turn, the largest bundle first, each at the first point along its
curve (the middle, then further out either way) where its box covers no count already placed and no
building with its title; a count with no such point is left out (its bundle's tooltip still gives it). The
view places them once per zoom over the whole site and moves them with a pan, showing those that lie whole
in view and clear of its colour key and scale bar; a count whose spot is out of view or under the key then
gets another along the part of its curve in view, clear of those shown.
"""
from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFontMetricsF, QPainterPath

#: Fractions of a bundle's curve tried for its count, in order: the middle first, then outwards.
ALONG = (0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.18, 0.82)
#: Clear pixels kept round each count.
GAP_PX = 3.0


class Placed(NamedTuple):
    box: QRectF  # viewport pixels
    item: object  # the bundle item whose count it is


def points_along(path: QPainterPath) -> list[QPointF]:
    """The scene points of ``path`` at :data:`ALONG`, where its count may stand (worked out once per bundle:
    ``pointAtPercent`` on a curve costs tens of microseconds)."""
    return [path.pointAtPercent(t) for t in ALONG]


def place(wanted: list[tuple[object, list[QPointF], str]], to_view, fm: QFontMetricsF,
          blocked: list[QRectF], inside: QRectF | None = None) -> list[Placed]:
    """Boxes for the counts ``wanted`` (item, its candidate points in scene units, text), in the order given,
    largest first; ``to_view`` maps a scene point to pixels, ``blocked`` are rects in those pixels no count may
    cover, ``inside`` (when given) the rect each box must lie in. A campus's bundles and buildings are a few
    hundred: each box is checked against all."""
    if inside is not None:
        blocked = [r for r in blocked if r.intersects(inside)]
    taken = [r.adjusted(-GAP_PX, -GAP_PX, GAP_PX, GAP_PX) for r in blocked]
    out: list[Placed] = []
    height = fm.height()
    for item, points, text in wanted:
        width = fm.horizontalAdvance(text) + 8
        for point in points:
            at = to_view(point)
            box = QRectF(at.x() - width / 2, at.y() - height / 2, width, height)
            if (inside is not None and not inside.contains(box)) or any(box.intersects(r) for r in taken):
                continue
            out.append(Placed(box, item))
            taken.append(box.adjusted(-GAP_PX, -GAP_PX, GAP_PX, GAP_PX))
            break
    return out
