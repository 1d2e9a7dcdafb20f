"""Findings panel: rows, severity filter, and clicking a finding names its object."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from designer.findings import Finding
from widgets.findings_panel import FindingsPanel, severity_icon

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
