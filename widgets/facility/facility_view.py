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

from typing import TYPE_CHECKING, NamedTuple

from designer.power.electrical_room import MAX_PIECES, electrical_room, pieces, rows_per_hall
from designer import formatting
from designer.facility import DISTRIBUTION_NAMES
from designer.model import Project
from designer.names import cdu_unit_name

if TYPE_CHECKING:  # the views are read, never built, here; they load with the first analysis
    from designer.views import CduLoop, RowPower
    from designer.views.power import RackFeed

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


def _nb(text: str) -> str:
    """A figure as :mod:`designer.formatting` writes it, kept on one line."""
    return text.replace(" ", NBSP)


def kw(x: float | None) -> str:
    """A load or a capacity by the one rule for kW: '66.0 kW', '4,000.0 kW'."""
    return _nb(formatting.kw(x))


def qty(x: float | None, unit: str) -> str:
    return _nb(formatting.quantity(x, unit))


def pct(share: float | None) -> str:
    """'58 %'; the missing mark where the engine gives no share."""
    return _nb(formatting.percent(share))


def is_over(share: float | None) -> bool:
    """A share above one: a load over what it is held to."""
    return share is not None and share > 1.0 + 1e-9


def loop_of(analysis, unit: str) -> CduLoop | None:
    """The CDU loop with ``unit`` ('floor:ID' or 'rack:ID') among its units, as the cooling engine reports it."""
    for loop in analysis.cooling.cdu_loops:
        if unit in loop.units:
            return loop
    return None


# ---- a rack -------------------------------------------------------------------------------------
def _feed_line(side: str, other: str, feed: RackFeed, failover_share: float = 1.0) -> Line:
    """One feed: normal load against its continuous capacity, and with the other feed lost against the share of
    its rating a failover may take (the power settings' ``failover_derating``)."""
    if not feed.pdus:
        return Line(f"Feed {side}", "no PDU or power shelf on this feed", muted=True)
    normal, cap, fail, rating = feed.normal_kw, feed.capacity_kw, feed.failover_kw, feed.rating_kw
    text = f"{kw(normal)} of {kw(cap)}" if cap else kw(normal)
    limit = rating * failover_share if rating else None
    text += f" · {kw(fail)} if {other} fails"
    if limit:
        text += (f" (rating{NBSP}{kw(rating)})" if failover_share >= 1.0
                 else f" (limit{NBSP}{kw(limit)}, {pct(failover_share)} of rating)")
    over = (cap > 0 and normal > cap + 1e-9) or (limit is not None and fail > limit + 1e-9)
    return Line(f"Feed {side}", text, over)


def _inlet_text(kind: str | None, a: int, b: int) -> str:
    if kind is None or a + b == 0:
        return "none: no PDU or power shelf in the rack"
    one, many = INLET_WORDS.get(kind, (kind.replace("_", " "), kind.replace("_", " ") + "s"))
    if a == b:
        return f"{a} {one if a == 1 else many} per feed"
    return f"{many}: {a} on feed A, {b} on feed B"


def _row_busway_line(analysis, hall_id: str, row_name: str) -> Line | None:
    for row in analysis.power.rows:
        if row.hall == hall_id and row.row == row_name:
            break
    else:
        return None
    what = DISTRIBUTION_NAMES.get(row.distribution, "busway")
    label = "Row busway" if row.distribution == "busway" else "Row RPP"
    name = row_name or "(no row)"
    if not row_name:
        return Line(label, "the rack stands in no row: no busway or panel of its is checked", muted=True)
    if row.rating_a is None:  # the engine checks a row only against a rating the hall states
        return Line(label, f"{name}: {what} rating not set, not checked", muted=True)
    a, b = row.feeds.A, row.feeds.B
    runs = row.runs
    amps = qty(row.rating_a, "A")
    rating = f"{runs} × {amps}" if runs > 1 else amps

    def both(key: str, each: str) -> str:  # one figure when the feeds agree, as they do in a balanced row
        fa, fb = pct(getattr(a, key)), pct(getattr(b, key))
        return f"{each}{fa}" if fa == fb else f"A {fa} · B {fb}"

    # with several runs a feed is as loaded as its busiest run, the figure the utilisation gives
    whose, cap = ("busiest run ", row.capacity_kw / runs) if runs > 1 else ("each feed ", row.capacity_kw)
    text = (f"{name}, {rating}: {both('utilisation', whose)} of {kw(cap)} · "
            f"{both('failover_utilisation', '')} if the other feed fails")
    over = any(is_over(share) for f in (a, b) for share in (f.utilisation, f.failover_utilisation))
    return Line(label, text, over)


