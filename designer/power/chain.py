"""The power chain above the racks: each row's busway (or remote power panel) per feed, each hall's UPS
and generators, in normal operation, with a partner lost and at the transient peak.

- A row has one distribution element per feed (or ``distribution_runs`` in parallel, its racks spread
  evenly over them), rated ``distribution_amps`` at ``distribution_voltage_v`` three-phase: it carries
  P = √3·V·I·PF at its full rating, and continuously the ``derating`` share of that. It carries the
  row's racks' feed in normal operation; when its partner (the row's other element, or the UPS behind
  it) is lost it carries every rack's failover load, devices throttled to their surviving supplies.
- UPS: ``2N`` — system A carries every A feed, B every B feed, each must carry the failover load
  alone. ``N``/``N+1`` — one system carries both feeds (an N+1 system keeps one spare module).
  ``DR`` (distributed redundant) — ``blocks`` systems; row i's feed A comes from block i mod n and
  its feed B from block i+1 mod n, so when one block fails its load moves to the blocks paired with
  it. A system's capacity is (modules - spare modules) x module kW.
- Cooling equipment on the UPS (each hall's facility says which classes: CDU pumps by default, see
  designer/facility.py) is dual-corded like the racks: 2N — half on each system in normal operation,
  all of it on the survivor; N/N+1 — all on the one system; DR — an even share per block, and a failed
  block's share on the block that takes it over. Its share is named in the UPS findings: a UPS whose
  load with the pumps is over its capacity is an error, since the racks it cools lose their coolant
  flow with them.
- Generators carry the facility load, IT x PUE, or IT plus the modelled cooling equipment where that is
  more (a PUE that leaves no room for the pumps): N + ``generator_redundant`` units.
- A rack is counted on the distribution of the row its file names. One that stands off that row's line
  (moved out of it on the plan, its row left as it was) is a warning naming the row it stands in, if any:
  the busway counted is not the one over it. Rows of three racks or more have a line (the median of their
  racks' centres across the row); off it is more than half a 1,200 mm rack depth away.
- Transient peaks (milliseconds) are held to full ratings, never the continuous limit: a breaker
  does not trip on them, but neither may they exceed what the circuit or UPS is rated for.
"""
from __future__ import annotations

import numpy as np

from ..formatting import kw
from ..facility import DISTRIBUTION_NAMES, Facility
from ..findings import Finding
from .derating import generator_factor, ups_factor
from .feeds import SQRT3, RackFeeds, imbalance


def _r(x: float, nd: int = 3) -> float:
    return round(float(x), nd)


def _share(load: float, cap: float) -> float | None:
    return round(load / cap, 4) if cap > 0 else None


def _ups_capacity(f: Facility) -> tuple[float, int]:
    spare = max(1, f.ups_redundant_modules) if f.ups_scheme == "N+1" else f.ups_redundant_modules
    spare = min(spare, f.ups_modules - 1)
    return (f.ups_modules - spare) * (f.ups_module_kw or 0.0), spare


def _row_feeds(arrays, feeds: RackFeeds) -> tuple[dict, np.ndarray]:
    """Per feed, each row's normal, failover and peak load and its load per phase; and the racks in each row."""
    n = arrays.n_racks
    order, row_of = arrays.rows
    nr = len(order)

    def rsum(values: np.ndarray) -> np.ndarray:
        return np.bincount(row_of, weights=values, minlength=nr)

    # each rack's PDU phases rotated by its place in the row (tap-offs alternate L1-L2-L3)
    place = arrays.places_in_rows
    cols = (np.arange(3)[None, :] + place[:, None]) % 3
    sides = {}
    for side in ("a", "b"):
        rack_ph = getattr(feeds, f"phases_{side}")
        rotated = np.zeros_like(rack_ph)
        rotated[np.arange(n)[:, None], cols] = rack_ph
        sides[side] = {
            "normal": rsum(getattr(feeds, f"normal_{side}")), "failover": rsum(getattr(feeds, f"fail_{side}")),
            "peak": rsum(getattr(feeds, f"peak_{side}")),
            "phases": np.stack([rsum(rotated[:, k]) for k in range(3)], axis=1)}
    racks_in_row = np.bincount(row_of, minlength=nr)
    return sides, racks_in_row


