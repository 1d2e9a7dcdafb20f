"""Live charts of the latest analysis: kW per rack against its limit, heat by medium, fabric ports, scaling.

Every plot item is created once and refreshed with ``setOpts``/``setData`` on
each :meth:`DashboardPanel.set_analysis`, so a result arriving every few
hundred milliseconds costs a data swap, not a scene rebuild. Sections another
engine has not produced yet (``fabric``, ``training``) show a plain "no data"
card instead of an empty frame; they light up when that engine's result has
the keys described in :func:`fabric_tiers` and :func:`training_points`.

The four cards sit in a scroll area: a short dock scrolls instead of squashing
the charts below :data:`CHART_MIN_HEIGHT`, and a narrow one stacks them in one
column. Hovering a bar or point shows its exact figure; the texts come from
the pure ``*_tooltip`` functions so they can be checked without a mouse.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import (QFrame, QGridLayout, QLabel, QScrollArea, QStackedWidget, QToolTip, QVBoxLayout,
                               QWidget)

from catalog import Catalog
from designer.formatting import count, kw, number, percent, quantity
from designer.views import CoolingView, FabricView, TrainingView
from designer.views.training import ScalingPoint

from ..app import style

NO_TRAINING = "No training result yet: the training engine's estimate appears here once it has run."
#: Below this a chart's bars and ticks stop being readable; a shorter dock scrolls instead.
CHART_MIN_HEIGHT = 160
#: Narrower than this a card would squeeze its axes and titles; the cards then scroll sideways.
CARD_MIN_WIDTH = 260
#: Two charts side by side need about this much width to keep ~300 px each; narrower, one column.
TWO_COLUMNS_MIN_WIDTH = 700
TICK_PX = 11
AXIS_TITLE_PX = 12
#: A rack label wider than this loses its middle (the ends tell "NET-A" from "NET-B"; the tooltip has the
#: whole name): one long name ("M01 management") would otherwise widen every slot and thin the whole axis.
RACK_LABEL_MAX_PX = 80
#: Clear space between two neighbouring rack labels.
RACK_LABEL_GAP_PX = 8
#: A training point counts as hovered within this many pixels of the cursor, along the GPU axis.
POINT_HOVER_PX = 12


# ---- figures and texts (pure, no widgets) ----------------------------------------------------
def totals_parts(analysis) -> list[str]:
    """['256 GPUs', '484.6 kW IT', '576.0 PFLOPS BF16', 'USD 17.52 M (est.)'] for the status bar.

    Every figure is the engines' (the analysis' summary); nothing is recounted here. "(est.)" marks
    a total that rests on unconfirmed prices.
    """
    summary = analysis.summary
    price = summary.price_total
    money = (f"{summary.currency} {number(price / 1e6, 2)} M" if price >= 1e5
             else f"{summary.currency} {number(price, 0)}")
    return [count(summary.gpus, "GPU"), f"{kw(summary.it_power_max_kw)} IT",
            f"{quantity(summary.bf16_pflops, 'PFLOPS')} BF16", money + (" (est.)" if summary.price_estimated else "")]


def totals_text(analysis) -> str:
    """'256 GPUs · 484.6 kW IT · 576.0 PFLOPS BF16 · USD 17.52 M (est.)': :func:`totals_parts` on one line."""
    return " · ".join(totals_parts(analysis))


def fabric_tiers(fabric: FabricView | None) -> list[tuple[str, float, float]]:
    """(tier, used, free) from the fabric engine's port use; tiers the design lacks are left out, and a fabric
    the engine could not size (``fabric.error``) has none."""
    ports = fabric.ports if fabric is not None else None
    if ports is None:
        return []
    out = []
    for tier in ("leaf", "spine", "core"):
        p = getattr(ports, tier)
        if p.used or p.free:
            out.append((tier, float(p.used), float(max(p.free, 0))))
    return out


def training_points(scaling: Sequence[ScalingPoint] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GPU counts, tokens/s and days to train from the training estimate's ``scaling`` rows, sorted by GPUs."""
    rows = sorted((r for r in scaling or () if r.gpus), key=lambda r: r.gpus)
    return (np.array([float(r.gpus) for r in rows]), np.array([float(r.tokens_per_s) for r in rows]),
            np.array([float(r.time_to_train_days) for r in rows]))


