"""Power engine: draw per device, rack, row and hall; supply redundancy; PDU and feed loading; PUE.

Conventions (see the DCIM reference):
- A 3-phase PDU's apparent power is sqrt(3) x V(line-line) x I; real power is that x power factor;
  a circuit may carry at most ``derating`` (80 %) of it continuously.
- A rack's PDUs alternate between feeds A and B in the order they are listed. Device supplies
  are split evenly between the feeds, so each feed carries half the rack in normal operation;
  when the other feed fails each device draws what its surviving supplies deliver, at most its
  maximum (:mod:`designer.power.feeds`).
- A supply set of ``count`` supplies with ``redundant`` spares delivers (count - redundant) x rating.
  On the loss of one feed half of the supplies remain.
- A rack holding a rack-scale system (an NVL72) is held, unless it, its hall or the project states a
  limit, to what one of its feeds carries continuously (``derating`` x the feed's inlet rating: 134.8 kW
  for an NVL72's four shelves a side): its draw on one feed, after any throttling, against that, since
  under N+N either feed may have to carry it for the hours a repair takes. The system's own maximum is
  no limit: holding it to that painted every such rack "at the limit". Its transient peaks with a feed
  lost are checked against what that feed's supplies deliver.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formatting import kw
from ..arrays import DesignArrays, gpu_tdp_w
from ..gpu_power import GpuPowerError, check_cap, gpu_name
from ..collector import paused
from ..engines import Context, EngineResult, frozen_array
from ..findings import Finding
from ..model import Project
from .chain import power_chain
from .feeds import SQRT3, RackFeeds, imbalance, rack_feeds

#: Share of a hall's capacity above which a warning says headroom is thin.
HEADROOM_WARNING = 0.9


def pdu_capacity_kw(voltage_v: float, current_a: float, phases: int, power_factor: float) -> float:
    """Real power a PDU's circuit can carry at its full rating (before derating)."""
    return (SQRT3 if phases == 3 else 1.0) * voltage_v * current_a * power_factor / 1000.0


def _r(x: float, nd: int = 3) -> float:
    return round(float(x), nd)


#: A rack-scale system's limit when no one states it and its feeds are not rated: the GB200 NVL72's maximum
#: (catalog, Supermicro's 132 kW), the project default before feed capacities were taken.
RACK_SYSTEM_FALLBACK_KW = 132.0


def one_feed_kw(feeds: RackFeeds) -> np.ndarray:
    """What one feed of each rack carries continuously: the weaker of two, or its only one (0: not rated)."""
    ca, cb = feeds.continuous_a, feeds.continuous_b
    two = (feeds.inlets_a > 0) & (feeds.inlets_b > 0)
    return np.where(feeds.unrated, 0.0, np.where(two, np.minimum(ca, cb), np.maximum(ca, cb)))


def rack_limits_kw(project: Project, arrays: DesignArrays, feeds: RackFeeds | None = None
                   ) -> tuple[np.ndarray, list[str]]:
    """Each rack's limit and where it comes from: ``rack`` (its own), ``hall`` (its hall's default),
    ``rack_system`` (the project's limit for rack-scale systems), ``feed`` (a rack-scale system's one-feed
    capacity, when the project states no such limit) or ``project`` (the project's default)."""
    s = project.settings
    has_system = arrays.per_rack(arrays.dev(arrays.types.fills_rack).astype(float)) > 0
    system_kw = s.rack_system_limit_kw
    fed = np.zeros(len(has_system), dtype=bool)
    if system_kw is None:
        one = one_feed_kw(feeds) if feeds is not None else np.zeros(len(has_system))
        fed = has_system & (one > 0)
        system = np.where(fed, one, RACK_SYSTEM_FALLBACK_KW)
    else:
        system = np.full(len(has_system), float(system_kw))
    out = np.where(has_system, system, s.rack_limit_kw)
    source = ["feed" if f else "rack_system" if system else "project" for system, f in zip(has_system.tolist(),
                                                                                              fed.tolist())]
    for i, rack in enumerate(project.racks):
        if rack.power_limit_kw is not None:
            out[i], source[i] = rack.power_limit_kw, "rack"
        else:
            hall_limit = project.halls[arrays.rack_hall[i]].rack_power_limit_kw
            if hall_limit is not None:
                out[i], source[i] = hall_limit, "hall"
    return out, source


