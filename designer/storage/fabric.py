"""The storage fabric's links, transceivers and fibres, counted from the design as placed.

The compute fabric has its own engine; the storage fabric is counted here, from what a design holds, so a
hand-made design is counted the same way as a generated one:

- its switches are the placed switches whose name contains "storage" (a name that also says "spine" or
  "core" makes a spine, any other a leaf), and its endpoints are every other device's storage ports plus the
  fabric ports of appliances named "storage" (the storage fabric's UFM);
- node-leaf links: one per endpoint port, spread evenly over the leaves in rack order (so each leaf serves
  the racks nearest one another, as the generator places a leaf in each scalable unit's network racks);
  the storage appliances are dealt in blocks over the last leaves (at least two), where the generator stands
  each leaf beside its block; an appliance's first port goes to its block's leaf and its second to that leaf's
  partner, a neighbouring appliance leaf (:func:`leaf_partners` pairs them by the runs between them), so that no
  one leaf's loss cuts the storage off; further ports go to the next pairs along the leaves, two a pair;
- leaf-spine links: each leaf cables its share of the spines' ports (spine ports ÷ leaves, rounded down),
  no more than the ports its node links leave free. With the B200 RA's 8 leaves and 4 spines of 64 ports
  that is 32 uplinks per leaf, the full non-blocking leaf as the RA cables a full SU. Where core switches
  ("storage-core") stand above, the spines give the leaves half their ports and cable the other half to
  the cores by the same rule.

Media follow the RA convention the compute fabric's bill uses (hardware.md §4.3): one multimode MPO fibre
per 400G link, a twin-port module per switch cage that carries links, and a node-side module by the node's
cage (a QSFP112 port takes a single-port QSFP112 SR4; an OSFP one a single-port or twin-port OSFP). A node
port slower than the switch's 400G port (GB200's 200 GbE) shares it with a second node port through a 1:2
splitter fibre, so a twin-port switch module serves four of them. Lengths are the rack-to-rack run the
compute fabric measures (overhead tray, drops and slack), rounded up to an orderable length; a run between
switches past the multimode reach goes single-mode (DR4 modules), as the compute fabric's does.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from catalog import Catalog, DeviceType, PortGroup

from ..fabric.geometry import U_MM, natural_key, run_lengths_m
from .dealing import PAIRED_LEAVES_MAX, LeafPairs, deal, in_name_order, leaf_partners
from ..site import RackSites
from ..model import Project

FIBRE = "fiber-mpo12-mmf"
SPLITTER = "fiber-mpo12-mmf-splitter"
SMF = "fiber-mpo12-smf"
#: duplex LC single-mode fibre, for FR optics (a run between buildings)
LC_SMF = "fiber-lc-smf"
#: How a run between switches is carried, by reach, shortest first: multimode SR, single-mode DR at 100 m and at
#: 500 m (MPO), single-mode FR to 2 km (duplex LC); each class's fibre.
MEDIA_CLASSES = ("mmf", "smf", "smf-500", "fr")
CLASS_FIBRE = (FIBRE, SMF, SMF, LC_SMF)
#: switch-side modules by (media class, MPO ports per cage); "" where the catalog has no such part
SWITCH_MODULES = {("mmf", 2): "osfp-800g-2xsr4", ("mmf", 1): "osfp-400g-sr4",
                  ("smf", 2): "osfp-800g-2xdr4", ("smf", 1): "osfp-400g-dr4",
                  ("smf-500", 2): "osfp-800g-2xdr4-500m", ("smf-500", 1): "",
                  ("fr", 2): "osfp-800g-2xfr4", ("fr", 1): ""}
#: node-side module by (cage, ports per cage): one module per cage
NODE_MODULES = {("QSFP112", 1): "qsfp112-400g-sr4", ("OSFP", 1): "osfp-400g-sr4", ("OSFP", 2): "osfp-800g-2xsr4-flat"}
TWIN_NODE_MODULE = NODE_MODULES[("OSFP", 2)]
#: the speed of one MPO port of the catalog's multimode modules (400G SR4)
MPO_GBPS = 400.0
TIERS = ("leaf", "spine", "core")


@dataclass(frozen=True)
class StorageFabric:
    """What the storage fabric orders: transceivers by id, fibres by id and length, and how it was counted."""

    leaves: int = 0
    spines: int = 0
    cores: int = 0
    node_links: int = 0
    #: leaf-spine and spine-core links
    uplinks: int = 0
    transceivers: Counter = field(default_factory=Counter)
    #: fibre id -> {orderable length in m: quantity}
    cables: dict[str, Counter] = field(default_factory=dict)
    #: catalog id -> how its quantity was counted, for the bill line's basis
    bases: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    #: GB/s of the clients' (nodes') storage ports, of the storage appliances' ports, and what the fabric
    #: carries between the two (:func:`client_server_gbs`); 0 where the design has no such ports
    client_gbs: float = 0.0
    server_gbs: float = 0.0
    carried_gbs: float = 0.0
    #: the links that leave their room, per pair of rooms, as the compute fabric's (``RackSites.room_links``)
    room_links: tuple[dict, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.node_links or self.uplinks)


@dataclass
class _Tier:
    """One tier's switches as columns, in name order."""

    names: list[str]
    rack: np.ndarray
    z: np.ndarray
    mpo_ports: np.ndarray  # MPO ports its cages offer (a twin-port cage: 2)
    per_cage: np.ndarray
    port_gbps: np.ndarray
    used: np.ndarray  # MPO ports carrying links
    #: of which in each media class past multimode (columns: MEDIA_CLASSES; the first stays 0, the rest of
    #: ``used`` is multimode)
    smf: np.ndarray
    #: Gb/s of the clients' (nodes') and the storage appliances' ports on each leaf, and its links to the tier above
    client_gbps: np.ndarray = None
    server_gbps: np.ndarray = None
    up: np.ndarray = None
    #: (rack index, device) of each switch, for the link list (:mod:`.links`)
    refs: list = None

    def __post_init__(self):
        n = len(self.names)
        for name in ("client_gbps", "server_gbps", "up"):
            if getattr(self, name) is None:
                setattr(self, name, np.zeros(n, dtype=float if name != "up" else np.int64))

    @classmethod
    def of(cls, rows: list[tuple]) -> _Tier:
        rows = sorted(rows, key=lambda r: natural_key(r[0]))  # leaf 2 before leaf 10
        col = [np.array([r[i] for r in rows], dtype=float) for i in range(1, 6)]
        n = len(rows)
        return cls([r[0] for r in rows], col[0].astype(np.int64), col[1], col[2].astype(np.int64),
                   col[3].astype(np.int64), col[4], np.zeros(n, dtype=np.int64),
                   np.zeros((n, len(MEDIA_CLASSES)), dtype=np.int64),
                   refs=[(r[1], r[6]) for r in rows])

    def __len__(self) -> int:
        return len(self.names)


