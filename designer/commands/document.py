"""The edited project and its undo stack.

The stack keeps the project value before and after each command, so undo and redo
are exact and cost nothing to compute (the values share all untouched objects).
"""
from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from typing import Callable

from catalog import Catalog

from ..model import Project
from ..placement import carry_index
from .base import Change, Command


@dataclass
class _Step:
    command: Command
    before: Project
    after: Project
    change: Change


Listener = Callable[[Project, Change], None]


@dataclass
class Document:
    """The edited project, its undo history, and who to tell when it changes."""

    project: Project
    catalog: Catalog
    limit: int = 500
    revision: int = 0
    _done: list[_Step] = field(default_factory=list)
    _undone: list[_Step] = field(default_factory=list)
    _clean: int | None = 0
    _listeners: list[Listener] = field(default_factory=list)

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        """Stop telling ``listener``; a view that switches documents calls this on the old one."""
        with suppress(ValueError):
            self._listeners.remove(listener)

    def _set(self, project: Project, change: Change) -> None:
        self.project = project
        self.revision += 1
        for listener in list(self._listeners):
            listener(project, change)

    def push(self, command: Command) -> Change:
        """Apply ``command``; raise :class:`CommandError` and change nothing when it is refused."""
        new, change = command.apply(self.project, self.catalog)
        carry_index(self.project, new, self.catalog, change.racks, change.floor_devices)
        if self._clean is not None and self._clean > len(self._done):
            self._clean = None  # the saved state sits in the redo branch this push discards
        last = self._done[-1] if self._done else None
        if (last is not None and command.merge_key is not None and last.command.merge_key == command.merge_key
                and self._clean != len(self._done)):
            self._done[-1] = _Step(last.command.merged_with(command), last.before, new, last.change | change)
        else:
            self._done.append(_Step(command, self.project, new, change))
            if len(self._done) > self.limit:
                del self._done[0]
                self._clean = None if self._clean in (None, 0) else self._clean - 1
        self._undone.clear()
        self._set(new, change)
        return change

    def can_undo(self) -> bool:
        return bool(self._done)

    def can_redo(self) -> bool:
        return bool(self._undone)

    def undo_label(self) -> str:
        return self._done[-1].command.label if self._done else ""

    def redo_label(self) -> str:
        return self._undone[-1].command.label if self._undone else ""

    def undo(self) -> None:
        if not self._done:
            return
        step = self._done.pop()
        self._undone.append(step)
        self._set(step.before, step.change)

    def redo(self) -> None:
        if not self._undone:
            return
        step = self._undone.pop()
        self._done.append(step)
        self._set(step.after, step.change)

    def mark_clean(self) -> None:
        self._clean = len(self._done)

    def mark_unsaved(self) -> None:
        """The project differs from any file on disk (e.g. restored from an autosave)."""
        self._clean = None

    @property
    def dirty(self) -> bool:
        return self._clean != len(self._done)

    def snapshot(self) -> tuple[int, Project]:
        """An immutable view for an engine worker: (revision, project value)."""
        return self.revision, self.project