def _side_columns(d: dict, util: np.ndarray, fo_util: np.ndarray, rated: np.ndarray) -> list[dict]:
    """One feed's figures, row by row, as the report lists them (rounded once, as whole arrays)."""
    return [{"normal_kw": a, "failover_kw": b, "peak_kw": c, "utilisation": u if r else None,
             "failover_utilisation": fu if r else None, "phases_kw": ph, "imbalance": im,
             "run_normal_kw": rn, "run_failover_kw": rf}
            for a, b, c, u, fu, r, ph, im, rn, rf in zip(
                np.round(d["normal"], 3).tolist(), np.round(d["failover"], 3).tolist(),
                np.round(d["peak"], 3).tolist(), np.round(util, 4).tolist(), np.round(fo_util, 4).tolist(),
                rated.tolist(), np.round(d["phases"], 3).tolist(), np.round(d["imbalance"], 4).tolist(),
                np.round(d["run_normal"], 3).tolist(), np.round(d["run_failover"], 3).tolist())]


def _rows(arrays, feeds: RackFeeds, sides: dict, racks_in_row: np.ndarray, halls, s,
          findings: list[Finding]) -> tuple[list[dict], np.ndarray]:
    """Each row's distribution per feed against its rating: the report's rows, and each row's worst utilisation."""
    order, row_of = arrays.rows
    nr = len(order)
    place = arrays.places_in_rows
    # racks without a row stand on their own: no busway of theirs is known
    amps = [halls[h].facility.distribution_amps_of(row) if row else None for h, row in order]
    # a row's racks hang off its runs in turn along the row, so a run carries its stretch, not an even share
    runs = np.array([min(halls[h].facility.distribution_runs, max(int(k), 1)) for (h, _), k in
                     zip(order, racks_in_row.tolist())], dtype=np.int64)

    def busiest_run(values: np.ndarray) -> np.ndarray:
        return busiest_runs(arrays, place, runs, values)

    per_run = np.array([SQRT3 * halls[h].facility.distribution_voltage_v * a * s.power_factor / 1000.0 if a else 0.0
                        for (h, _), a in zip(order, amps)])
    cont, fail_cap = per_run * s.derating, per_run * s.failover_derating
    # with a feed lost the survivor carries the row for as long as the repair takes: a continuous load, held to
    # the hall's design margin (a warning; over the failover rating is redundancy lost)
    margin = per_run * np.array([halls[h].facility.distribution_margin for h, _ in order])
    rated = per_run > 0
    row_util = np.zeros(nr)
    cols = {}
    for side in ("a", "b"):
        d = sides[side]
        d["imbalance"] = imbalance(d["phases"])
        for key, attr in (("run_normal", "normal"), ("run_failover", "fail"), ("run_peak", "peak")):
            d[key] = busiest_run(getattr(feeds, f"{attr}_{side}"))
        util, fo_util = _ratio(d["run_normal"], cont), _ratio(d["run_failover"], fail_cap)
        row_util = np.maximum.reduce([row_util, util, fo_util])
        cols[side] = _side_columns(d, util, fo_util, rated)
        _row_findings(findings, order, halls, amps, runs, side, d, per_run, cont, fail_cap, s, margin)
    for i, (h, row) in enumerate(order):
        if not row and halls[h].facility.distribution_amps is not None:
            findings.append(Finding("info", "rack-without-row",
                                    f"{int(racks_in_row[i])} rack(s) in {halls[h].label} stand in no row: no busway or "
                                    "panel of theirs is checked", f"hall:{halls[h].id}"))
    rows_out = [{"hall": halls[h].id, "row": row, "racks": n_in, "distribution": halls[h].facility.distribution,
                 "rating_a": a, "runs": int(k), "voltage_v": halls[h].facility.distribution_voltage_v if a else None,
                 "capacity_kw": _r(c * k) if a else None, "failover_capacity_kw": _r(fc * k) if a else None,
                 "rating_kw": _r(fl * k) if a else None, "feeds": {"A": fa, "B": fb}}
                for (h, row), n_in, a, k, c, fc, fl, fa, fb in zip(
                    order, racks_in_row.tolist(), amps, runs.tolist(), cont.tolist(), fail_cap.tolist(),
                    per_run.tolist(), cols["a"], cols["b"])]
    return rows_out, row_util


