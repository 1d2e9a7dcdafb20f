"""The typed read side: every figure an engine writes has a view attribute, every attribute a figure.

The designs below cover each shape a section takes (a fabric too large for its switch, a design with
no GPUs, a training workload that errs or does not fit, two halls, three tiers), so a key an engine
adds, drops or renames fails here, by path, before a consumer prints 0 for it.
"""
from __future__ import annotations

import dataclasses
from types import MappingProxyType

import pytest

from designer import samples
from designer.analysis import analyze
from designer.fileformat import load
from designer.generate import SuperpodSpec, generate
from designer.views import SECTION_VIEWS, FabricView, Summary, ViewError, build, build_all, undeclared


def _variants(catalog):
    dgx = load(samples.DGX_B200_SU, catalog)
    nvl = load(samples.GB200_NVL72_SU, catalog)
    yield "dgx-b200 sample", dgx
    yield "gb200 sample", nvl
    yield "no racks", dgx.with_racks([])
    no_gpus = [dataclasses.replace(r, devices=tuple(d for d in r.devices if not catalog.get(d.type).gpu_count))
               for r in dgx.racks]
    yield "no GPUs", dgx.with_racks(no_gpus)
    yield "training plan that does not divide", dgx.with_workload({"model": "llama3-70b", "tp": 3})
    yield "training plan that does not fit", dgx.with_workload({"model": "llama3-405b", "tp": 1, "pp": 1})
    yield "training plan given", nvl.with_workload({"model": "llama3-8b", "tp": 1, "pp": 1})
    yield "unknown model", nvl.with_workload({"model": "nonesuch"})
    yield "two halls", nvl.adding_hall(dataclasses.replace(nvl.halls[0], id="hall-2", name="Hall two"))
    three_tiers = SuperpodSpec(system="dgx-b200", sus=4, tiers="3", networks=("compute",))
    yield "three tiers", generate(three_tiers, catalog, with_phases=False).project


@pytest.fixture(scope="module")
def analyses(catalog):
    return {name: analyze(project, catalog) for name, project in _variants(catalog)}


def test_the_variants_cover_each_shape(analyses):
    training = {a.training.status for a in analyses.values()}
    assert {"ok", "error", "no GPUs in the design"} <= training
    assert any(a.fabric.tiers == 3 for a in analyses.values())
    assert any(a.fabric.tiers == 0 for a in analyses.values())
    assert any(a.training.search is None and a.training.ok for a in analyses.values())


def test_every_section_reads_whole_through_its_view(analyses):
    for name, a in analyses.items():
        for section, cls in SECTION_VIEWS.items():
            build_all(cls, a.sections[section], section)  # every row of every list, not just the first
            assert undeclared(cls, a.sections[section], section) == [], name
        assert undeclared(Summary, a.summary_json, "summary") == [], name
        for rack in a.project.racks:
            assert a.rack(rack.id).id == rack.id


def test_views_hold_the_figures_the_json_prints(analyses):
    a = analyses["gb200 sample"]
    # two in-row CDUs at 20 kW and three air handlers at 6 kW
    assert a.power.cooling_equipment_kw == a["power"]["cooling_equipment_kw"] == 58.0
    assert a.cooling.settings.coolant_delta_t_k == 10.0
    assert a.fabric.tiers == 2 and a.fabric.links.node_leaf == a["fabric"]["links"]["node_leaf"]
    assert a.summary.switches.leaf == a.summary_json["switches"]["leaf"] == a.fabric.leaf
    assert a.bom.sections[0].lines[0].part_number == a["bom"]["sections"][0]["lines"][0]["part_number"]
    rack = a.rack("su01-01")
    assert (rack.max_kw, rack.liquid_kw, rack.weight_kg) == (132.0, 112.2, 1360.0)
    assert rack.feeds.A.normal_kw == a["power"]["racks"][0]["feeds"]["A"]["normal_kw"]
    assert a.rack("no-such-rack") is None


def test_a_misspelt_figure_fails_where_it_is_read(analyses):
    a = analyses["gb200 sample"]
    with pytest.raises(AttributeError):
        a.power.cooling_equipment_kwh  # noqa: B018 - the read itself is the test
    with pytest.raises(AttributeError):
        a.rack("su01-01").liquid_kW  # noqa: B018


def test_a_figure_the_engine_stops_writing_names_its_path(analyses):
    a = analyses["gb200 sample"]
    power = {k: v for k, v in a["power"].items() if k != "cooling_equipment_kw"}
    with pytest.raises(ViewError, match=r"power\.cooling_equipment_kw: missing"):
        build(SECTION_VIEWS["power"], power, "power")
    racks = [dict(r) for r in a["power"]["racks"]]
    del racks[3]["limit_kw"]
    rows = build(SECTION_VIEWS["power"], {**a["power"], "racks": racks}, "power").racks
    assert rows[0].limit_kw == pytest.approx(134.795)  # rows are read when asked for, each checked then
    with pytest.raises(ViewError, match=r"power\.racks\[3\]\.limit_kw"):
        rows[3]  # noqa: B018
    broken = dataclasses.replace(a, summary_json={k: v for k, v in a.summary_json.items() if k != "gpus"})
    with pytest.raises(ViewError, match=r"summary\.gpus"):
        broken.summary  # noqa: B018


def test_a_shape_may_omit_figures_only_where_it_says_why():
    # the fabric of a design no tree holds: endpoints and the reason, nothing else
    assert build(FabricView, {"endpoints": 9000, "error": "too many"}, "fabric").built is False
    with pytest.raises(ViewError, match=r"fabric\.nodes"):
        build(FabricView, {"endpoints": 9000}, "fabric")  # no error, so the tree's counts must be there
    with pytest.raises(ViewError, match=r"training\.workload_source"):
        build(SECTION_VIEWS["training"], {"status": "ok", "model": "x"}, "training")


def test_views_are_read_only(analyses):
    a = analyses["gb200 sample"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.power.it_max_kw = 0.0
    assert isinstance(a.devices.by_type, MappingProxyType)
    with pytest.raises(TypeError):
        a.devices.by_type["gb200-nvl72"] = 0
    assert isinstance(a.rack("su01-01").feeds.A.phases_kw, tuple)


def test_a_racks_view_joins_exactly_its_three_rows():
    # RackView restates the per-rack fields of three sections so a reader gets real attributes; it must
    # hold every one of them and nothing else, or a field added to a row would be missing from the join
    from designer.views import RackCooling, RackFloor, RackPower, RackView

    joined = {f.name for cls in (RackPower, RackCooling, RackFloor) for f in dataclasses.fields(cls)}
    assert {f.name for f in dataclasses.fields(RackView)} == joined
