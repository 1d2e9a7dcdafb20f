"""The GUI shows the engines' figures (limits, utilisation, GPU and rack counts) as the analysis gives them.

Each test either feeds an analysis whose figures differ from what a recompute would give, or
compares the widget with the engine's own figure, so a widget that works a figure out itself fails.
"""
from __future__ import annotations

from dataclasses import replace

import drawn as samples
import numpy as np
import pytest

from designer.analysis import analyze
from designer.commands import AddObjectsCommand, Document, UpdateHallCommand
from designer.fileformat import load
from designer.formatting import kw, percent, quantity
from designer.model import MountedDevice, Rack
from designer.totals import quick_totals
from widgets.app import style
from widgets.dashboards.dashboards import DashboardPanel
from widgets.dashboards.inspector import InspectorPanel
from widgets.app.main_window import MainWindow, counts_text


@pytest.fixture
def window(synced_window):
    """A window whose engines run inside each request, so every edit has its analysis at once."""
    return synced_window()


def _limit_text(window, rack_id: str) -> str:
    assert window.scene.select(f"rack:{rack_id}")
    assert window.inspector.kind == "rack" and window.inspector.ids == (rack_id,)
    return window.inspector.rack_limit.text()


def test_inspector_shows_the_limit_the_power_engine_applied_on_the_nvl72_sample(window):
    assert window.open_path(samples.GB200_NVL72_SU), window.last_error
    limit = window.analysis.rack("r01").limit_kw
    assert limit == 132.0
    assert window.project.rack("r01").power_limit_kw is None
    assert _limit_text(window, "r01").startswith("default: 132.0 kW")
    assert window.inspector.rack_limit.value() == 0.0  # the rack has no limit of its own
    row = window.analysis.rack("r01")
    assert f"{kw(row.max_kw)} max" in window.inspector.rack_load.text()
    assert f"{percent(row.utilisation)} of 132.0 kW" in window.inspector.rack_load.text()

    # Without the hall's default, the engine holds a rack-scale system to the project's rack-scale
    # limit (132 kW) and a switch rack to the plain rack limit (100 kW).
    hall = window.project.racks[0].hall
    window.document.push(UpdateHallCommand(hall, {"rack_power_limit_kw": None}))
    assert window.analysis.rack("r01").limit_kw == 132.0 and window.analysis.rack("n01").limit_kw == 100.0
    assert _limit_text(window, "r01").startswith("default: 132.0 kW")
    assert _limit_text(window, "n01").startswith("default: 100.0 kW")


def test_inspector_follows_the_hall_default_the_user_sets(window):
    assert window.open_path(samples.DGX_B200_SU), window.last_error
    assert window.analysis.rack("a03").limit_kw == 40.0
    assert _limit_text(window, "a03").startswith("default: 40.0 kW")
    # The user sets the hall's default rack limit on the hall page...
    window.scene.select_many([])
    assert window.inspector.kind == "hall"
    window.inspector.hall_fields["rack_power_limit_kw"].setValue(60.0)
    assert window.project.halls[0].rack_power_limit_kw == 60.0
    # ...and the next analysis is what the rack shows.
    assert window.analysis.rack("a03").limit_kw == 60.0
    assert _limit_text(window, "a03").startswith("default: 60.0 kW")
    assert "of 60.0 kW" in window.inspector.rack_load.text()


@pytest.fixture
def inspector(qtbot, catalog):
    doc = Document(load(samples.DGX_B200_SU, catalog), catalog)
    w = InspectorPanel(catalog)
    qtbot.addWidget(w)
    w.set_document(doc)
    w.resize(380, 640)
    w.show()
    qtbot.waitExposed(w)
    return w, doc


def test_inspector_says_pending_until_an_analysis_of_the_current_project_arrives(inspector, catalog):
    w, doc = inspector
    w.show_selection("rack", ["a01"])
    assert w.rack_limit.text() == "default (computing…)"  # no analysis yet: no guess either
    assert w.rack_load.text() == "computing…"
    w.set_analysis(analyze(doc.project, catalog))
    assert w.rack_limit.text() == "default: 40.0 kW (hall Data hall 1 default)"
    # An edit makes the shown analysis old: the figure is pending until the next one arrives.
    doc.push(UpdateHallCommand("hall-1", {"rack_power_limit_kw": 55.0}))
    assert w.rack_limit.text() == "default (computing…)"
    w.set_analysis(analyze(doc.project, catalog))
    assert w.rack_limit.text() == "default: 55.0 kW (hall Data hall 1 default)"
    # A rack just added is not in the analysis yet.
    rack = Rack("new", "New", "hall-1", "rack-48u-600x1200", 9000.0, 7800.0,
                devices=(MountedDevice("n1", "dgx-b200", 5.0),))
    doc.push(AddObjectsCommand(racks=(rack,)))
    w.set_analysis(analyze(load(samples.DGX_B200_SU, catalog), catalog))  # a result without the new rack
    w.show_selection("rack", ["new"])
    assert w.rack_limit.text() == "default (computing…)"
    w.set_analysis(analyze(doc.project, catalog))
    assert w.rack_limit.text() == "default: 55.0 kW (hall Data hall 1 default)"


