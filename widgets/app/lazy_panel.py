"""A dock whose panel is built the first time it is seen, and brought up to date only while it is seen.

The charts and the cabling view cost tens of milliseconds to build and to refresh on a
large design; most workspaces keep them hidden. Each is made when its dock is first
shown (or when code asks for it), and a new analysis or selection only marks it
stale until its dock is visible again, so the window starts sooner and a click on a
rack pays for what is on screen.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QDockWidget, QWidget


class LazyPanel:
    """``factory()`` builds the panel; ``feed(panel)`` brings it up to date; ``on_hide(panel)`` runs when the
    dock is hidden (say, to take what the panel drew off the plan)."""

    def __init__(self, dock: QDockWidget, factory: Callable[[], QWidget], feed: Callable[[QWidget], None],
                 on_hide: Callable[[QWidget], None] | None = None):
        self.dock = dock
        self._factory, self._feed, self._on_hide = factory, feed, on_hide
        self.panel: QWidget | None = None
        self.stale = True
        #: whether the dock is on screen: a dock tabbed behind another stays isVisible() but is not seen
        self.shown = False
        dock.setWidget(QWidget())  # holds the dock's place and size until the panel exists
        dock.visibilityChanged.connect(self._visible)

    @property
    def built(self) -> bool:
        return self.panel is not None

    def get(self) -> QWidget:
        """The panel, built if need be and up to date: whoever asks for it sees the latest."""
        if self.panel is None:
            self.panel = self._factory()
            self.dock.setWidget(self.panel)
        if self.stale:
            self.stale = False
            self._feed(self.panel)
        return self.panel

    def follow(self, signal) -> None:
        """Mark the panel stale whenever ``signal`` fires (say, the hub's ``analysisChanged``): a panel seen now
        is fed at once, a hidden one when it is next seen, a panel not made yet when it is made."""
        signal.connect(lambda *_args: self.changed())

    def changed(self) -> None:
        """What the panel shows has changed: update it now if it is seen, else when it next is."""
        self.stale = True
        if self.shown:
            self.get()

    def _visible(self, visible: bool) -> None:
        self.shown = visible
        if visible:
            if self.stale or self.panel is None:
                self.get()
        elif self.panel is not None and self._on_hide is not None:
            self._on_hide(self.panel)
            self.stale = True