def _cooling_shares(f: Facility, cooling: float) -> tuple[float, float]:
    """What one UPS system carries of the hall's cooling equipment on the UPS: in normal operation, and at
    most with its partner (or a block) lost."""
    if f.ups_scheme == "2N":
        return cooling / 2.0, cooling
    if f.ups_scheme in ("N", "N+1"):
        return cooling, cooling
    share = cooling / f.ups_blocks
    return share, 2.0 * share


def _hall_ups(hall, hall_rows: list[int], sides: dict, findings: list[Finding], where: str,
              cooling: float = 0.0) -> tuple[dict, float]:
    """A hall's UPS systems against their capacity, with the cooling equipment they carry: the report's entry,
    and the hall's worst UPS utilisation."""
    f = hall.facility
    util = 0.0
    systems = _ups_systems(f, hall_rows, sides)
    rated, spare = _ups_capacity(f)
    derate = ups_factor(f.altitude_m)
    # at the site: a UPS above 1,000 m delivers less than its nameplate
    capacity, installed = rated * derate, f.ups_modules * f.ups_module_kw * derate
    margin_kw = capacity * f.ups_margin
    cool_normal, cool_fo = _cooling_shares(f, cooling)
    listed = []
    for name, it_normal, it_fo, pk in systems:
        normal, fo, pk = it_normal + cool_normal, it_fo + cool_fo, pk + cool_normal
        util = max(util, normal / capacity, fo / capacity)
        listed.append({"name": name, "capacity_kw": _r(capacity), "installed_kw": _r(installed),
                       "normal_kw": _r(normal), "failover_kw": _r(fo), "peak_kw": _r(pk),
                       "cooling_kw": _r(cool_normal), "cooling_failover_kw": _r(cool_fo),
                       "utilisation": _share(normal, capacity), "failover_utilisation": _share(fo, capacity),
                       "margin_kw": _r(margin_kw)})
        label = f"{name} in {hall.label}"
        worst = max(normal, fo)
        if capacity + 1e-9 >= worst > margin_kw + 1e-9:
            findings.append(Finding("warning", "ups-over-margin",
                                    f"{label} must carry {kw(worst)}" + (" when its partner is lost" if fo > normal
                                                                          else "")
                                    + f", {worst / capacity:.1%} of its {kw(capacity)}: over the "
                                    f"{f.ups_margin:.0%} design margin ({kw(margin_kw)})"
                                    + (f" at {f.altitude_m:g} m, where it delivers {derate:.0%} of its rating"
                                       if derate < 1.0 else "") + "; add UPS modules", where))
        if cooling > 0 and worst > capacity + 1e-9:
            pumps = cool_fo if fo >= normal else cool_normal
            it_only = it_fo if fo >= normal else it_normal
            because = (f"; without them it would carry {kw(it_only)} ({it_only / capacity:.1%})"
                       if it_only <= capacity + 1e-9 else "")
            findings.append(Finding("error", "ups-over-capacity-with-cooling",
                                    f"{label} must carry {kw(worst)}" + (" when its partner is lost" if fo > normal
                                                                          else "")
                                    + f", {worst / capacity:.1%} of its {kw(capacity)}: {kw(pumps)} of it is the "
                                    f"cooling equipment it carries ({_cooling_names(f)}), which the racks need "
                                    f"to ride through an outage{because}; add UPS modules", where))
        elif normal > installed + 1e-9:
            findings.append(Finding("error", "ups-over-capacity",
                                    f"{label} carries {kw(normal)}, over its {kw(installed)} "
                                    f"({f.ups_modules} modules x {f.ups_module_kw:g} kW)", where))
        elif normal > capacity + 1e-9:
            findings.append(Finding("warning", "ups-redundancy-lost",
                                    f"{label} carries {kw(normal)}: with {spare} of its {f.ups_modules} "
                                    f"modules out it has {kw(capacity)}, so its spare is spent", where))
        elif fo > capacity + 1e-9:
            findings.append(Finding("warning", "ups-redundancy-lost",
                                    f"{label} must carry {kw(fo)} when its partner is lost, over its "
                                    f"{kw(capacity)}: the {f.ups_scheme} scheme is not redundant", where))
        if normal <= capacity + 1e-9 and pk > normal + 1e-9 and pk > capacity + 1e-9:
            findings.append(Finding("warning", "transient-over-rating",
                                    f"{label}: transient peaks reach {kw(pk)}, over its {kw(capacity)}: "
                                    "it must ride through them on its overload rating", where))
    if f.ups_scheme == "N+1" and f.ups_modules < 2:
        findings.append(Finding("warning", "ups-redundancy-lost",
                                f"the N+1 UPS in {hall.label} has one module: it has no spare", where))
    return ({"hall": hall.id, "scheme": f.ups_scheme, "modules": f.ups_modules,
             "spare_modules": spare, "module_kw": f.ups_module_kw,
             "blocks": f.ups_blocks if f.ups_scheme == "DR" else None, "systems": listed,
             "derating": round(derate, 4), "margin": f.ups_margin}, util)


