"""What a project value remembers of where it came from, beside the design itself.

Two things: the catalog it was opened or edited with, which a save writes as
``catalog_version`` (the file remembers its catalog), and the catalog ids its file
named that the catalog has since renamed (``"replaces"`` in an entry), which the
analysis reports as info findings so the user learns why the file changed on save.

Why beside the value and not in it: the model holds the design, which is the same
whichever catalog build opened it, and every caller that saves (the GUI, the
autosave, the generator) hands over a project only. So this table is keyed by the
value's identity and forgets a value when it is collected; :class:`~designer.commands.Document`
keeps each value it makes under the document's catalog.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

from catalog import Catalog

from .findings import Finding
from .model import Project

#: A finding names at most this many places (a rename in a 12,500-rack design would list them all).
MAX_PLACES = 1000


@dataclass(frozen=True)
class Rename:
    """Devices of a file that named ``old``, opened as the catalog's ``new`` entry."""

    old: str
    new: str
    #: how many devices, racks and floor units named it
    count: int
    #: where they are: ``rack:<id>`` or ``floor:<id>``, in file order
    places: tuple[str, ...]

    def finding(self) -> Finding:
        things = "object" if self.count == 1 else "objects"
        return Finding("info", "catalog-renamed",
                       f"{self.count:,} {things} in the file named {self.old!r}, which the catalog now calls "
                       f"{self.new!r}: they opened as {self.new!r}, and saving writes the new id",
                       self.places[0] if self.places else "project:catalog", self.places)


@dataclass(frozen=True)
class _Origin:
    catalog: Catalog | None
    renames: tuple[Rename, ...] = ()


_origins: dict[int, _Origin] = {}


def _keep(project: Project, origin: _Origin) -> None:
    key = id(project)
    if key not in _origins:
        weakref.finalize(project, _origins.pop, key, None)  # the id may be reused once the value is gone
    _origins[key] = origin


def remember(project: Project, catalog: Catalog, renames: tuple[Rename, ...] = ()) -> None:
    """``project`` was opened (with ``renames``) or made with ``catalog``."""
    _keep(project, _Origin(catalog, tuple(renames)))


def remember_catalog(project: Project, catalog: Catalog) -> None:
    """``project`` is held under ``catalog`` (a document's value): what its file named no longer matters, unless
    it is the very value the file opened as."""
    origin = _origins.get(id(project))
    if origin is None or origin.catalog is not catalog:
        _keep(project, _Origin(catalog, origin.renames if origin is not None else ()))


def carry(before: Project, after: Project, *, renames: bool = False) -> None:
    """``after`` is an edit of ``before``: it keeps its catalog (and its renames when asked: the same file
    opened with a what-if setting, not an edit the user made)."""
    origin = _origins.get(id(before))
    if origin is not None and after is not before:
        _keep(after, origin if renames else _Origin(origin.catalog))


def catalog_of(project: Project) -> Catalog | None:
    """The catalog ``project`` was opened or edited with, or None when nothing says."""
    origin = _origins.get(id(project))
    return origin.catalog if origin is not None else None


def renames_of(project: Project) -> tuple[Rename, ...]:
    """The renamed catalog ids the file of ``project`` named, when it is the value the file opened as."""
    origin = _origins.get(id(project))
    return origin.renames if origin is not None else ()


def renamed_types(doc: dict, project: Project, catalog: Catalog) -> tuple[Rename, ...]:
    """The renames a checked document ``doc`` went through to become ``project`` (in the same order).

    Only a catalog that declares renames pays for this walk over the document.
    """
    renames = catalog.renames
    if not renames:
        return ()
    found: dict[str, list] = {}

    def note(type_id, place: str) -> None:
        old = type_id.lower() if isinstance(type_id, str) else None
        if old in renames:
            entry = found.setdefault(old, [0, []])
            entry[0] += 1
            if len(entry[1]) < MAX_PLACES and (not entry[1] or entry[1][-1] != place):
                entry[1].append(place)

    for raw, rack in zip(doc.get("racks", ()), project.racks):
        note(raw.get("type"), f"rack:{rack.id}")
        for m in raw.get("devices") or ():
            note(m.get("type"), f"rack:{rack.id}")
    for raw, unit in zip(doc.get("floor_devices", ()), project.floor_devices):
        note(raw.get("type"), f"floor:{unit.id}")
    return tuple(Rename(old, renames[old], count, tuple(places)) for old, (count, places) in found.items())
