"""The quote's first pages: the cover (customer, number, dates, the total in a box) and the table of contents."""
from __future__ import annotations

from typing import TYPE_CHECKING

from reportlab.platypus import NextPageTemplate, PageBreak, Spacer, Table
from reportlab.platypus.tableofcontents import TableOfContents

from designer.formatting import money, number, percent

from .. import pdf_style as st
from ..base import ExportError
from ..pdf_text import clip_counted
from .layout import CONTENT_W, table_style
from .text import DAGGER, fit_lines, lines_room, long_date, plural

if TYPE_CHECKING:
    from .quote import Quote

#: The project's description is cut to this many lines of the cover, and the cover says so.
DESCRIPTION_LINES = 6
#: A value on the cover (customer, prepared by, quote number) is cut to this many lines of its column.
VALUE_LINES = 4


def cover(quote: Quote) -> None:
    """The first page: the project, who it is for, its number and dates, and the total in a box."""
    q, s, summ = quote.project.quote, quote.story, quote.a.summary
    s.append(quote.p(quote.t(quote.name), "CoverTitle"))
    line = f"{number(summ.gpus)} GPUs in {plural(summ.racks, 'rack')}"
    if summ.halls != 1:
        line += f" across {plural(summ.halls, 'hall')}"
    s.append(quote.p(description(quote) + quote.t(line), "CoverSub"))
    if quote.errors:
        s += [error_box(quote), Spacer(1, 10)]
    seller = q.seller
    rows = ([("Seller", seller_text(seller), f"tax id {seller.tax_id}" if seller.tax_id else "")]
            if not seller.empty else [])
    rows += [("Customer", q.customer.strip() or "To be confirmed", ""),
             ("Prepared by", q.prepared_by.strip() or seller.contact.strip() or "PodPlanner", ""),
            ("Quote number", quote.number, "derived from the project name and date" if quote.number_derived else ""),
            ("Revision", q.revision, "first issue" if q.revision == "A" else "supersedes the earlier revisions"
             if quote.since is None else f"supersedes revision {quote.since.project.quote.revision}"),
            ("Quote date", long_date(quote.on), "" if q.quote_date else "prices as of this date"),
            ("Valid until", long_date(quote.valid_until), f"{plural(q.validity_days, 'day')} from the quote date"),
            ("Currency", quote.cur, "all prices exclude tax and shipping")]
    cells = []
    for label, value, note in rows:
        value = "\n".join(fit_lines(part, CONTENT_W - 110, VALUE_LINES, font=st.BOLD, size=10.5)
                          for part in value.split("\n")[:VALUE_LINES + 2])
        small = f'<br/><font name="{st.FONT}" size="7" color="#5C6673">{quote.t(note)}</font>' if note else ""
        v = quote.t(value).replace("\n", "<br/>") + small
        cells.append([quote.p(quote.t(label), "CoverLabel"), quote.p(v, "CoverValue")])
    t = Table(cells, colWidths=[110, CONTENT_W - 110])
    t.setStyle(table_style([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LINEBELOW", (0, 0), (-1, -1), 0.4, st.RULE),
                            ("TOPPADDING", (0, 0), (-1, -1), 6), ("BOTTOMPADDING", (0, 0), (-1, -1), 6),
                            ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
    s += [t, Spacer(1, 26)]
    s.append(total_box(quote))
    if quote.internal:
        s += [Spacer(1, 16), quote.p(quote.t(
            f"Internal technical appendix to quotation {quote.number}, not for the customer: the design checks' "
            "findings, the training estimate with its checkpoints and failures, the power, cooling, fabric and "
            "storage details, the cost of ownership, and the source and age of every price and part number."),
            "Note")]
    s += [Spacer(1, 16), quote.p(
        "This quotation is generated from the design by PodPlanner. Quantities are counted from the placed "
        "equipment and the computed fabric; prices marked " + DAGGER + " are indicative (press, third-party "
        "or planning estimates) and are to be confirmed by the vendor before ordering.", "Note")]
    s += [NextPageTemplate("body")]


#: the seller's logo in the cover's band: at most this high and wide, its proportions kept
LOGO_H, LOGO_W = 40.0, 150.0


def seller_text(seller) -> str:
    """The seller on the cover in three lines at most: company, address, and whom to reach and how."""
    reach = " · ".join(x for x in (seller.contact, seller.email, seller.phone) if x.strip())
    return "\n".join(x for x in [seller.company, ", ".join(seller.address_lines()), reach] if x.strip())


def seller_line(seller) -> str:
    """The seller in one line for every page's footer ("" without a seller)."""
    if seller.empty:
        return ""
    parts = [seller.company, ", ".join(seller.address_lines()), seller.email or seller.phone,
             f"tax id {seller.tax_id}" if seller.tax_id else ""]
    return " · ".join(p for p in parts if p.strip())


def logo(path: str) -> tuple:
    """(image, width, height in points) of the seller's logo scaled into LOGO_W x LOGO_H, for the cover's band;
    an ExportError naming the file when it cannot be read. A PNG or JPEG is an ImageReader; an SVG is a
    reportlab Drawing, already scaled, which the page draws as vectors."""
    if path.lower().endswith(".svg"):
        return svg_logo(path)
    from reportlab.lib.utils import ImageReader

    try:
        image = ImageReader(path)
        width, height = image.getSize()
    except Exception as exc:  # reportlab raises what PIL raises: any unreadable image
        raise ExportError(f"the seller's logo {path[-80:]!r} cannot be read as an image ({str(exc)[:80]})") from None
    scale = min(LOGO_H / height, LOGO_W / width) if width and height else 1.0
    return image, width * scale, height * scale


#: an SVG logo larger than this is refused: a logo is a few kilobytes, and svglib holds the whole tree in memory
SVG_MAX_BYTES = 4 * 1024 * 1024


def svg_logo(path: str) -> tuple:
    """(drawing, width, height in points) of an SVG logo scaled into LOGO_W x LOGO_H, its proportions kept.

    reportlab reads no SVG: svglib turns it into a reportlab Drawing, which stays vector in the PDF. A file
    too large, unreadable, not SVG, or of no size is an ExportError naming it; files it refers to outside its
    own folder are not read."""
    import logging
    import math
    import os

    name = repr(path[-80:])
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise ExportError(f"the seller's logo {name} cannot be read ({exc.strerror or exc})") from None
    if size > SVG_MAX_BYTES:
        raise ExportError(f"the seller's logo {name} is {size / 1024 / 1024:.1f} MB; an SVG logo may be at most "
                          f"{SVG_MAX_BYTES // (1024 * 1024)} MB")
    from svglib.svglib import svg2rlg

    quiet = logging.getLogger("svglib.svglib")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # its complaints go into the ExportError, not onto the console
    try:
        drawing = svg2rlg(path, external_reference_root=os.path.dirname(os.path.abspath(path)))
    except Exception as exc:  # svglib raises what lxml and its own parsers raise on a broken file
        raise ExportError(f"the seller's logo {name} cannot be read as an SVG drawing "
                          f"({type(exc).__name__}: {str(exc)[:80]})") from None
    finally:
        quiet.setLevel(level)
    width, height = (getattr(drawing, "width", 0), getattr(drawing, "height", 0)) if drawing is not None else (0, 0)
    if drawing is None or not drawing.contents:
        raise ExportError(f"the seller's logo {name} cannot be read as an SVG drawing (no drawing in it)")
    if not (isinstance(width, int | float) and isinstance(height, int | float) and math.isfinite(width)
            and math.isfinite(height) and width > 0 and height > 0):
        raise ExportError(f"the seller's logo {name} has no size (give the SVG a width and height or a viewBox)")
    scale = min(LOGO_H / height, LOGO_W / width)
    drawing.scale(scale, scale)
    drawing.width, drawing.height = width * scale, height * scale
    return drawing, width * scale, height * scale


def description(quote: Quote) -> str:
    """The project's description as the cover's subtitle markup, with a line break after it ("" when it has
    none): cut to DESCRIPTION_LINES lines with an ellipsis and a note of how much of it is printed."""
    desc = quote.project.description.strip()
    if not desc:
        return ""
    style = quote.s["CoverSub"]
    shown, kept = clip_counted(desc, style.fontName, style.fontSize,
                               lines_room(CONTENT_W, DESCRIPTION_LINES, style.fontSize))
    note = ""
    if kept is not None:
        note = f' <font size="8">(shortened: the first {number(kept)} of its {number(len(desc))} characters)</font>'

    return quote.t(shown) + note + "<br/>"


def error_box(quote: Quote) -> Table:
    """A design with errors: how many, the first by place, in a red-ruled box under the title."""
    e = quote.errors
    red = "#" + st.SEVERITY_COLOURS["error"].hexval()[2:]
    lines = [quote.p(f'<font name="{st.BOLD}" color="{red}">' + quote.t(
        f"Draft: {e.phrase}. Not for signature until they are corrected.") + "</font>",
        "CoverLabel")]
    lines += [quote.p(quote.t(line), "Small") for line in e.listing().splitlines()]
    t = Table([[lines]], colWidths=[CONTENT_W])
    t.setStyle(table_style([("BOX", (0, 0), (-1, -1), 1.2, st.SEVERITY_COLOURS["error"]),
                            ("LEFTPADDING", (0, 0), (-1, -1), 8), ("RIGHTPADDING", (0, 0), (-1, -1), 8),
                            ("TOPPADDING", (0, 0), (-1, -1), 6), ("BOTTOMPADDING", (0, 0), (-1, -1), 6)]))
    return t


def total_box(quote: Quote) -> Table:
    """The net total, with every caveat it carries: discount, unpriced lines, indicative share, other
    currencies, and the years of subscriptions in it."""
    b = quote.bom
    lines = [quote.p("Total price (net)", "CoverLabel"),
             quote.p(quote.t(money(b.price_total, quote.cur)), "Figure")]
    if b.discount_total:
        lines.append(quote.p(quote.t(f"{money(b.list_total, quote.cur)} at list price, less "
                                     f"{money(b.discount_total, quote.cur)} discount" if b.discount_total > 0 else
                                     f"{money(b.list_total, quote.cur)} at list price, plus "
                                     f"{money(-b.discount_total, quote.cur)} uplift"), "Small"))
    notes = []
    if b.unpriced:
        notes.append(f"excludes {plural(len(quote.unpriced_lines()), 'unpriced line')}: "
                     + "; ".join(b.unpriced))
    if b.estimated:
        notes.append(f"{percent(b.indicative_share)} of it rests on indicative prices {DAGGER}")
    for cur, amount in b.other_currencies.items():
        notes.append(f"plus {money(amount, cur)} in lines priced in {cur}, not converted and not in the total")
    if b.yearly_total:
        notes.append(f"includes {plural(b.term_years, 'year')} of subscriptions and support "
                     f"({money(b.yearly_total, quote.cur)} per year)")
    for n in notes:
        lines.append(quote.p(quote.t(n), "Small"))
    t = Table([[lines]], colWidths=[CONTENT_W])
    t.setStyle(table_style([("BACKGROUND", (0, 0), (-1, -1), st.ACCENT_LIGHT),
                            ("LINEBEFORE", (0, 0), (0, -1), 3, st.ACCENT),
                            ("LEFTPADDING", (0, 0), (-1, -1), 12), ("TOPPADDING", (0, 0), (-1, -1), 9),
                            ("BOTTOMPADDING", (0, 0), (-1, -1), 9)]))
    return t


def contents(quote: Quote) -> None:
    """The table of contents, filled from the headings of the previous pass."""
    toc = TableOfContents(levelStyles=[quote.s["TOC1"], quote.s["TOC2"]], dotsMinLevel=0,
                          tableStyle=table_style([("VALIGN", (0, 0), (-1, -1), "TOP"),
                                                  ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                                                  ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
    quote.story += [PageBreak(), quote.p("Contents", "H1"), toc]
