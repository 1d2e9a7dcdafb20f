"""Saves killed half-way, at chosen points: the project file is always the whole old document or the whole new
one, and the next start removes what the killed saves left behind.

The saving child kills itself with SIGKILL (nothing of it runs after: no ``except``, no ``finally``) at a point
chosen in advance: at a chosen byte of the temporary file (the child counts the bytes its raw file hands to the
kernel), just before the rename over the project file, just after it, or after a save returned. So every kill
lands where it is aimed however loaded the machine is: no sleep, no timing.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from catalog.files import TEMP_SUFFIX
from designer import samples

ROOT = Path(__file__).resolve().parents[1]
#: The design file's size: large enough that a save is many writes long (each kill is aimed at a byte, not a time).
TARGET_MB = 8

# Loads the design and saves it ``kill_in`` times, alternating two names (version A, then B), killing itself at
# ``point`` of save number ``kill_in``; with ``kill_in`` 0 it saves version A once and exits 0.
# The hooks are the two calls the atomic writer (catalog.files.write_atomic) makes: os.fdopen, which opens its
# temporary file, and os.replace, which renames it over the target.
CHILD = r"""
import io
import os
import signal
import sys

from catalog import default_catalog
from designer.fileformat import load, save

source, target, kill_in, point, at = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
project = load(source, default_catalog())
versions = [project.renamed("version A"), project.renamed("version B")]
saving = 0  # the save under way, counted from 1


def aimed(here):
    return saving == kill_in and point == here


def die():
    os.kill(os.getpid(), signal.SIGKILL)  # a signal a process sends itself arrives before kill() returns
    os._exit(99)


class Raw(io.FileIO):
    # The temporary file as the kernel sees it: its bytes counted, cut after byte `at` in the aimed save.
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.written = 0

    def write(self, data):
        data = memoryview(data).cast("B")
        if aimed("write") and self.written + len(data) >= at:
            rest = data[:at - self.written]
            while rest:
                rest = rest[super().write(rest):]
            die()
        n = super().write(data)
        self.written += n
        return n


def fdopen(fd, mode="r", buffering=-1, encoding=None, errors=None, newline=None, closefd=True):
    assert "w" in mode, mode  # only the writer's temporary is opened once the design is loaded
    buffered = io.BufferedWriter(Raw(fd, "w", closefd=closefd))
    return buffered if "b" in mode else io.TextIOWrapper(buffered, encoding=encoding, errors=errors,
                                                          newline=newline)


real_replace = os.replace


def replace(src, dst, **kwargs):
    if aimed("before-rename"):
        die()
    real_replace(src, dst, **kwargs)
    if aimed("after-rename"):
        die()


os.fdopen, os.replace = fdopen, replace
for saving in range(1, max(kill_in, 1) + 1):
    save(versions[(saving - 1) % 2], target, pretty=False)
if aimed("returned"):
    die()
sys.exit(0 if kill_in == 0 else f"save {kill_in} ran to its end: {point} {at} was never reached")
"""


def _design(tmp_path: Path) -> Path:
    """The DGX sample's racks copied until its file holds TARGET_MB (a campus of its scalable units; the copies
    stand where the originals do, which the reader leaves to the design checks)."""
    doc = json.loads(samples.DGX_B200_SU.read_text())
    racks = doc["racks"]
    size = len(json.dumps(racks))
    copies = []
    for k in range(1, TARGET_MB * 1024 * 1024 // size + 2):
        for r in racks:
            devices = [{**d, "id": f"{d['id']}-c{k}"} for d in r.get("devices", [])]
            copies.append({**r, "id": f"{r['id']}-c{k}", "name": f"{r.get('name', r['id'])}-c{k}", "devices": devices})
    doc["racks"] = racks + copies
    path = tmp_path / "design.podplan.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _save(source: Path, target: Path, kill_in: int, point: str = "", at: int = 0) -> int:
    """Run the saving child to its end; return its pid. It must have killed itself (with ``kill_in`` 0: exited 0)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(source), str(target), str(kill_in), point, str(at)],
                             cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, err = child.communicate(timeout=600)  # a hang, not a slow machine
    assert child.returncode == (-signal.SIGKILL if kill_in else 0), err
    return child.pid


def _temporaries(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(TEMP_SUFFIX)]


def test_a_save_killed_at_any_point_leaves_the_file_whole(tmp_path):
    source = _design(tmp_path)
    out = tmp_path / "saved"
    out.mkdir()
    target = out / "design.podplan.json"
    target.write_bytes(source.read_bytes())
    assert target.stat().st_size > TARGET_MB * 1_000_000
    racks = len(json.loads(source.read_text())["racks"])

    # Killed after its first save returned: that save is whole, and tells how many bytes a save writes.
    _save(source, target, 1, "returned")
    assert json.loads(target.read_text(encoding="utf-8"))["name"] == "version A" and not _temporaries(out)
    size = target.stat().st_size
    cases = [  # (the save killed, where, at which byte; the temporary's bytes left behind, the name on disk)
        # the second save (version B over version A): as its temporary is made, after its first byte, half-way,
        # one byte short, with every byte written, written and fsynced but not renamed, and renamed
        (2, "write", 0, 0, "version A"),
        (2, "write", 1, 1, "version A"),
        (2, "write", size // 2, size // 2, "version A"),
        (2, "write", size - 1, size - 1, "version A"),
        (2, "write", size, size, "version A"),
        (2, "before-rename", 0, size, "version A"),
        (2, "after-rename", 0, None, "version B"),
        # the first save (version A over version B), half-way and renamed
        (1, "write", size // 2, size // 2, "version B"),
        (1, "after-rename", 0, None, "version A"),
        # the last one leaves its temporary for the next start to sweep
        (2, "write", size // 3, size // 3, "version A"),
    ]
    names = set()
    for kill_in, point, at, left, name in cases:
        pid = _save(source, target, kill_in, point, at)
        case = (kill_in, point, at)
        doc = json.loads(target.read_text(encoding="utf-8"))  # whole, or this raises
        assert doc["name"] == name, case  # the old document until the rename, the new one from it on
        assert len(doc["racks"]) == racks, case
        assert target.stat().st_size == size, case
        names.add(doc["name"])
        # Each start's first save swept the temporaries of the killed ones before it: at most this child's is left.
        temporaries = _temporaries(out)
        if left is None:
            assert temporaries == [], case
        else:
            assert len(temporaries) == 1 and f".{pid}-" in temporaries[0], (case, temporaries)
            assert (out / temporaries[0]).stat().st_size == left, case
    assert names == {"version A", "version B"}
    # The next start: its first save into the folder sweeps what the killed ones left.
    _save(source, target, 0)
    assert sorted(p.name for p in out.iterdir()) == ["design.podplan.json"]
    assert json.loads(target.read_text(encoding="utf-8"))["name"] == "version A"
