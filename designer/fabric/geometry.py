"""What a design holds for its compute fabric, and how long a cable between two of its devices is.

Why Manhattan: cables run in overhead trays along rows and across aisles, so a
run between racks is |dx| + |dy| between rack centres, plus a vertical drop at
each end from the device up to the tray, plus service slack (dcim.md §3.4).
Within one rack a cable goes straight up or down the rack.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace

import numpy as np

from catalog import Catalog

from ..model import Project
from ..site import RackSites
from .media import Cage, cage_of

U_MM = 44.45
#: Height of the overhead tray above the top of the racks.
TRAY_ABOVE_RACK_MM = 300.0
#: Service slack on a tray run: 10 %, at least 1 m (dcim.md §3.4: "1-2 m or 10 %").
SLACK_FRACTION = 0.10
SLACK_MIN_MM = 1000.0
#: Slack on a run inside one rack (dress to the side, bend radius).
IN_RACK_SLACK_MM = 500.0
ROLES = ("leaf", "spine", "core")
#: Scalable unit when the catalog states none: the DGX SuperPOD's 32 servers or 8 rack systems.
DEFAULT_SU_SYSTEMS = 32
DEFAULT_SU_RACKS = 8


_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str):
    """Sort key that reads digit runs as numbers: leaf 2 before leaf 10."""
    parts = _DIGITS.split(text.lower())
    parts[1::2] = map(int, parts[1::2])  # split with a group puts the digit runs at the odd places
    return parts


@dataclass
class FabricDevices:
    """Columnar device table: endpoints (nodes, then reserved-port appliances) and switches."""

    labels: list = field(default_factory=list)
    rack: list = field(default_factory=list)      # rack index per device
    z_mm: list = field(default_factory=list)      # height of the device's ports above the floor
    cage_ports: list = field(default_factory=list)
    is_switch: list = field(default_factory=list)
    types: list = field(default_factory=list)
    #: what each device's fabric cages accept (:class:`~designer.fabric.media.Cage`), for the choice of parts
    cages: list = field(default_factory=list)
    #: how many fabric cages each device has (0: not stated), so that every cage of the design gets a number
    n_cages: list = field(default_factory=list)

    def add(self, label, rack, z, cage_ports, is_switch, type_id, cage: Cage | None = None, n_cages: int = 0) -> int:
        self.cages.append(cage or Cage(400.0, cage_ports, "", "", is_switch))
        self.n_cages.append(n_cages)
        self.labels.append(label)
        self.rack.append(rack)
        self.z_mm.append(z)
        self.cage_ports.append(cage_ports)
        self.is_switch.append(is_switch)
        self.types.append(type_id)
        return len(self.labels) - 1

    def add_many(self, labels: list, rack, zs: list | tuple, cage_ports, is_switch, type_id, cage: Cage,
                 n_cages: int = 0) -> range:
        """Devices that differ only in label and height (a rack-scale system's trays), added at once; their
        indices. A million-GPU site has 250,000 trays: one call per tray took a quarter of the inventory."""
        n, first = len(labels), len(self.labels)
        self.labels += labels
        self.z_mm += zs
        for column, value in ((self.rack, rack), (self.cage_ports, cage_ports), (self.is_switch, is_switch),
                              (self.types, type_id), (self.cages, cage), (self.n_cages, n_cages)):
            column += [value] * n
        return range(first, first + n)


@dataclass
class Inventory:
    """The compute fabric found in a project."""

    devices: FabricDevices
    rack_ids: list
    rack_halls: list
    rack_x: np.ndarray
    rack_y: np.ndarray
    rack_top: np.ndarray
    nodes: list               # device index per node, in design order
    rails: int
    node_type: str
    node_cage_ports: int
    su_nodes: int
    gpus_per_node: float
    reserved: list            # device index per reserved port
    switches: dict            # role -> device indices
    switch_type: str | None
    notes: list
    #: what the fabric runs and in how many planes (the design's settings)
    technology: str = "infiniband"
    planes: int = 1
    #: the sized node type's compute-port speed as its NIC has it (each plane takes 1/planes of it), Gb/s
    node_port_gbps: float = 0.0
    #: where the racks stand on the site, for runs between rooms
    sites: RackSites | None = None


#: Names of Ethernet switches that serve another network: never taken for compute-fabric switches.
OTHER_NETWORKS = ("storage", "inband", "in-band", "oob", "mgmt", "management")


def _fabric_group(dtype, roles=("fabric",), protocol: str = "infiniband"):
    for g in dtype.ports:
        if g.role in roles and g.protocol == protocol:
            return g
    return None


def _role_of(name: str) -> str | None:
    low = name.lower()
    if "superspine" in low or "super-spine" in low:  # the Ethernet RAs' name for the third tier
        return "core"
    for role in ROLES:
        if role in low:
            return role
    return None


def protocol_of(technology: str) -> str:
    """The port protocol of a compute-fabric technology's switches."""
    return "infiniband" if technology == "infiniband" else "ethernet"


def _fabric_role(catalog: Catalog, type_id: str, protocol: str = "infiniband") -> tuple:
    """What a device of this type is to the fabric, with what its wiring needs: ("node", type, compute group),
    ("system", type, compute group, trays), ("appliance", type, group), ("switch", type, group) or ("other", type)."""
    dtype = catalog.get(type_id)
    if dtype.kind == "server" and dtype.ports_of("compute"):
        return ("node", dtype, dtype.ports_of("compute")[0])
    if dtype.kind == "rack_system" and dtype.ports_of("compute"):
        for comp in dtype.components:
            ctype = catalog.get(comp.id)
            if ctype.ports_of("compute"):
                return ("system", dtype, ctype.ports_of("compute")[0], comp.count)
        return ("system", dtype, dtype.ports_of("compute")[0], 0)  # no tray breakdown: one node
    if dtype.kind == "appliance" and _fabric_group(dtype, protocol=protocol):
        return ("appliance", dtype, _fabric_group(dtype, protocol=protocol))
    if dtype.kind == "switch" and _fabric_group(dtype, protocol=protocol):
        return ("switch", dtype, _fabric_group(dtype, protocol=protocol))
    return ("other", dtype)


def compute_port_gbps(catalog: Catalog, type_id: str) -> float:
    """The speed of a system's compute ports (a rack-scale system's trays'), which picks its optics; 0 for a
    type with none."""
    role = _fabric_role(catalog, type_id)
    return float(role[2].speed_gbps) if role[0] in ("node", "system") else 0.0


def _su(dtype, protocol: str) -> int:
    """Systems per scalable unit in the RA of the fabric's kind (the Ethernet RA's SU on Ethernet)."""
    return (dtype.ethernet_su_systems if protocol == "ethernet" else 0) or dtype.su_systems


def _add_system(dev: FabricDevices, nodes: list, name: str, ri: int, top: float, units: int, dtype, g,
                n: int, cage: Cage, su: int) -> tuple:
    """A rack-scale system's nodes, one per compute tray spread up the rack (one at mid-height without a tray
    breakdown); returns its rail key."""
    if not n:
        nodes.append(dev.add(name, ri, top / 2, cage.ports, False, dtype.id, cage, g.cages))
        return (dtype.id, g.count, g.ports_per_cage, su or DEFAULT_SU_RACKS, dtype.gpu_count)
    suffixes, heights = _trays(units, n)
    nodes += dev.add_many([name + s for s in suffixes], ri, heights, cage.ports, False, dtype.id, cage, g.cages)
    return (dtype.id, g.count, g.ports_per_cage, (su or DEFAULT_SU_RACKS) * n, dtype.gpu_count / n)


@functools.lru_cache(maxsize=64)
def _trays(units: int, n: int) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """The label suffixes and port heights (mm) of ``n`` trays spread up a rack of ``units`` U: the same for every
    system of a type (a million-GPU site has 14,000 systems of 18 trays)."""
    span = units * U_MM
    return tuple(f"/tray{t + 1:02d}" for t in range(n)), tuple(span * (t + 0.5) / n for t in range(n))


def _sizing_basis(rails_seen: dict, notes: list[str]) -> tuple:
    """The node type the fabric is sized for (the most common): its type, rails, ports per cage, nodes per
    scalable unit and GPUs per node; DGX-like defaults without nodes."""
    if rails_seen:
        (node_type, rails, cage_ports, su_nodes, gpn), _ = max(rails_seen.items(), key=lambda kv: kv[1])
        if len({k[1] for k in rails_seen}) > 1:
            notes.append(f"node types with different rail counts; sized with {rails} rails of {node_type}")
    else:
        node_type, rails, cage_ports, su_nodes, gpn = "", 8, 2, 32, 8
    return node_type, rails, cage_ports, su_nodes, gpn


def inventory(project: Project, catalog: Catalog) -> Inventory:
    """Nodes (servers' and rack systems' compute ports), UFM-style appliances and the compute-fabric switches:
    InfiniBand ones, or Ethernet ones when the design's fabric technology is Ethernet.

    Storage-fabric devices (named "storage...") are left out: they belong to another fabric; so are Ethernet
    switches named for another network (in-band, out-of-band, management).
    With two planes every node port is split in two halves (its cage carries one port of each plane) and
    the switches run their ports split to that speed where the catalog says they split.
    """
    dev = FabricDevices()
    nodes, reserved, notes = [], [], []
    rails_seen: dict = {}
    switches: dict = {"leaf": [], "spine": [], "core": [], None: []}
    switch_types: dict = {}
    xs, ys, tops, ids, halls = [], [], [], [], []
    # What a device is to the fabric depends only on its type: decide it once per type, not per device.
    roles: dict[str, tuple] = {}
    cages: dict[str, Cage] = {}  # and what its cages accept, once per type too
    technology = getattr(project.settings, "fabric_technology", "infiniband")
    planes = getattr(project.settings, "fabric_planes", 1)
    protocol = protocol_of(technology)

    rack_types: dict[str, tuple] = {}
    for ri, rack in enumerate(project.racks):
        if rack.type not in rack_types:
            rtype = catalog.get(rack.type)
            rack_types[rack.type] = (rtype.height_mm or (rtype.rack_units * U_MM + 100.0), rtype.rack_units or 42)
        top, units = rack_types[rack.type]
        ids.append(rack.id), halls.append(rack.hall), xs.append(rack.x), ys.append(rack.y)
        tops.append(top)
        for d in rack.devices:
            role = roles.get(d.type)
            if role is None:
                role = roles[d.type] = _fabric_role(catalog, d.type, protocol)
                if role[0] != "other":
                    cages[d.type] = cage_of(role[2], role[0] == "switch")
                    if role[0] in ("node", "system") and planes > 1:
                        # a node cage carries one port of each plane at the plane's speed: split once per type
                        c = cages[d.type]
                        cages[d.type] = replace(c, speed_gbps=c.speed_gbps / planes, ports=c.ports * planes)
            what, dtype = role[0], role[1]
            if what == "other":
                continue
            name = d.name or d.id
            low = name.lower()
            if "storage" in low or (what == "switch" and protocol == "ethernet"
                                    and any(w in low for w in OTHER_NETWORKS)):
                continue
            z = ((d.u or 1) - 1) * U_MM + dtype.u_height * U_MM / 2
            if what == "node":
                g = role[2]
                nodes.append(dev.add(name, ri, z, cages[d.type].ports, False, dtype.id, cages[d.type], g.cages))
                key = (dtype.id, g.count, g.ports_per_cage, _su(dtype, protocol) or DEFAULT_SU_SYSTEMS,
                       dtype.gpu_count)
                rails_seen[key] = rails_seen.get(key, 0) + 1
            elif what == "system":
                n = role[3]
                key = _add_system(dev, nodes, name, ri, top, units, dtype, role[2], n, cages[d.type],
                                  _su(dtype, protocol))
                rails_seen[key] = rails_seen.get(key, 0) + (n or 1)
            elif what == "appliance":
                # one device, listed once per fabric port: the wiring numbers its ports 1, 2 … in that order
                idx = dev.add(name, ri, z, 1, False, dtype.id, replace(cages[d.type], ports=1), role[2].count)
                reserved.extend([idx] * role[2].count)
            else:
                idx = dev.add(name, ri, z, role[2].ports_per_cage, True, dtype.id, cages[d.type], role[2].cages)
                switches[_role_of(name)].append(idx)
                switch_types[dtype.id] = switch_types.get(dtype.id, 0) + 1
    node_type, rails, cage_ports, su_nodes, gpn = _sizing_basis(rails_seen, notes)
    # the node type's port speed as its NIC has it (its cages above are split by plane)
    node_gbps = next((dev.cages[i].speed_gbps * planes for i in nodes if dev.types[i] == node_type), 0.0)
    breakout = {t: r[2].breakout for t, r in roles.items() if r[0] == "switch"}
    _run_split(dev, switches, breakout, node_gbps / planes if node_gbps else 0.0)
    for role in ROLES:
        switches[role].sort(key=lambda i: natural_key(dev.labels[i]))
    switch_type = max(switch_types, key=switch_types.get) if switch_types else None
    if len(switch_types) > 1:
        notes.append(f"several compute-fabric switch models; sized with {switch_type}")
    return Inventory(dev, ids, halls, np.asarray(xs, float), np.asarray(ys, float), np.asarray(tops, float),
                     nodes, rails, node_type, cage_ports, su_nodes, gpn, reserved, switches, switch_type, notes,
                     technology, planes, node_gbps, RackSites.of(project))


def placed_technology(project: Project, catalog: Catalog) -> tuple[str, int] | None:
    """(technology, planes) that the compute-fabric switches a design places imply, or None when it places
    none: a design read from elsewhere (NetBox) carries no settings, only its switches. Ethernet leaves or
    spines and no InfiniBand ones make a Spectrum-X fabric; leaves named for two planes (leaf-a-…,
    leaf-b-…) a twin-plane one."""
    protocols: set[str] = set()
    plane_names: set[str] = set()
    kinds: dict[str, str] = {}
    for rack in project.racks:
        for d in rack.devices:
            name = (d.name or d.id).lower()
            role = _role_of(name)
            if role is None or any(w in name for w in OTHER_NETWORKS):
                continue
            if d.type not in kinds:
                dt = catalog.find(d.type)
                g = next((g for g in dt.ports if g.role == "fabric"), None) if dt is not None and \
                    dt.kind == "switch" else None
                kinds[d.type] = g.protocol if g is not None else ""
            if kinds[d.type]:
                protocols.add(kinds[d.type])
                m = re.match(r"(leaf|spine|superspine|core)-([ab])-", name)
                if m:
                    plane_names.add(m.group(2))
    if not protocols:
        return None
    if protocols == {"ethernet"}:
        return "spectrum-x", 2 if plane_names == {"a", "b"} else 1
    return "infiniband", 1


def _run_split(dev: FabricDevices, switches: dict, breakout: dict, plane_gbps: float) -> None:
    """Switch cages as the fabric runs them: a switch whose ports split (an Ethernet switch's, by twin-port
    modules: ``breakout`` by type) runs them at the plane's speed. (Node cages are split by plane where the
    inventory adds them, once per type.)"""
    # a few cage kinds among tens of thousands of switches: each split once, found by the cage object's
    # identity (the devices of a type share one; hashing the dataclass per device took 0.2 s at 1M GPUs)
    if not plane_gbps:
        return
    memo: dict = {}
    for i in (j for role in switches.values() for j in role):
        c, ways = dev.cages[i], breakout.get(dev.types[i], 1)
        got = memo.get((id(c), ways))
        if got is None:
            got = memo[(id(c), ways)] = split_cage(c, plane_gbps, ways)
        dev.cages[i] = got
        dev.cage_ports[i] = got.ports


def split_cage(cage: Cage, plane_gbps: float, breakout: int) -> Cage:
    """A switch cage as it runs for ports of ``plane_gbps``: split into that many ways where the switch's ports
    split (``breakout``) and the speeds divide evenly, else as it is."""
    if not plane_gbps:
        return cage
    ways = round(cage.speed_gbps / plane_gbps)
    if 1 < ways <= breakout and abs(cage.speed_gbps / plane_gbps - ways) < 1e-9:
        return replace(cage, speed_gbps=plane_gbps, ports=cage.ports * ways)
    return cage


def mounted_sources(project: Project, catalog: Catalog, inv: Inventory) -> list[tuple | None]:
    """Per fabric device of ``inv`` (by index): (rack, mounted device, its catalog type or None, compute tray
    number or None), or None where no mounted device matches.

    :func:`inventory` adds devices walking the racks in order, so one walk beside it pairs each entry
    with the mounted device it came from: a rack-scale system gives one entry per compute tray
    (labelled ``<name>/tray<k>``), an appliance one per fabric port (its own label, repeated).
    Every view that names a link's ends (the cabling export, the cabling view) pairs them here.
    """
    dev = inv.devices
    n = len(dev.labels)
    out: list[tuple | None] = [None] * n
    pos = 0
    for ri, rack in enumerate(project.racks):
        for d in rack.devices:
            if pos >= n or dev.rack[pos] != ri:
                break
            label = d.name or d.id
            tray_prefix = label + "/tray"
            dtype = catalog.find(d.type)
            while pos < n and dev.rack[pos] == ri and (dev.labels[pos] == label
                                                         or dev.labels[pos].startswith(tray_prefix)):
                suffix = dev.labels[pos][len(tray_prefix):]
                tray = int(suffix) if dev.labels[pos] != label and suffix.isdigit() else None
                out[pos] = (rack, d, dtype, tray)
                pos += 1
    return out


def cable_lengths_m(inv: Inventory, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cable length in metres between devices ``a`` and ``b`` (before rounding to orderable lengths)."""
    rack = np.asarray(inv.devices.rack, dtype=np.int64)
    z = np.asarray(inv.devices.z_mm, dtype=float)
    return run_lengths_m(inv.sites, inv.rack_top, rack[a], z[a], rack[b], z[b])


def run_lengths_m(sites: RackSites, rack_top: np.ndarray, ra: np.ndarray, za: np.ndarray,
                  rb: np.ndarray, zb: np.ndarray) -> np.ndarray:
    """Metres of cable between ports at heights ``za``/``zb`` (mm) in racks ``ra``/``rb``: the tray rule every
    fabric's cabling shares (up to the tray, along it, down, with slack; straight within one rack). Between
    rooms the tray run goes by the rooms' cable entries (:class:`designer.site.RackSites`)."""
    # in place, one column at a time: 3.8 M links make each temporary 30 MB, and fresh memory is what costs
    run = np.asarray(sites.horizontal_mm(ra, rb), dtype=float)  # a fresh column: then the drops at both ends
    run += rack_top[ra]
    run -= za
    run += rack_top[rb]
    run -= zb
    run += 2 * TRAY_ABOVE_RACK_MM
    slack = np.multiply(run, SLACK_FRACTION)
    np.maximum(slack, SLACK_MIN_MM, out=slack)
    run += slack
    inside = np.subtract(za, zb, out=slack)
    np.abs(inside, out=inside)
    inside += IN_RACK_SLACK_MM
    np.copyto(run, inside, where=ra == rb)
    run /= 1000.0
    return run
