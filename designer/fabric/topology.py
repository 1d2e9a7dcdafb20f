"""Port-to-port links of a sized fat tree, as numpy columns (no devices, no geometry yet).

Why columns: a 100,000-endpoint, three-tier fabric has 300,000 links; building
them as arrays keeps the wiring plan within its one-second budget.

Port numbering (0-based, ``cage = port // ports_per_cage``):

* endpoint side: a node's port ``r`` is rail ``r``; reserved ports are numbered
  in order and placed, rail by rail, in the node slots after the last node;
* leaf: ports ``0 .. down-1`` face nodes (port = slot within the block), then
  ``down .. down+up-1`` face spines, consecutive uplinks to the same spine so a
  twin-port cage carries two links to one spine cage;
* spine: ``0 .. k/2-1`` face leaves (``0 .. k-1`` with two tiers), then uplinks; a spine oversubscribed
  above the pod has more leaf-facing ports (``tree.spine_down``) and fewer uplinks after them;
* core: each pod owns ``core_ports_per_pod`` consecutive ports on every core of a group; where spine
  positions share a core group (``core_share``), each position owns an equal block of the core's ports
  (k / share), its pods' runs from the block's start, so a pod added later moves no cable.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .sizing import FatTree

# tier codes
NODE_LEAF, LEAF_SPINE, SPINE_CORE = 0, 1, 2
TIER_NAMES = ("node-leaf", "leaf-spine", "spine-core")


@dataclass(frozen=True)
class Tier:
    """Links of one tier: ``a`` is the lower end (endpoint, leaf, spine), ``b`` the upper."""

    a_index: np.ndarray
    a_port: np.ndarray
    b_index: np.ndarray
    b_port: np.ndarray
    rail: np.ndarray

    def __len__(self) -> int:
        return len(self.a_index)


def node_leaf(tree: FatTree) -> Tier:
    """Endpoint ``e`` (nodes' ports first, ``e = node * rails + rail``, then reserved ports) to its leaf."""
    r, d = tree.rails, tree.leaf_down
    node_ports = np.arange(tree.nodes * r, dtype=np.int64)
    slot = np.concatenate([node_ports // r, tree.nodes + np.arange(tree.reserved_ports, dtype=np.int64) // r])
    rail = np.concatenate([node_ports % r, np.arange(tree.reserved_ports, dtype=np.int64) % r])
    endpoint = np.arange(len(slot), dtype=np.int64)
    a_port = np.concatenate([node_ports % r, np.zeros(tree.reserved_ports, dtype=np.int64)])
    return Tier(endpoint, a_port, (slot // d) * r + rail, slot % d, rail)


def _pod_arrays(tree: FatTree, count_of) -> np.ndarray:
    """Per-pod values expanded to arrays (only the last pod may differ)."""
    return np.array([count_of(p) for p in range(tree.pods)], dtype=np.int64)


def leaf_spine(tree: FatTree) -> Tier:
    u, d = tree.leaf_up, tree.leaf_down
    leaves = np.arange(tree.leaf, dtype=np.int64)
    pod = np.minimum(leaves // tree.pod_leaves, tree.pods - 1)
    local = leaves - pod * tree.pod_leaves
    spines_of_pod = _pod_arrays(tree, lambda p: tree.pod_of_leaf(p)[1])
    first_spine = np.concatenate([[0], np.cumsum(spines_of_pod)[:-1]])
    per_pair = u // spines_of_pod[pod]  # links from one leaf to one spine
    q = np.tile(np.arange(u, dtype=np.int64), tree.leaf)
    leaf = np.repeat(leaves, u)
    m = np.repeat(per_pair, u)
    spine = np.repeat(first_spine[pod], u) + q // m
    spine_port = np.repeat(local, u) * m + q % m
    return Tier(leaf, d + q, spine, spine_port, leaf % tree.rails)


def spine_core(tree: FatTree) -> Tier:
    if tree.tiers < 3:
        empty = np.zeros(0, dtype=np.int64)
        return Tier(empty, empty, empty, empty, empty)
    half, cg = tree.spine_down, tree.core_group
    spines_of_pod = _pod_arrays(tree, lambda p: tree.pod_of_leaf(p)[1])
    pod = np.repeat(np.arange(tree.pods, dtype=np.int64), spines_of_pod)
    j = np.concatenate([np.arange(n, dtype=np.int64) for n in spines_of_pod])
    up = _pod_arrays(tree, tree.spine_uplinks_of_pod)[pod]
    # Every pod takes its ports on a core ``core_ports_per_pod`` at a time, a partial pod too: as its
    # spines gain uplinks they land on the next ports, and the earlier links stay where they are.
    chunk = np.full(len(up), tree.core_ports_per_pod, dtype=np.int64)
    spine = np.repeat(np.arange(len(pod), dtype=np.int64), up)
    start = np.repeat(np.cumsum(up) - up, up)
    q = np.arange(int(up.sum()), dtype=np.int64) - start
    c = q // np.repeat(chunk, up)
    share = tree.core_share
    core = np.repeat(j // share, up) * cg + c
    block = tree.radix // share  # ports of a core each spine position sharing it owns
    core_port = np.repeat(j % share * block + pod * tree.core_ports_per_pod, up) + q % np.repeat(chunk, up)
    return Tier(spine, half + q, core, core_port, np.full(len(spine), -1, dtype=np.int64))


def all_tiers(tree: FatTree) -> tuple[Tier, Tier, Tier]:
    return node_leaf(tree), leaf_spine(tree), spine_core(tree)
