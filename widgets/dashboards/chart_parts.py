"""What every dashboard chart is made of: a plot styled for the dock, a titled card, axis titles and widths.

Shared by the four charts (:mod:`.power_chart`, :mod:`.heat_chart`, :mod:`.fabric_chart`,
:mod:`.training_chart`) so they read alike: the same tick font, muted axes, two tick levels, dashed limits.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QLabel, QStackedWidget, QVBoxLayout, QWidget

from ..app import style

#: Below this a chart's bars and ticks stop being readable; a shorter dock scrolls instead.
CHART_MIN_HEIGHT = 160
#: Narrower than this a card would squeeze its axes and titles; the cards then scroll sideways.
CARD_MIN_WIDTH = 260
TICK_PX = 11
AXIS_TITLE_PX = 12


def key(colour, text: str) -> str:
    """A coloured square and its meaning, for a chart title (rich text)."""
    return f'<span style="color:{colour.name()}">■</span>&nbsp;<span style="font-weight:normal">{text}</span>'


def pixel_font(px: int) -> QFont:
    """The application's default font, ``px`` pixels high."""
    font = QFont()
    font.setPixelSize(px)
    return font


def dashed(colour) -> pg.QtGui.QPen:
    return pg.mkPen(colour, width=2, style=Qt.PenStyle.DashLine)


def axis_unit(top: float, base: str, steps: Sequence[tuple[float, float, str]]) -> tuple[float, str]:
    """(tick scale, axis title): the first of ``steps`` (threshold, scale, title) that ``top`` reaches,
    else (1, base). Big designs get MW rather than six-digit kW ticks."""
    for threshold, scale, title in steps:
        if top >= threshold:
            return scale, title
    return 1.0, base


def set_axis_title(axis: pg.AxisItem, title: str, colour) -> None:
    if axis.labelText != title:
        axis.setLabel(title, color=colour.name(), **{"font-size": f"{AXIS_TITLE_PX}px"})


def fit_axis_width(axis: pg.AxisItem, low: float, high: float, metrics: QFontMetricsF, least: float = 0.0) -> None:
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


class ChartView(pg.PlotWidget):
    """A plot that asks for its minimum size rather than pyqtgraph's 640 x 480.

    The card titles wrap, so the scroll area sizes the cards by height-for-width, which follows the
    preferred heights: with the default hint every card would stand 480 px tall and a short dock would
    scroll through mostly empty charts instead of sharing its height between them.
    """

    def sizeHint(self) -> QSize:
        return QSize(CARD_MIN_WIDTH, CHART_MIN_HEIGHT)


def new_plot(left: str, bottom: str = "") -> pg.PlotWidget:
    w = ChartView(background="w")
    w.setMenuEnabled(False)
    w.setMouseEnabled(x=False, y=False)
    w.hideButtons()
    w.setMinimumHeight(CHART_MIN_HEIGHT)
    for name in ("left", "bottom", "right"):
        axis = w.getAxis(name)
        axis.setTextPen(style.TEXT)
        axis.setPen(style.MUTED_TEXT)
        # Two tick levels: the third drew a grid line every few pixels, a grey haze behind the bars.
        axis.setStyle(tickFont=pixel_font(TICK_PX), maxTickLevel=1)
        # Titles carry their unit in the text ("kW"); an automatic "(x0.001)" would only add noise.
        axis.enableAutoSIPrefix(False)
    set_axis_title(w.getAxis("left"), left, style.MUTED_TEXT)
    if bottom:
        set_axis_title(w.getAxis("bottom"), bottom, style.MUTED_TEXT)
    w.showGrid(y=True, alpha=0.25)
    return w


class Card(QWidget):
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
