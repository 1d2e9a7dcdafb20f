"""The floor plan as DXF: written from the analysis, read back with ezdxf, audited, and checked against the design."""
from __future__ import annotations

import math
import os
import re
from collections import Counter
from dataclasses import replace
from datetime import date

import ezdxf
import pytest
from ezdxf import units

from designer.analysis import analyze
from designer.model import Hall
from designer.placement.arrange import clearance_bands
from designer.placement.footprints import floor_footprint, rack_size
from designer.placement.geometry import corners
from designer.rack_roles import rack_role
from exporters.base import ExportError
from exporters.dxf import LAYERS, RACK_TAGS, ROLE_LAYERS, write_dxf


def written(analysis, tmp_path, name="plan.dxf"):
    """Write, read back and audit; the document and what ``write_dxf`` said."""
    out = tmp_path / name
    said = write_dxf(analysis, out)
    doc = ezdxf.readfile(out)
    auditor = doc.audit()
    assert auditor.errors == [] and auditor.fixes == []
    return doc, said


def close(a, b, tol=1e-6):
    return all(abs(p - q) <= tol for p, q in zip(a, b))


def hall_dx(doc) -> dict[str, float]:
    """Each hall's shift along X, as the title block states it."""
    out = {}
    for t in doc.modelspace().query('TEXT[layer=="TITLE"]'):
        m = re.fullmatch(r"(.+): shifted (-?[\d,]+) mm along X: .*", t.dxf.text)
        if m:
            out[m[1]] = float(m[2].replace(",", ""))
        m = re.fullmatch(r"(.+): at its own coordinates: .*", t.dxf.text)
        if m:
            out[m[1]] = 0.0
    return out


def check_racks(doc, analysis):
    """Every rack is one INSERT at (x + hall shift, −y), turned by −rotation, on its role's layer, with its
    figures as attributes, and one label."""
    project, catalog = analysis.project, analysis.catalog
    msp = doc.modelspace()
    shift = hall_dx(doc)
    inserts = [e for e in msp.query("INSERT") if e.dxf.layer in ROLE_LAYERS.values()]
    assert len(inserts) == len(project.racks)
    by_name = {e.get_attrib_text("NAME"): e for e in inserts}
    assert len(by_name) == len(project.racks)
    labels = Counter(t.dxf.text for t in msp.query('TEXT[layer=="LABELS-RACKS"]'))
    assert sum(labels.values()) == len(project.racks)
    gpus = 0
    for r in project.racks:
        e = by_name[r.name]
        dx = shift[project.hall(r.hall).name]
        assert close(e.dxf.insert, (r.x + dx, -r.y, 0.0))
        assert math.isclose(e.dxf.rotation, -r.rotation % 360.0, abs_tol=1e-9)
        assert e.dxf.layer == ROLE_LAYERS[rack_role(r, catalog)]
        assert e.dxf.name == "RACK-" + r.type.upper()
        attrs = {a.dxf.tag: a for a in e.attribs}
        assert tuple(attrs) == RACK_TAGS
        assert attrs["TYPE"].dxf.text == catalog.get(r.type).name
        assert float(attrs["KW"].dxf.text) == pytest.approx(analysis.rack(r.id).max_kw, abs=0.05)
        assert all(a.is_invisible for a in e.attribs)
        gpus += int(attrs["GPUS"].dxf.text)
        assert labels[r.name] >= 1
    assert gpus == analysis.summary.gpus


