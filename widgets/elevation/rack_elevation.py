"""Front and rear elevation of one rack: drop devices from the palette, drag them between slots.

The panel never edits the rack: a drop becomes an ``AddDeviceCommand``, a drag a
``MoveDeviceCommand``, Delete a ``RemoveDeviceCommand``. The document refuses
collisions and overflow (:class:`~designer.commands.CommandError`); the panel
shows that reason in its status line and emits :attr:`RackElevationPanel.refused`,
and the model stays as it was. The picture is rebuilt from the project on every
change (a rack has at most a few dozen blocks), so undo/redo need no special path.
"""
from __future__ import annotations

import json

from PySide6.QtCore import QEvent, QMimeData, Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QToolButton, QVBoxLayout, QWidget

from catalog import Catalog
from designer.commands import AddDeviceCommand, Document, MoveDeviceCommand, RemoveDeviceCommand
from designer.formatting import quantity
from designer.model import MountedDevice, Project, Rack, new_device_id
from designer.rules import u_span_problem

from ..app import style
from ..app.doc_binding import bind, push
from .rack_face import DEVICE_MIME, ERROR_TEXT, MOUNTED_MIME, RackFaceView, _font
from ..dashboards.inspector import power_text
from .rack_layout import Block, Strip, layout, rack_use

__all__ = ["DEVICE_MIME", "MOUNTED_MIME", "RackElevationPanel", "RackFaceView"]


