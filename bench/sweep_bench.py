"""Benchmark: a 1,000-design sweep on 2 local worker processes (budget ``sweep_1000_designs_s`` <= 60 s).

    python -m bench sweep

The grid is one a user would sweep: every system the generator builds on its reference architecture's own
fabric, and the Spectrum-X builds of the systems that have one, at 10 sizes from 1 to 16 scalable units (100
designs), each with 5 models in BF16 and FP8 with the plan searched (10 workloads): 1,000 rows, every one a
design that is generated, analysed by every engine and estimated. The time includes starting the two worker
processes. ``sweep_1000_designs_serial_s`` runs the same in this process, for the pool's speed-up.
"""
from __future__ import annotations

import time

SIZES = [1, 2, 3, 4, 5, 6, 8, 10, 12, 16]
GRID = {
    "systems": ["dgx-h100", "dgx-h200", "dgx-b200", "dgx-b300", "dgx-b300-dc", "dgx-rubin-nvl8", "gb200-nvl72",
                "gb300-nvl72"],
    "sus": SIZES,
    "models": ["llama3-8b", "llama3-70b", "llama3-405b", "gpt3-175b", "mixtral-8x22b"],
    "precisions": ["bf16", "fp8"],
}
#: the Spectrum-X builds beside them (dgx-b300-dc's default is already Spectrum-X)
ETHERNET = {**GRID, "systems": ["dgx-b300", "gb300-nvl72"], "fabrics": ["spectrum-x"]}


def grid():
    from designer.sweep.grid import Grid, parse_grid

    a, b = parse_grid(GRID), parse_grid(ETHERNET)
    return Grid(a.designs + b.designs, a.workloads)


def bench() -> dict:
    from designer.sweep.runners import run_sweep

    g = grid()
    assert g.rows == 1000, g.rows
    t0 = time.perf_counter()
    rows = list(run_sweep(g, workers=2))
    pooled = time.perf_counter() - t0
    t0 = time.perf_counter()
    serial_rows = list(run_sweep(g, workers=1))
    serial = time.perf_counter() - t0
    from collections import Counter

    from designer.sweep.rows import NAMES

    statuses = dict(Counter(r[NAMES.index("status")] for r in rows))
    return {"sweep_1000_designs_s": round(pooled, 2), "sweep_1000_designs_serial_s": round(serial, 2),
            "sweep_rows_same_pooled_and_serial": rows == serial_rows, "sweep_1000_status": statuses}
