"""The quote's building blocks: paragraphs, headings, tables, label-and-value pairs and figure tiles.

Every chapter appends to one story through these, so a table or a heading looks the same in
every chapter and a heading always reaches the table of contents and the PDF outline.
"""
from __future__ import annotations

from collections.abc import Iterable

from reportlab.platypus import CondPageBreak, PageBreak, Paragraph, Table

from .. import pdf_style as st
from ..pdf_text import clip
from .layout import CONTENT_W, Heading, table_style
from .text import fit_lines, keep_units, lines_room, text

#: A heading is cut to this many lines of the page: the table of contents lists it in a cell.
HEADING_LINES = 2


class Blocks:
    """The story being written and the builders that add to it, over the quote's paragraph styles."""

    def __init__(self):
        self.s = st.styles()
        self.story: list = []
        self._keys = 0  # each heading's bookmark key: h1, h2 ... in the order they are written

    def p(self, text: str, style: str = "Body") -> Paragraph:
        """A paragraph of markup the quote wrote (data inside it already passed through ``t``)."""
        return Paragraph(text, self.s[style])

    #: data as paragraph text: printable, markup escaped
    t = staticmethod(text)

    def heading(self, text: str, level: int = 0) -> Heading:
        """A heading that reaches the table of contents and the outline, under a key of its own."""
        self._keys += 1
        style = self.s["H1" if level == 0 else "H2"]
        text = clip(text, style.fontName, style.fontSize, lines_room(CONTENT_W, HEADING_LINES, style.fontSize))
        return Heading(self.t(text), style, level, f"h{self._keys}")

    def minor(self, text: str, room: float = 90.0) -> list:
        """A small heading over a table, on a new page unless ``room`` points are left."""
        return [CondPageBreak(room), self.p(self.t(text), "H3")]

    def subheading(self, text: str, room: float = 120.0) -> list:
        """A level-2 heading that starts a new page unless ``room`` points are left for what follows it
        (not kept with it: a long table after it must be free to split)."""
        return [CondPageBreak(room), self.heading(text, 1)]

    def chapter(self, title: str) -> None:
        """A chapter starts on a new page with its level-1 heading."""
        self.story += [PageBreak(), self.heading(title, 0)]

    def table(self, rows: list[list], widths: list[float], *, head: int = 1, numeric: Iterable[int] = (),
              extra: list | None = None, zebra: bool = True) -> Table:
        """A table of paragraphs: header rows repeated on every page, rules between rows, numbers right."""
        numeric = set(numeric)
        cells = []
        for r, row in enumerate(rows):
            out = []
            for c, value in enumerate(row):
                if isinstance(value, (str, int, float)) or value is None:
                    words = "" if value is None else str(value)
                    if r < head:
                        style = "CellHeadRight" if c in numeric else "CellHead"
                        out.append(Paragraph(self.t(words), self.s[style]))
                    elif c in numeric:
                        # a figure never wraps, and the table draws a plain string far faster than a paragraph
                        out.append(st.printable(words))
                    else:  # text of any length: cut to the lines a cell may take
                        out.append(Paragraph(self.t(fit_lines(words, widths[c])), self.s["Cell"]))
                else:
                    out.append(value)
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
        t.setStyle(table_style(style + (extra or [])))
        return t

    def pairs(self, rows: list[tuple[str, str]], widths=(190.0, CONTENT_W - 190.0)) -> Table:
        """A two-column table of label and value (no header)."""
        cells = [[Paragraph(self.t(fit_lines(k, widths[0])), self.s["Cell"]),
                  Paragraph(self.t(fit_lines(v, widths[1], font=st.BOLD)), self.s["CellBold"])] for k, v in rows]
        t = Table(cells, colWidths=list(widths))
        t.setStyle(table_style([("VALIGN", (0, 0), (-1, -1), "TOP"),
                                ("LEFTPADDING", (0, 0), (-1, -1), 3.5), ("RIGHTPADDING", (0, 0), (-1, -1), 3.5),
                                ("TOPPADDING", (0, 0), (-1, -1), 2.6), ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
                                ("LINEBELOW", (0, 0), (-1, -1), 0.35, st.RULE)]))
        return t


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
        t.setStyle(table_style(style))
        return t
