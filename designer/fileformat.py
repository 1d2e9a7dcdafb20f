"""Project files: versioned JSON, validated on load, saved atomically.

Loading reports the exact path of a bad value
(``racks[12].devices[3].u: 47 is above the rack's 42 U``). Files written by an
older format version are migrated step by step; a newer one is refused.
Nothing in a file is executed: it is parsed with :mod:`json` and every value is
checked for type and range.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Callable

from catalog import Catalog, UnknownDeviceError
from catalog.files import FileReadError, read_text, write_atomic

from .model import FACES, FloorDevice, Hall, MountedDevice, Project, Rack
from .settings import Settings, SettingsError, settings_from_json
from .rules import span_problem

FORMAT = "podplanner-project"
FORMAT_VERSION = 2
SUFFIX = ".podplan.json"

#: ``MIGRATIONS[n]`` turns a version-n document into version n+1.
MIGRATIONS: dict[int, Callable[[dict], dict]] = {}


class ProjectFileError(ValueError):
    """A project file that cannot be used: ``where: what is wrong``."""

    def __init__(self, where: str, reason: str, file: str = ""):
        self.where, self.reason, self.file = where, reason, file
        text = f"{where}: {reason}" if where else reason
        super().__init__(f"{file}: {text}" if file else text)


def migration(from_version: int):
    """Register a function that upgrades a document from ``from_version`` to the next version."""

    def register(fn: Callable[[dict], dict]) -> Callable[[dict], dict]:
        MIGRATIONS[from_version] = fn
        return fn

    return register


@migration(1)
def _add_settings(doc: dict) -> dict:
    """Version 2 keeps the design assumptions (PUE, coolant, delta-T ...) and the workload in the file.

    A version-1 file was analysed with the defaults, so it gets them explicitly.
    """
    doc.setdefault("settings", Settings().to_json())
    return doc


def migrate(doc: dict, migrations: dict[int, Callable[[dict], dict]] | None = None,
            target: int = FORMAT_VERSION) -> dict:
    steps = MIGRATIONS if migrations is None else migrations
    version = doc.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ProjectFileError("format_version", f"must be a whole number, got {version!r}")
    if version > target:
        raise ProjectFileError("format_version", f"{version} is newer than this PodPlanner reads ({target}); "
                                                 "update PodPlanner to open it")
    if version < 1:
        raise ProjectFileError("format_version", f"{version} is not a format version")
    while version < target:
        if version not in steps:
            raise ProjectFileError("format_version", f"no migration from version {version}")
        doc = steps[version](dict(doc))
        version += 1
        doc["format_version"] = version
    return doc


# --- writing ---------------------------------------------------------------

def _num(v: float) -> float | int:
    return int(v) if float(v).is_integer() else round(v, 3)


def to_dict(project: Project) -> dict:
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
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "name": project.name}
    opt(doc, "description", project.description)
    doc["currency"] = project.currency
    doc["settings"] = project.settings.to_json()
    if project.workload:
        doc["workload"] = dict(project.workload)
    doc.update({"halls": halls, "racks": racks, "floor_devices": floor})
    return doc


def dumps(project: Project) -> str:
    return json.dumps(to_dict(project), ensure_ascii=False, separators=(",", ":"), indent=None) + "\n"


def save(project: Project, path: str | os.PathLike, *, pretty: bool | None = None) -> None:
    """Write atomically: a temporary file in the same folder, flushed and fsynced, then renamed."""
    path = Path(path)
    doc = to_dict(project)
    if pretty is None:
        pretty = len(project.racks) <= 2000
    text = json.dumps(doc, ensure_ascii=False, indent=1 if pretty else None, allow_nan=False,
                      separators=(",", ": ") if pretty else (",", ":")) + "\n"
    write_atomic(path, text)


# --- reading ---------------------------------------------------------------

class _Reader:
    def __init__(self, catalog: Catalog):
        self.catalog = catalog

    @staticmethod
    def obj(value: Any, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
        if not isinstance(value, dict):
            raise ProjectFileError(where, f"must be an object, got {type(value).__name__}")
        for key in required:
            if key not in value:
                raise ProjectFileError(f"{where}.{key}" if where else key, "is missing")
        unknown = set(value) - set(required) - set(optional)
        if unknown:
            key = sorted(unknown)[0]
            raise ProjectFileError(f"{where}.{key}" if where else key, "is not a known field")
        return value

    @staticmethod
    def text(value: Any, where: str, allow_empty: bool = True) -> str:
        if not isinstance(value, str):
            raise ProjectFileError(where, f"must be text, got {value!r}")
        if not allow_empty and not value.strip():
            raise ProjectFileError(where, "must not be empty")
        return value

    @staticmethod
    def number(value: Any, where: str, lo: float = -math.inf, hi: float = math.inf, *,
               positive: bool = False, optional: bool = False) -> float | None:
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ProjectFileError(where, f"must be a number, got {value!r}")
        if positive and value <= 0:
            raise ProjectFileError(where, f"must be above zero, got {value!r}")
        if not lo <= value <= hi:
            raise ProjectFileError(where, f"{value!r} is outside {lo:g}..{hi:g}")
        return float(value)

    def device_type(self, value: Any, where: str, kinds: tuple[str, ...]):
        type_id = self.text(value, where, allow_empty=False)
        try:
            dev = self.catalog.get(type_id)
        except UnknownDeviceError as exc:
            raise ProjectFileError(where, str(exc)) from None
        if dev.kind not in kinds:
            raise ProjectFileError(where, f"{dev.id} is a {dev.kind}; expected a {' or '.join(kinds)}")
        return dev

    def ident(self, value: Any, where: str, seen: dict[str, str]) -> str:
        ident = self.text(value, where, allow_empty=False)
        if ident in seen:
            raise ProjectFileError(where, f"id {ident!r} is also used by {seen[ident]}")
        seen[ident] = where
        return ident

    def hall(self, d: Any, where: str, seen: dict[str, str]) -> Hall:
        self.obj(d, where, ("id", "name", "outline"),
                 ("tile_mm", "power_capacity_kw", "cooling_capacity_kw", "liquid_cooling_capacity_kw",
                  "floor_rating_kg_m2", "rack_power_limit_kw"))
        outline = d["outline"]
        if not isinstance(outline, list) or len(outline) < 3:
            raise ProjectFileError(f"{where}.outline", "needs at least 3 corners [x, y] in mm")
        pts = []
        for i, p in enumerate(outline):
            if not isinstance(p, list) or len(p) != 2:
                raise ProjectFileError(f"{where}.outline[{i}]", f"must be [x, y], got {p!r}")
            pts.append((self.number(p[0], f"{where}.outline[{i}][0]"), self.number(p[1], f"{where}.outline[{i}][1]")))
        opt = {k: self.number(d.get(k), f"{where}.{k}", positive=True, optional=True)
               for k in ("power_capacity_kw", "cooling_capacity_kw", "liquid_cooling_capacity_kw",
                         "floor_rating_kg_m2", "rack_power_limit_kw")}
        return Hall(id=self.ident(d["id"], f"{where}.id", seen), name=self.text(d["name"], f"{where}.name"),
                    outline=tuple(pts),
                    tile_mm=self.number(d.get("tile_mm", 600), f"{where}.tile_mm", 100, 5000), **opt)

    def mounted(self, d: Any, where: str, rack_id: str, units: int, seen: set[str],
                explicit: set[str] = frozenset()) -> MountedDevice:
        self.obj(d, where, ("type",), ("id", "u", "face", "name"))
        dtype = self.device_type(d["type"], f"{where}.type",
                                 ("server", "rack_system", "tray", "power_shelf", "switch", "appliance", "pdu", "cdu"))
        ident = d.get("id")
        if ident is None:  # a generated id must not take one written further down the list
            n = len(seen) + 1
            while f"{rack_id}-d{n}" in seen or f"{rack_id}-d{n}" in explicit:
                n += 1
            ident = f"{rack_id}-d{n}"
        ident = self.text(ident, f"{where}.id", allow_empty=False)
        if ident in seen:
            raise ProjectFileError(f"{where}.id", f"id {ident!r} is used twice in this rack")
        seen.add(ident)
        u = d.get("u")
        if u is not None:
            u = self.number(u, f"{where}.u")
            if u * 2 != int(u * 2):
                raise ProjectFileError(f"{where}.u", f"{u:g} is not a whole or half U")
        face = d.get("face", "front")
        if face not in FACES:
            raise ProjectFileError(f"{where}.face", f"must be front or rear, got {face!r}")
        dev = MountedDevice(id=ident, type=dtype.id, u=u, face=face, name=self.text(d.get("name", ""), f"{where}.name"))
        problem = span_problem(dtype, dev, units)
        if problem:
            field = "type" if dtype.fills_rack or u is None else "u"
            raise ProjectFileError(f"{where}.{field}", problem)
        return dev

    def rack(self, d: Any, where: str, seen: dict[str, str], halls: set[str]) -> Rack:
        self.obj(d, where, ("id", "hall", "type", "x", "y"),
                 ("name", "rotation", "row", "devices", "power_limit_kw"))
        rtype = self.device_type(d["type"], f"{where}.type", ("rack",))
        hall = self.text(d["hall"], f"{where}.hall")
        if hall not in halls:
            raise ProjectFileError(f"{where}.hall", f"no hall with id {hall!r}")
        devices_raw = d.get("devices", [])
        if not isinstance(devices_raw, list):
            raise ProjectFileError(f"{where}.devices", "must be a list")
        ident = self.ident(d["id"], f"{where}.id", seen)
        dev_seen: set[str] = set()
        explicit = {m["id"] for m in devices_raw if isinstance(m, dict) and isinstance(m.get("id"), str)}
        devices = tuple(self.mounted(m, f"{where}.devices[{i}]", ident, rtype.rack_units, dev_seen, explicit)
                        for i, m in enumerate(devices_raw))
        return Rack(id=ident, name=self.text(d.get("name", ident), f"{where}.name"), hall=hall, type=rtype.id,
                    x=self.number(d["x"], f"{where}.x"), y=self.number(d["y"], f"{where}.y"),
                    rotation=self.number(d.get("rotation", 0), f"{where}.rotation", -360, 360) % 360,
                    row=self.text(d.get("row", ""), f"{where}.row"), devices=devices,
                    power_limit_kw=self.number(d.get("power_limit_kw"), f"{where}.power_limit_kw",
                                               positive=True, optional=True))

    def floor_device(self, d: Any, where: str, seen: dict[str, str], halls: set[str]) -> FloorDevice:
        self.obj(d, where, ("id", "type", "hall", "x", "y"), ("name", "rotation", "serves"))
        dtype = self.device_type(d["type"], f"{where}.type", ("cdu", "pdu"))
        hall = self.text(d["hall"], f"{where}.hall")
        if hall not in halls:
            raise ProjectFileError(f"{where}.hall", f"no hall with id {hall!r}")
        serves = d.get("serves", [])
        if not isinstance(serves, list) or not all(isinstance(s, str) for s in serves):
            raise ProjectFileError(f"{where}.serves", "must be a list of rack ids")
        return FloorDevice(id=self.ident(d["id"], f"{where}.id", seen), type=dtype.id, hall=hall,
                           x=self.number(d["x"], f"{where}.x"), y=self.number(d["y"], f"{where}.y"),
                           rotation=self.number(d.get("rotation", 0), f"{where}.rotation", -360, 360) % 360,
                           name=self.text(d.get("name", ""), f"{where}.name"), serves=tuple(serves))

    def project(self, doc: Any) -> Project:
        top = ("format", "format_version", "name", "description", "currency", "settings", "workload", "halls",
               "racks", "floor_devices")
        self.obj(doc, "", ("format_version", "halls"), top)
        if doc.get("format", FORMAT) != FORMAT:
            raise ProjectFileError("format", f"{doc['format']!r} is not a PodPlanner project")
        currency = self.text(doc.get("currency", "USD"), "currency")
        if len(currency) != 3 or not currency.isalpha() or not currency.isupper():
            raise ProjectFileError("currency", f"{currency!r} is not an ISO 4217 code such as USD")
        for key in ("halls", "racks", "floor_devices"):
            if not isinstance(doc.get(key, []), list):
                raise ProjectFileError(key, "must be a list")
        seen: dict[str, str] = {}
        halls = tuple(self.hall(h, f"halls[{i}]", seen) for i, h in enumerate(doc["halls"]))
        hall_ids = {h.id for h in halls}
        racks = tuple(self.rack(r, f"racks[{i}]", seen, hall_ids) for i, r in enumerate(doc.get("racks", [])))
        floor = tuple(self.floor_device(f, f"floor_devices[{i}]", seen, hall_ids)
                      for i, f in enumerate(doc.get("floor_devices", [])))
        rack_ids = {r.id for r in racks}
        for i, f in enumerate(floor):
            for j, rid in enumerate(f.serves):
                if rid not in rack_ids:
                    raise ProjectFileError(f"floor_devices[{i}].serves[{j}]", f"no rack with id {rid!r}")
        try:
            settings = settings_from_json(doc.get("settings", {}))
        except SettingsError as exc:
            where, _, reason = str(exc).partition(": ")
            raise ProjectFileError(where, reason) from None
        workload = doc.get("workload", {})
        if not isinstance(workload, dict):
            raise ProjectFileError("workload", "must be an object")
        for key, value in workload.items():
            if not isinstance(value, (str, int, float, bool)) and value is not None:
                raise ProjectFileError(f"workload.{key}", f"must be text, a number or true/false, got {value!r}")
        return Project(name=self.text(doc.get("name", "Untitled"), "name"),
                       description=self.text(doc.get("description", ""), "description"),
                       currency=currency, halls=halls, racks=racks, floor_devices=floor, settings=settings,
                       workload=tuple(sorted(workload.items())))


def from_dict(doc: Any, catalog: Catalog) -> Project:
    if not isinstance(doc, dict):
        raise ProjectFileError("", "a project file must hold one JSON object")
    if "format_version" not in doc:
        raise ProjectFileError("format_version", "is missing: this is not a PodPlanner project file")
    return _Reader(catalog).project(migrate(doc))


def loads(text: str, catalog: Catalog) -> Project:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProjectFileError("", f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise ProjectFileError("", "not valid JSON: nested too deeply") from None
    return from_dict(doc, catalog)


def load(path: str | os.PathLike, catalog: Catalog) -> Project:
    path = Path(path)
    try:
        text = read_text(path)
    except FileReadError as exc:
        raise ProjectFileError("", exc.reason, str(path)) from None
    try:
        return loads(text, catalog)
    except ProjectFileError as exc:
        raise ProjectFileError(exc.where, exc.reason, str(path)) from None
