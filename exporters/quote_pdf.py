"""The customer's quote as a PDF: cover, summary, floor plan, rack elevations, priced bill, cost of ownership,
engineering detail, findings, and the sources every price and part number rests on.

Everything is read from one analysis; no figure is recomputed here. The bill's lines,
subtotals and totals are printed as the bill engine rounded them, so the PDF, the
XLSX and the window agree to the cent. A line without a price says "no price" and
every total says what it leaves out; an indicative price carries a dagger.

The document is built with platypus in passes: the first lays it out and collects the
headings and the page count, the next prints the table of contents and "page N of M"
from them; it repeats only while either changed.
"""
from __future__ import annotations

import io
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from datetime import date, timedelta
from functools import cached_property
from typing import TYPE_CHECKING

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)
from reportlab.platypus.doctemplate import IndexingFlowable
from reportlab.platypus.tableofcontents import TableOfContents

from catalog.files import write_atomic
from catalog.records import EVIDENCE
from designer.formatting import DECIMALS, count, kw, kw_pair, money, number, percent, quantity
from designer.names import PROJECT_PLACES, Namer, cdu_unit_name
from designer.quote.settings import QuoteError, parse_date
from designer.views import BomLine, BomSection, PowerView, RowPower
from designer.views.base import require

from . import pdf_style as st
from .base import ExportError
from .elevation_drawing import elevation_drawing, short_name
from .plan_drawing import plan_drawing

if TYPE_CHECKING:
    from designer.analysis import Analysis

PAGE_W, PAGE_H = A4
MARGIN_X = 40.0
TOP = 62.0
BOTTOM = 54.0
CONTENT_W = PAGE_W - 2 * MARGIN_X
#: At most this many rack builds get an elevation (the most common first), halls a plan, findings a row.
MAX_ELEVATIONS = 12
MAX_HALLS = 12
MAX_FINDINGS = 200
#: Above this many rows of racks the power table lists the most loaded ones only.
MAX_POWER_ROWS = 120
MAX_CDU_LOOPS = 60
#: Height of one rack elevation: two side by side fill a page with their captions.
ELEVATION_H = 560.0
DAGGER, DOUBLE_DAGGER, SECTION_MARK = "†", "‡", "§"
INDICATIVE = "indicative: press, third-party or planning estimate"
FIELD_WORDS = {"price.amount": "price", "part_number": "part number", "power_typical_w": "typical power",
               "power_max_w": "maximum power", "weight_kg": "weight", "u_height": "height in U",
               "airflow_cfm": "airflow", "width_mm": "width", "depth_mm": "depth", "height_mm": "height",
               "liquid_fraction": "liquid-cooled share", "cooling_capacity_kw": "cooling capacity",
               "flow_lpm": "coolant flow", "max_load_kg": "rated load", "reach_m": "reach"}


def field_words(key: str) -> str:
    """A catalog figure's key in words: ``power_typical_w`` -> "typical power", ``ports[1].count`` -> "ports"."""
    if key in FIELD_WORDS:
        return FIELD_WORDS[key]
    if key.startswith("ports["):
        return "ports"
    if key.startswith("psu."):
        return "power supplies"
    if key.startswith("gpu_spec"):
        return "GPU figures"
    words = re.sub(r"_(w|kw|mm|kg|gbps|cfm|lpm|m|v|a)$", "", key.split(".")[-1])
    return words.replace("_", " ")


# -- formatting -------------------------------------------------------------------------------------------
# Every figure in the quote is written by designer.formatting, so the PDF, the window and the CLI print one
# figure alike (decimals per unit, half up, thousands separators, "58 %"). The names below stay importable
# from here as they were; ``plural`` is the formatter's ``count``.
plural = count


def cell(x: float | None, unit: str) -> str:
    """A figure in a table column whose header names the unit ("Load (kW)"): the unit's decimals, no unit."""
    return number(x, DECIMALS[unit])


def percent_typed(x: float) -> str:
    """A percentage as the user set it (a discount of 12.5, spares of 2): its decimal only when it has one."""
    return percent(x / 100, 1 if x % 1 else 0)


def long_date(d: date) -> str:
    return f"{d.day} {d:%B %Y}"


_UNIT_AFTER_NUMBER = re.compile(r"(\d) (m|mm|kW|W|U|GB|TB|A|V|kVA)\b")


def keep_units(text: str) -> str:
    """A number and its unit joined by a no-break space, so "20 m" never wraps into "20" and "m"."""
    return _UNIT_AFTER_NUMBER.sub("\\1\u00a0\\2", text)


