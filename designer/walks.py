"""A nearest-neighbour walk over points: the order in which racks or switches stand beside one another."""
from __future__ import annotations

import numpy as np


def nearest_walk(distance: np.ndarray, start: int = 0) -> np.ndarray:
    """Indices of all ``len(distance)`` points from ``start``, each step to the nearest not yet walked
    (``distance[i, j]``; ties to the lower index). A few thousand points at most: a row a step."""
    k = len(distance)
    if not k:
        return np.zeros(0, dtype=np.int64)
    free = np.ones(k, dtype=bool)
    walk, here = [start], start
    free[start] = False
    for _ in range(k - 1):
        here = int(np.argmin(np.where(free, distance[here], np.inf)))
        free[here] = False
        walk.append(here)
    return np.asarray(walk, dtype=np.int64)
