from __future__ import annotations

from dataclasses import replace

import pytest

from designer.commands import (
    AddDeviceCommand,
    AddObjectsCommand,
    CommandError,
    Document,
    MacroCommand,
    MoveDeviceCommand,
    MoveObjectsCommand,
    RemoveDeviceCommand,
    RemoveRacksCommand,
    RenameProjectCommand,
    UpdateHallCommand,
    UpdateRackCommand,
)
from designer.fileformat import load
from designer.model import FloorDevice, MountedDevice, Rack, copied_devices, new_device_id
from tests.designer.test_fileformat import GOLDEN


@pytest.fixture
def doc(catalog):
    return Document(load(GOLDEN, catalog), catalog)


def test_add_rack_then_undo_and_redo(doc):
    before = doc.project
    doc.push(AddObjectsCommand(racks=(Rack("r3", "A03", "h1", "rack-42u-600x1200", 2700, 2400),)))
    assert doc.project.rack("r3").name == "A03"
    doc.undo()
    assert doc.project is before and not doc.project.has_rack("r3")
    doc.redo()
    assert doc.project.rack("r3").x == 2700


def test_move_and_rotate_rack_with_undo(doc):
    doc.push(MoveObjectsCommand(racks={"r1": (900, 1200, 450)}))
    r = doc.project.rack("r1")
    assert (r.x, r.y, r.rotation) == (900, 1200, 90)
    doc.undo()
    assert (doc.project.rack("r1").x, doc.project.rack("r1").rotation) == (1500, 0)


def test_add_device_into_a_free_slot(doc):
    doc.push(AddDeviceCommand("r1", MountedDevice("n3", "dgx-b200", 30, "front")))
    assert doc.project.rack("r1").device("n3").u == 30
    doc.undo()
    assert len(doc.project.rack("r1").devices) == 3


@pytest.mark.parametrize(("device", "message"), [
    (MountedDevice("n3", "dgx-b200", 10, "front"), "collides with node-1 at U5"),
    (MountedDevice("n3", "dgx-b200", 45, "front"), "reaches U54, above the rack's 48 U"),
    (MountedDevice("n3", "dgx-b200", None, "front"), "needs a U position"),
    (MountedDevice("n3", "dgx-b999", 30, "front"), "unknown device id 'dgx-b999'"),
    (MountedDevice("n3", "rack-42u-600x1200", 30, "front"), "is a rack"),
    (MountedDevice("n1", "qm9700", 40, "front"), "is already used"),
])
def test_refused_device_leaves_the_document_unchanged(doc, device, message):
    before, revision = doc.project, doc.revision
    with pytest.raises(CommandError, match=message):
        doc.push(AddDeviceCommand("r1", device))
    assert doc.project is before and doc.revision == revision and not doc.can_undo()


def test_rack_scale_system_fills_its_rack(doc):
    with pytest.raises(CommandError, match="collides with gb200-nvl72"):
        doc.push(AddDeviceCommand("r2", MountedDevice("x", "qm9700", 47, "rear")))
    # 0U units (a PDU on the side) still fit beside it.
    doc.push(AddDeviceCommand("r2", MountedDevice("pdu", "pdu-415v-60a-3ph", None, "rear")))
    assert len(doc.project.rack("r2").devices) == 2


def test_move_device_within_and_between_racks(doc, catalog):
    doc.push(AddObjectsCommand(racks=(Rack("r3", "A03", "h1", "rack-42u-600x1200", 2700, 2400),)))
    doc.push(MoveDeviceCommand("r1", "n2", 30, "rear"))
    assert (doc.project.rack("r1").device("n2").u, doc.project.rack("r1").device("n2").face) == (30, "rear")
    doc.push(MoveDeviceCommand("r1", "n2", 1, "front", to_rack_id="r3"))
    assert doc.project.rack("r3").device("n2").u == 1
    assert "n2" not in {d.id for d in doc.project.rack("r1").devices}
    doc.undo()
    doc.undo()
    assert doc.project.rack("r1").device("n2").u == 17