def derived_quote_number(name: str, on: date) -> str:
    """A quote number from the project name and date when none is set: ``Q-20261203-DGXB200S1SU``."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()  # "Zürich" -> "Zurich"
    parts = re.findall(r"[A-Za-z0-9]+", ascii_name)
    slug = "".join(p.upper() if (p.isupper() or any(c.isdigit() for c in p) or len(parts) == 1) else p[0].upper()
                   for p in parts)
    return f"Q-{on:%Y%m%d}-{slug[:16] or 'DESIGN'}"


# -- document machinery -----------------------------------------------------------------------------------
class _Heading(Paragraph):
    """A heading the table of contents and the PDF outline list."""

    def __init__(self, text: str, style, level: int, key: str):
        super().__init__(text, style)
        self.toc_level, self.toc_key = level, key


class _PageCount(IndexingFlowable):
    """Counts the pages of a pass, so the next pass can print "page N of M"; satisfied once M holds."""

    def __init__(self):
        super().__init__()
        self.total: int | None = None
        self._counted: int | None = None
        self._steady = False

    def beforeBuild(self):
        self._counted = None

    def notify(self, kind, stuff):
        if kind == "PageCount":
            self._counted = stuff

    def afterBuild(self):
        self._steady = self._counted == self.total
        self.total = self._counted

    def isSatisfied(self):
        return self._steady

    def wrap(self, availWidth, availHeight):
        return 0, 0

    def draw(self):
        """Nothing to draw: this zero-size flowable only listens for the page count."""


class _QuoteDoc(BaseDocTemplate):
    def __init__(self, buf, pages: _PageCount, *, project: str, quote_number: str, currency: str, valid_until: str,
                 title: str, author: str):
        super().__init__(buf, pagesize=A4, leftMargin=MARGIN_X, rightMargin=MARGIN_X, topMargin=TOP,
                         bottomMargin=BOTTOM, title=title, author=author, subject=f"Quotation {quote_number}",
                         creator="PodPlanner", initialFontName=st.FONT, initialFontSize=9)
        self.project, self.quote_number = st.printable(project), st.printable(quote_number)
        self.currency, self.valid_until = currency, valid_until
        self.pages = pages
        body = Frame(MARGIN_X, BOTTOM, CONTENT_W, PAGE_H - TOP - BOTTOM, id="body", leftPadding=0, rightPadding=0,
                     topPadding=0, bottomPadding=0)
        cover = Frame(MARGIN_X, BOTTOM, CONTENT_W, PAGE_H - 190 - BOTTOM, id="cover", leftPadding=0,
                      rightPadding=0, topPadding=0, bottomPadding=0)
        self.addPageTemplates([PageTemplate("cover", [cover], onPage=self._cover_page),
                               PageTemplate("body", [body], onPage=self._body_page)])

    def afterFlowable(self, flowable):
        if isinstance(flowable, _Heading):
            text = flowable.getPlainText()
            self.canv.bookmarkPage(flowable.toc_key)
            self.canv.addOutlineEntry(text, flowable.toc_key, level=flowable.toc_level, closed=True)
            self.notify("TOCEntry", (flowable.toc_level, st.para_text(text), self.page, flowable.toc_key))

    def afterPage(self):
        self.notify("PageCount", self.page)

    # -- page furniture ---------------------------------------------------------------------------
    def _footer(self, c) -> None:
        y = BOTTOM - 26
        c.saveState()
        c.setStrokeColor(st.RULE)
        c.setLineWidth(0.5)
        c.line(MARGIN_X, y + 12, PAGE_W - MARGIN_X, y + 12)
        c.setFont(st.FONT, 7)
        c.setFillColor(st.MUTED)
        c.drawString(MARGIN_X, y, f"Prices in {self.currency}, excluding tax and shipping")
        c.drawCentredString(PAGE_W / 2, y, f"Valid until {self.valid_until}")
        total = self.pages.total
        c.drawRightString(PAGE_W - MARGIN_X, y, f"Page {self.page} of {total}" if total else f"Page {self.page}")
        c.restoreState()

    def _body_page(self, c, doc) -> None:
        c.saveState()
        y = PAGE_H - TOP + 22
        c.setFont(st.BOLD, 7.6)
        c.setFillColor(st.ACCENT)
        # a long quote number gets at most half the line: the project name keeps the other half
        right = _clip(f"Quote {self.quote_number}", st.FONT, 7.6, CONTENT_W / 2 - 12)
        room = CONTENT_W - c.stringWidth(right, st.FONT, 7.6) - 24
        c.drawString(MARGIN_X, y, _clip(self.project, st.BOLD, 7.6, room))
        c.setFont(st.FONT, 7.6)
        c.setFillColor(st.MUTED)
        c.drawRightString(PAGE_W - MARGIN_X, y, right)
        c.setStrokeColor(st.ACCENT)
        c.setLineWidth(0.8)
        c.line(MARGIN_X, y - 6, PAGE_W - MARGIN_X, y - 6)
        c.restoreState()
        self._footer(c)

    def _cover_page(self, c, doc) -> None:
        c.saveState()
        c.setFillColor(st.ACCENT)
        c.rect(0, PAGE_H - 150, PAGE_W, 150, stroke=0, fill=1)
        c.setFillColor(st.WHITE)
        c.setFont(st.BOLD, 30)
        c.drawString(MARGIN_X, PAGE_H - 88, "Quotation")
        c.setFont(st.FONT, 8)
        tagline = "AI datacenter design and bill of materials"
        c.drawRightString(PAGE_W - MARGIN_X, PAGE_H - 112, tagline)
        c.setFont(st.FONT, 11)
        room = CONTENT_W - c.stringWidth(tagline, st.FONT, 8) - 24
        c.drawString(MARGIN_X, PAGE_H - 112, _clip(f"No. {self.quote_number}", st.FONT, 11, room))
        c.restoreState()
        self._footer(c)


def _style(commands: list) -> TableStyle:
    """A table style that sets the embedded font first: a table's own default is Helvetica, which it sets on
    the canvas even where every cell is a paragraph, and which would then sit unembedded in the PDF."""
    return TableStyle([("FONT", (0, 0), (-1, -1), st.FONT, 7.5)] + list(commands))


def _clip(text: str, font: str, size: float, room: float) -> str:
    if stringWidth(text, font, size) <= room:
        return text
    while text and stringWidth(text + "…", font, size) > room:
        text = text[:-1]
    return text + "…"


class _Deferred(Flowable):
    """A drawing that is laid out in every pass but drawn only once the page count is known: the first pass
    only collects headings and pages, and a 12,500-rack plan costs a quarter of a second to draw."""

    def __init__(self, drawing, pages: _PageCount):
        super().__init__()
        self.drawing, self.pages = drawing, pages

    def wrap(self, availWidth, availHeight):
        self.width, self.height = self.drawing.width, self.drawing.height
        return self.width, self.height

    def draw(self):
        if self.pages.total is not None:
            self.drawing.drawOn(self.canv, 0, 0)


class _PlanFlowable(Flowable):
    """A hall plan drawn for the room left on the page (at a standard scale), or moved to the next page
    when less than ``min_height`` is left; like :class:`_Deferred`, not drawn in the first pass."""

    def __init__(self, analysis: Analysis, hall_id: str, colour_by: str, pages: _PageCount,
                 min_height: float = 320.0, max_height: float = 760.0):
        super().__init__()
        self.analysis, self.hall_id, self.colour_by, self.pages = analysis, hall_id, colour_by, pages
        self.min_height, self.max_height = min_height, max_height
        self._cache: dict[tuple[float, float], object] = {}
        self.drawing = None

    def wrap(self, availWidth, availHeight):
        if availHeight < self.min_height:
            return availWidth, self.min_height
        # rounded down: a drawing a hundredth of a point taller than the room left goes to the next page
        key = (math.floor(availWidth * 10) / 10, math.floor(min(availHeight, self.max_height) * 10) / 10)
        if key not in self._cache:
            self._cache[key] = plan_drawing(self.analysis, self.hall_id, width=key[0], height=key[1] - 2,
                                            colour_by=self.colour_by)
        self.drawing = self._cache[key]
        self.width, self.height = self.drawing.width, self.drawing.height + 2
        return self.width, self.height

    def draw(self):
        if self.pages.total is not None:
            self.drawing.drawOn(self.canv, 0, 0)


# -- the quote ----------------------------------------------------------------------------------------------
def _optional(analysis: Analysis, section: str):
    """The typed view of a section the quote prints only when its engine ran (an analysis made with some
    engines left out has no power or training section); None when it did not. Read through the view, a
    section that is there but lacks a figure is a ViewError, never a figure printed as 0."""
    return getattr(analysis, section) if section in analysis.sections else None


class _Quote:
    def __init__(self, analysis: Analysis):
        if analysis.project is None or analysis.catalog is None:
            raise ExportError("the analysis holds no design to quote (it was made without its project and catalog)")
        for key in ("bom", "cost"):
            if key not in analysis.sections:
                raise ExportError(f"the analysis has no {PROJECT_PLACES.get(key, key).lower()} to quote")
        self.a, self.project, self.catalog = analysis, analysis.project, analysis.catalog
        # the findings' places, named as the window's findings panel names them
        self.namer = Namer(self.project, self.catalog)
        self.bom, self.cost = analysis.bom, analysis.cost
        self.s = st.styles()
        self.cur = self.bom.currency
        q = self.project.quote
        try:
            self.on = parse_date(q.quote_date, "quote date") if q.quote_date else parse_date(self.bom.as_of, "as of")
        except QuoteError as exc:
            raise ExportError(str(exc)) from None
        self.valid_until = self.on + timedelta(days=q.validity_days)
        self.number = q.quote_number.strip() or derived_quote_number(self.project.name, self.on)
        self.number_derived = not q.quote_number.strip()
        self._keys = 0
        self.pages = _PageCount()
        self.story: list = []

    # -- small builders -----------------------------------------------------------------------------
    def p(self, text: str, style: str = "Body") -> Paragraph:
        """A paragraph of markup this module wrote (data inside it already passed through ``t``)."""
        return Paragraph(text, self.s[style])

    @staticmethod
    def t(text: object) -> str:
        """Data as paragraph text: printable, markup escaped."""
        return st.para_text(text)

    def heading(self, text: str, level: int = 0) -> _Heading:
        self._keys += 1
        return _Heading(self.t(text), self.s["H1" if level == 0 else "H2"], level, f"h{self._keys}")

    def minor(self, text: str, room: float = 90.0) -> list:
        """A small heading over a table, on a new page unless ``room`` points are left."""
        return [CondPageBreak(room), self.p(self.t(text), "H3")]

    def subheading(self, text: str, room: float = 120.0) -> list:
        """A level-2 heading that starts a new page unless ``room`` points are left for what follows it
        (not kept with it: a long table after it must be free to split)."""
        return [CondPageBreak(room), self.heading(text, 1)]

    def chapter(self, title: str) -> None:
        self.story += [PageBreak(), self.heading(title, 0)]

    def table(self, rows: list[list], widths: list[float], *, head: int = 1, numeric: Iterable[int] = (),
              extra: list | None = None, zebra: bool = True) -> Table:
        """A table of paragraphs: header rows repeated on every page, rules between rows, numbers right."""
        numeric = set(numeric)
        cells = []
        for r, row in enumerate(rows):
            out = []
            for c, cell in enumerate(row):
                if isinstance(cell, (str, int, float)) or cell is None:
                    text = "" if cell is None else str(cell)
                    if r < head:
                        style = "CellHeadRight" if c in numeric else "CellHead"
                        out.append(Paragraph(self.t(text), self.s[style]))
                    elif c in numeric:
                        # a figure never wraps, and the table draws a plain string far faster than a paragraph
                        out.append(st.printable(text))
                    else:
                        out.append(Paragraph(self.t(text), self.s["Cell"]))
                else:
                    out.append(cell)
            cells.append(out)
        t = Table(cells, colWidths=widths, repeatRows=head)
        style = [("TEXTCOLOR", (0, 0), (-1, -1), st.TEXT), ("LEADING", (0, 0), (-1, -1), 9.2)]
        style += [("ALIGN", (c, 0), (c, -1), "RIGHT") for c in sorted(numeric)]
        style += [("VALIGN", (0, 0), (-1, -1), "TOP"),
                  ("LEFTPADDING", (0, 0), (-1, -1), 3.5), ("RIGHTPADDING", (0, 0), (-1, -1), 3.5),
                  ("TOPPADDING", (0, 0), (-1, -1), 2.6), ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
                  ("LINEBELOW", (0, 0), (-1, -1), 0.35, st.RULE)]
        if head:
            style += [("BACKGROUND", (0, 0), (-1, head - 1), st.ACCENT_LIGHT),
                      ("LINEBELOW", (0, head - 1), (-1, head - 1), 0.8, st.ACCENT),
                      ("VALIGN", (0, 0), (-1, head - 1), "BOTTOM")]
        if zebra and len(cells) > head + 2:
            style.append(("ROWBACKGROUNDS", (0, head), (-1, -1), [st.WHITE, st.ZEBRA]))
        t.setStyle(_style(style + (extra or [])))
        return t

    def pairs(self, rows: list[tuple[str, str]], widths=(190.0, CONTENT_W - 190.0)) -> Table:
        """A two-column table of label and value (no header)."""
        cells = [[Paragraph(self.t(k), self.s["Cell"]), Paragraph(self.t(v), self.s["CellBold"])] for k, v in rows]
        t = Table(cells, colWidths=list(widths))
        t.setStyle(_style([("VALIGN", (0, 0), (-1, -1), "TOP"),
                           ("LEFTPADDING", (0, 0), (-1, -1), 3.5), ("RIGHTPADDING", (0, 0), (-1, -1), 3.5),
                           ("TOPPADDING", (0, 0), (-1, -1), 2.6), ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
                           ("LINEBELOW", (0, 0), (-1, -1), 0.35, st.RULE)]))
        return t

    def name_of(self, type_id: str) -> str:
        dev = self.catalog.find(type_id)
        return dev.name if dev is not None else type_id

    # -- the document ------------------------------------------------------------------------------------
    def build(self) -> tuple[bytes, int]:
        buf = io.BytesIO()
        q = self.project.quote
        doc = _QuoteDoc(buf, self.pages, project=self.project.name, quote_number=self.number, currency=self.cur,
                        valid_until=long_date(self.valid_until), title=f"Quotation {self.number}: {self.project.name}",
                        author=q.prepared_by or "PodPlanner")
        self.story = [self.pages]
        self.cover()
        self.contents()
        self.summary()
        self.floor_plan()
        self.elevations()
        self.bill()
        self.cost_of_ownership()
        self.engineering()
        self.findings()
        self.sources()
        doc.multiBuild(self.story, maxPasses=6)
        return buf.getvalue(), doc.pages.total or doc.page

    # -- cover ---------------------------------------------------------------------------------------------
    def cover(self) -> None:
        q, s, summ = self.project.quote, self.story, self.a.summary
        s.append(self.p(self.t(self.project.name), "CoverTitle"))
        desc = self.project.description.strip()
        line = f"{number(summ.gpus)} GPUs in {plural(summ.racks, 'rack')}"
        if summ.halls != 1:
            line += f" across {plural(summ.halls, 'hall')}"
        s.append(self.p(self.t(desc) + "<br/>" + self.t(line) if desc else self.t(line), "CoverSub"))
        rows = [("Customer", q.customer.strip() or "To be confirmed", ""),
                ("Prepared by", q.prepared_by.strip() or "PodPlanner", ""),
                ("Quote number", self.number, "derived from the project name and date" if self.number_derived else ""),
                ("Quote date", long_date(self.on), "" if q.quote_date else "prices as of this date"),
                ("Valid until", long_date(self.valid_until), f"{q.validity_days} days from the quote date"),
                ("Currency", self.cur, "all prices exclude tax and shipping")]
        cells = []
        for label, value, note in rows:
            v = self.t(value) + (f'<br/><font name="{st.FONT}" size="7" color="#5C6673">{self.t(note)}</font>'
                                 if note else "")
            cells.append([self.p(self.t(label), "CoverLabel"), self.p(v, "CoverValue")])
        t = Table(cells, colWidths=[110, CONTENT_W - 110])
        t.setStyle(_style([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LINEBELOW", (0, 0), (-1, -1), 0.4, st.RULE),
                               ("TOPPADDING", (0, 0), (-1, -1), 6), ("BOTTOMPADDING", (0, 0), (-1, -1), 6),
                               ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
        s += [t, Spacer(1, 26)]
        s.append(self.total_box())
        s += [Spacer(1, 16), self.p(
            "This quotation is generated from the design by PodPlanner. Quantities are counted from the placed "
            "equipment and the computed fabric; prices marked " + DAGGER + " are indicative (press, third-party "
            "or planning estimates) and are to be confirmed by the vendor before ordering.", "Note")]
        s += [NextPageTemplate("body")]

    def total_box(self) -> Table:
        b = self.bom
        lines = [self.p("Total price (net)", "CoverLabel"),
                 self.p(self.t(money(b.price_total, self.cur)), "Figure")]
        if b.discount_total:
            lines.append(self.p(self.t(f"{money(b.list_total, self.cur)} at list price, less "
                                       f"{money(b.discount_total, self.cur)} discount"), "Small"))
        notes = []
        if b.unpriced:
            notes.append(f"excludes {plural(len(self.unpriced_lines()), 'unpriced line')}: "
                         + "; ".join(b.unpriced))
        if b.estimated:
            notes.append(f"{percent(b.indicative_share)} of it rests on indicative prices {DAGGER}")
        for cur, amount in b.other_currencies.items():
            notes.append(f"plus {money(amount, cur)} in lines priced in {cur}, not converted and not in the total")
        if b.yearly_total:
            notes.append(f"includes {b.term_years} years of subscriptions and support "
                         f"({money(b.yearly_total, self.cur)} per year)")
        for n in notes:
            lines.append(self.p(self.t(n), "Small"))
        t = Table([[lines]], colWidths=[CONTENT_W])
        t.setStyle(_style([("BACKGROUND", (0, 0), (-1, -1), st.ACCENT_LIGHT),
                               ("LINEBEFORE", (0, 0), (0, -1), 3, st.ACCENT),
                               ("LEFTPADDING", (0, 0), (-1, -1), 12), ("TOPPADDING", (0, 0), (-1, -1), 9),
                               ("BOTTOMPADDING", (0, 0), (-1, -1), 9)]))
        return t

    def unpriced_lines(self) -> list[BomLine]:
        return [ln for sec in self.bom.sections for ln in sec.lines if ln.unit_price is None]

    # -- contents ---------------------------------------------------------------------------------------------
    def contents(self) -> None:
        toc = TableOfContents(levelStyles=[self.s["TOC1"], self.s["TOC2"]], dotsMinLevel=0,
                              tableStyle=_style([("VALIGN", (0, 0), (-1, -1), "TOP"),
                                                 ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                                                 ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
        self.story += [PageBreak(), self.p("Contents", "H1"), toc]

    # -- executive summary -------------------------------------------------------------------------------------
    def summary(self) -> None:
        a, summ, s = self.a, self.a.summary, self.story
        training = _optional(a, "training")
        trained = training is not None and training.ok
        self.chapter("Executive summary")
        systems = Counter()
        devices = _optional(a, "devices")
        for type_id, n in (devices.by_type if devices is not None else {}).items():
            dev = self.catalog.find(type_id)
            if dev is not None and (dev.gpu_count or dev.kind == "rack_system"):
                systems[dev.name] += n
        made_of = ", ".join(f"{number(n)} × {name}" for name, n in systems.most_common(3)) or "no GPU systems"
        s.append(self.p(
            f"{self.t(self.project.name)} is a design of <b>{number(summ.gpus)} GPUs</b> ({self.t(made_of)}) in "
            f"{plural(summ.racks, 'rack')} across {plural(summ.halls, 'hall')}. This quote prices its "
            f"{plural(self.bom.lines, 'bill line')} at <b>{self.t(money(self.bom.price_total, self.cur))}</b> "
            f"net{self._total_caveat()}."))
        cost = self.cost
        cards = [
            (number(summ.gpus), "GPUs"),
            (cell(summ.bf16_pflops, "PFLOPS"), "peak PFLOPS, dense BF16"),
            (kw(summ.it_power_max_kw), f"IT power, maximum ({kw(summ.it_power_typical_kw)} typical)"),
            (kw(summ.facility_power_kw), "facility power at maximum draw"),
            (cell(summ.tokens_per_s, "tokens/s") if trained else "–", "tokens per second, training"),
            (quantity(training.time_to_train_days, "days") if trained and training.time_to_train_days else "–",
             "to train the workload"),
            (money(cost.cost_per_gpu_hour, self.cur) if cost.cost_per_gpu_hour is not None else "–",
             "per GPU-hour, cost of ownership"),
            (money(cost.cost_per_million_tokens, self.cur) if cost.cost_per_million_tokens is not None
             else "–", "per million training tokens"),
        ]
        s += [self.cards(cards), Spacer(1, 4)]
        s += self.subheading("Key figures")
        sw = summ.switches
        fabric, power = _optional(a, "fabric"), _optional(a, "power")
        tiers = fabric.tiers if fabric is not None else None
        pue = power.settings.pue if power is not None else 0
        # a fabric without a tree (no compute nodes, or no switch holds them) has no cable length to print
        cable_km = ((fabric.cable_length_total_m if fabric is not None else None) or 0) / 1000
        rows = [
            ("GPUs", number(summ.gpus)),
            ("Peak compute, dense BF16", quantity(summ.bf16_pflops, "PFLOPS")),
            ("IT power, typical / maximum", kw_pair(summ.it_power_typical_kw, summ.it_power_max_kw)),
            ("Facility power at maximum draw", f"{kw(summ.facility_power_kw)} (PUE {pue:g})"),
            ("Heat to liquid / to air", kw_pair(summ.liquid_heat_kw, summ.air_heat_kw)),
            ("Coolant flow", quantity(summ.coolant_flow_lpm, "l/min") if summ.coolant_flow_lpm else
             "none (air-cooled)"),
            ("Compute fabric", (f"{tiers}-tier fat tree of {self.name_of(fabric.switch)}"
                                if tiers else "not built")),
            ("Switches: leaf / spine / core", f"{number(sw.leaf)} / {number(sw.spine)} / {number(sw.core)}"),
            ("Fabric cables", number(summ.cables) + (f" ({quantity(cable_km, 'km')})" if cable_km else "")),
        ]
        floor = _optional(a, "floor")
        if floor is not None:
            rows.append(("Total weight; highest floor load", f"{quantity(floor.total_weight_kg, 'kg')}; "
                                                             f"{quantity(floor.max_load_kg_m2, 'kg/m²')}"))
        if trained:
            rows += [("Training workload", f"{training.model}, {number(training.params_b, 1)} B "
                                           f"parameters, {number(training.tokens / 1e12, 1)} T tokens"),
                     ("Expected throughput", f"{quantity(training.tokens_per_s, 'tokens/s')} "
                                             f"(MFU {percent(training.mfu, 1)})"),
                     ("Days to train", f"{quantity(training.time_to_train_days, 'days')} of compute; "
                                       f"{quantity(training.wall_time_days, 'days')} with failures and checkpoints")]
        else:
            rows.append(("Training estimate", (training.error or training.status) if training is not None
                         else "not available"))
        rows += [("Total price (net)", money(self.bom.price_total, self.cur)
                  + (f", {money(self.bom.list_total, self.cur)} at list" if self.bom.discount_total else ""))]
        if cost.cost_per_gpu_hour is not None:
            rows.append(("Cost per GPU-hour", money(cost.cost_per_gpu_hour, self.cur)))
        if cost.cost_per_million_tokens is not None:
            rows.append(("Cost per million tokens", money(cost.cost_per_million_tokens, self.cur)))
        s.append(self.pairs(rows))
        s += self.subheading("Price by section")
        s.append(self.totals_table())

    def _total_caveat(self) -> str:
        parts = []
        n = len(self.unpriced_lines())
        if n:
            parts.append(f"excluding {plural(n, 'unpriced line')}")
        if self.bom.discount_total:
            parts.append(f"after {self.t(money(self.bom.discount_total, self.cur))} discount")
        return (" (" + "; ".join(parts) + ")") if parts else ""

    def cards(self, cards: list[tuple[str, str]]) -> Table:
        """Headline figures as tiles, four to a row, with a gutter column between them."""
        per_row = 4
        cells, row = [], []
        for value, label in cards:
            # "(394.5 kW typical)" wraps before "typical", never between the figure and its unit
            row.append([self.p(self.t(value), "Figure"), self.p(self.t(keep_units(label)), "FigureLabel")])
            if len(row) == per_row:
                cells.append(row)
                row = []
        if row:
            cells.append(row + [""] * (per_row - len(row)))
        gap = 6
        w = (CONTENT_W - gap * (per_row - 1)) / per_row
        widths = []
        for i in range(per_row):
            widths += [w] + ([gap] if i < per_row - 1 else [])
        spaced = [[c for i, cell in enumerate(r) for c in ([cell, ""] if i < per_row - 1 else [cell])] for r in cells]
        t = Table(spaced, colWidths=widths)
        style = [("VALIGN", (0, 0), (-1, -1), "TOP"), ("TOPPADDING", (0, 0), (-1, -1), 7),
                 ("BOTTOMPADDING", (0, 0), (-1, -1), 8), ("LEFTPADDING", (0, 0), (-1, -1), 8)]
        for r in range(len(spaced)):
            for i in range(per_row):
                style += [("BACKGROUND", (2 * i, r), (2 * i, r), st.ACCENT_LIGHT),
                          ("LINEABOVE", (2 * i, r), (2 * i, r), 2, st.ACCENT)]
        t.setStyle(_style(style))
        return t

    def totals_table(self) -> Table:
        b, cur = self.bom, self.cur
        head = ["Section", f"At list price ({cur})", "Discount", f"Discount ({cur})", f"Net ({cur})"]
        rows = [head]
        for sec in b.sections:
            note = ""
            if sec.unpriced:
                note = f"excludes {plural(sec.unpriced, 'unpriced line')}"
            for c, v in sec.other_currencies.items():
                note += ("; " if note else "") + f"plus {money(v, c)} not converted"
            title = Paragraph(self.t(sec.title) + (f'<br/><font size="6.4" color="#5C6673">{self.t(note)}</font>'
                                                      if note else ""), self.s["Cell"])
            rows.append([title, money(sec.list_subtotal), percent_typed(sec.discount_percent), money(-sec.discount) if sec.discount else "0.00",
                         money(sec.subtotal)])
        n = len(rows)
        unpriced = len(self.unpriced_lines())
        caveat = f", excluding {plural(unpriced, 'unpriced line')}" if unpriced else ""
        rows.append([Paragraph("<b>Total at list price</b>", self.s["Cell"]), "", "", "",
                     Paragraph(self.t(money(b.list_total, cur)), self.s["CellRightBold"])])
        rows.append([Paragraph("<b>Total discount</b>", self.s["Cell"]), "", "", "",
                     Paragraph(self.t(money(-b.discount_total, cur) if b.discount_total else money(0, cur)),
                               self.s["CellRightBold"])])
        rows.append([Paragraph(f"<b>Total (net){self.t(caveat)}</b>", self.s["Cell"]), "", "", "",
                     Paragraph(self.t(money(b.price_total, cur)), self.s["CellRightBold"])])
        extra = [("SPAN", (0, r), (3, r)) for r in range(n, n + 3)]
        extra += [("BACKGROUND", (0, n), (-1, n + 2), st.WHITE), ("BACKGROUND", (0, n + 2), (-1, n + 2), st.TOTAL_FILL),
                  ("LINEABOVE", (0, n), (-1, n), 0.8, st.ACCENT)]
        w = [CONTENT_W - 4 * 88, 88, 60, 88, 116]
        w[0] = CONTENT_W - sum(w[1:])
        return self.table(rows, w, numeric=(1, 2, 3, 4), extra=extra)

    # -- floor plan -------------------------------------------------------------------------------------------
    def floor_plan(self) -> None:
        self.chapter("Floor plan")
        halls = self.project.halls
        if not halls:
            self.story.append(self.p("The design has no hall to draw."))
            return
        self.story.append(self.p(
            "Each hall to scale, racks coloured by what they hold; the dark edge of a rack is its front "
            "(cold aisle side). Rack names are printed where the rack is large enough on paper to carry one.", "Note"))
        for i, hall in enumerate(halls[:MAX_HALLS]):
            if len(halls) > 1:
                if i:
                    self.story.append(PageBreak())
                self.story += self.subheading(hall.name or hall.id)
            self.story.append(_PlanFlowable(self.a, hall.id, "role", self.pages))
        if len(halls) > MAX_HALLS:
            self.story.append(self.p(f"{number(len(halls) - MAX_HALLS)} more halls are not drawn: "
                                     + self.t(", ".join(h.name or h.id for h in halls[MAX_HALLS:])), "Note"))

    # -- rack elevations -------------------------------------------------------------------------------------
    def builds(self) -> list[list]:
        """Racks grouped by build (rack type, and every device's type, U and face), most common first."""
        groups: dict[tuple, list] = {}
        for r in self.project.racks:
            key = (r.type, tuple(sorted((d.type, -1.0 if d.u is None else float(d.u), d.face) for d in r.devices)))
            groups.setdefault(key, []).append(r)
        return sorted(groups.values(), key=lambda rs: -len(rs))

    def elevations(self) -> None:
        self.chapter("Rack elevations")
        builds = self.builds()
        if not builds:
            self.story.append(self.p("The design has no racks."))
            return
        shown = builds[:MAX_ELEVATIONS]
        racks = len(self.project.racks)
        covered = sum(len(b) for b in shown)
        intro = (f"{plural(racks, 'rack')} in {plural(len(builds), 'distinct build')}: racks with the same rack "
                 "type and the same devices at the same U positions share one elevation. Labels name the catalog "
                 "part; a device mounted on one face also takes its U on the other, shown there as an outline.")
        if len(builds) > len(shown):
            intro += (f" The {len(shown)} most common builds are drawn ({number(covered)} of {number(racks)} racks); "
                      f"the other {number(len(builds) - len(shown))} builds ({number(racks - covered)} racks) are summarised "
                      "in the bill of materials only.")
        self.story.append(self.p(self.t(intro), "Note"))
        cells = [self.elevation_cell(i + 1, b) for i, b in enumerate(shown)]
        col = CONTENT_W / 2
        for i in range(0, len(cells), 2):
            pair = cells[i:i + 2] + ([""] if len(cells[i:i + 2]) == 1 else [])
            t = Table([pair], colWidths=[col, col])
            t.setStyle(_style([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 2),
                                   ("RIGHTPADDING", (0, 0), (-1, -1), 10), ("TOPPADDING", (0, 0), (-1, -1), 4)]))
            self.story += [CondPageBreak(ELEVATION_H + 60), t, Spacer(1, 8)]

    def elevation_cell(self, n: int, racks: list) -> list:
        rack = racks[0]
        names = [r.name or r.id for r in racks]
        e_g = ", ".join(names[:3]) + (" …" if len(names) > 3 else "")
        title = f"Build {n}  × {plural(len(racks), 'rack')}"
        drawing = _Deferred(elevation_drawing(rack, self.catalog, width=CONTENT_W / 2 - 14, height=ELEVATION_H,
                                              title=title, subtitle=f"e.g. {e_g}"), self.pages)
        parts = Counter()
        for d in rack.devices:
            dev = self.catalog.find(d.type)
            if dev is None:
                continue
            where = f"{d.face}, 0U" if d.u is None or not dev.u_height else d.face
            parts[(short_name(dev), where)] += 1
        contents = "; ".join(f"{n} × {name} ({where})" for (name, where), n in sorted(parts.items())) or "empty"
        rtype = self.catalog.find(rack.type)
        caption = f"<b>{self.t(rtype.name if rtype else rack.type)}</b>: {self.t(contents)}"
        return [drawing, Spacer(1, 4), self.p(caption, "Caption")]

    # -- bill of materials ---------------------------------------------------------------------------------------
    def bill(self) -> None:
        b, cur = self.bom, self.cur
        self.chapter("Bill of materials")
        q = self.project.quote
        legend = [f"Prices in {cur}, excluding tax and shipping, as of {long_date(parse_date(b.as_of, 'as of'))}. "
                  "Unit price is the list price; the net unit price is the list price less the section's discount, "
                  "rounded to the cent, and the extended price is net unit price × quantity × years of the term "
                  f"({plural(b.term_years, 'year')} for subscriptions and support, one for everything else).",
                  f"{DAGGER} {INDICATIVE}. {DOUBLE_DAGGER} price older than {plural(q.price_max_age_days, 'day')} "
                  f"(its date is given under the line). {SECTION_MARK} price from a price list without a date. "
                  "* part number not confirmed in a vendor document. "
                  "A line marked \"no price\" has no known price and is left out of every total."]
        if b.spares_percent:
            legend.append(f"Spare optics and cables: {percent_typed(b.spares_percent)} of each part's quantity, rounded up, "
                          "on their own lines.")
        if b.price_list.name or b.price_list.entries:
            pl = b.price_list
            legend.append(f"Price list “{pl.name or 'unnamed'}”: {number(pl.used)} of {number(pl.entries)} entries "
                          "used; its prices override the catalog's.")
        for text in legend:
            self.story.append(self.p(self.t(text), "Note"))
        if not b.sections:
            self.story.append(self.p("The bill is empty: the design holds nothing to order."))
        for sec in b.sections:
            self.story += self.subheading(sec.title)
            self.story.append(self.section_table(sec))
        self.story += self.subheading("Totals", 200)
        self.story += [self.totals_table(), Spacer(1, 6)]
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
        for n in notes:
            self.story.append(self.p(self.t(n), "Note"))

    @cached_property
    def bom_widths(self) -> list[float]:
        """Column widths of every section's table, alike in all, from the widest entry of the whole bill: a part
        number or a price never breaks, and the description takes what is left."""
        lines = [ln for sec in self.bom.sections for ln in sec.lines]
        pad = 7.5

        def widest(texts, font=st.FONT, size=7.5, least=0.0):
            return max([least] + [stringWidth(st.printable(x), font, size) for x in texts]) + pad

        marks = DAGGER + DOUBLE_DAGGER + SECTION_MARK

        def foreign(ln) -> str:  # a line in another currency prints its currency with the amount
            return ln.currency if ln.currency not in (None, self.cur) else ""

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

    def section_table(self, sec: BomSection) -> Table:
        cur, s = self.cur, self.s
        widths = self.bom_widths
        head = ["#", "Part number", "Description", "Qty", "Unit", f"Unit price ({cur})", "Disc.",
                f"Extended ({cur})"]
        rows: list[list] = [head]
        for ln in sec.lines:
            rows.append(self.bom_row(ln))
        n = len(rows)
        extra = []
        label_style = s["CellBold"]
        notes = [] if (sec.discount or sec.discount_percent) else ["list price, no discount"]
        if sec.unpriced:
            notes.append(f"excludes {plural(sec.unpriced, 'unpriced line')}")
        caveat = f" ({'; '.join(notes)})" if notes else ""
        title = self.t(sec.title)
        if sec.discount or sec.discount_percent:
            pct = percent_typed(sec.discount_percent)
            rows.append([Paragraph(f"{title} at list price", s["Cell"]), "", "", "", "",
                         Paragraph(self.t(money(sec.list_subtotal, cur)), s["CellRight"])])
            rows.append([Paragraph(f"Discount {pct} on {title}", s["Cell"]), "", "", "", "",
                         Paragraph(self.t(money(-sec.discount, cur)), s["CellRight"])])
        rows.append([Paragraph(f"{title} subtotal{self.t(caveat)}", label_style), "", "", "", "",
                     Paragraph(self.t(money(sec.subtotal, cur)), s["CellRightBold"])])
        for c, v in sec.other_currencies.items():
            rows.append([Paragraph(self.t(f"Priced in {c}, not converted and not in the subtotal"), s["Cell"]),
                         "", "", "", "", Paragraph(self.t(money(v, c)), s["CellRight"])])
        for r in range(n, len(rows)):
            extra += [("SPAN", (0, r), (4, r)), ("SPAN", (5, r), (7, r)), ("BACKGROUND", (0, r), (-1, r), st.WHITE)]
        extra += [("LINEABOVE", (0, n), (-1, n), 0.8, st.ACCENT)]
        sub = n + (2 if (sec.discount or sec.discount_percent) else 0)
        extra += [("BACKGROUND", (0, sub), (-1, sub), st.TOTAL_FILL)]
        return self.table(rows, widths, numeric=(0, 3, 5, 6, 7), extra=extra)

    def bom_row(self, ln: BomLine) -> list:
        s, cur = self.s, self.cur
        pn = ln.part_number
        pn_text = (self.t(pn) + ("*" if ln.part_number_unconfirmed else "")) if pn else \
            '<font color="#5C6673">–</font>'
        if ln.alt_part_number:
            alt_mark = "*" if ln.alt_part_number_unconfirmed else ""
            pn_text += f'<br/><font size="6.3" color="#5C6673">order {self.t(ln.alt_part_number)}{alt_mark}</font>'
        notes = []
        if ln.basis:
            notes.append(ln.basis)
        if ln.per_year:
            notes.append(f"per {ln.unit} for {plural(ln.term_years, 'year')}")
        if "stale" in ln.flags:
            notes.append(f"{DOUBLE_DAGGER} price dated {ln.price_date}")
        if "undated" in ln.flags:
            notes.append(f"{SECTION_MARK} undated price from {ln.price_source}")
        if ln.unit_price is None:
            notes.append("no price known: not in the totals")
        desc = self.t(keep_units(ln.description))
        if notes:
            desc += f'<br/><font size="6.3" color="#5C6673">{self.t("; ".join(notes))}</font>'
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
                unit = Paragraph(self.t(up) + (f'<br/><font size="6.3" color="#5C6673">net '
                                               f'{self.t(money(ln.net_unit_price))}</font>'
                                               if ln.discount_percent else ""), s["CellRight"])
            if foreign:
                ext = Paragraph(self.t(ext) + f'<br/><font size="6.3" color="#5C6673">not in the {cur} total</font>',
                                s["CellRight"])
        disc = ln.discount_percent
        return [str(ln.line), Paragraph(pn_text, s["Cell"]), Paragraph(desc, s["Cell"]), number(ln.quantity),
                Paragraph(self.t(ln.unit), s["Cell"]), unit, percent_typed(disc), ext]

    # -- cost of ownership --------------------------------------------------------------------------------------
    def cost_of_ownership(self) -> None:
        c, cur = self.cost, self.cost.currency
        self.chapter("Cost of ownership")
        self.story.append(self.p(
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
            ("Training throughput", quantity(c.tokens_per_s, "tokens/s") if c.tokens_per_s else
             "no training estimate"),
            ("Cost per million tokens", money(c.cost_per_million_tokens, cur)
             if c.cost_per_million_tokens is not None else "not given"),
        ]
        if c.dominant:
            rows.append(("Largest share of the yearly cost", c.dominant))
        self.story.append(self.pairs(rows, widths=(250.0, CONTENT_W - 250.0)))
        self.story += self.subheading("Assumptions")
        for text in c.assumptions:
            self.story.append(Paragraph(self.t(text[:1].upper() + text[1:]) + ".", self.s["Bullet"], bulletText="•"))
        if c.excludes_unpriced:
            self.story.append(Paragraph(self.t("Lines without a price are out of every figure: "
                                               + "; ".join(c.excludes_unpriced) + "."), self.s["Bullet"],
                                        bulletText="•"))

    # -- power, cooling, fabric -----------------------------------------------------------------------------------
    def engineering(self) -> None:
        self.chapter("Power, cooling and fabric")
        self.power()
        self.cooling()
        self.fabric()

    def power_chain(self, pw: PowerView) -> None:
        """Each level above the racks: what it may carry, what it carries, and what it carries with its partner
        lost (the figure a facilities team signs off)."""
        hall_names = {h.id: h.name or h.id for h in self.project.halls}
        rows = [["Level", "Capacity (kW)", "Normal (kW)", "Partner lost (kW)", "Peak (kW)"]]
        for ups in pw.ups:
            for u in ups.systems:
                rows.append([f"{hall_names.get(ups.hall, ups.hall)}: {u.name} ({ups.scheme})",
                             cell(u.capacity_kw, "kW"), cell(u.normal_kw, "kW"), cell(u.failover_kw, "kW"),
                             cell(u.peak_kw, "kW")])
        rated = [r for r in pw.rows if r.rating_kw]
        if rated:
            def feeds(r: RowPower) -> tuple:  # A before B: on a tie the A feed is named
                return (("A", r.feeds.A), ("B", r.feeds.B))

            top = max(rated, key=lambda r: max(f.failover_utilisation or 0 for _, f in feeds(r)))
            side, f = max(feeds(top), key=lambda kv: kv[1].failover_utilisation or 0)
            runs = f"{top.runs} x " if top.runs > 1 else ""
            rows.append([f"Busiest row {top.row}: {runs}{quantity(top.rating_a, 'A')} {top.distribution} {side}",
                         cell(top.failover_capacity_kw, "kW"), cell(f.normal_kw, "kW"),
                         cell(f.failover_kw, "kW"), cell(f.peak_kw, "kW")])
        for g in pw.generators:
            rows.append([f"{hall_names.get(g.hall, g.hall)}: generators {g.units} x {kw(g.unit_kw)}, "
                         f"{g.redundant} spare", cell(g.capacity_kw, "kW"), cell(g.load_kw, "kW"), "", ""])
        if len(rows) == 1:
            return
        self.story += self.minor("Power chain above the racks")
        self.story.append(self.table(rows, [CONTENT_W - 4 * 72] + [72] * 4, numeric=(1, 2, 3, 4)))

    def power(self) -> None:
        pw = _optional(self.a, "power")
        if pw is None:
            return
        s = self.story
        s += self.subheading("Power")
        sett = pw.settings
        s.append(self.pairs([
            ("IT power, typical / maximum", kw_pair(pw.it_typical_kw, pw.it_max_kw)),
            ("Facility power, typical / maximum", kw_pair(pw.facility_typical_kw, pw.facility_max_kw)),
            ("Cooling equipment (CDUs, air handlers)", kw(pw.cooling_equipment_kw)),
            ("PUE; power factor; PDU derating", f"{sett.pue:g}; {sett.power_factor:g}; "
                                                f"{percent(sett.derating)} of rating"),
        ]))
        halls = pw.halls
        if halls:
            s += self.minor("By hall")
            rows = [["Hall", "IT typical (kW)", "IT maximum (kW)", "Capacity (kW)", "Headroom (kW)", "Facility (kW)"]]
            for h in halls:
                rows.append([h.name or h.id, cell(h.it_typical_kw, "kW"), cell(h.it_max_kw, "kW"),
                             cell(h.capacity_kw, "kW"), cell(h.headroom_kw, "kW"), cell(h.facility_kw, "kW")])
            s.append(self.table(rows, [CONTENT_W - 5 * 72] + [72] * 5, numeric=(1, 2, 3, 4, 5)))
        self.power_chain(pw)
        prow = pw.rows
        if prow:
            hall_names = {h.id: h.name or h.id for h in self.project.halls}
            shown = prow
            note = ""
            if len(prow) > MAX_POWER_ROWS:
                shown = sorted(prow, key=lambda r: -r.max_kw)[:100]
                note = (f"The 100 rows with the highest maximum draw of {number(len(prow))}; all rows together draw "
                        f"{kw(sum(r.max_kw for r in prow))} at maximum.")
            s += self.minor("By row of racks")
            if note:
                s.append(self.p(self.t(note), "Note"))
            rows = [["Hall", "Row of racks", "Racks in row", "Typical (kW)", "Maximum (kW)"]]
            for r in shown:
                rows.append([hall_names.get(r.hall, r.hall), r.row or "(no row)", number(r.racks),
                             cell(r.typical_kw, "kW"), cell(r.max_kw, "kW")])
            s.append(self.table(rows, [CONTENT_W - 4 * 90, 90, 90, 90, 90], numeric=(2, 3, 4)))
        sup = pw.supplies
        if sup:
            s += self.minor("Power supplies per device type")
            rows = [["Device", "Devices", "Supplies", "Scheme", "Usable (kW)", "Max draw (kW)", "Headroom (kW)",
                     "On one feed (kW)"]]
            for r in sup:
                rows.append([self.name_of(r.type) + (" *" if r.unconfirmed else ""), number(r.devices),
                             f"{r.supplies} × {quantity(r.rating_w, 'W')}", r.scheme, cell(r.usable_kw, "kW"),
                             # per device, two decimals: a switch's 0.28 kW of headroom would read 0.3
                             number(r.max_kw, 2), number(r.headroom_kw, 2), cell(r.one_feed_kw, "kW")])
            s.append(self.table(rows, [CONTENT_W - 7 * 54, 44, 66, 56, 50, 54, 54, 54], numeric=(1, 4, 5, 6, 7)))
            if any(r.unconfirmed for r in sup):
                s.append(self.p("* supply figures not confirmed in a vendor document.", "Small"))
        racks = pw.racks
        if racks and self.project.halls:
            s.append(PageBreak())
            s += self.subheading("Rack power load")
            s.append(self.p("Each rack's maximum draw as a share of its power limit (the rack's own, else its "
                            "hall's default).", "Note"))
            for i, hall in enumerate(self.project.halls[:MAX_HALLS]):
                if i:
                    s.append(PageBreak())
                s.append(_PlanFlowable(self.a, hall.id, "power", self.pages, max_height=600))

    def cooling(self) -> None:
        co = _optional(self.a, "cooling")
        if co is None:
            return
        s = self.story
        s += self.subheading("Cooling", 200)
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
        s.append(self.pairs(rows))
        halls = co.halls
        if halls:
            s += self.minor("By hall")
            rows = [["Hall", "Air (kW)", "Air capacity (kW)", "Air headroom (kW)", "Liquid (kW)",
                     "Liquid capacity (kW)", "Liquid headroom (kW)"]]
            for h in halls:
                rows.append([h.name or h.id, cell(h.air_kw, "kW"), cell(h.air_capacity_kw, "kW"),
                             cell(h.air_headroom_kw, "kW"), cell(h.liquid_kw, "kW"),
                             cell(h.liquid_capacity_kw, "kW"), cell(h.liquid_headroom_kw, "kW")])
            s.append(self.table(rows, [CONTENT_W - 6 * 64] + [64] * 6, numeric=(1, 2, 3, 4, 5, 6)))
        loops = co.cdu_loops
        if loops:
            s += self.minor("CDU loops")
            shown = loops
            if len(loops) > MAX_CDU_LOOPS:
                shown = sorted(loops, key=lambda lp: -(lp.utilisation or 0))[:MAX_CDU_LOOPS]
                s.append(self.p(self.t(f"The {MAX_CDU_LOOPS} most loaded of {number(len(loops))} loops."), "Note"))
            rows = [["CDUs", "Racks", "Load (kW)", "Capacity (kW)", "With one CDU out (kW)", "Load share",
                     "Redundancy", "Flow / capacity (l/min)"]]
            for lp in shown:
                units = ", ".join(cdu_unit_name(self.project, u) for u in lp.units)
                rows.append([units, number(len(lp.racks)), cell(lp.load_kw, "kW"), cell(lp.capacity_kw, "kW"),
                             cell(lp.capacity_n_minus_1_kw, "kW"), percent(lp.utilisation), lp.redundancy,
                             f"{cell(lp.coolant_flow_lpm, 'l/min')} / {cell(lp.flow_capacity_lpm, 'l/min')}"])
            s.append(self.table(rows, [CONTENT_W - 7 * 56, 40, 56, 56, 64, 50, 60, 66],
                                numeric=(1, 2, 3, 4, 5, 7)))

    def fabric(self) -> None:
        fa = _optional(self.a, "fabric")
        if fa is None:
            return
        s = self.story
        s += self.subheading("Compute fabric", 220)
        if fa.error or not fa.tiers:
            s.append(self.p(self.t(f"The compute fabric is not built: {fa.error or 'no GPU nodes'}.")))
            return
        # a sized tree writes all of these; the view holds them optional for the designs that have none
        require(fa, "fabric", ("switch", "radix", "port_gbps", "rails", "oversubscription", "scalable_units",
                               "su_nodes", "switches", "ports", "cable_length_total_m"))
        rows = [
            ("Switch", f"{self.name_of(fa.switch)} ({number(fa.radix)} ports at {quantity(fa.port_gbps, 'Gb/s')})"),
            ("Topology", f"{fa.tiers}-tier fat tree, {fa.rails} rails, oversubscription "
                         f"{fa.oversubscription:g}:1"),
            ("Endpoints", f"{number(fa.endpoints)} ports of {plural(fa.nodes, 'node')} "
                          f"(reach of {fa.tiers} tiers: {number(fa.max_endpoints)})"),
            ("Scalable units", f"{number(fa.scalable_units)} ({number(fa.su_nodes)} nodes each)"),
            ("Switches: leaf / spine / core", f"{number(fa.leaf)} / {number(fa.spine)} / {number(fa.core)} "
                                              f"({number(fa.switches)} in all)"),
            ("Cables", f"{number(fa.cables_total)}, {quantity(fa.cable_length_total_m / 1000, 'km')} in all"),
        ]
        if fa.too_long_links:
            rows.append(("Links longer than any orderable cable", number(fa.too_long_links)))
        s.append(self.pairs(rows))
        links, ports = fa.links, fa.ports
        s += self.minor("Switch tiers")
        trows = [["Tier", "Switches", "Ports", "Links from below", "Ports used down", "Ports used up", "Ports free"]]
        for tier, switches, p, below in (("Leaf", fa.leaf, ports.leaf, links.node_leaf),
                                         ("Spine", fa.spine, ports.spine, links.leaf_spine),
                                         ("Core", fa.core, ports.core, links.spine_core)):
            if switches or p.total:
                trows.append([tier, number(switches), number(p.total), number(below), number(p.down_used),
                              number(p.up_used), number(p.free)])
        s.append(self.table(trows, [CONTENT_W - 6 * 70] + [70] * 6, numeric=(1, 2, 3, 4, 5, 6)))
        by_len = fa.cables_by_length
        if by_len:
            s += self.minor("Cables by length")
            lengths = sorted({float(m) for v in by_len.values() for m in v})
            head = ["Cable"] + [quantity(m, "m") for m in lengths] + ["Total"]
            rows = [head]
            for cid, counts in by_len.items():
                got = {float(m): n for m, n in counts.items()}
                rows.append([self.name_of(cid)] + [number(got[m]) if m in got else "" for m in lengths]
                            + [number(sum(got.values()))])
            n = len(lengths) + 1
            cw = min(46.0, (CONTENT_W - 150) / n)
            s.append(self.table(rows, [CONTENT_W - n * cw] + [cw] * n, numeric=tuple(range(1, n + 1))))
        trx = fa.transceivers
        if trx:
            s += self.minor("Transceivers")
            rows = [["Transceiver", "Quantity"]] + [[self.name_of(t), number(n)] for t, n in trx.items()]
            s.append(self.table(rows, [CONTENT_W - 80, 80], numeric=(1,)))
        for note in fa.notes:
            s.append(self.p(self.t(note), "Note"))

    # -- findings -------------------------------------------------------------------------------------------------
    def findings(self) -> None:
        self.chapter("Findings")
        fs = list(self.a.findings)
        if not fs:
            self.story.append(self.p("The design checks found nothing to report."))
            return
        order = {"error": 0, "warning": 1, "info": 2}
        fs.sort(key=lambda f: order.get(f.severity, 3))
        counts = Counter(f.severity for f in fs)
        words = {"error": "error", "warning": "warning", "info": "note"}
        said = ", ".join(plural(counts[k], words[k]) for k in words if counts.get(k))
        first = " Errors come first, then warnings, then notes." if counts.get("error") or counts.get("warning") else ""
        self.story.append(self.p(self.t(f"The design checks report {said}.{first}")))
        shown = fs[:MAX_FINDINGS]
        rows = [["Severity", "Where", "Finding"]]
        for f in shown:
            colour = st.SEVERITY_COLOURS.get(f.severity, st.TEXT).hexval()[2:]
            rows.append([Paragraph(f'<font color="#{colour}"><b>{self.t(f.severity)}</b></font>', self.s["Cell"]),
                         self.namer.summary(f.places), f.message])
        self.story.append(self.table(rows, [50, 110, CONTENT_W - 160]))
        if len(fs) > MAX_FINDINGS:
            rest = Counter(f.severity for f in fs[MAX_FINDINGS:])
            self.story.append(self.p(self.t(
                f"{number(len(fs) - MAX_FINDINGS)} more findings are not listed ("
                + ", ".join(plural(rest[k], words[k]) for k in words if rest.get(k)) + ")."), "Note"))

    # -- assumptions and sources ----------------------------------------------------------------------------
    def sources(self) -> None:
        self.chapter("Assumptions and sources")
        b, q, a = self.bom, self.project.quote, self.a
        s = self.story
        s += self.subheading("Quote assumptions")
        items = [f"Prices as of {long_date(parse_date(b.as_of, 'as of'))}, in {self.cur}, excluding tax and "
                 "shipping; no currency is converted.",
                 f"Subscriptions and support are quoted for {plural(b.term_years, 'year')}.",
                 f"Spare optics and cables: {percent_typed(b.spares_percent)} of each part, rounded up.",
                 f"A price older than {q.price_max_age_days} days is marked {DOUBLE_DAGGER}; a price from a press, "
                 f"third-party or planning source is marked {DAGGER}."]
        disc = {k: v for k, v in q.discounts if v}
        if disc:
            titles = {sec.section: sec.title for sec in b.sections}
            items.append("Discounts off list: " + ", ".join(f"{titles.get(k, k)} {percent_typed(v)}" for k, v in disc.items())
                         + ".")
        else:
            items.append("No discount is applied: every price is the list price.")
        if q.excluded:
            items.append("Left off at the customer's request: " + ", ".join(self.name_of(i) for i in q.excluded) + ".")
        power, cooling, training = _optional(a, "power"), _optional(a, "cooling"), _optional(a, "training")
        if power is not None:
            pw = power.settings
            items.append(f"Power: PUE {pw.pue:g}, power factor {pw.power_factor:g}, PDUs loaded "
                         f"to at most {percent(pw.derating)} of their rating.")
        if cooling is not None:
            co = cooling.settings
            items.append(f"Cooling: {co.coolant_name} at "
                         f"{quantity(co.coolant_delta_t_k, 'K')} rise, air at {quantity(co.air_delta_t_k, 'K')} rise.")
        if training is not None and training.workload_source:
            items.append(f"Training estimate: workload {training.workload_source}.")
        items += list(b.notes)
        for text in items:
            s.append(Paragraph(self.t(text), self.s["Bullet"], bulletText="•"))
        if b.exclusions:
            s += self.subheading("Not included")
            for text in b.exclusions:
                s.append(Paragraph(self.t(text), self.s["Bullet"], bulletText="•"))

        s += self.subheading("Where prices and part numbers come from")
        s.append(self.p(self.t(
            "For every part on the bill: the source of its price and of its part number, with how sure it is. "
            "Unconfirmed figures (not found in a vendor document) are marked; numbers in brackets refer to the "
            "references below."), "Note"))
        refs: dict[str, int] = {}
        ref_rows: list[tuple[str, str]] = []

        def ref(key: str, title: str, url: str = "") -> str:
            if key not in refs:
                refs[key] = len(refs) + 1
                ref_rows.append((title, url))
            return f"[{refs[key]}]"

        rows = [["Part", "Price source", "Part number source"]]
        seen = set()
        for sec in b.sections:
            for ln in sec.lines:
                if ln.id in seen:
                    continue
                seen.add(ln.id)
                dev = self.catalog.find(ln.id)
                price_cell = self.figure_text(dev, "price.amount", ref) if dev is not None else ""
                if ln.price_from_list:
                    price_cell = f"{ref('list:' + ln.price_source, ln.price_source)} the price list loaded"
                elif ln.unit_price is None:
                    price_cell = "no price known"
                pn_cell = self.figure_text(dev, "part_number", ref) if dev is not None and ln.part_number else \
                    "no part number known"
                part = self.t(dev.name if dev is not None else ln.description.removeprefix("Spare: "))
                unconf = list(dict.fromkeys(field_words(k) for k in (dev.unconfirmed_fields if dev else ())
                                            if k not in ("price.amount", "part_number")))
                if unconf:
                    part += f'<br/><font size="6.3" color="#5C6673">unconfirmed: {self.t(", ".join(unconf))}</font>'
                rows.append([Paragraph(part, self.s["Cell"]), Paragraph(price_cell, self.s["Cell"]),
                             Paragraph(pn_cell, self.s["Cell"])])
        s.append(self.table(rows, [150, (CONTENT_W - 150) / 2, (CONTENT_W - 150) / 2]))
        if ref_rows:
            s += self.subheading("References")
            rrows = [["#", "Source"]]
            for i, (title, url) in enumerate(ref_rows, 1):
                text = self.t(title) + (f'<br/><font size="6.3" color="#5C6673">{self.t(url)}</font>' if url else "")
                rrows.append([str(i), Paragraph(text, self.s["Cell"])])
            s.append(self.table(rrows, [24, CONTENT_W - 24], numeric=(0,)))

    def figure_text(self, dev, field: str, ref) -> str:
        fig = dev.figure(field)
        if fig is None:
            return '<font color="#5C6673">no source recorded</font>'
        src = self.catalog.sources.get(fig.source)
        label = ref(fig.source, src.title if src else fig.source, src.url if src else "")
        how = EVIDENCE.get(fig.evidence, fig.evidence)
        text = f"{label} {self.t(how)}"
        if fig.unconfirmed:
            text = f"{label} <b>unconfirmed</b>: {self.t(how.split(': ', 1)[-1])}"
        elif fig.evidence not in ("P", "P*"):
            text += f" {DAGGER}" if field == "price.amount" else ""
        if fig.note:
            text += f'<br/><font size="6.3" color="#5C6673">{self.t(fig.note)}</font>'
        return text


def write_quote_pdf(analysis: Analysis, path) -> str:
    """Write the quote for ``analysis`` to ``path`` (PDF); returns what it wrote in words."""
    st.register_fonts()
    if "bom" not in analysis.sections or not analysis.bom.lines:
        raise ExportError("the design's bill of materials has no lines: place racks and devices first")
    quote = _Quote(analysis)
    data, pages = quote.build()
    write_atomic(path, data)
    return f"{plural(quote.bom.lines, 'line')}, {plural(pages, 'page')}"


__all__ = ["derived_quote_number", "money", "write_quote_pdf"]
