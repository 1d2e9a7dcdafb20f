"""Undoable edits, without Qt.

A command turns one :class:`~designer.model.Project` value into the next. The
stack keeps the value before and after each command, so undo and redo are exact
and cost nothing to compute (the values share all untouched objects).
Commands check what they are asked to do and raise :class:`CommandError`
before changing anything, so a refused edit leaves the document as it was.
Every command that puts something on the floor (add, move, place, a new rack
type) checks it against the placement rules of :mod:`designer.placement`:
inside its hall, over nothing else. Loading a file goes through no command, so a
file that breaks them opens, and its findings say where.
"""
from __future__ import annotations

import math
from abc import ABC, abstractmethod
from contextlib import suppress
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from catalog import Catalog, UnknownDeviceError

from .bounds import COORD_MM, HALL_BOUNDS, RACK_LIMIT_KW, WORKLOAD_MAX, stored_text
from .facility import Facility, FacilityError, check_facility
from .model import FACES, FloorDevice, Hall, MountedDevice, Project, Rack
from .placement import Problem, carry_index, check_move, check_new, floor_footprint, footprints_of, rack_footprint
from .rules import rack_space_problem, u_span_problem
from .quote_settings import SECTION_TITLES, QuoteError
from .settings import SettingsError


#: Kinds that stand on the floor on their own footprint, in the order messages name them.
FLOOR_KIND_LIST = ["cdu", "crah", "pdu"]
MOUNT_KINDS = ("server", "rack_system", "tray", "power_shelf", "switch", "appliance", "pdu", "cdu")


def _finite(value) -> bool:
    """A number a float holds and that is not infinite or NaN (an integer of 5,000 digits is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _shown(value) -> str:
    """A value for a message: a huge integer is named by its size, not printed (it may not even print)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return f"a number of {int(abs(value).bit_length() * 0.30103) + 1} digits"
    return repr(value)


def _text(value, what: str) -> str:
    """``value`` as the design keeps text (NFC), refused where it is not text or cannot be stored."""
    if not isinstance(value, str):
        raise CommandError(f"{what} must be text, got {_shown(value)}")
    try:
        return stored_text(value)
    except ValueError as exc:
        raise CommandError(f"{what} {exc}") from None


def _bounded(value, what: str, bounds: tuple[float, float], unit: str = "") -> None:
    """A number within the bounds the file format holds it to (designer.bounds)."""
    lo, hi = bounds
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value) or not lo <= value <= hi:
        raise CommandError(f"{what} must be a number from {lo:g} to {hi:g}{unit}, got {_shown(value)}")


def _tile(value) -> None:
    """A floor tile's side, in the range the file format accepts."""
    _positive_number(value, "hall tile_mm", optional=False)
    if not 100 <= value <= 5000:
        raise CommandError(f"hall tile_mm must be 100 to 5000 mm, got {_shown(value)}")


def _outline(points) -> tuple[tuple[float, float], ...]:
    """A hall outline as an immutable tuple of (x, y) mm, checked like the file format checks it."""
    try:
        pts = tuple((round(float(x), 3), round(float(y), 3)) for x, y in points)  # to the µm, as saved
    except (TypeError, ValueError, OverflowError):
        raise CommandError("a hall outline is a list of [x, y] corners in mm") from None
    if len(pts) < 3:
        raise CommandError("a hall outline needs at least 3 corners")
    if not all(_finite(v) for p in pts for v in p):
        raise CommandError("hall outline corners must be finite numbers")
    if not all(abs(v) <= COORD_MM for p in pts for v in p):
        raise CommandError(f"hall outline corners must be within {COORD_MM:g} mm (10 km) of the plan's origin")
    return pts


class CommandError(ValueError):
    """An edit that cannot be made, with the reason."""


@dataclass(frozen=True)
class Change:
    """What one command touched, so views can update just that."""

    racks: frozenset[str] = frozenset()
    halls: frozenset[str] = frozenset()
    floor_devices: frozenset[str] = frozenset()
    project: bool = False

    def __or__(self, other: Change) -> Change:
        return Change(self.racks | other.racks, self.halls | other.halls,
                      self.floor_devices | other.floor_devices, self.project or other.project)


class Command(ABC):
    """Base class: ``apply`` returns the new project and the change."""

    label = "Edit"
    #: Commands with equal, non-None merge keys pushed one after another become one undo step.
    merge_key: object = None

    @abstractmethod
    def apply(self, project: Project, catalog: Catalog) -> tuple[Project, Change]:
        """The project after this edit, and what it touched."""

    def merged_with(self, later: Command) -> Command:
        return later


