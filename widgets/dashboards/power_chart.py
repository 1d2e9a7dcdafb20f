"""The power chart: each rack's maximum draw as a bar against its limit as a dash, coloured by its share.

Rack names label the x axis, elided in the middle and thinned so that no two touch; they are recounted
whenever the plot area changes width. A 100,000-GPU floor has some 12,500 racks, so the names' widths are
remembered between results rather than measured anew.
"""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFontMetricsF

from designer.formatting import number

from ..app import style
from .chart_parts import Card, dashed, fit_axis_width, key, new_plot
from .figures import bar_index, label_step, power_tooltip

#: A rack label wider than this loses its middle (the ends tell "NET-A" from "NET-B"; the tooltip has the
#: whole name): one long name ("M01 management") would otherwise widen every slot and thin the whole axis.
RACK_LABEL_MAX_PX = 80


class PowerChart:
    """Power per rack vs limit: the plot, its bars and limit dashes, its card, and what hovering says."""

    def __init__(self, tick_metrics: QFontMetricsF):
        self._tick_metrics = tick_metrics
        self.names: list[str] = []
        self.kw = self.limit = np.zeros(0)
        #: The power engine's share of each rack's limit (NaN where it gives none): it colours the bars.
        self.utilisation = np.zeros(0)
        self._labels: list[str] = []
        self._label_cache: dict[str, tuple[str, float]] = {}
        self._widest_label = 0.0
        self.plot = new_plot("kW")
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.7, brushes=[], pen=pg.mkPen(None))
        self.limit_curve = pg.PlotDataItem([], [], connect="pairs", pen=dashed(style.series("limit")))
        self.plot.addItem(self.bars)
        self.plot.addItem(self.limit_curve)
        self.card = Card("Power per rack vs limit", self.plot, "No racks yet.")
        # Recount which rack names fit whenever the plot area changes width (dock dragged, columns reflowed).
        self.plot.getViewBox().sigResized.connect(self.set_rack_ticks)

    def update(self, names: list[str], kw: np.ndarray, limit: np.ndarray, util: np.ndarray) -> None:
        """Bars of each rack's max draw, its limit as a dash, coloured by the power engine's utilisation."""
        racks = self.names = list(names)
        x = np.arange(len(racks), dtype=float)
        # a limit of 0 is no limit: no dash, and no share of it to colour by
        limit = np.where(limit > 0, limit, np.nan)
        self.kw, self.limit = kw, limit
        self.utilisation = util = np.where(np.isnan(limit), np.nan, util)
        brushes = [style.heat_color(None if math.isnan(u) else float(u)) for u in util]
        self.bars.setOpts(x=x, height=kw, brushes=brushes)
        lx = np.repeat(x, 2) + np.tile([-0.45, 0.45], len(racks))
        self.limit_curve.setData(lx, np.repeat(limit, 2))
        labels = [self._rack_label(name) for name in names]
        self._labels = [text for text, _ in labels]
        self._widest_label = max((width for _, width in labels), default=0.0)
        top = 1.0
        if racks:
            self.plot.setXRange(-0.6, len(racks) - 0.4, padding=0)
            highest = np.nanmax(np.concatenate([kw, limit])) if np.isfinite(limit).any() else kw.max()
            top = max(1.0, float(highest))
            self.plot.setYRange(0, top * 1.12, padding=0)
        # The first rack's label hangs half outside the plot area, over the corner below this axis.
        fit_axis_width(self.plot.getAxis("left"), 0, top * 1.12, self._tick_metrics, self._widest_label / 2 + 2)
        self.set_rack_ticks()
        over = int(np.sum(util > 1.0 + 1e-9))  # NaN compares False: a rack without a figure is not "over"
        over_text = f" · {number(over)} over limit" if over else ""
        self.card.title.setText(f"Power per rack vs limit{over_text} &nbsp;{key(style.series('limit'), '- - limit')}")
        self.card.show_plot(bool(racks))

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

    def set_rack_ticks(self) -> None:
        """Label every k-th rack, always the first, with k the fewest that keeps the names apart."""
        labels = self._labels
        axis = self.plot.getAxis("bottom")
        if not labels:
            axis.setTicks([[]])
            return
        view = self.plot.getViewBox()
        (x0, x1), width = view.viewRange()[0], view.width()
        px_per_unit = width / (x1 - x0) if x1 > x0 else 0.0
        step = label_step(len(labels), px_per_unit, self._widest_label)
        half = self._widest_label / 2
        # The first label may hang left over the empty corner below the y axis (the left axis is at least
        # that wide); on the right there is no such room, so a label that would pass the edge is dropped.
        axis.setStyle(hideOverlappingLabels=int(math.ceil(half)) + 1)
        ticks = [(i, labels[i]) for i in range(0, len(labels), step)
                 if i == 0 or (i - x0) * px_per_unit + half <= width]
        axis.setTicks([ticks])

    def text_at(self, plot: pg.PlotWidget, scene_pos: QPointF) -> str | None:
        i = bar_index(plot.getViewBox().mapSceneToView(scene_pos).x(), len(self.names))
        if i is None:
            return None
        return power_tooltip(self.names[i], float(self.kw[i]), float(self.limit[i]), float(self.utilisation[i]))
