"""What the cabling view shows: one rack's (or one switch's) links, their routes on the plan, the length mix.

Everything here reads the fabric engine's wiring plan (:class:`designer.fabric.WiringPlan`)
from an :class:`~designer.analysis.Analysis`; nothing is recounted or re-routed. A
100,000-GPU design has some 300,000 links, so a selection is found with numpy masks over
the plan's columns, and text (names, ports) is made only for the links it touches.

Names follow the cabling export (:mod:`exporters.cabling`): a device by its name (its
type's name when unnamed), a compute tray of a rack-scale system as "<system> compute
tray <n>", a rack by its name. The export's walk that pairs the fabric inventory with the
mounted devices cannot be imported from here (the domain never imports an exporter), so
:func:`_fabric_devices` walks the same way; a test holds the two to the same names.
"""
from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field

import numpy as np

from catalog import Catalog

from .analysis import Analysis
from .fabric import media
from .fabric.geometry import mounted_sources, natural_key
from .fabric.topology import TIER_NAMES
from .fabric.wiring import WiringPlan
from .model import Project

#: A medium per code of :mod:`designer.fabric.media` (DAC, ACC, SPLITTER, MMF, SMF, NONE). The media
#: module calls a splitter "dac" too; here it keeps its own key because it is another cable to order.
MEDIUM_KEYS = ("dac", "acc", "splitter", "mmf", "smf", "none")
MEDIUM_NAMES = {
    "dac": "Passive copper (DAC)",
    "acc": "Active copper (ACC)",
    "splitter": "Copper splitter",
    "mmf": "Multimode fibre",
    "smf": "Single-mode fibre",
    "none": "No part (too long, or none fits)",
}
#: The same, as short as a table column wants them (the trade's abbreviations).
MEDIUM_SHORT = {"dac": "DAC", "acc": "ACC", "splitter": "Splitter", "mmf": "MMF", "smf": "SMF", "none": "none"}


def medium_name(key: str) -> str:
    return MEDIUM_NAMES.get(key, key)


# ---- the analysis, indexed once ---------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class _Index:
    plan: WiringPlan
    #: inventory rack index of each link's two ends
    a_rack: np.ndarray
    b_rack: np.ndarray
    #: per fabric device of the inventory: the mounted device it came from, and its name as people read it
    device_ids: np.ndarray
    mounted_names: np.ndarray
    device_names: np.ndarray
    device_rack: np.ndarray
    #: rack id -> inventory rack index; mounted device id -> inventory device indices
    rack_pos: dict
    by_device: dict
    project: Project


_last: list = [None, None]  # (weak reference to the analysis, its index): one design is on screen at a time


def _fabric_devices(project: Project, catalog: Catalog, plan: WiringPlan) -> tuple[list, list, list]:
    """Per fabric device of the wiring plan: the mounted device's id, its name, and the entry's own name
    (a tray of a rack-scale system reads "<system> compute tray <k>", as the cabling export has it)."""
    labels = list(plan.inv.devices.labels)
    ids: list = [""] * len(labels)
    names, mounted = list(labels), list(labels)
    for pos, source in enumerate(mounted_sources(project, catalog, plan.inv)):
        if source is None:
            continue
        _, d, dtype, tray = source
        name = d.name or (dtype.name if dtype else d.id)
        ids[pos], mounted[pos] = d.id, name
        names[pos] = f"{name} compute tray {tray}" if tray is not None else name
    return ids, mounted, names


def _plan_of(analysis: Analysis | None) -> WiringPlan | None:
    if analysis is None or "fabric" not in analysis.results:
        return None
    fabric = analysis.result("fabric")
    return fabric.plan if fabric.error is None else None


