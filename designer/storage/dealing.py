"""Which storage leaf each endpoint port is cabled to: the clients' ports spread over the leaves in rack order,
the storage appliances' in blocks over the last leaves, each appliance dual-homed to a pair of neighbouring
leaves (:mod:`.fabric` counts the links, :mod:`.links` lists them, both from this one dealing)."""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..walks import nearest_walk


def server_leaves(server_ports: int, leaves: int, leaf_ports: int) -> int:
    """How many leaves the storage appliances' ports are dealt over: the last ones in name order (where the
    generator stands them, beside the appliances), at least two so that no one leaf's loss cuts the storage
    off, and as many as their ports fill at 1:1 (each takes a port down and one up)."""
    if server_ports <= 0 or leaves <= 0:
        return 0
    return min(leaves, max(2, math.ceil(2 * server_ports / max(leaf_ports, 1))))


#: Most appliance leaves paired by their runs (a k x k table, walked k times); past it (no generated design
#: comes near: a million-GPU site has 34) they pair in name order.
PAIRED_LEAVES_MAX = 1024


class LeafPairs(NamedTuple):
    """How the storage appliances' ports find their leaves, by leaf position among the appliance leaves."""

    #: the leaf each leaf's blocks send their second ports to
    partner: np.ndarray
    #: the leaves in walking order: an appliance's third and fourth ports go to the pair two leaves on along it,
    #: and so on
    walk: np.ndarray


def in_name_order(k: int) -> LeafPairs:
    """Neighbours in name order, 0 with 1 and so on, the first three a ring when k is odd (no runs known)."""
    return LeafPairs(_grouped(np.arange(k), lambda i, j: 0.0), np.arange(k))


def leaf_partners(metres: np.ndarray) -> LeafPairs:
    """The storage appliances' leaves in pairs of neighbours; ``metres[i, j]`` is the run between leaf i and j.

    Each appliance is dual-homed: its first port on its block's leaf, its second on that leaf's partner, so that no
    one leaf's loss cuts it off; each leaf takes one other block's second ports, so the leaves fill evenly. The
    leaves are walked from one end of their layout (the leaf farthest from the first), each step to the nearest
    left, and the walk is cut into pairs and, where the count or the layout asks, rings of three (a to b, b to c, c
    to a) with the least run in all: a generated design's appliance racks stand along such a walk, so its pairs
    are racks side by side; leaves of two halls pair within each hall where each holds an even count. Pairing the
    nearest two first was tried and left the last two to pair across the room."""
    k = len(metres)
    if k < 2:
        return LeafPairs(np.arange(k), np.arange(k))
    walk = nearest_walk(metres, int(np.argmax(metres[0])))  # from an end: a walk from the middle comes back across
    return LeafPairs(_grouped(walk, lambda i, j: float(metres[i, j])), walk)


def _grouped(walk: np.ndarray, run) -> np.ndarray:
    """Partners from ``walk`` cut into consecutive pairs and rings of three, the cut with the least run (a pair's
    two blocks each cross it once; a ring's three cross its three sides once); one leaf alone keeps itself."""
    k = len(walk)
    partner = np.arange(int(walk.max()) + 1 if k else 0)
    if k < 2:
        return partner
    cost = [0.0] + [math.inf] * k  # cost[i]: the least run of the first i leaves cut into groups
    cut = [0] * (k + 1)
    for i in range(2, k + 1):
        a, b = walk[i - 2], walk[i - 1]
        options = [(cost[i - 2] + 2 * run(a, b), 2)]
        if i >= 3:
            c = walk[i - 3]
            options.append((cost[i - 3] + run(c, a) + run(a, b) + run(b, c), 3))
        cost[i], cut[i] = min(options)
    i = k
    while i:
        group = walk[i - cut[i]:i].tolist()
        for x, y in zip(group, group[1:] + group[:1]):
            partner[x] = y
        i -= cut[i]
    return partner


def deal(serves: np.ndarray, n_leaves: int, leaf_ports: int, row: np.ndarray | None = None,
          rank: np.ndarray | None = None, halls: tuple[np.ndarray, np.ndarray] | None = None,
          pairs=None) -> np.ndarray:
    """Each port's leaf: the storage appliances' over the last :func:`server_leaves` leaves, the appliances in rack
    order in even blocks, one block a leaf (the generator stands each leaf among its block), an appliance's
    second port on its leaf's partner (``pairs``: given k, a :class:`LeafPairs` of those k leaves; without it
    :func:`in_name_order`), so that its two ports reach two leaves, and further ports the next pairs; the
    clients' ports spread evenly over the leaves in rack order.

    In a large fabric the appliances' leaves are theirs alone: the clients' leaves then carry at most a tenth
    more each, and no node is cabled across the hall to the appliances' racks. In a small one (the RA's 4 SU:
    8 leaves for nodes and storage together) every leaf takes clients, as the RA's leaf count assumes."""
    n = len(serves)
    leaf = np.empty(n, dtype=np.int64)
    servers = np.flatnonzero(serves)
    k = server_leaves(len(servers), n_leaves, leaf_ports)
    if k:
        if row is None:
            row, rank = np.arange(n), np.zeros(n, dtype=np.int64)
        devices, device = np.unique(row[servers], return_inverse=True)
        block = device * k // max(len(devices), 1)
        paired = pairs(k) if pairs is not None else in_name_order(k)
        place = np.empty(k, dtype=np.int64)
        place[paired.walk] = np.arange(k)
        r = rank[servers]
        # ports 0 and 1 on the block's leaf and its partner, ports 2 and 3 on the leaf two on along the walk and
        # its partner (the next pair), and so on: each rank a permutation of the leaves, so every leaf takes as
        # many ports of each rank, and a four-port appliance reaches four leaves
        home = paired.walk[(place[block] + 2 * (r // 2)) % k]
        odd = r % 2 == 1
        home[odd] = paired.partner[home[odd]]
        leaf[servers] = n_leaves - k + home
    clients = np.flatnonzero(~serves)
    spread = n_leaves - k if k and n_leaves >= 11 * k else n_leaves
    if halls is not None and len(np.unique(halls[0][clients])) > 1:
        # on a site each hall's clients go to its own leaves (a run between halls is past any multimode reach)
        port_hall, leaf_hall = halls
        own = leaf_hall[:spread]
        for h in np.unique(port_hall[clients]).tolist():
            mine = clients[port_hall[clients] == h]
            leaves = np.flatnonzero(own == h)
            if not len(leaves):  # a room of appliances and management: the leaves it has, else any
                leaves = np.flatnonzero(leaf_hall == h)
            if not len(leaves):
                leaves = np.arange(spread)
            starts = np.arange(len(leaves), dtype=np.int64) * len(mine) // len(leaves)
            leaf[mine] = leaves[np.searchsorted(starts, np.arange(len(mine)), side="right") - 1]
        return leaf
    starts = np.arange(spread, dtype=np.int64) * len(clients) // max(spread, 1)
    leaf[clients] = np.searchsorted(starts, np.arange(len(clients)), side="right") - 1
    return leaf
