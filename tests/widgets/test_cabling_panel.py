"""The cabling panel beside a floor plan: one rack's links in the table, their routes on the plan, the histogram."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import shiboken6
from drawn import DGX_B200_SU as DRAWN_DGX
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QPolygonF
from PySide6.QtWidgets import QToolTip

from designer import samples
from designer.analysis import analyze
from designer.commands import AddObjectsCommand, Document, RemoveRacksCommand, UpdateHallCommand, UpdateRackCommand
from designer.fabric.geometry import natural_key
from designer.fileformat import load
from designer.model import Rack
from widgets.plan.cable_routes import MEDIUM_COLORS, CableRoutesItem
from widgets.cabling.cabling_panel import CablingPanel, LinkTableModel
from widgets.plan.floor_plan import FloorPlanScene


@pytest.fixture
def make_panel(qtbot, catalog):
    made = []

    def make(path=samples.DGX_B200_SU, analysed=True):
        project = load(path, catalog)
        document = Document(project, catalog)
        scene = FloorPlanScene(catalog)
        scene.set_document(document)
        panel = CablingPanel(catalog, scene)
        qtbot.addWidget(panel)
        panel.resize(560, 820)
        panel.show()
        panel.set_document(document)
        if analysed:
            panel.set_analysis(analyze(project, catalog))
        made.append((panel, scene))
        return panel, scene, document

    yield make
    for panel, scene in made:
        panel.dispose()
        scene.clear()


def scene_points(item: CableRoutesItem) -> list[list[tuple[float, float]]]:
    return [[(p.x(), p.y()) for p in poly] for _, poly in item.routes()]


def test_one_rack_fills_the_table_and_draws_its_routes(make_panel):
    panel, scene, _ = make_panel()
    panel.show_selection("rack", ["su01-01"])
    assert panel.title.text() == "Rack SU01-01: 16 links"
    assert panel.showing_links and panel.model.rowCount() == 16
    assert panel.model.text(0, LinkTableModel.FROM) == "dgx-0001 · P1/1"
    assert panel.model.text(0, LinkTableModel.TO) == "SU01-NET-A · leaf-0001-r0 · P1/1"
    assert panel.model.text(0, LinkTableModel.MEDIUM) == "MMF"
    assert panel.model.text(0, LinkTableModel.LENGTH) == "15.0"
    item = panel.routes_item
    assert item.scene() is scene and item.zValue() > scene.rack_items["su01-01"].zValue()
    assert item.route_count == 2 and [m for m, _ in item.routes()] == ["mmf", "mmf"]
    here = scene.rack_items["su01-01"].pos()
    ends = {(pts[-1][0], pts[-1][1]) for pts in scene_points(item)}
    assert ends == {(scene.rack_items[r].pos().x(), scene.rack_items[r].pos().y()) for r in ("su01-neta", "su01-netb")}
    assert all(pts[0] == (here.x(), here.y()) for pts in scene_points(item))
    assert not item.boundingRect().isEmpty()


def test_no_selection_shows_the_design_and_clears_the_routes(make_panel):
    panel, _, _ = make_panel()
    panel.show_selection("rack", ["su01-01"])
    assert panel.routes_item.route_count == 2
    panel.show_selection("", [])
    assert panel.routes_item.route_count == 0 and panel.model.rowCount() == 0
    assert not panel.showing_links and panel.title.text() == "Cabling: 508 fabric links"
    assert "508 cables" in panel.subtitle.text() and "Multimode fibre: 508 cables" in panel.summary.text()
    panel.show_selection("rack", ["su01-01", "su01-02"])
    assert panel.routes_item.route_count == 0
    assert "2 racks are selected" in panel.summary.text()
    panel.show_selection("hall", ["hall-1"])
    assert panel.routes_item.route_count == 0 and not panel.showing_links


def test_a_picked_row_highlights_its_route(make_panel):
    panel, _, _ = make_panel()
    panel.show_selection("rack", ["su01-neta"])
    assert panel.model.rowCount() == 256 and panel.routes_item.route_count == 18
    far = [r.far_rack for r in panel.routes.routes]
    for row in (0, 40):
        panel.table.selectRow(row)
        target = panel.rows.far_rack_id[panel.model.row_of(row)]
        assert panel.routes_item.highlighted == far.index(target)
    panel.table.clearSelection()
    panel.table.setCurrentIndex(panel.model.index(-1, -1))
    assert panel.routes_item.highlighted is None


def test_the_routes_checkbox_hides_and_shows_them(make_panel):
    panel, _, _ = make_panel()
    panel.show_selection("rack", ["su01-01"])
    panel.show_routes.setChecked(False)
    assert panel.routes_item.route_count == 0 and panel.model.rowCount() == 16
    panel.show_routes.setChecked(True)
    assert panel.routes_item.route_count == 2


def test_removing_the_rack_clears_the_panel(make_panel):
    panel, _, document = make_panel()
    panel.show_selection("rack", ["su01-01"])
    document.push(RemoveRacksCommand(("su01-01",)))
    assert panel.routes_item.route_count == 0 and not panel.showing_links
    assert panel.model.rowCount() == 0 and panel.selected_rack is None
    document.undo()  # the rack is back, but nothing selects it again
    assert document.project.has_rack("su01-01") and panel.routes_item.route_count == 0


def test_a_rename_shows_at_once_and_the_analysis_is_marked_stale(make_panel, qtbot):
    panel, _, document = make_panel()
    panel.show_selection("rack", ["su01-01"])
    document.push(UpdateRackCommand("su01-neta", {"name": "Leaves A"}))
    qtbot.waitUntil(lambda: panel.model.text(0, LinkTableModel.TO).startswith("Leaves A · "))
    assert "updating…" in panel.subtitle.text()


def test_the_routes_come_back_after_the_scene_rebuilds(make_panel, qtbot):
    panel, scene, document = make_panel()
    panel.show_selection("rack", ["su01-01"])
    old = panel.routes_item
    document.push(UpdateHallCommand("hall-1", {"name": "Hall A"}))  # a hall edit rebuilds every item
    assert not shiboken6.isValid(old)
    qtbot.waitUntil(lambda: shiboken6.isValid(panel.routes_item) and panel.routes_item.route_count == 2)
    assert panel.routes_item.scene() is scene and panel.routes_item is not old


def test_without_an_analysis_or_a_fabric_it_says_so(make_panel, catalog):
    panel, _, document = make_panel(analysed=False)
    panel.show_selection("rack", ["su01-01"])
    assert panel.pages.currentWidget() is panel.message
    assert panel.message.text() == "Cabling appears once the design has been analysed."
    assert panel.routes_item.route_count == 0 and not panel.showing_links
    bare = replace(document.project, racks=tuple(r for r in document.project.racks if not r.id.startswith("su01-net")))
    panel.set_analysis(analyze(bare, catalog))
    assert panel.message.text().startswith("No wiring plan yet")
    assert panel.pages.currentWidget() is panel.message
    panel.set_analysis(analyze(document.project, catalog))
    assert panel.pages.currentWidget() is panel.content and panel.model.rowCount() == 16


def test_the_histogram_stacks_cables_per_length_by_medium(make_panel):
    panel, _, _ = make_panel(DRAWN_DGX)
    assert panel.histogram.lengths == [1.0, 1.5, 5.0, 7.0, 10.0, 15.0]
    assert list(panel.histogram.bars["dac"].opts["height"]) == [40, 24, 0, 0, 0, 0]
    assert list(panel.histogram.bars["mmf"].opts["height"]) == [0, 0, 4, 178, 144, 54]
    assert list(panel.histogram.bars["mmf"].opts["y0"]) == [40, 24, 0, 0, 0, 0]
    assert panel.histogram.bars["dac"].opts["brush"] == MEDIUM_COLORS["dac"]
    assert panel.histogram_tooltip(0) == "1.0 m: 40 cables · Passive copper (DAC)"
    assert panel.histogram_tooltip(3) == "7.0 m: 178 cables · Multimode fibre"
    assert panel.histogram_tooltip(9) == ""
    assert "Passive copper (DAC)" in panel.histogram.key.text() and "Multimode fibre" in panel.histogram.key.text()
    assert panel.histogram.plot.minimumHeight() >= 160


def test_a_device_of_the_rack_narrows_the_table(make_panel):
    panel, _, _ = make_panel(DRAWN_DGX)
    panel.show_selection("rack", ["b09"])
    combo = panel.device_filter
    assert not combo.isHidden() and combo.count() == 9 and combo.itemText(0) == "All devices (380 links)"
    assert panel.model.rowCount() == 380 and panel.rows.in_rack == 128
    combo.setCurrentIndex(combo.findData("b09-spine1"))
    combo.activated.emit(combo.currentIndex())
    assert panel.model.rowCount() == 64 and panel.title.text() == "spine-1 in rack B09 network: 64 links"
    assert {panel.model.text(r, LinkTableModel.MEDIUM) for r in range(64)} == {"DAC", "MMF"}
    panel.show_selection("device", ["b09-leaf1"])
    assert combo.currentData() == "b09-leaf1" and panel.model.rowCount() == 63


def test_sorting_by_length_and_by_far_end(make_panel):
    panel, _, _ = make_panel()
    panel.show_selection("rack", ["su01-neta"])
    panel.table.sortByColumn(LinkTableModel.LENGTH, Qt.SortOrder.AscendingOrder)
    lengths = [float(panel.model.text(r, LinkTableModel.LENGTH)) for r in range(panel.model.rowCount())]
    assert lengths == sorted(lengths) and lengths[0] == 7.0
    panel.table.sortByColumn(LinkTableModel.TO, Qt.SortOrder.AscendingOrder)
    first = [panel.model.text(r, LinkTableModel.TO).split(" · ")[0] for r in range(panel.model.rowCount())]
    assert first[0] == "SPINE-01" and first.index("SU01-02") > first.index("SU01-01")
    # a new selection keeps the column the user sorted by
    panel.show_selection("rack", ["su01-netb"])
    first = [panel.model.text(r, LinkTableModel.TO).split(" · ")[0] for r in range(panel.model.rowCount())]
    assert first == sorted(first, key=natural_key) and first[0] == "SPINE-01" and first[-1] == "SU01-NET-A"


def test_a_double_clicked_row_names_its_far_rack(make_panel, qtbot):
    panel, _, _ = make_panel()
    panel.show_selection("rack", ["su01-01"])
    with qtbot.waitSignal(panel.rack_activated) as got:
        panel.table.doubleClicked.emit(panel.model.index(0, 0))
    assert got.args == ["su01-neta"]


def test_the_overlay_builds_its_paths_once_and_clears_with_nothing():
    item = CableRoutesItem()
    item.set_routes([("smf", QPolygonF([QPointF(0, 0), QPointF(5000, 0), QPointF(5000, 3000)])),
                     ("none", QPolygonF([QPointF(0, 0), QPointF(0, 9000)]))])
    assert item.route_count == 2 and item.boundingRect().contains(QPointF(5000, 3000))
    item.set_highlight(1)
    assert item.highlighted == 1
    item.set_highlight(7)
    assert item.highlighted is None
    item.set_routes([])
    assert item.route_count == 0 and item.boundingRect().isEmpty()
    assert set(MEDIUM_COLORS) >= {"dac", "acc", "splitter", "mmf", "smf", "none"}
    assert np.unique([c.name() for c in MEDIUM_COLORS.values()]).size == len(MEDIUM_COLORS)
    # Routes are drawn over fills: no medium takes the colour of a rack role, a CDU or a floor unit.
    from widgets.app import style
    fills = {c.name() for c, _ in style.ROLES.values()} | {style.CDU[0].name(), style.FLOOR_OTHER[0].name()}
    assert not {c.name() for c in MEDIUM_COLORS.values()} & fills


def test_hovering_a_bar_shows_its_counts(make_panel, qtbot):
    panel, _, _ = make_panel()
    vb = panel.histogram.plot.getPlotItem().vb
    qtbot.waitUntil(lambda: vb.sceneBoundingRect().width() > 0)
    panel.histogram.plot.scene().sigMouseMoved.emit(vb.mapViewToScene(QPointF(2, 100)))
    qtbot.waitUntil(lambda: QToolTip.isVisible())
    assert QToolTip.text() == "15.0 m: 352 cables · Multimode fibre"
    panel.histogram.plot.scene().sigMouseMoved.emit(vb.mapViewToScene(QPointF(1.5, 100)))  # between two bars
    qtbot.waitUntil(lambda: not QToolTip.isVisible())


def test_a_rack_without_fabric_links_says_so_instead_of_an_empty_table(make_panel):
    panel, _, _ = make_panel()
    panel.show_selection("rack", ["mgmt-01"])
    assert panel.title.text() == "Rack MGMT-01: no fabric links"
    assert not panel.showing_links and "compute fabric" in panel.summary.text()
    assert panel.routes_item.route_count == 0


def test_a_rack_newer_than_the_analysis_waits_for_the_next(make_panel, catalog):
    panel, _, document = make_panel()
    document.push(AddObjectsCommand(racks=(Rack("new-1", "NEW-1", "hall-1", "rack-48u-600x1200", 7000.0, 1200.0),)))
    panel.show_selection("rack", ["new-1"])
    assert panel.title.text() == "Rack NEW-1" and panel.subtitle.text() == "updating…"
    assert "newer than the last analysis" in panel.summary.text() and not panel.showing_links
    panel.set_analysis(analyze(document.project, catalog))
    assert panel.title.text() == "Rack NEW-1: no fabric links" and panel.subtitle.text() == ""
