"""Where a sweep's tasks run: in this process, on a local process pool, or on an existing Dask cluster.

Each task is one design with all its workloads (:mod:`.rows`); the rows come back in the grid's order whichever
runner finishes what first, so the same grid writes the same file everywhere. The pool is the standard
library's and the cluster dask.distributed's: neither schedules anything of its own making here.
"""
from __future__ import annotations

import multiprocessing
import os
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor

from catalog import Catalog

from .grid import Grid
from .rows import Task, evaluate

#: seconds to wait for a Dask scheduler to answer
DASK_CONNECT_S = 15.0


class SweepRunError(RuntimeError):
    """A runner that cannot be used (no such scheduler, dask not installed, a worker without podplanner)."""


def tasks(grid: Grid, catalog_dirs: tuple[str, ...] | None = None) -> list[Task]:
    return [Task(i + 1, point, grid.workloads, catalog_dirs) for i, point in enumerate(grid.designs)]


def available_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run_sweep(grid: Grid, *, workers: int = 1, dask: str | None = None,
              catalog_dirs: tuple[str, ...] | None = None, catalog: Catalog | None = None,
              progress: Callable[[int, int], None] | None = None) -> Iterator[tuple]:
    """Every row of ``grid`` in order: on ``workers`` local processes (1: this one, with ``catalog`` when given),
    or on the Dask scheduler at ``dask``. ``progress(done, total)`` is called as designs finish, counted in
    designs."""
    jobs = tasks(grid, catalog_dirs)
    if dask is not None:
        results = _on_dask(jobs, dask)
    elif workers <= 1 or len(jobs) <= 1:
        results = (evaluate(job, catalog) for job in jobs)
    else:
        results = _on_pool(jobs, workers)
    for done, rows in enumerate(results, 1):
        yield from rows
        if progress is not None:
            progress(done, len(jobs))


def _on_pool(jobs: list[Task], workers: int) -> Iterator[list[tuple]]:
    # spawn, not fork: a process that has started threads (the window, a test runner) must not be forked mid-way
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=context) as pool:
        # a few designs per message: thousands of small designs cost more in pickling than in one at a time
        yield from pool.map(evaluate, jobs, chunksize=max(1, min(8, len(jobs) // (workers * 8))))


#: a scheduler's address as ``dask scheduler`` prints it: tcp://HOST:PORT (the scheme may be left out)
_ADDRESS = re.compile(r"(tcp://)?[A-Za-z0-9.\-\[\]:]+:\d{1,5}")


def check_address(address: str) -> None:
    """A SweepRunError unless ``address`` is a scheduler's tcp://HOST:PORT (TLS and UCX need settings this
    command does not take: their clusters are reached through a plain TCP scheduler address)."""
    if len(address) > 300 or not _ADDRESS.fullmatch(address.strip()):
        raise SweepRunError(f"--dask {address[:80]!r}: a scheduler address is tcp://HOST:PORT, as dask scheduler "
                            "prints it (for example tcp://10.0.0.5:8786)")


def _on_dask(jobs: list[Task], address: str) -> Iterator[list[tuple]]:
    check_address(address)
    try:
        from distributed import Client
    except ImportError:
        raise SweepRunError("--dask needs dask.distributed: pip install 'dask[distributed]'") from None
    try:
        client = Client(address, timeout=DASK_CONNECT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SweepRunError(f"--dask {address}: no Dask scheduler answers there ({exc or type(exc).__name__})"
                            ) from None
    try:
        try:  # an adaptive cluster may start its first worker when asked
            client.wait_for_workers(1, timeout=DASK_CONNECT_S)
        except TimeoutError:
            raise SweepRunError(f"--dask {address}: the scheduler has no workers (none joined in "
                                f"{DASK_CONNECT_S:g} s)") from None
        futures = client.map(evaluate, jobs, pure=False)
        for job, future in zip(jobs, futures):  # in the grid's order: a design that finished early waits here
            try:
                yield future.result()
            except Exception as exc:  # the worker could not run it at all (no podplanner there, out of memory)
                raise SweepRunError(f"--dask {address}: a worker could not run design {job.number}: "
                                    f"{type(exc).__name__}: {exc} (every worker needs podplanner installed)") from None
    finally:
        client.close()
