"""The renamed catalog ids a document named: which of its type fields the catalog answers under a new id.

The checking reader keeps them on the project it builds (:attr:`designer.model.Project.renames`), and the
analysis reports them, so the user learns why the file changes on save.
"""
from __future__ import annotations

from catalog import Catalog

from ..model import Project, Rename

#: A rename names at most this many places (a rename in a 12,500-rack design would list them all).
MAX_PLACES = 1000


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
