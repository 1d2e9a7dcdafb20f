"""Undoable edits, without Qt.

A command turns one :class:`~designer.model.Project` value into the next; the
:class:`Document` keeps the value before and after each, so undo and redo are exact.
Commands check what they are asked to do and raise :class:`CommandError`
before changing anything, so a refused edit leaves the document as it was.
Every command that puts something on the floor (add, move, place, a new rack
type) checks it against the placement rules of :mod:`designer.placement`:
inside its hall, over nothing else. Loading a file goes through no command, so a
file that breaks them opens, and its findings say where.

The modules, by what they edit: :mod:`.base` (the contract), :mod:`.validation`
(the checks on values every command shares), :mod:`.objects` (placing and moving
racks and floor units), :mod:`.racks`, :mod:`.devices`, :mod:`.floor`,
:mod:`.halls`, :mod:`.project` (name, settings, workload, quote) and
:mod:`.document` (the undo stack). Callers import from this package.
"""
from .base import Change, Command, CommandError, MacroCommand
from .devices import AddDeviceCommand, MoveDeviceCommand, RemoveDeviceCommand
from .document import Document, Listener
from .floor import FLOOR_FIELDS, RemoveFloorDevicesCommand, UpdateFloorDeviceCommand
from .halls import HALL_FIELDS, AddHallCommand, UpdateFacilityCommand, UpdateHallCommand
from .objects import AddObjectsCommand, MoveObjectsCommand
from .project import (RenameProjectCommand, SetCurrencyCommand, SetDiscountCommand, SetWorkloadCommand,
                      UpdateQuoteCommand, UpdateSettingsCommand)
from .racks import RACK_FIELDS, PlaceRackCommand, RemoveRacksCommand, UpdateRackCommand
from .validation import FLOOR_KIND_LIST, MOUNT_KINDS

__all__ = [
    "AddDeviceCommand", "AddHallCommand", "AddObjectsCommand", "Change", "Command", "CommandError", "Document",
    "FLOOR_FIELDS", "FLOOR_KIND_LIST", "HALL_FIELDS", "Listener", "MOUNT_KINDS", "MacroCommand", "MoveDeviceCommand",
    "MoveObjectsCommand", "PlaceRackCommand", "RACK_FIELDS", "RemoveDeviceCommand", "RemoveFloorDevicesCommand",
    "RemoveRacksCommand", "RenameProjectCommand", "SetCurrencyCommand", "SetDiscountCommand", "SetWorkloadCommand",
    "UpdateFacilityCommand",
    "UpdateFloorDeviceCommand", "UpdateHallCommand", "UpdateQuoteCommand", "UpdateRackCommand",
    "UpdateSettingsCommand",
]
