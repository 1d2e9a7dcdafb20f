"""The quote's page layout: the document template, its passes and page furniture, and the flowables they rely on.

The document is built with platypus in passes: the first lays it out and collects the
headings and the page count, the next prints the table of contents and "page N of M"
from them; it repeats only while either changed (:class:`PageCount` says when). Drawings
are laid out in every pass but drawn only once the page count is known (:class:`Deferred`).
"""
from __future__ import annotations

from reportlab.graphics import renderPDF
from reportlab.graphics.shapes import Drawing
from reportlab.lib.pagesizes import A4
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import BaseDocTemplate, Flowable, Frame, PageTemplate, Paragraph, TableStyle
from reportlab.platypus.doctemplate import IndexingFlowable

from .. import pdf_style as st
from ..pdf_text import clip

PAGE_W, PAGE_H = A4
MARGIN_X = 40.0
TOP = 62.0
BOTTOM = 54.0
#: the height of the red band of a design with errors, above the body pages' header
ERROR_BAND_H = 20.0
CONTENT_W = PAGE_W - 2 * MARGIN_X


# -- document machinery -----------------------------------------------------------------------------------
class Heading(Paragraph):
    """A heading the table of contents and the PDF outline list."""

    def __init__(self, text: str, style, level: int, key: str):
        super().__init__(text, style)
        self.toc_level, self.toc_key = level, key


class PageCount(IndexingFlowable):
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


class QuoteDoc(BaseDocTemplate):
    """The A4 document: a cover page template and a body template, each with its header and footer."""

    def __init__(self, buf, pages: PageCount, *, project: str, quote_number: str, currency: str, valid_until: str,
                 title: str, author: str, kind: str = "Quotation", seller: str = "", logo: tuple | None = None,
                 revision: str = "A", errors: str = ""):
        super().__init__(buf, pagesize=A4, leftMargin=MARGIN_X, rightMargin=MARGIN_X, topMargin=TOP,
                         bottomMargin=BOTTOM, title=title, author=author,
                         subject=f"{kind} {quote_number}{revised(revision)}",
                         creator="PodPlanner", initialFontName=st.FONT, initialFontSize=9)
        self.project, self.quote_number = st.printable(project), st.printable(quote_number)
        self.currency, self.valid_until = currency, valid_until
        #: the quote's revision letter, printed after its number wherever the number is
        self.revision = st.printable(revision)
        #: who sells, in one line under every page's footer ("" without a seller)
        self.seller = st.printable(seller)
        #: the seller's logo for the cover's band: (image or SVG drawing, width, height), or None
        self.logo = logo
        self.pages = pages
        #: the red band across the top of every page of a design with errors ("" for a design without)
        self.errors = st.printable(errors)
        #: what the cover's band calls the document ("Quotation", "Technical appendix")
        self.kind = kind
        body = Frame(MARGIN_X, BOTTOM, CONTENT_W, PAGE_H - TOP - BOTTOM, id="body", leftPadding=0, rightPadding=0,
                     topPadding=0, bottomPadding=0)
        cover = Frame(MARGIN_X, BOTTOM, CONTENT_W, PAGE_H - 190 - BOTTOM, id="cover", leftPadding=0,
                      rightPadding=0, topPadding=0, bottomPadding=0)
        self.addPageTemplates([PageTemplate("cover", [cover], onPage=self._cover_page),
                               PageTemplate("body", [body], onPage=self._body_page)])

    def afterFlowable(self, flowable):
        if isinstance(flowable, Heading):
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
        if self.seller:
            c.drawString(MARGIN_X, y - 9, clip(self.seller, st.FONT, 7, CONTENT_W))
        c.restoreState()

    def _error_band(self, c) -> None:
        """A design with errors: a red band at the very top of the page, above the header, so that no page of
        it can be taken for a quote to sign."""
        if not self.errors:
            return
        c.saveState()
        c.setFillColor(st.SEVERITY_COLOURS["error"])
        c.rect(0, PAGE_H - ERROR_BAND_H, PAGE_W, ERROR_BAND_H, stroke=0, fill=1)
        c.setFillColor(st.WHITE)
        c.setFont(st.BOLD, 8.5)
        c.drawCentredString(PAGE_W / 2, PAGE_H - ERROR_BAND_H + 6.5, clip(self.errors, st.BOLD, 8.5, CONTENT_W))
        c.restoreState()

    def _body_page(self, c, doc) -> None:
        self._error_band(c)
        c.saveState()
        y = PAGE_H - TOP + 22
        c.setFont(st.BOLD, 7.6)
        c.setFillColor(st.ACCENT)
        # a long quote number gets at most half the line: the project name keeps the other half
        label = "Quote" if self.kind == "Quotation" else "Appendix to quote"
        right = numbered(f"{label} {self.quote_number}", self.revision, st.FONT, 7.6, CONTENT_W / 2 - 12)
        room = CONTENT_W - c.stringWidth(right, st.FONT, 7.6) - 24
        c.drawString(MARGIN_X, y, clip(self.project, st.BOLD, 7.6, room))
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
        c.drawString(MARGIN_X, PAGE_H - 88, self.kind)
        c.setFont(st.FONT, 8)
        tagline = "AI datacenter design and bill of materials"
        c.drawRightString(PAGE_W - MARGIN_X, PAGE_H - 112, tagline)
        c.setFont(st.FONT, 11)
        room = CONTENT_W - c.stringWidth(tagline, st.FONT, 8) - 24
        number = numbered(f"No. {self.quote_number}", self.revision, st.FONT, 11, room)
        c.drawString(MARGIN_X, PAGE_H - 112, number)
        if self.logo is not None:  # top right of the band, on a white plate so any logo reads
            image, w, h = self.logo
            x, y = PAGE_W - MARGIN_X - w, PAGE_H - 40 - h
            c.setFillColor(st.WHITE)
            c.rect(x - 6, y - 6, w + 12, h + 12, stroke=0, fill=1)
            if isinstance(image, Drawing):  # an SVG logo, scaled already: drawn as vectors
                renderPDF.draw(image, c, x, y)
            else:
                c.drawImage(image, x, y, width=w, height=h, mask="auto")
        c.restoreState()
        self._error_band(c)
        self._footer(c)


def revised(revision: str) -> str:
    """What follows the quote number: " rev. B"."""
    return f" rev. {revision}"


def numbered(text: str, revision: str, font: str, size: float, room: float) -> str:
    """A quote number (after its label) and its revision in ``room`` points: a long number is cut, never the
    revision after it."""
    tail = revised(revision)
    return clip(text, font, size, max(room - stringWidth(tail, font, size), size)) + tail


def table_style(commands: list) -> TableStyle:
    """A table style that sets the embedded font first: a table's own default is Helvetica, which it sets on
    the canvas even where every cell is a paragraph, and which would then sit unembedded in the PDF."""
    return TableStyle([("FONT", (0, 0), (-1, -1), st.FONT, 7.5)] + list(commands))


class Deferred(Flowable):
    """A drawing that is laid out in every pass but drawn only once the page count is known: the first pass
    only collects headings and pages, and a 12,500-rack plan costs a quarter of a second to draw."""

    def __init__(self, drawing, pages: PageCount):
        super().__init__()
        self.drawing, self.pages = drawing, pages

    def wrap(self, availWidth, availHeight):
        self.width, self.height = self.drawing.width, self.drawing.height
        return self.width, self.height

    def draw(self):
        if self.pages.total is not None:
            self.drawing.drawOn(self.canv, 0, 0)
