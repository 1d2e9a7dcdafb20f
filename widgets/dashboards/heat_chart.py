"""The heat chart: the design's heat to liquid and to air, each against the halls' capacity for it."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetricsF


from ..app import style
from .chart_parts import Card, axis_unit, dashed, fit_axis_width, key, new_plot, set_axis_title
from .figures import bar_index, heat_figures, heat_tooltip

if TYPE_CHECKING:  # the views are read, never built, here; they load with the first analysis
    from designer.views import CoolingView


class HeatChart:
    """Heat: liquid vs air; two bars and their hall capacities as dashes."""

    def __init__(self, tick_metrics: QFontMetricsF):
        self._tick_metrics = tick_metrics
        self.cooling: CoolingView | None = None
        limit_colour = style.series("limit")
        self.plot = new_plot("kW")
        self.bars = pg.BarGraphItem(x=[0, 1], height=[0, 0], width=0.6,
                                    brushes=[style.series("liquid"), style.series("air")], pen=pg.mkPen(None))
        self.capacity_curve = pg.PlotDataItem([], [], connect="pairs", pen=dashed(limit_colour))
        self.plot.addItem(self.bars)
        self.plot.addItem(self.capacity_curve)
        self.plot.getAxis("bottom").setTicks([[(0, "Liquid"), (1, "Air")]])
        self.plot.setXRange(-0.6, 1.6, padding=0)
        self.card = Card(f"Heat: liquid vs air &nbsp;{key(limit_colour, '- - hall capacity')}",
                         self.plot, "No heat load yet.")

    def update(self, cooling: CoolingView | None) -> None:
        self.cooling = cooling
        (_, liquid, liquid_cap), (_, air, air_cap) = heat_figures(cooling)
        self.bars.setOpts(height=[liquid, air])
        self.capacity_curve.setData([-0.4, 0.4, 0.6, 1.4], [liquid_cap, liquid_cap, air_cap, air_cap])
        top = float(np.nanmax([liquid, air, liquid_cap, air_cap])) if (liquid or air) else 1.0
        axis = self.plot.getAxis("left")
        scale, title = axis_unit(top, "kW", ((1e4, 1e-3, "MW"),))
        axis.setScale(scale)
        set_axis_title(axis, title, style.MUTED_TEXT)
        self.plot.setYRange(0, top * 1.12, padding=0)
        fit_axis_width(axis, 0, top * 1.12, self._tick_metrics)
        self.card.show_plot(bool(liquid or air))

    def text_at(self, plot: pg.PlotWidget, scene_pos: QPointF) -> str | None:
        i = bar_index(plot.getViewBox().mapSceneToView(scene_pos).x(), 2)
        return None if i is None else heat_tooltip(self.cooling, i)
