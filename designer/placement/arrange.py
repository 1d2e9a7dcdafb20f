"""Arranging footprints: snapping to the floor tiles, align, distribute, and the clearances kept free around racks.

A *box* is the axis-aligned bounds ``(x0, y0, x1, y1)`` of a turned footprint
(:func:`designer.placement.geometry.box`).
"""
from __future__ import annotations

import math
from typing import Sequence

from .geometry import UNIT_CORNERS, local_to_hall

#: Clearance kept free in front of (cold aisle side) and behind (hot aisle side) a rack.
FRONT_CLEARANCE_MM = 1200.0
REAR_CLEARANCE_MM = 1000.0
#: The aisle left between a row and the copy that "Duplicate row" makes.
ROW_AISLE_MM = 1200.0


def clearance_bands(x: float, y: float, width: float, depth: float, rotation: float,
                    front: float = FRONT_CLEARANCE_MM, rear: float = REAR_CLEARANCE_MM):
    """The free band in front of the rack and the one behind it, as corner lists in the hall plane."""
    hw, hd = width / 2, depth / 2

    def band(y0: float, y1: float):
        mid, half = (y0 + y1) / 2, (y1 - y0) / 2
        return [local_to_hall(x, y, rotation, px * hw, mid + py * half) for px, py in UNIT_CORNERS]

    return band(-hd - front, -hd), band(hd, hd + rear)


# -- snapping ------------------------------------------------------------------------------------
def snap_delta(d: float, tile: float) -> float:
    """A drag distance rounded to whole tiles (so a row already off the grid keeps its phase)."""
    return math.floor(d / tile + 0.5) * tile if tile > 0 else d


def snap_centre(p: float, size: float, tile: float, phase: float = 0.0) -> float:
    """The centre nearest ``p`` whose footprint edge (``centre - size/2``) sits on the grid ``phase + k*tile``."""
    if tile <= 0:
        return p
    edge = p - size / 2
    return phase + math.floor((edge - phase) / tile + 0.5) * tile + size / 2


# -- align and distribute ------------------------------------------------------------------------
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
