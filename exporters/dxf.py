"""The floor plan as DXF for CAD (AutoCAD, BricsCAD, LibreCAD): 1 drawing unit = 1 mm, named layers, rack blocks.

What a CAD user gets:

- one layer per kind of thing, so each can be switched off, recoloured or frozen: the hall outline, the
  floor tiles, racks by role (the roles and colours of the window and the quote), rack fronts, the front
  and rear clearance bands, CDUs and other floor units, rack and floor-unit names, and the title block;
- one BLOCK per rack type (its footprint, front edge and clearance bands) and one INSERT per rack at its
  centre and rotation, carrying the rack's name, the catalog name of its type, its maximum draw in kW and
  its GPUs as attributes (invisible: the name is also printed as a label, and CAD's attribute extraction
  reads all four). A 100,000-GPU hall is 8,115 INSERTs, not 8,115 copies of the geometry;
- floor units the same way (a block per type, an INSERT each).

Orientation: the project's y grows down the screen, DXF's Y grows up, so a point (x, y) of the plan is
drawn at (x, −y): the plan reads as it does in the window, north up, not mirrored. A rotation clockwise
on screen is then a negative (clockwise) DXF angle. Halls each have their own coordinates: the halls of a
site stand where the site puts them (:func:`designer.site.hall_origins`, as the cable lengths are
measured), other halls each right of the one before by a gap; the title block says where, hall by hall.

Cable routes are not drawn: the wiring plan computes each cable's length from the racks' centres
(overhead tray, Manhattan distance, drops and slack: :mod:`designer.fabric.geometry`), not a path, and a
drawn route would be an invention.
"""
from __future__ import annotations

import datetime as _dt
import math
import re
import uuid
from collections import Counter, defaultdict
from typing import TYPE_CHECKING

import ezdxf
import numpy as np
from ezdxf import units
from ezdxf.enums import TextEntityAlignment
from ezdxf.tools.juliandate import juliandate

from catalog.files import write_atomic
from designer.formatting import count, number, quantity
from designer.placement.arrange import FRONT_CLEARANCE_MM, REAR_CLEARANCE_MM, clearance_bands
from designer.placement.footprints import floor_footprint, rack_size
from designer.placement.geometry import corner_arrays
from designer.quote_settings import QuoteError, effective_date
from designer.rack_roles import ROLES, rack_role
from designer.site import hall_origins

from . import pdf_style as st
from .base import ExportError
from .dxf_entities import RawEntities, text_value as _text_value
from .dxf_electrical import add_electrical_rooms
from .dxf_single_line import add_single_lines
from .fabric_text import planes_text, rack_planes, switches_label, switches_value
from .plan_drawing import grid_segments

if TYPE_CHECKING:
    from designer.analysis import Analysis

DXF_VERSION = "R2013"

#: Layer of each rack role (designer.rack_roles.ROLES).
ROLE_LAYERS = {"compute": "RACKS-COMPUTE", "rack_scale": "RACKS-RACK-SCALE", "network": "RACKS-NETWORK",
               "storage": "RACKS-STORAGE", "management": "RACKS-MANAGEMENT", "empty": "RACKS-EMPTY"}
HALL = "HALL-OUTLINE"
GRID = "FLOOR-GRID"
FRONTS = "RACK-FRONTS"
CLEAR_FRONT = "CLEARANCE-FRONT"
CLEAR_REAR = "CLEARANCE-REAR"
CDUS = "CDUS"
FLOOR_UNITS = "FLOOR-UNITS"
RACK_LABELS = "LABELS-RACKS"
FLOOR_LABELS = "LABELS-FLOOR-UNITS"
TITLE = "TITLE"

