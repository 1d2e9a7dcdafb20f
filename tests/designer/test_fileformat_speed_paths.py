"""The fast ways of reading a project refuse everything the checking reader refuses, and say the same.

``load`` parses with orjson and reads each rack with ``_Reader.plain_rack``; a value
either of them does not take sends the document back to :mod:`json` and the rack back
to the checking reader (``_Reader.rack``), which words every message. So a bad value
in rack 150 of a 200-rack document must give exactly the message it gives in a
two-rack document, and the message of the checking reader alone.
"""
from __future__ import annotations

import copy
import gc
import json
import re
from collections import defaultdict

import pytest

from designer import fileformat
from designer.fileformat import reading
from designer.fileformat import ProjectFileError, from_dict, load, loads, to_dict
from designer.model import FloorDevice, Hall, MountedDevice, Project, Rack

BAD = 150  # the rack that gets the bad value in the large document
SMALL = (BAD - 1, BAD)  # the racks of the small document: the bad one and the one before it


def _rack(i: int) -> Rack:
    rid = f"r{i:03d}"
    devices = (MountedDevice(f"{rid}-n1", "dgx-b200", 5, "front", "node 1"),
               MountedDevice(f"{rid}-n2", "dgx-b200", 17, "front"),
               MountedDevice(f"{rid}-p0", "pdu-415v-32a-3ph", None, "rear"),
               MountedDevice(f"{rid}-p1", "pdu-415v-32a-3ph", None, "rear", "PDU B"))
    return Rack(rid, f"A{i:03d}", "h1", "rack-48u-600x1200", 600.0 * i + 300, 2400.0, 180.0 if i % 2 else 0.0,
                "A", devices, 35.0 if i % 3 == 0 else None)


def _doc(indexes) -> dict:
    hall = Hall("h1", "Hall 1", ((0, 0), (130000, 0), (130000, 4800), (0, 4800)), power_capacity_kw=5000)
    cdu = FloorDevice("c1", "cdu-inrow-2mw", "h1", 4200, 4000, 90, "CDU-1", (f"r{BAD - 1:03d}",))
    return to_dict(Project(name="Speed paths", halls=(hall,), racks=tuple(_rack(i) for i in indexes),
                           floor_devices=(cdu,)))


LARGE_DOC = _doc(range(200))
SMALL_DOC = _doc(SMALL)


def _message(text: str, catalog) -> str:
    with pytest.raises(ProjectFileError) as err:
        loads(text, catalog)
    return str(err.value)


def _checking_reader_only(monkeypatch):
    """Every rack through _Reader.rack, every document through json: the reader as it was."""
    monkeypatch.setattr(fileformat._Reader, "plain_rack", lambda *args: None)
    monkeypatch.setattr(reading.orjson, "loads", json.loads)


def _texts(change) -> tuple[str, str]:
    large, small = copy.deepcopy(LARGE_DOC), copy.deepcopy(SMALL_DOC)
    change(large["racks"][BAD])
    change(small["racks"][1])
    return json.dumps(large), json.dumps(small)


def _as_large(message: str) -> str:
    """A message about the small document, with its rack indexes as in the large one."""
    return re.sub(r"racks\[(\d+)\]", lambda m: f"racks[{SMALL[int(m.group(1))]}]", message)


def _set(key, value):
    return lambda r: r.update({key: value})


def _dev(i, key, value):
    return lambda r: r["devices"][i].update({key: value})


def _drop(key, i=None):
    return lambda r: (r if i is None else r["devices"][i]).pop(key)


def _set_all(*changes):
    def change(r):
        for c in changes:
            c(r)
    return change


R, D = f"racks[{BAD}]", f"racks[{BAD}].devices[1]"

