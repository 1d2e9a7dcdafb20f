"""The floor-plan and rack-elevation drawings: scale, what they hold, and that they render to PDF and SVG."""
from __future__ import annotations

import io
import math
import re

import pytest
from pypdf import PdfReader
from reportlab.graphics import renderPDF, renderSVG
from reportlab.graphics.shapes import Path, String
from reportlab.pdfbase.pdfmetrics import stringWidth

from designer.analysis import analyze
from designer.colours import load_band
from designer.rack_roles import rack_role
from exporters import pdf_style
from exporters.elevation_drawing import elevation_drawing
from exporters.plan_drawing import PT_PER_MM, choose_scale, plan_drawing


def strings(node) -> list[str]:
    """Every text drawn in a drawing, depth first."""
    out = []
    for child in getattr(node, "contents", ()):
        if isinstance(child, String):
            out.append(child.text)
        else:
            out += strings(child)
    return out


def pdf_text(drawing) -> str:
    buf = io.BytesIO()
    renderPDF.drawToFile(drawing, buf)
    return PdfReader(io.BytesIO(buf.getvalue())).pages[0].extract_text()


def test_scale_is_the_largest_standard_one_that_fits():
    assert choose_scale(7800, 10800, 507, 620) == 50  # 7.8 m x 10.8 m at 1:50 is 442 x 612 pt
    assert choose_scale(7800, 10800, 507, 600) == 75
    assert choose_scale(120_600, 130_800, 507, 600) == 750
    # past the last standard scale: the next 1-2-5 step that fits
    huge = choose_scale(60_000_000, 1000, 500, 500)
    assert re.fullmatch(r"[125]0*", str(huge)) and 60_000_000 * PT_PER_MM / huge <= 500


def test_plan_draws_every_rack_to_scale_with_names_and_legend(dgx):
    d = plan_drawing(dgx, width=515, height=700)
    # the 10.2 m hall (its rows and the air handlers' galleries) is 204 mm wide at 1:50: 1:75 fits the column
    floor = len(dgx.project.floor_devices)
    assert d.scale == 75 and d.racks_drawn == 23 and d.labels_drawn == 23 + floor and floor == 4
    roles = [rack_role(r, dgx.catalog) for r in dgx.project.racks]
    assert d.legend == [f"Compute ({roles.count('compute')})", f"Network ({roles.count('network')})",
                        f"Storage ({roles.count('storage')})", f"Management ({roles.count('management')})",
                        "Floor unit (4)", "front of rack"]
    texts = strings(d)
    assert {r.name for r in dgx.project.racks} | {f.name for f in dgx.project.floor_devices} <= set(texts)
    assert "Scale 1:75 at print size" in texts and "Data hall 1" in texts
    # a rack is drawn at its real size: 600 mm at 1:75 is 8 mm on paper
    rack_paths = [p for p in d.contents if isinstance(p, Path) and p.fillColor == pdf_style.ROLES["compute"][0]]
    (compute,) = rack_paths
    xs = compute.points[0:8:2]
    assert max(xs) - min(xs) == pytest.approx(600 * PT_PER_MM / 75)
    assert len(compute.operators) == 5 * roles.count("compute")  # one closed outline per rack, one path for all
    text = pdf_text(d)
    assert "SU01-01" in text and "Compute (16)" in text


def test_plan_by_power_load_bins_every_rack(dgx):
    d = plan_drawing(dgx, colour_by="power")
    counts = [int(m.group(1)) for label in d.legend
              if (m := re.search(r"\((\d+)\)$", label)) and not label.startswith("Floor unit")]
    assert sum(counts) == 23
    share = {r["id"]: r["utilisation"] for r in dgx["power"]["racks"]}
    under = sum(1 for v in share.values() if v < 0.6)
    assert f"Under 60 % of limit ({under})" in d.legend
    with pytest.raises(ValueError, match="colour_by"):
        plan_drawing(dgx, colour_by="weight")


def test_plan_shows_cdus_and_renders_to_svg(nvl72):
    d = plan_drawing(nvl72)
    assert "CDU (2)" in d.legend and "Rack-scale system (8)" in d.legend
    assert "SU01 CDU-1" in strings(d)
    svg = renderSVG.drawToString(d)
    assert svg.lstrip().startswith("<?xml") and "SU01 CDU-1" in svg and "SU01-01" in svg


def test_small_plan_leaves_out_labels_that_would_not_print(dgx):
    d = plan_drawing(dgx, width=140, height=220)
    assert d.scale > 100
    # at 1:400 a rack is 4 mm across, too small for its name; an air handler's 2.55 m still holds "CRAH-01"
    assert not {r.name for r in dgx.project.racks} & set(strings(d))
    assert d.labels_drawn == len(dgx.project.floor_devices)


