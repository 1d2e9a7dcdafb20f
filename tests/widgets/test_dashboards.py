"""Dashboards: bars and limit line from the B200 sample, empty states for sections an analysis lacks, totals;
chart sizes, whole axis titles, thinned rack labels and hover tooltips."""
from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

import drawn as samples
import numpy as np
import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication, QToolTip

from designer import samples as bundled
from designer.analysis import analyze
from designer.commands import AddDeviceCommand, Document, UpdateRackCommand
from designer.fileformat import load
from designer.formatting import kw, number
from designer.model import MountedDevice
from widgets.app import style
from widgets.dashboards.dashboards import (CHART_MIN_HEIGHT, DashboardPanel, bar_index, fabric_tiers, fabric_tooltip,
                                heat_tooltip, label_step, power_tooltip, totals_text, training_points,
                                training_tooltip)


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
    racks = analysis.power.racks
    assert len(racks) == 19
    assert list(bars.opts["x"]) == list(range(19))
    assert np.allclose(bars.opts["height"], [r.max_kw for r in racks])
    assert bars.opts["height"][0] == pytest.approx(28.6)
    _, ly = line.getData()
    assert len(ly) == 38 and np.allclose(ly, 40.0)  # the hall's 40 kW default rack limit
    assert panel.kw_card.showing_plot and panel.heat_card.showing_plot
    assert panel.kw_bars is bars and panel.limit_curve is line  # updated in place, not re-created


def test_over_limit_bar_takes_the_over_colour(panel, b200, catalog):
    doc = Document(b200, catalog)
    doc.push(UpdateRackCommand("a01", {"power_limit_kw": 20.0}))
    panel.set_analysis(analyze(doc.project, catalog))
    brushes = panel.kw_bars.opts["brushes"]
    over = style.heat_color(28.6 / 20.0)
    assert QColor(brushes[0]).name() == over.name() and QColor(brushes[1]).name() != over.name()
    # each bar is the colour the plan's heat map gives the same rack: one scale for both
    util = [r.utilisation for r in panel.analysis.power.racks]
    assert [QColor(b).name() for b in brushes] == [style.heat_color(u).name() for u in util]
    assert "1 over limit" in panel.kw_card.title.text()
    _, ly = panel.limit_curve.getData()
    assert list(ly[:4]) == [20.0, 20.0, 40.0, 40.0]


def test_heat_bars_liquid_and_air(panel, catalog):
    analysis = analyze(load(samples.GB200_NVL72_SU, catalog), catalog)
    panel.set_analysis(analysis)
    cooling = analysis.cooling
    assert cooling.liquid_kw > cooling.air_kw > 0  # an NVL72 hall is mostly liquid-cooled
    assert list(panel.heat_bars.opts["height"]) == pytest.approx([cooling.liquid_kw, cooling.air_kw])
    _, cap = panel.capacity_curve.getData()
    assert list(cap) == [1200.0, 1200.0, 250.0, 250.0]  # the hall's liquid and air capacities


def test_placeholders_until_fabric_and_training_engines_report(panel, b200, catalog, gb200):
    full = analyze(b200, catalog)
    # a fabric the engine could not size and a design it has no estimate for: what the engines write then
    fabric = {"endpoints": full.fabric.endpoints, "error": "no tree of this switch holds the endpoints"}
    training = {"status": "no GPUs in the design"}
    analysis = replace(full, sections={**full.sections, "fabric": fabric, "training": training})
    panel.set_analysis(analysis)
    assert not panel.fabric_card.showing_plot and panel.fabric_card.placeholder.text() == "fabric engine: no data"
    assert not panel.train_card.showing_plot
    assert panel.train_card.placeholder.text() == "training engine: no scaling result (no GPUs in the design)"
    # the GB200 sample's fabric and scaling, on the B200 design: the charts show whatever the engines report
    panel.set_analysis(replace(analysis, sections={**analysis.sections, "fabric": gb200.sections["fabric"],
                                                   "training": gb200.sections["training"]}))
    assert panel.fabric_card.showing_plot and panel.train_card.showing_plot
    ports = gb200.fabric.ports
    assert list(panel.ports_used.opts["height"]) == [ports.leaf.used, ports.spine.used]
    assert list(panel.ports_free.opts["height"]) == [ports.leaf.free, ports.spine.free]
    scaling = sorted(gb200.training.scaling, key=lambda p: p.gpus)
    x, y = panel.tokens_curve.getData()
    assert list(x) == [p.gpus for p in scaling] and list(y) == [p.tokens_per_s for p in scaling]
    assert list(panel.days_curve.getData()[1]) == [p.time_to_train_days for p in scaling]
    panel.set_analysis(None)
    assert not panel.train_card.showing_plot and "No training result yet" in panel.train_card.placeholder.text()