BAD_VALUES = [
    # unknown fields
    (_set("colour", "red"), f"{R}.colour: is not a known field"),
    (_dev(1, "colour", "red"), f"{D}.colour: is not a known field"),
    (_set_all(_drop("name", 0), _dev(0, "label", "x")), f"racks[{BAD}].devices[0].label: is not a known field"),
    (_set_all(_drop("face", 1), _dev(1, "label", "x")), f"{D}.label: is not a known field"),  # still 4 fields
    (_dev(1, "__class__", "os.system"), f"{D}.__class__: is not a known field"),
    # missing fields
    (_drop("y"), f"{R}.y: is missing"),
    (_drop("id"), f"{R}.id: is missing"),
    (_drop("type", 1), f"{D}.type: is missing"),
    (_set_all(_drop("type", 1), _dev(1, "name", "x")), f"{D}.type: is missing"),
    # wrong types
    (lambda r: r.__setitem__("devices", {}), f"{R}.devices: must be a list"),
    (lambda r: r["devices"].__setitem__(1, ["dgx-b200", 5]), f"{D}: must be an object, got list"),
    (_set("x", "3"), f"{R}.x: must be a number, got '3'"),
    (_set("x", None), f"{R}.x: must be a number, got None"),
    (_set("x", [1]), f"{R}.x: must be a number, got [1]"),
    (_set("name", 5), f"{R}.name: must be text, got 5"),
    (_set("row", None), f"{R}.row: must be text, got None"),
    (_set("hall", 1), f"{R}.hall: must be text, got 1"),
    (_set("id", ["r1"]), f"{R}.id: must be text, got ['r1']"),
    (_set("type", ["rack-48u-600x1200"]), f"{R}.type: must be text, got ['rack-48u-600x1200']"),
    (_dev(1, "type", {"id": "dgx-b200"}), f"{D}.type: must be text"),
    (_dev(1, "id", ["n"]), f"{D}.id: must be text, got ['n']"),
    (_dev(1, "id", 7), f"{D}.id: must be text, got 7"),
    (_dev(1, "name", 7), f"{D}.name: must be text, got 7"),
    (_dev(1, "u", "top"), f"{D}.u: must be a number, got 'top'"),
    (_dev(1, "u", [5]), f"{D}.u: must be a number, got [5]"),
    # bools where a number is expected (True == 1 and hash(True) == hash(1))
    (_dev(1, "u", True), f"{D}.u: must be a number, got True"),
    (_dev(3, "u", True), f"racks[{BAD}].devices[3].u: must be a number, got True"),  # a 0 U PDU takes any U
    (_dev(3, "u", False), f"racks[{BAD}].devices[3].u: must be a number, got False"),
    (_set("x", False), f"{R}.x: must be a number, got False"),
    (_set("rotation", True), f"{R}.rotation: must be a number, got True"),
    (_set("power_limit_kw", True), f"{R}.power_limit_kw: must be a number, got True"),
    # bad U positions
    (_dev(1, "u", 49), f"{D}.u: 49 is above the rack's 48 U"),
    (_dev(1, "u", 40), f"{D}.u: dgx-b200 at U40 reaches U49, above the rack's 48 U"),
    (_dev(1, "u", 0), f"{D}.u: 0 is below the rack's first U"),
    (_dev(1, "u", -0.0), f"{D}.u: -0 is below the rack's first U"),
    (_dev(1, "u", 3.3), f"{D}.u: 3.3 is not a whole or half U"),
    (_dev(1, "u", None), f"{D}.type: dgx-b200 is 10 U high and needs a U position"),
    (_set_all(_set("type", "rack-42u-600x1200"), _dev(1, "u", 35)),
     f"{D}.u: dgx-b200 at U35 reaches U44, above the rack's 42 U"),  # fits in 48 U, not in 42 U
    (_dev(1, "u", 45), f"{D}.u: dgx-b200 at U45 reaches U54"),
    # unknown or unsuitable types
    (_dev(1, "type", "dgx-b210"), f"{D}.type: unknown device id 'dgx-b210'"),
    (_dev(1, "type", ""), f"{D}.type: must not be empty"),
    (_dev(1, "type", " "), f"{D}.type: must not be empty"),
    (_dev(1, "type", "b200"), f"{D}.type: b200 is a gpu; expected a server or rack_system"),
    (_dev(1, "type", "rack-48u-600x1200"), f"{D}.type: rack-48u-600x1200 is a rack"),
    (_set("type", "dgx-b200"), f"{R}.type: dgx-b200 is a server; expected a rack"),
    (_set("type", "no-such-rack"), f"{R}.type: unknown device id 'no-such-rack'"),
    (_set_all(_set("type", "rack-42u-600x1200"), _set("devices", [{"id": "s", "type": "gb200-nvl72", "u": 1,
                                                                   "face": "front"}])),
     f"{R}.devices[0].type: gb200-nvl72 needs a 48 U rack, the rack has 42 U"),
    # duplicate and empty ids
    (_set("id", f"r{BAD - 1:03d}"), f"{R}.id: id 'r{BAD - 1:03d}' is also used by racks[{BAD - 1}].id"),
    (_set("id", "h1"), f"{R}.id: id 'h1' is also used by halls[0].id"),
    (_set("id", ""), f"{R}.id: must not be empty"),
    (_set("id", "\t "), f"{R}.id: must not be empty"),
    (_dev(1, "id", f"r{BAD:03d}-n1"), f"{D}.id: id 'r{BAD:03d}-n1' is used twice in this rack"),
    (_dev(1, "id", " "), f"{D}.id: must not be empty"),
    (_dev(1, "id", f"r{BAD - 1:03d}-n1"),
     f'{D}.id: "r{BAD - 1:03d}-n1" is already used at racks[{BAD - 1}].devices[0]'),
    (_set_all(_dev(0, "id", "\u00e9"), _dev(1, "id", "e\u0301")), f"{D}.id: id '\u00e9' is used twice"),  # NFC, NFD
    (_set("name", "\ud800"), f"{R}.name: contains a character that cannot be stored (a lone surrogate)"),
    (_dev(1, "name", "a\udcffb"), f"{D}.name: contains a character that cannot be stored (a lone surrogate)"),
    # NaN, infinities
    (_set("x", float("nan")), f"{R}.x: must be a number, got nan"),
    (_set("y", float("inf")), f"{R}.y: must be a number, got inf"),
    (_set("rotation", -float("inf")), f"{R}.rotation: must be a number, got -inf"),
    (_dev(1, "u", float("nan")), f"{D}.u: must be a number, got nan"),
    (_dev(3, "u", float("inf")), f"racks[{BAD}].devices[3].u: must be a number, got inf"),
    (_set("power_limit_kw", float("nan")), f"{R}.power_limit_kw: must be a number, got nan"),
    # huge numbers
    (_dev(1, "u", 1e300), f"{D}.u: 1e+300 is above the rack's 48 U"),
    (_dev(1, "u", 1.5e308), f"{D}.u: 1.5e+308 is not a whole or half U"),
    (_dev(1, "u", 10 ** 20), f"{D}.u: 1e+20 is above the rack's 48 U"),
    (_dev(1, "u", 2 ** 64 + 1), f"{D}.u: 1.84467e+19 is above the rack's 48 U"),
    (_set("rotation", 1e300), f"{R}.rotation: 1e+300 is outside -360..360"),
    (_set("rotation", 361), f"{R}.rotation: 361 is outside -360..360"),
    (_set("x", 10 ** 400), f"{R}.x: a whole number of 401 digits is too large"),
    (_set("x", 2 ** 64 + 1), f"{R}.x: 18446744073709551617 is outside -1e+07..1e+07 mm"),  # orjson: a float
    (_set("y", -(2 ** 63) - 1), f"{R}.y: -9223372036854775809 is outside -1e+07..1e+07 mm"),
    (_set("x", 1e300), f"{R}.x: 1e+300 is outside -1e+07..1e+07 mm"),
    (_set("y", 10000000.5), f"{R}.y: 10000000.5 is outside -1e+07..1e+07 mm"),
    (_set("power_limit_kw", 1e-300), f"{R}.power_limit_kw: 1e-300 is outside 0.001..10000"),
    (_set("power_limit_kw", 10 ** 19), f"{R}.power_limit_kw: 10000000000000000000 is outside 0.001..10000"),
    (_dev(3, "u", -0.0), f"racks[{BAD}].devices[3].u: -0 is below the rack's first U"),  # a 0U PDU too
    (_dev(3, "u", 0.5), f"racks[{BAD}].devices[3].u: 0.5 is below the rack's first U"),
    (_dev(3, "u", 48.5), f"racks[{BAD}].devices[3].u: 48.5 is above the rack's 48 U"),
    (_dev(3, "u", -1e9), f"racks[{BAD}].devices[3].u: -1e+09 is below the rack's first U"),
    (_dev(1, "u", -(10 ** 400)), f"{D}.u: a whole number of 401 digits is too large"),
    (_set("name", 10 ** 20), f"{R}.name: must be text, got 100000000000000000000"),  # as json reads it
    (_set("name", -(2 ** 63) - 1), f"{R}.name: must be text, got -9223372036854775809"),
    (_set("power_limit_kw", -(10 ** 20)), f"{R}.power_limit_kw: must be above zero, got -100000000000000000000"),
    (_set("power_limit_kw", 0), f"{R}.power_limit_kw: must be above zero, got 0"),
    # bad faces
    (_dev(1, "face", "top"), f"{D}.face: must be front or rear, got 'top'"),
    (_dev(1, "face", "Front"), f"{D}.face: must be front or rear, got 'Front'"),
    (_dev(1, "face", None), f"{D}.face: must be front or rear, got None"),
    (_dev(1, "face", ["front"]), f"{D}.face: must be front or rear, got ['front']"),
    (_dev(3, "face", 1), f"racks[{BAD}].devices[3].face: must be front or rear, got 1"),
    # other references
    (_set("hall", "h9"), f"{R}.hall: no hall with id 'h9'"),
    (lambda r: r.clear(), f"{R}.id: is missing"),
]