@dataclass
class _Endpoints:
    """Storage ports as runs of ``n`` alike ports (a device's group): a 100,000-GPU hall has 25,000 runs, not
    50,000 ports to append one by one."""

    #: (rack, z, speed, node-side module id or "", ports, serves, ref); ref is (device, first port, ports per
    #: cage, ports per tray or 0 where the device holds them itself, the first part of the ports' names: "S"
    #: for storage ports, none for an appliance's fabric ports), for the link list (:mod:`.links`)
    rows: list = field(default_factory=list)
    #: ports of appliances on the storage fabric (its UFM), counted among the rows
    appliance_ports: int = 0

    def add(self, rack: int, z: float, speed: float, module: str, n: int, serves: bool = False,
            ref: tuple = None) -> None:
        """``serves``: the ports of a storage appliance (the side that serves the data), not a client's."""
        if n > 0:
            self.rows.append((rack, z, speed, module, n, serves, ref))

    @property
    def count(self) -> int:
        return sum(r[4] for r in self.rows)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(rack, z, speed, serves) per port."""
        n = np.asarray([r[4] for r in self.rows], dtype=np.int64)
        return (np.repeat(np.asarray([r[0] for r in self.rows], dtype=np.int64), n),
                np.repeat(np.asarray([r[1] for r in self.rows], dtype=float), n),
                np.repeat(np.asarray([r[2] for r in self.rows], dtype=float), n),
                np.repeat(np.asarray([r[5] for r in self.rows], dtype=bool), n))

    def ranks(self) -> tuple[np.ndarray, np.ndarray]:
        """(row, rank) per port: which device's run of ports it is in, and its place in that run (0, 1, ...)."""
        n = np.asarray([r[4] for r in self.rows], dtype=np.int64)
        row = np.repeat(np.arange(len(n)), n)
        starts = np.concatenate(([0], np.cumsum(n)[:-1])) if len(n) else np.zeros(0, dtype=np.int64)
        return row, np.arange(int(n.sum())) - np.repeat(starts, n)

    def modules(self) -> Counter:
        """Ports by node-side module id ("" where the catalog has none for the cage)."""
        out: Counter = Counter()
        for r in self.rows:
            out[r[3]] += r[4]
        return out


