"""The room's air handlers a generated hall gets: perimeter CRAHs in service galleries along its walls.

- How many: enough units for the hall's air heat and for the airflow its racks draw, whichever needs more,
  plus one (N+1: the hall still holds its air heat with any one unit off, the check the cooling analysis
  makes, designer/cooling/air.py).
- Where: against the walls, in a gallery along each (a perimeter room): along one side wall where it holds
  them all, else the two side walls, and the front and back walls too when those are too short; shared out
  over the walls as evenly as they take them, spread evenly along each, each unit facing into the room. A
  gallery is the unit's depth plus 1.2 m in front of it for coil and filter service (the clearance kept in
  front of a rack), so the racks start :func:`gallery_mm` in from each wall with a gallery; the corners stay
  free.
- A hall whose walls are too short for its units is lengthened until they fit, its racks kept in the
  middle (a compact block keeps its cables short), and the generator says so: perimeter units at 200 kW
  per 2.55 m of wall need about a metre of wall per 60 kW of air heat, which is why dense air-cooled halls
  are large; a hall the user gave keeps its size, takes the units that fit and the generator says how many
  are missing (the cooling analysis then reports the shortfall as a finding).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from catalog import Catalog

from ..model import FloorDevice

CRAH_TYPE = "crah-cw-200kw"
#: free floor in front of a unit for coil and filter service
SERVICE_MM = 1200.0
#: between neighbouring units along a wall
GAP_MM = 600.0


def unit_size(catalog: Catalog) -> tuple[float, float]:
    dev = catalog.get(CRAH_TYPE)
    return float(dev.width_mm), float(dev.depth_mm)


def gallery_mm(catalog: Catalog) -> float:
    """Depth of a side wall's gallery: the unit and its service space."""
    return unit_size(catalog)[1] + SERVICE_MM


def units_needed(air_kw: float, air_cfm: float, catalog: Catalog) -> int:
    """Units for ``air_kw`` of air heat and ``air_cfm`` of rack airflow, N+1; none without air heat."""
    if air_kw <= 0:
        return 0
    dev = catalog.get(CRAH_TYPE)
    n = math.ceil(air_kw / dev.cooling_capacity_kw - 1e-9)
    if dev.airflow_cfm:
        n = max(n, math.ceil(air_cfm / dev.airflow_cfm - 1e-9))
    return n + 1


