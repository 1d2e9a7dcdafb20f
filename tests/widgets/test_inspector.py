"""Inspector: edits are commands, typing merges into one undo step, undo refreshes without echo."""
from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

import drawn as samples
from designer.analysis import analyze
from designer.commands import AddDeviceCommand, Document
from designer.fileformat import load
from designer.model import MountedDevice
from widgets.dashboards.inspector import InspectorPanel, power_text


@pytest.fixture
def doc(catalog):
    return Document(load(samples.DGX_B200_SU, catalog), catalog)


@pytest.fixture
def inspector(qtbot, catalog, doc):
    w = InspectorPanel(catalog)
    qtbot.addWidget(w)
    w.set_document(doc)
    w.resize(360, 640)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_typing_a_rack_name_is_one_undo_step(inspector, doc):
    inspector.show_selection("rack", ["a01"])
    assert inspector.rack_name.text() == "A01"
    before = doc.project
    inspector.rack_name.setFocus()
    inspector.rack_name.end(False)
    QTest.keyClicks(inspector.rack_name, "xyz")
    assert doc.project.rack("a01").name == "A01xyz"
    assert doc.revision == 3
    doc.undo()
    assert doc.project is before
    assert inspector.rack_name.text() == "A01"  # refreshed from the model
    assert not doc.can_undo()  # the refresh pushed nothing back


def test_rack_fields_show_the_model(inspector, doc, catalog):
    inspector.show_selection("rack", ["a09"])
    assert inspector.rack_row.text() == "A"
    assert inspector.rack_type.currentData() == "rack-48u-600x1200"
    assert inspector.rack_limit.value() == 0.0
    assert inspector.rack_limit.text() == "default (computing…)"  # the limit is the power engine's to say
    inspector.set_analysis(analyze(doc.project, catalog))
    assert inspector.rack_limit.text().startswith("default: 40.0 kW")
    place = inspector.rack_place
    assert (place["x"].value(), place["rotation"].value()) == (6600.0, 180.0)
    assert "Data hall 1" in inspector.rack_position.text()
    assert inspector.rack_devices.count() == 6


def test_power_limit_edit_and_hall_default(inspector, doc):
    inspector.show_selection("rack", ["a01"])
    inspector.rack_limit.setFocus()
    inspector.rack_limit.selectAll()
    QTest.keyClicks(inspector.rack_limit, "25")
    assert doc.project.rack("a01").power_limit_kw == 25.0
    doc.undo()
    assert doc.project.rack("a01").power_limit_kw is None
    assert inspector.rack_limit.value() == 0.0 and not doc.can_undo()


def test_refused_rack_type_is_shown_and_the_combo_snaps_back(qtbot, inspector, doc):
    doc.push(AddDeviceCommand("a01", MountedDevice("top-switch", "qm9700", 45.0, "rear")))
    inspector.show_selection("rack", ["a01"])
    before = doc.project
    index = inspector.rack_type.findData("rack-42u-600x1200")
    with qtbot.waitSignal(inspector.refused) as blocker:
        inspector.rack_type.activated.emit(index)  # as a user choice would
    assert doc.project is before
    assert "above the rack" in blocker.args[0] and blocker.args[0] == inspector.status.text()
    assert inspector.rack_type.currentData() == "rack-48u-600x1200"


def test_unconfirmed_figures_are_marked(inspector, catalog):
    assert power_text(catalog.get("dgx-b200")) == "14.3 kW max · typical 12.0 kW (unconfirmed)"
    inspector.show_selection("rack", ["a01"])
    texts = [inspector.rack_devices.item(i).text() for i in range(inspector.rack_devices.count())]
    assert any("typical 12.0 kW (unconfirmed)" in t for t in texts)


def test_hall_capacity_edit(inspector, doc):
    inspector.show_selection("hall", ["hall-1"])
    box = inspector.hall_fields["cooling_capacity_kw"]
    assert box.value() == 700.0
    box.setFocus()
    box.selectAll()
    QTest.keyClicks(box, "900")
    assert doc.project.hall("hall-1").cooling_capacity_kw == 900.0
    doc.undo()
    assert doc.project.hall("hall-1").cooling_capacity_kw == 700.0 and box.value() == 700.0
    assert inspector.hall_fields["liquid_cooling_capacity_kw"].text() == "not set"


def test_project_name_and_refused_empty_name(qtbot, inspector, doc):
    inspector.show_selection("project")
    inspector.project_name.setFocus()
    inspector.project_name.selectAll()
    QTest.keyClick(inspector.project_name, Qt.Key.Key_Backspace)
    assert inspector.status.text() == "a project needs a name"
    assert doc.project.name.startswith("DGX B200")
    assert inspector.project_name.text() == ""  # what the user typed stays
    QTest.keyClicks(inspector.project_name, "Pod")
    assert doc.project.name == "Pod" and inspector.status.text() == ""
    doc.undo()
    assert doc.project.name.startswith("DGX B200")


