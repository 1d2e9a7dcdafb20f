"""The floor plan as SVG and PNG, and the heat map as PNG: read back and checked against the design."""
from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET
from collections import Counter

import numpy as np
import pytest
from PIL import Image
from reportlab.graphics.shapes import String
from reportlab.pdfbase.pdfmetrics import stringWidth

from designer.analysis import analyze
from designer.colours import load_band
from designer.fileformat import load
from designer.model import Hall, Project
from designer.placement.footprints import rack_size
from designer.rack_roles import rack_role
from designer.samples import DGX_B200_SU
from exporters import pdf_style as st
from exporters.base import ExportError
from exporters.plan_drawing import plan_drawing
from exporters.plan_image import (
    HALL_GAP_PT,
    MARGIN_PT,
    SVG_FONT_FAMILY,
    png_size,
    project_drawing,
    write_heatmap_png,
    write_png,
    write_svg,
)

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def two_halls(catalog):
    """The DGX sample with its second row of racks moved into a hall of its own, 20 m further down."""
    p = load(DGX_B200_SU, catalog)
    (hall,) = p.halls
    shift = 20_000.0
    second = Hall("hall-2", "Data hall 2", tuple((x, y + shift) for x, y in hall.outline), tile_mm=hall.tile_mm)
    moved = {f"su01-{i:02d}" for i in range(9, 17)}
    racks = tuple(dataclasses.replace(r, hall="hall-2", y=r.y + shift) if r.id in moved else r for r in p.racks)
    return analyze(dataclasses.replace(p, halls=(hall, second), racks=racks), catalog)


# -- reading an SVG back ------------------------------------------------------------------------------------
def _matrix(transform: str) -> np.ndarray:
    m = np.eye(3)
    for op, args in re.findall(r"(matrix|translate|scale)\(([^)]*)\)", transform or ""):
        v = [float(a) for a in re.split(r"[ ,]+", args.strip())]
        if op == "matrix":
            t = np.array([[v[0], v[2], v[4]], [v[1], v[3], v[5]], [0, 0, 1]])
        elif op == "translate":
            t = np.array([[1, 0, v[0]], [0, 1, v[1] if len(v) > 1 else 0], [0, 0, 1]])
        else:
            t = np.diag([v[0], v[1] if len(v) > 1 else v[0], 1])
        m = m @ t
    return m


def _walk(node, m=None):
    """Every element with the transform that places it in the viewBox."""
    m = (np.eye(3) if m is None else m) @ _matrix(node.get("transform"))
    yield node, m
    for child in node:
        yield from _walk(child, m)


def _style(node) -> dict[str, str]:
    return {k.strip(): v.strip() for k, v in (p.split(":", 1) for p in node.get("style", "").split(";") if ":" in p)}


def _subpaths(d: str, m: np.ndarray) -> list[np.ndarray]:
    """A path's closed outlines, as corner arrays in viewBox coordinates."""
    out = []
    for part in d.split("M")[1:]:
        nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", part)]
        pts = np.array(nums).reshape(-1, 2)
        out.append((m @ np.column_stack([pts, np.ones(len(pts))]).T).T[:, :2])
    return out


def _inside(pt, poly: np.ndarray) -> bool:
    xs, ys = poly[:, 0], poly[:, 1]
    return xs.min() < pt[0] < xs.max() and ys.min() < pt[1] < ys.max()


def _texts(drawing) -> list[String]:
    out = []
    for child in getattr(drawing, "contents", ()):
        out += [child] if isinstance(child, String) else _texts(child)
    return out


def _hex(colour) -> str:
    return "#" + "".join(f"{round(c * 255):02x}" for c in (colour.red, colour.green, colour.blue))


def _rgb(colour) -> np.ndarray:
    return np.array([colour.red, colour.green, colour.blue]) * 255