def _fabric_group(dtype: DeviceType) -> PortGroup | None:
    for g in dtype.ports:
        if g.role == "fabric":
            return g
    return None


def _storage_groups(dtype: DeviceType, catalog: Catalog) -> list[tuple[PortGroup, int]]:
    """(port group, how many of it) of a device's storage ports: its own, else its components' (a rack-scale
    system whose trays carry them)."""
    own = [(g, 1) for g in dtype.ports_of("storage")]
    if own or not dtype.components:
        return own
    out = []
    for c in dtype.components:
        part = catalog.find(c.id)
        if part is not None:
            out += [(g, c.count) for g in part.ports_of("storage")]
    return out


def storage_fabric_port_group(dtype: DeviceType, catalog: Catalog, switch: bool) -> PortGroup | None:
    """The port group a device's storage-fabric links end on: a switch's fabric ports; else its storage ports
    (its own or its trays'), or the fabric ports of an appliance that has none (the storage UFM)."""
    if not switch:
        groups = _storage_groups(dtype, catalog)
        if groups:
            return groups[0][0]
    return _fabric_group(dtype)


def _switch_row(name: str, rack: int, z: float, group: PortGroup, device=None) -> tuple:
    cage_gbps = group.speed_gbps * group.ports_per_cage
    per_cage = group.ports_per_cage if group.ports_per_cage > 1 else max(1, round(cage_gbps / MPO_GBPS))
    return name, rack, z, group.cages * per_cage, per_cage, cage_gbps / per_cage, device


def _walk(project: Project, catalog: Catalog):
    """(tiers: leaf, spine, core; endpoints; rack tops in mm): the design's storage fabric, racks in order."""
    rows: dict[str, list[tuple]] = {t: [] for t in TIERS}
    ends = _Endpoints()
    tops: list[float] = []
    # what a type is to the storage fabric is decided once per type, not per device: (type, switch or
    # appliance fabric group or None, [(speed, module, ports)] of its storage ports)
    known: dict[str, tuple] = {}
    rack_tops: dict[str, float] = {}
    for ri, rack in enumerate(project.racks):
        top = rack_tops.get(rack.type)
        if top is None:
            rtype = catalog.find(rack.type)
            top = rack_tops[rack.type] = (rtype.height_mm or rtype.rack_units * U_MM + 100.0) if rtype else 2000.0
        tops.append(top)
        for d in rack.devices:
            role = known.get(d.type)
            if role is None:
                role = known[d.type] = _storage_role(catalog, d.type)
            dtype, group, ports = role
            if dtype is None:
                continue  # a PDU, a shelf, a compute-fabric-only part: nothing on the storage fabric
            z = ((d.u or 1) - 1) * U_MM + dtype.u_height * U_MM / 2
            if group is not None:  # a switch or appliance: on the storage fabric when its name says so
                name = (d.name or d.id).lower()
                if "storage" in name and dtype.kind == "switch":
                    tier = "core" if "core" in name else "spine" if "spine" in name else "leaf"
                    rows[tier].append(_switch_row(d.name or d.id, ri, z, group, d))
                    continue
                if "storage" in name:
                    ends.add(ri, z, group.speed_gbps, NODE_MODULES.get((group.cage, 1), ""), group.count,
                             ref=(d, 0, 1, 0, ""))
                    ends.appliance_ports += group.count
                    continue
            first = 0
            for speed, module, n, per_cage, per_tray in ports:
                ends.add(ri, z, speed, module, n, dtype.is_storage, (d, first, per_cage, per_tray, "S"))
                first += per_tray or n
    return {t: _Tier.of(r) for t, r in rows.items()}, ends, np.asarray(tops, dtype=float)


