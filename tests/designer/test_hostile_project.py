"""Project files built to break the reader, and projects the saver cannot store: each is refused with
the path of the value and what is wrong with it, on load and on the command line alike; nothing reaches
an engine that cannot take it, and nothing half-stored is written."""
from __future__ import annotations

import dataclasses
import json
import math
import warnings
from pathlib import Path

import pytest

from designer.analysis import analyze
from designer.commands import (AddDeviceCommand, AddHallCommand, AddObjectsCommand, CommandError, Document,
                               MoveDeviceCommand, MoveObjectsCommand, RenameProjectCommand, SetWorkloadCommand,
                               UpdateFloorDeviceCommand, UpdateHallCommand, UpdateRackCommand)
from designer.fileformat import ProjectFileError, dumps, load, loads, save
from designer.model import Hall, MountedDevice, Rack
from designer.settings import Settings, SettingsError
from widgets.app.launcher import main

GOLDEN = Path(__file__).parent / "fixtures" / "golden_v1.podplan.json"


def golden() -> dict:
    return json.loads(GOLDEN.read_text())


def message(doc: dict | str, catalog) -> str:
    text = doc if isinstance(doc, str) else json.dumps(doc)
    with pytest.raises(ProjectFileError) as caught:
        loads(text, catalog)
    return str(caught.value)


def edit(fn) -> dict:
    doc = golden()
    fn(doc)
    return doc


HOSTILE = [
    # text UTF-8 cannot hold: json reads "\udcff" as a lone surrogate
    (lambda d: d["racks"][0].update(name="A\udcff01"),
     "racks[0].name: contains a character that cannot be stored (a lone surrogate)"),
    (lambda d: d.update(description="x\ud800"), "description: contains a character that cannot be stored"),
    (lambda d: d["racks"][1]["devices"][0].update(name="\udc80"),
     "racks[1].devices[0].name: contains a character that cannot be stored"),
    (lambda d: d["floor_devices"][0].update(serves=["r\udcff"]),
     "floor_devices[0].serves[0]: contains a character that cannot be stored"),
    (lambda d: d.update(workload={"model\udcff": "x"}), "contains a character that cannot be stored"),
    # numbers beyond any plan, site or rack
    (lambda d: d["halls"][0]["outline"].__setitem__(1, [1e308, 0]),
     "halls[0].outline[1][0]: 1e+308 is outside -1e+07..1e+07 mm"),
    (lambda d: d["halls"][0]["outline"].__setitem__(2, [6000, -1e308]),
     "halls[0].outline[2][1]: -1e+308 is outside -1e+07..1e+07 mm"),
    (lambda d: d["floor_devices"][0].update(x=20_000_000), "floor_devices[0].x: 20000000 is outside -1e+07..1e+07 mm"),
    (lambda d: d["halls"][0].update(power_capacity_kw=5e-324),
     "halls[0].power_capacity_kw: 5e-324 is outside 0.001..1e+07"),
    (lambda d: d["halls"][0].update(cooling_capacity_kw=1e300), "halls[0].cooling_capacity_kw: 1e+300 is outside"),
    (lambda d: d["halls"][0].update(floor_rating_kg_m2=10 ** 9), "halls[0].floor_rating_kg_m2: 1000000000 is outside"),
    (lambda d: d["racks"][0].update(power_limit_kw=1e-9), "racks[0].power_limit_kw: 1e-09 is outside 0.001..10000"),
    (lambda d: d.update(workload={"tokens": 1e308}), "workload.tokens: 1e+308 is outside -1e+30..1e+30"),
    (lambda d: d.update(settings={"power_factor": 5e-324}), "power_factor must be >= 0.5 and <= 1, got 4.94066e-324"),
    (lambda d: d.update(settings={"coolant_delta_t_k": 1e-300}), "coolant_delta_t_k must be >= 1 and <= 50"),
    (lambda d: d.update(settings={"rack_limit_kw": 1e-300}), "rack_limit_kw must be >= 0.001 and <= 10000"),
    # a zero-U PDU hangs on the rails of the rack it is in
    (lambda d: d["racks"][0]["devices"][2].update(u=-1e9), "racks[0].devices[2].u: -1e+09 is below the rack's first U"),
    (lambda d: d["racks"][0]["devices"][2].update(u=49), "racks[0].devices[2].u: 49 is above the rack's 48 U"),
    # one device id in two racks: a finding, a cable end or an export row names a device by its id alone
    (lambda d: d["racks"][1]["devices"][0].update(id="n2"),
     'racks[1].devices[0].id: "n2" is already used at racks[0].devices[1]'),
    (lambda d: d["racks"][1]["devices"][0].update(id="p1"),
     'racks[1].devices[0].id: "p1" is already used at racks[0].devices[2]'),
]