def _index(analysis: Analysis, catalog: Catalog) -> _Index | None:
    ref, cached = _last
    if ref is not None and ref() is analysis:
        return cached
    plan = _plan_of(analysis)
    if plan is None:
        return None
    inv = plan.inv
    project = analysis.project
    if project is None:
        return None
    rack = np.asarray(inv.devices.rack, dtype=np.int64)
    ids, mounted, names = _fabric_devices(project, catalog or analysis.catalog, plan)
    by_device: dict = {}
    for i, d in enumerate(ids):
        if d:
            by_device.setdefault(d, []).append(i)
    idx = _Index(plan, rack[plan.a_dev], rack[plan.b_dev], np.asarray(ids, dtype=object),
                 np.asarray(mounted, dtype=object), np.asarray(names, dtype=object), rack,
                 {r: i for i, r in enumerate(inv.rack_ids)},
                 {d: np.asarray(v, dtype=np.int64) for d, v in by_device.items()}, project)
    _last[:] = [weakref.ref(analysis), idx]
    return idx


def wiring_message(analysis: Analysis | None) -> str | None:
    """Why there is nothing to cable (no analysis yet, no fabric, a fabric that cannot be built), or None."""
    if analysis is None:
        return "Cabling appears once the design has been analysed."
    if "fabric" not in analysis.results:
        return "The fabric engine has not run on this design: there is no wiring plan to show."
    fabric = analysis.result("fabric")
    if fabric.error is not None:
        return f"No wiring plan: the design's compute fabric cannot be built ({fabric.error})."
    if fabric.plan is None or not len(fabric.plan):
        if not fabric.inventory.nodes:
            return "No compute fabric in this design: it has no GPU systems with fabric ports to cable."
        return ("No wiring plan yet: the design places no compute-fabric switches for its "
                f"{len(fabric.inventory.nodes):,} nodes to plug into.")
    return None


# ---- one selection's links ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class LinkRows:
    """The links of one rack or one device, seen from there: near end, far end, medium, length.

    Columns (numpy, one entry per row) cover ``rows_offset`` .. ``rows_offset + len(self)``
    of the ``total`` links that touch the selection, sorted by near device, its port, then
    the far rack. ``link`` is each row's index in the wiring plan.
    """

    selection: str
    #: the rack the selection stands in (its id and name; "" when the analysis does not know it)
    rack_id: str
    rack_name: str
    total: int
    rows_offset: int
    link: np.ndarray
    near_device_id: np.ndarray
    near_device: np.ndarray
    near_port: np.ndarray
    far_rack_id: np.ndarray
    far_rack: np.ndarray
    far_device: np.ndarray
    far_port: np.ndarray
    medium: np.ndarray
    medium_code: np.ndarray
    #: orderable length in m (NaN where no cable reaches) and the run the route rule asks for
    length_m: np.ndarray
    needed_m: np.ndarray
    tier: np.ndarray
    cable: np.ndarray
    #: far racks: distinct, and how many of the selection's links stay inside its own rack
    far_racks: int = 0
    in_rack: int = 0
    #: inventory rack indices (near, and far per row), for :func:`route_points`
    rack_index: int = -1
    far_rack_index: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.link)

    def medium_name(self, row: int) -> str:
        return medium_name(self.medium[row])


def _empty(selection: str, rack_id: str = "", rack_name: str = "") -> LinkRows:
    z, o = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
    return LinkRows(selection, rack_id, rack_name, 0, 0, z, o, o, o, o, o, o, o, o, z, np.zeros(0), np.zeros(0),
                    o, o)


def _rack_names(idx: _Index, project: Project | None, racks: np.ndarray) -> np.ndarray:
    """Names of inventory racks, from ``project`` when it still holds them (a rename shows at once)."""
    ids = idx.plan.inv.rack_ids
    out = np.empty(len(racks), dtype=object)
    for i, r in enumerate(racks.tolist()):
        rid = ids[r]
        if project is not None and project.has_rack(rid):
            out[i] = project.rack(rid).name or rid
        else:
            rack = idx.project.rack(rid)
            out[i] = rack.name or rid
    return out


def _ranks(names: np.ndarray) -> np.ndarray:
    """Each name's place in natural order ("leaf-2" before "leaf-10"), for a numpy sort."""
    order = sorted(range(len(names)), key=lambda i: natural_key(str(names[i])))
    rank = np.empty(len(names), dtype=np.int64)
    rank[order] = np.arange(len(names))
    return rank


