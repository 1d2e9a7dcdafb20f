"""The Single-line diagram dock: a hall's utility, generators, switchgear, UPS systems, busways and rows with their
ratings and loads (designer.power.single_line, the drawing the PDF appendix prints), fitted to the dock.

It reads the window's current analysis; a hall is picked above the drawing when the design has more than one. A
box loaded past its design margin is outlined in the warning colour; hovering a box shows its figures whole.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen, QTransform
from PySide6.QtWidgets import (QComboBox, QGraphicsScene, QGraphicsView, QHBoxLayout, QLabel, QVBoxLayout,
                               QWidget)

from designer.colours import MUTED_TEXT, SLD_FEEDS, SLD_FILLS, SLD_OVER, TEXT
from designer.power.single_line import SingleLine, single_line

#: pixels per millimetre of the sheet before fitting, and the least and most it is scaled by to fit the dock
PX = 4.0
MIN_SCALE, MAX_SCALE = 0.8, 1.8


class SingleLineView(QWidget):
    """The dock's panel: a hall picker and the drawing."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.halls = QComboBox()
        self.halls.setToolTip("The hall whose power chain is drawn")
        self.halls.currentIndexChanged.connect(lambda _: self._draw())
        self.caption = QLabel()
        self.caption.setStyleSheet(f"color: {MUTED_TEXT};")
        self.caption.setWordWrap(True)
        self.scene = QGraphicsScene(self)
        self.view = QGraphicsView(self.scene)
        self.view.setRenderHint(QPainter.RenderHint.Antialiasing)
        # the sources at the top, the tree's middle in view: a narrow dock scrolls sideways to the outer rows
        self.view.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.hall_label = QLabel("Hall")
        top = QHBoxLayout()
        top.addWidget(self.hall_label)
        top.addWidget(self.halls, 1)
        box = QVBoxLayout(self)
        box.addLayout(top)
        box.addWidget(self.caption)
        box.addWidget(self.view, 1)
        self.analysis = None
        self.diagram: SingleLine | None = None

    def set_analysis(self, analysis) -> None:
        """Draw from ``analysis`` (None: still computing), keeping the picked hall where it still exists."""
        self.analysis = analysis
        project = getattr(analysis, "project", None)
        halls = [(h.id, h.label) for h in project.halls] if project is not None else []
        current = self.halls.currentData()
        self.halls.blockSignals(True)
        self.halls.clear()
        for hall_id, label in halls:
            self.halls.addItem(label, hall_id)
        self.halls.setCurrentIndex(max(0, self.halls.findData(current)))
        self.halls.blockSignals(False)
        self.halls.setVisible(len(halls) > 1)
        self.hall_label.setVisible(len(halls) > 1)
        self._draw()

    def _draw(self) -> None:
        self.scene.clear()
        self.diagram = None
        a = self.analysis
        if a is None:
            self.caption.setText("Computing…")
            return
        hall = next((h for h in a.project.halls if h.id == self.halls.currentData()), None)
        if hall is None or not a.has("power"):
            self.caption.setText("No hall to draw.")
            return
        self.diagram = single_line(a.power, hall)
        if self.diagram is None:
            self.caption.setText(f"{hall.label} has no rows of racks yet.")
            return
        self.caption.setText("A feed blue, B feed vermillion; a box outlined in amber carries more than its design "
                             "margin. Hover a box for its figures.")
        _paint(self.scene, self.diagram)
        self._fit()

    def _fit(self) -> None:
        """Fitted to the dock, but never so small its text cannot be read: a narrow dock scrolls instead."""
        if self.diagram is None:
            return
        rect = self.scene.sceneRect()
        room = self.view.viewport().size()
        fit = min(room.width() / rect.width(), room.height() / rect.height()) * 0.98
        scale = min(max(fit, MIN_SCALE), MAX_SCALE)
        self.view.setTransform(QTransform.fromScale(scale, scale))
        self.view.centerOn(rect.center().x(), 0)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._fit()


def _paint(scene: QGraphicsScene, sl: SingleLine) -> None:
    boxes = {b.key: b for b in sl.boxes}
    for w in sl.wires:
        a, b = boxes[w.a], boxes[w.b]
        pen = QPen(QColor(SLD_FEEDS[w.side]), 1.6)
        off = {"A": -1.5, "B": 1.5, "": 0.0}[w.side] * PX
        x0, x1 = (a.x + a.w / 2) * PX + off, (b.x + b.w / 2) * PX + off
        y0, y1 = (a.y + a.h) * PX, b.y * PX
        mid = (y0 + y1) / 2
        for seg in ((x0, y0, x0, mid), (x0, mid, x1, mid), (x1, mid, x1, y1)):
            scene.addLine(*seg, pen)
    title_font, line_font = QFont(), QFont()
    title_font.setPixelSize(round(2.4 * PX))
    title_font.setBold(True)
    line_font.setPixelSize(round(2.2 * PX))
    for b in sl.boxes:
        rect = QRectF(b.x * PX, b.y * PX, b.w * PX, b.h * PX)
        item = scene.addRect(rect, QPen(QColor(SLD_OVER) if b.over else QColor(TEXT), 3.0 if b.over else 1.0),
                             QBrush(QColor(SLD_FILLS[b.kind])))
        item.setToolTip("\n".join((b.title, *b.lines)))
        title = scene.addSimpleText(b.title, title_font)
        title.setBrush(QColor(TEXT))
        title.setPos(rect.left() + 1.2 * PX, rect.top() + 0.8 * PX)
        for i, line in enumerate(b.lines):
            text = scene.addSimpleText(line, line_font)
            text.setBrush(QColor(TEXT))
            text.setPos(rect.left() + 1.2 * PX, rect.top() + (3.6 + 2.9 * i) * PX)
    scene.setSceneRect(QRectF(0, 0, sl.width * PX, sl.height * PX))
