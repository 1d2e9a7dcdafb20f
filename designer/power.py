"""Power engine: draw per device, rack, row and hall; supply redundancy; PDU and feed loading; PUE.

Conventions (see the DCIM reference):
- A 3-phase PDU's apparent power is sqrt(3) x V(line-line) x I; real power is that x power factor;
  a circuit may carry at most ``derating`` (80 %) of it continuously.
- A rack's PDUs alternate between feeds A and B in the order they are listed. Device supplies
  are split evenly between the feeds, so each feed carries half the rack in normal operation
  and, when the other feed fails, all of it (2N).
- A supply set of ``count`` supplies with ``redundant`` spares delivers (count - redundant) x rating.
  On the loss of one feed half of the supplies remain.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from catalog import Catalog

from .arrays import DesignArrays
from .engines import Context, EngineResult, frozen_array
from .findings import Finding
from .model import Project

SQRT3 = math.sqrt(3.0)
#: Share of a hall's capacity above which a warning says headroom is thin.
HEADROOM_WARNING = 0.9


def pdu_capacity_kw(voltage_v: float, current_a: float, phases: int, power_factor: float) -> float:
    """Real power a PDU's circuit can carry at its full rating (before derating)."""
    return (SQRT3 if phases == 3 else 1.0) * voltage_v * current_a * power_factor / 1000.0


def _r(x: float, nd: int = 3) -> float:
    return round(float(x), nd)


def rack_limits_kw(project: Project, arrays: DesignArrays) -> tuple[np.ndarray, list[str]]:
    """Each rack's limit and where it comes from: ``rack`` (its own), ``hall`` (its hall's default),
    ``rack_system`` (the project's limit for rack-scale systems) or ``project`` (the project's default)."""
    s = project.settings
    has_system = arrays.per_rack(arrays.dev(arrays.types.fills_rack).astype(float)) > 0
    out = np.where(has_system, s.rack_system_limit_kw, s.rack_limit_kw)
    source = ["rack_system" if system else "project" for system in has_system.tolist()]
    for i, rack in enumerate(project.racks):
        if rack.power_limit_kw is not None:
            out[i], source[i] = rack.power_limit_kw, "rack"
        else:
            hall_limit = project.halls[arrays.rack_hall[i]].rack_power_limit_kw
            if hall_limit is not None:
                out[i], source[i] = hall_limit, "hall"
    return out, source


def _feeds(project: Project, catalog: Catalog, arrays: DesignArrays):
    """Per rack: PDU count and usable kW on feed A and on feed B."""
    s = project.settings
    t = arrays.types
    usable = np.array([pdu_capacity_kw(d.voltage_v, d.current_a, d.phases, s.power_factor) * s.derating
                       if d.kind == "pdu" else 0.0 for d in t.types])
    pdu_dev = np.nonzero(arrays.dev(t.is_pdu))[0]
    racks = arrays.dev_rack[pdu_dev]
    # Ordinal of each PDU within its rack: devices are stored rack by rack, so a running count works.
    first = np.searchsorted(racks, racks, side="left")
    ordinal = np.arange(len(pdu_dev)) - first
    on_a = ordinal % 2 == 0
    cap = usable[arrays.dev_type[pdu_dev]]
    n = arrays.n_racks
    count_a = np.bincount(racks[on_a], minlength=n)
    count_b = np.bincount(racks[~on_a], minlength=n)
    cap_a = np.bincount(racks[on_a], weights=cap[on_a], minlength=n)
    cap_b = np.bincount(racks[~on_a], weights=cap[~on_a], minlength=n)
    return count_a, count_b, cap_a, cap_b


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
    it_typical_kw: float
    it_max_kw: float
    facility_max_kw: float


