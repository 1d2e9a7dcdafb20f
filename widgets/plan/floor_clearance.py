"""Clearance zones on the floor plan: the free bands in front of and behind selected racks, or every rack.

The bands' sizes are the domain's (:data:`designer.placement.FRONT_CLEARANCE_MM`
and :data:`~designer.placement.REAR_CLEARANCE_MM`); this draws them where the
items stand now, so they follow a drag.
"""
from __future__ import annotations

from designer.placement import clearance_bands

from .floor_items import ClearanceItem, RackItem


class ClearanceMixin:
    """The clearance layers of :class:`~widgets.plan.floor_plan.FloorPlanScene`: the selection's, and every rack's."""

    all_clearances = False
    _sel_clearance: ClearanceItem | None = None
    _all_clearance: ClearanceItem | None = None

    def _make_clearance_items(self) -> None:
        self._all_bands: dict[str, tuple] = {}
        self._sel_clearance = ClearanceItem(z=5)
        self._all_clearance = ClearanceItem(z=4)
        self._all_clearance.setVisible(self.all_clearances)
        self.addItem(self._sel_clearance)
        self.addItem(self._all_clearance)

    @staticmethod
    def _bands_of(item: RackItem):
        w, d = item.size
        p = item.pos()
        return clearance_bands(p.x(), p.y(), w, d, item.rotation())

    def _refresh_selection_clearance(self) -> None:
        if self._sel_clearance is None:
            return
        racks = [i for i in self.selected_footprints() if isinstance(i, RackItem)]
        bands = [self._bands_of(i) for i in racks]
        self._sel_clearance.set_bands([b[0] for b in bands], [b[1] for b in bands])

    def clearance_bands_shown(self) -> int:
        """How many bands the selection's clearance layer draws (two per selected rack)."""
        return self._sel_clearance.band_count

    def set_all_clearances(self, on: bool) -> None:
        """Show the clearance zones of every rack, not only the selected ones."""
        self.all_clearances = bool(on)
        self._all_clearance.setVisible(self.all_clearances)
        if not on:
            self._all_bands.clear()
            self._all_clearance.set_bands([], [])
        self._refresh_all_clearances(None)
        self.update()  # the legend lists the bands

    def _refresh_all_clearances(self, changed) -> None:
        if not self.all_clearances:
            return
        if changed is None:
            self._all_bands = {rid: self._bands_of(item) for rid, item in self.rack_items.items()}
        else:
            for rid in changed:
                item = self.rack_items.get(rid)
                if item is None:
                    self._all_bands.pop(rid, None)
                else:
                    self._all_bands[rid] = self._bands_of(item)
        bands = list(self._all_bands.values())
        self._all_clearance.set_bands([b[0] for b in bands], [b[1] for b in bands])
