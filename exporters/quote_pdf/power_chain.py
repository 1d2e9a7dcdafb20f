"""The engineering chapter: power (by hall, row and supply, and the chain above the racks), cooling, the fabric
and storage.

Each figure is the analysis's, read through its typed view; a section whose engine did not run is left out.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from reportlab.platypus import PageBreak

from designer.formatting import kw, kw_pair, number, percent, quantity
from designer.names import cdu_unit_name
from designer.power.single_line import single_line
from designer.views import PowerView, RowPower
from designer.views.base import require

from ..fabric_text import is_ethernet, switches_label, switches_value, technology_name, tier_names
from .goodput import storage
from .layout import CONTENT_W
from .plan import MAX_HALLS, PlanFlowable
from .single_line import SingleLineFlowable
from .text import cell, name, plural

if TYPE_CHECKING:
    from .quote import Quote

#: Above this many rows of racks the power table lists the most loaded ones only.
MAX_POWER_ROWS = 120
MAX_CDU_LOOPS = 60


def engineering(quote: Quote) -> None:
    """The engineering chapter: power, cooling, the compute fabric, then storage."""
    quote.chapter("Power, cooling, fabric and storage")
    power(quote)
    cooling(quote)
    fabric(quote)
    storage(quote)


def power(quote: Quote) -> None:
    """The power totals and settings, then by hall, the chain above the racks, by row, by supply, and each
    hall's rack power load as a plan."""
    pw = quote.optional("power")
    if pw is None:
        return
    s = quote.story
    s += quote.subheading("Power")
    sett = pw.settings
    s.append(quote.pairs([
        ("IT power, typical / maximum", kw_pair(pw.it_typical_kw, pw.it_max_kw)),
        ("Facility power, typical / maximum", kw_pair(pw.facility_typical_kw, pw.facility_max_kw)),
        ("Cooling equipment (CDUs, air handlers)", kw(pw.cooling_equipment_kw)),
        ("PUE; power factor; PDU derating", f"{sett.pue:g}; {sett.power_factor:g}; "
                                            f"{percent(sett.derating)} of rating"),
    ]))
    halls = pw.halls
    if halls:
        s += quote.minor("By hall")
        rows = [["Hall", "IT typical (kW)", "IT maximum (kW)", "Capacity (kW)", "Headroom (kW)", "Facility (kW)"]]
        for h in halls:
            rows.append([name(h.name or h.id), cell(h.it_typical_kw, "kW"), cell(h.it_max_kw, "kW"),
                         cell(h.capacity_kw, "kW"), cell(h.headroom_kw, "kW"), cell(h.facility_kw, "kW")])
        s.append(quote.table(rows, [CONTENT_W - 5 * 72] + [72] * 5, numeric=(1, 2, 3, 4, 5)))
    power_chain(quote, pw)
    prow = pw.rows
    if prow:
        hall_names = {h.id: name(h.name or h.id) for h in quote.project.halls}
        shown = prow
        note = ""
        if len(prow) > MAX_POWER_ROWS:
            shown = sorted(prow, key=lambda r: -r.max_kw)[:100]
            note = (f"The 100 rows with the highest maximum draw of {number(len(prow))}; all rows together draw "
                    f"{kw(sum(r.max_kw for r in prow))} at maximum.")
        s += quote.minor("By row of racks")
        if note:
            s.append(quote.p(quote.t(note), "Note"))
        rows = [["Hall", "Row of racks", "Racks in row", "Typical (kW)", "Maximum (kW)"]]
        for r in shown:
            rows.append([hall_names.get(r.hall, r.hall), name(r.row) if r.row else "(no row)", number(r.racks),
                         cell(r.typical_kw, "kW"), cell(r.max_kw, "kW")])
        s.append(quote.table(rows, [CONTENT_W - 4 * 90, 90, 90, 90, 90], numeric=(2, 3, 4)))
    sup = pw.supplies
    if sup:
        s += quote.minor("Power supplies per device type")
        rows = [["Device", "Devices", "Supplies", "Scheme", "Usable (kW)", "Max draw (kW)", "Headroom (kW)",
                 "On one feed (kW)"]]
        for r in sup:
            rows.append([quote.name_of(r.type) + (" *" if r.unconfirmed else ""), number(r.devices),
                         f"{r.supplies} × {quantity(r.rating_w, 'W')}", r.scheme, cell(r.usable_kw, "kW"),
                         # per device, two decimals: a switch's 0.28 kW of headroom would read 0.3
                         number(r.max_kw, 2), number(r.headroom_kw, 2), cell(r.one_feed_kw, "kW")])
        s.append(quote.table(rows, [CONTENT_W - 7 * 54, 44, 66, 56, 50, 54, 54, 54], numeric=(1, 4, 5, 6, 7)))
        if any(r.unconfirmed for r in sup):
            s.append(quote.p("* supply figures not confirmed in a vendor document.", "Small"))
    racks = pw.racks
    if racks and quote.project.halls:
        s.append(PageBreak())
        s += quote.subheading("Rack power load")
        s.append(quote.p("Each rack's maximum draw as a share of its power limit (the rack's own, else its "
                         "hall's default).", "Note"))
        for i, hall in enumerate(quote.project.halls[:MAX_HALLS]):
            if i:
                s.append(PageBreak())
            s.append(PlanFlowable(quote.a, hall.id, "power", quote.pages, max_height=600))


