"""``podplanner sweep GRID [--workers N | --dask ADDRESS] -o OUT.csv|.parquet``: many designs, one row each.

Exit 0 when every row was written (rows of designs that cannot be built as asked, or that have error findings,
are results and say so in their status); 1 when a row failed on an internal error (it is written, and named);
2 for a grid, a flag or a runner that cannot be used.
"""
from __future__ import annotations

import os
import sys
import time
from collections import Counter
from pathlib import Path

from catalog import Catalog
from catalog.files import FileReadError

from .flags import output_problem
from .flags import path as checked_path
from .flags import whole
from .json_output import print_json

NAME = "sweep"
PROG = "podplanner sweep"
#: the most local worker processes: far beyond a workstation's cores, a sign of a typo
MAX_WORKERS = 1024


class SweepError(ValueError):
    """A sweep that cannot run: one line, exit 2."""


def add_parser(subparsers) -> None:
    s = subparsers.add_parser(
        "sweep", help="many designs from a grid (systems x fabrics x sizes x halls x models x plans), one row each",
        description="Generate and analyse every combination of a grid file's lists, as new superpod and analyze "
                    "would, and write one row per design. The grid is YAML or JSON: systems, fabrics, gpus or sus, "
                    "hall_mw, halls, models, plans, precisions (lists), tokens, global_batch and options (one value).")
    s.add_argument("grid", metavar="GRID", type=checked_path, help="the grid file (.yaml, .yml or .json)")
    where = s.add_mutually_exclusive_group()
    where.add_argument("--workers", metavar="N", type=whole(1, MAX_WORKERS),
                       help="local worker processes (default: the cores this process may use)")
    where.add_argument("--dask", metavar="ADDRESS",
                       help="run on an existing Dask cluster's scheduler (tcp://HOST:8786); every worker needs "
                            "podplanner installed, and the --catalog folders at the same paths")
    s.add_argument("-o", "--output", required=True, metavar="OUT", type=checked_path,
                   help="the rows: OUT.csv, or OUT.parquet (typed columns)")
    s.add_argument("--json", action="store_true", help="print the run's counts as one JSON document")


def run(args, catalog: Catalog) -> int:
    # the sweep's modules load here: every command builds this module's parser
    from ..sweep.grid import GridError, check_options, read_grid
    from ..sweep.output import OutputError, output_format, write_rows
    from ..sweep.runners import SweepRunError, available_cores, check_address, run_sweep

    out = Path(args.output)
    try:
        output_format(out)
        _writable(out, Path(args.grid))
        if args.dask is not None:
            check_address(args.dask)
        grid = read_grid(args.grid)
        check_options(grid, catalog)
    except (GridError, OutputError, SweepRunError) as exc:
        raise SweepError(f"{PROG}: {exc}") from None
    except FileReadError as exc:
        raise SweepError(f"{PROG}: {exc.path}: {exc.reason}") from None
    workers = min(args.workers or available_cores(), len(grid.designs))  # a worker per design at most
    # the folders this command's catalog was read from, for the processes that read it again (None: the implicit
    # folders, PODPLANNER_CATALOG and the user's, as every command reads them)
    dirs = None if args.catalog is None else tuple(str(Path(d).resolve()) for d in args.catalog)
    began = time.perf_counter()
    show = _progress if sys.stderr.isatty() and not args.json else None
    try:
        rows = list(run_sweep(grid, workers=workers, dask=args.dask, catalog_dirs=dirs, catalog=catalog,
                              progress=show))
    except SweepRunError as exc:
        raise SweepError(f"{PROG}: {exc}") from None
    seconds = time.perf_counter() - began
    try:
        write_rows(rows, out, grid_text=grid.text)
    except OSError as exc:
        raise SweepError(f"{PROG}: {out}: cannot be written ({exc.strerror or exc})") from None
    return _report(args, grid, rows, out, seconds, workers)


def _writable(out: Path, grid: Path) -> None:
    """Refuse, before any work, an output that cannot be written or that is the grid itself: a sweep may run
    for hours, and its rows are written at the end."""
    if out.exists() and os.path.realpath(out) == os.path.realpath(grid):
        raise SweepError(f"{PROG}: -o {out}: is the grid file itself; give the rows a file of their own")
    problem = output_problem(out)
    if problem is not None:
        raise SweepError(f"{PROG}: -o {out}: {problem}")


def _progress(done: int, designs: int) -> None:
    print(f"\r{PROG}: {done:,} of {designs:,} designs", end="" if done < designs else "\n", file=sys.stderr)


def _report(args, grid, rows: list[tuple], out: Path, seconds: float, workers: int) -> int:
    from ..sweep.rows import NAMES

    status, message = NAMES.index("status"), NAMES.index("message")
    counts = Counter(r[status] for r in rows)
    reasons = Counter(r[message] for r in rows if r[status] == "invalid")
    failed = [r for r in rows if r[status] == "failed"]
    if args.json:
        print_json({"file": str(out), "rows": len(rows), "designs": len(grid.designs),
                    "workloads": len(grid.workloads), "seconds": round(seconds, 3),
                    "runner": f"dask {args.dask}" if args.dask else f"{workers} local workers",
                    "status": {k: counts.get(k, 0) for k in ("ok", "errors", "invalid", "failed")},
                    "invalid_reasons": dict(reasons.most_common(5))})
    else:
        runner = f"on {args.dask}" if args.dask else f"on {workers} worker{'s' if workers != 1 else ''}"
        print(f"wrote {out}: {len(rows):,} rows ({len(grid.designs):,} designs x {len(grid.workloads):,} "
              f"workloads) in {seconds:.1f} s {runner}")
        print(f"  {counts.get('ok', 0):,} ok, {counts.get('errors', 0):,} with error findings, "
              f"{counts.get('invalid', 0):,} cannot be built as asked, {counts.get('failed', 0):,} failed")
        for reason, n in reasons.most_common(3):
            print(f"  cannot be built ({n:,}): {reason[:300]}")
    if failed:
        print(f"podplanner: error: sweep: {len(failed):,} row{'s' if len(failed) != 1 else ''} failed on an internal "
              f"error (written, status failed); the first: design {failed[0][0]}: {failed[0][message][:300]}",
              file=sys.stderr)
        return 1
    return 0