def rack_lines(analysis, project: Project, rack_id: str) -> list[Line]:
    """A rack's feeds, power chain, liquid and air split, air density and caster load (``analysis`` is an
    :class:`~designer.analysis.Analysis`; a rack it does not know is being computed)."""
    fig = analysis.rack(rack_id)  # power, cooling and floor figures of the rack joined, looked up not scanned
    if fig is None:
        return [Line("Power", PENDING, muted=True), Line("Cooling", PENDING, muted=True)]
    rack = project.rack(rack_id)
    feeds = fig.feeds
    a, b = feeds.A, feeds.B
    out = [Line("Inlets", _inlet_text(fig.inlet, a.pdus, b.pdus))]
    share = analysis.power.settings.failover_derating
    out += [_feed_line("A", "B", a, share), _feed_line("B", "A", b, share)]
    if feeds.throttled_kw > 0:
        out.append(Line("Throttled", f"{kw(feeds.throttled_kw)} shed when a feed fails: devices throttle to the "
                                     "supplies left"))
    chain = fig.chain_utilisation  # None for a rack without inlets: no chain the design states
    if chain is not None:
        out.append(Line("Power chain", f"{pct(chain)} at its most loaded element (inlets, row, UPS)",
                        is_over(chain)))
    busway = _row_busway_line(analysis, rack.hall, rack.row)
    if busway is not None:
        out.append(busway)
    if fig.liquid_kw > 0:
        out.append(Line("Liquid", f"{kw(fig.liquid_kw)} · {qty(fig.coolant_flow_lpm, 'l/min')}"))
        loops = analysis.cooling.cdu_loops
        if fig.cdu_loop is None or fig.cdu_loop >= len(loops):
            out.append(Line("CDU loop", "no CDU serves this rack", True))
        else:
            loop = loops[fig.cdu_loop]
            names = ", ".join(cdu_unit_name(project, u) for u in loop.units)
            out.append(Line("CDU loop", f"{names} ({pct(loop.utilisation)} loaded)", is_over(loop.utilisation)))
    out.append(Line("Air", f"{kw(fig.air_kw)} · {qty(fig.air_cfm, 'CFM')}"))
    if fig.air_limit_kw:
        where = CONTAINMENT_WORDS.get(fig.containment, "a row")
        out.append(Line("Air density", f"{pct(fig.air_density)} of the {kw(fig.air_limit_kw)} {where} takes",
                        is_over(fig.air_density)))
    if fig.air_remedy:
        out.append(Line("Remedy", f"add {fig.air_remedy}", True))
    hall = next((h for h in analysis.floor.halls if h.hall == rack.hall), None)
    rolling = hall.tile_rolling_kg if hall is not None else None
    text = f"{qty(fig.caster_load_kg, 'kg')} per caster"
    text += f" (tiles take {qty(rolling, 'kg')} rolling)" if rolling else " (tile rolling rating not set)"
    out.append(Line("Casters", text, rolling is not None and fig.caster_load_kg > rolling + 1e-9))
    return out


# ---- a CDU loop ---------------------------------------------------------------------------------
def loop_lines(loop: CduLoop, project: Project) -> list[Line]:
    """A CDU loop's units, load, redundancy, flow, coolant temperature and fault domain."""
    units = loop.units
    out = [Line("Loop", f"{', '.join(cdu_unit_name(project, u) for u in units)} · "
                        f"{formatting.count(len(loop.racks), 'rack')}")]
    load, cap = loop.load_kw, loop.capacity_kw
    out.append(Line("Load", f"{kw(load)} of {kw(cap)} ({pct(loop.utilisation)})", is_over(loop.utilisation)))
    n1 = loop.capacity_n_minus_1_kw
    if len(units) < 2:
        out.append(Line("Redundancy", "N: a single unit, none to spare", load > 0))
    elif loop.redundancy == "N+1":
        out.append(Line("Redundancy", f"N+1: {kw(n1)} with the largest unit down"))
    else:
        out.append(Line("Redundancy", f"N: {kw(n1)} with the largest unit down, less than the load", True))
    flow, flow_cap = loop.coolant_flow_lpm, loop.flow_capacity_lpm
    if flow_cap is None:  # a unit without a pump figure: the engine gives no capacity
        out.append(Line("Flow", f"{qty(flow, 'l/min')} (the units' pump capacity is not known)", muted=True))
    else:
        out.append(Line("Flow", f"{qty(flow, 'l/min')} of {qty(flow_cap, 'l/min')}", flow > flow_cap + 1e-9))
    out.append(_coolant_line(loop))
    if loop.plumbing is not None and loop.plumbing.racks:
        pipes = loop.plumbing
        text = f"{formatting.count(pipes.rack_hoses, 'hose')} to {formatting.count(pipes.racks, 'rack manifold')}"
        if pipes.tray_couplings:
            text += f" · {formatting.count(pipes.tray_couplings, 'tray coupling')}"
        out.append(Line("Plumbing", text))
    fault = loop.fault_domain
    out.append(Line("Fault domain", f"losing this loop stops {formatting.count(fault.racks, 'rack')}, "
                                    f"{formatting.count(fault.gpus, 'GPU')}, {kw(fault.liquid_kw)}"))
    return out


