"""The window's facility figures: a rack's feeds and cooling, a CDU loop, a hall's power chain, the facility form,
and the heat map's layers, on the bundled GB200 NVL72 sample.

Figures are compared with the analysis the window holds (and one test feeds an analysis whose
figures no engine would give), so a widget that worked a figure out itself would fail.
"""
from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtTest import QTest

from designer import samples
from designer.analysis import analyze
from designer.commands import AddDeviceCommand, Document, UpdateRackCommand
from designer.fileformat import load
from designer.formatting import kw, percent, quantity
from designer.model import MountedDevice
from widgets.app import style
from widgets.facility.facility_view import NBSP, OVER_TEXT
from widgets.dashboards.inspector import InspectorPanel

RACK = "su01-01"  # an NVL72 rack in row R01A, on CDU loop su01-cdu1 + su01-cdu2
CDU = "su01-cdu1"


@pytest.fixture
def window(synced_window):
    """The window on the GB200 sample, its engines run inside each request (every edit has its analysis)."""
    return synced_window(samples.GB200_NVL72_SU)


def _plain(text: str) -> str:
    return text.replace(NBSP, " ")


def _shown_values(section) -> list[str]:
    """The value labels a user sees in a figures section (not the section's own record of them)."""
    return [_plain(value.text()) for name, value in section._rows if value.isVisibleTo(section)]


def test_a_rack_shows_its_feeds_and_cooling_from_the_analysis(window):
    assert window.scene.select(f"rack:{RACK}")
    assert window.inspector.kind == "rack"
    fig = window.analysis.rack(RACK)  # the power, cooling and floor rows of the rack
    a = fig.feeds.A
    assert (a.normal_kw, a.failover_kw) == (66.0, 132.0)
    section = window.inspector.rack_facility
    assert section.isVisibleTo(window.inspector) and section.expanded
    text = section.text()
    assert f"Feed A: 66.0 kW of {kw(a.capacity_kw)} · 132.0 kW if B fails (rating {kw(a.rating_kw)})" in text
    assert "Feed A: 66.0 kW of 134.8 kW · 132.0 kW if B fails (rating 168.5 kW)" in text
    assert "Feed B: 66.0 kW of" in text and "132.0 kW if A fails" in text
    assert "Inlets: 4 power shelves per feed" in text
    assert f"Power chain: {percent(fig.chain_utilisation)} at its most loaded element" in text
    assert "Power chain: 78 % at its most loaded element" in text  # its row's busway A with feed B lost
    assert "Throttled" not in text  # an NVL72 keeps its full draw on 24 of 48 supplies
    row = next(r for r in window.analysis.power.rows if r.row == "R01A")
    a_row = row.feeds.A
    # four runs a side (the SU's eight NVL72 in one row): the figure is the busiest run's, held to one run's capacity
    assert (f"Row busway: R01A, 4 × 800 A: busiest run {percent(a_row.utilisation)} of {kw(row.capacity_kw / 4)} · "
            f"{percent(a_row.failover_utilisation)} if the other feed fails") in text
    assert (f"Liquid: {kw(fig.liquid_kw)} · {quantity(fig.coolant_flow_lpm, 'l/min')}" in text
            and " l/min" in text)
    assert f"Air: {kw(fig.air_kw)} · {quantity(fig.air_cfm, 'CFM')}" in text
    assert f"Air density: {percent(fig.air_density)} of the 30.0 kW a hot-aisle contained row takes" in text
    assert "CDU loop: SU01 CDU-1, SU01 CDU-2" in text  # names, never the ids su01-cdu1 ...
    assert f"Casters: {fig.caster_load_kg:,.0f} kg per caster" in text
    shown = _shown_values(section)
    assert any(v.startswith("66.0 kW of") and "132.0 kW if B fails" in v for v in shown)
    assert not window.inspector.rack_cdu.isVisibleTo(window.inspector)  # the rack's CDUs stand on the floor


