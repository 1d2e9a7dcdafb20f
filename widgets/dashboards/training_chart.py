"""The training chart: tokens/s (left axis) and days to train (right axis) against the GPU count."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetricsF


from ..app import style
from .chart_parts import Card, axis_unit, dashed, fit_axis_width, key, new_plot, set_axis_title
from .figures import training_points, training_tooltip

if TYPE_CHECKING:  # the views are read, never built, here; they load with the first analysis
    from designer.views import TrainingView

NO_TRAINING = "No training result yet: the training engine's estimate appears here once it has run."
#: A training point counts as hovered within this many pixels of the cursor, along the GPU axis.
POINT_HOVER_PX = 12


def plane_lost_point(training: TrainingView | None) -> tuple[float, float, str] | None:
    """(GPUs, tokens/s, caption) of the job with one of two fabric planes down; None on one plane."""
    lost = training.scenarios.plane_lost if training is not None and training.scenarios is not None else None
    if lost is None or not training.gpus:
        return None
    share = f"{lost.relative_tokens_per_s:.0%} of the tokens/s, " if lost.relative_tokens_per_s else ""
    return float(training.gpus), float(lost.tokens_per_s), f"{share}+{lost.extra_days:,.1f} days"


def unfit_caption(training: TrainingView | None) -> str:
    """When the design's own plan does not fit in GPU memory it has no point on the chart (it never runs): say so,
    and that the curve is the best plan that fits at each size."""
    if training is None or not training.ok or training.fits:
        return ""
    return (f'<br><span style="font-weight:normal; color:{style.SEVERITY["error"].name()}">the workload\'s plan does '
            f"not fit: {training.memory_gb_per_gpu:,.1f} GB per GPU of {training.hbm_gb:g} GB, so it has no "
            f"throughput; the curve is the best plan that fits at each size</span>")


class TrainingChart:
    """Training vs GPU count: two curves sharing the GPU axis, each with its own y axis."""

    def __init__(self, tick_metrics: QFontMetricsF):
        self._tick_metrics = tick_metrics
        self.points: tuple[np.ndarray, np.ndarray, np.ndarray] = training_points(None)
        tokens, days = style.series("tokens"), style.series("days")
        self.plot = new_plot("Mtok/s", "GPUs")
        set_axis_title(self.plot.getAxis("left"), "Mtok/s", tokens)
        self.tokens_curve = self.plot.plot([], [], pen=pg.mkPen(tokens, width=2), symbol="o",
                                           symbolSize=6, symbolBrush=tokens, name="tokens/s")
        self.days_view = pg.ViewBox()
        self.plot.showAxis("right")
        # A child of the plot item, not a free item of the scene: the scene then owns it on the C++ side and
        # deletes it once; a free item deleted by both the scene and Python crashes the app on close.
        self.days_view.setParentItem(self.plot.getPlotItem())
        self.plot.getAxis("right").linkToView(self.days_view)
        set_axis_title(self.plot.getAxis("right"), "days", days)
        self.days_view.setXLink(self.plot)
        self.days_curve = pg.PlotDataItem([], [], pen=dashed(days), symbol="s", symbolSize=5, symbolBrush=days)
        self.days_view.addItem(self.days_curve)
        self.plot.getViewBox().sigResized.connect(self._sync_days_view)
        lost = style.series("plane_lost")
        # A twin-plane fabric's job with one plane down, at the design's GPU count: a hollow mark below the curve.
        self.lost_point = self.plot.plot([], [], pen=None, symbol="o", symbolSize=11, symbolBrush=None,
                                         symbolPen=pg.mkPen(lost, width=2), name="one plane lost")
        self._title = (f"Training vs GPU count &nbsp;{key(tokens, 'tokens/s')} "
                       f"{key(days, 'days to train')}")
        self.card = Card(self._title, self.plot, NO_TRAINING)

    def update(self, training: TrainingView | None) -> None:
        self.points = gpus, tokens, days = training_points(training.scaling if training is not None else None)
        self.tokens_curve.setData(gpus, tokens)
        self.days_curve.setData(gpus, days)
        lost = plane_lost_point(training)
        self.lost_point.setData(*([lost[0]], [lost[1]]) if lost else ([], []))
        self.card.title.setText(self._title + (
            f' <span style="color:{style.series("plane_lost").name()}">○</span>&nbsp;'
            f'<span style="font-weight:normal">one plane lost: {lost[2]}</span>' if lost else "")
            + unfit_caption(training))
        if len(gpus):
            self._set_ranges(gpus, tokens, days)
        if not len(gpus) and training is not None:
            why = (training.problems[0] if training.problems else None) or training.error or training.status
            self.card.placeholder.setText(f"training engine: no scaling result ({why})")
        elif not len(gpus):
            self.card.placeholder.setText(NO_TRAINING)
        self.card.show_plot(bool(len(gpus)))

    def _set_ranges(self, gpus: np.ndarray, tokens: np.ndarray, days: np.ndarray) -> None:
        """Both axes from zero, the GPU axis over the points, and the y axes as wide as their tick labels.

        Ranges are set here rather than by autorange, which waits for a paint: a card scrolled out of sight
        would keep a 0..1 axis, and the axis widths are fitted to these very ranges."""
        lo, hi = float(gpus[0]), float(gpus[-1])
        self.plot.setXRange(lo, hi, padding=0.06 if hi > lo else 0.5)
        left, right = self.plot.getAxis("left"), self.plot.getAxis("right")
        peak = float(np.nanmax(tokens)) if np.isfinite(tokens).any() else 1.0
        longest = float(np.nanmax(days)) if np.isfinite(days).any() else 1.0
        scale, title = axis_unit(peak, "tok/s", ((1e6, 1e-6, "Mtok/s"), (1e3, 1e-3, "ktok/s")))
        left.setScale(scale)
        set_axis_title(left, title, style.series("tokens"))
        # From zero: the chart compares how throughput grows and training time shrinks with the GPUs.
        self.plot.setYRange(0, peak * 1.1, padding=0)
        self.days_view.setYRange(0, longest * 1.1, padding=0)
        fit_axis_width(left, 0, peak * 1.1, self._tick_metrics)
        fit_axis_width(right, 0, longest * 1.1, self._tick_metrics)

    def _sync_days_view(self) -> None:
        self.days_view.setGeometry(self.plot.getViewBox().geometry())
        self.days_view.linkedViewChanged(self.plot.getViewBox(), self.days_view.XAxis)

    def text_at(self, plot: pg.PlotWidget, scene_pos: QPointF) -> str | None:
        """The scaling point nearest the cursor along the GPU axis, if it is within a few pixels."""
        gpus = self.points[0]
        if not len(gpus):
            return None
        view = plot.getViewBox()
        x = view.mapSceneToView(scene_pos).x()
        j = int(np.searchsorted(gpus, x))
        near = min((k for k in (j - 1, j) if 0 <= k < len(gpus)), key=lambda k: abs(gpus[k] - x))
        px = abs(view.mapViewToScene(QPointF(float(gpus[near]), 0.0)).x() - scene_pos.x())
        return training_tooltip(self.points, near) if px <= POINT_HOVER_PX else None
