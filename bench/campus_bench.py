"""Benchmark: a campus of a million GPUs (budgets: generate <= 5 s, analyze <= 4 s end to end, load and save
<= 3 s each, the window opening it <= 6 s; the analysis in under 4 GB).

    python -m bench campus

``generate_1m_s`` times ``generate`` for 1,000,000 GB300 NVL72 GPUs (the site of data halls and network rooms in
buildings, its Spectrum-X fabric, every rack and CDU through the add command, the power and cooling that size each
hall); ``generate_1m_b300_s`` the same for DGX B300. ``analyze_1m_s`` is ``python -m designer analyze FILE --json``
on the saved GB300 site, a fresh process each run (as ``analyze_100k_s``), and ``analyze_1m_peak_mb`` that
process's peak resident memory. ``gui_open_1m_s`` opens the file in the window and paints its first frame (the site
plan, as a design of several halls opens on it); ``gui_open_hall_1m_s`` then opens its first hall's floor plan.
Each ``…_errors`` figure counts the error findings of the design the figure was taken on.
"""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from .analyze_bench import ROOT, analyze_cli_s, child_env, command
from .timing import best_of


def _peak_mb(path: Path, env: dict) -> float:
    """Peak resident memory of one analyze process, MB (the largest child this process has waited for)."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([command(path)[0], "-c", code, *command(path)], env=env, cwd=ROOT, capture_output=True,
                          check=True, text=True)
    return int(done.stdout.strip()) / 1024.0


def _gui(path: Path, tmp: Path) -> dict:
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QSettings

    from catalog import default_catalog
    from widgets.app.application import application
    from widgets.app.main_window import MainWindow

    app = application()
    settings = QSettings(str(tmp / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(default_catalog(), settings=settings, recovery_dir=tmp / "recovery")
    window.resize(1400, 900)
    window.show()
    app.processEvents()
    t0 = time.perf_counter()
    window.open_path(path)
    app.processEvents()
    window.centralWidget().repaint()
    opened = time.perf_counter() - t0
    hall = window.project.halls[0].id
    t0 = time.perf_counter()
    window.open_hall(hall)
    window.view.viewport().repaint()
    app.processEvents()
    hall_s = time.perf_counter() - t0
    window.close()
    return {"gui_open_1m_s": round(opened, 3), "gui_open_hall_1m_s": round(hall_s, 3)}


def bench() -> dict:
    from catalog import default_catalog
    from designer.analysis import analyze
    from designer.fileformat import load, save
    from designer.generate import SuperpodSpec, generate

    catalog = default_catalog()
    out: dict = {}
    seconds, g = best_of(lambda: generate(SuperpodSpec(system="gb300-nvl72", gpus=1_000_000), catalog), runs=2)
    out["generate_1m_s"] = round(seconds, 3)
    out["generate_1m_gpus"] = g.gpus
    out["generate_1m_racks"] = len(g.project.racks)
    out["generate_1m_halls"] = len(g.project.halls)
    seconds, b300 = best_of(lambda: generate(SuperpodSpec(system="dgx-b300", gpus=1_000_000), catalog), runs=1)
    out["generate_1m_b300_s"] = round(seconds, 3)
    out["generate_1m_b300_errors"] = sum(f.severity == "error" for f in analyze(b300.project, catalog).findings)
    del b300
    project = g.project
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        path = tmp / "1m.podplan.json"
        out["save_1m_s"] = round(best_of(lambda p=project: save(p, path), runs=2)[0], 3)
        out["load_1m_s"] = round(best_of(lambda: load(path, catalog), runs=2)[0], 3)
        out["load_save_1m_file_mb"] = round(path.stat().st_size / 1e6, 1)
        env = child_env(tmp / "pycache")
        seconds, doc = analyze_cli_s(path, runs=2, cache_dir=tmp / "pycache")
        out["analyze_1m_s"] = round(seconds, 3)
        out["analyze_1m_errors"] = sum(f["severity"] == "error" for f in doc["findings"])
        out["analyze_1m_peak_mb"] = round(_peak_mb(path, env), 1)
        g = project = None  # the window reads the file as a user's would, without these in memory
        out.update(_gui(path, tmp))
    return out


if __name__ == "__main__":
    print(json.dumps(bench(), indent=2))