def test_elevation_shows_both_faces_with_parts_and_units(dgx, catalog):
    rack = dgx.project.rack("su01-01")
    d = elevation_drawing(rack, catalog, title="Build 1", subtitle="e.g. SU01-01")
    texts = strings(d)
    assert {"Front", "Rear", "U", "Build 1", "e.g. SU01-01"} <= set(texts)
    assert texts.count("DGX B200") == 2 and "U2–11" in texts and "U12–21" in texts
    assert texts.count("DGX B200 (front-mounted)") == 2  # their U taken on the rear face too
    assert {str(u) for u in range(1, 49)} <= set(texts)
    assert any(t.startswith("Rack PDU") for t in texts)  # the 0U PDUs as strips
    assert "DGX B200" in pdf_text(d)


def test_elevation_of_a_rack_scale_system_lays_out_its_trays(nvl72, catalog):
    rack = nvl72.project.rack("su01-01")
    texts = strings(elevation_drawing(rack, catalog))
    system = catalog.get("gb200-nvl72")
    trays = sum(c.count for c in system.components if catalog.get(c.id).u_height > 0)
    assert sum(1 for t in texts if "tray" in t or "shelf" in t) == trays
    assert "Tray order is illustrative: the vendor publishes no U map." in texts


def test_large_hall_is_a_handful_of_shapes(catalog):
    from bench.designs import dgx_b200_project

    a = analyze(dgx_b200_project(), catalog)
    # a site: each hall's plan draws its own racks
    drawings = [plan_drawing(a, h.id) for h in a.project.halls]
    assert [d.racks_drawn for d in drawings] == [sum(r.hall == h.id for r in a.project.racks) for h in a.project.halls]
    d = drawings[0]
    assert d.racks_drawn > 500 and d.labels_drawn == 0
    # one path per colour, not one shape per rack: that is what keeps the PDF small and quick
    assert len(d.contents) < 40
    assert "front of rack" not in d.legend  # racks are too small on paper to show their front edge


def test_narrowed_plan_keeps_its_scale_and_maps_the_hall_onto_the_page(dgx):
    wide = plan_drawing(dgx, width=1190, height=841)
    narrow = plan_drawing(dgx, width=1190, height=841, shrink_width=True)
    assert wide.width == 1190 and narrow.scale == wide.scale == 50
    hall = dgx.project.halls[0]
    x0, _, x1, _ = hall.bounds
    # at least as wide as the hall at 1:50 with the 4 pt side margins (its header may want more), and narrower
    # than the page
    assert math.ceil((x1 - x0) * PT_PER_MM / 50 + 8) <= narrow.width < 1190
    assert narrow.height == int(narrow.height)  # whole points, so an image of it has an exact size
    k = PT_PER_MM / 50
    for d in (wide, narrow):
        # the hall's corners a hall's width apart, centred, and y growing up the page as it grows down the plan
        (ax, ay), (bx, by) = d.page_point(x0, 0), d.page_point(x1, 1000)
        assert bx - ax == pytest.approx((x1 - x0) * k) and ay - by == pytest.approx(1000 * k)
        assert (ax + bx) / 2 == pytest.approx(d.width / 2)
        compute = next(p for p in d.contents if isinstance(p, Path) and p.fillColor == pdf_style.ROLES["compute"][0])
        rack = dgx.project.rack("su01-01")
        cx, cy = d.page_point(rack.x, rack.y)
        xs, ys = compute.points[0:8:2], compute.points[1:8:2]  # the first compute rack's outline
        assert (min(xs) + max(xs)) / 2 == pytest.approx(cx) and (min(ys) + max(ys)) / 2 == pytest.approx(cy)


def test_narrowed_plan_keeps_room_for_its_header(nvl72):
    d = plan_drawing(nvl72, width=1190, height=841, colour_by="power", shrink_width=True)
    sub = next(t for t in strings(d) if t.endswith("CDUs by their loop's load"))
    assert d.width < 1190 and d.width >= stringWidth(sub, pdf_style.FONT, 7) + 4


def test_the_power_plan_colours_cdus_by_their_loops_load_as_the_window_does(nvl72):
    from reportlab.graphics.shapes import Polygon

    d = plan_drawing(nvl72, colour_by="power")
    loops = nvl72["cooling"]["cdu_loops"]
    bands = {load_band(loop["utilisation"]) for loop in loops if any(u.startswith("floor:") for u in loop["units"])}
    assert bands
    labels = [label for label in d.legend if label.startswith("CDU loop ")]
    assert labels == [f"CDU loop {pdf_style.HEAT_BANDS[b][1][0].lower()}{pdf_style.HEAT_BANDS[b][1][1:]} (2)"
                      for b in pdf_style.HEAT_BANDS if b in bands]
    fills = {p.fillColor for p in d.contents if isinstance(p, (Polygon, Path))}
    assert pdf_style.CDU[0] not in fills and {pdf_style.HEAT_BANDS[b][0] for b in bands} <= fills
