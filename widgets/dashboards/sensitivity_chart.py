"""How an option's days and run cost move when one assumption is off by a fifth: two tornado charts.

Each row is one assumption (MFU, failure rate, tokens, power price); its bars run from the option as designed
(the dashed line) to the figure with that assumption 20 % lower and 20 % higher, each labelled with its value.
The rows come from the option's ``sensitivity`` (:mod:`designer.goal.sensitivity`): nothing is worked out here.
"""
from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtWidgets import QHBoxLayout, QWidget

from designer.goal.sensitivity import CHANGE

from ..app import style
from .chart_parts import Card, dashed, key, new_plot, pixel_font, set_axis_title

NO_SENSITIVITY = "Choose an option whose plan runs: its days and cost with each assumption 20 % off show here."
#: bar height in rows, and the gap of the value labels from the bar's end (share of the plot's span)
BAR = 0.34
LABEL_GAP = 0.02


def lower_colour():
    return style.series("tokens")


def higher_colour():
    return style.series("days")


class Tornado:
    """One tornado: a figure (days or cost) per assumption at −20 % and +20 %, around the option as designed."""

    def __init__(self, title: str, unit: str):
        self.unit = unit
        self.plot = new_plot("", unit)
        self.plot.showGrid(x=True, y=False, alpha=0.25)
        self.plot.getAxis("left").setStyle(tickFont=pixel_font(12))
        self.lower = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR, brush=lower_colour(), pen=None)
        self.higher = pg.BarGraphItem(x0=[], y=[], width=[], height=BAR, brush=higher_colour(), pen=None)
        self.plot.addItem(self.lower)
        self.plot.addItem(self.higher)
        self.base_line = pg.InfiniteLine(angle=90, pen=dashed(style.series("limit")))
        self.plot.addItem(self.base_line)
        self.labels: list[pg.TextItem] = []
        #: (label, value at −20 %, value at +20 %) per row as drawn, top row first, and the value as designed
        self.rows: list[tuple[str, float, float]] = []
        self.base = 0.0
        self.card = Card(f"{title}<br>{key(lower_colour(), '20 % lower')}&nbsp;&nbsp;"
                         f"{key(higher_colour(), '20 % higher')}", self.plot, NO_SENSITIVITY)

    def show(self, base: float, rows: Sequence[tuple[str, float, float]], text) -> None:
        """Draw ``rows`` (label, low, high) around ``base``; ``text`` formats a value for its label."""
        self.base, self.rows = base, list(rows)
        n = len(rows)
        ys = [n - 1 - i for i in range(n)]  # the first row at the top
        lows = [r[1] for r in rows]
        highs = [r[2] for r in rows]
        self.lower.setOpts(x0=[min(base, v) for v in lows], y=[y + BAR / 2 for y in ys],
                           width=[abs(v - base) for v in lows], height=BAR)
        self.higher.setOpts(x0=[min(base, v) for v in highs], y=[y - BAR / 2 for y in ys],
                            width=[abs(v - base) for v in highs], height=BAR)
        self.base_line.setValue(base)
        self.plot.getAxis("left").setTicks([[(y, r[0]) for y, r in zip(ys, rows)], []])
        for item in self.labels:
            self.plot.removeItem(item)
        self.labels = []
        span = max([abs(v - base) for v in lows + highs] + [abs(base) * 0.05, 1e-9])
        gap = span * LABEL_GAP * 4
        for y, low, high in zip(ys, lows, highs):
            for value, offset in ((low, BAR / 2), (high, -BAR / 2)):
                right = value >= base
                label = pg.TextItem(text(value), color=style.TEXT, anchor=(0 if right else 1, 0.5))
                label.setFont(pixel_font(11))
                label.setPos(value + (gap if right else -gap), y + offset)
                self.plot.addItem(label)
                self.labels.append(label)
        # room for the labels on both sides of the widest bars
        self.plot.setXRange(base - span * 1.6, base + span * 1.6, padding=0)
        self.plot.setYRange(-0.7, n - 0.3, padding=0)
        self.card.show_plot(bool(rows))

    def clear(self) -> None:
        self.rows = []
        self.card.show_plot(False)


class SensitivityChart(QWidget):
    """Days to train and the run's cost of one option, each assumption 20 % off alone."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.days = Tornado("Days to train", "days")
        self.cost = Tornado("Cost of the run", "M")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.days.card, 1)
        lay.addWidget(self.cost.card, 1)
        self.clear()

    def clear(self) -> None:
        self.days.clear()
        self.cost.clear()

    def show_option(self, option) -> None:
        """Draw ``option``'s sensitivity rows (an Option of :mod:`designer.goal.options`); none: the placeholder."""
        rows = {(r["factor"], r["change"]): r for r in option.sensitivity} if option is not None else {}
        base = rows.get(("as_designed", 0.0))
        if base is None:
            self.clear()
            return
        labels = [(r["factor"], r["label"]) for r in option.sensitivity if r["change"] < 0]

        def pick(field: str, scale: float = 1.0) -> list[tuple[str, float, float]]:
            out = []
            for factor, label in labels:
                low, high = rows[(factor, -CHANGE)], rows[(factor, CHANGE)]
                out.append((label, low[field] / scale, high[field] / scale))
            return out

        self.days.show(base["days"], pick("days"), lambda v: f"{v:,.1f} d")
        # a small job's run costs thousands, not millions: the unit follows the figure as designed
        scale, prefix = (1e6, "M") if base["run_cost"] >= 1e6 else (1e3, "k")
        self.cost.unit = f"{prefix} {option.currency}"
        set_axis_title(self.cost.plot.getAxis("bottom"), self.cost.unit, style.MUTED_TEXT)
        self.cost.show(base["run_cost"] / scale, pick("run_cost", scale), lambda v: f"{v:,.2f}{prefix}")
