"""Cooling engine: heat to liquid and to air, coolant flow, CDU loading and redundancy, air flow.

Heat is taken at the devices' maximum draw (the design basis facilities size for); the
catalog's ``liquid_fraction`` splits it between cold plates and air.

- Coolant flow = heat / (density x specific heat x delta-T).
- Air flow: a device's own fan airflow from the catalog where known; otherwise the sensible-heat
  flow for its air heat at the air delta-T (V = P / (rho_air x cp_air x delta-T), 1.2 kg/m³, 1,005 J/(kg·K)).
- Per row (:mod:`.rows`): the share of the air handlers' airflow that reaches it, and its inlet air.
- A loop's plumbing: each rack it cools has a manifold pair whose inlet and outlet are hosed to the loop (two
  hoses; NVIDIA's DGX GB200 user guide: "the inlets and outlets to the liquid cooling manifolds" at the rear),
  and each liquid-cooled tray of a rack-scale system blind-mates to the manifolds with a supply and a return
  coupling (the MGX 44RU manifold, ServeTheHome, GTC 2025: compute and NVLink-switch trays alike).
- CDUs: a unit mounted in a rack serves that rack; a floor CDU serves the racks it lists, or,
  when it lists none, every rack in its hall not served otherwise. CDUs serving the same racks
  form one loop; the loop is N+1 when it still carries its load with its largest unit down.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from catalog import Catalog

from ..formatting import kw
from ..arrays import DesignArrays
from ..collector import paused
from ..engines import Context, EngineResult, frozen_array
from ..findings import Finding
from ..model import Project
from ..names import cdu_names
from ..settings import COOLANTS
from .air import air_density_findings, air_limits, air_remedy, room_air
from .liquid import loop_temperatures, no_water_findings
from .rows import AIR_CP, AIR_DENSITY, M3S_TO_CFM, row_air


@dataclass(frozen=True, kw_only=True)
class CoolingResult(EngineResult):
    """The ``cooling`` section, and per rack its air heat over the air a rack of its row may reject."""

    rack_air_density: np.ndarray

W_TO_BTU_H = 3.412142
KW_PER_TON = 3.516853  # 12,000 BTU/h
CFM_TO_M3H = 1.699011
HEADROOM_WARNING = 0.9


def _r(x: float, nd: int = 3) -> float:
    return round(float(x), nd)


def coolant_lpm_per_kw(coolant: str, delta_t_k: float) -> float:
    c = COOLANTS[coolant]
    return 1000.0 / (c["density_kg_m3"] * c["specific_heat_j_kgk"] * delta_t_k) * 60000.0


def air_cfm_for_kw(kw: np.ndarray | float, delta_t_k: float) -> np.ndarray | float:
    return np.asarray(kw) * 1000.0 / (AIR_DENSITY * AIR_CP * delta_t_k) * M3S_TO_CFM


def heat_units(kw: float) -> dict:
    return {"kw": _r(kw), "btu_h": _r(kw * 1000 * W_TO_BTU_H, 1), "tons": _r(kw / KW_PER_TON)}


def _hall_list(project: Project, arrays: DesignArrays, rack_air: np.ndarray, rack_liquid: np.ndarray,
               rack_cfm: np.ndarray, room: list[dict], findings: list[Finding]) -> list[dict]:
    """Each hall's air and liquid heat against its cooling capacities."""
    halls = []
    for h_i, hall in enumerate(project.halls):
        mask = arrays.rack_hall == h_i
        air, liquid = float(rack_air[mask].sum()), float(rack_liquid[mask].sum())
        where = f"hall:{hall.id}"
        for kind, load, cap in (("air", air, hall.cooling_capacity_kw), ("liquid", liquid,
                                                                          hall.liquid_cooling_capacity_kw)):
            if cap is None or load == 0:
                continue
            if load > cap:
                findings.append(Finding("error", f"hall-over-{kind}-cooling",
                                        f"hall {hall.label} must remove {kw(load)} by {kind}, over its "
                                        f"{cap:g} kW {kind} cooling capacity", where))
            elif load > HEADROOM_WARNING * cap:
                findings.append(Finding("warning", f"hall-{kind}-cooling-headroom",
                                        f"hall {hall.label} uses {load / cap:.0%} of its {cap:g} kW {kind} cooling",
                                        where))
        halls.append({"id": hall.id, "name": hall.name, "air_kw": _r(air), "air_capacity_kw": hall.cooling_capacity_kw,
                      "air_headroom_kw": None if hall.cooling_capacity_kw is None
                      else _r(hall.cooling_capacity_kw - air),
                      "liquid_kw": _r(liquid), "liquid_capacity_kw": hall.liquid_cooling_capacity_kw,
                      "liquid_headroom_kw": None if hall.liquid_cooling_capacity_kw is None
                      else _r(hall.liquid_cooling_capacity_kw - liquid),
                      "air_cfm": _r(rack_cfm[mask].sum(), 0), **room[h_i]})
    return halls


