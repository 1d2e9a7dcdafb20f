"""Our NetBox import: an exported folder read back gives the same design; a broken one says where it broke."""
from __future__ import annotations

import csv
import os
import shutil

import pytest

from designer.analysis import analyze
from designer.fileformat import load
from designer.netbox_import import NetBoxImportError, read_netbox
from designer.samples import DGX_B200_SU, GB200_NVL72_SU
from exporters.netbox_export import write_netbox


def placed(project):
    """Every device as (rack, id, type, U, face, name) and every floor unit with its position."""
    racked = [(r.id, d.id, d.type, d.u, d.face, d.name) for r in project.racks for d in r.devices]
    floor = [(f.id, f.type, f.hall, f.x, f.y, f.rotation, f.name, f.serves) for f in project.floor_devices]
    return racked, floor


@pytest.fixture(scope="module")
def folders(catalog, tmp_path_factory):
    out = {}
    for path in (DGX_B200_SU, GB200_NVL72_SU):
        project = load(path, catalog)
        folder = tmp_path_factory.mktemp("netbox")
        write_netbox(analyze(project, catalog), folder)
        out[path.name] = (project, folder)
    return out


@pytest.fixture
def dgx_copy(folders, tmp_path):
    """A writable copy of the DGX B200 export, for breaking on purpose."""
    _, folder = folders[DGX_B200_SU.name]
    dst = tmp_path / "copy"
    shutil.copytree(folder, dst)
    return dst


