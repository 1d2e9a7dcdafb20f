"""Closed-form sizing of rail-optimized fat trees, the way NVIDIA's SuperPOD RAs count them.

Why these rules (hardware.md §7):

* A leaf splits its ``k`` ports into ``down`` ports facing nodes and ``up`` ports
  facing spines in the requested down:up ratio (1:1 is non-blocking).
* Rail optimization: NIC ``r`` of every node lands on a rail-``r`` leaf. A *block*
  is the set of ``rails`` leaves that serve the same ``down`` node slots, so
  leaves always come in whole rail sets. With QM9700 (32 down ports) and 32-node
  scalable units a block is exactly one SU, as in the RA.
* Each leaf spreads its uplinks evenly over its spines, so the spine count is the
  smallest divisor of the leaf's uplink count that has enough ports (3 SU -> 16
  spines, not 12). The same rule spreads spine uplinks over core groups.
* Reserved ports (UFM appliances) take node slots: a DGX makes way for them,
  which is why Table 4 has 31 nodes per SU and 4 UFM cables.
* The whole fabric is built for the endpoints asked for: every leaf gets all its
  uplinks even when its last block is not full ("design for the full SU").
* A spine layer built for growth (more spines placed than the endpoints need,
  as a phased build installs them) carries the uplinks when its count divides
  them evenly: each leaf then keeps its cables as later phases add leaves.

Three tiers follow the k-ary fat tree: pods of at most k/2 leaves (whole rail
sets) and their spines, spine ``j`` of every pod uplinks to core group ``j``.

Above the pod the spines may be oversubscribed on their own ratio (``core_oversubscription``,
down:up at the spine), as Meta's RoCE clusters are: pods of full bisection joined at 1:7
(Llama 3, hardware-2026.md §5.4). A spine then splits its ports as a leaf does (k = 128 at
7:1: 112 to leaves, 16 to cores), so a pod holds more leaves, and each spine sends
ceil(down / ratio) uplinks to the cores: fewer spine-core links, fewer cores. At 1 (the
default) the pod is k/2 leaves and every spine sends up what it takes in, as before.
"""
from __future__ import annotations

import math

import numpy as np

from catalog import DeviceType


from .tree import (DEFAULT_NODE_CAGE_PORTS, FabricError, FatTree, fabric_ports, leaf_split,
                   smallest_divisor_at_least, spine_uplinks, technology_of, ROCE_NOTE)

__all__ = ["DEFAULT_NODE_CAGE_PORTS", "FabricError", "FatTree", "fabric_ports", "leaf_split", "limits",
           "ROCE_NOTE", "size_fat_tree", "smallest_divisor_at_least", "spine_uplinks", "technology_of"]



