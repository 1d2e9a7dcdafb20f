"""The customer's quote as a PDF: cover, summary, floor plan, rack elevations, priced bill, cost of ownership,
engineering detail, findings, and the sources every price and part number rests on.

Everything is read from one analysis, through its typed views; no figure is recomputed here, and
every figure is written by :mod:`designer.formatting`. The bill's lines, subtotals and totals are
printed as the bill engine rounded them, so the PDF, the XLSX and the window agree to the cent.

The package is one module per chapter, each a function of the :class:`~.quote.Quote` being written:
``cover`` (cover, contents), ``summary``, ``bill`` (bill of materials, cost of ownership), ``plan``
(floor plans, rack elevations), ``power_chain`` (power, cooling, fabric), ``goodput`` (checkpoints and
failures, storage) and ``appendix`` (findings, assumptions, sources), over the shared ``layout`` (document
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
from .cover import contents, cover
from .layout import BOTTOM, CONTENT_W, MARGIN_X, PAGE_H, PAGE_W, TOP, QuoteDoc
from .plan import ELEVATION_H, MAX_ELEVATIONS, MAX_HALLS, elevations, floor_plan
from .power_chain import MAX_CDU_LOOPS, MAX_POWER_ROWS, engineering
from .quote import Quote
from .summary import summary
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

#: The chapters in the order they are printed; each appends to the quote's story.
CHAPTERS = (cover, contents, summary, floor_plan, elevations, bill, cost_of_ownership, engineering, findings,
            sources)


def build(quote: Quote) -> tuple[bytes, int]:
    """The PDF of ``quote`` and its number of pages."""
    buf = io.BytesIO()
    q = quote.project.quote
    doc = QuoteDoc(buf, quote.pages, project=quote.name, quote_number=quote.number, currency=quote.cur,
                   valid_until=long_date(quote.valid_until), title=f"Quotation {quote.number}: {quote.name}",
                   author=q.prepared_by or "PodPlanner")
    quote.story = [quote.pages]  # first, so that it hears the page count of every pass
    for chapter in CHAPTERS:
        chapter(quote)
    doc.multiBuild(quote.story, maxPasses=6)
    return buf.getvalue(), doc.pages.total or doc.page


def write_quote_pdf(analysis: Analysis, path) -> str:
    """Write the quote for ``analysis`` to ``path`` (PDF); returns what it wrote in words."""
    st.register_fonts()
    if not analysis.has("bom") or not analysis.bom.lines:
        raise ExportError("the design's bill of materials has no lines: place racks and devices first")
    quote = Quote(analysis)
    data, pages = build(quote)
    write_atomic(path, data)
    return f"{plural(quote.bom.lines, 'line')}, {plural(pages, 'page')}"


#: The names this module had before it became a package, all still importable from here.
__all__ = ["BOTTOM", "CONTENT_W", "DAGGER", "DECIMALS", "DOUBLE_DAGGER", "ELEVATION_H", "FIELD_WORDS", "INDICATIVE",
           "MARGIN_X", "MAX_CDU_LOOPS", "MAX_ELEVATIONS", "MAX_FINDINGS", "MAX_HALLS", "MAX_POWER_ROWS", "PAGE_H",
           "PAGE_W", "SECTION_MARK", "TOP", "cell", "count", "derived_quote_number", "field_words", "keep_units", "kw",
           "kw_pair", "long_date", "money", "number", "percent", "percent_typed", "plural", "quantity",
           "write_quote_pdf"]
