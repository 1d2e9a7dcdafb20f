"""The one place the window's panels get the analysis from.

The engines' results arrive from :class:`~widgets.app.engine_runner.EngineRunner`
(results for a closed document or an older revision are already dropped there);
the hub keeps the latest as :attr:`AnalysisHub.current` and tells every subscriber.
A panel subscribes once, when it is made (:meth:`AnalysisHub.subscribe`), and is
called at once with the current analysis, so a panel made late (a dock first shown
long after the analysis arrived) shows it without anyone remembering to feed it.
Replacing the document clears the hub: every subscriber is told None.

A panel built only when its dock is first seen (:class:`~widgets.app.lazy_panel.LazyPanel`)
follows the hub through its dock: a new analysis marks it stale, and it reads
:attr:`AnalysisHub.current` when it is next seen.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal


class AnalysisHub(QObject):
    """The current analysis (a :class:`designer.analysis.Analysis`, or None) and its subscribers."""

    #: The analysis changed: the new one, or None when the document was replaced and not yet analysed.
    analysisChanged = Signal(object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._current = None

    @property
    def current(self):
        """The latest analysis of the open document, or None."""
        return self._current

    def subscribe(self, slot: Callable[[object], None]) -> None:
        """Call ``slot(analysis)`` now with :attr:`current` and on every change from now on."""
        self.analysisChanged.connect(slot)
        slot(self._current)

    def unsubscribe(self, slot: Callable[[object], None]) -> None:
        self.analysisChanged.disconnect(slot)

    def follow(self, runner) -> None:
        """Publish every result ``runner`` (an :class:`~widgets.app.engine_runner.EngineRunner`) delivers."""
        runner.finished.connect(self._on_finished)

    def publish(self, analysis) -> None:
        """``analysis`` is the current one: every subscriber is told."""
        self._current = analysis
        self.analysisChanged.emit(analysis)

    def clear(self) -> None:
        """No analysis (a new document): every subscriber is told None."""
        self.publish(None)

    def _on_finished(self, revision: int, analysis) -> None:
        self.publish(analysis)