def _ups_it_capacity(f: Facility, cooling: float) -> float:
    """The IT load a hall's UPS carries with its redundancy kept (a 2N side alone, an N+1 system with its spare
    out, n - 1 of a DR scheme's blocks), within its design margin at the site, less the cooling equipment it
    carries."""
    capacity, _ = _ups_capacity(f)
    systems = f.ups_blocks - 1 if f.ups_scheme == "DR" else 1
    return max(capacity * ups_factor(f.altitude_m) * f.ups_margin * systems - cooling, 0.0)


def _hall_limit_finding(hall, it_capacity: float, cooling: float, findings: list[Finding], where: str) -> None:
    """The hall's stated IT power and its UPS are one limit: a capacity the UPS cannot carry is a warning."""
    stated = hall.power_capacity_kw
    if stated is None or stated <= it_capacity + 1e-6:
        return
    f = hall.facility
    less = f" less {kw(cooling)} of {_cooling_names(f)}" if cooling > 0 else ""
    findings.append(Finding("warning", "hall-power-over-ups",
                            f"{hall.label} states {kw(stated)} of IT power, but its {f.ups_scheme} UPS carries "
                            f"{kw(it_capacity)} of IT with its redundancy kept, within its {f.ups_margin:.0%} "
                            f"margin{less}: the lower is the hall's real "
                            "limit; add UPS modules or lower the hall's power capacity", where))


def _cooling_names(f: Facility) -> str:
    return " and ".join(name for name, on in (("CDU pumps", f.cdu_on_ups), ("CRAH fans", f.crah_on_ups)) if on)


