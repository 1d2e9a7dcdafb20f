"""A data hall's electrical room: its UPS systems with their batteries and switchgear, laid out beyond the hall's
far wall, so the plan and the DXF show the floor the power chain takes and the site leaves room for it.

What stands in it, per UPS system (2N: A and B; N or N+1: one; distributed redundant: one per block), as one
line-up: the system's switchgear (an incoming main section, then sections of drawout breakers for its UPS
modules: each module's input, output and maintenance bypass), its UPS modules each with its battery cabinets
beside it, then its distribution switchboard (an output main section, then sections of breakers feeding the rows'
busway runs the system carries). Every count comes from the hall's facility (scheme, modules per system) and its
rows (the busway runs per row and feed); the sizes are those of the equipment below, whatever the facility's module
rating (a module rated above the frame's 1,200 kW is drawn in that frame, with the batteries its rating needs):

- UPS module: Vertiv Liebert EXL S1, the frame of 1,000-1,200 kVA, 2,654 x 914 mm (its site-planning figure as
  quoted in a public equipment-geometry file, not read in Vertiv's manual: [U]).
- Batteries: lithium-ion racks of 34.6 kWh (Samsung SDI U6A4, its product specification, manualmachine.com, [S]),
  enough for 5 minutes at the module's rating (the usual design runtime, [U]) through a 96 % efficient inverter
  with the racks at 80 % of their energy at end of life and 90 % of that usable ([U]): 5 racks a 1,200 kW module;
  650 x 850 mm each ([U]: no cabinet footprint was found in a source).
- Switchgear: drawout low-voltage sections of 36 x 72 in (914 x 1,829 mm), four breakers of up to 2,000 A a section
  (a 1,200 kW module at 480 V draws 1,443 A), a main in a section of its own (Eaton Magnum DS class; section sizes
  and breakers per section not read in Eaton's layout tables: [U]).
- Working space: 1.2 m in front of exposed parts facing each other at 151-600 V to ground (NEC Table
  110.26(A)(1), Condition 3, as UFC 3-520-01 Table 8-1 quotes it, [S]), widened to 1.8 m so that a drawout
  breaker comes out on its lifter with that space kept ([U]: the makers leave the aisle to each order's drawing).

How it is laid out: a line-up longer than the room wraps onto the next row; rows face each other in pairs across
one working aisle (exposed parts on both sides: the deepest clearance of the table) and stand back to back between
pairs (front-access equipment needs no space behind it); each system starts a pair of rows of its own, so that A
and B never share a row or an aisle; a passage at each end of every row, since equipment of 1,200 A or more and
over 1.8 m wide needs a way out at each end of its working space (NEC 110.26(C)(2)). The room spans the hall's
far wall (or more, for its widest row) beyond a wall of 300 mm ([U]).

Not drawn: the medium-voltage switchgear, transformers and generators outside, the UPS room's own cooling and the
fire separation a Tier IV design puts between A and B: the room's depth is what the line-ups and aisles take.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..formatting import count

#: Figures of the equipment, mm (sources above).
UPS_W, UPS_D = 2654.0, 914.0
BATTERY_W, BATTERY_D = 650.0, 850.0
#: one battery rack's energy, kWh, and what of it the design counts on: end of life, usable share, inverter
BATTERY_KWH, BATTERY_END_OF_LIFE, BATTERY_USABLE, INVERTER_EFFICIENCY = 34.6, 0.8, 0.9, 0.96
RUNTIME_MIN = 5.0
SECTION_W, SECTION_D = 914.0, 1829.0
BREAKERS_PER_SECTION = 4
#: a UPS module's own breakers in its system's switchgear: its input, its output and its maintenance bypass
BREAKERS_PER_MODULE = 3
AISLE_MM = 1800.0
#: the passage at each end of a row of equipment, a way out of its working space
END_MM = 1200.0
WALL_MM = 300.0
#: the figures above that no source confirmed, as the user is told
UNCONFIRMED = ("UPS module footprint", "battery cabinet footprint and count", "switchgear sections",
               "aisle for breaker withdrawal", "end passages", "wall")

#: kind -> what the plan calls it
KINDS = {"switchgear": "Switchgear", "ups": "UPS module", "battery": "Battery cabinet",
         "distribution": "Distribution switchboard"}


@dataclass(frozen=True)
class RoomItem:
    """One piece of equipment: its kind (a key of :data:`KINDS`), a short label, the system it belongs to, its
    rectangle in the hall's coordinates (mm, y down) and whether its front faces down the plan (+y)."""

    kind: str
    label: str
    system: str
    x: float
    y: float
    w: float
    d: float
    faces_down: bool


