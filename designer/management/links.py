"""The in-band and out-of-band (OOB) management networks' links, port to port, for the cabling files and NetBox.

The generator places these networks' switches (:mod:`designer.generate.networks`) but no engine counts their
links; this module lays them out from what a design holds, so a hand-made design is wired the same way as a
generated one. A switch's network is read from its name, as :data:`designer.fabric.geometry.OTHER_NETWORKS`
and :mod:`designer.rack_roles` read it: "oob" (or "out-of-band") an OOB switch; "inband" (or "in-band") with
"mgmt"/"management" an in-band management leaf (the RA's SN2201 pair); "inband" with "spine" an in-band spine;
any other "inband" an in-band leaf (the RA's SN5600 pairs).

Networks, one name per link (:data:`NETWORKS`):

- ``oob``: every BMC port (role ``bmc``) and every 1 GbE management port (role ``management``: switches, UFM
  and storage appliances) to an OOB switch's 1 GbE ports. A switch whose type lists no management port gets
  one 1 GbE RJ45 port, as every managed switch has one. An OOB switch's own management port goes to its
  neighbour in name order (1↔2, 3↔4; a switch cannot manage itself out of band). The others go to the
  nearest switch with a free port: one in the same rack, then one in the same row (in order along the row, so
  cables do not cross), then the nearest by distance between racks; at most as many as the switch's ``oob``
  ports (48 on an SN2201). PDUs and CDUs join when their catalog type lists a ``bmc`` or ``management`` port
  (none does today); floor units have no rack to run a cable from and are counted as unconnected.
- ``oob-uplink``: each OOB switch's first two ``uplink`` ports to the in-band management leaves (A then B),
  then, when those are full, to the in-band leaves.
- ``inband``: each device's ``inband`` ports to an in-band leaf pair, port 1 to leaf A and port 2 to leaf B
  (a bonded pair), the devices dealt evenly over the pairs in rack order, management nodes with the systems.
  Without in-band leaves (a GB200 design: the RA carries in-band on the storage Ethernet fabric) systems get
  no in-band link (:attr:`ManagementLinks.on_storage` counts their ports) and management nodes go to the
  in-band management leaves' 100 G ports instead. The UFM appliances list no in-band port; their one
  management port is on the OOB network.
- ``inband-uplink``: each in-band leaf to every in-band spine, one link per 4 of its node ports per spine (at
  least one: in-band traffic is light and the RA gives no uplink count); each in-band management leaf one link
  to a spine (to a leaf without spines).

The in-band management leaves' 100 G ports are taken in that order: their own uplink, the management nodes
(without in-band leaves), the OOB uplinks. Anything the design lacks (no OOB switch, a full switch) leaves a
port without a link, counted in :attr:`ManagementLinks.unconnected`; nothing here raises.

Port names, unique on a device and the same on every export: a BMC ``bmc`` (``bmc1``, ``bmc2`` … when there
are several), a management port ``mgmt0``, ``mgmt1`` … (the name NVIDIA's switch OS, Onyx, gives it; Cumulus
calls it ``eth0``, but the community device types a NetBox may hold carry ``eth0`` as a template, and a second
interface of that name would be refused), in-band ports ``inband1``, ``inband2``; a compute tray's ports on
the tray, the device ``NAME/trayNN``. A switch's front-panel ports are numbered as the compute fabric numbers
them (:func:`designer.fabric.wiring.port_name`): an SN2201's 1 GbE ports 1-48 and its 100 G ports 49-52 as on
its panel; an SN5600's 800 G cages each as two 400 G ports, ``cage/1`` and ``cage/2``, node links first.

Lengths are the run :func:`designer.fabric.geometry.run_lengths_m` measures for every fabric (tray, drops,
slack), rounded up to an orderable length. Media by speed and reach: 1 GbE a Cat6A patch cord; faster links a
passive copper cable within its reach (the catalog's copper of that speed where it has one), else multimode
fibre, single-mode past the multimode fibre's reach.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from catalog import Catalog

from ..fabric.geometry import U_MM, natural_key, run_lengths_m
from ..site import RackSites
from ..fabric.media import parts_table
from ..fabric.wiring import port_name
from ..model import Project
from ..storage.fabric import FIBRE, SMF

NETWORKS = ("oob", "oob-uplink", "inband", "inband-uplink")
#: what a cable's description calls each network
DESCRIPTIONS = {"oob": "OOB", "oob-uplink": "OOB uplink", "inband": "in-band", "inband-uplink": "in-band leaf-spine"}
OOB, OOB_UP, INBAND, INBAND_UP = range(4)
#: node ports per uplink an in-band leaf gives each spine (a planning figure: the RA gives no in-band uplink count)
INBAND_PORTS_PER_UPLINK = 4
#: uplinks of an OOB switch (to management leaf A and B)
OOB_UPLINKS = 2
#: the port a switch gets when its type lists no management port
IMPLIED_MANAGEMENT = (1.0, "RJ45")
#: Cat6A patch cords as they are stocked; 100 m is the 1000BASE-T channel's limit
PATCH_LENGTHS_M = (0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0, 75.0, 100.0)
#: passive copper reach by speed where the catalog lists no copper of that speed (LinkX DAC datasheets)
DAC_REACH_M = {10: 7.0, 25: 5.0, 40: 5.0, 100: 5.0, 200: 3.0, 400: 2.0, 800: 2.0}
DAC_LENGTHS_M = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0)
#: the ports' names by role: (name of a single port, prefix of numbered ones, first number)
#: the in-band network's link speed: each node's two ports at 200 GbE to two switches, bonded (NVIDIA's HGX AI
#: Factory RA, "Network Logical Architecture": the converged North/South network "connects the nodes using two
#: 200 GbE ports to two separate switches"; hardware-2026: GB200 in-band 200 Gb/s bonded), so an SN5600 leaf's
#: 800 G cages run as 4 x 200 GbE (its data sheet: 256 x 200 GbE) and leave room for its uplinks
INBAND_GBPS = 200.0
PORT_NAMES = {"bmc": ("bmc", "bmc", 1), "management": ("mgmt0", "mgmt", 0), "inband": ("inband1", "inband", 1)}


@dataclass(frozen=True)
class ManagementLinks:
    """The management networks' links as columns, one row per link (each its own cable)."""

    #: the ends' devices: (rack index, device, compute tray from 1 or 0 for the device itself)
    devices: list
    network: np.ndarray  # index into NETWORKS
    a_dev: np.ndarray  # index into devices
    a_port: np.ndarray
    b_dev: np.ndarray
    b_port: np.ndarray
    #: each end's port: speed in Gb/s and cage ("RJ45", "QSFP28", "OSFP" ...)
    a_speed: np.ndarray
    a_cage: np.ndarray
    b_speed: np.ndarray
    b_cage: np.ndarray
    medium: np.ndarray  # "cat6a", "dac", "mmf", "smf"
    cable: np.ndarray  # catalog id of the cable, "" where the catalog has none (patch cords, most DAC)
    route_m: np.ndarray  # the run as measured
    length_m: np.ndarray  # orderable length
    #: ports left without a link, by network (no switch of that network, or every one full)
    unconnected: dict = field(default_factory=dict)
    #: in-band ports of systems that ride the storage fabric (no in-band leaves placed): no link, by design
    on_storage: int = 0
    notes: tuple = ()

    def __len__(self) -> int:
        return len(self.network)

    def label(self, i: int) -> str:
        """A device as the cabling plan names it: its name (or id), a compute tray ``NAME/trayNN``."""
        _, d, tray = self.devices[i]
        return f"{d.name or d.id}/tray{tray:02d}" if tray else d.name or d.id


