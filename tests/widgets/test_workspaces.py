"""Workspaces (View ▸ Workspace) and the full-height, zoomable rack elevation."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QWheelEvent
from PySide6.QtWidgets import QApplication

from designer import samples
from widgets.app.workspaces import WORKSPACES


@pytest.fixture
def make_window(qtbot, catalog, tmp_path):
    """``make_window()``: a window at 1400 x 900 on the GB200 sample with its own settings file (a workspace
    chosen in one test must not follow the next)."""
    from widgets.app.main_window import MainWindow

    def make(settings_name="podplanner.ini"):
        settings = QSettings(str(tmp_path / settings_name), QSettings.Format.IniFormat)
        w = MainWindow(catalog, debounce_ms=0, settings=settings)
        w.runner.sync = True
        qtbot.addWidget(w)
        w.resize(1400, 900)
        w.show()
        qtbot.waitExposed(w)
        assert w.open_path(samples.GB200_NVL72_SU), w.last_error
        return w

    return make


def _settle():
    for _ in range(3):
        QApplication.processEvents()


def _select_first_rack(w):
    rack = next(r for r in w.project.racks if w.catalog.get(r.type).rack_units == 48 and r.devices)
    w.scene.select(f"rack:{rack.id}")
    _settle()
    return rack


def test_the_layout_workspace_shows_a_whole_48u_rack_at_1400x900(make_window):
    w = make_window()
    assert w.workspaces.current == "layout"
    assert w.elevation_dock.isVisible() and not w.dashboards_dock.isVisible()
    rack = _select_first_rack(w)
    panel = w.elevation
    assert panel.rack_id == rack.id and panel.units == 48
    assert panel.scroll.verticalScrollBar().maximum() == 0  # nothing to scroll: every U is in view
    assert panel.u_px() >= panel.MIN_U_PX
    for face in (panel.front, panel.rear):
        assert face.u_rect(48, 1).top() >= 0 and face.u_rect(1, 1).bottom() <= face.height()
    # the elevation runs the window's full height beside the plan, not a strip under the inspector
    assert w.elevation_dock.height() > 0.8 * w.centralWidget().height()


def test_the_elevation_zooms_in_and_back_to_the_whole_rack(make_window):
    w = make_window()
    _select_first_rack(w)
    panel = w.elevation
    fit = panel.u_px()
    assert not panel.fit_button.isEnabled()
    panel.zoom_in_button.click()
    panel.zoom_in_button.click()
    _settle()
    assert panel.u_px() == pytest.approx(min(panel.MAX_U_PX, fit * 1.25 * 1.25), abs=1.0)
    assert panel.scroll.verticalScrollBar().maximum() > 0 and panel.fit_button.isEnabled()
    # Ctrl+wheel down zooms out; Fit shows the whole rack again
    vp = panel.scroll.viewport()
    event = QWheelEvent(QPointF(20, 20), QPointF(vp.mapToGlobal(QPoint(20, 20))), QPoint(0, 0), QPoint(0, -120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.ControlModifier, Qt.ScrollPhase.NoScrollPhase,
                        False)
    QApplication.sendEvent(vp, event)
    _settle()
    assert panel.u_px() < fit * 1.25 * 1.25 - 1
    panel.fit_button.click()
    _settle()
    assert panel.zoom_px is None and panel.scroll.verticalScrollBar().maximum() == 0
    assert panel.u_px() == pytest.approx(fit, abs=0.5)


def test_each_workspace_arranges_the_docks_for_its_work(make_window):
    w = make_window()
    w.workspaces.actions["power"].trigger()
    _settle()
    assert w.workspaces.current == "power"
    assert w.dashboards_dock.isVisible() and w.findings_dock.isVisible() and w.inspector_dock.isVisible()
    assert not w.elevation_dock.isVisible() and not w.palette_dock.isVisible()
    assert w.heat_map_action.isChecked()  # power and cooling are read on the heat map
    import pyqtgraph as pg
    plots = [p for p in w.dashboards.findChildren(pg.PlotWidget) if p.isVisible()]
    assert len(plots) == 4 and all(p.height() >= 160 for p in plots)  # every chart readable, none scrolled away
    top = w.dashboards.mapFromGlobal(plots[-1].mapToGlobal(plots[-1].rect().bottomLeft())).y()
    assert top <= w.dashboards.height()
    w.workspaces.actions["quote"].trigger()
    _settle()
    assert w.central_tabs.currentWidget() is w.bom and not w.heat_map_action.isChecked()
    w.workspaces.actions["network"].trigger()
    _settle()
    assert w.central_tabs.currentWidget() is w.view
    assert w.inspector_dock.isVisible() and not w.dashboards_dock.isVisible()
    w.workspaces.actions["layout"].trigger()
    _settle()
    assert w.elevation_dock.isVisible() and w.palette_dock.isVisible() and not w.heat_map_action.isChecked()
    assert set(w.workspaces.actions) == set(WORKSPACES) == {"layout", "power", "facility", "network", "quote"}


def test_a_workspace_keeps_what_the_user_made_of_it(make_window, qtbot):
    w = make_window()
    w.resizeDocks([w.elevation_dock], [520], Qt.Orientation.Horizontal)
    w.findings_dock.hide()
    _settle()
    width = w.elevation_dock.width()
    assert width >= 500
    w.workspaces.switch("power")
    _settle()
    assert w.findings_dock.isVisible()  # the power workspace has its own arrangement
    w.workspaces.switch("layout")
    _settle()
    assert abs(w.elevation_dock.width() - width) <= 2 and not w.findings_dock.isVisible()
    # Reset puts the default back
    w.workspaces.reset()
    _settle()
    assert w.findings_dock.isVisible() and w.elevation_dock.width() < width - 40


def test_the_workspace_and_its_dock_sizes_survive_a_restart(make_window):
    w = make_window("restart.ini")
    w.workspaces.switch("power")
    _settle()
    before = w.dashboards_dock.width()
    w.resizeDocks([w.dashboards_dock], [before + 140], Qt.Orientation.Horizontal)
    w.heat_map_action.trigger()  # off, against the workspace's default
    _settle()
    width = w.dashboards_dock.width()
    assert width >= before + 100 and not w.heat_map_action.isChecked()
    w.close()
    again = make_window("restart.ini")
    _settle()
    assert again.workspaces.current == "power" and again.workspaces.actions["power"].isChecked()
    assert again.dashboards_dock.isVisible() and abs(again.dashboards_dock.width() - width) <= 2
    assert not again.heat_map_action.isChecked()


def test_the_network_workspace_shows_a_racks_cables_on_the_plan(make_window):
    w = make_window()
    rack = _select_first_rack(w)
    assert not w.cabling_dock.isVisible() and w.cabling.routes_item.route_count == 0  # hidden: no work, no routes
    w.workspaces.switch("network")
    _settle()
    assert w.cabling_dock.isVisible() and w.cabling_dock.width() >= 480
    assert w.cabling.selected_rack == rack.id
    assert w.cabling.model.rowCount() == 72  # an NVL72 rack's fabric links, as the wiring plan lists them
    assert w.cabling.routes_item.route_count > 0
    other = next(r for r in w.project.racks if r.id != rack.id and r.name and r.name.startswith("SU01-0"))
    w.scene.select(f"rack:{other.id}")
    _settle()
    assert w.cabling.selected_rack == other.id
    w.workspaces.switch("layout")
    _settle()
    assert not w.cabling_dock.isVisible() and w.cabling.routes_item.route_count == 0


def test_the_plan_legend_names_the_cable_media_it_draws(make_window):
    w = make_window()
    _select_first_rack(w)
    w.workspaces.switch("network")
    _settle()
    drawn = {entry[0].name() for entry in w.cabling.routes_item.legend()}
    legend = w.scene.legend()
    assert drawn and drawn <= {entry[0].name() for entry in legend}
    assert (QColor("#000000"), "Multimode fibre route", "line") in legend  # drawn as a line, as on the plan
    # a route never shares a colour with a fill the legend lists
    fills = {entry[0].name() for entry in legend if len(entry) == 2 and entry[0].alpha() > 0}
    assert not drawn & fills
    w.workspaces.switch("layout")
    _settle()
    assert not any(entry[1].endswith(" route") for entry in w.scene.legend())


def test_every_rack_is_named_on_the_plan_with_the_whole_hall_in_view(make_window):
    from widgets.plan.floor_items import MIN_LABEL_PX

    w = make_window()
    w.view.fit_hall()
    _settle()
    lod = w.view.scale_factor()
    assert w.view.mapToScene(w.view.viewport().rect()).boundingRect().contains(w.scene.halls_rect())
    for rack in w.project.racks:
        item = w.scene.rack_items[rack.id]
        assert item.name == (rack.name or rack.id)
        assert item._label.px * lod >= MIN_LABEL_PX, rack.name  # drawn: big enough to read at this zoom
        label = item._label  # centred by the width its own font gives, from the first frame on
        assert label.widths[0] == pytest.approx(QFontMetricsF(label.fonts[0]).horizontalAdvance(label.lines[0]),
                                                rel=0.03)
    nvl72 = w.scene.rack_items[next(r.id for r in w.project.racks if r.name == "SU01-01")]
    assert nvl72._label_along  # a 600 mm wide rack reads its name along its length


def test_a_cabling_dock_tabbed_away_draws_no_routes(make_window):
    w = make_window()
    w.workspaces.switch("network")
    _select_first_rack(w)
    assert w.cabling.routes_item.route_count > 0
    w.tabifyDockWidget(w.cabling_dock, w.inspector_dock)
    w.inspector_dock.raise_()
    _settle()
    assert w.cabling_dock.isVisible()  # still "visible" to Qt, yet behind the inspector's tab
    other = next(r for r in w.project.racks if r.name == "SU01-05")
    w.scene.select(f"rack:{other.id}")
    _settle()
    assert w._cabling.panel.routes_item.route_count == 0 and not w._cabling.shown
    w.cabling_dock.raise_()
    _settle()
    assert w.cabling.selected_rack == other.id and w.cabling.routes_item.route_count > 0