@dataclass(frozen=True)
class ElectricalRoom:
    """A hall's electrical room: its rectangle in the hall's coordinates, its equipment and working aisles."""

    hall: str
    x: float
    y: float
    width: float
    depth: float
    items: tuple[RoomItem, ...]
    aisles: tuple[tuple[float, float, float, float], ...]
    systems: tuple[str, ...]

    @property
    def area_m2(self) -> float:
        return self.width * self.depth / 1e6

    def count(self, kind: str) -> int:
        return sum(1 for i in self.items if i.kind == kind)

    @property
    def sections(self) -> int:
        """Switchgear and distribution sections together."""
        return self.count("switchgear") + self.count("distribution")

    def title(self) -> str:
        return f"Electrical room {self.width / 1000:.1f} × {self.depth / 1000:.1f} m"

    def summary(self) -> str:
        """One line a user reads: its size and what stands in it."""
        per = len(self.systems)
        return (f"{self.width / 1000:.1f} × {self.depth / 1000:.1f} m ({self.area_m2:,.0f} m²): "
                f"{count(self.count('ups'), 'UPS module')}{f' in {per} systems' if per > 1 else ''}, "
                f"{count(self.count('battery'), 'battery cabinet')}, "
                f"{count(self.sections, 'switchgear section')}")