def _liquid_trays(catalog: Catalog, dev) -> int:
    """The trays of a rack-scale system that take coolant (catalog kind ``tray``, a liquid share above 0)."""
    count = 0
    for comp in dev.components:
        part = catalog.find(comp.id)
        if part is not None and part.kind == "tray" and (part.liquid_fraction or 0) > 0:
            count += int(comp.count)
    return count


def _plumbing(catalog: Catalog, arrays: DesignArrays, loops: list[dict], rack_liquid: np.ndarray) -> None:
    """Each loop's hoses and couplings (see the module's docstring), added to it."""
    trays = np.array([_liquid_trays(catalog, d) for d in arrays.types.types], dtype=float)
    rack_trays = arrays.per_rack(arrays.dev(trays)) if len(trays) else np.zeros(arrays.n_racks)
    pos = {rid: i for i, rid in enumerate(arrays.rack_ids)}
    for loop in loops:
        idx = np.asarray([pos[r] for r in loop["racks"]], dtype=np.int64)
        cooled = idx[rack_liquid[idx] > 0] if len(idx) else idx
        loop["plumbing"] = {"racks": int(len(cooled)), "rack_hoses": 2 * int(len(cooled)),
                            "tray_couplings": 2 * int(rack_trays[cooled].sum()) if len(cooled) else 0}


def _fault_domains(arrays: DesignArrays, loops: list[dict]) -> None:
    """What stops when a loop's supply is lost (a header, a valve, every unit): added to each loop."""
    rack_gpus = arrays.per_rack(arrays.dev(arrays.types.gpus))
    pos = {rid: i for i, rid in enumerate(arrays.rack_ids)}
    for loop in loops:
        idx = [pos[r] for r in loop["racks"]]
        loop["fault_domain"] = {"racks": len(loop["racks"]), "gpus": int(rack_gpus[idx].sum()) if len(idx) else 0,
                                "liquid_kw": loop["load_kw"]}


