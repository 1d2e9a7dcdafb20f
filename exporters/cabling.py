"""The cabling plan as CSV: one row per fabric link, port to port, from the analysis' wiring plan.

Installers pull cables from it, so lengths are the orderable ones the fabric engine
chose and a copper pair shows as two links that share one cable part.
"""
from __future__ import annotations

import csv
import math

from catalog.files import write_atomic
from designer.analysis import Analysis
from designer.fabric import LINK_COLUMNS

from .base import ExportError

COLUMNS = LINK_COLUMNS
_LENGTH = COLUMNS.index("length_m")


def cabling_rows(analysis: Analysis):
    """The rows of the plan (without the header), as the CSV holds them."""
    fabric = analysis.result("fabric")
    if fabric.error is not None:
        raise ExportError(f"the design's compute fabric cannot be built: {fabric.error}")
    for link in fabric.links():
        row = [getattr(link, c) for c in COLUMNS]
        length = row[_LENGTH]
        row[_LENGTH] = "" if length is None or (isinstance(length, float) and math.isnan(length)) else f"{length:g}"
        yield row


def write_cabling_csv(analysis: Analysis, path) -> str:
    rows = list(cabling_rows(analysis))

    def write(fh) -> None:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        w.writerows(rows)

    write_atomic(path, write, newline="")
    return f"{len(rows):,} links"
