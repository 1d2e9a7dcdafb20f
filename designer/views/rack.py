"""One rack's figures from every engine that reports per rack: ``analysis.rack(id)``.

The power, cooling and floor sections each list every rack in the project's order; a rack's
view joins its three rows, so the inspector, the hover card and the DXF's attributes read one
object (``analysis.rack("su01-01").liquid_kw``) rather than three lists.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import build, view
from .power import RackFeeds


@view
class RackView:
    """Every engine's figures for one rack (``power.racks[]``, ``cooling.racks[]``, ``floor.racks[]`` joined)."""
    # from ``power.racks[]``
    id: str
    name: str
    hall: str
    row: str
    typical_kw: float
    max_kw: float
    limit_kw: float
    limit_source: str
    headroom_kw: float
    utilisation: float
    pdus: int
    inlet: str
    chain_utilisation: float | None
    peak_kw: float
    feeds: RackFeeds
    # from ``cooling.racks[]``
    liquid_kw: float
    air_kw: float
    coolant_flow_lpm: float
    air_cfm: float
    containment: str
    air_limit_kw: float
    air_density: float
    cdu_loop: int | None = None
    air_remedy: str | None = None
    # from ``floor.racks[]``
    weight_kg: float
    footprint_m2: float
    load_kg_m2: float
    rating_kg_m2: float
    caster_load_kg: float
    equipment_kg: float
    rack_rated_load_kg: float | None = None


#: The sections that list racks, in the order their figures are joined (the first holding a key wins).
RACK_SECTIONS = ("power", "cooling", "floor")


class RackIndex:
    """Where each rack's row sits in each per-rack section; views are built on first request."""

    def __init__(self, sections: Mapping[str, Mapping[str, Any]]):
        self._rows: dict[str, list[Mapping[str, Any]]] = {}
        for name in RACK_SECTIONS:
            for row in (sections.get(name) or {}).get("racks") or ():
                self._rows.setdefault(row["id"], []).append(row)
        self._views: dict[str, RackView] = {}

    def __contains__(self, rack_id: str) -> bool:
        return rack_id in self._rows

    def get(self, rack_id: str) -> RackView | None:
        v = self._views.get(rack_id)
        if v is None:
            rows = self._rows.get(rack_id)
            if rows is None:
                return None
            merged: dict[str, Any] = {}
            for row in rows:
                for k, value in row.items():
                    merged.setdefault(k, value)
            v = self._views[rack_id] = build(RackView, merged, f"racks[{rack_id}]")
        return v