def _coolant_line(loop: CduLoop) -> Line:
    water, supply, limit = loop.water_class, loop.secondary_supply_c, loop.device_coolant_max_c
    if water is None:
        return Line("Coolant", "the hall's facility water class is not set: supply not checked", muted=True)
    if supply is None:
        return Line("Coolant", f"{water} water; the units' approach is not known: supply not checked", muted=True)
    text = (f"{qty(supply, '°C')} to the racks ({water} water up to {qty(loop.facility_supply_c, '°C')} + "
            f"{qty(loop.approach_k, 'K')} approach)")
    text += f" · racks accept up to {qty(limit, '°C')}" if limit is not None else " · no rack states its coolant limit"
    return Line("Coolant", text, limit is not None and supply > limit + 1e-9)


# ---- a hall -------------------------------------------------------------------------------------
def hall_power_lines(analysis, hall_id: str) -> list[Line]:
    """The hall's UPS systems (normal and failover) and its generators."""
    out: list[Line] = []
    ups = next((u for u in analysis.power.ups if u.hall == hall_id), None)
    if ups is None:
        out.append(Line("UPS", "not set, not checked", muted=True))
    else:
        scheme, spare = ups.scheme, ups.spare_modules
        text = f"{scheme} · {formatting.count(ups.modules, 'module')} of {kw(ups.module_kw)}"
        text += f", {spare} spare" if spare else ""
        text += f" · {ups.blocks} blocks" if ups.blocks else ""
        text += f" · {pct(ups.derating)} of rating at the site" if ups.derating < 1.0 else ""
        text += f" · margin {pct(ups.margin)}" if ups.margin is not None else ""
        out.append(Line("UPS", text))
        systems = ups.systems
        for system in systems:
            text = f"{kw(system.normal_kw)} of {kw(system.capacity_kw)} ({pct(system.utilisation)})"
            over = is_over(system.utilisation) or is_over(system.failover_utilisation) or (
                system.margin_kw is not None and max(system.normal_kw, system.failover_kw) > system.margin_kw + 1e-9)
            if scheme in ("2N", "DR"):
                partner = ("a block" if scheme == "DR" else
                           next((s.name for s in systems if s is not system), "its partner"))
                text += f" · {kw(system.failover_kw)} ({pct(system.failover_utilisation)}) if {partner} fails"
            out.append(Line(system.name, text, over))
    gen = next((g for g in analysis.power.generators if g.hall == hall_id), None)
    if gen is None:
        out.append(Line("Generators", "none set, not checked", muted=True))
    else:
        blocks = f" in each of {gen.blocks} blocks" if gen.blocks > 1 else ""
        text = (f"{gen.units} × {kw(gen.unit_kw)}, {gen.redundant} spare{blocks}: "
                f"{kw(gen.load_kw)} of {kw(gen.capacity_kw)} ({pct(gen.utilisation)})")
        text += f" · {pct(gen.derating)} of rating at the site" if gen.derating < 1.0 else ""
        text += f" · margin {pct(gen.margin)}" if gen.margin is not None else ""
        over = is_over(gen.utilisation) or (gen.margin_kw is not None and gen.load_kw > gen.margin_kw + 1e-9)
        out.append(Line("Generators", text, over))
    project = analysis.project
    hall = next((h for h in project.halls if h.id == hall_id), None) if project is not None else None
    if hall is not None and hall.facility.ups_scheme is not None and hall.facility.ups_module_kw is not None:
        # what the UPS above takes on the floor, drawn beyond the hall's far wall
        rows = rows_per_hall(r for r in project.racks if r.hall == hall_id).get(hall_id, 0)
        room = electrical_room(hall, rows)
        out.append(Line("Electrical room", f"{room.summary()} · sizes not all confirmed by a source"
                        if room is not None else f"not drawn: {pieces(hall.facility, rows):,} pieces of equipment, "
                        f"more than a plan holds ({MAX_PIECES:,})", muted=room is None))
    return out


def hall_rows(analysis, hall_id: str) -> list[RowPower]:
    """The hall's rows as the power engine lists them (each with its feeds' loading)."""
    return [r for r in analysis.power.rows if r.hall == hall_id]