def test_selection_of_a_deleted_rack_falls_back_to_empty(inspector, doc, catalog):
    inspector.show_selection("rack", ["nope"])
    assert inspector.pages.currentWidget() is inspector.empty_page
    inspector.set_document(Document(load(samples.GB200_NVL72_SU, catalog), catalog))
    inspector.show_selection("floor", ["cdu-1"])
    assert "serves" in inspector.floor_info.text()


def _type(box, text: str) -> None:
    """Replace a spin box's number by keystrokes, as a user does."""
    box.setFocus()
    box.selectAll()
    QTest.keyClicks(box, text)


def test_typed_positions_that_overlap_or_leave_the_hall_are_refused(qtbot, inspector, doc):
    inspector.show_selection("rack", ["a01"])
    before = doc.project
    x = inspector.rack_place["x"]
    with qtbot.waitSignal(inspector.refused):
        _type(x, "2400")  # A02's place: the last keystroke overlaps it
    assert inspector.status.text() == "rack A01 would overlap rack A02"
    assert doc.project is before and not doc.can_undo()
    with qtbot.waitSignal(inspector.refused) as blocker:
        _type(x, "-99999")
    assert blocker.args == ["rack A01 would leave hall Data hall 1"]
    assert inspector.status.text() == "rack A01 would leave hall Data hall 1"
    assert doc.project is before and not doc.can_undo()
    assert doc.project.rack("a01").x == 1800.0
    x.editingFinished.emit()  # Enter or leaving the field: it shows where the rack still stands
    assert x.value() == 1800.0
    assert inspector.status.text() == "rack A01 would leave hall Data hall 1"


def test_a_typed_free_position_is_one_undo_step(inspector, doc):
    inspector.show_selection("rack", ["m01"])
    _type(inspector.rack_place["x"], "7800")
    assert doc.project.rack("m01").x == 7800.0 and inspector.status.text() == ""
    doc.undo()
    assert doc.project.rack("m01").x == 7200.0 and not doc.can_undo()


def test_a_cdu_serves_its_racks_by_their_names(inspector, catalog):
    project = load(samples.GB200_NVL72_SU, catalog)
    project = project.with_racks([replace(project.rack("r01"), name="R1")])
    inspector.set_document(Document(project, catalog))
    inspector.show_selection("floor", ["cdu-1"])
    assert inspector.heading.text() == "Floor unit CDU-1"
    serves = inspector.floor_info.text().splitlines()[-1]
    assert serves == "serves: R1, NVL72-02, NVL72-03, NVL72-04, NVL72-05, NVL72-06, NVL72-07, NVL72-08"
    assert "r01" not in inspector.floor_info.text()


def test_a_cdu_serving_many_racks_counts_the_rest_and_names_them_all_in_its_tooltip(inspector, catalog):
    project = load(samples.GB200_NVL72_SU, catalog)
    base = project.rack("r01")
    extra = [replace(base, id=f"x{i:02d}", name=f"EXTRA-{i:02d}", x=base.x + 700.0 * i, y=base.y + 30000.0,
                     devices=()) for i in range(30)]
    project = project.adding_racks(extra)
    unit = project.floor_device("cdu-1")
    project = project.with_floor_devices([replace(unit, serves=unit.serves + tuple(r.id for r in extra))])
    inspector.set_document(Document(project, catalog))
    inspector.show_selection("floor", ["cdu-1"])
    serves = inspector.floor_info.text().splitlines()[-1]
    assert serves.startswith("serves: NVL72-01, NVL72-02") and serves.endswith(" +22 more")
    tip = inspector.floor_info.toolTip()
    assert "38 racks: " in tip and "EXTRA-29" in tip and "x29" not in tip


def test_a_preliminary_device_is_marked_in_the_rack_list_with_the_reason(qtbot, catalog):
    project = load(samples.GB200_NVL72_SU, catalog)
    rack = next(r for r in project.racks if any(d.type == "gb200-nvl72" for d in r.devices))
    racks = tuple(replace(r, devices=tuple(replace(d, type="vera-rubin-nvl72") if d.type == "gb200-nvl72" else d
                                           for d in r.devices)) if r.id == rack.id else r for r in project.racks)
    w = InspectorPanel(catalog)
    qtbot.addWidget(w)
    w.set_document(Document(replace(project, racks=racks), catalog))
    w.show_selection("rack", [rack.id])
    items = [w.rack_devices.item(i) for i in range(w.rack_devices.count())]
    (vr,) = [i for i in items if "Vera Rubin" in i.text()]
    assert "· Preliminary" in vr.text().splitlines()[0]
    assert vr.toolTip().startswith("Preliminary: " + catalog.get("vera-rubin-nvl72").preliminary)
    assert not any("Preliminary" in i.text() for i in items if i is not vr)