def test_dgx_sample_reads_back_with_every_rack_where_the_design_has_it(dgx, tmp_path):
    doc, said = written(dgx, tmp_path)
    assert said.startswith("1 hall, 23 racks, ")
    assert doc.dxfversion >= "AC1027"  # R2013
    assert doc.header["$INSUNITS"] == units.MM == 4 and doc.units == units.MM
    for name, (aci, rgb, linetype, _, _) in LAYERS.items():
        layer = doc.layers.get(name)
        assert layer.color == aci and layer.dxf.linetype == linetype
        if rgb is not None:
            assert tuple(layer.rgb) == rgb
    check_racks(doc, dgx)
    msp = doc.modelspace()
    # one block per rack type, with the four attribute definitions
    types = {r.type for r in dgx.project.racks}
    blocks = [b for b in doc.blocks if b.name.startswith("RACK-")]
    assert {b.name for b in blocks} == {"RACK-" + t.upper() for t in types}
    for b in blocks:
        assert [a.dxf.tag for a in b.query("ATTDEF")] == list(RACK_TAGS)
    # the hall: its outline and its tiles, at the plan's coordinates with Y up
    hall = dgx.project.halls[0]
    (outline,) = msp.query('LWPOLYLINE[layer=="HALL-OUTLINE"]')
    assert outline.closed and [tuple(p) for p in outline.get_points("xy")] == [(x, -y) for x, y in hall.outline]
    grid = msp.query('LINE[layer=="FLOOR-GRID"]')
    x0, y0, x1, y1 = hall.bounds
    tiles_x, tiles_y = round((x1 - x0) / hall.tile_mm), round((y1 - y0) / hall.tile_mm)
    assert len(grid) == (tiles_x + 1) + (tiles_y + 1)  # 7.8 m x 10.8 m: 14 + 19 lines
    assert not msp.query("*[layer=='CDUS']")
    title = " ".join(t.dxf.text for t in msp.query('TEXT[layer=="TITLE"]'))
    assert dgx.project.name in title and "1 drawing unit = 1 mm" in title
    assert re.search(r"on \d{4}-\d{2}-\d{2}\.", title) and "Cable routes are not drawn" in title
    assert "Compute (16)" in title
    assert os.listdir(tmp_path) == ["plan.dxf"]


def test_plan_is_not_mirrored_fronts_and_clearances_follow_the_rotation(dgx, tmp_path):
    """A rack turned 90° and one turned 30° land on the corners the model's own geometry gives, Y flipped."""
    racks = list(dgx.project.racks)
    racks[0] = replace(racks[0], rotation=90.0)
    racks[1] = replace(racks[1], rotation=30.0, x=racks[1].x + 250.0)
    analysis = analyze(replace(dgx.project, racks=tuple(racks)), dgx.catalog)
    doc, _ = written(analysis, tmp_path)
    check_racks(doc, analysis)
    msp = doc.modelspace()
    by_name = {e.get_attrib_text("NAME"): e for e in msp.query("INSERT")}
    for r in racks[:3]:
        w, d = rack_size(dgx.catalog, r.type)
        plan = [(x, -y) for x, y in corners(r.x, r.y, w, d, r.rotation)]  # front-left, front-right, ...
        parts = list(by_name[r.name].virtual_entities())
        footprint = next(p for p in parts if p.dxftype() == "LWPOLYLINE" and p.dxf.layer == "0")
        got = [tuple(p) for p in footprint.get_points("xy")]
        assert all(any(close(g, c, 1e-6) for g in got) for c in plan)
        (front,) = [p for p in parts if p.dxf.layer == "RACK-FRONTS"]
        assert close(front.dxf.start, plan[0], 1e-6) and close(front.dxf.end, plan[1], 1e-6)
        # the clearance bands are the window's, drawn as fills on their own layers
        for band, layer in zip(clearance_bands(r.x, r.y, w, d, r.rotation), ("CLEARANCE-FRONT", "CLEARANCE-REAR")):
            (fill,) = [p for p in parts if p.dxftype() == "HATCH" and p.dxf.layer == layer]
            got = [tuple(v) for v in fill.paths[0].vertices]
            assert all(any(close(g, (x, -y), 1e-6) for g in got) for x, y in band)
    # north stays up: a rack nearer the top of the plan (smaller y) is higher in the drawing
    top, bottom = min(racks, key=lambda r: r.y), max(racks, key=lambda r: r.y)
    assert by_name[top.name].dxf.insert.y > by_name[bottom.name].dxf.insert.y
    # the label runs along the rack's long side, turned with it and never upside down
    label = next(t for t in msp.query('TEXT[layer=="LABELS-RACKS"]') if t.dxf.text == racks[1].name)
    assert label.dxf.rotation == pytest.approx(60.0)
    assert close(label.dxf.align_point, (racks[1].x, -racks[1].y))


