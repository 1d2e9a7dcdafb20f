"""Clearance zones on the floor plan: the free bands in front of and behind selected racks, or every rack.

The bands' sizes are the domain's (:data:`designer.placement.FRONT_CLEARANCE_MM`
and :data:`~designer.placement.REAR_CLEARANCE_MM`); this draws them where the
items stand now, so they follow a drag.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from designer.placement import clearance_bands

from .floor_items import ClearanceItem, RackItem

if TYPE_CHECKING:
    from .floor_plan import FloorPlanScene


def _bands_of(item: RackItem):
    w, d = item.size
    p = item.pos()
    return clearance_bands(p.x(), p.y(), w, d, item.rotation())


class ClearanceLayer:
    """The clearance layers of one :class:`~widgets.plan.floor_plan.FloorPlanScene`: the selection's, and every
    rack's (View ▸ Clearance zones)."""

    def __init__(self, scene: FloorPlanScene):
        self.scene = scene
        #: every rack's bands are shown, not only the selection's
        self.show_all = False
        self.selection_item: ClearanceItem | None = None
        self.all_item: ClearanceItem | None = None
        self._all_bands: dict[str, tuple] = {}

    def add_items(self) -> None:
        """Put the layers' items in the scene (again, after the scene cleared its items)."""
        self._all_bands = {}
        self.selection_item = ClearanceItem(z=5)
        self.all_item = ClearanceItem(z=4)
        self.all_item.setVisible(self.show_all)
        self.scene.addItem(self.selection_item)
        self.scene.addItem(self.all_item)

    def show_selection(self, racks: list[RackItem]) -> None:
        """Draw the bands of ``racks`` (the selected ones) where they stand now."""
        if self.selection_item is None:
            return
        bands = [_bands_of(i) for i in racks]
        self.selection_item.set_bands([b[0] for b in bands], [b[1] for b in bands])

    def bands_shown(self) -> int:
        """How many bands the selection's layer draws (two per selected rack)."""
        return self.selection_item.band_count

    def set_show_all(self, on: bool) -> None:
        """Show the clearance zones of every rack, not only the selected ones."""
        self.show_all = bool(on)
        self.all_item.setVisible(self.show_all)
        if not on:
            self._all_bands.clear()
            self.all_item.set_bands([], [])
        self.refresh_all(None)
        self.scene.update()  # the legend lists the bands

    def refresh_all(self, changed) -> None:
        """Every rack's bands again (``changed`` None), or those of the racks ``changed`` names."""
        if not self.show_all:
            return
        rack_items = self.scene.rack_items
        if changed is None:
            self._all_bands = {rid: _bands_of(item) for rid, item in rack_items.items()}
        else:
            for rid in changed:
                item = rack_items.get(rid)
                if item is None:
                    self._all_bands.pop(rid, None)
                else:
                    self._all_bands[rid] = _bands_of(item)
        bands = list(self._all_bands.values())
        self.all_item.set_bands([b[0] for b in bands], [b[1] for b in bands])
