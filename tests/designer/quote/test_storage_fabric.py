"""The storage fabric's optics and fibres: counted from the placed storage switches and the nodes' storage ports."""
from __future__ import annotations

from dataclasses import replace


from designer.analysis import analyze
from designer.fileformat import load
from designer.generate import SuperpodSpec, generate
from designer.quote.lines import STORAGE_SUFFIX
from designer.storage.fabric import storage_fabric
from designer.samples import DGX_B200_SU


def test_b200_four_su_counts_every_storage_link_and_module(b200_4su, catalog):
    s = storage_fabric(b200_4su, catalog)
    # the RA's 4-SU storage fabric: 8 leaf + 4 spine QM9700 for 127 DGX with 2 storage ports, 2 storage UFM and
    # the storage appliances (8 WEKApod Nitro nodes, the smallest WEKA cluster, with 2 ports each)
    assert (s.leaves, s.spines) == (8, 4)
    assert s.node_links == 127 * 2 + 2 * 2 + 8 * 2
    # 274 ports dealt evenly over 8 leaves (34 or 35 each); each leaf cables its share of the 4 x 64 spine
    # ports (32) but no more than it has free: 30 on the six leaves of 34, 29 on the two of 35
    assert s.uplinks == 6 * 30 + 2 * 29
    assert sum(sum(c.values()) for c in s.cables.values()) == s.node_links + s.uplinks
    assert set(s.cables) == {"fiber-mpo12-mmf"}
    # BlueField-3 QSFP112 ports take the QSFP112 SR4; the UFM and the WEKApod nodes a single-port OSFP each;
    # the switches a twin-port module per cage carrying links: (274 + 2 x 238) / 2
    assert s.transceivers == {"qsfp112-400g-sr4": 254, "osfp-400g-sr4": 4 + 16, "osfp-800g-2xsr4": 376}
    assert s.notes == ()
    # what the fabric carries from the nodes to the appliances: the appliances' 16 x 400G ports, whole
    assert (s.server_gbs, s.carried_gbs) == (800.0, 800.0)
    assert s.client_gbs == (254 * 400 + 4 * 400) / 8


def test_gb200_storage_ports_share_switch_ports_through_splitters(gb200_4su, catalog):
    s = storage_fabric(gb200_4su, catalog)
    assert (s.leaves, s.spines) == (15, 6)
    assert s.node_links == 32 * 72 + 8 * 2  # 4 x 200 GbE per compute tray, 18 trays a rack; 8 WEKApod nodes
    # two 200G node ports per 400G switch port: one 1:2 splitter fibre each (a leaf with an odd number of node
    # ports leaves one splitter half used)
    splitters = sum(s.cables["fiber-mpo12-mmf-splitter"].values())
    assert (s.node_links - 16) // 2 <= splitters <= (s.node_links - 16) // 2 + s.leaves
    assert sum(s.cables["fiber-mpo12-mmf"].values()) == s.uplinks + 16  # the appliances' 400G ports whole
    assert s.transceivers["qsfp112-400g-sr4"] == s.node_links - 16
    # uplink bandwidth over downlink bandwidth close to the RA's 5:3 node-side blocking, never above 1:1
    ratio = ((s.node_links - 16) * 200 + 16 * 400) / (s.uplinks * 400)
    assert 1.3 < ratio < 1.8


def test_the_bill_lists_storage_optics_apart_from_the_compute_fabric(b200_4su, catalog):
    a = analyze(b200_4su, catalog)
    optics = [ln for sec in a["bom"]["sections"] if sec["section"] == "optics" for ln in sec["lines"]
              if not ln["spare"]]
    storage = [ln for ln in optics if ln["description"].endswith(STORAGE_SUFFIX)]
    compute = [ln for ln in optics if not ln["description"].endswith(STORAGE_SUFFIX)]
    s = storage_fabric(b200_4su, catalog)
    assert sum(ln["quantity"] for ln in storage if ln["id"] == "fiber-mpo12-mmf") == 512
    assert all(ln["basis"].startswith("storage fabric") for ln in storage)
    qsfp = next(ln for ln in storage if ln["id"] == "qsfp112-400g-sr4")
    assert (qsfp["part_number"], qsfp["quantity"]) == ("MMA1Z00-NS400", 254)
    # the compute fabric's lines still carry exactly what the fabric engine counted
    assert sum(ln["quantity"] for ln in compute if ln["id"] == "fiber-mpo12-mmf") == \
        a["fabric"]["cables"]["fiber-mpo12-mmf"]
    assert sum(ln["quantity"] for ln in storage if ln["id"] == "osfp-800g-2xsr4") == s.transceivers["osfp-800g-2xsr4"]


def test_a_hand_made_design_is_counted_from_its_switch_names(catalog):
    project = load(DGX_B200_SU, catalog)
    counted = storage_fabric(project, catalog)
    assert counted.leaves == 3 and counted.node_links == 31 * 2 + 4 + 8 * 2  # DGX, storage UFM, WEKApod nodes
    # rename the storage switches: the design then holds no storage fabric, and the bill none of its optics
    racks = tuple(replace(r, devices=tuple(replace(d, name=d.name.replace("storage", "misc"))
                                           for d in r.devices)) for r in project.racks)
    plain = replace(project, racks=racks)
    assert storage_fabric(plain, catalog).empty
    a = analyze(plain, catalog)
    assert not any(ln["description"].endswith(STORAGE_SUFFIX) for sec in a["bom"]["sections"]
                   for ln in sec["lines"])


def test_a_leaf_without_spines_has_no_uplinks(catalog):
    project = load(DGX_B200_SU, catalog)
    racks = tuple(replace(r, devices=tuple(d for d in r.devices if "storage-spine" not in d.name))
                  for r in project.racks)
    s = storage_fabric(replace(project, racks=racks), catalog)
    assert (s.spines, s.uplinks) == (0, 0)
    assert sum(s.cables["fiber-mpo12-mmf"].values()) == s.node_links


def test_a_three_tier_storage_fabric_cables_its_cores_and_goes_single_mode_past_reach(catalog):
    # in one hall (unasked, 32 MW of air-cooled DGX is a site of two)
    project = generate(SuperpodSpec(system="dgx-b200", sus=64, hall_power_kw=40_000), catalog).project
    s = storage_fabric(project, catalog)
    # the RA's rule (DGX ports at 4:3, storage devices at 1:1): (4,094 x 7/4 + 2 x 84) / 64 = 115 leaves, in 4
    # pods of 32 leaves; 28 uplinks a leaf, so 28 spines a pod, and 112 spines' upper halves on 56 cores
    assert (s.leaves, s.spines, s.cores) == (115, 112, 56)
    assert s.node_links == 2047 * 2 + 4 + 40 * 2  # and 40 WEKApod nodes for the Better tier's 1,280 GB/s write
    # the 80 appliance ports on the last 3 leaves, their own (26 or 27 each); the 4,098 node and UFM ports on the
    # other 112 (36 or 37 each). Leaf-spine: every port a node leaf leaves free, the appliance leaves their
    # 31-port share of the spines' lower halves; spine-core: the cores' 56 x 64 ports
    assert s.uplinks == (112 * 64 - (s.node_links - 80)) + 3 * 31 + 56 * 64
    smf = sum(s.cables["fiber-mpo12-smf"].values())
    assert smf > 0 and s.transceivers["osfp-800g-2xdr4"] >= smf / 2
    assert max(s.cables["fiber-mpo12-mmf"]) <= 50
    assert s.notes == ()