def heat_figures(cooling: CoolingView | None) -> list[tuple[str, float, float]]:
    """[("Liquid", kW, hall capacity kW), ("Air", ...)]; the capacity is NaN where no hall gives one."""
    if cooling is None:
        return [("Liquid", 0.0, math.nan), ("Air", 0.0, math.nan)]
    out = []
    for label, load, capacities in (("Liquid", cooling.liquid_kw, [h.liquid_capacity_kw for h in cooling.halls]),
                                    ("Air", cooling.air_kw, [h.air_capacity_kw for h in cooling.halls])):
        given = [c for c in capacities if c is not None]  # a hall without a capacity set gives none
        out.append((label, float(load), float(sum(given)) if given else math.nan))
    return out


def rack_figures(analysis) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Each rack's name, maximum draw, limit and share of it, in the project's order.

    Read from the power engine's per-rack arrays (the figures of ``power.racks[]``): a 100,000-GPU floor has
    12,500 racks, and a view per rack on every result would cost more than the chart."""
    if analysis is None:
        return [], np.zeros(0), np.zeros(0), np.zeros(0)
    power = analysis.result("power")
    racks = analysis.project.racks
    names = [rack_name(r.name, r.id) for r in racks]
    return names, np.asarray(power.rack_max_kw, float), np.asarray(power.rack_limit_kw, float), \
        np.asarray(power.rack_utilisation, float)


def rack_name(name: str, rack_id: str) -> str:
    """The name the user gave the rack; its id when the name is blank."""
    return (name or "").strip() or rack_id


def _rate(value: float) -> str:
    """'1.69 M', '851.4 k', '950': three or four significant figures, as the engine's estimate warrants."""
    if value >= 1e6:
        return f"{number(value / 1e6, 2)} M"
    if value >= 1e3:
        return f"{number(value / 1e3, 1)} k"
    return number(value, 0)


def power_tooltip(name: str, max_kw: float, limit_kw: float, share: float) -> str:
    """'SU01-06 · 132.0 kW of 132.0 kW limit (100 %)': a rack's max draw against its limit."""
    text = f"{name} · {kw(max_kw)}"
    if limit_kw and not math.isnan(limit_kw):
        return text + f" of {kw(limit_kw)} limit ({percent(share)})"
    return text + " (no limit set)"


def heat_tooltip(cooling: CoolingView | None, index: int) -> str:
    """'Liquid 897.6 kW of 1,200.0 kW hall capacity' for bar 0 (liquid) or 1 (air)."""
    label, load, cap = heat_figures(cooling)[index]
    if math.isnan(cap):
        return f"{label} {kw(load)} (no hall capacity set)"
    return f"{label} {kw(load)} of {kw(cap)} hall capacity"


def fabric_tooltip(tiers: Sequence[tuple[str, float, float]], index: int) -> str:
    """'leaf: 1,024 used · 0 free ports'."""
    tier, used, free = tiers[index]
    return f"{tier}: {number(used)} used · {number(free)} free ports"


def training_tooltip(points: tuple[np.ndarray, np.ndarray, np.ndarray], index: int) -> str:
    """'576 GPUs · 1.69 M tokens/s · 103.0 days'."""
    gpus, tokens, days = (float(a[index]) for a in points)
    return " · ".join([count(int(gpus), "GPU"), f"{_rate(tokens)} tokens/s", quantity(days, "days")])


def label_step(count: int, slot_px: float, widest_px: float, gap_px: float = RACK_LABEL_GAP_PX) -> int:
    """Show every k-th of ``count`` labels ``slot_px`` apart so that no two of them (``widest_px`` wide) touch."""
    if count <= 0:
        return 1
    if slot_px <= 0:
        return count
    return max(1, math.ceil((widest_px + gap_px) / slot_px))