def _storage_role(catalog: Catalog, type_id: str) -> tuple:
    """(type, fabric group of a switch or appliance or None, storage ports as (speed, module, count, ports per
    cage, ports per tray or 0 on the device itself)); the type is None for what never joins the storage fabric."""
    dtype = catalog.find(type_id)
    if dtype is None:
        return None, None, ()
    group = _fabric_group(dtype) if dtype.kind in ("switch", "appliance") else None
    own = bool(dtype.ports_of("storage"))
    ports = tuple((g.speed_gbps, NODE_MODULES.get((g.cage, g.ports_per_cage), ""), g.count * times,
                   max(1, g.ports_per_cage), 0 if own else g.count)
                  for g, times in _storage_groups(dtype, catalog))
    return (dtype if group is not None or ports else None), group, ports


class _Lengths:
    """Orderable lengths of runs between two ends (the compute fabric's tray rule, dcim reference §3.4)."""

    def __init__(self, project: Project, tops: np.ndarray, catalog: Catalog):
        self.sites = RackSites.of(project)
        self.tops = tops
        self.catalog = catalog
        self.too_long = 0
        self.mmf_reach = catalog.get(FIBRE).reach_m or 50.0
        #: the longest run of each media class past multimode: its module's reach, then its fibre's
        self.reaches = (self.mmf_reach, float(catalog.get(SWITCH_MODULES["smf", 2]).reach_m or 100.0),
                        float(catalog.get(SMF).reach_m or 500.0), float(catalog.get(LC_SMF).reach_m or 2000.0))

    def classes(self, metres: np.ndarray) -> np.ndarray:
        """Each run's media class (an index into MEDIA_CLASSES): the shortest-reach class that reaches it; a run
        past every reach takes the longest class (and is counted too long when its fibre is ordered)."""
        return np.minimum(np.searchsorted(np.asarray(self.reaches[:-1]), metres - 1e-9, side="left"),
                          len(MEDIA_CLASSES) - 1)

    def metres(self, ra: np.ndarray, za: np.ndarray, rb: np.ndarray, zb: np.ndarray) -> np.ndarray:
        return run_lengths_m(self.sites, self.tops, ra, za, rb, zb)

    def orderable(self, cable: str, metres: np.ndarray) -> tuple[np.ndarray, int]:
        """Each run rounded up to the cable's shortest orderable length (the longest when none reaches), and how
        many none reaches."""
        table = np.asarray(sorted(self.catalog.get(cable).lengths_m), dtype=float)
        i = np.searchsorted(table, metres - 1e-9, side="left")
        return table[np.minimum(i, len(table) - 1)], int((i >= len(table)).sum())

    def add(self, cables: dict[str, Counter], cable: str, metres: np.ndarray) -> None:
        """Each run at its orderable length (:meth:`orderable`); one none reaches is counted as too long."""
        if not len(metres):
            return
        ordered, too_long = self.orderable(cable, metres)
        self.too_long += too_long
        lengths, n = np.unique(ordered, return_counts=True)
        into = cables.setdefault(cable, Counter())
        for length, k in zip(lengths.tolist(), n.tolist()):
            into[float(length)] += int(k)


