"""A word-wrapped label for forms inside the inspector's scroll areas.

A form in a scroll area sizes its rows from size hints, and a wrapped label's hint assumes a wider line than the
dock gives it: longer texts were cut at their first and last lines. This label asks for the height its text
takes at the width it is given, each time either changes.
"""
from __future__ import annotations

from PySide6.QtWidgets import QLabel


class WrappedLabel(QLabel):
    """A QLabel with word wrap on whose minimum height follows its text at its width."""

    def __init__(self, text: str = "", parent=None):
        super().__init__(text, parent)
        self.setWordWrap(True)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit()

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        super().setText(text)
        self._fit()

    def _fit(self) -> None:
        need = self.heightForWidth(max(self.width(), 1))
        if need > 0 and need != self.minimumHeight():
            self.setMinimumHeight(need)