class _FieldEdit(Command):
    """An edit of some fields of one object; edits of the same fields in a row merge (typing)."""

    changes: dict

    def _target(self) -> tuple:
        return ()

    @property
    def merge_key(self):
        return (type(self).__name__, *self._target(), tuple(sorted(self.changes)))

    def merged_with(self, later):
        return replace(later, changes={**self.changes, **later.changes})


def _catalog_entry(catalog: Catalog, type_id: str, kinds: Iterable[str]):
    try:
        dev = catalog.get(type_id)
    except UnknownDeviceError as exc:
        raise CommandError(str(exc)) from None
    kinds = tuple(kinds)
    if dev.kind not in kinds:
        raise CommandError(f"{dev.id} is a {dev.kind}, not a {' or '.join(kinds)}")
    return dev


def _fresh_id(project: Project, ident: str, taken: set[str], what: str) -> None:
    if not isinstance(ident, str) or not ident.strip():
        raise CommandError(f"{what} needs an id")
    if project.uses_id(ident) or ident in taken:
        raise CommandError(f"{what} id {ident!r} is already used")
    taken.add(ident)


def _positive_number(value, what: str, *, optional: bool = True, lo: float = 0.0, hi: float = math.inf) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value) or value <= lo \
            or value > hi:
        raise CommandError(f"{what} must be a number above {lo:g}" + (f" and at most {hi:g}" if hi != math.inf else "")
                           + f", got {_shown(value)}")


def _rack(project: Project, rack_id: str) -> Rack:
    if not project.has_rack(rack_id):
        raise CommandError(f"no rack with id {rack_id!r}")
    return project.rack(rack_id)


def _floor_device(project: Project, device_id: str) -> FloorDevice:
    if not project.has_floor_device(device_id):
        raise CommandError(f"no floor unit with id {device_id!r}")
    return project.floor_device(device_id)


