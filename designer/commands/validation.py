"""Checks every command makes on what it is given, before it changes anything.

The bounds are the file format's (:mod:`designer.bounds`): what an edit makes, the
reader opens again. Each helper raises :class:`CommandError` naming the value.
"""
from __future__ import annotations

import math
from typing import Iterable

from catalog import Catalog, UnknownDeviceError

from ..bounds import COORD_MM, id_key, stored_text
from ..model import FloorDevice, Project, Rack
from ..placement import Problem
from .base import CommandError

#: Kinds that stand on the floor on their own footprint, in the order messages name them.
FLOOR_KIND_LIST = ["cdu", "crah", "pdu"]
MOUNT_KINDS = ("server", "rack_system", "tray", "power_shelf", "switch", "appliance", "pdu", "cdu")


def _finite(value) -> bool:
    """A number a float holds and that is not infinite or NaN (an integer of 5,000 digits is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _shown(value) -> str:
    """A value for a message: a huge integer is named by its size, not printed (it may not even print)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return f"a number of {int(abs(value).bit_length() * 0.30103) + 1} digits"
    return repr(value)


def checked_text(value, what: str, *, ident: bool = False, prose: bool = False) -> str:
    """``value`` as the design keeps text (NFC), refused where it is not text or the file format would not
    keep it (designer.bounds: too long, a control character, an invisible character in an ``ident``)."""
    if not isinstance(value, str):
        raise CommandError(f"{what} must be text, got {_shown(value)}")
    try:
        return stored_text(value, ident=ident, prose=prose)
    except ValueError as exc:
        raise CommandError(f"{what} {exc}") from None


def check_bounded(value, what: str, bounds: tuple[float, float], unit: str = "") -> None:
    """A number within the bounds the file format holds it to (designer.bounds)."""
    lo, hi = bounds
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value) or not lo <= value <= hi:
        raise CommandError(f"{what} must be a number from {lo:g} to {hi:g}{unit}, got {_shown(value)}")


def check_tile(value) -> None:
    """A floor tile's side, in the range the file format accepts."""
    _positive_number(value, "hall tile_mm", optional=False)
    if not 100 <= value <= 5000:
        raise CommandError(f"hall tile_mm must be 100 to 5000 mm, got {_shown(value)}")


def checked_outline(points) -> tuple[tuple[float, float], ...]:
    """A hall outline as an immutable tuple of (x, y) mm, checked like the file format checks it."""
    try:
        pts = tuple((round(float(x), 3), round(float(y), 3)) for x, y in points)  # to the µm, as saved
    except (TypeError, ValueError, OverflowError):
        raise CommandError("a hall outline is a list of [x, y] corners in mm") from None
    if len(pts) < 3:
        raise CommandError("a hall outline needs at least 3 corners")
    if not all(_finite(v) for p in pts for v in p):
        raise CommandError("hall outline corners must be finite numbers")
    if not all(abs(v) <= COORD_MM for p in pts for v in p):
        raise CommandError(f"hall outline corners must be within {COORD_MM:g} mm (10 km) of the plan's origin")
    return pts



def catalog_entry(catalog: Catalog, type_id: str, kinds: Iterable[str]):
    try:
        dev = catalog.get(type_id)
    except UnknownDeviceError as exc:
        raise CommandError(str(exc)) from None
    kinds = tuple(kinds)
    if dev.kind not in kinds:
        raise CommandError(f"{dev.id} is a {dev.kind}, not a {' or '.join(kinds)}")
    return dev


def check_fresh_id(project: Project, ident: str, taken: set[str], what: str) -> None:
    if not isinstance(ident, str) or not ident.strip():
        raise CommandError(f"{what} needs an id")
    key = id_key(ident)  # ids are compared after NFKC
    if project.uses_id(ident) or key in taken:
        raise CommandError(f"{what} id {ident!r} is already used")
    taken.add(key)


def _positive_number(value, what: str, *, optional: bool = True, lo: float = 0.0, hi: float = math.inf) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value) or value <= lo \
            or value > hi:
        raise CommandError(f"{what} must be a number above {lo:g}" + (f" and at most {hi:g}" if hi != math.inf else "")
                           + f", got {_shown(value)}")


def existing_rack(project: Project, rack_id: str) -> Rack:
    if not project.has_rack(rack_id):
        raise CommandError(f"no rack with id {rack_id!r}")
    return project.rack(rack_id)


def existing_floor_device(project: Project, device_id: str) -> FloorDevice:
    if not project.has_floor_device(device_id):
        raise CommandError(f"no floor unit with id {device_id!r}")
    return project.floor_device(device_id)


def checked_place(place, what: str) -> dict:
    """``(x, y, rotation)`` as the fields of a rack or floor unit, refusing what is not a finite number."""
    try:
        x, y, rotation = place
    except (TypeError, ValueError):
        raise CommandError(f"{what}: a place is (x, y, rotation)") from None
    out = {}
    for key, value in (("x", x), ("y", y), ("rotation", rotation)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not _finite(value):
            raise CommandError(f"{what} {key} must be a number, got {_shown(value)}")
        if key != "rotation" and abs(value) > COORD_MM:
            raise CommandError(f"{what} {key} must be within {COORD_MM:g} mm (10 km) of the plan's origin, "
                               f"got {_shown(value)}")
        out[key] = round(float(value), 3)  # to the µm, as the file keeps it: what is saved opens equal
    out["rotation"] %= 360
    return out


def refuse(problem: Problem | None) -> None:
    if problem is not None:
        raise CommandError(problem.message)

