"""Geometry of floor-plan edits, without Qt: snapping, align, distribute, clearances, and a space check.

Everything here works in a hall's own millimetre plane (the model's), on plain
tuples, so the canvas tools and the tests can use it without a scene.
A *placement* is ``(x, y, rotation)`` of a footprint's centre; a *box* is the
axis-aligned bounds ``(x0, y0, x1, y1)`` of a rotated footprint.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import shapely

from designer.checks import OVERLAP_TOLERANCE_MM2, placed_objects
from designer.model import Project

#: Clearance kept free in front of (cold aisle side) and behind (hot aisle side) a rack.
FRONT_CLEARANCE_MM = 1200.0
REAR_CLEARANCE_MM = 1000.0
#: The aisle left between a row and the copy that "Duplicate row" makes.
ROW_AISLE_MM = 1200.0
#: Footprints may touch a hall wall; rounding after a rotation must not count as leaving it.
HALL_TOLERANCE_MM = 0.5


# -- footprints -------------------------------------------------------------------
def extent(width: float, depth: float, rotation: float) -> tuple[float, float]:
    """Size along x and y of a footprint turned by ``rotation`` degrees (its bounding box)."""
    a = math.radians(rotation)
    c, s = abs(math.cos(a)), abs(math.sin(a))
    return width * c + depth * s, width * s + depth * c


def box(x: float, y: float, width: float, depth: float, rotation: float) -> tuple[float, float, float, float]:
    ex, ey = extent(width, depth, rotation)
    return x - ex / 2, y - ey / 2, x + ex / 2, y + ey / 2


def corners(x: float, y: float, width: float, depth: float, rotation: float) -> list[tuple[float, float]]:
    """Corners of the rotated footprint (same convention as :func:`designer.model.footprint_corners`)."""
    a = math.radians(rotation)
    c, s = math.cos(a), math.sin(a)
    hw, hd = width / 2, depth / 2
    return [(x + px * c - py * s, y + px * s + py * c) for px, py in ((-hw, -hd), (hw, -hd), (hw, hd), (-hw, hd))]


def local_to_hall(x: float, y: float, rotation: float, lx: float, ly: float) -> tuple[float, float]:
    a = math.radians(rotation)
    c, s = math.cos(a), math.sin(a)
    return x + lx * c - ly * s, y + lx * s + ly * c


def clearance_bands(x: float, y: float, width: float, depth: float, rotation: float,
                    front: float = FRONT_CLEARANCE_MM, rear: float = REAR_CLEARANCE_MM):
    """The free band in front of the rack and the one behind it, as corner lists in the hall plane."""
    hw, hd = width / 2, depth / 2

    def rect(y0: float, y1: float):
        return [local_to_hall(x, y, rotation, px, py) for px, py in ((-hw, y0), (hw, y0), (hw, y1), (-hw, y1))]

    return rect(-hd - front, -hd), rect(hd, hd + rear)


def rear_offset(rotation: float, distance: float) -> tuple[float, float]:
    """The displacement ``distance`` mm toward the rack's rear (its local +y)."""
    return local_to_hall(0.0, 0.0, rotation, 0.0, distance)


# -- snapping ------------------------------------------------------------------------
def snap_delta(d: float, tile: float) -> float:
    """A drag distance rounded to whole tiles (so a row already off the grid keeps its phase)."""
    return math.floor(d / tile + 0.5) * tile if tile > 0 else d


def snap_centre(p: float, size: float, tile: float, phase: float = 0.0) -> float:
    """The centre nearest ``p`` whose footprint edge (``centre - size/2``) sits on the grid ``phase + k*tile``."""
    if tile <= 0:
        return p
    edge = p - size / 2
    return phase + math.floor((edge - phase) / tile + 0.5) * tile + size / 2


# -- align and distribute ----------------------------------------------------------
ALIGN_MODES = ("left", "right", "top", "bottom", "hcenter", "vcenter")


