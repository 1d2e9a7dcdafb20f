"""The management networks' links (in-band, OOB and their uplinks) as NetBox interfaces and cables
(:mod:`.netbox_export` writes them after the storage fabric's).

Each link is one cable row, labelled on from the storage fabric's so every cable of the site has its own label,
its description naming the network (``OOB``, ``OOB uplink``, ``in-band``, ``in-band leaf-spine``). Interfaces
are named as :mod:`designer.management.links` names the ports: a system's ``bmc``, ``inband1``, ``inband2``,
a switch's or appliance's management port ``mgmt0``, a switch's front-panel ports by number (an SN5600's 400 G
halves ``cage/port``); a compute tray's ``tray01/bmc``. None of these names is one the compute or storage fabric
gives a port of the same device, and none is a name the community library's device types (which the folder's
types may be matched to) give a template, so NetBox creates each once.

Interface types are NetBox's (``dcim/choices.py`` InterfaceTypeChoices, the same in 4.1 to 4.7) by each end's
speed and cage: ``1000base-t`` for 1 GbE RJ45, ``100gbase-x-qsfp28``, ``400gbase-x-qsfp112``,
``400gbase-x-osfp`` (an SN5600 cage's 400 G half) …; ``other`` where NetBox has none (200 GbE QSFP112). Cable
types: ``cat6a`` for a copper patch cord, ``dac-passive``, ``mmf``, ``smf``.
"""
from __future__ import annotations

import math

from designer.management.links import DESCRIPTIONS, NETWORKS, ManagementLinks

from .cell_text import csv_text
from .netbox_types import ETHERNET_TYPES

#: (speed in Gb/s, cage) -> NetBox interface type, beyond the fabrics' (dcim/choices.py InterfaceTypeChoices)
INTERFACE_TYPES = {**ETHERNET_TYPES, (1, "RJ45"): "1000base-t", (10, "RJ45"): "10gbase-t",
                   (10, "SFP+"): "10gbase-x-sfpp", (25, "SFP28"): "25gbase-x-sfp28",
                   (100, "QSFP28"): "100gbase-x-qsfp28",
                   (200, "QSFP56"): "200gbase-x-qsfp56", (400, "QSFP112"): "400gbase-x-qsfp112",
                   # a node's 400 G QSFP112 port run at the in-band network's 200 GbE: NetBox types the port
                   (200, "QSFP112"): "400gbase-x-qsfp112",
                   (400, "OSFP"): "400gbase-x-osfp", (800, "OSFP"): "800gbase-x-osfp"}
#: link medium -> NetBox cable type (dcim/choices.py CableTypeChoices)
CABLE_TYPES = {"cat6a": "cat6a", "dac": "dac-passive", "mmf": "mmf", "smf": "smf"}


def interface_type(speed: float, cage: str) -> str:
    return INTERFACE_TYPES.get((int(speed), (cage or "").upper()), "other")


class ManagementWiring:
    """The link list's ends as NetBox interfaces (each end is its own port) and its links as cables."""

    def __init__(self, links: ManagementLinks):
        self.links = links
        #: per link-list device: the design device's id and the prefix of its interface names (a tray's)
        self.device = [(d.id, f"tray{tray:02d}/" if tray else "") for _, d, tray in links.devices]
        used = set(links.a_dev.tolist()) | set(links.b_dev.tolist())
        self.cabled_devices = sorted({self.device[i][0] for i in used})

    def _ends(self):
        """(device index, interface name, NetBox type) of every end, a then b of each link."""
        links = self.links
        types: dict[tuple, str] = {}
        for cols in zip(links.a_dev.tolist(), links.a_port.tolist(), links.a_speed.tolist(), links.a_cage.tolist(),
                        links.b_dev.tolist(), links.b_port.tolist(), links.b_speed.tolist(), links.b_cage.tolist()):
            for dev, port, speed, cage in (cols[:4], cols[4:]):
                key = (speed, cage)
                if key not in types:
                    types[key] = interface_type(speed, cage)
                yield dev, self.device[dev][1] + port, types[key]

    def interface_lines(self, dev_names: dict, field) -> list[str]:
        """The rows of 09-interfaces.csv as CSV lines; ``field`` quotes a CSV field as csv.writer would."""
        head = [field(csv_text(dev_names[i])) + "," for i, _ in self.device]
        return [f"{head[d]}{field(name)},{itype}\r\n" for d, name, itype in self._ends()]

    def cable_lines(self, dev_names: dict, field, num, first: int, prefix: str = "") -> list[str]:
        """The rows of 10-cables.csv as CSV lines, one per link, labelled ``{prefix}W...`` on from ``first``."""
        links = self.links
        head = [field(csv_text(dev_names[i])) + ",dcim.interface," for i, _ in self.device]
        ends = [(d, field(name)) for d, name, _ in self._ends()]
        described: dict[tuple, tuple[str, str]] = {}

        def describe(net, medium, cable, length, speed) -> tuple[str, str]:
            ok = not math.isnan(length) and length > 0
            part = cable or {"cat6a": "Cat6A patch cord", "dac": f"{speed:g}G passive copper"}.get(medium, "")
            what = (DESCRIPTIONS[NETWORKS[net]], part)
            before = f",{CABLE_TYPES.get(medium, '')},planned,{num(length) if ok else ''},{'m' if ok else ''},"
            return before, "," + field(", ".join(w for w in what if w)) + "\r\n"

        rows = []
        speed = [min(a, b) for a, b in zip(links.a_speed.tolist(), links.b_speed.tolist())]
        cols = zip(links.network.tolist(), links.medium.tolist(), links.cable.tolist(), links.length_m.tolist(),
                   speed)
        for i, key in enumerate(cols):
            d = described.get(key)
            if d is None:
                d = described[key] = describe(*key)
            (a, an), (b, bn) = ends[2 * i], ends[2 * i + 1]
            rows.append(f"{head[a]}{an},{head[b]}{bn}{d[0]}{prefix}W{first + i:06d}{d[1]}")
        return rows
