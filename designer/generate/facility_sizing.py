"""The facility a generated hall gets: busway per row and feed, a 2N UPS, N+1 generators, contained aisles,
a facility water class. Each is the smallest standard size that carries the design with a feed lost.

- Busway: Starline T5 track busway sizes, 250, 400 and 800 A (handoff-facilities C.2, [P*]), at
  415 V three-phase: the smallest whose continuous limit carries every row's feed and whose rating
  carries it with the other feed lost; a row too heavy for one 800 A run gets two (or more) a side.
- UPS: 2N, one system per feed, each of 1,200 kW modules (Vertiv Liebert EXL, 625-1,200 kVA at
  unity power factor, [P*]), enough modules that either system carries the hall's failover load with
  the CDU pumps it carries (designer/facility.py: pumps on the UPS by default), and at least the hall's
  stated IT power capacity: the hall's power limit is the UPS's source, so the two never disagree.
- Generators: 1,600 kW units, the continuous rating of a Caterpillar 3516B-HD (2,000 kVA at 0.8
  PF, [P*]), since Tier III counts generators at a rating with no runtime limit; enough running units that
  IT x PUE stays within the generators' design margin at the site's derating, paralleled in blocks of at most
  eight running units with one spare each (N+1 per block: one spare over a whole campus's units is no
  redundancy a block's switchgear can use; the block size is planning practice, [U]).
- Every level within its design margin (designer/facility.py: the busway with a feed lost within 80 %, the
  UPS and the generators within 90 %), at the site's altitude and ambient (designer/power/derating.py).
- Aisles: hot-aisle containment, the case the 25-30 kW per-rack air limit assumes.
- Facility water: as the user states it (``--facility-water``: W32, W40, W45 or none), else W32 where the
  hall has liquid load; with the in-row CDU's 5 K approach W32 gives the racks 37 °C, under the NVL72's
  45 °C (an unconfirmed figure; the analysis checks the class against it).
"""
from __future__ import annotations

import math

import numpy as np

from ..facility import Facility
from ..power.chain import busiest_runs
from ..power.engine import cooling_equipment_by_hall
from ..power.derating import generator_factor, ups_factor
from ..power.feeds import SQRT3

BUSWAY_AMPS = (250.0, 400.0, 800.0)
BUSWAY_V = 415.0
UPS_MODULE_KW = 1200.0
GENERATOR_KW = 1600.0
#: running units per paralleled block of generators, each block with its own spare
GENERATOR_BLOCK_RUNNING = 8


def busway_for(power, arrays, settings) -> tuple[int, float]:
    """(runs a side, amps): the fewest busway runs of the smallest size that carry every row of the design."""
    margins = Facility()  # the default design margins
    feeds = power.feeds
    order, row_of = arrays.rows
    in_row = np.bincount(row_of, minlength=len(order))
    place = arrays.places_in_rows
    runs, amps = 1, BUSWAY_AMPS[-1]
    for runs in range(1, 17):  # fewest runs, then the smallest size; a run carries its stretch of the row
        per_row = np.minimum(runs, np.maximum(in_row, 1))
        worst_normal = max(float(busiest_runs(arrays, place, per_row, getattr(feeds, f"normal_{s}")).max(initial=0))
                           for s in "ab")
        worst_fail = max(float(busiest_runs(arrays, place, per_row, getattr(feeds, f"fail_{s}")).max(initial=0))
                         for s in "ab")
        fits = [a for a in BUSWAY_AMPS
                if worst_normal <= SQRT3 * BUSWAY_V * a * settings.power_factor / 1000.0 * settings.derating
                and worst_fail <= SQRT3 * BUSWAY_V * a * settings.power_factor / 1000.0
                * min(settings.failover_derating, margins.distribution_margin)]
        if fits:
            return runs, fits[0]
    return runs, amps


def facility_for(power, arrays, liquid_kw: float, settings, *, hall_kw: float | None = None,
                 water: str | None = None, altitude_m: float = 0.0, ambient_c: float | None = None,
                 hall: int | None = None, busway: tuple[int, float] | None = None) -> Facility:
    """The facility that carries a design, given its power result (``analyze_power``) and arrays; its UPS
    carries the hall's stated IT power ``hall_kw`` too, ``water`` is the stated facility water class, and the
    site's ``altitude_m`` and ``ambient_c`` derate the UPS and generators.

    ``hall``: the index of the one hall of a site to size, from the site's power result (its rows, its IT and
    its cooling equipment); ``busway``: the site's (runs, amps) when already chosen."""
    margins = Facility()  # the default design margins
    power_section = power.section
    runs, amps = busway if busway is not None else busway_for(power, arrays, settings)
    rows = power_section["rows"]
    it_max = power_section["it_max_kw"]
    on_ups, equipment = power_section.get("cooling_on_ups_kw", 0.0), power_section.get("cooling_equipment_kw", 0.0)
    if hall is not None:
        hall_id = power_section["halls"][hall]["id"]
        rows = [r for r in rows if r["hall"] == hall_id]
        it_max = power_section["halls"][hall]["it_max_kw"]
        by_class = cooling_equipment_by_hall(arrays, len(power_section["halls"]))
        # a new hall's facility keeps the default classes on the UPS, as the analysis then reads them
        on_ups = float(by_class["cdu"][hall]) * margins.cdu_on_ups + float(by_class["crah"][hall]) * margins.crah_on_ups
        equipment = float(by_class["cdu"][hall] + by_class["crah"][hall])
    per_side = max((sum(r["feeds"][k]["failover_kw"] for r in rows) for k in ("A", "B")), default=0.0)
    per_side = max(per_side, hall_kw or 0.0)
    per_side += on_ups  # the survivor of 2N carries all the pumps
    module = UPS_MODULE_KW * ups_factor(altitude_m) * margins.ups_margin
    modules = max(1, math.ceil(per_side / module - 1e-9))
    # the generators carry IT x PUE, or IT and the modelled cooling where that is more, as the analysis checks
    facility_kw = max(it_max * settings.pue, it_max + equipment)
    unit = GENERATOR_KW * generator_factor(altitude_m, ambient_c) * margins.generator_margin
    running = max(1, math.ceil(facility_kw / unit - 1e-9))
    blocks = math.ceil(running / GENERATOR_BLOCK_RUNNING)
    return Facility(distribution="busway", distribution_amps=amps, distribution_voltage_v=BUSWAY_V,
                    distribution_runs=runs,
                    ups_scheme="2N", ups_module_kw=UPS_MODULE_KW, ups_modules=min(modules, 1000),
                    generator_kw=GENERATOR_KW, generators=min(running + blocks, 1000), generator_redundant=1,
                    generator_blocks=min(blocks, 100), altitude_m=altitude_m, ambient_c=ambient_c,
                    containment="hot", water_class=water if water is not None else "W32" if liquid_kw > 0 else None)
