"""Names and ids for new racks and floor units: the next number of a row, the next row letter, fresh ids."""
from __future__ import annotations

import re
from typing import Iterable

from ..model import Project

_NAME = re.compile(r"^(.*?)(\d+)(\D*)$")


def split_name(name: str) -> tuple[str, int, int, str] | None:
    """Split at the last number: ``"A09 network"`` -> ``("A", 9, 2, " network")``, ``"NVL72-01"`` ->
    ``("NVL72-", 1, 2, "")`` (prefix, number, digits, rest); None without a number."""
    m = _NAME.match(name or "")
    if not m:
        return None
    return m.group(1), int(m.group(2)), len(m.group(2)), m.group(3)


def next_names(prefix: str, taken: Iterable[str], count: int, width: int = 2, rest: str = "") -> list[str]:
    """``count`` names ``<prefix><n><rest>`` after the highest number already used with ``prefix``."""
    taken = set(taken)
    top = max((parts[1] for parts in map(split_name, taken) if parts and parts[0] == prefix), default=0)
    out = []
    n = top
    while len(out) < count:
        n += 1
        candidate = f"{prefix}{n:0{width}d}{rest}"
        if candidate not in taken:
            out.append(candidate)
    return out


def next_row_letter(rows: Iterable[str]) -> str:
    """The letter after the last single-letter row in use ("A", "B" -> "C"); "Z" wraps to "AA"."""
    letters = sorted(r for r in rows if len(r) == 1 and r.isalpha())
    if not letters:
        return "A"
    last = letters[-1].upper()
    return "AA" if last == "Z" else chr(ord(last) + 1)


def new_ids(project: Project, prefix: str, count: int = 1) -> list[str]:
    """``count`` ids ``<prefix><n>`` that no hall, rack or floor unit uses yet, distinct from each other."""
    out: list[str] = []
    n = len(project.halls) + len(project.racks) + len(project.floor_devices) + 1
    while len(out) < count:
        candidate = f"{prefix}{n}"
        if not project.uses_id(candidate):
            out.append(candidate)
        n += 1
    return out
