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

from . import pdf_style as st
from . import pdf_text

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
#: Width kept left of the legend for the scale bar.
BAR_SPACE_PT = 150.0
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
    c = _Contents(analysis, hall, colour_by)
    d = PlanDrawing(width, height, initialFontName=st.FONT, initialFontSize=7)
    d.hall_name, d.colour_by, d.racks_drawn, d.labels_drawn = hall.name or hall.id, colour_by, len(c.racks), 0

    # the legend is measured first: it takes its rows from the plan's space
    legend = _legend_of(c, width)
    # measured with the front-edge entry; it is dropped below when racks are too small to show an edge
    legend_h = legend.rows * LEGEND_ROW_PT + 6
    # the header texts too: a narrowed drawing keeps room for them
    title, sub = _header_texts(hall, c)

    # -- scale and placement -----------------------------------------------------------------------
    minx, maxx, miny, maxy = c.extent(hall)
    span_x, span_y = max(maxx - minx, 1.0), max(maxy - miny, 1.0)
    avail_w, avail_h = width - 8, height - HEADER_PT - legend_h - 8
    scale = choose_scale(span_x, span_y, avail_w, avail_h)
    k = PT_PER_MM / scale
    scale_label = f"Scale 1:{number(scale)} at print size"
    # the hall's name takes what the scale leaves of the line, cut with an ellipsis when it is longer
    title = pdf_text.clip(title, st.BOLD, 10, width - 20 - stringWidth(scale_label, st.FONT, 7.5))
    if shrink_width:
        widest_item = max((14 + stringWidth(label, st.FONT, 7) + 12 for _, _, label in legend.items), default=0.0)
        need = math.ceil(max(span_x * k + 8,
                             stringWidth(title, st.BOLD, 10) + 16 + stringWidth(scale_label, st.FONT, 7.5) + 4,
                             stringWidth(sub, st.FONT, 7) + 4, BAR_SPACE_PT + widest_item + 4))
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
    page = _Page(k, (width - span_x * k) / 2, legend_h + 4 + (avail_h - span_y * k) / 2, minx, maxy)
    d.scale = scale
    d.page_map = (k, page.ox - minx * k, page.oy + maxy * k)

    # -- hall floor and tile grid, racks, floor units ------------------------------------------------
    outline = [v for x, y in hall.outline for v in (page.tx(x), page.ty(y))]
    d.add(Polygon(outline, fillColor=st.HALL_FILL, strokeColor=None))
    tile = hall.tile_mm
    if tile > 0 and tile * k >= MIN_TILE_PT and len(hall.outline) >= 3:
        d.add(_grid(hall.outline, tile, page.tx, page.ty))
    d.add(Polygon(outline, fillColor=None, strokeColor=st.HALL_BORDER, strokeWidth=1.1))
    if c.racks:
        _draw_racks(d, c, page, legend)
    _draw_floor_units(d, c, page)

    # -- header, scale bar, legend ---------------------------------------------------------------------
    d.add(String(2, height - 12, title, fontName=st.BOLD, fontSize=10, fillColor=st.ACCENT))
    d.add(String(2, height - 23, sub, fontName=st.FONT, fontSize=7, fillColor=st.MUTED))
    d.add(String(width - 2, height - 12, scale_label, fontName=st.FONT, fontSize=7.5, fillColor=st.MUTED,
                 textAnchor="end"))
    _scale_bar(d, k, 2, legend_h - 11, BAR_SPACE_PT - 24)
    legend.draw(d, legend_h)
    d.legend = [label for _, _, label in legend.items]
    return d


