"""Which catalog a design was made with: the bundled data's release and a fingerprint of every entry loaded.

A project file keeps this (``catalog_version``) so that a figure that changes between two
openings of the same file can be traced to the catalog, not the design. The release says
which bundled catalog it was; the fingerprint tells apart two catalogs of one release (a
user's own entries, an edited data file), without listing them.
"""
from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Iterable

from .records import DeviceType

#: The bundled catalog's release (year.month of its last change). Raise it with any change to catalog/data.
RELEASE = "2026.12"


def fingerprint(devices: Iterable[DeviceType]) -> str:
    """12 hex digits of a SHA-256 over every entry's figures, in id order.

    An entry is hashed as its record's text without the file it came from (the same data
    installed elsewhere is the same catalog); the record's text holds every figure the
    engines read, and floats print exactly, so equal catalogs give equal fingerprints.
    """
    digest = hashlib.sha256()
    for dev in sorted(devices, key=lambda d: d.id):
        digest.update(repr(replace(dev, origin="")).encode("utf-8", "backslashreplace"))
        digest.update(b"\n")
    return digest.hexdigest()[:12]


def catalog_version(devices: Iterable[DeviceType]) -> str:
    """``RELEASE+fingerprint``, as a project file keeps it (``2026.12+3fa94c01b2de``)."""
    return f"{RELEASE}+{fingerprint(devices)}"
