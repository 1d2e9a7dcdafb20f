"""How the inspector words the facility figures: a rack's feeds and cooling, a CDU loop, a hall's power chain and air.

Every figure is the engines' own, read from the analysis' ``power``, ``cooling`` and
``floor`` sections as they wrote it; the functions here only word the figures and
say which are over what they are held to (a comparison of two figures the analysis
gives, never a figure worked out again). ``None`` for the analysis means the one
shown no longer describes the project: every line then says it is being computed,
as the inspector's own power rows do.

Anything shown names racks, units and rows by their names; the analysis' ids
(``floor:cdu-1``) are looked up in the project first. The widgets that show these
lines are in :mod:`.facility_sections`.
"""
from __future__ import annotations

from typing import NamedTuple

from designer.facility import DISTRIBUTION_NAMES
from designer.model import Project
from designer.names import cdu_unit_name

PENDING = "computing…"
#: A line over what it is held to: the inspector's refusal colour.
OVER_TEXT = "#B3261E"
CONTAINMENT_WORDS = {"hot": "a hot-aisle contained row", "cold": "a cold-aisle contained row",
                     "none": "a row without containment", None: "a row"}
INLET_WORDS = {"pdu": ("PDU", "PDUs"), "power_shelf": ("power shelf", "power shelves")}


class Line(NamedTuple):
    """One row of figures: its label, its text, and whether it is over what it is held to."""

    label: str
    text: str
    over: bool = False
    muted: bool = False


# ---- wording ----------------------------------------------------------------------------------
#: Between a number and its unit, so a wrapped line never leaves 'kW' alone at the start of a line.
NBSP = "\u00a0"


def kw(x: float) -> str:
    """A load, always to a tenth: '66.0 kW'."""
    return f"{x:,.1f}{NBSP}kW"


def cap_kw(x: float) -> str:
    """A capacity or rating, without a trailing '.0': '4,000 kW', '134.8 kW'."""
    text = f"{x:,.1f}"
    return text.removesuffix(".0") + f"{NBSP}kW"


def pct(share: float | None) -> str:
    return "—" if share is None else f"{share:.0%}"


def is_over(share: float | None) -> bool:
    """A share above one: a load over what it is held to."""
    return share is not None and share > 1.0 + 1e-9


def _section(analysis, name: str) -> dict:
    try:
        return analysis[name] or {}
    except (KeyError, TypeError):
        return {}


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def loop_of(analysis, unit: str) -> dict | None:
    """The CDU loop with ``unit`` ('floor:ID' or 'rack:ID') among its units, as the cooling engine reports it."""
    for loop in _section(analysis, "cooling").get("cdu_loops") or ():
        if unit in (loop.get("units") or ()):
            return loop
    return None


def _hall_entry(analysis, section: str, key: str, hall_id: str, id_key: str = "hall") -> dict | None:
    for entry in _section(analysis, section).get(key) or ():
        if entry.get(id_key) == hall_id:
            return entry
    return None


# ---- a rack -------------------------------------------------------------------------------------
def _feed_line(side: str, other: str, feed: dict | None, failover_share: float = 1.0) -> Line:
    """One feed: normal load against its continuous capacity, and with the other feed lost against the share of
    its rating a failover may take (the power settings' ``failover_derating``)."""
    if not feed or feed.get("normal_kw") is None:
        return Line(f"Feed {side}", PENDING, muted=True)
    if not feed.get("pdus"):
        return Line(f"Feed {side}", "no PDU or power shelf on this feed", muted=True)
    normal, cap = feed["normal_kw"], feed.get("capacity_kw")
    fail, rating = feed.get("failover_kw"), feed.get("rating_kw")
    text = f"{kw(normal)} of {cap_kw(cap)}" if cap else kw(normal)
    limit = rating * failover_share if rating else None
    if fail is not None:
        text += f" · {kw(fail)} if {other} fails"
        if limit:
            text += (f" (rating{NBSP}{cap_kw(rating)})" if failover_share >= 1.0
                     else f" (limit{NBSP}{cap_kw(limit)}, {failover_share:.0%} of rating)")
    over = (cap is not None and normal > cap + 1e-9) or (fail is not None and limit is not None
                                                         and fail > limit + 1e-9)
    return Line(f"Feed {side}", text, over)


