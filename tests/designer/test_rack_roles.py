"""A rack's role is what it mostly holds: the rule every plan (window, PDF, DXF, SVG) colours racks by."""
from __future__ import annotations

from collections import Counter

import pytest

from designer.generate import SuperpodSpec, generate
from designer.model import MountedDevice, Rack
from designer.rack_roles import ROLES, device_role, rack_role


def _rack(*devices: tuple[str, str]) -> Rack:
    return Rack("r", "R", "h1", "rack-48u-600x1200", 0, 0,
                devices=tuple(MountedDevice(f"d{i}", t, 1 + 2 * i, "front", name)
                              for i, (t, name) in enumerate(devices)))


@pytest.fixture(scope="module")
def b200_4su(catalog):
    return generate(SuperpodSpec(system="dgx-b200", sus=4), catalog).project


def test_every_network_rack_of_a_four_su_b200_pod_is_a_network_rack(b200_4su, catalog):
    roles = {r.name: rack_role(r, catalog) for r in b200_4su.racks}
    net = {name: role for name, role in roles.items() if "-NET-" in name}
    assert len(net) == 8 and set(net.values()) == {"network"}
    # the last unit's NET-B holds the compute UFM pair beside its leaves: still a network rack, not management
    last = next(r for r in b200_4su.racks if r.name == "SU04-NET-B")
    assert any(d.type == "ufm-appliance" for d in last.devices)
    assert roles["STORAGE-01"] == "storage"
    assert roles["MGMT-01"] == "management"
    counts = Counter(roles.values())
    assert counts["compute"] == 64 and set(counts) <= set(ROLES)


@pytest.mark.parametrize("devices, role", [
    # most of it is the compute fabric: 4 leaves + 2 UFM outnumber a storage leaf and 2 out-of-band switches
    ((("qm9700", "leaf-1"),) * 4 + ((("qm9700", "storage-leaf-1"),)) + (("ufm-appliance", "ufm-1"),) * 2
     + (("sn2201", "oob-1"),) * 2, "network"),
    ((("qm9700", "storage-spine-1"),) * 4, "storage"),
    ((("ufm-appliance", "storage-ufm-1"),) * 2 + (("mgmt-node", "mgmt-node-1"),) * 7, "management"),
    ((("sn5600", "inband-leaf-1"),) * 2 + (("sn2201", "inband-mgmt-leaf-1"),) * 2, "management"),
    ((("qm9700", ""),), "network"),
    ((("dgx-b200", "dgx-1"), ("qm9700", "storage-leaf-1")), "compute"),
])
def test_a_rack_takes_the_role_of_most_of_what_it_holds(catalog, devices, role):
    assert rack_role(_rack(*devices), catalog) == role


def test_an_elevation_colours_gear_as_the_plan_does(catalog):
    assert device_role(catalog.get("ufm-appliance")) == "network"
    assert device_role(catalog.get("qm9700")) == "network"
    assert device_role(catalog.get("sn2201")) == "management"
    assert device_role(catalog.get("mgmt-node")) == "management"


@pytest.mark.parametrize("system", ["dgx-rubin-nvl8", "dgx-b300", "gb300-nvl72"])
def test_xdr_network_racks_are_network_racks_by_the_space_their_gear_takes(catalog, system):
    # an SU's network rack holds four 4U Q3400 leaves and up to five 1U out-of-band switches: by count it would
    # read as management, by the rack units its gear takes it is the compute fabric's
    project = generate(SuperpodSpec(system=system, sus=2), catalog).project
    net = {r.name: rack_role(r, catalog) for r in project.racks if "-NET-" in r.name}
    assert net and set(net.values()) == {"network"}, net
    oob = Counter(d.type for r in project.racks if r.name == "SU01-NET-A" for d in r.devices)
    assert oob["q3400"] * 4 > oob["sn2201"]
