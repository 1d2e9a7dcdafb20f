"""The project model: project -> halls -> racks -> mounted devices, plus floor devices.

Every object is an immutable value. An edit makes a new :class:`Project` that
shares everything it did not touch with the old one, so a snapshot for an
engine worker is the project value itself (O(1)), and undo keeps the old value.

Coordinates are millimetres in the hall's plane. A rack's ``x, y`` is the centre
of its footprint; ``rotation`` is in degrees clockwise; at 0 the rack's width
runs along x, its depth along y, and its front faces toward -y. Footprints,
and the rules of where they may stand, are :mod:`designer.placement`'s.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Iterable

from .bounds import id_key
from .facility import NO_FACILITY, Facility
from .quote_settings import QuoteSettings
from .settings import Settings

FACES = ("front", "rear")
HALL_KINDS = ("data", "network")


@dataclass(frozen=True, slots=True)
class Hall:
    id: str
    name: str
    outline: tuple[tuple[float, float], ...]
    tile_mm: float = 600.0
    power_capacity_kw: float | None = None
    #: Heat the room's air system (CRAH/CRAC) can remove.
    cooling_capacity_kw: float | None = None
    #: Heat the facility water loop can take from CDUs.
    liquid_cooling_capacity_kw: float | None = None
    floor_rating_kg_m2: float | None = None
    #: Default per-rack power limit for racks that set none.
    rack_power_limit_kw: float | None = None
    #: The power chain above the racks, the air and water classes, the floor tiles (:mod:`designer.facility`).
    facility: Facility = NO_FACILITY
    #: The building the hall stands in, by name ("" : the site has one building, or none is stated).
    building: str = ""
    #: Where the hall's (0, 0) lies on the site plan, mm; None: beside the hall before it (:mod:`designer.site`).
    site_origin: tuple[float, float] | None = None
    #: What the room is for: a data hall ("data") or a building's network room ("network"), which holds the
    #: fabric's upper tier and the site's shared networks.
    kind: str = "data"

    @property
    def label(self) -> str:
        """What a person reads for the hall: its name, or its id when it has none (as the plan titles it)."""
        return self.name or self.id

    @property
    def area_m2(self) -> float:
        pts = self.outline
        s = sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1]))
        return abs(s) / 2e6

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        xs = [p[0] for p in self.outline]
        ys = [p[1] for p in self.outline]
        return min(xs), min(ys), max(xs), max(ys)


@dataclass(frozen=True, slots=True)
class MountedDevice:
    id: str
    type: str
    #: Lowest rack unit the device occupies (1-based); None for 0U devices (vertical PDUs).
    u: float | None
    face: str = "front"
    name: str = ""


@dataclass(frozen=True, slots=True)
class Rack:
    id: str
    name: str
    hall: str
    type: str
    x: float
    y: float
    rotation: float = 0.0
    row: str = ""
    devices: tuple[MountedDevice, ...] = ()
    power_limit_kw: float | None = None

    def device(self, device_id: str) -> MountedDevice:
        for d in self.devices:
            if d.id == device_id:
                return d
        raise KeyError(device_id)

    def with_device(self, device: MountedDevice) -> Rack:
        return replace(self, devices=self.devices + (device,))

    def without_device(self, device_id: str) -> Rack:
        self.device(device_id)
        return replace(self, devices=tuple(d for d in self.devices if d.id != device_id))

    def replacing_device(self, device: MountedDevice) -> Rack:
        self.device(device.id)
        return replace(self, devices=tuple(device if d.id == device.id else d for d in self.devices))


@dataclass(frozen=True, slots=True)
class FloorDevice:
    id: str
    type: str
    hall: str
    x: float
    y: float
    rotation: float = 0.0
    name: str = ""
    #: Racks this unit serves (a CDU's loop, a PDU's feeds); empty = unassigned.
    serves: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Rename:
    """Devices of a project file that named ``old``, a catalog id the catalog has since renamed (an entry's
    ``"replaces"``): they opened as the catalog's ``new`` entry."""

    old: str
    new: str
    #: how many devices, racks and floor units named it
    count: int
    #: where they are: ``rack:<id>`` or ``floor:<id>``, in file order
    places: tuple[str, ...] = ()