@dataclass(frozen=True, kw_only=True)
class PowerResult(EngineResult):
    """The ``power`` section, and per rack (in the project's rack order) the figures views colour by."""

    rack_ids: tuple[str, ...]
    rack_typical_kw: np.ndarray
    rack_max_kw: np.ndarray
    #: the limit each rack is held to: its own, else its hall's, else the project's (rack-scale or not)
    rack_limit_kw: np.ndarray
    #: maximum draw over limit
    rack_utilisation: np.ndarray
    #: the most loaded element of the chain that feeds the rack (its inlets normal or failover, its row's
    #: distribution, its UPS), as a share of what that element may carry
    rack_chain_utilisation: np.ndarray
    #: each rack's two feeds (:mod:`designer.power.feeds`)
    feeds: RackFeeds
    it_typical_kw: float
    it_max_kw: float
    facility_max_kw: float


def _rack_list(project, ids, names, rack_typ, rack_max, limits, limit_sources, util, chain_util, feeds: RackFeeds,
               failover: np.ndarray, held: np.ndarray) -> list[dict]:
    """One report row per rack: the columns rounded as whole arrays, then zipped."""
    def col(a: np.ndarray, nd: int = 3) -> list:
        return np.round(a, nd).tolist()

    count_a, count_b = feeds.inlets_a, feeds.inlets_b
    pdus = (count_a + count_b).astype(int)
    rack_feed_rows = _rack_feed_rows(feeds, count_a, count_b, failover)
    return [
        {"id": rid, "name": name, "hall": r.hall, "row": r.row, "typical_kw": typ, "max_kw": mx, "limit_kw": lim,
         "limit_source": src, "headroom_kw": head, "utilisation": u, "pdus": n, "inlet": kind,
         "chain_utilisation": cu, "peak_kw": pk, "feeds": fd}
        for rid, name, r, typ, mx, lim, src, head, u, n, kind, cu, pk, fd in zip(
            ids, names, project.racks, col(rack_typ), col(rack_max), col(limits), limit_sources, col(limits - held),
            col(util, 4), pdus.tolist(), feeds.inlet_kind, _or_none(chain_util, 4), col(feeds.peak_a + feeds.peak_b),
            rack_feed_rows)
    ]


def _row_list(arrays: DesignArrays, chain: dict, rack_typ: np.ndarray, rack_max: np.ndarray) -> list[dict]:
    """The power chain's rows with their racks' IT load, sorted by hall and row."""
    _, row_of = arrays.rows
    n_rows = len(chain["rows"])
    row_typ = np.round(np.bincount(row_of, weights=rack_typ, minlength=n_rows), 3).tolist()
    row_max = np.round(np.bincount(row_of, weights=rack_max, minlength=n_rows), 3).tolist()
    return sorted(({"hall": c["hall"], "row": c["row"], "racks": c["racks"], "typical_kw": typ, "max_kw": mx,
                    **{k: v for k, v in c.items() if k not in ("hall", "row", "racks")}}
                   for c, typ, mx in zip(chain["rows"], row_typ, row_max)), key=lambda r: (r["hall"], r["row"]))


def _hall_list(project: Project, arrays: DesignArrays, rack_typ: np.ndarray, rack_max: np.ndarray, s,
               findings: list[Finding]) -> list[dict]:
    """Each hall's IT load against its capacity."""
    halls = []
    for h_i, hall in enumerate(project.halls):
        mask = arrays.rack_hall == h_i
        typ, mx = float(rack_typ[mask].sum()), float(rack_max[mask].sum())
        cap = hall.power_capacity_kw
        where = f"hall:{hall.id}"
        if cap is not None:
            if mx > cap:
                findings.append(Finding("error", "hall-over-power",
                                        f"hall {hall.label} needs up to {kw(mx)} of IT power, over its "
                                        f"{cap:g} kW capacity", where))
            elif mx > HEADROOM_WARNING * cap:
                findings.append(Finding("warning", "hall-power-headroom",
                                        f"hall {hall.label} uses {mx / cap:.0%} of its {cap:g} kW IT capacity", where))
        halls.append({"id": hall.id, "name": hall.name, "it_typical_kw": _r(typ), "it_max_kw": _r(mx),
                      "capacity_kw": cap, "headroom_kw": None if cap is None else _r(cap - mx),
                      "facility_kw": _r(mx * s.pue)})
    return halls


