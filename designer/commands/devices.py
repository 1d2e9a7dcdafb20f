"""Devices mounted in racks: add, remove, move to another U, face or rack.

Device ids are unique in the whole design (a finding or a cable end names a device by its id alone),
so every command here checks the id against all racks, not only the one it edits.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..model import FACES, MountedDevice
from ..rules import u_span_problem
from .base import Change, Command, CommandError
from .validation import MOUNT_KINDS, catalog_entry, checked_text, existing_rack


@dataclass
class AddDeviceCommand(Command):
    rack_id: str
    device: MountedDevice
    label: str = "Add device"

    def apply(self, project, catalog):
        rack = existing_rack(project, self.rack_id)
        if not isinstance(self.device.id, str) or not self.device.id.strip():
            raise CommandError("a device needs an id")
        ident = checked_text(self.device.id, "device id", ident=True)
        in_rack = project.device_id_rack(ident)
        if in_rack is not None:  # a finding or a cable end names a device by its id alone
            raise CommandError(f"device id {ident!r} is already used in rack {project.rack(in_rack).name!r}")
        device = replace(self.device, id=ident, name=checked_text(self.device.name, "device name"),
                         type=catalog_entry(catalog, self.device.type, MOUNT_KINDS).id)
        if device.face not in FACES:
            raise CommandError(f"face must be front or rear, got {device.face!r}")
        problem = u_span_problem(catalog, rack, device)
        if problem:
            raise CommandError(problem)
        return project.with_racks([rack.with_device(device)]), Change(racks=frozenset([self.rack_id]))


@dataclass
class RemoveDeviceCommand(Command):
    rack_id: str
    device_id: str
    label: str = "Remove device"

    def apply(self, project, catalog):
        rack = existing_rack(project, self.rack_id)
        try:
            new = rack.without_device(self.device_id)
        except KeyError:
            raise CommandError(f"rack {rack.name!r} has no device {self.device_id!r}") from None
        return project.with_racks([new]), Change(racks=frozenset([self.rack_id]))


@dataclass
class MoveDeviceCommand(Command):
    """Move a mounted device to another U, face or rack."""

    rack_id: str
    device_id: str
    u: float | None
    face: str = "front"
    to_rack_id: str | None = None
    label: str = "Move device"

    def apply(self, project, catalog):
        src = existing_rack(project, self.rack_id)
        try:
            dev = src.device(self.device_id)
        except KeyError:
            raise CommandError(f"rack {src.name!r} has no device {self.device_id!r}") from None
        if self.face not in FACES:
            raise CommandError(f"face must be front or rear, got {self.face!r}")
        moved = replace(dev, u=self.u, face=self.face)
        dst_id = self.to_rack_id or self.rack_id
        if dst_id == self.rack_id:
            problem = u_span_problem(catalog, src, moved, ignore=dev.id)
            if problem:
                raise CommandError(problem)
            return project.with_racks([src.replacing_device(moved)]), Change(racks=frozenset([dst_id]))
        dst = existing_rack(project, dst_id)  # (device ids are unique in the design: the moved one keeps its id)
        problem = u_span_problem(catalog, dst, moved)
        if problem:
            raise CommandError(problem)
        new_project = project.with_racks([src.without_device(dev.id), dst.with_device(moved)])
        return new_project, Change(racks=frozenset([self.rack_id, dst_id]))
