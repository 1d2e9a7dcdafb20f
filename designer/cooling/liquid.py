"""The liquid side above the CDUs: the facility water class, each CDU's approach, and the secondary
(technology cooling system) supply the racks receive.

The secondary supply is the warmest facility water the hall's class allows plus the loop's approach
(the largest of its units'); the cold plates of every rack on the loop must accept it. ASHRAE's
facility water classes name their warmest supply: W32 32 °C, W40 40 °C, W45 45 °C. A hall whose class
is ``none`` has no facility water: a rack sending heat to liquid cannot stand in it. Where a loop's
approach or its racks' coolant limit is not known, or the limit is an unconfirmed catalog figure, the
check says so instead of passing silently.
"""
from __future__ import annotations

import numpy as np

from catalog import Catalog

from ..arrays import DesignArrays
from ..facility import NO_WATER, WATER_CLASSES
from ..findings import Finding
from ..model import Project
from ..names import cdu_names


def loop_temperatures(project: Project, catalog: Catalog, arrays: DesignArrays, loops: list[dict]) -> list[Finding]:
    """Adds ``facility_supply_c``, ``approach_k`` and ``secondary_supply_c`` to each loop; finds racks
    whose cold plates would get warmer coolant than they accept."""
    findings = []
    pos = {rid: i for i, rid in enumerate(arrays.rack_ids)}
    types = arrays.types.types
    rated = np.array([d.coolant_inlet_max_c if d.coolant_inlet_max_c is not None else np.inf for d in types],
                     dtype=float)
    rack_limit: dict[int, tuple[float, str, bool]] = {}
    limited = np.nonzero(np.isfinite(rated[arrays.dev_type]))[0]
    for k in limited[np.argsort(-rated[arrays.dev_type[limited]], kind="stable")]:  # coolest written last
        dev = types[arrays.dev_type[k]]
        fig = dev.figure("coolant_inlet_max_c")
        rack_limit[int(arrays.dev_rack[k])] = (float(rated[arrays.dev_type[k]]), dev.name,
                                               bool(fig is not None and fig.unconfirmed))
    unchecked = []
    for loop in loops:
        racks = [pos[r] for r in loop["racks"]]
        # facility water reaches the CDUs, so the class is that of the units' halls (the warmest, if several)
        classes = {_unit_hall(project, u).facility.water_class for u in loop["units"]} - {None, NO_WATER}
        water = max(classes, key=WATER_CLASSES.get) if classes else None
        approaches = [catalog.get(t).approach_k for t in loop["types"]]
        approach = max(approaches) if approaches and all(a is not None for a in approaches) else None
        supply = WATER_CLASSES[water] if water else None
        secondary = supply + approach if supply is not None and approach is not None else None
        limits = [rack_limit[i] for i in racks if i in rack_limit]
        coolest = min(limits) if limits else None
        loop.update({"water_class": water, "facility_supply_c": supply, "approach_k": approach,
                     "secondary_supply_c": secondary, "device_coolant_max_c": coolest[0] if coolest else None})
        if secondary is not None and coolest is not None and secondary > coolest[0] + 1e-9:
            names = cdu_names(project, loop["units"])
            findings.append(Finding("error", "coolant-too-warm",
                                    f"CDU loop {names}: {water} facility water (up to {supply:g} °C) plus a "
                                    f"{approach:g} K approach supplies {secondary:g} °C, but {coolest[1]} accepts at "
                                    f"most {coolest[0]:g} °C"
                                    + (" (an unconfirmed catalog figure)" if coolest[2] else "")
                                    + ": use a cooler water class", loop["units"][0]))
        elif water and coolest is not None and secondary is None:
            unchecked.append((loop, water, supply, coolest))
    if unchecked:
        loop, water, supply, coolest = unchecked[0]
        findings.append(Finding("info", "coolant-unchecked",
                                f"{len(unchecked):,} CDU loop(s) ({cdu_names(project, loop['units'])} first): "
                                f"{water} facility water (up to {supply:g} °C) against {coolest[1]}'s "
                                f"{coolest[0]:g} °C coolant limit is unconfirmed: the CDU's approach is not in the "
                                "catalog", loop["units"][0], tuple(lp["units"][0] for lp, *_ in unchecked)))
    return findings


def no_water_findings(project: Project, arrays: DesignArrays, rack_liquid: np.ndarray) -> list[Finding]:
    """An error per hall stated to have no facility water that holds racks sending heat to liquid."""
    out = []
    for h, hall in enumerate(project.halls):
        if hall.facility.water_class != NO_WATER:
            continue
        held = np.nonzero((arrays.rack_hall == h) & (rack_liquid > 0))[0]
        if not len(held):
            continue
        places = tuple(f"rack:{arrays.rack_ids[i]}" for i in held)
        first = project.racks[int(held[0])]
        out.append(Finding("error", "no-facility-water",
                           f"{len(held):,} liquid-cooled rack(s) ({first.name or first.id}"
                           + (f" and {len(held) - 1:,} more" if len(held) > 1 else "")
                           + f") stand in {hall.label}, which has no facility water: they send "
                           f"{float(rack_liquid[held].sum()):,.1f} kW to liquid that nothing takes away", places[0],
                           places))
    return out


def _unit_hall(project: Project, unit: str):
    kind, _, ident = unit.partition(":")
    return project.hall(project.floor_device(ident).hall if kind == "floor" else project.rack(ident).hall)
