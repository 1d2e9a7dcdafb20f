"""The floor plan's heat map: each rack by its utilisation, each CDU by the load on its loop.

Utilisation is the power engine's figure (``analysis["power"]["racks"][i]["utilisation"]``),
read as it is: a rack the analysis has no figure for (new since the last run,
or without a limit) is grey until the engines say otherwise.
"""
from __future__ import annotations

from . import style


def rack_shares(analysis) -> dict[str, float | None]:
    """rack id -> utilisation (max draw over the rack's limit) as the power engine reports it."""
    return {r["id"]: r.get("utilisation") for r in analysis["power"].get("racks", [])}


def cdu_shares(analysis) -> dict[str, float | None]:
    """floor unit id -> the load of its CDU loop over the loop's capacity, as the cooling engine reports it."""
    out: dict[str, float | None] = {}
    for loop in analysis["cooling"].get("cdu_loops", []):
        share = loop.get("utilisation")
        for unit in loop.get("units", []):
            kind, _, uid = unit.partition(":")
            if kind == "floor":
                out[uid] = share
    return out


class HeatMapMixin:
    """Heat-map colouring of :class:`~widgets.floor_plan.FloorPlanScene` (its ``rack_items`` and ``floor_items``)."""

    heat_map = False
    _rack_share: dict = {}
    _floor_share: dict = {}

    def set_analysis(self, analysis) -> None:
        """Engine results (a :class:`designer.analysis.Analysis`) to colour the heat map with; None forgets them."""
        self._analysis = analysis
        self._rack_share = rack_shares(analysis) if analysis is not None else {}
        self._floor_share = cdu_shares(analysis) if analysis is not None else {}
        if self.heat_map:
            self._recolour()

    def set_heat_map(self, on: bool) -> None:
        """Colour racks by kW against their limit and CDUs by loop load against capacity."""
        self.heat_map = bool(on)
        self._recolour()

    def rack_heat(self, rack_id: str):
        return style.heat_color(self._rack_share.get(rack_id))

    def floor_heat(self, device_id: str):
        return style.heat_color(self._floor_share.get(device_id))

    def _recolour(self) -> None:
        on = self.heat_map
        for rid, item in self.rack_items.items():
            item.set_heat(self.rack_heat(rid) if on else None, update=False)
        for fid, item in self.floor_items.items():
            item.set_heat(self.floor_heat(fid) if on and item.kind == "cdu" else None, update=False)
        self.update()