DASHED = "PODPLAN-DASHED"
STYLE = "PODPLAN"
#: The attributes of a rack block, in the order CAD's attribute editor lists them.
RACK_TAGS = ("NAME", "TYPE", "KW", "GPUS")
#: the extra attribute of a twin-plane design's rack blocks: its compute-fabric switches by plane ("A:4 B:4")
PLANES_TAG = "PLANES"
#: a twin-plane design's layer per plane, holding each network rack's count of that plane's switches
PLANE_LAYERS = {"A": ("FABRIC-PLANE-A", 4), "B": ("FABRIC-PLANE-B", 6)}
FLOOR_TAGS = ("NAME", "TYPE")
#: Widest a capital or digit of a sans-serif font is, as a share of the text height: labels are sized so
#: the longest name fits its rack in whichever font the CAD program substitutes for Arial.
CHAR_WIDTH = 0.9
MAX_LABEL_MM = 200.0
#: How far a label stays inside its footprint's edges, as a share of the side it runs along.
LABEL_MARGIN = 0.08
#: Fills let the tiles and the labels read through; clearance bands are lightest, as the window draws them.
RACK_FILL_TRANSPARENCY = 0.55
FILL_TRANSPARENCY = {CLEAR_FRONT: 0.82, CLEAR_REAR: 0.82, CDUS: 0.4, FLOOR_UNITS: 0.4}
#: A floor unit without a footprint (wall-mounted, in-rack) is marked by a circle of this radius.
MARKER_MM = 150.0


def _hex(colour) -> tuple[int, int, int]:
    return round(colour.red * 255), round(colour.green * 255), round(colour.blue * 255)


#: name -> (AutoCAD colour index for programs that ignore true colour, true colour, linetype, lineweight in
#: 1/100 mm, description). Colours are the quote's (exporters.pdf_style), so the PDF and the DXF agree.
LAYERS: dict[str, tuple[int, tuple[int, int, int] | None, str, int, str]] = {
    HALL: (250, _hex(st.HALL_BORDER), "Continuous", 50, "Hall outline (walls)"),
    GRID: (254, (200, 206, 214), "Continuous", 9, "Raised-floor tiles"),
    ROLE_LAYERS["compute"]: (5, _hex(st.ROLES["compute"][0]), "Continuous", 25, "Racks: compute"),
    ROLE_LAYERS["rack_scale"]: (6, _hex(st.ROLES["rack_scale"][0]), "Continuous", 25,
                                "Racks: rack-scale systems"),
    ROLE_LAYERS["network"]: (30, _hex(st.ROLES["network"][0]), "Continuous", 25, "Racks: network (compute fabric)"),
    ROLE_LAYERS["storage"]: (2, _hex(st.ROLES["storage"][0]), "Continuous", 25, "Racks: storage fabric"),
    ROLE_LAYERS["management"]: (8, _hex(st.ROLES["management"][0]), "Continuous", 25, "Racks: management"),
    ROLE_LAYERS["empty"]: (9, _hex(st.ROLES["empty"][0]), "Continuous", 25, "Racks: empty"),
    FRONTS: (250, _hex(st.HALL_BORDER), "Continuous", 50, "Front (cold-aisle) edge of each rack"),
    CLEAR_FRONT: (150, (46, 132, 214), DASHED, 13, "Clearance kept free in front of racks"),
    CLEAR_REAR: (32, (224, 112, 52), DASHED, 13, "Clearance kept free behind racks"),
    CDUS: (4, _hex(st.CDU[0]), "Continuous", 25, "Coolant distribution units"),
    FLOOR_UNITS: (8, _hex(st.FLOOR_OTHER[0]), "Continuous", 25, "Other floor units"),
    # colour 7 without a true colour: black on a white sheet, white on CAD's dark model space
    RACK_LABELS: (7, None, "Continuous", 18, "Rack names"),
    FLOOR_LABELS: (7, None, "Continuous", 18, "Floor unit names"),
    TITLE: (7, None, "Continuous", 25, "Title block, hall names and notes"),
}


def _block_name(prefix: str, type_id: str) -> str:
    """A block name CAD accepts: the characters it forbids become dashes."""
    return prefix + re.sub(r'[<>/\\":;?*|=`,\s]', "-", type_id).upper()


def _flip(pts) -> list[tuple[float, float]]:
    """Plan points (y down) as DXF points (Y up)."""
    return [(float(x), -float(y)) for x, y in pts]


def _readable(angle: float) -> float:
    """A text angle turned by 180° when it would read upside down, in (−90°, 90°]."""
    a = (angle + 90.0) % 180.0 - 90.0
    return 90.0 if a == -90.0 else a


