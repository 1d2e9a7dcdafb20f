"""Halls and their facility: add a hall, edit its outline and capacities, edit its facility settings."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..bounds import HALL_BOUNDS
from ..facility import Facility, FacilityError, check_facility
from ..model import Hall
from .base import Change, Command, CommandError, FieldEdit
from .validation import check_bounded, check_fresh_id, check_tile, checked_outline, checked_text


HALL_FIELDS = {"name", "outline", "tile_mm", "power_capacity_kw", "cooling_capacity_kw",
               "liquid_cooling_capacity_kw", "floor_rating_kg_m2", "rack_power_limit_kw", "facility"}


@dataclass
class UpdateHallCommand(FieldEdit):
    hall_id: str
    changes: dict
    label: str = "Edit hall"

    def _target(self) -> tuple:
        return (self.hall_id,)

    def apply(self, project, catalog):
        if not project.has_hall(self.hall_id):
            raise CommandError(f"no hall with id {self.hall_id!r}")
        unknown = set(self.changes) - HALL_FIELDS
        if unknown:
            raise CommandError(f"hall has no editable property {sorted(unknown)[0]!r}")
        changes = dict(self.changes)
        for key, value in changes.items():
            if key in {"name", "outline"}:
                continue
            if key == "facility":  # the command, not the form, holds the facility to its ranges
                if not isinstance(value, Facility):
                    raise CommandError("hall facility must be a Facility")
                try:
                    check_facility(value, "facility")
                except FacilityError as exc:
                    raise CommandError(str(exc)) from None
                continue
            if key == "tile_mm":
                check_tile(value)
            elif value is not None:
                check_bounded(value, f"hall {key}", HALL_BOUNDS[key])
        if "outline" in changes:
            changes["outline"] = checked_outline(changes["outline"])
        if "name" in changes:
            changes["name"] = checked_text(changes["name"], "hall name")
        # A new outline is taken even when racks end up outside it: the room is what it is (a survey, a
        # wall that moved), and refusing would make the user move every rack before entering the real
        # outline. The racks left outside are findings ("outside-hall") that point at each of them, and
        # from then on every edit that moves one of them needs a place inside.
        hall = replace(project.hall(self.hall_id), **changes)
        return project.with_hall(hall), Change(halls=frozenset([self.hall_id]))


@dataclass
class UpdateFacilityCommand(FieldEdit):
    """Some settings of one hall's facility (``{"ups_scheme": "2N"}``), applied to the hall's facility as it
    stands; typing into one setting merges into one undo step, another setting is a step of its own."""

    hall_id: str
    changes: dict
    label: str = "Edit facility"

    def _target(self) -> tuple:
        return (self.hall_id,)

    def apply(self, project, catalog):
        if not project.has_hall(self.hall_id):
            raise CommandError(f"no hall with id {self.hall_id!r}")
        hall = project.hall(self.hall_id)
        try:
            facility = hall.facility.updated(**self.changes)
        except TypeError:
            raise CommandError(f"the facility has no setting {sorted(self.changes)[0]!r}") from None
        except FacilityError as exc:
            raise CommandError(str(exc)) from None
        return project.with_hall(replace(hall, facility=facility)), Change(halls=frozenset([self.hall_id]))


@dataclass
class AddHallCommand(Command):
    hall: Hall
    label: str = "Add hall"

    def apply(self, project, catalog):
        ident = checked_text(self.hall.id, "hall id", ident=True)
        check_fresh_id(project, ident, set(), "hall")
        hall = replace(self.hall, id=ident, name=checked_text(self.hall.name, "hall name"),
                       outline=checked_outline(self.hall.outline))
        check_tile(hall.tile_mm)
        for key, bounds in HALL_BOUNDS.items():
            if getattr(hall, key) is not None:
                check_bounded(getattr(hall, key), f"hall {key}", bounds)
        return project.adding_hall(hall), Change(halls=frozenset([hall.id]))
