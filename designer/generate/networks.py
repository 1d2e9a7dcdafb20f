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
from ..storage.dealing import server_leaves
from .storage import StoragePlan, plan_storage, storage_protocol

UFM_PER_FABRIC = 2
MANAGEMENT_NODES = 7
DGX_PER_OOB_SWITCH = 8
OOB_PORTS = 48
INBAND_DGX_PER_LEAF_PAIR = 128
INBAND_LEAF_PAIRS_PER_SPINE_PAIR = 16
INBAND_MANAGEMENT_LEAVES = 2
#: GB200 storage: node-side blocking 5:3 (R2 summary of RA-11338-001).
GB200_STORAGE_DOWN_UP = (5, 3)
#: DGX storage ports: "slightly oversubscribed with a ratio near 4:3" (H100 RA, storage fabric)
DGX_STORAGE_DOWN_UP = (4, 3)
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


def storage_tree(node_ports: int, ratio: tuple[int, int], device_ports: int, radix: int, switch: str) -> Tree:
    """The storage fabric as the H100 RA builds it: "the storage devices are connected at a 1:1 port to uplink
    ratio; the DGX system connections are slightly oversubscribed with a ratio near 4:3" (GB200 racks: 5:3).
    A leaf spends a port on each node port, its share of an uplink, and two on each storage-device port (its
    own and its uplink); the spines take every uplink. Beyond one spine layer's reach, pods and a core, as
    :func:`size_tree` builds them. The B200 RA's 4-SU figure (8 leaves, 4 spines for 127 DGX, their storage
    and 2 storage UFM) is this rule's."""
    d, u = ratio
    uplinks = math.ceil(node_ports * u / d) + device_ports
    if node_ports + device_ports <= 0:
        return Tree(switch, 0, 0)
    leaves = math.ceil((node_ports + device_ports + uplinks) / radix)
    per_leaf_up = math.ceil(uplinks / leaves)
    if leaves <= radix:
        return Tree(switch, leaves, max(1, math.ceil(leaves * per_leaf_up / radix)))
    half = radix // 2
    pods = math.ceil(leaves / half)
    spines = pods * min(per_leaf_up, half)
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
    #: the storage appliances (None: no storage network), and the storage leaves that stand beside them
    storage_plan: StoragePlan | None = None
    storage_appliance_leaves: int = 0


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


def as_run(switch, gbps: float):
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
    group = as_run(sw, gbps)
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
        g = as_run(dev, gbps)
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
    """Every network's switches for ``nodes`` (servers or trays) in ``racks`` compute racks; the storage fabric
    also serves the storage appliances, whose leaves stand with them in the band."""
    gpus = racks * catalog.get(profile.id).gpu_count if profile.rack_scale else nodes * profile.gpus_per_node
    appliances = plan_storage(spec, catalog, profile.id, profile.rack_scale, gpus)
    app_leaves = 0
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
        protocol = storage_protocol(catalog, profile.id)
        switch = catalog.get(STORAGE_SWITCH[protocol])
        group = fabric_ports(switch)
        if profile.rack_scale:
            speed = groups[0].speed_gbps
            ratio = GB200_STORAGE_DOWN_UP
            node_ports = racks * sum(g.count for g in groups)
        else:  # an Ethernet switch's 800G cages each carry two 400G storage ports
            speed = groups[0].speed_gbps if groups else group.speed_gbps
            ratio = DGX_STORAGE_DOWN_UP
            node_ports = nodes * profile.storage_ports
        radix = int(group.count * group.speed_gbps // speed)
        # an appliance port counts as the node ports of its speed it displaces (a 400G port: two 200G); the
        # storage UFM appliances stand on the storage fabric as the storage systems do, at 1:1
        ufm_ports = UFM_PER_FABRIC * 2 if protocol == "infiniband" else 0
        app_ports = math.ceil(appliances.ports * appliances.port_gbps / speed) if appliances else 0
        storage = storage_tree(node_ports, ratio, app_ports + ufm_ports, radix, switch.id)
        # the appliances' ports are dealt over the last leaves (the storage fabric's own rule): stand those leaves
        # in the band beside them
        app_leaves = server_leaves(app_ports, storage.leaf, radix) if app_ports else 0
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
            ports += appliances.count if appliances and storage is not None else 0
            oob = math.ceil(ports / OOB_PORTS)
        else:
            # one SN2201 per 8 DGX (the RA's figure) leaves ports for the storage appliances' management too
            oob = math.ceil(nodes / DGX_PER_OOB_SWITCH)
    return NetworkPlan(compute, storage, inband, inband_mgmt, oob, ufm_compute, ufm_storage, MANAGEMENT_NODES,
                       protocol, ufm or "ufm-appliance", appliances if storage is not None else None, app_leaves)