def test_gb200_sample_draws_its_cdus_as_floor_units(nvl72, tmp_path):
    doc, said = written(nvl72, tmp_path)
    assert said.startswith("1 hall, 16 racks, 5 floor units, ")  # two CDUs, three air handlers
    check_racks(doc, nvl72)
    msp = doc.modelspace()
    floors = nvl72.project.floor_devices
    cdus = msp.query('INSERT[layer=="CDUS"]')
    air = msp.query('INSERT[layer=="FLOOR-UNITS"]')
    assert len(floors) == 5 and len(cdus) == 2 and len(air) == 3
    assert {e.get_attrib_text("NAME") for e in air} == {"CRAH-01", "CRAH-02", "CRAH-03"}
    assert len(msp.query('TEXT[layer=="LABELS-FLOOR-UNITS"]')) == len(floors)
    assert {e.dxf.layer for e in msp.query("INSERT")} == {"CDUS", "FLOOR-UNITS", "RACKS-RACK-SCALE",
                                                            "RACKS-NETWORK", "RACKS-STORAGE", "RACKS-MANAGEMENT"}
    by_name = {e.get_attrib_text("NAME"): e for e in [*cdus, *air]}
    for f in floors:
        e = by_name[f.name]
        assert close(e.dxf.insert, (f.x, -f.y, 0.0))
        assert math.isclose(e.dxf.rotation, -f.rotation % 360.0, abs_tol=1e-9)
        assert e.get_attrib_text("TYPE") == nvl72.catalog.get(f.type).name
        fp = floor_footprint(f, nvl72.catalog)
        outline = next(p for p in e.virtual_entities() if p.dxftype() == "LWPOLYLINE")
        got = [tuple(p) for p in outline.get_points("xy")]
        for x, y in corners(f.x, f.y, fp.width, fp.depth, f.rotation):
            assert any(close(g, (x, -y), 1e-6) for g in got)
    racks = [r for r in nvl72.project.racks if rack_role(r, nvl72.catalog) == "rack_scale"]
    assert sum(1 for e in msp.query("INSERT") if e.dxf.layer == "RACKS-RACK-SCALE") == len(racks) == 8


def test_halls_are_drawn_side_by_side_and_the_title_says_where(dgx, tmp_path):
    project = dgx.project
    first = project.halls[0]
    second = Hall(id="hall-2", name="Data hall 2", outline=first.outline, tile_mm=first.tile_mm)
    racks = tuple(replace(r, hall="hall-2") if i % 3 == 0 else r for i, r in enumerate(project.racks))
    analysis = analyze(replace(project, halls=(first, second), racks=racks), dgx.catalog)
    doc, said = written(analysis, tmp_path)
    assert said.startswith("2 halls, 23 racks, ")
    check_racks(doc, analysis)
    msp = doc.modelspace()
    shift = hall_dx(doc)
    assert shift["Data hall 1"] == 0.0 and shift["Data hall 2"] > first.bounds[2] - first.bounds[0]
    outlines = msp.query('LWPOLYLINE[layer=="HALL-OUTLINE"]')
    boxes = [(min(p[0] for p in o.get_points("xy")), max(p[0] for p in o.get_points("xy"))) for o in outlines]
    assert len(boxes) == 2 and boxes[0][1] < boxes[1][0]
    for (lo, hi), hall in zip(boxes, analysis.project.halls):
        inside = [e for e in msp.query("INSERT") if lo <= e.dxf.insert.x <= hi]
        # the racks, and the floor units (the air handlers stay in hall 1)
        assert len(inside) == sum(1 for r in racks if r.hall == hall.id) + sum(
            1 for f in project.floor_devices if f.hall == hall.id)
    names = {t.dxf.text for t in msp.query('TEXT[layer=="TITLE"]')}
    assert {"Data hall 1", "Data hall 2"} <= names


