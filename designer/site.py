"""Where each hall stands on the site, and how far a cable runs between racks of two rooms.

Why cable entries: a cable that leaves its room runs along the room's trays to the
room's cable entry (the middle of the wall on the room's y = 0 side, where the
generator puts the building's corridor), then along the corridor or the campus duct
bank to the far room's entry, and in along that room's trays. Each leg follows
trays at right angles, so the route is |dx| + |dy| leg by leg: never a straight line
through walls, and never shorter than the corridors allow.

A hall that states no site origin stands beside the hall before it, 3 m apart, as
the floor plan has always drawn several halls: the lengths the engines measure and
the plan the window draws agree for every design, old or generated.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .model import Hall, Project

#: Space left between halls that state no site origin, laid out side by side.
HALL_GAP_MM = 3000.0


def hall_origins(halls: Sequence[Hall]) -> list[tuple[float, float]]:
    """Where each hall's (0, 0) lies on the site, mm: its own ``site_origin``, or past the halls before it."""
    out: list[tuple[float, float]] = []
    cursor: float | None = None
    for hall in halls:
        x0, _, x1, _ = hall.bounds
        if hall.site_origin is not None:
            origin = (float(hall.site_origin[0]), float(hall.site_origin[1]))
        else:
            origin = (0.0 if cursor is None else cursor - x0, 0.0)
        out.append(origin)
        # past every hall so far, placed or not: a hall without an origin never lands on one a site placed
        cursor = max(cursor if cursor is not None else -float("inf"), x1 + origin[0] + HALL_GAP_MM)
    return out


def cable_entry(hall: Hall) -> tuple[float, float]:
    """Where cables leave ``hall``, in the hall's own coordinates: the middle of its wall at the lowest y."""
    x0, y0, x1, _ = hall.bounds
    return (x0 + x1) / 2, y0


@dataclass(frozen=True)
class RackSites:
    """Each rack's place in its hall, its hall, and each hall's cable entry (in the hall and on the site)."""

    x: np.ndarray
    y: np.ndarray
    #: the hall of each rack, as an index into the per-hall arrays
    hall: np.ndarray
    entry_x: np.ndarray
    entry_y: np.ndarray
    site_x: np.ndarray
    site_y: np.ndarray

    @property
    def one_room(self) -> bool:
        return len(self.entry_x) <= 1

    @classmethod
    def of(cls, project: Project) -> RackSites:
        racks = project.racks
        index = {h.id: i for i, h in enumerate(project.halls)}
        x = np.fromiter((r.x for r in racks), float, len(racks))
        y = np.fromiter((r.y for r in racks), float, len(racks))
        hall = np.fromiter((index.get(r.hall, 0) for r in racks), np.int64, len(racks))
        entries = [cable_entry(h) for h in project.halls] or [(0.0, 0.0)]
        origins = hall_origins(project.halls) or [(0.0, 0.0)]
        ex = np.array([e[0] for e in entries], float)
        ey = np.array([e[1] for e in entries], float)
        sx = ex + np.array([o[0] for o in origins], float)
        sy = ey + np.array([o[1] for o in origins], float)
        return cls(x, y, hall, ex, ey, sx, sy)

    def horizontal_mm(self, ra: np.ndarray, rb: np.ndarray) -> np.ndarray:
        """Tray run between the centres of racks ``ra`` and ``rb``: |dx| + |dy| in one room; between rooms, out
        to the room's entry, along the corridor to the far room's entry, in to the far rack."""
        x, y = self.x, self.y
        local = np.abs(x[ra] - x[rb]) + np.abs(y[ra] - y[rb])
        if self.one_room:
            return local
        ha, hb = self.hall[ra], self.hall[rb]
        apart = ha != hb
        if not apart.any():
            return local
        a, b, ha, hb = ra[apart], rb[apart], ha[apart], hb[apart]
        out_a = np.abs(x[a] - self.entry_x[ha]) + np.abs(y[a] - self.entry_y[ha])
        in_b = np.abs(x[b] - self.entry_x[hb]) + np.abs(y[b] - self.entry_y[hb])
        between = np.abs(self.site_x[ha] - self.site_x[hb]) + np.abs(self.site_y[ha] - self.site_y[hb])
        local = local.copy()
        local[apart] = out_a + between + in_b
        return local

    def route_points(self, ra: int, rb: int) -> list[tuple[float, float]]:
        """The corners of the run between two racks of different rooms, each in its own room's coordinates:
        the near rack, its room's entry, then the far room's entry and the far rack (for drawing)."""
        ha, hb = int(self.hall[ra]), int(self.hall[rb])
        return [(float(self.x[ra]), float(self.y[ra])), (float(self.entry_x[ha]), float(self.entry_y[ha])),
                (float(self.entry_x[hb]), float(self.entry_y[hb])), (float(self.x[rb]), float(self.y[rb]))]

    def room_links(self, hall_ids: Sequence[str], ra: np.ndarray, rb: np.ndarray,
                   metres: np.ndarray) -> list[dict]:
        """The links between racks ``ra`` and ``rb`` that leave their room, bundled per pair of rooms (the
        earlier hall of the project first): ``{"a", "b", "links", "longest_m"}``, pairs in hall order. The
        site plan draws each bundle with its count; ``hall_ids`` are the halls in the project's order."""
        if self.one_room or not len(ra):
            return []
        ha, hb = self.hall[ra], self.hall[rb]
        apart = ha != hb
        if not apart.any():
            return []
        lo, hi = np.minimum(ha[apart], hb[apart]), np.maximum(ha[apart], hb[apart])
        rooms = len(self.entry_x)
        pairs, inverse = np.unique(lo * rooms + hi, return_inverse=True)
        links = np.bincount(inverse, minlength=len(pairs))
        longest = np.zeros(len(pairs))
        np.maximum.at(longest, inverse, np.asarray(metres, float)[apart])
        return [{"a": hall_ids[int(p) // rooms], "b": hall_ids[int(p) % rooms], "links": int(n),
                 "longest_m": round(float(m), 1)} for p, n, m in zip(pairs, links, longest)]