def cooling_equipment_by_hall(arrays: DesignArrays, n_halls: int) -> dict[str, np.ndarray]:
    """What the cooling equipment draws at its maximum, per hall, by class: ``cdu`` (pumps of floor CDUs
    and of CDUs mounted in racks) and ``crah`` (CRAH and fan-wall fans), kW."""
    t = arrays.types
    out = {}
    for cls in ("cdu", "crah"):
        is_cls = np.array([d.kind == cls for d in t.types], dtype=bool)
        floor = np.bincount(arrays.floor_hall, weights=t.power_max_w[arrays.floor_type] * is_cls[arrays.floor_type],
                            minlength=n_halls)
        in_racks = arrays.per_rack(arrays.dev(t.power_max_w), arrays.dev(is_cls))
        racked = np.bincount(arrays.rack_hall, weights=in_racks, minlength=n_halls)
        out[cls] = (floor + racked)[:n_halls] / 1000.0 if n_halls else np.zeros(0)
    return out


def cooling_on_ups(project: Project, cooling: dict[str, np.ndarray]) -> np.ndarray:
    """Per hall, the cooling equipment its UPS carries, as the hall's facility says per class."""
    return np.array([float(cooling["cdu"][h]) * hall.facility.cdu_on_ups
                     + float(cooling["crah"][h]) * hall.facility.crah_on_ups
                     for h, hall in enumerate(project.halls)], dtype=float)


@paused()  # a row per rack of figures: many small containers, no cycles
def analyze_power(ctx: Context) -> PowerResult:
    project, catalog, arrays = ctx.project, ctx.catalog, ctx.arrays
    s = ctx.settings
    t = arrays.types
    it_mask = arrays.dev(t.is_it)
    rack_typ = arrays.per_rack(arrays.dev(t.power_typical_w), it_mask) / 1000.0
    rack_max = arrays.per_rack(arrays.dev(t.power_max_w), it_mask) / 1000.0
    feeds = rack_feeds(arrays, catalog, s.power_factor, s.derating)
    limits, limit_sources = rack_limits_kw(project, arrays, feeds)
    count_a, count_b = feeds.inlets_a, feeds.inlets_b
    cap_a, cap_b = feeds.continuous_a, feeds.continuous_b
    two_feeds = (count_a > 0) & (count_b > 0)
    normal_a, normal_b = feeds.normal_a, feeds.normal_b
    failover = np.where(two_feeds, feeds.failover, 0.0)

    names = [r.name for r in project.racks]
    ids = arrays.rack_ids
    # a rack without a name is labelled by its id on the plan, so its messages say the same
    labels = [n or i for n, i in zip(names, ids)]
    # a rack held to one feed's capacity is held to its draw on one feed (throttled, if its supplies must)
    by_feed = np.array([src == "feed" for src in limit_sources], dtype=bool)
    held = np.where(by_feed & two_feeds, failover, rack_max)
    findings = _rack_findings(labels, ids, held, limits, feeds, s, by_feed)
    findings += _peak_findings(project, arrays, labels, ids, by_feed, failover, rack_max, feeds)
    util = np.divide(held, limits, out=np.zeros_like(rack_max), where=limits > 0)
    hall_it = [float(rack_max[arrays.rack_hall == h].sum()) for h in range(len(project.halls))]
    cooling = cooling_equipment_by_hall(arrays, len(project.halls))
    on_ups = cooling_on_ups(project, cooling)
    chain, chain_findings, above = power_chain(project, arrays, feeds, s, hall_it, on_ups,
                                               cooling["cdu"] + cooling["crah"])
    findings += chain_findings
    inlet_util = np.maximum.reduce([_ratio(normal_a, cap_a), _ratio(normal_b, cap_b),
                                    _ratio(feeds.fail_a, feeds.rating_a * s.failover_derating),
                                    _ratio(feeds.fail_b, feeds.rating_b * s.failover_derating)])
    # a rack without inlets has no chain the design states: unknown, not idle
    chain_util = np.where(count_a + count_b > 0, np.maximum(inlet_util, above), np.nan)
    racks = _rack_list(project, ids, names, rack_typ, rack_max, limits, limit_sources, util, chain_util, feeds,
                       failover, held)
    row_list = _row_list(arrays, chain, rack_typ, rack_max)
    halls = _hall_list(project, arrays, rack_typ, rack_max, s, findings)

    supplies, psu_findings = _supplies(project, arrays)
    findings += psu_findings + _cap_findings(arrays, catalog, s.gpu_power_cap_w)
    it_typ, it_max = float(rack_typ.sum()), float(rack_max.sum())
    cdu_kw = float(cooling["cdu"].sum() + cooling["crah"].sum())
    findings += _pue_findings(project, hall_it, cooling, s.pue)
    section = {
        "settings": {"pue": s.pue, "power_factor": s.power_factor, "derating": s.derating,
                     "failover_derating": s.failover_derating, "gpu_power_cap_w": s.gpu_power_cap_w},
        "it_typical_kw": _r(it_typ), "it_max_kw": _r(it_max),
        "facility_typical_kw": _r(it_typ * s.pue), "facility_max_kw": _r(it_max * s.pue),
        "cooling_equipment_kw": _r(cdu_kw),
        "cooling_on_ups_kw": _r(float(on_ups.sum())),
        "pue_cooling_floor": _r(1.0 + cdu_kw / it_max, 4) if it_max > 0 else None,
        "halls": halls, "rows": row_list, "racks": racks, "supplies": supplies,
        "ups": chain["ups"], "generators": chain["generators"],
        "peak_kw": _r(feeds.peak_a.sum() + feeds.peak_b.sum()),
    }
    return PowerResult(section=section, findings=tuple(findings), rack_ids=tuple(ids),
                       rack_typical_kw=frozen_array(rack_typ), rack_max_kw=frozen_array(rack_max),
                       rack_limit_kw=frozen_array(limits), rack_utilisation=frozen_array(util),
                       rack_chain_utilisation=frozen_array(chain_util), feeds=feeds,
                       it_typical_kw=_r(it_typ), it_max_kw=_r(it_max), facility_max_kw=_r(it_max * s.pue))


