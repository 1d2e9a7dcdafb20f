"""The air side: how much heat each rack may reject to the room, the room's air handlers, the inlet class.

- A rack's air limit: air is practical to about 25-30 kW per rack (the setting ``air_rack_limit_kw``,
  30), the figure the references give for contained aisles; a row stated to have no containment gets
  about 15 kW (``air_rack_limit_open_kw``).
- Above it the remedy is named by how far above: a rear-door heat exchanger takes 20-40 kW per rack
  commonly and vendor bands reach 55-75 kW (HPE/Motivair via coolnetpower, [S]); in-row chilled-water
  units reach about 70 kW (APC InRow, [S]); beyond, the heat has to go to liquid.
- Room air handlers (CRAH/CRAC units standing on the floor) are N+1 when the hall's air heat still
  fits with the largest unit off; their airflow must cover what the racks draw (the catalog's CFM,
  or the sensible-heat flow at the air delta-T).
- The hall's ASHRAE class allows inlet air up to 32 °C (A1), 35 (A2), 40 (A3), 45 (A4), 25 (H1): a
  device rated for less needs a cooler class.
"""
from __future__ import annotations

import numpy as np

from catalog import Catalog

from ..formatting import kw, quantity
from ..arrays import DesignArrays
from ..facility import INLET_CLASSES
from ..findings import Finding
from ..model import Project

#: (up to this many kW of air heat per rack, the remedy); the last one applies beyond.
REMEDIES = ((40.0, "a rear-door heat exchanger (20-40 kW per rack is common), in-row cooling or liquid cooling"),
            (75.0, "a high-capacity rear-door heat exchanger (vendor bands reach 55-75 kW) or liquid cooling"),
            (float("inf"), "liquid cooling: no rear door or in-row unit removes this much from one rack"))


def air_remedy(air_kw: float, limit_kw: float, contained_kw: float | None = None) -> str | None:
    """What takes a rack's air heat above what its row can reject to the room, or None when it fits.
    ``contained_kw``: what the row could take with its aisle contained, when it is not."""
    if air_kw <= limit_kw + 1e-9:
        return None
    if contained_kw is not None and air_kw <= contained_kw + 1e-9:
        return "hot or cold aisle containment to the row"
    return next(text for top, text in REMEDIES if air_kw <= top)


def air_limits(project: Project, arrays: DesignArrays, s) -> tuple[np.ndarray, list[str]]:
    """Per rack: the air heat its row may reject, kW, and the row's containment."""
    memo: dict[tuple[int, str], str] = {}
    containment = []
    for h, row in zip(arrays.rack_hall.tolist(), arrays.rack_row):
        key = (h, row)
        c = memo.get(key)
        if c is None:
            c = memo[key] = project.halls[h].facility.containment_of(row)
        containment.append(c)
    limit = np.array([s.air_rack_limit_open_kw if c == "none" else s.air_rack_limit_kw for c in containment],
                     dtype=float)
    return limit, containment


def air_density_findings(project: Project, rack_air: np.ndarray, limit: np.ndarray,
                         containment: list[str], contained_kw: float) -> list[Finding]:
    # Racks over the limit by the same figures are one finding naming them all (a SuperPOD of four-DGX racks
    # has dozens alike): the panel selects every one, and the count of warnings stays the count of problems.
    groups: dict[tuple, list] = {}
    for i in np.nonzero(rack_air > limit + 1e-9)[0]:
        open_row = containment[i] == "none"
        row = {"none": "a row without aisle containment", None: "a row"}.get(containment[i], "a contained row")
        remedy = air_remedy(float(rack_air[i]), float(limit[i]), contained_kw if open_row else None)
        groups.setdefault((kw(rack_air[i]), f"{limit[i]:g}", row, remedy), []).append(project.racks[i])
    out = []
    for (air, lim, row, remedy), racks in groups.items():
        names = [r.name or r.id for r in racks]
        who = (f"rack {names[0]} rejects" if len(racks) == 1 else
               f"{len(racks)} racks ({', '.join(names[:3])}{' …' if len(racks) > 3 else ''}) each reject")
        out.append(Finding("warning", "air-density", f"{who} {air} to air, over the {lim} kW {row} can take: "
                                                     f"add {remedy}", f"rack:{racks[0].id}",
                           tuple(f"rack:{r.id}" for r in racks[1:])))
    return out