def links_of(analysis: Analysis, project: Project | None, catalog: Catalog, selection: str, *,
             offset: int = 0, limit: int | None = None, rack: str | None = None) -> LinkRows:
    """The links of rack or mounted device ``selection``, from where it stands (see :class:`LinkRows`).

    A device id is unique only within its rack (a device moved to another rack keeps its id), so
    ``rack`` names the rack of a device ``selection``; without it, the first rack holding that id.

    ``project`` is the design as edited now (rack names are read from it); the links, lengths
    and device names are the analysis'. A selection the analysis does not know, or a rack
    without fabric devices, has no rows. ``offset``/``limit`` page the sorted rows; ``total``
    counts them all.
    """
    idx = _index(analysis, catalog)
    if idx is None:
        return _empty(selection)
    plan = idx.plan
    if rack is None and selection in idx.rack_pos:
        near_rack = idx.rack_pos[selection]
        a_in, b_in = idx.a_rack == near_rack, idx.b_rack == near_rack
    elif selection in idx.by_device:
        devices = idx.by_device[selection]
        near_rack = idx.rack_pos.get(rack, -1) if rack is not None else int(idx.device_rack[devices[0]])
        devices = devices[idx.device_rack[devices] == near_rack]
        if not len(devices):
            return _empty(selection)
        mine = np.zeros(len(idx.device_ids), dtype=bool)
        mine[devices] = True
        a_in, b_in = mine[plan.a_dev], mine[plan.b_dev]
    else:
        return _empty(selection)
    rack_id = plan.inv.rack_ids[near_rack]
    rack_name = str(_rack_names(idx, project, np.asarray([near_rack]))[0])
    sel = np.nonzero(a_in | b_in)[0]
    if not len(sel):
        return _empty(selection, rack_id, rack_name)
    near_is_a = a_in[sel]
    near = np.where(near_is_a, plan.a_dev[sel], plan.b_dev[sel])
    far = np.where(near_is_a, plan.b_dev[sel], plan.a_dev[sel])
    near_port = np.where(near_is_a, plan.a_port[sel], plan.b_port[sel])
    far_port = np.where(near_is_a, plan.b_port[sel], plan.a_port[sel])
    far_rack = idx.device_rack[far]

    # Sort by near device, its port, far rack, far device and port: names by their natural order, ranked once each.
    near_u, near_inv = np.unique(near, return_inverse=True)
    rack_u, rack_inv = np.unique(far_rack, return_inverse=True)
    far_u, far_inv = np.unique(far, return_inverse=True)
    rack_names = _rack_names(idx, project, rack_u)
    order = np.lexsort((far_port, _ranks(idx.device_names[far_u])[far_inv], _ranks(rack_names)[rack_inv],
                        near_port, _ranks(idx.device_names[near_u])[near_inv]))
    stop = len(order) if limit is None else min(len(order), offset + max(0, limit))
    order = order[max(0, offset):stop]

    rows = sel[order]
    near, far, near_port, far_port = near[order], far[order], near_port[order], far_port[order]
    code = plan.choice["medium"][rows].astype(np.int64)
    return LinkRows(
        selection=selection, rack_id=rack_id, rack_name=rack_name, total=len(sel), rows_offset=max(0, offset),
        link=rows, near_device_id=idx.device_ids[near], near_device=idx.device_names[near],
        near_port=plan.port_names(near, near_port), far_rack_id=np.asarray(plan.inv.rack_ids, dtype=object)[
            far_rack[order]], far_rack=rack_names[rack_inv[order]], far_device=idx.device_names[far],
        far_port=plan.port_names(far, far_port), medium=np.asarray(MEDIUM_KEYS, dtype=object)[code], medium_code=code,
        length_m=np.asarray(plan.choice["length_m"][rows], dtype=float), needed_m=np.asarray(plan.raw_m[rows]),
        tier=np.asarray(TIER_NAMES, dtype=object)[plan.tier[rows]],
        cable=np.asarray(list(plan.choice["cable_ids"]) + [""], dtype=object)[plan.choice["cable"][rows]],
        far_racks=int((rack_u != near_rack).sum()), in_rack=int((far_rack == near_rack).sum()),
        rack_index=near_rack, far_rack_index=far_rack[order])