def _fits(length_mm: float, width_mm: float) -> int:
    """Units of ``width_mm`` along ``length_mm`` of wall with at least :data:`GAP_MM` between them and at the ends."""
    return max(0, int((length_mm - GAP_MM) // (width_mm + GAP_MM)))


def walls(width_mm: float, depth_mm: float, catalog: Catalog, ends: bool = True, sides: int = 2) -> list[int]:
    """Units each wall of a ``width_mm`` x ``depth_mm`` hall holds: left, right (``sides`` 2) and, with ``ends``,
    front and back. With galleries at the ends, each side wall's gallery runs between them, so the corners stay
    free."""
    unit_w, _ = unit_size(catalog)
    g = gallery_mm(catalog)
    if not ends:
        side = _fits(depth_mm, unit_w)
        return [side, side if sides == 2 else 0, 0, 0]
    side, across = _fits(depth_mm - 2 * g, unit_w), _fits(width_mm - 2 * g, unit_w)
    return [side, side, across, across]


def room_for(width_mm: float, depth_mm: float, catalog: Catalog, ends: bool = True) -> int:
    return sum(walls(width_mm, depth_mm, catalog, ends))


@dataclass(frozen=True)
class AirRoom:
    """Where a hall's air handlers go: its size, the shift of the racks' grid past the galleries, the units."""

    width_mm: float
    depth_mm: float
    dx: float
    dy: float
    units: tuple[FloorDevice, ...]
    needed: int
    #: what the generator says of it (a lengthened hall, units a given hall lacks), or None
    note: str | None = None


def plan_room(needed: int, grid_mm: tuple[float, float], stated_mm: tuple[float, float] | None, air_kw: float,
              catalog: Catalog, hall_id: str = "hall-1") -> AirRoom:
    """The room for ``needed`` units around a racks' grid of ``grid_mm`` (its own margins included): galleries
    along the side walls, and along the front and back walls too only when the side walls are too short; a
    hall whose walls are still too short is lengthened unless its size is ``stated_mm``."""
    g = gallery_mm(catalog)
    gw, gd = grid_mm
    if needed == 0:
        w, d = stated_mm or grid_mm
        return AirRoom(w, d, 0.0, 0.0, (), 0)
    one_wall = needed <= walls(0.0, gd if stated_mm is None else stated_mm[1], catalog, ends=False)[0]
    if one_wall:  # a small room: its units along one side wall, a gallery there only
        w, d = stated_mm or (gw + g, gd)
        units = place_units(needed, hall_id, w, d, catalog, ends=False, sides=1)
        return AirRoom(w, d, g, 0.0, tuple(units), needed)
    w, d = stated_mm or (gw + 2 * g, gd)
    ends = room_for(w, d, catalog, ends=False) < needed and d >= gd + 2 * g - 1e-6 if stated_mm else \
        room_for(w, d, catalog, ends=False) < needed
    if ends and not stated_mm:
        d = gd + 2 * g
    note = None
    room = room_for(w, d, catalog, ends)
    if room < needed and not stated_mm:
        unit_w, _ = unit_size(catalog)
        along = math.ceil(max(0, needed - 2 * walls(w, d, catalog)[2]) / 2)  # on each side wall
        d = max(d, math.ceil((2 * g + along * (unit_w + GAP_MM) + GAP_MM) / 600.0) * 600.0)
        note = (f"the hall is {d / 1000:.1f} m deep, not the racks' {(gd + 2 * g) / 1000:.1f} m: its walls hold the "
                f"{needed} air handlers its {air_kw:,.1f} kW of air heat needs (N+1), a metre of wall for about 60 kW")
    elif room < needed:
        note = (f"{needed} air handlers are needed for {air_kw:,.1f} kW of air heat (N+1), and the walls of the hall "
                f"as given hold {room}: a larger hall, or fan walls, is needed")
    units = place_units(min(needed, room_for(w, d, catalog, ends)), hall_id, w, d, catalog, ends)
    dy = g if ends else 0.0
    if not stated_mm and ends:  # a lengthened hall keeps its racks in the middle, on the tile grid
        dy += math.floor((d - gd - 2 * g) / 2 / 600.0) * 600.0
    return AirRoom(w, d, g, dy, tuple(units), needed, note)


def place_units(units: int, hall_id: str, width_mm: float, depth_mm: float, catalog: Catalog,
                ends: bool = True, sides: int = 2) -> list[FloorDevice]:
    """``units`` units (at most what the walls hold) against the walls of a ``width_mm`` x ``depth_mm`` hall, each
    facing into the room, shared out over the walls as evenly as they take them and spread evenly along each;
    named CRAH-01 ... wall by wall: left from the front, right, front from the left, back."""
    unit_w, unit_d = unit_size(catalog)
    g = gallery_mm(catalog) if ends else 0.0
    room = walls(width_mm, depth_mm, catalog, ends, sides)
    share = [0, 0, 0, 0]
    left = min(units, sum(room))
    while left:  # round robin over the walls with room left
        for k in range(4):
            if left and share[k] < room[k]:
                share[k] += 1
                left -= 1
    out = []
    for k, n in enumerate(share):
        start = g if k < 2 else gallery_mm(catalog)
        length = (depth_mm - 2 * g) if k < 2 else (width_mm - 2 * start)
        step = (length - n * unit_w) / (n + 1) if n else 0.0
        for j in range(n):
            along = start + step * (j + 1) + unit_w * j + unit_w / 2
            x, y, rotation = {0: (unit_d / 2, along, 90.0), 1: (width_mm - unit_d / 2, along, 270.0),
                              2: (along, unit_d / 2, 180.0), 3: (along, depth_mm - unit_d / 2, 0.0)}[k]
            number = len(out) + 1
            out.append(FloorDevice(f"crah-{number:02d}", CRAH_TYPE, hall_id, x, y, rotation, f"CRAH-{number:02d}"))
    return out