def room_air(project: Project, catalog: Catalog, arrays: DesignArrays, rack_air: np.ndarray,
             rack_cfm: np.ndarray) -> tuple[list[dict], list[Finding]]:
    """Per hall: its air handlers against its air heat and airflow, and its inlet class against the devices."""
    units: dict[int, list] = {}
    hall_pos = {h.id: i for i, h in enumerate(project.halls)}
    for f in project.floor_devices:
        dev = catalog.get(f.type)
        if dev.kind == "crah":
            units.setdefault(hall_pos[f.hall], []).append((f, dev))
    # the coolest-rated device in each hall
    rated = np.array([d.inlet_max_c if d.inlet_max_c is not None else np.inf for d in arrays.types.types], dtype=float)
    dev_hall = arrays.rack_hall[arrays.dev_rack]
    out, findings = [], []
    for h, hall in enumerate(project.halls):
        where = f"hall:{hall.id}"
        mask = arrays.rack_hall == h
        air, cfm = float(rack_air[mask].sum()), float(rack_cfm[mask].sum())
        f = hall.facility
        lo, hi = INLET_CLASSES[f.inlet_class]
        in_hall = rated[arrays.dev_type[dev_hall == h]] if len(arrays.dev_type) else np.zeros(0)
        coolest = float(in_hall.min()) if len(in_hall) else np.inf
        entry = {"inlet_class": f.inlet_class, "inlet_allowable_c": [lo, hi],
                 "device_inlet_max_c": None if not np.isfinite(coolest) else coolest}
        if np.isfinite(coolest) and hi > coolest:
            k = int(np.argmin(np.where(dev_hall == h, rated[arrays.dev_type], np.inf)))
            name = arrays.types.types[arrays.dev_type[k]].name
            findings.append(Finding("warning", "inlet-class",
                                    f"hall {hall.label} is class {f.inlet_class}, which allows inlet air up to "
                                    f"{hi:g} °C, but {name} is rated to {coolest:g} °C: run the hall to a cooler "
                                    "class", where))
        crahs = units.get(h, [])
        if crahs:
            caps = [d.cooling_capacity_kw or 0.0 for _, d in crahs]
            flows = [d.airflow_cfm for _, d in crahs]
            cap, n1 = float(sum(caps)), float(sum(caps) - max(caps))
            flow = float(sum(flows)) if all(x is not None for x in flows) else None
            flow_n1 = None if flow is None else flow - float(max(flows))  # the largest unit off
            entry["air_handlers"] = {"units": [u.id for u, _ in crahs], "names": [u.name or u.id for u, _ in crahs],
                                     "capacity_kw": round(cap, 3), "capacity_n_minus_1_kw": round(n1, 3),
                                     "utilisation": round(air / cap, 4) if cap > 0 else None,
                                     "redundancy": "N+1" if len(crahs) > 1 and air <= n1 else "N",
                                     "airflow_cfm": None if flow is None else round(flow),
                                     "airflow_n_minus_1_cfm": None if flow_n1 is None else round(flow_n1),
                                     "demand_cfm": round(cfm)}
            label = f"the air handlers of {hall.label}"
            if air > cap + 1e-9:
                findings.append(Finding("error", "crah-over-capacity",
                                        f"{label} remove {cap:g} kW, less than the {kw(air)} of air heat", where))
            elif air > n1 + 1e-9:
                findings.append(Finding("warning", "crah-redundancy-lost",
                                        f"{label}: with the largest of {len(crahs)} units off, {n1:g} kW is left "
                                        f"for {kw(air)} of air heat: not N+1", where))
            if flow is not None and cfm > flow + 1e-9:
                findings.append(Finding("warning", "crah-airflow",
                                        f"{label} move {quantity(flow, 'CFM')}, less than the "
                                        f"{quantity(cfm, 'CFM')} the racks draw", where))
        out.append(entry)
    return out, findings
