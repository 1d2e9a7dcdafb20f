"""Gestures on the floor plan, each an object that owns the mouse and keys while it lasts.

The scene holds at most one :class:`UserInteraction` at a time (as Orange Canvas's
scene does its ``user_interaction_handler``). It forwards every mouse and key event
to it first; an event the interaction handles (returns True for) goes no further. The
interaction ends itself when its gesture is over (:meth:`UserInteraction.end`) or is
cancelled (:meth:`UserInteraction.cancel`, Escape): the scene then handles presses
itself again, and a press may start the next interaction.

:class:`MoveSelection` is dragging the selection: a live preview in whole tiles, red
where it may not stand. The preview asks
:meth:`~widgets.plan.canvas_tools.CanvasTools.check_items`, the same rule the move
command enforces, so what turns red is what would be refused; on release the move
goes to the document as one command, and items the command refuses snap back to
where the model has them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication, QGraphicsScene

from designer.placement import snap_delta

from ..app import style
from .floor_items import FootprintItem

if TYPE_CHECKING:
    from .floor_plan import FloorPlanScene

#: Dragging more items than this switches the scene index off for the drag.
NO_INDEX_DRAG = 300


class UserInteraction:
    """One gesture on ``scene``. Each event handler returns True when it handled the event (the scene then
    stops there) and False to let the scene handle it as if no gesture were under way."""

    def __init__(self, scene: FloorPlanScene):
        self.scene = scene

    @property
    def active(self) -> bool:
        """True once the gesture has begun to change the plan (a press alone is not yet a drag)."""
        return False

    def mouse_press(self, event) -> bool:
        return False

    def mouse_move(self, event) -> bool:
        return False

    def mouse_release(self, event) -> bool:
        return False

    def key_press(self, event) -> bool:
        return False

    def legend(self) -> list[tuple]:
        """Entries the plan's legend shows while this gesture is under way (colours it draws)."""
        return []

    def end(self) -> None:
        """The gesture is over: the scene lets go of it."""
        self.scene.interaction_ended(self)

    def cancel(self) -> None:
        """Undo what the gesture showed and end it."""
        self.end()

    def abandon(self) -> None:
        """The scene rebuilt its items: end without touching items that are gone."""
        self.end()


class MoveSelection(UserInteraction):
    """Press selects (done by the scene), drag moves the selection in whole tiles, release commits one move.

    Shift moves freely, off the tile grid; Escape puts the items back.
    """

    def __init__(self, scene: FloorPlanScene, press: QPointF, items: list[FootprintItem]):
        super().__init__(scene)
        self.press = press
        self.items = items
        self.start = {i: i.pos() for i in items}
        self.started = False
        self.delta = QPointF()
        self.marked: set = set()  # items drawn red now
        self.indexed = True

    @property
    def active(self) -> bool:
        return self.started

    def mouse_move(self, event) -> bool:
        event.accept()
        if not self.started:
            moved = event.screenPos() - event.buttonDownScreenPos(Qt.MouseButton.LeftButton)
            if moved.manhattanLength() < QApplication.startDragDistance():
                return True
            self.started = True
            if len(self.items) > NO_INDEX_DRAG:
                self.indexed = False
                self.scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        delta = event.scenePos() - self.press
        if not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            tile = self.scene.tools.tile_of(self.items[0])
            delta = QPointF(snap_delta(delta.x(), tile), snap_delta(delta.y(), tile))
        if delta == self.delta:
            return True
        self.delta = delta
        for item in self.items:
            item.setPos(self.start[item] + delta)
        self._mark(self.scene.tools.check_items(self.items))
        self.scene.clearance.show_selection(self.scene.selected_racks())
        return True

    def _mark(self, problem) -> None:
        """Draw red the items ``problem`` (a :class:`designer.placement.Problem`, or None) names."""
        marked = set()
        if problem is not None:
            marked = {self.scene.item_for(w) for w in problem.bad | problem.hit} - {None}
        for item in self.marked - marked:
            item.set_invalid(False)
        for item in marked - self.marked:
            item.set_invalid(True)
        self.marked = marked

    def mouse_release(self, event) -> bool:
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        event.accept()
        self._finish(commit=True)
        return True

    def key_press(self, event) -> bool:
        if event.key() == Qt.Key.Key_Escape and self.started:
            self.cancel()
            event.accept()
            return True
        return False

    def legend(self) -> list[tuple]:
        return [style.REFUSED_LEGEND] if self.marked else []

    def cancel(self) -> None:
        """Put the items back and end."""
        self._finish(commit=False)

    def abandon(self) -> None:
        self.end()
        self._restore_index()

    def _restore_index(self) -> None:
        if not self.indexed:
            self.scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)

    def _finish(self, commit: bool) -> None:
        # Ended before the command goes out: the scene mirrors the change with no gesture under way.
        self.end()
        for item in self.marked:
            item.set_invalid(False)
        self._restore_index()
        if not self.started or self.delta.isNull():
            return
        scene = self.scene
        if not (commit and scene.tools.commit_items(self.items)):  # back to where the model says they are
            for item, pos in self.start.items():
                if item.scene() is scene:
                    item.setPos(pos)
            scene.clearance.show_selection(scene.selected_racks())