def _setup(doc) -> None:
    doc.units = units.MM
    doc.header["$INSUNITS"] = units.MM
    doc.header["$MEASUREMENT"] = 1  # metric: hatch patterns and linetypes from the metric files
    doc.header["$LUNITS"] = 2  # decimal
    doc.linetypes.add(DASHED, pattern=[300.0, 200.0, -100.0], description="Dashed, 200 mm dashes __ __ __")
    doc.styles.add(STYLE, font="arial.ttf")
    for name, (aci, rgb, linetype, weight, description) in LAYERS.items():
        layer = doc.layers.add(name, color=aci, linetype=linetype, lineweight=weight)
        if rgb is not None:
            layer.rgb = rgb
        layer.description = description


def _rack_block(doc, name: str, width: float, depth: float, tags=RACK_TAGS) -> None:
    """Footprint, front edge and clearance bands of a rack type, centred on the block's origin.

    The footprint is on layer 0 so each INSERT draws it in its own role layer's colour; the
    front and the bands keep their layers so they switch on and off on their own.
    """
    blk = doc.blocks.new(name=name, base_point=(0, 0))
    hw, hd = width / 2, depth / 2
    # at rotation 0 the front faces the plan's −y, which is DXF's +Y
    outline = [(-hw, hd), (hw, hd), (hw, -hd), (-hw, -hd)]
    hatch = blk.add_hatch(color=ezdxf.const.BYLAYER, dxfattribs={"layer": "0"})
    hatch.paths.add_polyline_path(outline, is_closed=True)
    hatch.transparency = RACK_FILL_TRANSPARENCY
    blk.add_lwpolyline(outline, close=True, dxfattribs={"layer": "0"})
    for band, layer in zip(clearance_bands(0.0, 0.0, width, depth, 0.0), (CLEAR_FRONT, CLEAR_REAR)):
        pts = _flip(band)  # the window's rule and sizes
        # a light fill, and a dashed line only on the band's far edge: the near edge is the rack's own, and
        # the sides of neighbouring racks' bands would rule the aisle into cells
        fill = blk.add_hatch(color=ezdxf.const.BYLAYER, dxfattribs={"layer": layer})
        fill.paths.add_polyline_path(pts, is_closed=True)
        fill.transparency = FILL_TRANSPARENCY[layer]
        far = sorted(pts, key=lambda p: -abs(p[1]))[:2]
        blk.add_line(far[0], far[1], dxfattribs={"layer": layer})
    # last, so no band edge covers it
    blk.add_line((-hw, hd), (hw, hd), dxfattribs={"layer": FRONTS})
    _attdefs(blk, tags, min(width, depth) * 0.15)


def _floor_block(doc, name: str, width: float, depth: float) -> None:
    blk = doc.blocks.new(name=name, base_point=(0, 0))
    if width > 0 and depth > 0:
        hw, hd = width / 2, depth / 2
        outline = [(-hw, hd), (hw, hd), (hw, -hd), (-hw, -hd)]
        hatch = blk.add_hatch(color=ezdxf.const.BYLAYER, dxfattribs={"layer": "0"})
        hatch.paths.add_polyline_path(outline, is_closed=True)
        hatch.transparency = FILL_TRANSPARENCY[CDUS]
        blk.add_lwpolyline(outline, close=True, dxfattribs={"layer": "0"})
        blk.add_line((-hw, hd), (hw, hd), dxfattribs={"layer": FRONTS})
        size = min(width, depth) * 0.15
    else:
        blk.add_circle((0, 0), MARKER_MM, dxfattribs={"layer": "0"})
        size = MARKER_MM / 2
    _attdefs(blk, FLOOR_TAGS, size)


def _attdefs(blk, tags, height: float) -> None:
    # invisible and stacked on the origin: they are data for attribute extraction, the label shows the name
    for i, tag in enumerate(tags):
        blk.add_attdef(tag, insert=(0, -i * height * 1.4), height=height,
                       dxfattribs={"layer": "0", "flags": ezdxf.const.ATTRIB_INVISIBLE, "style": STYLE,
                                   "prompt": tag.title()})


