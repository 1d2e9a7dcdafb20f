"""The overview of a big, zoomed-out floor plan: every unselected footprint in one paint call."""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem


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
        for fill, band, pen, fill_path, band_path, edge_path in self._groups:
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
