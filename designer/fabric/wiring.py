"""The wiring plan of a design: every fabric cable, port to port, with its length and parts.

Why two trees: the *required* tree is what the design's endpoints need; the
*wired* tree is what the switches actually placed can carry (the required one
when enough are placed). Cabling what is placed, and reporting what is missing
as findings, gives the installer a usable plan even for an unfinished design.

The plan is columnar (numpy) so 100,000 endpoints wire in well under a second;
:meth:`WiringPlan.links` turns it into :class:`Link` rows for the cabling export.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields

import numpy as np

from catalog import Catalog

from ..model import Project
from . import media
from .geometry import Inventory, cable_lengths_m, inventory
from .sizing import FabricError, FatTree, size_fat_tree
from .topology import TIER_NAMES, all_tiers

DEFAULT_SWITCH = "qm9700"
#: The compute switch of an Ethernet design that places none: the DGX B300 Spectrum-X RA's Spectrum-4.
DEFAULT_ETHERNET_SWITCH = "sn5610"
#: The compute switch of a RoCE design that places none: the generator's (Spectrum-4 SN5600, 128 x 400G).
DEFAULT_ROCE_SWITCH = "sn5600"
CAGE_KEY = media.CAGE_KEY  # cage key = device * CAGE_KEY + cage


@dataclass(frozen=True, slots=True)
class Link:
    """One cable end to end (a copper pair shows as two links sharing one cable)."""

    a_device: str
    a_port: str
    b_device: str
    b_port: str
    tier: str
    medium: str
    cable: str
    length_m: float
    a_transceiver: str
    b_transceiver: str
    rail: int | str
    a_rack: str
    b_rack: str
    #: the plane of a twin-plane fabric ("A", "B"); "" with one plane
    plane: str = ""


def port_name(per_cage: int, port: int) -> str:
    """A port as the front panel reads it, from 1: cage/port on a twin-port cage, else the port's number."""
    return f"{port // per_cage + 1}/{port % per_cage + 1}" if per_cage > 1 else str(port + 1)


def plane_name(plane: int) -> str:
    """A plane as people name it: A, B (empty for a single-plane fabric, given as -1)."""
    return "" if plane < 0 else "AB"[plane] if plane < 2 else str(plane + 1)


#: The fields of a link, in the order the cabling export writes them.
LINK_COLUMNS = tuple(f.name for f in fields(Link) if f.name != "plane")  # the plane is written last (exporters)


