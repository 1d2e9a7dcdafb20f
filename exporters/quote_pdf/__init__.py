"""The quote as two PDFs from one analysis: the customer's copy (cover, summary, floor plan, rack elevations,
priced bill, terms and the acceptance block) and the internal technical appendix (the training estimate, cost of
ownership, the seller's margins, engineering detail, findings, and the sources every price and part number rests
on, with their dates).

Everything is read from one analysis, through its typed views; no figure is recomputed here, and
every figure is written by :mod:`designer.formatting`. The bill's lines, subtotals and totals are
printed as the bill engine rounded them, so the PDF, the XLSX and the window agree to the cent.

The package is one module per chapter, each a function of the :class:`~.quote.Quote` being written:
``cover`` (cover, contents), ``summary``, ``bill`` (bill of materials, cost of ownership), ``plan``
(floor plans, rack elevations), ``power_chain`` (power, cooling, fabric), ``goodput`` (checkpoints and
failures, storage), ``terms`` (terms, exclusions, acceptance) and ``appendix`` (findings, assumptions,
sources); :data:`CUSTOMER` and :data:`APPENDIX` list which each document prints, over the shared ``layout`` (document
template, passes, page furniture), ``blocks`` (paragraphs, headings, tables, tiles) and ``text`` (escaping,
marks, dates).
"""
from __future__ import annotations

import io
from typing import TYPE_CHECKING

from catalog.files import write_atomic
from designer.formatting import DECIMALS, count, kw, kw_pair, money, number, percent, quantity

from .. import pdf_style as st
from ..base import ExportError
from .appendix import FIELD_WORDS, MAX_FINDINGS, field_words, findings, sources
from .bill import bill, cost_of_ownership
from .changes import MAX_ROWS, changes, earlier_analysis
from .cover import contents, cover, logo, seller_line
from .margins import margins
from .layout import BOTTOM, CONTENT_W, MARGIN_X, PAGE_H, PAGE_W, TOP, QuoteDoc
from .plan import ELEVATION_H, MAX_ELEVATIONS, MAX_HALLS, elevations, floor_plan
from .power_chain import MAX_CDU_LOOPS, MAX_POWER_ROWS, engineering
from .quote import Quote
from .summary import summary
from .terms import terms
from .text import (
    DAGGER,
    DOUBLE_DAGGER,
    INDICATIVE,
    SECTION_MARK,
    cell,
    derived_quote_number,
    keep_units,
    long_date,
    percent_typed,
    plural,
)

if TYPE_CHECKING:
    from designer.analysis import Analysis

#: The customer's copy's chapters in the order they are printed; each appends to the quote's story.
CUSTOMER = (cover, contents, summary, floor_plan, elevations, bill, changes, terms)
#: The internal technical appendix's chapters: everything the customer's copy leaves out.
APPENDIX = (cover, contents, summary, cost_of_ownership, margins, changes, engineering, findings, sources)
#: (``changes`` prints "Changes since revision X" only when the quote is given an earlier revision's analysis)


def build(quote: Quote) -> tuple[bytes, int]:
    """The PDF of ``quote`` (the customer's copy, or the appendix when ``quote.internal``) and its pages."""
    buf = io.BytesIO()
    q = quote.project.quote
    kind = "Technical appendix" if quote.internal else "Quotation"
    doc = QuoteDoc(buf, quote.pages, project=quote.name, quote_number=quote.number, currency=quote.cur,
                   valid_until=long_date(quote.valid_until), title=f"{kind} {quote.number}: {quote.name}",
                   author=q.seller.company or q.prepared_by or "PodPlanner", kind=kind,
                   seller=seller_line(q.seller), logo=logo(q.seller.logo) if q.seller.logo else None,
                   revision=q.revision, errors=error_band(quote.errors))
    quote.story = [quote.pages]  # first, so that it hears the page count of every pass
    for chapter in APPENDIX if quote.internal else CUSTOMER:
        chapter(quote)
    doc.multiBuild(quote.story, maxPasses=6)
    return buf.getvalue(), doc.pages.total or doc.page


def error_band(errors) -> str:
    """The words of the red band on every page of a design with errors ("" without)."""
    if not errors:
        return ""
    return (f"DRAFT: {errors.phrase}. Not for signature until they are "
            "corrected (see the first page)")


def _write(analysis: Analysis, path, *, internal: bool, since: Analysis | None = None) -> str:
    st.register_fonts()
    if not analysis.has("bom") or not analysis.bom.lines:
        raise ExportError("the design's bill of materials has no lines: place racks and devices first")
    quote = Quote(analysis, internal=internal, since=since)
    data, pages = build(quote)
    write_atomic(path, data)
    if internal:
        return f"{plural(len(analysis.findings), 'finding')}, {plural(pages, 'page')}"
    return f"{plural(quote.bom.lines, 'line')}, {plural(pages, 'page')}"


def write_quote_pdf(analysis: Analysis, path, *, since: Analysis | None = None) -> str:
    """Write the customer's quote for ``analysis`` to ``path`` (PDF); returns what it wrote in words. With
    ``since`` (the analysis of an earlier revision's design) it holds a page of what changed in the bill."""
    return _write(analysis, path, internal=False, since=since)


def write_appendix_pdf(analysis: Analysis, path, *, since: Analysis | None = None) -> str:
    """Write the internal technical appendix of the quote for ``analysis`` to ``path`` (PDF), with the page of
    changes since an earlier revision when ``since`` is given."""
    return _write(analysis, path, internal=True, since=since)


#: The names this module had before it became a package, all still importable from here.
__all__ = ["BOTTOM", "CONTENT_W", "DAGGER", "DECIMALS", "DOUBLE_DAGGER", "ELEVATION_H", "FIELD_WORDS", "INDICATIVE",
           "MARGIN_X", "MAX_CDU_LOOPS", "MAX_ELEVATIONS", "MAX_FINDINGS", "MAX_HALLS", "MAX_POWER_ROWS", "PAGE_H",
           "PAGE_W", "SECTION_MARK", "TOP", "cell", "count", "derived_quote_number", "field_words", "keep_units", "kw",
           "kw_pair", "long_date", "money", "number", "percent", "percent_typed", "plural", "quantity",
           "write_appendix_pdf", "write_quote_pdf"]
#: and the page of changes since an earlier revision
__all__ += ["MAX_ROWS", "earlier_analysis"]
