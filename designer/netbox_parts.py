"""The parts a large NetBox import file is split into, and reading them back as one file.

NetBox's import form handles a file in one request, which a web server ends after its timeout (NetBox's
documented gunicorn setting is 120 s). A real NetBox 4.7.3 on two cores creates about 7 cables, 15 devices or
35 interfaces a second, so a file of 20,000 interfaces would take ten minutes. The export splits each file
over :data:`ROWS_PER_PART` rows into ``NN-name-part01.csv``, ``NN-name-part02.csv`` …, each with the header,
each imported in its turn as the folder's README lists them (every part well inside the timeout on that
machine: about a minute).
"""
from __future__ import annotations

import re
from pathlib import Path

#: rows per part, per file: about a minute of NetBox's own import time each on two cores
ROWS_PER_PART = {"08-devices.csv": 1000, "09-interfaces.csv": 2000, "10-cables.csv": 500,
                 "12-power-feeds.csv": 1000, "13-power-ports.csv": 2000, "14-power-outlets.csv": 2000,
                 "15-power-cables.csv": 500,
                 "16-feed-cables.csv": 500}
_PART = re.compile(r"^(?P<stem>.+)-part(?P<n>\d{2,4})(?P<ext>\.csv)$")


def part_name(name: str, k: int) -> str:
    """``10-cables.csv``, 3 -> ``10-cables-part03.csv``."""
    stem, ext = name.rsplit(".", 1)
    return f"{stem}-part{k:02d}.{ext}"


def whole_name(name: str) -> str:
    """The file a part is of (``10-cables-part03.csv`` -> ``10-cables.csv``); any other name as it is."""
    m = _PART.match(name)
    return m["stem"] + m["ext"] if m else name


def split(name: str, rows: list) -> list[tuple[str, list]]:
    """The files ``rows`` go into: the one file, or its parts when there are more rows than a part holds."""
    size = ROWS_PER_PART.get(name)
    if not size or len(rows) <= size:
        return [(name, rows)]
    return [(part_name(name, k + 1), rows[i:i + size]) for k, i in enumerate(range(0, len(rows), size))]


def written(folder: Path, name: str) -> list[Path]:
    """Every file an export may have written of ``name``: the whole file and any parts (an interrupted or older
    export may have left both), so that a new export removes them all."""
    out = [folder / name] if (folder / name).exists() else []
    stem = name.rsplit(".", 1)[0]
    return out + [p for p in folder.glob(stem + "-part*.csv") if whole_name(p.name) == name]


def is_part_of(name: str, owned) -> bool:
    """Whether ``name`` is a part of a file of ``owned`` that the export splits (``10-cables-part02.csv``)."""
    whole = whole_name(name)
    return whole != name and whole in owned and whole in ROWS_PER_PART


def parts(folder: Path, name: str) -> list[Path]:
    """The files that hold ``name``'s rows: the file itself, else its parts in order (none where neither is)."""
    if (folder / name).exists():
        return [folder / name]
    found = []
    for path in folder.glob(name.rsplit(".", 1)[0] + "-part*.csv"):
        m = _PART.match(path.name)
        if m and m["stem"] + m["ext"] == name:
            found.append((int(m["n"]), path))
    return [p for _, p in sorted(found)]