def _label(name: str, width: float, depth: float, rotation: float) -> tuple[float, float]:
    """(height, DXF angle) of a rack's name: along whichever side of the footprint lets it be larger."""
    n = max(len(name), 1) * CHAR_WIDTH
    across = min(MAX_LABEL_MM, depth * 0.4, width * (1 - 2 * LABEL_MARGIN) / n)
    along = min(MAX_LABEL_MM, width * 0.4, depth * (1 - 2 * LABEL_MARGIN) / n)
    if across >= along:
        return across, _readable(-rotation)
    return along, _readable(90.0 - rotation)


def write_dxf(analysis: Analysis, path) -> str:
    """The floor plan of every hall of ``analysis`` as a DXF file at ``path``; returns what it wrote."""
    project, catalog = analysis.project, analysis.catalog
    if project is None or catalog is None or not project.halls:
        raise ExportError("the design has no hall to draw: add a hall first")
    racks_of, floors_of = _by_hall(project)
    on = _quote_day(project)
    doc = ezdxf.new(DXF_VERSION)
    _setup(doc)
    msp = doc.modelspace()
    planes = rack_planes(analysis)
    plane_names = sorted({p for c in planes.values() for p in c})
    for p in plane_names:
        layer, aci = PLANE_LAYERS.get(p, (f"FABRIC-PLANE-{p}", 7))
        doc.layers.add(layer, color=aci).description = f"Compute fabric plane {p}: switches per rack"
    types = _Types(doc, project, catalog, RACK_TAGS + ((PLANES_TAG,) if planes else ()))
    bounds, offsets = _layout(project, racks_of, floors_of, types)

    # an INSERT, its ATTRIBs, its SEQEND and its label (and a twin-plane design's plane texts)
    raw = RawEntities(doc, (len(types.rack_tags) + 3) * len(project.racks)
                      + sum(len(c) for c in planes.values())
                      + (len(FLOOR_TAGS) + 3) * len(project.floor_devices), STYLE)
    drawn = _Drawn()
    for h in project.halls:
        dx, dy = offsets[h.id]
        msp.add_lwpolyline([(x + dx, -(y + dy)) for x, y in h.outline], close=True, dxfattribs={"layer": HALL})
        for (ax, ay), (bx, by) in grid_segments(h.outline, h.tile_mm):
            msp.add_line((ax + dx, -(ay + dy)), (bx + dx, -(by + dy)), dxfattribs={"layer": GRID})
        for r in racks_of[h.id]:
            _put_rack(raw, analysis, types, drawn, r, (dx, dy), planes.get(r.id, {}) if planes else None)
        for f in floors_of[h.id]:
            _put_floor_unit(raw, catalog, types, drawn, f, (dx, dy))

    rooms = add_electrical_rooms(doc, msp, project, offsets, _text_value, STYLE)

    # -- extents, title block, initial view ----------------------------------------------------------
    minx = min([bounds[h.id][0] + offsets[h.id][0] for h in project.halls] + [r[0] for r in rooms])
    maxx = max([bounds[h.id][2] + offsets[h.id][0] for h in project.halls] + [r[2] for r in rooms])
    miny = min([-(bounds[h.id][3] + offsets[h.id][1]) for h in project.halls] + [r[1] for r in rooms])
    maxy = max(-(bounds[h.id][1] + offsets[h.id][1]) for h in project.halls)
    for h in project.halls:
        bx0, by0, bx1, _ = bounds[h.id]
        dx, dy = offsets[h.id]
        size = max(120.0, min(1500.0, (bx1 - bx0) / 30))
        name = msp.add_text(_text_value(h.name or h.id), height=size, dxfattribs={"layer": TITLE, "style": STYLE})
        name.set_placement((bx0 + dx, -(by0 + dy) + size * 0.8), align=TextEntityAlignment.BOTTOM_LEFT)
        maxy = max(maxy, -(by0 + dy) + size * 2)
    # each hall's single-line diagram to the right of the plans, as tall as the tallest hall
    span = max(bounds[h.id][3] - bounds[h.id][1] for h in project.halls)
    maxx = add_single_lines(doc, msp, analysis, maxx + span * 0.1,
                            -min(bounds[h.id][1] + offsets[h.id][1] for h in project.halls), span, _text_value, STYLE)
    title_bottom, title_right = _title_block(msp, analysis, on, offsets, drawn.roles, drawn.cdus, drawn.others,
                                             minx, maxx, miny, plane_names)
    miny, maxx = min(miny, title_bottom), max(maxx, title_right)
    doc.header["$EXTMIN"] = (minx, miny, 0.0)
    doc.header["$EXTMAX"] = (maxx, maxy, 0.0)
    doc.set_modelspace_vport(height=(maxy - miny) * 1.05, center=((minx + maxx) / 2, (miny + maxy) / 2))

    head, tail = raw.split(doc)
    head, tail = _dated(head, on, project.name), _dated(tail, on, project.name)
    write_atomic(path, lambda fh: (fh.write(head), fh.writelines(raw.chunks), fh.write(tail)))
    n_entities = len(msp) + raw.count
    floor_words = f", {count(len(project.floor_devices), 'floor unit')}" if project.floor_devices else ""
    return (f"{count(len(project.halls), 'hall')}, {count(len(project.racks), 'rack')}{floor_words}, "
            f"{count(n_entities, 'entity', 'entities')}")