def test_remove_device_and_rack(doc):
    doc.push(RemoveDeviceCommand("r1", "n1"))
    assert len(doc.project.rack("r1").devices) == 2
    doc.push(RemoveRacksCommand(("r1",)))
    assert not doc.project.has_rack("r1")
    doc.undo()
    doc.undo()
    assert doc.project.rack("r1").device("n1").type == "dgx-b200"
    with pytest.raises(CommandError, match="no rack with id 'zz'"):
        doc.push(RemoveRacksCommand(("zz",)))


def test_typing_in_one_field_merges_into_one_undo_step(doc):
    for text in ("B", "B0", "B01"):
        doc.push(UpdateRackCommand("r1", {"name": text}))
    assert doc.project.rack("r1").name == "B01"
    doc.undo()
    assert doc.project.rack("r1").name == "A01" and not doc.can_undo()


def test_editing_another_field_starts_a_new_step(doc):
    doc.push(UpdateRackCommand("r1", {"name": "X"}))
    doc.push(UpdateRackCommand("r1", {"power_limit_kw": 50}))
    doc.undo()
    assert doc.project.rack("r1").name == "X" and doc.project.rack("r1").power_limit_kw == 35


def test_no_merge_across_a_save(doc):
    doc.push(UpdateRackCommand("r1", {"name": "X"}))
    doc.mark_clean()
    doc.push(UpdateRackCommand("r1", {"name": "XY"}))
    assert doc.dirty
    doc.undo()
    assert doc.project.rack("r1").name == "X" and not doc.dirty


def test_bad_limits_are_refused(doc):
    with pytest.raises(CommandError, match="rack power limit must be a number from 0.001 to 10000 kW, got -1"):
        doc.push(UpdateRackCommand("r1", {"power_limit_kw": -1}))
    with pytest.raises(CommandError, match="hall power_capacity_kw must be a number from 0.001 to 1e.07, got 0"):
        doc.push(UpdateHallCommand("h1", {"power_capacity_kw": 0}))
    with pytest.raises(CommandError, match="hall power_capacity_kw must be a number from 0.001 to 1e.07, got 5e-324"):
        doc.push(UpdateHallCommand("h1", {"power_capacity_kw": 5e-324}))
    with pytest.raises(CommandError, match="tile_mm must be 100 to 5000 mm"):
        doc.push(UpdateHallCommand("h1", {"tile_mm": 24}))
    with pytest.raises(CommandError, match="rack power limit must be a number from 0.001 to 10000 kW, got inf"):
        doc.push(UpdateRackCommand("r1", {"power_limit_kw": float("inf")}))
    with pytest.raises(CommandError, match="got True"):
        doc.push(UpdateRackCommand("r1", {"power_limit_kw": True}))
    with pytest.raises(CommandError, match="got 1e-300"):
        doc.push(UpdateRackCommand("r1", {"power_limit_kw": 1e-300}))
    with pytest.raises(CommandError, match="no editable property 'x'"):
        doc.push(UpdateRackCommand("r1", {"x": 3}))


def test_changing_rack_type_rechecks_its_devices(doc):
    with pytest.raises(CommandError, match="needs a 48 U rack"):
        doc.push(UpdateRackCommand("r2", {"type": "rack-42u-600x1200"}))


def test_hall_edit_and_undo(doc):
    doc.push(UpdateHallCommand("h1", {"power_capacity_kw": 900}))
    assert doc.project.hall("h1").power_capacity_kw == 900
    doc.undo()
    assert doc.project.hall("h1").power_capacity_kw == 500


