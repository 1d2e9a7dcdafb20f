"""The storage fabric's links, transceivers and fibres, counted from the design as placed.

The compute fabric has its own engine; the storage fabric is counted here, from what a design holds, so a
hand-made design is counted the same way as a generated one:

- its switches are the placed switches whose name contains "storage" (a name that also says "spine" or
  "core" makes a spine, any other a leaf), and its endpoints are every other device's storage ports plus the
  fabric ports of appliances named "storage" (the storage fabric's UFM);
- node-leaf links: one per endpoint port, spread evenly over the leaves in rack order (so each leaf serves
  the racks nearest one another, as the generator places a leaf in each scalable unit's network racks);
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

import math
from collections import Counter
from dataclasses import dataclass, field

from catalog import Catalog, DeviceType, PortGroup

from ..fabric.geometry import IN_RACK_SLACK_MM, SLACK_FRACTION, SLACK_MIN_MM, TRAY_ABOVE_RACK_MM, U_MM, natural_key
from ..model import Project

FIBRE = "fiber-mpo12-mmf"
SPLITTER = "fiber-mpo12-mmf-splitter"
SMF = "fiber-mpo12-smf"
#: switch-side modules by (media, MPO ports per cage)
SWITCH_MODULES = {("mmf", 2): "osfp-800g-2xsr4", ("mmf", 1): "osfp-400g-sr4",
                  ("smf", 2): "osfp-800g-2xdr4", ("smf", 1): "osfp-400g-dr4"}
#: node-side module by (cage, ports per cage): one module per cage
NODE_MODULES = {("QSFP112", 1): "qsfp112-400g-sr4", ("OSFP", 1): "osfp-400g-sr4", ("OSFP", 2): "osfp-800g-2xsr4-flat"}
#: the speed of one MPO port of the catalog's multimode modules (400G SR4)
MPO_GBPS = 400.0


@dataclass(frozen=True)
class _End:
    """One end of a link: the rack it is in, its height above the floor (mm)."""

    rack: int
    z_mm: float


@dataclass
class _Switch:
    name: str
    end: _End
    mpo_ports: int  # MPO ports its cages offer (a twin-port cage: 2)
    mpo_per_cage: int
    port_gbps: float
    used: int = 0  # MPO ports carrying links
    smf: int = 0  # of which single-mode (a run past multimode reach)


@dataclass(frozen=True)
class _Endpoint:
    end: _End
    speed_gbps: float
    module: str  # node-side module id, "" when the cage takes none of the catalog's


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

    @property
    def empty(self) -> bool:
        return not (self.node_links or self.uplinks)


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


def _switch(name: str, end: _End, group: PortGroup) -> _Switch:
    cage_gbps = group.speed_gbps * group.ports_per_cage
    per_cage = group.ports_per_cage if group.ports_per_cage > 1 else max(1, round(cage_gbps / MPO_GBPS))
    return _Switch(name, end, group.cages * per_cage, per_cage, cage_gbps / per_cage)


def _walk(project: Project, catalog: Catalog):
    """(switches by tier: leaf, spine, core; endpoints; rack tops in mm): the design's storage fabric, racks
    in order."""
    tiers: dict[str, list[_Switch]] = {"leaf": [], "spine": [], "core": []}
    endpoints: list[_Endpoint] = []
    tops: list[float] = []
    for ri, rack in enumerate(project.racks):
        rtype = catalog.find(rack.type)
        tops.append((rtype.height_mm or rtype.rack_units * U_MM + 100.0) if rtype else 2000.0)
        for d in rack.devices:
            dtype = catalog.find(d.type)
            if dtype is None:
                continue
            name = (d.name or d.id).lower()
            end = _End(ri, ((d.u or 1) - 1) * U_MM + dtype.u_height * U_MM / 2)
            group = _fabric_group(dtype)
            if "storage" in name and dtype.kind == "switch" and group is not None:
                tier = "core" if "core" in name else "spine" if "spine" in name else "leaf"
                tiers[tier].append(_switch(d.name or d.id, end, group))
            elif "storage" in name and dtype.kind == "appliance" and group is not None:
                module = NODE_MODULES.get((group.cage, 1), "")
                endpoints += [_Endpoint(end, group.speed_gbps, module)] * group.count
            else:
                for g, times in _storage_groups(dtype, catalog):
                    module = NODE_MODULES.get((g.cage, g.ports_per_cage), "")
                    endpoints += [_Endpoint(end, g.speed_gbps, module)] * (g.count * times)
    for switches in tiers.values():
        switches.sort(key=lambda sw: natural_key(sw.name))  # leaf 2 before leaf 10
    return tiers, endpoints, tops


class _Lengths:
    """Orderable lengths of the runs between two ends (the compute fabric's tray rule, hardware.md dcim §3.4)."""

    def __init__(self, project: Project, tops: list[float], catalog: Catalog):
        self.xy = [(r.x, r.y) for r in project.racks]
        self.tops = tops
        self.catalog = catalog
        self.too_long = 0
        self.mmf_reach = catalog.get(FIBRE).reach_m or 50.0

    def metres(self, a: _End, b: _End) -> float:
        if a.rack == b.rack:
            return (abs(a.z_mm - b.z_mm) + IN_RACK_SLACK_MM) / 1000.0
        (xa, ya), (xb, yb) = self.xy[a.rack], self.xy[b.rack]
        run = abs(xa - xb) + abs(ya - yb) + self.tops[a.rack] - a.z_mm + self.tops[b.rack] - b.z_mm \
            + 2 * TRAY_ABOVE_RACK_MM
        return (run + max(SLACK_MIN_MM, SLACK_FRACTION * run)) / 1000.0

    def orderable(self, cable: str, metres: float) -> float:
        lengths = sorted(self.catalog.get(cable).lengths_m)
        for length in lengths:
            if length >= metres - 1e-9:
                return float(length)
        self.too_long += 1
        return float(lengths[-1])


def _node_links(leaves: list[_Switch], endpoints: list[_Endpoint], lengths: _Lengths,
                cables: dict[str, Counter]) -> Counter:
    """Endpoints spread evenly over the leaves in rack order; a fibre per link, a splitter per two slow ones."""
    n, n_leaves = len(endpoints), len(leaves)
    links: Counter = Counter()  # node links by the cable that carries them
    start = 0
    for li, leaf in enumerate(leaves):
        stop = (li + 1) * n // n_leaves
        share = endpoints[start:stop]
        start = stop
        for speed in sorted({e.speed_gbps for e in share}):
            ends = [e for e in share if e.speed_gbps == speed]
            per_port = 2 if 2 * speed <= leaf.port_gbps else 1  # a 1:2 splitter, the only one catalogued
            cable = SPLITTER if per_port > 1 else FIBRE
            links[cable] += len(ends)
            for i in range(0, len(ends), per_port):
                run = max(lengths.metres(e.end, leaf.end) for e in ends[i:i + per_port])
                cables.setdefault(cable, Counter())[lengths.orderable(cable, run)] += 1
                leaf.used += 1
    return links


def _uplinks(lower: list[_Switch], upper: list[_Switch], lengths: _Lengths, cables: dict[str, Counter],
             *, above: bool) -> int:
    """Each lower switch's share of the upper tier's down ports (all its ports, half when a tier ``above``
    takes the other half), no more than it has free, round-robin over the upper switches. A run past the
    multimode reach goes single-mode, as the compute fabric's does."""
    if not upper or not lower:
        return 0
    share = sum(s.mpo_ports // 2 if above else s.mpo_ports for s in upper) // len(lower)
    total = 0
    for sw in lower:
        up = max(0, min(share, sw.mpo_ports - sw.used))
        for _ in range(up):
            far = upper[total % len(upper)]  # dealt in turn, so the upper tier fills evenly
            total += 1
            metres = lengths.metres(sw.end, far.end)
            cable = SMF if metres > lengths.mmf_reach else FIBRE
            if cable == SMF:
                sw.smf += 1
                far.smf += 1
            cables.setdefault(cable, Counter())[lengths.orderable(cable, metres)] += 1
            far.used += 1
        sw.used += up
    return total


def _switch_modules(switches: list[_Switch]) -> Counter:
    """A module per cage carrying links; a cage's links share one medium, so each medium fills its own cages."""
    out: Counter = Counter()
    for sw in switches:
        per = 2 if sw.mpo_per_cage == 2 else 1
        for media, n in (("mmf", sw.used - sw.smf), ("smf", sw.smf)):
            if n > 0:
                out[SWITCH_MODULES[media, per]] += -(-n // per)
    return out


def storage_fabric(project: Project, catalog: Catalog) -> StorageFabric:
    """The storage fabric's optics and fibres; empty when the design places no storage leaf."""
    tiers, endpoints, tops = _walk(project, catalog)
    leaves, spines, cores = tiers["leaf"], tiers["spine"], tiers["core"]
    if not leaves or not endpoints:
        return StorageFabric(leaves=len(leaves), spines=len(spines), cores=len(cores))
    lengths = _Lengths(project, tops, catalog)
    cables: dict[str, Counter] = {}
    links = _node_links(leaves, endpoints, lengths, cables)
    uplinks = _uplinks(leaves, spines, lengths, cables, above=bool(cores))
    uplinks += _uplinks(spines, cores, lengths, cables, above=False)
    xcvr = _switch_modules(leaves + spines + cores)
    switch_cages = dict(xcvr)
    node_side = Counter(e.module for e in endpoints if e.module and e.module != NODE_MODULES[("OSFP", 2)])
    twin_nodes = sum(1 for e in endpoints if e.module == NODE_MODULES[("OSFP", 2)])
    if twin_nodes:
        node_side[NODE_MODULES[("OSFP", 2)]] += math.ceil(twin_nodes / 2)
    xcvr += node_side
    n = len(endpoints)
    smf = sum(cables.get(SMF, Counter()).values())
    switch_mmf = uplinks - smf
    bases = {FIBRE: f"storage fabric: one per link, {links[FIBRE]:,} node-leaf and {switch_mmf:,} between switches",
             SMF: f"storage fabric: one per link between switches past multimode reach ({smf:,})",
             SPLITTER: f"storage fabric: one per two node ports at half the switch port's speed or less "
                       f"({links[SPLITTER]:,} node-leaf links)"}
    for module, count in switch_cages.items():
        bases[module] = f"storage fabric: one per switch cage carrying links ({count:,})"
    for module, count in node_side.items():
        both = f" and {switch_cages[module]:,} on switches" if module in switch_cages else ""
        bases[module] = f"storage fabric: {count:,} on the storage ports of nodes and storage UFM{both}"
    notes = []
    unmatched = sum(1 for e in endpoints if not e.module)
    if unmatched:
        notes.append(f"{unmatched:,} storage ports have a cage the catalog has no multimode module for; "
                     "their transceivers are not on the bill")
    over = [leaf.name for leaf in leaves if leaf.used > leaf.mpo_ports]
    if over:
        notes.append(f"{len(over)} storage leaves carry more links than they have ports: " + ", ".join(over[:4]))
    if lengths.too_long:
        notes.append(f"{lengths.too_long:,} storage-fabric runs are longer than the longest orderable fibre "
                     "of their kind; they are listed at the longest length: move the storage leaves nearer "
                     "their nodes")
    return StorageFabric(leaves=len(leaves), spines=len(spines), cores=len(cores), node_links=n, uplinks=uplinks,
                         transceivers=+xcvr, cables=cables, bases=bases, notes=tuple(notes))


__all__ = ["StorageFabric", "storage_fabric"]
