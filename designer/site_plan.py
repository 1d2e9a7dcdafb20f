"""A site as its plan shows it: buildings, the rooms in them with their figures, and the cable bundles between.

The window's site view and any report read one :class:`SitePlan`, built from the analysed snapshot and
its analysis: where each room stands comes from :func:`designer.site.hall_origins` (what the engines
measure cables by), each room's power from the power engine's ``halls``, the bundles from the fabric
engine's ``room_links``. Nothing here is computed again: racks and GPUs are counted per room by
:class:`designer.totals.TotalsCounter`, as the status line counts them.

Findings are placed in rooms by what they point at (a rack, a floor unit, a hall), so a room's
errors can be counted and listed; a finding about the whole design (``project:bom``) belongs to no room.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable

from catalog import Catalog

from .model import Project
from .power.electrical_room import electrical_rooms
from .site import cable_entry, hall_origins
from .totals import Totals, TotalsCounter

#: A room without racks.
EMPTY = Totals(racks=0, gpus=0)
#: What a site plan calls rooms that state no building.
NO_BUILDING = ""
#: How far into the corridor (outside the rooms' cable-entry walls) a bundle between rooms is drawn, mm.
CORRIDOR_LANE_MM = 1500.0


@dataclass(frozen=True)
class RoomOnSite:
    """One hall on the site: where it stands (site mm) and what it holds and draws."""
    id: str
    name: str
    kind: str
    building: str
    #: x0, y0, x1, y1 on the site, mm
    rect: tuple[float, float, float, float]
    #: its walls on the site, mm
    outline: tuple[tuple[float, float], ...]
    #: where its cables leave it, on the site, mm
    entry: tuple[float, float]
    racks: int
    gpus: int
    #: typical IT load, kW (None before the power engine has run)
    it_kw: float | None
    #: the power capacity the hall states, kW (None: not stated)
    capacity_kw: float | None
    errors: int = 0
    warnings: int = 0
    #: its electrical room beyond its far wall (designer.power.electrical_room), x0, y0, x1, y1 on the site, mm
    electrical: tuple[float, float, float, float] | None = None

    @property
    def footprint(self) -> tuple[float, float, float, float]:
        """What it takes on the site, its electrical room included."""
        if self.electrical is None:
            return self.rect
        e = self.electrical
        return min(self.rect[0], e[0]), min(self.rect[1], e[1]), max(self.rect[2], e[2]), max(self.rect[3], e[3])

    @property
    def utilisation(self) -> float | None:
        """The share of its stated capacity the typical IT load takes, or None."""
        if self.it_kw is None or not self.capacity_kw:
            return None
        return self.it_kw / self.capacity_kw


@dataclass(frozen=True)
class BuildingOnSite:
    name: str
    #: x0, y0, x1, y1 around its rooms, mm
    rect: tuple[float, float, float, float]
    rooms: tuple[str, ...]
    gpus: int
    it_kw: float | None


@dataclass(frozen=True)
class Bundle:
    """The links between two rooms (``a``, ``b`` hall ids) or two buildings (their names): the compute fabric's
    (``links``, the longest ``longest_m``) and the storage fabric's (``storage_links``, ``storage_longest_m``)."""
    a: str
    b: str
    links: int
    longest_m: float
    #: where it is drawn on the site (mm): between rooms, along their corridor from entry to entry; between
    #: buildings, from one building's hub (its network room's entry) to the other's, a bundle, not a route
    path: tuple[tuple[float, float], ...]
    storage_links: int = 0
    storage_longest_m: float = 0.0

    @property
    def all_links(self) -> int:
        """Every cable of the bundle, both fabrics'."""
        return self.links + self.storage_links


@dataclass(frozen=True)
class SitePlan:
    rooms: tuple[RoomOnSite, ...]
    buildings: tuple[BuildingOnSite, ...]
    #: bundles between rooms of one building (or of a site without buildings)
    room_bundles: tuple[Bundle, ...]
    #: bundles between buildings: every link between a room of one and a room of the other
    building_bundles: tuple[Bundle, ...]
    #: x0, y0, x1, y1 around every room, mm
    extent: tuple[float, float, float, float]

    @property
    def is_site(self) -> bool:
        """More than one room: a site plan says more than the hall's floor plan."""
        return len(self.rooms) > 1

    def room(self, hall_id: str) -> RoomOnSite:
        return next(r for r in self.rooms if r.id == hall_id)

    @classmethod
    def of(cls, project: Project, catalog: Catalog, analysis=None, counter: TotalsCounter | None = None) -> SitePlan:
        """The plan of ``project``; with ``analysis`` (of this project) each room's power, findings and the
        bundles between rooms. ``counter``: a :class:`TotalsCounter` kept between calls, so that after an edit
        only the racks it changed are counted again."""
        per_room = (counter or TotalsCounter(catalog)).by_hall(project)
        power = _room_power(analysis)
        faults = room_findings(project, analysis.findings) if analysis is not None else {}
        rooms: list[RoomOnSite] = []
        electrical = electrical_rooms(project)
        for hall, (ox, oy) in zip(project.halls, hall_origins(project.halls)):
            er = electrical.get(hall.id)
            x0, y0, x1, y1 = hall.bounds
            ex, ey = cable_entry(hall)
            counted = per_room.get(hall.id, EMPTY)
            racks, gpus = counted.racks, counted.gpus
            severities = Counter(f.severity for f in faults.get(hall.id, ()))
            rooms.append(RoomOnSite(
                id=hall.id, name=hall.label, kind=hall.kind, building=hall.building,
                rect=(x0 + ox, y0 + oy, x1 + ox, y1 + oy), outline=tuple((x + ox, y + oy) for x, y in hall.outline),
                entry=(ex + ox, ey + oy), racks=racks, gpus=gpus,
                it_kw=power.get(hall.id), capacity_kw=hall.power_capacity_kw,
                errors=severities["error"], warnings=severities["warning"],
                electrical=None if er is None else (er.x + ox, er.y + oy, er.x + er.width + ox, er.y + er.depth + oy)))
        buildings = _buildings(rooms)
        room_bundles, building_bundles = _bundles(rooms, analysis)
        extent = (min((r.footprint[0] for r in rooms), default=0.0), min((r.footprint[1] for r in rooms), default=0.0),
                  max((r.footprint[2] for r in rooms), default=0.0), max((r.footprint[3] for r in rooms), default=0.0))
        return cls(tuple(rooms), buildings, room_bundles, building_bundles, extent)


