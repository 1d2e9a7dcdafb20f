"""Selection on the floor plan.

Objects are named by where-strings (``"rack:a01"``, ``"floor:cdu-1"``), the same
names findings and commands use, so the findings panel, the inspector and the
canvas tools all select through these methods.
"""
from __future__ import annotations

from PySide6.QtGui import QPainterPath

from .floor_items import FootprintItem


class SelectionMixin:
    """Selection of :class:`~widgets.plan.floor_plan.FloorPlanScene`: one ``selection_changed`` per change, batched."""

    _batch = 0
    _selection: tuple[str, list] = ("", [])

    def selected_footprints(self) -> list[FootprintItem]:
        return [i for i in self.selectedItems() if isinstance(i, FootprintItem)]

    def selected_ids(self) -> list[str]:
        """The selection as where-strings (``"rack:a01"``, ``"floor:cdu-1"``), racks first, sorted."""
        items = self.selected_footprints()
        return sorted((i.where for i in items), key=lambda w: (not w.startswith("rack:"), w))

    def select(self, where: str) -> bool:
        """Select one object by where-string alone; a hall (``"hall:<id>"``) clears the selection.

        Returns False when nothing by that name is on the plan.
        """
        item = self.item_for(where)
        if item is None:
            return False
        self.select_many([where] if isinstance(item, FootprintItem) else [])
        return True

    def select_many(self, wheres) -> None:
        """Replace the selection (one ``selection_changed`` for the lot)."""
        self._batch += 1
        try:
            self.clearSelection()
            for where in wheres:
                item = self.item_for(where)
                if isinstance(item, FootprintItem):
                    item.setSelected(True)
        finally:
            self._batch -= 1
        self._on_qt_selection()

    def select_all(self) -> None:
        path = QPainterPath()
        path.addRect(self.sceneRect())
        self._batch += 1
        try:
            self.setSelectionArea(path)
        finally:
            self._batch -= 1
        self._on_qt_selection()

    def _on_qt_selection(self) -> None:
        if self._batch:
            return
        self.overview_dirty()  # selected footprints are drawn live, the rest in the overview
        ids = self.selected_ids()
        racks = [w[5:] for w in ids if w.startswith("rack:")]
        floors = [w[6:] for w in ids if w.startswith("floor:")]
        current = ("rack", racks) if racks else ("floor", floors) if floors else ("", [])
        self._refresh_selection_clearance()
        if current != self._selection:
            self._selection = current
            self.selection_changed.emit(*current)
