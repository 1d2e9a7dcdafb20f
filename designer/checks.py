"""Findings about a design's space: racks that overlap or leave their hall, U collisions.

Findings point at the object they belong to (``where`` = ``"rack:<id>"``,
``"hall:<id>"`` or ``"floor:<id>"``) so the GUI can select and centre it.
Geometry and tolerances come from :mod:`designer.placement`, the rules the
commands enforce, so a placement an edit accepts is never a finding here; they
are vectorised with numpy and shapely's STRtree, so a 15,000-rack hall is
checked in milliseconds.
"""
from __future__ import annotations

import numpy as np
import shapely

from catalog import Catalog

from .findings import Finding
from .formatting import count
from .model import Project
from .placement import hall_shape, overlap_areas, overlap_clusters, placed_objects
from .rules import collisions, occupied_span

#: A cluster of overlapping footprints names this many of them in its message (all three of three) ...
CLUSTER_NAMED = 2
#: ... and carries at most this many as its places (the window selects them on a click).
CLUSTER_PLACES = 1000


def check_space(project: Project, catalog: Catalog, placed=None) -> list[Finding]:
    """Footprints outside their hall or over each other, by the rules the commands enforce on every edit.

    ``placed`` is :func:`~designer.placement.placed_objects` of the project when the caller has it already.
    """
    findings: list[Finding] = []
    placed = placed if placed is not None else placed_objects(project, catalog)
    if len(placed.polys):
        # each hall's footprints found once for all halls (one comparison of every footprint per hall took a
        # third of this check on a site of 124 halls)
        names, of_hall = np.unique(placed.halls.astype(str), return_inverse=True)
        order = np.argsort(of_hall.reshape(-1), kind="stable")
        cuts = np.searchsorted(of_hall.reshape(-1)[order], np.arange(len(names) + 1))
        in_hall = {name: order[cuts[k]:cuts[k + 1]] for k, name in enumerate(names.tolist())}
        for hall in project.halls:
            shape = hall_shape(hall)
            if shape is None:
                findings.append(Finding("error", "hall-outline-invalid",
                                        f"hall {hall.label}: its outline crosses itself", f"hall:{hall.id}"))
                continue
            idx = in_hall.get(str(hall.id), np.zeros(0, dtype=np.int64))
            for i in idx[~shapely.covers(shape, placed.polys[idx])]:
                findings.append(Finding("error", "outside-hall",
                                        f"{placed.labels[i]} is not inside hall {hall.label}", placed.wheres[i]))
        findings.extend(overlap_finding(placed, members)
                        for members in overlap_clusters(placed.polys, placed.halls))
    findings.extend(check_rack_units(project, catalog))
    return findings


def overlap_finding(placed, members) -> Finding:
    """One finding for footprints joined by overlaps: a pair by its shared area, a cluster by its size and extent.

    Its places are the members, the first :data:`CLUSTER_PLACES` of a bigger cluster (the message says how many).
    """
    labels, wheres = placed.labels, placed.wheres
    if len(members) == 2:
        a, b = members
        area = overlap_areas(placed.polys[[a]], placed.polys[[b]])[0]
        return Finding("error", "overlap", f"{labels[a]} overlaps {labels[b]} by {area / 1e6:.2f} m²",
                       wheres[a], (wheres[a], wheres[b]))
    racks = sum(1 for i in members.tolist() if wheres[i].startswith("rack:"))
    kinds = " and ".join(count(n, word) for n, word in ((racks, "rack"), (len(members) - racks, "floor unit")) if n)
    x0, y0, x1, y1 = shapely.total_bounds(placed.polys[members])
    first = [labels[i] for i in members[:CLUSTER_NAMED + 1].tolist()]
    named = (", ".join(first[:-1]) + f" and {first[-1]}" if len(members) <= CLUSTER_NAMED + 1
             else ", ".join(first[:CLUSTER_NAMED]) + f" and {len(members) - CLUSTER_NAMED:,} more")
    shown = (f" (the first {CLUSTER_PLACES:,} of them are marked)" if len(members) > CLUSTER_PLACES else "")
    return Finding("error", "overlap",
                   f"{kinds} overlap one another within {(x1 - x0) / 1e3:,.2f} m × {(y1 - y0) / 1e3:,.2f} m: "
                   f"{named}{shown}",
                   wheres[members[0]], tuple(wheres[i] for i in members[:CLUSTER_PLACES].tolist()))


def check_rack_units(project: Project, catalog: Catalog) -> list[Finding]:
    out: list[Finding] = []
    types: dict = {}  # a design holds a handful of types: look each up once, not once per device
    for rack in project.racks:
        rtype = types.get(rack.type) or types.setdefault(rack.type, catalog.get(rack.type))
        units = rtype.rack_units
        spans = []
        for d in rack.devices:
            dtype = types.get(d.type) or types.setdefault(d.type, catalog.get(d.type))
            span = occupied_span(dtype, d, units)
            if span is not None:
                spans.append((span[0], span[1], d, dtype))
            if dtype.depth_mm and rtype.depth_mm and dtype.depth_mm > rtype.depth_mm:
                out.append(Finding("error", "too-deep",
                                   f"rack {rack.name or rack.id}: {dtype.name} is {dtype.depth_mm:g} mm deep, "
                                   f"the rack {rtype.depth_mm:g} mm", f"rack:{rack.id}"))
        for (b1, _, d1, t1), (b0, _, d0, t0) in collisions(spans) if len(spans) > 1 else ():
            out.append(Finding("error", "u-collision",
                               f"rack {rack.name or rack.id}: {d1.name or t1.name} at U{b1:g} collides with "
                               f"{d0.name or t0.name} at U{b0:g}", f"rack:{rack.id}"))
    return out