class _Contents:
    """What one hall's plan draws: its racks (footprints, and the key each is coloured by) and floor units (their
    footprints, which are CDUs, and on the power map the load band of each CDU's loop)."""

    def __init__(self, analysis: Analysis, hall, colour_by: str):
        catalog = analysis.catalog
        self.colour_by = colour_by
        self.racks = [r for r in analysis.project.racks if r.hall == hall.id]
        self.floors = [f for f in analysis.project.floor_devices if f.hall == hall.id]
        sizes: dict[str, tuple[float, float]] = {}
        self.rows = np.empty((len(self.racks), 5), dtype=float)
        for i, r in enumerate(self.racks):
            size = sizes.get(r.type)
            if size is None:
                size = sizes[r.type] = rack_size(catalog, r.type)
            self.rows[i] = (r.x, r.y, size[0], size[1], r.rotation)
        self.corners = corner_arrays(self.rows) if self.racks else None
        if colour_by == "role":
            self.keys = [rack_role(r, catalog) for r in self.racks]
            self.fill_of = {role: st.ROLES[role][0] for role in ROLE_ORDER}
        else:
            # The window's load bands: one colour per band, so racks of one band share one path and the key
            # lists exactly the colours drawn.
            share = _rack_shares(analysis)
            self.keys = [load_band(share.get(r.id)) for r in self.racks]  # a rack the engine does not list: no data
            self.fill_of = {band: st.HEAT_BANDS[band][0] for band in st.HEAT_BANDS}
        self.counts = Counter(self.keys)
        self.floor_prints = [floor_footprint(f, catalog) for f in self.floors]
        self.cdu_ids = {f.id for f in self.floors
                        if (catalog.find(f.type) is not None and catalog.get(f.type).kind == "cdu")}
        self.n_cdu = sum(1 for f in self.floors if f.id in self.cdu_ids)
        # On the power map a CDU shows the load of its loop against the loop's capacity, as the window's heat
        # map does.
        self.cdu_band: dict[str, str] = {}
        if colour_by == "power":
            for loop in _cdu_loops(analysis):
                for unit in loop.units:
                    kind, _, uid = unit.partition(":")
                    if kind == "floor":
                        self.cdu_band[uid] = load_band(loop.utilisation)

    def extent(self, hall) -> tuple[float, float, float, float]:
        """(min x, max x, min y, max y) of the hall's outline, its racks and its floor units, in mm."""
        xs = [p[0] for p in hall.outline]
        ys = [p[1] for p in hall.outline]
        if self.racks:
            xs += [float(self.corners[..., 0].min()), float(self.corners[..., 0].max())]
            ys += [float(self.corners[..., 1].min()), float(self.corners[..., 1].max())]
        for fp in self.floor_prints:
            xs += [fp.x - fp.width / 2, fp.x + fp.width / 2]
            ys += [fp.y - fp.depth / 2, fp.y + fp.depth / 2]
        return min(xs), max(xs), min(ys), max(ys)

    def floor_colour(self, f) -> object:
        if f.id not in self.cdu_ids:
            return st.FLOOR_OTHER[0]
        if self.colour_by == "power":
            return st.HEAT_BANDS[self.cdu_band.get(f.id, "no_data")][0]
        return st.CDU[0]


class _Page(NamedTuple):
    """Where the hall's millimetres land on the drawing: ``k`` points per mm, the plan's corner at (ox, oy)."""
    k: float
    ox: float
    oy: float
    minx: float
    maxy: float

    def tx(self, x):
        return self.ox + (x - self.minx) * self.k

    def ty(self, y):  # the model's y grows downward, the page's upward
        return self.oy + (self.maxy - y) * self.k


def _legend_of(c: _Contents, width: float) -> _Legend:
    """A swatch per colour drawn, with its count, and the front-edge mark."""
    legend = _Legend(width - 4, BAR_SPACE_PT)
    if c.colour_by == "role":
        for role in ROLE_ORDER:
            if c.counts.get(role):
                legend.add("swatch", st.ROLES[role][0], f"{st.ROLES[role][1]} ({number(c.counts[role])})")
    else:
        for band, (colour, label) in st.HEAT_BANDS.items():
            if c.counts.get(band):
                legend.add("swatch", colour, f"{label} ({number(c.counts[band])})")
    if c.n_cdu and c.colour_by == "power":
        by_band = Counter(c.cdu_band.get(f.id, "no_data") for f in c.floors if f.id in c.cdu_ids)
        for band, (colour, label) in st.HEAT_BANDS.items():
            if by_band.get(band):
                legend.add("swatch", colour, f"CDU loop {label[0].lower()}{label[1:]} ({number(by_band[band])})")
    elif c.n_cdu:
        legend.add("swatch", st.CDU[0], f"{st.CDU[1]} ({number(c.n_cdu)})")
    if len(c.floors) > c.n_cdu:
        legend.add("swatch", st.FLOOR_OTHER[0], f"{st.FLOOR_OTHER[1]} ({number(len(c.floors) - c.n_cdu)})")
    if c.racks:
        legend.add("front", None, "front of rack")
    return legend


def _header_texts(hall, c: _Contents) -> tuple[str, str]:
    """The hall's name (as it is: the caller cuts it to the room it has), and its size, area, what it holds
    and what the colours show."""
    bx0, by0, bx1, by1 = hall.bounds
    what = ("racks by role" if c.colour_by == "role" else
            "racks by maximum draw as a share of their power limit"
            + ("; CDUs by their loop's load" if c.n_cdu else ""))
    floor_units = f", {count(len(c.floors), 'floor unit')}" if c.floors else ""
    sub = (f"{quantity((bx1 - bx0) / 1000, 'm')} × {quantity((by1 - by0) / 1000, 'm')}, "
           f"{quantity(hall.area_m2, 'm²')}, {count(len(c.racks), 'rack')}{floor_units}; {what}")
    return hall.name or hall.id, st.printable(sub)


