"""A site's cabling: every link names the hall and building of each end, and the pull list is split by building
(both ends in one, or between two) into tables that add up to the whole."""
from __future__ import annotations

import csv
from collections import Counter

import openpyxl
import pytest

from dataclasses import replace

from designer.analysis import analyze
from designer.generate import SuperpodSpec, generate
from exporters.cabling import BETWEEN_BUILDINGS, COLUMNS, cabling_plan, write_cabling_csv
from exporters.cabling_xlsx import PULL_LIST, write_cabling_xlsx


@pytest.fixture(scope="module")
def site(catalog):
    """GB300 NVL72, 4,608 GPUs in 3 MW halls, two halls to a building: 4 data halls and 2 network rooms."""
    g = generate(SuperpodSpec(system="gb300-nvl72", gpus=4608, hall_power_kw=3000, halls_per_building=2), catalog)
    return analyze(g.project, catalog)


def test_each_end_names_its_hall_and_building(site, tmp_path):
    out = tmp_path / "cabling.csv"
    write_cabling_csv(site, out)
    with out.open(newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    # appended after every column there was, so a script reading them by position still reads them
    assert header == list(COLUMNS) and header[-4:] == ["a_hall", "a_building", "b_hall", "b_building"]
    assert header.index("network") == len(header) - 5
    project = site.project
    rack = {r.id: r for r in project.racks}
    hall = {h.id: h for h in project.halls}
    col = {name: i for i, name in enumerate(header)}
    for row in body:
        for end in ("a", "b"):
            h = hall[rack[row[col[f"{end}_rack"]]].hall]
            assert row[col[f"{end}_hall"]] == h.label and row[col[f"{end}_building"]] == h.building
    between = Counter(row[col["network"]] for row in body if row[col["a_building"]] != row[col["b_building"]])
    # the compute fabric's upper tier crosses buildings; so do the storage leaves' uplinks to building 1's spines
    assert between["compute"] == 960 + 1344 and between["storage"] == 584
    assert {row[col["a_hall"]] for row in body} == {h.label for h in project.halls}


def test_pull_lists_by_building_add_up_to_the_whole(site, tmp_path):
    plan = cabling_plan(site)
    assert plan.buildings() == ["Building 1", "Building 2"]
    whole = Counter({(c["cable"], c["length_m"]): c["count"] for c in plan.cables()})
    parts = Counter()
    for name in plan.buildings() + [BETWEEN_BUILDINGS]:
        for c in plan.cables(building=name):
            parts[(c["cable"], c["length_m"])] += c["count"]
    assert parts == whole and sum(whole.values()) == len(plan)
    between = plan.cables(building=BETWEEN_BUILDINGS)
    assert between and all(c["length_m"] > 20 for c in between)  # runs between buildings are long fibre
    # in the workbook: a table per building and one between them, each with its total
    out = tmp_path / "cabling.xlsx"
    write_cabling_xlsx(site, out)
    ws = openpyxl.load_workbook(out)[PULL_LIST]
    values = [[c.value for c in row] for row in ws.iter_rows()]
    titles = [r[0] for r in values]
    totals = {}
    for name, title in (("Building 1", "Cables in Building 1"), ("Building 2", "Cables in Building 2"),
                        (BETWEEN_BUILDINGS, "Cables between buildings")):
        i = titles.index(title)
        j = next(k for k in range(i, len(values)) if values[k][0] == "Total")
        totals[name] = values[j][4]
        assert totals[name] == sum(c["count"] for c in plan.cables(building=name))
    assert sum(totals.values()) == sum(whole.values())


def test_one_building_has_no_building_tables(catalog, tmp_path):
    g = generate(SuperpodSpec(system="dgx-b200", gpus=256), catalog)
    a = analyze(g.project, catalog)
    plan = cabling_plan(a)
    assert plan.buildings() == []
    assert set(plan.text["a_hall"]) == {g.project.halls[0].label} and set(plan.text["a_building"]) == {""}
    write_cabling_xlsx(a, tmp_path / "c.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "c.xlsx")[PULL_LIST]
    assert not any(str(row[0].value or "").startswith("Cables in ") for row in ws.iter_rows())


def test_names_with_commas_are_quoted_and_rooms_without_a_building_have_their_table(site, catalog, tmp_path):
    halls = tuple(replace(h, building="Building 1, Phoenix") if h.building == "Building 1" else
                  replace(h, building="") for h in site.project.halls)
    a = analyze(replace(site.project, halls=halls), catalog)
    out = tmp_path / "cabling.csv"
    write_cabling_csv(a, out)
    with out.open(newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    assert {len(r) for r in rows} == {len(COLUMNS)}
    assert {r[-3] for r in rows[1:]} == {"Building 1, Phoenix", ""}
    plan = cabling_plan(a)
    assert plan.buildings() == ["", "Building 1, Phoenix"]
    whole = sum(c["count"] for c in plan.cables())
    assert sum(c["count"] for b in plan.buildings() + [BETWEEN_BUILDINGS] for c in plan.cables(building=b)) == whole
    write_cabling_xlsx(a, tmp_path / "c.xlsx")
    titles = [row[0].value for row in openpyxl.load_workbook(tmp_path / "c.xlsx")[PULL_LIST].iter_rows()]
    assert "Cables in rooms without a building" in titles and "Cables in Building 1, Phoenix" in titles
