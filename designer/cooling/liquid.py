"""The liquid side above the CDUs: the facility water class, each CDU's approach, and the secondary
(technology cooling system) supply the racks receive.

The secondary supply is the warmest facility water the hall's class allows plus the loop's approach
(the largest of its units'); the cold plates of every rack on the loop must accept it. ASHRAE's
facility water classes name their warmest supply: W32 32 °C, W40 40 °C, W45 45 °C.
"""
from __future__ import annotations

import numpy as np

from catalog import Catalog

from ..arrays import DesignArrays
from ..facility import WATER_CLASSES
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
    rack_limit: dict[int, tuple[float, str]] = {}
    limited = np.nonzero(np.isfinite(rated[arrays.dev_type]))[0]
    for k in limited[np.argsort(-rated[arrays.dev_type[limited]], kind="stable")]:  # coolest written last
        rack_limit[int(arrays.dev_rack[k])] = (float(rated[arrays.dev_type[k]]), types[arrays.dev_type[k]].name)
    for loop in loops:
        racks = [pos[r] for r in loop["racks"]]
        # facility water reaches the CDUs, so the class is that of the units' halls (the warmest, if several)
        classes = {_unit_hall(project, u).facility.water_class for u in loop["units"]} - {None}
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
                                    f"most {coolest[0]:g} °C: use a cooler water class", loop["units"][0]))
    return findings


def _unit_hall(project: Project, unit: str):
    kind, _, ident = unit.partition(":")
    return project.hall(project.floor_device(ident).hall if kind == "floor" else project.rack(ident).hall)
