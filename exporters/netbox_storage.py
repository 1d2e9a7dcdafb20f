"""The storage fabric's links as NetBox interfaces and cables (:mod:`.netbox_export` writes them after the compute
fabric's).

Each link is one cable row, as on the compute fabric (a splitter fibre's two links are two rows, its two node
ports on the two halves of one switch port, ``3/1/1`` and ``3/1/2``); the labels go on from the compute
fabric's, so every cable of the site has its own. Interfaces are named as the cabling plan names the ports
(:mod:`designer.storage.links`): a node's storage ports ``S1``, ``S2`` … (a compute tray's ``tray01/S1``), a
switch's ``cage/port``, and each is typed by the port group it is of (its storage ports, or a switch's or the
storage UFM's fabric ports; a switch's 800G cage cabled as two 400G ports by its 400G). A port NetBox has no
type for (GB200's 200 GbE QSFP112) is ``other``.
"""
from __future__ import annotations

import math

from designer.quote.lines import cable_part_number
from designer.storage.fabric import MPO_GBPS, storage_fabric_port_group
from designer.storage.links import LINK_TIERS, StorageLinks

from .cell_text import csv_text
from .netbox_types import ETHERNET_TYPES, IB_TYPES


def interface_type(dev, catalog, switch: bool) -> str:
    """The NetBox type of a device's storage-fabric ports, by the port group they are of."""
    group = storage_fabric_port_group(dev, catalog, switch)
    if group is None:
        return "other"
    speed = group.speed_gbps
    if switch and group.ports_per_cage == 1:  # an 800G cage cabled as two 400G ports, as the fabric counts it
        speed /= max(1, round(speed / MPO_GBPS))
    if group.protocol == "infiniband":
        return IB_TYPES.get(int(speed), "other")
    return ETHERNET_TYPES.get((int(speed), (group.cage or "").upper()), "other")


class StorageWiring:
    """The link list's ends as NetBox interfaces (each end is its own port) and its links as cables."""

    def __init__(self, links: StorageLinks, catalog):
        self.links = links
        ends = links.devices
        #: per link-list device: the design device's id and the prefix of its interface names (a tray's)
        self.device = [(d.id, f"tray{tray:02d}/" if tray else "") for _, d, tray in ends]
        self.cabled_devices = sorted({i for i, _ in self.device})
        switches = set(links.b_dev.tolist()) | set(links.a_dev[links.tier > 0].tolist())
        types: dict[tuple[str, bool], str] = {}
        self.itype = []
        for k, (_, d, _) in enumerate(ends):
            key = (d.type, k in switches)
            if key not in types:
                dtype = catalog.find(d.type)
                types[key] = interface_type(dtype, catalog, key[1]) if dtype is not None else "other"
            self.itype.append(types[key])

    def _ends(self):
        """(device index, interface name) of every end, a then b of each link."""
        links = self.links
        for a, ap, b, bp in zip(links.a_dev.tolist(), links.a_port.tolist(), links.b_dev.tolist(),
                                links.b_port.tolist()):
            yield a, self.device[a][1] + ap
            yield b, self.device[b][1] + bp

    def interface_lines(self, dev_names: dict, field) -> list[str]:
        """The rows of 09-interfaces.csv as CSV lines; ``field`` quotes a CSV field as csv.writer would."""
        head = [field(csv_text(dev_names[i])) + "," for i, _ in self.device]
        return [f"{head[d]}{name},{self.itype[d]}\r\n" for d, name in self._ends()]

    def cable_lines(self, dev_names: dict, catalog, field, num, cable_types: dict, first: int,
                    prefix: str = "") -> list[str]:
        """The rows of 10-cables.csv as CSV lines, one per link, labelled ``{prefix}W...`` on from ``first``."""
        links = self.links
        head = [field(csv_text(dev_names[i])) + ",dcim.interface," for i, _ in self.device]
        ends = list(self._ends())
        described: dict[tuple, tuple[str, str]] = {}

        def describe(tier, medium, cable, length, ma, mb) -> tuple[str, str]:
            ok = not math.isnan(length) and length > 0
            legacy, ordering = cable_part_number(catalog.get(cable), length) if ok else ("", "")
            what = (f"storage {LINK_TIERS[tier]}", ordering or legacy or cable, " / ".join(m for m in (ma, mb) if m))
            before = f",{cable_types.get(medium, '')},planned,{num(length) if ok else ''},{'m' if ok else ''},"
            return before, "," + field(", ".join(w for w in what if w)) + "\r\n"

        rows = []
        cols = zip(links.tier.tolist(), links.medium.tolist(), links.cable.tolist(), links.length_m.tolist(),
                   links.a_transceiver.tolist(), links.b_transceiver.tolist())
        for i, key in enumerate(cols):
            d = described.get(key)
            if d is None:
                d = described[key] = describe(*key)
            (a, an), (b, bn) = ends[2 * i], ends[2 * i + 1]
            rows.append(f"{head[a]}{an},{head[b]}{bn}{d[0]}{prefix}W{first + i:06d}{d[1]}")
        return rows
