"""Floor engine: weight per rack, static load on its footprint, and the rack's own load rating.

A rack-scale system (GB200 NVL72) ships as an integrated rack, so its weight already includes the
frame: the rack type's empty weight is not added again. Each of the four casters carries a
quarter of the weight, the figure to hold against a raised-floor tile's concentrated-load rating.
"""
from __future__ import annotations

import numpy as np

from .engines import Context, EngineResult
from .findings import Finding


def _r(x: float, nd: int = 1) -> float:
    return round(float(x), nd)


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
    ratings = np.array([project.halls[h].floor_rating_kg_m2 or np.inf for h in arrays.rack_hall])
    for i in np.nonzero(load > ratings)[0]:
        findings.append(Finding("error", "floor-over-rating",
                                f"rack {names[i]} loads the floor with {load[i]:.0f} kg/m², over the hall's "
                                f"{ratings[i]:g} kg/m² rating", f"rack:{arrays.rack_ids[i]}"))
    max_load = np.array([rt.max_load_kg if rt.max_load_kg is not None else np.inf for rt in t.types])[arrays.rack_type]
    for i in np.nonzero(~integrated & (contents > max_load))[0]:
        findings.append(Finding("error", "rack-over-load",
                                f"rack {names[i]} holds {contents[i]:.0f} kg of equipment, over the "
                                f"{max_load[i]:g} kg its frame is rated for", f"rack:{arrays.rack_ids[i]}"))
    rated = [None if integrated[i] or not np.isfinite(max_load[i]) else float(max_load[i])
             for i in range(arrays.n_racks)]
    hall_rating = [project.halls[h].floor_rating_kg_m2 for h in arrays.rack_hall]
    racks = [{"id": rid, "name": name, "weight_kg": w, "footprint_m2": a, "load_kg_m2": ld, "rating_kg_m2": hr,
              "caster_load_kg": c, "equipment_kg": e, "rack_rated_load_kg": rl}
             for rid, name, w, a, ld, hr, c, e, rl in zip(
                 arrays.rack_ids, names, np.round(weight, 1).tolist(), np.round(area, 3).tolist(),
                 np.round(load, 1).tolist(), hall_rating, np.round(weight / 4, 1).tolist(),
                 np.round(contents, 1).tolist(), rated)]
    section = {"total_weight_kg": _r(weight.sum()), "max_load_kg_m2": _r(load.max() if len(load) else 0.0),
               "racks": racks}
    return EngineResult(section=section, findings=tuple(findings))
