"""The customer's last pages: the terms the quote's own settings state, what it leaves out, and the acceptance block
the customer signs.

The seller's own terms (payment, delivery, warranty, incoterm) come first, as its profile states them; then what
the quote's settings hold: its validity, currency, price basis, subscription term, spares and discounts. No term
the seller did not state is invented.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from reportlab.platypus import KeepTogether, Paragraph, Spacer, Table

from designer.formatting import money
from designer.quote_settings import parse_date

from .. import pdf_style as st
from .layout import CONTENT_W, table_style
from .text import DAGGER, fit_lines, long_date, percent_typed, plural

if TYPE_CHECKING:
    from .quote import Quote

#: The acceptance block's lines to fill in, each a label and a ruled space.
ACCEPTANCE_LINES = ("Name", "Title", "Date", "Signature")
#: The width of the acceptance block's labels.
LABEL_W = 90.0
#: The customer's name is cut to this many lines of the acceptance block.
CUSTOMER_LINES = 2


def terms(quote: Quote) -> None:
    """The chapter: the terms, the exclusions, then the acceptance block."""
    quote.chapter("Terms and acceptance")
    s = quote.story
    s += quote.subheading("Terms")
    for text in term_sentences(quote):
        s.append(Paragraph(quote.t(text), quote.s["Bullet"], bulletText="•"))
    left_out = list(quote.bom.exclusions)
    q = quote.project.quote
    if q.excluded:
        left_out.append("Left off at the customer's request: " + ", ".join(quote.name_of(i) for i in q.excluded) + ".")
    if left_out:
        s += quote.subheading("Not included")
        for text in left_out:
            s.append(Paragraph(quote.t(text), quote.s["Bullet"], bulletText="•"))
    s.append(Spacer(1, 10))
    s.append(acceptance(quote))


def term_sentences(quote: Quote) -> list[str]:
    """The quote's settings as terms, one sentence each: validity, currency and price basis, subscription term,
    spares and discounts."""
    b, q = quote.bom, quote.project.quote
    items = [f"{label}: {text.strip()}" + ("" if text.strip().endswith(".") else ".")
             for label, text in q.seller.terms]
    items += [f"This quotation is valid for {plural(q.validity_days, 'day')} from its date "
             f"({long_date(quote.on)}), until {long_date(quote.valid_until)}.",
             f"All prices are in {quote.cur}, excluding tax and shipping, as of "
             f"{long_date(parse_date(b.as_of, 'as of'))}"
             + ("; lines priced in " + ", ".join(b.other_currencies) + " are not converted and not in the totals."
                if b.other_currencies else "."),
             *b.conversion_notes(),
             f"Subscriptions and support are quoted for a term of {plural(b.term_years, 'year')}: their extended "
             "prices cover the whole term.",
             f"Prices marked {DAGGER} are indicative and are to be confirmed by the vendor before ordering."]
    if b.spares_percent:
        items.append(f"Spare optics and cables: {percent_typed(b.spares_percent)} of each part's quantity, "
                     "rounded up, are included on their own lines.")
    if b.discount_total:
        up = any(sec.discount_percent < 0 for sec in b.sections)
        down = any(sec.discount_percent > 0 for sec in b.sections)
        total = money(abs(b.discount_total), quote.cur)
        if up and down:
            what = (f"is after discounts and uplifts, {total} {'off' if b.discount_total > 0 else 'over'} list in "
                    "all")
        elif up:
            what = f"includes {total} of uplifts over list"
        else:
            what = f"is after {total} of discounts off list"
        items.append(f"The net total of {money(b.price_total, quote.cur)} {what}, shown by section in the bill.")
    return items


def acceptance(quote: Quote) -> KeepTogether:
    """"Accepted for <customer>", what signing accepts, and the name, title, date and signature lines to fill in,
    kept on one page."""
    customer = quote.project.quote.customer.strip()
    who = fit_lines(customer, CONTENT_W, CUSTOMER_LINES, font=st.BOLD, size=11) if customer else "the customer"
    head = quote.p(quote.t(f"Accepted for {who}"), "H2")
    said = quote.p(quote.t(
        f"By signing below, {who} accepts quotation {quote.number} for {money(quote.bom.price_total, quote.cur)} "
        f"(net, excluding tax and shipping) on the terms above."), "Body")
    rows = [[quote.p(quote.t(label), "CoverLabel"), ""] for label in ACCEPTANCE_LINES]
    t = Table(rows, colWidths=[LABEL_W, CONTENT_W - LABEL_W - 120], rowHeights=[30] * len(rows), hAlign="LEFT")
    t.setStyle(table_style([("VALIGN", (0, 0), (-1, -1), "BOTTOM"), ("LEFTPADDING", (0, 0), (-1, -1), 0),
                            ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
                            ("LINEBELOW", (1, 0), (1, -1), 0.6, st.TEXT)]))
    return KeepTogether([head, said, Spacer(1, 6), t])
