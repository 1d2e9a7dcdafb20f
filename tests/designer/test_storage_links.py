"""The storage fabric's link list: the same links the storage fabric counts, port to port."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from designer.storage.dealing import LeafPairs, deal, leaf_partners
from designer.storage.fabric import storage_fabric
from designer.storage.links import LINK_TIERS, storage_links


def _cables(links) -> dict[str, Counter]:
    """Physical cables by id and orderable length, as the fabric counts them (a splitter's two links: one)."""
    out: dict[str, Counter] = {}
    for cable, length in zip(links.cable[links.owner].tolist(), links.length_m[links.owner].tolist()):
        out.setdefault(cable, Counter())[length] += 1
    return out


def _modules(links) -> Counter:
    """One module per cage, as the fabric counts them."""
    keys = np.concatenate([links.a_cage, links.b_cage])
    mods = np.concatenate([links.a_transceiver, links.b_transceiver])
    return Counter({m: len(np.unique(keys[mods == m])) for m in set(mods.tolist()) - {""}})


@pytest.mark.parametrize("design", ["b200_4su", "gb200_4su"])
def test_the_list_is_what_the_fabric_counts(design, catalog, request):
    project = request.getfixturevalue(design)
    fabric, links = storage_links(project, catalog)
    assert fabric == storage_fabric(project, catalog)  # listing the links changes no count
    assert len(links) == fabric.node_links + fabric.uplinks > 0
    assert _cables(links) == fabric.cables  # every fibre at the length the bill orders it
    assert _modules(links) == fabric.transceivers
    tiers = Counter(LINK_TIERS[t] for t in links.tier.tolist())
    assert tiers["node-leaf"] == fabric.node_links
    assert tiers["leaf-spine"] + tiers["spine-core"] == fabric.uplinks


@pytest.mark.parametrize("design", ["b200_4su", "gb200_4su"])
def test_every_port_is_named_once_per_device(design, catalog, request):
    _, links = storage_links(request.getfixturevalue(design), catalog)
    ends = Counter(zip(np.concatenate([links.a_dev, links.b_dev]).tolist(),
                       np.concatenate([links.a_port, links.b_port]).tolist()))
    assert max(ends.values()) == 1
    # the ends' devices: node-leaf links run from an endpoint to a storage leaf, the others between switches
    switches = ("storage-leaf", "storage-spine", "storage-core")
    for tier, a, b in zip(links.tier.tolist(), links.a_dev.tolist(), links.b_dev.tolist()):
        assert links.label(b).startswith(switches[tier])
        if tier:
            assert links.label(a).startswith(("storage-leaf", "storage-spine")[tier - 1])


def test_every_storage_appliance_has_its_two_ports_cabled(b200_4su, catalog):
    _, links = storage_links(b200_4su, catalog)
    arrays = {d.id for r in b200_4su.racks for d in r.devices if d.name.startswith("storage-array-")}
    assert len(arrays) == 8
    ports: dict[str, list] = {}
    for a, port in zip(links.a_dev.tolist(), links.a_port.tolist()):
        d = links.devices[a][1]
        if d.id in arrays:
            ports.setdefault(d.id, []).append(port)
    assert ports == {i: ["S1", "S2"] for i in arrays}
    # and each appliance's two ports reach two leaves: no one leaf's loss cuts a node of the storage cluster off
    leaves: dict[str, set] = {}
    for a, b in zip(links.a_dev.tolist(), links.b_dev.tolist()):
        if links.devices[a][1].id in arrays:
            leaves.setdefault(links.devices[a][1].id, set()).add(links.devices[b][1].name)
    assert all(len(v) == 2 for v in leaves.values()) and len(set().union(*leaves.values())) == 2


def test_a_node_storage_port_reads_the_same_each_time(b200_4su, catalog):
    _, one = storage_links(b200_4su, catalog)
    _, two = storage_links(b200_4su, catalog)
    for column in ("a_port", "b_port", "cable", "length_m", "a_transceiver", "b_transceiver"):
        assert getattr(one, column).tolist() == getattr(two, column).tolist()
    first = [one.label(one.a_dev[0]), one.a_port[0], one.label(one.b_dev[0]), one.b_port[0]]
    assert first == ["dgx-0001", "S1", "storage-leaf-0001", "1/1"]


def test_a_splitter_fibre_joins_two_node_ports_on_the_halves_of_one_switch_port(gb200_4su, catalog):
    fabric, links = storage_links(gb200_4su, catalog)
    split = links.cable == "fiber-mpo12-mmf-splitter"
    assert split.sum() == fabric.node_links - 16  # every 200G node port; the appliances' 400G ones are whole
    assert links.owner[split].sum() == sum(fabric.cables["fiber-mpo12-mmf-splitter"].values())
    halves = Counter((leaf, p.rsplit("/", 1)[0]) for leaf, p in zip(links.b_dev[split].tolist(),
                                                                   links.b_port[split].tolist()))
    assert set(halves.values()) <= {1, 2} and sum(halves.values()) == split.sum()
    # a leaf with an odd number of node ports leaves one splitter half used, no more
    assert Counter(halves.values())[1] <= fabric.leaves
    i = int(np.nonzero(split)[0][0])
    assert (links.b_port[i], links.b_port[i + 1]) == ("1/1/1", "1/1/2")
    assert links.owner[i] and not links.owner[i + 1] and links.length_m[i] == links.length_m[i + 1]


def _line(*pos):
    pos = np.asarray(pos, dtype=float)
    return np.abs(pos[:, None] - pos[None, :])


def test_appliance_leaves_pair_with_neighbours_and_each_takes_one_other_block():
    # four leaves on a line at 0, 10, 1 and 11 m: name order alternates sides, the pairs do not
    assert leaf_partners(_line(0, 10, 1, 11)).partner.tolist() == [2, 3, 0, 1]
    # the closest two first (1 and 2, 0.9 m) would leave 0 and 3 to pair 2.9 m apart
    assert leaf_partners(_line(0, 1.0, 1.9, 2.9)).partner.tolist() == [1, 0, 3, 2]
    # a walk from the first leaf (at 5 m) would end at 0.5 m after 11 m and pair those two: it starts at an end
    partner = leaf_partners(_line(5, 4, 6, 10, 11, 0.5)).partner
    assert {(1, 5), (0, 2), (3, 4)} == {tuple(sorted((i, int(p)))) for i, p in enumerate(partner)}
    # three leaves in each of two halls a kilometre apart: a ring in each hall, none across
    partner = leaf_partners(_line(0, 1, 2, 1000, 1001, 1002)).partner
    assert sorted(partner.tolist()) == list(range(6)) and (partner < 3).tolist() == [True] * 3 + [False] * 3
    assert (partner != np.arange(6)).all()
    assert leaf_partners(np.zeros((1, 1))).partner.tolist() == [0]


def test_an_appliances_ports_go_to_its_leaf_its_partner_then_the_next_pair():
    # six appliances of four ports over four leaves: blocks of one or two, first port on the block's leaf
    serves = np.ones(24, dtype=bool)
    row, rank = np.repeat(np.arange(6), 4), np.tile([0, 1, 2, 3], 6)
    pairs = LeafPairs(partner=np.array([3, 2, 1, 0]), walk=np.array([0, 3, 1, 2]))
    leaf = deal(serves, 4, 12, row, rank, pairs=lambda k: pairs)  # 48 ports at 1:1 fill four leaves of 12
    blocks = [0, 0, 1, 2, 2, 3]
    assert leaf[rank == 0].tolist() == blocks
    assert leaf[rank == 1].tolist() == [3, 3, 2, 1, 1, 0]
    # ports 2 and 3 on the pair two leaves on along the walk 0, 3, 1, 2: all four leaves reached
    assert leaf[rank == 2].tolist() == [1, 1, 0, 3, 3, 2]
    assert all(len(set(leaf[row == d].tolist())) == 4 for d in range(6))
    # each rank sends each block's ports to one leaf of its own, so every leaf takes one block's share of each
    for r in range(4):
        assert sorted(np.bincount(leaf[rank == r], minlength=4).tolist()) == [1, 1, 2, 2]
    assert np.bincount(leaf, minlength=4).tolist() == [6, 6, 6, 6]
    # without runs known: neighbours in name order
    assert deal(serves, 4, 12, row, rank)[rank == 1].tolist() == [1, 1, 0, 3, 3, 2]
