"""Putting racks and floor units on the floor, and moving them: the one way a drag, a paste or the
generator places anything. Everything that arrives together is checked together (ids, catalog types,
U space, placement), so a refused edit leaves the document as it was.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from catalog import Catalog

from ..bounds import MAX_TEXT_CHARS, RACK_LIMIT_KW, id_key
from ..model import FACES, FloorDevice, Project, Rack
from ..placement import check_move, check_new, footprints_of
from ..rules import rack_space_problem
from .base import Change, Command, CommandError
from .validation import (FLOOR_KIND_LIST, MOUNT_KINDS, catalog_entry, check_bounded, check_fresh_id, checked_place,
                         checked_text, existing_floor_device, existing_rack, refuse)


#: Key under which ``_new_rack``'s cache keeps the types the U-space check looked up (racks included).
_SPACE_TYPES = object()


def _plain_devices(project: Project, catalog: Catalog, racks, kinds: dict) -> bool:
    """Whether every device of ``racks`` passes the device checks of :func:`_new_rack` and is kept by them as it is:
    a catalog type of a mountable kind named by its own id, a face, an id and a name of printable ASCII within the
    limits (text kept as it is, ids compared as they are), no id twice nor already in the design.

    Why: a generated site brings hundreds of thousands of devices at once, and checking them as whole columns (one
    string test over all the ids, one set) is several times faster than one by one. Any doubt returns False, and
    the racks are checked one device at a time, which names the first fault exactly as before."""
    try:
        devices = [d for r in racks for d in r.devices]
        for t in {d.type for d in devices}:
            dtype = kinds.get(t)
            if dtype is None:
                dtype = kinds[t] = catalog_entry(catalog, t, MOUNT_KINDS)
            if dtype.id != t:
                return False
        ids = [d.id for d in devices]
        names = [d.name for d in devices]
        text = "".join(ids) + "".join(names)  # a TypeError where one is not text
        if not (text.isascii() and text.isprintable()) or {d.face for d in devices} - set(FACES):
            return False
    except (CommandError, TypeError, AttributeError):  # what the one-by-one checks refuse, in their order
        return False
    if max(map(len, ids), default=0) > MAX_TEXT_CHARS or max(map(len, names), default=0) > MAX_TEXT_CHARS:
        return False
    if not all(map(str.strip, ids)) or len(set(ids)) != len(ids):
        return False
    return not project.racks or all(project.device_id_rack(i) is None for i in ids)


def _new_rack(project: Project, catalog: Catalog, r: Rack, taken: set[str], kinds: dict | None = None,
              device_ids: set[str] | None = None, devices_checked: bool = False) -> Rack:
    """``r`` checked as a new rack (its place is checked with the others it arrives with).

    ``kinds`` caches the mountable catalog entries by the id asked for, across the racks of one command;
    ``device_ids`` gathers the device ids of the racks that arrive with it (unique in the whole design);
    ``devices_checked``: :func:`_plain_devices` passed the devices of every rack arriving, as they are.
    """
    rtype = catalog_entry(catalog, r.type, ["rack"])
    if not project.has_hall(r.hall):
        raise CommandError(f"rack {r.name!r}: no hall with id {r.hall!r}")
    ident = checked_text(r.id, "rack id", ident=True)
    check_fresh_id(project, ident, taken, "rack")
    name, row = checked_text(r.name, f"rack {ident!r} name"), checked_text(r.row, f"rack {ident!r} row")
    if r.power_limit_kw is not None:
        check_bounded(r.power_limit_kw, "rack power limit", RACK_LIMIT_KW, " kW")
    place = checked_place((r.x, r.y, r.rotation), f"rack {r.name or r.id}")
    types = kinds if kinds is not None else {}
    devices = []
    ids: set[str] = set()
    others = device_ids if device_ids is not None else set()
    for d in () if devices_checked else r.devices:
        dtype = types.get(d.type)
        if dtype is None:
            dtype = types[d.type] = catalog_entry(catalog, d.type, MOUNT_KINDS)
        if not isinstance(d.id, str) or not d.id.strip():
            raise CommandError(f"rack {name!r}: a device needs an id")
        dev_id = checked_text(d.id, f"rack {name!r}: device id", ident=True)
        key = id_key(dev_id)  # ids are compared after NFKC
        if key in ids:
            raise CommandError(f"rack {name!r}: two devices share an id")
        in_rack = project.device_id_rack(dev_id)
        if in_rack is not None or key in others:  # a finding or a cable end names a device by its id alone
            where = f"rack {project.rack(in_rack).name!r}" if in_rack is not None else "another new rack"
            raise CommandError(f"rack {name!r}: device id {dev_id!r} is already used in {where}")
        ids.add(key)
        dev_name = checked_text(d.name, f"rack {name!r}: device name")
        if d.face not in FACES:
            raise CommandError(f"rack {name!r}: face must be front or rear, got {d.face!r}")
        if dtype.id != d.type or dev_id is not d.id or dev_name is not d.name:
            d = replace(d, type=dtype.id, id=dev_id, name=dev_name)
        devices.append(d)
    others |= ids
    devices = tuple(r.devices) if devices_checked else tuple(devices)
    if not (ident is r.id and name is r.name and row is r.row and rtype.id == r.type and devices == r.devices
            and all(type(getattr(r, k)) is float and getattr(r, k) == v for k, v in place.items())):
        r = replace(r, id=ident, name=name, row=row, type=rtype.id, devices=devices, **place)
    problem = rack_space_problem(catalog, r, types.setdefault(_SPACE_TYPES, {}))
    if problem:
        raise CommandError(problem)
    return r


def _new_floor_device(project: Project, catalog: Catalog, d: FloorDevice, taken: set[str],
                      new_racks: set[str]) -> FloorDevice:
    dtype = catalog_entry(catalog, d.type, FLOOR_KIND_LIST)
    if not project.has_hall(d.hall):
        raise CommandError(f"floor unit {d.name or d.id!r}: no hall with id {d.hall!r}")
    ident = checked_text(d.id, "floor unit id", ident=True)
    check_fresh_id(project, ident, taken, "floor unit")
    name = checked_text(d.name, f"floor unit {ident!r} name")
    place = checked_place((d.x, d.y, d.rotation), f"floor unit {d.name or d.id}")
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
        plain = _plain_devices(project, catalog, self.racks, kinds)
        racks = [_new_rack(project, catalog, r, taken, kinds, device_ids, plain) for r in self.racks]
        rack_ids = {r.id for r in racks}
        floors = [_new_floor_device(project, catalog, d, taken, rack_ids) for d in self.floor_devices]
        refuse(check_new(project, catalog, footprints_of(racks, floors, catalog)))
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
            rack = existing_rack(project, rid)
            racks.append(replace(rack, **checked_place(place, f"rack {rack.name or rack.id}")))
        floors = []
        for fid, place in self.floor_devices.items():
            unit = existing_floor_device(project, fid)
            floors.append(replace(unit, **checked_place(place, f"floor unit {unit.name or unit.id}")))
        refuse(check_move(project, catalog, footprints_of(racks, floors, catalog)))
        return project.with_racks(racks).with_floor_devices(floors), \
            Change(racks=frozenset(self.racks), floor_devices=frozenset(self.floor_devices))