def analyze_power(ctx: Context) -> PowerResult:
    project, catalog, arrays = ctx.project, ctx.catalog, ctx.arrays
    s = ctx.settings
    t = arrays.types
    it_mask = arrays.dev(t.is_it)
    rack_typ = arrays.per_rack(arrays.dev(t.power_typical_w), it_mask) / 1000.0
    rack_max = arrays.per_rack(arrays.dev(t.power_max_w), it_mask) / 1000.0
    limits, limit_sources = rack_limits_kw(project, arrays)
    count_a, count_b, cap_a, cap_b = _feeds(project, catalog, arrays)
    has_system = arrays.per_rack(arrays.dev(t.fills_rack).astype(float)) > 0
    two_feeds = (count_a > 0) & (count_b > 0)
    normal_a = np.where(two_feeds, rack_max / 2, rack_max)
    normal_b = np.where(two_feeds, rack_max / 2, 0.0)
    failover = np.where(two_feeds, rack_max, 0.0)

    findings: list[Finding] = []
    names = [r.name for r in project.racks]
    ids = arrays.rack_ids
    for i in np.nonzero(rack_max > limits)[0]:
        findings.append(Finding("error", "rack-over-limit", f"rack {names[i]} draws up to {rack_max[i]:.1f} kW, "
                                                            f"over its {limits[i]:g} kW limit", f"rack:{ids[i]}"))
    pdus = count_a + count_b
    for i in np.nonzero((rack_max > 0) & (pdus == 0) & ~has_system)[0]:
        findings.append(Finding("warning", "no-pdu", f"rack {names[i]} draws {rack_max[i]:.1f} kW but has no rack "
                                                     "PDU: its circuits are not checked", f"rack:{ids[i]}"))
    for feed, load, cap in (("A", normal_a, cap_a), ("B", normal_b, cap_b)):
        for i in np.nonzero((pdus > 0) & (load > cap + 1e-9))[0]:
            findings.append(Finding("error", "circuit-over-cap",
                                    f"rack {names[i]}: feed {feed} carries {load[i]:.1f} kW, over the "
                                    f"{cap[i]:.1f} kW its PDUs may carry ({s.derating:.0%} of rating)", f"rack:{ids[i]}"))
    for i in np.nonzero((pdus > 0) & ~two_feeds & (rack_max > 0))[0]:
        findings.append(Finding("warning", "single-feed", f"rack {names[i]} is on one feed only: no A/B redundancy",
                                f"rack:{ids[i]}"))
    weak_cap = np.minimum(cap_a, cap_b)
    for i in np.nonzero(two_feeds & (rack_max > weak_cap + 1e-9) & (rack_max <= cap_a + cap_b))[0]:
        weak = "B" if cap_b[i] < cap_a[i] else "A"
        findings.append(Finding("warning", "feed-redundancy-lost",
                                f"rack {names[i]}: if the other feed fails, feed {weak} must carry "
                                f"{rack_max[i]:.1f} kW, over its {weak_cap[i]:.1f} kW: redundancy lost", f"rack:{ids[i]}"))

    def col(a: np.ndarray, nd: int = 3) -> list:
        return np.round(a, nd).tolist()

    util = np.divide(rack_max, limits, out=np.zeros_like(rack_max), where=limits > 0)
    racks = [
        {"id": rid, "name": name, "hall": r.hall, "row": r.row, "typical_kw": typ, "max_kw": mx, "limit_kw": lim,
         "limit_source": src, "headroom_kw": head, "utilisation": u, "pdus": n,
         "feeds": {"A": {"pdus": na, "capacity_kw": ca, "normal_kw": la},
                   "B": {"pdus": nb, "capacity_kw": cb, "normal_kw": lb}, "failover_kw": fo}}
        for rid, name, r, typ, mx, lim, src, head, u, n, na, nb, ca, cb, la, lb, fo in zip(
            ids, names, project.racks, col(rack_typ), col(rack_max), col(limits), limit_sources, col(limits - rack_max),
            col(util, 4), pdus.tolist(), count_a.tolist(), count_b.tolist(), col(cap_a), col(cap_b),
            col(normal_a), col(normal_b), col(failover))
    ]

    rows: dict[tuple[str, str], list[int]] = {}
    for i, rack in enumerate(project.racks):
        rows.setdefault((rack.hall, rack.row), []).append(i)
    row_list = [{"hall": h, "row": r, "racks": len(ix), "typical_kw": _r(rack_typ[ix].sum()),
                 "max_kw": _r(rack_max[ix].sum())} for (h, r), ix in sorted(rows.items())]

    halls = []
    for h_i, hall in enumerate(project.halls):
        mask = arrays.rack_hall == h_i
        typ, mx = float(rack_typ[mask].sum()), float(rack_max[mask].sum())
        cap = hall.power_capacity_kw
        where = f"hall:{hall.id}"
        if cap is not None:
            if mx > cap:
                findings.append(Finding("error", "hall-over-power",
                                        f"hall {hall.name} needs up to {mx:.1f} kW of IT power, over its "
                                        f"{cap:g} kW capacity", where))
            elif mx > HEADROOM_WARNING * cap:
                findings.append(Finding("warning", "hall-power-headroom",
                                        f"hall {hall.name} uses {mx / cap:.0%} of its {cap:g} kW IT capacity", where))
        halls.append({"id": hall.id, "name": hall.name, "it_typical_kw": _r(typ), "it_max_kw": _r(mx),
                      "capacity_kw": cap, "headroom_kw": None if cap is None else _r(cap - mx),
                      "facility_kw": _r(mx * s.pue)})

    supplies, psu_findings = _supplies(project, catalog, arrays)
    findings += psu_findings
    it_typ, it_max = float(rack_typ.sum()), float(rack_max.sum())
    cdu_kw = float(np.sum(t.power_max_w[arrays.floor_type] * t.is_cdu[arrays.floor_type])) / 1000.0 + float(
        arrays.per_rack(arrays.dev(t.power_max_w), arrays.dev(t.is_cdu)).sum()) / 1000.0
    section = {
        "settings": {"pue": s.pue, "power_factor": s.power_factor, "derating": s.derating},
        "it_typical_kw": _r(it_typ), "it_max_kw": _r(it_max),
        "facility_typical_kw": _r(it_typ * s.pue), "facility_max_kw": _r(it_max * s.pue),
        "cooling_equipment_kw": _r(cdu_kw),
        "halls": halls, "rows": row_list, "racks": racks, "supplies": supplies,
    }
    return PowerResult(section=section, findings=tuple(findings), rack_ids=tuple(ids),
                       rack_typical_kw=frozen_array(rack_typ), rack_max_kw=frozen_array(rack_max),
                       rack_limit_kw=frozen_array(limits), rack_utilisation=frozen_array(util),
                       it_typical_kw=_r(it_typ), it_max_kw=_r(it_max), facility_max_kw=_r(it_max * s.pue))


