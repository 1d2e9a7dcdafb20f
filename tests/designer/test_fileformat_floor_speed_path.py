"""The fast floor-unit reader (``_Reader.plain_floor_device``) takes what the checking reader takes, reads it the
same, and sends everything else to the checking reader, which words the message.

A bad value in floor unit 150 of a 200-unit document must give the message the checking reader alone gives.
"""
from __future__ import annotations

import copy
import json

import pytest

from designer import fileformat
from designer.fileformat import ProjectFileError, loads, to_dict
from designer.model import FloorDevice, Hall, Project, Rack

BAD = 150
F = f"floor_devices[{BAD}]"


def _doc() -> dict:
    hall = Hall("h1", "Hall 1", ((0, 0), (130000, 0), (130000, 48000), (0, 48000)), power_capacity_kw=5000)
    hall2 = Hall("h2", "Hall 2", ((0, 0), (20000, 0), (20000, 20000), (0, 20000)))
    racks = tuple(Rack(f"r{i}", f"A{i}", "h1", "rack-48u-600x1200", 600.0 * i + 300, 2400.0) for i in range(4))
    kinds = ("cdu-inrow-2mw", "crah-cw-200kw", "pdu-415v-32a-3ph")
    floor = tuple(FloorDevice(f"f{i:03d}", kinds[i % 3], "h1", 600.0 * (i % 200) + 300, 9000.0 + 10 * i,
                              90.0 if i % 2 else 0.0, f"Unit {i}" if i % 4 else "", ("r0", "r1") if i % 5 == 0 else ())
                  for i in range(200))
    return to_dict(Project(name="Floor speed path", halls=(hall, hall2), racks=racks, floor_devices=floor))


DOC = _doc()


def _text(change) -> str:
    doc = copy.deepcopy(DOC)
    change(doc["floor_devices"][BAD])
    return json.dumps(doc)


def _checking_reader_only(monkeypatch):
    monkeypatch.setattr(fileformat._Reader, "plain_floor_device", lambda *args: None)


def _set(key, value):
    return lambda f: f.update({key: value})


def _drop(key):
    return lambda f: f.pop(key)


BAD_VALUES = [
    (_set("colour", "red"), f"{F}.colour: is not a known field"),
    (_drop("x"), f"{F}.x: is missing"),
    (_drop("id"), f"{F}.id: is missing"),
    (_drop("type"), f"{F}.type: is missing"),
    (_set("x", "3"), f"{F}.x: must be a number, got '3'"),
    (_set("x", True), f"{F}.x: must be a number, got True"),
    (_set("rotation", False), f"{F}.rotation: must be a number, got False"),
    (_set("y", float("nan")), f"{F}.y: must be a number, got nan"),
    (_set("x", 1e300), f"{F}.x: 1e+300 is outside -1e+07..1e+07 mm"),
    (_set("rotation", 361), f"{F}.rotation: 361 is outside -360..360"),
    (_set("name", 5), f"{F}.name: must be text, got 5"),
    (_set("name", "a\ud800"), f"{F}.name: contains a character that cannot be stored (a lone surrogate)"),
    (_set("name", "x" * 5000), f"{F}.name: is 5,000 characters long"),
    (_set("id", ""), f"{F}.id: must not be empty"),
    (_set("id", " "), f"{F}.id: must not be empty"),
    (_set("id", ["f1"]), f"{F}.id: must be text, got ['f1']"),
    (_set("id", "f149"), f"{F}.id: id 'f149' is also used by floor_devices[149].id"),
    (_set("id", "r2"), f"{F}.id: id 'r2' is also used by racks[2].id"),
    (_set("id", "h2"), f"{F}.id: id 'h2' is also used by halls[1].id"),
    (_set("type", "dgx-b200"), f"{F}.type: dgx-b200 is a server; expected a cdu or crah or pdu"),
    (_set("type", "no-such-unit"), f"{F}.type: unknown device id 'no-such-unit'"),
    (_set("type", ""), f"{F}.type: must not be empty"),
    (_set("hall", "h9"), f"{F}.hall: no hall with id 'h9'"),
    (_set("hall", 1), f"{F}.hall: must be text, got 1"),
    (_set("serves", "r0"), f"{F}.serves: must be a list of rack ids"),
    (_set("serves", ["r0", 1]), f"{F}.serves: must be a list of rack ids"),
    (_set("serves", ["r0", "r9"]), f"{F}.serves[1]: no rack with id 'r9'"),
]


@pytest.mark.parametrize(("change", "message"), BAD_VALUES)
def test_a_bad_floor_unit_reads_as_the_checking_reader_reads_it(catalog, monkeypatch, change, message):
    text = _text(change)
    with pytest.raises(ProjectFileError) as fast:
        loads(text, catalog)
    assert str(fast.value).startswith(message)
    _checking_reader_only(monkeypatch)
    with pytest.raises(ProjectFileError) as slow:
        loads(text, catalog)
    assert str(fast.value) == str(slow.value)


VALID_VARIANTS = [
    lambda f: None,
    _set("type", "CDU-INROW-2MW"),
    _set("rotation", -90),
    _set("rotation", -0.0),
    _set("rotation", 360),
    _set("x", 10 ** 7),
    _set("y", -1e7),
    _drop("rotation"),
    _drop("name"),
    _drop("serves"),
    _set("serves", []),
    _set("name", "e\u0301"),  # stored in NFC, by the checking reader
    _set("id", "f150\u00e9"),
    _set("hall", "h2"),
]


@pytest.mark.parametrize("change", VALID_VARIANTS)
def test_a_valid_floor_unit_reads_exactly_as_the_checking_reader_reads_it(catalog, monkeypatch, change):
    text = _text(change)
    fast = loads(text, catalog)
    _checking_reader_only(monkeypatch)
    slow = loads(text, catalog)
    assert fast == slow
    assert repr(fast.floor_devices) == repr(slow.floor_devices)  # -0.0 against 0.0, 1 against 1.0


def test_a_well_formed_document_takes_the_plain_floor_reader_only(catalog, monkeypatch):
    checked = []
    floor_device = fileformat._Reader.floor_device
    monkeypatch.setattr(fileformat._Reader, "floor_device",
                        lambda self, d, where, *a: checked.append(where) or floor_device(self, d, where, *a))
    project = loads(json.dumps(DOC), catalog)
    assert checked == []
    assert len(project.floor_devices) == 200
    unit = project.floor_device("f150")
    assert (unit.type, unit.hall, unit.x, unit.rotation, unit.name, unit.serves) == (
        "cdu-inrow-2mw", "h1", 90300.0, 0.0, "Unit 150", ("r0", "r1"))
    doc = copy.deepcopy(DOC)
    doc["floor_devices"][BAD]["name"] = 7
    with pytest.raises(ProjectFileError):
        loads(json.dumps(doc), catalog)
    assert set(checked) == {F}  # only the odd one goes to the checking reader (once per reading), which names it
