"""One face of a rack elevation, painted directly: U grid and numbers, device blocks, 0U PDU strips.

The view owns the mouse (select, start a drag), the Delete key and drops, but
decides nothing: it asks its panel (:class:`widgets.elevation.rack_elevation.RackElevationPanel`)
what a drop would do and hands the drop over, so every edit is one command
pushed in one place.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from PySide6.QtCore import QMimeData, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QDrag, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QApplication, QToolTip, QWidget

from ..app import style
from ..plan.palette import MIME_DEVICE
from .rack_layout import Block, Strip

if TYPE_CHECKING:
    from .rack_elevation import RackElevationPanel

#: What the palette puts on a drag: the catalog id as UTF-8 (one definition, the palette's).
DEVICE_MIME = MIME_DEVICE
#: A device dragged out of an elevation: JSON {"rack", "device", "grab"} (grab = U offset of the cursor).
MOUNTED_MIME = "application/x-podplanner-mounted-device"

ROLE_COLOURS = {
    "compute": style.ROLES["compute"][0],
    "rack_scale": style.ROLES["rack_scale"][0],
    "network": style.ROLES["network"][0],
    "storage": style.ROLES["storage"][0],
    "management": style.ROLES["management"][0],
    "cdu": style.CDU[0],
    "power": style.KIND_COLORS["power_shelf"],
    "pdu": style.KIND_COLORS["pdu"],
}
SLOT = QColor("#F2F4F7")
SLOT_LINE = QColor("#DDE2E8")
RAIL = style.HALL_BORDER
SELECTED = style.ACCENT
OK_PREVIEW = QColor(style.CDU[0].red(), style.CDU[0].green(), style.CDU[0].blue(), 90)
#: A drop that would be refused: the plan's "refused" colour, never a load colour.
BAD_PREVIEW = QColor(style.INVALID.red(), style.INVALID.green(), style.INVALID.blue(), 110)
ERROR_TEXT = style.SEVERITY["error"]


def _font(px: float, bold: bool = False) -> QFont:
    f = QFont()
    f.setPixelSize(max(7, int(px)))
    f.setBold(bold)
    return f


class RackFaceView(QWidget):
    """One face of the rack, painted directly (U grid, blocks, PDU strips); owns the mouse and drops."""

    TOP, BOTTOM, GUTTER, STRIP, STRIP_GAP = 26, 8, 26, 12, 3

    def __init__(self, panel: RackElevationPanel, face: str):
        super().__init__(panel)
        self.panel, self.face = panel, face
        self.blocks: list[Block] = []
        self.strips = []
        self._press: QPointF | None = None
        self._preview: tuple[float, float, bool] | None = None
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(150, 48 * 11 + self.TOP + self.BOTTOM)
        self.setMouseTracking(False)

    # ---- geometry -------------------------------------------------------------
    @property
    def units(self) -> int:
        return self.panel.units

    def _u_px(self) -> float:
        return max(6.0, (self.height() - self.TOP - self.BOTTOM) / max(1, self.units))

    def _side(self) -> float:
        """Room beside the rails for PDU strips: as many as the fuller face needs, same on both faces."""
        return self.panel.strip_slots * (self.STRIP + self.STRIP_GAP) + 6

    def _interior(self) -> QRectF:
        side = self._side()
        left = self.GUTTER + side
        return QRectF(left, self.TOP, max(40.0, self.width() - left - side - 6), self._u_px() * self.units)

    def u_rect(self, u: float, height: float) -> QRectF:
        r, px = self._interior(), self._u_px()
        return QRectF(r.left(), r.top() + (self.units + 1 - u - height) * px, r.width(), height * px)

    def u_at(self, y: float) -> int:
        """The U under a widget y (1 = bottom), clamped to the rack."""
        u = self.units - int((y - self.TOP) // self._u_px())
        return min(max(u, 1), self.units)

    def point_for_u(self, u: float) -> QPointF:
        """The centre of U ``u``, for tests and keyboard drops."""
        return self.u_rect(u, 1).center()

    def _strip_rect(self, strip) -> QRectF:
        r = self._interior()
        off = strip.slot * (self.STRIP + self.STRIP_GAP) + self.STRIP_GAP + 2
        x = r.left() - off - self.STRIP if strip.side == 0 else r.right() + off
        return QRectF(x, r.top() + 4, self.STRIP, r.height() - 8)

    def shape_at(self, pos: QPointF) -> Block | Strip | None:
        for s in self.strips:
            if self._strip_rect(s).contains(pos):
                return s
        for b in self.blocks:
            if self.u_rect(b.u, b.height).contains(pos):
                return b
        return None

    def item_at(self, pos: QPointF) -> str | None:
        """The device id under ``pos`` (a tray of a rack-scale system gives the system's id)."""
        shape = self.shape_at(pos)
        return shape.device_id if shape else None

    # ---- painting ---------------------------------------------------------------
    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setFont(_font(12, True))
        p.setPen(style.TEXT)
        p.drawText(QRectF(0, 2, self.width(), self.TOP - 6), Qt.AlignmentFlag.AlignCenter, self.face.capitalize())
        if self.panel.rack is None:
            return
        r, px = self._interior(), self._u_px()
        side = self._side()
        p.setPen(QPen(RAIL, 2))
        p.setBrush(QColor("#FFFFFF"))
        p.drawRect(r.adjusted(-side, -3, side, 3))
        p.fillRect(r, SLOT)
        num_font = _font(min(10.0, px * 0.8))
        p.setFont(num_font)
        step = 1 if px >= 10 else 2 if px >= 6 else 5
        for u in range(1, self.units + 1):
            ur = self.u_rect(u, 1)
            p.setPen(QPen(SLOT_LINE, 1))
            p.drawLine(ur.topLeft(), ur.topRight())
            if u % step == 0 or u == 1:
                p.setPen(style.MUTED_TEXT)
                p.drawText(QRectF(0, ur.top(), self.GUTTER - 4, ur.height()),
                           Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, str(u))
        for b in self.blocks:
            self._paint_block(p, b, px)
        for s in self.strips:
            self._paint_strip(p, s)
        if self._preview is not None:
            u, h, ok = self._preview
            p.setPen(QPen(OK_PREVIEW.darker(150) if ok else BAD_PREVIEW.darker(150), 2, Qt.PenStyle.DashLine))
            p.setBrush(OK_PREVIEW if ok else QBrush(BAD_PREVIEW, Qt.BrushStyle.BDiagPattern))
            p.drawRect(self.u_rect(u, h))

    def _paint_block(self, p: QPainter, b: Block, px: float) -> None:
        rect = self.u_rect(b.u, b.height).adjusted(1, 1, -1, -1)
        fill = ROLE_COLOURS.get(b.role, style.ROLES["management"][0])
        selected = b.device_id == self.panel.selected
        if b.ghost:
            faded = QColor(fill)
            faded.setAlpha(55)
            p.setPen(QPen(fill.darker(110), 1, Qt.PenStyle.DashLine))
            p.setBrush(faded)
            p.drawRect(rect)
            p.setBrush(QBrush(fill.lighter(140), Qt.BrushStyle.BDiagPattern))
            p.drawRect(rect)
            text_colour = style.MUTED_TEXT
        else:
            p.setPen(QPen(SELECTED if selected else fill.darker(130), 2 if selected else 1))
            p.setBrush(fill)
            p.drawRoundedRect(rect, 2, 2)
            text_colour = style.text_on(fill)
        if rect.height() >= 7:
            self._paint_label(p, b, rect, text_colour, px)
        if selected and b.ghost:
            p.setPen(QPen(SELECTED, 2, Qt.PenStyle.DashLine))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(rect)

    def _paint_label(self, p: QPainter, b: Block, rect: QRectF, colour: QColor, px: float) -> None:
        """Name (bold unless a tray or ghost), plus the catalog name when the block is tall enough."""
        size = min(12.0, rect.height() - 2) if b.component is None else min(10.0, rect.height() - 1, px)
        font = _font(size, bold=not b.ghost and b.component is None)
        inner = rect.adjusted(5, 0, -5, 0)
        two_lines = bool(b.detail) and rect.height() >= 2 * size + 10
        p.setPen(colour)
        p.setFont(font)
        if b.ghost and rect.height() >= 4 * size:
            p.drawText(inner.adjusted(0, 4, 0, -4), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, b.label)
            return
        name = QFontMetricsF(font).elidedText(b.label, Qt.TextElideMode.ElideRight, inner.width())
        if not two_lines:
            p.drawText(inner, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, name)
            return
        small = _font(size - 1)
        half = rect.height() / 2
        p.drawText(QRectF(inner.left(), rect.top(), inner.width(), half + 1),
                   Qt.AlignmentFlag.AlignBottom | Qt.AlignmentFlag.AlignLeft, name)
        p.setFont(small)
        detail = QFontMetricsF(small).elidedText(b.detail, Qt.TextElideMode.ElideRight, inner.width())
        p.drawText(QRectF(inner.left(), rect.top() + half + 2, inner.width(), half - 2),
                   Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft, detail)

    def _paint_strip(self, p: QPainter, s) -> None:
        rect = self._strip_rect(s)
        fill = ROLE_COLOURS["pdu"]
        p.setPen(QPen(SELECTED if s.device_id == self.panel.selected else fill.darker(140), 2 if
                      s.device_id == self.panel.selected else 1))
        p.setBrush(fill)
        p.drawRoundedRect(rect, 3, 3)
        p.save()
        p.translate(rect.center())
        p.rotate(-90)
        p.setFont(_font(9, True))
        p.setPen(style.text_on(fill))
        p.drawText(QRectF(-rect.height() / 2, -rect.width() / 2, rect.height(), rect.width()),
                   Qt.AlignmentFlag.AlignCenter, s.label)
        p.restore()

    def event(self, event) -> bool:
        if event.type() == event.Type.ToolTip:
            text = self.panel.describe(self.shape_at(QPointF(event.pos())))
            if text:
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)

    # ---- mouse and keys ----------------------------------------------------------
    def mousePressEvent(self, event) -> None:
        self.setFocus()
        self._press = event.position()
        self.panel.select(self.item_at(event.position()))

    def mouseMoveEvent(self, event) -> None:
        if self._press is None or not (event.buttons() & Qt.MouseButton.LeftButton):
            return
        if (event.position() - self._press).manhattanLength() < QApplication.startDragDistance():
            return
        device_id = self.item_at(self._press)
        press, self._press = self._press, None
        if device_id is None or self.panel.rack is None:
            return
        device = self.panel.rack.device(device_id)
        grab = 0.0 if device.u is None else max(0.0, self.u_at(press.y()) - device.u)
        mime = QMimeData()
        mime.setData(MOUNTED_MIME, json.dumps({"rack": self.panel.rack.id, "device": device_id,
                                               "grab": grab}).encode())
        drag = QDrag(self)
        drag.setMimeData(mime)
        drag.exec(Qt.DropAction.MoveAction)

    def mouseReleaseEvent(self, event) -> None:
        self._press = None

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.panel.remove_selected()
        else:
            super().keyPressEvent(event)

    # ---- drops ----------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:
        if self.panel.rack is not None and (event.mimeData().hasFormat(DEVICE_MIME)
                                            or event.mimeData().hasFormat(MOUNTED_MIME)):
            event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:
        if self.panel.rack is None:
            return
        self._preview = self.panel.preview(self.face, self.u_at(event.position().y()), event.mimeData())
        self.update()
        event.acceptProposedAction()

    def dragLeaveEvent(self, event) -> None:
        self._preview = None
        self.panel.show_status("")
        self.update()

    def dropEvent(self, event) -> None:
        self._preview = None
        ok = self.panel.drop(self.face, self.u_at(event.position().y()), event.mimeData())
        event.setDropAction(Qt.DropAction.MoveAction if event.mimeData().hasFormat(MOUNTED_MIME)
                            else Qt.DropAction.CopyAction)
        if ok:
            event.accept()
        else:
            event.ignore()
        self.update()
