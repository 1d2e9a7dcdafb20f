"""Fonts, colours and text styles shared by the quote PDF and its drawings.

Only reportlab's bundled Bitstream Vera TrueType fonts are used, registered and
embedded (subsets) in every PDF: a base-14 font such as Helvetica is not embedded,
so a customer's viewer may substitute it and re-flow the figures. The colours
come from the one colour scheme (:mod:`designer.colours`) the window also reads,
so a plan printed from the quote looks like the one on screen.
"""
from __future__ import annotations

import os
import unicodedata
from functools import lru_cache
from xml.sax.saxutils import escape

import reportlab
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT, TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from designer import colours as scheme

FONT = "Vera"
BOLD = "Vera-Bold"
ITALIC = "Vera-Italic"
BOLD_ITALIC = "Vera-BoldItalic"
_FONT_FILES = {FONT: "Vera.ttf", BOLD: "VeraBd.ttf", ITALIC: "VeraIt.ttf", BOLD_ITALIC: "VeraBI.ttf"}

# Table ink of the quote, and the one colour scheme (designer.colours) for what the window also draws.
TEXT = colors.HexColor(scheme.TEXT)
MUTED = colors.HexColor(scheme.MUTED_TEXT)
ACCENT = colors.HexColor("#1F3A5F")
ACCENT_LIGHT = colors.HexColor("#E6ECF3")
RULE = colors.HexColor("#C9D1DB")
ZEBRA = colors.HexColor("#F6F8FA")
TOTAL_FILL = colors.HexColor("#DCE5EF")
WHITE = colors.white

HALL_FILL = colors.HexColor(scheme.HALL_FILL)
HALL_BORDER = colors.HexColor(scheme.HALL_BORDER)
GRID = colors.HexColor(scheme.GRID)
#: rack role (designer.rack_roles.ROLES) -> (fill, legend label), in legend order
ROLES: dict[str, tuple[colors.Color, str]] = {role: (colors.HexColor(fill), label)
                                              for role, (fill, label) in scheme.ROLES.items()}
CDU = (colors.HexColor(scheme.CDU[0]), scheme.CDU[1])
FLOOR_OTHER = (colors.HexColor(scheme.FLOOR_OTHER[0]), scheme.FLOOR_OTHER[1])
#: device colour roles of an elevation (the window's rack face): what a block is for
DEVICE_COLOURS = {
    "compute": ROLES["compute"][0],
    "rack_scale": ROLES["rack_scale"][0],
    "network": ROLES["network"][0],
    "storage": ROLES["storage"][0],
    "management": ROLES["management"][0],
    "cdu": CDU[0],
    "crah": CDU[0],
    "power": colors.HexColor(scheme.POWER_DEVICE),
    "pdu": colors.HexColor(scheme.PDU),
}
SLOT = colors.HexColor("#F2F4F7")
SLOT_LINE = colors.HexColor("#DDE2E8")

#: Load bands (band key -> (fill, label)), as the window's heat map paints them.
HEAT_BANDS: dict[str, tuple[colors.Color, str]] = {key: (colors.HexColor(fill), label)
                                                   for key, (fill, label) in scheme.BAND_COLOURS.items()}
HEAT_OVER = HEAT_BANDS["over"][0]
HEAT_NO_DATA = HEAT_BANDS["no_data"][0]

SEVERITY_COLOURS = {key: colors.HexColor(value) for key, value in scheme.SEVERITY.items()}


def register_fonts() -> None:
    """Register the four Vera faces once (and the family, so <b> and <i> in paragraphs use them)."""
    if FONT in pdfmetrics.getRegisteredFontNames():
        return
    folder = os.path.join(os.path.dirname(reportlab.__file__), "fonts")
    for name, file in _FONT_FILES.items():
        pdfmetrics.registerFont(TTFont(name, os.path.join(folder, file)))
    pdfmetrics.registerFontFamily(FONT, normal=FONT, bold=BOLD, italic=ITALIC, boldItalic=BOLD_ITALIC)


@lru_cache(maxsize=1)
def _covered() -> frozenset[int]:
    register_fonts()
    return frozenset(pdfmetrics.getFont(FONT).face.charToGlyph)


#: Characters Vera lacks that catalog and finding texts use, spelled with ones it has.
_SPELLED = {"→": "->", "←": "<-", "↔": "<->", "✓": "yes", "✗": "no", "≠": "!=", "‑": "-", "\u2009": " ",
            "\u202f": " ", "\u00a0": " "}