@paused()  # a row per rack of figures: many small containers, no cycles
def analyze_cooling(ctx: Context) -> CoolingResult:
    project, catalog, arrays = ctx.project, ctx.catalog, ctx.arrays
    s = ctx.settings
    t = arrays.types
    it = arrays.dev(t.is_it)
    dev_kw = arrays.dev(t.power_max_w) / 1000.0
    dev_liquid = dev_kw * arrays.dev(t.liquid_fraction)
    dev_air = dev_kw - dev_liquid
    rack_liquid = arrays.per_rack(dev_liquid, it)
    rack_air = arrays.per_rack(dev_air, it)
    # Fan airflow: the catalog figure where given, the sensible-heat flow otherwise.
    fan = arrays.dev(t.airflow_cfm)
    dev_cfm = np.where(np.isnan(fan), air_cfm_for_kw(dev_air, s.air_delta_t_k), fan)
    rack_cfm = arrays.per_rack(dev_cfm, it)
    lpm_per_kw = coolant_lpm_per_kw(s.coolant, s.coolant_delta_t_k)
    rack_lpm = rack_liquid * lpm_per_kw

    loops, served_by, findings = _cdu_loops(project, catalog, arrays, rack_liquid, lpm_per_kw)
    _plumbing(catalog, arrays, loops, rack_liquid)
    unserved = np.array([b is None for b in served_by], dtype=bool)
    for i in np.nonzero((rack_liquid > 0) & unserved)[0]:
        rack = project.racks[i]
        findings.append(Finding("error", "no-cdu", f"rack {rack.name or rack.id} sends {kw(rack_liquid[i])} to "
                                                   "liquid but no CDU serves it", f"rack:{rack.id}"))

    air_limit, containment = air_limits(project, arrays, s)
    density = np.divide(rack_air, air_limit, out=np.zeros(np.shape(rack_air)), where=air_limit > 0)
    findings += air_density_findings(project, rack_air, air_limit, containment, s.air_rack_limit_kw)
    room, room_findings = room_air(project, catalog, arrays, rack_air, rack_cfm)
    findings += room_findings
    findings += loop_temperatures(project, catalog, arrays, loops)
    findings += no_water_findings(project, arrays, rack_liquid)
    _fault_domains(arrays, loops)
    halls = _hall_list(project, arrays, rack_air, rack_liquid, rack_cfm, room, findings)
    rows, hall_air, row_findings = row_air(project, arrays, s.air_supply_c, rack_air, rack_cfm, containment, room)
    findings += row_findings
    for hall, temperatures in zip(halls, hall_air):
        hall.update(temperatures)

    liquid, air = float(rack_liquid.sum()), float(rack_air.sum())
    total_cfm = float(rack_cfm.sum())
    section = {
        "settings": {"coolant": s.coolant, "coolant_name": COOLANTS[s.coolant]["name"],
                     "coolant_delta_t_k": s.coolant_delta_t_k, "air_delta_t_k": s.air_delta_t_k,
                     "air_supply_c": s.air_supply_c},
        "basis": "maximum draw",
        "liquid_kw": _r(liquid), "air_kw": _r(air),
        "heat": heat_units(liquid + air), "liquid_heat": heat_units(liquid), "air_heat": heat_units(air),
        "lpm_per_kw": _r(lpm_per_kw, 4),
        "coolant_flow_lpm": _r(liquid * lpm_per_kw, 1), "coolant_flow_m3_h": _r(liquid * lpm_per_kw * 0.06, 2),
        "air_cfm": _r(total_cfm, 0), "air_m3_h": _r(total_cfm * CFM_TO_M3H, 0),
        "halls": halls, "rows": rows, "cdu_loops": loops,
        "air_limits": {"contained_kw": s.air_rack_limit_kw, "open_kw": s.air_rack_limit_open_kw},
        "racks": [{"id": rid, "name": r.name, "liquid_kw": lq, "air_kw": ar, "coolant_flow_lpm": fl,
                   "air_cfm": cfm, "cdu_loop": loop, "containment": cont, "air_limit_kw": lim, "air_density": dens,
                   "air_remedy": air_remedy(ar, lim, s.air_rack_limit_kw if cont == "none" else None)}
                  for rid, r, lq, ar, fl, cfm, loop, cont, lim, dens in zip(
                      arrays.rack_ids, project.racks, np.round(rack_liquid, 3).tolist(),
                      np.round(rack_air, 3).tolist(), np.round(rack_lpm, 1).tolist(),
                      np.round(rack_cfm, 0).tolist(), served_by, containment, air_limit.tolist(),
                      np.round(density, 4).tolist())],
    }
    return CoolingResult(section=section, findings=tuple(findings), rack_air_density=frozen_array(density))


def _cdu_links(project: Project, catalog: Catalog, arrays: DesignArrays) -> tuple[list[tuple[str, str]],
                                                                                   list[tuple[int, int]]]:
    """Every CDU as (where, type), and which racks each serves as (unit index, rack index): a rack's own CDU
    serves it; a floor CDU its ``serves`` list, or without one every rack of its hall no other unit names."""
    rack_pos = {r.id: i for i, r in enumerate(project.racks)}
    units: list[tuple[str, str]] = []  # (where, type)
    links: list[tuple[int, int]] = []  # (unit index, rack index)
    for k in np.nonzero(arrays.dev(arrays.types.is_cdu))[0]:
        i = int(arrays.dev_rack[k])
        links.append((len(units), i))
        units.append((f"rack:{project.racks[i].id}", arrays.types.ids[arrays.dev_type[k]]))
    in_rack = {i for _, i in links}
    unlisted: dict[str, list[int]] = {}
    for f in project.floor_devices:
        if catalog.get(f.type).kind != "cdu":
            continue
        u = len(units)
        units.append((f"floor:{f.id}", f.type))
        known = [rack_pos[r] for r in f.serves if r in rack_pos]
        if known:
            links.extend((u, i) for i in known)
        else:
            unlisted.setdefault(f.hall, []).append(u)
    listed = {i for _, i in links}
    for hall_id, hall_units in unlisted.items():
        free = [i for i, r in enumerate(project.racks) if r.hall == hall_id and i not in listed and i not in in_rack]
        links.extend((u, i) for u in hall_units for i in free)
    return units, links


