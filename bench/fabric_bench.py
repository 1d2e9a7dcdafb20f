"""Benchmark: the wiring plan with cable lengths for 100,000 endpoints (budget <= 1 s, one core).

The design is the generated 100,000-GPU DGX B200 SuperPOD (bench.designs): 12,500
DGX and the Quantum-X800 (Q3400, 144-port) leaves, spines and cores that a
100,000-endpoint, three-tier fabric needs (QM9700 stops at 65,536 endpoints in
three tiers). The timed step is ``plan_wiring`` (inventory, sizing, port-to-port
links, lengths, cable and optics choice) plus the counts.
"""
from __future__ import annotations

import math
import time

from catalog import default_catalog


def fabric_project(gpus: int = 100_000):
    from .designs import dgx_b200_project

    return dgx_b200_project(gpus), default_catalog()


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
