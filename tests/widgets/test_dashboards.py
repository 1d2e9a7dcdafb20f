"""Dashboards: bars and limit line from the B200 sample, empty states for sections an analysis lacks, totals."""
from __future__ import annotations

from dataclasses import replace

import drawn as samples
import numpy as np
import pytest
from PySide6.QtGui import QColor

from designer.analysis import analyze
from designer.commands import AddDeviceCommand, Document, UpdateRackCommand
from designer.fileformat import load
from designer.model import MountedDevice
from widgets import style
from widgets.dashboards import OVER_BAR, DashboardPanel, fabric_tiers, totals_text


@pytest.fixture
def b200(catalog):
    return load(samples.DGX_B200_SU, catalog)


@pytest.fixture
def panel(qtbot, catalog):
    p = DashboardPanel(catalog)
    qtbot.addWidget(p)
    p.resize(900, 600)
    p.show()
    qtbot.waitExposed(p)
    return p


def test_kw_bars_and_limit_line_from_b200_sample(panel, b200, catalog):
    analysis = analyze(b200, catalog)
    bars, line = panel.kw_bars, panel.limit_curve
    panel.set_analysis(analysis)
    racks = analysis["power"]["racks"]
    assert len(racks) == 19
    assert list(bars.opts["x"]) == list(range(19))
    assert np.allclose(bars.opts["height"], [r["max_kw"] for r in racks])
    assert bars.opts["height"][0] == pytest.approx(28.6)
    _, ly = line.getData()
    assert len(ly) == 38 and np.allclose(ly, 40.0)  # the hall's 40 kW default rack limit
    assert panel.kw_card.showing_plot and panel.heat_card.showing_plot
    assert panel.kw_bars is bars and panel.limit_curve is line  # updated in place, not re-created


def test_over_limit_bar_turns_red(panel, b200, catalog):
    doc = Document(b200, catalog)
    doc.push(UpdateRackCommand("a01", {"power_limit_kw": 20.0}))
    panel.set_analysis(analyze(doc.project, catalog))
    brushes = panel.kw_bars.opts["brushes"]
    assert brushes[0] == OVER_BAR and brushes[1] != OVER_BAR
    # each bar is the colour the plan's heat map gives the same rack: one scale for both
    util = [r["utilisation"] for r in panel_racks(panel)]
    assert [QColor(b).name() for b in brushes] == [style.heat_color(u).name() for u in util]
    assert "1 over limit" in panel.kw_card.title.text()
    _, ly = panel.limit_curve.getData()
    assert list(ly[:4]) == [20.0, 20.0, 40.0, 40.0]


def test_heat_bars_liquid_and_air(panel, catalog):
    analysis = analyze(load(samples.GB200_NVL72_SU, catalog), catalog)
    panel.set_analysis(analysis)
    cooling = analysis["cooling"]
    assert cooling["liquid_kw"] > cooling["air_kw"] > 0  # an NVL72 hall is mostly liquid-cooled
    assert list(panel.heat_bars.opts["height"]) == pytest.approx([cooling["liquid_kw"], cooling["air_kw"]])
    _, cap = panel.capacity_curve.getData()
    assert list(cap) == [1200.0, 1200.0, 250.0, 250.0]  # the hall's liquid and air capacities


def test_placeholders_until_fabric_and_training_engines_report(panel, b200, catalog):
    full = analyze(b200, catalog)
    analysis = replace(full, sections={k: v for k, v in full.sections.items() if k not in ("fabric", "training")})
    panel.set_analysis(analysis)
    assert not panel.fabric_card.showing_plot and panel.fabric_card.placeholder.text() == "fabric engine: no data"
    assert not panel.train_card.showing_plot and "No training result yet" in panel.train_card.placeholder.text()
    fabric = {"ports": {"leaf": {"total": 256, "used": 256, "free": 0}, "spine": {"total": 256, "used": 128, "free": 128},
                        "core": {"total": 0, "used": 0, "free": 0}}}
    training = {"scaling": [{"gpus": 256, "tokens_per_s": 4e5, "time_to_train_days": 30.0},
                            {"gpus": 64, "tokens_per_s": 1e5, "time_to_train_days": 120.0}]}
    panel.set_analysis(replace(analysis, sections={**analysis.sections, "fabric": fabric, "training": training}))
    assert panel.fabric_card.showing_plot and panel.train_card.showing_plot
    assert list(panel.ports_used.opts["height"]) == [256, 128]
    assert list(panel.ports_free.opts["height"]) == [0, 128]
    x, y = panel.tokens_curve.getData()
    assert list(x) == [64, 256] and list(y) == [1e5, 4e5]
    assert list(panel.days_curve.getData()[1]) == [120.0, 30.0]


def test_fabric_ports_mapping_form():
    section = {"tiers": 2, "ports": {"leaf": {"total": 16, "used": 10, "free": 6},
                                     "core": {"total": 0, "used": 0, "free": 0}}}
    assert fabric_tiers(section) == [("leaf", 10.0, 6.0)]  # the absent core tier is left out
    assert fabric_tiers(None) == [] and fabric_tiers({"other": 1}) == []


def _b200_with_32_dgx(project, catalog):
    """A full SU (32 DGX, 256 GPUs): the sample leaves one DGX out for the UFM ports."""
    doc = Document(project, catalog)
    if sum(d.type == "dgx-b200" for r in project.racks for d in r.devices) == 31:
        doc.push(AddDeviceCommand("b08", MountedDevice("b08-dgx2", "dgx-b200", 17.0, "front", "dgx-32")))
    return doc.project


def test_totals_text_for_256_b200(b200, catalog):
    analysis = analyze(_b200_with_32_dgx(b200, catalog), catalog)
    text = totals_text(analysis)
    assert "256 GPUs" in text
    assert "576.0 PF" in text  # 256 B200 x 2.25 PF dense BF16
    assert f"{analysis.summary['it_power_max_kw']:,.1f} kW IT" in text
    assert text.endswith("(est.)")  # several catalog prices are unconfirmed
    assert f"USD {analysis['bom']['price_total'] / 1e6:,.2f} M" in text  # the BOM engine's total


def test_totals_pf_follows_the_gpu_count_of_the_sample(b200, catalog):
    analysis = analyze(b200, catalog)
    gpus = analysis.summary["gpus"]
    assert f"{gpus} GPUs" in totals_text(analysis)
    assert f"{gpus * 2.25:.1f} PF" in totals_text(analysis)


def test_totals_take_every_figure_from_the_engines(b200, catalog):
    full = analyze(b200, catalog)
    # PF is the analysis' own figure: the status bar recounts nothing.
    assert full.summary["bf16_pflops"] == full.summary["gpus"] * 2.25
    no_bom = replace(full, sections={k: v for k, v in full.sections.items() if k != "bom"})
    assert "USD" not in totals_text(no_bom)


def test_clearing(panel):
    panel.set_analysis(None)
    assert not panel.kw_card.showing_plot and panel.totals.text() == ""
    panel.set_busy(True)
    assert panel.busy_label.text() == "updating…"


def panel_racks(panel) -> list[dict]:
    """The racks the power chart shows, from the analysis it was given."""
    return list(panel.analysis["power"]["racks"])
