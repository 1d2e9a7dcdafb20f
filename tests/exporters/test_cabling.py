"""The cabling CSV: written from the analysis' wiring plan, read back and checked."""
from __future__ import annotations

import csv
import os

import pytest

from designer.analysis import analyze
from designer.fileformat import load
from drawn import DGX_B200_SU
from exporters.cabling import COLUMNS, write_cabling_csv
from exporters.registry import FORMATS


@pytest.fixture(scope="module")
def analysis(catalog):
    return analyze(load(DGX_B200_SU, catalog), catalog)


def test_csv_holds_every_link_of_the_analysis(analysis, tmp_path):
    out = tmp_path / "cabling.csv"
    assert write_cabling_csv(analysis, out) == "508 links"
    rows = list(csv.DictReader(out.open(encoding="utf-8", newline="")))
    links = analysis.result("fabric").links()
    assert tuple(rows[0]) == COLUMNS
    assert len(rows) == len(links) == 252 + 256  # Table 4, 1 SU: node and UFM links, leaf-spine links
    first = rows[0]
    assert (first["a_device"], first["b_device"], first["tier"]) == ("dgx-01", "leaf-r0", "node-leaf")
    assert (first["cable"], first["a_rack"], first["b_rack"]) == ("fiber-mpo12-mmf", "a01", "a09")
    assert float(first["length_m"]) == links[0].length_m > 0
    assert {r["rail"] for r in rows if r["tier"] == "node-leaf" and r["a_device"].startswith("dgx")} == {
        str(r) for r in range(8)}
    assert os.listdir(tmp_path) == ["cabling.csv"]


def test_registry_names_the_format_for_the_command_line_and_the_window():
    fmt = FORMATS["cabling"]
    assert (fmt.flag, fmt.suffix, fmt.file_filter) == ("--cabling", ".csv", "Cabling plan (*.csv)")
    assert fmt.write.__name__ == "_write_cabling"
