"""Project files: versioned JSON, validated on load, saved atomically.

Loading reports the exact path of a bad value
(``racks[12].devices[3].u: 47 is above the rack's 42 U``). Files written by an
older format version are migrated step by step; a newer one is refused.
Nothing in a file is executed: it is parsed as JSON (by orjson, or by :mod:`json`
where the two could differ) and every value is checked for type and range.

Why two parsers: orjson parses a 100,000-GPU design faster than :mod:`json`
(about 24 against 29 ms), but it reads a whole number beyond 64 bits as a float
and refuses what :mod:`json` reads (``NaN``, ``1e400``, a lone surrogate) with
messages of its own. So a document orjson refuses, one that fails a check, and
one with a float that may have been such a number are read again with
:mod:`json`: the project and every message are exactly what :mod:`json` gives.

Why racks have a second reader: a design holds thousands of racks and tens of
thousands of mounted devices, and the checking reader builds a path string and
calls a helper per value. :meth:`_Reader.plain_rack` makes the same checks on a
well-formed rack without either, and gives up (None) at the first value it does
not accept; :meth:`_Reader.rack` then reads that rack again and names the value
and what is wrong with it. Every message comes from the checking reader, which
alone reads halls, floor units and everything else (there are few of them).

Every value is bounded and every text kept in NFC, by :mod:`designer.bounds` (the
settings', quote's and facility's own bounds are in their modules), which the commands
hold edits to as well: what an edit makes, the reader opens again. Mounted device ids
are unique in the whole design, as hall, rack and floor unit ids are among
themselves. A project that holds a value JSON cannot
store (NaN, an infinity, a lone surrogate) is not saved: the error names its path.
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
import unicodedata
from operator import itemgetter
from pathlib import Path
from typing import Any, Callable

import orjson

from catalog import Catalog, UnknownDeviceError
from catalog.files import FileReadError, read_text, write_atomic

from .bounds import COORD_MM, HALL_BOUNDS, LONE_SURROGATE, RACK_LIMIT_KW, WORKLOAD_MAX, encodable, stored
from .collector import paused
from .facility import NO_FACILITY, FacilityError, facility_from_json
from .model import FACES, FloorDevice, Hall, MountedDevice, Project, Rack
from .quote_settings import QuoteError, QuoteSettings, quote_from_json
from .settings import Settings, SettingsError, settings_from_json
from .rules import span_problem

FORMAT = "podplanner-project"
FORMAT_VERSION = 4
SUFFIX = ".podplan.json"

#: ``MIGRATIONS[n]`` turns a version-n document into version n+1.
MIGRATIONS: dict[int, Callable[[dict], dict]] = {}


class ProjectFileError(ValueError):
    """A project file that cannot be used: ``where: what is wrong``."""

    def __init__(self, where: str, reason: str, file: str = ""):
        # a key, a file name or a value may hold a newline or a lone surrogate: the message stays one line
        # that any stream can print
        where, reason, file = _printable(where), _printable(reason), _printable(file)
        self.where, self.reason, self.file = where, reason, file
        text = f"{where}: {reason}" if where else reason
        super().__init__(f"{file}: {text}" if file else text)


def _printable(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


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


@migration(2)
def _quote_optional(doc: dict) -> dict:
    """Version 3 may keep a ``quote`` (customer, discounts, price list, cost settings).

    A version-2 file had none: it gets the defaults, so nothing needs adding.
    """
    return doc


@migration(3)
def _facility_optional(doc: dict) -> dict:
    """Version 4 halls may keep a ``facility`` (row distribution, UPS, generators, air and water classes,
    floor tiles) and the settings gain the failover, phase and air-density limits.

    A version-3 file states none of these: its halls check what they checked before and the new
    settings take their defaults, so the document is unchanged.
    """
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
        if h.facility != NO_FACILITY:
            d["facility"] = h.facility.to_json()
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


def dumps(project: Project) -> str:
    return _encode(to_dict(project), pretty=False)


def save(project: Project, path: str | os.PathLike, *, pretty: bool | None = None) -> None:
    """Write atomically: a temporary file in the same folder, flushed and fsynced, then renamed.

    A project holding a value JSON cannot store is refused (ProjectFileError, a ValueError) before
    anything is written.
    """
    path = Path(path)
    if pretty is None:
        pretty = len(project.racks) <= 2000
    write_atomic(path, _encode(to_dict(project), pretty, str(path)))


# --- reading ---------------------------------------------------------------

#: Kinds of device a rack may hold, in the order a message lists them.
_MOUNTED_KINDS = ("server", "rack_system", "tray", "power_shelf", "switch", "appliance", "pdu", "cdu")
#: orjson reads a whole number beyond 64 bits (below -2**63 or above 2**64 - 1) as a float, so a
#: float this wide may have been one: such a document is read again with :mod:`json` (see _read).
_WIDE = 9e18
# For _Reader.plain_rack:
_RACK_FIELDS = frozenset(("id", "hall", "type", "x", "y", "name", "rotation", "row", "devices", "power_limit_kw"))
_RACK_REQUIRED = itemgetter("id", "hall", "type", "x", "y")
#: The fields to_dict writes for every mounted device (and "name" when it has one).
_MOUNTED_WRITTEN = itemgetter("id", "type", "u", "face")
_NO_DEVICES: list = []  # never changed


class _Reader:
    def __init__(self, catalog: Catalog, plain_text: bool = False):
        self.catalog = catalog
        #: Every text in the document is ASCII (so in NFC and encodable): plain_rack need not look at each.
        self.plain_text = plain_text
        #: Every mounted device id read so far, in any rack.
        self.device_ids: set[str] = set()
        #: Where the checking reader read a mounted device id; plain_rack keeps no path (see device_path).
        self.device_paths: dict[str, str] = {}
        #: The document's racks as parsed, for device_path and written_device_ids.
        self._racks_doc: list = []
        self._written_ids: set[str] | None = None
        #: A float at least _WIDE across was read (see _read).
        self.wide_number = False
        #: For plain_rack: a rack's type field -> its catalog entry and the placements for its size.
        self._rack_types: dict[str, tuple[Any, dict]] = {}
        #: Per rack size: (type field, class of u, u, face) -> plain_placement's answer, for accepted ones only.
        self._placements: dict[int, dict[tuple, tuple[str, float | None, str]]] = {}

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
        """``value`` in NFC (one text, however it was composed), or a ProjectFileError."""
        if not isinstance(value, str):
            raise ProjectFileError(where, f"must be text, got {value!r}")
        if not value.isascii():
            if not encodable(value):
                raise ProjectFileError(where, LONE_SURROGATE)
            value = unicodedata.normalize("NFC", value)
        if not allow_empty and not value.strip():
            raise ProjectFileError(where, "must not be empty")
        return value

    def number(self, value: Any, where: str, lo: float = -math.inf, hi: float = math.inf, *,
               positive: bool = False, optional: bool = False, unit: str = "") -> float | None:
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ProjectFileError(where, f"must be a number, got {value!r}")
        try:
            finite = math.isfinite(value)
        except OverflowError:  # a whole number beyond any float
            raise ProjectFileError(where, f"a whole number of {len(str(abs(value)))} digits is too large") from None
        if not finite:
            raise ProjectFileError(where, f"must be a number, got {value!r}")
        if isinstance(value, float) and not -_WIDE < value < _WIDE:
            self.wide_number = True
        if positive and value <= 0:
            raise ProjectFileError(where, f"must be above zero, got {value!r}")
        if not lo <= value <= hi:
            raise ProjectFileError(where, f"{value!r} is outside {lo:g}..{hi:g}{unit}")
        return float(value)

    def coordinate(self, value: Any, where: str) -> float:
        return self.number(value, where, -COORD_MM, COORD_MM, unit=" mm")

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
                  "floor_rating_kg_m2", "rack_power_limit_kw", "facility"))
        outline = d["outline"]
        if not isinstance(outline, list) or len(outline) < 3:
            raise ProjectFileError(f"{where}.outline", "needs at least 3 corners [x, y] in mm")
        pts = []
        for i, p in enumerate(outline):
            if not isinstance(p, list) or len(p) != 2:
                raise ProjectFileError(f"{where}.outline[{i}]", f"must be [x, y], got {p!r}")
            pts.append((self.coordinate(p[0], f"{where}.outline[{i}][0]"),
                        self.coordinate(p[1], f"{where}.outline[{i}][1]")))
        opt = {k: self.number(d.get(k), f"{where}.{k}", *HALL_BOUNDS[k], positive=True, optional=True)
               for k in HALL_BOUNDS}
        facility = NO_FACILITY
        if "facility" in d:
            try:
                facility = facility_from_json(d["facility"], f"{where}.facility")
            except FacilityError as exc:
                path, _, reason = str(exc).partition(": ")
                raise ProjectFileError(path, reason) from None
        return Hall(id=self.ident(d["id"], f"{where}.id", seen), name=self.text(d["name"], f"{where}.name"),
                    outline=tuple(pts),
                    tile_mm=self.number(d.get("tile_mm", 600), f"{where}.tile_mm", 100, 5000), facility=facility,
                    **opt)

    def mounted(self, d: Any, where: str, rack_id: str, units: int, seen: set[str],
                explicit: set[str] = frozenset()) -> MountedDevice:
        self.obj(d, where, ("type",), ("id", "u", "face", "name"))
        dtype = self.device_type(d["type"], f"{where}.type", _MOUNTED_KINDS)
        ident = d.get("id")
        taken = self.device_ids
        if ident is None:  # a generated id must not take one written anywhere in the design
            n = len(seen) + 1
            written = self.written_device_ids()
            while (f"{rack_id}-d{n}" in seen or f"{rack_id}-d{n}" in explicit or f"{rack_id}-d{n}" in taken
                   or f"{rack_id}-d{n}" in written):
                n += 1
            ident = f"{rack_id}-d{n}"
        ident = self.text(ident, f"{where}.id", allow_empty=False)
        if ident in seen:
            raise ProjectFileError(f"{where}.id", f"id {ident!r} is used twice in this rack")
        if ident in taken:  # a finding, an export row or a wiring end names a device by its id alone
            raise ProjectFileError(f"{where}.id", f"{json.dumps(ident, ensure_ascii=False)} is already used at "
                                                  f"{self.device_path(ident)}")
        seen.add(ident)
        taken.add(ident)
        self.device_paths[ident] = where
        u = d.get("u")
        if u is not None:
            u = self.number(u, f"{where}.u")
            if not (u * 2).is_integer():  # int(u * 2) would fail on 1e308 * 2 = inf
                raise ProjectFileError(f"{where}.u", f"{u:g} is not a whole or half U")
        face = d.get("face", "front")
        if face not in FACES:
            raise ProjectFileError(f"{where}.face", f"must be front or rear, got {face!r}")
        dev = MountedDevice(id=ident, type=dtype.id, u=u, face=face, name=self.text(d.get("name", ""), f"{where}.name"))
        problem = span_problem(dtype, dev, units)
        if problem:
            field = "type" if u is None or dtype.fills_rack and dtype.u_height > units else "u"
            raise ProjectFileError(f"{where}.{field}", problem)
        return dev

    def written_device_ids(self) -> set[str]:
        """Every mounted device id written in the document (in NFC), gathered once, when an id is first made."""
        if self._written_ids is None:
            self._written_ids = {unicodedata.normalize("NFC", m["id"])
                                 for r in self._racks_doc if type(r) is dict and type(r.get("devices")) is list
                                 for m in r["devices"] if type(m) is dict and type(m.get("id")) is str}
        return self._written_ids

    def device_path(self, ident: str) -> str:
        """Where mounted device ``ident`` was first read (for a message: the racks are searched)."""
        if ident in self.device_paths:
            return self.device_paths[ident]
        # plain_rack read it, so it is written as it is kept; a rack the checking reader read that has it
        # as written has it in device_paths
        for i, r in enumerate(self._racks_doc):
            for j, m in enumerate(r.get("devices") or () if type(r) is dict else ()):
                if type(m) is dict and m.get("id") == ident:
                    return f"racks[{i}].devices[{j}]"
        return "another rack"  # not reached

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
        explicit = {unicodedata.normalize("NFC", m["id"]) for m in devices_raw
                    if isinstance(m, dict) and isinstance(m.get("id"), str)}
        devices = tuple(self.mounted(m, f"{where}.devices[{i}]", ident, rtype.rack_units, dev_seen, explicit)
                        for i, m in enumerate(devices_raw))
        return Rack(id=ident, name=self.text(d.get("name", ident), f"{where}.name"), hall=hall, type=rtype.id,
                    x=self.coordinate(d["x"], f"{where}.x"), y=self.coordinate(d["y"], f"{where}.y"),
                    rotation=self.number(d.get("rotation", 0), f"{where}.rotation", -360, 360) % 360,
                    row=self.text(d.get("row", ""), f"{where}.row"), devices=devices,
                    power_limit_kw=self.number(d.get("power_limit_kw"), f"{where}.power_limit_kw",
                                               *RACK_LIMIT_KW, positive=True, optional=True))

    def known_type(self, type_id: Any, kinds: tuple[str, ...]):
        """The catalog entry a type field names, or None where :meth:`device_type` would refuse it."""
        if type(type_id) is not str or not type_id.strip():
            return None
        dev = self.catalog.find(type_id)
        return dev if dev is not None and dev.kind in kinds else None

    def plain_rack(self, d: dict, index: int, seen: dict[str, str], halls: set[str]) -> Rack | None:
        """``racks[index]`` when every value in it passes :meth:`rack`'s checks, else None and nothing changed.

        The same checks as :meth:`rack` and :meth:`mounted`, without building a path
        string or calling a helper per value. What depends only on a device's type, U
        position and face (the catalog entry, the number checks, ``span_problem``) is
        checked once per distinct combination in :meth:`plain_placement`. A rack this
        does not accept in full (something wrong, a device without an id to generate
        or without ``u`` or ``face``, a number at least _WIDE across) is read again by
        :meth:`rack`, which names the first value that is wrong.

        ``d`` must be a dict, not a subclass (a ``defaultdict`` makes up missing fields).
        KeyError (a required field is missing) and TypeError (a list where text belongs,
        as a dict key) mean the same as None.
        """
        if not d.keys() <= _RACK_FIELDS:
            return None
        ident, hall, type_id, x, y = _RACK_REQUIRED(d)
        name = d.get("name", ident)
        row = d.get("row", "")
        if (type(ident) is not str or not ident or ident.isspace() or ident in seen or type(hall) is not str
                or hall not in halls or type(name) is not str or type(row) is not str):
            return None
        plain_text = self.plain_text
        if not (plain_text or stored(ident) and stored(name) and stored(row)):
            return None  # text the checking reader changes or refuses
        known = self._rack_types.get(type_id)
        if known is None:
            rtype = self.known_type(type_id, ("rack",))
            if rtype is None:
                return None
            known = self._rack_types[type_id] = rtype, self._placements.setdefault(rtype.rack_units, {})
        rtype, placements = known
        rotation, power = d.get("rotation", 0), d.get("power_limit_kw")
        tx, ty, tr = type(x), type(y), type(rotation)  # exactly: a bool is not a number here
        if not ((tx is int or tx is float) and -COORD_MM <= x <= COORD_MM
                and (ty is int or ty is float) and -COORD_MM <= y <= COORD_MM
                and (tr is int or tr is float) and -360 <= rotation <= 360):
            return None  # NaN and infinities fail the comparisons
        if power is not None:
            tp = type(power)
            if not ((tp is int or tp is float) and RACK_LIMIT_KW[0] <= power <= RACK_LIMIT_KW[1]):
                return None
            power = float(power)
        devs = d.get("devices", _NO_DEVICES)
        if type(devs) is not list:
            return None
        devices = []
        # Device ids are unique in the whole design: each goes into device_ids as it is accepted (one set
        # for every rack: a set per rack, joined at the end, costs more), and out again if the rack is not.
        taken = self.device_ids
        complete = False
        try:
            for m in devs:
                if type(m) is not dict:
                    break
                mid, mtype, u, face = _MOUNTED_WRITTEN(m)
                size = len(m)
                if size == 4:
                    mname = ""
                elif size == 5 and "name" in m:  # any other fifth field is not a mounted device's
                    mname = m["name"]
                    if type(mname) is not str:
                        break
                else:
                    break
                if type(mid) is not str or not mid or mid.isspace() or mid in taken:
                    break
                if not (plain_text or stored(mid) and stored(mname)):
                    break
                # u's class is part of the key: 1, 1.0 and true are equal keys, and true is no number
                key = (mtype, u.__class__, u, face)
                placement = placements.get(key)
                if placement is None:
                    placement = self.plain_placement(mtype, u, face, rtype.rack_units)
                    if placement is None:
                        break
                    placements[key] = placement
                mtype, whole_u, face = placement
                devices.append(MountedDevice(mid, mtype, u if whole_u is None else whole_u, face, mname))
                taken.add(mid)
            else:
                complete = True
        finally:
            if not complete:  # given up (or a KeyError for the caller): the checking reader reads the rack again
                taken.difference_update([m.id for m in devices])
        if not complete:
            return None
        seen[ident] = f"racks[{index}].id"
        return Rack(ident, name, hall, rtype.id, float(x), float(y), float(rotation) % 360, row, tuple(devices), power)

    def plain_placement(self, type_id: Any, u: Any, face: Any, units: int) -> tuple[str, float | None, str] | None:
        """Whether :meth:`mounted` accepts a device of ``type_id`` at ``u`` on ``face`` in a ``units`` U rack.

        If so: the type's catalog id; ``float(u)`` when ``u`` is a whole number, else None
        (use ``u`` itself: None, or a float, whose sign a 0.0 key would not keep); the face.
        """
        dtype = self.known_type(type_id, _MOUNTED_KINDS)
        if dtype is None:
            return None
        whole_u = None
        if u is not None:
            tu = type(u)
            if not ((tu is int or tu is float) and -_WIDE < u < _WIDE):
                return None  # (span_problem bounds it to the rack's height)
            u = float(u)
            if not (u * 2).is_integer():
                return None
            if tu is int:
                whole_u = u
        if face not in FACES:
            return None
        height = dtype.u_height  # span_problem, in its order
        if dtype.fills_rack:
            if height > units or u is not None and not 1 <= u <= units:
                return None
        elif height == 0:
            if u is not None and not 1 <= u <= units:
                return None
        elif u is None or u < 1 or u > units or u + height - 1 > units:
            return None
        return dtype.id, whole_u, FACES[FACES.index(face)]

    def floor_device(self, d: Any, where: str, seen: dict[str, str], halls: set[str]) -> FloorDevice:
        self.obj(d, where, ("id", "type", "hall", "x", "y"), ("name", "rotation", "serves"))
        dtype = self.device_type(d["type"], f"{where}.type", ("cdu", "crah", "pdu"))
        hall = self.text(d["hall"], f"{where}.hall")
        if hall not in halls:
            raise ProjectFileError(f"{where}.hall", f"no hall with id {hall!r}")
        serves = d.get("serves", [])
        if not isinstance(serves, list) or not all(isinstance(s, str) for s in serves):
            raise ProjectFileError(f"{where}.serves", "must be a list of rack ids")
        serves = [self.text(s, f"{where}.serves[{j}]") for j, s in enumerate(serves)]
        return FloorDevice(id=self.ident(d["id"], f"{where}.id", seen), type=dtype.id, hall=hall,
                           x=self.coordinate(d["x"], f"{where}.x"), y=self.coordinate(d["y"], f"{where}.y"),
                           rotation=self.number(d.get("rotation", 0), f"{where}.rotation", -360, 360) % 360,
                           name=self.text(d.get("name", ""), f"{where}.name"), serves=tuple(serves))

    def workload(self, doc: Any) -> dict:
        """The training job: text, numbers and true/false by name; the training engine judges them."""
        if not isinstance(doc, dict):
            raise ProjectFileError("workload", "must be an object")
        workload = {}
        for key, value in doc.items():
            where = f"workload.{key}"
            key = self.text(key, where)
            if key in workload:
                raise ProjectFileError(where, "is given twice (written two ways)")
            if isinstance(value, str):
                value = self.text(value, where)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                self.number(value, where, -WORKLOAD_MAX, WORKLOAD_MAX)
            elif value is not None and not isinstance(value, bool):
                raise ProjectFileError(where, f"must be text, a number or true/false, got {value!r}")
            workload[key] = value
        return workload

    def read(self, doc: Any) -> Project:
        """A parsed document, migrated, as a project."""
        if not isinstance(doc, dict):
            raise ProjectFileError("", "a project file must hold one JSON object")
        if "format_version" not in doc:
            raise ProjectFileError("format_version", "is missing: this is not a PodPlanner project file")
        return self.project(migrate(doc))

    def project(self, doc: Any) -> Project:
        top = ("format", "format_version", "name", "description", "currency", "settings", "workload", "quote",
               "halls", "racks", "floor_devices")
        self.obj(doc, "", ("format_version", "halls"), top)
        if doc.get("format", FORMAT) != FORMAT:
            raise ProjectFileError("format", f"{doc['format']!r} is not a PodPlanner project")
        currency = self.text(doc.get("currency", "USD"), "currency")
        if len(currency) != 3 or not currency.isascii() or not currency.isalpha() or not currency.isupper():
            raise ProjectFileError("currency", f"{currency!r} is not an ISO 4217 code such as USD")
        for key in ("halls", "racks", "floor_devices"):
            if not isinstance(doc.get(key, []), list):
                raise ProjectFileError(key, "must be a list")
        seen: dict[str, str] = {}
        halls = tuple(self.hall(h, f"halls[{i}]", seen) for i, h in enumerate(doc["halls"]))
        hall_ids = {h.id for h in halls}
        racks = []
        plain_rack = self.plain_rack
        self._racks_doc = doc.get("racks", [])
        for i, r in enumerate(self._racks_doc):
            try:
                rack = plain_rack(r, i, seen, hall_ids) if type(r) is dict else None
            except (KeyError, TypeError):
                rack = None
            racks.append(rack if rack is not None else self.rack(r, f"racks[{i}]", seen, hall_ids))
        racks = tuple(racks)
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
        workload = self.workload(doc.get("workload", {}))
        try:
            quote = quote_from_json(doc.get("quote", {}))
        except QuoteError as exc:
            where, _, reason = str(exc).partition(": ")
            raise ProjectFileError(where, reason) from None
        return Project(name=self.text(doc.get("name", "Untitled"), "name"),
                       description=self.text(doc.get("description", ""), "description"),
                       currency=currency, halls=halls, racks=racks, floor_devices=floor, settings=settings,
                       workload=tuple(sorted(workload.items())), quote=quote)


def from_dict(doc: Any, catalog: Catalog) -> Project:
    return _Reader(catalog).read(doc)


def _json_error(text: str, exc: ValueError) -> ProjectFileError:
    """What :func:`json.loads` refused, in words; it gives line and column of the offending spot."""
    if isinstance(exc, json.JSONDecodeError):
        return ProjectFileError("", f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}")
    # Python refuses to read a whole number longer than sys.get_int_max_str_digits() (4300 by default).
    limit = sys.get_int_max_str_digits()
    found = re.search(r"(?:^|[\[:,])[ \t\n\r]*(-?[0-9]{%d,})" % (limit + 1), text) if limit else None
    if found is None:
        return ProjectFileError("", f"not valid JSON: {exc}")
    pos = found.start(1)
    line, column = text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)
    digits = len(found.group(1).lstrip("-"))
    return ProjectFileError("", f"not valid JSON: a whole number of {digits} digits at line {line}, column {column} "
                                f"(at most {limit} digits are read)")


def _read(text: str, catalog: Catalog) -> Project:
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write (load drops it already)
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError:
        pass  # json says where, or reads what orjson refuses (NaN, 1e400, a lone surrogate)
    else:
        # ASCII text without an escape holds only ASCII strings: plain_rack need not look at each (one
        # character is looked for at memchr's speed, "\\u" some forty times slower)
        reader = _Reader(catalog, plain_text=text.isascii() and "\\" not in text)
        try:
            project = reader.read(doc)
        except ProjectFileError:
            pass  # read again with json, so the message quotes each value as it always has
        else:
            if not reader.wide_number:
                return project
            # orjson may have read a whole number beyond 64 bits as a float: read it as json does
    try:
        doc = json.loads(text)
    except RecursionError:
        raise ProjectFileError("", "not valid JSON: nested too deeply") from None
    except ValueError as exc:  # json.JSONDecodeError, or a whole number of too many digits
        raise _json_error(text, exc) from None
    return _Reader(catalog).read(doc)


@paused()
def loads(text: str, catalog: Catalog) -> Project:
    # Reading makes a container per JSON object and per model value (about 90,000 for a 100,000-GPU
    # design) and no reference cycles: the collector is paused (see designer.collector).
    return _read(text, catalog)


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
