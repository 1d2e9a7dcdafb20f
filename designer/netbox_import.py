"""Read a folder of NetBox bulk-import files (as ``exporters.netbox_export`` writes them) back into a Project.

What comes back: the site's name as the project's, each location as a hall, each rack
with its type, plan position, rotation and row, each device with its rack, lowest U
(``position``) and face, and each unracked device with a plan position as a floor unit
(a CDU) with the racks it serves. Cables are not read: the wiring plan is the fabric
engine's, made again from the racks and devices.

Where each thing is read from: the ``cf_podplanner_*`` custom-field columns the export
writes (ids, catalog types, plan positions, hall outlines); a type without
``cf_podplanner_type`` is found by its NetBox model in ``05-rack-types.csv`` or in the
device-type YAML of ``07-device-types`` (slug = catalog id). A plan position has no
NetBox field, so a rack without one cannot be placed and is an error, not a guess.

Every problem is a :class:`NetBoxImportError` (a ``ValueError``) naming the file, the
row (as a spreadsheet numbers it: the header is row 1) and the column. Files are read
through :func:`catalog.files.read_text`, which refuses pipes, devices and oversized files.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from pathlib import Path


from catalog.files import FileReadError, read_limit, read_text
from catalog.loader import CatalogError
from catalog.netbox import load_yaml
from catalog.records import FLOOR_KINDS, MOUNTABLE_KINDS

from .facility import NO_FACILITY, Facility, facility_from_json
from .fileformat import ProjectFileError, from_dict, to_dict
from .model import FACES, FloorDevice, Hall, MountedDevice, Project, Rack
from .netbox_parts import parts
from .rules import span_problem

SITES, LOCATIONS, RACK_TYPES, RACKS = "01-sites.csv", "02-locations.csv", "05-rack-types.csv", "06-racks.csv"
DEVICES, TYPES_FOLDER = "08-devices.csv", "07-device-types"
#: A device-type YAML is a few kilobytes; the limit refuses a wrong file before it fills memory.
YAML_LIMIT = 4 * 1024 * 1024
#: Most rows a file may hold: a 100,000-GPU design has about 600,000 interfaces.
MAX_ROWS = 2_000_000
DEFAULT_TILE_MM = 600.0
#: Hall field -> its custom field on a location (``cf_podplanner_...``); empty = not known.
HALL_FIGURES = (("power_capacity_kw", "power_capacity_kw"), ("cooling_capacity_kw", "cooling_capacity_kw"),
                ("liquid_cooling_capacity_kw", "liquid_cooling_capacity_kw"),
                ("floor_rating_kg_m2", "floor_rating_kg_m2"), ("rack_power_limit_kw", "power_limit_kw"))


class NetBoxImportError(ValueError):
    """A folder that cannot be read as a design: ``file, row N, column C: what is wrong``."""

    def __init__(self, file: str, reason: str, row: int | None = None, column: str = ""):
        self.file, self.row, self.column, self.reason = file, row, column, reason
        where = [file] + ([f"row {row}"] if row is not None else []) + ([f"column {column}"] if column else [])
        super().__init__(f"{', '.join(where)}: {reason}")


class _Table:
    """One CSV file's rows as dicts, with the file name and each row's number for messages."""

    def __init__(self, folder: Path, name: str, required: tuple[str, ...], limit: int):
        self.name = name
        self.header: list[str] = []
        self.rows: list = []  # (file, row number, fields)
        # the file, or the parts the export split it into: each with the header, read as one file
        for path in parts(folder, name) or [folder / name]:
            self._read(path, path.name, required, limit)

    def _read(self, path: Path, name: str, required: tuple[str, ...], limit: int) -> None:
        try:
            text = read_text(path, limit)
        except FileReadError as exc:
            raise NetBoxImportError(name, exc.reason) from None
        try:
            rows = []  # (row number, fields): blank lines are skipped, so a file of them fills no memory
            for n, row in enumerate(csv.reader(io.StringIO(text, newline="")), 1):
                if not any(v.strip() for v in row) and n > 1:
                    continue
                rows.append((n, row))
                if len(rows) + len(self.rows) > MAX_ROWS:
                    raise NetBoxImportError(name, f"has more than {MAX_ROWS:,} rows, more than any design holds")
        except csv.Error as exc:
            raise NetBoxImportError(name, f"is not CSV ({exc})") from None
        if not rows or not any(rows[0][1]):
            raise NetBoxImportError(name, "has no header row")
        header = [h.strip() for h in rows[0][1]]
        if self.header and header != self.header:
            raise NetBoxImportError(name, f"has another header than the file's first part {self.rows[0][0]}", 1)
        self.header = header
        for column in required:
            if column not in self.header:
                raise NetBoxImportError(name, "is missing; NetBox's import needs it", 1, column)
        self.rows += [(name, n, row) for n, row in rows[1:]]

    def has(self, column: str) -> bool:
        return column in self.header

    def __iter__(self):
        width, header = len(self.header), self.header
        for file, i, values in self.rows:
            if len(values) != width:
                raise NetBoxImportError(file, f"has {len(values)} fields; the header has {width}", i)
            yield _Row(file, i, dict(zip(header, values)))


class _Row:
    __slots__ = ("file", "line", "values")

    def __init__(self, file: str, line: int, values: dict):
        self.file, self.line, self.values = file, line, values

    def error(self, column: str, reason: str) -> NetBoxImportError:
        return NetBoxImportError(self.file, reason, self.line, column)

    def text(self, column: str, *, required: bool = False, default: str = "") -> str:
        value = self.values.get(column)
        value = default if value is None else _unquoted(value.strip())
        if required and not value:
            raise self.error(column, "is empty")
        return value

    def number(self, column: str, *, required: bool = False, default: float | None = None,
               lo: float = -math.inf, hi: float = math.inf) -> float | None:
        text = self.text(column)
        if not text:
            if required:
                raise self.error(column, "is empty; a number is needed")
            return default
        try:
            value = float(text)
        except ValueError:
            raise self.error(column, f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise self.error(column, f"{text!r} is not a finite number")
        if not lo <= value <= hi:
            raise self.error(column, f"{text} is outside {lo:g}..{hi:g}")
        return value


#: what the export puts a single quote in front of, so that a spreadsheet does not run it as a formula
#: (exporters/cell_text.py: = + - @ tab carriage return), and a quote itself where it would be taken off
_QUOTED = ("=", "+", "-", "@", "\t", "\r", "'")


def _unquoted(text: str) -> str:
    """A text as the design had it: the quote the export put in front of a formula-like text taken off."""
    return text[1:] if text[:1] == "'" and text[1:2] in _QUOTED else text


def _facility(row, column: str) -> Facility:
    """A location's facility, written as the JSON of a project file's ``halls[i].facility``."""
    text = row.text(column)
    if not text:
        return NO_FACILITY
    try:
        return facility_from_json(json.loads(text), "facility")
    except ValueError as exc:  # json.JSONDecodeError and FacilityError are both ValueErrors
        raise row.error(column, str(exc)) from None


def _outline(row: _Row, column: str) -> tuple[tuple[float, float], ...]:
    text = row.text(column, required=True)
    points = []
    for part in text.split(";"):
        xy = part.split(",")
        try:
            x, y = (float(v) for v in xy)
        except ValueError:
            raise row.error(column, f"{part.strip()!r} is not an x,y point in mm") from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise row.error(column, f"{part.strip()!r} is not a finite point")
        points.append((x, y))
    if len(points) < 3:
        raise row.error(column, f"has {len(points)} points; an outline needs at least 3")
    return tuple(points)


def _ident(text: str) -> str:
    """An id made from a name, for rows without a PodPlanner id."""
    return re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-") or "x"


class _TypeModels:
    """(manufacturer, model) -> catalog id, from the rack types file and the device-type YAML."""

    def __init__(self, folder: Path, limit: int):
        self.folder, self.limit = folder, limit
        self._devices: dict[tuple[str, str], str] | None = None
        self.racks: dict[tuple[str, str], str] = {}
        self.rack_models: dict[str, list[str]] = {}
        if (folder / RACK_TYPES).exists():
            for row in _Table(folder, RACK_TYPES, ("manufacturer", "model", "slug"), limit):
                key = (row.text("manufacturer", required=True), row.text("model", required=True))
                self.racks[key] = row.text("slug", required=True)
                self.rack_models.setdefault(key[1], []).append(self.racks[key])

    def rack(self, row: _Row, column: str) -> str:
        model = row.text(column, required=True)
        found = self.rack_models.get(model, [])
        if len(found) != 1:
            raise row.error(column, f"rack type {model!r} is not in {RACK_TYPES}" if not found else
                            f"rack type {model!r} is made by several manufacturers in {RACK_TYPES}")
        return found[0]

    def device(self, row: _Row) -> str:
        if self._devices is None:
            self._devices = self._read_yaml()
        key = (row.text("manufacturer", required=True), row.text("device_type", required=True))
        if key not in self._devices:
            raise row.error("device_type", f"{key[0]} {key[1]} has no file in {TYPES_FOLDER} and the row no "
                                           "cf_podplanner_type")
        return self._devices[key]

    def _read_yaml(self) -> dict[tuple[str, str], str]:
        out: dict[tuple[str, str], str] = {}
        first_file: dict[tuple[str, str], str] = {}
        folder = self.folder / TYPES_FOLDER
        names = sorted(os.listdir(folder)) if folder.is_dir() else []
        for name in names:
            if not name.endswith((".yaml", ".yml")):
                continue
            where = f"{TYPES_FOLDER}/{name}"
            try:
                doc = load_yaml(read_text(folder / name, min(self.limit, YAML_LIMIT)), where)
            except FileReadError as exc:
                raise NetBoxImportError(where, exc.reason) from None
            except CatalogError as exc:  # aliases ("billion laughs"), too large or deep, or not YAML at all
                raise NetBoxImportError(where, exc.reason) from None
            if not isinstance(doc, dict):
                raise NetBoxImportError(where, "is not a NetBox device type (expected a mapping)")
            for key in ("manufacturer", "model", "slug"):
                if not isinstance(doc.get(key), str) or not doc[key].strip():
                    raise NetBoxImportError(where, f"{key} is missing or not text")
            key = (doc["manufacturer"].strip(), doc["model"].strip())
            if key in out:
                raise NetBoxImportError(where, f"describes {key[0]} {key[1]} again, as {first_file[key]} does; "
                                               "keep one file per device type")
            out[key] = doc["slug"].strip()
            first_file[key] = where
        return out


class _Reader:
    """One export folder being read: the ids claimed so far and the halls by location, which every table after
    the locations checks its rows against."""

    def __init__(self, folder: Path, catalog, limit: int):
        self.folder, self.catalog, self.limit = folder, catalog, limit
        self.ids: dict[str, str] = {}  # ids are unique across halls, racks and floor units (designer.model)
        self.hall_of_location: dict[str, str] = {}

    def claim(self, row: _Row, column: str, ident: str) -> str:
        ids = self.ids
        if ident in ids:
            raise row.error(column, f"id {ident!r} is also used by {ids[ident]}")
        ids[ident] = f"{row.file} row {row.line}"
        return ident

    def hall(self, row: _Row) -> str:
        loc = row.text("location", required=True)
        if loc not in self.hall_of_location:
            raise row.error("location", f"location {loc!r} is not in {LOCATIONS}")
        return self.hall_of_location[loc]

    def known(self, row: _Row, column: str, type_id: str, kinds: tuple[str, ...]) -> str:
        if self.catalog is not None:
            dev = self.catalog.find(type_id)
            if dev is None:
                raise row.error(column, f"{type_id!r} is not in the catalog")
            if dev.kind not in kinds:
                raise row.error(column, f"{type_id} is a {dev.kind}; expected a {' or '.join(kinds)}")
        return type_id

    def site(self) -> tuple[str, str, str]:
        """The site's NetBox name, its description and the design's name."""
        sites = [row for row in _Table(self.folder, SITES, ("name",), self.limit)]
        if len(sites) != 1:
            raise NetBoxImportError(SITES, f"holds {len(sites)} sites; a design is one site")
        site = sites[0]
        name, description = site.text("name", required=True), site.text("comments") or site.text("description")
        # NetBox keeps 100 characters of a site's name; the export keeps the design's whole name beside it
        project_name = site.text("cf_podplanner_name") if site.values.get("cf_podplanner_name") else name
        return name, description, project_name

    def halls(self, name: str) -> list[Hall]:
        halls, hall_of_location = [], self.hall_of_location
        locations = _Table(self.folder, LOCATIONS, ("site", "name", "cf_podplanner_outline_mm"), self.limit)
        for row in locations:
            if row.text("site", required=True) != name:
                raise row.error("site", f"{row.text('site')!r} is not the site of {SITES} ({name!r})")
            loc = row.text("name", required=True)
            if loc in hall_of_location:
                raise row.error("name", f"location {loc!r} is listed twice")
            hall_id = self.claim(row, "cf_podplanner_id", row.text("cf_podplanner_id") or _ident(loc))
            halls.append(Hall(hall_id, loc, _outline(row, "cf_podplanner_outline_mm"),
                              tile_mm=row.number("cf_podplanner_tile_mm", default=DEFAULT_TILE_MM, lo=1, hi=1e5),
                              facility=_facility(row, "cf_podplanner_facility"),
                              **{field: row.number(f"cf_podplanner_{column}", lo=0)
                                 for field, column in HALL_FIGURES}))
            hall_of_location[loc] = hall_id
        if not halls:
            raise NetBoxImportError(LOCATIONS, "holds no location; racks need a hall")
        return halls

    def racks(self, models: _TypeModels) -> tuple[list[dict], dict[tuple[str, str], int], dict[str, int]]:
        """The racks as Rack fields (devices still to come), and their index by (hall, name) and by id."""
        racks_table = _Table(self.folder, RACKS, ("location", "name", "cf_podplanner_x_mm", "cf_podplanner_y_mm"),
                             self.limit)
        if not racks_table.has("cf_podplanner_type") and not racks_table.has("rack_type"):
            raise NetBoxImportError(RACKS, "is missing; a rack's type is read from it", 1, "rack_type")
        racks: list[dict] = []
        rack_by_name: dict[tuple[str, str], int] = {}
        rack_by_id: dict[str, int] = {}
        for row in racks_table:
            hall_id = self.hall(row)
            rack_name = row.text("name", required=True)
            key = (hall_id, rack_name.lower())
            if key in rack_by_name:
                raise row.error("name", f"rack {rack_name!r} is listed twice in its location")
            type_id = row.text("cf_podplanner_type") or models.rack(row, "rack_type")
            rack_id = self.claim(row, "cf_podplanner_id", row.text("cf_podplanner_id") or _ident(rack_name))
            rack_by_name[key] = len(racks)
            rack_by_id[rack_id] = len(racks)
            # the design's own name where the export kept it (NetBox's is made unique, "SU01-05 (su01-05-h2)")
            design_name = row.text("cf_podplanner_name") if racks_table.has("cf_podplanner_name") else ""
            racks.append({"id": rack_id, "name": design_name or rack_name, "hall": hall_id,
                          "type": self.known(row, "cf_podplanner_type", type_id, ("rack",)),
                          "x": row.number("cf_podplanner_x_mm", required=True),
                          "y": row.number("cf_podplanner_y_mm", required=True),
                          "rotation": row.number("cf_podplanner_rotation_deg", default=0.0, lo=-360, hi=360),
                          "row": row.text("cf_podplanner_row"), "devices": [],
                          "power_limit_kw": row.number("cf_podplanner_power_limit_kw", lo=0)})
        return racks, rack_by_name, rack_by_id

    def devices(self, models: _TypeModels, racks: list[dict], rack_by_name: dict[tuple[str, str], int]) -> list[dict]:
        """Mounts each racked device in its rack's fields; returns the floor units as FloorDevice fields, with
        the racks they serve still as text and their row for messages."""
        catalog, hall, known = self.catalog, self.hall, self.known
        devices = _Table(self.folder, DEVICES, ("name", "location", "rack", "position", "face"), self.limit)
        if not devices.has("cf_podplanner_type") and not (devices.has("device_type") and devices.has("manufacturer")):
            raise NetBoxImportError(DEVICES, "is missing; a device's type is read from it", 1, "device_type")
        own_names = devices.has("cf_podplanner_name")
        floor: list[dict] = []
        device_ids: dict[str, str] = {}
        for row in devices:
            nb_name = row.text("name", required=True)
            hall_id = hall(row)
            type_id = row.text("cf_podplanner_type") or models.device(row)
            dev_id = row.text("cf_podplanner_id") or _ident(nb_name)
            if dev_id in device_ids:
                raise row.error("cf_podplanner_id", f"device id {dev_id!r} is also used by {device_ids[dev_id]}")
            device_ids[dev_id] = f"{row.file} row {row.line}"
            dev_name = row.text("cf_podplanner_name") if own_names else nb_name
            rack_name = row.text("rack")
            if not rack_name:  # a floor unit: a position on the plan instead of a rack
                if row.text("position"):
                    raise row.error("position", "a device without a rack has no rack position")
                floor.append({"id": self.claim(row, "cf_podplanner_id", dev_id), "hall": hall_id, "name": dev_name,
                              "type": known(row, "cf_podplanner_type", type_id, tuple(FLOOR_KINDS)),
                              "x": row.number("cf_podplanner_x_mm", required=True),
                              "y": row.number("cf_podplanner_y_mm", required=True),
                              "rotation": row.number("cf_podplanner_rotation_deg", default=0.0, lo=-360, hi=360),
                              "serves": row.text("cf_podplanner_serves"), "row": row})
                continue
            rack_index = rack_by_name.get((hall_id, rack_name.lower()))
            if rack_index is None:
                raise row.error("rack", f"rack {rack_name!r} is not in {RACKS} (location {row.text('location')!r})")
            face = row.text("face") or "front"
            if face not in FACES:
                raise row.error("face", f"{face!r} is not front or rear")
            u = row.number("position", lo=0.5, hi=1000)
            if u is not None and u * 2 != int(u * 2):
                raise row.error("position", f"{u:g} is not a multiple of 0.5 U")
            device = MountedDevice(dev_id, known(row, "cf_podplanner_type", type_id, tuple(MOUNTABLE_KINDS)), u,
                                   face, dev_name)
            if catalog is not None:
                rack_type = catalog.get(racks[rack_index]["type"])
                problem = span_problem(catalog.get(device.type), device, rack_type.rack_units)
                if problem:
                    raise row.error("position", problem)
            racks[rack_index]["devices"].append(device)
        return floor


def _floor_units(floor: list[dict], racks: list[dict], rack_by_name: dict[tuple[str, str], int],
                 rack_by_id: dict[str, int]) -> list[FloorDevice]:
    # read after every rack, since a unit may serve racks listed after it
    floor_units = []
    for f in floor:
        row = f.pop("row")
        serves = []
        for part in (p.strip() for p in f.pop("serves").split(";")):
            if not part:
                continue
            # racks are named by their design id (unique in the design); older folders named them by rack name
            index = rack_by_id.get(part)
            if index is None:
                index = rack_by_name.get((f["hall"], part.lower()))
            if index is None:
                raise row.error("cf_podplanner_serves", f"rack {part!r} is not in {RACKS} in this unit's location")
            serves.append(racks[index]["id"])
        floor_units.append(FloorDevice(serves=tuple(serves), **f))
    return floor_units


def read_netbox(folder: str | os.PathLike, catalog=None, *, limit: int | None = None) -> Project:
    """The design held by an export folder; with ``catalog``, every type is checked against it."""
    folder = Path(folder)
    limit = read_limit() if limit is None else limit
    if not folder.is_dir():
        raise NetBoxImportError(str(folder), "is not a folder" if folder.exists() else "no such folder")

    # the tables are read in the order they refer to each other: site, halls, racks, devices
    reader = _Reader(folder, catalog, limit)
    name, description, project_name = reader.site()
    halls = reader.halls(name)
    models = _TypeModels(folder, limit)
    racks, rack_by_name, rack_by_id = reader.racks(models)
    floor = reader.devices(models, racks, rack_by_name)
    floor_units = _floor_units(floor, racks, rack_by_name, rack_by_id)

    project = Project(name=project_name, description=description, halls=tuple(halls),
                      racks=tuple(Rack(devices=tuple(r.pop("devices")), **r) for r in racks),
                      floor_devices=tuple(floor_units))
    if catalog is not None:
        # whatever else a project file must keep is the file format's rule: its reader holds them all.
        # Devices that overlap are not refused, as in a project file: the design checks report them.
        try:
            project = from_dict(to_dict(project, catalog), catalog)
        except ProjectFileError as exc:
            raise NetBoxImportError(str(folder), f"the design it holds is not valid: {exc}") from None
    return project
