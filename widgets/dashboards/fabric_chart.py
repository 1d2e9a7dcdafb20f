"""The fabric chart: the compute fabric's ports per tier, used and free stacked; its bottom axis names the fabric
(technology and planes), and hovering a bar adds the switches of every plane and of one."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetricsF

from ..app import style
from .chart_parts import Card, axis_unit, fit_axis_width, key, new_plot, set_axis_title
from .figures import bar_index, fabric_tooltip


class FabricChart:
    """Fabric ports per tier: a used bar with the free ports stacked on it, for each tier the design has."""

    def __init__(self, tick_metrics: QFontMetricsF):
        self._tick_metrics = tick_metrics
        self.tiers: list[tuple[str, float, float]] = []
        #: the fabric's technology and planes (the bottom axis' title), and its switches (hover text)
        self.kind, self.detail = "", ""
        self.planes = 1
        used, free = style.series("used"), style.series("free")
        self.plot = new_plot("ports")
        self.ports_used = pg.BarGraphItem(x=[], height=[], width=0.6, brush=used, pen=pg.mkPen(None))
        # The free share is pale; an outline in its darker shade keeps it visible on the white plot.
        self.ports_free = pg.BarGraphItem(x=[], y0=[], height=[], width=0.6, brush=free,
                                          pen=pg.mkPen(free.darker(120)))
        self.plot.addItem(self.ports_used)
        self.plot.addItem(self.ports_free)
        self.card = Card(f"Fabric ports per tier &nbsp;{key(used, 'used')} {key(free.darker(120), 'free')}",
                         self.plot, "fabric engine: no data")

    def update(self, tiers: list[tuple[str, float, float]], kind: str = "", detail: str = "",
               planes: int = 1) -> None:
        """Draw ``tiers`` (from :func:`fabric_tiers`) over ``kind`` (:func:`fabric_kind`, the axis title); the title's
        tooltip is ``detail`` (:func:`fabric_text`), which hovering a bar adds too when there are several ``planes``
        (a bar's ports are every plane's). The axis title costs no height a card would take from the charts below."""
        self.tiers = list(tiers)
        self.kind, self.detail = (kind, detail) if tiers else ("", "")
        self.planes = planes
        bottom = self.plot.getAxis("bottom")
        set_axis_title(bottom, self.kind, style.MUTED_TEXT)
        bottom.showLabel(bool(self.kind))
        self.card.title.setToolTip(self.detail)
        x = np.arange(len(tiers), dtype=float)
        used = np.array([t[1] for t in tiers], dtype=float)
        free = np.array([t[2] for t in tiers], dtype=float)
        self.ports_used.setOpts(x=x, height=used)
        self.ports_free.setOpts(x=x, y0=used, height=free)
        self.plot.getAxis("bottom").setTicks([[(i, t[0]) for i, t in enumerate(tiers)]])
        top = 1.0
        if tiers:
            top = float((used + free).max() or 1.0)
            self.plot.setXRange(-0.6, len(tiers) - 0.4, padding=0)
            self.plot.setYRange(0, top * 1.1, padding=0)
        axis = self.plot.getAxis("left")
        scale, title = axis_unit(top, "ports", ((1e5, 1e-3, "k ports"),))
        axis.setScale(scale)
        set_axis_title(axis, title, style.MUTED_TEXT)
        fit_axis_width(axis, 0, top * 1.1, self._tick_metrics)
        self.card.show_plot(bool(tiers))

    def text_at(self, plot: pg.PlotWidget, scene_pos: QPointF) -> str | None:
        i = bar_index(plot.getViewBox().mapSceneToView(scene_pos).x(), len(self.tiers))
        if i is None:
            return None
        return fabric_tooltip(self.tiers, i) + (f"\n{self.detail}" if self.detail and self.planes > 1 else "")