def limits(radix: int, rails: int, down: int, core_oversubscription: float = 1.0) -> dict[int, int]:
    """Largest endpoint count at 2 and 3 tiers for this leaf split and rail count: at 3 tiers ``radix`` pods
    (one port of each core apiece) of as many whole rail sets as a spine's leaf-facing ports reach."""
    two = (radix // rails) * rails * down
    sets_per_pod = leaf_split(radix, core_oversubscription)[0] // rails
    return {2: two, 3: radix * sets_per_pod * rails * down}


def _check(endpoints, rails, su_nodes, oversubscription, reserved_ports, tiers,
           core_oversubscription=1.0) -> int | None:
    for name, value in (("endpoints", endpoints), ("rails", rails), ("su_nodes", su_nodes)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
            raise FabricError(f"{name} must be a whole number of at least 1, got {value!r}")
    if not isinstance(reserved_ports, (int, np.integer)) or reserved_ports < 0:
        raise FabricError(f"reserved ports must be a whole number of at least 0, got {reserved_ports!r}")
    if reserved_ports > endpoints:
        raise FabricError(f"reserved ports ({reserved_ports}) exceed the endpoints ({endpoints})")
    if not (isinstance(oversubscription, (int, float)) and math.isfinite(oversubscription)
            and oversubscription >= 1):
        raise FabricError(f"oversubscription must be a ratio of at least 1 (1 = non-blocking), "
                          f"got {oversubscription!r}")
    if isinstance(core_oversubscription, bool) or not (
            isinstance(core_oversubscription, (int, float)) and math.isfinite(core_oversubscription)
            and 1 <= core_oversubscription <= 64):
        raise FabricError(f"core oversubscription must be a ratio from 1 to 64 (down:up at the spines, "
                          f"1 = as many uplinks as downlinks), got {core_oversubscription!r}")
    if tiers in ("auto", None):
        return None
    if str(tiers) in ("2", "3"):
        return int(tiers)
    raise FabricError(f"tiers must be auto, 2 or 3, got {tiers!r}")


def _two_tier(switch: DeviceType, k: int, up: int, leaves: int, spines_placed: int, common: dict) -> FatTree:
    """Leaves and one layer of spines: every placed spine used when its count divides each leaf's uplinks."""
    spines = smallest_divisor_at_least(up, -(-leaves * up // k))
    if spines is not None and spines < spines_placed <= up and up % spines_placed == 0:
        spines = spines_placed
    return FatTree(tiers=2, spine=spines, core=0, pods=1, pod_leaves=leaves, pod_spines=spines,
                   last_pod_leaves=leaves, last_pod_spines=spines, core_group=0, core_ports_per_pod=0, **common)


def _core_group(k: int, pods: int, pod_spines: int, spine_up: int, last_up: int,
                cores_placed: int) -> tuple[int | None, int | None]:
    """The cores each spine position connects to (the smallest group whose core switches can join every pod,
    or the placed cores' group), and the ports a core gives each pod."""
    core_group = ports_per_pod = None
    groups = list(range(max(1, -(-pods * spine_up // k)), spine_up + 1))
    grown = cores_placed // pod_spines if cores_placed % pod_spines == 0 else 0
    if grown in groups:  # core groups built for more pods than there are yet: keep them
        groups.remove(grown)
        groups.insert(0, grown)
    for cg in groups:
        if spine_up % cg:
            continue
        ports_per_pod = max(-(-spine_up // cg), -(-last_up // cg))
        if pods * ports_per_pod <= k:
            core_group = cg
            break
    return core_group, ports_per_pod


def _three_tier(switch: DeviceType, k: int, up: int, rails: int, blocks: int, leaves: int, spines_placed: int,
                cores_placed: int, common: dict) -> FatTree:
    """Pods of leaves and spines joined by core switches; the last pod may be partly built.

    ``half`` is a spine's leaf-facing ports: k/2 at a 1:1 spine, more when it is oversubscribed."""
    core_over = common["core_oversubscription"]
    half = leaf_split(k, core_over)[0]
    sets_per_pod = half // rails
    if sets_per_pod < 1:
        raise FabricError(f"{rails} rails are more than a {k}-port switch's pod of {half} leaves can hold")
    pod_leaves = min(sets_per_pod, blocks) * rails
    pods = math.ceil(blocks / sets_per_pod)
    last_leaves = leaves - (pods - 1) * pod_leaves
    pod_spines = smallest_divisor_at_least(up, -(-pod_leaves * up // half))
    last_spines = smallest_divisor_at_least(up, -(-last_leaves * up // half))
    if pod_spines is None or last_spines is None:
        raise FabricError(f"a pod of {pod_leaves} leaves with {up} uplinks each does not fit {switch.id} spines")
    full_leaves = sets_per_pod * rails
    full_spines = smallest_divisor_at_least(up, -(-full_leaves * up // half))
    if full_spines is not None and spines_placed >= pods * full_spines \
            and (pod_leaves, pod_spines, last_spines) != (full_leaves, full_spines, full_spines):
        # Every pod's spines are there, a partial pod's too (a fabric built for growth): spread the
        # uplinks over them as when the pods are full, so adding leaves adds cables and moves none.
        pod_leaves, pod_spines, last_spines = full_leaves, full_spines, full_spines
        last_leaves = leaves - (pods - 1) * pod_leaves
    spine_up = spine_uplinks(pod_leaves * up // pod_spines, core_over)
    last_up = spine_uplinks(last_leaves * up // last_spines, core_over)
    core_group, ports_per_pod = _core_group(k, pods, pod_spines, spine_up, last_up, cores_placed)
    if core_group is None:
        raise FabricError(f"{pods} pods are more than the {k}-port core switches can join")
    spines = (pods - 1) * pod_spines + last_spines
    # An oversubscribed spine layer may leave each core most of its ports: spine positions then share core
    # groups, as many as a core's ports hold (Meta-like 1:7 on 128 ports, 4 pods x 16: two positions a core).
    share = 1
    if core_over != 1:
        most = max(1, min(pod_spines, k // (pods * ports_per_pod)))
        # cores placed for growth (a phased build's, placed for every pod) keep their cables: the share that
        # uses every one of them, when there is one; else as few cores as the ports allow
        share = next((s for s in range(1, most + 1) if -(-pod_spines // s) * core_group == cores_placed), most)
    return FatTree(tiers=3, spine=spines, core=-(-pod_spines // share) * core_group, pods=pods,
                   pod_leaves=pod_leaves, pod_spines=pod_spines, last_pod_leaves=last_leaves,
                   last_pod_spines=last_spines, core_group=core_group, core_ports_per_pod=ports_per_pod,
                   core_share=share, **common)


def size_fat_tree(endpoints: int, switch: DeviceType, *, rails: int = 8, su_nodes: int = 32,
                  tiers: int | str = "auto", oversubscription: float = 1.0, reserved_ports: int = 0,
                  node_cage_ports: int = DEFAULT_NODE_CAGE_PORTS, spines_placed: int = 0,
                  cores_placed: int = 0, full_su: bool = True, node_port_gbps: float = 0.0, planes: int = 1,
                  technology: str = "", core_oversubscription: float = 1.0) -> FatTree:
    """Size a rail-optimized fat tree for ``endpoints`` fabric ports (reserved ones included).

    ``spines_placed``, ``cores_placed``: switches the design already has. A two-tier tree uses every
    spine when there are more than it needs and their count divides each leaf's uplinks; a three-tier
    tree whose last pod is partly built gives it a whole pod's spines when they are placed, and uses
    every core placed when they make whole core groups (a fabric built for growth keeps its cables).

    ``planes`` independent trees (Spectrum-X twin-plane) each take one share of every node port: a 800G
    port as 2 x 400G, one half per plane; the switch runs its ports split to that speed. The counts are
    one plane's (the ``*_switches`` properties count all); ``spines_placed``/``cores_placed`` count all.

    ``core_oversubscription``: down:up at the spines of a three-tier tree (Meta's 1:7 above the pod is 7):
    bigger pods, fewer spine uplinks and cores. It has no part in a two-tier tree.
    """
    forced = _check(endpoints, rails, su_nodes, oversubscription, reserved_ports, tiers, core_oversubscription)
    if planes not in (1, 2):
        raise FabricError(f"planes must be 1 or 2, got {planes!r}")
    group = fabric_ports(switch)
    node_gbps = node_port_gbps or group.speed_gbps
    plane_gbps = node_gbps / planes
    if planes > 1 or (group.breakout > 1 and plane_gbps < group.speed_gbps):
        # each plane takes its share of the node port; an Ethernet switch runs its cages split to that speed
        group = fabric_ports(switch, plane_gbps)
    technology = technology or technology_of(switch)
    node_port_gbps = plane_gbps if node_port_gbps or planes > 1 else 0.0
    node_cage_ports *= planes
    spines_placed //= planes
    cores_placed //= planes
    k = group.count
    down, up = leaf_split(k, oversubscription)
    if down < 1 or up < 1:
        raise FabricError(f"{switch.id} has too few ports ({k}) for a leaf with up- and downlinks")
    if rails > k:
        raise FabricError(f"{rails} rails need more leaves than a {k}-port spine can reach")
    args = dict(endpoints=endpoints, switch=switch, group=group, rails=rails, su_nodes=su_nodes, forced=forced,
                oversubscription=oversubscription, reserved_ports=reserved_ports, node_cage_ports=node_cage_ports,
                spines_placed=spines_placed, cores_placed=cores_placed, full_su=full_su,
                node_port_gbps=node_port_gbps, planes=planes, technology=technology,
                core_oversubscription=float(core_oversubscription))
    best = _sized(down=down, up=up, **args)
    if oversubscription > 1 and best.tiers == 2 and best.spine > 2 * -(-best.leaf * best.leaf_up // k):
        # Each leaf spreads its uplinks evenly, so the spine count divides them: an uplink count with no divisor
        # near what the leaves need (58 = 2 x 29 on a 144-port Q3400 at 1.5:1) would take 29 spines where 7
        # carry the load. A few uplinks fewer (and no more down-ports than the ratio allows) may divide
        # better: the tree with the fewest switches wins, never more oversubscribed than asked. Only where the
        # rule more than doubles the spines: NVIDIA's QM9700 tables keep their splits.
        for u in range(up - 1, max(0, up - up // 4), -1):
            d = min(down, int(u * oversubscription + 1e-9))
            try:
                tree = _sized(down=d, up=u, **args)
            except FabricError:
                continue
            if tree.leaf + tree.spine + tree.core < best.leaf + best.spine + best.core:
                best = tree
    return best


def _sized(*, endpoints: int, switch: DeviceType, group, rails: int, su_nodes: int, forced, oversubscription: float,
           reserved_ports: int, node_cage_ports: int, spines_placed: int, cores_placed: int, full_su: bool,
           node_port_gbps: float, planes: int, technology: str, down: int, up: int,
           core_oversubscription: float = 1.0) -> FatTree:
    """The tree for one leaf split (``down`` ports to nodes, ``up`` to spines)."""
    k = group.count
    reach = limits(k, rails, down, core_oversubscription)
    radix_reach = limits(k, 1, k // 2)
    nodes = (endpoints - reserved_ports) // rails  # reserved ports displace whole nodes, as UFM does in Table 4
    if nodes < 1:
        raise FabricError(f"{endpoints:,} endpoints with {reserved_ports} reserved make no node of {rails} rails")
    # The fabric is built for whole scalable units ("design for the full SU": leaves and leaf-spine cables of
    # a partial SU are all there); reserved (UFM) ports take the node slots left free and never open a leaf
    # block of their own: where every slot carries a node they stay off the compute leaves.
    node_slots = -(-(endpoints - reserved_ports) // rails)  # a part-node's ports still take a slot
    slots = -(-node_slots // su_nodes) * su_nodes if full_su else -(-endpoints // rails)
    for t in (2, 3):  # whole SUs must not add a tier the nodes do not need: then build what they need
        if slots * rails > reach[t] >= node_slots * rails:
            slots = node_slots
    blocks = math.ceil(slots / down)
    leaves = blocks * rails
    placed_reserved = min(reserved_ports, (blocks * down - nodes) * rails)
    need = 2 if blocks * down * rails <= reach[2] else 3
    if node_slots * rails + placed_reserved > reach[3]:
        raise FabricError(f"{endpoints:,} endpoints are more than 3 tiers of {switch.id} reach "
                          f"({reach[3]:,} at {rails} rails, {oversubscription:g}:1"
                          + (f", spines {core_oversubscription:g}:1)" if core_oversubscription != 1 else ")"))
    if forced == 2 and need == 3:
        raise FabricError(f"{endpoints:,} endpoints need 3 tiers; 2 tiers of {switch.id} reach at most {reach[2]:,}")
    n_tiers = forced or need
    common = dict(switch=switch.id, radix=k, port_gbps=group.speed_gbps, switch_cage_ports=group.ports_per_cage,
                  endpoints=endpoints, reserved_ports=placed_reserved, rails=rails, su_nodes=su_nodes,
                  oversubscription=float(oversubscription), nodes=nodes, leaf_down=down, leaf_up=up, leaf=leaves,
                  max_by_tiers=reach, radix_max_by_tiers=radix_reach, node_cage_ports=node_cage_ports,
                  reserved_unplaced=reserved_ports - placed_reserved, node_port_gbps=float(node_port_gbps),
                  planes=planes, technology=technology, core_oversubscription=float(core_oversubscription))
    if n_tiers == 2:
        return _two_tier(switch, k, up, leaves, spines_placed, common)
    return _three_tier(switch, k, up, rails, blocks, leaves, spines_placed, cores_placed, common)
