"""A hall's floor plan as a reportlab ``Drawing``: outline, tile grid, racks by role or by power load, CDUs.

The drawing is plain vector shapes, so the quote PDF places it as it is and the same
object is the SVG and PNG export (``exporters.plan_image``). It is drawn at a standard
architectural scale (1:50, 1:100 ...) chosen so the hall fits, so a printed page can be
measured, and the scale bar holds whatever size it is shown at.

A 100,000-GPU hall holds about 8,000 racks: every rack of one colour is one path
(a handful of shapes, not thousands), and labels are only computed where a rack is
large enough on paper to carry one.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import shapely
from reportlab.graphics.shapes import (
    FILL_NON_ZERO,
    Circle,
    Drawing,
    Group,
    Line,
    Path,
    Polygon,
    Rect,
    String,
)
from reportlab.lib.attrmap import AttrMap, AttrMapValue
from reportlab.lib.validators import isAnything
from reportlab.pdfbase.pdfmetrics import stringWidth

from designer.colours import load_band
from designer.formatting import count, number, quantity
from designer.placement.footprints import floor_footprint, rack_size
from designer.placement.geometry import corner_arrays
from designer.rack_roles import ROLES as ROLE_ORDER
from designer.rack_roles import rack_role
from designer.views import ViewError

from . import pdf_style as st

if TYPE_CHECKING:
    from designer.analysis import Analysis

PT_PER_MM = 72.0 / 25.4
#: Scales a plan is drawn at (1:N), the first whose paper size fits the space wins.
SCALES = (20, 25, 50, 75, 100, 125, 150, 200, 250, 300, 400, 500, 750, 1000, 1250, 1500, 2000, 2500, 3000, 4000,
          5000, 7500, 10000, 15000, 20000, 25000, 50000)
COLOUR_BY = ("role", "power")
#: Below this many points a label would be unreadable in print, so none is drawn.
MIN_LABEL_PT = 3.4
MAX_LABEL_PT = 6.5
#: Most tile lines a grid is drawn with (a 6 km hall at 600 mm tiles); a larger hall gets none.
MAX_GRID_LINES = 20_000
#: Below this many points per tile the grid is noise.
MIN_TILE_PT = 5.0
HEADER_PT = 30.0
LEGEND_ROW_PT = 13.0


class PlanDrawing(Drawing):
    """A floor-plan drawing that also says what it shows (for captions and tests)."""

    _attrMap = AttrMap(BASE=Drawing, hall_name=AttrMapValue(isAnything), scale=AttrMapValue(isAnything),
                       racks_drawn=AttrMapValue(isAnything), labels_drawn=AttrMapValue(isAnything),
                       legend=AttrMapValue(isAnything), colour_by=AttrMapValue(isAnything),
                       page_map=AttrMapValue(isAnything))

    def page_point(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        """Where the hall's point (mm, y growing down the plan) lies on the drawing, in points from its
        bottom left corner (y growing up)."""
        k, ax, ay = self.page_map
        return ax + x_mm * k, ay - y_mm * k


def choose_scale(width_mm: float, height_mm: float, avail_w_pt: float, avail_h_pt: float) -> int:
    """The largest standard scale (smallest N of 1:N) at which ``width_mm × height_mm`` fits the space."""
    for n in SCALES:
        k = PT_PER_MM / n
        if width_mm * k <= avail_w_pt and height_mm * k <= avail_h_pt:
            return n
    need = max(width_mm * PT_PER_MM / max(avail_w_pt, 1.0), height_mm * PT_PER_MM / max(avail_h_pt, 1.0))
    mag = 10 ** math.floor(math.log10(need))
    return int(next(m * mag for m in (1, 2, 5, 10) if m * mag >= need))


def _scale_bar_m(k_pt_per_mm: float, max_pt: float) -> float:
    """The longest 1-2-5 length in metres whose bar fits in ``max_pt``."""
    best = 0.1
    for exp in range(-1, 6):
        for m in (1, 2, 5):
            metres = m * 10 ** exp
            if metres * 1000 * k_pt_per_mm <= max_pt:
                best = metres
    return best


class _Legend:
    """Legend entries laid out left to right, wrapping into rows, measured before the plan takes its space."""

    def __init__(self, width: float, start_x: float):
        self.width, self.start_x = width, start_x
        self.items: list[tuple[str, object, str]] = []  # (kind, colour, label)

    def add(self, kind: str, colour, label: str) -> None:
        self.items.append((kind, colour, label))

    def _positions(self) -> list[tuple[float, int]]:
        x, row, out = self.start_x, 0, []
        for _, _, label in self.items:
            w = 14 + stringWidth(label, st.FONT, 7) + 12
            if x + w > self.width and x > self.start_x:
                x, row = self.start_x, row + 1
            out.append((x, row))
            x += w
        return out

    @property
    def rows(self) -> int:
        pos = self._positions()
        return (pos[-1][1] + 1) if pos else 1

    def draw(self, g: Group, top: float) -> None:
        for (kind, colour, label), (x, row) in zip(self.items, self._positions()):
            y = top - row * LEGEND_ROW_PT - 9
            if kind == "swatch":
                g.add(Rect(x, y - 1, 10, 8, fillColor=colour, strokeColor=st.WHITE, strokeWidth=0.4))
            elif kind == "front":
                g.add(Rect(x, y - 1, 10, 8, fillColor=st.ROLES["empty"][0], strokeColor=None))
                g.add(Line(x, y - 1, x + 10, y - 1, strokeColor=st.HALL_BORDER, strokeWidth=1.4))
            g.add(String(x + 14, y, label, fontName=st.FONT, fontSize=7, fillColor=st.TEXT))


def plan_drawing(analysis: Analysis, hall_id: str | None = None, *, width: float = 515.0, height: float = 640.0,
                 colour_by: str = "role", shrink: bool = True, shrink_width: bool = False) -> PlanDrawing:
    """One hall (the first when ``hall_id`` is None) as a drawing of ``width × height`` points.

    ``colour_by``: "role" (compute, network ... as on screen) or "power" (each rack's maximum draw as
    a share of its power limit, from the power engine). ``shrink``: the drawing is made shorter than
    ``height`` when the plan at its scale needs less; ``shrink_width``: narrower than ``width`` when the plan,
    its header and legend need less at the scale chosen for ``width`` (an image is the plan's own size, while a
    page in the quote keeps its column width).
    """
    st.register_fonts()  # the drawing measures and names its text in the embedded font
    if colour_by not in COLOUR_BY:
        raise ValueError(f"colour_by must be one of {', '.join(COLOUR_BY)}, not {colour_by!r}")
    project, catalog = analysis.project, analysis.catalog
    if project is None or catalog is None or not project.halls:
        raise ValueError("the analysis holds no hall to draw")
    hall = project.hall(hall_id) if hall_id is not None else project.halls[0]
    racks = [r for r in project.racks if r.hall == hall.id]
    floors = [f for f in project.floor_devices if f.hall == hall.id]

    d = PlanDrawing(width, height, initialFontName=st.FONT, initialFontSize=7)
    d.hall_name, d.colour_by, d.racks_drawn, d.labels_drawn = hall.name or hall.id, colour_by, len(racks), 0

    # -- what is drawn, and in which colour ------------------------------------------------------
    sizes: dict[str, tuple[float, float]] = {}
    rows = np.empty((len(racks), 5), dtype=float)
    for i, r in enumerate(racks):
        size = sizes.get(r.type)
        if size is None:
            size = sizes[r.type] = rack_size(catalog, r.type)
        rows[i] = (r.x, r.y, size[0], size[1], r.rotation)
    if colour_by == "role":
        keys = [rack_role(r, catalog) for r in racks]
        fill_of = {role: st.ROLES[role][0] for role in ROLE_ORDER}
    else:
        # The window's load bands: one colour per band, so racks of one band share one path and the key
        # lists exactly the colours drawn.
        share = {row.id: row.utilisation for row in _power_racks(analysis)}
        keys = [load_band(share.get(r.id)) for r in racks]  # a rack the power engine does not list: no data
        fill_of = {band: st.HEAT_BANDS[band][0] for band in st.HEAT_BANDS}
    counts = Counter(keys)

    floor_prints = [floor_footprint(f, catalog) for f in floors]
    cdu_ids = {f.id for f in floors if (catalog.find(f.type) is not None and catalog.get(f.type).kind == "cdu")}

    # -- legend (measured first: it takes its rows from the plan's space) --------------------------
    bar_space = 150.0
    legend = _Legend(width - 4, bar_space)
    if colour_by == "role":
        for role in ROLE_ORDER:
            if counts.get(role):
                legend.add("swatch", st.ROLES[role][0], f"{st.ROLES[role][1]} ({number(counts[role])})")
    else:
        for band, (colour, label) in st.HEAT_BANDS.items():
            if counts.get(band):
                legend.add("swatch", colour, f"{label} ({number(counts[band])})")
    n_cdu = sum(1 for f in floors if f.id in cdu_ids)
    # On the power map a CDU shows the load of its loop against the loop's capacity, as the window's heat map does.
    cdu_band: dict[str, str] = {}
    if colour_by == "power":
        for loop in _cdu_loops(analysis):
            for unit in loop.units:
                kind, _, uid = unit.partition(":")
                if kind == "floor":
                    cdu_band[uid] = load_band(loop.utilisation)
    if n_cdu and colour_by == "power":
        by_band = Counter(cdu_band.get(f.id, "no_data") for f in floors if f.id in cdu_ids)
        for band, (colour, label) in st.HEAT_BANDS.items():
            if by_band.get(band):
                legend.add("swatch", colour, f"CDU loop {label[0].lower()}{label[1:]} ({number(by_band[band])})")
    elif n_cdu:
        legend.add("swatch", st.CDU[0], f"{st.CDU[1]} ({number(n_cdu)})")
    if len(floors) > n_cdu:
        legend.add("swatch", st.FLOOR_OTHER[0], f"{st.FLOOR_OTHER[1]} ({number(len(floors) - n_cdu)})")
    if racks:
        legend.add("front", None, "front of rack")
    # measured with the front-edge entry; it is dropped below when racks are too small to show an edge
    legend_h = legend.rows * LEGEND_ROW_PT + 6

    # -- header texts (measured before placement: a narrowed drawing keeps room for them) -------------
    bx0, by0, bx1, by1 = hall.bounds
    title = st.printable(hall.name or hall.id)
    what = ("racks by role" if colour_by == "role" else
            "racks by maximum draw as a share of their power limit"
            + ("; CDUs by their loop's load" if n_cdu else ""))
    floor_units = f", {count(len(floors), 'floor unit')}" if floors else ""
    sub = st.printable(f"{quantity((bx1 - bx0) / 1000, 'm')} × {quantity((by1 - by0) / 1000, 'm')}, "
                       f"{quantity(hall.area_m2, 'm²')}, {count(len(racks), 'rack')}{floor_units}; {what}")

    # -- scale and placement -----------------------------------------------------------------------
    xs = [p[0] for p in hall.outline]
    ys = [p[1] for p in hall.outline]
    if len(racks):
        corners = corner_arrays(rows)
        xs += [float(corners[..., 0].min()), float(corners[..., 0].max())]
        ys += [float(corners[..., 1].min()), float(corners[..., 1].max())]
    for fp in floor_prints:
        xs += [fp.x - fp.width / 2, fp.x + fp.width / 2]
        ys += [fp.y - fp.depth / 2, fp.y + fp.depth / 2]
    minx, maxx, miny, maxy = min(xs), max(xs), min(ys), max(ys)
    span_x, span_y = max(maxx - minx, 1.0), max(maxy - miny, 1.0)
    avail_w, avail_h = width - 8, height - HEADER_PT - legend_h - 8
    scale = choose_scale(span_x, span_y, avail_w, avail_h)
    k = PT_PER_MM / scale
    scale_label = f"Scale 1:{number(scale)} at print size"
    if shrink_width:
        widest_item = max((14 + stringWidth(label, st.FONT, 7) + 12 for _, _, label in legend.items), default=0.0)
        need = math.ceil(max(span_x * k + 8,
                             stringWidth(title, st.BOLD, 10) + 16 + stringWidth(scale_label, st.FONT, 7.5) + 4,
                             stringWidth(sub, st.FONT, 7) + 4, bar_space + widest_item + 4))
        if need < width:
            # a narrower legend may wrap into more rows; narrow only if the plan still fits at its scale
            legend.width = need - 4
            narrow_legend_h = legend.rows * LEGEND_ROW_PT + 6
            if span_y * k <= height - HEADER_PT - narrow_legend_h - 8:
                width, legend_h = need, narrow_legend_h
                d.width = width
                avail_w, avail_h = width - 8, height - HEADER_PT - legend_h - 8
            else:
                legend.width = width - 4
    if shrink:  # no band of empty paper above and below a hall that is wider than the space is tall
        # whole points: an SVG's viewBox and a PNG's pixel size come out exact
        height = min(height, math.ceil(HEADER_PT + legend_h + span_y * k + 14))
        d.height = height
        avail_h = height - HEADER_PT - legend_h - 8
    ox = (width - span_x * k) / 2
    oy = legend_h + 4 + (avail_h - span_y * k) / 2
    d.scale = scale
    d.page_map = (k, ox - minx * k, oy + maxy * k)

    def tx(x):
        return ox + (x - minx) * k

    def ty(y):  # the model's y grows downward, the page's upward
        return oy + (maxy - y) * k

    # -- hall floor and tile grid ------------------------------------------------------------------
    outline = [c for x, y in hall.outline for c in (tx(x), ty(y))]
    d.add(Polygon(outline, fillColor=st.HALL_FILL, strokeColor=None))
    tile = hall.tile_mm
    if tile > 0 and tile * k >= MIN_TILE_PT and len(hall.outline) >= 3:
        d.add(_grid(hall.outline, tile, tx, ty))
    d.add(Polygon(outline, fillColor=None, strokeColor=st.HALL_BORDER, strokeWidth=1.1))

    # -- racks: one path per colour ----------------------------------------------------------------
    if len(racks):
        page = np.empty_like(corners)
        page[..., 0] = ox + (corners[..., 0] - minx) * k
        page[..., 1] = oy + (maxy - corners[..., 1]) * k
        short_side = np.minimum(rows[:, 2], rows[:, 3]) * k
        stroke_w = float(min(0.6, max(0.12, float(np.median(short_side)) * 0.05)))
        by_key: dict[object, list[int]] = defaultdict(list)
        for i, key in enumerate(keys):
            by_key[key].append(i)
        for key in sorted(by_key, key=lambda x: (x is None, str(x))):
            path = Path(fillColor=fill_of[key], strokeColor=st.WHITE, strokeWidth=stroke_w, fillMode=FILL_NON_ZERO)
            pts, ops = path.points, path.operators
            for i in by_key[key]:
                c = page[i]
                pts.extend((float(c[0, 0]), float(c[0, 1]), float(c[1, 0]), float(c[1, 1]),
                            float(c[2, 0]), float(c[2, 1]), float(c[3, 0]), float(c[3, 1])))
                ops.extend((0, 1, 1, 1, 3))
            d.add(path)
        if float(np.median(short_side)) < 3.0:
            legend.items = [item for item in legend.items if item[0] != "front"]
        else:
            # the front edge (corners 0-1, the -y side at rotation 0) shows which way the aisles face
            front = Path(fillColor=None, strokeColor=st.HALL_BORDER, strokeWidth=min(1.2, stroke_w * 2.2))
            for c in page:
                front.points.extend((float(c[0, 0]), float(c[0, 1]), float(c[1, 0]), float(c[1, 1])))
                front.operators.extend((0, 1))
            d.add(front)
        if float(short_side.max()) >= MIN_LABEL_PT * 2:
            fits = [_fit(r.name or r.id, page[i]) for i, r in enumerate(racks)]
            # one direction for every label where it serves them all; a mix of directions looks untidy
            level = all(f.across >= 0.8 * max(f.across, f.along) for f in fits)
            for i, f in enumerate(fits):
                if _put(d, f, level, st.text_on(fill_of[keys[i]])):
                    d.labels_drawn += 1

    # -- floor units ---------------------------------------------------------------------------------
    for f, fp in zip(floors, floor_prints):
        if f.id not in cdu_ids:
            colour = st.FLOOR_OTHER[0]
        elif colour_by == "power":
            colour = st.HEAT_BANDS[cdu_band.get(f.id, "no_data")][0]
        else:
            colour = st.CDU[0]
        if fp.solid:
            c = corner_arrays(np.array([[fp.x, fp.y, fp.width, fp.depth, fp.rotation]]))[0]
            pc = np.column_stack([ox + (c[:, 0] - minx) * k, oy + (maxy - c[:, 1]) * k])
            d.add(Polygon(pc.ravel().tolist(), fillColor=colour, strokeColor=st.WHITE, strokeWidth=0.4))
            if _put(d, _fit(f.name or f.id, pc), False, st.text_on(colour)):
                d.labels_drawn += 1
        else:
            d.add(Circle(tx(f.x), ty(f.y), 2.2, fillColor=colour, strokeColor=st.WHITE, strokeWidth=0.3))

    # -- header, scale bar, legend ---------------------------------------------------------------------
    d.add(String(2, height - 12, title, fontName=st.BOLD, fontSize=10, fillColor=st.ACCENT))
    d.add(String(2, height - 23, sub, fontName=st.FONT, fontSize=7, fillColor=st.MUTED))
    d.add(String(width - 2, height - 12, scale_label, fontName=st.FONT, fontSize=7.5, fillColor=st.MUTED,
                 textAnchor="end"))
    _scale_bar(d, k, 2, legend_h - 11, bar_space - 24)
    legend.draw(d, legend_h)
    d.legend = [label for _, _, label in legend.items]
    return d


def _power_racks(analysis: Analysis):
    """The power engine's racks; none (every rack "no data") for an analysis made without that engine."""
    try:
        return analysis.power.racks
    except ViewError:
        return ()


