from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from designer import fileformat
from designer.fileformat import FORMAT_VERSION, ProjectFileError, load, loads, migrate, save, to_dict
from designer.samples import all_samples

GOLDEN = Path(__file__).parent / "fixtures" / "golden_v1.podplan.json"


def test_golden_v1_loads_with_exact_values(catalog):
    p = load(GOLDEN, catalog)
    assert p.name == "Golden v1" and p.currency == "EUR"
    hall = p.hall("h1")
    assert hall.outline == ((0, 0), (6000, 0), (6000, 4800), (0, 4800))
    assert (hall.power_capacity_kw, hall.floor_rating_kg_m2, hall.rack_power_limit_kw) == (500, 1200, 40)
    r1 = p.rack("r1")
    assert (r1.name, r1.x, r1.y, r1.row, r1.power_limit_kw) == ("A01", 1500, 2400, "A", 35)
    assert [(d.id, d.type, d.u, d.face) for d in r1.devices] == [
        ("n1", "dgx-b200", 5, "front"), ("n2", "dgx-b200", 17, "front"), ("p1", "pdu-415v-32a-3ph", None, "rear")]
    cdu = p.floor_device("c1")
    assert (cdu.rotation, cdu.serves) == (90, ("r2",))


def test_round_trip_is_lossless(catalog, tmp_path):
    p = load(GOLDEN, catalog)
    out = tmp_path / "again.podplan.json"
    save(p, out)
    assert load(out, catalog) == p
    assert json.loads(out.read_text()) == to_dict(p)
    original = json.loads(GOLDEN.read_text())
    assert to_dict(p)["racks"][0]["devices"][0] == original["racks"][0]["devices"][0]


@pytest.mark.parametrize("sample", all_samples(), ids=lambda p: p.name)
def test_bundled_samples_round_trip(catalog, tmp_path, sample):
    p = load(sample, catalog)
    save(p, tmp_path / "s.json")
    assert load(tmp_path / "s.json", catalog) == p