def printable(text: object) -> str:
    """``text`` with every character the embedded font can draw: others are spelled out or decomposed
    (``⁶`` -> ``6``), and only what cannot be is replaced by ``?`` (a missing glyph prints as an empty box)."""
    s = str(text)
    covered = _covered()
    if all(ord(c) in covered or c in "\n\t" for c in s):
        return s
    out = []
    for c in s:
        if ord(c) in covered or c in "\n\t":
            out.append(c)
        elif c in _SPELLED:
            out.append(_SPELLED[c])
        else:
            d = unicodedata.normalize("NFKD", c)
            out.append(d if d and all(ord(x) in covered for x in d) else "?")
    return "".join(out)


def para_text(text: object) -> str:
    """Text for a Paragraph: printable and with its markup characters escaped (a customer named "A&B")."""
    return escape(printable(text))


def heat_colour(share: float | None) -> colors.Color:
    """The colour of the load band ``share`` (of a limit) falls in, as on screen; grey where none is known."""
    return HEAT_BANDS[scheme.load_band(share)][0]


def text_on(fill: colors.Color) -> colors.Color:
    """White on dark fills, near-black on light ones (by perceived luminance)."""
    lum = 0.299 * fill.red + 0.587 * fill.green + 0.114 * fill.blue
    return WHITE if lum < 0.59 else TEXT


@lru_cache(maxsize=1)
def styles() -> dict[str, ParagraphStyle]:
    """The document's paragraph styles by name."""
    register_fonts()
    # bulletFontName too: its default is Helvetica, which would sit unembedded in the PDF
    base = ParagraphStyle("Body", fontName=FONT, bulletFontName=FONT, fontSize=8.8, leading=12.2, textColor=TEXT,
                          spaceAfter=5)
    s = {"Body": base}

    def add(name: str, parent: str = "Body", **kw) -> None:
        s[name] = ParagraphStyle(name, parent=s[parent], **kw)

    add("Small", fontSize=7.2, leading=9.4, textColor=MUTED, spaceAfter=3)
    add("Note", fontSize=7.6, leading=10, textColor=MUTED, spaceAfter=4)
    add("Bullet", leftIndent=11, bulletIndent=2, spaceAfter=2.5)
    add("H1", fontName=BOLD, fontSize=15, leading=19, textColor=ACCENT, spaceBefore=0, spaceAfter=9, keepWithNext=1)
    add("H2", fontName=BOLD, fontSize=11, leading=14, textColor=ACCENT, spaceBefore=10, spaceAfter=5)
    add("H3", fontName=BOLD, fontSize=9.2, leading=12, textColor=TEXT, spaceBefore=7, spaceAfter=3)
    add("Cell", fontSize=7.5, leading=9.2, spaceAfter=0)
    add("CellBold", "Cell", fontName=BOLD)
    add("CellRight", "Cell", alignment=TA_RIGHT)
    add("CellRightBold", "CellRight", fontName=BOLD)
    add("CellCentre", "Cell", alignment=TA_CENTER)
    add("CellHead", "Cell", fontName=BOLD, textColor=ACCENT)
    add("CellHeadRight", "CellHead", alignment=TA_RIGHT)
    add("CellSmall", "Cell", fontSize=6.4, leading=7.9, textColor=MUTED)
    add("Caption", fontSize=7.6, leading=9.8, textColor=MUTED, alignment=TA_LEFT, spaceAfter=0)
    add("CoverTitle", fontName=BOLD, fontSize=25, leading=30, textColor=ACCENT, spaceAfter=8)
    add("CoverSub", fontSize=12, leading=16, textColor=MUTED, spaceAfter=22)
    add("CoverLabel", fontSize=8.5, leading=11, textColor=MUTED, spaceAfter=0)
    add("CoverValue", fontName=BOLD, fontSize=10.5, leading=13.5, spaceAfter=0)
    add("Figure", fontName=BOLD, fontSize=13, leading=16, textColor=ACCENT, spaceAfter=0)
    add("FigureLabel", fontSize=7.4, leading=9.2, textColor=MUTED, spaceAfter=0)
    add("TOC1", fontName=BOLD, fontSize=10, leading=15, leftIndent=0, firstLineIndent=0)
    add("TOC2", fontSize=8.8, leading=12.5, leftIndent=14, firstLineIndent=0, textColor=MUTED)
    return s


__all__ = ["ACCENT", "BOLD", "CDU", "DEVICE_COLOURS", "FLOOR_OTHER", "FONT", "ITALIC", "ROLES", "heat_colour",
           "para_text", "printable", "register_fonts", "styles", "text_on"]
