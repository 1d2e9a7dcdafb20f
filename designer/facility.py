"""A hall's facility above the racks: row power distribution, UPS, generators, air and water classes, floor tiles.

It lives in the project file (``halls[i].facility``) beside the hall it belongs to. Every field is
optional: a level left unset is not checked, and the analysis says so. Figures and their sources:

- Busway: Starline T5 track busway comes in 250, 400 and 800 A (handoff-facilities C.2, [S]);
  415 V three-phase is the usual European and AI-hall distribution voltage.
- UPS redundancy (handoff-facilities C.3, [S]): ``2N`` two independent systems, one per feed, each
  able to carry the whole hall; ``N+1`` one paralleled system with a spare module; ``DR``
  distributed redundant, ``blocks`` systems of which any one may fail ("4 make 3"); ``N`` none.
- ASHRAE air classes, allowable inlet (handoff-facilities C.4, [S]): A1 15-32 °C, A2 10-35,
  A3 5-40, A4 5-45; H1 (5th edition, high density) 5-25 °C [U for the H1 figure].
- Facility water classes W32, W40, W45: the number is the warmest facility supply, °C (dcim.md §3.3
  via coolnetsystem, [S]; the full W-class table is [U]).
- Mechanical load on the UPS, per equipment class: CDU pumps on the UPS by default, since a cold-plate
  rack loses its coolant flow, and overheats in seconds, when its CDU's pumps stop in a utility event, so
  the pumps ride through on the UPS with the racks they cool (The Data Center Engineer, "How CDU location
  can change UPS count, redundancy design, and retrofit complexity", thedatacenterengineer.com/?p=3392,
  [S]); CRAH and fan-wall fans off it by default (air heat rides through on the room's thermal mass until
  the generators start: planning practice, [U]). Chillers are not modelled as devices, so their critical
  parts are left to the PUE.
- Design margins: each level is held to a share of its rating, a warning above it and an error above the
  rating: a row's busway with a feed lost 80 % (the survivor carries the row as long as the repair takes, a
  continuous load: NEC's 80 % rule, dcim.md §3.2, [S]), a UPS system and the generators 90 % (planning
  practice, [U]); the user states their own.
- Site derating: the generators and the UPS at the site's altitude and ambient (designer/power/derating.py,
  with its sources); generators in paralleled blocks, each N + ``generator_redundant``.
- Raised-floor tiles: a concentrated (point) rating on a 25 mm indentor and a rolling rating for a
  wheel crossing the panel, both in kg here (handoff-facilities C.5, [S]).
- Row pitch: a row owns its racks' depth plus one aisle (half the aisle in front, half behind);
  the cold aisle is 1.2 m, two tiles, in TIA-942-A (dcim.md §3.1, [S]).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from functools import lru_cache

from .bounds import stored_text

DISTRIBUTIONS = ("busway", "rpp")
DISTRIBUTION_NAMES = {"busway": "busway", "rpp": "remote power panel"}
UPS_SCHEMES = ("N", "N+1", "2N", "DR")
UPS_SCHEME_NAMES = {"N": "N (no redundancy)", "N+1": "N+1 (one spare module)", "2N": "2N (one system per feed)",
                    "DR": "distributed redundant"}
CONTAINMENTS = ("none", "hot", "cold")
#: Allowable inlet air range per ASHRAE class, °C.
INLET_CLASSES = {"A1": (15.0, 32.0), "A2": (10.0, 35.0), "A3": (5.0, 40.0), "A4": (5.0, 45.0), "H1": (5.0, 25.0)}
#: Warmest facility water supply per ASHRAE liquid class, °C.
WATER_CLASSES = {"W32": 32.0, "W40": 40.0, "W45": 45.0}
#: The water_class that says the hall has no facility water at all.
NO_WATER = "none"


class FacilityError(ValueError):
    """A facility setting that cannot be used: ``where: what is wrong``."""


@dataclass(frozen=True, slots=True)
class RowFacility:
    """What one row has of its own: its containment, and a distribution rating other than the hall's."""

    containment: str | None = None
    distribution_amps: float | None = None

    def to_json(self) -> dict:
        return {k: v for k, v in (("containment", self.containment), ("distribution_amps", self.distribution_amps))
                if v is not None}