def edit(folder, name, fn):
    """Rewrite one CSV file: ``fn(header, rows)`` changes the lists in place."""
    with open(folder / name, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    fn(rows[0], rows[1:])
    with open(folder / name, "w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)


def drop_column(column):
    def fn(header, rows):
        i = header.index(column)
        for r in [header, *rows]:
            del r[i]
    return fn


@pytest.mark.parametrize("sample", [DGX_B200_SU, GB200_NVL72_SU], ids=["dgx-b200", "gb200-nvl72"])
def test_round_trip_gives_back_the_same_racks_and_devices(folders, catalog, sample):
    original, folder = folders[sample.name]
    back = read_netbox(folder, catalog)
    assert back.name == original.name and back.description == original.description
    assert back.halls == original.halls
    assert [(r.id, r.name, r.hall, r.type, r.x, r.y, r.rotation, r.row, r.power_limit_kw) for r in back.racks] == [
        (r.id, r.name, r.hall, r.type, r.x, r.y, r.rotation, r.row, r.power_limit_kw) for r in original.racks]
    assert placed(back) == placed(original)
    assert back.racks == original.racks and back.floor_devices == original.floor_devices
    # and without a catalog to check against, the same design
    assert read_netbox(folder).racks == original.racks


def test_the_design_read_back_analyses_like_the_original(folders, catalog):
    original, folder = folders[GB200_NVL72_SU.name]
    a, b = analyze(original, catalog), analyze(read_netbox(folder, catalog), catalog)
    assert len(b.result("fabric").links()) == len(a.result("fabric").links()) == 1220
    assert [b.rack(r.id).max_kw for r in original.racks] == [a.rack(r.id).max_kw for r in original.racks]


def test_types_are_found_by_netbox_model_without_our_type_column(dgx_copy, folders, catalog):
    original, _ = folders[DGX_B200_SU.name]
    edit(dgx_copy, "06-racks.csv", drop_column("cf_podplanner_type"))
    assert read_netbox(dgx_copy, catalog).racks == original.racks  # rack types from 05-rack-types.csv
    edit(dgx_copy, "08-devices.csv", drop_column("cf_podplanner_type"))
    # every type has its file in 07-device-types, a community-library type's under the library's name
    assert read_netbox(dgx_copy, catalog).racks == original.racks
    # a type whose file is gone (an admin who skipped it) is named
    (dgx_copy / "07-device-types" / "sn2201.yaml").unlink()
    with pytest.raises(NetBoxImportError) as err:
        read_netbox(dgx_copy, catalog)
    assert (err.value.file, err.value.column) == ("08-devices.csv", "device_type")
    assert "Nvidia SN2201 has no file in 07-device-types" in str(err.value)
    with open(dgx_copy / "08-devices.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    first = next(i for i, r in enumerate(rows) if r["device_type"] == "SN2201")
    assert err.value.row == first + 2 and first > 0  # the rows before it were read by their YAML


def test_a_missing_column_is_named(dgx_copy):
    edit(dgx_copy, "06-racks.csv", drop_column("cf_podplanner_x_mm"))
    with pytest.raises(NetBoxImportError) as err:
        read_netbox(dgx_copy)
    assert str(err.value) == "06-racks.csv, row 1, column cf_podplanner_x_mm: is missing; NetBox's import needs it"
    assert isinstance(err.value, ValueError)


def test_a_bad_number_names_its_row_and_column(dgx_copy):
    edit(dgx_copy, "06-racks.csv", lambda h, rows: rows[2].__setitem__(h.index("cf_podplanner_y_mm"), "12,5"))
    with pytest.raises(NetBoxImportError, match=r"^06-racks.csv, row 4, column cf_podplanner_y_mm: '12,5' is not a "
                                                r"number$"):
        read_netbox(dgx_copy)


def test_a_device_in_an_unknown_rack_is_refused(dgx_copy):
    edit(dgx_copy, "08-devices.csv", lambda h, rows: rows[4].__setitem__(h.index("rack"), "SU99-99"))
    with pytest.raises(NetBoxImportError, match=r"^08-devices.csv, row 6, column rack: rack 'SU99-99' is not in "
                                                r"06-racks.csv"):
        read_netbox(dgx_copy)


def test_a_fifo_instead_of_a_file_is_refused_without_blocking(dgx_copy):
    os.remove(dgx_copy / "08-devices.csv")
    os.mkfifo(dgx_copy / "08-devices.csv")
    with pytest.raises(NetBoxImportError, match=r"^08-devices.csv: is not a regular file"):
        read_netbox(dgx_copy)


@pytest.mark.parametrize("file, column, row, value, message", [
    ("08-devices.csv", "face", 2, "top", "'top' is not front or rear"),
    ("08-devices.csv", "position", 2, "2.3", "2.3 is not a multiple of 0.5 U"),
    ("08-devices.csv", "cf_podplanner_type", 2, "dgx-z900", "'dgx-z900' is not in the catalog"),
    ("08-devices.csv", "cf_podplanner_type", 2, "rack-48u-600x1200", "is a rack; expected a"),
    ("06-racks.csv", "location", 3, "Hall 9", "location 'Hall 9' is not in 02-locations.csv"),
    ("06-racks.csv", "name", 3, "SU01-01", "rack 'SU01-01' is listed twice"),
    ("06-racks.csv", "cf_podplanner_rotation_deg", 2, "nan", "'nan' is not a finite number"),
    ("02-locations.csv", "cf_podplanner_outline_mm", 2, "0,0;10,x", "'10,x' is not an x,y point in mm"),
    ("02-locations.csv", "cf_podplanner_outline_mm", 2, "0,0;10,0", "has 2 points"),
])
def test_each_broken_value_is_named_where_it_is(dgx_copy, catalog, file, column, row, value, message):
    edit(dgx_copy, file, lambda h, rows: rows[row - 2].__setitem__(h.index(column), value))
    with pytest.raises(NetBoxImportError) as err:
        read_netbox(dgx_copy, catalog)
    assert (err.value.file, err.value.row, err.value.column) == (file, row, column)
    assert message in err.value.reason


def test_a_short_row_and_a_broken_yaml_and_a_missing_folder_are_refused(dgx_copy, catalog, tmp_path):
    with pytest.raises(NetBoxImportError, match="no such folder"):
        read_netbox(tmp_path / "nowhere")
    (dgx_copy / "07-device-types" / "dgx-b200.yaml").write_text("model: [unclosed\n", encoding="utf-8")
    edit(dgx_copy, "08-devices.csv", drop_column("cf_podplanner_type"))
    with pytest.raises(NetBoxImportError, match=r"^07-device-types/dgx-b200.yaml: is not valid YAML at line 2"):
        read_netbox(dgx_copy, catalog)
    edit(dgx_copy, "06-racks.csv", lambda h, rows: rows[0].pop())
    with pytest.raises(NetBoxImportError, match=r"^06-racks.csv, row 2: has \d+ fields; the header has \d+$"):
        read_netbox(dgx_copy, catalog)


def test_a_device_above_its_racks_top_is_refused_on_its_row(dgx_copy, catalog):
    edit(dgx_copy, "08-devices.csv", lambda h, rows: rows[1].__setitem__(h.index("position"), "45"))
    with pytest.raises(NetBoxImportError) as err:
        read_netbox(dgx_copy, catalog)
    assert (err.value.file, err.value.row, err.value.column) == ("08-devices.csv", 3, "position")
    assert err.value.reason == "dgx-b200 at U45 reaches U54, above the rack's 48 U"


def test_a_type_described_twice_or_nested_too_deep_is_refused(dgx_copy):
    def types_from_yaml(header, rows):  # a folder NetBox exported itself: no catalog ids, only models
        i = header.index("cf_podplanner_type")
        for r in rows:
            r[i] = ""

    edit(dgx_copy, "08-devices.csv", types_from_yaml)
    types = dgx_copy / "07-device-types"
    first = sorted(types.glob("*.yaml"))[0]
    shutil.copy(first, types / "zz-copy.yaml")
    with pytest.raises(NetBoxImportError, match="zz-copy.yaml: describes .* again"):
        read_netbox(dgx_copy)
    (types / "zz-copy.yaml").write_text("[" * 100_000)
    with pytest.raises(NetBoxImportError, match="zz-copy.yaml: (nests deeper|is not valid YAML)"):
        read_netbox(dgx_copy)


def test_blank_lines_cost_nothing_and_rows_keep_their_numbers(dgx_copy, monkeypatch):
    import designer.netbox_import as nb

    with open(dgx_copy / "06-racks.csv", "a", encoding="utf-8") as fh:
        fh.write("\n" * 200_000 + "x\n")
    with pytest.raises(NetBoxImportError) as exc:
        read_netbox(dgx_copy)
    with open(dgx_copy / "06-racks.csv", encoding="utf-8") as fh:
        rows = sum(1 for _ in fh)
    assert f"row {rows}" in str(exc.value)  # the stray line's own number, blank lines counted
    monkeypatch.setattr(nb, "MAX_ROWS", 10)
    with pytest.raises(NetBoxImportError, match="has more than 10 rows"):
        read_netbox(dgx_copy)


def test_round_trip_of_two_halls_with_the_same_rack_names_and_a_long_name(catalog, tmp_path):
    from dataclasses import replace

    from designer.model import Hall

    project = load(GB200_NVL72_SU, catalog)
    hall = project.halls[0]
    other = replace(hall, id="hall-2", name="Data hall 2")
    twins = tuple(replace(r, id=f"{r.id}-h2", hall="hall-2",
                          devices=tuple(replace(d, id=f"{d.id}-h2") for d in r.devices)) for r in project.racks)
    units = tuple(replace(f, id=f"{f.id}-h2", hall="hall-2", serves=tuple(f"{i}-h2" for i in f.serves))
                  for f in project.floor_devices)
    big = replace(project, name="Northwind Frankfurt FRA3 GB200 NVL72 SuperPOD phase 1 " + "x" * 60,
                  halls=(hall, other), racks=project.racks + twins, floor_devices=project.floor_devices + units)
    assert isinstance(other, Hall)
    write_netbox(analyze(big, catalog), tmp_path / "nb")
    with open(tmp_path / "nb" / "02-locations.csv", encoding="utf-8") as fh:
        slugs = [row["slug"] for row in csv.DictReader(fh)]
    assert len(set(slugs)) == 2
    back = read_netbox(tmp_path / "nb", catalog)
    assert back.name == big.name  # whole, though NetBox's site name holds 100 characters
    assert ([(f.id, f.hall, f.serves) for f in back.floor_devices]
            == [(f.id, f.hall, f.serves) for f in big.floor_devices])
    assert placed(back) == placed(big)


def test_rack_names_netbox_had_to_change_come_back_as_designed(catalog, tmp_path):
    from dataclasses import replace

    project = load(DGX_B200_SU, catalog)
    a, b = project.racks[0], project.racks[1]
    project = project.with_racks([replace(a, name="=cmd|calc"), replace(b, name="=CMD|calc")])
    write_netbox(analyze(project, catalog), tmp_path / "nb")
    with open(tmp_path / "nb" / "06-racks.csv", encoding="utf-8") as fh:
        names = {row["cf_podplanner_id"]: row["name"] for row in csv.DictReader(fh)}
    assert names[a.id].lower() != names[b.id].lower()  # NetBox's names are unique whatever the case
    back = read_netbox(tmp_path / "nb", catalog)
    assert [r.name for r in back.racks] == [r.name for r in project.racks]


def test_a_billion_laughs_device_type_is_refused_before_it_is_built(dgx_copy):
    edit(dgx_copy, "08-devices.csv", drop_column("cf_podplanner_type"))
    bomb = "".join(f"{c}: &{c} [{', '.join([f'*{p}'] * 9) if p else ', '.join(['lol'] * 9)}]\n"
                   for p, c in zip([None, *"abcdefgh"], "abcdefghi"))
    (dgx_copy / "07-device-types" / "dgx-b200.yaml").write_text(bomb + "manufacturer: X\nmodel: Y\nslug: y\n")
    with pytest.raises(NetBoxImportError, match=r"^07-device-types/dgx-b200.yaml: line 2: YAML aliases \(\*a\)"):
        read_netbox(dgx_copy)