def node_leaves(leaves: _Tier, ends: _Endpoints, lengths: _Lengths) -> np.ndarray:
    """Each endpoint port's leaf (an index into ``leaves``), as :func:`.dealing.deal` deals them with the
    appliance leaves paired by the runs between them."""
    rack, _, _, serves = ends.arrays()
    n_leaves = len(leaves)
    hall = lengths.sites.hall

    def pairs(k: int) -> LeafPairs:  # the last k leaves (the appliances'), paired by the runs between them
        if k > PAIRED_LEAVES_MAX:
            return in_name_order(k)
        last = np.arange(n_leaves - k, n_leaves)
        a, b = np.repeat(last, k), np.tile(last, k)
        return leaf_partners(lengths.metres(leaves.rack[a], leaves.z[a], leaves.rack[b], leaves.z[b]).reshape(k, k))

    return deal(serves, n_leaves, int(np.median(leaves.mpo_ports)) if n_leaves else 0, *ends.ranks(),
                 halls=(hall[rack], hall[leaves.rack]) if not lengths.sites.one_room and n_leaves else None,
                 pairs=pairs)


def _node_links(leaves: _Tier, ends: _Endpoints, lengths: _Lengths, cables: dict[str, Counter], runs: list,
                record=None) -> Counter:
    """Endpoints spread evenly over the leaves in rack order; a fibre per link, a splitter per two slow ones
    (a node port at half the switch port's speed or less: the 1:2 splitter is the only one catalogued).
    ``runs`` gathers the (rack, rack, metres) columns of the links, one per port (the bundles between rooms)."""
    rack, z, speed, serves = ends.arrays()
    n, n_leaves = len(rack), len(leaves)
    leaf = node_leaves(leaves, ends, lengths)
    leaves.client_gbps += np.bincount(leaf[~serves], weights=speed[~serves], minlength=n_leaves)
    leaves.server_gbps += np.bincount(leaf[serves], weights=speed[serves], minlength=n_leaves)
    per_port = np.where(2 * speed <= leaves.port_gbps[leaf], 2, 1)
    # a splitter joins two ports of one leaf at one speed, in order: number them within each (leaf, speed)
    order = np.lexsort((np.arange(n), speed, leaf))
    group = np.concatenate(([0], np.cumsum((np.diff(leaf[order]) != 0) | (np.diff(speed[order]) != 0))))
    first = np.searchsorted(group, group, side="left")
    cable_of = np.empty(n, dtype=np.int64)
    cable_of[order] = group * (n + 1) + (np.arange(n) - first) // per_port[order]
    keys, inverse = np.unique(cable_of, return_inverse=True)
    run = np.zeros(len(keys))
    metres = lengths.metres(rack, z, leaves.rack[leaf], leaves.z[leaf])
    np.maximum.at(run, inverse, metres)
    runs.append((rack, leaves.rack[leaf], metres))
    cable_leaf = np.zeros(len(keys), dtype=np.int64)
    cable_leaf[inverse] = leaf
    split = np.zeros(len(keys), dtype=bool)
    split[inverse] = per_port > 1
    leaves.used += np.bincount(cable_leaf, minlength=n_leaves)
    lengths.add(cables, FIBRE, run[~split])
    lengths.add(cables, SPLITTER, run[split])
    if record is not None:  # each port's cable and its half of a splitter, as counted here
        half = np.empty(n, dtype=np.int64)
        half[order] = (np.arange(n) - first) % per_port[order]
        record.node_links(ends, leaves, lengths, inverse, cable_leaf, split, run, np.where(per_port > 1, half, -1))
    return Counter({FIBRE: int((per_port == 1).sum()), SPLITTER: int((per_port > 1).sum())})


