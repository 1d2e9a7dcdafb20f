"""The storage card: the tier, what the appliances deliver against it, and what the checkpoints cost.

Figures, not a chart: a handful of throughputs, sizes and times are read more easily as words than as bars
of unlike units. The texts come from :mod:`.storage_figures`, read from the typed views.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from .chart_parts import CHART_MIN_HEIGHT, Card
from .storage_figures import NO_STORAGE, storage_html, storage_rows

if TYPE_CHECKING:
    from designer.views import StorageView
    from designer.views.training import TrainingView


class StorageCard:
    """A card of rows (label, value) in place of a plot; the placeholder until an analysis holds storage."""

    def __init__(self):
        self.figures = QLabel()
        self.figures.setTextFormat(Qt.TextFormat.RichText)
        self.figures.setWordWrap(True)
        self.figures.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.figures.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.figures.setStyleSheet("background: white; padding: 6px;")
        self.figures.setMinimumHeight(CHART_MIN_HEIGHT)
        self.card = Card("Storage and checkpoints", self.figures, NO_STORAGE)
        self.rows: list[tuple[str, str]] = []

    def update(self, storage: StorageView | None, training: TrainingView | None) -> None:
        self.rows = storage_rows(storage, training)
        self.figures.setText(storage_html(storage, training) if self.rows else "")
        self.card.show_plot(bool(self.rows))

    def value(self, label: str) -> str | None:
        """The value shown beside ``label`` (None when the card has no such row)."""
        return next((v for k, v in self.rows if k == label), None)