@dataclass(frozen=True, slots=True)
class Facility:
    # -- power: one distribution element per row and feed (A and B), a UPS, generators --
    distribution: str = "busway"
    #: rating of each row's A element and of its B element, A; None: rows are not checked
    distribution_amps: float | None = None
    distribution_voltage_v: float = 415.0
    #: parallel runs per row and feed (a long row of 100 kW racks takes two busways a side); the row's racks
    #: are spread evenly over them
    distribution_runs: int = 1
    #: None: no UPS level is checked
    ups_scheme: str | None = None
    ups_module_kw: float | None = None
    #: modules per system (2N: per side; DR: per block); a large hall's side counts every module of the
    #: paralleled systems behind that feed
    ups_modules: int = 1
    #: spare modules inside one system (an N+1 system of 4 has 1)
    ups_redundant_modules: int = 0
    #: DR only: how many systems share the hall, any one of which may fail
    ups_blocks: int = 3
    generator_kw: float | None = None
    generators: int = 0
    #: spare units per block: each block of generators is N + this many
    generator_redundant: int = 1
    #: blocks the generators are paralleled in, each carrying its share of the load with its own spares
    generator_blocks: int = 1
    #: the share of each level's (derated) rating the design may load: a row's distribution with a feed lost (a
    #: lost feed can last hours, so it is a continuous load: NEC's 80 %), a UPS system, the generators
    distribution_margin: float = 0.8
    ups_margin: float = 0.9
    generator_margin: float = 0.9
    #: the site: altitude (m above sea level) and design outdoor ambient (°C; None: not stated), which derate the
    #: generators and the UPS (designer/power/derating.py)
    altitude_m: float = 0.0
    ambient_c: float | None = None
    #: which cooling equipment the UPS carries (per class): CDU pumps, CRAH / fan-wall fans
    cdu_on_ups: bool = True
    crah_on_ups: bool = False
    # -- air and water --
    inlet_class: str = "A1"
    #: every row's containment unless the row sets its own; None: not stated (the general air limit applies)
    containment: str | None = None
    #: W32 / W40 / W45, or "none": the hall has no facility water (a liquid-cooled rack cannot stand in it);
    #: None: not stated, not checked
    water_class: str | None = None
    # -- floor --
    tile_point_kg: float | None = None
    tile_rolling_kg: float | None = None
    aisle_mm: float = 1200.0
    rows: tuple[tuple[str, RowFacility], ...] = ()

    def __post_init__(self) -> None:
        check_facility(self, "facility")

    def row(self, name: str) -> RowFacility:
        return _row_map(self.rows).get(name, NO_ROW)

    def containment_of(self, row: str) -> str | None:
        return self.row(row).containment or self.containment

    def distribution_amps_of(self, row: str) -> float | None:
        own = self.row(row).distribution_amps
        return own if own is not None else self.distribution_amps

    def with_row(self, name: str, row: RowFacility) -> Facility:
        rows = dict(self.rows)
        if row == RowFacility():
            rows.pop(name, None)
        else:
            rows[name] = row
        return replace(self, rows=tuple(sorted(rows.items())))

    def updated(self, **changes) -> Facility:
        out = replace(self, **changes)
        check_facility(out, "facility")
        return out

    def to_json(self) -> dict:
        default = Facility()
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "rows":
                if value:
                    out["rows"] = {k: v.to_json() for k, v in value}
            elif value != getattr(default, f.name):
                out[f.name] = value
        return out




def _number(value: object, where: str, lo: float, hi: float, *, integer: bool = False,
            optional: bool = True) -> float | int | None:
    if value is None and optional:
        return None
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not whole):
        raise FacilityError(f"{where}: must be {'a whole number' if integer else 'a number'}, got {value!r:.40}")
    try:
        ok = math.isfinite(value) and lo <= value <= hi
    except OverflowError:  # an integer beyond any float
        ok = False
    if not ok:
        shown = (f"{value:g}" if isinstance(value, float) or abs(value) < 10 ** 15
                 else f"a number of about {int(abs(value).bit_length() * 0.30103) + 1} digits")
        raise FacilityError(f"{where}: must be from {lo:g} to {hi:g}, got {shown}")
    return int(value) if integer else float(value)


