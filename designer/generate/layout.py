"""Where the generated racks stand: row pairs around cold aisles, a network band in the middle of the hall.

Why this shape (dcim.md, RA-11334-001 Figure 3.1): racks stand in rows whose
fronts face each other across a cold aisle of two tiles (the 1.2 m front
clearance the floor plan keeps) and whose backs face across a hot aisle of two
tiles (1.0 m rear clearance kept). A scalable unit of servers is one segment of
a row pair with its network racks at the end of each row, so its leaf cables
stay inside the segment; a rack-scale system's SU (eight NVL72 racks) is one
row, its network racks in the middle and its CDUs at the ends, as the GB200
SuperPOD RA draws it (RA-11338-001), so one segment of a row pair holds two
SUs, one in each row. Spines, cores and management sit in a band across the
middle of the hall, which keeps every leaf-to-spine run near the shortest the
hall allows. Row pairs are set out in columns with 1.8 m cross aisles so the
hall comes out near square.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..formatting import quantity
from ..walks import nearest_walk
from .spec import GenerateError

TILE = 600.0
RACK_DEPTH = 1200.0
COLD_AISLE = 1200.0
HOT_AISLE = 1200.0
CROSS_AISLE = 1800.0
#: Free floor between the outer rows and the walls (more than the 1.0 m rear clearance).
MARGIN = 1200.0
PAIR_PITCH = 2 * RACK_DEPTH + COLD_AISLE + HOT_AISLE
#: Longest row before a cross aisle: 24 rack positions (14.4 m).
MAX_ROW_MM = 24 * TILE


@dataclass(frozen=True)
class Place:
    x: float
    y: float
    rotation: float
    row: str


@dataclass(frozen=True)
class Grid:
    """Row pairs in ``columns`` columns; ``band_pairs`` row pairs of network racks across the middle."""

    segment_mm: float
    segments_per_pair: int
    su_pairs: int
    columns: int
    band_pairs: int

    @property
    def row_mm(self) -> float:
        return self.segment_mm * self.segments_per_pair

    @property
    def pairs_per_column(self) -> int:
        return math.ceil(self.su_pairs / self.columns)

    @property
    def width_mm(self) -> float:
        return 2 * MARGIN + self.columns * self.row_mm + (self.columns - 1) * CROSS_AISLE

    @property
    def depth_mm(self) -> float:
        return MARGIN + (self.pairs_per_column + self.band_pairs) * PAIR_PITCH

    @property
    def band_slots(self) -> int:
        """Rack positions in the band: both rows of each band pair, across the columns."""
        return self.band_pairs * 2 * self.columns * int(self.row_mm // TILE)

    def pair_origin(self, pair: int) -> tuple[float, float]:
        """(x, y) of SU row pair ``pair``'s corner (the band's pairs sit in the middle of each column)."""
        col, k = divmod(pair, self.pairs_per_column)
        if col % 2:  # serpentine: the next column starts where this one ended, so consecutive SUs stay close
            k = self.pairs_per_column - 1 - k
        slot = k if k < self.pairs_per_column // 2 else k + self.band_pairs
        return MARGIN + col * (self.row_mm + CROSS_AISLE), MARGIN + slot * PAIR_PITCH

    def band_origin(self, band_pair: int, col: int) -> tuple[float, float]:
        slot = self.pairs_per_column // 2 + band_pair
        return MARGIN + col * (self.row_mm + CROSS_AISLE), MARGIN + slot * PAIR_PITCH


def _grids(segment_mm: float, segments: int, band_racks: int, per_pair: int):
    """Every distinct grid with ``per_pair`` SU segments per row pair (balanced), by column count."""
    pairs = math.ceil(segments / per_pair)
    per_pair = math.ceil(segments / pairs)  # balanced rows: 4 SUs of 3 per row become 2 rows of 2
    row_slots = int(segment_mm * per_pair // TILE)
    for columns in range(1, pairs + 1):
        if columns > 1 and math.ceil(pairs / columns) == math.ceil(pairs / (columns - 1)):
            continue
        # a site's data hall has no band: its upper tier stands in the building's network room
        band_pairs = max(1, math.ceil(band_racks / (2 * columns * row_slots))) if band_racks else 0
        yield Grid(segment_mm, per_pair, pairs, columns, band_pairs)


def plan_grid(segment_mm: float, su_count: int, band_racks: int, hall_mm: tuple[float, float] | None,
              side_mm: float = 0.0, per_segment: int = 1) -> Grid:
    """The grid that holds ``su_count`` SUs, ``per_segment`` to a segment of a row pair (two where an SU is one
    row), and the band: near square, or, in a given hall, the one with the longest rows that fits (rows as
    short as one segment are tried before the hall is refused).
    ``side_mm``: the gallery a given hall must have room for along a side wall (the air handlers), outside the
    grid (a second one, and the end walls', where the hall has room for them)."""
    segments = math.ceil(su_count / per_segment)
    longest = min(max(1, int(MAX_ROW_MM // segment_mm)), segments)
    if hall_mm is None:
        return min(_grids(segment_mm, segments, band_racks, longest),
                   key=lambda g: abs(math.log(g.width_mm / g.depth_mm)))
    for per_pair in range(longest, 0, -1):
        for g in _grids(segment_mm, segments, band_racks, per_pair):
            if g.width_mm + side_mm <= hall_mm[0] + 1e-6 and g.depth_mm <= hall_mm[1] + 1e-6:
                return g
    smallest = min((g for n in range(longest, 0, -1) for g in _grids(segment_mm, segments, band_racks, n)),
                   key=lambda g: (g.width_mm + side_mm) * g.depth_mm)
    galleries = ", with an air handlers' gallery along a side wall" if side_mm else ""
    raise GenerateError(f"hall {hall_mm[0] / 1000:g} x {hall_mm[1] / 1000:g} m is too small for {su_count} "
                        f"scalable units: their rows need at least {(smallest.width_mm + side_mm) / 1000:.1f} x "
                        f"{quantity(smallest.depth_mm / 1000, 'm')}{galleries}", fit=True)


def row_places(x0: float, y0: float, widths_a: list[float], widths_b: list[float], name: str
               ) -> tuple[list[Place], list[Place]]:
    """Centres of the slots of a row pair: row A (fronts to +y) and row B (fronts to -y) across a cold aisle."""
    ya = y0 + RACK_DEPTH / 2
    yb = y0 + RACK_DEPTH + COLD_AISLE + RACK_DEPTH / 2

    def along(widths, y, rot, row):
        out, x = [], x0
        for w in widths:
            out.append(Place(x + w / 2, y, rot, row))
            x += w
        return out

    return along(widths_a, ya, 180.0, f"{name}A"), along(widths_b, yb, 0.0, f"{name}B")


def side_by_side(places: list[Place]) -> list[Place]:
    """The same places in an order that walks from each to the nearest one left (floor distance, ties in the given
    order), starting from the first: racks filled in this order stand beside the one before, where the band's
    centre-first order alternates between the two sides of the hall. The storage appliances take their racks so,
    each leaf beside the block of appliances it serves (and its partner leaf, :mod:`designer.storage.dealing`)."""
    if len(places) < 3:
        return list(places)
    xy = np.asarray([(p.x, p.y) for p in places], dtype=float)
    floor = np.abs(xy[:, None, 0] - xy[None, :, 0]) + np.abs(xy[:, None, 1] - xy[None, :, 1])
    return [places[i] for i in nearest_walk(floor).tolist()]
