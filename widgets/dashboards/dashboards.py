"""Live charts of the latest analysis: kW per rack against its limit, heat by medium, fabric ports, scaling,
and the storage and checkpoint figures.

Every plot item is created once and refreshed with ``setOpts``/``setData`` on
each :meth:`DashboardPanel.set_analysis`, so a result arriving every few
hundred milliseconds costs a data swap, not a scene rebuild. Sections another
engine has not produced yet (``fabric``, ``training``) show a plain "no data"
card instead of an empty frame; they light up when that engine's result has
the keys described in :func:`fabric_tiers` and :func:`training_points`.

Each chart is its own module (:mod:`.power_chart`, :mod:`.heat_chart`, :mod:`.fabric_chart`,
:mod:`.training_chart`), built from :mod:`.chart_parts` and drawing what :mod:`.figures` computes; this
panel lays the four cards out, feeds them and shows what the cursor is over.

The four cards sit in a scroll area: a short dock scrolls instead of squashing
the charts below :data:`CHART_MIN_HEIGHT`, and a narrow one stacks them in one
column. Hovering a bar or point shows its exact figure; the texts come from
the pure ``*_tooltip`` functions so they can be checked without a mouse.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QScrollArea, QToolTip, QVBoxLayout, QWidget

from catalog import Catalog

from ..app import style
from .chart_parts import AXIS_TITLE_PX, CARD_MIN_WIDTH, CHART_MIN_HEIGHT, TICK_PX, pixel_font
from .fabric_chart import FabricChart
from .figures import (RACK_LABEL_GAP_PX, bar_index, fabric_kind, fabric_text, fabric_tiers, fabric_tooltip,
                      heat_figures, heat_tooltip, label_step, power_tooltip, rack_figures, rack_name, totals_parts,
                      totals_text, training_points, training_tooltip)
from .heat_chart import HeatChart
from .power_chart import RACK_LABEL_MAX_PX, PowerChart
from .storage_card import StorageCard
from .training_chart import NO_TRAINING, POINT_HOVER_PX, TrainingChart

__all__ = ["AXIS_TITLE_PX", "CARD_MIN_WIDTH", "CHART_MIN_HEIGHT", "NO_TRAINING", "POINT_HOVER_PX",
           "RACK_LABEL_GAP_PX", "RACK_LABEL_MAX_PX", "TICK_PX", "TWO_COLUMNS_MIN_WIDTH", "DashboardPanel",
           "bar_index", "fabric_kind", "fabric_text", "fabric_tiers", "fabric_tooltip", "heat_figures",
           "heat_tooltip", "label_step", "power_tooltip", "rack_figures", "rack_name", "totals_parts", "totals_text",
           "training_points", "training_tooltip"]

#: Two charts side by side need about this much width to keep ~300 px each; narrower, one column.
TWO_COLUMNS_MIN_WIDTH = 700


class DashboardPanel(QWidget):
    """Four charts and the storage card fed by :meth:`set_analysis`; :meth:`set_busy` shows that a newer result
    is coming."""

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
        metrics = QFontMetricsF(pixel_font(TICK_PX))
        self.power, self.heat = PowerChart(metrics), HeatChart(metrics)
        self.fabric, self.training = FabricChart(metrics), TrainingChart(metrics)
        self.storage = StorageCard()
        self.storage_card = self.storage.card
        self._name_chart_parts()
        for chart in (self.power, self.heat, self.fabric, self.training):
            chart.plot.scene().sigMouseMoved.connect(partial(self._on_mouse_moved, chart.plot, chart.text_at))
        self.cards = [self.kw_card, self.heat_card, self.fabric_card, self.train_card, self.storage_card]
        self._build_layout()
        self._reflow()
        self.set_analysis(None)

    def _name_chart_parts(self) -> None:
        """The charts' plots, items and cards under the panel's names for them."""
        power, heat, fabric, training = self.power, self.heat, self.fabric, self.training
        self.kw_plot, self.kw_bars = power.plot, power.bars
        self.limit_curve, self.kw_card = power.limit_curve, power.card
        self.heat_plot, self.heat_bars = heat.plot, heat.bars
        self.capacity_curve, self.heat_card = heat.capacity_curve, heat.card
        self.fabric_plot, self.fabric_card = fabric.plot, fabric.card
        self.ports_used, self.ports_free = fabric.ports_used, fabric.ports_free
        self.train_plot, self.train_card = training.plot, training.card
        self.tokens_curve, self.days_curve, self.days_view = (training.tokens_curve, training.days_curve,
                                                              training.days_view)

    def _build_layout(self) -> None:
        """The totals and busy note on top, the cards in a grid in a scroll area below."""
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

    @property
    def rack_utilisation(self):
        """The power engine's share of each rack's limit, NaN where it gives none (the bars' colours)."""
        return self.power.utilisation

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
        self.power.update(*rack_figures(analysis))
        self.heat.update(analysis.cooling if analysis is not None else None)
        fabric = analysis.fabric if analysis is not None else None
        self.fabric.update(fabric_tiers(fabric), fabric_kind(fabric), fabric_text(fabric),
                           fabric.planes if fabric is not None else 1)
        self.training.update(analysis.training if analysis is not None else None)
        # an analysis whose storage engine did not run (a partial result) shows the card's placeholder
        stored = analysis is not None and analysis.has("storage")
        trained = stored and analysis.has("training")
        self.storage.update(analysis.storage if stored else None, analysis.training if trained else None)

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
            # an odd card out at the end spans both columns rather than leaving half a row empty
            span = columns if i == len(self.cards) - 1 and i % columns == 0 else 1
            self.grid.addWidget(card, i // columns, i % columns, 1, span)
        rows = math.ceil(len(self.cards) / columns)
        for r in range(len(self.cards)):
            self.grid.setRowStretch(r, 1 if r < rows else 0)
        for c in range(2):
            self.grid.setColumnStretch(c, 1 if c < columns else 0)

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