def _choice(value: object, where: str, choices, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or value not in choices:
        raise FacilityError(f"{where}: must be one of {', '.join(choices)}, got {value!r}")
    return value


def check_facility(f: Facility, where: str = "facility") -> None:
    _choice(f.distribution, f"{where}.distribution", DISTRIBUTIONS)
    _number(f.distribution_amps, f"{where}.distribution_amps", 1, 10000)
    _number(f.distribution_voltage_v, f"{where}.distribution_voltage_v", 100, 1000, optional=False)
    _number(f.distribution_runs, f"{where}.distribution_runs", 1, 16, integer=True, optional=False)
    _choice(f.ups_scheme, f"{where}.ups_scheme", UPS_SCHEMES, optional=True)
    _number(f.ups_module_kw, f"{where}.ups_module_kw", 1, 100000)
    _number(f.ups_modules, f"{where}.ups_modules", 1, 1000, integer=True, optional=False)
    _number(f.ups_redundant_modules, f"{where}.ups_redundant_modules", 0, 999, integer=True, optional=False)
    if f.ups_redundant_modules >= f.ups_modules:
        raise FacilityError(f"{where}.ups_redundant_modules: {f.ups_redundant_modules} spare of "
                            f"{f.ups_modules} modules leaves none to carry the load")
    _number(f.ups_blocks, f"{where}.ups_blocks", 3, 16, integer=True, optional=False)
    if f.ups_scheme is not None and f.ups_module_kw is None:
        raise FacilityError(f"{where}.ups_module_kw: the {f.ups_scheme} UPS needs its module rating in kW")
    _number(f.generator_kw, f"{where}.generator_kw", 1, 100000)
    _number(f.generators, f"{where}.generators", 0, 1000, integer=True, optional=False)
    _number(f.generator_redundant, f"{where}.generator_redundant", 0, 999, integer=True, optional=False)
    if f.generators and f.generator_kw is None:
        raise FacilityError(f"{where}.generator_kw: {f.generators} generators need their rating in kW")
    _number(f.generator_blocks, f"{where}.generator_blocks", 1, 100, integer=True, optional=False)
    if f.generators and f.generators < f.generator_blocks * (f.generator_redundant + 1):
        raise FacilityError(f"{where}.generator_blocks: {f.generators} generators cannot make {f.generator_blocks} "
                            f"blocks of at least one running unit and {f.generator_redundant} spare each")
    if f.generators and f.generator_redundant * f.generator_blocks >= f.generators:
        spares = f.generator_redundant * f.generator_blocks
        raise FacilityError(f"{where}.generator_redundant: {spares} spare of {f.generators} generators"
                            + (f" ({f.generator_redundant} in each of {f.generator_blocks} blocks)"
                               if f.generator_blocks > 1 else "") + " leaves none to carry the load")
    for key in ("distribution_margin", "ups_margin", "generator_margin"):
        _number(getattr(f, key), f"{where}.{key}", 0.5, 1.0, optional=False)
    _number(f.altitude_m, f"{where}.altitude_m", -500, 5000, optional=False)
    _number(f.ambient_c, f"{where}.ambient_c", -60, 60)
    _choice(f.inlet_class, f"{where}.inlet_class", tuple(INLET_CLASSES))
    _choice(f.containment, f"{where}.containment", CONTAINMENTS, optional=True)
    _choice(f.water_class, f"{where}.water_class", (*WATER_CLASSES, NO_WATER), optional=True)
    for key in ("cdu_on_ups", "crah_on_ups"):
        if not isinstance(getattr(f, key), bool):
            raise FacilityError(f"{where}.{key}: must be true or false, got {getattr(f, key)!r:.40}")
    _number(f.tile_point_kg, f"{where}.tile_point_kg", 1, 100000)
    _number(f.tile_rolling_kg, f"{where}.tile_rolling_kg", 1, 100000)
    _number(f.aisle_mm, f"{where}.aisle_mm", 0, 20000, optional=False)
    if not isinstance(f.rows, tuple) or not all(isinstance(e, tuple) and len(e) == 2 and isinstance(e[0], str)
                                                and isinstance(e[1], RowFacility) for e in f.rows):
        raise FacilityError(f"{where}.rows: must be pairs of a row name and its row settings")
    for name, row in f.rows:
        _choice(row.containment, f"{where}.rows.{name}.containment", CONTAINMENTS, optional=True)
        _number(row.distribution_amps, f"{where}.rows.{name}.distribution_amps", 1, 10000)


_KEYS = tuple(f.name for f in fields(Facility))
_INTS = frozenset({"distribution_runs", "ups_modules", "ups_redundant_modules", "ups_blocks", "generators",
                   "generator_redundant", "generator_blocks"})


def facility_from_json(doc: object, where: str = "facility") -> Facility:
    """A hall's ``facility`` object read and checked; every error names the exact key."""
    if not isinstance(doc, dict):
        raise FacilityError(f"{where}: must be an object")
    for key in doc:
        if key not in _KEYS:
            raise FacilityError(f"{where}.{key}: is not a facility setting ({', '.join(_KEYS)})")
    values = {}
    for key, value in doc.items():
        if key == "rows":
            if not isinstance(value, dict):
                raise FacilityError(f"{where}.rows: must be an object of row name to row settings")
            rows = {}
            for name, row in value.items():
                at = f"{where}.rows.{name}"
                try:  # the same name as a rack's row field, which the file reader keeps in NFC
                    name = stored_text(name)
                except ValueError as exc:
                    raise FacilityError(f"{at}: {exc}") from None
                if name in rows:
                    raise FacilityError(f"{at}: row {name!r} is given twice")
                if not isinstance(row, dict):
                    raise FacilityError(f"{at}: must be an object")
                for k in row:
                    if k not in ("containment", "distribution_amps"):
                        raise FacilityError(f"{at}.{k}: is not a row setting (containment, distribution_amps)")
                rows[name] = RowFacility(row.get("containment"), row.get("distribution_amps"))
            values["rows"] = tuple(sorted(rows.items()))
        elif key in _INTS and isinstance(value, float) and value.is_integer():
            values[key] = int(value)
        else:
            values[key] = value
    try:
        return Facility(**values)
    except FacilityError as exc:  # checked on construction, named from the hall it belongs to
        raise FacilityError(where + str(exc).removeprefix("facility")) from None


NO_ROW = RowFacility()


@lru_cache(maxsize=64)
def _row_map(rows: tuple) -> dict:
    """A facility's rows by name, built once per rows tuple (a hall may state hundreds)."""
    return dict(rows)


NO_FACILITY = Facility()
