"""The storage card: the tier, what the appliances deliver against it, and what the checkpoints cost.

Figures, not a chart: a handful of throughputs, sizes and times are read more easily as words than as bars
of unlike units. The texts come from :mod:`.storage_figures`, read from the typed views. The storage rows
and the checkpoint rows stand side by side when the card is wide (it spans both columns of a wide panel)
and one above the other when it is narrow.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QBoxLayout, QLabel, QWidget

from .chart_parts import CHART_MIN_HEIGHT, Card
from .storage_figures import NO_STORAGE, checkpoint_rows, rows_html, tier_rows, unconfirmed_text

if TYPE_CHECKING:
    from designer.views import StorageView
    from designer.views.training import TrainingView

#: Wide enough for both halves side by side, each keeping its values on one line or two.
SIDE_BY_SIDE_MIN_WIDTH = 640


def _figures_label() -> QLabel:
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class _Figures(QWidget):
    """The two halves of the card on a white ground, side by side or stacked by the card's width."""

    def __init__(self):
        super().__init__()
        self.setObjectName("storageFigures")
        self.setStyleSheet("#storageFigures { background: white; }")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setMinimumHeight(CHART_MIN_HEIGHT)
        self.tier, self.checkpoints = _figures_label(), _figures_label()
        self.box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self.box.setContentsMargins(8, 6, 8, 6)
        self.box.setSpacing(16)
        self.box.addWidget(self.tier, 1)
        self.box.addWidget(self.checkpoints, 1)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        wide = self.width() >= SIDE_BY_SIDE_MIN_WIDTH
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self.box.direction() != direction:
            self.box.setDirection(direction)


class StorageCard:
    """A card of rows (label, value) in place of a plot; the placeholder until an analysis holds storage."""

    def __init__(self):
        self.figures = _Figures()
        self.card = Card("Storage and checkpoints", self.figures, NO_STORAGE)
        self.rows: list[tuple[str, str]] = []

    def update(self, storage: StorageView | None, training: TrainingView | None) -> None:
        tier = tier_rows(storage) if storage is not None else []
        checkpoints = checkpoint_rows(training) if storage is not None else []
        self.rows = tier + checkpoints
        self.figures.tier.setText(rows_html(tier, unconfirmed_text(storage)) if tier else "")
        self.figures.checkpoints.setText(rows_html(checkpoints) if checkpoints else "")
        self.figures.checkpoints.setVisible(bool(checkpoints))
        self.card.show_plot(bool(self.rows))

    def text(self) -> str:
        """Both halves' rich text, as shown."""
        return self.figures.tier.text() + self.figures.checkpoints.text()

    def value(self, label: str) -> str | None:
        """The value shown beside ``label`` (None when the card has no such row)."""
        return next((v for k, v in self.rows if k == label), None)