def test_fabric_ports_of_the_tiers_the_design_has(gb200, catalog):
    ports = gb200.fabric.ports
    assert fabric_tiers(gb200.fabric) == [("leaf", ports.leaf.used, ports.leaf.free),
                                          ("spine", ports.spine.used, ports.spine.free)]  # no core tier
    assert fabric_tiers(None) == []
    assert fabric_tiers(replace(gb200.fabric, ports=None, error="no tree")) == []


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
    assert "576.0 PFLOPS BF16" in text  # 256 B200 x 2.25 PF dense BF16
    assert f"{kw(analysis.summary.it_power_max_kw)} IT" in text
    assert text.endswith("(est.)")  # several catalog prices are unconfirmed
    assert f"USD {number(analysis.bom.price_total / 1e6, 2)} M" in text  # the BOM engine's total


def test_totals_pf_follows_the_gpu_count_of_the_sample(b200, catalog):
    analysis = analyze(b200, catalog)
    gpus = analysis.summary.gpus
    assert f"{gpus} GPUs" in totals_text(analysis)
    assert f"{gpus * 2.25:.1f} PFLOPS" in totals_text(analysis)


def test_totals_take_every_figure_from_the_engines(b200, catalog):
    full = analyze(b200, catalog)
    # PF is the analysis' own figure: the status bar recounts nothing.
    assert full.summary.bf16_pflops == full.summary.gpus * 2.25
    # figures no engine would give: a status bar counting them itself would not show these
    fake = replace(full, summary_json={**full.summary_json, "gpus": 7, "bf16_pflops": 1234.5, "price_total": 99.0,
                                       "it_power_max_kw": 1140.35, "currency": "EUR", "price_estimated": False})
    assert totals_text(fake) == "7 GPUs · 1,140.4 kW IT · 1,234.5 PFLOPS BF16 · EUR 99"


def test_clearing(panel):
    panel.set_analysis(None)
    assert not panel.kw_card.showing_plot and panel.totals.text() == ""
    panel.set_busy(True)
    assert panel.busy_label.text() == "updating…"


# ---- readable at any dock size: heights, columns, axis titles, rack labels, tooltips ------------------
@pytest.fixture(scope="module")
def gb200(catalog):
    """The bundled GB200 NVL72 SU: 15 racks with generated names, a fabric and a training estimate."""
    return analyze(load(bundled.GB200_NVL72_SU, catalog), catalog)


@pytest.fixture
def no_tooltip_left(qtbot):
    """A tooltip outlives its widget for a moment; hide it so the next test starts without one."""
    yield
    QToolTip.hideText()
    qtbot.waitUntil(lambda: not QToolTip.isVisible())


def _shown(qtbot, catalog, width: int, height: int, analysis=None) -> DashboardPanel:
    p = DashboardPanel(catalog)
    qtbot.addWidget(p)
    p.resize(width, height)
    p.show()
    qtbot.waitExposed(p)
    if analysis is not None:
        p.set_analysis(analysis)
    _settle(qtbot, p, width, height)
    return p


def _settle(qtbot, p, width: int, height: int) -> None:
    p.resize(width, height)
    qtbot.waitUntil(lambda: p.width() == width and all(c.plot.height() >= CHART_MIN_HEIGHT for c in p.cards))
    # The scroll area lays its cards out, and the charts their axes, in the next passes of the event loop (two at
    # most): the passes are counted, not timed, so a loaded machine gets as many as an idle one.
    for _ in range(5):
        QApplication.processEvents()


def _tick_labels(plot, side: str = "bottom") -> list[tuple[str, QRectF]]:
    """The tick labels the axis draws, as (text, rectangle in the plot widget's pixels)."""
    axis = plot.getAxis(side)
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        _, _, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(text, plot.mapFromScene(axis.mapRectToScene(rect)).boundingRect().toRectF()) for rect, _, text in texts]


