"""Fat-tree sizing: NVIDIA's Table 4, the larger-SU rows, tier boundaries and refusals."""
from __future__ import annotations

import numpy as np
import pytest

from designer.fabric import FabricError, size_fat_tree
from designer.fabric.sizing import leaf_split, smallest_divisor_at_least
from designer.fabric.topology import all_tiers


@pytest.fixture(scope="module")
def qm9700(catalog):
    return catalog.get("qm9700")


@pytest.fixture(scope="module")
def q3400(catalog):
    return catalog.get("q3400")


# hardware.md §5.2, "Table 4. Compute fabric component count" (B200 RA), verbatim
TABLE_4 = [  # SU, nodes, GPUs, leaf, spine, compute+UFM cables, spine-leaf cables
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (3, 95, 760, 24, 16, 764, 768),
    (4, 127, 1016, 32, 16, 1020, 1024),
]


@pytest.mark.parametrize("su, nodes, gpus, leaf, spine, compute_cables, spine_cables", TABLE_4)
def test_table_4_of_the_b200_reference_architecture(qm9700, su, nodes, gpus, leaf, spine, compute_cables,
                                                    spine_cables):
    t = size_fat_tree(256 * su, qm9700, rails=8, su_nodes=32, reserved_ports=4)
    assert (t.nodes, t.nodes * 8, t.leaf, t.spine, t.core, t.tiers) == (nodes, gpus, leaf, spine, 0, 2)
    assert t.links_node_leaf == compute_cables
    assert t.links_leaf_spine == spine_cables
    doc = t.to_json()
    assert doc["links"] == {"node_leaf": compute_cables, "leaf_spine": spine_cables, "spine_core": 0}
    # one fibre per 400G link, the NVIDIA way
    assert doc["cables"] == {"fiber-mpo12-mmf": compute_cables + spine_cables}
    assert doc["scalable_units"] == su


def test_three_su_gets_sixteen_spines_by_the_even_uplink_rule(qm9700):
    t = size_fat_tree(768, qm9700)
    assert t.spine == 16  # 12 would do by port count, but 32 uplinks do not split evenly over 12
    assert t.leaf_up % t.spine == 0
    assert smallest_divisor_at_least(32, 12) == 16
    assert smallest_divisor_at_least(32, 4) == 4
    assert smallest_divisor_at_least(22, 12) == 22


def test_twin_port_optics_counted_per_cage_as_in_section_7_4(qm9700):
    doc = size_fat_tree(1024, qm9700, reserved_ports=4).to_json()
    # switch side: every cage of 32 leaves and 16 spines = 1.5 N; node side N/2 minus the removed DGX
    assert doc["transceivers"] == {"osfp-800g-2xsr4": 1536, "osfp-800g-2xsr4-flat": 508, "osfp-400g-sr4": 4}


@pytest.mark.parametrize("su, leaf, spine, core", [(16, 128, 128, 64), (32, 256, 256, 128), (64, 512, 512, 256)])
def test_three_tier_rows_of_the_larger_superpod_table(qm9700, su, leaf, spine, core):
    n = 256 * su
    t = size_fat_tree(n, qm9700)
    assert (t.tiers, t.leaf, t.spine, t.core) == (3, leaf, spine, core)
    assert (t.links_node_leaf, t.links_leaf_spine, t.links_spine_core) == (n, n, n)
    assert t.leaf + t.spine + t.core == 5 * n // 64  # §7.2: switches = 5N/k