def switch_network(name: str) -> str:
    """What a switch serves by its name: "oob", "mleaf" (in-band management leaf), "ispine", "ileaf" or ""."""
    low = name.lower()
    if "oob" in low or "out-of-band" in low:
        return "oob"
    if "inband" not in low and "in-band" not in low:
        return ""
    if "mgmt" in low or "management" in low:
        return "mleaf"
    return "ispine" if "spine" in low else "ileaf"


def _groups(dtype, catalog: Catalog, roles: tuple[str, ...]) -> list[tuple]:
    """(role, speed, cage, count, trays) of a type's ports of ``roles``: its own (trays 0), else its components'
    (a rack-scale system whose trays carry them: ``count`` per tray)."""
    own = [(g.role, float(g.speed_gbps), g.cage or "", int(g.count), 0) for g in dtype.ports if g.role in roles]
    if own or not dtype.components:
        return own
    out = []
    for c in dtype.components:
        part = catalog.find(c.id)
        if part is not None:
            out += [(g.role, float(g.speed_gbps), g.cage or "", int(g.count), int(c.count))
                    for g in part.ports if g.role in roles]
    return out


@lru_cache(maxsize=256)
def _names(role: str, n: int) -> tuple[str, ...]:
    """A device's port names of one role (the same for every device of a type: made once)."""
    single, prefix, first = PORT_NAMES[role]
    return (single,) if n == 1 else tuple(f"{prefix}{first + k}" for k in range(n))