@pytest.mark.parametrize(("change", "message"), BAD_VALUES)
def test_bad_value_in_a_large_document_reads_as_in_a_small_one(catalog, monkeypatch, change, message):
    large, small = _texts(change)
    said = _message(large, catalog)
    assert said.startswith(message)
    assert said == _as_large(_message(small, catalog))
    _checking_reader_only(monkeypatch)
    assert said == _message(large, catalog)


def test_a_bad_rack_among_good_ones_is_found_wherever_it_is(catalog):
    for index in (0, 1, 99, 199):
        doc = copy.deepcopy(LARGE_DOC)
        doc["racks"][index]["devices"][2]["u"] = True
        assert _message(json.dumps(doc), catalog) == f"racks[{index}].devices[2].u: must be a number, got True"


def test_a_placement_accepted_before_is_not_taken_for_an_equal_bad_one(catalog):
    """Accepted placements are remembered per load; True == 1, and U35 fits a 48 U rack only."""
    doc = copy.deepcopy(LARGE_DOC)
    for rack in doc["racks"]:
        rack["devices"][2]["u"] = 1  # a 0 U PDU at U1: fine
        rack["devices"][1]["u"] = 35
    doc["racks"][BAD]["devices"][3]["u"] = True
    assert _message(json.dumps(doc), catalog) == f"racks[{BAD}].devices[3].u: must be a number, got True"
    doc["racks"][BAD]["devices"][3]["u"] = 1
    doc["racks"][BAD]["type"] = "rack-42u-600x1200"
    assert _message(json.dumps(doc), catalog) == (f"racks[{BAD}].devices[1].u: dgx-b200 at U35 reaches U44, "
                                                  "above the rack's 42 U")


