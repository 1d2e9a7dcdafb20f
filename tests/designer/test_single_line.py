"""A hall's single-line diagram: the topology its UPS scheme implies, the analysis's ratings and loads in each box, a
box past its design margin marked; drawn in the PDF appendix and on a DXF layer of its own."""
from __future__ import annotations

import dataclasses

import ezdxf
import pytest
from pypdf import PdfReader

from designer.analysis import analyze
from designer.fileformat import load
from designer.power.single_line import MAX_ROWS, single_line
from designer.samples import DGX_B200_SU, GB200_NVL72_SU


@pytest.fixture(scope="module")
def b200(catalog):
    p = load(DGX_B200_SU, catalog)
    return p, analyze(p, catalog)


def _with_facility(project, **changes):
    hall = project.halls[0]
    return project.with_hall(dataclasses.replace(hall, facility=hall.facility.updated(**changes)))


def _edges(sl) -> set[tuple[str, str, str]]:
    return {(w.a, w.b, w.side) for w in sl.wires}


def test_a_2n_hall_is_two_chains_and_each_row_fed_by_both(b200):
    project, a = b200
    sl = single_line(a.power, project.halls[0])
    kinds = [b.kind for b in sl.boxes]
    assert kinds == ["utility", "generators", "switchgear", "switchgear", "ups", "ups"] + ["busway"] * 6 + ["racks"] * 3
    ups_a = sl.box("ups-0")
    system = a.power.ups[0].systems[0]
    assert ups_a.title == "UPS A" and ups_a.lines == ("2N, 1,200 kW", "normal 249 kW (21 %)", "B lost 363 kW (30 %)")
    assert system.normal_kw == pytest.approx(249.5, abs=0.05)
    edges = _edges(sl)
    assert {("utility", "switchgear-0", "A"), ("generators", "switchgear-1", "B"), ("switchgear-0", "ups-0", "A"),
            ("ups-0", "busway-1-A", "A"), ("ups-1", "busway-1-B", "B"), ("busway-1-A", "racks-1", "A"),
            ("busway-1-B", "racks-1", "B")} <= edges
    row = next(r for r in a.power.rows if r.row == "R01A")
    busway = sl.box("busway-1-A")
    assert busway.title == "R01A busway A" and busway.lines[0] == "400 A"
    assert busway.lines[2] == f"B lost {row.feeds.A.failover_kw:.0f} kW (61 %)"
    assert not any(b.over for b in sl.boxes)
    # boxes do not overlap and lie on the sheet
    for b in sl.boxes:
        assert b.x >= 0 and b.x + b.w <= sl.width and b.y >= 0 and b.y + b.h <= sl.height
    for b in sl.boxes:
        for c in sl.boxes:
            if b is not c:
                assert b.x + b.w <= c.x or c.x + c.w <= b.x or b.y + b.h <= c.y or c.y + c.h <= b.y


def test_a_busway_past_its_margin_is_marked(catalog, b200):
    project, _ = b200
    tight = _with_facility(project, distribution_amps=250.0)
    sl = single_line(analyze(tight, catalog).power, tight.halls[0])
    assert {b.key for b in sl.boxes if b.over} == {"busway-1-A", "busway-1-B", "busway-2-A", "busway-2-B"}


def test_n_plus_1_and_distributed_redundant_topologies(catalog, b200):
    project, _ = b200
    one = _with_facility(project, ups_scheme="N+1", ups_modules=2, ups_redundant_modules=1)
    sl = single_line(analyze(one, catalog).power, one.halls[0])
    assert [b.title for b in sl.boxes if b.kind == "ups"] == ["UPS"]
    assert {("ups-0", f"busway-{i}-{s}", s) for i in range(3) for s in "AB"} <= _edges(sl)
    dr = _with_facility(project, ups_scheme="DR", ups_blocks=3)
    sl = single_line(analyze(dr, catalog).power, dr.halls[0])
    assert [b.title for b in sl.boxes if b.kind == "switchgear"] == ["Switchgear 1", "Switchgear 2", "Switchgear 3"]
    # a row's A busway on block k, its B on block k + 1, as the power chain loads them
    assert {("ups-0", "busway-0-A", "A"), ("ups-1", "busway-0-B", "B"), ("ups-1", "busway-1-A", "A"),
            ("ups-2", "busway-1-B", "B")} <= _edges(sl)
    bare = _with_facility(project, ups_scheme=None, ups_module_kw=None, generators=0)
    sl = single_line(analyze(bare, catalog).power, bare.halls[0])
    assert [b.kind for b in sl.boxes][:2] == ["utility", "switchgear"]
    assert ("switchgear-0", "busway-0-A", "A") in _edges(sl) or ("switchgear-0", "busway-0-A", "") in _edges(sl)