def _systems(facility, rows: int) -> list[tuple[str, int, int]]:
    """(name, modules, busway feeders) per UPS system: each row has a busway run per feed (A and B) times the
    facility's runs; 2N gives each system one feed's runs, one system carries both, distributed redundant blocks
    share them out."""
    feeders = 2 * max(rows, 1) * facility.distribution_runs
    scheme, modules = facility.ups_scheme, facility.ups_modules
    if scheme == "2N":
        return [("A", modules, feeders // 2), ("B", modules, feeders // 2)]
    if scheme == "DR":
        n = facility.ups_blocks
        return [(str(k + 1), modules, math.ceil(feeders / n)) for k in range(n)]
    return [("", modules, feeders)]


def batteries_per_module(module_kw: float) -> int:
    """Battery racks one UPS module needs to carry its rating for the design runtime at the racks' end of life."""
    need_kwh = module_kw * RUNTIME_MIN / 60.0 / INVERTER_EFFICIENCY
    return max(1, math.ceil(need_kwh / (BATTERY_KWH * BATTERY_END_OF_LIFE * BATTERY_USABLE) - 1e-9))


def _line_up(name: str, modules: int, feeders: int, module_kw: float) -> list[tuple[str, str]]:
    """(kind, label) of one system's equipment, in the order it stands."""
    tag = f"{name}" if name else ""
    out = [("switchgear", "SG")] * (1 + math.ceil(BREAKERS_PER_MODULE * modules / BREAKERS_PER_SECTION))
    per_module = batteries_per_module(module_kw)
    for m in range(modules):
        out.append(("ups", f"UPS {tag}{'.' if tag.isdigit() else ''}{m + 1}".strip()))
        out += [("battery", "")] * per_module  # unlabelled: five to a module, the tooltip counts them
    out += [("distribution", "DB")] * (1 + math.ceil(feeders / BREAKERS_PER_SECTION))
    return out


def _size(kind: str) -> tuple[float, float]:
    return {"ups": (UPS_W, UPS_D), "battery": (BATTERY_W, BATTERY_D)}.get(kind, (SECTION_W, SECTION_D))


def pieces(facility, rows: int) -> int:
    """How many pieces of equipment the room of a hall with ``facility`` and ``rows`` rows holds (cheap: counts)."""
    if facility.ups_scheme is None or facility.ups_module_kw is None:
        return 0
    bat = batteries_per_module(facility.ups_module_kw)
    return sum(2 + math.ceil(BREAKERS_PER_MODULE * m / BREAKERS_PER_SECTION) + m * (1 + bat)
               + math.ceil(f / BREAKERS_PER_SECTION) for _, m, f in _systems(facility, rows))


#: Most pieces one room is laid out with: a 40 MW hall's 2N room holds about 550; a file may state 16 blocks of
#: 1,000 modules of 100 MW, which no plan can draw (millions of pieces), and gets no room, said so.
MAX_PIECES = 20_000


def electrical_room(hall, rows: int) -> ElectricalRoom | None:
    """The electrical room of ``hall`` (a model Hall) whose racks stand in ``rows`` rows; None where its facility
    states no UPS (nothing says what the room holds) or more than :data:`MAX_PIECES` pieces of equipment."""
    f = hall.facility
    if f.ups_scheme is None or f.ups_module_kw is None or pieces(f, rows) > MAX_PIECES:
        return None
    return _laid_out(hall, rows)


@lru_cache(maxsize=4096)
def _laid_out(hall, rows: int) -> ElectricalRoom:
    """Cached by the (frozen) hall and its row count: every edit asks again for rooms that did not change."""
    f = hall.facility
    x0, _, x1, y1 = hall.bounds
    widest = max(UPS_W, BATTERY_W, SECTION_W)
    width = max(x1 - x0, widest + 2 * END_MM)
    usable = width - 2 * END_MM
    # each system's line-up wrapped into rows of the room's width
    rows_of: list[tuple[str, int, list[tuple[str, str]]]] = []
    names = []
    for name, modules, feeders in _systems(f, rows):
        names.append(name)
        current: list[tuple[str, str]] = []
        used, k = 0.0, 0
        for kind, label in _line_up(name, modules, feeders, f.ups_module_kw):
            w = _size(kind)[0]
            if current and used + w > usable + 1e-6:
                rows_of.append((name, k, current))
                current, used, k = [], 0.0, k + 1
            current.append((kind, label))
            used += w
        if current:
            rows_of.append((name, k, current))
    items: list[RoomItem] = []
    aisles: list[tuple[float, float, float, float]] = []
    top = y1 + WALL_MM
    y = top
    for name, k, row in rows_of:
        depth = max(_size(kind)[1] for kind, _ in row)
        # pairs of one system's rows face each other across their aisle; each system starts a pair of its own,
        # so no aisle is shared by two systems (a 2N room keeps A's and B's working spaces apart)
        down = k % 2 == 0
        x = x0 + END_MM
        for kind, label in row:
            w, d = _size(kind)
            # fronts on the aisle: a row above it stands on its back line, one below it on its front line
            items.append(RoomItem(kind, label, name, x, y + depth - d if down else y, w, d, down))
            x += w
        y += depth
        if down:
            aisles.append((x0, y, width, AISLE_MM))
            y += AISLE_MM
    return ElectricalRoom(hall.id, x0, top, width, y - top, tuple(items), tuple(aisles), tuple(names))


def rows_per_hall(racks: Iterable) -> dict[str, int]:
    """How many rows each hall's racks stand in, racks in no row counted as one more (as the power chain feeds
    them)."""
    seen: dict[str, set[str]] = {}
    for r in racks:
        seen.setdefault(r.hall, set()).add(r.row)
    return {h: len(rows) for h, rows in seen.items()}


def electrical_rooms(project) -> dict[str, ElectricalRoom]:
    """Every hall's electrical room that its facility states a UPS for, by hall id."""
    rows = rows_per_hall(project.racks)
    out = {}
    for hall in project.halls:
        room = electrical_room(hall, rows.get(hall.id, 0))
        if room is not None:
            out[hall.id] = room
    return out
