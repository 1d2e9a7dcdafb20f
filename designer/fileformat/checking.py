"""The checking reader: every value of a parsed document checked for type and range, with its path.

Mounted device ids are unique in the whole design, as hall, rack and floor unit ids
are among themselves.
"""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from catalog import Catalog

from ..bounds import HALL_BOUNDS, RACK_LIMIT_KW, WORKLOAD_MAX, id_key
from ..facility import NO_FACILITY, FacilityError, facility_from_json
from ..model import FACES, HALL_KINDS, FloorDevice, Hall, MountedDevice, Project, Rack
from ..quote_settings import QuoteError, quote_from_json
from ..settings import SettingsError, settings_from_json
from ..rules import span_problem
from .errors import FORMAT, ProjectFileError
from .migrations import migrate
from .plain_racks import PlainRacks
from .renames import renamed_types
from .values import MOUNTED_KINDS, ValueChecks

#: Longest ``app_version`` or ``catalog_version`` read: a version, not a document.
MAX_STAMP_CHARS = 100


class _Reader(PlainRacks, ValueChecks):
    """One document's reader: halls, racks (the fast way first), floor units, settings, workload, quote.

    It keeps what one document's checks need across its parts: the ids read so far and where, and the
    fast reader's caches. A reader reads one document.
    """

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
        #: A float at least WIDE across was read (see reading._read).
        self.wide_number = False
        #: For plain_rack: a rack's type field -> its catalog entry and the placements for its size.
        self._rack_types: dict[str, tuple[Any, dict]] = {}
        #: For plain_floor_device: a floor unit's type field -> its catalog entry.
        self._floor_types: dict[str, Any] = {}
        #: Per rack size: (type field, class of u, u, face) -> plain_placement's answer, for accepted ones only.
        self._placements: dict[int, dict[tuple, tuple[str, float | None, str]]] = {}

    def hall(self, d: Any, where: str, seen: dict[str, str]) -> Hall:
        self.obj(d, where, ("id", "name", "outline"),
                 ("tile_mm", "power_capacity_kw", "cooling_capacity_kw", "liquid_cooling_capacity_kw",
                  "floor_rating_kg_m2", "rack_power_limit_kw", "facility", "building", "site_origin", "kind"))
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
        origin = d.get("site_origin")
        if origin is not None:
            if not isinstance(origin, list) or len(origin) != 2:
                raise ProjectFileError(f"{where}.site_origin", f"must be [x, y] in mm, got {origin!r}")
            origin = (self.coordinate(origin[0], f"{where}.site_origin[0]"),
                      self.coordinate(origin[1], f"{where}.site_origin[1]"))
        kind = d.get("kind", "data")
        if kind not in HALL_KINDS:
            raise ProjectFileError(f"{where}.kind", f"must be one of {', '.join(HALL_KINDS)}, got {kind!r}")
        return Hall(id=self.ident(d["id"], f"{where}.id", seen), name=self.text(d["name"], f"{where}.name"),
                    outline=tuple(pts),
                    tile_mm=self.number(d.get("tile_mm", 600), f"{where}.tile_mm", 100, 5000), facility=facility,
                    building=self.text(d.get("building", ""), f"{where}.building"), site_origin=origin, kind=kind,
                    **opt)

    def mounted(self, d: Any, where: str, rack_id: str, units: int, seen: set[str],
                explicit: set[str] = frozenset()) -> MountedDevice:
        self.obj(d, where, ("type",), ("id", "u", "face", "name"))
        dtype = self.device_type(d["type"], f"{where}.type", MOUNTED_KINDS)
        ident = d.get("id")
        taken = self.device_ids
        if ident is None:  # a generated id must not take one written anywhere in the design
            n = len(seen) + 1
            written = self.written_device_ids()
            while (id_key(f"{rack_id}-d{n}") in seen or id_key(f"{rack_id}-d{n}") in explicit
                   or id_key(f"{rack_id}-d{n}") in taken or id_key(f"{rack_id}-d{n}") in written):
                n += 1
            ident = f"{rack_id}-d{n}"
        ident = self.text(ident, f"{where}.id", allow_empty=False, ident=True)
        key = id_key(ident)  # ids are compared after NFKC
        if key in seen:
            raise ProjectFileError(f"{where}.id", f"id {ident!r} is used twice in this rack")
        if key in taken:  # a finding, an export row or a wiring end names a device by its id alone
            raise ProjectFileError(f"{where}.id", f"{json.dumps(ident, ensure_ascii=False)} is already used at "
                                                  f"{self.device_path(key)}")
        seen.add(key)
        taken.add(key)
        self.device_paths[key] = where
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
        """Every mounted device id written in the document (as compared: NFKC), gathered once, when an id is
        first made."""
        if self._written_ids is None:
            self._written_ids = {id_key(m["id"])
                                 for r in self._racks_doc if type(r) is dict and type(r.get("devices")) is list
                                 for m in r["devices"] if type(m) is dict and type(m.get("id")) is str}
        return self._written_ids

    def device_path(self, ident: str) -> str:
        """Where mounted device ``ident`` (as compared: NFKC) was first read (for a message: the racks are
        searched)."""
        if ident in self.device_paths:
            return self.device_paths[ident]
        # plain_rack read it, so it is written as it is kept; a rack the checking reader read that has it
        # as written has it in device_paths
        for i, r in enumerate(self._racks_doc):
            for j, m in enumerate(r.get("devices") or () if type(r) is dict else ()):
                if type(m) is dict and type(m.get("id")) is str and id_key(m["id"]) == ident:
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
        explicit = {id_key(m["id"]) for m in devices_raw
                    if isinstance(m, dict) and isinstance(m.get("id"), str)}
        devices = tuple(self.mounted(m, f"{where}.devices[{i}]", ident, rtype.rack_units, dev_seen, explicit)
                        for i, m in enumerate(devices_raw))
        return Rack(id=ident, name=self.text(d.get("name", ident), f"{where}.name"), hall=hall, type=rtype.id,
                    x=self.coordinate(d["x"], f"{where}.x"), y=self.coordinate(d["y"], f"{where}.y"),
                    rotation=self.number(d.get("rotation", 0), f"{where}.rotation", -360, 360) % 360,
                    row=self.text(d.get("row", ""), f"{where}.row"), devices=devices,
                    power_limit_kw=self.number(d.get("power_limit_kw"), f"{where}.power_limit_kw",
                                               *RACK_LIMIT_KW, positive=True, optional=True))

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

    def stamp(self, value: Any, where: str) -> str:
        """A version the file was written with (``0.1.0``, ``2026.12+04fd10a41f65``): one short line of text."""
        if isinstance(value, str) and (len(value) > MAX_STAMP_CHARS or not value.isprintable()):
            raise ProjectFileError(where, f"must be one line of at most {MAX_STAMP_CHARS} printable characters")
        text = self.text(value, where, allow_empty=False)
        if len(text) > MAX_STAMP_CHARS or not text.isprintable():
            raise ProjectFileError(where, f"must be one line of at most {MAX_STAMP_CHARS} printable characters")
        return text

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
        doc = migrate(doc)
        project = self.project(doc)
        renames = renamed_types(doc, project, self.catalog)
        return replace(project, renames=renames) if renames else project

    def project(self, doc: Any) -> Project:
        top = ("format", "format_version", "app_version", "catalog_version", "name", "description", "currency",
               "settings", "workload", "quote", "halls", "racks", "floor_devices")
        self.obj(doc, "", ("format_version", "halls"), top)
        if doc.get("format", FORMAT) != FORMAT:
            raise ProjectFileError("format", f"{doc['format']!r} is not a PodPlanner project")
        for key in ("app_version", "catalog_version"):  # what wrote the file: read, checked, not kept
            if key in doc:
                self.stamp(doc[key], key)
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
        floor = []
        plain_floor = self.plain_floor_device
        for i, f in enumerate(doc.get("floor_devices", [])):
            try:
                dev = plain_floor(f, i, seen, hall_ids) if type(f) is dict else None
            except (KeyError, TypeError):  # a field missing, or a list where text belongs (as a dict key)
                dev = None
            floor.append(dev if dev is not None else self.floor_device(f, f"floor_devices[{i}]", seen, hall_ids))
        floor = tuple(floor)
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
                       description=self.text(doc.get("description", ""), "description", prose=True),
                       currency=currency, halls=halls, racks=racks, floor_devices=floor, settings=settings,
                       workload=tuple(sorted(workload.items())), quote=quote)


def from_dict(doc: Any, catalog: Catalog) -> Project:
    return _Reader(catalog).read(doc)