@pytest.mark.parametrize("switch, two, three", [("qm9700", 2048, 65536), ("q3400", 10368, 746496)])
def test_tier_boundaries_for_both_radixes(catalog, switch, two, three):
    sw = catalog.get(switch)
    k = sw.ports[0].count
    assert (two, three) == (k * k // 2, k ** 3 // 4)
    assert size_fat_tree(two, sw).tiers == 2
    assert size_fat_tree(two, sw).max_endpoints == two
    assert size_fat_tree(two + 1, sw).tiers == 3
    full = size_fat_tree(three, sw)
    assert full.tiers == 3 and full.max_endpoints == three
    assert (full.leaf, full.spine, full.core) == (k * k // 2, k * k // 2, k * k // 4)  # the full k-ary fat tree
    assert full.to_json()["radix_max_endpoints_by_tiers"] == {"2": two, "3": three}
    with pytest.raises(FabricError, match="more than 3 tiers"):
        size_fat_tree(three + 1, sw)


def test_q3400_two_tier_edge_with_72_node_units(q3400):
    t = size_fat_tree(10368, q3400, su_nodes=72)
    assert (t.leaf, t.spine, t.scalable_units) == (144, 72, 18)


def test_forbidden_tier_and_bad_values_are_refused(qm9700, catalog):
    with pytest.raises(FabricError, match="need 3 tiers; 2 tiers of qm9700 reach at most 2,048"):
        size_fat_tree(4096, qm9700, tiers=2)
    assert size_fat_tree(256, qm9700, tiers=3).tiers == 3
    for kwargs, text in [({"rails": 0}, "rails"), ({"su_nodes": 0}, "su_nodes"), ({"oversubscription": 0.5},
                         "oversubscription"), ({"reserved_ports": 300}, "reserved ports"), ({"tiers": 4}, "tiers")]:
        with pytest.raises(FabricError, match=text):
            size_fat_tree(256, qm9700, **kwargs)
    with pytest.raises(FabricError, match="endpoints"):
        size_fat_tree(0, qm9700)
    with pytest.raises(FabricError, match="not a fabric switch"):
        size_fat_tree(256, catalog.get("dgx-b200"))
    assert issubclass(FabricError, ValueError)


def test_oversubscription_moves_ports_from_up_to_down(qm9700):
    assert leaf_split(64, 1) == (32, 32)
    assert leaf_split(64, 3) == (48, 16)
    t = size_fat_tree(2048, qm9700, oversubscription=3)
    assert (t.leaf_down, t.leaf_up) == (48, 16)
    assert t.leaf == 8 * 6 and t.tiers == 2  # 256 node slots in blocks of 48
    assert t.max_by_tiers[2] == 8 * 8 * 48
    assert t.to_json()["oversubscription"] == 3


def test_ports_used_and_free_add_up(qm9700):
    for n, kw in [(1024, {"reserved_ports": 4}), (2300, {}), (16384, {}), (700, {"oversubscription": 2})]:
        doc = size_fat_tree(n, qm9700, **kw).to_json()
        for tier in ("leaf", "spine", "core"):
            p = doc["ports"][tier]
            assert p["used"] + p["free"] == p["total"] and p["free"] >= 0
        assert doc["ports"]["leaf"]["down_used"] == doc["links"]["node_leaf"]
        assert doc["ports"]["leaf"]["up_used"] == doc["links"]["leaf_spine"]


@pytest.mark.parametrize("switch, n, kw", [("qm9700", 768, {}), ("qm9700", 1024, {"reserved_ports": 4}),
                                           ("qm9700", 2304, {}), ("qm9700", 4096, {}),
                                           ("qm9700", 5000, {"oversubscription": 2}),
                                           ("q3400", 20736, {"su_nodes": 72})])
def test_port_map_uses_every_port_at_most_once(catalog, switch, n, kw):
    sw = catalog.get(switch)
    t = size_fat_tree(n, sw, **kw)
    nl, ls, sc = all_tiers(t)
    assert (len(nl), len(ls), len(sc)) == (t.links_node_leaf, t.links_leaf_spine, t.links_spine_core)
    ends = [(nl.b_index, nl.b_port, t.leaf), (ls.a_index, ls.a_port, t.leaf), (ls.b_index, ls.b_port, t.spine),
            (sc.a_index, sc.a_port, t.spine), (sc.b_index, sc.b_port, t.core)]
    leaf_keys = np.concatenate([nl.b_index * 1000 + nl.b_port, ls.a_index * 1000 + ls.a_port])
    assert len(np.unique(leaf_keys)) == len(leaf_keys)
    spine_keys = np.concatenate([ls.b_index * 1000 + ls.b_port, sc.a_index * 1000 + sc.a_port])
    assert len(np.unique(spine_keys)) == len(spine_keys)
    assert len(np.unique(sc.b_index * 1000 + sc.b_port)) == len(sc)
    for i, p, count in ends:
        assert (p < t.radix).all() and (i < count).all()
    # rail optimization: node port r lands on a rail-r leaf; leaves of a rail set cover the same slots
    assert (nl.b_index % t.rails == nl.rail).all()
    # even spreading: every leaf-spine pair carries the same number of links within a pod
    if t.tiers == 2:
        pairs = np.unique(ls.a_index * 100000 + ls.b_index, return_counts=True)[1]
        assert (pairs == t.leaf_up // t.spine).all()


def _links(tree):
    """Every link of a tree as (tier, lower index, lower port, upper index, upper port)."""
    out = set()
    for t, tier in enumerate(all_tiers(tree)):
        out |= set(zip([t] * len(tier), tier.a_index.tolist(), tier.a_port.tolist(), tier.b_index.tolist(),
                       tier.b_port.tolist()))
    return out


def test_a_spine_layer_built_for_growth_carries_the_uplinks_when_its_count_divides_them(qm9700):
    one_su = 31 * 8 + 4
    assert size_fat_tree(one_su, qm9700, reserved_ports=4).spine == 4
    grown = size_fat_tree(one_su, qm9700, reserved_ports=4, spines_placed=16)
    assert grown.spine == 16 and grown.leaf == 8
    # 12 spines cannot share 32 uplinks evenly: the tree keeps the 4 it needs
    assert size_fat_tree(one_su, qm9700, reserved_ports=4, spines_placed=12).spine == 4
    # with the final 16 spines in place, the first SU's cables are all in the 4-SU tree
    final = size_fat_tree(127 * 8 + 4, qm9700, reserved_ports=4)
    first = size_fat_tree(32 * 8, qm9700, spines_placed=16)
    assert final.spine == 16 and _links(first) <= _links(final)


def test_a_three_tier_fabric_built_for_growth_keeps_its_cables(qm9700):
    final = size_fat_tree(16 * 256, qm9700, tiers=3)  # 4 pods of 4 SUs
    assert (final.pods, final.pod_spines, final.core) == (4, 32, 64)
    # 5 SUs: a second pod with one SU. Left alone it gets 8 spines and its own core groups...
    part = size_fat_tree(5 * 256, qm9700, tiers=3)
    assert part.last_pod_spines == 8 and not _links(part) <= _links(final)
    # ...but with the final spines and cores in place it spreads as the full fabric will
    grown = size_fat_tree(5 * 256, qm9700, tiers=3, spines_placed=final.spine, cores_placed=final.core)
    assert grown.last_pod_spines == 32 and grown.core_group == final.core_group
    assert _links(grown) <= _links(final)


@pytest.mark.parametrize("sus", [1, 2, 3, 5, 7])
def test_every_su_of_a_three_tier_fabric_built_for_growth_keeps_the_cables_before_it(qm9700, sus):
    final = size_fat_tree(9 * 256, qm9700, tiers=3)  # 3 pods, the last one partial
    grown = size_fat_tree(sus * 256, qm9700, tiers=3, spines_placed=final.spine, cores_placed=final.core)
    more = size_fat_tree((sus + 1) * 256, qm9700, tiers=3, spines_placed=final.spine, cores_placed=final.core)
    assert grown.spine == grown.pods * final.pod_spines  # every spine of the pods reached is wired
    assert _links(grown) <= _links(more) <= _links(final)


def test_an_oversubscribed_q3400_tree_never_takes_more_spines_than_the_load_needs(catalog):
    # 1.5:1 on 144 ports: 86 down / 58 up, and 58 = 2 x 29 has no divisor near the 7 spines 16 leaves' uplinks
    # need, so the even-uplink rule alone gives 29 spines (78 % of their ports idle). 81 down / 54 up keeps the
    # ratio (81 / 54 = 1.5) and 54 spreads over 6 spines exactly: 16 x 54 = 864 = 6 x 144.
    q3400 = catalog.get("q3400")
    t = size_fat_tree(2 * 72 * 8, q3400, rails=8, su_nodes=72, oversubscription=1.5)
    assert (t.leaf, t.spine, t.leaf_down, t.leaf_up) == (16, 6, 81, 54)
    assert t.actual_oversubscription <= 1.5
    assert t.ports()["spine"]["free"] == 0
    flat = size_fat_tree(2 * 72 * 8, q3400, rails=8, su_nodes=72)
    assert t.spine <= flat.spine