def align(boxes: Sequence[tuple[float, float, float, float]], mode: str) -> list[tuple[float, float]]:
    """The (dx, dy) that moves each box so they share the left, right, top, bottom edge or centre line.

    ``hcenter`` lines the centres up on one vertical line (the mean of the centres);
    ``vcenter`` on one horizontal line.
    """
    if mode not in ALIGN_MODES:
        raise ValueError(f"unknown alignment {mode!r}")
    if mode == "left":
        t = min(b[0] for b in boxes)
        return [(t - b[0], 0.0) for b in boxes]
    if mode == "right":
        t = max(b[2] for b in boxes)
        return [(t - b[2], 0.0) for b in boxes]
    if mode == "top":
        t = min(b[1] for b in boxes)
        return [(0.0, t - b[1]) for b in boxes]
    if mode == "bottom":
        t = max(b[3] for b in boxes)
        return [(0.0, t - b[3]) for b in boxes]
    if mode == "hcenter":
        t = sum((b[0] + b[2]) / 2 for b in boxes) / len(boxes)
        return [(t - (b[0] + b[2]) / 2, 0.0) for b in boxes]
    t = sum((b[1] + b[3]) / 2 for b in boxes) / len(boxes)
    return [(0.0, t - (b[1] + b[3]) / 2) for b in boxes]


def distribute(boxes: Sequence[tuple[float, float, float, float]], axis: str) -> list[tuple[float, float]]:
    """The (dx, dy) that leaves equal gaps between the boxes along ``axis`` ("x" or "y").

    The two outermost boxes stay where they are; the others keep their order.
    """
    if axis not in ("x", "y"):
        raise ValueError(f"unknown axis {axis!r}")
    lo, hi = (0, 2) if axis == "x" else (1, 3)
    order = sorted(range(len(boxes)), key=lambda i: ((boxes[i][lo] + boxes[i][hi]) / 2, i))
    first, last = boxes[order[0]], boxes[order[-1]]
    sizes = sum(boxes[i][hi] - boxes[i][lo] for i in order)
    gap = ((last[hi] - first[lo]) - sizes) / (len(boxes) - 1)
    out = [(0.0, 0.0)] * len(boxes)
    cursor = first[lo]
    for i in order:
        d = cursor - boxes[i][lo]
        out[i] = (d, 0.0) if axis == "x" else (0.0, d)
        cursor += boxes[i][hi] - boxes[i][lo] + gap
    return out


# -- names --------------------------------------------------------------------------
_NAME = re.compile(r"^(.*?)(\d+)(\D*)$")


def split_name(name: str) -> tuple[str, int, int, str] | None:
    """Split at the last number: ``"A09 network"`` -> ``("A", 9, 2, " network")``, ``"NVL72-01"`` ->
    ``("NVL72-", 1, 2, "")`` (prefix, number, digits, rest); None without a number."""
    m = _NAME.match(name or "")
    if not m:
        return None
    return m.group(1), int(m.group(2)), len(m.group(2)), m.group(3)


def next_names(prefix: str, taken: Iterable[str], count: int, width: int = 2, rest: str = "") -> list[str]:
    """``count`` names ``<prefix><n><rest>`` after the highest number already used with ``prefix``."""
    top = 0
    taken = set(taken)
    for name in taken:
        parts = split_name(name)
        if parts and parts[0] == prefix:
            top = max(top, parts[1])
    out = []
    n = top
    while len(out) < count:
        n += 1
        candidate = f"{prefix}{n:0{width}d}{rest}"
        if candidate not in taken:
            out.append(candidate)
    return out


def next_row_letter(rows: Iterable[str]) -> str:
    """The letter after the last single-letter row in use ("A", "B" -> "C"); "Z" wraps to "AA"."""
    letters = sorted(r for r in rows if len(r) == 1 and r.isalpha())
    if not letters:
        return "A"
    last = letters[-1].upper()
    return "AA" if last == "Z" else chr(ord(last) + 1)


def new_ids(project: Project, prefix: str, count: int) -> list[str]:
    """``count`` fresh ids like :meth:`Project.new_id`, distinct from each other too."""
    taken = {r.id for r in project.racks} | {h.id for h in project.halls} | {f.id for f in project.floor_devices}
    out = []
    n = len(taken) + 1
    while len(out) < count:
        candidate = f"{prefix}{n}"
        if candidate not in taken:
            out.append(candidate)
            taken.add(candidate)
        n += 1
    return out


# -- the space check -----------------------------------------------------------------
@dataclass(frozen=True)
class Footprint:
    """One object to place: ``kind`` is "rack" or "floor"."""

    kind: str
    id: str
    name: str
    hall: str
    x: float
    y: float
    rotation: float
    width: float
    depth: float

    @property
    def where(self) -> str:
        return f"{self.kind}:{self.id}"

    def moved(self, x: float, y: float, rotation: float | None = None) -> Footprint:
        return Footprint(self.kind, self.id, self.name, self.hall, x, y,
                         self.rotation if rotation is None else rotation, self.width, self.depth)