def test_charts_keep_their_height_and_a_short_dock_scrolls(qtbot, catalog, gb200):
    p = _shown(qtbot, catalog, 1400, 300, gb200)
    assert [c.plot.height() >= CHART_MIN_HEIGHT for c in p.cards] == [True] * len(p.cards)
    assert p.scroll.verticalScrollBar().maximum() > 0  # two rows of cards do not fit in 300 px: it scrolls
    # the panel itself can still be dragged shorter than one chart: the dock stays resizable
    assert p.minimumSizeHint().height() < CHART_MIN_HEIGHT
    assert p.columns == 2
    assert p.kw_card.y() == p.heat_card.y() and p.heat_card.x() > p.kw_card.x()
    assert p.fabric_card.y() > p.kw_card.y() and p.fabric_card.x() == p.kw_card.x()

    _settle(qtbot, p, 560, 300)
    assert p.columns == 1
    assert len({c.x() for c in p.cards}) == 1
    ys = [c.y() for c in p.cards]
    assert ys == sorted(ys) and len(set(ys)) == len(p.cards)
    assert min(c.plot.height() for c in p.cards) >= CHART_MIN_HEIGHT

    _settle(qtbot, p, 1400, 300)
    assert p.columns == 2 and p.kw_card.y() == p.heat_card.y()


@pytest.mark.parametrize("width", [1400, 560, 300])
def test_axis_titles_are_short_and_whole(qtbot, catalog, gb200, width):
    p = _shown(qtbot, catalog, width, 300, gb200)
    expected = {(p.kw_plot, "left"): "kW", (p.heat_plot, "left"): "kW", (p.fabric_plot, "left"): "ports",
                (p.train_plot, "left"): "Mtok/s", (p.train_plot, "right"): "days", (p.train_plot, "bottom"): "GPUs"}
    for (plot, side), title in expected.items():
        axis = plot.getAxis(side)
        assert axis.label.isVisible() and axis.label.toPlainText().strip() == title
        length = axis.geometry().width() if side == "bottom" else axis.geometry().height()
        assert axis.label.boundingRect().width() <= length, (title, length)
    # no tick label of a vertical axis is cut at the widget's edge or drawn over the axis title
    for plot, side in [(p.kw_plot, "left"), (p.heat_plot, "left"), (p.fabric_plot, "left"), (p.train_plot, "left"),
                       (p.train_plot, "right")]:
        axis = plot.getAxis(side)
        title = plot.mapFromScene(axis.label.mapRectToScene(axis.label.boundingRect())).boundingRect().toRectF()
        labels = _tick_labels(plot, side)
        assert labels, side
        for text, rect in labels:
            assert rect.left() >= 0 and rect.right() <= plot.width(), (side, text)
            if side == "left":
                assert rect.left() >= title.right() - 4, (text, rect, title)  # 4: the title's text margin
            else:
                assert rect.right() <= title.left() + 4, (text, rect, title)


def _assert_apart(labels: list[tuple[str, QRectF]], plot) -> None:
    for (_, a), (_, b) in pairwise(labels):
        assert a.right() < b.left()
    assert labels[0][1].left() >= 0 and labels[-1][1].right() <= plot.width()


def test_rack_labels_are_names_thinned_never_overlapping_and_start_at_the_first_rack(qtbot, catalog, gb200):
    racks = gb200["power"]["racks"]
    names = [r["name"] for r in racks]
    assert names[0] == "SU01-01" and racks[0]["id"] == "su01-01"  # names, not ids, are shown
    p = _shown(qtbot, catalog, 1400, 300, gb200)
    wide = _tick_labels(p.kw_plot)
    texts = [t for t, _ in wide]
    assert texts[0] == "SU01-01"
    step = names.index(texts[1])
    assert step > 1 and texts == names[::step][:len(texts)]  # every step-th rack, none skipped at random
    _assert_apart(wide, p.kw_plot)

    _settle(qtbot, p, 500, 300)  # narrower: recounted on resize
    narrow = _tick_labels(p.kw_plot)
    assert narrow[0][0] == "SU01-01" and len(narrow) < len(wide)
    _assert_apart(narrow, p.kw_plot)


