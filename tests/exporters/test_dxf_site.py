"""A site's DXF draws each hall where it stands on the site (the plan the cable lengths are measured on), and a
CAD reader finds the file sound."""
from __future__ import annotations

import ezdxf
import pytest

from designer.analysis import analyze
from designer.generate import SuperpodSpec, generate
from designer.site_plan import SitePlan
from exporters.dxf import write_dxf


@pytest.fixture(scope="module")
def site(catalog):
    """GB300 NVL72, 4,608 GPUs in 3 MW halls, two halls to a building: 4 data halls and 2 network rooms."""
    g = generate(SuperpodSpec(system="gb300-nvl72", gpus=4608, hall_power_kw=3000, halls_per_building=2), catalog)
    return analyze(g.project, catalog)


def test_halls_and_racks_stand_where_the_site_puts_them(site, catalog, tmp_path):
    out = tmp_path / "site.dxf"
    write_dxf(site, out)
    doc = ezdxf.readfile(out)
    auditor = doc.audit()
    assert not auditor.has_errors
    msp = doc.modelspace()
    outlines = sorted(tuple(sorted((round(x), round(y)) for x, y, *_ in e.get_points()))
                      for e in msp.query("LWPOLYLINE[layer=='HALL-OUTLINE']"))
    plan = SitePlan.of(site.project, catalog)
    expected = sorted(tuple(sorted((round(x), round(-y)) for x, y in r.outline)) for r in plan.rooms)
    assert outlines == expected and len(outlines) == 6
    # two buildings stand apart along y on the site: so do their halls in the drawing
    assert len({o[0][1] for o in outlines}) >= 2
    # every rack's block at its place on the site
    origin = {r.id: (r.rect[0] - h.bounds[0], r.rect[1] - h.bounds[1])
              for r, h in zip(plan.rooms, site.project.halls)}
    hall_of = {r.name or r.id: r for r in site.project.racks}
    placed = 0
    for insert in msp.query("INSERT"):
        tags = {a.dxf.tag: a.dxf.text for a in insert.attribs}
        rack = hall_of.get(tags.get("NAME"))
        if rack is None:
            continue
        dx, dy = origin[rack.hall]
        assert insert.dxf.insert.x == pytest.approx(rack.x + dx)
        assert insert.dxf.insert.y == pytest.approx(-(rack.y + dy))
        placed += 1
    assert placed == len(site.project.racks)
