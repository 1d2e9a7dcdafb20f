"""The room's air handlers a generated hall gets: perimeter CRAHs in service galleries along its walls.

- How many: enough units for the hall's air heat and for the airflow its racks draw, whichever needs more,
  plus one (N+1: the hall still holds its air heat with any one unit off, the check the cooling analysis
  makes, designer/cooling/air.py).
- Where: against the side walls (the ends of the hot aisles, where the return air comes back), in a
  gallery along each: one side wall where it holds them all, else both; shared out over the walls as
  evenly as they take them, spread evenly along each, each unit facing into the room. A gallery is the
  unit's depth in whole tiles (1.2 m), and the 1.2 m of free floor the racks' grid keeps before its outer
  racks is the unit's service space for coil and filter pulls (the clearance kept in front of a rack): the
  racks start :func:`gallery_mm` further in from each wall with a gallery and stay on the tile grid.
- A hall whose side walls are too short for its units is lengthened until they fit, its racks kept in the
  middle (a compact block keeps its cables short), and the generator says so: perimeter units at 200 kW
  per 2.55 m of wall need about a metre of wall per 60 kW of air heat, which is why dense air-cooled halls
  are large, and why past a few megawatts fan walls or in-row cooling take over (not modelled here). A hall
  the user gave keeps its size: the end walls take units too where the side walls are short and it has the
  depth, and the generator says how many are missing (the cooling analysis then reports the shortfall as a
  finding).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from catalog import Catalog

from ..model import FloorDevice
from .layout import MARGIN

CRAH_TYPE = "crah-cw-200kw"
#: free floor in front of a unit for coil and filter service
SERVICE_MM = 1200.0
#: between neighbouring units along a wall
GAP_MM = 600.0
#: the floor tile the racks stand on
TILE_MM = 600.0


def unit_size(catalog: Catalog) -> tuple[float, float]:
    dev = catalog.get(CRAH_TYPE)
    return float(dev.width_mm), float(dev.depth_mm)


def gallery_mm(catalog: Catalog) -> float:
    """Depth of a wall's gallery: the unit's, in whole floor tiles (the racks past it stay on the tile grid). Its
    service space is the free floor the racks' grid keeps before its outer racks (layout.MARGIN, 1.2 m)."""
    assert MARGIN >= SERVICE_MM  # the grid's margin is the units' service space
    return math.ceil(unit_size(catalog)[1] / TILE_MM - 1e-9) * TILE_MM


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
    side, across = _fits(depth_mm - 2 * g, unit_w), _fits(width_mm - sides * g, unit_w)
    return [side, side if sides == 2 else 0, across, across]


def room_for(width_mm: float, depth_mm: float, catalog: Catalog, ends: bool = True, sides: int = 2) -> int:
    return sum(walls(width_mm, depth_mm, catalog, ends, sides))


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
    """The room for ``needed`` units around a racks' grid of ``grid_mm`` (its own margins included): a gallery
    along one side wall where it holds them, else along both, the hall lengthened (its racks in the middle) where
    they are too short. A hall of a stated size (``stated_mm``) keeps it: both side galleries where it has the
    width, the end walls' too where the side walls are short and it has the depth, and a note of what is
    missing."""
    g = gallery_mm(catalog)
    gw, gd = grid_mm
    if needed == 0:
        w, d = stated_mm or grid_mm
        return AirRoom(w, d, 0.0, 0.0, (), 0)
    missing = (f"{needed} air handlers are needed for {air_kw:,.1f} kW of air heat (N+1), and the walls of the hall "
               "as given hold {room}: a larger hall, or fan walls, is needed")
    if stated_mm is None:
        sides = 1 if needed <= walls(0.0, gd, catalog, ends=False, sides=1)[0] else 2
        w, d, note = gw + sides * g, gd, None
        if room_for(w, d, catalog, ends=False, sides=sides) < needed:
            unit_w, _ = unit_size(catalog)
            along = math.ceil(needed / 2)  # on each side wall
            d = max(d, math.ceil((along * (unit_w + GAP_MM) + GAP_MM) / TILE_MM) * TILE_MM)
            note = (f"the hall is {d / 1000:.1f} m deep, not the racks' {gd / 1000:.1f} m: its side walls hold the "
                    f"{needed} air handlers its {air_kw:,.1f} kW of air heat needs (N+1), a metre of wall for about "
                    "60 kW")
        units = place_units(needed, hall_id, w, d, catalog, ends=False, sides=sides)
        dy = math.floor((d - gd) / 2 / TILE_MM) * TILE_MM  # a lengthened hall keeps its racks in the middle
        return AirRoom(w, d, g, dy, tuple(units), needed, note)
    w, d = stated_mm
    # plan_grid keeps room for one side gallery; the other where the hall is wide enough
    sides = 1 if needed <= walls(0.0, d, catalog, ends=False, sides=1)[0] or w < gw + 2 * g - 1e-6 else 2
    # end galleries where the side walls are short, the hall has the depth and they hold more than the sides lose
    ends = (room_for(w, d, catalog, False, sides) < needed and d >= gd + 2 * g - 1e-6
            and room_for(w, d, catalog, True, sides) > room_for(w, d, catalog, False, sides))
    room = room_for(w, d, catalog, ends, sides)
    units = place_units(min(needed, room), hall_id, w, d, catalog, ends, sides)
    return AirRoom(w, d, g, g if ends else 0.0, tuple(units), needed,
                   missing.format(room=room) if room < needed else None)


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
        # a side wall runs between the end galleries; an end wall from the left gallery to the right one (or to
        # the right wall where there is no right gallery)
        start = g if k < 2 else gallery_mm(catalog)
        length = (depth_mm - 2 * g) if k < 2 else (width_mm - sides * start)
        step = (length - n * unit_w) / (n + 1) if n else 0.0
        for j in range(n):
            along = start + step * (j + 1) + unit_w * j + unit_w / 2
            x, y, rotation = {0: (unit_d / 2, along, 90.0), 1: (width_mm - unit_d / 2, along, 270.0),
                              2: (along, unit_d / 2, 180.0), 3: (along, depth_mm - unit_d / 2, 0.0)}[k]
            number = len(out) + 1
            out.append(FloorDevice(f"crah-{number:02d}", CRAH_TYPE, hall_id, x, y, rotation, f"CRAH-{number:02d}"))
    return out
