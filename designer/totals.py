"""Quick totals of a design (racks, GPUs) for a status line that must not wait for the engines.

The figures are the same as the analysis summary's ``racks`` and ``gpus`` (GPUs of
every device mounted in a rack, from the catalog's ``gpu_count``); the analysis
stays the authority, these only bridge the moments while it runs.

:class:`TotalsCounter` keeps each rack's GPU count keyed by the identity of the
rack's ``devices`` tuple. Projects are immutable values and an edit replaces only
the racks it touches (a move keeps the rack's ``devices`` tuple as it is), so on a
12,500-rack design only the racks an edit changed are counted again. The cache
holds the tuples it is keyed by, so an id cannot be reused while it is in the
cache, and it is pruned to the tuples of the project being counted once it holds
more than twice as many, so it never grows beyond about two designs.
"""
from __future__ import annotations

from dataclasses import dataclass

from catalog import Catalog

from .model import MountedDevice, Project


@dataclass(frozen=True)
class Totals:
    racks: int
    gpus: int


class TotalsCounter:
    """Counts a project's racks and GPUs, reusing each unchanged rack's count from the call before."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self._by_devices: dict[int, tuple[tuple[MountedDevice, ...], int]] = {}
        self._gpus_of_type: dict[str, int] = {}
        self._last: tuple[tuple, Totals] | None = None
        #: How many racks' devices were counted (not taken from the cache); for tests.
        self.counted = 0

    def __call__(self, project: Project) -> Totals:
        racks = project.racks
        if self._last is not None and self._last[0] is racks:
            return self._last[1]
        totals = Totals(racks=len(racks), gpus=sum(self._rack_gpus(racks)))
        self._last = (racks, totals)
        return totals

    def by_hall(self, project: Project) -> dict[str, Totals]:
        """Racks and GPUs of each hall that holds racks (by hall id), counted as :meth:`__call__` counts."""
        racks: dict[str, int] = {}
        gpus: dict[str, int] = {}
        for rack, n in zip(project.racks, self._rack_gpus(project.racks)):
            racks[rack.hall] = racks.get(rack.hall, 0) + 1
            gpus[rack.hall] = gpus.get(rack.hall, 0) + n
        return {h: Totals(racks=racks[h], gpus=gpus[h]) for h in racks}

    def _rack_gpus(self, racks) -> list[int]:
        """Each rack's GPUs, a rack whose ``devices`` are unchanged read from the cache."""
        cache, out = self._by_devices, []
        get = cache.get
        for rack in racks:
            devices = rack.devices
            hit = get(id(devices))
            if hit is None or hit[0] is not devices:
                hit = cache[id(devices)] = (devices, self._count(devices))
            out.append(hit[1])
        if len(cache) > 2 * len(racks) + 64:  # drop the tuples no rack of this project holds any more
            self._by_devices = {id(r.devices): cache[id(r.devices)] for r in racks}
        return out

    def _count(self, devices: tuple[MountedDevice, ...]) -> int:
        self.counted += 1
        per_type = self._gpus_of_type
        n = 0
        for d in devices:
            g = per_type.get(d.type)
            if g is None:
                dev = self.catalog.find(d.type)
                g = per_type[d.type] = dev.gpu_count if dev is not None else 0
            n += g
        return n


def quick_totals(project: Project, catalog: Catalog) -> Totals:
    """Racks and GPUs of ``project`` counted afresh (keep a :class:`TotalsCounter` to count edits cheaply)."""
    return TotalsCounter(catalog)(project)
