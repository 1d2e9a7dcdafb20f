"""Live charts of the latest analysis: kW per rack against its limit, heat by medium, fabric ports, scaling.

Every plot item is created once and refreshed with ``setOpts``/``setData`` on
each :meth:`DashboardPanel.set_analysis`, so a result arriving every few
hundred milliseconds costs a data swap, not a scene rebuild. Sections another
engine has not produced yet (``fabric``, ``training``) show a plain "no data"
card instead of an empty frame; they light up when that engine's result has
the keys described in :func:`fabric_tiers` and :func:`training_points`.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QGridLayout, QLabel, QStackedWidget, QVBoxLayout, QWidget

from catalog import Catalog

from . import style

OK_BAR = style.ROLES["compute"][0]
#: the plan's heat-map colours, so a rack's bar and its square on the plan never disagree
OVER_BAR = QColor(style.HEAT_OVER)
LIMIT_PEN = pg.mkPen(QColor("#B3261E"), width=2, style=Qt.PenStyle.DashLine)
LIQUID = style.CDU[0]
AIR = QColor("#7C9CC4")
USED = style.ROLES["network"][0]
FREE = QColor("#D5DBE3")
NO_TRAINING = "No training result yet: the training engine's estimate appears here once it has run."


def totals_parts(analysis) -> list[str]:
    """['256 GPUs', '484.6 kW IT', '576.0 PF BF16', 'USD 17.52 M (est.)'] for the status bar.

    Every figure is the engines' (summary and bill of materials); nothing is recounted
    here. "(est.)" marks a total that rests on unconfirmed prices.
    """
    summary = analysis.summary
    parts = [f"{summary.get('gpus', 0):,} GPUs", f"{summary.get('it_power_max_kw', 0.0):,.1f} kW IT",
             f"{summary.get('bf16_pflops', 0.0):,.1f} PF BF16"]
    bom = analysis.sections.get("bom")
    if isinstance(bom, Mapping) and bom.get("price_total") is not None:
        price, currency = float(bom["price_total"]), bom.get("currency", "USD")
        money = f"{currency} {price / 1e6:,.2f} M" if price >= 1e5 else f"{currency} {price:,.0f}"
        parts.append(money + (" (est.)" if bom.get("estimated") else ""))
    return parts


def totals_text(analysis) -> str:
    """'256 GPUs · 484.6 kW IT · 576.0 PF BF16 · USD 17.52 M (est.)': :func:`totals_parts` on one line."""
    return " · ".join(totals_parts(analysis))


def fabric_tiers(section: dict | None) -> list[tuple[str, float, float]]:
    """(tier, used, free) from the fabric engine's ``ports`` mapping; tiers the design lacks are left out."""
    ports = section.get("ports") if isinstance(section, Mapping) else None
    if not isinstance(ports, Mapping):
        return []
    return [(tier, float(p["used"]), float(max(p["free"], 0))) for tier, p in ports.items()
            if isinstance(p, Mapping) and (p.get("used") or p.get("free"))]