def test_a_hall_of_many_rows_draws_its_busways_per_feed(catalog):
    from designer.generate.build import generate
    from designer.generate.spec import SuperpodSpec

    project = generate(SuperpodSpec(system="dgx-b200", sus=4, networks=("compute",)), catalog).project
    a = analyze(project, catalog)
    rows = [r for r in a.power.rows if r.row]
    assert len(rows) > MAX_ROWS
    sl = single_line(a.power, project.halls[0])
    buses = [b for b in sl.boxes if b.kind == "busway"]
    assert [b.title for b in buses] == [f"{len(rows)} busways A", f"{len(rows)} busways B"]
    assert sl.box("racks-all").lines[0] == f"{sum(r.racks for r in rows):,} racks"


def test_the_appendix_and_the_dxf_draw_it(tmp_path, catalog):
    from exporters.dxf import write_dxf
    from exporters.quote_pdf import write_appendix_pdf

    p = load(GB200_NVL72_SU, catalog)
    a = analyze(p, catalog)
    write_appendix_pdf(a, tmp_path / "a.pdf")
    text = "\n".join(page.extract_text() for page in PdfReader(str(tmp_path / "a.pdf")).pages)
    assert "Data hall 1: single-line diagram" in text
    for words in ("Switchgear A", "UPS B", "R01A busway A", "B lost 1,187 kW (49 %)", "1,096 kW maximum"):
        assert words in text, words
    write_dxf(a, tmp_path / "p.dxf")
    msp = ezdxf.readfile(tmp_path / "p.dxf").modelspace()
    texts = [e.dxf.text for e in msp.query("TEXT") if e.dxf.layer == "POWER-SINGLE-LINE"]
    assert "Data hall 1: single-line diagram" in texts and "UPS A" in texts and "R01A busway B" in texts
    wires = msp.query("LWPOLYLINE").filter(lambda e: e.dxf.layer in ("POWER-SINGLE-LINE-A", "POWER-SINGLE-LINE-B"))
    assert len(wires) == len(single_line(a.power, p.halls[0]).wires)


def test_racks_without_a_row_are_drawn_and_keep_the_blocks_as_the_power_chain_deals_them(catalog, b200):
    """A DR scheme deals rows to blocks by their place among every row the power chain loads, racks in no row
    among them: the diagram draws them too, so each block feeds the busways the check loads it with."""
    project, _ = b200
    first = project.racks[0]
    noted = project.with_racks([dataclasses.replace(r, row="") if r.row == first.row else r for r in project.racks])
    dr = _with_facility(noted, ups_scheme="DR", ups_blocks=3)
    a = analyze(dr, catalog)
    sl = single_line(a.power, dr.halls[0])
    rows = [r for r in a.power.rows if r.hall == dr.halls[0].id]
    assert [b.title for b in sl.boxes if b.kind == "racks"][0] == "Racks in no row"
    for k, system in enumerate(a.power.ups[0].systems):
        fed = [w.b for w in sl.wires if w.a == f"ups-{k}"]
        drawn_kw = sum(getattr(rows[int(key.split("-")[1])].feeds, key[-1]).normal_kw for key in fed)
        assert drawn_kw == pytest.approx(system.normal_kw, abs=0.1), system.name


def test_a_busway_of_several_runs_is_judged_by_its_busiest_run(catalog, b200):
    project, _ = b200
    runs = _with_facility(project, distribution_runs=2, distribution_amps=160.0)
    a = analyze(runs, catalog)
    assert any(f.code == "distribution-over-margin" for f in a.findings)
    sl = single_line(a.power, runs.halls[0])
    assert any(b.over for b in sl.boxes if b.kind == "busway")
    box = next(b for b in sl.boxes if b.title == "R01A busway A")
    row = next(r for r in a.power.rows if r.row == "R01A")
    assert box.lines[0] == "2 x 160 A" and f"{row.feeds.A.run_failover_kw:.0f} kW" in box.lines[2]
