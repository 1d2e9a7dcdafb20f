"""Dragging the selection on the floor plan: a live preview in whole tiles, red where it may not stand.

The preview asks :meth:`~widgets.plan.canvas_tools.CanvasTools.check_items`, the
same rule the move command enforces, so what turns red is what would be
refused; on release the move goes to the document as one command, and items
the command refuses snap back to where the model has them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication, QGraphicsScene

from designer.placement import snap_delta

from .floor_items import FootprintItem

#: Dragging more items than this switches the scene index off for the drag.
NO_INDEX_DRAG = 300


@dataclass
class _Drag:
    """A move in progress: where it started and where every moving item was."""

    press: QPointF
    items: list[FootprintItem]
    start: dict = field(default_factory=dict)  # item -> QPointF
    started: bool = False
    delta: QPointF = field(default_factory=QPointF)
    marked: set = field(default_factory=set)  # items drawn red now
    indexed: bool = True


class DragMixin:
    """Mouse handling of :class:`~widgets.plan.floor_plan.FloorPlanScene`: press selects, drag moves, release commits."""

    _drag: _Drag | None = None

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            item = self.footprint_at(event.scenePos())
            if item is None:
                hit = self.hall_at(event.scenePos())
                if hit is not None:
                    self.hall_clicked.emit(hit[0])
            if item is not None:
                if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                    item.setSelected(not item.isSelected())
                    event.accept()
                    return
                if not item.isSelected():
                    self.select_many([item.where])
                items = self.selected_footprints()
                self._drag = _Drag(event.scenePos(), items, {i: i.pos() for i in items})
                event.accept()
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        drag = self._drag
        if drag is None:
            super().mouseMoveEvent(event)
            return
        event.accept()
        if not drag.started:
            moved = event.screenPos() - event.buttonDownScreenPos(Qt.MouseButton.LeftButton)
            if moved.manhattanLength() < QApplication.startDragDistance():
                return
            drag.started = True
            if len(drag.items) > NO_INDEX_DRAG:
                drag.indexed = False
                self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        delta = event.scenePos() - drag.press
        if not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            tile = self.tools.tile_of(drag.items[0])
            delta = QPointF(snap_delta(delta.x(), tile), snap_delta(delta.y(), tile))
        if delta == drag.delta:
            return
        drag.delta = delta
        for item in drag.items:
            item.setPos(drag.start[item] + delta)
        problem = self.tools.check_items(drag.items)
        marked = set()
        if problem is not None:
            marked = {self.item_for(w) for w in problem.bad | problem.hit} - {None}
        for item in drag.marked - marked:
            item.set_invalid(False)
        for item in marked - drag.marked:
            item.set_invalid(True)
        drag.marked = marked
        self._refresh_selection_clearance()

    def mouseReleaseEvent(self, event) -> None:
        drag = self._drag
        if drag is None or event.button() != Qt.MouseButton.LeftButton:
            super().mouseReleaseEvent(event)
            return
        event.accept()
        self._finish_drag(commit=True)

    def cancel_drag(self) -> None:
        """Put a drag's items back and forget it (Escape)."""
        self._finish_drag(commit=False)

    def _finish_drag(self, commit: bool) -> None:
        drag, self._drag = self._drag, None
        if drag is None:
            return
        for item in drag.marked:
            item.set_invalid(False)
        if not drag.indexed:
            self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        if not drag.started or drag.delta.isNull():
            return
        if not (commit and self.tools.commit_items(drag.items)):  # back to where the model says they are
            for item, pos in drag.start.items():
                if item.scene() is self:
                    item.setPos(pos)
            self._refresh_selection_clearance()

    @property
    def dragging(self) -> bool:
        return self._drag is not None and self._drag.started
