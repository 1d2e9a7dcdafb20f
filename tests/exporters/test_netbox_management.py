"""The management networks in the NetBox folder: their interfaces and cables after the fabrics', on both samples."""
from __future__ import annotations

from collections import Counter

import pytest
from netbox_rows import read


from designer.analysis import analyze
from designer.fileformat import load
from designer.management.links import management_links
from designer.samples import DGX_B200_SU, GB200_NVL72_SU
from exporters.netbox_export import write_netbox

#: NetBox's InterfaceTypeChoices and CableTypeChoices these rows use (dcim/choices.py, 4.1 to 4.7)
INTERFACE_TYPES = {"1000base-t", "100gbase-x-qsfp28", "400gbase-x-qsfp112", "400gbase-x-osfp", "other"}
CABLE_TYPES = {"cat6a", "dac-passive", "mmf", "smf"}
#: cables per network, by the description's first part
COUNTS = {"dgx-b200": {"OOB": 85, "in-band": 76, "in-band leaf-spine": 22, "OOB uplink": 8},
          "gb200-nvl72": {"OOB": 71, "in-band": 8}}




@pytest.fixture(scope="module", params=[DGX_B200_SU, GB200_NVL72_SU], ids=["dgx-b200", "gb200-nvl72"])
def exported(request, catalog, tmp_path_factory):
    analysis = analyze(load(request.param, catalog), catalog)
    folder = tmp_path_factory.mktemp("netbox-mgmt")
    account = write_netbox(analysis, folder)
    cables = read(folder, "10-cables.csv")
    first = len(cables) - len(management_links(analysis.project, catalog))
    return request.param.name.split("-su")[0], analysis, folder, account, cables, first


def test_the_management_cables_come_last_labelled_on(exported):
    name, _, folder, account, cables, first = exported
    mine = cables[first:]
    assert Counter(c["description"].split(", ")[0] for c in mine) == COUNTS[name]
    code = cables[0]["label"].rsplit("-W", 1)[0]
    assert [c["label"] for c in mine] == [f"{code}-W{n:06d}" for n in range(first + 1, len(cables) + 1)]
    assert len({c["label"] for c in cables}) == len(cables)  # unique in the site
    interfaces = read(folder, "09-interfaces.csv")
    assert f"{len(interfaces):,} interfaces, {len(cables):,} cables" in account


def test_every_end_is_an_interface_of_a_netbox_type(exported):
    _, _, folder, _, cables, first = exported
    interfaces = {(r["device"], r["name"]): r["type"] for r in read(folder, "09-interfaces.csv")}
    devices = {r["name"] for r in read(folder, "08-devices.csv")}
    for c in cables[first:]:
        assert c["type"] in CABLE_TYPES and c["status"] == "planned" and c["length_unit"] == "m"
        assert float(c["length"]) > 0
        ends = [(c[f"side_{s}_device"], c[f"side_{s}_name"]) for s in "ab"]
        assert all(e in interfaces and e[0] in devices for e in ends)
        kinds = {interfaces[e] for e in ends}
        assert kinds <= INTERFACE_TYPES
        # a 1 GbE copper port on a Cat6A patch cord at both ends
        assert (c["type"] == "cat6a") == (kinds == {"1000base-t"})
        assert (c["type"] == "cat6a") == c["description"].endswith("Cat6A patch cord")


def test_a_dgx_has_its_bmc_and_bonded_in_band_ports(catalog, tmp_path):
    analysis = analyze(load(DGX_B200_SU, catalog), catalog)
    write_netbox(analysis, tmp_path)
    code = read(tmp_path, "10-cables.csv")[0]["label"].rsplit("-W", 1)[0]
    ports = {r["name"]: r["type"] for r in read(tmp_path, "09-interfaces.csv") if r["device"] == f"{code}-dgx-0001"}
    assert {k: v for k, v in ports.items() if not k[0].isdigit() and k[0] != "S"} == {
        "bmc": "1000base-t", "inband1": "400gbase-x-qsfp112", "inband2": "400gbase-x-qsfp112"}
    far = {c["side_a_name"]: c["side_b_device"] for c in read(tmp_path, "10-cables.csv")
           if c["side_a_device"] == f"{code}-dgx-0001" and not c["side_a_name"][0].isdigit()}
    assert far["inband1"] == f"{code}-inband-leaf-01" and far["inband2"] == f"{code}-inband-leaf-02"
    assert far["bmc"].startswith(f"{code}-oob-")
