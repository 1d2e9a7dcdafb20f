"""Rotated rectangles in a hall's plane: one convention for the model, the checks and the canvas.

A footprint is centred on ``(x, y)``; ``rotation`` is in degrees clockwise (the
model's y grows downward); at 0 the width runs along x, the depth along y, and
the front faces -y. Every corner, band and offset here goes through
:func:`_turn`, for one footprint (floats) or for thousands at once (numpy
arrays), so the scalar and the vectorised answers cannot drift apart.
"""
from __future__ import annotations

import math

import numpy as np
import shapely

#: The corners of a unit footprint, clockwise from the front-left: scaled by half width and depth.
UNIT_CORNERS = ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0))


def _turn(x, y, c, s, lx, ly):
    """The hall point of local offset (lx, ly) from a centre (x, y) turned by (cos, sin)."""
    return x + lx * c - ly * s, y + lx * s + ly * c


def local_to_hall(x: float, y: float, rotation: float, lx: float, ly: float) -> tuple[float, float]:
    a = math.radians(rotation)
    return _turn(x, y, math.cos(a), math.sin(a), lx, ly)


def corners(x: float, y: float, width: float, depth: float, rotation: float) -> list[tuple[float, float]]:
    """The four corners of one footprint, clockwise from the front-left."""
    return [local_to_hall(x, y, rotation, px * width / 2, py * depth / 2) for px, py in UNIT_CORNERS]


def corner_arrays(rows: np.ndarray) -> np.ndarray:
    """Corners of many footprints at once: ``rows`` is (n, 5) of x, y, width, depth, rotation; gives (n, 4, 2)."""
    a = np.radians(rows[:, 4])
    c, s = np.cos(a)[:, None], np.sin(a)[:, None]
    unit = np.asarray(UNIT_CORNERS)
    lx, ly = unit[None, :, 0] * rows[:, 2, None] / 2, unit[None, :, 1] * rows[:, 3, None] / 2
    gx, gy = _turn(rows[:, 0, None], rows[:, 1, None], c, s, lx, ly)
    return np.stack([gx, gy], axis=-1)


def rectangles(rows: np.ndarray) -> np.ndarray:
    """Shapely polygons of many footprints (``rows`` as in :func:`corner_arrays`)."""
    rows = np.asarray(rows, dtype=float).reshape(-1, 5)
    if not len(rows):
        return np.empty(0, dtype=object)
    return shapely.polygons(corner_arrays(rows))


def extent(width: float, depth: float, rotation: float) -> tuple[float, float]:
    """Size along x and y of a turned footprint (its bounding box)."""
    a = math.radians(rotation)
    c, s = abs(math.cos(a)), abs(math.sin(a))
    return width * c + depth * s, width * s + depth * c


def box(x: float, y: float, width: float, depth: float, rotation: float) -> tuple[float, float, float, float]:
    """The axis-aligned bounds ``(x0, y0, x1, y1)`` of a turned footprint."""
    ex, ey = extent(width, depth, rotation)
    return x - ex / 2, y - ey / 2, x + ex / 2, y + ey / 2


def rear_offset(rotation: float, distance: float) -> tuple[float, float]:
    """The displacement ``distance`` mm toward the rear of a footprint turned by ``rotation`` (its local +y)."""
    return local_to_hall(0.0, 0.0, rotation, 0.0, distance)