def _pue_findings(project: Project, hall_it: list[float], cooling: dict[str, np.ndarray], pue: float) -> list[Finding]:
    """A warning per hall whose modelled pumps and fans alone draw more than the PUE leaves above its IT load:
    the facility and generator figures (IT x PUE) would then leave them out."""
    out = []
    for h, hall in enumerate(project.halls):
        mech = float(cooling["cdu"][h] + cooling["crah"][h])
        if hall_it[h] > 0 and mech > hall_it[h] * (pue - 1.0) + 1e-9:
            out.append(Finding("warning", "pue-below-cooling",
                               f"{hall.label}: its CDU pumps and CRAH fans draw {kw(mech)}, more than the "
                               f"{kw(hall_it[h] * (pue - 1.0))} a PUE of {pue:g} leaves above its {kw(hall_it[h])} "
                               f"IT load; the generators are held to IT plus that cooling load instead",
                               f"hall:{hall.id}"))
    return out


def _supplies(project: Project, arrays: DesignArrays) -> tuple[list[dict], list[Finding]]:
    """Supply redundancy per device type in the design (one line per type, not per device)."""
    t = arrays.types
    counts = np.bincount(arrays.dev_type, minlength=len(t.ids))
    out, findings = [], []
    for k, dev in enumerate(t.types):
        if counts[k] == 0 or dev.psu is None or dev.power_max_w is None or dev.kind == "power_shelf":
            continue
        psu = dev.psu
        installed, usable = psu.installed_w / 1000, psu.usable_w / 1000
        feed_loss = (psu.count // 2) * psu.rating_w / 1000
        mx = float(t.power_max_w[k]) / 1000  # the design's draw: under its GPU power cap, if it has one
        holding = np.unique(arrays.dev_rack[arrays.dev_type == k])
        places = tuple(f"rack:{project.racks[int(i)].id}" for i in holding)
        where = places[0]
        many = f"{dev.name} ({int(counts[k]):,} in {len(places):,} rack{'s' if len(places) != 1 else ''})"
        if mx > usable + 1e-9:
            findings.append(Finding("error", "psu-redundancy-lost",
                                    f"{many}: {kw(mx)} max needs more than its {kw(usable)} usable under "
                                    f"{psu.scheme}: redundancy lost", where, places))
        if psu.count > 1 and mx > feed_loss + 1e-9:
            findings.append(Finding("info", "feed-loss-throttle",
                                    f"{many}: losing one feed leaves {psu.count // 2} of {psu.count} supplies "
                                    f"({kw(feed_loss)}) for a {kw(mx)} maximum; it must throttle", where,
                                    places))
        out.append({"type": dev.id, "devices": int(counts[k]), "supplies": psu.count, "rating_w": psu.rating_w,
                    "scheme": psu.scheme, "installed_kw": _r(installed), "usable_kw": _r(usable),
                    "max_kw": _r(mx), "headroom_kw": _r(usable - mx), "one_feed_kw": _r(feed_loss),
                    "unconfirmed": any(dev.figure(f"psu.{k2}") is not None and dev.figure(f"psu.{k2}").unconfirmed
                                       for k2 in ("count", "rating_w", "redundant"))})
    return out, findings


def _cap_findings(arrays: DesignArrays, catalog, cap_w: float | None) -> list[Finding]:
    """An error for each GPU type of the design the project's power cap does not suit: above its TDP
    the cap has no effect (the draw stays at TDP); below the modelled floor neither the draw nor the
    training estimate can be trusted (designer/gpu_power.py)."""
    if cap_w is None:
        return []
    t = arrays.types
    present = np.bincount(arrays.dev_type, minlength=len(t.ids)) > 0
    out, seen = [], set()
    for k, dev in enumerate(t.types):
        tdp = gpu_tdp_w(dev, catalog)
        if not present[k] or not tdp or dev.gpu in seen:
            continue
        seen.add(dev.gpu)
        try:
            check_cap(cap_w, tdp, gpu_name(dev.gpu))
        except GpuPowerError as exc:
            out.append(Finding("error", "gpu-power-cap", f"settings.gpu_power_cap_w: {exc}", "project:settings"))
    return out


def _or_none(values: np.ndarray, nd: int) -> list:
    """Rounded values with None where a figure is unknown (NaN), which JSON cannot hold."""
    return [None if x != x else x for x in np.round(values, nd).tolist()]


def _ratio(load: np.ndarray, cap: np.ndarray) -> np.ndarray:
    return np.divide(load, cap, out=np.zeros(np.shape(load)), where=cap > 0)


def unique_rows(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a float table and, per row, the index of its distinct row: rows compared as raw
    bytes (``np.unique(axis=0)`` compares them column by column, twenty times slower)."""
    if not len(table):
        return np.zeros((0, 0)), np.zeros(0, dtype=np.int64)
    table = np.ascontiguousarray(table, dtype=float).reshape(len(table), -1)
    keys = table.view(np.dtype((np.void, table.itemsize * table.shape[1]))).ravel()
    _, first, which = np.unique(keys, return_index=True, return_inverse=True)
    return table[first], which


def _rack_feed_rows(f: RackFeeds, inlets_a: np.ndarray, inlets_b: np.ndarray, failover: np.ndarray) -> list[dict]:
    """Every rack's ``feeds`` as its JSON row. Racks built alike have identical feeds, so each distinct row is
    made once and shared: a 100,000-GPU hall's 12,500 racks have a few dozen (made, and freed, once)."""
    a, which_a = _side_rows(f, "a", inlets_a)
    b, which_b = _side_rows(f, "b", inlets_b)
    table = np.column_stack([which_a, which_b] + [np.round(x, 3) for x in (failover, f.throttled_kw, f.inlet_lost_kw)])
    distinct, which = unique_rows(table + 0.0)  # + 0.0: a rounded -0.0 is 0.0
    rows = [{"A": a[int(r[0])], "B": b[int(r[1])], "failover_kw": r[2], "throttled_kw": r[3], "inlet_lost_kw": r[4]}
            for r in distinct.tolist()]
    return [rows[k] for k in which.tolist()]


def _side_rows(f: RackFeeds, side: str, inlets: np.ndarray) -> tuple[list[dict], np.ndarray]:
    """The distinct rows of one feed over all racks, and which one each rack has."""
    phases = getattr(f, f"phases_{side}")
    cols = np.column_stack([inlets] + [np.round(getattr(f, f"{name}_{side}"), 3) for name in (
        "continuous", "normal", "rating", "fail", "peak")] + [np.round(phases, 3), np.round(imbalance(phases), 4)]
        + [getattr(f, f"{name}_{side}") for name in ("c19_need", "c19_have", "c13_need", "c13_have")]
        + [f.single_phase])
    distinct, which = unique_rows(cols + 0.0)
    rows = [{"pdus": int(r[0]), "capacity_kw": r[1], "normal_kw": r[2], "rating_kw": r[3], "failover_kw": r[4],
             "peak_kw": r[5], "phases_kw": r[6:9], "imbalance": None if r[14] else r[9], "c19_needed": int(r[10]),
             "c19_outlets": int(r[11]), "c13_needed": int(r[12]), "c13_outlets": int(r[13])}
            for r in distinct.tolist()]
    return rows, which


def _peak_findings(project: Project, arrays: DesignArrays, names, ids, by_feed: np.ndarray, failover: np.ndarray,
                   rack_max: np.ndarray, f: RackFeeds) -> list[Finding]:
    """A warning per kind of rack-scale system whose transient peaks, with one feed lost, exceed what the
    surviving feed's supplies deliver: the rack's peak factor scaled onto its one-feed draw."""
    t = arrays.types
    out = []
    peak_total = f.peak_a + f.peak_b
    factor = np.divide(peak_total, rack_max, out=np.ones_like(rack_max), where=rack_max > 0)
    one_feed_peak = failover * factor
    system_of = {}
    for k in np.nonzero(arrays.dev(t.fills_rack))[0]:
        system_of.setdefault(int(arrays.dev_rack[k]), t.types[int(arrays.dev_type[k])])
    groups: dict[str, list[int]] = {}
    supplies: dict[str, float] = {}
    kinds: dict[str, object] = {}
    for i in np.nonzero(by_feed)[0]:
        dev = system_of.get(int(i))
        if dev is None or dev.psu is None:
            continue
        feed_kw = (dev.psu.count // 2) * dev.psu.rating_w / 1000.0
        if one_feed_peak[i] > feed_kw + 1e-9:
            groups.setdefault(dev.id, []).append(int(i))
            supplies[dev.id] = feed_kw
            kinds[dev.id] = dev
    for dev_id, racks in groups.items():
        dev = kinds[dev_id]
        i = racks[0]
        name = dev.name
        fig = dev.figure("peak_factor")
        more = f" and {len(racks) - 1:,} more" if len(racks) > 1 else ""
        places = tuple(f"rack:{ids[r]}" for r in racks)
        out.append(Finding("warning", "peak-over-one-feed",
                           f"{name} in rack {names[i]}{more}: with one feed lost its transient peaks reach "
                           f"{kw(one_feed_peak[i])}"
                           + (" (an unconfirmed peak factor)" if fig is not None and fig.unconfirmed else "")
                           + f", over the {kw(supplies[dev_id])} the surviving feed's supplies deliver: they must "
                           "ride through on their overload rating, or the system must smooth its power",
                           places[0], places))
    return out


def _rack_findings(names, ids, rack_max, limits, f: RackFeeds, s, by_feed=None) -> list[Finding]:
    """Each rack against its limit (a rack held to one feed's capacity: its draw on one feed), and its inlets
    in normal operation, with a feed or an inlet lost, at the peak, per phase and per outlet."""
    out: list[Finding] = []
    inlets = f.inlets_a + f.inlets_b
    two = (f.inlets_a > 0) & (f.inlets_b > 0)
    rated = (inlets > 0) & ~f.unrated
    what = ["power shelves" if k == "power_shelf" else "PDUs" for k in f.inlet_kind]
    add = _adder(out, ids)
    by_feed = np.zeros(len(rack_max), dtype=bool) if by_feed is None else by_feed
    add("error", "rack-over-limit", rack_max > limits,
        lambda i: f"rack {names[i]} draws up to {kw(rack_max[i])}"
                  + (f" on one feed, over the {limits[i]:g} kW one feed carries continuously" if by_feed[i]
                     else f", over its {limits[i]:g} kW limit"))
    add("warning", "no-pdu", (rack_max > 0) & (inlets == 0),
        lambda i: f"rack {names[i]} draws {kw(rack_max[i])} but has no rack PDU or power shelf: its circuits are "
                  "not checked (the chain above counts it as dual-corded)")
    add("info", "inlet-unrated", (rack_max > 0) & (inlets > 0) & f.unrated,
        lambda i: f"rack {names[i]}: one of its {what[i]} has no input rating in the catalog: its circuits are not "
                  "checked")
    add("warning", "single-feed", (inlets > 0) & ~two & (rack_max > 0),
        lambda i: f"rack {names[i]} is on one feed only: no A/B redundancy")
    add("warning", "single-corded", f.single_corded > 0,
        lambda i: f"rack {names[i]}: {int(f.single_corded[i])} device(s) on a single supply go down with their feed "
                  "(Tier III asks for dual-corded IT or a transfer switch)")
    for feed, lost, side in (("A", "B", "a"), ("B", "A", "b")):
        _feed_findings(add, names, what, feed, lost, side, f, rated, two, s)
    weakest = f.weakest_inlet_kw * s.failover_derating
    add("warning", "inlet-loss-over-rating", rated & ((f.inlets_a > 1) | (f.inlets_b > 1))
        & (f.inlet_lost_kw > weakest + 1e-9),
        lambda i: f"rack {names[i]}: with one of its {what[i]} lost, another must carry {kw(f.inlet_lost_kw[i])}, "
                  f"over the {kw(weakest[i])} the weakest is rated for")
    return out


def _adder(out: list, ids):
    def add(severity: str, code: str, mask: np.ndarray, text) -> None:
        out.extend(Finding(severity, code, text(i), f"rack:{ids[i]}") for i in np.nonzero(mask)[0])

    return add


def _feed_findings(add, names, what, feed: str, lost: str, side: str, f: RackFeeds, rated, two, s) -> None:
    """One feed of every rack: normal, failover and peak load, phases and outlets."""
    load, cap = getattr(f, f"normal_{side}"), getattr(f, f"continuous_{side}")
    rating = getattr(f, f"rating_{side}")
    fo, peak = getattr(f, f"fail_{side}"), getattr(f, f"peak_{side}")
    over = rated & (load > cap + 1e-9)
    add("error", "circuit-over-cap", over,
        lambda i: f"rack {names[i]}: feed {feed} carries {kw(load[i])}, over the {kw(cap[i])} its {what[i]} "
                  f"may carry ({s.derating:.0%} of rating, the weakest inlet's share)")
    add("warning", "feed-redundancy-lost", rated & two & ~over & (fo > rating * s.failover_derating + 1e-9),
        lambda i: f"rack {names[i]}: if feed {lost} fails, feed {feed} must carry {kw(fo[i])} (devices throttled "
                  f"to their surviving supplies), over the {kw(rating[i] * s.failover_derating)} its {what[i]} "
                  "are rated for: redundancy lost")
    # a transient is a peak above the load the checks above already hold to the rating
    add("warning", "transient-over-rating", rated & ~over & (peak > load + 1e-9) & (peak > rating + 1e-9),
        lambda i: f"rack {names[i]}: feed {feed} peaks at {kw(peak[i])} in synchronised steps, over the "
                  f"{kw(rating[i])} its {what[i]} are rated for")
    phases = getattr(f, f"phases_{side}")
    heaviest = phases.max(axis=1)
    imb = imbalance(phases)
    per_phase = cap / 3.0
    three = rated & ~f.single_phase & ~over
    add("error", "phase-over-cap", three & (heaviest > per_phase + 1e-9),
        lambda i: f"rack {names[i]}: feed {feed}'s heaviest phase carries {kw(heaviest[i])}, over the "
                  f"{kw(per_phase[i])} one phase may carry")
    # at a rack PDU imbalance matters where it takes a phase near its limit before the circuit is full
    add("warning", "phase-imbalance", three & (heaviest > 0.8 * per_phase) & (heaviest <= per_phase + 1e-9)
        & (imb > s.phase_imbalance_limit),
        lambda i: f"rack {names[i]}: feed {feed}'s phases carry {', '.join(f'{x:.1f}' for x in phases[i])} kW, "
                  f"{imb[i]:.0%} out of balance (limit {s.phase_imbalance_limit:.0%}), its heaviest at "
                  f"{heaviest[i] / per_phase[i]:.0%} of what one phase may carry: move supplies between phases")
    n19, n13 = getattr(f, f"c19_need_{side}"), getattr(f, f"c13_need_{side}")
    h19, h13, total = getattr(f, f"c19_have_{side}"), getattr(f, f"c13_have_{side}"), getattr(f, f"outlets_{side}")
    split_short = f.outlets_split & ((n19 > h19) | (n13 > h13 + np.maximum(h19 - n19, 0)))
    total_short = ~f.outlets_split & (total > 0) & (n19 + n13 > total)
    add("error", "outlet-shortfall", (f.inlets_a + f.inlets_b > 0) & (split_short | total_short),
        lambda i: f"rack {names[i]}: feed {feed} has {int(n19[i])} C20 and {int(n13[i])} C14 supplies to plug in "
                  + (f"but its PDUs offer {int(h19[i])} C19 and {int(h13[i])} C13 outlets (a C14 supply may take "
                     "a spare C19)" if f.outlets_split[i] else f"but its PDUs offer {int(total[i])} outlets"))