def _uplinks(lower: _Tier, upper: _Tier, lengths: _Lengths, cables: dict[str, Counter], runs: list, *,
             above: bool, record=None) -> int:
    """Each lower switch's share of the upper tier's down ports (all its ports, half when a tier ``above``
    takes the other half), no more than it has free; the links are dealt to the upper switches in turn, so
    they fill evenly (``runs`` gathers their (rack, rack, metres) columns). A run past the multimode reach goes
    single-mode, DR or, between buildings, FR, as the compute fabric's does."""
    if not len(upper) or not len(lower):
        return 0
    # a twin-port cage's two ports take one module, so each medium may leave half a cage empty: on a site, where a
    # switch's links take up to every class, a port per class is kept back so that no switch runs past its cages
    keep = len(MEDIA_CLASSES) if not lengths.sites.one_room else 0
    upper_ports = upper.mpo_ports - np.where(upper.per_cage == 2, keep, 0)
    share = int((upper_ports // 2 if above else upper_ports).sum()) // len(lower)
    up = np.clip(np.minimum(share, lower.mpo_ports - lower.used - np.where(lower.per_cage == 2, keep, 0)), 0, None)
    total = int(up.sum())
    below = np.repeat(np.arange(len(lower)), up)
    far = np.arange(total) % len(upper)
    metres = lengths.metres(lower.rack[below], lower.z[below], upper.rack[far], upper.z[far])
    runs.append((lower.rack[below], upper.rack[far], metres))
    cls = lengths.classes(metres)
    k = len(MEDIA_CLASSES)
    lower.used += up
    lower.up += up
    upper.used += np.bincount(far, minlength=len(upper))
    past = cls > 0
    lower.smf += np.bincount(below[past] * k + cls[past], minlength=len(lower) * k).reshape(len(lower), k)
    upper.smf += np.bincount(far[past] * k + cls[past], minlength=len(upper) * k).reshape(len(upper), k)
    for c, fibre in enumerate(CLASS_FIBRE):
        lengths.add(cables, fibre, metres[cls == c])
    if record is not None:
        record.uplinks(lower, upper, lengths, below, far, metres, cls)
    return total


def _switch_modules(tiers: list[_Tier]) -> Counter:
    """A module per cage carrying links; a cage's links share one medium, so each medium fills its own cages."""
    out: Counter = Counter()
    for t in tiers:
        twin = t.per_cage == 2
        per = np.where(twin, 2, 1)
        for media, n in (("mmf", t.used - t.smf.sum(axis=1)),) + tuple(
                (m, t.smf[:, c]) for c, m in enumerate(MEDIA_CLASSES) if c):
            cages = -(-n // per)
            for is_twin, key in ((True, 2), (False, 1)):
                k = int(cages[twin == is_twin].sum())
                if k and SWITCH_MODULES[media, key]:  # a single-port cage past 100 m has no part: left off
                    out[SWITCH_MODULES[media, key]] += k
    return out


def _node_modules(ends: _Endpoints) -> Counter:
    """One module per node storage port; a twin-port OSFP cage takes one for two ports."""
    out = ends.modules()
    del out[""]
    if out[TWIN_NODE_MODULE]:
        out[TWIN_NODE_MODULE] = -(-out[TWIN_NODE_MODULE] // 2)
    return +out


def _bases(links: Counter, uplinks: int, smf: int, switch_cages: Counter, node_side: Counter,
           appliances: bool = True) -> dict[str, str]:
    """How each part's quantity was counted, said on its bill line."""
    bases = {FIBRE: f"storage fabric: one per link, {links[FIBRE]:,} node-leaf and {uplinks - smf:,} between "
                    "switches",
             SMF: "storage fabric: one per link between switches past multimode reach, within 500 m",
             LC_SMF: "storage fabric: one per link between switches past 500 m (2 x FR4, between buildings)",
             SPLITTER: f"storage fabric: one per two node ports at half the switch port's speed or less "
                       f"({links[SPLITTER]:,} node-leaf links)"}
    for module, count in switch_cages.items():
        bases[module] = f"storage fabric: one per switch cage carrying links ({count:,})"
    for module, count in node_side.items():
        both = f" and {switch_cages[module]:,} on switches" if module in switch_cages else ""
        ufm = " and storage UFM" if appliances else ""
        bases[module] = f"storage fabric: {count:,} on the storage ports of nodes{ufm}{both}"
    return bases


def client_server_gbs(leaves: _Tier, spines: int) -> float:
    """GB/s the fabric carries from the nodes to the storage appliances (a write; a read is the same paths the
    other way): on each leaf, what stays on the leaf plus what its uplinks carry, summed on the sending and on
    the receiving side, the smaller of the two. Without spines only leaf-local traffic flows. Each direction of
    a link carries its full rate (full duplex), so a write and a read do not share it."""
    client, server = leaves.client_gbps, leaves.server_gbps
    local = np.minimum(client, server)
    if not spines:
        return float(local.sum()) / 8.0
    up = leaves.up * leaves.port_gbps
    send = np.minimum(client, local + up).sum()
    take = np.minimum(server, local + up).sum()
    return float(min(send, take)) / 8.0


def storage_fabric(project: Project, catalog: Catalog, record=None) -> StorageFabric:
    """The storage fabric's optics and fibres; empty when the design places no storage leaf.

    ``record``: what takes each link as it is counted (:class:`.links._Recorder`), so the link list and these
    counts come from one walk and one assignment."""
    tiers, ends, tops = _walk(project, catalog)
    leaves, spines, cores = tiers["leaf"], tiers["spine"], tiers["core"]
    if not len(leaves) or not ends.count:
        return StorageFabric(leaves=len(leaves), spines=len(spines), cores=len(cores))
    lengths = _Lengths(project, tops, catalog)
    cables: dict[str, Counter] = {}
    runs: list = []  # (rack, rack, metres) of every link, for the bundles between rooms
    links = _node_links(leaves, ends, lengths, cables, runs, record)
    uplinks = _uplinks(leaves, spines, lengths, cables, runs, above=bool(len(cores)), record=record)
    uplinks += _uplinks(spines, cores, lengths, cables, runs, above=False, record=record)
    ra, rb, metres = (np.concatenate(col) for col in zip(*runs))
    room_links = lengths.sites.room_links([h.id for h in project.halls], ra, rb, metres)
    switch_cages = _switch_modules([leaves, spines, cores])
    node_side = _node_modules(ends)
    smf = sum(cables.get(SMF, Counter()).values()) + sum(cables.get(LC_SMF, Counter()).values())
    notes = []
    unmatched = ends.modules()[""]
    if unmatched:
        notes.append(f"{unmatched:,} storage ports have a cage the catalog has no multimode module for; "
                     "their transceivers are not on the bill")
    over = [name for name, used, ports in zip(leaves.names, leaves.used, leaves.mpo_ports) if used > ports]
    if over:
        notes.append(f"{len(over)} storage leaves carry more links than they have ports: " + ", ".join(over[:4]))
    if lengths.too_long:
        notes.append(f"{lengths.too_long:,} storage-fabric runs are longer than the longest orderable fibre "
                     "of their kind; they are listed at the longest length: move the storage leaves nearer "
                     "their nodes")
    return StorageFabric(leaves=len(leaves), spines=len(spines), cores=len(cores), node_links=ends.count,
                         client_gbs=float(leaves.client_gbps.sum()) / 8.0,
                         server_gbs=float(leaves.server_gbps.sum()) / 8.0,
                         carried_gbs=client_server_gbs(leaves, len(spines)),
                         uplinks=uplinks, transceivers=+(switch_cages + node_side),
                         cables={k: v for k, v in cables.items() if v},
                         bases=_bases(links, uplinks, smf, switch_cages, node_side, bool(ends.appliance_ports)),
                         notes=tuple(notes), room_links=tuple(room_links))


__all__ = ["StorageFabric", "storage_fabric", "storage_fabric_port_group"]
