"""Writing a project: the document, its JSON text, and the atomic save.

A project that holds a value JSON cannot store (NaN, an infinity, a lone surrogate)
is not saved: the error names its path.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from catalog import Catalog
from catalog.files import write_atomic

from .. import __version__
from ..bounds import LONE_SURROGATE, encodable
from ..facility import NO_FACILITY
from ..model import Project
from ..quote_settings import QuoteSettings
from .errors import FORMAT, ProjectFileError
from .migrations import FORMAT_VERSION


def _num(v: float) -> float | int:
    return int(v) if float(v).is_integer() else round(v, 3)


def to_dict(project: Project, catalog: Catalog | None = None) -> dict:
    """The document of ``project``, with the PodPlanner and the catalog that write it: ``catalog_version`` is
    ``catalog``'s, the one the caller saves with (none is written without one, as for a design made in code)."""
    def opt(d: dict, key: str, value) -> None:
        if value is not None and value != "" and value != ():
            d[key] = value

    halls = []
    for h in project.halls:
        d = {"id": h.id, "name": h.name, "outline": [[_num(x), _num(y)] for x, y in h.outline],
             "tile_mm": _num(h.tile_mm)}
        for key in ("power_capacity_kw", "cooling_capacity_kw", "liquid_cooling_capacity_kw",
                    "floor_rating_kg_m2", "rack_power_limit_kw"):
            opt(d, key, getattr(h, key))
        if h.facility != NO_FACILITY:
            d["facility"] = h.facility.to_json()
        opt(d, "building", h.building)
        if h.site_origin is not None:
            d["site_origin"] = [_num(h.site_origin[0]), _num(h.site_origin[1])]
        if h.kind != "data":
            d["kind"] = h.kind
        halls.append(d)
    racks = []
    for r in project.racks:
        d = {"id": r.id, "name": r.name, "hall": r.hall, "type": r.type, "x": _num(r.x), "y": _num(r.y),
             "rotation": _num(r.rotation)}
        opt(d, "row", r.row)
        opt(d, "power_limit_kw", r.power_limit_kw)
        devs = []
        for m in r.devices:
            dd = {"id": m.id, "type": m.type, "u": None if m.u is None else _num(m.u), "face": m.face}
            opt(dd, "name", m.name)
            devs.append(dd)
        d["devices"] = devs
        racks.append(d)
    floor = []
    for f in project.floor_devices:
        d = {"id": f.id, "type": f.type, "hall": f.hall, "x": _num(f.x), "y": _num(f.y),
             "rotation": _num(f.rotation)}
        opt(d, "name", f.name)
        if f.serves:
            d["serves"] = list(f.serves)
        floor.append(d)
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "app_version": __version__}
    if catalog is not None:
        doc["catalog_version"] = catalog.version
    doc["name"] = project.name
    opt(doc, "description", project.description)
    doc["currency"] = project.currency
    doc["settings"] = project.settings.to_json()
    if project.workload:
        doc["workload"] = dict(project.workload)
    if project.quote != QuoteSettings():
        doc["quote"] = project.quote.to_json()
    doc.update({"halls": halls, "racks": racks, "floor_devices": floor})
    return doc


def _unstorable(value: Any, where: str = "") -> tuple[str, str] | None:
    """(path, why) of the first value in a document JSON in UTF-8 cannot hold, or None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (where, f"{value!r} is not a finite number")
    if isinstance(value, str):
        return None if encodable(value) else (where, LONE_SURROGATE)
    if isinstance(value, dict):
        for key, item in value.items():
            at = f"{where}.{key}" if where else str(key)
            if isinstance(key, str) and not encodable(key):
                return at, LONE_SURROGATE
            found = _unstorable(item, at)
            if found:
                return found
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = _unstorable(item, f"{where}[{i}]")
            if found:
                return found
    return None


def _encode(doc: dict, pretty: bool, file: str = "") -> str:
    """``doc`` as JSON text, or a ProjectFileError (a ValueError) naming the value it cannot hold.

    A NaN or an infinity would write what no JSON reader accepts; a lone surrogate, text UTF-8
    cannot hold. Both are found by json and the encoder; the document is walked only then, for the path.
    """
    try:
        text = json.dumps(doc, ensure_ascii=False, indent=1 if pretty else None, allow_nan=False,
                          separators=(",", ": ") if pretty else (",", ":")) + "\n"
        if not text.isascii():
            text.encode("utf-8")
    except (ValueError, UnicodeEncodeError):  # UnicodeEncodeError is a ValueError; said for the reader
        found = _unstorable(doc)
        if found is None:
            raise
        raise ProjectFileError(found[0], f"{found[1]}: the project cannot be saved", file) from None
    return text


def dumps(project: Project, catalog: Catalog | None = None) -> str:
    return _encode(to_dict(project, catalog), pretty=False)


def save(project: Project, path: str | os.PathLike, *, pretty: bool | None = None,
         catalog: Catalog | None = None) -> None:
    """Write atomically: a temporary file in the same folder, flushed and fsynced, then renamed.

    A project holding a value JSON cannot store is refused (ProjectFileError, a ValueError) before
    anything is written.
    """
    path = Path(path)
    if pretty is None:
        pretty = len(project.racks) <= 2000
    write_atomic(path, _encode(to_dict(project, catalog), pretty, str(path)))