def _inlet_text(kind: str | None, a: int, b: int) -> str:
    if kind is None or a + b == 0:
        return "none: no PDU or power shelf in the rack"
    one, many = INLET_WORDS.get(kind, (kind.replace("_", " "), kind.replace("_", " ") + "s"))
    if a == b:
        return f"{a} {one if a == 1 else many} per feed"
    return f"{many}: {a} on feed A, {b} on feed B"


def _row_busway_line(analysis, hall_id: str, row_name: str) -> Line | None:
    for row in _section(analysis, "power").get("rows") or ():
        if row.get("hall") == hall_id and row.get("row") == row_name:
            break
    else:
        return None
    what = DISTRIBUTION_NAMES.get(row.get("distribution"), "busway")
    label = "Row busway" if row.get("distribution") == "busway" else "Row RPP"
    name = row_name or "(no row)"
    if not row_name:
        return Line(label, "the rack stands in no row: no busway or panel of its is checked", muted=True)
    if row.get("rating_a") is None:
        return Line(label, f"{name}: {what} rating not set, not checked", muted=True)
    a, b = (row.get("feeds") or {}).get("A") or {}, (row.get("feeds") or {}).get("B") or {}
    runs = row.get("runs") or 1
    rating = f"{runs} × {row['rating_a']:g}{NBSP}A" if runs > 1 else f"{row['rating_a']:g}{NBSP}A"

    def both(key: str, each: str) -> str:  # one figure when the feeds agree, as they do in a balanced row
        fa, fb = pct(a.get(key)), pct(b.get(key))
        return f"{each}{fa}" if fa == fb else f"A {fa} · B {fb}"

    # with several runs a feed is as loaded as its busiest run, the figure the utilisation gives
    whose, cap = ("busiest run ", row["capacity_kw"] / runs) if runs > 1 else ("each feed ", row["capacity_kw"])
    text = (f"{name}, {rating}: {both('utilisation', whose)} of {cap_kw(cap)} · "
            f"{both('failover_utilisation', '')} if the other feed fails")
    over = any(is_over(f.get(k)) for f in (a, b) for k in ("utilisation", "failover_utilisation"))
    return Line(label, text, over)


def rack_lines(analysis, project: Project, rack_id: str) -> list[Line]:
    """A rack's feeds, power chain, liquid and air split, air density and caster load (``analysis`` is an
    :class:`~designer.analysis.Analysis`)."""
    # Analysis.rack merges the three sections' rows for the rack (looked up once per analysis, not scanned).
    fig = analysis.rack(rack_id) or {}
    rack = project.rack(rack_id)
    out: list[Line] = []
    feeds = fig.get("feeds")
    if not feeds:
        out.append(Line("Power", PENDING, muted=True))
    else:
        a, b = feeds.get("A") or {}, feeds.get("B") or {}
        out.append(Line("Inlets", _inlet_text(fig.get("inlet"), int(a.get("pdus") or 0), int(b.get("pdus") or 0))))
        share = ((_section(analysis, "power").get("settings") or {}).get("failover_derating")) or 1.0
        out += [_feed_line("A", "B", a, share), _feed_line("B", "A", b, share)]
        throttled = feeds.get("throttled_kw") or 0.0
        if throttled > 0:
            out.append(Line("Throttled", f"{kw(throttled)} shed when a feed fails: devices throttle to the "
                                         "supplies left"))
        chain = fig.get("chain_utilisation")
        if chain is not None:
            out.append(Line("Power chain", f"{pct(chain)} at its most loaded element (inlets, row, UPS)",
                            is_over(chain)))
    busway = _row_busway_line(analysis, rack.hall, rack.row) if feeds else None
    if busway is not None:
        out.append(busway)
    if fig.get("liquid_kw") is None:
        out.append(Line("Cooling", PENDING, muted=True))
    else:
        liquid, air = fig["liquid_kw"], fig.get("air_kw") or 0.0
        if liquid > 0:
            out.append(Line("Liquid", f"{kw(liquid)} · {fig.get('coolant_flow_lpm') or 0:,.1f} L/min"))
            loop = fig.get("cdu_loop")
            loops = _section(analysis, "cooling").get("cdu_loops") or []
            if loop is None or loop >= len(loops):
                out.append(Line("CDU loop", "no CDU serves this rack", True))
            else:
                names = ", ".join(cdu_unit_name(project, u) for u in loops[loop].get("units") or ())
                out.append(Line("CDU loop", f"{names} ({pct(loops[loop].get('utilisation'))} loaded)",
                                is_over(loops[loop].get("utilisation"))))
        out.append(Line("Air", f"{kw(air)} · {fig.get('air_cfm') or 0:,.0f} CFM"))
        density, limit = fig.get("air_density"), fig.get("air_limit_kw")
        if density is not None and limit:
            where = CONTAINMENT_WORDS.get(fig.get("containment"), "a row")
            out.append(Line("Air density", f"{pct(density)} of the {cap_kw(limit)} {where} takes", is_over(density)))
        if fig.get("air_remedy"):
            out.append(Line("Remedy", f"add {fig['air_remedy']}", True))
    if fig.get("caster_load_kg") is not None:
        hall = _hall_entry(analysis, "floor", "halls", rack.hall) or {}
        rolling = hall.get("tile_rolling_kg")
        text = f"{fig['caster_load_kg']:,.0f} kg per caster"
        text += f" (tiles take {rolling:,.0f} kg rolling)" if rolling else " (tile rolling rating not set)"
        out.append(Line("Casters", text, rolling is not None and fig["caster_load_kg"] > rolling + 1e-9))
    return out


