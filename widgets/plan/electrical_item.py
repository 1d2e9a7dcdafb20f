"""A hall's electrical room on the plan (designer.power.electrical_room): its floor beyond the hall's far wall, the
wall between, its working aisles and its equipment by kind, labelled when big enough to read.

One item per room paints every piece of equipment (a large hall's room holds hundreds), and it is not selectable:
the room follows from the hall's facility, so the Facility inspector is where it changes.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

from designer import colours
from designer.power.electrical_room import KINDS, UNCONFIRMED, ElectricalRoom

from ..app import style
from .floor_items import _cosmetic

#: labels are drawn where a piece of equipment is at least this many pixels deep on screen
MIN_LABEL_PX = 9.0


class ElectricalRoomItem(QGraphicsItem):
    """The room of one hall, in that hall's coordinates (the scene places it with the hall's offset)."""

    def __init__(self, room: ElectricalRoom):
        super().__init__()
        self.room = room
        self.hall_id = room.hall
        self._rect = QRectF(room.x, room.y, room.width, room.depth)
        self._bounds = self._rect.adjusted(-4, -4, 4, 4)
        self._floor = QBrush(QColor(colours.ELECTRICAL_FLOOR))
        self._aisle = QBrush(QColor(colours.ELECTRICAL_FLOOR).darker(104))
        self._fills = {k: QBrush(QColor(c)) for k, c in colours.ELECTRICAL.items()}
        self._edge = _cosmetic(QColor(style.HALL_BORDER), 1.0)
        self._wall = _cosmetic(QColor(style.HALL_BORDER), 2.0)
        self._front = _cosmetic(QColor("#FFFFFF"), 1.5)
        self._font = QFont()
        self._font.setPixelSize(11)
        self._title_font = QFont()
        self._title_font.setPixelSize(13)
        self._title_font.setBold(True)
        self.setZValue(1)
        note = (f"\nEquipment sizes not confirmed by their source: {', '.join(UNCONFIRMED)}." if UNCONFIRMED else "")
        self.setToolTip(f"Electrical room: {room.summary()}{note}")

    def boundingRect(self) -> QRectF:
        return self._bounds

    def counts(self) -> dict[str, int]:
        """Pieces of equipment drawn, by kind."""
        return {k: self.room.count(k) for k in KINDS}

    def paint(self, painter, option, widget=None) -> None:
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        r = self.room
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self._floor)
        painter.drawRect(self._rect)
        painter.setBrush(self._aisle)
        for x, y, w, d in r.aisles:
            painter.drawRect(QRectF(x, y, w, d))
        painter.setPen(self._edge)
        for item in r.items:
            painter.setBrush(self._fills[item.kind])
            painter.drawRect(QRectF(item.x, item.y, item.w, item.d))
        if lod * 400.0 >= 2.0:  # the fronts, once a 400 mm strip is a couple of pixels
            painter.setPen(self._front)
            for item in r.items:
                fy = item.y + item.d if item.faces_down else item.y
                painter.drawLine(item.x + item.w * 0.1, fy, item.x + item.w * 0.9, fy)
        painter.setPen(self._wall)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(self._rect)
        self._labels(painter, lod)

    def _labels(self, painter, lod: float) -> None:
        r = self.room
        world = painter.worldTransform()  # text at a fixed pixel size: drawn untransformed at mapped places
        painter.save()
        painter.resetTransform()
        # the room's name and size in its first working aisle, where nothing stands, once the aisle holds it
        if r.aisles:
            ax, ay, aw, ad = r.aisles[0]
            band = world.mapRect(QRectF(ax, ay, aw, ad))
            fm = QFontMetricsF(self._title_font)
            if band.height() >= fm.height() + 4:
                painter.setFont(self._title_font)
                painter.setPen(QColor(style.TEXT))
                room_px = max(band.width() - 16, 12.0)
                title = r.title()
                if fm.horizontalAdvance(title) > room_px:
                    title = "Electrical room"  # its size is in the tooltip and the Facility inspector
                painter.drawText(band.adjusted(8, 0, -8, 0), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                                 fm.elidedText(title, Qt.TextElideMode.ElideRight, room_px))
        if r.items and min(i.d for i in r.items) * lod >= MIN_LABEL_PX * 1.5:
            painter.setFont(self._font)
            fm = QFontMetricsF(self._font)
            for item in r.items:
                box = world.mapRect(QRectF(item.x, item.y, item.w, item.d))
                if not item.label or box.width() < fm.horizontalAdvance(item.label) + 4:
                    continue  # a label is drawn whole or not at all (the tooltip names everything)
                painter.setPen(QColor("#FFFFFF") if item.kind != "battery" else QColor(style.TEXT))
                painter.drawText(box, Qt.AlignmentFlag.AlignCenter, item.label)
        painter.restore()
