"""The storage fabric's link list: the same links the storage fabric counts, port to port."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from designer.storage.fabric import _deal, leaf_partners, storage_fabric
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


def test_appliance_leaves_pair_nearest_first_and_each_takes_one_other_block():
    # four leaves on a line at 0, 1, 10 and 11 m, named so that name order alternates sides: 0-1 and 10-11 pair
    pos = np.array([0.0, 10.0, 1.0, 11.0])
    partner = leaf_partners(np.abs(pos[:, None] - pos[None, :]))
    assert partner.tolist() == [2, 3, 0, 1]
    # the closest two first (1 and 2, 0.9 m) would leave 0 and 3 to pair 2.9 m apart: pairs are steps of a walk
    pos = np.array([0.0, 1.0, 1.9, 2.9])
    assert leaf_partners(np.abs(pos[:, None] - pos[None, :])).tolist() == [1, 0, 3, 2]
    # five: the last three of the walk make a ring, and still each leaf takes exactly one other block
    pos = np.array([0.0, 1.0, 10.0, 11.0, 12.5])
    partner = leaf_partners(np.abs(pos[:, None] - pos[None, :]))
    assert sorted(partner.tolist()) == [0, 1, 2, 3, 4] and (partner != np.arange(5)).all()
    assert partner[0] == 1 and partner[1] == 0
    assert {2, 3, 4} == {int(partner[2]), int(partner[3]), int(partner[4])}
    assert leaf_partners(np.zeros((1, 1))).tolist() == [0]


def test_an_appliances_second_port_goes_to_its_leafs_partner():
    # six appliances of two ports over three leaves: blocks of two, first port on the block's leaf
    serves = np.ones(12, dtype=bool)
    row, rank = np.repeat(np.arange(6), 2), np.tile([0, 1], 6)
    ring = np.array([2, 0, 1])  # leaf 0's partner is leaf 2, and so on
    leaf = _deal(serves, 3, 8, row, rank, pairs=lambda k: ring)  # 24 ports at 1:1 fill three leaves of 8
    assert leaf[rank == 0].tolist() == [0, 0, 1, 1, 2, 2]
    assert leaf[rank == 1].tolist() == [2, 2, 0, 0, 1, 1]
    assert _deal(serves, 3, 8, row, rank)[rank == 1].tolist() == [1, 1, 2, 2, 0, 0]  # unpaired: the next leaf
