"""Findings panel: rows, severity filter, clicking a finding names its object, and places read as names."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

import drawn
from designer.analysis import analyze
from designer.fileformat import load
from designer.findings import Finding
from designer.model import MountedDevice, Rack
from widgets.dashboards.findings_panel import MESSAGE, PLACES_ROLE, WHERE, WHERE_MAX_PX, FindingsPanel, severity_icon

FINDINGS = [
    Finding("warning", "rack-near-limit", "rack A02 draws 95 % of its limit", "rack:a02"),
    Finding("error", "rack-over-limit", "rack A01 draws 44 kW, limit 40 kW", "rack:a01"),
    Finding("info", "feed-loss-throttle", "dgx-b200 must throttle on feed loss", "rack:a03"),
]


@pytest.fixture
def panel(qtbot):
    p = FindingsPanel()
    qtbot.addWidget(p)
    p.resize(700, 300)
    p.set_findings(FINDINGS)
    p.show()
    qtbot.waitExposed(p)
    return p


def _row_centre(panel, row):
    return panel.view.visualRect(panel.proxy.index(row, 2)).center()


def test_rows_sorted_by_severity_with_counts(panel):
    assert panel.row_count() == 3
    assert [panel.where_at(i) for i in range(3)] == ["rack:a01", "rack:a02", "rack:a03"]
    assert panel.counts.text() == "1 error · 1 warning · 1 info"
    assert not panel.proxy.index(0, 0).data(Qt.ItemDataRole.DecorationRole).isNull()


def test_clicking_a_row_emits_its_where(qtbot, panel):
    with qtbot.waitSignal(panel.finding_activated) as blocker:
        QTest.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=_row_centre(panel, 1))
    assert blocker.args == ["rack:a02"]


def test_enter_on_the_current_row_emits_its_where(qtbot, panel):
    panel.view.setFocus()
    panel.view.setCurrentIndex(panel.proxy.index(2, 0))
    with qtbot.waitSignal(panel.finding_activated) as blocker:
        QTest.keyClick(panel.view, Qt.Key.Key_Return)
    assert blocker.args == ["rack:a03"]


def test_severity_filter(panel):
    panel.filter.setCurrentIndex(2)  # errors only
    assert panel.row_count() == 1 and panel.where_at(0) == "rack:a01"
    panel.set_findings(FINDINGS[:1])  # a new analysis keeps the filter
    assert panel.row_count() == 0
    panel.filter.setCurrentIndex(0)
    assert panel.row_count() == 1


def test_empty_state(panel):
    panel.set_findings([])
    assert panel.view.isHidden() and not panel.empty.isHidden()
    assert panel.counts.text() == "0 errors · 0 warnings · 0 info"


def test_icons_are_drawn_for_each_severity(qtbot):
    for sev in ("error", "warning", "info"):
        assert not severity_icon(sev).pixmap(16, 16).toImage().isNull()


# ---- places named as people read them ------------------------------------------------------------------------
def _dropped_rack_project(catalog):
    """The drawn DGX SU with one more rack, as a drop makes it: id r21, name R1, over its power limit."""
    project = load(drawn.DGX_B200_SU, catalog)
    a01 = project.rack("a01")
    dropped = Rack("r21", "R1", a01.hall, a01.type, a01.x, a01.y + 6000.0, a01.rotation, power_limit_kw=5.0,
                   devices=(MountedDevice("r21-d1", "dgx-b200", 1.0, "front"),))
    return project.adding_racks([dropped])


def _row_of(panel, where: str) -> int:
    return next(i for i in range(panel.row_count()) if panel.where_at(i) == where)


def test_the_where_column_names_a_dropped_rack_and_keeps_its_id_for_navigation(qtbot, panel, catalog):
    project = _dropped_rack_project(catalog)
    analysis = analyze(project, catalog)
    panel.set_findings(analysis.findings, analysis.project, analysis.catalog)
    row = _row_of(panel, "rack:r21")
    assert panel.place_at(row) == "Rack R1"
    shown = [panel.place_at(i) for i in range(panel.row_count())]
    assert not any(":" in text for text in shown), shown  # no where-string is shown: "rack:r21", "project:bom"
    assert "Bill of materials" in shown
    with qtbot.waitSignal(panel.finding_activated) as blocker:
        QTest.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=_row_centre(panel, row))
    assert blocker.args == ["rack:r21"]


def test_a_finding_about_many_racks_shows_two_and_a_count_and_lists_all_in_its_tooltip(panel, catalog):
    project = load(drawn.DGX_B200_SU, catalog)
    racks = [f"rack:{r.id}" for r in project.racks]
    finding = Finding("info", "feed-loss-throttle", "NVIDIA DGX B200 (32 in 16 racks): it must throttle",
                      racks[0], tuple(racks))
    panel.set_findings([finding], project, catalog)
    assert panel.place_at(0) == f"Racks A01, A02 +{len(racks) - 2} more"
    tip = panel.proxy.index(0, WHERE).data(Qt.ItemDataRole.ToolTipRole)
    assert f"{len(racks)} racks: " in tip
    assert all(r.name in tip for r in project.racks) and "rack:" not in tip
    assert panel.proxy.index(0, 0).data(PLACES_ROLE) == tuple(racks)  # a click still selects every rack


def test_a_long_message_is_cut_in_its_column_and_whole_in_its_tooltip(panel, catalog):
    message = ("rack A01: with one of its PDUs lost, another must carry 21.5 kW, over the 16.8 kW the weakest "
               "is rated for; " * 3).strip()
    panel.set_findings([Finding("warning", "inlet-loss-over-rating", message, "rack:a01")],
                       load(drawn.DGX_B200_SU, catalog), catalog)
    index = panel.proxy.index(0, MESSAGE)
    assert index.data() == message
    assert panel.view.textElideMode() == Qt.TextElideMode.ElideRight
    tip = index.data(Qt.ItemDataRole.ToolTipRole)
    assert message in tip and tip.startswith("<p>")  # rich text: Qt wraps it instead of one screen-wide line
    assert panel.view.columnWidth(WHERE) <= WHERE_MAX_PX
    # The code is an id for scripts: hidden, named in the tooltip, back with the header's action.
    assert panel.view.isColumnHidden(1) and "inlet-loss-over-rating" in tip
    panel.show_codes_action.trigger()
    assert not panel.view.isColumnHidden(1)


def test_without_a_project_a_place_is_named_by_what_the_finding_holds(panel):
    panel.set_findings([Finding("error", "bom-unpriced", "1 line has no price", "project:bom")])
    assert panel.place_at(0) == "Bill of materials"
    assert panel.where_at(0) == "project:bom"
