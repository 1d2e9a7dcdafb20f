"""The names a NetBox folder gives a design's site, halls (locations), racks and devices: unique where NetBox needs
them unique, within its lengths, and with the site's code in front of every device name so that designs in sites
of their own share one NetBox (split from :mod:`.netbox_export`)."""
from __future__ import annotations

from collections import Counter

from designer.formatting import name_code

from .base import ExportError

#: NetBox's limits on names (dcim models' max_length)
DEVICE_NAME_MAX = 64
NAME_MAX = 100


def site_code(name: str) -> str:
    """The code a site's device names and cable labels start with (``DGXB200S1SU``): letters and digits only,
    so it never needs quoting; ``SITE`` for a name without either."""
    return name_code(name, 16) or "SITE"


def _device_names(project, code: str = "") -> dict[str, str]:
    """A NetBox name per device id (racked and floor), unique case-insensitively in the whole export and, with
    the site's ``code`` in front, among every site a NetBox holds.

    The design's own name when no other device shares it; else prefixed by its rack's (or hall's)
    name; a clash left after that gets the device id.
    """
    halls = {h.id: h.name or h.id for h in project.halls}
    entries = [(d.id, d.name or d.id, r.name or r.id) for r in project.racks for d in r.devices]
    entries += [(f.id, f.name or f.id, halls.get(f.hall, f.hall)) for f in project.floor_devices]
    first = Counter(base.lower() for _, base, _ in entries)
    lead = f"{code}-" if code else ""
    names = {i: lead + (base if first[base.lower()] == 1 else f"{where} {base}") for i, base, where in entries}
    second = Counter(n.lower() for n in names.values())
    for i in names:
        if second[names[i].lower()] > 1:
            names[i] = f"{names[i]} ({i})"
    for i, name in names.items():
        if len(name) > DEVICE_NAME_MAX:
            # NetBox holds 64 characters: keep the start, and the id that makes it unique (the design's
            # own name travels whole in podplanner_name)
            tail = f" ({i})"
            names[i] = name[:max(1, DEVICE_NAME_MAX - len(tail) - 1)].rstrip() + "…" + tail
    third = Counter(n.lower() for n in names.values())
    for name in names.values():
        if third[name.lower()] > 1 or len(name) > DEVICE_NAME_MAX:
            raise ExportError(f"two devices would both be named {name!r} in NetBox; rename one")
    return names


def _rack_names(project) -> dict[str, str]:
    """A NetBox name per rack id: unique per location (hall), as NetBox requires."""
    names, seen = {}, Counter((r.hall, (r.name or r.id).lower()) for r in project.racks)
    for r in project.racks:
        base = r.name or r.id
        name = base if seen[(r.hall, base.lower())] == 1 else f"{base} ({r.id})"
        if len(name) > NAME_MAX:
            raise ExportError(f"rack name {name!r} is longer than the {NAME_MAX} characters NetBox allows")
        names[r.id] = name
    if len({(project.rack(i).hall, n.lower()) for i, n in names.items()}) != len(names):
        raise ExportError("two racks of one hall would share a name in NetBox; rename one")
    return names


def _location_names(project) -> dict[str, str]:
    names, seen = {}, set()
    for h in project.halls:
        name = (h.name or h.id)[:NAME_MAX]
        if name.lower() in seen:
            name = f"{name} ({h.id})"[:NAME_MAX]
        if name.lower() in seen:
            raise ExportError(f"two halls would share the NetBox location name {name!r}; rename one")
        seen.add(name.lower())
        names[h.id] = name
    return names