class _Ports:
    """Device ports as columns: device, name, rack, height, speed, cage, and order in the design."""

    KEYS = ("dev", "name", "rack", "z", "speed", "cage", "seq", "kind")

    def __init__(self):
        self.rows: list[tuple] = []  # a tuple per port, turned into columns once

    def add(self, dev: int, name: str, rack: int, z: float, speed: float, cage: str, seq: int, kind: int = 0):
        self.rows.append((dev, name, rack, z, speed, cage, seq, kind))

    def arrays(self) -> dict[str, np.ndarray]:
        types = {"name": object, "cage": object, "z": float, "speed": float}
        cols = list(zip(*self.rows)) if self.rows else [()] * len(self.KEYS)
        return {k: np.asarray(v, dtype=types.get(k, np.int64)) for k, v in zip(self.KEYS, cols)}


@dataclass
class _Switch:
    """A switch of one of these networks: its device, rack, height, front-panel groups and ports in use."""

    dev: int
    rack: int
    z: float
    name: str
    #: per group in catalog order: (role, speed, cage, ports, first port number from 0, ports per cage)
    groups: list
    used: dict = field(default_factory=dict)  # role -> ports taken

    def group(self, role: str):
        by_role = self.__dict__.get("_by_role")
        if by_role is None:  # the first group of each role, looked up once per switch
            by_role = self.__dict__["_by_role"] = {}
            for g in self.groups:
                by_role.setdefault(g[0], g)
        return by_role.get(role)

    def free(self, role: str) -> int:
        g = self.group(role)
        return g[3] - self.used.get(role, 0) if g else 0

    def take(self, role: str, n: int = 1) -> list[tuple[str, float, str]]:
        """The next ``n`` ports of a group as (name, speed, cage); fewer where the group runs out."""
        g = self.group(role)
        if g is None:
            return []
        start = self.used.get(role, 0)
        n = max(0, min(n, g[3] - start))
        self.used[role] = start + n
        return [(port_name(g[5], g[4] + k), g[1], g[2]) for k in range(start, start + n)]


