"""The floor plan's heat map: each rack by the layer chosen, each CDU by the load on its loop.

A layer is one figure the engines give per rack as a share of what it is held to,
read as it is: ``power.racks[i].utilisation`` (the rack's draw over its limit),
``chain_utilisation`` (the most loaded element of the chain feeding it: inlets, row
busway, UPS) or ``cooling.racks[i].air_density`` (its air heat over what its row
may reject to the room). A rack the analysis has no figure for (new since the last
run, or without a limit) is grey until the engines say otherwise. Every layer uses
the one colour scale, :func:`widgets.app.style.heat_color`, in bands, so the legend lists
exactly the colours the plan shows (:meth:`HeatMapLayer.bands_in_use`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..app import style

if TYPE_CHECKING:
    from .floor_plan import FloorPlanScene

#: layer -> (name in the View menu, the engine and its per-rack array it reads, what the legend says).
LAYERS: dict[str, tuple[str, str, str, str]] = {
    "rack_power": ("Rack power", "power", "rack_utilisation", "Racks: rack power"),
    "power_chain": ("Power chain", "power", "rack_chain_utilisation", "Racks: power chain"),
    "air_density": ("Air density", "cooling", "rack_air_density", "Racks: air density"),
}
DEFAULT_LAYER = "rack_power"


def rack_shares(analysis, layer: str = DEFAULT_LAYER) -> dict[str, float | None]:
    """rack id -> the layer's share (utilisation, chain utilisation or air density) as the engine reports it.

    Read from the engines' per-rack arrays (``power.racks[].utilisation`` … as numbers, in the project's rack
    order): a 100,000-GPU floor has 12,500 racks, recoloured on every result. NaN (no figure) is None."""
    _, engine, attr, _ = LAYERS[layer]
    shares = getattr(analysis.result(engine), attr)
    ids = analysis.result("power").rack_ids
    return {rid: None if share != share else share for rid, share in zip(ids, shares.tolist())}


def cdu_shares(analysis) -> dict[str, float | None]:
    """floor unit id -> the load of its CDU loop over the loop's capacity, as the cooling engine reports it."""
    out: dict[str, float | None] = {}
    for loop in analysis.cooling.cdu_loops:
        for unit in loop.units:
            kind, _, uid = unit.partition(":")
            if kind == "floor":
                out[uid] = loop.utilisation
    return out


class HeatMapLayer:
    """Heat-map colouring of one :class:`~widgets.plan.floor_plan.FloorPlanScene`'s ``rack_items`` and
    ``floor_items`` (View ▸ Heat map)."""

    def __init__(self, scene: FloorPlanScene):
        self.scene = scene
        #: the map is shown
        self.on = False
        #: which figure colours the racks (a key of :data:`LAYERS`)
        self.layer = DEFAULT_LAYER
        self._analysis = None
        self._rack_share: dict = {}
        self._floor_share: dict = {}
        #: bumped whenever a rack or floor unit item comes or goes
        self._item_version = 0
        self._bands_cache = None

    def set_analysis(self, analysis) -> None:
        """Engine results (a :class:`designer.analysis.Analysis`) to colour the map with; None forgets them."""
        self._analysis = analysis
        self._rack_share = rack_shares(analysis, self.layer) if analysis is not None else {}
        self._floor_share = cdu_shares(analysis) if analysis is not None else {}
        if self.on:
            self._recolour()

    def set_on(self, on: bool) -> None:
        """Colour racks by the chosen layer and CDUs by loop load against capacity."""
        self.on = bool(on)
        self._recolour()

    def set_layer(self, layer: str) -> None:
        """Which figure colours the racks (a key of :data:`LAYERS`); CDUs keep their loop load."""
        if layer not in LAYERS:
            raise ValueError(f"no heat map layer {layer!r} ({', '.join(LAYERS)})")
        self.layer = layer
        self._rack_share = rack_shares(self._analysis, layer) if self._analysis is not None else {}
        if self.on:
            self._recolour()
        else:
            self.scene.update()

    def items_changed(self) -> None:
        """A rack or floor unit item came or went: the bands in use are counted again when next asked."""
        self._item_version += 1

    def title(self) -> str:
        """What the racks' colours say, for the legend."""
        return LAYERS[self.layer][3]

    def bands_in_use(self) -> list[str]:
        """The load bands the map paints now, in legend order: racks by the layer, CDUs by loop load."""
        # The legend asks on every repaint; the answer changes only with the figures (new dicts, held here so
        # they are compared by identity, never by a reused address) or with the set of items.
        key = (self._rack_share, self._floor_share, self._item_version)
        cached = self._bands_cache
        if cached is not None and all(a is b for a, b in zip(cached[0][:2], key[:2])) and cached[0][2] == key[2]:
            return cached[1]
        scene = self.scene
        shares = [self._rack_share.get(rid) for rid in scene.rack_items]
        shares += [self._floor_share.get(fid) for fid, item in scene.floor_items.items() if item.kind == "cdu"]
        used = {style.heat_band(s) for s in shares}
        bands = [band for band in style.HEAT_BANDS if band in used]
        self._bands_cache = (key, bands)
        return bands

    def rack_color(self, rack_id: str):
        return style.heat_color(self._rack_share.get(rack_id))

    def floor_color(self, device_id: str):
        return style.heat_color(self._floor_share.get(device_id))

    def _recolour(self) -> None:
        on = self.on
        scene = self.scene
        for rid, item in scene.rack_items.items():
            item.set_heat(self.rack_color(rid) if on else None, update=False)
        for fid, item in scene.floor_items.items():
            item.set_heat(self.floor_color(fid) if on and item.kind == "cdu" else None, update=False)
        scene.update()
