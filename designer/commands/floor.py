"""Floor units that stand (CDUs, CRAHs, floor PDUs): their properties and removal.

Adding and moving them is :mod:`designer.commands.objects`, together with racks.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..placement import check_move, floor_footprint
from .base import Change, Command, CommandError, FieldEdit
from .validation import FLOOR_KIND_LIST, catalog_entry, checked_text, existing_floor_device, refuse


FLOOR_FIELDS = {"name", "serves", "type"}


@dataclass
class UpdateFloorDeviceCommand(FieldEdit):
    """Rename a floor unit, change its type, or set which racks it serves."""

    device_id: str
    changes: dict
    label: str = "Edit floor unit"

    def _target(self) -> tuple:
        return (self.device_id,)

    def apply(self, project, catalog):
        unit = existing_floor_device(project, self.device_id)
        unknown = set(self.changes) - FLOOR_FIELDS
        if unknown:
            raise CommandError(f"floor unit has no editable property {sorted(unknown)[0]!r}")
        changes = dict(self.changes)
        if "name" in changes:
            changes["name"] = checked_text(changes["name"], "floor unit name")
        if "type" in changes:
            changes["type"] = catalog_entry(catalog, changes["type"], FLOOR_KIND_LIST).id
        if "serves" in changes:
            serves = tuple(changes["serves"])
            missing = [r for r in serves if not project.has_rack(r)]
            if missing:
                raise CommandError(f"no rack with id {missing[0]!r}")
            changes["serves"] = serves
        new = replace(unit, **changes)
        if new.type != unit.type:  # a unit of another size where this one stands
            refuse(check_move(project, catalog, [floor_footprint(new, catalog)]))
        return project.with_floor_devices([new]), Change(floor_devices=frozenset([self.device_id]))


@dataclass
class RemoveFloorDevicesCommand(Command):
    ids: tuple[str, ...]
    label: str = "Delete floor unit"

    def apply(self, project, catalog):
        for fid in self.ids:
            existing_floor_device(project, fid)
        return project.removing_floor_devices(self.ids), Change(floor_devices=frozenset(self.ids))
