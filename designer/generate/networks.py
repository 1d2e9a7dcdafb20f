"""How many switches, UFM appliances and management nodes each network of a SuperPOD needs.

The compute fabric is sized by the fabric engine's own rules (:func:`size_fat_tree`),
so the generated design and its analysis agree switch for switch. The other
networks follow the reference architectures' figures (hardware.md §5, §6):

- storage: DGX systems put their 2 storage ports on a non-blocking InfiniBand
  leaf/spine fabric of QM9700 (B200 RA 4-SU figure: 8 leaf + 4 spine for 127
  DGX, which 2 ports x 127 nodes on 32-down leaves reproduces); GB200 racks put
  their 200 GbE storage ports on Spectrum-4 SN5600 leaves at the RA's 5:3
  node-side blocking (RA-11338-001 as summarised in R2).
- in-band: one SN5600 leaf pair per 128 DGX and a spine pair per 16 leaf pairs,
  plus 2 SN2201 leaves for the management nodes (4-SU figure: 2 + 2 SN5600, 2
  SN2201). GB200 racks carry in-band traffic on the storage Ethernet fabric (RA:
  5 logical fabrics on 4 physical), so they add only the management leaves.
- out-of-band: one SN2201 per 8 DGX (4-SU figure: 16 for 127 DGX); for GB200
  racks one 48-port SN2201 per 48 management ports (2 per rack's own
  management switches, 1 per network switch or appliance).
- 2 compute UFM appliances on the compute fabric (their 4 ports displace a DGX,
  RA Table 4), 2 storage UFM on an InfiniBand storage fabric, 7 management
  nodes (4-SU figure; beyond 4 SU the RA gives no count, so 7 is kept).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from catalog import Catalog

from ..fabric.geometry import compute_port_gbps
from ..fabric.sizing import FabricError, FatTree, fabric_ports, leaf_split, limits, size_fat_tree, \
    smallest_divisor_at_least
from .spec import GenerateError, SuperpodSpec, SystemProfile, ufm_for

UFM_PER_FABRIC = 2
MANAGEMENT_NODES = 7
DGX_PER_OOB_SWITCH = 8
OOB_PORTS = 48
INBAND_DGX_PER_LEAF_PAIR = 128
INBAND_LEAF_PAIRS_PER_SPINE_PAIR = 16
INBAND_MANAGEMENT_LEAVES = 2
#: GB200 storage: node-side blocking 5:3 (R2 summary of RA-11338-001).
GB200_STORAGE_DOWN_UP = (5, 3)
STORAGE_SWITCH = {"infiniband": "qm9700", "ethernet": "sn5600"}


@dataclass(frozen=True)
class Tree:
    """A leaf/spine(/core) network other than the compute fabric."""

    switch: str
    leaf: int
    spine: int
    core: int = 0

    @property
    def switches(self) -> int:
        return self.leaf + self.spine + self.core


def size_tree(ports: int, radix: int, down: int, up: int, switch: str) -> Tree:
    """Leaves for ``ports`` node ports at ``down`` per leaf; spines by the even-uplink rule; a core when the
    leaves outnumber what one spine layer reaches (the compute fabric's rules, without rails)."""
    if ports <= 0:
        return Tree(switch, 0, 0)
    leaves = math.ceil(ports / down)
    if leaves <= radix:
        return Tree(switch, leaves, smallest_divisor_at_least(up, math.ceil(leaves * up / radix)) or up)
    half = radix // 2
    pods = math.ceil(leaves / half)
    pod_spines = smallest_divisor_at_least(up, math.ceil(half * up / half)) or up
    spines = pods * pod_spines
    return Tree(switch, leaves, spines, math.ceil(spines * half / radix))


@dataclass(frozen=True)
class NetworkPlan:
    compute: FatTree
    storage: Tree | None
    #: SN5600 in-band leaves and spines (DGX), and the SN2201 leaves of the management nodes
    inband: Tree | None
    inband_management: int
    oob: int
    ufm_compute: int
    ufm_storage: int
    management_nodes: int
    storage_protocol: str
    #: the compute fabric's UFM appliance (NDR or XDR); the storage fabric's is always NDR
    ufm_type: str = "ufm-appliance"


def compute_fabric(profile: SystemProfile, spec: SuperpodSpec, catalog: Catalog, nodes: int,
                   reserved: int) -> FatTree:
    """The fabric engine's tree for these nodes (trays for rack systems), or why it cannot be built."""
    switch = catalog.get(spec.switch)
    rails = spec.rails or profile.rails
    endpoints = nodes * rails + reserved
    cage = profile_cage_ports(profile, catalog)
    try:
        return size_fat_tree(endpoints, switch, rails=rails, su_nodes=profile.nodes_per_su, tiers=spec.tiers,
                             oversubscription=spec.oversubscription, reserved_ports=reserved, node_cage_ports=cage,
                             node_port_gbps=compute_port_gbps(catalog, profile.id), planes=spec.planes or 1,
                             technology=profile.fabric, core_oversubscription=spec.core_oversubscription)
    except FabricError as exc:
        advice = _bigger_switch(catalog, spec, rails, endpoints, profile.port_gbps)
        raise GenerateError(f"compute fabric: {exc}{advice}") from None


def profile_cage_ports(profile: SystemProfile, catalog: Catalog) -> int:
    dev = catalog.get(profile.id)
    if profile.rack_scale:
        for comp in dev.components:
            ctype = catalog.get(comp.id)
            if ctype.ports_of("compute"):
                return ctype.ports_of("compute")[0].ports_per_cage
    return dev.ports_of("compute")[0].ports_per_cage


def _as_run(switch, gbps: float):
    """The switch's fabric ports as they would run for node ports of ``gbps`` (an Ethernet switch's split to
    them; 0: as the catalog has them)."""
    try:
        return fabric_ports(switch, gbps)
    except FabricError:
        return fabric_ports(switch)


def _bigger_switch(catalog: Catalog, spec: SuperpodSpec, rails: int, endpoints: int, node_gbps: float) -> str:
    """What does reach: another switch of the nodes' port speed whose three tiers hold the endpoints (a
    faster switch's cages take no part that a slower node's cage does: 400G DGX B200 on an 800G Q3400
    would have links no optic joins), or a split into planes."""
    sw = catalog.get(spec.switch)
    core = spec.core_oversubscription
    protocol = "infiniband" if spec.fabric in (None, "infiniband") else "ethernet"
    gbps = node_gbps / (spec.planes or 1) if protocol == "ethernet" else 0.0
    group = _as_run(sw, gbps)
    down, _ = leaf_split(group.count, spec.oversubscription)
    reach = limits(group.count, rails, down, core)[3]
    if endpoints <= reach:
        return ""
    better, faster = [], []
    for dev in catalog:
        if dev.kind != "switch" or dev.id == sw.id:
            continue
        if not any(g.role == "fabric" and g.protocol == protocol for g in dev.ports):
            continue
        g = _as_run(dev, gbps)
        d, _ = leaf_split(g.count, spec.oversubscription)
        r3 = limits(g.count, rails, d, core)[3]
        if r3 >= endpoints:
            (better if g.speed_gbps == node_gbps else faster).append((r3, dev.id, g.speed_gbps))
    planes = math.ceil(endpoints / reach)
    text = f"; {planes} separate planes of {sw.id} would each stay within {reach:,} endpoints"
    if better:
        r3, dev_id, _ = min(better)
        text = f"; --switch {dev_id} reaches {r3:,} endpoints in 3 tiers" + text
    elif faster:
        r3, dev_id, gbps = min(faster)
        text += (f"; {dev_id} reaches {r3:,} in 3 tiers, but its {gbps:g}G cages take no {node_gbps:g}G node's "
                 f"optics: systems with {gbps:g}G ports (such as dgx-b300) build on it")
    return text


def plan_networks(profile: SystemProfile, spec: SuperpodSpec, catalog: Catalog, nodes: int,
                  racks: int) -> NetworkPlan:
    """Every network's switches for ``nodes`` (servers or trays) in ``racks`` compute racks."""
    nets = spec.networks
    ufm = ufm_for(catalog, spec.switch)
    ufm_compute = UFM_PER_FABRIC if ufm is not None else 0
    reserved = sum(g.count for g in catalog.get(ufm).ports if g.role == "fabric") * ufm_compute if ufm else 0
    compute = compute_fabric(profile, spec, catalog, nodes, reserved)
    storage = None
    protocol = ""
    if "storage" in nets:
        dev = catalog.get(profile.id)
        groups = dev.ports_of("storage")
        protocol = groups[0].protocol if groups else "infiniband"
        switch = catalog.get(STORAGE_SWITCH[protocol])
        group = fabric_ports(switch)
        if profile.rack_scale:
            speed = groups[0].speed_gbps
            radix = int(group.count * group.speed_gbps // speed)
            d, u = GB200_STORAGE_DOWN_UP
            up = math.ceil(radix * u / (d + u))
            storage = size_tree(racks * sum(g.count for g in groups), radix, radix - up, up, switch.id)
        else:  # non-blocking; an Ethernet switch's 800G cages each carry two 400G storage ports
            radix = int(group.count * group.speed_gbps // groups[0].speed_gbps) if groups else group.count
            down, up = leaf_split(radix, 1.0)
            storage = size_tree(nodes * profile.storage_ports, radix, down, up, switch.id)
    inband = None
    inband_mgmt = 0
    if "inband" in nets:
        inband_mgmt = INBAND_MANAGEMENT_LEAVES
        if not profile.rack_scale:
            pairs = math.ceil(nodes / INBAND_DGX_PER_LEAF_PAIR)
            inband = Tree("sn5600", 2 * pairs, 2 * math.ceil(pairs / INBAND_LEAF_PAIRS_PER_SPINE_PAIR))
    ufm_storage = UFM_PER_FABRIC if storage is not None and protocol == "infiniband" else 0
    oob = 0
    if "oob" in nets:
        if profile.rack_scale:
            switches = compute.switches + (storage.switches if storage else 0) + inband_mgmt
            ports = 2 * racks + switches + ufm_compute + ufm_storage + MANAGEMENT_NODES
            oob = math.ceil(ports / OOB_PORTS)
        else:
            oob = math.ceil(nodes / DGX_PER_OOB_SWITCH)
    return NetworkPlan(compute, storage, inband, inband_mgmt, oob, ufm_compute, ufm_storage, MANAGEMENT_NODES,
                       protocol, ufm or "ufm-appliance")