class RackElevationPanel(QWidget):
    """Both faces of the rack chosen with :meth:`show_rack`, editing through the document."""

    #: An edit was refused; the reason (also shown in the status line).
    refused = Signal(str)
    #: The user selected a device in the elevation ("" when cleared).
    device_selected = Signal(str)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None):
        super().__init__(parent)
        self.catalog = catalog
        self._document: Document | None = None
        self.rack_id: str | None = None
        self.selected: str | None = None
        self.title = QLabel()
        self.title.setFont(_font(13, True))
        self.subtitle = QLabel()
        self.subtitle.setWordWrap(True)
        self.subtitle.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setStyleSheet(f"color: {ERROR_TEXT.name()};")
        self.front = RackFaceView(self, "front")
        self.rear = RackFaceView(self, "rear")
        holder = QWidget()
        faces = QHBoxLayout(holder)
        faces.setContentsMargins(0, 0, 0, 0)
        faces.setSpacing(10)
        faces.addWidget(self.front)
        faces.addWidget(self.rear)
        # Fit the rack to the dock, but never below ~11 px per U: tray labels stay readable and a
        # short dock scrolls instead.
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.scroll.setWidget(holder)
        #: pixels per U chosen by zooming in; None fits the whole rack to the panel's height
        self.zoom_px: float | None = None
        self.zoom_out_button = self._tool_button("−", "Zoom out (Ctrl+wheel)", lambda: self.zoom_by(1 / 1.25))
        self.fit_button = self._tool_button("Fit", "Show the whole rack", self.zoom_fit)
        self.zoom_in_button = self._tool_button("+", "Zoom in (Ctrl+wheel)", lambda: self.zoom_by(1.25))
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.title, 1)
        for button in (self.zoom_out_button, self.fit_button, self.zoom_in_button):
            head.addWidget(button)
        self.scroll.viewport().installEventFilter(self)
        box = QVBoxLayout(self)
        box.setContentsMargins(8, 6, 8, 6)
        box.addLayout(head)
        box.addWidget(self.subtitle)
        box.addWidget(self.scroll, 1)
        box.addWidget(self.status)
        self._refresh()

    def _tool_button(self, text: str, tip: str, slot) -> QToolButton:
        button = QToolButton(self)
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    # ---- zoom -----------------------------------------------------------------------------
    MIN_U_PX, MAX_U_PX = 11.0, 64.0

    def fit_u_px(self) -> float:
        """Pixels per U that show the whole rack in the panel's height (never below the legible minimum)."""
        free = self.scroll.viewport().height() - self.front.TOP - self.front.BOTTOM
        return max(self.MIN_U_PX, free / max(1, self.units))

    def u_px(self) -> float:
        """Pixels per U drawn now."""
        return self.front._u_px()

    def zoom_by(self, factor: float) -> None:
        """Larger or smaller U; back to fitting the whole rack once zoomed out that far."""
        target = min(self.MAX_U_PX, max(self.MIN_U_PX, self.u_px() * factor))
        self.zoom_px = None if target <= self.fit_u_px() + 0.5 else target
        self._apply_zoom()

    def zoom_fit(self) -> None:
        self.zoom_px = None
        self._apply_zoom()

    def _apply_zoom(self) -> None:
        units = self.units
        for view in (self.front, self.rear):
            view.setMinimumHeight(int(units * (self.zoom_px or self.MIN_U_PX) + view.TOP + view.BOTTOM))
        self.fit_button.setEnabled(self.zoom_px is not None)
        self.zoom_out_button.setEnabled(self.zoom_px is not None)
        self.zoom_in_button.setEnabled(self.zoom_px is None or self.zoom_px < self.MAX_U_PX)

    def eventFilter(self, obj, event) -> bool:
        # Ctrl+wheel zooms the rack, as on the floor plan; a plain wheel scrolls.
        if (obj is self.scroll.viewport() and event.type() == QEvent.Type.Wheel
                and event.modifiers() & Qt.KeyboardModifier.ControlModifier):
            self.zoom_by(1.25 if event.angleDelta().y() > 0 else 1 / 1.25)
            return True
        return super().eventFilter(obj, event)

    # ---- public API ---------------------------------------------------------------------
    def set_document(self, document: Document | None) -> None:
        """Follow ``document`` (a newly opened file); the shown rack is kept if it exists there."""
        self._document = document
        if document is not None:
            bind(document, self, "_on_project_changed")
        self._refresh()

    def show_rack(self, rack_id: str | None) -> None:
        changed = rack_id != self.rack_id
        if changed:
            self.selected = None
        self.rack_id = rack_id
        self.show_status("")
        self._refresh()
        if changed:
            QTimer.singleShot(0, self, self._scroll_to_contents)

    def _scroll_to_contents(self) -> None:
        """Bring the rack's highest mounted device into view: a short dock otherwise shows empty top U."""
        rack = self.rack
        units = [d.u for d in rack.devices if d.u is not None] if rack else []
        if not units:
            return
        point = self.front.mapTo(self.scroll.widget(), self.front.point_for_u(max(units)).toPoint())
        self.scroll.ensureVisible(point.x(), point.y(), 0, self.scroll.viewport().height() // 3)

    @property
    def rack(self) -> Rack | None:
        project = self._document.project if self._document else None
        if project is None or self.rack_id is None or not project.has_rack(self.rack_id):
            return None
        return project.rack(self.rack_id)

    @property
    def units(self) -> int:
        rack = self.rack
        return self.catalog.get(rack.type).rack_units if rack else 42

    @property
    def strip_slots(self) -> int:
        """PDU strips per side on the fuller face (at least one, so the frame does not jump)."""
        slots = [s.slot + 1 for s in self.front.strips + self.rear.strips]
        return max(slots, default=1)

    def blocks(self, face: str = "front") -> list[Block]:
        return list((self.front if face == "front" else self.rear).blocks)

    def describe(self, shape: Block | Strip | None) -> str:
        """Tooltip text for a block or strip: what it is, where, and its power figures."""
        rack = self.rack
        if shape is None or rack is None or not any(d.id == shape.device_id for d in rack.devices):
            return ""
        device = rack.device(shape.device_id)
        dtype = self.catalog.get(shape.component or device.type)
        if isinstance(shape, Strip):
            where = f"0U, {device.face}"
        else:
            where = f"U{shape.u:g}-U{shape.u + shape.height - 1:g}, {device.face}"
        note = "\nposition illustrative: NVIDIA publishes no U map" if getattr(shape, "illustrative", False) else ""
        return f"{shape.label}\n{dtype.name}\n{where}\n{power_text(dtype)}{note}"

    def select(self, device_id: str | None) -> None:
        self.selected = device_id
        self.device_selected.emit(device_id or "")
        self.front.update()
        self.rear.update()

    def remove_selected(self) -> bool:
        rack = self.rack
        if rack is None or self.selected is None:
            return False
        if push(self._document, RemoveDeviceCommand(rack.id, self.selected), self._refuse):
            self.select(None)
            return True
        return False

    def show_status(self, text: str) -> None:
        self.status.setText(text)

    # ---- drops (called by the face views) --------------------------------------------------
    def _candidate(self, face: str, u: int, mime: QMimeData) -> tuple[MountedDevice, str | None] | str:
        """The device a drop would place (and the rack it comes from), or why it cannot."""
        rack = self.rack
        if mime.hasFormat(MOUNTED_MIME):
            data = json.loads(bytes(mime.data(MOUNTED_MIME)).decode())
            project = self._document.project
            if not project.has_rack(data["rack"]):
                return "the dragged device's rack no longer exists"
            src = project.rack(data["rack"])
            dev = src.device(data["device"])
            dtype = self.catalog.get(dev.type)
            new_u = None if dev.u is None else 1.0 if dtype.fills_rack else max(1.0, u - float(data["grab"]))
            return MountedDevice(dev.id, dev.type, new_u, face, dev.name), src.id
        type_id = bytes(mime.data(DEVICE_MIME)).decode("utf-8").strip()
        dtype = self.catalog.find(type_id)
        if dtype is None:
            return f"{type_id!r} is not in the catalog"
        if not dtype.mountable:
            return f"{dtype.name} is a {dtype.kind.replace('_', ' ')}; it does not go into a rack"
        new_u = None if dtype.u_height == 0 and not dtype.fills_rack else 1.0 if dtype.fills_rack else float(u)
        return MountedDevice(new_device_id(self._document.project, rack.id, rack.devices), type_id, new_u, face), None

    def preview(self, face: str, u: int, mime: QMimeData) -> tuple[float, float, bool] | None:
        """Where a drop at ``u`` would land and whether it fits (shown while dragging)."""
        cand = self._candidate(face, u, mime)
        if isinstance(cand, str):
            self.show_status(cand)
            return None
        device, src = cand
        rack = self.rack
        problem = u_span_problem(self.catalog, rack, device, ignore=device.id if src == rack.id else None)
        self.show_status(problem or "")
        if device.u is None:
            return None
        dtype = self.catalog.get(device.type)
        height = self.units if dtype.fills_rack else dtype.u_height
        return device.u, height, problem is None

    def drop(self, face: str, u: int, mime: QMimeData) -> bool:
        """Turn a drop into a command; a refusal is shown and the model is left unchanged."""
        rack = self.rack
        if rack is None:
            return False
        cand = self._candidate(face, u, mime)
        if isinstance(cand, str):
            self._refuse(cand)
            return False
        device, src = cand
        if src is None:
            cmd = AddDeviceCommand(rack.id, device)
        else:
            cmd = MoveDeviceCommand(src, device.id, device.u, face, None if src == rack.id else rack.id)
        if not push(self._document, cmd, self._refuse):
            return False
        self.show_status("")
        self.select(device.id if src in (None, rack.id) else None)
        return True

    # ---- internals ---------------------------------------------------------------------------
    def _refuse(self, message: str) -> None:
        self.show_status(message)
        self.refused.emit(message)

    def _on_project_changed(self, project: Project, change) -> None:
        self._refresh()

    def _refresh(self) -> None:
        rack = self.rack
        if rack is None:
            self.title.setText("No rack selected")
            self.subtitle.setText("Select a rack on the floor plan to see its front and rear elevation.")
            self.front.blocks, self.front.strips, self.rear.blocks, self.rear.strips = [], [], [], []
        else:
            rtype = self.catalog.get(rack.type)
            self.title.setText(rack.name or rack.id)
            use = rack_use(rack, self.catalog)
            text = f"{rtype.name} · {quantity(use.units, 'U')}"
            if use.system:  # a rack-scale system takes every U; say what its trays fill and what it leaves
                text += (f", all taken by the {use.system} ({quantity(use.trays_u, 'U')} of trays drawn"
                         + (f", {quantity(use.unmapped_u, 'U')} unmapped" if use.unmapped_u else "") + ")")
            text += f" · {quantity(use.free, 'U')} free"
            self.front.blocks, self.front.strips = layout(rack, self.catalog, "front")
            self.rear.blocks, self.rear.strips = layout(rack, self.catalog, "rear")
            if any(b.illustrative for b in self.front.blocks + self.rear.blocks):
                text += " · tray layout illustrative (NVIDIA publishes no U map)"
            self.subtitle.setText(text)
            for view in (self.front, self.rear):  # ~11 px per U and ~100 px of slot width keep labels legible
                view.setMinimumWidth(int(view.GUTTER + 2 * view._side() + 100))
            if self.selected and not any(d.id == self.selected for d in rack.devices):
                self.selected = None
        self._apply_zoom()
        self.front.update()
        self.rear.update()