# ---- a CDU loop ---------------------------------------------------------------------------------
def loop_lines(loop: dict, project: Project) -> list[Line]:
    """A CDU loop's units, load, redundancy, flow, coolant temperature and fault domain."""
    units = loop.get("units") or []
    racks = loop.get("racks") or []
    out = [Line("Loop", f"{', '.join(cdu_unit_name(project, u) for u in units)} · {_plural(len(racks), 'rack')}")]
    load, cap = loop.get("load_kw") or 0.0, loop.get("capacity_kw") or 0.0
    out.append(Line("Load", f"{kw(load)} of {cap_kw(cap)} ({pct(loop.get('utilisation'))})",
                    is_over(loop.get("utilisation"))))
    n1 = loop.get("capacity_n_minus_1_kw") or 0.0
    if len(units) < 2:
        out.append(Line("Redundancy", "N: a single unit, none to spare", load > 0))
    elif loop.get("redundancy") == "N+1":
        out.append(Line("Redundancy", f"N+1: {cap_kw(n1)} with the largest unit down"))
    else:
        out.append(Line("Redundancy", f"N: {cap_kw(n1)} with the largest unit down, less than the load", True))
    flow, flow_cap = loop.get("coolant_flow_lpm") or 0.0, loop.get("flow_capacity_lpm")
    if flow_cap is None:
        out.append(Line("Flow", f"{flow:,.1f} L/min (the units' pump capacity is not known)", muted=True))
    else:
        out.append(Line("Flow", f"{flow:,.1f} L/min of {flow_cap:,.0f} L/min", flow > flow_cap + 1e-9))
    out.append(_coolant_line(loop))
    fault = loop.get("fault_domain") or {}
    if fault:
        out.append(Line("Fault domain", f"losing this loop stops {_plural(int(fault.get('racks') or 0), 'rack')}, "
                                        f"{_plural(int(fault.get('gpus') or 0), 'GPU')}, "
                                        f"{kw(fault.get('liquid_kw') or 0.0)}"))
    return out


def _coolant_line(loop: dict) -> Line:
    water, supply = loop.get("water_class"), loop.get("secondary_supply_c")
    limit = loop.get("device_coolant_max_c")
    if water is None:
        return Line("Coolant", "the hall's facility water class is not set: supply not checked", muted=True)
    if supply is None:
        return Line("Coolant", f"{water} water; the units' approach is not known: supply not checked", muted=True)
    text = (f"{supply:g} °C to the racks ({water} water up to {loop.get('facility_supply_c'):g} °C + "
            f"{loop.get('approach_k'):g} K approach)")
    text += f" · racks accept up to {limit:g} °C" if limit is not None else " · no rack states its coolant limit"
    return Line("Coolant", text, limit is not None and supply > limit + 1e-9)