def _cdu_loops(analysis: Analysis):
    """The cooling engine's CDU loops; none for an analysis made without that engine."""
    try:
        return analysis.cooling.cdu_loops
    except ViewError:
        return ()


def grid_segments(outline, tile: float):
    """Tile lines on multiples of the tile from the hall's origin (as the window draws them), clipped to
    the outline, as ((x0, y0), (x1, y1)) in the plan's coordinates: the PDF, SVG, PNG and DXF grids alike."""
    if tile <= 0 or len(outline) < 3:
        return
    poly = shapely.Polygon(outline)
    if not poly.is_valid:
        poly = poly.buffer(0)
    x0, y0, x1, y1 = poly.bounds
    if not all(map(math.isfinite, (x0, y0, x1, y1))) or (x1 - x0 + y1 - y0) / tile > MAX_GRID_LINES:
        return  # a hall kilometres across: its tiles are no longer lines anyone reads, only a grey field
    lines = [shapely.LineString([(x, y0 - 1), (x, y1 + 1)])
             for x in np.arange(math.ceil(x0 / tile) * tile, x1 + 1e-6, tile)]
    lines += [shapely.LineString([(x0 - 1, y), (x1 + 1, y)])
              for y in np.arange(math.ceil(y0 / tile) * tile, y1 + 1e-6, tile)]
    if not lines:
        return
    for part in shapely.intersection(np.array(lines, dtype=object), poly):
        for seg in getattr(part, "geoms", [part]):
            yield from itertools.pairwise(list(getattr(seg, "coords", ())))


