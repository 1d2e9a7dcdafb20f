"""The in-band and out-of-band management networks' link list, port to port, on the bundled samples."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from designer.fabric.geometry import U_MM, run_lengths_m
from designer.site import RackSites
from designer.fileformat import load
from designer.management.links import NETWORKS, PATCH_LENGTHS_M, assign_nearest, management_links
from designer.samples import DGX_B200_SU, GB200_NVL72_SU


@pytest.fixture(scope="module")
def b200(catalog):
    return load(DGX_B200_SU, catalog)


@pytest.fixture(scope="module")
def gb200(catalog):
    return load(GB200_NVL72_SU, catalog)


def _by_network(links) -> Counter:
    return Counter(NETWORKS[n] for n in links.network.tolist())


def test_the_b200_sample_has_every_network(b200, catalog):
    links = management_links(b200, catalog)
    # 31 DGX + 7 management nodes, two bonded in-band ports each; 85 OOB ports: 31 DGX and 7 node BMCs, 4 UFM,
    # 8 storage arrays x 2, 23 switches' management ports and the 4 OOB switches' own (each to its neighbour)
    assert _by_network(links) == {"oob": 85, "inband": 76, "inband-uplink": 22, "oob-uplink": 8}
    assert links.unconnected == {} and links.on_storage == 0 and links.notes == ()


def test_every_dgx_has_one_bmc_link_and_two_in_band_links_to_two_leaves(b200, catalog):
    links = management_links(b200, catalog)
    labels = [links.label(i) for i in links.a_dev.tolist()]
    bmc = Counter(lab for lab, net, port in zip(labels, links.network.tolist(), links.a_port.tolist())
                  if NETWORKS[net] == "oob" and port == "bmc" and lab.startswith("dgx-"))
    assert len(bmc) == 31 and set(bmc.values()) == {1}
    leaves: dict[str, dict[str, str]] = {}
    for lab, net, port, b in zip(labels, links.network.tolist(), links.a_port.tolist(), links.b_dev.tolist()):
        if NETWORKS[net] == "inband" and lab.startswith("dgx-"):
            leaves.setdefault(lab, {})[port] = links.label(b)
    assert len(leaves) == 31
    for ports in leaves.values():  # port 1 to leaf A, port 2 to leaf B: a bonded pair on two leaves
        assert ports == {"inband1": "inband-leaf-01", "inband2": "inband-leaf-02"}


@pytest.mark.parametrize("design", ["b200", "gb200"])
def test_ports_are_unique_and_oob_switches_hold_48(design, catalog, request):
    links = management_links(request.getfixturevalue(design), catalog)
    ends = Counter(zip(np.concatenate([links.a_dev, links.b_dev]).tolist(),
                       np.concatenate([links.a_port, links.b_port]).tolist()))
    assert max(ends.values()) == 1
    oob = Counter(links.b_dev[links.network == NETWORKS.index("oob")].tolist())
    assert oob and max(oob.values()) <= 48
    assert all(links.label(d).startswith("oob-") for d in oob)


@pytest.mark.parametrize("design", ["b200", "gb200"])
def test_a_length_is_the_geometrys_route_rounded_up(design, catalog, request):
    project = request.getfixturevalue(design)
    links = management_links(project, catalog)
    tops = np.asarray([catalog.get(r.type).height_mm or catalog.get(r.type).rack_units * U_MM + 100.0
                       for r in project.racks])

    def rack_z(devs):
        racks, zs = [], []
        for i in devs.tolist():
            ri, d, tray = links.devices[i]
            assert tray == 0  # neither sample's systems have management ports on their trays
            racks.append(ri)
            zs.append((d.u - 1) * U_MM + catalog.get(d.type).u_height * U_MM / 2)
        return np.asarray(racks), np.asarray(zs)

    ra, za = rack_z(links.a_dev)
    rb, zb = rack_z(links.b_dev)
    np.testing.assert_allclose(links.route_m, run_lengths_m(RackSites.of(project), tops, ra, za, rb, zb))
    assert (links.length_m >= links.route_m - 1e-9).all()
    cat6a = links.medium == "cat6a"
    assert set(links.length_m[cat6a].tolist()) <= set(PATCH_LENGTHS_M)
    # 1 GbE on copper patch cords, faster links on DAC or fibre
    assert (cat6a == (np.minimum(links.a_speed, links.b_speed) <= 1)).all()
    assert set(links.medium[~cat6a].tolist()) <= {"dac", "mmf", "smf"}


def test_the_same_design_gives_the_same_list(b200, catalog):
    one, two = management_links(b200, catalog), management_links(b200, catalog)
    for col in ("network", "a_dev", "a_port", "b_dev", "b_port", "medium", "cable", "length_m"):
        assert getattr(one, col).tolist() == getattr(two, col).tolist()


def test_gb200_in_band_rides_the_storage_fabric(gb200, catalog):
    """No in-band SN5600 is placed: management nodes go to the SN2201 management leaves' four 100 G ports each,
    which hold four of the seven nodes' bonded pairs, and leave the OOB switches no uplink port."""
    links = management_links(gb200, catalog)
    assert _by_network(links) == {"oob": 71, "inband": 8}
    assert links.unconnected == {"inband": 6, "oob-uplink": 4}
    inband = links.network == NETWORKS.index("inband")
    assert {links.label(d) for d in links.b_dev[inband].tolist()} == {"inband-mgmt-leaf-01", "inband-mgmt-leaf-02"}
    assert all(links.label(d).startswith("mgmt-node-") for d in links.a_dev[inband].tolist())


