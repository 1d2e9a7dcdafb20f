"""The cabling panel's chart: the whole design's orderable cable lengths, one stacked bar per length by medium."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QCursor, QFont
from PySide6.QtWidgets import QLabel, QToolTip, QVBoxLayout, QWidget

from designer.cabling_view import MEDIUM_KEYS, length_histogram, medium_name
from designer.formatting import count, number, quantity

from ..app import style
from ..plan.cable_routes import medium_color

HISTOGRAM_MIN_PX = 160


def key_text(colour, text: str) -> str:
    """A coloured square and its meaning, as rich text (the dashboards' chart keys read the same way)."""
    return f'<span style="color:{colour.name()}">■</span>&nbsp;{text}'


class _CountAxis(pg.AxisItem):
    """Counts with thousands separators: a 100,000-GPU design orders tens of thousands of one length."""

    def tickStrings(self, values, scale, spacing):
        return [f"{v * scale:,.0f}" for v in values]


def _chart() -> pg.PlotWidget:
    """A still bar chart in the window's text colours: no mouse zoom or pan, no context menu."""
    w = pg.PlotWidget(background="w", axisItems={"left": _CountAxis("left")})
    w.setMenuEnabled(False)
    w.setMouseEnabled(x=False, y=False)
    w.hideButtons()
    w.setMinimumHeight(HISTOGRAM_MIN_PX)
    font = QFont()
    font.setPixelSize(11)
    for name, title in (("left", "cables"), ("bottom", "orderable length (m)")):
        axis = w.getAxis(name)
        axis.setTextPen(style.TEXT)
        axis.setPen(style.MUTED_TEXT)
        axis.setStyle(tickFont=font)
        axis.enableAutoSIPrefix(False)  # "12,000 cables", never "12 (x1000)"
        axis.setLabel(title, color=style.MUTED_TEXT.name())
    w.showGrid(y=True, alpha=0.25)
    return w


class LengthChart(QWidget):
    """Title, colour key and the stacked bars of :func:`designer.cabling_view.length_histogram`."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = QLabel(f"<b>Cable lengths, whole design</b> <span style='color:{style.MUTED_TEXT.name()}'>"
                            "· hover a bar for its counts</span>")
        hfont = self.title.font()
        hfont.setPixelSize(13)
        self.title.setFont(hfont)
        self.title.setWordWrap(True)
        self.key = QLabel()
        self.key.setTextFormat(Qt.TextFormat.RichText)
        self.key.setWordWrap(True)
        self.plot = _chart()
        self.bars = {}
        for key in MEDIUM_KEYS:
            if key == "none":
                continue  # a link no cable reaches orders nothing: it has no bar
            bars = pg.BarGraphItem(x=[], height=[], y0=[], width=0.7, brush=medium_color(key), pen=pg.mkPen(None))
            self.plot.addItem(bars)
            self.bars[key] = bars
        self.plot.scene().sigMouseMoved.connect(self._on_hover)
        self._hist: dict[str, dict[float, int]] = {}
        #: the lengths of the bars, left to right
        self.lengths: list[float] = []
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        box.addWidget(self.title)
        box.addWidget(self.key)
        box.addWidget(self.plot, 1)

    def set_analysis(self, analysis) -> None:
        """Bars for ``analysis``'s wiring plan (none for None or a design without one)."""
        self._hist = hist = length_histogram(analysis)
        lengths = sorted({m for counts in hist.values() for m in counts})
        self.lengths = lengths
        x = np.arange(len(lengths), dtype=float)
        base = np.zeros(len(lengths))
        for key, bars in self.bars.items():
            counts = hist.get(key, {})
            h = np.asarray([counts.get(m, 0) for m in lengths], dtype=float)
            bars.setOpts(x=x, height=h, y0=base.copy(), width=0.7)
            base += h
        self.plot.getAxis("bottom").setTicks([[(i, f"{m:g}") for i, m in enumerate(lengths)]])
        if lengths:
            self.plot.setXRange(-0.6, len(lengths) - 0.4, padding=0)
            self.plot.setYRange(0, float(base.max() or 1.0) * 1.1, padding=0)
        self.key.setText(" &nbsp; ".join(key_text(medium_color(k), medium_name(k)) for k in hist))

    def tooltip(self, index: int) -> str:
        """What hovering bar ``index`` says: the length, then the cables of each medium."""
        if not 0 <= index < len(self.lengths):
            return ""
        length = self.lengths[index]
        parts = [(medium_name(m), counts.get(length, 0)) for m, counts in self._hist.items()]
        parts = [(name, n) for name, n in parts if n]
        total = sum(n for _, n in parts)
        lines = [f"{quantity(length, 'm')}: {count(total, 'cable')}"]
        if len(parts) == 1:
            lines[0] += f" · {parts[0][0]}"
        else:
            lines += [f"{name}: {number(n)}" for name, n in parts]
        return "\n".join(lines)

    def _on_hover(self, pos: QPointF) -> None:
        plot = self.plot.getPlotItem()
        if not self.lengths or not plot.vb.sceneBoundingRect().contains(pos):
            QToolTip.hideText()
            return
        x = plot.vb.mapSceneToView(pos).x()
        i = round(x)
        if abs(x - i) > 0.35:
            QToolTip.hideText()
            return
        text = self.tooltip(i)
        if text:
            QToolTip.showText(QCursor.pos(), text, self.plot)

    def dispose(self) -> None:
        """Take the chart apart (pyqtgraph's items are Python-owned; left to Qt they are deleted twice)."""
        self.plot.getPlotItem().close()
        self.plot.scene().clear()