def _grid(outline, tile: float, tx, ty) -> Path:
    path = Path(fillColor=None, strokeColor=st.GRID, strokeWidth=0.35)
    for (xa, ya), (xb, yb) in grid_segments(outline, tile):
        path.moveTo(tx(xa), ty(ya))
        path.lineTo(tx(xb), ty(yb))
    return path


class _Fit(NamedTuple):
    text: str
    cx: float
    cy: float
    #: the largest font size of the text level on the page, and turned along the page's vertical
    across: float
    along: float
    tall: bool


def _fit(text: str, corners: np.ndarray) -> _Fit:
    """How large ``text`` can be printed inside a footprint, level or turned."""
    text = st.printable(text)
    xs, ys = corners[:, 0], corners[:, 1]
    bw, bh = float(xs.max() - xs.min()), float(ys.max() - ys.min())
    unit = stringWidth(text, st.FONT, 1.0) or 1.0
    across = min(MAX_LABEL_PT, bh * 0.6, (bw - 2) / unit)
    along = min(MAX_LABEL_PT, bw * 0.6, (bh - 2) / unit)
    return _Fit(text, float(xs.mean()), float(ys.mean()), across, along, bh > bw)


def _put(d: Drawing, f: _Fit, level: bool, colour) -> bool:
    """The name centred in its footprint: level when ``level``, else along the footprint's long side, else the
    other way when that is the only one that fits; False when it fits neither way."""
    turned = not level and f.tall
    size = f.along if turned else f.across
    if size < MIN_LABEL_PT:
        turned, size = not turned, (f.across if turned else f.along)
    if size < MIN_LABEL_PT:
        return False
    g = Group(String(0, -size * 0.35, f.text, fontName=st.FONT, fontSize=size, fillColor=colour, textAnchor="middle"))
    g.translate(f.cx, f.cy)
    if turned:
        g.rotate(90)
    d.add(g)
    return True


def _scale_bar(d: Drawing, k: float, x: float, y: float, max_pt: float) -> None:
    metres = _scale_bar_m(k, max_pt)
    length = metres * 1000 * k
    parts = 4
    for i in range(parts):
        d.add(Rect(x + i * length / parts, y, length / parts, 3.2, strokeColor=st.TEXT, strokeWidth=0.4,
                   fillColor=st.TEXT if i % 2 == 0 else st.WHITE))
    d.add(String(x, y + 5, "0", fontName=st.FONT, fontSize=6.5, fillColor=st.TEXT))
    d.add(String(x + length, y + 5, quantity(metres, "m"), fontName=st.FONT, fontSize=6.5, fillColor=st.TEXT,
                 textAnchor="middle"))


__all__ = ["COLOUR_BY", "SCALES", "PlanDrawing", "choose_scale", "plan_drawing"]
