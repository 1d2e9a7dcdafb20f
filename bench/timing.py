"""Timing helper shared by the benchmarks."""
from __future__ import annotations

import time


def best_of(fn, runs: int = 3) -> tuple[float, object]:
    """The best wall time of ``runs`` calls of ``fn``, and the last call's result."""
    best, out = float("inf"), None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out
