"""The analysis reaches the panels through one hub: they subscribe when made, and the window lists none to update."""
from __future__ import annotations

from designer import samples
from designer.model import Project
from widgets.app.analysis_hub import AnalysisHub


class _Analysis:
    """Stands for an analysis: the hub passes it on and never looks inside."""


def test_a_subscriber_gets_the_current_analysis_at_once_and_every_change_after(qtbot):
    hub = AnalysisHub()
    early: list = []
    hub.subscribe(early.append)
    assert early == [None] and hub.current is None
    first = _Analysis()
    hub.publish(first)
    late: list = []
    hub.subscribe(late.append)  # a panel made after the analysis arrived
    assert late == [first] and hub.current is first
    second = _Analysis()
    hub.publish(second)
    assert early == [None, first, second] and late == [first, second]
    hub.clear()
    assert early[-1] is None and late[-1] is None and hub.current is None
    hub.unsubscribe(late.append)
    hub.publish(first)
    assert late == [first, second, None] and early[-1] is first


def test_the_hub_publishes_what_the_runner_delivers(qtbot, catalog):
    from widgets.app.engine_runner import EngineRunner

    result = _Analysis()
    runner = EngineRunner(catalog, analyze_fn=lambda project, cat: result, sync=True)
    hub = AnalysisHub()
    hub.follow(runner)
    got: list = []
    hub.subscribe(got.append)
    runner.request(1, Project())
    assert got == [None, result] and hub.current is result


def test_panels_made_late_show_the_current_analysis_and_a_new_document_clears_every_panel(synced_window,
                                                                                           monkeypatch):
    window = synced_window(samples.DGX_B200_SU)
    analysis = window.analysis
    assert analysis is not None and window.hub.current is analysis
    assert window.findings.model.rowCount() == len(analysis.findings)
    assert window.bom.bom is not None and window.scene.heat._analysis is analysis
    # The charts and the cabling view are made on first use, long after the analysis arrived.
    assert not window._dashboards.built and not window._cabling.built
    assert window.dashboards.analysis is analysis
    assert window.cabling._analysis is analysis
    told: list = []
    window.hub.subscribe(told.append)
    monkeypatch.setattr(window.runner, "request", lambda *args: None)  # the new document stays unanalysed
    window.adopt_project(Project(), None)
    assert told == [analysis, None] and window.analysis is None
    assert window.findings.model.rowCount() == 0 and window.bom.bom is None
    assert window.scene.heat._analysis is None and window.inspector._analysis is None
    window.dashboards_dock.show()
    assert window.dashboards.analysis is None
    assert window.cabling._analysis is None
