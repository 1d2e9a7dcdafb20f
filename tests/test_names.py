"""Places as people read them: a finding's where-string named from the project, never shown as the id."""
from __future__ import annotations

from dataclasses import replace

import drawn as samples
from designer.analysis import analyze
from designer.fileformat import load
from designer.model import FloorDevice, Rack
from designer.names import Namer, cdu_names, cdu_unit_name


def renamed(project, rack_id: str, name: str):
    return project.with_racks([replace(project.rack(rack_id), name=name)])


def test_a_rack_is_named_by_its_name_not_its_id(catalog):
    project = renamed(load(samples.DGX_B200_SU, catalog), "a01", "R1")
    namer = Namer(project, catalog)
    assert namer("rack:a01") == "Rack R1"
    assert namer("rack:a02") == "Rack A02"


def test_halls_project_sections_and_gone_objects(catalog):
    project = load(samples.DGX_B200_SU, catalog)
    namer = Namer(project, catalog)
    assert namer("hall:hall-1") == "Data hall 1"  # says "hall" already: no "Hall Data hall 1"
    renamed_hall = replace(project, halls=(replace(project.halls[0], name="North"),))
    assert Namer(renamed_hall, catalog)("hall:hall-1") == "Hall North"
    assert namer("project:bom") == "Bill of materials"
    assert namer("project:training") == "Training estimate"
    assert namer("project:fabric") == "Compute fabric"
    assert namer("hall:") == "Project"  # the fabric of a design without halls
    # the id only when nothing else is left: the rack is gone from the project
    assert namer("rack:zz99") == "Rack zz99"
    assert Namer(None)("floor:f9") == "Floor unit f9"


def test_floor_units_say_what_they_are_once(catalog):
    project = load(samples.GB200_NVL72_SU, catalog)
    namer = Namer(project, catalog)
    assert namer("floor:cdu-1") == "CDU-1"  # its name says CDU already
    unit = project.floor_device("cdu-1")
    quiet = project.with_floor_devices([replace(unit, name="North loop")])
    assert Namer(quiet, catalog)("floor:cdu-1") == "CDU North loop"
    crah = FloorDevice("f9", "crah-cw-200kw", "hall-1", 500.0, 500.0, name="West")
    assert Namer(project.adding_floor_devices([crah]), catalog)("floor:f9") == "Air handler West"


def test_a_device_is_its_type_its_name_and_its_rack(catalog):
    project = load(samples.DGX_B200_SU, catalog)
    namer = Namer(project, catalog)
    assert namer("device:a01-dgx1") == "NVIDIA DGX B200 'dgx-01' in rack A01"
    rack = project.rack("a01")
    unnamed = project.with_racks([rack.replacing_device(replace(rack.device("a01-dgx1"), name=""))])
    u = rack.device("a01-dgx1").u
    assert Namer(unnamed, catalog)("device:a01-dgx1") == f"NVIDIA DGX B200 at U{u:g} in rack A01"


def test_many_places_give_a_count_and_the_listing_names_them_all(catalog):
    project = load(samples.DGX_B200_SU, catalog)
    namer = Namer(project, catalog)
    racks = [f"rack:{r.id}" for r in project.racks]
    assert namer.summary(racks) == f"Racks A01, A02 +{len(racks) - 2} more"
    assert namer.summary(racks[:3]) == "Racks A01, A02, A03"  # never "+1 more" for a name that fits
    assert namer.summary(racks[:1]) == "Rack A01"
    listing = namer.listing(racks)
    assert listing.startswith(f"{len(racks)} racks: A01, A02, ")
    assert all(r.name in listing for r in project.racks) and "a01" not in listing
    mixed = namer.summary(["rack:a01", "hall:hall-1", "project:bom", "rack:a02"])
    assert mixed == "Rack A01, Data hall 1 +2 more"
    assert namer.listing(racks, limit=2).endswith(f"A02 +{len(racks) - 2} more")


def test_cdu_units_of_a_loop(catalog):
    project = load(samples.GB200_NVL72_SU, catalog)
    assert cdu_names(project, ["floor:cdu-1", "floor:cdu-2"]) == "CDU-1, CDU-2"
    assert cdu_unit_name(project, "rack:r03") == "CDU in rack NVL72-03"
    assert cdu_names(project, ["rack:r03"]) == "in rack NVL72-03"


def test_an_engine_message_names_a_cdu_loop_by_its_units_names(catalog):
    """The cooling engine named a loop by its units' ids ("CDU su01-cdu1 is the only unit")."""
    project = load(samples.GB200_NVL72_SU, catalog)
    project = project.removing_floor_devices(["cdu-2"])
    project = project.with_floor_devices([replace(project.floor_device("cdu-1"), name="Loop North")])
    single = [f for f in analyze(project, catalog).findings if f.code == "cdu-single"]
    assert single and single[0].where == "floor:cdu-1"  # machines keep the id
    assert single[0].message.startswith("CDU Loop North is the only unit")
    assert "cdu-1" not in single[0].message


def test_an_engine_message_about_a_rack_uses_its_name(catalog):
    project = load(samples.DGX_B200_SU, catalog)
    project = project.with_racks([replace(project.rack("a01"), name="R1", power_limit_kw=5.0)])
    over = [f for f in analyze(project, catalog).findings if f.code == "rack-over-limit"]
    assert [f.where for f in over] == ["rack:a01"]
    assert over[0].message.startswith("rack R1 draws") and "a01" not in over[0].message


class _CountedRacks(tuple):
    """A design's racks that count the passes made over them."""

    passes = 0

    def __iter__(self):
        type(self).passes += 1
        return super().__iter__()


def test_naming_thousands_of_findings_is_one_pass_over_the_racks(catalog, monkeypatch):
    # Linear whatever the machine: counted, not timed (the time is a benchmark's: python -m bench names).
    project = load(samples.DGX_B200_SU, catalog)
    racks = tuple(Rack(f"x{i}", f"X-{i:05d}", "hall-1", "rack-48u-600x1200", 0.0, 0.0) for i in range(12_500))
    project = replace(project, racks=_CountedRacks(project.racks + racks))
    wheres = [f"rack:x{i}" for i in range(12_500)] * 2
    named = []
    real = Namer._name
    monkeypatch.setattr(Namer, "_name", lambda self, where: named.append(where) or real(self, where))
    monkeypatch.setattr(_CountedRacks, "passes", 0)
    namer = Namer(project, catalog)
    names = [namer(w) for w in wheres]
    summary = namer.summary(wheres)
    assert _CountedRacks.passes <= 1  # the rack lookup is built once, never a search per place
    assert len(named) == len(set(named)) == 12_500  # each place is named once, the repeats remembered
    assert names[0] == "Rack X-00000" and summary == "Racks X-00000, X-00001 +12,498 more"


def test_a_hall_without_a_name_is_named_by_its_id_in_messages(catalog):
    project = load(samples.DGX_B200_SU, catalog)
    hall = project.halls[0]
    project = replace(project, halls=(replace(hall, name="", power_capacity_kw=10.0),) + tuple(project.halls[1:]))
    [finding] = [f for f in analyze(project, catalog).findings if f.code == "hall-over-power"]
    assert finding.message.startswith(f"hall {hall.id} needs up to ")