@dataclass
class WiringPlan:
    inv: Inventory
    required: FatTree | None
    wired: FatTree | None
    tier: np.ndarray
    a_dev: np.ndarray
    a_port: np.ndarray
    b_dev: np.ndarray
    b_port: np.ndarray
    rail: np.ndarray
    raw_m: np.ndarray
    choice: dict
    placed: dict
    unwired_links: dict
    unwired_endpoints: list  # device labels whose ports found no leaf
    #: the plane of each link (0 with one plane)
    plane: np.ndarray | None = None

    @property
    def planes(self) -> int:
        return self.inv.planes

    def __len__(self) -> int:
        return len(self.tier)

    @property
    def too_long(self) -> np.ndarray:
        return np.nonzero(self.choice["medium"] == media.NONE)[0] if len(self) else np.zeros(0, dtype=np.int64)

    def counts(self) -> dict:
        """Physical cables by catalog id and by orderable length, modules by id, total length."""
        if not len(self):
            return {"cables": {}, "cables_by_length": {}, "cables_total": 0, "cable_length_total_m": 0.0,
                    "transceivers": {}}
        ch = self.choice
        own = ch["owner"] & (ch["medium"] != media.NONE)
        cables, by_len = {}, {}
        for idx in np.unique(ch["cable"][own]).tolist():
            sel = own & (ch["cable"] == idx)
            cid = ch["cable_ids"][idx]
            cables[cid] = int(sel.sum())
            lens, n = np.unique(ch["length_m"][sel], return_counts=True)
            by_len[cid] = {f"{length:g}": int(c) for length, c in zip(lens, n)}
        xcvr = dict(ch["transceivers"])
        return {"cables": dict(sorted(cables.items())), "cables_by_length": dict(sorted(by_len.items())),
                "cables_total": int(own.sum()), "cable_length_total_m": round(float(ch["length_m"][own].sum()), 1),
                "transceivers": xcvr}

    def cage_keys(self) -> tuple[np.ndarray, np.ndarray]:
        ppc = np.asarray(self.inv.devices.cage_ports, dtype=np.int64)
        return (self.a_dev * CAGE_KEY + self.a_port // ppc[self.a_dev],
                self.b_dev * CAGE_KEY + self.b_port // ppc[self.b_dev])

    def port_names(self, devices: np.ndarray, ports: np.ndarray) -> np.ndarray:
        """:func:`port_name` of every (device, port), each distinct name made once (300,000 links: 0.1 s)."""
        per = np.asarray(self.inv.devices.cage_ports, dtype=np.int64)[devices]
        out = np.empty(len(ports), dtype=object)
        top = int(ports.max()) + 1 if len(ports) else 0
        for n in np.unique(per).tolist():
            table = np.asarray([port_name(n, q) for q in range(top)], dtype=object)
            sel = per == n
            out[sel] = table[ports[sel]]
        return out

    def links(self) -> list[Link]:
        dev = self.inv.devices
        labels, racks = dev.labels, [self.inv.rack_ids[r] for r in dev.rack]
        ppc = dev.cage_ports
        ids = self.choice["module_ids"]
        out = []
        plane = self.plane if self.plane is not None and self.planes > 1 else np.full(len(self), -1)
        cols = zip(self.tier.tolist(), self.a_dev.tolist(), self.a_port.tolist(), self.b_dev.tolist(),
                   self.b_port.tolist(), self.rail.tolist(), self.choice["medium"].tolist(),
                   media.cable_column(self.choice).tolist(), self.choice["length_m"].tolist(),
                   self.choice["module_a"].tolist(), self.choice["module_b"].tolist(), plane.tolist())
        for t, a, ap, b, bp, rail, med, cable, length, ma, mb, pl in cols:
            out.append(Link(labels[a], port_name(ppc[a], ap), labels[b], port_name(ppc[b], bp), TIER_NAMES[t],
                            media.MEDIA[med], cable, length, ids[ma] if ma >= 0 else "",
                            ids[mb] if mb >= 0 else "", rail if rail >= 0 else "", racks[a], racks[b],
                            plane_name(pl)))
        return out


def cage_numbers(inv: Inventory, a_dev: np.ndarray, a_port: np.ndarray, b_dev: np.ndarray,
                 b_port: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each link end's cage as one number: the design's cages numbered device after device (the cages a device
    has, from the catalog), so the media choice indexes its per-cage tables by them as they are. Where a device
    states no cage count, or a port lies past it, ``device * CAGE_KEY + cage`` as before (which the choice
    numbers itself, at the cost of a pass over a table of every device's widest cage)."""
    ppc = np.asarray(inv.devices.cage_ports, dtype=np.int64)
    a_cage, b_cage = a_port // ppc[a_dev], b_port // ppc[b_dev]
    have = np.asarray(inv.devices.n_cages, dtype=np.int64)
    if len(have) and (a_cage < have[a_dev]).all() and (b_cage < have[b_dev]).all():
        first = np.cumsum(have) - have
        a_cage += first[a_dev]
        b_cage += first[b_dev]
        return a_cage, b_cage
    return a_dev * CAGE_KEY + a_cage, b_dev * CAGE_KEY + b_cage


def device_cages(inv: Inventory) -> tuple[list, np.ndarray]:
    """The distinct cages of the inventory's devices, and each device's index into them."""
    # The devices of a type share one cage object: each object is hashed once, and the pass per device runs in
    # C (map, fromiter); a Python loop per device took 0.1 s for the 290,000 devices of a million-GPU site.
    objects = inv.devices.cages
    by_object = {id(c): c for c in objects}  # the distinct objects, in first-use order
    cages: dict = {}
    number = {key: cages.setdefault(c, len(cages)) for key, c in by_object.items()}
    index = np.fromiter(map(number.__getitem__, map(id, objects)), dtype=np.int64, count=len(objects))
    return list(cages), index


def node_port_gbps(inv: Inventory) -> float:
    """The port speed of the node type the fabric is sized for, as its NIC has it (0 without nodes: the
    switch's speed); each plane takes its share."""
    return inv.node_port_gbps


def _assign_roles(inv: Inventory, need: FatTree | None) -> dict:
    """Placed switches per role: named ones, then unnamed ones filling leaf, spine, core in turn."""
    placed = {role: list(inv.switches[role]) for role in ("leaf", "spine", "core")}
    spare = sorted(inv.switches[None], key=lambda i: inv.devices.labels[i])
    if need is not None:
        for role, n in (("leaf", need.leaf_switches), ("spine", need.spine_switches), ("core", need.core_switches)):
            while spare and len(placed[role]) < n:
                placed[role].append(spare.pop(0))
    return placed


#: A switch named for its plane: leaf-a-0001-r0, spine-b-0002, superspine-a-0003.
_PLANE_NAME = re.compile(r"^(?:leaf|spine|superspine|super-spine|core)-([ab])-")


def plane_shares(inv: Inventory, placed: dict) -> list[dict]:
    """Each plane's placed switches per role: those named for it (``leaf-a-…`` in plane A), in name order,
    then any not named for a plane given to the plane with the fewest of that role. A switch missing
    from one plane leaves that plane short, never the other one's switches moved across."""
    if inv.planes == 1:
        return [placed]
    out: list[dict] = [{role: [] for role in placed} for _ in range(inv.planes)]
    labels = inv.devices.labels
    for role, devices in placed.items():
        rest = []
        for i in devices:
            m = _PLANE_NAME.match(labels[i].lower())
            if m and "ab".index(m.group(1)) < inv.planes:
                out["ab".index(m.group(1))][role].append(i)
            else:
                rest.append(i)
        for i in rest:
            min(out, key=lambda share: len(share[role]))[role].append(i)
    return out


def _wired_tree(inv: Inventory, required: FatTree, placed: dict, switch, **kw) -> FatTree | None:
    """The largest part of the required fabric one plane's placed leaves can carry (nodes first, then
    appliances); ``placed`` is that plane's share."""
    if all(len(placed[r]) >= n for r, n in (("leaf", required.leaf), ("spine", required.spine),
                                            ("core", required.core))):
        return required
    r = inv.rails
    capacity = (len(placed["leaf"]) // r) * required.leaf_down * r
    nodes = min(len(inv.nodes), capacity // r)
    reserved = min(len(inv.reserved), capacity - nodes * r)
    if nodes * r + reserved == 0:
        return None
    for tiers in (required.tiers, "auto"):
        try:
            return size_fat_tree(nodes * r + reserved, switch, rails=r, su_nodes=inv.su_nodes, tiers=tiers,
                                 reserved_ports=reserved, node_cage_ports=inv.node_cage_ports,
                                 node_port_gbps=node_port_gbps(inv), planes=inv.planes,
                                 technology=inv.technology, **kw)
        except FabricError:
            continue
    return None


def size_design(inv: Inventory, catalog: Catalog, *, tiers="auto", oversubscription: float = 1.0,
                core_oversubscription: float = 1.0) -> FatTree | None:
    """The fat tree the design's endpoints need (None when it has no compute endpoints)."""
    endpoints = len(inv.nodes) * inv.rails + len(inv.reserved)
    if not inv.nodes:
        return None
    default = {"infiniband": DEFAULT_SWITCH, "roce": DEFAULT_ROCE_SWITCH}.get(inv.technology, DEFAULT_ETHERNET_SWITCH)
    switch = catalog.get(inv.switch_type or default)
    return size_fat_tree(endpoints, switch, rails=inv.rails, su_nodes=inv.su_nodes, tiers=tiers,
                         oversubscription=oversubscription, reserved_ports=len(inv.reserved),
                         node_cage_ports=inv.node_cage_ports, node_port_gbps=node_port_gbps(inv),
                         spines_placed=len(inv.switches["spine"]),
                         cores_placed=len(inv.switches["core"]), planes=inv.planes, technology=inv.technology,
                         core_oversubscription=core_oversubscription)


def plan_wiring(project: Project, catalog: Catalog, *, tiers="auto", oversubscription: float = 1.0,
                inv: Inventory | None = None, required: FatTree | None = None) -> WiringPlan:
    """Wire the design's endpoints to its placed switches; raises FabricError for impossible fabrics."""
    inv = inv or inventory(project, catalog)
    required = required or size_design(inv, catalog, tiers=tiers, oversubscription=oversubscription)
    placed = _assign_roles(inv, required)
    shares = plane_shares(inv, placed)
    wired_planes: list[FatTree | None] = [None] * inv.planes
    if required is not None:
        switch = catalog.get(required.switch)
        wired_planes = [_wired_tree(inv, required, share, switch, oversubscription=oversubscription,
                                    core_oversubscription=required.core_oversubscription)
                        for share in shares]
    # the plane that carries the fewest endpoints stands for the wiring (its missing endpoints are the findings')
    wired = None if any(w is None for w in wired_planes) else min(wired_planes, key=lambda w: (w.nodes,
                                                                                                w.reserved_ports))
    empty = np.zeros(0, dtype=np.int64)
    unwired = {"node_leaf": 0, "leaf_spine": 0, "spine_core": 0}
    if all(w is None for w in wired_planes):
        choice = media.choose(catalog, np.zeros(0), empty, empty, empty, empty, [])
        lost = [inv.devices.labels[i] for i in inv.nodes + inv.reserved]
        unwired["node_leaf"] = (len(inv.nodes) * inv.rails + len(inv.reserved)) * inv.planes
        return WiringPlan(inv, required, None, empty, empty, empty, empty, empty, empty, np.zeros(0), choice,
                          placed, unwired, sorted(set(lost)))
    r = inv.rails
    n_planes = inv.planes
    most = max((w for w in wired_planes if w is not None), key=lambda w: (w.nodes, w.reserved_ports))
    nodes = np.asarray(inv.nodes[: most.nodes], dtype=np.int64)
    reserved = np.asarray(inv.reserved[: most.reserved_ports], dtype=np.int64)
    # a multi-port appliance appears once per port: number its ports in order
    res_port = np.zeros(len(reserved), dtype=np.int64)
    seen: dict = {}
    for i, d in enumerate(reserved.tolist()):
        res_port[i] = seen.get(d, 0)
        seen[d] = res_port[i] + 1
    endpoint_dev = np.concatenate([np.repeat(nodes, r), reserved])
    endpoint_port = np.concatenate([np.tile(np.arange(r, dtype=np.int64), len(nodes)), res_port])
    # an appliance's cage is not split: its ports take no plane suffix
    endpoint_split = np.concatenate([np.ones(len(nodes) * r, dtype=np.int64), np.zeros(len(reserved), dtype=np.int64)])

    def lookup(table: np.ndarray, idx: np.ndarray) -> np.ndarray:
        out = np.full(len(idx), -1, dtype=np.int64)
        ok = idx < len(table)
        out[ok] = table[idx[ok]]
        return out

    cols = {k: [] for k in ("tier", "a_dev", "a_port", "b_dev", "b_port", "rail", "plane")}
    lost_planes: list[int] = []
    for p, (share, tree) in enumerate(zip(shares, wired_planes)):
        if tree is None:  # no leaf of this plane: none of its links is wired
            unwired["node_leaf"] += len(inv.nodes) * r + len(inv.reserved)
            continue
        unwired["node_leaf"] += (len(inv.nodes) - tree.nodes) * r + len(inv.reserved) - tree.reserved_ports
        lost_planes += inv.nodes[tree.nodes:] + inv.reserved[tree.reserved_ports:]
        maps = [np.asarray(share[role], dtype=np.int64) for role in ("leaf", "spine", "core")]
        for t, (tier, lower, upper) in enumerate(zip(all_tiers(tree), [None, maps[0], maps[1]], maps)):
            a = endpoint_dev[tier.a_index] if lower is None else lookup(lower, tier.a_index)
            b = lookup(upper, tier.b_index)
            ok = (a >= 0) & (b >= 0)
            every = bool(ok.all())  # the usual case: no copy of each column through the mask
            key = ("node_leaf", "leaf_spine", "spine_core")[t]
            unwired[key] = unwired[key] + int((~ok).sum())
            # a node cage carries one port of each plane: port r of the NIC becomes ports r*planes + p
            if lower is None:
                split = endpoint_split[tier.a_index]
                a_port = endpoint_port[tier.a_index] * np.where(split == 1, n_planes, 1) + split * p
            else:
                a_port = tier.a_port
            # tier and plane in a byte: at a million GPUs each is 3.8 M rows, and writing 30 MB columns of one
            # value took a tenth of the wiring
            for name, col in (("tier", np.full(len(tier), t, dtype=np.int8)), ("a_dev", a), ("a_port", a_port),
                              ("b_dev", b), ("b_port", tier.b_port), ("rail", tier.rail),
                              ("plane", np.full(len(tier), p, dtype=np.int8))):
                cols[name].append(col if every else col[ok])
    c = {k: np.concatenate(v) for k, v in cols.items()}
    raw = cable_lengths_m(inv, c["a_dev"], c["b_dev"])
    a_key, b_key = cage_numbers(inv, c["a_dev"], c["a_port"], c["b_dev"], c["b_port"])
    cages, cage_of_dev = device_cages(inv)
    choice = media.choose(catalog, raw, a_key, b_key, cage_of_dev[c["a_dev"]], cage_of_dev[c["b_dev"]], cages)
    lost = [inv.devices.labels[i] for i in dict.fromkeys(lost_planes)]
    return WiringPlan(inv, required, wired, c["tier"], c["a_dev"], c["a_port"], c["b_dev"], c["b_port"],
                      c["rail"], raw, choice, placed, unwired, sorted(set(lost), key=lost.index), c["plane"])