def test_floor_devices(doc):
    doc.push(AddObjectsCommand(floor_devices=(FloorDevice("c2", "cdu-inrow-2mw", "h1", 4200, 600),)))
    doc.push(MoveObjectsCommand(floor_devices={"c2": (4800, 600, 0)}))
    assert doc.project.floor_device("c2").x == 4800
    with pytest.raises(CommandError, match="is a server"):
        doc.push(AddObjectsCommand(floor_devices=(FloorDevice("c3", "dgx-b200", "h1", 0, 0),)))


def test_macro_is_one_undo_step(doc):
    doc.push(MacroCommand([MoveObjectsCommand(racks={"r1": (600, 600, 0)}),
                           MoveObjectsCommand(racks={"r2": (1200, 600, 0)}),
                           RenameProjectCommand("Moved")], "Move 2 racks"))
    assert doc.undo_label() == "Move 2 racks"
    doc.undo()
    assert doc.project.rack("r1").x == 1500 and doc.project.rack("r2").x == 2100 and doc.project.name == "Golden v1"


def test_failed_macro_changes_nothing(doc):
    before = doc.project
    with pytest.raises(CommandError):
        doc.push(MacroCommand([MoveObjectsCommand(racks={"r1": (0, 0, 0)}), RemoveRacksCommand(("nope",))]))
    assert doc.project is before


def test_listeners_hear_each_change(doc):
    heard = []
    doc.subscribe(lambda project, change: heard.append(change))
    doc.push(MoveObjectsCommand(racks={"r1": (900, 1200, 0)}))
    doc.undo()
    assert [c.racks for c in heard] == [frozenset({"r1"}), frozenset({"r1"})]


def test_dirty_tracking(doc):
    assert not doc.dirty
    doc.push(RenameProjectCommand("A"))
    assert doc.dirty
    doc.mark_clean()
    assert not doc.dirty
    doc.undo()
    assert doc.dirty
    doc.redo()
    assert not doc.dirty
    doc.undo()
    doc.push(RenameProjectCommand("B"))  # the saved state is gone for good
    assert doc.dirty
    doc.undo()
    assert doc.dirty


def test_snapshot_is_immutable_and_cheap(doc):
    rev, snap = doc.snapshot()
    doc.push(MoveObjectsCommand(racks={"r1": (900, 1200, 0)}))
    assert snap.rack("r1").x == 1500 and doc.snapshot()[0] == rev + 1
    assert snap.racks[1] is doc.project.racks[1]  # untouched racks are shared, not copied
    with pytest.raises(AttributeError):
        snap.rack("r1").x = 5


def test_undo_limit(catalog):
    doc = Document(load(GOLDEN, catalog), catalog, limit=3)
    for i in range(5):
        doc.push(MoveObjectsCommand(racks={"r1": (300 + 100 * i, 600, 0)}))
    undone = 0
    while doc.can_undo():
        doc.undo()
        undone += 1
    assert undone == 3 and doc.project.rack("r1").x == 400


def test_settings_command_refuses_bad_values_and_merges(doc):
    from designer.commands import UpdateSettingsCommand

    with pytest.raises(CommandError, match="pue must be >= 1"):
        doc.push(UpdateSettingsCommand({"pue": 0.7}))
    with pytest.raises(CommandError):
        doc.push(UpdateSettingsCommand({"colour": "red"}))
    doc.push(UpdateSettingsCommand({"pue": 1.2}))
    doc.push(UpdateSettingsCommand({"pue": 1.25}))
    assert doc.project.settings.pue == 1.25
    doc.undo()
    assert doc.project.settings.pue == 1.3 and not doc.can_undo()


def test_workload_command(doc):
    from designer.commands import SetWorkloadCommand

    doc.push(SetWorkloadCommand({"model": "llama3-70b", "tokens": 15e12}))
    assert doc.project.workload_dict == {"model": "llama3-70b", "tokens": 15e12}
    with pytest.raises(CommandError, match="workload plan must be"):
        doc.push(SetWorkloadCommand({"plan": [1, 2]}))
    doc.undo()
    assert doc.project.workload_dict is None


def test_restored_document_is_unsaved(doc):
    assert not doc.dirty
    doc.mark_unsaved()
    assert doc.dirty


