"""The floor plan as an SVG or PNG image, and the power heat map as a PNG.

Each is the quote's floor-plan drawing (``exporters.plan_drawing``) at its own size: a
hall is drawn at the largest standard scale at which it fits an A3 landscape sheet, and
the image is as large as that plan with its header, legend and scale bar, so printing the
SVG (sized in points) or the PNG (its DPI recorded in the file) at 100 % gives the scale
the drawing states. A design with several halls is one image with the halls stacked top
to bottom, each with its own scale, legend and scale bar: halls of very different sizes
each stay readable, and the file is still one sheet to hand over.

The SVG comes from reportlab's SVG renderer with three corrections: the fonts are named
by a family a viewer has (the registered name "Vera" is unknown outside reportlab) and
every text is given the width it was measured at, so a substituted font still fits its
rack; text positions and the page flip are written exactly rather than rounded to whole
points; and the size is given in points, not CSS pixels, so "Scale 1:50" holds. The PNG
is the same drawing rendered to a one-page PDF and rasterised by PDFium (reportlab's
own bitmap renderer needs Cairo).
"""
from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING

from reportlab.graphics import renderPDF, renderSVG
from reportlab.graphics.shapes import Drawing, Line
from reportlab.lib.attrmap import AttrMap, AttrMapValue
from reportlab.lib.pagesizes import A3, landscape
from reportlab.lib.validators import isAnything
from reportlab.pdfbase.pdfmetrics import stringWidth

from catalog.files import write_atomic
from designer.formatting import count, number

from . import pdf_style as st
from .base import ExportError
from .plan_drawing import plan_drawing

if TYPE_CHECKING:
    from designer.analysis import Analysis

#: The largest a hall is drawn: A3 landscape in whole points (a sheet plotters and printers take).
SHEET_W, SHEET_H = (math.floor(v) for v in landscape(A3))
#: Space between stacked halls, with a rule across it.
HALL_GAP_PT = 24.0
#: White border around the sheet: the drawing runs to its own edges, as it sits inside a page's margins in the quote.
MARGIN_PT = 12.0
DEFAULT_DPI = 150
#: Above this many pixels a PNG is refused rather than exhausting memory (PDFium's bitmap alone is 4 bytes a
#: pixel): about 46 A3 sheets at 150 dpi; the 100,000-GPU hall at 1,000 dpi is 115 megapixels.
MAX_PIXELS = 200_000_000
#: The families an SVG viewer is asked for: Vera by its family name, then DejaVu Sans (Vera's metrics and
#: glyphs, on most Linux systems), then the look-alike Verdana and any sans-serif.
SVG_FONT_FAMILY = "'Bitstream Vera Sans', 'DejaVu Sans', Verdana, sans-serif"
_SVG_FONTS = {st.FONT: {"family": SVG_FONT_FAMILY},
              st.BOLD: {"family": SVG_FONT_FAMILY, "weight": "bold"},
              st.ITALIC: {"family": SVG_FONT_FAMILY, "style": "italic"},
              st.BOLD_ITALIC: {"family": SVG_FONT_FAMILY, "weight": "bold", "style": "italic"}}


class ProjectDrawing(Drawing):
    """Every hall's plan stacked top to bottom; ``halls`` holds each hall's drawing and where it sits."""

    _attrMap = AttrMap(BASE=Drawing, halls=AttrMapValue(isAnything), colour_by=AttrMapValue(isAnything))

    def page_point(self, hall_index: int, x_mm: float, y_mm: float) -> tuple[float, float]:
        """Where a point of the ``hall_index``-th hall lies on the sheet, in points from its bottom left."""
        plan, dx, dy = self.halls[hall_index]
        px, py = plan.page_point(x_mm, y_mm)
        return px + dx, py + dy