@dataclass
class Problem:
    """Why a placement is refused, and which objects to mark."""

    message: str
    bad: set[str]  # where-strings of the placed objects at fault
    hit: set[str]  # where-strings of the standing objects they hit


class SpaceIndex:
    """Every footprint of one project value in an STRtree, to test proposed placements against.

    Built once per project value (about 20 ms for 15,000 racks) and reused for
    every step of a drag.
    """

    def __init__(self, project: Project, catalog):
        self.project = project
        kinds, ids, names, halls, polys = placed_objects(project, catalog)
        self.wheres = [f"{k}:{i}" for k, i in zip(kinds, ids)]
        self.names = names
        self.halls = np.asarray(halls, dtype=object)
        self.polys = polys
        self.tree = shapely.STRtree(polys) if len(polys) else None
        self.hall_shapes = {h.id: shapely.Polygon(h.outline).buffer(HALL_TOLERANCE_MM, join_style="mitre")
                            for h in project.halls}
        self.hall_names = {h.id: h.name or h.id for h in project.halls}

    def check(self, placed: Sequence[Footprint], ignore: Iterable[str] = (), among: bool = True) -> Problem | None:
        """Why ``placed`` cannot stand where they are, or None.

        ``ignore`` are where-strings of standing objects to leave out (the ones
        being moved, whose old places no longer count). With ``among`` the placed
        objects are also tested against each other (rotate, align, paste); a
        rigid move of a group can skip that.
        """
        if not placed:
            return None
        rows = np.array([(f.x, f.y, f.width, f.depth, f.rotation) for f in placed], dtype=float)
        a = np.radians(rows[:, 4])
        c, s = np.cos(a), np.sin(a)
        hw, hd = rows[:, 2] / 2, rows[:, 3] / 2
        local = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], dtype=float)
        px, py = local[None, :, 0] * hw[:, None], local[None, :, 1] * hd[:, None]
        gx = rows[:, 0, None] + px * c[:, None] - py * s[:, None]
        gy = rows[:, 1, None] + px * s[:, None] + py * c[:, None]
        polys = shapely.polygons(np.stack([gx, gy], axis=-1))
        bad: set[str] = set()
        hit: set[str] = set()
        messages: list[str] = []
        for i, f in enumerate(placed):
            shape = self.hall_shapes.get(f.hall)
            if shape is None or not shape.covers(polys[i]):
                bad.add(f.where)
                if not messages:
                    messages.append(f"{f.name or f.id} would leave hall {self.hall_names.get(f.hall, f.hall)}")
        ignore = set(ignore)
        if self.tree is not None:
            left, right = self.tree.query(polys, predicate="intersects")
            if len(left):
                areas = shapely.area(shapely.intersection(polys[left], self.polys[right]))
                for i, j, area in zip(left.tolist(), right.tolist(), areas.tolist()):
                    other = self.wheres[j]
                    if area <= OVERLAP_TOLERANCE_MM2 or other in ignore or self.halls[j] != placed[i].hall:
                        continue
                    bad.add(placed[i].where)
                    hit.add(other)
                    if len(messages) < 1:
                        messages.append(f"{placed[i].name or placed[i].id} would overlap {self.names[j]}")
        if among and len(placed) > 1:
            tree = shapely.STRtree(polys)
            left, right = tree.query(polys, predicate="intersects")
            keep = left < right
            left, right = left[keep], right[keep]
            if len(left):
                areas = shapely.area(shapely.intersection(polys[left], polys[right]))
                for i, j, area in zip(left.tolist(), right.tolist(), areas.tolist()):
                    if area <= OVERLAP_TOLERANCE_MM2 or placed[i].hall != placed[j].hall:
                        continue
                    bad.update((placed[i].where, placed[j].where))
                    if not messages:
                        messages.append(f"{placed[i].name or placed[i].id} would overlap "
                                        f"{placed[j].name or placed[j].id}")
        if not bad:
            return None
        text = messages[0] if messages else "would overlap"
        if len(bad) > 1:
            text += f" ({len(bad)} objects in the way)"
        return Problem(text, bad, hit)