def _by_hall(project) -> tuple[dict[str, list], dict[str, list]]:
    """The racks and the floor units of each hall; a thing standing in a hall the design lacks is refused."""
    halls = {h.id for h in project.halls}
    racks_of: dict[str, list] = defaultdict(list)
    for r in project.racks:
        if r.hall not in halls:
            raise ExportError(f"rack {r.name or r.id} stands in hall {r.hall!r}, which the design does not have")
        racks_of[r.hall].append(r)
    floors_of: dict[str, list] = defaultdict(list)
    for f in project.floor_devices:
        if f.hall not in halls:
            raise ExportError(f"floor unit {f.name or f.id} stands in hall {f.hall!r}, which the design does "
                              "not have")
        floors_of[f.hall].append(f)
    return racks_of, floors_of


class _Types:
    """One block per rack type and per floor-unit type, made in ``doc``, and what their INSERTs carry."""

    def __init__(self, doc, project, catalog, rack_tags=RACK_TAGS):
        self.catalog = catalog
        self.rack_tags = rack_tags
        #: rack type -> block, width, depth, catalog name
        self.racks: dict[str, tuple[str, float, float, str]] = {}
        for r in project.racks:
            if r.type not in self.racks:
                w, d = rack_size(catalog, r.type)
                block = _block_name("RACK-", r.type)
                _rack_block(doc, block, w, d, rack_tags)
                dev = catalog.find(r.type)
                self.racks[r.type] = (block, w, d, dev.name if dev is not None else r.type)
        #: floor-unit type -> block; floor unit id -> its footprint
        self.floors: dict[str, str] = {}
        self.floor_prints = {f.id: floor_footprint(f, catalog) for f in project.floor_devices}
        for f in project.floor_devices:
            if f.type not in self.floors:
                fp = self.floor_prints[f.id]
                self.floors[f.type] = _block_name("FLOOR-", f.type)
                _floor_block(doc, self.floors[f.type], fp.width, fp.depth)
        self._gpus: dict[str, int] = {}

    def gpus_in(self, rack) -> int:
        total = 0
        for dv in rack.devices:
            g = self._gpus.get(dv.type)
            if g is None:
                dt = self.catalog.find(dv.type)
                g = self._gpus[dv.type] = int(dt.gpu_count or 0) if dt is not None else 0
            total += g
        return total