# -- SVG -----------------------------------------------------------------------------------------------------
def test_svg_is_sized_in_points_and_names_fonts_a_viewer_has(dgx, tmp_path):
    out = tmp_path / "plan.svg"
    account = write_svg(dgx, out)
    assert account == "floor plan of 1 hall, 23 racks, at 1:50"
    sheet = project_drawing(dgx)
    root = ET.parse(out).getroot()
    assert root.tag == SVG + "svg"
    w, h = sheet.width, sheet.height
    assert root.get("width") == f"{w:g}pt" and root.get("height") == f"{h:g}pt"
    assert [float(v) for v in root.get("viewBox").split()] == [0, 0, w, h]
    assert root.find(SVG + "title").text == f"{dgx.project.name}: floor plan"
    assert root.find(SVG + "desc").text == "Data hall 1: 23 racks at 1:50"
    # no clip path: viewers without clip-path support paint its rectangle black over the plan
    assert root.find(f".//{SVG}clipPath") is None

    texts = [n for n, _ in _walk(root) if n.tag == SVG + "text"]
    assert len(texts) == len(_texts(sheet))
    for n in texts:
        style = _style(n)
        assert style["font-family"] == SVG_FONT_FAMILY
        # held to the width the drawing measured, whatever font the viewer substitutes
        size = float(style["font-size"].removesuffix("px"))
        font = st.BOLD if style.get("font-weight") == "bold" else st.FONT
        assert float(n.get("textLength")) == pytest.approx(stringWidth(n.text, font, size), abs=1e-3)
        # the flip about the baseline is exact, not rounded to a whole point
        flip = re.fullmatch(r"translate\(0,(-?[\d.]+)\) scale\(1,-1\)", n.get("transform"))
        assert float(flip.group(1)) == pytest.approx(2 * float(n.get("y")), abs=1e-4)
    bold = [n.text for n in texts if _style(n).get("font-weight") == "bold"]
    assert bold == ["Data hall 1"]


def test_svg_draws_every_rack_where_it_stands_with_legend_and_scale_bar(dgx, tmp_path):
    out = tmp_path / "plan.svg"
    write_svg(dgx, out)
    sheet = project_drawing(dgx)
    root = ET.parse(out).getroot()
    nodes = list(_walk(root))
    by_tag = Counter(n.tag.removeprefix(SVG) for n, _ in nodes)
    roles = Counter(rack_role(r, dgx.catalog) for r in dgx.project.racks)
    # paths: one per rack colour, the floor units' (the air handlers), the tile grid, the rack fronts and the
    # front edge in the legend; rects: a swatch per legend entry and the four parts of the scale bar
    assert by_tag["path"] == len(roles) + 1 + 3
    assert by_tag["rect"] == len(sheet.halls[0][0].legend) + 4
    texts = [n.text for n, _ in nodes if n.tag == SVG + "text"]
    assert {r.name for r in dgx.project.racks} <= set(texts)
    legend = sheet.halls[0][0].legend
    assert [f"Compute ({roles['compute']})", f"Network ({roles['network']})", f"Storage ({roles['storage']})",
            f"Management ({roles['management']})", "Floor unit (4)", "front of rack"] == [
        t for t in texts if t in legend]
    assert {"0", "2.0 m", "Scale 1:50 at print size"} <= set(texts)

    # every rack's centre lies inside an outline of the path in its role's colour
    paths = {}
    for n, m in nodes:
        fill = _style(n).get("fill")
        if n.tag == SVG + "path" and fill not in (None, "none"):
            paths[fill] = _subpaths(n.get("d"), m)
    for role, count in roles.items():
        assert len(paths[_hex(st.ROLES[role][0])]) == count
    for rack in dgx.project.racks:
        x, y = sheet.page_point(0, rack.x, rack.y)
        centre = (x, sheet.height - y)  # the viewBox's y runs down the page
        outlines = paths[_hex(st.ROLES[rack_role(rack, dgx.catalog)][0])]
        assert sum(_inside(centre, o) for o in outlines) == 1, rack.name
        # drawn to scale: 600 mm wide at 1:50
        (hit,) = [o for o in outlines if _inside(centre, o)]
        w_mm, d_mm = rack_size(dgx.catalog, rack.type)
        spans = sorted(np.ptp(hit, axis=0))
        assert spans == pytest.approx(sorted(v * 72 / 25.4 / 50 for v in (w_mm, d_mm)))


