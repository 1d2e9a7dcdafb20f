"""Format versions: each older version is upgraded step by step on load; a newer one is refused."""
from __future__ import annotations

from typing import Callable

from ..settings import Settings
from .errors import ProjectFileError

FORMAT_VERSION = 6

#: ``MIGRATIONS[n]`` turns a version-n document into version n+1.
MIGRATIONS: dict[int, Callable[[dict], dict]] = {}


def migration(from_version: int):
    """Register a function that upgrades a document from ``from_version`` to the next version."""

    def register(fn: Callable[[dict], dict]) -> Callable[[dict], dict]:
        MIGRATIONS[from_version] = fn
        return fn

    return register


@migration(1)
def _add_settings(doc: dict) -> dict:
    """Version 2 keeps the design assumptions (PUE, coolant, delta-T ...) and the workload in the file.

    A version-1 file was analysed with the defaults, so it gets them explicitly.
    """
    doc.setdefault("settings", Settings().to_json())
    return doc


@migration(2)
def _quote_optional(doc: dict) -> dict:
    """Version 3 may keep a ``quote`` (customer, discounts, price list, cost settings).

    A version-2 file had none: it gets the defaults, so nothing needs adding.
    """
    return doc


@migration(3)
def _facility_optional(doc: dict) -> dict:
    """Version 4 halls may keep a ``facility`` (row distribution, UPS, generators, air and water classes,
    floor tiles) and the settings gain the failover, phase and air-density limits.

    A version-3 file states none of these: its halls check what they checked before and the new
    settings take their defaults, so the document is unchanged.
    """
    return doc


@migration(4)
def _versions_optional(doc: dict) -> dict:
    """Version 5 files say which PodPlanner and which catalog wrote them (``app_version``,
    ``catalog_version``).

    A version-4 file does not say, and nothing else changed: the document is unchanged.
    """
    return doc


@migration(5)
def _sites_optional(doc: dict) -> dict:
    """Version 6 halls may say which building they stand in, where they lie on the site plan
    (``building``, ``site_origin``) and whether they are a network room (``kind``).

    A version-5 file states none: its halls stand side by side as the plan always drew them, all data
    halls, so the document is unchanged.
    """
    return doc


def migrate(doc: dict, migrations: dict[int, Callable[[dict], dict]] | None = None,
            target: int = FORMAT_VERSION) -> dict:
    steps = MIGRATIONS if migrations is None else migrations
    version = doc.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ProjectFileError("format_version", f"must be a whole number, got {version!r}")
    if version > target:
        raise ProjectFileError("format_version", f"{version} is newer than this PodPlanner reads ({target}); "
                                                 "update PodPlanner to open it")
    if version < 1:
        raise ProjectFileError("format_version", f"{version} is not a format version")
    while version < target:
        if version not in steps:
            raise ProjectFileError("format_version", f"no migration from version {version}")
        doc = steps[version](dict(doc))
        version += 1
        doc["format_version"] = version
    return doc
