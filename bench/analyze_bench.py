"""Benchmark: ``podplanner analyze FILE --json`` end to end on a saved 100,000-GPU design (budget <= 0.4 s).

    python -m bench analyze
    python -m bench.analyze_bench

The design is the generated 12,500 x DGX B200 hall (bench.designs), saved to a
temporary file. Each run is a fresh ``python -m designer analyze FILE --json``
process, so the figure counts interpreter start, imports, catalog and file load,
every engine, and writing the JSON (to /dev/null). An untimed first run checks
that the command exits 0 and prints exactly one JSON document, and fills the
bytecode cache: the child processes get a private cache folder
(PYTHONPYCACHEPREFIX) with bytecode writing on, so the figure is that of an
installed podplanner whatever the caller's PYTHONDONTWRITEBYTECODE says.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class AnalyzeRunError(RuntimeError):
    """The analyze command failed or did not print one JSON document."""


def command(path: Path) -> list[str]:
    return [sys.executable, "-m", "designer", "analyze", str(path), "--json"]


def child_env(cache_dir: Path) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache_dir)
    return env


def check_run(path: Path, env: dict) -> dict:
    """Run the command once, untimed: exit status 0 and stdout one JSON object; returns it."""
    done = subprocess.run(command(path), env=env, cwd=ROOT, capture_output=True)
    if done.returncode != 0:
        raise AnalyzeRunError(f"analyze exited {done.returncode}: {done.stderr.decode(errors='replace').strip()}")
    try:
        doc = json.loads(done.stdout)  # a second document after the first is "Extra data" and fails here
    except ValueError as exc:
        raise AnalyzeRunError(f"analyze --json did not print one JSON document: {exc}") from None
    if not isinstance(doc, dict) or "summary" not in doc:
        raise AnalyzeRunError("analyze --json printed JSON without a summary")
    return doc


def analyze_cli_s(path: Path, runs: int = 3, cache_dir: Path | None = None) -> tuple[float, dict]:
    """Best wall time of ``runs`` fresh analyze processes on ``path``, stdout to /dev/null; and the checked document."""
    with tempfile.TemporaryDirectory() as tmp:
        env = child_env(cache_dir or Path(tmp) / "pycache")
        doc = check_run(path, env)
        best = float("inf")
        for _ in range(runs):
            t0 = time.perf_counter()
            done = subprocess.run(command(path), env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
            elapsed = time.perf_counter() - t0
            if done.returncode != 0:
                raise AnalyzeRunError(f"analyze exited {done.returncode}: "
                                      f"{done.stderr.decode(errors='replace').strip()}")
            best = min(best, elapsed)
    return best, doc


def save_design(path: Path, gpus: int = 100_000, system: str = "dgx-b200") -> Path:
    from designer.fileformat import save

    from .designs import generated

    save(generated(system, gpus), path)
    return path


def bench() -> dict:
    out = {}
    # DGX B200 is the budgeted figure; DGX B300 and GB300 NVL72 (Q3400, their RAs' switch) are held to it too
    for system, names in (("dgx-b200", ("analyze_100k_s", "analyze_100k_racks", "analyze_100k_gpus")),
                          ("dgx-b300", ("analyze_100k_b300_s", "analyze_100k_b300_racks", "analyze_100k_b300_gpus")),
                          ("gb300-nvl72", ("analyze_100k_gb300_s", "analyze_100k_gb300_racks",
                                           "analyze_100k_gb300_gpus"))):
        with tempfile.TemporaryDirectory() as tmp:
            path = save_design(Path(tmp) / "100k.podplan.json", system=system)
            seconds, doc = analyze_cli_s(path)
        out.update(zip(names, (round(seconds, 3), doc["summary"]["racks"], doc["summary"]["gpus"])))
    return out


if __name__ == "__main__":
    print(json.dumps(bench(), indent=2))