def bar_index(x: float, count: int) -> int | None:
    """The bar whose slot (centre ± 0.5) holds view coordinate ``x``, or None past either end."""
    if math.isnan(x) or count <= 0:
        return None
    i = math.floor(x + 0.5)
    return i if 0 <= i < count else None


# ---- widgets ---------------------------------------------------------------------------------
def _key(colour, text: str) -> str:
    """A coloured square and its meaning, for a chart title (rich text)."""
    return f'<span style="color:{colour.name()}">■</span>&nbsp;<span style="font-weight:normal">{text}</span>'


def _font(px: int) -> QFont:
    font = QFont()
    font.setPixelSize(px)
    return font


def _dashed(colour) -> pg.QtGui.QPen:
    return pg.mkPen(colour, width=2, style=Qt.PenStyle.DashLine)


def _axis_unit(top: float, base: str, steps: Sequence[tuple[float, float, str]]) -> tuple[float, str]:
    """(tick scale, axis title): the first of ``steps`` (threshold, scale, title) that ``top`` reaches,
    else (1, base). Big designs get MW rather than six-digit kW ticks."""
    for threshold, scale, title in steps:
        if top >= threshold:
            return scale, title
    return 1.0, base


def _set_axis_title(axis: pg.AxisItem, title: str, colour) -> None:
    if axis.labelText != title:
        axis.setLabel(title, color=colour.name(), **{"font-size": f"{AXIS_TITLE_PX}px"})


def _fit_axis_width(axis: pg.AxisItem, low: float, high: float, metrics: QFontMetricsF, least: float = 0.0) -> None:
    """Fix a vertical axis' width to its widest tick label over [low, high], so no digit is cut.

    The ticks are those pyqtgraph would draw on a 2,000 px axis, the finest a screen shows; a fixed width
    also keeps the plots from jumping sideways when a new result changes the number of digits.
    """
    widest = 0.0
    if high > low:
        for spacing, values in axis.tickValues(low, high, 2000):
            for text in axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing):
                widest = max(widest, metrics.horizontalAdvance(text))
    title = axis.label.boundingRect().height() * 0.8 if axis.label.isVisible() else 0.0
    width = widest + axis.style["tickTextOffset"][0] + max(0, axis.style["tickLength"]) + title + 2
    axis.setWidth(int(math.ceil(max(width, least))))


class _ChartView(pg.PlotWidget):
    """A plot that asks for its minimum size rather than pyqtgraph's 640 x 480.

    The card titles wrap, so the scroll area sizes the cards by height-for-width, which follows the
    preferred heights: with the default hint every card would stand 480 px tall and a short dock would
    scroll through mostly empty charts instead of sharing its height between them.
    """

    def sizeHint(self) -> QSize:
        return QSize(CARD_MIN_WIDTH, CHART_MIN_HEIGHT)


def _plot(left: str, bottom: str = "") -> pg.PlotWidget:
    w = _ChartView(background="w")
    w.setMenuEnabled(False)
    w.setMouseEnabled(x=False, y=False)
    w.hideButtons()
    w.setMinimumHeight(CHART_MIN_HEIGHT)
    for name in ("left", "bottom", "right"):
        axis = w.getAxis(name)
        axis.setTextPen(style.TEXT)
        axis.setPen(style.MUTED_TEXT)
        # Two tick levels: the third drew a grid line every few pixels, a grey haze behind the bars.
        axis.setStyle(tickFont=_font(TICK_PX), maxTickLevel=1)
        # Titles carry their unit in the text ("kW"); an automatic "(x0.001)" would only add noise.
        axis.enableAutoSIPrefix(False)
    _set_axis_title(w.getAxis("left"), left, style.MUTED_TEXT)
    if bottom:
        _set_axis_title(w.getAxis("bottom"), bottom, style.MUTED_TEXT)
    w.showGrid(y=True, alpha=0.25)
    return w