def _supplies(project: Project, catalog: Catalog, arrays: DesignArrays) -> tuple[list[dict], list[Finding]]:
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
        mx = dev.power_max_w / 1000
        first_rack = project.racks[int(arrays.dev_rack[np.argmax(arrays.dev_type == k)])]
        where = f"rack:{first_rack.id}"
        if mx > usable + 1e-9:
            findings.append(Finding("error", "psu-redundancy-lost",
                                    f"{dev.id} ({int(counts[k])} in the design): {mx:.1f} kW max needs more than "
                                    f"its {usable:.1f} kW usable under {psu.scheme}: redundancy lost", where))
        if psu.count > 1 and mx > feed_loss + 1e-9:
            findings.append(Finding("info", "feed-loss-throttle",
                                    f"{dev.id}: losing one feed leaves {psu.count // 2} of {psu.count} supplies "
                                    f"({feed_loss:.1f} kW) for a {mx:.1f} kW maximum; it must throttle", where))
        out.append({"type": dev.id, "devices": int(counts[k]), "supplies": psu.count, "rating_w": psu.rating_w,
                    "scheme": psu.scheme, "installed_kw": _r(installed), "usable_kw": _r(usable),
                    "max_kw": _r(mx), "headroom_kw": _r(usable - mx), "one_feed_kw": _r(feed_loss),
                    "unconfirmed": any(dev.figure(f"psu.{k2}") is not None and dev.figure(f"psu.{k2}").unconfirmed
                                       for k2 in ("count", "rating_w", "redundant"))})
    return out, findings
