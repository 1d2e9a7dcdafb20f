"""Editing and deleting racks that stand: their place typed in a form, their properties, removal."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..bounds import RACK_LIMIT_KW
from ..placement import check_move, rack_footprint
from ..rules import u_span_problem
from .base import Change, Command, CommandError, FieldEdit
from .validation import catalog_entry, check_bounded, checked_text, existing_rack, refuse
from .objects import MoveObjectsCommand


@dataclass
class RemoveRacksCommand(Command):
    """Delete racks; CDUs stop serving them in the same step (undo gives both back)."""

    rack_ids: tuple[str, ...]
    label: str = "Delete rack"

    def apply(self, project, catalog):
        for rid in self.rack_ids:
            existing_rack(project, rid)
        touched = frozenset(f.id for f in project.floor_devices if set(f.serves) & set(self.rack_ids))
        return project.removing_racks(self.rack_ids), Change(racks=frozenset(self.rack_ids), floor_devices=touched)



@dataclass
class PlaceRackCommand(FieldEdit):
    """Type a rack's position or rotation; typing in one field merges into one undo step."""

    rack_id: str
    changes: dict
    label: str = "Move rack"

    def _target(self) -> tuple:
        return (self.rack_id,)

    def apply(self, project, catalog):
        rack = existing_rack(project, self.rack_id)
        unknown = set(self.changes) - {"x", "y", "rotation"}
        if unknown:
            raise CommandError(f"a rack's place has no {sorted(unknown)[0]!r}")
        place = {"x": rack.x, "y": rack.y, "rotation": rack.rotation, **self.changes}
        move = MoveObjectsCommand(racks={rack.id: (place["x"], place["y"], place["rotation"])})
        return move.apply(project, catalog)


RACK_FIELDS = {"name", "row", "power_limit_kw", "type", "hall"}


@dataclass
class UpdateRackCommand(FieldEdit):
    """Change properties of one rack; typing in one field merges into one undo step."""

    rack_id: str
    changes: dict
    label: str = "Edit rack"

    def _target(self) -> tuple:
        return (self.rack_id,)

    def apply(self, project, catalog):
        rack = existing_rack(project, self.rack_id)
        unknown = set(self.changes) - RACK_FIELDS
        if unknown:
            raise CommandError(f"rack has no editable property {sorted(unknown)[0]!r}")
        limit = self.changes.get("power_limit_kw")
        if limit is not None:
            check_bounded(limit, "rack power limit", RACK_LIMIT_KW, " kW")
        changes = dict(self.changes)
        if "type" in changes:
            changes["type"] = catalog_entry(catalog, changes["type"], ["rack"]).id
        if "hall" in changes and not project.has_hall(changes["hall"]):
            raise CommandError(f"no hall with id {changes['hall']!r}")
        for key in ("name", "row"):
            if key in changes:
                changes[key] = checked_text(changes[key], f"rack {key}")
        new = replace(rack, **changes)
        for d in new.devices:
            problem = u_span_problem(catalog, new, d, ignore=d.id)
            if problem:
                raise CommandError(problem)
        if new.type != rack.type or new.hall != rack.hall:  # a wider type, or the same place in another hall
            refuse(check_move(project, catalog, [rack_footprint(new, catalog)]))
        return project.with_racks([new]), Change(racks=frozenset([self.rack_id]))