class _Card(QWidget):
    """A titled chart that can show a one-line placeholder in place of the plot."""

    def __init__(self, title: str, plot: pg.PlotWidget, placeholder: str):
        super().__init__()
        self.title = QLabel(title)
        font = self.title.font()
        font.setPixelSize(13)
        font.setBold(True)
        self.title.setFont(font)
        # The key after the title wraps onto a second line in a narrow card rather than widening it.
        self.title.setWordWrap(True)
        self.plot = plot
        self.placeholder = QLabel(placeholder)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setMinimumHeight(CHART_MIN_HEIGHT)
        self.placeholder.setStyleSheet(f"color: {style.MUTED_TEXT.name()}; background: white;"
                                       f"border: 1px dashed {style.series('free').darker(115).name()};")
        self.stack = QStackedWidget()
        self.stack.addWidget(plot)
        self.stack.addWidget(self.placeholder)
        self.setMinimumWidth(CARD_MIN_WIDTH)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.setSpacing(2)
        box.addWidget(self.title)
        box.addWidget(self.stack, 1)

    def show_plot(self, on: bool) -> None:
        self.stack.setCurrentWidget(self.plot if on else self.placeholder)

    @property
    def showing_plot(self) -> bool:
        return self.stack.currentWidget() is self.plot


class DashboardPanel(QWidget):
    """Four charts fed by :meth:`set_analysis`; :meth:`set_busy` shows that a newer result is coming."""

    def __init__(self, catalog: Catalog, parent: QWidget | None = None):
        super().__init__(parent)
        self.catalog = catalog
        self.analysis = None
        self.busy_label = QLabel("")
        self.busy_label.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        self.totals = QLabel("")
        font = self.totals.font()
        font.setPixelSize(13)
        self.totals.setFont(font)
        # Wraps rather than holding the dock as wide as the longest totals line (a price in millions, PFLOPS).
        self.totals.setWordWrap(True)
        self._tick_metrics = QFontMetricsF(_font(TICK_PX))
        self._rack_names: list[str] = []
        self._rack_kw = self._rack_limit = np.zeros(0)
        self.rack_utilisation = np.zeros(0)
        self._rack_labels: list[str] = []
        self._label_cache: dict[str, tuple[str, float]] = {}
        self._widest_rack_label = 0.0
        self._cooling: CoolingView | None = None
        self._tiers: list[tuple[str, float, float]] = []
        self._points: tuple[np.ndarray, np.ndarray, np.ndarray] = training_points(None)
        limit_colour = style.series("limit")

        self.kw_plot = _plot("kW")
        self.kw_bars = pg.BarGraphItem(x=[], height=[], width=0.7, brushes=[], pen=pg.mkPen(None))
        self.limit_curve = pg.PlotDataItem([], [], connect="pairs", pen=_dashed(limit_colour))
        self.kw_plot.addItem(self.kw_bars)
        self.kw_plot.addItem(self.limit_curve)
        self.kw_card = _Card("Power per rack vs limit", self.kw_plot, "No racks yet.")
        # Recount which rack names fit whenever the plot area changes width (dock dragged, columns reflowed).
        self.kw_plot.getViewBox().sigResized.connect(self._set_rack_ticks)

        self.heat_plot = _plot("kW")
        self.heat_bars = pg.BarGraphItem(x=[0, 1], height=[0, 0], width=0.6,
                                         brushes=[style.series("liquid"), style.series("air")], pen=pg.mkPen(None))
        self.capacity_curve = pg.PlotDataItem([], [], connect="pairs", pen=_dashed(limit_colour))
        self.heat_plot.addItem(self.heat_bars)
        self.heat_plot.addItem(self.capacity_curve)
        self.heat_plot.getAxis("bottom").setTicks([[(0, "Liquid"), (1, "Air")]])
        self.heat_plot.setXRange(-0.6, 1.6, padding=0)
        self.heat_card = _Card(f"Heat: liquid vs air &nbsp;{_key(limit_colour, '- - hall capacity')}",
                               self.heat_plot, "No heat load yet.")

        used, free = style.series("used"), style.series("free")
        self.fabric_plot = _plot("ports")
        self.ports_used = pg.BarGraphItem(x=[], height=[], width=0.6, brush=used, pen=pg.mkPen(None))
        # The free share is pale; an outline in its darker shade keeps it visible on the white plot.
        self.ports_free = pg.BarGraphItem(x=[], y0=[], height=[], width=0.6, brush=free,
                                          pen=pg.mkPen(free.darker(120)))
        self.fabric_plot.addItem(self.ports_used)
        self.fabric_plot.addItem(self.ports_free)
        self.fabric_card = _Card(f"Fabric ports per tier &nbsp;{_key(used, 'used')} {_key(free.darker(120), 'free')}",
                                 self.fabric_plot, "fabric engine: no data")

        tokens, days = style.series("tokens"), style.series("days")
        self.train_plot = _plot("Mtok/s", "GPUs")
        _set_axis_title(self.train_plot.getAxis("left"), "Mtok/s", tokens)
        self.tokens_curve = self.train_plot.plot([], [], pen=pg.mkPen(tokens, width=2), symbol="o",
                                                 symbolSize=6, symbolBrush=tokens, name="tokens/s")
        self.days_view = pg.ViewBox()
        self.train_plot.showAxis("right")
        # A child of the plot item, not a free item of the scene: the scene then owns it on the C++ side and
        # deletes it once; a free item deleted by both the scene and Python crashes the app on close.
        self.days_view.setParentItem(self.train_plot.getPlotItem())
        self.train_plot.getAxis("right").linkToView(self.days_view)
        _set_axis_title(self.train_plot.getAxis("right"), "days", days)
        self.days_view.setXLink(self.train_plot)
        self.days_curve = pg.PlotDataItem([], [], pen=_dashed(days), symbol="s", symbolSize=5, symbolBrush=days)
        self.days_view.addItem(self.days_curve)
        self.train_plot.getViewBox().sigResized.connect(self._sync_days_view)
        self.train_card = _Card(f"Training vs GPU count &nbsp;{_key(tokens, 'tokens/s')} "
                                f"{_key(days, 'days to train')}", self.train_plot, NO_TRAINING)

        hovers: list[tuple[pg.PlotWidget, Callable[[pg.PlotWidget, QPointF], str | None]]] = [
            (self.kw_plot, self._power_at), (self.heat_plot, self._heat_at),
            (self.fabric_plot, self._fabric_at), (self.train_plot, self._training_at)]
        for plot, text_at in hovers:
            plot.scene().sigMouseMoved.connect(partial(self._on_mouse_moved, plot, text_at))

        self.cards = [self.kw_card, self.heat_card, self.fabric_card, self.train_card]
        self.cards_box = QWidget()
        self.grid = QGridLayout(self.cards_box)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(6)
        self.columns = 0
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.cards_box)
        header = QVBoxLayout(self)
        header.setContentsMargins(6, 4, 6, 4)
        top = QGridLayout()
        top.addWidget(self.totals, 0, 0)
        top.addWidget(self.busy_label, 0, 1, Qt.AlignmentFlag.AlignRight)
        header.addLayout(top)
        header.addWidget(self.scroll, 1)
        self._reflow()
        self.set_analysis(None)

    # ---- public API -------------------------------------------------------------------------
    def dispose(self) -> None:
        """Take the plots apart before the window is destroyed.

        pyqtgraph's items are Python-owned QGraphicsWidgets; left to Qt's destructor chain
        they are deleted twice and the process crashes on close. Emptying each scene
        first leaves Qt nothing to delete twice.
        """
        for plot in (self.kw_plot, self.heat_plot, self.fabric_plot, self.train_plot):
            plot.getPlotItem().close()
            plot.scene().clear()

    def set_busy(self, busy: bool) -> None:
        """Say that the engines are working on a newer revision than the one shown."""
        self.busy_label.setText("updating…" if busy else "")

    def totals_text(self, analysis) -> str:
        """:func:`totals_text` with each figure kept on one line where the label wraps."""
        return " · ".join(part.replace(" ", "\u00a0") for part in totals_parts(analysis))

    def set_analysis(self, analysis) -> None:
        """Show ``analysis`` (or clear with None), updating the existing plot items in place."""
        self.analysis = analysis
        self.totals.setText(self.totals_text(analysis) if analysis is not None else "")
        self._update_power(*rack_figures(analysis))
        self._update_heat(analysis.cooling if analysis is not None else None)
        self._update_fabric(fabric_tiers(analysis.fabric if analysis is not None else None))
        self._update_training(analysis.training if analysis is not None else None)

    # ---- layout -----------------------------------------------------------------------------
    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._reflow()

    def _reflow(self) -> None:
        """Two columns of cards when the panel is wide enough for two readable charts, else one."""
        columns = 2 if self.width() >= TWO_COLUMNS_MIN_WIDTH else 1
        if columns == self.columns:
            return
        self.columns = columns
        for card in self.cards:
            self.grid.removeWidget(card)
        for i, card in enumerate(self.cards):
            self.grid.addWidget(card, i // columns, i % columns)
        rows = math.ceil(len(self.cards) / columns)
        for r in range(len(self.cards)):
            self.grid.setRowStretch(r, 1 if r < rows else 0)
        for c in range(2):
            self.grid.setColumnStretch(c, 1 if c < columns else 0)

    # ---- charts -----------------------------------------------------------------------------
    def _update_power(self, names: list[str], kw: np.ndarray, limit: np.ndarray, util: np.ndarray) -> None:
        """Bars of each rack's max draw, its limit as a dash, coloured by the power engine's utilisation."""
        racks = self._rack_names = list(names)
        x = np.arange(len(racks), dtype=float)
        # a limit of 0 is no limit: no dash, and no share of it to colour by
        limit = np.where(limit > 0, limit, np.nan)
        self._rack_kw, self._rack_limit = kw, limit
        # The power engine's share of each rack's limit (NaN where it gives none): it colours the bars.
        self.rack_utilisation = util = np.where(np.isnan(limit), np.nan, util)
        brushes = [style.heat_color(None if math.isnan(u) else float(u)) for u in util]
        self.kw_bars.setOpts(x=x, height=kw, brushes=brushes)
        lx = np.repeat(x, 2) + np.tile([-0.45, 0.45], len(racks))
        self.limit_curve.setData(lx, np.repeat(limit, 2))
        labels = [self._rack_label(name) for name in names]
        self._rack_labels = [text for text, _ in labels]
        self._widest_rack_label = max((width for _, width in labels), default=0.0)
        top = 1.0
        if racks:
            self.kw_plot.setXRange(-0.6, len(racks) - 0.4, padding=0)
            top = max(1.0, float(np.nanmax(np.concatenate([kw, limit])) if np.isfinite(limit).any() else kw.max()))
            self.kw_plot.setYRange(0, top * 1.12, padding=0)
        # The first rack's label hangs half outside the plot area, over the corner below this axis.
        _fit_axis_width(self.kw_plot.getAxis("left"), 0, top * 1.12, self._tick_metrics,
                        self._widest_rack_label / 2 + 2)
        self._set_rack_ticks()
        over = int(np.sum(util > 1.0 + 1e-9))  # NaN compares False: a rack without a figure is not "over"
        self.kw_card.title.setText(f"Power per rack vs limit{f' · {number(over)} over limit' if over else ''} &nbsp;"
                                   f"{_key(style.series('limit'), '- - limit')}")
        self.kw_card.show_plot(bool(racks))

    def _rack_label(self, name: str) -> tuple[str, float]:
        """(tick text, its width in px) for a rack name, remembered: names rarely change between results,
        and measuring 1,400 names anew would be most of an update's time."""
        known = self._label_cache.get(name)
        if known is None:
            if len(self._label_cache) > 20_000:  # renamed racks' old names pile up over a long session
                self._label_cache.clear()
            text = self._tick_metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, RACK_LABEL_MAX_PX)
            known = self._label_cache[name] = (text, self._tick_metrics.horizontalAdvance(text))
        return known

    def _set_rack_ticks(self) -> None:
        """Label every k-th rack, always the first, with k the fewest that keeps the names apart."""
        labels = self._rack_labels
        axis = self.kw_plot.getAxis("bottom")
        if not labels:
            axis.setTicks([[]])
            return
        view = self.kw_plot.getViewBox()
        (x0, x1), width = view.viewRange()[0], view.width()
        px_per_unit = width / (x1 - x0) if x1 > x0 else 0.0
        step = label_step(len(labels), px_per_unit, self._widest_rack_label)
        half = self._widest_rack_label / 2
        # The first label may hang left over the empty corner below the y axis (the left axis is at least
        # that wide); on the right there is no such room, so a label that would pass the edge is dropped.
        axis.setStyle(hideOverlappingLabels=int(math.ceil(half)) + 1)
        ticks = [(i, labels[i]) for i in range(0, len(labels), step)
                 if i == 0 or (i - x0) * px_per_unit + half <= width]
        axis.setTicks([ticks])

    def _update_heat(self, cooling: CoolingView | None) -> None:
        self._cooling = cooling
        (_, liquid, liquid_cap), (_, air, air_cap) = heat_figures(cooling)
        self.heat_bars.setOpts(height=[liquid, air])
        self.capacity_curve.setData([-0.4, 0.4, 0.6, 1.4], [liquid_cap, liquid_cap, air_cap, air_cap])
        top = float(np.nanmax([liquid, air, liquid_cap, air_cap])) if (liquid or air) else 1.0
        axis = self.heat_plot.getAxis("left")
        scale, title = _axis_unit(top, "kW", ((1e4, 1e-3, "MW"),))
        axis.setScale(scale)
        _set_axis_title(axis, title, style.MUTED_TEXT)
        self.heat_plot.setYRange(0, top * 1.12, padding=0)
        _fit_axis_width(axis, 0, top * 1.12, self._tick_metrics)
        self.heat_card.show_plot(bool(liquid or air))

    def _update_fabric(self, tiers: list[tuple[str, float, float]]) -> None:
        self._tiers = list(tiers)
        x = np.arange(len(tiers), dtype=float)
        used = np.array([t[1] for t in tiers], dtype=float)
        free = np.array([t[2] for t in tiers], dtype=float)
        self.ports_used.setOpts(x=x, height=used)
        self.ports_free.setOpts(x=x, y0=used, height=free)
        self.fabric_plot.getAxis("bottom").setTicks([[(i, t[0]) for i, t in enumerate(tiers)]])
        top = 1.0
        if tiers:
            top = float((used + free).max() or 1.0)
            self.fabric_plot.setXRange(-0.6, len(tiers) - 0.4, padding=0)
            self.fabric_plot.setYRange(0, top * 1.1, padding=0)
        axis = self.fabric_plot.getAxis("left")
        scale, title = _axis_unit(top, "ports", ((1e5, 1e-3, "k ports"),))
        axis.setScale(scale)
        _set_axis_title(axis, title, style.MUTED_TEXT)
        _fit_axis_width(axis, 0, top * 1.1, self._tick_metrics)
        self.fabric_card.show_plot(bool(tiers))

    def _update_training(self, training: TrainingView | None) -> None:
        self._points = gpus, tokens, days = training_points(training.scaling if training is not None else None)
        self.tokens_curve.setData(gpus, tokens)
        self.days_curve.setData(gpus, days)
        if len(gpus):
            # Ranges set here rather than by autorange, which waits for a paint: a card scrolled out of
            # sight would keep a 0..1 axis, and the axis widths below are fitted to these very ranges.
            lo, hi = float(gpus[0]), float(gpus[-1])
            self.train_plot.setXRange(lo, hi, padding=0.06 if hi > lo else 0.5)
            left, right = self.train_plot.getAxis("left"), self.train_plot.getAxis("right")
            peak = float(np.nanmax(tokens)) if np.isfinite(tokens).any() else 1.0
            longest = float(np.nanmax(days)) if np.isfinite(days).any() else 1.0
            scale, title = _axis_unit(peak, "tok/s", ((1e6, 1e-6, "Mtok/s"), (1e3, 1e-3, "ktok/s")))
            left.setScale(scale)
            _set_axis_title(left, title, style.series("tokens"))
            # From zero: the chart compares how throughput grows and training time shrinks with the GPUs.
            self.train_plot.setYRange(0, peak * 1.1, padding=0)
            self.days_view.setYRange(0, longest * 1.1, padding=0)
            _fit_axis_width(left, 0, peak * 1.1, self._tick_metrics)
            _fit_axis_width(right, 0, longest * 1.1, self._tick_metrics)
        if not len(gpus) and training is not None:
            why = (training.problems[0] if training.problems else None) or training.error or training.status
            self.train_card.placeholder.setText(f"training engine: no scaling result ({why})")
        elif not len(gpus):
            self.train_card.placeholder.setText(NO_TRAINING)
        self.train_card.show_plot(bool(len(gpus)))

    def _sync_days_view(self) -> None:
        self.days_view.setGeometry(self.train_plot.getViewBox().geometry())
        self.days_view.linkedViewChanged(self.train_plot.getViewBox(), self.days_view.XAxis)

    # ---- hover ------------------------------------------------------------------------------
    def _on_mouse_moved(self, plot: pg.PlotWidget, text_at: Callable[[pg.PlotWidget, QPointF], str | None],
                        scene_pos: QPointF) -> None:
        """Show the exact figure under the cursor as a tooltip; hide it off the bars."""
        view = plot.getViewBox()
        text = text_at(plot, scene_pos) if view.sceneBoundingRect().contains(scene_pos) else None
        if text:
            QToolTip.showText(plot.mapToGlobal(plot.mapFromScene(scene_pos)), text, plot)
        else:
            QToolTip.hideText()

    def _power_at(self, plot: pg.PlotWidget, scene_pos: QPointF) -> str | None:
        i = bar_index(plot.getViewBox().mapSceneToView(scene_pos).x(), len(self._rack_names))
        if i is None:
            return None
        return power_tooltip(self._rack_names[i], float(self._rack_kw[i]), float(self._rack_limit[i]),
                             float(self.rack_utilisation[i]))

    def _heat_at(self, plot: pg.PlotWidget, scene_pos: QPointF) -> str | None:
        i = bar_index(plot.getViewBox().mapSceneToView(scene_pos).x(), 2)
        return None if i is None else heat_tooltip(self._cooling, i)

    def _fabric_at(self, plot: pg.PlotWidget, scene_pos: QPointF) -> str | None:
        i = bar_index(plot.getViewBox().mapSceneToView(scene_pos).x(), len(self._tiers))
        return None if i is None else fabric_tooltip(self._tiers, i)

    def _training_at(self, plot: pg.PlotWidget, scene_pos: QPointF) -> str | None:
        """The scaling point nearest the cursor along the GPU axis, if it is within a few pixels."""
        gpus = self._points[0]
        if not len(gpus):
            return None
        view = plot.getViewBox()
        x = view.mapSceneToView(scene_pos).x()
        j = int(np.searchsorted(gpus, x))
        near = min((k for k in (j - 1, j) if 0 <= k < len(gpus)), key=lambda k: abs(gpus[k] - x))
        px = abs(view.mapViewToScene(QPointF(float(gpus[near]), 0.0)).x() - scene_pos.x())
        return training_tooltip(self._points, near) if px <= POINT_HOVER_PX else None