def test_a_hundred_thousand_gpu_floor_thins_its_1450_rack_labels(qtbot, catalog, gb200, racks_as, no_tooltip_left):
    rows = [{"id": f"r{i:04d}", "name": f"SU{i // 72 + 1:02d}-{i % 72 + 1:02d}", "max_kw": 120.0 + i % 12,
             "limit_kw": 132.0, "utilisation": (120.0 + i % 12) / 132.0} for i in range(1450)]
    analysis = racks_as(gb200, rows)
    p = _shown(qtbot, catalog, 900, 400, analysis)
    labels = _tick_labels(p.kw_plot)
    assert labels[0][0] == "SU01-01"
    _assert_apart(labels, p.kw_plot)
    assert 3 < len(labels) < 40
    names = [r["name"] for r in rows]
    shown = [names.index(t) for t, _ in labels]
    assert len({b - a for a, b in pairwise(shown)}) == 1  # one even stride
    p.kw_plot.scene().sigMouseMoved.emit(p.kw_plot.getViewBox().mapViewToScene(QPointF(1000.1, 60.0)))
    assert QToolTip.text() == "SU14-65 · 124.0 kW of 132.0 kW limit (94 %)"


def test_a_long_rack_name_keeps_both_ends_on_the_axis_and_whole_in_the_tooltip(qtbot, catalog, gb200, racks_as,
                                                                                no_tooltip_left):
    rows = [{"id": "m01", "name": "M01 management and storage", "max_kw": 8.0, "limit_kw": 40.0,
             "utilisation": 0.2}, {"id": "a01", "name": " ", "max_kw": 30.0, "limit_kw": 40.0, "utilisation": 0.75}]
    p = _shown(qtbot, catalog, 900, 400, racks_as(gb200, rows))
    (first, _), (second, _) = _tick_labels(p.kw_plot)
    head, tail = first.split("…")
    assert head.startswith("M01") and "M01 management and storage".endswith(tail) and tail
    assert second == "a01"  # a blank name falls back to the id
    p.kw_plot.scene().sigMouseMoved.emit(p.kw_plot.getViewBox().mapViewToScene(QPointF(0.1, 4.0)))
    assert QToolTip.text() == "M01 management and storage · 8.0 kW of 40.0 kW limit (20 %)"


def test_tooltip_texts(gb200):
    assert power_tooltip("SU01-06", 132.0, 132.0, 1.0) == "SU01-06 · 132.0 kW of 132.0 kW limit (100 %)"
    assert power_tooltip("x1", 12.25, float("nan"), float("nan")) == "x1 · 12.3 kW (no limit set)"  # half up
    assert power_tooltip("x1", 1140.35, 2000.0, 0.5702) == "x1 · 1,140.4 kW of 2,000.0 kW limit (57 %)"
    halls = [replace(gb200.cooling.halls[0], liquid_capacity_kw=1200.0, air_capacity_kw=None)]
    cooling = replace(gb200.cooling, liquid_kw=897.6, air_kw=0.0, halls=halls)
    assert heat_tooltip(cooling, 0) == "Liquid 897.6 kW of 1,200.0 kW hall capacity"
    assert heat_tooltip(cooling, 1) == "Air 0.0 kW (no hall capacity set)"
    assert fabric_tooltip([("leaf", 1024.0, 0.0), ("spine", 640.0, 384.0)], 0) == "leaf: 1,024 used · 0 free ports"
    point = gb200.training.scaling[0]
    points = training_points([replace(point, gpus=576, tokens_per_s=1.52e6, time_to_train_days=212.0),
                              replace(point, gpus=72, tokens_per_s=215_724.2, time_to_train_days=804.78),
                              replace(point, gpus=8192, tokens_per_s=2.2e7, time_to_train_days=4.5),
                              replace(point, gpus=16, tokens_per_s=950.0, time_to_train_days=10_950.0)])
    assert [training_tooltip(points, i) for i in range(4)] == [
        "16 GPUs · 950 tokens/s · 10,950.0 days", "72 GPUs · 215.7 k tokens/s · 804.8 days",
        "576 GPUs · 1.52 M tokens/s · 212.0 days", "8,192 GPUs · 22.00 M tokens/s · 4.5 days"]


def test_tooltip_texts_of_the_gb200_samples(gb200, catalog):
    rack = gb200.power.racks[5]
    assert power_tooltip(rack.name, rack.max_kw, rack.limit_kw, rack.utilisation) == \
        "SU01-06 · 132.0 kW of 134.8 kW limit (98 %)"
    drawn_gb200 = analyze(load(samples.GB200_NVL72_SU, catalog), catalog)
    air = drawn_gb200.cooling.air_kw
    assert heat_tooltip(drawn_gb200.cooling, 0) == "Liquid 897.6 kW of 1,200.0 kW hall capacity"
    assert heat_tooltip(drawn_gb200.cooling, 1) == f"Air {kw(air)} of 250.0 kW hall capacity"
    assert fabric_tooltip(fabric_tiers(gb200.fabric), 0) == "leaf: 1,220 used · 60 free ports"
    assert training_tooltip(training_points(gb200.training.scaling), 3) == \
        "576 GPUs · 1.69 M tokens/s · 102.8 days"