def _hall_generators(hall, load: float, findings: list[Finding], where: str) -> dict:
    """A hall's generators against its facility load."""
    f = hall.facility
    derate = generator_factor(f.altitude_m, f.ambient_c)
    unit = f.generator_kw * derate  # what one unit delivers at the site
    spares = f.generator_redundant * f.generator_blocks
    cap_all = f.generators * unit
    cap_n = (f.generators - spares) * unit
    margin_kw = cap_n * f.generator_margin
    out = {"hall": hall.id, "units": f.generators, "unit_kw": f.generator_kw,
           "redundant": f.generator_redundant, "blocks": f.generator_blocks, "load_kw": _r(load),
           "capacity_kw": _r(cap_n), "installed_kw": _r(cap_all), "utilisation": _share(load, cap_n),
           "derating": round(derate, 4), "margin": f.generator_margin, "margin_kw": _r(margin_kw)}
    label = f"the generators of {hall.label}"
    site = (f" ({derate:.0%} of their rating at {f.altitude_m:g} m"
            + (f" and {f.ambient_c:g} °C" if f.ambient_c is not None else "") + ")") if derate < 1.0 else ""
    blocks = f" in each of {f.generator_blocks} blocks" if f.generator_blocks > 1 else ""
    if load > cap_all + 1e-9:
        findings.append(Finding("error", "generator-over-capacity",
                                f"{label} ({f.generators} x {f.generator_kw:g} kW{site}) cannot carry the "
                                f"{kw(load)} facility load", where))
    elif load > cap_n + 1e-9:
        findings.append(Finding("warning", "generator-redundancy-lost",
                                f"{label}: with {f.generator_redundant} unit(s) out{blocks}, {kw(cap_n)} is left "
                                f"for {kw(load)}: not N+{f.generator_redundant}{site}", where))
    elif load > margin_kw + 1e-9:
        findings.append(Finding("warning", "generator-over-margin",
                                f"{label} carry {kw(load)}, {load / cap_n:.1%} of the {kw(cap_n)} left with "
                                f"{f.generator_redundant} unit(s) out{blocks}{site}: over the "
                                f"{f.generator_margin:.0%} design margin ({kw(margin_kw)}); add a unit", where))
    return out


def power_chain(project, arrays, feeds: RackFeeds, settings, it_max_by_hall: list[float],
                cooling_on_ups=None, cooling_by_hall=None):
    """Rows, UPS and generators of every hall, their findings, and per rack the worst utilisation of the
    chain that feeds it (rack inlets, its row's distribution, its UPS) for the heat map. ``cooling_on_ups``:
    per hall, the cooling equipment its UPS carries; ``cooling_by_hall``: all of it, kW."""
    nh = len(project.halls)
    cooling_on_ups = np.zeros(nh) if cooling_on_ups is None else cooling_on_ups
    cooling_by_hall = np.zeros(nh) if cooling_by_hall is None else cooling_by_hall
    s = settings
    n = arrays.n_racks
    order, row_of = arrays.rows
    sides, racks_in_row = _row_feeds(arrays, feeds)

    findings: list[Finding] = []
    halls = project.halls
    rows_out, row_util = _rows(arrays, feeds, sides, racks_in_row, halls, s, findings)

    ups_out, gen_out = [], []
    hall_util = np.zeros(len(project.halls))
    for h, hall in enumerate(project.halls):
        f = hall.facility
        hall_rows = [i for i, (hh, _) in enumerate(order) if hh == h]
        where = f"hall:{hall.id}"
        if f.ups_scheme is not None:
            ups, hall_util[h] = _hall_ups(hall, hall_rows, sides, findings, where, float(cooling_on_ups[h]))
            ups["cooling_on_ups_kw"] = _r(float(cooling_on_ups[h]))
            ups["it_capacity_kw"] = _r(_ups_it_capacity(f, float(cooling_on_ups[h])))
            _hall_limit_finding(hall, ups["it_capacity_kw"], float(cooling_on_ups[h]), findings, where)
            ups_out.append(ups)
        if f.generators:
            load = max(it_max_by_hall[h] * s.pue, it_max_by_hall[h] + float(cooling_by_hall[h]))
            gen_out.append(_hall_generators(hall, load, findings, where))
        if f.distribution_amps is None and not any(f.row(order[i][1]).distribution_amps for i in hall_rows) \
                and f.ups_scheme is None and not f.generators and hall_rows:
            findings.append(Finding("info", "power-chain-unchecked",
                                    f"hall {hall.label} gives no busway, UPS or generator ratings: only the racks' "
                                    "own feeds are checked", where))

    findings += off_row_findings(project, arrays)
    rack_chain = np.maximum(row_util[row_of], hall_util[arrays.rack_hall]) if n else np.zeros(0)
    return {"rows": rows_out, "ups": ups_out, "generators": gen_out}, findings, rack_chain


