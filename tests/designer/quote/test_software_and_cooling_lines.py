"""Quote-only lines counted from the design: the cluster-management licence, and the coolant manifolds and hoses
each liquid-cooled rack needs on its CDU loop."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from catalog import CatalogError, load_catalog
from designer.analysis import analyze
from designer.fileformat import load
from designer.quote.lines import QuoteCounts, count_basis, section_of
from designer.samples import DGX_B200_SU, GB200_NVL72_SU


def _lines(a, section=None):
    return [ln for s in a["bom"]["sections"] if section in (None, s["section"]) for ln in s["lines"]]


@pytest.fixture(scope="module")
def nvl(catalog):
    project = load(GB200_NVL72_SU, catalog)
    return project, analyze(project, catalog)


def test_mission_control_is_a_per_gpu_year_line_marked_as_an_estimate(nvl, catalog):
    _, a = nvl
    (line,) = [ln for ln in _lines(a, "software") if ln["id"] == "mission-control"]
    assert (line["quantity"], line["unit"], line["per_year"]) == (8 * 72, "GPU-year", True)
    assert line["extended_price"] == 1000 * 8 * 72 * line["term_years"]
    # no NVIDIA price: a planning estimate, flagged on the line, its source named, and a note on the quote
    assert line["price_confirmed"] is False and "unconfirmed" in line["flags"]
    assert line["price_source"].startswith("PodPlanner planning estimate")
    fig = catalog.get("mission-control").figure("price.amount")
    assert (fig.source, fig.evidence) == ("EST", "U")
    assert any("Base Command Manager" in note for note in a["bom"]["notes"])


def test_each_liquid_cooled_rack_on_a_cdu_loop_takes_a_manifold_pair_and_a_hose_set(nvl):
    _, a = nvl
    cooling = {ln["id"]: ln for ln in _lines(a, "cooling")}
    for part in ("cdu-rack-manifold", "cdu-rack-hoses"):
        assert cooling[part]["quantity"] == 8  # the SU's eight NVL72 racks; its network racks are air-cooled
        assert cooling[part]["basis"] == "one per liquid-cooled rack on a CDU loop (8)"
        assert cooling[part]["price_confirmed"] is False


def test_no_manifolds_for_air_cooled_racks_or_without_a_cdu(nvl, catalog):
    b200 = analyze(load(DGX_B200_SU, catalog), catalog)
    assert not {"cdu-rack-manifold", "cdu-rack-hoses"} & {ln["id"] for ln in _lines(b200)}
    project, _ = nvl
    no_cdu = analyze(replace(project, floor_devices=()), catalog)
    assert not {"cdu-rack-manifold", "cdu-rack-hoses"} & {ln["id"] for ln in _lines(no_cdu)}


def test_liquid_rack_basis_counts_and_an_accessory_goes_to_its_categorys_section(catalog):
    manifold = catalog.get("cdu-rack-manifold")
    assert count_basis(manifold, QuoteCounts(gpus=0, nodes=0, devices={}, liquid_racks=3), catalog)[0] == 3
    assert count_basis(manifold, QuoteCounts(gpus=0, nodes=0, devices={}), catalog) == (0, "")
    assert section_of(manifold) == "cooling"
    assert section_of(catalog.get("power-cord-c19-c20")) == "power"


def test_the_loader_knows_the_liquid_rack_basis_and_refuses_a_misspelt_one(tmp_path):
    entry = json.loads((load_catalog.__globals__["DATA_DIR"] / "quote" / "cdu-rack-hoses.json").read_text())
    entry["id"], entry["basis"] = "my-hoses", "liquid-racks"
    (tmp_path / "my-hoses.json").write_text(json.dumps(entry))
    with pytest.raises(CatalogError, match="liquid-racks"):
        load_catalog([tmp_path])
    entry["basis"] = "liquid-rack"
    (tmp_path / "my-hoses.json").write_text(json.dumps(entry))
    assert load_catalog([tmp_path]).get("my-hoses").basis == "liquid-rack"