def test_hovering_a_bar_or_point_shows_its_exact_figure(qtbot, catalog, gb200, no_tooltip_left):
    p = _shown(qtbot, catalog, 1400, 300, gb200)

    def hover(plot, x: float, y: float) -> None:
        plot.scene().sigMouseMoved.emit(plot.getViewBox().mapViewToScene(QPointF(x, y)))

    hover(p.kw_plot, 5.3, 60.0)
    # an NVL72 held to one feed's continuous capacity, not to its own maximum
    assert QToolTip.isVisible() and QToolTip.text() == "SU01-06 · 132.0 kW of 134.8 kW limit (98 %)"
    hover(p.kw_plot, 7.6, 10.0)  # nearer the ninth bar than the eighth
    ninth = gb200.power.racks[8]
    assert QToolTip.text() == power_tooltip(ninth.name, ninth.max_kw, ninth.limit_kw, ninth.utilisation)
    hover(p.heat_plot, 0.1, 300.0)
    assert QToolTip.text() == "Liquid 897.6 kW of 1,100.0 kW hall capacity"
    hover(p.fabric_plot, 1.0, 100.0)
    assert QToolTip.text() == "spine: 640 used · 384 free ports"
    hover(p.train_plot, 576.0, 1.69e6)
    assert QToolTip.text() == "576 GPUs · 1.69 M tokens/s · 102.8 days"
    hover(p.kw_plot, len(gb200.power.racks) - 0.45, 60.0)  # right of the last bar: nothing to tell
    qtbot.waitUntil(lambda: not QToolTip.isVisible())


def test_pure_thinning_and_hit_testing():
    assert label_step(15, 40.0, 70.0) == 2  # 70 px labels plus an 8 px gap need two 40 px slots
    assert label_step(15, 80.0, 70.0) == 1
    assert label_step(1450, 0.5, 47.0) == 110
    assert label_step(0, 10.0, 50.0) == 1 and label_step(5, 0.0, 50.0) == 5
    assert [bar_index(x, 15) for x in (-0.6, -0.5, 4.49, 4.51, 14.49, 14.6)] == [None, 0, 4, 5, 14, None]
    assert bar_index(float("nan"), 15) is None and bar_index(0.0, 0) is None


def test_colours_come_from_the_colour_scheme(panel, catalog, gb200):
    panel.set_analysis(gb200)
    assert panel.limit_curve.opts["pen"].color() == style.series("limit")
    assert panel.capacity_curve.opts["pen"].color() == style.series("limit")
    assert [QColor(b).name() for b in panel.heat_bars.opts["brushes"]] == [style.series("liquid").name(),
                                                                          style.series("air").name()]
    assert QColor(panel.ports_used.opts["brush"]).name() == style.series("used").name()
    assert QColor(panel.ports_free.opts["brush"]).name() == style.series("free").name()
    assert panel.tokens_curve.opts["pen"].color() == style.series("tokens")
    assert panel.days_curve.opts["pen"].color() == style.series("days")
    util = [r.utilisation for r in gb200.power.racks]
    assert [QColor(b).name() for b in panel.kw_bars.opts["brushes"]] == [style.heat_color(u).name() for u in util]


def test_a_workload_plan_that_does_not_fit_is_said_above_the_curve(panel, b200, catalog):
    unfit = analyze(b200.with_workload({"model": "llama3-405b", "tp": 1, "pp": 1}), catalog)
    assert unfit.training.fits is False and unfit.training.tokens_per_s is None
    panel.set_analysis(unfit)
    title = panel.train_card.title.text()
    need = f"{unfit.training.memory_gb_per_gpu:,.1f} GB per GPU of 180 GB"
    assert "the workload's plan does not fit" in title and need in title and "has no throughput" in title
    # the curve is the searched best plans', each of which fits and runs
    assert panel.train_card.showing_plot and all(p.tokens_per_s > 0 for p in unfit.training.scaling)
    panel.set_analysis(analyze(b200, catalog))
    assert "does not fit" not in panel.train_card.title.text()