def devices_in_rack(analysis: Analysis, catalog: Catalog, rack_id: str) -> list[tuple[str, str, int]]:
    """(mounted device id, name, links) of each fabric device in the rack that has links, in rack order.

    A link between two devices of the rack counts for both, so these add up to more than the rack's links.
    """
    idx = _index(analysis, catalog)
    if idx is None or rack_id not in idx.rack_pos:
        return []
    plan = idx.plan
    mine = np.nonzero(idx.device_rack == idx.rack_pos[rack_id])[0]
    if not len(mine):
        return []
    counts = np.bincount(plan.a_dev, minlength=len(idx.device_ids)) + np.bincount(plan.b_dev,
                                                                                  minlength=len(idx.device_ids))
    per: dict = {}
    for i in mine.tolist():
        did = idx.device_ids[i]
        if did:
            _, prev = per.get(did, ("", 0))
            per[did] = (idx.mounted_names[i], prev + int(counts[i]))
    return [(did, name, n) for did, (name, n) in per.items() if n]


# ---- routes on the plan ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Route:
    """The plan view of the run between the selection's rack and one far rack, as the length rule takes it.

    ``points`` are in plan millimetres: the points before ``far_from`` in ``hall``'s plane, the
    rest in ``far_hall``'s (the same hall but for a run between halls, which goes out by its
    room's cable entry and in by the far room's). ``medium`` is the medium most of its ``links`` use.
    """

    far_rack: str
    medium: str
    links: int
    hall: str
    far_hall: str
    points: tuple[tuple[float, float], ...]
    #: index of the first point in ``far_hall``'s plane
    far_from: int = -1


def _corner(x0: float, y0: float, x1: float, y1: float, rotation: float) -> tuple[float, float]:
    """Where the run turns: it leaves along the near rack's row (racks of a row stand side by side, across
    their front), then crosses to the far rack. Any such staircase has the rule's length; this is the tray's."""
    a = math.radians(rotation)
    return (x1, y0) if abs(math.cos(a)) >= abs(math.sin(a)) else (x0, y1)


def route_points(analysis: Analysis, rows: LinkRows) -> list[Route]:
    """One route per distinct far rack of ``rows``, in far-rack order (links inside the rack have none).

    The fabric's length rule (:func:`designer.fabric.geometry.cable_lengths_m`) runs a cable up
    from its device to the tray above the rack, |dx| + |dy| along trays between rack centres,
    and down to the far device: seen from above, the drops are the two rack centres and the
    tray run is a two-leg path between them. That path is what is drawn, so its plan length is
    exactly the horizontal part of each link's length.
    """
    plan = _plan_of(analysis)
    if plan is None or not len(rows) or rows.rack_index < 0:
        return []
    inv = plan.inv
    away = rows.far_rack_index != rows.rack_index
    far = rows.far_rack_index[away]
    if not len(far):
        return []
    racks, group, n = np.unique(far, return_inverse=True, return_counts=True)
    code = rows.medium_code[away]
    # The medium most of each route's links take: one count per (route, medium), the largest per route.
    votes = np.bincount(group * len(MEDIUM_KEYS) + code, minlength=len(racks) * len(MEDIUM_KEYS))
    common = votes.reshape(len(racks), len(MEDIUM_KEYS)).argmax(axis=1)
    r0 = rows.rack_index
    x0, y0 = float(inv.rack_x[r0]), float(inv.rack_y[r0])
    rotation = analysis.project.racks[r0].rotation if analysis.project is not None else 0.0
    out = []
    sites = inv.sites
    for r, links, c in zip(racks.tolist(), n.tolist(), common.tolist()):
        x1, y1 = float(inv.rack_x[r]), float(inv.rack_y[r])
        if sites is not None and sites.hall[r] != sites.hall[r0]:
            pts, far_from = _between_rooms(sites, r0, r)
        else:
            pts = [(x0, y0)]
            corner = _corner(x0, y0, x1, y1, rotation)
            if corner != (x0, y0) and corner != (x1, y1):
                pts.append(corner)
            pts.append((x1, y1))
            far_from = len(pts) - 1
        out.append(Route(inv.rack_ids[r], MEDIUM_KEYS[c], int(links), inv.rack_halls[r0], inv.rack_halls[r],
                         tuple(pts), far_from))
    return out