def _placement(place, what: str) -> dict:
    """``(x, y, rotation)`` as the fields of a rack or floor unit, refusing what is not a finite number."""
    try:
        x, y, rotation = place
    except (TypeError, ValueError):
        raise CommandError(f"{what}: a place is (x, y, rotation)") from None
    out = {}
    for key, value in (("x", x), ("y", y), ("rotation", rotation)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
            raise CommandError(f"{what} {key} must be a number, got {_shown(value)}")
        if key != "rotation" and abs(value) > COORD_MM:
            raise CommandError(f"{what} {key} must be within {COORD_MM:g} mm (10 km) of the plan's origin, "
                               f"got {_shown(value)}")
        out[key] = round(float(value), 3)  # to the µm, as the file keeps it: what is saved opens equal
    out["rotation"] %= 360
    return out


def _refuse(problem: Problem | None) -> None:
    if problem is not None:
        raise CommandError(problem.message)


#: Key under which ``_new_rack``'s cache keeps the types the U-space check looked up (racks included).
_SPACE_TYPES = object()


def _new_rack(project: Project, catalog: Catalog, r: Rack, taken: set[str], kinds: dict | None = None,
              device_ids: set[str] | None = None) -> Rack:
    """``r`` checked as a new rack (its place is checked with the others it arrives with).

    ``kinds`` caches the mountable catalog entries by the id asked for, across the racks of one command;
    ``device_ids`` gathers the device ids of the racks that arrive with it (unique in the whole design).
    """
    rtype = _catalog_entry(catalog, r.type, ["rack"])
    if not project.has_hall(r.hall):
        raise CommandError(f"rack {r.name!r}: no hall with id {r.hall!r}")
    ident = _text(r.id, "rack id")
    _fresh_id(project, ident, taken, "rack")
    name, row = _text(r.name, f"rack {ident!r} name"), _text(r.row, f"rack {ident!r} row")
    if r.power_limit_kw is not None:
        _bounded(r.power_limit_kw, "rack power limit", RACK_LIMIT_KW, " kW")
    place = _placement((r.x, r.y, r.rotation), f"rack {r.name or r.id}")
    types = kinds if kinds is not None else {}
    devices = []
    ids: set[str] = set()
    others = device_ids if device_ids is not None else set()
    for d in r.devices:
        dtype = types.get(d.type)
        if dtype is None:
            dtype = types[d.type] = _catalog_entry(catalog, d.type, MOUNT_KINDS)
        dev_id = _text(d.id, f"rack {name!r}: device id")
        if not dev_id.strip():
            raise CommandError(f"rack {name!r}: a device needs an id")
        if dev_id in ids:
            raise CommandError(f"rack {name!r}: two devices share an id")
        in_rack = project.device_rack(dev_id)
        if in_rack is not None or dev_id in others:  # a finding or a cable end names a device by its id alone
            where = f"rack {project.rack(in_rack).name!r}" if in_rack is not None else "another new rack"
            raise CommandError(f"rack {name!r}: device id {dev_id!r} is already used in {where}")
        ids.add(dev_id)
        dev_name = _text(d.name, f"rack {name!r}: device name")
        if d.face not in FACES:
            raise CommandError(f"rack {name!r}: face must be front or rear, got {d.face!r}")
        if dtype.id != d.type or dev_id is not d.id or dev_name is not d.name:
            d = replace(d, type=dtype.id, id=dev_id, name=dev_name)
        devices.append(d)
    others |= ids
    r = replace(r, id=ident, name=name, row=row, type=rtype.id, devices=tuple(devices), **place)
    problem = rack_space_problem(catalog, r, types.setdefault(_SPACE_TYPES, {}))
    if problem:
        raise CommandError(problem)
    return r


def _new_floor_device(project: Project, catalog: Catalog, d: FloorDevice, taken: set[str],
                      new_racks: set[str]) -> FloorDevice:
    dtype = _catalog_entry(catalog, d.type, FLOOR_KIND_LIST)
    if not project.has_hall(d.hall):
        raise CommandError(f"floor unit {d.name or d.id!r}: no hall with id {d.hall!r}")
    ident = _text(d.id, "floor unit id")
    _fresh_id(project, ident, taken, "floor unit")
    name = _text(d.name, f"floor unit {ident!r} name")
    place = _placement((d.x, d.y, d.rotation), f"floor unit {d.name or d.id}")
    missing = [r for r in d.serves if not project.has_rack(r) and r not in new_racks]
    if missing:
        raise CommandError(f"floor unit {d.name or d.id!r}: no rack with id {missing[0]!r}")
    return replace(d, id=ident, name=name, type=dtype.id, serves=tuple(d.serves), **place)


@dataclass
class AddObjectsCommand(Command):
    """Add racks and floor units in one step, placed together: none may overlap another, new or standing."""

    racks: tuple[Rack, ...] = ()
    floor_devices: tuple[FloorDevice, ...] = ()
    label: str = "Add"

    def apply(self, project, catalog):
        taken: set[str] = set()
        kinds: dict = {}
        device_ids: set[str] = set()
        racks = [_new_rack(project, catalog, r, taken, kinds, device_ids) for r in self.racks]
        rack_ids = {r.id for r in racks}
        floors = [_new_floor_device(project, catalog, d, taken, rack_ids) for d in self.floor_devices]
        _refuse(check_new(project, catalog, footprints_of(racks, floors, catalog)))
        return project.adding_racks(racks).adding_floor_devices(floors), \
            Change(racks=frozenset(rack_ids), floor_devices=frozenset(d.id for d in floors))


@dataclass
class MoveObjectsCommand(Command):
    """Set position and rotation of racks and floor units, ``{id: (x, y, rotation)}`` each, as one block.

    The block is checked as a whole: the old places of everything in it no
    longer count, so racks may swap places or shift along their row.
    """

    racks: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    floor_devices: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    label: str = "Move"

    def apply(self, project, catalog):
        racks = []
        for rid, place in self.racks.items():
            rack = _rack(project, rid)
            racks.append(replace(rack, **_placement(place, f"rack {rack.name or rack.id}")))
        floors = []
        for fid, place in self.floor_devices.items():
            unit = _floor_device(project, fid)
            floors.append(replace(unit, **_placement(place, f"floor unit {unit.name or unit.id}")))
        _refuse(check_move(project, catalog, footprints_of(racks, floors, catalog)))
        return project.with_racks(racks).with_floor_devices(floors), \
            Change(racks=frozenset(self.racks), floor_devices=frozenset(self.floor_devices))


@dataclass
class AddRacksCommand(Command):
    racks: tuple[Rack, ...]
    label: str = "Add rack"

    def apply(self, project, catalog):
        return AddObjectsCommand(racks=tuple(self.racks), label=self.label).apply(project, catalog)


@dataclass
class RemoveRacksCommand(Command):
    """Delete racks; CDUs stop serving them in the same step (undo gives both back)."""

    rack_ids: tuple[str, ...]
    label: str = "Delete rack"

    def apply(self, project, catalog):
        for rid in self.rack_ids:
            _rack(project, rid)
        touched = frozenset(f.id for f in project.floor_devices if set(f.serves) & set(self.rack_ids))
        return project.removing_racks(self.rack_ids), Change(racks=frozenset(self.rack_ids), floor_devices=touched)


@dataclass
class MoveRacksCommand(Command):
    """Set position and rotation of racks, ``{rack_id: (x, y, rotation)}``, as one block."""

    placements: dict[str, tuple[float, float, float]]
    label: str = "Move rack"

    def apply(self, project, catalog):
        return MoveObjectsCommand(racks=dict(self.placements), label=self.label).apply(project, catalog)


@dataclass
class PlaceRackCommand(_FieldEdit):
    """Type a rack's position or rotation; typing in one field merges into one undo step."""

    rack_id: str
    changes: dict
    label: str = "Move rack"

    def _target(self) -> tuple:
        return (self.rack_id,)

    def apply(self, project, catalog):
        rack = _rack(project, self.rack_id)
        unknown = set(self.changes) - {"x", "y", "rotation"}
        if unknown:
            raise CommandError(f"a rack's place has no {sorted(unknown)[0]!r}")
        place = {"x": rack.x, "y": rack.y, "rotation": rack.rotation, **self.changes}
        move = MoveObjectsCommand(racks={rack.id: (place["x"], place["y"], place["rotation"])})
        return move.apply(project, catalog)


RACK_FIELDS = {"name", "row", "power_limit_kw", "type", "hall"}


@dataclass
class UpdateRackCommand(_FieldEdit):
    """Change properties of one rack; typing in one field merges into one undo step."""

    rack_id: str
    changes: dict
    label: str = "Edit rack"

    def _target(self) -> tuple:
        return (self.rack_id,)

    def apply(self, project, catalog):
        rack = _rack(project, self.rack_id)
        unknown = set(self.changes) - RACK_FIELDS
        if unknown:
            raise CommandError(f"rack has no editable property {sorted(unknown)[0]!r}")
        limit = self.changes.get("power_limit_kw")
        if limit is not None:
            _bounded(limit, "rack power limit", RACK_LIMIT_KW, " kW")
        changes = dict(self.changes)
        if "type" in changes:
            changes["type"] = _catalog_entry(catalog, changes["type"], ["rack"]).id
        if "hall" in changes and not project.has_hall(changes["hall"]):
            raise CommandError(f"no hall with id {changes['hall']!r}")
        for key in ("name", "row"):
            if key in changes:
                changes[key] = _text(changes[key], f"rack {key}")
        new = replace(rack, **changes)
        for d in new.devices:
            problem = u_span_problem(catalog, new, d, ignore=d.id)
            if problem:
                raise CommandError(problem)
        if new.type != rack.type or new.hall != rack.hall:  # a wider type, or the same place in another hall
            _refuse(check_move(project, catalog, [rack_footprint(new, catalog)]))
        return project.with_racks([new]), Change(racks=frozenset([self.rack_id]))


HALL_FIELDS = {"name", "outline", "tile_mm", "power_capacity_kw", "cooling_capacity_kw",
               "liquid_cooling_capacity_kw", "floor_rating_kg_m2", "rack_power_limit_kw", "facility"}


@dataclass
class UpdateHallCommand(_FieldEdit):
    hall_id: str
    changes: dict
    label: str = "Edit hall"

    def _target(self) -> tuple:
        return (self.hall_id,)

    def apply(self, project, catalog):
        if not project.has_hall(self.hall_id):
            raise CommandError(f"no hall with id {self.hall_id!r}")
        unknown = set(self.changes) - HALL_FIELDS
        if unknown:
            raise CommandError(f"hall has no editable property {sorted(unknown)[0]!r}")
        changes = dict(self.changes)
        for key, value in changes.items():
            if key in {"name", "outline"}:
                continue
            if key == "facility":  # the command, not the form, holds the facility to its ranges
                if not isinstance(value, Facility):
                    raise CommandError("hall facility must be a Facility")
                try:
                    check_facility(value, "facility")
                except FacilityError as exc:
                    raise CommandError(str(exc)) from None
                continue
            if key == "tile_mm":
                _tile(value)
            elif value is not None:
                _bounded(value, f"hall {key}", HALL_BOUNDS[key])
        if "outline" in changes:
            changes["outline"] = _outline(changes["outline"])
        if "name" in changes:
            changes["name"] = _text(changes["name"], "hall name")
        # A new outline is taken even when racks end up outside it: the room is what it is (a survey, a
        # wall that moved), and refusing would make the user move every rack before entering the real
        # outline. The racks left outside are findings ("outside-hall") that point at each of them, and
        # from then on every edit that moves one of them needs a place inside.
        hall = replace(project.hall(self.hall_id), **changes)
        return project.with_hall(hall), Change(halls=frozenset([self.hall_id]))


@dataclass
class UpdateFacilityCommand(_FieldEdit):
    """Some settings of one hall's facility (``{"ups_scheme": "2N"}``), applied to the hall's facility as it
    stands; typing into one setting merges into one undo step, another setting is a step of its own."""

    hall_id: str
    changes: dict
    label: str = "Edit facility"

    def _target(self) -> tuple:
        return (self.hall_id,)

    def apply(self, project, catalog):
        if not project.has_hall(self.hall_id):
            raise CommandError(f"no hall with id {self.hall_id!r}")
        hall = project.hall(self.hall_id)
        try:
            facility = hall.facility.updated(**self.changes)
        except TypeError:
            raise CommandError(f"the facility has no setting {sorted(self.changes)[0]!r}") from None
        except FacilityError as exc:
            raise CommandError(str(exc)) from None
        return project.with_hall(replace(hall, facility=facility)), Change(halls=frozenset([self.hall_id]))


@dataclass
class AddHallCommand(Command):
    hall: Hall
    label: str = "Add hall"

    def apply(self, project, catalog):
        ident = _text(self.hall.id, "hall id")
        _fresh_id(project, ident, set(), "hall")
        hall = replace(self.hall, id=ident, name=_text(self.hall.name, "hall name"), outline=_outline(self.hall.outline))
        _tile(hall.tile_mm)
        for key, bounds in HALL_BOUNDS.items():
            if getattr(hall, key) is not None:
                _bounded(getattr(hall, key), f"hall {key}", bounds)
        return project.adding_hall(hall), Change(halls=frozenset([hall.id]))


@dataclass
class AddDeviceCommand(Command):
    rack_id: str
    device: MountedDevice
    label: str = "Add device"

    def apply(self, project, catalog):
        rack = _rack(project, self.rack_id)
        ident = _text(self.device.id, "device id")
        if not ident.strip():
            raise CommandError("a device needs an id")
        in_rack = project.device_rack(ident)
        if in_rack is not None:  # a finding or a cable end names a device by its id alone
            raise CommandError(f"device id {ident!r} is already used in rack {project.rack(in_rack).name!r}")
        device = replace(self.device, id=ident, name=_text(self.device.name, "device name"),
                         type=_catalog_entry(catalog, self.device.type, MOUNT_KINDS).id)
        if device.face not in FACES:
            raise CommandError(f"face must be front or rear, got {device.face!r}")
        problem = u_span_problem(catalog, rack, device)
        if problem:
            raise CommandError(problem)
        return project.with_racks([rack.with_device(device)]), Change(racks=frozenset([self.rack_id]))


@dataclass
class RemoveDeviceCommand(Command):
    rack_id: str
    device_id: str
    label: str = "Remove device"

    def apply(self, project, catalog):
        rack = _rack(project, self.rack_id)
        try:
            new = rack.without_device(self.device_id)
        except KeyError:
            raise CommandError(f"rack {rack.name!r} has no device {self.device_id!r}") from None
        return project.with_racks([new]), Change(racks=frozenset([self.rack_id]))


@dataclass
class MoveDeviceCommand(Command):
    """Move a mounted device to another U, face or rack."""

    rack_id: str
    device_id: str
    u: float | None
    face: str = "front"
    to_rack_id: str | None = None
    label: str = "Move device"

    def apply(self, project, catalog):
        src = _rack(project, self.rack_id)
        try:
            dev = src.device(self.device_id)
        except KeyError:
            raise CommandError(f"rack {src.name!r} has no device {self.device_id!r}") from None
        if self.face not in FACES:
            raise CommandError(f"face must be front or rear, got {self.face!r}")
        moved = replace(dev, u=self.u, face=self.face)
        dst_id = self.to_rack_id or self.rack_id
        if dst_id == self.rack_id:
            problem = u_span_problem(catalog, src, moved, ignore=dev.id)
            if problem:
                raise CommandError(problem)
            return project.with_racks([src.replacing_device(moved)]), Change(racks=frozenset([dst_id]))
        dst = _rack(project, dst_id)  # (device ids are unique in the design: the moved one keeps its id)
        problem = u_span_problem(catalog, dst, moved)
        if problem:
            raise CommandError(problem)
        new_project = project.with_racks([src.without_device(dev.id), dst.with_device(moved)])
        return new_project, Change(racks=frozenset([self.rack_id, dst_id]))


@dataclass
class AddFloorDevicesCommand(Command):
    devices: tuple[FloorDevice, ...]
    label: str = "Add floor unit"

    def apply(self, project, catalog):
        return AddObjectsCommand(floor_devices=tuple(self.devices), label=self.label).apply(project, catalog)


@dataclass
class MoveFloorDevicesCommand(Command):
    placements: dict[str, tuple[float, float, float]]
    label: str = "Move floor unit"

    def apply(self, project, catalog):
        return MoveObjectsCommand(floor_devices=dict(self.placements), label=self.label).apply(project, catalog)


FLOOR_FIELDS = {"name", "serves", "type"}


@dataclass
class UpdateFloorDeviceCommand(_FieldEdit):
    """Rename a floor unit, change its type, or set which racks it serves."""

    device_id: str
    changes: dict
    label: str = "Edit floor unit"

    def _target(self) -> tuple:
        return (self.device_id,)

    def apply(self, project, catalog):
        unit = _floor_device(project, self.device_id)
        unknown = set(self.changes) - FLOOR_FIELDS
        if unknown:
            raise CommandError(f"floor unit has no editable property {sorted(unknown)[0]!r}")
        changes = dict(self.changes)
        if "name" in changes:
            changes["name"] = _text(changes["name"], "floor unit name")
        if "type" in changes:
            changes["type"] = _catalog_entry(catalog, changes["type"], FLOOR_KIND_LIST).id
        if "serves" in changes:
            serves = tuple(changes["serves"])
            missing = [r for r in serves if not project.has_rack(r)]
            if missing:
                raise CommandError(f"no rack with id {missing[0]!r}")
            changes["serves"] = serves
        new = replace(unit, **changes)
        if new.type != unit.type:  # a unit of another size where this one stands
            _refuse(check_move(project, catalog, [floor_footprint(new, catalog)]))
        return project.with_floor_devices([new]), Change(floor_devices=frozenset([self.device_id]))


@dataclass
class RemoveFloorDevicesCommand(Command):
    ids: tuple[str, ...]
    label: str = "Delete floor unit"

    def apply(self, project, catalog):
        for fid in self.ids:
            _floor_device(project, fid)
        return project.removing_floor_devices(self.ids), Change(floor_devices=frozenset(self.ids))


@dataclass
class RenameProjectCommand(Command):
    name: str
    label: str = "Rename project"
    merge_key = "project-name"

    def apply(self, project, catalog):
        name = _text(self.name, "project name")
        if not name.strip():
            raise CommandError("a project needs a name")
        return project.renamed(name), Change(project=True)


@dataclass
class UpdateSettingsCommand(_FieldEdit):
    """Change design assumptions (PUE, coolant, delta-T ...); out-of-range values are refused."""

    changes: dict
    label: str = "Edit design settings"

    def apply(self, project, catalog):
        try:
            settings = project.settings.updated(**self.changes)
        except (SettingsError, TypeError) as exc:
            raise CommandError(str(exc)) from None
        return project.with_settings(settings), Change(project=True)


@dataclass
class SetWorkloadCommand(Command):
    """Set the training job the design is sized for (None clears it)."""

    workload: dict | None
    label: str = "Edit workload"
    merge_key = "workload"

    def apply(self, project, catalog):
        workload = {}
        for key, value in (self.workload or {}).items():
            key = _text(key, "workload setting")
            if isinstance(value, str):
                value = _text(value, f"workload {key}")
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                _bounded(value, f"workload {key}", (-WORKLOAD_MAX, WORKLOAD_MAX))
            elif not isinstance(value, bool) and value is not None:
                raise CommandError(f"workload {key} must be text, a number or true/false")
            workload[key] = value
        return project.with_workload(workload), Change(project=True)


@dataclass
class UpdateQuoteCommand(_FieldEdit):
    """Change the quote's settings (customer, validity, spares, term, cost settings, price list ...).

    ``changes`` maps :class:`~designer.quote.settings.QuoteSettings` fields to new values; a value
    out of range is refused with the setting named.
    """

    changes: dict
    label: str = "Edit quote"

    def apply(self, project, catalog):
        try:
            quote = project.quote.updated(**self.changes)
        except (QuoteError, TypeError) as exc:
            raise CommandError(str(exc)) from None
        return project.with_quote(quote), Change(project=True)


@dataclass
class SetDiscountCommand(Command):
    """Set one bill section's discount, in percent off list (0 removes it)."""

    section: str
    percent: float
    label: str = "Set discount"

    @property
    def merge_key(self):
        return ("discount", self.section)

    def apply(self, project, catalog):
        if self.section not in SECTION_TITLES:
            raise CommandError(f"{self.section!r} is not a section of the bill ({', '.join(SECTION_TITLES)})")
        try:
            quote = project.quote.with_discount(self.section, self.percent)
        except (QuoteError, TypeError) as exc:
            raise CommandError(str(exc)) from None
        return project.with_quote(quote), Change(project=True)


@dataclass
class MacroCommand(Command):
    """Several commands as one undo step (a drag of many racks, a pasted row)."""

    commands: list[Command]
    label: str = "Edit"

    def apply(self, project, catalog):
        change = Change()
        for cmd in self.commands:
            project, c = cmd.apply(project, catalog)
            change = change | c
        return project, change


@dataclass
class _Step:
    command: Command
    before: Project
    after: Project
    change: Change


Listener = Callable[[Project, Change], None]


@dataclass
class Document:
    """The edited project, its undo history, and who to tell when it changes."""

    project: Project
    catalog: Catalog
    limit: int = 500
    revision: int = 0
    _done: list[_Step] = field(default_factory=list)
    _undone: list[_Step] = field(default_factory=list)
    _clean: int | None = 0
    _listeners: list[Listener] = field(default_factory=list)

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        """Stop telling ``listener``; a view that switches documents calls this on the old one."""
        with suppress(ValueError):
            self._listeners.remove(listener)

    def _set(self, project: Project, change: Change) -> None:
        self.project = project
        self.revision += 1
        for listener in list(self._listeners):
            listener(project, change)

    def push(self, command: Command) -> Change:
        """Apply ``command``; raise :class:`CommandError` and change nothing when it is refused."""
        new, change = command.apply(self.project, self.catalog)
        carry_index(self.project, new, self.catalog, change.racks, change.floor_devices)
        if self._clean is not None and self._clean > len(self._done):
            self._clean = None  # the saved state sits in the redo branch this push discards
        last = self._done[-1] if self._done else None
        if (last is not None and command.merge_key is not None and last.command.merge_key == command.merge_key
                and self._clean != len(self._done)):
            self._done[-1] = _Step(last.command.merged_with(command), last.before, new, last.change | change)
        else:
            self._done.append(_Step(command, self.project, new, change))
            if len(self._done) > self.limit:
                del self._done[0]
                self._clean = None if self._clean in (None, 0) else self._clean - 1
        self._undone.clear()
        self._set(new, change)
        return change

    def can_undo(self) -> bool:
        return bool(self._done)

    def can_redo(self) -> bool:
        return bool(self._undone)

    def undo_label(self) -> str:
        return self._done[-1].command.label if self._done else ""

    def redo_label(self) -> str:
        return self._undone[-1].command.label if self._undone else ""

    def undo(self) -> None:
        if not self._done:
            return
        step = self._done.pop()
        self._undone.append(step)
        self._set(step.before, step.change)

    def redo(self) -> None:
        if not self._undone:
            return
        step = self._undone.pop()
        self._done.append(step)
        self._set(step.after, step.change)

    def mark_clean(self) -> None:
        self._clean = len(self._done)

    def mark_unsaved(self) -> None:
        """The project differs from any file on disk (e.g. restored from an autosave)."""
        self._clean = None

    @property
    def dirty(self) -> bool:
        return self._clean != len(self._done)

    def snapshot(self) -> tuple[int, Project]:
        """An immutable view for an engine worker: (revision, project value)."""
        return self.revision, self.project