def test_svg_of_cdus(nvl72, tmp_path):
    out = tmp_path / "plan.svg"
    write_svg(nvl72, out)
    root = ET.parse(out).getroot()
    nodes = list(_walk(root))
    # the floor units of one colour are one path of closed outlines: the two CDUs'
    (path,) = [(n, m) for n, m in nodes if n.tag == SVG + "path" and _style(n).get("fill") == _hex(st.CDU[0])]
    cdus = [f for f in nvl72.project.floor_devices if nvl72.catalog.get(f.type).kind == "cdu"]
    assert len(_subpaths(path[0].get("d"), path[1])) == len(cdus) == 2
    texts = {n.text for n, _ in _walk(root) if n.tag == SVG + "text"}
    assert {f.name for f in cdus} | {"CDU (2)"} <= texts


# -- PNG -----------------------------------------------------------------------------------------------------
def _pixel_box(sheet, hall_index: int, rack, catalog, dpi: float) -> tuple[int, int, int]:
    """The pixel at a rack's centre and half the side of a box that stays inside the rack."""
    x, y = sheet.page_point(hall_index, rack.x, rack.y)
    zoom = dpi / 72
    plan = sheet.halls[hall_index][0]
    half = 0.3 * min(rack_size(catalog, rack.type)) * plan.page_map[0] * zoom
    return round(x * zoom), round((sheet.height - y) * zoom), max(1, int(half))


def _share_of(img: np.ndarray, cx: int, cy: int, half: int, rgb: np.ndarray, tol: float = 6) -> float:
    box = img[cy - half:cy + half + 1, cx - half:cx + half + 1].astype(float)
    return float((np.abs(box - rgb).max(axis=2) <= tol).mean())


def test_png_is_the_sheet_at_its_dpi_with_every_rack_in_its_colour(dgx, tmp_path):
    out = tmp_path / "plan.png"
    assert write_png(dgx, out, dpi=120) == "120 dpi floor plan of 1 hall, 23 racks, at 1:50"
    sheet = project_drawing(dgx)
    with Image.open(out) as im:
        assert im.format == "PNG" and im.mode == "RGB"
        assert im.size == png_size(sheet, 120) == (round(sheet.width * 120 / 72), round(sheet.height * 120 / 72))
        assert im.info["dpi"] == pytest.approx((120, 120), abs=0.05)
        img = np.asarray(im)
    for rack in dgx.project.racks:
        cx, cy, half = _pixel_box(sheet, 0, rack, dgx.catalog, 120)
        # most of the box is the fill; the rest is the rack's white name
        assert _share_of(img, cx, cy, half, _rgb(st.ROLES[rack_role(rack, dgx.catalog)][0])) > 0.6, rack.name
    assert (img[:4, :4] == 255).all()  # the white border
    # the hall floor shows where no rack stands: the hall's corner, just inside its outline
    hall = dgx.project.halls[0]
    x0, y0, _, _ = hall.bounds
    x, y = sheet.page_point(0, x0 + 300, y0 + 300)
    assert np.abs(img[round((sheet.height - y) * 120 / 72), round(x * 120 / 72)] - _rgb(st.HALL_FILL)).max() <= 3


def test_png_default_dpi_and_a_bad_one(dgx, tmp_path):
    out = tmp_path / "plan.png"
    write_png(dgx, out)
    with Image.open(out) as im:
        assert im.size == png_size(project_drawing(dgx), 150)
    with pytest.raises(ExportError, match="resolution"):
        write_png(dgx, tmp_path / "bad.png", dpi=0)
    with pytest.raises(ExportError, match="megapixels"):
        write_png(dgx, tmp_path / "huge.png", dpi=20_000)
    assert not (tmp_path / "bad.png").exists() and not (tmp_path / "huge.png").exists()


