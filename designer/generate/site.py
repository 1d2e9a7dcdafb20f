"""A design larger than one hall: a site of data halls in buildings, each building with a network room.

Why halls by power: a data hall is built, fed and cooled as one power block, its own
UPS, generators and facility water, so the generator fills halls up to a block of IT
power (``--hall-mw``; unasked, 40 MW for liquid-cooled systems and 20 MW for air-cooled
ones, the ~20-40 MW halls of current AI campuses: a planning choice, not a figure any
vendor publishes). Each hall holds whole scalable units with their leaves, and in a
three-tier fabric whole pods with their spines wherever the block holds a pod, so a
leaf's uplinks never leave its hall.

Why network rooms: the fabric's upper tier (cores, or super-spines on Ethernet; the
spines of a two-tier fabric) joins every pod, so it stands apart from the halls, shared
out over one network room per building; the site's shared networks (storage spines and
arrays, in-band, UFM and management nodes) stand in the first building's room.

Why this shape: a building is its rooms side by side along a corridor, every room's
cable entry on the corridor wall (:mod:`designer.site`), the network room in the middle
so its runs to the building's halls are the shortest the row allows; buildings stand in a
grid with 30 m between them for roads and duct banks, along a spiral from the middle of the site
(the upper tier in the central ones, each building beside the one before it). Four halls to a building
(~160 MW of liquid-cooled IT) is about the ~150 MW per building of a published campus
(Stargate Abilene: phase 1, 2 buildings and 200 MW; 8 buildings and ~1.2 GW in all).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from catalog import Catalog

from ..model import MountedDevice
from .layout import TILE, Grid, plan_grid
from .network_racks import band_places, group_places, upper_tier_name
from .rack_filling import RackBuilder
from .spec import GenerateError, SuperpodSpec, SystemProfile

#: IT power of one hall when none is asked for, kW, by whether the system is mostly liquid-cooled.
DEFAULT_HALL_KW = {True: 40_000.0, False: 20_000.0}
DEFAULT_HALLS_PER_BUILDING = 4
#: The building's corridor along its rooms' entry walls, where the trays between rooms run.
CORRIDOR_MM = 6000.0
#: Between two rooms of one building (a wall and its clearances).
ROOM_GAP_MM = 1200.0
#: Between buildings: roads, yards and the duct banks the campus fibre runs in.
BUILDING_GAP_MM = 30_000.0
#: Most halls a site is split into (a bound on the work and on the file).
MAX_HALLS = 500
#: Rack positions along one row of a network room.
ROOM_ROW_RACKS = 24


def hall_block_kw(spec: SuperpodSpec, profile: SystemProfile, catalog: Catalog) -> float:
    """The IT power one hall holds: the hall power asked for, else the default for the system's cooling."""
    if spec.hall_power_kw is not None:
        return spec.hall_power_kw
    return DEFAULT_HALL_KW[(catalog.get(profile.id).liquid_fraction or 0.0) >= 0.5]


def su_power_kw(network_items: list[tuple[list, list]], su_units: int, profile: SystemProfile,
                catalog: Catalog) -> float:
    """Most IT power one SU draws with its network racks: its systems at their maximum and the switches and
    appliances of its busiest SU's network racks."""
    cache: dict[str, float] = {}

    def kw(type_id: str) -> float:
        if type_id not in cache:
            cache[type_id] = (catalog.get(type_id).power_max_w or 0.0) / 1000.0
        return cache[type_id]

    network = max((sum(kw(item[1]) for side in pair for item in side) for pair in network_items), default=0.0)
    return su_units * profile.node_max_kw + network


