"""Run the built app as a user would, headless, and fail on any error: ``make package-check``.

Each step runs the frozen ``podplanner`` from ``dist/podplanner`` (never this Python's own
modules) with a time limit, and fails on a non-zero exit, on "Traceback" in its output or on
what the step must produce being absent:

- ``--version`` names the version in pyproject.toml;
- ``analyze --json`` on both samples is a JSON document with their GPUs;
- ``export`` writes every format the exporters' registry lists, each a non-empty file (the
  NetBox export a folder of CSV files);
- a quote PDF with a seller whose logo is an SVG file (svglib and lxml are bundled and draw it);
- ``new superpod`` generates a design that ``validate`` then reads;
- the window opens offscreen on the sample and quits itself after a few seconds with exit 0
  (exit 1 if anything was logged as an error meanwhile), having written its log; a broken file
  given to the window is exit 2 with its error in that log too.

The folder's size and its largest parts are printed at the end; the folder must stay under
400 MB.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP_DIR = ROOT / "dist" / "podplanner"
APP = APP_DIR / ("podplanner.exe" if sys.platform == "win32" else "podplanner")
SAMPLES = {"dgx": ROOT / "designer" / "samples" / "dgx-b200-su.podplan.json",
           "gb200": ROOT / "designer" / "samples" / "gb200-nvl72-su.podplan.json"}
MAX_MB = 400
STEP_TIMEOUT_S = 180


class CheckFailed(Exception):
    """A step of the check went wrong; its text says which and how."""


#: Every step runs with settings, data and catalog folders of its own (set by main): the machine's user
#: catalog or settings must not decide what the check sees.
ISOLATED: dict[str, str] = {}


def _base_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PODPLANNER_CATALOG"}
    return {**env, **ISOLATED}


def run(*args: str, timeout: float = STEP_TIMEOUT_S, env: dict | None = None, cwd: Path | None = None,
        exit_code: int = 0) -> str:
    """The app's stdout (its stderr when ``exit_code`` is not 0) for ``args``; another exit code, a traceback or
    a hang is a :class:`CheckFailed`."""
    started = time.perf_counter()
    try:
        done = subprocess.run([str(APP), *args], capture_output=True, text=True, timeout=timeout,
                              env={**_base_env(), **(env or {})}, cwd=cwd)
    except subprocess.TimeoutExpired:
        raise CheckFailed(f"podplanner {' '.join(args)}: no answer within {timeout:g} s") from None
    took = time.perf_counter() - started
    if done.returncode != exit_code or "Traceback" in done.stderr or "Traceback" in done.stdout:
        raise CheckFailed(f"podplanner {' '.join(args)}: exit {done.returncode} (expected {exit_code})\n"
                          f"{done.stderr.strip()[-3000:]}")
    print(f"  ok  podplanner {' '.join(args)}  ({took:.1f} s)")
    return done.stdout if exit_code == 0 else done.stderr


def check_version() -> None:
    want = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    out = run("--version").strip()
    if out != f"podplanner {want}":
        raise CheckFailed(f"--version says {out!r}; pyproject.toml says {want}")


def check_analyze() -> None:
    for name, sample in SAMPLES.items():
        doc = json.loads(run("analyze", str(sample), "--json"))
        if not doc.get("summary", {}).get("gpus"):
            raise CheckFailed(f"analyze --json on the {name} sample reports no GPUs")


def export_formats() -> list[tuple[str, str]]:
    """(flag, suffix) of every export format, read from the built app's own help (the registry's list)."""
    out = run("export", "--help")
    flags = []
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0].startswith("--") and len(parts) > 1 and (parts[1].startswith("OUT") or parts[1] == "DIR"):
            flags.append((parts[0], "" if parts[1] == "DIR" else Path(parts[1]).suffix))
    if len(flags) < 5:
        raise CheckFailed(f"export --help lists {len(flags)} formats; expected the registry's list")
    return flags


def check_exports(work: Path) -> None:
    for name, sample in SAMPLES.items():
        args, outputs = [], []
        for flag, suffix in export_formats():
            target = work / f"{name}-{flag.lstrip('-')}{suffix}"
            args += [flag, str(target)]
            outputs.append(target)
        run("export", str(sample), *args)
        for target in outputs:
            if target.is_dir():
                if not any(target.glob("*.csv")):
                    raise CheckFailed(f"export wrote no CSV file into {target}")
            elif not target.is_file() or target.stat().st_size == 0:
                raise CheckFailed(f"export did not write {target.name}")


def check_svg_logo(work: Path) -> None:
    """A quote PDF with an SVG logo: svglib, lxml, tinycss2 and cssselect2 are in the bundle and draw it."""
    logo = work / "logo.svg"
    logo.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40">'
                    '<rect width="120" height="40" fill="#C0392B"/></svg>', encoding="utf-8")
    seller = work / "seller.json"
    seller.write_text(json.dumps({"company": "Package Check GmbH", "logo": str(logo)}), encoding="utf-8")
    target = work / "svg-logo.pdf"
    run("export", str(SAMPLES["dgx"]), "--pdf", str(target), "--seller", str(seller))
    if not target.is_file() or target.stat().st_size == 0:
        raise CheckFailed("export with an SVG logo did not write svg-logo.pdf")


def check_generate(work: Path) -> None:
    out = work / "generated.podplan.json"
    run("new", "superpod", "--system", "dgx-b200", "--gpus", "1024", "-o", str(out))
    run("validate", str(out))


def check_sweep(work: Path) -> None:
    """A small sweep on two worker processes: each is the frozen app started again, which must run the task
    (multiprocessing's freeze support), not open a window or parse a command line."""
    grid = work / "grid.json"
    grid.write_text(json.dumps({"systems": ["dgx-b200", "gb200-nvl72"], "sus": [1], "models": ["llama3-8b"]}),
                    encoding="utf-8")
    out = work / "sweep.csv"
    run("sweep", str(grid), "--workers", "2", "-o", str(out))
    lines = out.read_text(encoding="utf-8").splitlines()
    if len(lines) != 3 or not all(",ok," in line for line in lines[1:]):
        raise CheckFailed(f"sweep wrote {len(lines) - 1} rows, expected 2 ok:\n" + "\n".join(lines[:3]))
    err = run("sweep", str(grid), "-o", str(work / "sweep.parquet"), exit_code=2)
    if "needs pyarrow" not in err:
        raise CheckFailed(f"sweep to Parquet without pyarrow: {err.strip()[:300]}")


def check_window(work: Path) -> None:
    env = {"QT_QPA_PLATFORM": "offscreen"}
    run("gui", str(SAMPLES["gb200"]), "--quit-after", "4", env=env, timeout=120)
    # where Qt puts the app's data on Linux under XDG_DATA_HOME (the check runs on Linux CI)
    log = work / "data" / "PodPlanner" / "PodPlanner" / "logs" / "podplanner.log"
    if not log.is_file() or "START PodPlanner" not in log.read_text(encoding="utf-8"):
        raise CheckFailed(f"the window started without writing its log at {log}")
    # A file that cannot be opened, given to the window: one line and exit 2, and the same error in the log
    # (started from a desktop there is no terminal to read the line in).
    broken = work / "broken.podplan.json"
    broken.write_text("{ not json", encoding="utf-8")
    err = run(str(broken), env=env, timeout=60, exit_code=2)
    if "podplanner: error:" not in err or "broken.podplan.json" not in log.read_text(encoding="utf-8"):
        raise CheckFailed(f"a broken file opened with the app was not reported in the log {log}:\n{err}")


def _files(folder: Path) -> list[Path]:
    """Files stored in ``folder``: a symbolic link (the bundle links some libraries) takes no room of its own."""
    return [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]


def report_size() -> None:
    sizes = []
    for entry in (APP_DIR / "_internal").iterdir() if (APP_DIR / "_internal").is_dir() else APP_DIR.iterdir():
        files = ([entry] if not entry.is_symlink() else []) if entry.is_file() else _files(entry)
        sizes.append((sum(p.stat().st_size for p in files), entry.name))
    total = sum(p.stat().st_size for p in _files(APP_DIR))
    print(f"  {APP_DIR.relative_to(ROOT)}: {total / 1e6:,.0f} MB; largest: "
          + ", ".join(f"{name} {size / 1e6:,.0f} MB" for size, name in sorted(sizes, reverse=True)[:6]))
    if total > MAX_MB * 1e6:
        raise CheckFailed(f"the app folder is {total / 1e6:,.0f} MB, over {MAX_MB} MB")


def main() -> int:
    if not APP.is_file():
        print(f"package-check: no built app at {APP}: run make package first", file=sys.stderr)
        return 2
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            ISOLATED.update({"XDG_CONFIG_HOME": str(work / "config"), "XDG_DATA_HOME": str(work / "data")})
            check_version()
            check_analyze()
            check_exports(work)
            check_svg_logo(work)
            check_generate(work)
            check_sweep(work)
            check_window(work)
        report_size()
    except CheckFailed as exc:
        print(f"package-check: FAILED: {exc}", file=sys.stderr)
        return 1
    print("package-check: the built app passed every step")
    return 0


if __name__ == "__main__":
    sys.exit(main())