def test_heat_map_png_has_the_legend_colours_and_each_rack_by_its_load(dgx, tmp_path):
    out = tmp_path / "heat.png"
    dpi = 100
    assert write_heatmap_png(dgx, out, dpi=dpi) == "100 dpi power heat map of 1 hall, 23 racks, at 1:50"
    sheet = project_drawing(dgx, "power")
    plan = sheet.halls[0][0]
    with Image.open(out) as im:
        assert im.size == png_size(sheet, dpi)
        img = np.asarray(im).astype(float)
    share = {r["id"]: r["utilisation"] for r in dgx["power"]["racks"]}
    assert len(share) == 23 and None not in share.values()
    # The window's load bands, in the legend's order: each rack by its band, each key one swatch of it.
    expected = Counter(load_band(share[r.id]) for r in dgx.project.racks)
    assert len(expected) >= 2  # the sample shows more than one colour
    assert [label for label in plan.legend if label != "front of rack"] == [
        f"{label} ({expected[band]})" for band, (_, label) in st.HEAT_BANDS.items() if expected[band]] + [
        "Floor unit (4)"]
    zoom = dpi / 72
    for band in expected:
        colour = _rgb(st.HEAT_BANDS[band][0])
        matches = int((np.abs(img - colour).max(axis=2) <= 3).sum())
        assert matches >= 0.5 * 10 * 8 * zoom * zoom, band  # at least the key's swatch, less its edges and blur
    for rack in dgx.project.racks:
        cx, cy, half = _pixel_box(sheet, 0, rack, dgx.catalog, dpi)
        assert _share_of(img.astype(np.uint8), cx, cy, half, _rgb(st.heat_colour(share[rack.id])), tol=12) > 0.6


def test_several_halls_are_stacked_each_at_its_own_scale(two_halls, tmp_path):
    sheet = project_drawing(two_halls)
    (first, _, y1), (second, _, y2) = sheet.halls
    assert [first.hall_name, second.hall_name] == ["Data hall 1", "Data hall 2"]
    assert first.racks_drawn == 15 and second.racks_drawn == 8
    assert sheet.height == pytest.approx(first.height + second.height + HALL_GAP_PT + 2 * MARGIN_PT)
    assert y1 == pytest.approx(second.height + HALL_GAP_PT + MARGIN_PT) and y2 == MARGIN_PT

    svg = tmp_path / "plan.svg"
    assert write_svg(two_halls, svg) == "floor plan of 2 halls, 23 racks, at 1:50"
    root = ET.parse(svg).getroot()
    texts = [n.text for n, _ in _walk(root) if n.tag == SVG + "text"]
    assert texts.count("Data hall 1") == texts.count("Data hall 2") == 1
    assert "Compute (8)" in texts and "Compute (8)" in texts[texts.index("Data hall 2"):]

    png = tmp_path / "plan.png"
    write_png(two_halls, png, dpi=90)
    with Image.open(png) as im:
        assert im.size == png_size(sheet, 90)
        img = np.asarray(im)
    halls = {h.id: i for i, h in enumerate(two_halls.project.halls)}
    for rack in two_halls.project.racks:
        cx, cy, half = _pixel_box(sheet, halls[rack.hall], rack, two_halls.catalog, 90)
        assert _share_of(img, cx, cy, half, _rgb(st.ROLES[rack_role(rack, two_halls.catalog)][0])) > 0.6, rack.name
    # the second hall's racks are below the first hall's drawing
    lower = [_pixel_box(sheet, 1, r, two_halls.catalog, 90)[1] for r in two_halls.project.racks if r.hall == "hall-2"]
    assert min(lower) > (sheet.height - y1) * 90 / 72


def test_a_design_without_a_hall_is_refused(catalog, tmp_path):
    empty = analyze(Project(), catalog)
    for write in (write_svg, write_png, write_heatmap_png):
        with pytest.raises(ExportError, match="no hall"):
            write(empty, tmp_path / "x")
    assert not list(tmp_path.iterdir())


def test_a_heat_map_needs_the_power_figures_and_a_plan_without_them_shows_no_data(dgx, tmp_path):
    """An analysis made without the power and cooling engines: the heat map is refused in words, and the plan
    drawn by power shows every rack and CDU as "no data", never as a load."""
    def without(mapping):
        return {k: v for k, v in mapping.items() if k not in ("power", "cooling")}

    partial = dataclasses.replace(dgx, sections=without(dgx.sections), results=without(dgx.results))
    with pytest.raises(ExportError, match="no power figures"):
        write_heatmap_png(partial, tmp_path / "heat.png")
    assert not (tmp_path / "heat.png").exists()
    plan = plan_drawing(partial, colour_by="power")
    assert plan.legend[0] == f"{st.HEAT_BANDS['no_data'][1]} ({len(dgx.project.racks)})"