def test_rack_figures_are_the_analysis_figures_and_pending_while_it_is_stale(qtbot, catalog):
    doc = Document(load(samples.GB200_NVL72_SU, catalog), catalog)
    panel = InspectorPanel(catalog)
    qtbot.addWidget(panel)
    panel.set_document(doc)
    panel.resize(440, 700)
    panel.show()
    panel.show_selection("rack", [RACK])
    assert panel.rack_facility.text() == "computing…"  # no analysis yet: no guess either
    real = analyze(doc.project, catalog)
    # Figures no engine would give: a panel working them out would show 66.0 and 132.0.
    power = dict(real["power"])
    power["racks"] = [dict(r, feeds={**r["feeds"], "A": {**r["feeds"]["A"], "normal_kw": 12.3, "failover_kw": 45.6},
                                     "throttled_kw": 7.5}) if r["id"] == RACK else r for r in power["racks"]]
    fake = replace(real, sections=MappingProxyType({**real.sections, "power": power}))
    panel.set_analysis(fake)
    text = panel.rack_facility.text()
    assert "Feed A: 12.3 kW of" in text and "45.6 kW if B fails" in text
    assert "Throttled: 7.5 kW shed when a feed fails" in text
    # An edit makes the analysis old: the figures say so until the next one arrives.
    doc.push(UpdateRackCommand(RACK, {"name": "Renamed"}))
    assert panel.rack_facility.text() == "computing…"
    panel.set_analysis(analyze(doc.project, catalog))
    assert "Feed A: 66.0 kW of" in panel.rack_facility.text()


def test_a_cdu_shows_its_loop_and_fault_domain(window):
    assert window.scene.select(f"floor:{CDU}")
    assert window.inspector.kind == "floor"
    loop = next(lp for lp in window.analysis.cooling.cdu_loops if f"floor:{CDU}" in lp.units)
    fault = loop.fault_domain
    assert (fault.racks, fault.gpus, fault.liquid_kw) == (8, 576, loop.load_kw)
    section = window.inspector.floor_cdu
    assert section.isVisibleTo(window.inspector)
    text = section.text()
    assert "Loop: SU01 CDU-1, SU01 CDU-2 · 8 racks" in text
    assert f"Load: {kw(loop.load_kw)} of 4,000.0 kW ({percent(loop.utilisation)})" in text
    assert "Load: 897.6 kW of 4,000.0 kW (22 %)" in text
    assert "Redundancy: N+1: 2,000.0 kW with the largest unit down" in text
    assert f"Flow: {quantity(loop.coolant_flow_lpm, 'l/min')} of 4,800.0 l/min" in text
    assert ("Coolant: 37.0 °C to the racks (W32 water up to 32.0 °C + 5.0 K approach) · racks accept up to 45.0 °C"
            in text)
    assert f"Fault domain: losing this loop stops 8 racks, 576 GPUs, {kw(loop.load_kw)}" in text
    assert any("576 GPUs" in v for v in _shown_values(section))
    # 8 NVL72 racks: a manifold pair each hosed in and out; 27 trays each, coupled in and out
    assert "Plumbing: 16 hoses to 8 rack manifolds · 432 tray couplings" in _plain(text)


def test_a_rack_with_its_own_cdu_shows_that_loop(window):
    window.document.push(AddDeviceCommand("spine-02", MountedDevice("own-cdu", "cdu-inrack", 30.0)))
    loop = next(lp for lp in window.analysis.cooling.cdu_loops if "rack:spine-02" in lp.units)
    assert window.scene.select("rack:spine-02")
    section = window.inspector.rack_cdu
    assert section.isVisibleTo(window.inspector)
    assert "CDU in rack SPINE-02" in section.text()
    assert f"Load: {kw(loop.load_kw)} of" in section.text()