def power_chain(quote: Quote, pw: PowerView) -> None:
    """Each level above the racks: what it may carry, what it carries, and what it carries with its partner
    lost (the figure a facilities team signs off)."""
    hall_names = {h.id: name(h.name or h.id) for h in quote.project.halls}
    rows = [["Level", "Capacity (kW)", "Normal (kW)", "Partner lost (kW)", "Peak (kW)"]]
    for ups in pw.ups:
        for u in ups.systems:
            rows.append([f"{hall_names.get(ups.hall, ups.hall)}: {name(u.name)} ({ups.scheme})",
                         cell(u.capacity_kw, "kW"), cell(u.normal_kw, "kW"), cell(u.failover_kw, "kW"),
                         cell(u.peak_kw, "kW")])
    rated = [r for r in pw.rows if r.rating_kw]
    if rated:
        def feeds(r: RowPower) -> tuple:  # A before B: on a tie the A feed is named
            return (("A", r.feeds.A), ("B", r.feeds.B))

        top = max(rated, key=lambda r: max(f.failover_utilisation or 0 for _, f in feeds(r)))
        side, f = max(feeds(top), key=lambda kv: kv[1].failover_utilisation or 0)
        runs = f"{top.runs} x " if top.runs > 1 else ""
        rows.append([f"Busiest row {name(top.row)}: {runs}{quantity(top.rating_a, 'A')} {top.distribution} {side}",
                     cell(top.failover_capacity_kw, "kW"), cell(f.normal_kw, "kW"),
                     cell(f.failover_kw, "kW"), cell(f.peak_kw, "kW")])
    for g in pw.generators:
        blocks = f" in each of {g.blocks} blocks" if g.blocks > 1 else ""
        site = f", {percent(g.derating)} at the site" if g.derating < 1.0 else ""
        rows.append([f"{hall_names.get(g.hall, g.hall)}: generators {g.units} x {kw(g.unit_kw)}, "
                     f"{g.redundant} spare{blocks}{site}", cell(g.capacity_kw, "kW"), cell(g.load_kw, "kW"), "", ""])
    if len(rows) == 1:
        return
    quote.story += quote.minor("Power chain above the racks")
    quote.story.append(quote.table(rows, [CONTENT_W - 4 * 72] + [72] * 4, numeric=(1, 2, 3, 4)))
    single_lines(quote, pw)


def single_lines(quote: Quote, pw: PowerView) -> None:
    """Each hall's single-line diagram (at most MAX_HALLS), utility to rows, with its ratings and loads."""
    for hall in quote.project.halls[:MAX_HALLS]:
        sl = single_line(pw, hall)
        if sl is None:
            continue
        quote.story += quote.minor(sl.title)
        quote.story.append(quote.p("Ratings and loads as above; A feed blue, B feed vermillion; a box outlined in "
                                   "amber carries more than its design margin.", "Note"))
        quote.story.append(SingleLineFlowable(sl))