def training_points(section: dict | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GPU counts, tokens/s and days to train from ``training["scaling"]``, sorted by GPUs."""
    rows = section.get("scaling") if isinstance(section, Mapping) else None
    rows = [r for r in rows or [] if isinstance(r, Mapping) and r.get("gpus")]
    rows.sort(key=lambda r: r["gpus"])
    get = lambda key: np.array([float(r.get(key) or np.nan) for r in rows])  # noqa: E731
    return get("gpus"), get("tokens_per_s"), get("time_to_train_days")


def _key(colour: QColor, text: str) -> str:
    """A coloured square and its meaning, for a chart title (rich text)."""
    return f'<span style="color:{colour.name()}">■</span>&nbsp;<span style="font-weight:normal">{text}</span>'


def _plot(left: str, bottom: str = "") -> pg.PlotWidget:
    w = pg.PlotWidget(background="w")
    w.setMenuEnabled(False)
    w.setMouseEnabled(x=False, y=False)
    w.hideButtons()
    font = QFont()
    font.setPixelSize(11)
    for name in ("left", "bottom", "right"):
        axis = w.getAxis(name)
        axis.setTextPen(style.TEXT)
        axis.setPen(style.MUTED_TEXT)
        axis.setStyle(tickFont=font)
    w.setLabel("left", left, color=style.MUTED_TEXT.name())
    if bottom:
        w.setLabel("bottom", bottom, color=style.MUTED_TEXT.name())
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
        self.plot = plot
        self.placeholder = QLabel(placeholder)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setStyleSheet(f"color: {style.MUTED_TEXT.name()}; background: white;"
                                       f"border: 1px dashed {FREE.darker(115).name()};")
        self.stack = QStackedWidget()
        self.stack.addWidget(plot)
        self.stack.addWidget(self.placeholder)
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

        tick_font = QFont()
        tick_font.setPixelSize(11)
        self._tick_metrics = QFontMetricsF(tick_font)
        self.kw_plot = _plot("kW (max draw)")
        self.kw_bars = pg.BarGraphItem(x=[], height=[], width=0.7, brushes=[], pen=pg.mkPen(None))
        self.limit_curve = pg.PlotDataItem([], [], connect="pairs", pen=LIMIT_PEN)
        self.kw_plot.addItem(self.kw_bars)
        self.kw_plot.addItem(self.limit_curve)
        self.kw_card = _Card("Power per rack vs limit", self.kw_plot, "No racks yet.")

        self.heat_plot = _plot("kW of heat")
        self.heat_bars = pg.BarGraphItem(x=[0, 1], height=[0, 0], width=0.6, brushes=[LIQUID, AIR],
                                         pen=pg.mkPen(None))
        self.capacity_curve = pg.PlotDataItem([], [], connect="pairs", pen=LIMIT_PEN)
        self.heat_plot.addItem(self.heat_bars)
        self.heat_plot.addItem(self.capacity_curve)
        self.heat_plot.getAxis("bottom").setTicks([[(0, "Liquid"), (1, "Air")]])
        self.heat_plot.setXRange(-0.6, 1.6, padding=0)
        self.heat_card = _Card(f"Heat: liquid vs air &nbsp;{_key(LIMIT_PEN.color(), '- - hall capacity')}",
                               self.heat_plot, "No heat load yet.")

        self.fabric_plot = _plot("ports")
        self.ports_used = pg.BarGraphItem(x=[], height=[], width=0.6, brush=USED, pen=pg.mkPen(None))
        self.ports_free = pg.BarGraphItem(x=[], y0=[], height=[], width=0.6, brush=FREE, pen=pg.mkPen(None))
        self.fabric_plot.addItem(self.ports_used)
        self.fabric_plot.addItem(self.ports_free)
        self.fabric_card = _Card(f"Fabric ports per tier &nbsp;{_key(USED, 'used')} {_key(FREE.darker(120), 'free')}",
                                 self.fabric_plot,
                                 "fabric engine: no data")

        self.train_plot = _plot("throughput", "GPUs")
        self.train_plot.setLabel("left", "", units="tok/s", color=OK_BAR.name())
        self.tokens_curve = self.train_plot.plot([], [], pen=pg.mkPen(OK_BAR, width=2), symbol="o",
                                                 symbolSize=6, symbolBrush=OK_BAR, name="tokens/s")
        self.days_view = pg.ViewBox()
        self.train_plot.showAxis("right")
        # A child of the plot item, not a free item of the scene: the scene then owns it on the C++ side and
        # deletes it once; a free item deleted by both the scene and Python crashes the app on close.
        self.days_view.setParentItem(self.train_plot.getPlotItem())
        self.train_plot.getAxis("right").linkToView(self.days_view)
        self.train_plot.getAxis("right").setLabel("days to train", color=LIQUID.name())
        self.days_view.setXLink(self.train_plot)
        self.days_curve = pg.PlotDataItem([], [], pen=pg.mkPen(LIQUID, width=2, style=Qt.PenStyle.DashLine),
                                          symbol="s", symbolSize=5, symbolBrush=LIQUID)
        self.days_view.addItem(self.days_curve)
        self.train_plot.getViewBox().sigResized.connect(self._sync_days_view)
        self.train_card = _Card(f"Training vs GPU count &nbsp;{_key(OK_BAR, 'tokens/s')} "
                                f"{_key(LIQUID, 'days to train')}", self.train_plot, NO_TRAINING)

        grid = QGridLayout()
        grid.setSpacing(6)
        for i, card in enumerate([self.kw_card, self.heat_card, self.fabric_card, self.train_card]):
            grid.addWidget(card, i // 2, i % 2)
        header = QVBoxLayout(self)
        header.setContentsMargins(6, 4, 6, 4)
        top = QGridLayout()
        top.addWidget(self.totals, 0, 0)
        top.addWidget(self.busy_label, 0, 1, Qt.AlignmentFlag.AlignRight)
        header.addLayout(top)
        header.addLayout(grid, 1)
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
        return totals_text(analysis)

    def set_analysis(self, analysis) -> None:
        """Show ``analysis`` (or clear with None), updating the existing plot items in place."""
        self.analysis = analysis
        sections = analysis.sections if analysis is not None else {}
        self.totals.setText(self.totals_text(analysis) if analysis is not None else "")
        self._update_power(sections.get("power", {}).get("racks", []))
        self._update_heat(sections.get("cooling"))
        self._update_fabric(fabric_tiers(sections.get("fabric")))
        self._update_training(sections.get("training"))

    # ---- charts -----------------------------------------------------------------------------
    def _update_power(self, racks: list[dict]) -> None:
        """Bars of each rack's max draw, its limit as a dash, coloured by the power engine's utilisation."""
        x = np.arange(len(racks), dtype=float)
        kw = np.array([r["max_kw"] for r in racks], dtype=float)
        limit = np.array([r.get("limit_kw") or np.nan for r in racks], dtype=float)
        # The power engine's share of each rack's limit (NaN where it gives none): it colours the bars.
        self.rack_utilisation = util = np.array(
            [np.nan if r.get("utilisation") is None else r["utilisation"] for r in racks], dtype=float)
        brushes = [style.heat_color(None if u != u else float(u)) for u in util]
        self.kw_bars.setOpts(x=x, height=kw, brushes=brushes)
        lx = np.repeat(x, 2) + np.tile([-0.45, 0.45], len(racks))
        self.limit_curve.setData(lx, np.repeat(limit, 2))
        self._rack_names = [str(r["name"]).split()[0][:8] if str(r["name"]).strip() else r["id"] for r in racks]
        self._set_rack_ticks()
        if racks:
            self.kw_plot.setXRange(-0.6, len(racks) - 0.4, padding=0)
            top = np.nanmax(np.concatenate([kw, limit])) if np.isfinite(limit).any() else kw.max()
            self.kw_plot.setYRange(0, max(1.0, float(top)) * 1.12, padding=0)
        over = int(np.sum(util > 1.0 + 1e-9))  # NaN compares False: a rack without a figure is not "over"
        self.kw_card.title.setText(f"Power per rack vs limit{f' · {over} over limit' if over else ''} &nbsp;"
                                   f"{_key(LIMIT_PEN.color(), '- - limit')}")
        self.kw_card.show_plot(bool(racks))

    def _set_rack_ticks(self) -> None:
        """Label every rack when there is room, else every n-th (about 38 px per label at 11 px)."""
        names = getattr(self, "_rack_names", [])
        widest = max((self._tick_metrics.horizontalAdvance(n) for n in names), default=0.0)
        room = max(1, int((self.kw_plot.width() - 60) / (widest + 10)))
        step = max(1, int(np.ceil(len(names) / room)))
        self.kw_plot.getAxis("bottom").setTicks([[(i, n) for i, n in enumerate(names) if i % step == 0]])

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._set_rack_ticks()

    def _update_heat(self, cooling: dict | None) -> None:
        cooling = cooling or {}
        liquid, air = float(cooling.get("liquid_kw", 0.0)), float(cooling.get("air_kw", 0.0))
        self.heat_bars.setOpts(height=[liquid, air])
        halls = cooling.get("halls", [])
        caps = [sum(h.get(k) or 0.0 for h in halls) or np.nan for k in ("liquid_capacity_kw", "air_capacity_kw")]
        self.capacity_curve.setData([-0.4, 0.4, 0.6, 1.4], [caps[0], caps[0], caps[1], caps[1]])
        top = np.nanmax([liquid, air, *caps]) if (liquid or air) else 1.0
        self.heat_plot.setYRange(0, float(top) * 1.12, padding=0)
        self.heat_card.show_plot(bool(liquid or air))

    def _update_fabric(self, tiers: list[tuple[str, float, float]]) -> None:
        x = np.arange(len(tiers), dtype=float)
        used = np.array([t[1] for t in tiers], dtype=float)
        free = np.array([t[2] for t in tiers], dtype=float)
        self.ports_used.setOpts(x=x, height=used)
        self.ports_free.setOpts(x=x, y0=used, height=free)
        self.fabric_plot.getAxis("bottom").setTicks([[(i, t[0]) for i, t in enumerate(tiers)]])
        if tiers:
            self.fabric_plot.setXRange(-0.6, len(tiers) - 0.4, padding=0)
            self.fabric_plot.setYRange(0, float((used + free).max() or 1.0) * 1.1, padding=0)
        self.fabric_card.show_plot(bool(tiers))

    def _update_training(self, section: dict | None) -> None:
        gpus, tokens, days = training_points(section)
        self.tokens_curve.setData(gpus, tokens)
        self.days_curve.setData(gpus, days)
        if len(gpus):
            self.train_plot.enableAutoRange()
            self.days_view.enableAutoRange(axis=pg.ViewBox.YAxis)
        if not len(gpus) and isinstance(section, Mapping):
            why = (section.get("problems") or [None])[0] or section.get("error") or section.get("status")
            self.train_card.placeholder.setText(f"training engine: no scaling result ({why})")
        elif not len(gpus):
            self.train_card.placeholder.setText(NO_TRAINING)
        self.train_card.show_plot(bool(len(gpus)))

    def _sync_days_view(self) -> None:
        self.days_view.setGeometry(self.train_plot.getViewBox().geometry())
        self.days_view.linkedViewChanged(self.train_plot.getViewBox(), self.days_view.XAxis)