def test_the_hall_shows_its_ups_generators_and_rows(window):
    window.scene.select_many([])
    assert window.inspector.kind == "hall"
    ups = window.analysis.power.ups[0]
    a, b = ups.systems
    text = window.inspector.hall_figures.power.text()
    # two modules a side: the hall's 1,400 kW of IT and the CDUs' 40 kW of pumps on the survivor
    assert "UPS: 2N · 2 modules of 1,200.0 kW" in text
    assert (f"UPS A: {kw(a.normal_kw)} of 2,400.0 kW ({percent(a.utilisation)}) · {kw(a.failover_kw)} "
            f"({percent(a.failover_utilisation)}) if UPS B fails") in text
    assert "UPS A: 593.4 kW of 2,400.0 kW (25 %) · 1,186.8 kW (49 %) if UPS B fails" in text
    assert f"UPS B: {kw(b.normal_kw)} of 2,400.0 kW" in text
    gen = window.analysis.power.generators[0]
    # three units, one spare: the sample's 1,490.8 kW within 90 % of the two left
    assert (f"Generators: 3 × 1,600.0 kW, 1 spare: {kw(gen.load_kw)} of 3,200.0 kW "
            f"({percent(gen.utilisation)}) · margin 90 %") in text
    table = window.inspector.hall_figures.rows
    rows = window.analysis.power.rows
    assert table.rowCount() == len(rows)
    r = next(i for i in range(table.rowCount()) if table.cell_text(i, 0) == "R01A")
    feeds = next(x for x in rows if x.row == "R01A").feeds
    assert [table.cell_text(r, c) for c in range(1, 5)] == [
        percent(feeds.A.utilisation), percent(feeds.A.failover_utilisation),
        percent(feeds.B.utilisation), percent(feeds.B.failover_utilisation)]
    air = window.inspector.hall_figures.air.text()
    assert "Inlet air: A1: 15.0–32.0 °C allowed" in air
    # the generated hall's three air handlers (200 kW each) for the NVL72s' air share and the network racks
    assert "Air handlers: CRAH-01, CRAH-02, CRAH-03: 249.2 kW of 600.0 kW (42 %)" in air
    assert "Redundancy: N+1: 400.0 kW with the largest unit down" in air


