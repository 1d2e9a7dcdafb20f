"""The bill of materials: its legend, a table per section with subtotals and discounts, the totals, and the cost of
ownership built on them.

The bill's lines, subtotals and totals are printed as the bill engine rounded them, so the PDF,
the XLSX and the window agree to the cent. A line without a price says "no price" and every
total says what it leaves out; an indicative price carries a dagger.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Paragraph, Spacer, Table

from designer.formatting import adjustment, kw, money, number, percent, quantity
from designer.quote.cost import no_tokens_of
from designer.quote_settings import parse_date
from designer.views import BomLine, BomSection

from .. import pdf_style as st
from .layout import CONTENT_W
from .text import (
    DAGGER,
    DOUBLE_DAGGER,
    INDICATIVE,
    PRELIMINARY_MARK,
    SECTION_MARK,
    keep_units,
    long_date,
    percent_typed,
    plural,
)

if TYPE_CHECKING:
    from .quote import Quote


def bill(quote: Quote) -> None:
    """The legend of the marks and prices, a table per section of the bill, the totals and what they leave out."""
    b, cur = quote.bom, quote.cur
    quote.chapter("Bill of materials")
    q = quote.project.quote
    legend = [f"Prices in {cur}, excluding tax and shipping, as of {long_date(parse_date(b.as_of, 'as of'))}. "
              "Unit price is the list price; the net unit price is the list price less the section's discount (or plus "
              "its uplift), "
              "rounded to the cent, and the extended price is net unit price × quantity × years of the term "
              f"({plural(b.term_years, 'year')} for subscriptions and support, one for everything else).",
              f"{DAGGER} {INDICATIVE}. {DOUBLE_DAGGER} price older than {plural(q.price_max_age_days, 'day')} "
              f"(its date is given under the line). {SECTION_MARK} price from a price list without a date. "
              "* part number not confirmed in a vendor document. "
              "A line marked \"no price\" has no known price and is left out of every total."]
    if preliminary_parts(quote):
        legend.append(f"{PRELIMINARY_MARK} part whose vendor calls its figures preliminary: its specifications, "
                      "and so the power, cooling and price figures resting on them, may change (why, under the "
                      "totals).")
    if b.spares_percent:
        legend.append(f"Spare optics and cables: {percent_typed(b.spares_percent)} of each part's quantity, "
                      "rounded up, on their own lines.")
    if b.price_list.name or b.price_list.entries:
        pl = b.price_list
        legend.append(f"Price list “{pl.name or 'unnamed'}”: {number(pl.used)} of {number(pl.entries)} entries "
                      "used; its prices override the catalog's.")
    for text in legend:
        quote.story.append(quote.p(quote.t(text), "Note"))
    if not b.sections:
        quote.story.append(quote.p("The bill is empty: the design holds nothing to order."))
    widths = bom_widths(quote) if b.sections else []  # one set for all the section tables
    for sec in b.sections:
        quote.story += quote.subheading(sec.title)
        quote.story.append(section_table(quote, sec, widths))
    quote.story += quote.subheading("Totals", 200)
    quote.story += [totals_table(quote), Spacer(1, 6)]
    notes = []
    if b.yearly_total:
        notes.append(f"Of the net total, {money(b.one_off_total, cur)} is one-off (hardware and services) and "
                     f"{money(b.yearly_total, cur)} per year is subscriptions and support, for "
                     f"{plural(b.term_years, 'year')}.")
    if b.unpriced:
        notes.append("Not in any total, for want of a price: " + "; ".join(b.unpriced) + ".")
    for c, v in b.other_currencies.items():
        notes.append(f"Lines priced in {c} come to {money(v, c)}; they are not converted and not in the "
                     f"{cur} totals.")
    notes += b.conversion_notes()
    for n in notes:
        quote.story.append(quote.p(quote.t(n), "Note"))
    for name, why in preliminary_parts(quote).items():
        quote.story.append(quote.p(quote.t(f"{PRELIMINARY_MARK} {name}: {why}."), "Note"))


def preliminary_parts(quote: Quote) -> dict[str, str]:
    """Part name -> why its vendor calls its figures preliminary, for every such part on the bill, in bill order."""
    out: dict[str, str] = {}
    for sec in quote.bom.sections:
        for ln in sec.lines:
            if ln.preliminary and not ln.spare:
                out.setdefault(ln.description, ln.preliminary)
    return out


def bom_widths(quote: Quote) -> list[float]:
    """Column widths of every section's table, alike in all, from the widest entry of the whole bill: a part
    number or a price never breaks, and the description takes what is left."""
    lines = [ln for sec in quote.bom.sections for ln in sec.lines]
    pad = 7.5

    def widest(texts, font=st.FONT, size=7.5, least=0.0):
        return max([least] + [stringWidth(st.printable(x), font, size) for x in texts]) + pad

    marks = DAGGER + DOUBLE_DAGGER + SECTION_MARK

    def foreign(ln) -> str:  # a line in another currency prints its currency with the amount
        return ln.currency if ln.currency not in (None, quote.cur) else ""

    w = [widest([str(ln.line) for ln in lines], least=8),
         widest([ln.part_number + "*" for ln in lines], least=50),
         0.0,
         widest([number(ln.quantity) for ln in lines], least=stringWidth("Qty", st.BOLD, 7.5)),
         widest([ln.unit for ln in lines], least=stringWidth("Unit", st.BOLD, 7.5)),
         widest([money(ln.unit_price, foreign(ln)) + marks for ln in lines if ln.unit_price is not None]
                + ["no price"], least=46),
         widest(["100 %"] if any(ln.discount_percent % 1 == 0 for ln in lines) else ["12.5 %"],
                least=stringWidth("Disc.", st.BOLD, 7.5)),
         widest([money(ln.extended_price, foreign(ln)) for ln in lines if ln.extended_price is not None]
                + ["no price"], least=56)]
    alt = [stringWidth(ln.alt_part_number, st.FONT, 6.3) + pad for ln in lines if ln.alt_part_number]
    w[1] = min(max([w[1]] + alt), 128.0)
    w[2] = CONTENT_W - sum(w)
    return w


def section_table(quote: Quote, sec: BomSection, widths: list[float]) -> Table:
    """One section's lines, then its list subtotal and discount when it has one, its net subtotal, and what
    it holds in other currencies (printed, never converted)."""
    cur, s = quote.cur, quote.s
    head = ["#", "Part number", "Description", "Qty", "Unit", f"Unit price ({cur})", "Disc.",
            f"Extended ({cur})"]
    rows: list[list] = [head]
    for ln in sec.lines:
        rows.append(bom_row(quote, ln))
    n = len(rows)
    extra = []
    label_style = s["CellBold"]
    notes = [] if (sec.discount or sec.discount_percent) else ["list price, no discount"]
    if sec.unpriced:
        notes.append(f"excludes {plural(sec.unpriced, 'unpriced line')}")
    caveat = f" ({'; '.join(notes)})" if notes else ""
    title = quote.t(sec.title)
    if sec.discount or sec.discount_percent:
        adjusted = adjustment(sec.discount_percent)
        rows.append([Paragraph(f"{title} at list price", s["Cell"]), "", "", "", "",
                     Paragraph(quote.t(money(sec.list_subtotal, cur)), s["CellRight"])])
        rows.append([Paragraph(f"{adjusted[:1].upper()}{adjusted[1:]} on {title}", s["Cell"]), "", "", "", "",
                     Paragraph(quote.t(money(-sec.discount, cur)), s["CellRight"])])
    rows.append([Paragraph(f"{title} subtotal{quote.t(caveat)}", label_style), "", "", "", "",
                 Paragraph(quote.t(money(sec.subtotal, cur)), s["CellRightBold"])])
    for c, v in sec.other_currencies.items():
        rows.append([Paragraph(quote.t(f"Priced in {c}, not converted and not in the subtotal"), s["Cell"]),
                     "", "", "", "", Paragraph(quote.t(money(v, c)), s["CellRight"])])
    for r in range(n, len(rows)):
        extra += [("SPAN", (0, r), (4, r)), ("SPAN", (5, r), (7, r)), ("BACKGROUND", (0, r), (-1, r), st.WHITE)]
    extra += [("LINEABOVE", (0, n), (-1, n), 0.8, st.ACCENT)]
    sub = n + (2 if (sec.discount or sec.discount_percent) else 0)
    extra += [("BACKGROUND", (0, sub), (-1, sub), st.TOTAL_FILL)]
    return quote.table(rows, widths, numeric=(0, 3, 5, 6, 7), extra=extra)


def bom_row(quote: Quote, ln: BomLine) -> list:
    """One bill line: part numbers (unconfirmed ones starred), description and notes, quantity, unit price
    with its marks and net price, discount and extended price; "no price" where there is none."""
    s, cur = quote.s, quote.cur
    pn = ln.part_number
    pn_text = (quote.t(pn) + ("*" if ln.part_number_unconfirmed else "")) if pn else \
        '<font color="#5C6673">–</font>'
    if ln.alt_part_number:
        alt_mark = "*" if ln.alt_part_number_unconfirmed else ""
        pn_text += f'<br/><font size="6.3" color="#5C6673">order {quote.t(ln.alt_part_number)}{alt_mark}</font>'
    notes = []
    if ln.basis:
        notes.append(ln.basis)
    if not pn and ln.part_number_note:  # why this line has no part number, said where it is read
        notes.append(ln.part_number_note)
    if ln.per_year:
        notes.append(f"per {ln.unit} for {plural(ln.term_years, 'year')}")
    if "stale" in ln.flags:
        notes.append(f"{DOUBLE_DAGGER} price dated {ln.price_date}")
    if "undated" in ln.flags:
        notes.append(f"{SECTION_MARK} undated price from {ln.price_source}")
    if ln.unit_price is None:
        notes.append("no price known: not in the totals")
    desc = quote.t(keep_units(ln.description))
    if ln.preliminary:
        desc += f" {PRELIMINARY_MARK}"
    if notes:
        desc += f'<br/><font size="6.3" color="#5C6673">{quote.t("; ".join(notes))}</font>'
    foreign = ln.currency not in (None, cur)
    if ln.unit_price is None:
        unit = Paragraph('<i>no price</i>', s["CellRight"])
        ext = Paragraph('<i>no price</i>', s["CellRight"])
    else:
        mark = "".join(m for flag, m in (("unconfirmed", DAGGER), ("stale", DOUBLE_DAGGER),
                                         ("undated", SECTION_MARK)) if flag in ln.flags)
        up = money(ln.unit_price, ln.currency if foreign else "") + mark
        ext = money(ln.extended_price, ln.currency if foreign else "")
        # plain strings where nothing goes under the figure (the table draws those fastest)
        unit = st.printable(up)
        if ln.discount_percent or foreign:
            unit = Paragraph(quote.t(up) + (f'<br/><font size="6.3" color="#5C6673">net '
                                            f'{quote.t(money(ln.net_unit_price))}</font>'
                                            if ln.discount_percent else ""), s["CellRight"])
        if foreign:
            ext = Paragraph(quote.t(ext) + f'<br/><font size="6.3" color="#5C6673">not in the {cur} total</font>',
                            s["CellRight"])
    disc = ln.discount_percent
    return [str(ln.line), Paragraph(pn_text, s["Cell"]), Paragraph(desc, s["Cell"]), number(ln.quantity),
            Paragraph(quote.t(ln.unit), s["Cell"]), unit, percent_typed(disc), ext]


def totals_table(quote: Quote) -> Table:
    """Each section's list price, discount and net price, then the bill's three totals (the summary and the
    bill both print it)."""
    b, cur = quote.bom, quote.cur
    head = ["Section", f"At list price ({cur})", "Discount", f"Discount ({cur})", f"Net ({cur})"]
    rows = [head]
    for sec in b.sections:
        note = ""
        if sec.unpriced:
            note = f"excludes {plural(sec.unpriced, 'unpriced line')}"
        for c, v in sec.other_currencies.items():
            note += ("; " if note else "") + f"plus {money(v, c)} not converted"
        title = Paragraph(quote.t(sec.title) + (f'<br/><font size="6.4" color="#5C6673">{quote.t(note)}</font>'
                                                if note else ""), quote.s["Cell"])
        rows.append([title, money(sec.list_subtotal), percent_typed(sec.discount_percent),
                     money(-sec.discount) if sec.discount else "0.00", money(sec.subtotal)])
    n = len(rows)
    unpriced = len(quote.unpriced_lines())
    caveat = f", excluding {plural(unpriced, 'unpriced line')}" if unpriced else ""
    rows.append([Paragraph("<b>Total at list price</b>", quote.s["Cell"]), "", "", "",
                 Paragraph(quote.t(money(b.list_total, cur)), quote.s["CellRightBold"])])
    rows.append([Paragraph("<b>Total uplift</b>" if b.discount_total < 0 else "<b>Total discount</b>",
                           quote.s["Cell"]), "", "", "",
                 Paragraph(quote.t(money(-b.discount_total, cur) if b.discount_total else money(0, cur)),
                           quote.s["CellRightBold"])])
    rows.append([Paragraph(f"<b>Total (net){quote.t(caveat)}</b>", quote.s["Cell"]), "", "", "",
                 Paragraph(quote.t(money(b.price_total, cur)), quote.s["CellRightBold"])])
    extra = [("SPAN", (0, r), (3, r)) for r in range(n, n + 3)]
    extra += [("BACKGROUND", (0, n), (-1, n + 2), st.WHITE), ("BACKGROUND", (0, n + 2), (-1, n + 2), st.TOTAL_FILL),
              ("LINEABOVE", (0, n), (-1, n), 0.8, st.ACCENT)]
    w = [CONTENT_W - 4 * 88, 88, 60, 88, 116]
    w[0] = CONTENT_W - sum(w[1:])
    return quote.table(rows, w, numeric=(1, 2, 3, 4), extra=extra)


def no_throughput(quote: Quote) -> str:
    """Why the cost of ownership has no training throughput: no estimate, or a plan that does not fit in memory."""
    return "none: " + no_tokens_of(quote.optional("training"))


def cost_of_ownership(quote: Quote) -> None:
    """The straight-line cost of ownership: its inputs, its yearly cost and rates, and its assumptions."""
    c, cur = quote.cost, quote.cost.currency
    quote.chapter("Cost of ownership")
    quote.story.append(quote.p(
        "Straight-line cost of ownership, the convention of public compute-cost models: the yearly cost is the "
        "capital divided by the depreciation years, plus the energy of a year, plus a year of subscriptions and "
        "support. Energy is the typical IT draw under sustained training times the PUE, for the utilised hours "
        "of the year, at the energy price. The cost per GPU-hour is the yearly cost over the utilised GPU-hours; "
        "the cost per million tokens is the yearly cost over the tokens trained in the utilised hours."))
    hours = c.utilisation * 8760
    rows = [
        ("Capital: the bill's one-off net total", money(c.capital, cur)),
        ("Depreciation period", plural(c.depreciation_years if c.depreciation_years % 1 else
                                       int(c.depreciation_years), "year")),
        ("Depreciation per year", money(c.depreciation_per_year, cur)),
        ("Typical IT draw × PUE", f"{kw(c.facility_kw / c.pue if c.pue else None)} × {c.pue:g} = "
                                  f"{kw(c.facility_kw)}"),
        ("Utilisation", f"{percent(c.utilisation)} of the year ({number(hours)} hours)"),
        ("Energy per year", f"{quantity(c.energy_kwh_per_year, 'kWh')} × {money(c.energy_price_per_kwh, cur)}/kWh = "
                            f"{money(c.energy_per_year, cur)}"),
        ("Subscriptions and support per year", money(c.support_per_year, cur)),
        ("Yearly cost", money(c.yearly_cost, cur)),
        (f"Total over {c.depreciation_years:g} years (capital + energy and support for the period)",
         money(c.total_over_period, cur)),
        ("GPUs; utilised GPU-hours per year", f"{number(c.gpus)}; {number(c.gpu_hours_per_year)}"),
        ("Cost per GPU-hour", money(c.cost_per_gpu_hour, cur) if c.cost_per_gpu_hour is not None
         else "not given (no GPUs)"),
        ("Training throughput", quantity(c.tokens_per_s, "tokens/s") if c.tokens_per_s else no_throughput(quote)),
        ("Cost per million tokens", money(c.cost_per_million_tokens, cur)
         if c.cost_per_million_tokens is not None else "not given"),
    ]
    if c.dominant:
        rows.append(("Largest share of the yearly cost", c.dominant))
    quote.story.append(quote.pairs(rows, widths=(250.0, CONTENT_W - 250.0)))
    quote.story += quote.subheading("Assumptions")
    for text in c.assumptions:
        quote.story.append(Paragraph(quote.t(text[:1].upper() + text[1:]) + ".", quote.s["Bullet"], bulletText="•"))
    if c.excludes_unpriced:
        quote.story.append(Paragraph(quote.t("Lines without a price are out of every figure: "
                                             + "; ".join(c.excludes_unpriced) + "."), quote.s["Bullet"],
                                     bulletText="•"))