def hall_of_place(project: Project, where: str) -> str:
    """The hall a finding's place lies in (its id), or "" for a place of the whole design."""
    kind, _, ident = where.partition(":")
    if kind == "rack" and project.has_rack(ident):
        return project.rack(ident).hall
    if kind == "floor" and project.has_floor_device(ident):
        return project.floor_device(ident).hall
    if kind == "hall":
        return ident
    return ""


def room_findings(project: Project, findings: Iterable) -> dict[str, list]:
    """Each hall's findings (by hall id): those whose first place lies in it."""
    out: dict[str, list] = defaultdict(list)
    for f in findings:
        hall = hall_of_place(project, f.where)
        if hall:
            out[hall].append(f)
    return out


def _room_power(analysis) -> dict[str, float]:
    if analysis is None or not analysis.has("power"):
        return {}
    return {h.id: h.it_typical_kw for h in analysis.power.halls}


def _buildings(rooms: list[RoomOnSite]) -> tuple[BuildingOnSite, ...]:
    groups: dict[str, list[RoomOnSite]] = {}
    for r in rooms:
        groups.setdefault(r.building, []).append(r)
    if set(groups) == {NO_BUILDING}:
        return ()  # a site that names no building draws none
    out = []
    for name, members in groups.items():
        loads = [r.it_kw for r in members if r.it_kw is not None]
        out.append(BuildingOnSite(
            name=name or "Rooms without a building",
            rect=(min(r.footprint[0] for r in members), min(r.footprint[1] for r in members),
                  max(r.footprint[2] for r in members), max(r.footprint[3] for r in members)),
            rooms=tuple(r.id for r in members), gpus=sum(r.gpus for r in members),
            it_kw=sum(loads) if loads else None))
    return tuple(out)


def _corridor(a: tuple[float, float], b: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    """The run from entry ``a`` to entry ``b`` of one building: out into the corridor, along it, back in."""
    lane = min(a[1], b[1]) - CORRIDOR_LANE_MM
    return (a, (a[0], lane), (b[0], lane), b)


def _room_links(analysis) -> list[tuple[object, int]]:
    """Each fabric's links between rooms, with the fabric's slot (0: compute, 1: storage)."""
    out: list[tuple[object, int]] = []
    if analysis is not None and analysis.has("fabric"):
        out += [(link, 0) for link in analysis.fabric.room_links or ()]
    if analysis is not None and analysis.has("storage"):
        out += [(link, 1) for link in analysis.storage.fabric.room_links or ()]
    return out


def _bundles(rooms: list[RoomOnSite], analysis) -> tuple[tuple[Bundle, ...], tuple[Bundle, ...]]:
    """The bundles between rooms of one building and between buildings, each with both fabrics' links: per pair,
    [compute links, compute longest, storage links, storage longest]."""
    by_id = {r.id: r for r in rooms}
    inside: dict[tuple[str, str], list] = {}
    between: dict[tuple[str, str], list] = {}
    for link, slot in _room_links(analysis):
        ra, rb = by_id.get(link.a), by_id.get(link.b)
        if ra is None or rb is None:
            continue
        if ra.building == rb.building:
            acc = inside.setdefault((ra.id, rb.id), [0, 0.0, 0, 0.0])
        else:
            acc = between.setdefault(tuple(sorted((ra.building, rb.building))), [0, 0.0, 0, 0.0])
        acc[2 * slot] += link.links
        acc[2 * slot + 1] = max(acc[2 * slot + 1], link.longest_m)
    order = {r.id: i for i, r in enumerate(rooms)}
    room_bundles = tuple(Bundle(a, b, n, m, _corridor(by_id[a].entry, by_id[b].entry), sn, sm)
                         for (a, b), (n, m, sn, sm) in sorted(inside.items(), key=lambda kv: (order[kv[0][0]],
                                                                                                 order[kv[0][1]])))
    hubs = _building_hubs(rooms)
    building_bundles = tuple(Bundle(a, b, n, m, (hubs[a], hubs[b]), sn, sm)
                             for (a, b), (n, m, sn, sm) in sorted(between.items()))
    return room_bundles, building_bundles


def _building_hubs(rooms: list[RoomOnSite]) -> dict[str, tuple[float, float]]:
    """Where a building's bundles leave it: its network room's entry, or the middle of its rooms' entries."""
    hubs: dict[str, tuple[float, float]] = {}
    for r in rooms:
        if r.kind == "network" and r.building not in hubs:
            hubs[r.building] = r.entry
    for name in {r.building for r in rooms} - set(hubs):
        entries = [r.entry for r in rooms if r.building == name]
        hubs[name] = (sum(e[0] for e in entries) / len(entries), sum(e[1] for e in entries) / len(entries))
    return hubs