@dataclass(frozen=True)
class Project:
    """A whole design. Immutable; use the ``with_*`` methods (or commands) to edit."""

    name: str = "Untitled"
    description: str = ""
    currency: str = "USD"
    halls: tuple[Hall, ...] = ()
    racks: tuple[Rack, ...] = ()
    floor_devices: tuple[FloorDevice, ...] = ()
    settings: Settings = field(default_factory=Settings)
    #: The training job the design is sized for (model, tokens, plan); read by the training engine.
    workload: tuple[tuple[str, object], ...] = ()
    #: Who the quote is for, discounts, optional lines, price list and cost-of-ownership settings.
    quote: QuoteSettings = field(default_factory=QuoteSettings)
    #: The renamed catalog ids the file this value was opened from named, set by the file reader; the analysis
    #: reports them (``catalog-renamed``). Not part of the design: not compared, and not saved (a save writes
    #: the new ids, so the file opens without them). Edits keep it, until the design is saved and opened again.
    renames: tuple[Rename, ...] = field(default=(), compare=False)

    # -- lookups (computed once per value) ---------------------------------
    @cached_property
    def _rack_pos(self) -> dict[str, int]:
        return {r.id: i for i, r in enumerate(self.racks)}

    @cached_property
    def _hall_pos(self) -> dict[str, int]:
        return {h.id: i for i, h in enumerate(self.halls)}

    @cached_property
    def _floor_pos(self) -> dict[str, int]:
        return {f.id: i for i, f in enumerate(self.floor_devices)}

    def rack(self, rack_id: str) -> Rack:
        return self.racks[self._rack_pos[rack_id]]

    def hall(self, hall_id: str) -> Hall:
        return self.halls[self._hall_pos[hall_id]]

    def floor_device(self, device_id: str) -> FloorDevice:
        return self.floor_devices[self._floor_pos[device_id]]

    def has_rack(self, rack_id: str) -> bool:
        return rack_id in self._rack_pos

    def has_hall(self, hall_id: str) -> bool:
        return hall_id in self._hall_pos

    def has_floor_device(self, device_id: str) -> bool:
        return device_id in self._floor_pos

    def racks_in(self, hall_id: str) -> list[Rack]:
        return [r for r in self.racks if r.hall == hall_id]

    # -- edits --------------------------------------------------------------
    def with_racks(self, racks: Iterable[Rack]) -> Project:
        """Replace racks by id (each must exist)."""
        items = list(self.racks)
        for r in racks:
            items[self._rack_pos[r.id]] = r
        return replace(self, racks=tuple(items))

    def adding_racks(self, racks: Iterable[Rack]) -> Project:
        new = tuple(racks)
        for r in new:
            if r.id in self._rack_pos:
                raise KeyError(f"rack id {r.id!r} already exists")
        return replace(self, racks=self.racks + new)

    def removing_racks(self, rack_ids: Iterable[str]) -> Project:
        """Without these racks, and without references to them (a CDU's ``serves``)."""
        gone = set(rack_ids)
        floor = tuple(replace(f, serves=tuple(r for r in f.serves if r not in gone)) if gone & set(f.serves) else f
                      for f in self.floor_devices)
        return replace(self, racks=tuple(r for r in self.racks if r.id not in gone), floor_devices=floor)

    @cached_property
    def _device_rack(self) -> dict[str, str]:
        return {d.id: r.id for r in self.racks for d in r.devices}

    def device_rack(self, device_id: str) -> str | None:
        """The id of the rack a mounted device is in (device ids are unique in the whole design), or None."""
        return self._device_rack.get(device_id)

    @cached_property
    def _folded_ids(self) -> dict[str, str]:
        """The non-ASCII hall, rack and floor unit ids by what they are compared by (NFKC)."""
        return {id_key(i): i for i in (*self._hall_pos, *self._rack_pos, *self._floor_pos) if not i.isascii()}

    @cached_property
    def _folded_devices(self) -> dict[str, str]:
        """The non-ASCII mounted device ids by what they are compared by (NFKC) -> the rack's id."""
        return {id_key(d): r for d, r in self._device_rack.items() if not d.isascii()}

    def uses_id(self, ident: str) -> bool:
        """Whether a hall, rack or floor unit already has this id, compared after NFKC (ids are unique across
        all three)."""
        key = id_key(ident)
        return key in self._rack_pos or key in self._hall_pos or key in self._floor_pos or key in self._folded_ids

    def device_id_rack(self, device_id: str) -> str | None:
        """The id of the rack holding a mounted device whose id is ``device_id`` compared after NFKC, or None."""
        key = id_key(device_id)
        return self._device_rack.get(key) or self._folded_devices.get(key)

    def with_hall(self, hall: Hall) -> Project:
        items = list(self.halls)
        items[self._hall_pos[hall.id]] = hall
        return replace(self, halls=tuple(items))

    def adding_hall(self, hall: Hall) -> Project:
        if hall.id in self._hall_pos:
            raise KeyError(f"hall id {hall.id!r} already exists")
        return replace(self, halls=self.halls + (hall,))

    def with_floor_devices(self, devices: Iterable[FloorDevice]) -> Project:
        items = list(self.floor_devices)
        for d in devices:
            items[self._floor_pos[d.id]] = d
        return replace(self, floor_devices=tuple(items))

    def adding_floor_devices(self, devices: Iterable[FloorDevice]) -> Project:
        new = tuple(devices)
        for d in new:
            if d.id in self._floor_pos:
                raise KeyError(f"floor device id {d.id!r} already exists")
        return replace(self, floor_devices=self.floor_devices + new)

    def removing_floor_devices(self, ids: Iterable[str]) -> Project:
        gone = set(ids)
        return replace(self, floor_devices=tuple(d for d in self.floor_devices if d.id not in gone))

    def renamed(self, name: str) -> Project:
        return replace(self, name=name)

    def with_settings(self, settings: Settings) -> Project:
        return replace(self, settings=settings)

    def with_quote(self, quote: QuoteSettings) -> Project:
        return replace(self, quote=quote)

    def with_workload(self, workload: dict | None) -> Project:
        return replace(self, workload=tuple(sorted((workload or {}).items())))

    @property
    def workload_dict(self) -> dict | None:
        return dict(self.workload) if self.workload else None


def copied_devices(project: Project, rack: Rack, new_rack_id: str, used: set[str]) -> tuple[MountedDevice, ...]:
    """``rack``'s devices for a copy of it named ``new_rack_id``: an id that began with the old rack's id
    begins with the new one; an id the design or ``used`` (the other copies') already holds gets a fresh
    one, as device ids are unique in a design. The ids given are added to ``used``."""
    out = []
    n = 0
    for d in rack.devices:
        ident = new_rack_id + d.id[len(rack.id):] if d.id.startswith(rack.id) else d.id
        while ident in used or project.device_rack(ident) is not None:
            n += 1
            ident = f"{new_rack_id}-d{n}"
        used.add(ident)
        out.append(d if ident == d.id else replace(d, id=ident))
    return tuple(out)


def new_device_id(project: Project, rack_id: str, in_rack: Iterable[MountedDevice] = ()) -> str:
    """An id for a new device in rack ``rack_id`` (holding ``in_rack``, for a rack not in the project yet),
    free in the whole design."""
    taken = {d.id for d in in_rack}
    n = len(taken) + 1
    while f"{rack_id}-d{n}" in taken or project.device_rack(f"{rack_id}-d{n}") is not None:
        n += 1
    return f"{rack_id}-d{n}"