def test_editing_the_ups_scheme_is_one_undoable_command(window):
    window.scene.select_many([])
    form = window.inspector.facility_form
    hall = window.project.halls[0]
    before = hall.facility
    assert form.combos["ups_scheme"].currentData() == "2N"
    revision = window.document.revision
    combo = form.combos["ups_scheme"]
    combo.activated.emit(combo.findData("N+1"))  # as a user's choice would
    assert window.project.halls[0].facility == before.updated(ups_scheme="N+1")
    assert window.document.revision == revision + 1
    assert window.undo_action.text() == "Undo Edit UPS scheme"
    # The analysis of the edit is what the hall shows now: one system for both feeds.
    assert "UPS: N+1" in window.inspector.hall_figures.power.text()
    window.view.setFocus()
    QTest.keyClick(window.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.project.halls[0].facility == before
    assert combo.currentData() == "2N" and not window.document.can_undo()


def test_typed_busway_amps_merge_and_a_refused_value_shows_why(qtbot, window):
    window.scene.select_many([])
    form = window.inspector.facility_form
    amps = form.numbers["distribution_amps"]
    amps.setFocus()
    amps.selectAll()
    QTest.keyClicks(amps, "630")
    assert window.project.halls[0].facility.distribution_amps == 630.0
    assert window.undo_action.text() == "Undo Edit rating per feed"
    window.document.undo()
    assert window.project.halls[0].facility.distribution_amps == 800.0 and not window.document.can_undo()
    # Two modules with two spares carry nothing: refused, with the reason under the fields.
    before = window.project
    with qtbot.waitSignal(window.inspector.refused) as blocker:
        form.numbers["ups_redundant_modules"].setValue(2)
    assert window.project is before
    assert blocker.args[0].startswith("Spare modules: 2 spare of 2 modules leaves none")
    assert window.inspector.status.text() == blocker.args[0]
    form.numbers["ups_redundant_modules"].editingFinished.emit()  # leaving the field shows the model again
    assert form.numbers["ups_redundant_modules"].value() == 0


def test_heat_map_layers_colour_racks_by_the_chosen_figure(window):
    scene = window.scene
    assert not window.heat_map_action.isChecked()
    actions = window.heat_layer_actions
    assert actions["rack_power"].isChecked() and window.heat_layer_menu.title() == "Heat map &layer"
    actions["air_density"].trigger()
    assert window.heat_map_action.isChecked() and scene.heat_map  # choosing a layer shows the map
    assert [k for k, a in actions.items() if a.isChecked()] == ["air_density"]
    density = {r.id: r.air_density for r in window.analysis.cooling.racks}
    for rid, item in scene.rack_items.items():
        assert item.fill_color == style.heat_color(density[rid])
    assert scene.rack_items[RACK].fill_color == style.heat_color(0.66)
    loop = next(lp for lp in window.analysis.cooling.cdu_loops if f"floor:{CDU}" in lp.units)
    assert scene.floor_items[CDU].fill_color == style.heat_color(loop.utilisation)  # CDUs keep loop load
    labels = [text for _, text in scene.legend()]
    assert labels[:2] == ["Racks: air density", "CDUs: loop load"]
    assert "60–85 % of limit" in labels and "Over the limit" not in labels  # only the bands shown
    actions["power_chain"].trigger()
    chain = {r.id: r.chain_utilisation for r in window.analysis.power.racks}
    assert scene.rack_items[RACK].fill_color == style.heat_color(chain[RACK])
    assert scene.legend()[0][1] == "Racks: power chain"
    # The layer stays chosen while the map is off and back on.
    window.heat_map_action.trigger()
    assert scene.rack_items[RACK].fill_color == style.ROLES["rack_scale"][0]
    window.heat_map_action.trigger()
    assert scene.rack_items[RACK].fill_color == style.heat_color(chain[RACK])


def test_open_rows_put_a_rack_over_its_air_limit_and_name_the_remedy(window):
    window.scene.select_many([])
    combo = window.inspector.facility_form.combos["containment"]
    combo.activated.emit(combo.findData("none"))
    assert window.project.halls[0].facility.containment == "none"
    assert window.scene.select(f"rack:{RACK}")
    cooling = window.analysis.rack(RACK)
    assert cooling.air_density > 1 and cooling.air_remedy
    text = window.inspector.rack_facility.text()
    assert (f"Air density: {percent(cooling.air_density)} of the {kw(cooling.air_limit_kw)} a row without "
            "containment takes") in text
    assert "Air density: 132 % of the 15.0 kW a row without containment takes" in text
    assert f"Remedy: add {cooling.air_remedy}" in text
    over = [line for line in window.inspector.rack_facility.lines if line.over]
    assert [line.label for line in over] == ["Air density", "Remedy"]
    shown = {name.text(): value for name, value in window.inspector.rack_facility._rows if value.isVisibleTo(window)}
    assert shown["Remedy"].palette().color(QPalette.ColorRole.WindowText).name().upper() == OVER_TEXT.upper()
    assert shown["Air"].palette().color(QPalette.ColorRole.WindowText).name().upper() != OVER_TEXT.upper()


def test_a_wheel_over_the_facility_form_scrolls_it_and_edits_nothing(window, qtbot):
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    window.scene.select_many([])
    form = window.inspector.facility_form
    combo = form.combos["ups_scheme"]
    before = window.project.halls[0].facility
    centre = QPointF(combo.rect().center())
    event = QWheelEvent(centre, QPointF(combo.mapToGlobal(combo.rect().center())), QPoint(0, 0), QPoint(0, -120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    assert not combo.hasFocus()
    QApplication.sendEvent(combo, event)
    assert window.project.halls[0].facility == before
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    QApplication.sendEvent(combo, event)  # with focus the wheel turns it, as in any form
    assert window.project.halls[0].facility != before


def test_a_hall_with_air_handlers_words_their_capacity_and_airflow(catalog):
    """Eight two-DGX racks (228.8 kW of air heat) under two 200 kW CRAHs: the hall's air handlers as the cooling
    engine gives them (``cooling.halls[].air_handlers``), not N+1, with their airflow against the racks'."""
    from designer.model import FloorDevice
    from tests.designer.test_air_liquid_floor import design, dgx_rack, hall
    from widgets.facility.facility_view import hall_air_lines

    racks = [dgx_rack(f"r{i}", 2, x=1000 + 600 * i) for i in range(8)]
    crahs = [FloorDevice(f"c{i}", "crah-cw-200kw", "h", 3000 + 3000 * i, 8000, name=f"CRAH-{i + 1}")
             for i in range(2)]
    analysis = analyze(design(racks, hall(containment="hot"), crahs), catalog)
    handlers = analysis.cooling.halls[0].air_handlers
    assert (handlers.capacity_kw, handlers.redundancy, handlers.airflow_cfm) == (400, "N", 63400)
    lines = {line.label: line for line in hall_air_lines(analysis, "h")}
    air_kw, share = kw(analysis.cooling.halls[0].air_kw), percent(handlers.utilisation)
    assert _plain(lines["Air handlers"].text) == f"CRAH-1, CRAH-2: {air_kw} of 400.0 kW ({share})"
    assert _plain(lines["Redundancy"].text) == "N: 200.0 kW with the largest unit down, less than the air heat"
    assert lines["Redundancy"].over
    assert _plain(lines["Airflow"].text) == "63,400 CFM for the 34,320 CFM the racks draw"


def _air_lines(analysis, hall_id: str = "h") -> dict:
    """The hall's "Air and water" lines by label."""
    from widgets.facility.facility_view import hall_air_lines

    return {line.label: line for line in hall_air_lines(analysis, hall_id)}


def _shown_air(qtbot, analysis, hall_id: str = "h") -> str:
    """The "Air and water" text the hall's facility view shows, as plain text."""
    from widgets.facility.facility_sections import HallFacilityView

    view = HallFacilityView()
    qtbot.addWidget(view)
    view.show_hall(analysis, hall_id)
    return _plain(view.air.text())


def test_a_hall_words_its_supply_and_return_air_and_the_rows_short_of_air(catalog, qtbot):
    """The rows of tests/designer/test_row_air.py: open, the dense row A gets 7,925 of the 17,160 CFM it draws and
    takes back its exhaust (inlet 37.65 °C, over class A1's 32); contained, both rows get what they draw."""
    from designer.facility import RowFacility
    from tests.designer.test_air_liquid_floor import design, hall
    from tests.designer.test_row_air import two_rows

    racks, crah = two_rows()
    open_rows = hall(containment="hot", rows=(("A", RowFacility(containment="none")),
                                               ("B", RowFacility(containment="none"))))
    analysis = analyze(design(racks, open_rows, crah), catalog)
    lines = _air_lines(analysis)
    assert _plain(lines["Supply / return"].text) == "24.0 °C to the racks · 35.1 °C back to the units"
    assert _plain(lines["Rows short of air"].text) == "inlet A 37.7 °C" and lines["Rows short of air"].over
    shown = _shown_air(qtbot, analysis)
    assert "Rows short of air" in shown and "inlet A 37.7 °C" in shown
    lines = _air_lines(analyze(design(racks, hall(containment="hot"), crah), catalog))
    assert "Rows short of air" not in lines and _plain(lines["Rows"].text) == "2 rows get the air they draw"
    assert not lines["Rows"].over and "One unit off" not in lines  # one unit: no unit-off case to word


def test_a_hall_words_its_rows_with_the_largest_air_handler_off(catalog, qtbot):
    """The open rows of tests/designer/test_row_air.py's unit-off case: row A's inlet reaches 43.99 °C with one
    of two units off; contained, the plenum's 31,700 CFM shared by draw leaves both rows short but within A1."""
    from designer.facility import RowFacility
    from tests.designer.test_air_liquid_floor import design, hall
    from tests.designer.test_row_air import unit_off_rows

    racks, crahs = unit_off_rows()
    open_ = RowFacility(containment="none")
    analysis = analyze(design(racks, hall(containment="hot", rows=(("A", open_), ("B", open_))), crahs), catalog)
    lines = _air_lines(analysis)
    assert _plain(lines["One unit off"].text) == "inlet A 44.0 °C" and lines["One unit off"].over
    shown = _shown_air(qtbot, analysis)
    assert "One unit off" in shown and "inlet A 44.0 °C" in shown
    lines = _air_lines(analyze(design(racks, hall(containment="hot"), crahs), catalog))
    assert _plain(lines["One unit off"].text) == "inlet A 29.7 °C, B 29.7 °C" and not lines["One unit off"].over
    # the generated B200 sample's three units (N+1 by airflow too): every row still gets its air with one off
    lines = _air_lines(analyze(load(samples.DGX_B200_SU, catalog), catalog), "hall-1")
    assert _plain(lines["One unit off"].text) == "every row still gets the air it draws"


def test_the_hall_says_no_facility_water_and_which_cooling_rides_on_the_ups(window):
    window.scene.select_many([])
    form = window.inspector.facility_form
    water = form.combos["water_class"]
    assert water.currentData() == "W32" and water.findData("none") >= 0
    water.activated.emit(water.findData("none"))  # as a user's choice would
    assert window.project.halls[0].facility.water_class == "none"
    errors = [f for f in window.analysis.findings if f.code == "no-facility-water"]
    assert [f.severity for f in errors] == ["error"] and len(errors[0].places) == 8  # the SU's eight NVL72
    pumps = form.combos["cdu_on_ups"]
    assert pumps.currentData() == "on" and form.combos["crah_on_ups"].currentData() == "off"
    pumps.activated.emit(pumps.findData("off"))
    assert window.project.halls[0].facility.cdu_on_ups is False
    assert window.analysis.power.ups[0].systems[0].cooling_kw == 0.0
    assert window.undo_action.text() == "Undo Edit CDU pumps"
    window.document.undo()
    assert window.project.halls[0].facility.cdu_on_ups is True and pumps.currentData() == "on"
    assert window.analysis.power.ups[0].systems[0].cooling_kw == 20.0  # two 20 kW CDUs, half a side


def test_the_rack_power_heat_map_shows_no_nvl72_at_the_limit(window):
    from widgets.plan.floor_heatmap import DEFAULT_LAYER, rack_shares

    assert DEFAULT_LAYER == "rack_power"
    bands = {rid: style.heat_band(share) for rid, share in rack_shares(window.analysis).items()}
    said = {p for f in window.analysis.findings if f.code == "rack-over-limit" for p in f.places}
    assert [rid for rid, band in bands.items() if band in ("at_limit", "over") and f"rack:{rid}" not in said] == []
    assert bands[RACK] == "near"  # 132 kW on one feed of 134.8 kW
    window.heat_map_action.trigger()
    assert window.scene.rack_items[RACK].fill_color == style.heat_color(132 / 134.795)
    assert "At the limit" not in [text for _, text in window.scene.legend()]


def test_the_rack_scale_limit_left_unstated_reads_as_each_systems_feed_capacity(window):
    window.inspector.show_selection("hall", ["hall-1"])
    window.inspector.project_button.click()
    box = window.inspector.project_form.settings["rack_system_limit_kw"]
    assert window.project.settings.rack_system_limit_kw is None
    assert box.value() == 0 and box.text() == "each system's one-feed capacity"
    box.setValue(132.0)  # stated: every NVL72 held to its own maximum again, and shown at the limit
    assert window.project.settings.rack_system_limit_kw == 132.0
    assert window.analysis.rack(RACK).limit_source == "rack_system" and window.analysis.rack(RACK).utilisation == 1.0
    box.setValue(0.0)
    assert window.project.settings.rack_system_limit_kw is None
    assert window.analysis.rack(RACK).limit_source == "feed"


def test_a_hall_without_air_handlers_says_so_and_a_hundred_are_counted_not_listed(catalog):
    from designer.model import FloorDevice
    from tests.designer.test_air_liquid_floor import design, dgx_rack, hall
    from widgets.facility.facility_view import hall_air_lines

    racks = [dgx_rack(f"r{i}", 2, x=1000 + 600 * i) for i in range(8)]
    lines = {line.label: line for line in hall_air_lines(analyze(design(racks, hall(containment="hot")), catalog),
                                                         "h")}
    assert _plain(lines["Air handlers"].text) == "none on the floor: the hall's air cooling capacity is used"
    crahs = [FloorDevice(f"c{i}", "crah-cw-200kw", "h", 1500 + 2700 * (i % 10), 9000 + 1200 * (i // 10),
                         name=f"CRAH-{i + 1:03d}") for i in range(100)]
    analysis = analyze(design(racks, hall(containment="hot"), crahs), catalog)
    lines = {line.label: line for line in hall_air_lines(analysis, "h")}
    assert _plain(lines["Air handlers"].text).startswith("100 units, CRAH-001 … CRAH-100: ")
