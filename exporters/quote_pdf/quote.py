"""One quote being written: the analysis it is of, the bill and cost it prices, its number and dates.

The chapters (cover, summary, bill, power_chain, plan, appendix) are functions of a :class:`Quote`;
they read every figure through the analysis's typed views (``quote.bom.price_total``,
``quote.optional("power")``), never by key, so a misspelt figure fails where it is read and one
an engine stopped writing fails as a ViewError instead of printing 0.
"""
from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from designer.compare_bill import bill_changes
from designer.design_errors import design_errors
from designer.names import PROJECT_PLACES, Namer
from designer.quote_settings import QuoteError, parse_date
from designer.views import BomLine

from ..base import ExportError
from ..pdf_text import clip
from .blocks import Blocks
from .layout import CONTENT_W, PageCount
from .text import derived_quote_number, lines_room

#: The project's name is cut to this many lines of the cover's title (and is printed so everywhere).
TITLE_LINES = 3

if TYPE_CHECKING:
    from designer.analysis import Analysis


class Quote(Blocks):
    """The state every chapter shares, and the story they write into."""

    def __init__(self, analysis: Analysis, *, internal: bool = False, since: Analysis | None = None):
        super().__init__()
        #: the internal technical appendix (findings, training, sources) rather than the customer's copy
        self.internal = internal
        if analysis.project is None or analysis.catalog is None:
            raise ExportError("the analysis holds no design to quote (it was made without its project and catalog)")
        for key in ("bom", "cost"):
            if not analysis.has(key):
                raise ExportError(f"the analysis has no {PROJECT_PLACES.get(key, key).lower()} to quote")
        self.a, self.project, self.catalog = analysis, analysis.project, analysis.catalog
        title = self.s["CoverTitle"]
        #: the project's name as the quote prints it: cut to the cover title's lines
        self.name = clip(self.project.name, title.fontName, title.fontSize,
                         lines_room(CONTENT_W, TITLE_LINES, title.fontSize))
        # the findings' places, named as the window's findings panel names them
        self.namer = Namer(self.project, self.catalog)
        #: the design's error findings: a red band on every page and their list on the cover
        self.errors = design_errors(analysis)
        self.bom, self.cost = analysis.bom, analysis.cost
        self.cur = self.bom.currency
        q = self.project.quote
        try:
            self.on = parse_date(q.quote_date, "quote date") if q.quote_date else parse_date(self.bom.as_of, "as of")
        except QuoteError as exc:
            raise ExportError(str(exc)) from None
        self.valid_until = self.on + timedelta(days=q.validity_days)
        self.number = q.quote_number.strip() or derived_quote_number(self.project.name, self.on)
        self.number_derived = not q.quote_number.strip()
        self.pages = PageCount()
        #: the analysis of an earlier revision's design, and what changed in the bill since (None without one)
        self.since = since
        self.changes = None
        if since is not None:
            if not since.has("bom"):
                raise ExportError("the earlier revision's design has no bill of materials to compare with")
            self.changes = bill_changes(since, analysis)

    def optional(self, section: str) -> Any:
        """The typed view of a section the quote prints only when its engine ran (an analysis made with some
        engines left out has no power or training section); None when it did not. Read through the view, a
        section that is there but lacks a figure is a ViewError, never a figure printed as 0."""
        return getattr(self.a, section) if self.a.has(section) else None

    def name_of(self, type_id: str) -> str:
        """A catalog part's name as people read it; its id when the catalog no longer has it."""
        dev = self.catalog.find(type_id)
        return dev.name if dev is not None else type_id

    def unpriced_lines(self) -> list[BomLine]:
        """The bill's lines without a price: every total leaves them out and says so."""
        return [ln for sec in self.bom.sections for ln in sec.lines if ln.unit_price is None]