def cuts(tree, nodes_per_su: int, sus: int, pods: bool = True) -> list[int]:
    """The SUs a hall may start at: where a leaf block starts (its leaves stand in the SU of its first node, so a
    block cut in two would cable its nodes across halls), and with ``pods`` in a three-tier fabric where a pod
    starts too (its spines stand with its SUs)."""
    unit = tree.leaf_down * (tree.pod_leaves // tree.rails if pods and tree.tiers == 3 else 1)
    return [s for s in range(sus) if s * nodes_per_su % unit == 0]


def split_halls(sus: int, max_sus: int, starts: list[int]) -> list[tuple[int, int]]:
    """SU ranges [first, last) of the halls, each starting at one of ``starts``: as few halls of at most ``max_sus``
    SUs as hold them, as evenly filled as the starts allow (the last takes what is left); [] when the stretch
    between two starts is more than a hall holds."""
    bounds = sorted(set(starts) | {0}) + [sus]
    chunks = [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]
    if max_sus < 1 or max(b - a for a, b in chunks) > max_sus:
        return []

    def pack(capacity: int) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for a, b in chunks:
            if out and b - out[-1][0] <= capacity:
                out[-1] = (out[-1][0], b)
            else:
                out.append((a, b))
        return out

    fewest = len(pack(max_sus))
    # the smallest capacity that still needs no more halls: the SUs shared out as evenly as the starts allow
    for capacity in range(math.ceil(sus / fewest), max_sus + 1):
        halls = pack(capacity)
        if len(halls) == fewest:
            return halls
    return pack(max_sus)


def hall_grid(seg_mm: float, su_count: int, hall_mm: tuple[float, float] | None, side_mm: float,
              per_segment: int = 1) -> Grid:
    """A site hall's grid: its SUs' row pairs, no band (its upper tier stands in the network room)."""
    return plan_grid(seg_mm, su_count, 0, hall_mm, side_mm=side_mm, per_segment=per_segment)


def room_grid(racks: int) -> Grid:
    """A network room's grid: rows of up to 24 racks in pairs, near square."""
    row_mm = ROOM_ROW_RACKS * TILE
    best = None
    for columns in range(1, 65):
        pairs = max(1, math.ceil(racks / (2 * ROOM_ROW_RACKS * columns)))
        g = Grid(row_mm, 1, 0, columns, pairs)
        if best is None or abs(math.log(g.width_mm / g.depth_mm)) < abs(math.log(best.width_mm / best.depth_mm)):
            best = g
        if pairs == 1:
            break
    return best


#: Most buildings whose network rooms hold the fabric's upper tier: the central ones (:func:`spiral_cells` puts the
#: first four in a 2 x 2 block in the middle of the site). Every pod runs to every upper-tier room, so spread over a
#: whole campus of a million GPUs the longest run is its corner-to-corner route (~2.2 km on 28 buildings, past the
#: 2 km of 2 x FR4); from the middle block it is about half that, and four rooms still share the tier's power.
UPPER_TIER_BUILDINGS = 4


def share_upper_tier(band_groups: list[tuple[str, list]], tree, buildings: int
                     ) -> list[list[tuple[str, list]]]:
    """Each building's network room's racks by title: the racks of the fabric's upper tier (cores, super-spines; a
    two-tier fabric's spines) shared out evenly in name order over the central buildings (at most
    :data:`UPPER_TIER_BUILDINGS`), every other band rack in the first building's."""
    key = upper_tier_name(tree).upper() if tree.tiers == 3 else "SPINE"
    top = next((stacks for title, stacks in band_groups if title == key), [])
    rest = [(title, stacks) for title, stacks in band_groups if title != key]
    rooms = []
    hosts = min(buildings, UPPER_TIER_BUILDINGS)
    for b in range(buildings):
        share = top[b * len(top) // hosts:(b + 1) * len(top) // hosts] if b < hosts else []
        rooms.append(([(key, share)] if share else []) + (rest if b == 0 else []))
    return rooms


@dataclass(frozen=True)
class Room:
    """One room being laid out: its id, name, building, kind, and the size of its floor once planned; ``annex``:
    the (width, depth) its electrical room takes beyond its far wall, wall included (designer.power.electrical_room),
    once its facility is sized."""

    id: str
    name: str
    building: int
    kind: str
    width_mm: float = 0.0
    depth_mm: float = 0.0
    annex: tuple[float, float] = (0.0, 0.0)

    @property
    def footprint(self) -> tuple[float, float]:
        """Width and depth the room takes in its building, its electrical room included."""
        return max(self.width_mm, self.annex[0]), self.depth_mm + self.annex[1]


def place_rooms(rooms: list[Room], buildings: int) -> dict[str, tuple[float, float]]:
    """Each room's site origin: rooms side by side along their building's corridor (the network room in the
    middle), buildings in a grid along :func:`spiral_cells`: the first in the middle of the site, each next beside
    the one before."""
    by_building: list[list[Room]] = [[] for _ in range(buildings)]
    for r in rooms:
        by_building[r.building].append(r)
    sizes = []
    for b, members in enumerate(by_building):
        halls = [r for r in members if r.kind == "data"]
        nets = [r for r in members if r.kind != "data"]
        order = by_building[b] = halls[:len(halls) // 2] + nets + halls[len(halls) // 2:]
        width = sum(r.footprint[0] for r in order) + ROOM_GAP_MM * (len(order) + 1)
        depth = CORRIDOR_MM + max((r.footprint[1] for r in order), default=0.0) + ROOM_GAP_MM
        sizes.append((width, depth))
    col_w = max(w for w, _ in sizes) + BUILDING_GAP_MM
    row_d = max(d for _, d in sizes) + BUILDING_GAP_MM
    cells = spiral_cells(buildings)
    origins: dict[str, tuple[float, float]] = {}
    for b, order in enumerate(by_building):
        row, col = cells[b]
        bx, by = col * col_w, row * row_d
        x = bx + ROOM_GAP_MM
        for r in order:
            origins[r.id] = (x, by + CORRIDOR_MM)
            x += r.footprint[0] + ROOM_GAP_MM
    return origins


def spiral_cells(n: int) -> list[tuple[int, int]]:
    """``n`` grid cells (row, column) along a square spiral from the centre, counted from the top-left cell.

    Why a spiral: the first buildings, whose network rooms hold the fabric's upper tier and the shared networks,
    stand in the middle of the site (the first four a 2 x 2 block), and each building stands beside the one
    before, so a pod whose halls run on into the next building stays a building's width from its spines."""
    cells, r, c, step, d = [(0, 0)], 0, 0, 1, 0
    moves = ((0, 1), (1, 0), (0, -1), (-1, 0))
    while len(cells) < n:
        for _ in range(2):
            dr, dc = moves[d % 4]
            for _ in range(step):
                r, c = r + dr, c + dc
                cells.append((r, c))
            d += 1
        step += 1
    cells = cells[:n]
    top, left = min(r for r, _ in cells), min(c for _, c in cells)
    return [(r - top, c - left) for r, c in cells]


def building_name(b: int) -> str:
    return f"Building {b + 1}"


def place_room_racks(b: RackBuilder, groups: list[tuple[str, list[list[MountedDevice]]]], grid: Grid,
                     numbers: dict[str, int]) -> None:
    """The network room's racks, nearest its centre first (the storage appliances' side by side,
    :func:`.network_racks.group_places`), titled as the band's (CORE-01 …) and numbered on from ``numbers`` so
    that every room's racks have names of their own."""
    slots = band_places(grid)
    if sum(len(g) for _, g in groups) > len(slots):
        raise GenerateError("a network room has no place for every network rack")
    k = 0
    for title, stacks in groups:
        places = group_places(slots, k, len(stacks), title)
        for devs, place in zip(stacks, places):
            numbers[title] = numbers.get(title, 0) + 1
            rid = f"{title.lower()}-{numbers[title]:02d}"
            b.rack(rid, f"{title}-{numbers[title]:02d}", place, [_prefixed(rid, d) for d in devs])
        k += len(stacks)


def _prefixed(rid: str, d: MountedDevice) -> MountedDevice:
    return MountedDevice(f"{rid}-{d.id}", d.type, d.u, d.face, d.name)


#: Racks of the fabric's upper tier in a network room, by the titles their names start with.
UPPER_TITLES = ("CORE-", "SUPERSPINE-", "SPINE-")


def farthest_from_entry(rooms: list[Room], racks) -> dict[str, float]:
    """Each room's farthest rack the upper-tier runs start from, mm from its cable entry (the middle of its corridor
    wall) along the room's trays: a data hall's SU network racks, a network room's upper-tier racks; rooms with none
    are left out."""
    size = {r.id: r for r in rooms}
    far: dict[str, float] = {}
    for rack in racks:
        room = size[rack.hall]
        wanted = "-net" in rack.id if room.kind == "data" else rack.name.startswith(UPPER_TITLES)
        if wanted:
            d = abs(rack.x - room.width_mm / 2) + abs(rack.y)
            far[rack.hall] = max(far.get(rack.hall, 0.0), d)
    return far


def longest_upper_run_m(rooms: list[Room], origins: dict[str, tuple[float, float]], far: dict[str, float],
                        catalog: Catalog) -> float:
    """The longest run the fabric's cabling rule (:mod:`designer.fabric.geometry`, :mod:`designer.site`) would give
    between a data hall's SU network racks and an upper-tier rack of any network room: each room's farthest such rack
    from its entry (``far``, :func:`farthest_from_entry`), the corridor between the entries, the drops and the slack.
    An upper bound: every pod reaches every room's share of the upper tier."""
    from ..fabric.geometry import SLACK_FRACTION, SLACK_MIN_MM, TRAY_ABOVE_RACK_MM
    from .rack_filling import RACK_TYPE

    size = {r.id: r for r in rooms}
    top = float(catalog.get(RACK_TYPE).height_mm or 2300.0)
    drops = 2 * (top + TRAY_ABOVE_RACK_MM)
    longest = 0.0
    halls = [(k, v) for k, v in far.items() if size[k].kind == "data"]
    nets = [(k, v) for k, v in far.items() if size[k].kind != "data"]
    for h, fh in halls:
        hx, hy = origins[h][0] + size[h].width_mm / 2, origins[h][1]
        for n, fn in nets:
            nx, ny = origins[n][0] + size[n].width_mm / 2, origins[n][1]
            longest = max(longest, fh + abs(hx - nx) + abs(hy - ny) + fn + drops)
    return (longest + max(SLACK_MIN_MM, SLACK_FRACTION * longest)) / 1000.0


def upper_tier_reach_m(catalog: Catalog, spec: SuperpodSpec, profile: SystemProfile) -> float:
    """The longest run any catalog parts make between two of the compute switch's cages, as the fabric runs them."""
    from ..fabric.geometry import protocol_of, split_cage
    from ..fabric.media import cage_of, longest_reach

    switch = catalog.get(spec.switch)
    protocol = protocol_of(profile.fabric)
    group = next(g for g in switch.ports if g.role == "fabric" and g.protocol == protocol)
    cage = cage_of(group, True)
    if protocol == "ethernet" and profile.port_gbps:
        cage = split_cage(cage, profile.port_gbps / (spec.planes or 1), group.breakout or 1)
    return longest_reach(catalog, cage, cage)
