"""A hall's single-line diagram (designer.power.single_line) drawn on a PDF page: its boxes and wires at full size
where the page is wide enough, else scaled to the page's width."""
from __future__ import annotations

from reportlab.graphics.shapes import Drawing, Line, Rect, String
from reportlab.lib import colors
from reportlab.lib.units import mm
from reportlab.platypus import Flowable

from designer.colours import SLD_FEEDS, SLD_FILLS, SLD_OVER
from designer.power.single_line import SingleLine

from .. import pdf_style as st

TITLE_PT, LINE_PT = 6.5, 6.0


def single_line_drawing(sl: SingleLine, width: float) -> Drawing:
    """The diagram as a reportlab drawing at most ``width`` points wide (y grows up, so the sheet's top-down
    millimetres are flipped)."""
    scale = min(1.0, width / (sl.width * mm))
    h = sl.height * mm
    d = Drawing(sl.width * mm * scale, h * scale)

    def y_of(y_mm: float) -> float:
        return h - y_mm * mm

    boxes = {b.key: b for b in sl.boxes}
    for w in sl.wires:
        a, b = boxes[w.a], boxes[w.b]
        colour = colors.HexColor(SLD_FEEDS[w.side])
        # A and B wires into one box come down side by side, each a little off the centre
        off = {"A": -1.5, "B": 1.5, "": 0.0}[w.side] * mm
        x0, x1 = (a.x + a.w / 2) * mm + off, (b.x + b.w / 2) * mm + off
        y0, y1 = y_of(a.y + a.h), y_of(b.y)
        mid = (y0 + y1) / 2
        for seg in ((x0, y0, x0, mid), (x0, mid, x1, mid), (x1, mid, x1, y1)):
            d.add(Line(*seg, strokeColor=colour, strokeWidth=0.8))
    for b in sl.boxes:
        x, top = b.x * mm, y_of(b.y)
        d.add(Rect(x, top - b.h * mm, b.w * mm, b.h * mm, fillColor=colors.HexColor(SLD_FILLS[b.kind]),
                   strokeColor=colors.HexColor(SLD_OVER) if b.over else st.HALL_BORDER,
                   strokeWidth=1.6 if b.over else 0.6))
        d.add(String(x + 1.2 * mm, top - 1.2 * mm - TITLE_PT, st.printable(b.title), fontName=st.BOLD,
                     fontSize=TITLE_PT, fillColor=st.TEXT))
        for i, line in enumerate(b.lines):
            d.add(String(x + 1.2 * mm, top - 1.2 * mm - TITLE_PT - (i + 1) * (LINE_PT + 1.2), st.printable(line),
                         fontName=st.FONT, fontSize=LINE_PT, fillColor=st.TEXT))
    d.scale(scale, scale)
    return d


class SingleLineFlowable(Flowable):
    """The diagram of one hall, as wide as the frame allows."""

    def __init__(self, sl: SingleLine):
        super().__init__()
        self.sl = sl
        self.drawing: Drawing | None = None

    def wrap(self, availWidth, availHeight):
        self.drawing = single_line_drawing(self.sl, availWidth)
        self.width, self.height = self.drawing.width, self.drawing.height
        return self.width, self.height

    def draw(self):
        self.drawing.drawOn(self.canv, 0, 0)