def project_drawing(analysis: Analysis, colour_by: str = "role") -> ProjectDrawing:
    """The design's halls, each at the scale that fits an A3 landscape sheet, stacked into one drawing."""
    project = analysis.project
    if project is None or analysis.catalog is None:
        raise ExportError("the analysis holds no design to draw (it was made without its project and catalog)")
    if not project.halls:
        raise ExportError("the design has no hall to draw")
    if colour_by == "power" and not analysis.has("power"):
        raise ExportError("the analysis has no power figures to draw a heat map from")
    plans = [plan_drawing(analysis, hall.id, width=SHEET_W, height=SHEET_H, colour_by=colour_by, shrink_width=True)
             for hall in project.halls]
    width = max(p.width for p in plans) + 2 * MARGIN_PT
    height = sum(p.height for p in plans) + HALL_GAP_PT * (len(plans) - 1) + 2 * MARGIN_PT
    sheet = ProjectDrawing(width, height, initialFontName=st.FONT, initialFontSize=7)
    sheet.colour_by, sheet.halls = colour_by, []
    top = height - MARGIN_PT
    for i, plan in enumerate(plans):
        if i:
            rule_y = top + HALL_GAP_PT / 2
            sheet.add(Line(MARGIN_PT, rule_y, width - MARGIN_PT, rule_y, strokeColor=st.RULE, strokeWidth=0.6))
        y = top - plan.height
        group = plan.asGroup()
        group.translate(MARGIN_PT, y)
        sheet.add(group)
        sheet.halls.append((plan, MARGIN_PT, y))
        top = y - HALL_GAP_PT
    return sheet


def _num(v: float) -> str:
    return f"{v:.4f}".rstrip("0").rstrip(".")


def _hex(color) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c * 255))):02x}" for c in (color.red, color.green, color.blue))


class _SVGCanvas(renderSVG.SVGCanvas):
    """reportlab's SVG canvas with text and the page flip placed exactly, and every text held to its
    measured width."""

    def __init__(self, size, **kw):
        # useClip: no clip path around the whole sheet (the viewBox clips already), because a viewer without
        # clip-path support (SVG Tiny, Qt before 6.7) paints the path's rectangle black over the drawing
        super().__init__(size, useClip=True, **kw)
        if self.groupTree.hasAttribute("clip"):
            self.groupTree.removeAttribute("clip")
        # the base class writes "translate(0,-%d)": a drawing 675.3 pt tall would shift by 0.3 pt
        self.groupTree.setAttribute("transform", f"scale(1,-1) translate(0,-{_num(self.height)})")

    # the base class writes colours in whole percents, truncated (#FBFBFA comes out #FAFAFA): hex keeps the palette
    def setFillColor(self, color):
        super().setFillColor(color)
        if color is not None:
            self.style["fill"] = _hex(color)

    def setStrokeColor(self, color):
        super().setStrokeColor(color)
        if color is not None:
            self.style["stroke"] = _hex(color)

    def drawString(self, s, x, y, angle=0, link_info=None, text_anchor="left", textRenderMode=0, **svg_attrs):
        before = self.currGroup.lastChild
        super().drawString(s, x, y, angle, link_info, text_anchor, textRenderMode, **svg_attrs)
        node = self.currGroup.lastChild
        if node is None or node is before or getattr(node, "tagName", "") != "text":
            return
        # the base class flips each text about its baseline by "translate(0,%d)" of 2y, rounding it to a
        # whole point: a 5 pt rack label would sit up to 1 pt off its line
        node.setAttribute("transform", f"translate(0,{_num(2 * float(node.getAttribute('y')))}) scale(1,-1)")
        node.setAttribute("textLength", _num(stringWidth(s, self._font, self._fontSize)))
        node.setAttribute("lengthAdjust", "spacingAndGlyphs")

    def describe(self, title: str, desc: str) -> None:
        for tag, text in (("title", title), ("desc", desc)):
            for node in self.svg.getElementsByTagName(tag):
                node.firstChild.data = text


def svg_text(drawing: Drawing, title: str = "", desc: str = "") -> str:
    """``drawing`` as an SVG document, sized in points (1 unit of its viewBox = 1 pt)."""
    w, h = _num(drawing.width), _num(drawing.height)
    canvas = _SVGCanvas((drawing.width, drawing.height), fontHacks=_SVG_FONTS,
                        svgAttrs={"width": f"{w}pt", "height": f"{h}pt", "viewBox": f"0 0 {w} {h}"})
    canvas.describe(title, desc)
    renderSVG.draw(drawing, canvas, 0, 0, showBoundary=False)
    buf = io.StringIO()
    canvas.save(buf)
    return buf.getvalue()


