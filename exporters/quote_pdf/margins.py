"""The seller's margins, in the internal technical appendix only: by section and in all, over the lines whose cost
the seller's price list gives, and the lines that leave the least.

A line's cost comes only from a price list's cost column; a line without one is counted and said, never given a
guessed cost. Every figure is the bill engine's (``bom.margins``, each line's ``margin``), printed as it rounded it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from reportlab.platypus import Paragraph, Spacer

from designer.formatting import money, number

from .. import pdf_style as st
from .layout import CONTENT_W
from .text import plural

if TYPE_CHECKING:
    from .quote import Quote

#: most lines the "least margin" table lists
LEAST_SHOWN = 12


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} %"


def margins(quote: Quote) -> None:
    """The chapter: a table of the sections' margins with the total, then the lines that leave the least."""
    m, cur = quote.bom.margins, quote.cur
    if not m.costed_lines:  # a paragraph after the cost of ownership, not a page of its own
        quote.story += quote.subheading("Margins")
        quote.story.append(quote.p(
            "No line of the bill has a cost: load a seller's price list with a cost column beside its prices "
            "(the window's Quote menu, or export --prices) to see what each section leaves."))
        return
    quote.chapter("Margins")
    quote.story.append(quote.p(
        f"What the bill leaves the seller: its net price less the cost the price list gives, over the "
        f"{plural(m.costed_lines, 'line')} with a cost, in {cur}. This page is internal: the customer's copy "
        "never prints a cost or a margin."))
    widths = [150.0, 56.0, 78.0, 78.0, 78.0]
    widths.append(CONTENT_W - sum(widths))
    rows = [["Section", "Lines with a cost", "Net", "Cost", "Margin", "Margin, %"]]
    for r in m.sections:
        rows.append([r.title, f"{number(r.costed_lines)} of {number(r.costed_lines + r.uncosted_lines)}",
                     money(r.net) if r.costed_lines else "–", money(r.cost) if r.costed_lines else "–",
                     money(r.margin) if r.costed_lines else "–", _pct(r.margin_percent)])
    rows.append([Paragraph("Total", quote.s["CellBold"]),
                 f"{number(m.costed_lines)} of {number(m.costed_lines + m.uncosted_lines)}", money(m.net),
                 money(m.cost), money(m.margin), _pct(m.margin_percent)])
    quote.story.append(quote.table(rows, widths, numeric=range(1, 6),
                                   extra=[("FONTNAME", (1, -1), (-1, -1), st.BOLD)]))
    if m.uncosted_lines:
        quote.story += [Spacer(1, 4), quote.p(quote.t(
            f"{plural(m.uncosted_lines, 'priced line')} {'have' if m.uncosted_lines != 1 else 'has'} no cost in the "
            "price list: their margin is not known, and they are out of these figures."), "Note")]
    costed = [ln for sec in quote.bom.sections for ln in sec.lines
              if ln.margin is not None and ln.extended_price and ln.currency == cur]
    costed.sort(key=lambda ln: (ln.margin / ln.extended_price, ln.line))
    quote.story += quote.subheading("Lines with the smallest margin")
    widths = [34.0, 200.0, 70.0, 70.0, 70.0]
    widths.append(CONTENT_W - sum(widths))
    rows = [["Line", "Description", "Net", "Cost", "Margin", "Margin, %"]]
    for ln in costed[:LEAST_SHOWN]:
        rows.append([str(ln.line), ln.description, money(ln.extended_price), money(ln.extended_cost),
                     money(ln.margin), _pct(ln.margin / ln.extended_price * 100)])
    quote.story.append(quote.table(rows, widths, numeric=(0, 2, 3, 4, 5)))
    if len(costed) > LEAST_SHOWN:
        quote.story.append(quote.p(f"… and {plural(len(costed) - LEAST_SHOWN, 'more line')} with a cost.", "Note"))
