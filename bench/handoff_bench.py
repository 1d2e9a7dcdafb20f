"""Benchmark: the hand-off files of a 100,000-GPU design (budgets: each export <= 5 s, cabling CSV <= 2 s).

    python -m bench handoff

``export_dxf_100k_s`` writes the DXF floor plan, ``export_cabling_100k_s`` the cabling
plan CSV of every fabric link (about 300,000 on a generated 100,000-GPU DGX B200 design);
the SVG, PNG, NetBox folder and cabling workbook are timed beside them. The analysis is
computed once beforehand: an export reads it, as File ▸ Export does.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from catalog import default_catalog

from .timing import best_of

#: figure name -> (format, file name)
FIGURES = {
    "export_dxf_100k_s": ("dxf", "plan.dxf"),
    "export_cabling_100k_s": ("cabling", "cabling.csv"),
    "export_cabling_xlsx_100k_s": ("cabling-xlsx", "cabling.xlsx"),
    "export_svg_100k_s": ("svg", "plan.svg"),
    "export_png_100k_s": ("png", "plan.png"),
    "export_netbox_100k_s": ("netbox", "netbox"),
}


def bench() -> dict:
    from designer.analysis import analyze
    from exporters.registry import FORMATS

    from .designs import dgx_b200_project

    big = analyze(dgx_b200_project(100_000), default_catalog())
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for figure, (name, file) in FIGURES.items():
            target = Path(tmp) / file
            out[figure] = round(best_of(lambda: FORMATS[name].write(big, target), runs=2)[0], 3)
    out["handoff_100k_links"] = len(big.result("fabric").links())
    out["handoff_100k_racks"] = big.summary.racks
    return out


if __name__ == "__main__":
    print(json.dumps(bench(), indent=2))
