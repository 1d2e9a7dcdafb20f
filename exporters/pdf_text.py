"""User text cut to the room a page gives it, whatever its length.

A name or a description can be as long as a file or a caller makes it (a 5 MB rack name, a 10 MB
description), while a drawing's label or a table cell has a few hundred points for it. Each text is
first cut to the most characters the room could hold (no glyph of the font is narrower than
:func:`narrowest`), so nothing longer than a line's worth is ever made printable or measured; it is
then measured once, and when it does not fit, shortened by bisection on the length of the prefix it
keeps: a handful of measurements of at most a line's worth of text, never one per character.
"""
from __future__ import annotations

from functools import lru_cache

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfmetrics import stringWidth

from . import pdf_style as st

ELLIPSIS = "…"


@lru_cache(maxsize=None)
def narrowest(font: str) -> float:
    """The narrowest advance of ``font``'s glyphs in ems (0 when one has no width: then no text is too long to
    measure). Text made :func:`~exporters.pdf_style.printable` draws only glyphs the font has."""
    f = pdfmetrics.getFont(font)
    face = getattr(f, "face", None)
    if face is not None and getattr(face, "charWidths", None):
        widths = [*face.charWidths.values(), face.defaultWidth]
    else:  # a standard Type 1 font: its 256 widths, 0 for codes it does not use
        widths = [w for w in getattr(f, "widths", ()) if w] or [0]
    return max(0.0, min(widths)) / 1000


def most_chars(font: str, size: float, room: float) -> int | None:
    """No printable text of more characters than this fits ``room`` points at ``size``; None when any might."""
    em = narrowest(font) * size
    if em <= 0:
        return None
    return max(0, int(max(room, 0.0) / em)) + 1  # one more for the rounding of the division


def prefix_fits(text: str, font: str, size: float, room: float, tail: str = ELLIPSIS) -> int:
    """The longest prefix of ``text`` that fits ``room`` points with ``tail`` after it (0 when none does), found
    by bisection: widths only grow with the prefix."""
    lo, hi = 0, len(text)
    cap = most_chars(font, size, room)
    if cap is not None:
        hi = min(hi, cap)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if stringWidth(text[:mid] + tail, font, size) <= room:
            lo = mid
        else:
            hi = mid - 1
    return lo


def head(text: object, font: str, size: float, room: float) -> tuple[str, bool]:
    """``text`` printable and cut to at most one character more than ``room`` could hold, and whether it was cut
    (when it was, it does not fit whole)."""
    raw = str(text)
    cap = most_chars(font, size, room)
    if cap is None or len(raw) <= cap:
        return st.printable(raw), False
    return st.printable(raw[:cap + 1]), True


def clip(text: object, font: str, size: float, room: float, *, strip: str = "", empty: str = ELLIPSIS) -> str:
    """``text`` (printable) as it is when it fits ``room`` points at ``size``, else its longest prefix that fits
    with an ellipsis after it, less the characters in ``strip`` at its end ("NVLink Switch…", not
    "NVLink Switch (…"); ``empty`` when not one character fits."""
    s, cut = head(text, font, size, room)
    if not cut and stringWidth(s, font, size) <= room:
        return s
    return ellipsise(s, font, size, room, strip=strip, empty=empty)


def clip_counted(text: object, font: str, size: float, room: float) -> tuple[str, int | None]:
    """``text`` as :func:`clip` gives it, and how many of its characters are kept when it was cut (None when
    it is whole), for a note that says so."""
    s, cut = head(text, font, size, room)
    if not cut and stringWidth(s, font, size) <= room:
        return s, None
    n = prefix_fits(s, font, size, room)
    return s[:n] + ELLIPSIS, n


def ellipsise(text: str, font: str, size: float, room: float, *, strip: str = "", empty: str = ELLIPSIS) -> str:
    """Printable ``text`` that does not fit ``room`` cut as :func:`clip` cuts it (no need to measure it again)."""
    n = prefix_fits(text, font, size, room)
    return (text[:n].rstrip(strip) + ELLIPSIS) if n else empty


def shorten(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis after them (a stated length, for running text)."""
    return text if len(text) <= limit else text[:limit] + ELLIPSIS


__all__ = ["ELLIPSIS", "clip", "clip_counted", "ellipsise", "head", "most_chars", "narrowest", "prefix_fits", "shorten"]
