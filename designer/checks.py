"""Findings about a design's space: racks that overlap or leave their hall, U collisions.

Findings point at the object they belong to (``where`` = ``"rack:<id>"``,
``"hall:<id>"`` or ``"floor:<id>"``) so the GUI can select and centre it.
Geometry is vectorised with numpy and shapely's STRtree, so a 15,000-rack hall
is checked in milliseconds.
"""
from __future__ import annotations

import numpy as np
import shapely

from catalog import Catalog

from .findings import Finding
from .model import Project
from .rules import occupied_span

#: Footprints may touch (racks stand side by side); only a real overlap counts.
OVERLAP_TOLERANCE_MM2 = 1.0


def _footprints(xs, ys, widths, depths, rotations) -> np.ndarray:
    """Rotated rectangles as shapely polygons, all at once."""
    a = np.radians(rotations)
    c, s = np.cos(a), np.sin(a)
    hw, hd = widths / 2, depths / 2
    local = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], dtype=float)
    px = local[None, :, 0] * hw[:, None]
    py = local[None, :, 1] * hd[:, None]
    gx = xs[:, None] + px * c[:, None] - py * s[:, None]
    gy = ys[:, None] + px * s[:, None] + py * c[:, None]
    coords = np.stack([gx, gy], axis=-1)
    return shapely.polygons(coords)


def placed_objects(project: Project, catalog: Catalog):
    """(kind, id, name, hall, polygon) for every rack and floor unit with a footprint."""
    kinds, ids, names, halls, rows = [], [], [], [], []
    for r in project.racks:
        t = catalog.get(r.type)
        kinds.append("rack"), ids.append(r.id), names.append(r.name or r.id), halls.append(r.hall)
        rows.append((r.x, r.y, t.width_mm or 600.0, t.depth_mm or 1200.0, r.rotation))
    for f in project.floor_devices:
        t = catalog.get(f.type)
        if not t.width_mm or not t.depth_mm:
            continue  # a unit with no footprint (wall-mounted, in-rack) cannot collide on the floor
        kinds.append("floor"), ids.append(f.id), names.append(f.name or f.id), halls.append(f.hall)
        rows.append((f.x, f.y, t.width_mm, t.depth_mm, f.rotation))
    if not rows:
        return kinds, ids, names, halls, np.empty(0, dtype=object)
    arr = np.asarray(rows, dtype=float)
    return kinds, ids, names, halls, _footprints(arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3], arr[:, 4])


def check_space(project: Project, catalog: Catalog) -> list[Finding]:
    findings: list[Finding] = []
    kinds, ids, names, halls, polys = placed_objects(project, catalog)
    label = {"rack": "rack", "floor": "floor unit"}
    if len(polys):
        hall_arr = np.asarray(halls, dtype=object)
        for hall in project.halls:
            outline = shapely.Polygon(hall.outline)
            if not outline.is_valid:
                findings.append(Finding("error", "hall-outline-invalid",
                                        f"hall {hall.name}: its outline crosses itself", f"hall:{hall.id}"))
                continue
            idx = np.nonzero(hall_arr == hall.id)[0]
            inside = shapely.covers(outline, polys[idx])
            for i in idx[~inside]:
                findings.append(Finding("error", "outside-hall",
                                        f"{label[kinds[i]]} {names[i]} is not inside hall {hall.name}",
                                        f"{kinds[i]}:{ids[i]}"))
        tree = shapely.STRtree(polys)
        left, right = tree.query(polys, predicate="intersects")
        keep = (left < right) & (hall_arr[left] == hall_arr[right])
        left, right = left[keep], right[keep]
        if len(left):
            areas = shapely.area(shapely.intersection(polys[left], polys[right]))
            for a, b, area in zip(left, right, areas):
                if area > OVERLAP_TOLERANCE_MM2:
                    findings.append(Finding(
                        "error", "overlap",
                        f"{label[kinds[a]]} {names[a]} overlaps {label[kinds[b]]} {names[b]} "
                        f"by {area / 1e6:.2f} m²", f"{kinds[a]}:{ids[a]}"))
    findings.extend(check_rack_units(project, catalog))
    return findings


def check_rack_units(project: Project, catalog: Catalog) -> list[Finding]:
    out: list[Finding] = []
    for rack in project.racks:
        rtype = catalog.get(rack.type)
        units = rtype.rack_units
        spans = []
        for d in rack.devices:
            dtype = catalog.get(d.type)
            span = occupied_span(dtype, d, units)
            if span is not None:
                spans.append((span[0], span[1], d, dtype))
            if dtype.depth_mm and rtype.depth_mm and dtype.depth_mm > rtype.depth_mm:
                out.append(Finding("error", "too-deep",
                                   f"rack {rack.name}: {dtype.id} is {dtype.depth_mm:g} mm deep, "
                                   f"the rack {rtype.depth_mm:g} mm", f"rack:{rack.id}"))
        spans.sort(key=lambda s: s[0])
        highest = None  # the span reaching highest so far: anything starting below its top collides
        for b1, t1, d1, _ in spans:
            if highest is not None and b1 < highest[1]:
                b0, _, d0, _ = highest
                out.append(Finding("error", "u-collision",
                                   f"rack {rack.name}: {d1.name or d1.type} at U{b1:g} collides with "
                                   f"{d0.name or d0.type} at U{b0:g}", f"rack:{rack.id}"))
            if highest is None or t1 > highest[1]:
                highest = (b1, t1, d1, None)
    return out
