"""The command contract: what a command is, what it reports it touched, and why an edit is refused.

Kept apart from the commands themselves so the document (undo stack) and every
family of commands depend on this small module only, never on each other.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, replace

from catalog import Catalog

from ..model import Project


class CommandError(ValueError):
    """An edit that cannot be made, with the reason."""


@dataclass(frozen=True)
class Change:
    """What one command touched, so views can update just that."""

    racks: frozenset[str] = frozenset()
    halls: frozenset[str] = frozenset()
    floor_devices: frozenset[str] = frozenset()
    project: bool = False

    def __or__(self, other: Change) -> Change:
        return Change(self.racks | other.racks, self.halls | other.halls,
                      self.floor_devices | other.floor_devices, self.project or other.project)


class Command(ABC):
    """Base class: ``apply`` returns the new project and the change."""

    label = "Edit"
    #: Commands with equal, non-None merge keys pushed one after another become one undo step.
    merge_key: object = None

    @abstractmethod
    def apply(self, project: Project, catalog: Catalog) -> tuple[Project, Change]:
        """The project after this edit, and what it touched."""

    def merged_with(self, later: Command) -> Command:
        return later


class FieldEdit(Command):
    """An edit of some fields of one object; edits of the same fields in a row merge (typing)."""

    changes: dict

    def _target(self) -> tuple:
        return ()

    @property
    def merge_key(self):
        return (type(self).__name__, *self._target(), tuple(sorted(self.changes)))

    def merged_with(self, later):
        return replace(later, changes={**self.changes, **later.changes})



@dataclass
class MacroCommand(Command):
    """Several commands as one undo step (a drag of many racks, a pasted row)."""

    commands: list[Command]
    label: str = "Edit"

    def apply(self, project, catalog):
        change = Change()
        for cmd in self.commands:
            project, c = cmd.apply(project, catalog)
            change = change | c
        return project, change
