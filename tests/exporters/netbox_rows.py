"""Reading a NetBox folder back in the tests: a file's rows as dicts, of every part where the export split it."""
from __future__ import annotations

import csv

from designer.netbox_parts import parts


def read(folder, name: str) -> list[dict]:
    rows = []
    for path in parts(folder, name):
        with open(path, encoding="utf-8", newline="") as fh:
            rows += list(csv.DictReader(fh))
    return rows