def test_the_title_block_is_dated_by_the_quote_so_any_day_writes_the_same_file(dgx, tmp_path):
    dated = dgx.project.with_quote(dgx.project.quote.updated(quote_date="2025-03-04"))
    analysis = analyze(dated, dgx.catalog)
    written(analysis, tmp_path, "a.dxf")
    doc, _ = written(analysis, tmp_path, "b.dxf")
    assert (tmp_path / "a.dxf").read_bytes() == (tmp_path / "b.dxf").read_bytes()
    titles = [t.dxf.text for t in doc.modelspace().query('TEXT[layer=="TITLE"]')]
    assert any(t.startswith("Written by PodPlanner for the quote of 2025-03-04. 1 hall, 23 racks") for t in titles)
    # a quote without a date is priced, and drawn, on the day it is written
    days = {date.today().isoformat()}
    undated = analyze(dgx.project.with_quote(dgx.project.quote.updated(quote_date="")), dgx.catalog)
    doc, _ = written(undated, tmp_path, "c.dxf")
    days.add(date.today().isoformat())  # the day it was written, though it was written as midnight passed
    assert any(t.dxf.text.startswith(tuple(f"Written by PodPlanner on {day}. " for day in days))
               for t in doc.modelspace().query('TEXT[layer=="TITLE"]'))


def test_a_name_with_a_line_break_cannot_break_the_file(dgx, tmp_path):
    racks = list(dgx.project.racks)
    racks[0] = replace(racks[0], name="SU01\n01")
    analysis = analyze(replace(dgx.project, racks=tuple(racks), name="Pod\r\nOne"), dgx.catalog)
    doc, _ = written(analysis, tmp_path)
    names = {e.get_attrib_text("NAME") for e in doc.modelspace().query("INSERT")}
    assert "SU01 01" in names and len(names) == 23 + len(dgx.project.floor_devices)


def test_a_large_generated_design_keeps_its_counts(catalog, tmp_path):
    from bench.designs import dgx_b200_project

    analysis = analyze(dgx_b200_project(gpus=4_000), catalog)
    doc, said = written(analysis, tmp_path)
    check_racks(doc, analysis)
    entities = len(doc.modelspace()) + sum(len(e.attribs) for e in doc.modelspace().query("INSERT"))
    assert said.endswith(f", {entities:,} entities")
    handles = [e.dxf.handle for e in doc.entitydb.values()]
    assert len(handles) == len(set(handles))
    assert int(doc.header["$HANDSEED"], 16) > max(int(h, 16) for h in handles)


def test_a_design_without_a_hall_is_refused(dgx, tmp_path):
    with pytest.raises(ExportError, match="no hall"):
        write_dxf(analyze(replace(dgx.project, halls=(), racks=(), floor_devices=()), dgx.catalog),
                  tmp_path / "x.dxf")
    assert not os.listdir(tmp_path)


def test_spectrum_x_racks_carry_their_switches_by_plane(spectrum_x, tmp_path):
    """1 SU of DGX B300 on Spectrum-X: 8 leaves and 4 spines per plane, in three network racks that each hold
    switches of both planes; the PLANES attribute and the per-plane layers add up to 12 switches a plane."""
    from exporters.dxf import PLANE_LAYERS, PLANES_TAG, write_dxf

    path = tmp_path / "plan.dxf"
    write_dxf(spectrum_x, path)
    doc = ezdxf.readfile(path)
    msp = doc.modelspace()
    per_plane: Counter = Counter()
    for insert in msp.query("INSERT[layer!=\"FLOOR-UNITS\"]"):  # racks carry the planes, floor units none
        attribs = {a.dxf.tag: a.dxf.text for a in insert.attribs}
        for part in attribs[PLANES_TAG].split():
            plane, n = part.split(":")
            per_plane[plane] += int(n)
    assert per_plane == {"A": 12, "B": 12}
    for plane in "AB":
        layer = PLANE_LAYERS[plane][0]
        assert layer in doc.layers
        texts = [e.dxf.text for e in msp.query(f'TEXT[layer=="{layer}"]')]
        assert sum(int(t.split()[1]) for t in texts) == 12 and all(t.startswith(f"{plane}: ") for t in texts)
    title = " ".join(e.dxf.text for e in msp.query('TEXT[layer=="TITLE"]'))
    assert "Spectrum-X Ethernet, 2 planes: 16 / 8 / 0 (8 / 4 / 0 per plane)" in title
    assert "leaf / spine / super-spine" in title