def test_five_thousand_digits_are_not_read(catalog):
    for doc in (copy.deepcopy(LARGE_DOC), copy.deepcopy(SMALL_DOC)):
        doc["racks"][-50 if len(doc["racks"]) > 2 else 1]["x"] = "@BIG@"
        text = json.dumps(doc).replace('"@BIG@"', "1" * 5000)
        said = _message(text, catalog)
        found = re.fullmatch(r"not valid JSON: a whole number of 5000 digits at line 1, column (\d+) "
                             r"\(at most \d+ digits are read\)", said)
        assert found, said
        column = int(found.group(1))
        assert text[column - 6:column - 1] == '"x": ' and text[column - 1:column + 4] == "11111"


def test_invalid_json_in_a_large_document_names_line_and_column_as_json_does(catalog):
    text = json.dumps(LARGE_DOC, indent=1)
    for broken in (text[:-3], text.replace('"face": "rear"', '"face": rear', 1), text + "x"):
        with pytest.raises(json.JSONDecodeError) as exc:
            json.loads(broken)
        e = exc.value
        assert _message(broken, catalog) == f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}"


VALID_VARIANTS = [
    lambda r: None,
    _dev(1, "u", 5.0),
    _dev(1, "u", 5.5),
    _dev(3, "u", 1),  # a 0U PDU may say where along the rails it hangs
    _dev(3, "u", 48.0),
    _dev(3, "u", 24.5),
    _dev(2, "u", 7),
    _drop("face", 1),
    _drop("u", 2),
    _drop("name", 0),
    _dev(1, "name", ""),
    _dev(1, "type", "DGX-B200"),
    _set("type", "RACK-48U-600X1200"),
    _dev(1, "id", None),  # generated
    _drop("id", 2),
    _set("rotation", -90),
    _set("rotation", 360),
    _set("rotation", -0.0),
    _set("x", -0.0),
    _set("x", 10 ** 7),
    _set("y", -1e7),
    _set("power_limit_kw", 0.001),
    _set("power_limit_kw", 10 ** 4),
    _set("power_limit_kw", None),
    _drop("power_limit_kw"),
    _drop("rotation"),
    _drop("row"),
    _drop("name"),
    _drop("devices"),
    _set("devices", []),
    _set("name", ""),
    _set("name", "e\u0301"),  # stored in NFC, by the checking reader
    _set("id", "r150\u00e9"),
    _dev(1, "name", "\u00e9"),
]