@pytest.mark.parametrize("change, words", HOSTILE)
def test_hostile_values_are_refused_with_their_path(catalog, change, words):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no library warning on the way (shapely's overflow at 1e308)
        assert words in message(edit(change), catalog)


@pytest.mark.parametrize("change, words", HOSTILE[:1] + HOSTILE[5:6] + HOSTILE[-2:-1])
def test_validate_and_analyze_refuse_alike(tmp_path, capsys, change, words):
    # validate once accepted a lone surrogate that analyze --json then failed on (exit 3)
    path = tmp_path / "hostile.podplan.json"
    path.write_text(json.dumps(edit(change)))
    for argv in (["validate", str(path)], ["analyze", "--json", str(path)]):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == f"podplanner: error: {path}: {words}\n"


def test_the_first_device_id_of_a_rack_read_quickly_is_found_for_the_message(catalog):
    # racks read by the fast path keep no paths: the message still names where the id was first used
    doc = golden()
    doc["racks"].append(dict(doc["racks"][1], id="r3", devices=[{"id": "s1", "type": "gb200-nvl72", "u": 1,
                                                                "face": "front"}]))
    assert message(doc, catalog) == 'racks[2].devices[0].id: "s1" is already used at racks[1].devices[0]'


def test_a_generated_device_id_never_takes_one_used_in_another_rack(catalog):
    doc = golden()
    doc["racks"][0]["devices"][0]["id"] = "r2-d1"  # what r2's first device would be called
    del doc["racks"][1]["devices"][0]["id"]
    project = loads(json.dumps(doc), catalog)
    assert [d.id for d in project.rack("r2").devices] == ["r2-d2"]


def test_a_byte_order_mark_is_accepted(catalog, tmp_path):
    path = tmp_path / "bom.podplan.json"
    path.write_bytes(b"\xef\xbb\xbf" + GOLDEN.read_bytes())
    assert load(path, catalog) == load(GOLDEN, catalog)
    assert loads("\ufeff" + GOLDEN.read_text(), catalog) == load(GOLDEN, catalog)


def test_text_is_kept_in_one_composition(catalog):
    # "é" typed as one character or as e and a combining accent is one name, one id
    doc = golden()
    doc["racks"][0]["name"] = "Re\u0301seau"
    doc["racks"][0]["devices"][0]["id"] = "e\u0301"
    project = loads(json.dumps(doc), catalog)
    assert project.rack("r1").name == "R\u00e9seau"
    assert project.rack("r1").devices[0].id == "\u00e9"
    doc["racks"][0]["devices"][1]["id"] = "\u00e9"
    assert message(doc, catalog) == "racks[0].devices[1].id: id '\u00e9' is used twice in this rack"


def test_a_row_named_twice_in_two_compositions_is_refused(catalog):
    doc = golden()
    doc["halls"][0]["facility"] = {"rows": {"R\u00e9": {"containment": True}, "Re\u0301": {"containment": False}}}
    assert "row 'R\u00e9' is given twice" in message(doc, catalog)


def test_values_at_the_bounds_load_and_analyse_without_warning(catalog):
    doc = golden()
    doc["halls"][0]["outline"] = [[-1e7, -1e7], [1e7, -1e7], [1e7, 1e7], [-1e7, 1e7]]
    doc["halls"][0]["power_capacity_kw"] = 0.001
    doc["racks"][0]["power_limit_kw"] = 10000
    doc["racks"][0]["devices"][2]["u"] = 48
    doc["settings"] = {"power_factor": 0.5, "derating": 0.5, "coolant_delta_t_k": 1, "air_delta_t_k": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        project = loads(json.dumps(doc), catalog)
        result = analyze(project, catalog)
    assert project.rack("r1").devices[2].u == 48
    assert result.summary_json["it_power_max_kw"] == 160.6  # as at the golden file's own settings
    # a 1 K loop carries the same heat as a 10 K one with ten times the flow
    assert result.summary_json["coolant_flow_lpm"] == pytest.approx(161.3 * 10, rel=1e-3)
    json.dumps(dict(result.summary_json), allow_nan=False)


def test_settings_below_their_physical_floor_are_refused_when_built():
    with pytest.raises(SettingsError, match="derating must be >= 0.5 and <= 1, got 0.2"):
        Settings(derating=0.2)
    assert Settings(derating=0.5, power_factor=0.5).derating == 0.5


@pytest.mark.parametrize("change, where, words", [
    (lambda p: p.renamed("Hall \udcff"), "name", "a lone surrogate"),
    (lambda p: p.with_racks((dataclasses.replace(p.racks[0], x=math.nan),) + p.racks[1:]), "racks[0].x",
     "nan is not a finite number"),
    (lambda p: p.with_racks((dataclasses.replace(p.racks[0], row="A\ud800"),) + p.racks[1:]), "racks[0].row",
     "a lone surrogate"),
])
def test_save_refuses_what_json_cannot_store_and_writes_nothing(catalog, tmp_path, change, where, words):
    project = change(load(GOLDEN, catalog))
    target = tmp_path / "kept.podplan.json"
    target.write_bytes(GOLDEN.read_bytes())
    with pytest.raises(ValueError) as caught:
        save(project, target)
    assert isinstance(caught.value, ProjectFileError)
    assert str(caught.value) == f"{target}: {where}: {caught.value.reason}"
    assert words in caught.value.reason and caught.value.reason.endswith("the project cannot be saved")
    assert target.read_bytes() == GOLDEN.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.podplan.json"]  # no temporary left
    with pytest.raises(ProjectFileError, match=words):
        dumps(project)


def test_a_message_stays_one_printable_line(catalog):
    doc = golden()
    doc["racks"][0]["devices"][0]["id"] = "n2"
    doc["racks"][0]["devices"][1]["id"] = "n2"
    doc["racks"][0]["devices"][0]["type"] = "no\nsuch\u2028type"
    doc["racks"][0]["devices"][0]["no\nsuch\u2028field"] = 1
    text = message(doc, catalog)
    assert "\n" not in text and "\u2028" not in text and text.isprintable()
    assert "no\\nsuch\\u2028field" in text


# --- edits: what a command makes, the reader opens again ---------------------------------------------

@pytest.fixture
def doc(catalog):
    return Document(load(GOLDEN, catalog), catalog)


def refused(doc, command, words: str) -> None:
    """``command`` is refused in these words, and the document is as it was."""
    before = doc.project
    with pytest.raises(CommandError) as caught:
        doc.push(command)
    assert words in str(caught.value)
    assert doc.project is before


@pytest.mark.parametrize("command, words", [
    (lambda: MoveObjectsCommand(racks={"r1": (2e7, 2400, 0)}),
     "rack A01 x must be within 1e+07 mm (10 km) of the plan's origin"),
    (lambda: MoveObjectsCommand(floor_devices={"c1": (4200, -1e308, 0)}), "floor unit CDU-1 y must be within 1e+07 mm"),
    (lambda: UpdateHallCommand("h1", {"outline": [[0, 0], [1e308, 0], [0, 1]]}),
     "hall outline corners must be within 1e+07 mm"),
    (lambda: UpdateHallCommand("h1", {"cooling_capacity_kw": 5e-324}),
     "hall cooling_capacity_kw must be a number from 0.001 to 1e+07, got 5e-324"),
    (lambda: UpdateHallCommand("h1", {"name": "Hall \udcff"}), "hall name contains a character that cannot be stored"),
    (lambda: UpdateRackCommand("r1", {"row": "\ud800"}), "rack row contains a character that cannot be stored"),
    (lambda: UpdateFloorDeviceCommand("c1", {"name": 7}), "floor unit name must be text, got 7"),
    (lambda: RenameProjectCommand("x\udcff"), "project name contains a character that cannot be stored"),
    (lambda: SetWorkloadCommand({"tokens": 1e308}), "workload tokens must be a number from -1e+30 to 1e+30"),
    (lambda: SetWorkloadCommand({"model": "\udcff"}), "workload model contains a character that cannot be stored"),
    (lambda: AddHallCommand(Hall("h2", "Hall 2", ((0, 0), (1, 0), (0, 1)), power_capacity_kw=1e-9)),
     "hall power_capacity_kw must be a number from 0.001 to 1e+07, got 1e-09"),
    (lambda: AddDeviceCommand("r2", MountedDevice("n\udcff", "qm9700", 30, "rear")),
     "device id contains a character that cannot be stored"),
    (lambda: AddObjectsCommand(racks=(Rack("r3", "A03", "h1", "rack-42u-600x1200", 2700, 2400,
                                           power_limit_kw=1e-300),)),
     "rack power limit must be a number from 0.001 to 10000 kW, got 1e-300"),
])
def test_edits_the_reader_would_refuse_are_refused(doc, command, words):
    refused(doc, command(), words)


def test_edited_text_is_kept_in_one_composition_and_the_design_opens_again(doc, catalog, tmp_path):
    doc.push(UpdateRackCommand("r1", {"name": "Re\u0301seau", "row": "A\u0301"}))
    doc.push(RenameProjectCommand("Salle e\u0301te\u0301"))
    doc.push(AddDeviceCommand("r1", MountedDevice("e\u0301", "qm9700", 30, "rear", "Spine e\u0301")))
    doc.push(MoveObjectsCommand(racks={"r2": (2100, 2400, 0)}))
    project = doc.project
    assert (project.rack("r1").name, project.rack("r1").row, project.name) == ("R\u00e9seau", "\u00c1",
                                                                               "Salle \u00e9t\u00e9")
    assert project.device_rack("\u00e9") == "r1"
    save(project, tmp_path / "edited.podplan.json")
    assert load(tmp_path / "edited.podplan.json", catalog) == project


def test_quote_text_is_kept_in_one_composition_by_edits_and_the_reader_alike(doc, catalog, tmp_path):
    from designer.commands import UpdateQuoteCommand
    from designer.quote_settings import PriceEntry

    # "café" typed two ways is one part number: the second is the first listed twice
    twice = (PriceEntry("caf\u00e9-100", 10, "USD"), PriceEntry("cafe\u0301-100", 12, "USD"))
    with pytest.raises(CommandError, match=r"quote.prices\[1\]: part number 'café-100' is listed twice"):
        doc.push(UpdateQuoteCommand({"prices": twice}))
    # a length is counted as the file holds it: U+0958 is two characters in NFC
    with pytest.raises(CommandError, match="quote.customer: is 400 characters long"):
        doc.push(UpdateQuoteCommand({"customer": "\u0958" * 200}))
    doc.push(UpdateQuoteCommand({"customer": "Soci\u00e9te\u0301", "prices": twice[1:]}))
    assert doc.project.quote.customer == "Soci\u00e9t\u00e9"
    assert doc.project.quote.prices[0].part_number == "caf\u00e9-100"
    save(doc.project, tmp_path / "quoted.podplan.json")
    assert load(tmp_path / "quoted.podplan.json", catalog) == doc.project


def test_a_made_device_id_avoids_one_written_in_a_later_rack(catalog):
    doc = golden()
    del doc["racks"][0]["devices"][1]["id"]  # would be r1-d2
    doc["racks"][1]["devices"][0]["id"] = "r1-d2"
    project = loads(json.dumps(doc), catalog)
    assert [d.id for d in project.rack("r1").devices] == ["n1", "r1-d3", "p1"]
    assert project.device_rack("r1-d2") == "r2"


def test_a_rack_filling_system_states_a_u_inside_its_rack(catalog):
    doc = edit(lambda d: d["racks"][1]["devices"][0].update(u=1e300))
    assert message(doc, catalog) == "racks[1].devices[0].u: 1e+300 is above the rack's 48 U"
    doc = edit(lambda d: d["racks"][1]["devices"][0].update(u=0))
    assert message(doc, catalog) == "racks[1].devices[0].u: 0 is below the rack's first U"


@pytest.mark.parametrize("command, words", [
    (lambda: AddDeviceCommand("r1", MountedDevice("q1", "qm9700", 30.25, "rear")), "30.25 is not a whole or half U"),
    (lambda: MoveDeviceCommand("r1", "n1", math.nan, "front"), "U must be a number, got nan"),
    (lambda: MoveDeviceCommand("r1", "n1", 1e300, "front"), "1e+300 is above the rack's 48 U"),
    (lambda: MoveDeviceCommand("r2", "s1", 1e300, "front"), "1e+300 is above the rack's 48 U"),
    (lambda: MoveDeviceCommand("r1", "p1", 2.3, "rear"), "2.3 is not a whole or half U"),
    (lambda: AddObjectsCommand(racks=(Rack("r3", "A03", "h1", "rack-42u-600x1200", 2700, 2400,
                                   devices=(MountedDevice("q1", "qm9700", 40, "side"),)),)),
     "rack 'A03': face must be front or rear, got 'side'"),
    (lambda: AddObjectsCommand(racks=(Rack("r3", "A03", "h1", "rack-42u-600x1200", 2700, 2400,
                                   devices=(MountedDevice("q1", "qm9700", 5.25, "rear"),)),)),
     "5.25 is not a whole or half U"),
    (lambda: AddHallCommand(Hall("h2", "Hall 2", ((0, 0), (1, 0), (0, 1)), tile_mm=50)),
     "hall tile_mm must be 100 to 5000 mm, got 50"),
])
def test_device_places_the_reader_would_refuse_are_refused(doc, command, words):
    refused(doc, command(), words)
