"""The storage fabric's links, port to port, for the cabling files and NetBox.

Made from the same walk and assignment that :func:`.fabric.storage_fabric` counts (it hands each link here as
it counts it), so the list and the bill agree link for link and fibre for fibre. Built when an export asks
for it, not in every analysis.

Ports, named so each is unique on its device and the same on every export of the design:

- a node's, an appliance's or the storage UFM's storage ports: ``S1``, ``S2`` … (S for storage) in the order of
  its port groups (``S1/1``, ``S1/2`` on a twin-port cage); on a rack-scale system the ports of
  each compute tray, the device named ``NAME/trayNN`` as the compute fabric's wiring plan names trays; the
  storage UFM's fabric ports ``1``, ``2`` as the compute fabric names a UFM's;
- a switch's ports: numbered from 1 in the order its links are made (node links, then links to the tier
  below, then to the tier above), ``cage/port`` on a twin-port cage as the compute fabric names them; the
  single-mode links start on a cage of their own, so each cage holds one kind of module, as the bill counts.
  The two node ports on one 1:2 splitter fibre share the switch port and are its halves: ``3/1/1``, ``3/1/2``.

A 100,000-GPU design has some 25,000 storage ports: the list is columns (numpy), one row per link.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from catalog import Catalog

from ..fabric.media import CAGE_KEY
from ..fabric.wiring import port_name
from ..model import Project
from .fabric import CLASS_FIBRE, FIBRE, MEDIA_CLASSES, SPLITTER, SWITCH_MODULES, TIERS, StorageFabric, storage_fabric

#: the links' tiers, as the compute fabric names its own
LINK_TIERS = ("node-leaf", "leaf-spine", "spine-core")


@dataclass(frozen=True)
class StorageLinks:
    """The storage fabric's links as columns, one row per link; a splitter fibre's two links share one cable,
    the first of them owning it (as a copper pair's links do on the compute fabric)."""

    #: the ends' devices: (rack index, device, compute tray from 1 or 0 for the device itself)
    devices: list
    tier: np.ndarray  # index into LINK_TIERS
    a_dev: np.ndarray  # index into devices
    a_port: np.ndarray
    b_dev: np.ndarray
    b_port: np.ndarray
    medium: np.ndarray  # "mmf" or "smf" (DR or FR)
    cable: np.ndarray  # catalog id of the fibre
    length_m: np.ndarray  # orderable length
    owner: np.ndarray  # True on the link that counts the physical cable
    a_transceiver: np.ndarray  # module id, "" where the catalog has none for the cage
    b_transceiver: np.ndarray
    #: each end's cage (device * CAGE_KEY + cage): one module per cage, whatever its ports carry
    a_cage: np.ndarray
    b_cage: np.ndarray

    def __len__(self) -> int:
        return len(self.tier)

    def label(self, i: int) -> str:
        """A device as the cabling plan names it: its name (or id), a compute tray ``NAME/trayNN``."""
        _, d, tray = self.devices[i]
        return f"{d.name or d.id}/tray{tray:02d}" if tray else d.name or d.id


def storage_links(project: Project, catalog: Catalog) -> tuple[StorageFabric, StorageLinks]:
    """The storage fabric's counts and its links, from one walk of the design."""
    record = _Recorder()
    fabric = storage_fabric(project, catalog, record)
    return fabric, record.links()


def _empty_text(n: int) -> np.ndarray:
    return np.full(n, "", dtype=object)


class _Recorder:
    """Takes each link as :func:`.fabric.storage_fabric` counts it; the switches' ports are numbered at the end,
    when every link on them is known."""

    def __init__(self):
        self.devices: list = []
        self._index: dict = {}
        self.parts: list[dict] = []
        #: per switch tier: the tier, and its port-holding units (a fibre's end) as (switch, single-mode) chunks
        self.tiers: dict[str, object] = {}
        self.units: dict[str, list] = {t: [] for t in TIERS}
        self.n_units: dict[str, int] = {t: 0 for t in TIERS}

    def _device(self, rack: int, d, tray: int = 0) -> int:
        key = (rack, id(d), tray)
        i = self._index.get(key)
        if i is None:
            i = self._index[key] = len(self.devices)
            self.devices.append((rack, d, tray))
        return i

    def _switches(self, name: str, tier) -> np.ndarray:
        self.tiers[name] = tier
        return np.asarray([self._device(r, d) for r, d in tier.refs], dtype=np.int64)

    def _units(self, tier: str, switch: np.ndarray, cls: np.ndarray) -> np.ndarray:
        """New port-holding units on a tier's switches, in order; their ids."""
        start = self.n_units[tier]
        self.units[tier].append((switch, cls))
        self.n_units[tier] += len(switch)
        return start + np.arange(len(switch), dtype=np.int64)

    def node_links(self, ends, leaves, lengths, cable, cable_leaf, split, run, half) -> None:
        """One link per endpoint port: ``cable`` is each port's fibre, ``half`` its half of a splitter (-1: none)."""
        leaf_dev = self._switches("leaf", leaves)
        dev, port, module, cage = [], [], [], []
        names: dict[tuple[str, int], list[str]] = {}  # port names by (prefix, ports per cage), made once

        def name(prefix: str, per_cage: int, j: int) -> str:
            table = names.setdefault((prefix, per_cage), [])
            while len(table) <= j:
                table.append(prefix + port_name(per_cage, len(table)))
            return table[j]

        for rack, _z, _speed, mod, n, _serves, (d, first, per_cage, per_tray, prefix) in ends.rows:
            module += [mod] * n
            if not per_tray:  # the device's own ports: one device, ports first, first + 1, ...
                i = self._device(rack, d)
                name(prefix, per_cage, first + n - 1)
                dev += [i] * n
                port += names[prefix, per_cage][first:first + n]
                cage += [i * CAGE_KEY + j // per_cage for j in range(first, first + n)]
                continue
            for k in range(n):  # a tray's
                j = k % per_tray + first
                i = self._device(rack, d, k // per_tray + 1)
                dev.append(i)
                port.append(name(prefix, per_cage, j))
                cage.append(i * CAGE_KEY + j // per_cage)
        n = len(dev)
        fibre = np.where(split, SPLITTER, FIBRE).astype(object)
        lengths_of = np.zeros(len(run))
        for cid, sel in ((FIBRE, ~split), (SPLITTER, split)):
            if sel.any():
                lengths_of[sel] = lengths.orderable(cid, run[sel])[0]
        # each fibre holds one leaf port; the ports of a leaf in the order of its fibres (rack order)
        units = self._units("leaf", cable_leaf, np.zeros(len(cable_leaf), dtype=np.int64))
        owner = np.zeros(n, dtype=bool)
        owner[np.unique(cable, return_index=True)[1]] = True
        self.parts.append({
            "tier": np.zeros(n, dtype=np.int64), "a_dev": np.asarray(dev, dtype=np.int64),
            "a_port": np.asarray(port, dtype=object), "b_dev": leaf_dev[cable_leaf[cable]],
            "b_unit": ("leaf", units[cable], half), "medium": np.full(n, "mmf", dtype=object),
            "cable": fibre[cable], "length_m": lengths_of[cable], "owner": owner,
            "a_transceiver": np.asarray(module, dtype=object), "a_cage": np.asarray(cage, dtype=np.int64)})

    def uplinks(self, lower, upper, lengths, below, far, metres, cls) -> None:
        names = {id(t): name for name, t in self.tiers.items()}
        low = names.get(id(lower)) or "spine"
        high = "spine" if low == "leaf" else "core"
        low_dev, high_dev = self._switches(low, lower), self._switches(high, upper)
        n = len(below)
        length = np.zeros(n)
        for c, cid in enumerate(CLASS_FIBRE):
            sel = cls == c
            if sel.any():
                length[sel] = lengths.orderable(cid, metres[sel])[0]
        self.parts.append({
            "tier": np.full(n, TIERS.index(high), dtype=np.int64),
            "a_dev": low_dev[below], "a_unit": (low, self._units(low, below, cls), np.full(n, -1)),
            "b_dev": high_dev[far], "b_unit": (high, self._units(high, far, cls), np.full(n, -1)),
            "medium": np.where(cls > 0, "smf", "mmf").astype(object),
            "cable": np.asarray(CLASS_FIBRE, dtype=object)[cls],
            "length_m": length, "owner": np.ones(n, dtype=bool)})

    def _ports(self, tier: str, dev: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per unit of a tier: its port name, module and cage key. Multimode fibres take the first ports in
        order, single-mode ones the ports from the next free cage on."""
        t = self.tiers[tier]
        sw = np.concatenate([s for s, _ in self.units[tier]])
        cls = np.concatenate([m for _, m in self.units[tier]]).astype(np.int64)
        k = len(MEDIA_CLASSES)
        per = np.where(t.per_cage == 2, 2, 1)
        order = np.lexsort((np.arange(len(sw)), cls, sw))
        group = sw[order] * k + cls[order]
        rank = np.arange(len(sw)) - np.searchsorted(group, group, side="left")
        # each class from the next free cage after the classes before it
        counts = np.bincount(sw * k + cls, minlength=len(t) * k).reshape(len(t), k)
        cages = -(-counts // per[:, None]) * per[:, None]
        base = np.concatenate([np.zeros((len(t), 1), dtype=np.int64), np.cumsum(cages, axis=1)[:, :-1]], axis=1)
        port = np.empty(len(sw), dtype=np.int64)
        port[order] = rank + base[sw[order], cls[order]]
        names = np.empty(len(sw), dtype=object)
        top = int(port.max()) + 1 if len(port) else 0
        for p in np.unique(per[sw]).tolist():
            table = np.asarray([port_name(p, q) for q in range(top)], dtype=object)
            sel = per[sw] == p
            names[sel] = table[port[sel]]
        kinds = np.asarray([SWITCH_MODULES[m, p] for m in MEDIA_CLASSES for p in (1, 2)], dtype=object)
        module = kinds[cls * 2 + per[sw] - 1]
        return names, module, dev[sw] * CAGE_KEY + port // per[sw]

    def links(self) -> StorageLinks:
        if not self.parts:
            z = np.zeros(0, dtype=np.int64)
            e = _empty_text(0)
            return StorageLinks([], z, z, e, z, e, e, e, np.zeros(0), np.zeros(0, dtype=bool), e, e, z, z)
        ports = {t: self._ports(t, self._switches(t, self.tiers[t])) for t in self.tiers if self.n_units[t]}
        cols: dict[str, list] = {k: [] for k in ("tier", "a_dev", "a_port", "b_dev", "b_port", "medium", "cable",
                                                 "length_m", "owner", "a_transceiver", "b_transceiver",
                                                 "a_cage", "b_cage")}
        for part in self.parts:
            for end in ("a", "b"):
                if f"{end}_unit" not in part:
                    continue
                tier, unit, half = part[f"{end}_unit"]
                names, module, cage = ports[tier]
                name = names[unit]
                halves = half >= 0
                if halves.any():
                    name = name.copy()
                    name[halves] = name[halves] + "/" + (half[halves] + 1).astype(str).astype(object)
                part[f"{end}_port"], part[f"{end}_transceiver"], part[f"{end}_cage"] = name, module[unit], cage[unit]
            for k in cols:
                cols[k].append(part[k])
        return StorageLinks(self.devices, **{k: np.concatenate(v) for k, v in cols.items()})


__all__ = ["LINK_TIERS", "StorageLinks", "storage_links"]