def _switch_groups(dtype, lane_gbps: float = 0.0) -> list:
    """A switch's front-panel groups numbered in catalog order; an 800 G Ethernet cage as two 400 G ports (as
    the storage fabric runs an SN5600's), or, given ``lane_gbps``, as many ports of that speed as its breakout
    allows (an in-band SN5600's 800 G cage as four 200 G ports); named ``cage/port``."""
    out, first = [], 0
    for g in dtype.ports:
        if g.role == "management":
            continue
        speed, per = float(g.speed_gbps), max(1, int(g.ports_per_cage))
        split = int(speed // lane_gbps) if lane_gbps else 0
        if g.role == "fabric" and per == 1 and split >= 2 and (g.breakout or 1) >= split:
            speed, per = lane_gbps, split
        elif g.role == "fabric" and per == 1 and speed >= 800 and (g.breakout or 1) >= 2:
            speed, per = speed / 2, 2
        ports = int(g.count) * (per if per > int(g.ports_per_cage or 1) else 1)
        out.append((g.role, speed, g.cage or "", ports, first, per))
        first += ports
    return out


class _Walk:
    """One pass over the design: devices, their OOB and in-band ports, and the networks' switches."""

    def __init__(self, project: Project, catalog: Catalog):
        self.devices: list = []
        self.oob = _Ports()
        self.inband = _Ports()
        self.switches: dict[str, list[_Switch]] = {k: [] for k in ("oob", "mleaf", "ileaf", "ispine")}
        self.self_ports: dict[int, tuple] = {}  # OOB switch device -> its own management port
        self.unplaced = 0
        tops, kinds = [], {}
        seq = 0
        for ri, rack in enumerate(project.racks):
            rtype = catalog.find(rack.type)
            tops.append((rtype.height_mm or rtype.rack_units * U_MM + 100.0) if rtype else 2000.0)
            units = (rtype.rack_units or 42) if rtype else 42
            for d in rack.devices:
                info = kinds.get(d.type)
                if info is None:
                    info = kinds[d.type] = self._kind(catalog, d.type)
                dtype, oob, inband, system = info
                if dtype is None:
                    continue
                z = ((d.u or 1) - 1) * U_MM + dtype.u_height * U_MM / 2
                role = switch_network(d.name or d.id) if dtype.kind == "switch" else ""
                i = self._device(ri, d)
                if role:
                    lane = INBAND_GBPS if role in ("ileaf", "ispine") else 0.0
                    self.switches[role].append(_Switch(i, ri, z, d.name or d.id, _switch_groups(dtype, lane)))
                for ports, out in ((oob, self.oob), (inband, self.inband)):
                    for prole, speed, cage, n, trays in ports:
                        if out is self.inband:
                            speed = min(speed, INBAND_GBPS)  # a 400 G-capable port run at the network's 200 G
                        if not trays:
                            for name in _names(prole, n):
                                if role == "oob" and prole == "management":
                                    self.self_ports[i] = (name, ri, z, speed, cage, seq)
                                else:
                                    out.add(i, name, ri, z, speed, cage, seq, system)
                                seq += 1
                            continue
                        for t in range(trays):  # a tray's ports, the trays spread up the rack
                            k = self._device(ri, d, t + 1)
                            tz = units * U_MM * (t + 0.5) / trays
                            for name in _names(prole, n):
                                out.add(k, name, ri, tz, speed, cage, seq, system)
                                seq += 1
        for f in project.floor_devices:
            info = kinds.get(f.type)
            if info is None:
                info = kinds[f.type] = self._kind(catalog, f.type)
            self.unplaced += sum(n * max(t, 1) for _, _, _, n, t in info[1])
        self.tops = np.asarray(tops, dtype=float)
        for sws in self.switches.values():
            sws.sort(key=lambda s: natural_key(s.name))

    def _device(self, rack: int, d, tray: int = 0) -> int:
        self.devices.append((rack, d, tray))
        return len(self.devices) - 1

    @staticmethod
    def _kind(catalog: Catalog, type_id: str) -> tuple:
        """(type, OOB port groups, in-band port groups, whether it is a GPU system) of a catalog type; the type
        is None for what has neither."""
        dtype = catalog.find(type_id)
        if dtype is None:
            return None, (), (), 0
        oob = [g for g in _groups(dtype, catalog, ("bmc", "management")) if g[0] == "bmc" or g[1] <= 1]
        if dtype.kind == "switch" and not any(g[0] == "management" for g in oob):
            oob.append(("management", *IMPLIED_MANAGEMENT, 1, 0))
        inband = _groups(dtype, catalog, ("inband",)) if dtype.kind != "switch" else []
        system = int(dtype.kind in ("server", "rack_system", "tray") or bool(dtype.gpu_count))
        return (dtype if oob or inband else None), tuple(oob), tuple(inband), system


def _match(p_group: np.ndarray, p_keys: tuple, s_group: np.ndarray, s_keys: tuple, s_val: np.ndarray) -> np.ndarray:
    """Ports and free slots, both grouped: the k-th port of a group (in ``p_keys`` order, the first key first)
    takes the group's k-th slot (in ``s_keys`` order, then as given); -1 where the group's slots run out."""
    out = np.full(len(p_group), -1, dtype=np.int64)
    if not len(p_group) or not len(s_group):
        return out
    po = np.lexsort(tuple(reversed(p_keys)) + (p_group,))
    so = np.lexsort(tuple(reversed(s_keys)) + (s_group,))
    pg, sg = p_group[po], s_group[so]
    rank = np.arange(len(po)) - np.searchsorted(pg, pg, side="left")
    first = np.searchsorted(sg, pg, side="left")
    ok = rank < np.searchsorted(sg, pg, side="right") - first
    out[po[ok]] = s_val[so][first[ok] + rank[ok]]
    return out


def assign_nearest(port_rack: np.ndarray, sw_rack: np.ndarray, free: np.ndarray, rack_row: np.ndarray,
                   rack_x: np.ndarray, rack_y: np.ndarray, sites: RackSites | None = None) -> np.ndarray:
    """Each port's switch (-1: none left): a switch in its own rack first, then one in its row (ports and free
    ports each in order along the row), then the nearest switch with a free port by the distance between racks.
    ``free`` (ports per switch) is used up in place. Ports are taken in the order given.

    The first two steps are grouped sorts; the last loops over the racks still holding unplaced ports, each
    against the switches that have ports left, never over every port and switch. ``sites``: the distance is the
    run between rooms' entries where racks stand in different halls (``rack_row`` then numbers each hall's rows
    apart)."""
    out = np.full(len(port_rack), -1, dtype=np.int64)
    if not len(port_rack) or not len(sw_rack):
        return out
    seq = np.arange(len(port_rack))
    pos = rack_x + rack_y  # a row is a straight line: this orders its racks along it

    def slots():
        ids = np.repeat(np.arange(len(sw_rack)), np.maximum(free, 0))
        return ids, sw_rack[ids]

    def take(sel: np.ndarray, got: np.ndarray) -> None:
        hit = got >= 0
        out[sel[hit]] = got[hit]
        free[:] -= np.bincount(got[hit], minlength=len(free))

    ids, srack = slots()
    take(seq, _match(port_rack, (seq,), srack, (np.zeros(len(ids)),), ids))
    left = np.flatnonzero((out < 0) & (rack_row[port_rack] >= 0))
    if len(left):
        ids, srack = slots()
        r = port_rack[left]
        take(left, _match(rack_row[r], (pos[r], left), rack_row[srack], (pos[srack],), ids))
    left = np.flatnonzero(out < 0)
    if not len(left):
        return out
    order = left[np.argsort(port_rack[left], kind="stable")]
    bounds = np.flatnonzero(np.diff(port_rack[order])) + 1
    for group in np.split(order, bounds):
        have = np.flatnonzero(free > 0)
        if not len(have):
            break
        r = port_rack[group[0]]
        if sites is not None and not sites.one_room:
            dist = sites.horizontal_mm(np.full(len(have), r, dtype=np.int64), sw_rack[have])
        else:
            dist = np.abs(rack_x[sw_rack[have]] - rack_x[r]) + np.abs(rack_y[sw_rack[have]] - rack_y[r])
        near = have[np.lexsort((have, dist))]
        got = np.repeat(near, free[near])[:len(group)]
        take(group[:len(got)], got)
    return out


class _Builder:
    """The links as they are made, each end (device, port, rack, height, speed, cage)."""

    def __init__(self, walk: _Walk, project: Project):
        self.w = walk
        self.rows: list[tuple] = []
        self.unconnected = {n: 0 for n in NETWORKS}
        self.notes: list[str] = []
        self.on_storage = 0
        self.rack_x = np.asarray([r.x for r in project.racks], dtype=float)
        self.rack_y = np.asarray([r.y for r in project.racks], dtype=float)
        self.sites = RackSites.of(project)
        rows: dict[tuple[str, str], int] = {}  # every hall has its own R01
        self.rack_row = np.asarray([rows.setdefault((r.hall, r.row), len(rows)) if r.row else -1
                                    for r in project.racks], dtype=np.int64)

    def link(self, net: int, a: tuple, b: tuple) -> None:
        self.rows.append((net, *a, *b))

    @staticmethod
    def end(sw: _Switch, port: tuple) -> tuple:
        return sw.dev, port[0], sw.rack, sw.z, port[1], port[2]

    # -- in-band ----------------------------------------------------------------------------------
    def inband(self) -> list:
        """Node links and leaf-spine uplinks; returns the management leaves' uplinks still to end on their far
        switch (made last, so an in-band leaf's node links and a spine's leaf links take its first ports)."""
        sw = self.w.switches
        ileaves, mleaves, spines = sw["ileaf"], sw["mleaf"], sw["ispine"]
        targets = spines or ileaves
        pending = []
        for i, m in enumerate(mleaves):  # their own uplink first: a management leaf's way into the network
            port = m.take("uplink") if targets else []
            if port:
                pending.append((m, port[0], targets[i % len(targets)]))
        p = self.w.inband.arrays()
        n = len(p["dev"])
        if not n:
            self._leaf_spine(ileaves, spines)
            return pending
        first = np.concatenate(([True], p["dev"][1:] != p["dev"][:-1]))
        ordinal = np.cumsum(first) - 1
        rank = np.arange(n) - np.flatnonzero(first)[ordinal]
        side = rank % 2
        if ileaves:
            leaves, role, sel = ileaves, "fabric", np.arange(n)
        else:
            systems = p["kind"] == 1
            self.on_storage = int(systems.sum())
            if self.on_storage:
                self.notes.append(f"{self.on_storage:,} in-band ports of systems have no link: without in-band "
                                  "leaves the design carries in-band traffic on the storage Ethernet fabric")
            leaves, role, sel = mleaves, "uplink", np.flatnonzero(~systems)
        if len(sel) and leaves:
            devs = np.unique(ordinal[sel])
            pairs = -(-len(leaves) // 2)
            pair = np.searchsorted(devs, ordinal[sel]) * pairs // len(devs)
            leaf = np.minimum(2 * pair + side[sel], len(leaves) - 1)
            leaf = np.where((2 * pair + 1 >= len(leaves)), 2 * pair, leaf)  # a lone last leaf takes both ports
            for k, j in zip(sel.tolist(), leaf.tolist()):
                port = leaves[j].take(role)
                if not port:
                    self.unconnected["inband"] += 1
                    continue
                self.link(INBAND, (p["dev"][k], p["name"][k], p["rack"][k], p["z"][k], p["speed"][k], p["cage"][k]),
                          self.end(leaves[j], port[0]))
        else:
            self.unconnected["inband"] += len(sel)
        self._leaf_spine(ileaves, spines)
        return pending

    def _leaf_spine(self, leaves: list[_Switch], spines: list[_Switch]) -> None:
        if not spines:
            return
        for leaf in leaves:
            down = leaf.used.get("fabric", 0)
            per = max(1, math.ceil(down / (INBAND_PORTS_PER_UPLINK * len(spines))))
            for s in spines:
                for _ in range(per):
                    a = leaf.take("fabric")
                    b = s.take("fabric") if a else []
                    if not b:
                        self.unconnected["inband-uplink"] += 1
                        continue
                    self.link(INBAND_UP, self.end(leaf, a[0]), self.end(s, b[0]))

    def finish_pending(self, pending: list) -> None:
        for m, port, target in pending:
            far = target.take("fabric")
            if not far:
                self.unconnected["inband-uplink"] += 1
                continue
            self.link(INBAND_UP, self.end(m, port), self.end(target, far[0]))

    # -- out-of-band ------------------------------------------------------------------------------
    def oob(self) -> None:
        """Every OOB port to an OOB switch (:func:`assign_nearest`); an OOB switch's own to its neighbour."""
        sws = self.w.switches["oob"]
        p = self.w.oob.arrays()
        free = np.asarray([s.free("oob") for s in sws], dtype=np.int64)
        own = []  # (seq, switch, end) of the OOB switches' own management ports
        for k, s in enumerate(sws):
            port = self.w.self_ports.get(s.dev)
            if port is None:
                continue
            mate = k ^ 1 if (k ^ 1) < len(sws) else k - 1
            if mate < 0 or free[mate] <= 0:
                self.unconnected["oob"] += 1
                continue
            free[mate] -= 1
            name, rack, z, speed, cage, seq = port
            own.append((seq, mate, (s.dev, name, rack, z, speed, cage)))
        got = assign_nearest(p["rack"], np.asarray([s.rack for s in sws], dtype=np.int64), free, self.rack_row,
                             self.rack_x, self.rack_y, self.sites)
        self.unconnected["oob"] += int((got < 0).sum()) + self.w.unplaced
        if self.w.unplaced:
            self.notes.append(f"{self.w.unplaced:,} management ports of floor units have no link: a floor unit "
                              "stands in no rack to run a patch cord from")
        ends = [(int(p["seq"][k]), int(got[k]), (p["dev"][k], p["name"][k], p["rack"][k], p["z"][k],
                                                 p["speed"][k], p["cage"][k]))
                for k in np.flatnonzero(got >= 0).tolist()] + own
        # each switch's ports in the order of the design's devices, so the same design numbers them alike
        for _, j, end in sorted(ends, key=lambda e: (e[1], e[0])):
            self.link(OOB, end, self.end(sws[j], sws[j].take("oob")[0]))

    def oob_uplinks(self) -> None:
        """Each OOB switch's uplinks to side A and B: the management leaves' free 100 G ports, then the in-band
        leaves', dealt to the switches in name order."""
        sw = self.w.switches
        for side in range(OOB_UPLINKS):
            slots = []
            for role, group in (("mleaf", "uplink"), ("ileaf", "fabric")):
                for leaf in sw[role][side::2] or (sw[role][:1] if side else []):
                    slots += [(leaf, group)] * leaf.free(group)
            for k, s in enumerate(sw["oob"]):
                port = s.take("uplink")
                if not port:
                    continue  # an OOB switch without uplink ports: nothing to cable
                if k >= len(slots):
                    self.unconnected["oob-uplink"] += 1
                    continue
                leaf, group = slots[k]
                self.link(OOB_UP, self.end(s, port[0]), self.end(leaf, leaf.take(group)[0]))


def _round_up(metres: np.ndarray, lengths) -> tuple[np.ndarray, np.ndarray]:
    """Each run at the shortest orderable length not below it (the longest where none reaches), and which fit."""
    table = np.asarray(sorted(lengths), dtype=float)
    i = np.searchsorted(table, metres - 1e-9, side="left")
    return table[np.minimum(i, len(table) - 1)], i < len(table)


def _copper(catalog: Catalog, speed: float) -> tuple[str, float, tuple]:
    """(catalog id or "", reach, orderable lengths) of the passive copper for a single link of ``speed``: the
    catalog's where it lists one (media's parts table), else the LinkX datasheets' reach at stock lengths."""
    for d in parts_table(catalog).copper:
        if d.media == "dac" and d.speed_gbps == speed and d.links == 1:
            return d.id, float(d.reach_m or max(d.lengths_m)), tuple(d.lengths_m)
    reach = DAC_REACH_M.get(int(speed), 0.0)
    return "", reach, tuple(x for x in DAC_LENGTHS_M if x <= reach) or (reach,)


def _fibre(catalog: Catalog, cable: str, fallback: tuple) -> tuple[float, tuple]:
    dev = catalog.find(cable)
    if dev is None or not dev.lengths_m:
        return fallback[-1], fallback
    return float(dev.reach_m or max(dev.lengths_m)), tuple(dev.lengths_m)


def choose_media(catalog: Catalog, speed: np.ndarray, route: np.ndarray) -> tuple:
    """(medium, cable id, orderable length, runs too long for any) per link, by its speed and run: 1 GbE a Cat6A
    patch cord; faster, copper within its reach, multimode fibre within its reach, else single-mode."""
    n = len(speed)
    medium = np.full(n, "cat6a", dtype=object)
    cable = np.full(n, "", dtype=object)
    length = np.zeros(n)
    slow = speed <= 1
    length[slow], fits = _round_up(route[slow], PATCH_LENGTHS_M)
    too_long = int((~fits).sum())
    mmf_reach, mmf_lengths = _fibre(catalog, FIBRE, (50.0,))
    smf_reach, smf_lengths = _fibre(catalog, SMF, (500.0,))
    for s in np.unique(speed[~slow]).tolist():
        sel = np.flatnonzero(speed == s)
        cid, reach, lengths = _copper(catalog, s)
        run = route[sel]
        dac, mmf = run <= reach + 1e-9, run <= mmf_reach + 1e-9
        for pick, med, part, table in ((dac, "dac", cid, lengths), (~dac & mmf, "mmf", FIBRE, mmf_lengths),
                                       (~dac & ~mmf, "smf", SMF, smf_lengths)):
            if pick.any():
                medium[sel[pick]], cable[sel[pick]] = med, part
                length[sel[pick]], ok = _round_up(run[pick], table)
                too_long += int((~ok).sum())
    return medium, cable, length, too_long


def management_links(project: Project, catalog: Catalog) -> ManagementLinks:
    """The in-band and OOB networks' links of a design, deterministically (the same design, the same list)."""
    walk = _Walk(project, catalog)
    b = _Builder(walk, project)
    pending = b.inband()
    b.finish_pending(pending)
    b.oob()
    b.oob_uplinks()
    if not walk.switches["oob"] and walk.oob.rows:
        b.notes.append("the design places no OOB switch: no BMC or management port has a link")
    cols = list(zip(*b.rows)) if b.rows else [()] * 13
    net = np.asarray(cols[0], dtype=np.int64)
    ints = {1, 3, 7, 9}
    floats = {4, 5, 10, 11}
    arr = [np.asarray(c, dtype=np.int64 if i in ints else float if i in floats else object)
           for i, c in enumerate(cols)]
    route = run_lengths_m(b.sites, walk.tops, arr[3], arr[4], arr[9], arr[10]) if len(net) \
        else np.zeros(0)
    speed = np.minimum(arr[5], arr[11]) if len(net) else np.zeros(0)
    medium, cable, length, too_long = choose_media(catalog, speed, route)
    if too_long:
        b.notes.append(f"{too_long:,} management-network runs are longer than the longest orderable cable of "
                       "their kind; they are listed at the longest length")
    unconnected = {k: v for k, v in b.unconnected.items() if v}
    if unconnected:
        b.notes.append("ports without a link: " + ", ".join(f"{v:,} {DESCRIPTIONS[k]}"
                                                           for k, v in unconnected.items()))
    return ManagementLinks(walk.devices, net, arr[1], arr[2], arr[7], arr[8], arr[5], arr[6], arr[11], arr[12],
                           medium, cable, route, length, unconnected, b.on_storage, tuple(b.notes))


__all__ = ["DESCRIPTIONS", "NETWORKS", "ManagementLinks", "assign_nearest", "management_links", "switch_network"]