def _join_loops(n_units: int, links: list[tuple[int, int]]) -> tuple[dict[int, list[int]], dict[int, set[int]]]:
    """Units that share a rack joined into one loop: each loop's units and racks, keyed by its root unit."""
    parent = list(range(n_units))  # union-find over units; a rack joins the units that serve it

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    first_unit: dict[int, int] = {}
    for u, i in links:
        if i in first_unit:
            parent[find(u)] = find(first_unit[i])
        else:
            first_unit[i] = u
    groups: dict[int, list[int]] = {}
    for u in range(n_units):
        groups.setdefault(find(u), []).append(u)
    group_racks: dict[int, set[int]] = {}
    for u, i in links:
        group_racks.setdefault(find(u), set()).add(i)
    return groups, group_racks


def _loop(project: Project, catalog: Catalog, n: int, units: list[tuple[str, str]], members: list[int],
          idx: list[int], load: float, lpm_per_kw: float, findings: list[Finding]) -> dict:
    """One loop's load (kW) against its capacity, with its largest unit down, and its pumps' flow."""
    types = [units[u][1] for u in members]
    caps = [catalog.get(t).cooling_capacity_kw or 0.0 for t in types]
    flows = [catalog.get(t).flow_lpm for t in types]
    capacity = float(sum(caps))
    n_plus_1 = capacity - max(caps)
    where = units[members[0]][0]

    def names() -> str:  # for a finding's message only: a million-GPU site has 14,000 loops and few findings
        return cdu_names(project, [units[u][0] for u in members])

    if load > capacity:
        findings.append(Finding("error", "cdu-over-capacity",
                                f"CDU loop {names()} carries {kw(load)}, over its {capacity:g} kW", where))
    elif len(members) > 1 and load > n_plus_1:
        findings.append(Finding("warning", "cdu-redundancy-lost",
                                f"CDU loop {names()}: with its largest unit down it has {n_plus_1:g} kW for "
                                f"{kw(load)}: not N+1", where))
    elif len(members) == 1 and load > 0:
        findings.append(Finding("warning", "cdu-single", f"CDU {names()} is the only unit for {kw(load)}: "
                                                         "no N+1 redundancy", where))
    flow_needed = load * lpm_per_kw
    flow_cap = sum(flows) if all(flows) else None
    if flow_cap is not None and flow_needed > flow_cap:
        findings.append(Finding("error", "cdu-flow", f"CDU loop {names()} must pump {flow_needed:.0f} L/min, "
                                                     f"over its {flow_cap:.0f} L/min", where))
    return {"loop": n, "units": [units[u][0] for u in members], "types": types,
            "racks": [project.racks[i].id for i in idx], "load_kw": _r(load), "capacity_kw": _r(capacity),
            "capacity_n_minus_1_kw": _r(n_plus_1 if len(members) > 1 else 0.0),
            "utilisation": round(load / capacity, 4) if capacity > 0 else None,
            "redundancy": "N+1" if len(members) > 1 and load <= n_plus_1 else "N",
            # what the loop loses with its largest unit down: the heat left without a unit to take it
            "unit_lost_short_kw": _r(max(0.0, load - (n_plus_1 if len(members) > 1 else 0.0))),
            "coolant_flow_lpm": _r(flow_needed, 1),
            "flow_capacity_lpm": None if flow_cap is None else _r(flow_cap, 1)}


def _cdu_loops(project: Project, catalog: Catalog, arrays: DesignArrays, rack_liquid: np.ndarray,
               lpm_per_kw: float) -> tuple[list[dict], list, list[Finding]]:
    """CDUs and the racks they serve, joined into loops; each loop's capacity and N+1 checked.

    A loop is a connected group: two CDUs that share a rack share its load, so they are
    one loop however their ``serves`` lists are written, and no rack is counted twice.
    """
    units, links = _cdu_links(project, catalog, arrays)
    groups, group_racks = _join_loops(len(units), links)

    served_by: list[int | None] = [None] * arrays.n_racks
    ordered = sorted(groups.items(), key=lambda kv: units[kv[1][0]][0])
    racks = [sorted(group_racks.get(root, set())) for root, _ in ordered]
    for n, idx in enumerate(racks):
        for i in idx:
            served_by[i] = n
    # every loop's load in one pass (a rack is in one loop at most), not a sum per loop
    loop_of = np.asarray([-1 if n is None else n for n in served_by], dtype=np.int64)
    served = loop_of >= 0
    loads = np.bincount(loop_of[served], weights=rack_liquid[served], minlength=len(ordered)).tolist()
    loops, findings = [], []
    for n, ((_, members), idx) in enumerate(zip(ordered, racks)):
        loops.append(_loop(project, catalog, n, units, members, idx, loads[n] if idx else 0.0, lpm_per_kw,
                           findings))
    return loops, served_by, findings
