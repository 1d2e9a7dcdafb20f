"""The fast rack reader: the checking reader's checks on a well-formed rack, without paths.

Why: a design holds thousands of racks and tens of thousands of mounted devices, and
the checking reader builds a path string and calls a helper per value. This reader
makes the same checks without either and gives up (None) at the first value it does
not accept; the checking reader then reads that rack again and names the value and
what is wrong with it. Every message comes from the checking reader.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Any

from ..bounds import COORD_MM, MAX_TEXT_CHARS, RACK_LIMIT_KW, stored
from ..model import FACES, FloorDevice, MountedDevice, Rack
from .values import MOUNTED_KINDS, WIDE

# For _Reader.plain_rack:
_RACK_FIELDS = frozenset(("id", "hall", "type", "x", "y", "name", "rotation", "row", "devices", "power_limit_kw"))
_RACK_REQUIRED = itemgetter("id", "hall", "type", "x", "y")
#: The fields to_dict writes for every mounted device (and "name" when it has one).
_MOUNTED_WRITTEN = itemgetter("id", "type", "u", "face")
_NO_DEVICES: list = []  # never changed
# For _Reader.plain_floor_device:
_FLOOR_FIELDS = frozenset(("id", "type", "hall", "x", "y", "name", "rotation", "serves"))
_FLOOR_REQUIRED = itemgetter("id", "type", "hall", "x", "y")
_FLOOR_KINDS = ("cdu", "crah", "pdu")
_NO_SERVES: list = []  # never changed


def _plain_place(x: Any, y: Any, rotation: Any) -> bool:
    """Whether a rack's or floor unit's x, y and rotation are numbers the checking reader takes as they are."""
    tx, ty, tr = type(x), type(y), type(rotation)  # exactly: a bool is not a number here
    return ((tx is int or tx is float) and -COORD_MM <= x <= COORD_MM
            and (ty is int or ty is float) and -COORD_MM <= y <= COORD_MM
            and (tr is int or tr is float) and -360 <= rotation <= 360)  # NaN and infinities fail the comparisons



class PlainRacks:
    """Mixed into the reader: reads ``self.catalog``, ``self.device_ids``, ``self.plain_text`` and its caches."""

    def plain_rack(self, d: dict, index: int, seen: dict[str, str], halls: set[str]) -> Rack | None:
        """``racks[index]`` when every value in it passes :meth:`rack`'s checks, else None and nothing changed.

        The same checks as :meth:`rack` and :meth:`mounted`, without building a path
        string or calling a helper per value. What depends only on a device's type, U
        position and face (the catalog entry, the number checks, ``span_problem``) is
        checked once per distinct combination in :meth:`plain_placement`. A rack this
        does not accept in full (something wrong, a device without an id to generate
        or without ``u`` or ``face``, a number at least WIDE across) is read again by
        :meth:`rack`, which names the first value that is wrong.

        ``d`` must be a dict, not a subclass (a ``defaultdict`` makes up missing fields).
        KeyError (a required field is missing) and TypeError (a list where text belongs,
        as a dict key) mean the same as None.
        """
        if not d.keys() <= _RACK_FIELDS:
            return None
        ident, hall, type_id, x, y = _RACK_REQUIRED(d)
        name = d.get("name", ident)
        row = d.get("row", "")
        if (type(ident) is not str or not ident or ident.isspace() or ident in seen or type(hall) is not str
                or hall not in halls or type(name) is not str or type(row) is not str):
            return None
        if self.plain_text:  # ASCII without an escape: no control character, only the length to check
            if len(ident) > MAX_TEXT_CHARS or len(name) > MAX_TEXT_CHARS or len(row) > MAX_TEXT_CHARS:
                return None
        elif not (stored(ident, ident=True) and stored(name) and stored(row)):
            return None  # text the checking reader changes or refuses
        known = self._rack_types.get(type_id)
        if known is None:
            rtype = self.known_type(type_id, ("rack",))
            if rtype is None:
                return None
            known = self._rack_types[type_id] = rtype, self._placements.setdefault(rtype.rack_units, {})
        rtype, placements = known
        rotation, power = d.get("rotation", 0), d.get("power_limit_kw")
        if not _plain_place(x, y, rotation):
            return None
        if power is not None:
            tp = type(power)
            if not ((tp is int or tp is float) and RACK_LIMIT_KW[0] <= power <= RACK_LIMIT_KW[1]):
                return None
            power = float(power)
        devs = d.get("devices", _NO_DEVICES)
        if type(devs) is not list:
            return None
        devices = self.plain_devices(devs, placements, rtype.rack_units)
        if devices is None:
            return None
        seen[ident] = f"racks[{index}].id"
        return Rack(ident, name, hall, rtype.id, float(x), float(y), float(rotation) % 360, row, devices, power)

    def plain_floor_device(self, d: dict, index: int, seen: dict[str, str], halls: set[str]) -> FloorDevice | None:
        """``floor_devices[index]`` when every value in it passes :meth:`floor_device`'s checks, else None and
        nothing changed: the same checks without a path string per value (a million-GPU site stands 30,000 CDUs
        and PDUs on its floors, and naming each value's place took most of their reading). ``d`` must be a dict."""
        if not d.keys() <= _FLOOR_FIELDS:
            return None
        ident, type_id, hall, x, y = _FLOOR_REQUIRED(d)
        name, rotation, serves = d.get("name", ""), d.get("rotation", 0), d.get("serves", _NO_SERVES)
        if (type(ident) is not str or not ident or ident.isspace() or ident in seen or type(hall) is not str
                or hall not in halls or type(name) is not str or type(serves) is not list):
            return None
        for rid in serves:
            if type(rid) is not str:
                return None
        if self.plain_text:  # ASCII without an escape: no control character, only the length to check
            if len(ident) > MAX_TEXT_CHARS or len(name) > MAX_TEXT_CHARS or any(len(r) > MAX_TEXT_CHARS
                                                                                 for r in serves):
                return None
        elif not (stored(ident, ident=True) and stored(name) and all(stored(r) for r in serves)):
            return None  # text the checking reader changes or refuses
        dtype = self._floor_types.get(type_id) if type(type_id) is str else None
        if dtype is None:
            dtype = self.known_type(type_id, _FLOOR_KINDS)
            if dtype is None:
                return None
            self._floor_types[type_id] = dtype
        if not _plain_place(x, y, rotation):
            return None
        seen[ident] = f"floor_devices[{index}].id"
        return FloorDevice(ident, dtype.id, hall, float(x), float(y), float(rotation) % 360, name, tuple(serves))

    def plain_devices(self, devs: list, placements: dict, units: int) -> tuple[MountedDevice, ...] | None:
        """A rack's mounted devices when :meth:`mounted` accepts every one, else None and nothing changed.

        ``placements`` caches :meth:`plain_placement`'s answers for racks of ``units`` U.
        """
        plain_text = self.plain_text
        devices = []
        # Device ids are unique in the whole design: each goes into device_ids as it is accepted (one set
        # for every rack: a set per rack, joined at the end, costs more), and out again if the rack is not.
        taken = self.device_ids
        complete = False
        try:
            for m in devs:
                if type(m) is not dict:
                    break
                mid, mtype, u, face = _MOUNTED_WRITTEN(m)
                size = len(m)
                if size == 4:
                    mname = ""
                elif size == 5 and "name" in m:  # any other fifth field is not a mounted device's
                    mname = m["name"]
                    if type(mname) is not str:
                        break
                else:
                    break
                if type(mid) is not str or not mid or mid.isspace() or mid in taken:
                    break
                if plain_text:
                    if len(mid) > MAX_TEXT_CHARS or len(mname) > MAX_TEXT_CHARS:
                        break
                elif not (stored(mid, ident=True) and stored(mname)):
                    break
                # u's class is part of the key: 1, 1.0 and true are equal keys, and true is no number
                key = (mtype, u.__class__, u, face)
                placement = placements.get(key)
                if placement is None:
                    placement = self.plain_placement(mtype, u, face, units)
                    if placement is None:
                        break
                    placements[key] = placement
                mtype, whole_u, face = placement
                devices.append(MountedDevice(mid, mtype, u if whole_u is None else whole_u, face, mname))
                taken.add(mid)
            else:
                complete = True
        finally:
            if not complete:  # given up (or a KeyError for the caller): the checking reader reads the rack again
                taken.difference_update([m.id for m in devices])
        return tuple(devices) if complete else None

    def plain_placement(self, type_id: Any, u: Any, face: Any, units: int) -> tuple[str, float | None, str] | None:
        """Whether :meth:`mounted` accepts a device of ``type_id`` at ``u`` on ``face`` in a ``units`` U rack.

        If so: the type's catalog id; ``float(u)`` when ``u`` is a whole number, else None
        (use ``u`` itself: None, or a float, whose sign a 0.0 key would not keep); the face.
        """
        dtype = self.known_type(type_id, MOUNTED_KINDS)
        if dtype is None:
            return None
        whole_u = None
        if u is not None:
            tu = type(u)
            if not ((tu is int or tu is float) and -WIDE < u < WIDE):
                return None  # (span_problem bounds it to the rack's height)
            u = float(u)
            if not (u * 2).is_integer():
                return None
            if tu is int:
                whole_u = u
        if face not in FACES:
            return None
        height = dtype.u_height  # span_problem, in its order
        if dtype.fills_rack:
            if height > units or u is not None and not 1 <= u <= units:
                return None
        elif height == 0:
            if u is not None and not 1 <= u <= units:
                return None
        elif u is None or u < 1 or u > units or u + height - 1 > units:
            return None
        return dtype.id, whole_u, FACES[FACES.index(face)]
