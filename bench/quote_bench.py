"""Benchmark: the quote's files from one analysis (budgets: PDF of a sample <= 1 s, of 100,000 GPUs <= 5 s).

    python -m bench quote

``pdf_sample_s`` writes the PDF quote of the bundled DGX B200 SU sample;
``pdf_100k_s`` that of a generated 100,000-GPU DGX B200 design (summarised
elevations, the bill by part). The analysis is computed once beforehand and is
not in the figures: an export reads it, as the window's File ▸ Export does.
The XLSX and CSV of the 100,000-GPU design are timed beside them.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from catalog import default_catalog

from .timing import best_of


def bench() -> dict:
    from designer.analysis import analyze
    from designer.fileformat import load
    from designer.samples import DGX_B200_SU
    from exporters.registry import FORMATS

    from .designs import dgx_b200_project

    catalog = default_catalog()
    sample = analyze(load(DGX_B200_SU, catalog), catalog)
    big = analyze(dgx_b200_project(100_000), catalog)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        out["pdf_sample_s"] = round(best_of(lambda: FORMATS["pdf"].write(sample, folder / "s.pdf"))[0], 3)
        out["pdf_100k_s"] = round(best_of(lambda: FORMATS["pdf"].write(big, folder / "b.pdf"), runs=2)[0], 3)
        out["pdf_100k_pages_account"] = FORMATS["pdf"].write(big, folder / "b.pdf")
        out["pdf_100k_mb"] = round((folder / "b.pdf").stat().st_size / 1e6, 2)
        out["xlsx_100k_s"] = round(best_of(lambda: FORMATS["xlsx"].write(big, folder / "b.xlsx"), runs=2)[0], 3)
        out["bom_csv_100k_s"] = round(best_of(lambda: FORMATS["csv"].write(big, folder / "b.csv"))[0], 3)
    out["quote_100k_gpus"] = big.summary.gpus
    out["quote_100k_bill_lines"] = big["bom"]["lines"]
    return out


if __name__ == "__main__":
    print(json.dumps(bench(), indent=2))
