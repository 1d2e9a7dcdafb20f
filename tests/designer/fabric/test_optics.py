"""Every fabric link gets the parts of its cages: port speed, ports per cage, top, and the run's reach."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from designer.analysis import analyze
from designer.fabric import media, size_fat_tree
from designer.fabric.wiring import device_cages
from designer.fileformat import load
from drawn import DGX_B200_SU

NDR_SWITCH = media.Cage(400.0, 2, "finned", "OSFP", True)
XDR_SWITCH = media.Cage(800.0, 2, "finned", "OSFP", True)
#: The B200 sample made an XDR SuperPOD: DGX B300 (8 x 800G single-port flat), Q3400, XDR UFM.
TO_XDR = {"dgx-b200": "dgx-b300", "qm9700": "q3400", "ufm-appliance": "ufm-appliance-xdr"}


@pytest.fixture(scope="module")
def b200(catalog):
    return load(DGX_B200_SU, catalog)


@pytest.fixture(scope="module")
def xdr(b200, catalog):
    racks = [replace(r, devices=tuple(replace(d, type=TO_XDR.get(d.type, d.type)) for d in r.devices))
             for r in b200.racks]
    return analyze(b200.with_racks(racks), catalog).result("fabric")


def _speeds(catalog, ids) -> set:
    return {catalog.get(i).speed_gbps for i in ids}


def _modules_fit_their_cages(fabric, catalog) -> None:
    """Each end's module matches its cage's speed, ports and top: never finned in flat, never NDR in XDR."""
    plan, ch = fabric.plan, fabric.plan.choice
    cages, of_dev = device_cages(plan.inv)
    for dev, col in ((plan.a_dev, ch["module_a"]), (plan.b_dev, ch["module_b"])):
        for m, k in set(zip(col.tolist(), of_dev[dev].tolist())):
            if m < 0:
                continue
            part, cage = catalog.get(ch["module_ids"][m]), cages[k]
            assert (part.speed_gbps, part.links) == (cage.speed_gbps, cage.ports), (part.id, cage)
            assert not cage.top or part.top == cage.top, (part.id, cage)


def _switch_cages(tree) -> int:
    """Twin-port switch cages that carry a link: the leaves' down and up ports, the spines' ports."""
    return int((-(-(tree.leaf_down_used() + tree.leaf_up) // 2)).sum() + (-(-tree.spine_ports_used() // 2)).sum())


def test_q3400_tree_counts_xdr_parts_only(catalog):
    q3400 = catalog.get("q3400")
    tree = size_fat_tree(31 * 8 + 4, q3400, rails=8, su_nodes=72, reserved_ports=4, node_cage_ports=1,
                         node_port_gbps=800)
    doc = tree.to_json(catalog)
    xcvr, cables = doc["transceivers"], doc["cables"]
    assert _speeds(catalog, [*xcvr, *cables]) == {800.0}  # no 400G (NDR) part anywhere
    switch = [i for i in xcvr if catalog.get(i).links == 2]
    assert switch == ["osfp-1600g-2xdr4"] and catalog.get(switch[0]).top == "finned"
    # one single-port module per node port and UFM port; one twin-port module per used switch cage
    assert xcvr["osfp-800g-dr4"] == 31 * 8 + 4
    assert xcvr["osfp-1600g-2xdr4"] == _switch_cages(tree)
    assert cables == {"fiber-mpo12-smf": 252 + tree.links_leaf_spine}  # no 800G multimode: single-mode
    assert not any("placeholder" in n for n in doc["notes"])


def test_qm9700_tree_keeps_the_ndr_multimode_parts(catalog):
    tree = size_fat_tree(256, catalog.get("qm9700"), rails=8, su_nodes=32, reserved_ports=4, node_port_gbps=400)
    doc = tree.to_json(catalog)
    assert doc["cables"] == {"fiber-mpo12-mmf": 252 + 256}
    assert doc["transceivers"] == {"osfp-400g-sr4": 4, "osfp-800g-2xsr4": _switch_cages(tree),
                                   "osfp-800g-2xsr4-flat": 31 * 4}


def test_a_tree_whose_nodes_no_part_joins_says_so(catalog):
    # a 400G twin-port flat DGX cage has no part in common with an XDR cage
    doc = size_fat_tree(256, catalog.get("q3400"), rails=8, reserved_ports=4, node_port_gbps=400).to_json(catalog)
    assert any("no catalog parts join a 400G twin-port OSFP cage, flat top" in n for n in doc["notes"])
    assert "osfp-800g-2xsr4-flat" not in doc["transceivers"]


def test_a_wired_xdr_superpod_has_no_ndr_part(xdr, catalog):
    section = xdr.section
    assert section["too_long_links"] == 0 and not [f for f in xdr.findings if f.severity == "error"]
    assert _speeds(catalog, [*section["transceivers"], *section["cables"]]) == {800.0}
    ch = xdr.plan.choice
    switch_end = ch["module_b"][ch["module_b"] >= 0]  # the b end of every tier is a switch
    assert {ch["module_ids"][m] for m in switch_end.tolist()} == {"osfp-1600g-2xdr4"}
    node = (xdr.plan.tier == 0) & (ch["module_a"] >= 0)
    assert {ch["module_ids"][m] for m in ch["module_a"][node].tolist()} == {"osfp-800g-dr4"}
    _modules_fit_their_cages(xdr, catalog)


def test_a_wired_qm9700_b200_superpod_keeps_ndr_parts(b200, catalog):
    fabric = analyze(b200, catalog).result("fabric")
    assert _speeds(catalog, [*fabric.section["transceivers"], *fabric.section["cables"]]) == {400.0}
    ch = fabric.plan.choice
    node = (fabric.plan.tier == 0) & (ch["module_a"] >= 0)
    dgx = {ch["module_ids"][m] for m in ch["module_a"][node].tolist()}
    assert "osfp-800g-2xsr4-flat" in dgx and all(catalog.get(i).top == "flat" for i in dgx)
    _modules_fit_their_cages(fabric, catalog)


def _single_links(catalog, lengths, cage):
    """Links between cages of one kind, each link its own pair of cages (so no copper pairs)."""
    n = len(lengths)
    zero = np.zeros(n, dtype=np.int64)
    return media.choose(catalog, np.asarray(lengths, float), np.arange(n), 1000 + np.arange(n), zero, zero, [cage])


def _parts(ch, i) -> tuple:
    ids = ch["module_ids"]
    cable = ch["cable_ids"][ch["cable"][i]] if ch["cable"][i] >= 0 else ""
    return (media.MEDIA[ch["medium"][i]], cable, ids[ch["module_a"][i]] if ch["module_a"][i] >= 0 else "",
            ids[ch["module_b"][i]] if ch["module_b"][i] >= 0 else "")


def test_400g_reach_classes(catalog):
    ch = _single_links(catalog, [30.0, 80.0, 300.0, 1500.0, 2500.0], NDR_SWITCH)
    assert _parts(ch, 0) == ("mmf", "fiber-mpo12-mmf", "osfp-800g-2xsr4", "osfp-800g-2xsr4")
    assert _parts(ch, 1) == ("smf", "fiber-mpo12-smf", "osfp-800g-2xdr4", "osfp-800g-2xdr4")
    assert _parts(ch, 2) == ("smf", "fiber-mpo12-smf", "osfp-800g-2xdr4-500m", "osfp-800g-2xdr4-500m")
    assert _parts(ch, 3) == ("smf", "fiber-lc-smf", "osfp-800g-2xfr4", "osfp-800g-2xfr4")
    assert _parts(ch, 4) == ("", "", "", "")
    assert list(ch["length_m"][:4]) == [30, 100, 300, 1500]
    assert media.longest_reach(catalog, NDR_SWITCH, NDR_SWITCH) == 2000


def test_800g_reaches_500_m_and_no_further(catalog):
    ch = _single_links(catalog, [400.0, 600.0], XDR_SWITCH)
    assert _parts(ch, 0) == ("smf", "fiber-mpo12-smf", "osfp-1600g-2xdr4", "osfp-1600g-2xdr4")
    assert _parts(ch, 1) == ("", "", "", "")
    assert media.longest_reach(catalog, XDR_SWITCH, XDR_SWITCH) == 500


def test_xdr_copper_pairs_and_splitters(catalog):
    node = media.Cage(800.0, 1, "flat", "OSFP")
    ch = media.choose(catalog, np.array([1.5, 1.5, 2.0, 2.5]), np.array([0, 0, 5, 6]), np.array([9, 9, 7, 7]),
                      np.array([0, 0, 1, 1]), np.array([0, 0, 0, 0]), [XDR_SWITCH, node])
    assert [ch["cable_ids"][c] for c in ch["cable"].tolist()] == ["acc-osfp-1600g"] * 2 + [
        "acc-osfp-splitter-1600g-2x800g"] * 2
    assert ch["owner"].tolist() == [True, False, True, False]  # one cable per pair


def test_a_cage_takes_the_longest_class_its_links_need(catalog):
    # links 0 and 1 share cage 0; link 0 needs FR4, so link 1 rides a 2 km module too, on LC fibre
    ch = media.choose(catalog, np.array([1200.0, 20.0]), np.array([0, 0]), np.array([50, 51]),
                      np.zeros(2, dtype=np.int64), np.zeros(2, dtype=np.int64), [NDR_SWITCH])
    assert _parts(ch, 1) == ("smf", "fiber-lc-smf", "osfp-800g-2xfr4", "osfp-800g-2xfr4")


def test_a_run_beyond_every_part_is_named(b200, catalog):
    far = b200.with_racks([replace(b200.rack("b09"), x=b200.rack("b09").x + 2_600_000.0)])
    findings = [f for f in analyze(far, catalog).findings if f.code == "fabric-cable-too-long"]
    assert findings
    text = " ".join(f.message for f in findings)
    assert " port " in text and " runs " in text and "the longest reach there is 2,000 m" in text
    mid = b200.with_racks([replace(b200.rack("b09"), x=b200.rack("b09").x + 1_400_000.0)])
    fabric = analyze(mid, catalog).result("fabric")
    assert "osfp-800g-2xfr4" in fabric.section["transceivers"] and "fiber-lc-smf" in fabric.section["cables"]


def test_a_cage_no_part_fits_is_a_finding(b200, catalog):
    racks = [replace(r, devices=tuple(replace(d, type="dgx-a100") if d.type == "dgx-b200" else d
                                      for d in r.devices)) for r in b200.racks]
    result = analyze(b200.with_racks(racks), catalog).result("fabric")
    [finding] = [f for f in result.findings if f.code == "fabric-no-part"]
    assert "200G single-port QSFP56 cage" in finding.message and "DGX A100" in finding.message
    assert result.section["too_long_links"] == 31 * 8


def test_dense_cage_numbering_is_what_a_sorted_unique_gives():
    import numpy as np

    from designer.fabric.media import CAGE_KEY, dense_ids

    rng = np.random.default_rng(7)
    wired = rng.integers(0, 100_000, size=5_000) * CAGE_KEY + rng.integers(0, 72, size=5_000)
    for keys in (wired, np.arange(7) // 2, 10_000 + np.arange(9), rng.integers(0, 2 ** 40, size=50),
                 np.zeros(0, dtype=np.int64)):
        assert (dense_ids(keys) == np.unique(keys, return_inverse=True)[1].reshape(-1)).all()


def test_the_transceivers_the_choice_counts_are_one_per_cage_carrying_fibre(xdr, b200_4su, gb200_4su, catalog):
    # the media choice counts them on its own cage numbering; a count over the plan's own cage keys agrees
    for fabric in (xdr, analyze(b200_4su, catalog).result("fabric"), analyze(gb200_4su, catalog).result("fabric")):
        plan, ch = fabric.plan, fabric.plan.choice
        # counted again the plain way: the distinct (cage, module) pairs over both ends of every link
        keys, mods = np.concatenate(plan.cage_keys()), np.concatenate([ch["module_a"], ch["module_b"]])
        pairs = set(zip(keys[mods >= 0].tolist(), mods[mods >= 0].tolist()))
        assert ch["transceivers"] == dict(sorted(Counter(ch["module_ids"][m] for _, m in pairs).items()))
        assert sum(ch["transceivers"].values()) > 0
        assert fabric.section["transceivers"] == ch["transceivers"]


def test_every_cage_of_a_design_gets_one_number_of_its_own(b200_4su, gb200_4su, catalog):
    from designer.fabric.wiring import cage_numbers

    for project in (b200_4su, gb200_4su):
        plan = analyze(project, catalog).result("fabric").plan
        numbers = np.concatenate(cage_numbers(plan.inv, plan.a_dev, plan.a_port, plan.b_dev, plan.b_port))
        keys = np.concatenate(plan.cage_keys())  # device * CAGE_KEY + cage: one per cage by construction
        pairs = np.unique(np.stack([numbers, keys]), axis=1)
        # one number per cage and one cage per number, compact enough to index per-cage tables directly
        assert pairs.shape[1] == len(np.unique(numbers)) == len(np.unique(keys))
        assert numbers.max() < sum(plan.inv.devices.n_cages)
        assert (media.cage_index(numbers) == numbers).all()


def test_a_device_without_a_cage_count_falls_back_to_keys_the_choice_numbers(b200, catalog):
    from designer.fabric.wiring import cage_numbers

    plan = analyze(b200, catalog).result("fabric").plan
    plan.inv.devices.n_cages[plan.a_dev[0]] = 0  # as a device the catalog gives no cage count for
    a, b = cage_numbers(plan.inv, plan.a_dev, plan.a_port, plan.b_dev, plan.b_port)
    assert (np.concatenate([a, b]) == np.concatenate(plan.cage_keys())).all()