def test_save_is_atomic_when_writing_fails(catalog, tmp_path, monkeypatch):
    target = tmp_path / "keep.podplan.json"
    save(load(GOLDEN, catalog), target)
    before = target.read_bytes()

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        save(load(GOLDEN, catalog).renamed("changed"), target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["keep.podplan.json"]  # no temporary file left behind


def test_migrations_run_in_order_and_stamp_the_version():
    def rename_cabinets(d):
        d["racks"] = d.pop("cabinets")
        return d

    steps = {1: rename_cabinets, 2: lambda d: {**d, "currency": "USD"}}
    out = migrate({"format_version": 1, "cabinets": []}, steps, target=3)
    assert out == {"format_version": 3, "racks": [], "currency": "USD"}


def test_registered_migrations_cover_every_older_version():
    assert set(fileformat.MIGRATIONS) == set(range(1, FORMAT_VERSION))


def test_newer_file_is_refused(catalog):
    with pytest.raises(ProjectFileError, match="newer than this PodPlanner reads"):
        loads(json.dumps({"format_version": FORMAT_VERSION + 1, "halls": []}), catalog)


def test_missing_migration_is_reported():
    with pytest.raises(ProjectFileError, match="no migration from version 1"):
        migrate({"format_version": 1}, {}, target=2)


def _golden() -> dict:
    return json.loads(GOLDEN.read_text())


def _bad(change) -> str:
    doc = _golden()
    change(doc)
    return json.dumps(doc)


BAD_FILES = [
    (lambda d: d["racks"][0]["devices"][1].update(u=49), "racks[0].devices[1].u: 49 is above the rack's 48 U"),
    (lambda d: d["racks"][0]["devices"][1].update(u=40), "racks[0].devices[1].u: dgx-b200 at U40 reaches U49"),
    (lambda d: d["racks"][0]["devices"][1].update(u=0), "racks[0].devices[1].u: 0 is below the rack's first U"),
    (lambda d: d["racks"][0]["devices"][1].update(u="top"), "racks[0].devices[1].u: must be a number"),
    (lambda d: d["racks"][0]["devices"][1].update(u=3.3), "racks[0].devices[1].u: 3.3 is not a whole or half U"),
    (lambda d: d["racks"][0]["devices"][1].update(u=1.5e308),
     "racks[0].devices[1].u: 1.5e+308 is not a whole or half U"),
    (lambda d: d["racks"][1].update(x=10 ** 400), "racks[1].x: a whole number of 401 digits is too large"),
    (lambda d: d["racks"][0]["devices"][0].update(type="dgx-b900"), "racks[0].devices[0].type: unknown device id"),
    (lambda d: d["racks"][0]["devices"][0].update(type="qm9700x"), "did you mean qm9700"),
    (lambda d: d["racks"][0]["devices"][0].update(type="b200"), "racks[0].devices[0].type: b200 is a gpu"),
    (lambda d: d["racks"][0]["devices"][0].update(face="top"), "racks[0].devices[0].face: must be front or rear"),
    (lambda d: d["racks"][0]["devices"][0].pop("type"), "racks[0].devices[0].type: is missing"),
    (lambda d: d["racks"][0]["devices"][1].update(id="n1"), "racks[0].devices[1].id: id 'n1' is used twice"),
    (lambda d: d["racks"][1].update(type="rack-42u-600x1200"),
     "racks[1].devices[0].type: gb200-nvl72 needs a 48 U rack"),
    (lambda d: d["racks"][1].update(type="dgx-b200"), "racks[1].type: dgx-b200 is a server; expected a rack"),
    (lambda d: d["racks"][1].update(hall="h9"), "racks[1].hall: no hall with id 'h9'"),
    (lambda d: d["racks"][1].update(id="r1"), "racks[1].id: id 'r1' is also used by racks[0].id"),
    (lambda d: d["racks"][1].update(x=float("nan")), "racks[1].x: must be a number"),
    (lambda d: d["racks"][1].update(x=None), "racks[1].x: must be a number"),
    (lambda d: d["racks"][1].pop("y"), "racks[1].y: is missing"),
    (lambda d: d["racks"][1].update(colour="red"), "racks[1].colour: is not a known field"),
    (lambda d: d["racks"][0].update(power_limit_kw=-3), "racks[0].power_limit_kw: must be above zero"),
    (lambda d: d["racks"][0].update(devices={}), "racks[0].devices: must be a list"),
    (lambda d: d["halls"][0].update(outline=[[0, 0], [1, 1]]), "halls[0].outline: needs at least 3 corners"),
    (lambda d: d["halls"][0]["outline"].__setitem__(1, [5]), "halls[0].outline[1]: must be [x, y]"),
    (lambda d: d["halls"][0].update(tile_mm=5), "halls[0].tile_mm: 5 is outside 100..5000"),
    (lambda d: d["halls"][0].update(power_capacity_kw="big"), "halls[0].power_capacity_kw: must be a number"),
    (lambda d: d["floor_devices"][0].update(type="dgx-b200"), "floor_devices[0].type: dgx-b200 is a server"),
    (lambda d: d["floor_devices"][0].update(serves=["r7"]), "floor_devices[0].serves[0]: no rack with id 'r7'"),
    (lambda d: d.update(currency="euros"), "currency: 'euros' is not an ISO 4217 code"),
    (lambda d: d.update(format="spreadsheet"), "format: 'spreadsheet' is not a PodPlanner project"),
    (lambda d: d.update(format_version="1"), "format_version: must be a whole number"),
    (lambda d: d.update(format_version=0), "format_version: 0 is not a format version"),
    (lambda d: d.pop("format_version"), "format_version: is missing"),
    (lambda d: d.update(racks={}), "racks: must be a list"),
    (lambda d: d.update(__class__="os.system"), "__class__: is not a known field"),
]


@pytest.mark.parametrize(("change", "message"), BAD_FILES)
def test_bad_project_file_names_the_exact_path(catalog, change, message):
    with pytest.raises(ProjectFileError) as err:
        loads(_bad(change), catalog)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(("content", "message"), [
    (b"{ not json", "not valid JSON: Expecting property name enclosed in double quotes at line 1, column 3"),
    (b"", "not valid JSON"),
    (b"[1, 2]", "a project file must hold one JSON object"),
    (b"\xff\xfe{}", "is not UTF-8 text"),
    (b"[" * 100000, "not valid JSON"),
])
def test_unreadable_file_names_the_file(catalog, tmp_path, content, message):
    path = tmp_path / "broken.podplan.json"
    path.write_bytes(content)
    with pytest.raises(ProjectFileError) as err:
        load(path, catalog)
    assert str(err.value).startswith(str(path))
    assert message in str(err.value)


def test_missing_file_and_folder(catalog, tmp_path):
    with pytest.raises(ProjectFileError, match="no such file"):
        load(tmp_path / "nope.json", catalog)
    with pytest.raises(ProjectFileError, match="is a folder"):
        load(tmp_path, catalog)