@pytest.mark.parametrize("change", VALID_VARIANTS)
def test_valid_values_read_exactly_as_the_checking_reader_reads_them(catalog, monkeypatch, change):
    large, _ = _texts(change)
    fast = loads(large, catalog)
    _checking_reader_only(monkeypatch)
    slow = loads(large, catalog)
    assert fast == slow
    assert repr(fast) == repr(slow)  # -0.0, 1 against 1.0


def test_a_well_formed_document_takes_the_plain_reader_only(catalog, monkeypatch, tmp_path):
    checked = []
    rack = fileformat._Reader.rack
    monkeypatch.setattr(fileformat._Reader, "rack",
                        lambda self, d, where, *a: checked.append(where) or rack(self, d, where, *a))
    path = tmp_path / "large.podplan.json"
    path.write_text(json.dumps(LARGE_DOC))
    project = load(path, catalog)
    assert checked == []
    assert project == from_dict(json.loads(path.read_text()), catalog)
    assert len(project.racks) == 200 and project.rack("r150").devices[1].u == 17.0


def test_only_the_odd_rack_is_read_by_the_checking_reader(catalog, monkeypatch):
    checked = []
    rack = fileformat._Reader.rack
    monkeypatch.setattr(fileformat._Reader, "rack",
                        lambda self, d, where, *a: checked.append(where) or rack(self, d, where, *a))
    doc = copy.deepcopy(LARGE_DOC)
    del doc["racks"][BAD]["devices"][1]["id"]  # valid: the id is generated
    project = loads(json.dumps(doc), catalog)
    assert checked == [f"racks[{BAD}]"]
    assert [d.id for d in project.rack("r150").devices] == ["r150-n1", "r150-d2", "r150-p0", "r150-p1"]