def test_floor_unit_edit(doc):
    from designer.commands import UpdateFloorDeviceCommand

    doc.push(UpdateFloorDeviceCommand("c1", {"name": "CDU-A", "serves": ["r1", "r2"]}))
    assert doc.project.floor_device("c1").serves == ("r1", "r2") and doc.project.floor_device("c1").name == "CDU-A"
    with pytest.raises(CommandError, match="no rack with id 'r9'"):
        doc.push(UpdateFloorDeviceCommand("c1", {"serves": ["r9"]}))
    with pytest.raises(CommandError, match="is a server"):
        doc.push(UpdateFloorDeviceCommand("c1", {"type": "dgx-b200"}))
    doc.undo()
    assert doc.project.floor_device("c1").serves == ("r2",)


def test_unsubscribe(doc):
    heard = []

    def listener(project, change):
        heard.append(change)

    doc.subscribe(listener)
    doc.unsubscribe(listener)
    doc.unsubscribe(listener)  # twice is harmless
    doc.push(MoveObjectsCommand(racks={"r1": (900, 1200, 0)}))
    assert heard == []


def test_ids_are_unique_across_halls_racks_and_floor_units(doc):
    with pytest.raises(CommandError, match="rack id 'h1' is already used"):
        doc.push(AddObjectsCommand(racks=(Rack("h1", "X", "h1", "rack-42u-600x1200", 2700, 2400),)))
    with pytest.raises(CommandError, match="rack id 'r9' is already used"):
        doc.push(AddObjectsCommand(racks=(Rack("r9", "X", "h1", "rack-42u-600x1200", 2700, 2400),
                                  Rack("r9", "Y", "h1", "rack-42u-600x1200", 3300, 2400))))
    with pytest.raises(CommandError, match="floor unit id 'r1' is already used"):
        doc.push(AddObjectsCommand(floor_devices=(FloorDevice("r1", "cdu-inrow-2mw", "h1", 4200, 600),)))


def test_catalog_ids_are_stored_as_the_catalog_spells_them(doc):
    doc.push(AddDeviceCommand("r1", MountedDevice("n3", "DGX-B200", 30, "front")))
    doc.push(AddObjectsCommand(racks=(Rack("r3", "A03", "h1", "RACK-42U-600x1200", 2700, 2400),)))
    assert doc.project.rack("r1").device("n3").type == "dgx-b200"
    assert doc.project.rack("r3").type == "rack-42u-600x1200"


def test_deleting_a_rack_drops_it_from_cdu_loops_and_undo_restores_both(doc, catalog):
    from designer.analysis import analyze

    doc.push(RemoveRacksCommand(("r2",)))
    assert doc.project.floor_device("c1").serves == ()
    analyze(doc.project, catalog)  # no dangling reference left behind
    doc.undo()
    assert doc.project.has_rack("r2") and doc.project.floor_device("c1").serves == ("r2",)
    with pytest.raises(CommandError, match="no rack with id 'gone'"):
        doc.push(AddObjectsCommand(
            floor_devices=(FloorDevice("c9", "cdu-inrow-2mw", "h1", 4200, 600, serves=("gone",)),)))


