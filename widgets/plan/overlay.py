"""What the floor plan draws over the scene in viewport pixels: scale bar, colour key, empty-state hint.

Where the colour key goes is the view's choice (``FloorPlanView.legend_rect``); these draw where told.

Plain functions of a painter already reset to viewport coordinates, so they
can be reused when the plan is rendered to an image for a report.
"""
from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen

from ..app import style

#: Scale bar lengths to choose from, in millimetres.
NICE_MM = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000]
PANEL = QColor(255, 255, 255, 232)
PANEL_EDGE = QColor("#C9CFD7")


def _font(px: int, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(px)
    f.setBold(bold)
    return f


def scale_bar_length(px_per_mm: float, max_px: float = 140.0) -> float:
    """The longest round length (1, 2 or 5 times a power of ten) that fits in ``max_px``."""
    fitting = [mm for mm in NICE_MM if mm * px_per_mm <= max_px]
    return fitting[-1] if fitting else NICE_MM[0]


def _length_text(mm: float) -> str:
    return f"{mm / 1000:g} m" if mm >= 1000 else f"{mm:g} mm"


def _panel(painter: QPainter, rect: QRectF) -> None:
    painter.setPen(QPen(PANEL_EDGE, 1))
    painter.setBrush(PANEL)
    painter.drawRoundedRect(rect, 6, 6)


def scale_bar_rect(vp, px_per_mm: float) -> QRectF:
    """Where the scale bar stands (bottom left of the viewport ``vp``), in its pixels."""
    mm = scale_bar_length(px_per_mm)
    text_w = QFontMetricsF(_font(12)).horizontalAdvance(_length_text(mm))
    return QRectF(14, vp.height() - 50, max(mm * px_per_mm, text_w) + 24, 36)


def draw_scale_bar(painter: QPainter, vp, px_per_mm: float) -> None:
    mm = scale_bar_length(px_per_mm)
    length = mm * px_per_mm
    font = _font(12)
    label = _length_text(mm)
    box = scale_bar_rect(vp, px_per_mm)
    _panel(painter, box)
    x0, y = box.left() + 12, box.bottom() - 10
    painter.setPen(QPen(style.TEXT, 2))
    painter.drawLine(QLineF(x0, y, x0 + length, y))
    painter.drawLine(QLineF(x0, y - 5, x0, y + 1))
    painter.drawLine(QLineF(x0 + length, y - 5, x0 + length, y + 1))
    painter.setFont(font)
    painter.drawText(QRectF(x0, box.top() + 3, length, 16), Qt.AlignmentFlag.AlignCenter, label)


#: Rows of the colour key are this tall; its box keeps this far from the viewport's edges.
LEGEND_ROW_PX, LEGEND_MARGIN_PX = 20.0, 14.0
_SWATCH_PX = 14.0


def _legend_rows(entries: list[tuple], front: bool = True) -> list[tuple]:
    """The key's rows: ``entries``, then the swatch that says which edge of a rack is its front (a plan of
    rooms without racks, the site's, leaves it out)."""
    return [*entries, (None, "Front of rack")] if front else list(entries)


#: What a folded key shows: a click unfolds it.
FOLDED_TEXT = "Key ▸"


def legend_size(entries: list[tuple], folded: bool = False, front: bool = True) -> QSizeF:
    """The colour key's box for ``entries`` (empty when there is nothing to key); folded, one short row."""
    if not entries:
        return QSizeF()
    fm = QFontMetricsF(_font(12))
    if folded:
        return QSizeF(fm.horizontalAdvance(FOLDED_TEXT) + 24, LEGEND_ROW_PX + 10)
    rows = _legend_rows(entries, front)
    width = 12 + _SWATCH_PX + 8 + max(fm.horizontalAdvance(row[1]) for row in rows) + 14
    return QSizeF(width, len(rows) * LEGEND_ROW_PX + 14)


def draw_legend(painter: QPainter, box: QRectF, entries: list[tuple], folded: bool = False,
                front: bool = True) -> None:
    """The colour key in ``box`` (viewport pixels, sized by :func:`legend_size`), with a swatch for the front;
    folded, just a tab saying it is there. Unfolded, a small ▾ at the top right says a click folds it."""
    if not entries:
        return
    font = _font(12)
    if folded:
        _panel(painter, box)
        painter.setFont(font)
        painter.setPen(style.TEXT)
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, FOLDED_TEXT)
        return
    rows = _legend_rows(entries, front)
    row_h, sw = LEGEND_ROW_PX, _SWATCH_PX
    width = box.width()
    _panel(painter, box)
    painter.setFont(_font(10))
    painter.setPen(style.MUTED_TEXT)
    painter.drawText(QRectF(box.right() - 14, box.top() + 2, 12, 12), Qt.AlignmentFlag.AlignCenter, "▾")
    painter.setFont(font)
    y = box.top() + 7
    for color, text, *marker in rows:
        swatch = QRectF(box.left() + 12, y + (row_h - sw) / 2, sw, sw)
        fill = color if color is not None else style.ROLES["empty"][0]
        if marker == ["line"]:  # a cable route: a line as on the plan, on its white casing
            mid = swatch.center().y()
            painter.setPen(QPen(QColor(255, 255, 255), 5))
            painter.drawLine(QPointF(swatch.left(), mid), QPointF(swatch.right(), mid))
            painter.setPen(QPen(fill, 2.5))
            painter.drawLine(QPointF(swatch.left(), mid), QPointF(swatch.right(), mid))
        elif marker == ["hatch"]:  # a refused placement: the plan's dashed outline over its hatch
            painter.setPen(QPen(fill, 1.5, Qt.PenStyle.DashLine))
            painter.setBrush(QBrush(fill, Qt.BrushStyle.BDiagPattern))
            painter.drawRect(swatch)
        else:
            painter.setPen(QPen(fill.darker(150), 1))
            painter.setBrush(fill)
            painter.drawRect(swatch)
        if color is None:
            painter.fillRect(QRectF(swatch.left(), swatch.top(), sw, 4), fill.darker(185))
        painter.setPen(style.TEXT)
        painter.drawText(QRectF(swatch.right() + 8, y, width, row_h),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
        y += row_h


def draw_placeholder(painter: QPainter, vp) -> None:
    painter.setFont(_font(15))
    painter.setPen(style.MUTED_TEXT)
    painter.drawText(QRectF(vp), Qt.AlignmentFlag.AlignCenter,
                     "No hall to show\nOpen a project with File ▸ Open… (Ctrl+O)")