def test_a_design_without_oob_switches_has_no_oob_links(b200, catalog):
    racks = tuple(replace(r, devices=tuple(d for d in r.devices if not d.name.startswith("oob-")))
                  for r in b200.racks)
    links = management_links(replace(b200, racks=racks), catalog)
    counts = _by_network(links)
    assert counts["oob"] == counts["oob-uplink"] == 0
    assert counts["inband"] == 76
    assert links.unconnected == {"oob": 81}  # the 85 ports less the four OOB switches' own
    assert any("no OOB switch" in n for n in links.notes)


def test_ports_go_to_the_nearest_switch_with_room():
    """Same rack first, then the row in order along it, then the nearest by distance; 2 ports a switch."""
    x = np.asarray([0.0, 600.0, 1200.0, 0.0, 50_000.0])
    y = np.asarray([0.0, 0.0, 0.0, 3000.0, 0.0])
    row = np.asarray([0, 0, 0, 1, -1])
    switch_rack = np.asarray([2, 3])
    ports = np.asarray([0, 0, 1, 2, 2, 4])
    free = np.asarray([2, 2])
    got = assign_nearest(ports, switch_rack, free, row, x, y)
    # rack 2's two ports fill its own switch; rack 0's and 1's find the row's switch full, so the nearest other
    # (rack 3, 3 m away) takes two and the last is left over
    assert got.tolist() == [1, 1, -1, 0, 0, -1]
    assert free.tolist() == [0, 0]


def test_the_ras_4_su_fills_its_in_band_leaf_pair(b200_4su, catalog):
    """The generator's one SN5600 leaf pair per 128 DGX, its 800 G cages run as 4 x 200 GbE: each leaf's 256 ports
    take the 127 DGX and the 7 management nodes and leave room for the spine uplinks (one per 4 node ports), so
    the whole in-band network is cabled; every DGX has its BMC link and both in-band links."""
    links = management_links(b200_4su, catalog)
    assert links.unconnected == {}
    inband = links.network == NETWORKS.index("inband")
    dgx = inband & np.array([links.label(i).startswith("dgx") for i in links.a_dev.tolist()])
    assert dgx.sum() == 2 * 127
    assert set(links.a_speed[dgx].tolist()) == {200.0} and set(links.b_speed[inband].tolist()) == {200.0}
    labels = [links.label(i) for i in links.a_dev.tolist()]
    by_net = Counter((NETWORKS[n], lab.split("-")[0]) for n, lab in zip(links.network.tolist(), labels))
    assert by_net["inband", "dgx"] == 2 * 127 and by_net["oob", "dgx"] == 127
    oob = Counter(links.b_dev[links.network == NETWORKS.index("oob")].tolist())
    assert len(oob) == 16 and max(oob.values()) == 48