def hall_air_lines(analysis, hall_id: str) -> list[Line]:
    """The hall's inlet class, air and liquid heat against capacity, and its air handlers."""
    cool = next((h for h in analysis.cooling.halls if h.id == hall_id), None)
    if cool is None:
        return [Line("Air", PENDING, muted=True)]
    out: list[Line] = []
    lo, hi = cool.inlet_allowable_c
    rated = cool.device_inlet_max_c
    text = f"{cool.inlet_class}: {formatting.number(lo, formatting.DECIMALS['°C'])}–{qty(hi, '°C')} allowed"
    text += f" · devices rated to {qty(rated, '°C')}" if rated is not None else ""
    out.append(Line("Inlet air", text, rated is not None and hi > rated + 1e-9))
    for label, load, cap in (("Air heat", cool.air_kw, cool.air_capacity_kw),
                             ("Liquid heat", cool.liquid_kw, cool.liquid_capacity_kw)):
        out.append(Line(label, f"{kw(load)} of {kw(cap)}" if cap else f"{kw(load)} (capacity not set)",
                        cap is not None and load > cap + 1e-9))
    if cool.supply_c is not None and cool.return_c is not None:
        out.append(Line("Supply / return", f"{qty(cool.supply_c, '°C')} to the racks · "
                                            f"{qty(cool.return_c, '°C')} back to the units"))
    handlers = cool.air_handlers
    if handlers is None:
        out.append(Line("Air handlers", "none on the floor: the hall's air cooling capacity is used", muted=True))
        return out
    names, share = handlers.names, handlers.utilisation
    # a large air-cooled hall has a hundred units and more: the count and the first and last name then
    who = ", ".join(names) if len(names) <= 4 else f"{len(names):,} units, {names[0]} … {names[-1]}"
    out.append(Line("Air handlers", f"{who}: {kw(cool.air_kw)} of {kw(handlers.capacity_kw)} ({pct(share)})",
                    is_over(share)))
    n1 = handlers.capacity_n_minus_1_kw
    if handlers.redundancy == "N+1":
        out.append(Line("Redundancy", f"N+1: {kw(n1)} with the largest unit down"))
    else:
        out.append(Line("Redundancy", "N: a single unit, none to spare" if len(names) < 2 else
                        f"N: {kw(n1)} with the largest unit down, less than the air heat", True))
    flow, demand = handlers.airflow_cfm, handlers.demand_cfm
    if flow is not None:  # None when a unit states no airflow
        out.append(Line("Airflow", f"{qty(flow, 'CFM')} for the {qty(demand, 'CFM')} the racks draw",
                        demand > flow))
        out.append(_row_air_line(analysis, cool))
        if len(names) > 1:
            out.append(_unit_off_line(analysis, cool))
    return out


def _short_rows(analysis, cool, delivered: str, inlet: str) -> tuple[list, Line | None]:
    """A hall's rows with a known delivery (the ``delivered`` field of cooling.rows), and a line of those that get
    less than they draw, the warmest ``inlet`` first (None when every row gets its air)."""
    rows = [r for r in analysis.cooling.rows if r.hall == cool.id and getattr(r, delivered) is not None]
    warmth = [(r, getattr(r, inlet)) for r in rows if getattr(r, delivered) < r.demand_cfm]
    if not warmth:
        return rows, None
    warmth.sort(key=lambda rt: -(rt[1] if rt[1] is not None else float("inf")))
    named = [f"{r.row or '(no row)'} {'unbounded' if t is None else qty(t, '°C')}" for r, t in warmth[:3]]
    more = f" and {len(warmth) - 3:,} more" if len(warmth) > 3 else ""
    worst = warmth[0][1]
    return rows, Line("", f"inlet {', '.join(named)}{more}", worst is None or worst > cool.inlet_allowable_c[1] + 1e-9)


def _unit_off_line(analysis, cool) -> Line:
    """The rows that go short of air with the largest air handler off."""
    _, short = _short_rows(analysis, cool, "delivered_n_minus_1_cfm", "inlet_n_minus_1_c")
    if short is None:
        return Line("One unit off", "every row still gets the air it draws")
    return short._replace(label="One unit off")


def _row_air_line(analysis, cool) -> Line:
    """The rows that get less of the units' air than they draw (cooling.rows)."""
    rows, short = _short_rows(analysis, cool, "delivered_cfm", "inlet_c")
    if short is None:
        return Line("Rows", f"{len(rows):,} {'row gets' if len(rows) == 1 else 'rows get'} the air "
                            f"{'it draws' if len(rows) == 1 else 'they draw'}")
    return short._replace(label="Rows short of air")
