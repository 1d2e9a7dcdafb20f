"""The names people read for the objects a design refers to by id: a finding's ``where``, a CDU loop's units.

Ids (``rack:r21``, ``floor:cdu-1``, ``project:bom``) are how the files, the JSON
output and the window's navigation find an object, and they stay that way; every
text a person reads names the object as the plan and the inspector do: the rack's
name, the floor unit's name, the hall's name. An object without a name is shown
by its id, as the plan labels it, and so is one no longer in the project (a
finding read after an edit removed its rack), so a place is never left blank.

One :class:`Namer` serves a batch of findings: the project's own lookups are
cached per project value, and the Namer remembers each place it has named, so a
hall of 12,500 racks with a finding per rack is named in one pass.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from .model import Project

#: ``project:<section>`` -> how the section is called where people read it.
PROJECT_PLACES = {"bom": "Bill of materials", "training": "Training estimate", "fabric": "Compute fabric",
                  "power": "Power", "cooling": "Cooling", "cost": "Cost of ownership"}
#: A floor unit's catalog kind -> the word that says what it is, and words that already say so in a name.
FLOOR_KINDS = {"cdu": ("CDU", ("cdu",)), "crah": ("Air handler", ("crah", "crac", "ahu", "air handler")),
               "pdu": ("PDU", ("pdu",)), "ups": ("UPS", ("ups",))}
#: Without its catalog type a unit's kind is unknown: a name holding any kind's word says what it is.
ANY_FLOOR_KIND = tuple(w for _, words in FLOOR_KINDS.values() for w in words)
#: Names of halls that say "hall" (or "room") already read without another "Hall" in front.
HALL_WORDS = ("hall", "room")
#: A finding about many places names this many of them before the count of the rest.
SHOWN_PLACES = 2
#: A tooltip lists at most this many places (a 12,500-rack finding would fill the screen).
LISTED_PLACES = 400


@lru_cache(maxsize=None)
def _word_pattern(words: tuple[str, ...]) -> re.Pattern:
    return re.compile("(?<![a-z])(?:" + "|".join(map(re.escape, words)) + ")(?![a-z])")


def _says(name: str, words: tuple[str, ...]) -> bool:
    """Whether ``name`` already holds one of ``words`` as a word of its own ("SU01 CDU-1" says "cdu")."""
    return bool(words) and _word_pattern(words).search(name.lower()) is not None


def cdu_unit_name(project: Project | None, unit: str, *, standalone: bool = True) -> str:
    """A CDU loop's unit as people read it: a floor CDU by its name, one mounted in a rack by the rack's.

    ``unit`` is ``"floor:<id>"`` or ``"rack:<id>"`` as the cooling engine lists a loop's units. Standalone
    it reads "CDU in rack A01"; in a sentence that already says CDU ("CDU loop …") it reads "in rack A01".
    """
    kind, _, ident = unit.partition(":")
    if kind == "floor":
        if project is not None and project.has_floor_device(ident):
            return project.floor_device(ident).name or ident
        return ident
    if kind == "rack":
        rack = (project.rack(ident).name or ident) if project is not None and project.has_rack(ident) else ident
        return f"CDU in rack {rack}" if standalone else f"in rack {rack}"
    return unit


def cdu_names(project: Project | None, units: Sequence[str]) -> str:
    """The units of a CDU loop, for a message that says "CDU loop …" or "CDU …" before them."""
    return ", ".join(cdu_unit_name(project, u, standalone=False) for u in units)


class Namer:
    """Names the places findings point at: ``namer("rack:r21")`` -> ``"Rack R1"``.

    ``project`` is the snapshot the findings were made from (an analysis' ``project``); ``catalog``
    gives floor units their kind ("CDU", "Air handler") and devices their type's name. Either may be
    None: places are then named by what the where-string itself says.
    """

    def __init__(self, project: Project | None = None, catalog=None):
        self.project = project
        self.catalog = catalog
        self._memo: dict[str, str] = {}
        self._devices: dict[str, tuple] | None = None

    # ---- one place ---------------------------------------------------------------------------------------
    def __call__(self, where: str) -> str:
        name = self._memo.get(where)
        if name is None:
            name = self._memo[where] = self._name(where)
        return name

    def rack(self, rack_id: str) -> str:
        """A rack's bare name ("SU01-01"), its id when it has none or is gone."""
        p = self.project
        return (p.rack(rack_id).name or rack_id) if p is not None and p.has_rack(rack_id) else rack_id

    def hall(self, hall_id: str) -> str:
        p = self.project
        return (p.hall(hall_id).name or hall_id) if p is not None and p.has_hall(hall_id) else hall_id

    def floor(self, unit_id: str) -> str:
        p = self.project
        if p is not None and p.has_floor_device(unit_id):
            return p.floor_device(unit_id).name or unit_id
        return unit_id

    def type_name(self, type_id: str) -> str:
        dev = self.catalog.find(type_id) if self.catalog is not None else None
        return dev.name if dev is not None else type_id

    def _name(self, where: str) -> str:
        kind, sep, ident = where.partition(":")
        if not sep:
            return where
        if kind == "project":
            return PROJECT_PLACES.get(ident) or (ident.replace("_", " ").capitalize() if ident else "Project")
        if kind == "rack":
            name = self.rack(ident)
            return name if _says(name, ("rack",)) else f"Rack {name}"
        if kind == "hall":
            if not ident:  # a design without halls: the finding is about the whole of it
                return "Project"
            name = self.hall(ident)
            return name if _says(name, HALL_WORDS) else f"Hall {name}"
        if kind == "floor":
            return self._floor_label(ident)
        if kind == "device":
            return self._device_label(ident)
        return where

    def _floor_label(self, ident: str) -> str:
        name = self.floor(ident)
        p = self.project
        dev = None
        if p is not None and p.has_floor_device(ident) and self.catalog is not None:
            dev = self.catalog.find(p.floor_device(ident).type)
        word, says = FLOOR_KINDS.get(getattr(dev, "kind", ""), ("Floor unit", ()))
        if _says(name, says) or (dev is None and _says(name, ANY_FLOOR_KIND)):
            return name
        return f"{word} {name}"

    def _device_label(self, ident: str) -> str:
        """A mounted device: its type, its own name, and the rack it is in ("NVIDIA DGX B200 'dgx-07' in rack A01")."""
        if self._devices is None:
            p = self.project
            self._devices = {d.id: (r, d) for r in (p.racks if p is not None else ()) for d in r.devices}
        found = self._devices.get(ident)
        if found is None:
            return f"Device {ident}"
        rack, d = found
        what = self.type_name(d.type)
        if d.name:
            what += f" '{d.name}'"
        elif d.u is not None:
            what += f" at U{d.u:g}"
        return f"{what} in rack {rack.name or rack.id}"

    # ---- many places -------------------------------------------------------------------------------------
    def summary(self, places: Sequence[str], shown: int = SHOWN_PLACES) -> str:
        """A finding's places in a few words: "Racks SU01-01, SU01-02 +29 more", or the one place's name."""
        places = list(dict.fromkeys(places))
        if len(places) <= 1:
            return self(places[0]) if places else ""
        head = places if len(places) <= shown + 1 else places[:shown]  # "+1 more" would take the room of the name
        rest = len(places) - len(head)
        if all(p.startswith("rack:") for p in places):
            text = "Racks " + ", ".join(self.rack(p[5:]) for p in head)
        else:
            text = ", ".join(self(p) for p in head)
        return text + (f" +{rest:,} more" if rest else "")

    def listing(self, places: Sequence[str], limit: int = LISTED_PLACES) -> str:
        """Every place of a finding, for a tooltip: "31 racks: SU01-01, SU01-02, …" (at most ``limit`` named)."""
        places = list(dict.fromkeys(places))
        if len(places) <= 1:
            return self(places[0]) if places else ""
        named = places[:limit]
        if all(p.startswith("rack:") for p in places):
            text = f"{len(places):,} racks: " + ", ".join(self.rack(p[5:]) for p in named)
        else:
            text = f"{len(places):,} places: " + ", ".join(self(p) for p in named)
        return text + (f" +{len(places) - len(named):,} more" if len(places) > len(named) else "")


__all__ = ["Namer", "PROJECT_PLACES", "cdu_names", "cdu_unit_name"]