def test_a_device_id_is_unique_in_the_whole_design(doc):
    # a finding, a cable end or an export row names a device by its id alone, and the file reader
    # refuses one id in two racks: no edit may make it
    r3 = Rack("r3", "A03", "h1", "rack-42u-600x1200", 2700, 2400, devices=(MountedDevice("n1", "qm9700", 40, "rear"),))
    with pytest.raises(CommandError, match="rack 'A03': device id 'n1' is already used in rack 'A01'"):
        doc.push(AddObjectsCommand(racks=(r3,)))
    with pytest.raises(CommandError, match="device id 'n1' is already used in rack 'A01'"):
        doc.push(AddDeviceCommand("r2", MountedDevice("n1", "qm9700", 30, "rear")))
    r4 = replace(r3, id="r4", name="A04", x=3300, devices=(MountedDevice("x1", "qm9700", 40, "rear"),))
    with pytest.raises(CommandError, match="rack 'A04': device id 'x1' is already used in another new rack"):
        doc.push(AddObjectsCommand(racks=(replace(r3, devices=r4.devices), r4)))
    assert not doc.project.has_rack("r3")
    doc.push(AddObjectsCommand(racks=(replace(r3, devices=r4.devices),)))
    doc.push(MoveDeviceCommand("r3", "x1", 30, "front", to_rack_id="r1"))  # a move keeps its id
    assert doc.project.device_rack("x1") == "r1" and not doc.project.rack("r3").devices


def test_new_device_ids_are_free_in_the_whole_design(doc):
    doc.push(AddDeviceCommand("r1", MountedDevice("r2-d2", "qm9700", 40, "rear")))
    r2 = doc.project.rack("r2")
    assert len(r2.devices) == 1
    assert new_device_id(doc.project, "r2", r2.devices) == "r2-d3"  # r2-d2 is taken in another rack
    assert new_device_id(doc.project, "r9") == "r9-d1"  # a rack not in the design yet


def test_copies_of_a_rack_get_device_ids_free_in_the_design(doc):
    rack = replace(doc.project.rack("r1"), devices=(MountedDevice("r1-n1", "dgx-b200", 5, "front"),
                                                   MountedDevice("p1", "pdu-415v-32a-3ph", None, "rear"),
                                                   MountedDevice("r9-d1", "qm9700", 40, "rear")))
    used: set[str] = set()
    first = copied_devices(doc.project, rack, "r9", used)
    # r1-n1 follows the rack's new id; p1 is taken in the design, r9-d1 by the copy just named
    assert [d.id for d in first] == ["r9-n1", "r9-d1", "r9-d2"]
    second = copied_devices(doc.project, rack, "r9", used)
    assert not {d.id for d in second} & {d.id for d in first}


def test_hall_outline_is_copied_into_the_snapshot(doc):
    outline = [[0, 0], [9000, 0], [9000, 6000], [0, 6000]]
    doc.push(UpdateHallCommand("h1", {"outline": outline}))
    outline.append([1, 1])
    assert doc.project.hall("h1").outline == ((0, 0), (9000, 0), (9000, 6000), (0, 6000))
    with pytest.raises(CommandError, match="list of \\[x, y\\] corners"):
        doc.push(UpdateHallCommand("h1", {"outline": [[0, "a"], [1, 2], [3]]}))


def test_a_new_rack_whose_own_devices_collide_is_refused_in_the_collisions_words(catalog):
    from designer.commands import AddObjectsCommand
    from designer.model import Hall, Project

    project = Project(halls=(Hall("h", "Hall", ((0, 0), (6000, 0), (6000, 6000), (0, 6000))),))
    devices = (MountedDevice("a", "dgx-b200", 2, "front", "dgx-1"), MountedDevice("b", "qm9700", 30, "rear", "leaf-1"),
               MountedDevice("c", "dgx-b200", 8, "front", "dgx-2"))  # U8-U17 over dgx-1's U2-U11
    rack = Rack("r1", "R1", "h", "rack-48u-600x1200", 3000, 3000, 0.0, "A", devices)
    with pytest.raises(CommandError, match=r"rack R1: dgx-b200 at U8 collides with dgx-1 at U2"):
        AddObjectsCommand(racks=(rack,)).apply(project, catalog)
    ok = Rack("r1", "R1", "h", "rack-48u-600x1200", 3000, 3000, 0.0, "A", devices[:2] + (
        MountedDevice("c", "dgx-b200", 12, "front", "dgx-2"),))
    new, _ = AddObjectsCommand(racks=(ok,)).apply(project, catalog)
    assert [d.u for d in new.rack("r1").devices] == [2, 30, 12]
