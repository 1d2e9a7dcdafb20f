"""One rack's elevation as a reportlab ``Drawing``: front and rear faces side by side, U scale between them.

Rack-mounted gear is full depth, so a device mounted on one face also takes its U on
the other: that face shows it as a light outline naming the face it is mounted on
(the same rule the window's elevation and the collision check use). 0U devices
(vertical PDUs) are strips beside the rails of their face. NVIDIA publishes no U map
of a GB200 NVL72, so its trays are laid out in the order public photos suggest
(power shelves at top and bottom, compute trays around the NVLink switch trays) and
the drawing says the order is illustrative.

Labels name the catalog part, not the device's own name: one elevation stands for
every rack of the same build.
"""
from __future__ import annotations

from reportlab.graphics.shapes import Drawing, Group, Line, Rect, String
from reportlab.pdfbase.pdfmetrics import stringWidth

from catalog import Catalog, DeviceType
from designer.model import Rack
from designer.rack_roles import device_role, system_components
from designer.rules import occupied_span

from . import pdf_style as st
from . import pdf_text

FACES = ("front", "rear")
HEADER_PT = 34.0
FACE_TITLE_PT = 11.0
SCALE_COL_PT = 18.0
STRIP_PT = 7.0
STRIP_GAP = 2.0
MAX_FONT = 6.0
#: A device tall enough for its name and U range on two lines names itself larger.
NAME_FONT = 8.0
MIN_FONT = 3.6
#: The outline on the far face is lettered smaller than the device itself.
GHOST_FONT = 5.4
GHOST_FILL = st.WHITE
GHOST_LINE = st.RULE


def short_name(dev: DeviceType) -> str:
    """The catalog name without its maker in front ("NVIDIA DGX B200" -> "DGX B200"): the box is narrow."""
    name = dev.name or dev.id
    maker = (dev.manufacturer or "").split(" (")[0]
    if maker and name.lower().startswith(maker.lower() + " "):
        name = name[len(maker) + 1:]
    return name





def fit(text: str, font: str, size: float, room: float, *, whole_words: bool = False) -> str:
    """``text`` cut to fit ``room`` points: with ``whole_words``, by dropping trailing words while two are left
    ("Quantum-2 QM9700 NDR InfiniBand switch" -> "Quantum-2 QM9700 NDR"), else with an ellipsis
    (empty when not even one letter fits). Only as much of ``text`` as the room could hold is looked at, and
    the ellipsis is placed by bisection (:mod:`exporters.pdf_text`): a 5 MB name costs what a long one does."""
    text, cut = pdf_text.head(text, font, size, room)
    if not cut and stringWidth(text, font, size) <= room:
        return text
    if whole_words:
        words = text.split()
        if cut and text[-1].isspace():
            words.append("")  # the cut fell between words: the first pop takes this, so all of them are tried
        while len(words) > 2:
            words.pop()
            while len(words) > 2 and words[-1].isdigit():  # "Spectrum SN2201 1" would misread "1 GbE"
                words.pop()
            short = " ".join(words).rstrip(" ,;:(-")
            if short.count("(") > short.count(")"):  # "NVLink Switch tray (GB200" reads as a cut, not a name
                continue
            if stringWidth(short, font, size) <= room:
                return short
    return pdf_text.ellipsise(text, font, size, room, strip=" ,(-", empty="")