def test_whole_numbers_beyond_64_bits_keep_their_value(catalog):
    doc = copy.deepcopy(LARGE_DOC)
    doc["workload"] = {"flops": 10 ** 30, "tokens": -(2 ** 63) - 1, "fine": 2 ** 64 - 1}
    project = loads(json.dumps(doc), catalog)
    assert dict(project.workload) == {"flops": 10 ** 30, "tokens": -(2 ** 63) - 1, "fine": 2 ** 64 - 1}
    assert all(type(v) is int for _, v in project.workload)
    doc["racks"][BAD]["x"] = 123456789012345678901  # beyond any plan, and named as written
    assert _message(json.dumps(doc), catalog) == f"{R}.x: 123456789012345678901 is outside -1e+07..1e+07 mm"


def test_a_number_orjson_may_have_changed_makes_json_read_the_document(catalog, monkeypatch):
    reads, json_loads = [], json.loads
    monkeypatch.setattr(reading.json, "loads", lambda text, **kw: reads.append(1) or json_loads(text, **kw))
    doc = copy.deepcopy(LARGE_DOC)
    loads(json.dumps(doc), catalog)
    assert reads == []
    doc["workload"] = {"tokens": 2 ** 64 + 1}  # orjson: 1.8446744073709552e+19
    text = json.dumps(doc)
    assert loads(text, catalog) == from_dict(json_loads(text), catalog)
    assert reads == [1]
    for where in (doc["racks"][BAD], doc["halls"][0], doc["floor_devices"][0]):
        where["x" if "x" in where else "power_capacity_kw"] = 2 ** 64 + 1  # beyond their bounds
        text = json.dumps(doc)
        reads.clear()
        with pytest.raises(ProjectFileError) as expected:
            from_dict(json_loads(text), catalog)
        assert _message(text, catalog) == str(expected.value)
        assert "18446744073709551617 is outside" in str(expected.value)
        assert reads == [1]


def test_a_dict_subclass_is_read_by_the_checking_reader(catalog):
    """from_dict takes any mapping a caller builds; a defaultdict must not make up a missing U."""
    doc = copy.deepcopy(LARGE_DOC)
    device = doc["racks"][BAD]["devices"][1]
    del device["u"]
    doc["racks"][BAD]["devices"][1] = defaultdict(lambda: 5, device)
    with pytest.raises(ProjectFileError, match=re.escape(f"{D}.type: dgx-b200 is 10 U high and needs a U position")):
        from_dict(doc, catalog)
    doc["racks"][BAD] = defaultdict(lambda: 0, doc["racks"][BAD])
    del doc["racks"][BAD]["y"]
    with pytest.raises(ProjectFileError, match=re.escape(f"{R}.y: is missing")):
        from_dict(doc, catalog)


def test_settings_with_a_wide_number_are_checked_as_json_reads_them(catalog):
    doc = copy.deepcopy(LARGE_DOC)
    doc["settings"]["fabric_tiers"] = 10 ** 20  # orjson reads 1e+20
    assert _message(json.dumps(doc), catalog) == ("settings.fabric_tiers: fabric_tiers must be auto, 2 or 3, "
                                                  "got '100000000000000000000'")


@pytest.mark.parametrize("collecting", [True, False])
def test_loading_leaves_the_garbage_collector_as_it_was(catalog, collecting):
    was = gc.isenabled()
    try:
        (gc.enable if collecting else gc.disable)()
        loads(json.dumps(SMALL_DOC), catalog)
        assert gc.isenabled() is collecting
        with pytest.raises(ProjectFileError):
            loads("{}", catalog)
        assert gc.isenabled() is collecting
    finally:
        (gc.enable if was else gc.disable)()
