"""Helpers shared by the generator's tests (no fixtures here: those are in conftest.py)."""
from __future__ import annotations

import re
from collections import Counter

import shapely.affinity
from shapely.geometry import Polygon, box

from designer.cli import main

RACK_W, RACK_D = 600.0, 1200.0
#: Kinds the power engine leaves out of IT load (designer/arrays.py FACILITY_KINDS): cooling units.
FACILITY_KINDS = {"cdu"}
_NUMBERED = re.compile(r"[-\d]+(r\d+)?$")


#: Warnings a generated design carries by what its system is, not by how the generator laid it out: a GB200
#: NVL72's 168 kW peak (the catalog's unconfirmed 1.4 peak factor) over the 132 kW one feed's shelves deliver.
SYSTEM_WARNINGS = {"peak-over-one-feed"}


def bad_findings(analysis) -> list:
    """Findings of severity error or warning, but for the warnings a system brings with it."""
    return [f for f in analysis.findings if f.severity == "error"
            or (f.severity == "warning" and f.code not in SYSTEM_WARNINGS)]


def show(findings) -> str:
    """Findings as lines, for assert messages."""
    return "\n".join(f"{f.severity} {f.code} {f.where}: {f.message}" for f in findings) or "(none)"


def run(capsys, *args):
    """``podplanner ARGS`` in-process: (exit code, stdout, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def footprint(x: float, y: float, rotation: float, width: float = RACK_W, depth: float = RACK_D) -> Polygon:
    """A footprint centred on (x, y), turned by ``rotation`` degrees."""
    poly = box(x - width / 2, y - depth / 2, x + width / 2, y + depth / 2)
    return shapely.affinity.rotate(poly, rotation, origin=(x, y))


def devices(project):
    """Every rack-mounted device of the project."""
    return [d for r in project.racks for d in r.devices]


def count_types(project) -> Counter:
    return Counter(d.type for d in devices(project))


def count_prefixes(project) -> Counter:
    """Devices by name with the trailing number taken off: leaf-0001-r0 -> leaf, ufm-compute-1 -> ufm-compute."""
    return Counter(_NUMBERED.sub("", d.name) for d in devices(project))


def it_max_kw(project, catalog) -> float:
    """The sum of the catalog's maximum draw over every rack-mounted device the power engine counts as IT."""
    total = 0.0
    for d in devices(project):
        t = catalog.get(d.type)
        if t.kind in FACILITY_KINDS:
            continue
        if t.power_max_w is None:
            assert t.power_typical_w is None, f"{t.id} has a typical draw but no maximum"
            continue
        total += t.power_max_w
    return total / 1000.0
