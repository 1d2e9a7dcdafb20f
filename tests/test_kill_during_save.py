"""Saves killed half-way, twenty times over: the project file is always whole, and the next start removes
what the killed saves left behind."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from catalog.files import TEMP_SUFFIX
from designer import samples

ROOT = Path(__file__).resolve().parents[1]
TARGET_MB = 40
KILLS = 20

# Loads the design, then saves it over and over, alternating two names, until killed.
CHILD = """
import sys
from catalog import default_catalog
from designer.fileformat import load, save
project = load(sys.argv[1], default_catalog())
versions = [project.renamed("version A"), project.renamed("version B")]
print("ready", flush=True)
i = 0
while True:
    save(versions[i % 2], sys.argv[2], pretty=False)
    i += 1
"""


def _design(tmp_path: Path) -> Path:
    """The DGX sample with a design note that brings its file to 40 MB (a long hand-over log, say)."""
    doc = json.loads(samples.DGX_B200_SU.read_text())
    line = "Hall A: busway tap-off 14 moved to row R02B after the utility survey of 2026-11-02.\n"
    doc["description"] = line * (TARGET_MB * 1024 * 1024 // len(line))
    path = tmp_path / "design.podplan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _start(source: Path, target: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(source), str(target)], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = child.stdout.readline()
    assert ready.strip() == "ready", child.stderr.read()
    return child


def _temporaries(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(TEMP_SUFFIX)]


def _wait_for_write(folder: Path, pid: int, timeout_s: float = 60) -> None:
    """Return as soon as process ``pid`` has a temporary file in ``folder``: a save being written."""
    mark = f".{pid}-"
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if any(mark in name for name in _temporaries(folder)):
            return
        time.sleep(0.001)
    raise AssertionError(f"no save began within {timeout_s:g} s")


def test_a_save_killed_at_any_moment_leaves_the_file_whole(tmp_path):
    source = _design(tmp_path)
    out = tmp_path / "saved"
    out.mkdir()
    target = out / "design.podplan.json"
    target.write_bytes(source.read_bytes())
    size = target.stat().st_size
    assert size > TARGET_MB * 1_000_000
    rng = random.Random(19)
    names, killed_mid_write = set(), 0
    for i in range(KILLS):
        child = _start(source, target)
        if i % 2:
            time.sleep(rng.uniform(0.05, 0.9))  # at any moment: between saves, in one, at its rename
        else:
            _wait_for_write(out, child.pid)  # surely in the middle of writing one
        os.kill(child.pid, signal.SIGKILL)
        child.wait(30)
        child.stdout.close()
        child.stderr.close()
        killed_mid_write += bool(_temporaries(out))
        doc = json.loads(target.read_text(encoding="utf-8"))  # whole, or this raises
        assert len(doc["racks"]) == len(json.loads(source.read_text())["racks"])
        assert len(doc["description"]) > TARGET_MB * 1_000_000
        names.add(doc["name"])
    assert names <= {"version A", "version B", json.loads(source.read_text())["name"]}
    assert {"version A", "version B"} & names  # the saves did happen between kills
    # a 40 MB write takes far longer than the poll that saw it begin: the kills that waited for one land in it
    assert killed_mid_write >= KILLS // 2 - 2, "the kills should land while a save is being written"
    # The next start: its first save into the folder sweeps what the killed ones left.
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    once = CHILD.replace("while True:", "for _ in range(1):")
    subprocess.run([sys.executable, "-c", once, str(source), str(target)], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=120)
    assert sorted(p.name for p in out.iterdir()) == ["design.podplan.json"]
    assert json.loads(target.read_text(encoding="utf-8"))["name"] == "version A"