def _between_rooms(sites, ra: int, rb: int) -> tuple[list[tuple[float, float]], int]:
    """A run between rooms as the length rule takes it: along the near room's trays to its entry, along the
    corridor to the far room's entry (one turn), in to the far rack. The points after the near entry are in
    the far room's plane."""
    (xa, ya), (ea_x, ea_y), (eb_x, eb_y), (xb, yb) = sites.route_points(ra, rb)
    ha, hb = int(sites.hall[ra]), int(sites.hall[rb])
    # the corridor turns at the far entry's x, at the near entry's y as the far room's plane has it
    turn_y = float(sites.site_y[ha] - sites.site_y[hb] + eb_y)
    near = [(xa, ya), (ea_x, ya), (ea_x, ea_y)]
    far = [(eb_x, turn_y), (eb_x, eb_y), (xb, eb_y), (xb, yb)]
    return near + far, len(near)


# ---- the whole design -----------------------------------------------------------------------------------------

def length_histogram(analysis: Analysis | None) -> dict[str, dict[float, int]]:
    """Medium key -> {orderable length in m: cables}, media in :data:`MEDIUM_KEYS` order, lengths ascending.

    Read from the fabric engine's ``cables_by_length`` (:meth:`FabricResult.cable_lengths`), which is
    what the bill of materials orders from: physical cables, so a copper pair (two links on one
    twin-port cable) counts once and a link no cable reaches counts none. The bill adds its spares
    on top of these counts; the wiring plan's links would count a copper pair twice.
    """
    plan = _plan_of(analysis)
    if plan is None:
        return {}
    # Each cable id is one medium: read the pairs off the plan's links.
    ch = plan.choice
    used = ch["cable"] >= 0
    pairs = np.unique(np.stack([ch["cable"][used], ch["medium"][used].astype(np.int64)]), axis=1)
    code_of = {ch["cable_ids"][c]: m for c, m in pairs.T.tolist()}
    per: dict[int, dict[float, int]] = {}
    for cable, counts in analysis.result("fabric").cable_lengths().items():
        code = code_of.get(cable)
        if code is None:
            continue
        slot = per.setdefault(code, {})
        for length, n in counts.items():
            slot[float(length)] = slot.get(float(length), 0) + int(n)
    return {MEDIUM_KEYS[c]: dict(sorted(per[c].items())) for c in sorted(per)}


@dataclass(frozen=True)
class MediumTotals:
    links: int
    cables: int
    metres: float


@dataclass(frozen=True)
class CablingSummary:
    """Links, cables and metres of cable of the whole wiring plan, in total and per medium."""

    links: int
    cables: int
    metres: float
    #: links no catalog cable is long enough for
    too_long: int
    by_medium: dict[str, MediumTotals]


def cabling_summary(analysis: Analysis | None) -> CablingSummary | None:
    """The whole plan's figures (None without a wiring plan); cables and metres count each physical cable once."""
    plan = _plan_of(analysis)
    if plan is None:
        return None
    code = plan.choice["medium"].astype(np.int64)
    owner = np.asarray(plan.choice["owner"], dtype=bool) & (code != media.NONE)
    length = np.nan_to_num(np.asarray(plan.choice["length_m"], dtype=float))
    k = len(MEDIUM_KEYS)
    links = np.bincount(code, minlength=k)
    cables = np.bincount(code[owner], minlength=k)
    metres = np.bincount(code[owner], weights=length[owner], minlength=k)
    by = {MEDIUM_KEYS[c]: MediumTotals(int(links[c]), int(cables[c]), round(float(metres[c]), 1))
          for c in range(k) if links[c] and c != media.NONE}
    return CablingSummary(len(code), int(owner.sum()), round(float(metres.sum()), 1), int(links[media.NONE]),
                          by)