def _layout(project, racks_of, floors_of, types: _Types) -> tuple[dict[str, tuple], dict[str, tuple]]:
    """Each hall's extent in its own coordinates (clearance bands and floor units included), and how far it is
    shifted (x, y in plan mm): on a site whose halls state where they stand, to there (the site plan the cable
    lengths are measured on); else along X alone, so the halls stand side by side, each from its own origin."""
    gap = 0.0
    bounds = {}
    for h in project.halls:
        xs = [p[0] for p in h.outline]
        ys = [p[1] for p in h.outline]
        rows = np.array([(r.x, r.y, *types.racks[r.type][1:3], r.rotation) for r in racks_of[h.id]],
                        dtype=float).reshape(-1, 5)
        if len(rows):
            c = corner_arrays(rows)
            pad = max(FRONT_CLEARANCE_MM, REAR_CLEARANCE_MM)  # the bands are part of the drawing
            xs += [float(c[..., 0].min()) - pad, float(c[..., 0].max()) + pad]
            ys += [float(c[..., 1].min()) - pad, float(c[..., 1].max()) + pad]
        for f in floors_of[h.id]:
            fp = types.floor_prints[f.id]
            reach = max(fp.width, fp.depth, 2 * MARKER_MM) / 2
            xs += [fp.x - reach, fp.x + reach]
            ys += [fp.y - reach, fp.y + reach]
        bounds[h.id] = (min(xs), min(ys), max(xs), max(ys))
        gap = max(gap, 0.15 * (max(xs) - min(xs)), 5000.0)
    if any(h.site_origin is not None for h in project.halls):
        return bounds, {h.id: origin for h, origin in zip(project.halls, hall_origins(project.halls))}
    offsets: dict[str, tuple] = {}
    cursor = bounds[project.halls[0].id][0]
    for h in project.halls:
        bx0, _, bx1, _ = bounds[h.id]
        offsets[h.id] = (cursor - bx0, 0.0)
        cursor += (bx1 - bx0) + gap
    return bounds, offsets


class _Drawn:
    """What the plan holds, counted for the title block's legend: racks by role, CDUs, other floor units."""

    def __init__(self):
        self.roles: Counter = Counter()
        self.cdus = self.others = 0


