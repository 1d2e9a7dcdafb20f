"""Run benchmarks and print their figures as one JSON object.

    python -m bench                 # every benchmark
    python -m bench load_save       # some, by name
    python -m bench --list

Figures are the best of a few runs, in the units their names say; budgets
are in DESIGN.md and are never asserted here.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from catalog import default_catalog


def best_of(fn, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_load_save() -> dict:
    from designer.fileformat import load, save

    from .designs import dgx_b200_project

    catalog = default_catalog()
    project = dgx_b200_project(100_000)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "100k.podplan.json"
        save_s = best_of(lambda: save(project, path))
        load_s = best_of(lambda: load(path, catalog))
        size = path.stat().st_size
    gpus = sum(catalog.get(d.type).gpu_count for r in project.racks for d in r.devices)
    return {"load_100k_s": round(load_s, 4), "save_100k_s": round(save_s, 4),
            "load_save_100k_racks": len(project.racks), "load_save_100k_gpus": gpus,
            "load_save_100k_file_mb": round(size / 1e6, 2)}


def bench_checks() -> dict:
    from designer.checks import check_space

    from .designs import dgx_b200_project

    catalog = default_catalog()
    project = dgx_b200_project(100_000)
    return {"space_checks_100k_ms": round(best_of(lambda: check_space(project, catalog)) * 1000, 1)}


def bench_power_cooling() -> dict:
    from designer.cooling import analyze_cooling
    from designer.engines import Context
    from designer.floor_loading import analyze_floor
    from designer.power import analyze_power

    from .designs import dgx_b200_project, nvl72_project

    catalog = default_catalog()
    out = {}
    for name, project in (("power_cooling_100k_ms", dgx_b200_project(100_000)),
                          ("power_cooling_100k_nvl72_ms", nvl72_project(100_000))):
        def run(project=project):
            ctx = Context.build(project, catalog)  # flattens the design into arrays
            analyze_power(ctx)
            analyze_cooling(ctx)
            analyze_floor(ctx)

        out[name] = round(best_of(run, 5) * 1000, 1)
    return out


def bench_analyze() -> dict:
    from .analyze_bench import bench

    return bench()


def bench_gui() -> dict:
    from .gui_bench import bench

    return bench()


def bench_training() -> dict:
    from .training_bench import bench

    return bench()


def bench_generate() -> dict:
    from .generate_bench import bench

    return bench()


def bench_fabric() -> dict:
    from .fabric_bench import bench

    return bench()


def bench_quote() -> dict:
    from .quote_bench import bench

    return bench()


def bench_handoff() -> dict:
    from .handoff_bench import bench

    return bench()


def bench_names() -> dict:
    from .names_bench import bench

    return bench()


def bench_sweep() -> dict:
    from .sweep_bench import bench

    return bench()


def bench_campus() -> dict:
    from .campus_bench import bench

    return bench()


def bench_goal() -> dict:
    from .goal_bench import bench

    return bench()


BENCHMARKS = {"load_save": bench_load_save, "analyze": bench_analyze, "fabric": bench_fabric,
              "training": bench_training, "checks": bench_checks, "power_cooling": bench_power_cooling,
              "generate": bench_generate, "quote": bench_quote, "handoff": bench_handoff,
              "names": bench_names, "gui": bench_gui, "sweep": bench_sweep, "campus": bench_campus,
              "goal": bench_goal}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"benchmarks to run: {', '.join(BENCHMARKS)} (default: all)")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(BENCHMARKS))
        return 0
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        print(f"python -m bench: unknown benchmark {unknown[0]!r}; known: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    figures: dict = {}
    for name in args.names or list(BENCHMARKS):
        figures.update(BENCHMARKS[name]())
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