def cooling(quote: Quote) -> None:
    """Heat to liquid and to air, coolant flow and airflow, then by hall and by CDU loop."""
    co = quote.optional("cooling")
    if co is None:
        return
    s = quote.story
    s += quote.subheading("Cooling", 200)
    sett = co.settings
    coolant = sett.coolant_name
    rows = [
        ("Heat at " + str(co.basis), f"{kw(co.heat.kw)} ({quantity(co.heat.btu_h, 'BTU/h')}, "
                                     f"{quantity(co.heat.tons, 'tons')})"),
        ("To liquid", f"{kw(co.liquid_heat.kw)} ({quantity(co.liquid_heat.tons, 'tons')})"),
        ("To air", f"{kw(co.air_heat.kw)} ({quantity(co.air_heat.tons, 'tons')})"),
        ("Coolant flow", f"{quantity(co.coolant_flow_lpm, 'l/min')} ({quantity(co.coolant_flow_m3_h, 'm³/h')}) "
                         f"of {coolant} at {quantity(sett.coolant_delta_t_k, 'K')} rise" if co.coolant_flow_lpm else
         "none: no heat goes to liquid"),
        ("Airflow", f"{quantity(co.air_cfm, 'CFM')} ({quantity(co.air_m3_h, 'm³/h')}) at "
                    f"{quantity(sett.air_delta_t_k, 'K')} rise"),
    ]
    s.append(quote.pairs(rows))
    halls = co.halls
    if halls:
        s += quote.minor("By hall")
        rows = [["Hall", "Air (kW)", "Air capacity (kW)", "Air headroom (kW)", "Liquid (kW)",
                 "Liquid capacity (kW)", "Liquid headroom (kW)"]]
        for h in halls:
            rows.append([name(h.name or h.id), cell(h.air_kw, "kW"), cell(h.air_capacity_kw, "kW"),
                         cell(h.air_headroom_kw, "kW"), cell(h.liquid_kw, "kW"),
                         cell(h.liquid_capacity_kw, "kW"), cell(h.liquid_headroom_kw, "kW")])
        s.append(quote.table(rows, [CONTENT_W - 6 * 64] + [64] * 6, numeric=(1, 2, 3, 4, 5, 6)))
    loops = co.cdu_loops
    if loops:
        s += quote.minor("CDU loops")
        shown = loops
        if len(loops) > MAX_CDU_LOOPS:
            shown = sorted(loops, key=lambda lp: -(lp.utilisation or 0))[:MAX_CDU_LOOPS]
            s.append(quote.p(quote.t(f"The {MAX_CDU_LOOPS} most loaded of {number(len(loops))} loops."), "Note"))
        rows = [["CDUs", "Racks", "Load (kW)", "Capacity (kW)", "With one CDU out (kW)", "Load share",
                 "Redundancy", "Flow / capacity (l/min)"]]
        for lp in shown:
            units = ", ".join(name(cdu_unit_name(quote.project, u)) for u in lp.units)
            rows.append([units, number(len(lp.racks)), cell(lp.load_kw, "kW"), cell(lp.capacity_kw, "kW"),
                         cell(lp.capacity_n_minus_1_kw, "kW"), percent(lp.utilisation), lp.redundancy,
                         f"{cell(lp.coolant_flow_lpm, 'l/min')} / {cell(lp.flow_capacity_lpm, 'l/min')}"])
        s.append(quote.table(rows, [CONTENT_W - 7 * 56, 40, 56, 56, 64, 50, 60, 66],
                             numeric=(1, 2, 3, 4, 5, 7)))