def test_inspector_shows_the_analysis_figure_and_reason_not_its_own(inspector, catalog, racks_as):
    w, doc = inspector
    w.show_selection("rack", ["a01"])
    real = analyze(doc.project, catalog)
    # figures no engine would give for this rack: an inspector working them out would show others
    row = {"id": "a01", "name": "A01", "max_kw": 1140.35, "typical_kw": 24.0, "limit_kw": 77.0,
           "utilisation": 0.5, "limit_source": "hall"}
    w.set_analysis(racks_as(real, [row]))
    assert w.rack_limit.text() == "default: 77.0 kW (hall Data hall 1 default)"
    assert w.rack_load.text() == "1,140.4 kW max · typical 24.0 kW · 50 % of 77.0 kW"
    w.set_analysis(racks_as(real, [{**row, "limit_kw": 132.0, "limit_source": "rack_system", "utilisation": 1.3}]))
    assert w.rack_limit.text() == "default: 132.0 kW (rack-scale system)"
    assert "130 % of 132.0 kW" in w.rack_load.text() and "B3261E" in w.rack_load.styleSheet()


def test_dashboards_colour_bars_by_the_analysis_utilisation(qtbot, catalog, racks_as):
    panel = DashboardPanel(catalog)
    qtbot.addWidget(panel)
    panel.resize(900, 600)
    panel.show()
    # Utilisation deliberately unlike max / limit: a panel dividing them itself would colour differently.
    rows = [{"id": "a", "name": "A", "max_kw": 30.0, "limit_kw": 40.0, "utilisation": 1.2},
            {"id": "b", "name": "B", "max_kw": 50.0, "limit_kw": 40.0, "utilisation": 0.5},
            {"id": "c", "name": "C", "max_kw": 10.0, "limit_kw": 40.0, "utilisation": 0.95},
            {"id": "d", "name": "D", "max_kw": 10.0, "limit_kw": 40.0, "utilisation": None}]
    panel.set_analysis(racks_as(analyze(load(samples.DGX_B200_SU, catalog), catalog), rows))
    assert np.allclose(panel.rack_utilisation[:3], [1.2, 0.5, 0.95]) and np.isnan(panel.rack_utilisation[3])
    # the heat map's colours, from the analysis' utilisation (grey where it gives none)
    assert panel.kw_bars.opts["brushes"] == [style.heat_color(1.2), style.heat_color(0.5), style.heat_color(0.95),
                                             style.heat_color(None)]
    assert np.allclose(panel.kw_bars.opts["height"], [30.0, 50.0, 10.0, 10.0])
    assert "1 over limit" in panel.kw_card.title.text()


@pytest.mark.parametrize("path", [samples.DGX_B200_SU, samples.GB200_NVL72_SU])
def test_status_bar_counts_are_the_analysis_and_agree_with_the_quick_totals(window, catalog, path):
    assert window.open_path(path), window.last_error
    summary = window.analysis.summary
    quick = quick_totals(window.project, catalog)
    assert (quick.racks, quick.gpus) == (summary.racks, summary.gpus)
    assert window.totals_label.text() == counts_text(summary.racks, summary.gpus)
    assert f"{kw(summary.it_power_max_kw)} IT" in window.engine_label.text()
    assert f"{quantity(summary.bf16_pflops, 'PFLOPS')} BF16" in window.engine_label.text()


def test_status_bar_shows_the_summary_it_is_given(window, catalog):
    """When a result arrives the counts are the summary's, whatever a count of the model would say."""
    real = analyze(window.project, catalog)
    fake = replace(real, summary_json={**real.summary_json, "racks": 3, "gpus": 1_205})
    window.runner.finished.emit(window.runner.latest_revision, fake)
    assert window.totals_label.text() == "3 racks · 1,205 GPUs"


def test_adding_a_dgx_rack_counts_its_gpus_before_the_analysis(qtbot, catalog):
    w = MainWindow(catalog, load(samples.DGX_B200_SU, catalog), debounce_ms=20)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.analysis is not None, timeout=60000)
    assert w.totals_label.text() == "19 racks · 248 GPUs"
    rack = Rack("x1", "X1", "hall-1", "rack-48u-600x1200", 9000.0, 7800.0,
                devices=(MountedDevice("n1", "dgx-b200", 5.0), MountedDevice("n2", "dgx-b200", 17.0)))
    w.document.push(AddObjectsCommand(racks=(rack,)))
    assert w.analysis.summary.gpus == 248  # the engines have not answered yet...
    assert w.totals_label.text() == "20 racks · 264 GPUs"  # ...and the count is there already: 8 per DGX
    qtbot.waitUntil(lambda: w.analysis.summary.racks == 20, timeout=60000)
    assert w.analysis.summary.gpus == 264
    assert w.totals_label.text() == "20 racks · 264 GPUs"