def elevation_drawing(rack: Rack, catalog: Catalog, *, width: float = 250.0, height: float = 440.0,
                      title: str = "", subtitle: str = "") -> Drawing:
    """Both faces of ``rack`` in ``width × height`` points; ``title``/``subtitle`` head it (the rack's own name
    and its type when not given)."""
    st.register_fonts()  # the drawing measures and names its text in the embedded font
    rtype = catalog.find(rack.type)
    units = int(rtype.rack_units) if rtype is not None and rtype.rack_units else 42
    d = Drawing(width, height, initialFontName=st.FONT, initialFontSize=7)
    title = title or (rack.name or rack.id)
    subtitle = subtitle or (rtype.name if rtype is not None else rack.type)
    d.add(String(0, height - 10, fit(title, st.BOLD, 8.6, width), fontName=st.BOLD, fontSize=8.6, fillColor=st.ACCENT))
    d.add(String(0, height - 21, fit(subtitle, st.FONT, 6.8, width), fontName=st.FONT, fontSize=6.8,
                 fillColor=st.MUTED))

    # what sits where: spans per face, strips per face
    blocks: dict[str, list[tuple[float, float, DeviceType, str]]] = {f: [] for f in FACES}  # (bottom, top, dev, kind)
    strips: dict[str, list[DeviceType]] = {f: [] for f in FACES}
    illustrative = False
    for device in rack.devices:
        dev = catalog.find(device.type)
        if dev is None:
            continue
        face = device.face if device.face in FACES else "front"
        other = FACES[1 - FACES.index(face)]
        span = occupied_span(dev, device, units)
        if span is None:
            strips[face].append(dev)
            continue
        bottom, top = span
        if dev.fills_rack and dev.components:
            parts = [part for _, part in system_components(dev, catalog)]
            used = sum(p.u_height for p in parts)
            u = bottom + max(0.0, ((top - bottom) - used) // 2)
            for part in parts:
                blocks[face].append((u, u + part.u_height, part, "tray"))
                u += part.u_height
            illustrative = True
        else:
            blocks[face].append((bottom, top, dev, "own"))
        blocks[other].append((bottom, top, dev, "ghost-" + face))

    n_strips = max(1, max((len(s) + 1) // 2 for s in strips.values()))
    side = n_strips * (STRIP_PT + STRIP_GAP) + 3
    face_w = (width - SCALE_COL_PT - 4 * side) / 2
    foot = 10.0 if illustrative else 2.0
    top_y = height - HEADER_PT - FACE_TITLE_PT
    pitch = (top_y - foot) / units
    bottom_y = top_y - pitch * units
    x_front = side
    x_rear = side + face_w + side + SCALE_COL_PT + side
    for face, x in (("front", x_front), ("rear", x_rear)):
        d.add(String(x + face_w / 2, top_y + 4, face.capitalize(), fontName=st.BOLD, fontSize=7.4, fillColor=st.TEXT,
                     textAnchor="middle"))
        _face(d, x, bottom_y, face_w, pitch, units, blocks[face], strips[face])

    # the U scale, shared by both faces
    cx = side + face_w + side + SCALE_COL_PT / 2
    step = 1 if pitch >= 6.5 else 2 if pitch >= 3.5 else 5
    size = min(5.8, max(3.4, pitch * 0.78))
    for u in range(1, units + 1):
        if u % step and u != 1:
            continue
        y = bottom_y + (u - 0.5) * pitch - size * 0.35
        d.add(String(cx, y, str(u), fontName=st.FONT, fontSize=size, fillColor=st.MUTED, textAnchor="middle"))
    d.add(String(cx, top_y + 4, "U", fontName=st.BOLD, fontSize=7.4, fillColor=st.TEXT, textAnchor="middle"))
    if illustrative:
        d.add(String(0, 1, "Tray order is illustrative: the vendor publishes no U map.", fontName=st.ITALIC,
                     fontSize=6.2, fillColor=st.MUTED))
    return d


def _face(d: Drawing, x: float, y0: float, w: float, pitch: float, units: int,
          blocks: list[tuple[float, float, DeviceType, str]], strips: list[DeviceType]) -> None:
    h = pitch * units
    d.add(Rect(x, y0, w, h, fillColor=st.SLOT, strokeColor=None))
    if pitch >= 2.5:
        for u in range(1, units):
            d.add(Line(x, y0 + u * pitch, x + w, y0 + u * pitch, strokeColor=st.SLOT_LINE, strokeWidth=0.3))
    for bottom, top, dev, kind in sorted(blocks, key=lambda b: b[0]):
        by, bh = y0 + (bottom - 1) * pitch, (top - bottom) * pitch
        units_text = f"U{bottom:g}" if top - bottom <= 1 else f"U{bottom:g}–{top - 1:g}"
        if kind.startswith("ghost"):
            mounted = kind.split("-", 1)[1]
            d.add(Rect(x + 0.8, by + 0.5, w - 1.6, bh - 1, fillColor=GHOST_FILL, strokeColor=GHOST_LINE,
                       strokeWidth=0.5, strokeDashArray=[1.5, 1.2]))
            if dev.fills_rack:
                text = f"{short_name(dev)}: {mounted} side; this side holds its NVLink spine, bus bar and manifolds"
            else:
                text = f"{short_name(dev)} ({mounted}-mounted)"
            _text(d, text, x, by, w, bh, st.MUTED, italic=True, largest=GHOST_FONT)
            continue
        fill = st.DEVICE_COLOURS.get(device_role(dev), st.DEVICE_COLOURS["management"])
        d.add(Rect(x + 0.5, by + 0.35, w - 1, bh - 0.7, fillColor=fill, strokeColor=st.WHITE, strokeWidth=0.5))
        colour = st.text_on(fill)
        if bh >= 3 * MIN_FONT + 4 and kind != "tray":
            size = min(NAME_FONT, bh * 0.3)
            _text(d, short_name(dev), x, by + bh / 2 + size * 0.15, w, size / 0.62, colour, bold=True,
                  largest=NAME_FONT)
            _text(d, units_text, x, by + bh / 2 - size * 1.25, w, size / 0.62 * 0.9, colour, largest=NAME_FONT)
        else:
            _text(d, short_name(dev), x, by, w, bh, colour, bold=kind != "tray")
    # rails
    d.add(Rect(x, y0, w, h, fillColor=None, strokeColor=st.HALL_BORDER, strokeWidth=0.9))
    for i, dev in enumerate(strips):
        slot, left = i // 2, i % 2 == 0
        sx = (x - STRIP_GAP - STRIP_PT - slot * (STRIP_PT + STRIP_GAP)) if left else \
            (x + w + STRIP_GAP + slot * (STRIP_PT + STRIP_GAP))
        sy, sh = y0 + 3, h - 6
        fill = st.DEVICE_COLOURS.get(device_role(dev), st.DEVICE_COLOURS["pdu"])
        d.add(Rect(sx, sy, STRIP_PT, sh, fillColor=fill, strokeColor=None))
        size = min(5.4, STRIP_PT * 0.75)
        label = fit(short_name(dev), st.FONT, size, sh - 6)
        g = Group(String(0, -size * 0.35, label, fontName=st.FONT, fontSize=size, fillColor=st.text_on(fill),
                         textAnchor="middle"))
        g.translate(sx + STRIP_PT / 2, sy + sh / 2)
        g.rotate(90)
        d.add(g)


def _text(d: Drawing, text: str, x: float, y: float, w: float, h: float, colour, *, bold: bool = False,
          italic: bool = False, largest: float = MAX_FONT) -> None:
    """``text`` centred in the box (x, y, w, h), as large as the box allows up to the label size, wrapped
    onto more lines where the box is tall enough and cut with an ellipsis where it is not."""
    size = min(largest, h * 0.62)
    if size < MIN_FONT:
        return
    font = st.BOLD if bold else st.ITALIC if italic else st.FONT
    room = w - 5
    lines = _wrap(st.printable(text), font, size, room, max(1, int((h - 2) // (size * 1.25))))
    lead = size * 1.2
    first = y + h / 2 + (len(lines) - 1) * lead / 2 - size * 0.35
    for i, line in enumerate(lines):
        label = fit(line, font, size, room, whole_words=len(lines) == 1)
        if label:
            d.add(String(x + w / 2, first - i * lead, label, fontName=font, fontSize=size, fillColor=colour,
                         textAnchor="middle"))


def _wrap(text: str, font: str, size: float, room: float, max_lines: int) -> list[str]:
    """Words onto at most ``max_lines`` lines of ``room`` points; the last line keeps the rest (cut by the caller)."""
    if max_lines <= 1 or stringWidth(text, font, size) <= room:
        return [text]
    lines, line = [], ""
    words = text.split()
    for i, word in enumerate(words):
        trial = f"{line} {word}".strip()
        if line and stringWidth(trial, font, size) > room:
            lines.append(line)
            if len(lines) == max_lines - 1:
                return lines + [" ".join(words[i:])]
            line = word
        else:
            line = trial
    return lines + [line] if line else lines


__all__ = ["elevation_drawing", "short_name"]