def _put_rack(raw: RawEntities, analysis: Analysis, types: _Types, drawn: _Drawn, r, offset: tuple[float, float],
              planes: dict[str, int] | None = None) -> None:
    """A rack: an INSERT of its type's block with its attributes, and its name as a label; in a twin-plane
    design (``planes`` not None) its switches by plane as an attribute, and each plane's count as a text on
    that plane's layer, either side of the name."""
    block, w, d, type_name = types.racks[r.type]
    role = rack_role(r, types.catalog)
    drawn.roles[role] += 1
    x, y = r.x + offset[0], -(r.y + offset[1])
    figures = analysis.rack(r.id)
    kw = figures.max_kw if figures is not None else None
    name = r.name or r.id
    # the attributes are data for CAD's attribute extraction: plain numbers, no separators
    values = (name, type_name, "" if kw is None else f"{kw:.1f}", str(types.gpus_in(r)))
    if planes is not None:
        values += (planes_text(planes),)
    raw.insert(block, ROLE_LAYERS[role], x, y, -r.rotation % 360.0, types.rack_tags, values, min(w, d) * 0.15)
    height, text_angle = _label(name, w, d, r.rotation)
    raw.text(name, RACK_LABELS, x, y, height, text_angle, 1)
    if planes:
        a = math.radians(text_angle)
        for i, (plane, n) in enumerate(planes.items()):
            text = f"{plane}: {n} sw"
            size = min(height * 0.8, _label(text, w, d, r.rotation)[0])
            off = (height / 2 + size * 0.9) * (1 if i == 0 else -1) * (1 + 1.2 * (i // 2))
            layer = PLANE_LAYERS.get(plane, (f"FABRIC-PLANE-{plane}", 7))[0]
            raw.text(text, layer, x - off * math.sin(a), y + off * math.cos(a), size, text_angle, 1)


def _put_floor_unit(raw: RawEntities, catalog, types: _Types, drawn: _Drawn, f, offset: tuple[float, float]
                    ) -> None:
    """A floor unit: an INSERT of its type's block, and its name inside its footprint or beside its marker."""
    fp = types.floor_prints[f.id]
    dev = catalog.find(f.type)
    is_cdu = dev is not None and dev.kind == "cdu"
    drawn.cdus += is_cdu
    drawn.others += not is_cdu
    x, y = f.x + offset[0], -(f.y + offset[1])
    name = f.name or f.id
    size = min(fp.width, fp.depth) * 0.15 if fp.solid else MARKER_MM / 2
    raw.insert(types.floors[f.type], CDUS if is_cdu else FLOOR_UNITS, x, y, -f.rotation % 360.0,
               FLOOR_TAGS, (name, dev.name if dev is not None else f.type), size)
    if fp.solid:
        height, text_angle = _label(name, fp.width, fp.depth, f.rotation)
        raw.text(name, FLOOR_LABELS, x, y, height, text_angle, 1)
    else:  # beside its marker, which is too small to hold it
        raw.text(name, FLOOR_LABELS, x + MARKER_MM * 1.3, y, MARKER_MM * 0.6, 0.0, 0)


def _quote_day(project) -> _dt.date:
    """The day the drawing is dated: the quote's (as the quote PDF and the bill are dated), so one design
    written on any day is the same file; a design whose quote has no date is dated the day it is written, as
    its bill is."""
    try:
        return effective_date(project.quote)
    except QuoteError as exc:
        raise ExportError(str(exc)) from None


def _written(project, on: _dt.date) -> str:
    return (f"Written by PodPlanner for the quote of {on.isoformat()}." if project.quote.quote_date else
            f"Written by PodPlanner on {on.isoformat()}.")


def _dated(text: str, on: _dt.date, name: str) -> str:
    """ezdxf's file with what it stamps from the clock and at random (creation and update times, the drawing's
    GUIDs, its own "written at" marks) made the quote's day and GUIDs derived from the design's name and that
    day: the same design and quote give the same bytes."""
    day = repr(juliandate(_dt.datetime(on.year, on.month, on.day)))
    text = re.sub(r"(\n  9\n\$TDU?(?:CREATE|UPDATE)\n 40\n)[^\n]*", lambda m: m[1] + day, text)
    for var in ("FINGERPRINTGUID", "VERSIONGUID"):
        guid = "{" + str(uuid.uuid5(uuid.NAMESPACE_URL, f"podplanner:{var}:{name}:{on}")).upper() + "}"
        text = re.sub(rf"(\n  9\n\${var}\n  2\n)[^\n]*", lambda m, guid=guid: m[1] + guid, text)
    stamp = f"{ezdxf.__version__} @ {on.isoformat()}T00:00:00+00:00"
    return re.sub(rf"(\n  1\n){re.escape(ezdxf.__version__)} @ [^\n]*", lambda m: m[1] + stamp, text)


def _title_block(msp, analysis, on, offsets, role_count, cdu_count, other_count,
                 minx: float, maxx: float, miny: float, plane_names=()) -> tuple[float, float]:
    """Project, scale, date, what is drawn and where each hall was put, and a legend, framed under the plan;
    returns the frame's bottom and right edges."""
    project = analysis.project
    span = maxx - minx
    h1 = max(150.0, min(3000.0, span / 35))
    h2 = h1 * 0.55
    units = "".join(f", {count(n, noun)}" for n, noun in ((cdu_count, "CDU"), (other_count, "other floor unit")) if n)
    lines: list[tuple[str, float]] = [
        (_text_value(project.name), h1),
        ("Floor plan. Scale 1:1, 1 drawing unit = 1 mm. Up is the top of the plan in PodPlanner.", h2),
        (f"{_written(project, on)} {count(len(project.halls), 'hall')}, {count(len(project.racks), 'rack')}{units}, "
         f"{count(analysis.summary.gpus, 'GPU')}.", h2),
    ]
    for hl in project.halls:
        dx, dy = offsets[hl.id]
        if abs(dy) >= 1e-9:
            where = (f"at its place on the site, shifted {quantity(dx, 'mm')} along X and {quantity(dy, 'mm')} "
                     f"down: a plan point (x, y) is drawn at (x + {number(dx)}, -(y + {number(dy)}))")
        elif abs(dx) < 1e-9:
            where = "at its own coordinates: a plan point (x, y) is drawn at (x, -y)"
        else:
            where = f"shifted {quantity(dx, 'mm')} along X: a plan point (x, y) is drawn at (x + {number(dx)}, -y)"
        lines.append((f"{_text_value(hl.name or hl.id)}: {where}.", h2))
    lines.append(("Layers: racks by role (RACKS-*), RACK-FRONTS (cold-aisle edge), CLEARANCE-FRONT and "
                  "CLEARANCE-REAR (space kept free), CDUS, LABELS-*"
                  + (", POWER-SINGLE-LINE-* (each hall's single-line diagram, right of the plans, not to scale)"
                     if "POWER-SINGLE-LINE" in msp.doc.layers else "")
                  + (", ELECTRICAL-* (each hall's electrical room beyond its far wall: UPS, batteries, switchgear)"
                     if "ELECTRICAL-ROOM" in msp.doc.layers else "") + ".", h2))
    if plane_names:
        fa = analysis.fabric
        tiers = switches_label(fa).split(": ", 1)[1]
        lines.append((f"Compute fabric switches ({tiers}): "
                      f"{switches_value(fa, fa.leaf or 0, fa.spine or 0, fa.core or 0)}.", h2))
        lines.append(("Rack blocks carry the attributes NAME, TYPE, KW (maximum draw), GPUS and PLANES (compute-"
                      "fabric switches by plane, as A:4 B:4); layers " + ", ".join(
                          PLANE_LAYERS.get(p, (f"FABRIC-PLANE-{p}",))[0] for p in plane_names)
                      + " show each rack's switches of that plane.", h2))
    else:
        lines.append(("Rack blocks carry the attributes NAME, TYPE, KW (maximum draw) and GPUS.", h2))
    lines.append(("Cable routes are not drawn: the wiring plan gives lengths (overhead trays, Manhattan "
                  "distance between racks), not paths.", h2))
    top = miny - h1 * 2
    y = top
    right = maxx
    for text, size in lines:
        y -= size * 1.6
        right = max(right, minx + len(text) * size * CHAR_WIDTH * 0.75)  # mixed case runs narrower than caps
        msp.add_text(text, height=size, dxfattribs={"layer": TITLE, "style": STYLE}).set_placement(
            (minx, y), align=TextEntityAlignment.LEFT)
    # the legend: a swatch in each role's colour and its count
    y -= h2 * 2.4
    x = minx
    entries = [(ROLE_LAYERS[role], st.ROLES[role][1], role_count[role]) for role in ROLES if role_count[role]]
    if cdu_count:
        entries.append((CDUS, st.CDU[1], cdu_count))
    if other_count:
        entries.append((FLOOR_UNITS, st.FLOOR_OTHER[1], other_count))
    if role_count:
        entries += [(CLEAR_FRONT, f"Front clearance {quantity(FRONT_CLEARANCE_MM / 1000, 'm')}", None),
                    (CLEAR_REAR, f"Rear clearance {quantity(REAR_CLEARANCE_MM / 1000, 'm')}", None)]
    for layer, label, n in entries:
        aci, rgb = LAYERS[layer][0], LAYERS[layer][1]
        square = [(x, y), (x + h2 * 1.6, y), (x + h2 * 1.6, y + h2 * 1.2), (x, y + h2 * 1.2)]
        hatch = msp.add_hatch(color=aci, dxfattribs={"layer": TITLE})
        hatch.rgb = rgb
        hatch.transparency = FILL_TRANSPARENCY.get(layer, RACK_FILL_TRANSPARENCY)  # as the plan shows it
        hatch.paths.add_polyline_path(square, is_closed=True)
        text = label if n is None else f"{label} ({number(n)})"
        msp.add_text(text, height=h2, dxfattribs={"layer": TITLE, "style": STYLE}).set_placement(
            (x + h2 * 2.0, y), align=TextEntityAlignment.LEFT)
        x += h2 * (2.0 + len(text) * CHAR_WIDTH * 0.8 + 1.5)  # mixed case runs narrower than caps
    bottom = y - h2
    right = max(right, x) + h2
    msp.add_lwpolyline([(minx - h2, top), (right, top), (right, bottom - h2), (minx - h2, bottom - h2)],
                       close=True, dxfattribs={"layer": TITLE})
    return bottom - h2, right


__all__ = ["LAYERS", "PLANES_TAG", "PLANE_LAYERS", "RACK_TAGS", "ROLE_LAYERS", "write_dxf"]
