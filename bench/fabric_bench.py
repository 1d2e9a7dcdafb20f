"""Benchmark: the wiring plan with cable lengths for 100,000 endpoints (budget <= 1 s, one core).

The design is the generated 12,500 x DGX B200 hall (bench.designs) plus network
racks at the end of the rows holding the Quantum-X800 (Q3400, 144-port) leaves,
spines and cores that a 100,000-endpoint, three-tier fabric needs; QM9700 stops at
65,536 endpoints in three tiers. The timed step is ``plan_wiring`` (inventory,
sizing, port-to-port links, lengths, cable and optics choice) plus the counts.
"""
from __future__ import annotations

import math
import time
from dataclasses import replace

from catalog import default_catalog
from designer.model import MountedDevice, Rack

SWITCH = "q3400"
PER_RACK = 10  # 4 U switches in a 48 U rack


def fabric_project(gpus: int = 100_000):
    from designer.fabric.wiring import size_design
    from designer.fabric.geometry import inventory

    from .designs import PITCH, ROW_PITCH, dgx_b200_project

    catalog = default_catalog()
    project = dgx_b200_project(gpus)
    inv = inventory(project, catalog)
    tree = size_design(replace(inv, switch_type=SWITCH), catalog)
    names = [f"leaf-{i:05d}" for i in range(tree.leaf)] + [f"spine-{i:05d}" for i in range(tree.spine)] + \
            [f"core-{i:05d}" for i in range(tree.core)]
    racks = []
    rows = max(r.y for r in project.racks)
    for k in range(math.ceil(len(names) / PER_RACK)):
        row, col = divmod(k, 40)
        devs = tuple(MountedDevice(f"n{k:04d}-s{j}", SWITCH, 1 + 4 * j, "front", name)
                     for j, name in enumerate(names[k * PER_RACK:(k + 1) * PER_RACK]))
        racks.append(Rack(f"n{k:04d}", f"NET{k:04d}", "hall-1", "rack-48u-600x1200",
                          2400 + col * PITCH + PITCH / 2, rows + ROW_PITCH * (row + 1), 0.0, f"N{row:02d}", devs))
    return project.adding_racks(racks), catalog


def best_of(fn, runs: int = 3) -> float:
    best = math.inf
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench() -> dict:
    from designer.fabric.wiring import plan_wiring

    project, catalog = fabric_project()

    def run():
        plan = plan_wiring(project, catalog)
        plan.counts()
        return plan

    plan = run()
    seconds = best_of(run)
    return {"fabric_wiring_100k_endpoints_s": round(seconds, 4),
            "fabric_wiring_100k_links": len(plan),
            "fabric_wiring_100k_switches": plan.required.leaf + plan.required.spine + plan.required.core}


if __name__ == "__main__":
    import json

    print(json.dumps(bench(), indent=2))
