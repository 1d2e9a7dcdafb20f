"""Benchmark: naming the places of 25,000 findings on a hall of 12,500 racks (budget <= 1 s).

    python -m bench names

``names_25k_places_ms`` makes a :class:`designer.names.Namer` for the DGX B200 sample with 12,500 more racks,
names 25,000 places (every added rack twice, as findings about the same racks repeat them) and sums them up
in one line, as the findings panel does for a finding about every rack. The test suite checks the same run is
one pass over the racks and one naming per place (tests/test_names.py); the time is measured here.
"""
from __future__ import annotations

import json
from dataclasses import replace

from catalog import default_catalog

from .timing import best_of

RACKS = 12_500


def design():
    """The DGX B200 sample with ``RACKS`` more racks, and the places of two findings about each of them."""
    from designer.fileformat import load
    from designer.model import Rack
    from designer.samples import DGX_B200_SU

    project = load(DGX_B200_SU, default_catalog())
    racks = tuple(Rack(f"x{i}", f"X-{i:05d}", "hall-1", "rack-48u-600x1200", 0.0, 0.0) for i in range(RACKS))
    return replace(project, racks=project.racks + racks), [f"rack:x{i}" for i in range(RACKS)] * 2


def name_all(project, catalog, wheres: list[str]) -> tuple[list[str], str]:
    from designer.names import Namer

    namer = Namer(project, catalog)
    return [namer(w) for w in wheres], namer.summary(wheres)


def bench() -> dict:
    catalog = default_catalog()
    # each run gets a fresh project value: its rack lookup is built once per value, as after an edit
    designs = [design() for _ in range(3)]
    runs = iter(designs)

    def run():
        project, wheres = next(runs)
        return name_all(project, catalog, wheres)

    seconds, (names, _) = best_of(run, runs=len(designs))
    return {"names_25k_places_ms": round(seconds * 1000, 1), "names_25k_places": len(names)}


if __name__ == "__main__":
    print(json.dumps(bench(), indent=2))
