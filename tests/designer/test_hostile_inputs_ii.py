"""Hostile inputs, second round: paths no file system can name, keys given twice, and text that hides
what it holds. Each is one clear line and exit 2 (or a refused edit, or a correct result).

Every input here is of the size the failure needs and no larger (a path of a few kB, a design of a few
racks), so each test is bounded by what it reads; none asserts a time.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import exporters.cli
from designer.bounds import MAX_PROSE_CHARS, MAX_TEXT_CHARS
from designer.cli import main
from designer.cli.flags import MAX_NAME_BYTES, MAX_PATH_BYTES
from designer.commands import (AddDeviceCommand, AddHallCommand, AddObjectsCommand, CommandError, Document,
                               RenameProjectCommand, UpdateFloorDeviceCommand, UpdateHallCommand, UpdateRackCommand)
from designer.fileformat import ProjectFileError, load, loads, save
from designer.formatting import money
from designer.model import FloorDevice, Hall, MountedDevice, Rack
from designer.samples import DGX_B200_SU

GOLDEN = Path(__file__).parent / "fixtures" / "golden_v1.podplan.json"
LONG_NAME = "n" * (MAX_NAME_BYTES + 1)


@pytest.fixture(autouse=True)
def _no_user_catalog(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    monkeypatch.delenv("PODPLANNER_CATALOG", raising=False)


def golden() -> dict:
    return json.loads(GOLDEN.read_text())


def one_error(capsys, *argv: str) -> str:
    """Runs the command line (with ``export``): exit 2, one line on stderr, nothing on stdout."""
    code = main(list(argv), commands=[exporters.cli])
    out, err = capsys.readouterr()
    assert code == 2, (code, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("podplanner: error: "), err
    assert "internal error" not in err and "Errno" not in err
    return lines[0]


def refused(text: str, catalog) -> str:
    with pytest.raises(ProjectFileError) as caught:
        loads(text, catalog)
    return str(caught.value)


# --- 1. paths over 255 bytes a name, 4,096 bytes in all -------------------------------------------------

@pytest.mark.parametrize(("argv", "flag"), [
    (["export", "{golden}", "--csv", "{tmp}/{long}.csv"], "argument --csv"),
    (["export", "{golden}", "--pdf", "{tmp}/{long}.pdf"], "argument --pdf"),
    (["export", "{golden}", "--dxf", "{tmp}/{long}.dxf"], "argument --dxf"),
    (["export", "{golden}", "--netbox", "{tmp}/{long}"], "argument --netbox"),
    (["export", "{golden}", "--csv", "{tmp}/out.csv", "--prices", "{tmp}/{long}.csv"], "argument --prices"),
    (["new", "superpod", "--system", "dgx-b200", "--sus", "1", "-o", "{tmp}/{long}.podplan.json"],
     "argument -o/--output"),
    (["new", "from-netbox", "{tmp}/{long}", "-o", "{tmp}/out.podplan.json"], "argument DIR"),
    (["new", "from-netbox", "{tmp}", "-o", "{tmp}/{long}.podplan.json"], "argument -o/--output"),
    (["--catalog", "{tmp}/{long}", "validate", "{golden}"], "argument --catalog"),
    (["validate", "{tmp}/{long}.podplan.json"], "argument file"),
    (["analyze", "{tmp}/{long}.podplan.json"], "argument file"),
    (["compare", "{golden}", "{tmp}/{long}.podplan.json"], "argument B"),
    (["catalog", "import-netbox", "{tmp}/{long}.yaml"], "argument yaml"),
    (["catalog", "import-netbox", "{golden}", "-o", "{tmp}/{long}"], "argument -o/--output"),
])
def test_a_name_over_255_bytes_is_refused_before_any_work(capsys, tmp_path, argv, flag):
    argv = [a.format(golden=GOLDEN, tmp=tmp_path, long=LONG_NAME) for a in argv]
    line = one_error(capsys, *argv)
    assert f"{flag}: a name in the path is" in line and f"at most {MAX_NAME_BYTES} bytes" in line
    assert list(tmp_path.iterdir()) in ([], [tmp_path / "no-config"])  # nothing written


def test_a_name_is_counted_in_bytes(capsys, tmp_path):
    # 128 two-byte characters: 128 characters, 256 bytes
    line = one_error(capsys, "export", str(GOLDEN), "--csv", str(tmp_path / ("é" * 128)))
    assert "256 bytes long" in line


@pytest.mark.parametrize("flag", ["--csv", "--netbox"])
def test_a_path_over_4096_bytes_is_refused(capsys, tmp_path, flag):
    deep = "/".join(["d" * 200] * (MAX_PATH_BYTES // 200 + 1))
    line = one_error(capsys, "export", str(GOLDEN), flag, deep)
    assert f"argument {flag}: the path is" in line and f"at most {MAX_PATH_BYTES:,} bytes" in line


def test_a_phase_file_name_over_255_bytes_is_refused_before_anything_is_written(capsys, tmp_path):
    # -o itself fits; its phase files ("….phase-1.podplan.json") do not
    out = tmp_path / ("p" * (MAX_NAME_BYTES - len(".podplan.json")) + ".podplan.json")
    line = one_error(capsys, "new", "superpod", "--system", "dgx-b200", "--sus", "2", "--phases", "1", "-o", str(out))
    assert "phase file: a name in the path is" in line
    assert not out.exists()


def test_a_path_of_255_byte_names_is_taken(capsys, tmp_path):
    out = tmp_path / ("c" * (MAX_NAME_BYTES - 4) + ".csv")
    # the old golden file has errors: written as a draft
    assert main(["export", str(GOLDEN), "--csv", str(out), "--allow-errors"], commands=[exporters.cli]) == 0
    assert out.is_file()


# --- 5. a key given twice ---------------------------------------------------------------------------------

def test_a_second_racks_key_is_refused_not_read_as_no_racks(capsys, tmp_path):
    text = DGX_B200_SU.read_text()
    assert len(json.loads(text)["racks"]) > 20
    twice = tmp_path / "twice.podplan.json"
    twice.write_text(text.rstrip().removesuffix("}") + ', "racks": []}\n')
    line = one_error(capsys, "validate", str(twice))
    assert "racks: is given twice in one object" in line


@pytest.mark.parametrize(("text", "where"), [
    # the fast reader's way: ASCII, no escape
    (lambda t: t.replace('"name": "A01"', '"name": "A01", "name": "B01"', 1), "racks[0].name"),
    (lambda t: t.replace('"u": 5,', '"u": 5, "u": 40,', 1), "racks[0].devices[0].u"),
    (lambda t: t.replace('"tile_mm": 600', '"tile_mm": 600, "tile_mm": 600', 1), "halls[0].tile_mm"),
    # with an escape, and beyond ASCII: json's way
    (lambda t: t.replace('"name": "A01"', '"name": "A\\u00e901", "name": "B01"', 1), "racks[0].name"),
    (lambda t: t.replace('"name": "A01"', '"name": "Salle é", "name": "B01"', 1), "racks[0].name"),
    # a colon inside a text does not stand in for a dropped key
    (lambda t: t.replace('"name": "A01"', '"name": "A:01", "name": ":"', 1), "racks[0].name"),
])
def test_a_key_given_twice_is_refused_with_its_path(catalog, text, where):
    said = refused(text(GOLDEN.read_text()), catalog)
    assert said == f"{where}: is given twice in one object (the last would silently replace the first)"


def test_the_same_key_in_two_objects_and_colons_in_text_read_as_they_are(catalog):
    doc = golden()
    doc["racks"][0]["name"] = "A:01 \"quoted\": yes"
    doc["description"] = "key: value\nnext: line"
    project = loads(json.dumps(doc), catalog)
    assert project.rack("r1").name == "A:01 \"quoted\": yes"
    assert project.description == "key: value\nnext: line"
    assert loads(json.dumps(doc, ensure_ascii=False), catalog) == project


# --- 8. control characters, invisible characters, ids that read the same, lengths, -0 ------------------

CONTROL = ["\x00", "\x1b", "\r", "\n", "\x7f", "\u0085", "\u2028"]


@pytest.mark.parametrize("char", CONTROL)
@pytest.mark.parametrize(("field", "set_it"), [
    ("racks[0].id", lambda d, v: d["racks"][0].update(id=v)),
    ("racks[0].name", lambda d, v: d["racks"][0].update(name=v)),
    ("racks[0].row", lambda d, v: d["racks"][0].update(row=v)),
    ("racks[1].devices[0].id", lambda d, v: d["racks"][1]["devices"][0].update(id=v)),
    ("racks[0].devices[0].name", lambda d, v: d["racks"][0]["devices"][0].update(name=v)),
    ("halls[0].name", lambda d, v: d["halls"][0].update(name=v)),
    ("floor_devices[0].name", lambda d, v: d["floor_devices"][0].update(name=v)),
    ("name", lambda d, v: d.update(name=v)),
])
def test_a_control_character_in_an_id_or_a_name_is_refused(catalog, char, field, set_it):
    doc = golden()
    set_it(doc, f"su01{char}01")
    said = refused(json.dumps(doc), catalog)
    assert said.startswith(f"{field}: holds a control character")
    assert said.isprintable()


def test_a_description_keeps_its_line_breaks_but_no_other_control_character(catalog):
    doc = golden()
    doc["description"] = "line one\r\nline two\n\ttabbed"
    assert loads(json.dumps(doc), catalog).description == "line one\r\nline two\n\ttabbed"
    doc["description"] = "bell\x07"
    assert refused(json.dumps(doc), catalog).startswith("description: holds a control character (\\x07)")


@pytest.mark.parametrize("char", ["\u200b", "\u200d", "\u00ad", "\u2060", "\ufeff", "\u180e", "\U000e0041"])
def test_an_invisible_character_in_an_id_is_refused(catalog, char):
    doc = golden()
    doc["racks"][1]["id"] = "r1" + char  # would read as r1 beside r1
    said = refused(json.dumps(doc), catalog)
    assert said.startswith(f"racks[1].id: holds an invisible character (U+{ord(char):04X})")


def test_a_zero_width_joiner_in_a_name_is_kept(catalog):
    doc = golden()
    doc["racks"][0]["name"] = "A01 \U0001f468\u200d\U0001f4bb"
    assert loads(json.dumps(doc), catalog).rack("r1").name == "A01 \U0001f468\u200d\U0001f4bb"


@pytest.mark.parametrize(("path", "set_it", "where"), [
    ("racks[1].id", lambda d: d["racks"][1].update(id="\uff52\uff11"), "racks[0].id"),  # full-width "r1"
    ("floor_devices[0].id", lambda d: d["floor_devices"][0].update(id="\u210c1"), "halls[0].id"),  # ℌ1 is H1?
    ("racks[1].devices[0].id", lambda d: d["racks"][1]["devices"][0].update(id="\uff4e\uff11"),
     "racks[0].devices[0]"),
])
def test_ids_are_compared_after_nfkc(catalog, path, set_it, where):
    doc = golden()
    doc["halls"][0]["id"] = "H1"
    for r in doc["racks"]:
        r["hall"] = "H1"
    doc["floor_devices"][0]["hall"] = "H1"
    set_it(doc)
    said = refused(json.dumps(doc), catalog)
    assert said.startswith(f"{path}: ") and where in said


def test_ids_that_differ_after_nfkc_are_two_ids(catalog):
    doc = golden()
    doc["racks"][1]["id"] = "\uff52\uff12"  # full-width "r2": its own id, kept as written
    doc["floor_devices"][0]["serves"] = ["r1", "\uff52\uff12"]
    assert loads(json.dumps(doc), catalog).has_rack("\uff52\uff12")


@pytest.mark.parametrize(("set_it", "field", "limit"), [
    (lambda d, n: d["racks"][0].update(name="x" * n), "racks[0].name", MAX_TEXT_CHARS),
    (lambda d, n: d["racks"][0].update(id="x" * n), "racks[0].id", MAX_TEXT_CHARS),
    (lambda d, n: d["racks"][0]["devices"][0].update(id="x" * n), "racks[0].devices[0].id", MAX_TEXT_CHARS),
    (lambda d, n: d["halls"][0].update(name="x" * n), "halls[0].name", MAX_TEXT_CHARS),
    (lambda d, n: d.update(name="x" * n), "name", MAX_TEXT_CHARS),
    (lambda d, n: d.update(workload={"model": "x" * n}), "workload.model", MAX_TEXT_CHARS),
    (lambda d, n: d.update(description="x\n" * (n // 2) + "x" * (n % 2)), "description", MAX_PROSE_CHARS),
])
def test_a_text_is_at_most_its_bound(catalog, set_it, field, limit):
    doc = golden()
    set_it(doc, limit)
    loads(json.dumps(doc), catalog)
    set_it(doc, limit + 1)
    assert refused(json.dumps(doc), catalog) == f"{field}: is {limit + 1:,} characters long (at most {limit:,})"


def test_a_long_text_in_a_large_design_is_refused_by_the_fast_reader_too(catalog):
    doc = json.loads(DGX_B200_SU.read_text())
    doc["racks"][-1]["name"] = "x" * (MAX_TEXT_CHARS + 1)
    doc["racks"][-2]["devices"][-1]["id"] = "y" * (MAX_TEXT_CHARS + 1)
    said = refused(json.dumps(doc), catalog)
    assert said == f"racks[{len(doc['racks']) - 2}].devices[{len(doc['racks'][-2]['devices']) - 1}].id: is 201 " \
                   f"characters long (at most {MAX_TEXT_CHARS})"


@pytest.fixture
def doc(catalog):
    return Document(load(GOLDEN, catalog), catalog)


def rack(ident: str, name: str = "A09", x: float = 3300) -> Rack:
    return Rack(ident, name, "h1", "rack-48u-600x1200", x, 2400)


@pytest.mark.parametrize(("command", "words"), [
    (lambda: UpdateRackCommand("r1", {"name": "A\x0001"}), "rack name holds a control character (\\x00)"),
    (lambda: UpdateRackCommand("r1", {"row": "A\x1b[31m"}), "rack row holds a control character (\\x1b)"),
    (lambda: UpdateHallCommand("h1", {"name": "Hall\r\n2"}), "hall name holds a control character (\\r)"),
    (lambda: UpdateFloorDeviceCommand("c1", {"name": "CDU\n1"}), "floor unit name holds a control character"),
    (lambda: RenameProjectCommand("x" * (MAX_TEXT_CHARS + 1)), "project name is 201 characters long (at most 200)"),
    (lambda: AddHallCommand(Hall("h\u200b1", "Hall 2", ((0, 0), (1, 0), (0, 1)))),
     "hall id holds an invisible character (U+200B)"),
    (lambda: AddHallCommand(Hall("\uff48\uff11", "Hall 2", ((0, 0), (1, 0), (0, 1)))),
     "hall id 'ｈ１' is already used"),
    (lambda: AddObjectsCommand(racks=(rack("r1\u200b"),)), "rack id holds an invisible character (U+200B)"),
    (lambda: AddObjectsCommand(racks=(rack("\uff52\uff11"),)), "rack id 'ｒ１' is already used"),
    (lambda: AddObjectsCommand(racks=(rack("r8"), rack("\uff52\uff18", x=3900))), "rack id 'ｒ８' is already used"),
    (lambda: AddObjectsCommand(racks=(rack("r8", name="A\n09"),)), "rack 'r8' name holds a control character"),
    (lambda: AddObjectsCommand(racks=(Rack("r8", "A09", "h1", "rack-48u-600x1200", 3300, 2400, devices=(
        MountedDevice("\uff4e\uff11", "qm9700", 30, "rear"),)),)), "device id 'ｎ１' is already used in rack 'A01'"),
    (lambda: AddObjectsCommand(floor_devices=(FloorDevice("c\u00ad9", "cdu-inrow-2mw", "h1", 4200, 600),)),
     "floor unit id holds an invisible character (U+00AD)"),
    (lambda: AddDeviceCommand("r2", MountedDevice("n\u200b1", "qm9700", 30, "rear")),
     "device id holds an invisible character"),
    (lambda: AddDeviceCommand("r2", MountedDevice("\uff4e\uff11", "qm9700", 30, "rear")),
     "device id 'ｎ１' is already used in rack 'A01'"),
    (lambda: AddDeviceCommand("r2", MountedDevice("n9", "qm9700", 30, "rear", "x" * 201)),
     "device name is 201 characters long"),
])
def test_edits_hold_text_to_the_bounds_the_reader_holds_it_to(doc, command, words):
    before = doc.project
    with pytest.raises(CommandError) as caught:
        doc.push(command())
    assert words in str(caught.value)
    assert doc.project is before


def test_text_at_the_bounds_is_taken_by_an_edit_and_opens_again(doc, catalog, tmp_path):
    doc.push(UpdateRackCommand("r1", {"name": "x" * MAX_TEXT_CHARS}))
    doc.push(AddDeviceCommand("r1", MountedDevice("y" * MAX_TEXT_CHARS, "qm9700", 40, "rear")))
    save(doc.project, tmp_path / "bounds.podplan.json")
    assert load(tmp_path / "bounds.podplan.json", catalog) == doc.project


@pytest.mark.parametrize(("amount", "shown"), [(-0.0, "USD 0.00"), (-0.001, "USD 0.00"), (-0.004999, "0.00"),
                                               (-0.005, "−USD 0.01"), (-1, "−USD 1.00")])
def test_a_negative_amount_that_rounds_to_zero_prints_without_a_sign(amount, shown):
    assert money(amount, "" if shown == "0.00" else "USD") == shown


def test_a_price_of_minus_zero_is_written_as_zero(capsys, tmp_path):
    entry = json.loads(Path("catalog/data/systems/dgx-b200.json").read_text())
    entry["price"]["amount"] = {"value": -0.0, "source": "PR1", "evidence": "S"}
    user = tmp_path / "user-catalog"
    user.mkdir()
    (user / "dgx-b200.json").write_text(json.dumps(entry))
    out = tmp_path / "bom.csv"
    assert main(["--catalog", str(user), "export", str(GOLDEN), "--csv", str(out), "--allow-errors"],
                commands=[exporters.cli]) == 0
    cells = [c for row in csv.reader(out.open(newline="")) for c in row]
    assert "-0.00" not in cells and "0.00" in cells


@pytest.mark.parametrize(("name", "words"), [("SU\n01", "--name holds a control character (\\n)"),
                                             ("x" * (MAX_TEXT_CHARS + 1), "--name is 201 characters long")])
def test_a_generated_design_s_name_is_held_to_the_bounds_before_anything_is_written(capsys, tmp_path, name, words):
    out = tmp_path / "new.podplan.json"
    line = one_error(capsys, "new", "superpod", "--system", "dgx-b200", "--sus", "1", "--name", name, "-o", str(out))
    assert words in line and not out.exists()


def test_a_raw_del_is_refused_by_the_fast_reader_too(tmp_path):
    """JSON needs escapes only below 0x20: a raw DEL may stand in a string of an all-ASCII file."""
    import json as _json

    from designer.fileformat import ProjectFileError, load
    from catalog import default_catalog
    from designer import samples

    doc = _json.loads(samples.DGX_B200_SU.read_text(encoding="utf-8"))
    for field in ("id", "name"):
        d = _json.loads(_json.dumps(doc))
        d["racks"][0][field] = "su01\x7f01"
        path = tmp_path / f"del-{field}.podplan.json"
        path.write_text(_json.dumps(d, ensure_ascii=False), encoding="utf-8")
        assert "\\" not in path.read_text(encoding="utf-8")
        with pytest.raises(ProjectFileError, match=rf"racks\[0\]\.{field}: holds a control character \(\\x7f\)"):
            load(path, default_catalog())


def test_quote_texts_are_held_to_the_one_line_rule():
    from designer.quote_settings import QuoteError, QuoteSettings

    for bad in ("ACME\tCorp", "ACME\x7fCorp", "ACME\u0085Corp", "ACME\u2028Corp", "x" * 201):
        with pytest.raises(QuoteError, match="quote.customer: "):
            QuoteSettings(customer=bad)


@pytest.mark.parametrize("text, kw, kept", [
    ("x" * 200, {}, "x" * 200),  # printable ASCII within the limit: kept as it is (the quick path)
    ("x" * 201, {}, None),  # one past the limit
    ("x" * 201, {"prose": True}, "x" * 201),  # prose has a longer one
    ("a\tb", {}, None), ("a\tb\nc", {"prose": True}, "a\tb\nc"),  # tabs and lines are prose's only
    ("a\x7fb", {}, None), ("a\x7fb", {"prose": True}, None),
    ("cafe\u0301", {}, "caf\u00e9"),  # kept in NFC
    ("a\u200bb", {"ident": True}, None), ("a\u200bb", {}, "a\u200bb"),  # invisible: refused in an id only
])
def test_a_text_is_kept_or_refused_whichever_path_reads_it(text, kw, kept):
    from designer.bounds import stored_text

    if kept is None:
        with pytest.raises(ValueError):
            stored_text(text, **kw)
    else:
        got = stored_text(text, **kw)
        assert got == kept and (got is text) == (kept == text)