def _draw_racks(d: PlanDrawing, c: _Contents, page: _Page, legend: _Legend) -> None:
    """The racks, one path per colour, their front edges where they are large enough to show one (else the
    legend's front-edge entry goes), and their names where they fit."""
    k = page.k
    corners = np.empty_like(c.corners)
    corners[..., 0] = page.ox + (c.corners[..., 0] - page.minx) * k
    corners[..., 1] = page.oy + (page.maxy - c.corners[..., 1]) * k
    short_side = np.minimum(c.rows[:, 2], c.rows[:, 3]) * k
    stroke_w = float(min(0.6, max(0.12, float(np.median(short_side)) * 0.05)))
    by_key: dict[object, list[int]] = defaultdict(list)
    for i, key in enumerate(c.keys):
        by_key[key].append(i)
    for key in sorted(by_key, key=lambda x: (x is None, str(x))):
        path = Path(fillColor=c.fill_of[key], strokeColor=st.WHITE, strokeWidth=stroke_w, fillMode=FILL_NON_ZERO)
        pts, ops = path.points, path.operators
        for i in by_key[key]:
            q = corners[i]
            pts.extend((float(q[0, 0]), float(q[0, 1]), float(q[1, 0]), float(q[1, 1]),
                        float(q[2, 0]), float(q[2, 1]), float(q[3, 0]), float(q[3, 1])))
            ops.extend((0, 1, 1, 1, 3))
        d.add(path)
    if float(np.median(short_side)) < 3.0:
        legend.items = [item for item in legend.items if item[0] != "front"]
    else:
        # the front edge (corners 0-1, the -y side at rotation 0) shows which way the aisles face
        front = Path(fillColor=None, strokeColor=st.HALL_BORDER, strokeWidth=min(1.2, stroke_w * 2.2))
        for q in corners:
            front.points.extend((float(q[0, 0]), float(q[0, 1]), float(q[1, 0]), float(q[1, 1])))
            front.operators.extend((0, 1))
        d.add(front)
    if float(short_side.max()) >= MIN_LABEL_PT * 2:
        fits = [_fit(r.name or r.id, corners[i]) for i, r in enumerate(c.racks)]
        # one direction for every label where it serves them all; a mix of directions looks untidy
        level = all(f.across >= 0.8 * max(f.across, f.along) for f in fits)
        for i, f in enumerate(fits):
            if _put(d, f, level, st.text_on(c.fill_of[c.keys[i]])):
                d.labels_drawn += 1


def _draw_floor_units(d: PlanDrawing, c: _Contents, page: _Page) -> None:
    """The floor units: their footprints, one path per colour (a large air-cooled hall has hundreds of air
    handlers), each with its name where it fits; a dot where a unit has no footprint."""
    solid = [(f, fp) for f, fp in zip(c.floors, c.floor_prints) if fp.solid]
    if solid:
        q = corner_arrays(np.array([[fp.x, fp.y, fp.width, fp.depth, fp.rotation] for _, fp in solid]))
        pcs = np.stack([page.tx(q[..., 0]), page.ty(q[..., 1])], axis=-1)
        colours = [c.floor_colour(f) for f, _ in solid]
        paths: dict[object, Path] = {}
        for colour, pc in zip(colours, pcs):
            path = paths.get(colour)
            if path is None:
                path = paths[colour] = Path(fillColor=colour, strokeColor=st.WHITE, strokeWidth=0.4,
                                            fillMode=FILL_NON_ZERO)
                d.add(path)
            path.points.extend(float(v) for v in pc.ravel())
            path.operators.extend((0, 1, 1, 1, 3))
        for (f, _), colour, pc in zip(solid, colours, pcs):
            if _put(d, _fit(f.name or f.id, pc), False, st.text_on(colour)):
                d.labels_drawn += 1
    for f, fp in zip(c.floors, c.floor_prints):
        if not fp.solid:
            d.add(Circle(page.tx(f.x), page.ty(f.y), 2.2, fillColor=c.floor_colour(f), strokeColor=st.WHITE,
                         strokeWidth=0.3))


def _rack_shares(analysis: Analysis) -> dict[str, float | None]:
    """Rack id -> its maximum draw as a share of its limit, from the power engine's per-rack arrays (the ones
    the window's heat map colours by, so the two agree; and no view is built per rack of a 12,500-rack plan).
    None where the engine has no figure; empty (every rack "no data") for an analysis made without it."""
    if not analysis.has("power"):
        return {}
    power = analysis.result("power")
    return {rid: None if share != share else share
            for rid, share in zip(power.rack_ids, power.rack_utilisation.tolist())}


def _cdu_loops(analysis: Analysis):
    """The cooling engine's CDU loops; none for an analysis made without that engine."""
    return analysis.cooling.cdu_loops if analysis.has("cooling") else ()


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
    xs, ys = corners[:, 0], corners[:, 1]
    bw, bh = float(xs.max() - xs.min()), float(ys.max() - ys.min())
    # no more of a long name than the footprint could hold at the smallest size is looked at: cut, it is
    # too wide for either way, as the whole of it is
    text, _ = pdf_text.head(text, st.FONT, MIN_LABEL_PT, max(bw, bh) - 2)
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