def png_size(drawing: Drawing, dpi: float = DEFAULT_DPI) -> tuple[int, int]:
    """The pixel size of ``drawing`` at ``dpi``: its size in points, to the nearest pixel."""
    return max(1, round(drawing.width * dpi / 72.0)), max(1, round(drawing.height * dpi / 72.0))


def png_bytes(drawing: Drawing, dpi: float = DEFAULT_DPI) -> bytes:
    """``drawing`` rasterised at ``dpi`` on white, as PNG with its DPI recorded (so it prints at scale)."""
    import pypdfium2 as pdfium  # imported on first use: its native library is only needed for a PNG

    if not dpi > 0:
        raise ExportError(f"the resolution must be a positive number of dots per inch, not {dpi!r}")
    zoom = dpi / 72.0
    pixels = drawing.width * zoom * drawing.height * zoom
    if pixels > MAX_PIXELS:
        raise ExportError(f"the image would be {number(pixels / 1e6)} megapixels at {number(dpi)} dpi; "
                          f"choose a lower resolution (at most {number(MAX_PIXELS / 1e6)} megapixels)")
    pdf = pdfium.PdfDocument(renderPDF.drawToString(drawing))
    try:
        page = pdf[0]
        bitmap = page.render(scale=zoom, fill_color=(255, 255, 255, 255), may_draw_forms=False)
        # PDFium rounds the bitmap up, so a page of 940.0000001 px gets a 941st column of background
        image = bitmap.to_pil().convert("RGB").crop((0, 0, *png_size(drawing, dpi)))
        page.close()
    finally:
        pdf.close()
    buf = io.BytesIO()
    image.save(buf, "PNG", dpi=(dpi, dpi))
    return buf.getvalue()


def _account(sheet: ProjectDrawing, what: str) -> str:
    racks = sum(plan.racks_drawn for plan, _, _ in sheet.halls)
    scales = ", ".join(f"1:{number(s)}" for s in dict.fromkeys(plan.scale for plan, _, _ in sheet.halls))
    return f"{what} of {count(len(sheet.halls), 'hall')}, {count(racks, 'rack')}, at {scales}"


def _describe(analysis: Analysis, sheet: ProjectDrawing) -> tuple[str, str]:
    name = analysis.project.name or "Design"
    what = "floor plan" if sheet.colour_by == "role" else "power heat map"
    halls = "; ".join(f"{plan.hall_name}: {count(plan.racks_drawn, 'rack')} at 1:{number(plan.scale)}"
                      for plan, _, _ in sheet.halls)
    return f"{name}: {what}", halls


def write_svg(analysis: Analysis, path) -> str:
    """The floor plan (racks by role) as an SVG sized in points, every hall stacked on one sheet."""
    sheet = project_drawing(analysis, "role")
    write_atomic(path, svg_text(sheet, *_describe(analysis, sheet)))
    return _account(sheet, "floor plan")


def write_png(analysis: Analysis, path, dpi: float = DEFAULT_DPI) -> str:
    """The floor plan (racks by role) as a PNG at ``dpi``."""
    sheet = project_drawing(analysis, "role")
    data = png_bytes(sheet, dpi)
    write_atomic(path, data)
    return _account(sheet, f"{number(dpi)} dpi floor plan")


def write_heatmap_png(analysis: Analysis, path, dpi: float = DEFAULT_DPI) -> str:
    """The power heat map (each rack's maximum draw as a share of its limit) as a PNG at ``dpi``."""
    sheet = project_drawing(analysis, "power")
    data = png_bytes(sheet, dpi)
    write_atomic(path, data)
    return _account(sheet, f"{number(dpi)} dpi power heat map")


__all__ = ["SHEET_H", "SHEET_W", "ProjectDrawing", "png_bytes", "png_size", "project_drawing", "svg_text",
           "write_heatmap_png", "write_png", "write_svg"]