def fabric(quote: Quote) -> None:
    """The fat tree: its switch, topology and reach, its tiers, its cables by length and its transceivers."""
    fa = quote.optional("fabric")
    if fa is None:
        return
    s = quote.story
    s += quote.subheading("Compute fabric", 220)
    if fa.error or not fa.tiers:
        s.append(quote.p(quote.t(f"The compute fabric is not built: {fa.error or 'no GPU nodes'}.")))
        return
    # a sized tree writes all of these; the view holds them optional for the designs that have none
    require(fa, "fabric", ("switch", "radix", "port_gbps", "rails", "oversubscription", "scalable_units",
                           "su_nodes", "switches", "ports", "cable_length_total_m"))
    rows = [
        ("Switch", f"{quote.name_of(fa.switch)} ({number(fa.radix)} ports at {quantity(fa.port_gbps, 'Gb/s')})"),
        ("Topology", f"{fa.tiers}-tier fat tree, {plural(fa.rails, 'rail')}, oversubscription "
                     f"{fa.oversubscription:g}:1"
                     + (f" at the leaf and {fa.core_oversubscription:g}:1 above the pod"
                        if fa.core_oversubscription and fa.core_oversubscription > 1 else "")
                     + (f"; {technology_name(fa.technology)}" if is_ethernet(fa) else "")
                     + (f", {fa.planes} independent planes (each node port split between them)"
                        if fa.planes > 1 else "")),
        ("Endpoints", f"{number(fa.endpoints)} ports of {plural(fa.nodes, 'node')} "
                      + (f"each split {fa.planes} ways, one port per plane: {number(fa.links.node_leaf)} node links "
                         if fa.planes > 1 else "")
                      + f"(reach of {fa.tiers} tiers: {number(fa.max_endpoints)})"),
        ("Scalable units", f"{number(fa.scalable_units)} ({number(fa.su_nodes)} nodes each)"),
        (switches_label(fa), f"{switches_value(fa, fa.leaf, fa.spine, fa.core)}; {number(fa.switches)} in all"
         if is_ethernet(fa) or fa.planes > 1 else
         f"{number(fa.leaf)} / {number(fa.spine)} / {number(fa.core)} ({number(fa.switches)} in all)"),
        ("Cables", f"{number(fa.cables_total)}, {quantity(fa.cable_length_total_m / 1000, 'km')} in all"),
    ]
    bw = quote.optional("bandwidth")
    if bw is not None and bw.bisection_tbps is not None:
        rows.append(("Bisection bandwidth", f"{quantity(bw.bisection_tbps, 'Tb/s')}"
                     + (f" across pods ({quantity(bw.bisection_tbps_within_pod, 'Tb/s')} within one pod)"
                        if bw.bisection_tbps_across_pods is not None else "")
                     + (" (non-blocking)" if bw.bisection_tbps >= (bw.bisection_tbps_non_blocking or 0) else
                        f"; {quantity(bw.bisection_tbps_non_blocking, 'Tb/s')} were it non-blocking")))
    if fa.too_long_links:
        rows.append(("Links without parts (too long, or none fits)", number(fa.too_long_links)))
    s.append(quote.pairs(rows))
    links, ports = fa.links, fa.ports
    pp = fa.per_plane if fa.planes > 1 else None
    s += quote.minor("Switch tiers" + (f", all {fa.planes} planes (each plane {number(pp.leaf)} leaf, "
                                       f"{number(pp.spine)} spine"
                                       + (f", {number(pp.core)} {tier_names(fa)[2].lower()}" if pp.core else "")
                                       + ")" if pp is not None else ""))
    trows = [["Tier", "Switches", "Ports", "Links from below", "Ports used down", "Ports used up", "Ports free"]]
    leaf_name, spine_name, core_name = tier_names(fa)
    for tier, switches, p, below in ((leaf_name, fa.leaf, ports.leaf, links.node_leaf),
                                     (spine_name, fa.spine, ports.spine, links.leaf_spine),
                                     (core_name, fa.core, ports.core, links.spine_core)):
        if switches or p.total:
            trows.append([tier, number(switches), number(p.total), number(below), number(p.down_used),
                          number(p.up_used), number(p.free)])
    s.append(quote.table(trows, [CONTENT_W - 6 * 70] + [70] * 6, numeric=(1, 2, 3, 4, 5, 6)))
    by_len = fa.cables_by_length
    if by_len:
        s += quote.minor("Cables by length")
        lengths = sorted({float(m) for v in by_len.values() for m in v})
        head = ["Cable"] + [quantity(m, "m") for m in lengths] + ["Total"]
        rows = [head]
        for cid, counts in by_len.items():
            got = {float(m): n for m, n in counts.items()}
            rows.append([quote.name_of(cid)] + [number(got[m]) if m in got else "" for m in lengths]
                        + [number(sum(got.values()))])
        n = len(lengths) + 1
        cw = min(46.0, (CONTENT_W - 150) / n)
        s.append(quote.table(rows, [CONTENT_W - n * cw] + [cw] * n, numeric=tuple(range(1, n + 1))))
    trx = fa.transceivers
    if trx:
        s += quote.minor("Transceivers")
        rows = [["Transceiver", "Quantity"]] + [[quote.name_of(t), number(n)] for t, n in trx.items()]
        s.append(quote.table(rows, [CONTENT_W - 80, 80], numeric=(1,)))
    for note in fa.notes:
        s.append(quote.p(quote.t(note), "Note"))