# ---- a hall -------------------------------------------------------------------------------------
def hall_power_lines(analysis, hall_id: str) -> list[Line]:
    """The hall's UPS systems (normal and failover) and its generators."""
    out: list[Line] = []
    ups = _hall_entry(analysis, "power", "ups", hall_id)
    if ups is None:
        out.append(Line("UPS", "not set, not checked", muted=True))
    else:
        scheme, modules, spare = ups.get("scheme"), ups.get("modules") or 1, ups.get("spare_modules") or 0
        text = f"{scheme} · {_plural(modules, 'module')} of {cap_kw(ups.get('module_kw') or 0.0)}"
        text += f", {spare} spare" if spare else ""
        text += f" · {ups['blocks']} blocks" if ups.get("blocks") else ""
        out.append(Line("UPS", text))
        systems = ups.get("systems") or []
        for system in systems:
            text = f"{kw(system['normal_kw'])} of {cap_kw(system['capacity_kw'])} ({pct(system.get('utilisation'))})"
            over = is_over(system.get("utilisation")) or is_over(system.get("failover_utilisation"))
            if scheme in ("2N", "DR"):
                partner = ("a block" if scheme == "DR" else
                           next((s["name"] for s in systems if s is not system), "its partner"))
                text += (f" · {kw(system['failover_kw'])} ({pct(system.get('failover_utilisation'))}) "
                         f"if {partner} fails")
            out.append(Line(system["name"], text, over))
    gen = _hall_entry(analysis, "power", "generators", hall_id)
    if gen is None:
        out.append(Line("Generators", "none set, not checked", muted=True))
    else:
        text = (f"{gen['units']} × {cap_kw(gen['unit_kw'])}, {gen.get('redundant') or 0} spare: "
                f"{kw(gen['load_kw'])} of {cap_kw(gen['capacity_kw'])} ({pct(gen.get('utilisation'))})")
        out.append(Line("Generators", text, is_over(gen.get("utilisation"))))
    return out


def hall_rows(analysis, hall_id: str) -> list[dict]:
    """The hall's rows as the power engine lists them (each with its feeds' loading)."""
    return [r for r in _section(analysis, "power").get("rows") or () if r.get("hall") == hall_id]


def hall_air_lines(analysis, hall_id: str) -> list[Line]:
    """The hall's inlet class, air and liquid heat against capacity, and its air handlers."""
    cool = _hall_entry(analysis, "cooling", "halls", hall_id, id_key="id")
    if cool is None:
        return [Line("Air", PENDING, muted=True)]
    out: list[Line] = []
    lo, hi = cool.get("inlet_allowable_c") or (None, None)
    rated = cool.get("device_inlet_max_c")
    text = f"{cool.get('inlet_class')}: {lo:g}–{hi:g} °C allowed" if lo is not None else str(cool.get("inlet_class"))
    text += f" · devices rated to {rated:g} °C" if rated is not None else ""
    out.append(Line("Inlet air", text, rated is not None and hi is not None and hi > rated + 1e-9))
    for kind, label in (("air", "Air heat"), ("liquid", "Liquid heat")):
        load, cap = cool.get(f"{kind}_kw") or 0.0, cool.get(f"{kind}_capacity_kw")
        out.append(Line(label, f"{kw(load)} of {cap_kw(cap)}" if cap else f"{kw(load)} (capacity not set)",
                        cap is not None and load > cap + 1e-9))
    handlers = cool.get("air_handlers")
    if not handlers:
        out.append(Line("Air handlers", "none on the floor: the hall's air cooling capacity is used", muted=True))
        return out
    names, share = handlers.get("names") or [], handlers.get("utilisation")
    out.append(Line("Air handlers", f"{', '.join(names)}: {kw(cool.get('air_kw') or 0.0)} of "
                                    f"{cap_kw(handlers.get('capacity_kw') or 0.0)} ({pct(share)})", is_over(share)))
    n1 = handlers.get("capacity_n_minus_1_kw") or 0.0
    if handlers.get("redundancy") == "N+1":
        out.append(Line("Redundancy", f"N+1: {cap_kw(n1)} with the largest unit down"))
    else:
        out.append(Line("Redundancy", "N: a single unit, none to spare" if len(names) < 2 else
                        f"N: {cap_kw(n1)} with the largest unit down, less than the air heat", True))
    flow, demand = handlers.get("airflow_cfm"), handlers.get("demand_cfm")
    if flow is not None:
        out.append(Line("Airflow", f"{flow:,.0f} CFM for the {demand or 0:,.0f} CFM the racks draw",
                        demand is not None and demand > flow))
    return out
