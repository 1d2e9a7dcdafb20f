"""Floor engine: weight per rack, static load on its footprint, and the rack's own load rating.

A rack-scale system (GB200 NVL72) ships as an integrated rack, so its weight already includes the
frame: the rack type's empty weight is not added again. Each of the four casters (or levelling feet)
carries a quarter of the weight: standing, against a raised-floor tile's concentrated (point)
rating; rolled in, against its rolling rating (handoff-facilities C.5). A row spreads its weight over
its length and its pitch: its racks' depth plus one aisle (half the aisle on each side).
"""
from __future__ import annotations

import numpy as np

from .formatting import quantity
from .collector import paused
from .engines import Context, EngineResult
from .findings import Finding


def _r(x: float, nd: int = 1) -> float:
    return round(float(x), nd)


@paused()  # a row per rack of figures: many small containers, no cycles
def analyze_floor(ctx: Context) -> EngineResult:
    project, arrays = ctx.project, ctx.arrays
    t = arrays.types
    contents = arrays.per_rack(arrays.dev(t.weight_kg))
    integrated = arrays.per_rack(arrays.dev(t.fills_rack).astype(float)) > 0
    frame = np.where(integrated, 0.0, t.weight_kg[arrays.rack_type])
    weight = contents + frame
    type_area = np.array([(rt.width_mm or 600) * (rt.depth_mm or 1200) / 1e6 for rt in t.types])
    area = type_area[arrays.rack_type]
    load = weight / area if len(area) else np.zeros(0)
    findings: list[Finding] = []
    names = [r.name for r in project.racks]
    labels = [r.name or r.id for r in project.racks]  # the plan labels a rack without a name by its id
    ratings = np.array([project.halls[h].floor_rating_kg_m2 or np.inf for h in arrays.rack_hall])
    for i in np.nonzero(load > ratings)[0]:
        findings.append(Finding("error", "floor-over-rating",
                                f"rack {labels[i]} loads the floor with {quantity(load[i], 'kg/m²')}, over the hall's "
                                f"{ratings[i]:g} kg/m² rating", f"rack:{arrays.rack_ids[i]}"))
    max_load = np.array([rt.max_load_kg if rt.max_load_kg is not None else np.inf for rt in t.types])[arrays.rack_type]
    for i in np.nonzero(~integrated & (contents > max_load))[0]:
        findings.append(Finding("error", "rack-over-load",
                                f"rack {labels[i]} holds {quantity(contents[i], 'kg')} of equipment, over the "
                                f"{max_load[i]:g} kg its frame is rated for", f"rack:{arrays.rack_ids[i]}"))
    findings += _tile_findings(project, arrays, weight / 4.0)
    # A row's load over its pitch is what a slab's distributed rating is written for; it is never above its
    # densest rack's load on its own footprint, which the check above holds to the same rating, so the row
    # figures are reported (and shown) without a finding of their own.
    rows = _rows(project, arrays, t, weight)
    rated = [None if integrated[i] or not np.isfinite(max_load[i]) else float(max_load[i])
             for i in range(arrays.n_racks)]
    hall_rating = [project.halls[h].floor_rating_kg_m2 for h in arrays.rack_hall]
    racks = [{"id": rid, "name": name, "weight_kg": w, "footprint_m2": a, "load_kg_m2": ld, "rating_kg_m2": hr,
              "caster_load_kg": c, "equipment_kg": e, "rack_rated_load_kg": rl}
             for rid, name, w, a, ld, hr, c, e, rl in zip(
                 arrays.rack_ids, names, np.round(weight, 1).tolist(), np.round(area, 3).tolist(),
                 np.round(load, 1).tolist(), hall_rating, np.round(weight / 4, 1).tolist(),
                 np.round(contents, 1).tolist(), rated)]
    tiles = [{"hall": h.id, "tile_point_kg": h.facility.tile_point_kg,
              "tile_rolling_kg": h.facility.tile_rolling_kg, "aisle_mm": h.facility.aisle_mm} for h in project.halls]
    section = {"total_weight_kg": _r(weight.sum()), "max_load_kg_m2": _r(load.max() if len(load) else 0.0),
               "racks": racks, "rows": rows, "halls": tiles}
    return EngineResult(section=section, findings=tuple(findings))


def _tile_findings(project, arrays, caster: np.ndarray) -> list[Finding]:
    out = []
    point = np.array([h.facility.tile_point_kg or np.inf for h in project.halls], dtype=float)[arrays.rack_hall]
    rolling = np.array([h.facility.tile_rolling_kg or np.inf for h in project.halls], dtype=float)[arrays.rack_hall]
    for i in np.nonzero(caster > point)[0]:
        r = project.racks[i]
        out.append(Finding("error", "tile-point-load",
                           f"rack {r.name or r.id} puts {quantity(caster[i], 'kg')} on each caster, over the "
                           f"{quantity(point[i], 'kg')} concentrated rating of the hall's floor tiles", f"rack:{r.id}"))
    for i in np.nonzero((caster <= point) & (caster > rolling))[0]:
        r = project.racks[i]
        out.append(Finding("warning", "tile-rolling-load",
                           f"rack {r.name or r.id} rolls {quantity(caster[i], 'kg')} on each caster, over the tiles' "
                           f"{rolling[i]:g} kg rolling rating: lay load-spreading plates along its route in",
                           f"rack:{r.id}"))
    return out


def _rows(project, arrays, t, weight: np.ndarray) -> list[dict]:
    """Each row's weight over its length (racks' widths side by side) times its pitch (depth + one aisle)."""
    if not arrays.n_racks:
        return []
    width = np.array([(rt.width_mm or 600) for rt in t.types])[arrays.rack_type] / 1000.0
    depth = np.array([(rt.depth_mm or 1200) for rt in t.types])[arrays.rack_type] / 1000.0
    order, row_of = arrays.rows
    aisle = np.array([h.facility.aisle_mm for h in project.halls], dtype=float)[arrays.rack_hall] / 1000.0
    kg = np.bincount(row_of, weights=weight, minlength=len(order))
    area = np.bincount(row_of, weights=width * (depth + aisle), minlength=len(order))
    length = np.bincount(row_of, weights=width, minlength=len(order))
    racks = np.bincount(row_of, minlength=len(order))
    return [{"hall": project.halls[h].id, "row": row, "racks": int(n), "weight_kg": _r(w), "length_m": _r(ln, 2),
             "area_m2": _r(a, 2), "load_kg_m2": _r(w / a if a > 0 else 0.0),
             "rating_kg_m2": project.halls[h].floor_rating_kg_m2}
            for (h, row), n, w, ln, a in zip(order, racks.tolist(), kg.tolist(), length.tolist(), area.tolist())]
