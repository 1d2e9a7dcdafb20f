"""Each hall's single-line diagram (designer.power.single_line) on a DXF layer of its own, beside the plans: the
drawing the window and the PDF appendix show, scaled so it stands as tall as its hall's plan."""
from __future__ import annotations

from ezdxf.enums import TextEntityAlignment

from designer.colours import SLD_FEEDS, SLD_OVER
from designer.power.single_line import single_line

#: the layer, its colour (AutoCAD index) and description
LAYER, LAYER_ACI = "POWER-SINGLE-LINE", 7
FEED_LAYERS = {"A": ("POWER-SINGLE-LINE-A", 5), "B": ("POWER-SINGLE-LINE-B", 30), "": (LAYER, LAYER_ACI)}
OVER_LAYER = ("POWER-SINGLE-LINE-OVER", 40)


def hex_rgb(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def add_single_lines(doc, msp, analysis, x0: float, top: float, height: float, text_value, style: str) -> float:
    """Draw every hall's diagram left to right from ``x0`` (mm of model space), its top at ``top`` and about
    ``height`` tall; returns the right edge (``x0`` when there is none to draw)."""
    if not analysis.has("power"):
        return x0
    diagrams = [sl for h in analysis.project.halls if (sl := single_line(analysis.power, h)) is not None]
    if not diagrams:
        return x0
    for name, aci, colour, what in ((LAYER, LAYER_ACI, None, "Single-line diagram: boxes, text, unfed wires"),
                                    (*FEED_LAYERS["A"], SLD_FEEDS["A"], "Single-line diagram: feed A"),
                                    (*FEED_LAYERS["B"], SLD_FEEDS["B"], "Single-line diagram: feed B"),
                                    (*OVER_LAYER, SLD_OVER, "Single-line diagram: over its design margin")):
        if name not in doc.layers:
            layer = doc.layers.add(name, color=aci)
            if colour:
                layer.rgb = hex_rgb(colour)
            layer.description = what
    x = x0
    for sl in diagrams:
        k = height / sl.height  # sheet mm -> model mm
        boxes = {b.key: b for b in sl.boxes}

        def at(px: float, py: float, left=x, k=k) -> tuple[float, float]:
            return left + px * k, top - py * k

        title = msp.add_text(text_value(sl.title), height=4.0 * k, dxfattribs={"layer": LAYER, "style": style})
        title.set_placement(at(0, -2.0), align=TextEntityAlignment.BOTTOM_LEFT)
        for w in sl.wires:
            a, b = boxes[w.a], boxes[w.b]
            off = {"A": -1.5, "B": 1.5, "": 0.0}[w.side]
            x0w, x1w = a.x + a.w / 2 + off, b.x + b.w / 2 + off
            y0, y1 = a.y + a.h, b.y
            mid = (y0 + y1) / 2
            msp.add_lwpolyline([at(x0w, y0), at(x0w, mid), at(x1w, mid), at(x1w, y1)],
                               dxfattribs={"layer": FEED_LAYERS[w.side][0]})
        for b in sl.boxes:
            msp.add_lwpolyline([at(b.x, b.y), at(b.x + b.w, b.y), at(b.x + b.w, b.y + b.h), at(b.x, b.y + b.h)],
                               close=True, dxfattribs={"layer": OVER_LAYER[0] if b.over else LAYER})
            for i, line in enumerate((b.title, *b.lines)):
                text = msp.add_text(text_value(line), height=(2.2 if i == 0 else 1.9) * k,
                                    dxfattribs={"layer": LAYER, "style": style})
                text.set_placement(at(b.x + 1.2, b.y + 3.0 + 2.9 * i), align=TextEntityAlignment.BOTTOM_LEFT)
        x += (sl.width + 10.0) * k
    return x