#: How far, across its row, a rack's centre may stand from the row's line: half a 1,200 mm deep rack, mm.
OFF_ROW_MM = 600.0


def off_row_findings(project, arrays) -> list[Finding]:
    """A warning for each rack standing off the line of the row its file names, naming the row it stands in."""
    order, row_of = arrays.rows
    n, nr = len(row_of), len(order)
    if n == 0:
        return []
    x, y = np.asarray(arrays.rack_x, float), np.asarray(arrays.rack_y, float)
    counts = np.bincount(row_of, minlength=nr)
    # a row runs along x when most of its racks face along y (rotation 0 or 180): a rack moved away must not
    # turn its row by widening its spread
    faces_y = np.fromiter(((r.rotation % 180.0) < 45.0 or (r.rotation % 180.0) > 135.0 for r in project.racks),
                          dtype=bool, count=n)
    along_x = np.bincount(row_of, weights=faces_y.astype(float), minlength=nr) * 2 >= counts
    across = np.where(along_x[row_of], y, x)
    by_row = np.lexsort((across, row_of))
    start = np.searchsorted(row_of[by_row], np.arange(nr))
    line = across[by_row][np.minimum(start + counts // 2, n - 1)]  # each row's median across it
    # along each row, its extent from the racks on its line
    named = np.array([bool(r) for _, r in order], dtype=bool)
    off = named[row_of] & (counts[row_of] >= 3) & (np.abs(across - line[row_of]) > OFF_ROW_MM)
    if not off.any():
        return []
    on = ~off
    along = np.where(along_x[row_of], x, y)
    a_lo, a_hi = np.full(nr, np.inf), np.full(nr, -np.inf)
    np.minimum.at(a_lo, row_of[on], along[on])
    np.maximum.at(a_hi, row_of[on], along[on])
    out = []
    for i in np.nonzero(off)[0]:
        r = int(row_of[i])
        h, row = order[r]
        rack = project.racks[int(i)]
        hall = project.halls[h]
        stands = None
        for r2, (h2, row2) in enumerate(order):
            if r2 == r or h2 != h or not row2 or counts[r2] < 2:
                continue
            c_across, c_along = (y[i], x[i]) if along_x[r2] else (x[i], y[i])
            if abs(c_across - line[r2]) <= OFF_ROW_MM and a_lo[r2] - 1200.0 <= c_along <= a_hi[r2] + 1200.0:
                stands = row2
                break
        where_now = f"stands in row {stands}" if stands else "stands in no row"
        out.append(Finding("warning", "rack-off-row",
                           f"rack {rack.name or rack.id} is in row {row} by its file but {where_now} "
                           f"({abs(across[i] - line[r]) / 1000:.1f} m off row {row}'s line): its power is counted on "
                           f"row {row}'s {DISTRIBUTION_NAMES[hall.facility.distribution]}, not the one it stands "
                           f"under; set its row" + (f" to {stands}" if stands else ""), f"rack:{rack.id}"))
    return out


def busiest_runs(arrays, place: np.ndarray, runs: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per row, the most any one of its ``runs`` carries of a per-rack quantity, the racks taken in turn along
    the row: the first stretch on run 1, the next on run 2 ..."""
    order, row_of = arrays.rows
    nr = len(order)
    if not len(row_of):
        return np.zeros(nr)
    in_row = np.bincount(row_of, minlength=nr)
    run_of = place * runs[row_of] // np.maximum(in_row[row_of], 1)
    most = int(runs.max())
    return np.bincount(row_of * most + run_of, weights=values, minlength=nr * most).reshape(nr, most).max(axis=1)


def _ratio(load: np.ndarray, cap: np.ndarray) -> np.ndarray:
    return np.divide(load, cap, out=np.zeros(np.shape(load)), where=cap > 0)


def _row_findings(out: list, order, halls, amps, runs, side: str, d: dict, full, cont, fail_cap, s,
                  margin) -> None:
    """Each rated row element (its busiest run) over its continuous limit, over its rating on failover or at the
    peak, over its design margin on failover, or out of phase balance."""
    normal, fo, pk, imb, ph = d["run_normal"], d["run_failover"], d["run_peak"], d["imbalance"], d["phases"]
    rated = full > 0
    over = rated & (normal > cont + 1e-9)
    lost = rated & ~over & (fo > fail_cap + 1e-9)
    thin = rated & ~over & ~lost & (fo > margin + 1e-9)
    peak = rated & ~over & (pk > normal + 1e-9) & (pk > full + 1e-9)
    unbalanced = rated & (imb > s.phase_imbalance_limit) & (d["normal"] > 0.5 * cont * runs)
    for i in np.nonzero(over | lost | peak | unbalanced | thin)[0]:
        h, row = order[i]
        f = halls[h].facility
        where = f"hall:{halls[h].id}"
        name = (f"row {row} in {halls[h].label}, {DISTRIBUTION_NAMES[f.distribution]} {side.upper()}"
                + (f" (busiest of {runs[i]} runs)" if runs[i] > 1 else ""))
        if over[i]:
            out.append(Finding("error", "distribution-over-cap",
                               f"{name} carries {kw(normal[i])}, over its {kw(cont[i])} continuous limit "
                               f"({s.derating:.0%} of {amps[i]:g} A at {f.distribution_voltage_v:g} V)", where))
        if lost[i]:
            out.append(Finding("warning", "distribution-redundancy-lost",
                               f"{name} must carry {kw(fo[i])} when feed {'B' if side == 'a' else 'A'} is lost, "
                               f"over its {kw(fail_cap[i])}: redundancy lost", where))
        if thin[i]:
            out.append(Finding("warning", "distribution-over-margin",
                               f"{name} must carry {kw(fo[i])} when feed {'B' if side == 'a' else 'A'} is lost, "
                               f"{fo[i] / full[i]:.1%} of its {kw(full[i])} rating: over the "
                               f"{f.distribution_margin:.0%} design margin for a load that lasts as long as the "
                               "repair", where))
        if peak[i]:
            out.append(Finding("warning", "transient-over-rating",
                               f"{name}: transient peaks reach {kw(pk[i])}, over its {kw(full[i])} rating",
                               where))
        if unbalanced[i]:
            out.append(Finding("warning", "phase-imbalance",
                               f"{name}: phases carry {', '.join(f'{x:.1f}' for x in ph[i])} kW, {imb[i]:.0%} out of "
                               f"balance (limit {s.phase_imbalance_limit:.0%})", where))


def _ups_systems(f: Facility, hall_rows: list[int], sides: dict) -> list[tuple[str, float, float, float]]:
    """(name, normal kW, kW with its partner lost, peak kW) per UPS system of a hall."""
    a, b = sides["a"], sides["b"]

    def total(d: dict, key: str) -> float:
        return float(sum(d[key][i] for i in hall_rows))

    if f.ups_scheme == "2N":
        return [("UPS A", total(a, "normal"), total(a, "failover"), total(a, "peak")),
                ("UPS B", total(b, "normal"), total(b, "failover"), total(b, "peak"))]
    if f.ups_scheme in ("N", "N+1"):
        normal = total(a, "normal") + total(b, "normal")
        return [("UPS", normal, normal, total(a, "peak") + total(b, "peak"))]
    blocks = f.ups_blocks
    normal = np.zeros(blocks)
    peak = np.zeros(blocks)
    extra = np.zeros((blocks, blocks))  # extra[k, j]: what block j takes on when block k fails
    for pos, i in enumerate(hall_rows):
        ka, kb = pos % blocks, (pos + 1) % blocks
        normal[ka] += a["normal"][i]
        normal[kb] += b["normal"][i]
        peak[ka] += a["peak"][i]
        peak[kb] += b["peak"][i]
        extra[ka, kb] += b["failover"][i] - b["normal"][i]
        extra[kb, ka] += a["failover"][i] - a["normal"][i]
    worst = normal + extra.max(axis=0)
    return [(f"UPS block {k + 1}", float(normal[k]), float(worst[k]), float(peak[k])) for k in range(blocks)]
