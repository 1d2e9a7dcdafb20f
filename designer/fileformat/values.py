"""The checking reader's checks on single values: objects, text, numbers, ids and catalog types.

Each names the path of the value it refuses (``racks[3].x``) in a :class:`ProjectFileError`.
"""
from __future__ import annotations

import math
from typing import Any

from catalog import UnknownDeviceError

from ..bounds import COORD_MM, id_key, stored_text
from .errors import ProjectFileError

#: Kinds of device a rack may hold, in the order a message lists them.
MOUNTED_KINDS = ("server", "rack_system", "tray", "power_shelf", "switch", "appliance", "pdu", "cdu")
#: orjson reads a whole number beyond 64 bits (below -2**63 or above 2**64 - 1) as a float, so a
#: float this wide may have been one: such a document is read again with :mod:`json` (see reading._read).
WIDE = 9e18


class ValueChecks:
    """Mixed into the reader: ``self.catalog`` and ``self.wide_number`` are the reader's."""

    @staticmethod
    def obj(value: Any, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
        if not isinstance(value, dict):
            raise ProjectFileError(where, f"must be an object, got {type(value).__name__}")
        for key in required:
            if key not in value:
                raise ProjectFileError(f"{where}.{key}" if where else key, "is missing")
        unknown = set(value) - set(required) - set(optional)
        if unknown:
            key = sorted(unknown)[0]
            raise ProjectFileError(f"{where}.{key}" if where else key, "is not a known field")
        return value

    @staticmethod
    def text(value: Any, where: str, allow_empty: bool = True, *, ident: bool = False, prose: bool = False) -> str:
        """``value`` in NFC (one text, however it was composed) and within the bounds of designer.bounds
        (one line of a person's length; ``prose`` some pages; an ``ident`` nothing invisible), or a
        ProjectFileError."""
        if not isinstance(value, str):
            raise ProjectFileError(where, f"must be text, got {value!r}")
        if not allow_empty and not value.strip():
            raise ProjectFileError(where, "must not be empty")
        try:
            value = stored_text(value, ident=ident, prose=prose)
        except ValueError as exc:
            raise ProjectFileError(where, str(exc)) from None
        return value

    def number(self, value: Any, where: str, lo: float = -math.inf, hi: float = math.inf, *,
               positive: bool = False, optional: bool = False, unit: str = "") -> float | None:
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ProjectFileError(where, f"must be a number, got {value!r}")
        try:
            finite = math.isfinite(value)
        except OverflowError:  # a whole number beyond any float
            raise ProjectFileError(where, f"a whole number of {len(str(abs(value)))} digits is too large") from None
        if not finite:
            raise ProjectFileError(where, f"must be a number, got {value!r}")
        if isinstance(value, float) and not -WIDE < value < WIDE:
            self.wide_number = True
        if positive and value <= 0:
            raise ProjectFileError(where, f"must be above zero, got {value!r}")
        if not lo <= value <= hi:
            raise ProjectFileError(where, f"{value!r} is outside {lo:g}..{hi:g}{unit}")
        return float(value)

    def coordinate(self, value: Any, where: str) -> float:
        return self.number(value, where, -COORD_MM, COORD_MM, unit=" mm")

    def device_type(self, value: Any, where: str, kinds: tuple[str, ...]):
        type_id = self.text(value, where, allow_empty=False)
        try:
            dev = self.catalog.get(type_id)
        except UnknownDeviceError as exc:
            raise ProjectFileError(where, str(exc)) from None
        if dev.kind not in kinds:
            raise ProjectFileError(where, f"{dev.id} is a {dev.kind}; expected a {' or '.join(kinds)}")
        return dev

    def ident(self, value: Any, where: str, seen: dict[str, str]) -> str:
        """An id, unique in ``seen`` (keyed by :func:`designer.bounds.id_key`: ``ｓｕ01`` is ``su01``)."""
        ident = self.text(value, where, allow_empty=False, ident=True)
        key = id_key(ident)
        if key in seen:
            raise ProjectFileError(where, f"id {ident!r} is also used by {seen[key]}")
        seen[key] = where
        return ident

    def known_type(self, type_id: Any, kinds: tuple[str, ...]):
        """The catalog entry a type field names, or None where :meth:`device_type` would refuse it."""
        if type(type_id) is not str or not type_id.strip():
            return None
        dev = self.catalog.find(type_id)
        return dev if dev is not None and dev.kind in kinds else None
