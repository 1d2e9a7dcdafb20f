"""Quick totals (racks, GPUs) agree with the analysis and count only what an edit changed; rack roles."""
from __future__ import annotations

from dataclasses import replace

import pytest

import drawn as samples
from designer.analysis import analyze
from designer.commands import AddDeviceCommand, AddObjectsCommand, Document, MoveObjectsCommand, RemoveDeviceCommand
from designer.fileformat import load
from designer.model import Hall, MountedDevice, Project, Rack
from designer.rack_roles import ROLES, rack_role
from designer.totals import Totals, TotalsCounter, quick_totals


@pytest.mark.parametrize("path, racks, gpus", [(samples.DGX_B200_SU, 19, 248), (samples.GB200_NVL72_SU, 10, 576)])
def test_quick_totals_equal_the_analysis_summary(catalog, path, racks, gpus):
    project = load(path, catalog)
    summary = analyze(project, catalog).summary_json
    assert quick_totals(project, catalog) == Totals(racks=summary["racks"], gpus=summary["gpus"])
    assert (summary["racks"], summary["gpus"]) == (racks, gpus)


def _hall() -> Hall:
    return Hall("h1", "Hall", ((0, 0), (60000, 0), (60000, 60000), (0, 60000)), tile_mm=600)


def _dgx_rack(i: int, nodes: int = 2) -> Rack:
    devices = tuple(MountedDevice(f"r{i}-n{k}", "dgx-b200", 5 + 12 * k, "front") for k in range(nodes))
    return Rack(f"r{i}", f"R{i}", "h1", "rack-48u-600x1200", 1200 + 600 * (i % 90), 1200 + 3600 * (i // 90),
                devices=devices)


@pytest.fixture
def big(catalog):
    """500 racks of two DGX B200 each: 8,000 GPUs."""
    return Document(Project(halls=(_hall(),), racks=tuple(_dgx_rack(i) for i in range(500))), catalog)


def test_an_edit_recounts_only_the_racks_it_changed(big, catalog):
    counter = TotalsCounter(catalog)
    assert counter(big.project) == Totals(500, 8000)
    assert counter.counted == 500
    big.push(RemoveDeviceCommand("r7", "r7-n1"))
    assert counter(big.project) == Totals(500, 7992)
    assert counter.counted == 501
    # A move keeps the rack's devices: nothing is counted again.
    rack = big.project.rack("r8")
    big.push(MoveObjectsCommand(racks={"r8": (rack.x, rack.y + 600, 0.0)}))
    assert counter(big.project) == Totals(500, 7992)
    assert counter.counted == 501
    big.push(AddObjectsCommand(racks=(_dgx_rack(600, nodes=3),)))
    assert counter(big.project) == Totals(501, 8016)
    assert counter.counted == 502
    big.undo()
    big.undo()
    big.undo()
    assert counter(big.project) == Totals(500, 8000)
    assert counter.counted == 502  # undo brings back devices tuples the cache still holds
    assert quick_totals(big.project, catalog) == counter(big.project)


def test_the_cache_keeps_to_about_two_designs(big, catalog):
    counter = TotalsCounter(catalog)
    counter(big.project)
    for k in range(1200):  # each edit leaves one tuple of devices behind
        big.push(AddDeviceCommand(f"r{k % 500}", MountedDevice(f"x{k}", "qm9700", 40 + (k // 500), "rear")))
        counter(big.project)
    assert len(counter._by_devices) <= 2 * 500 + 64
    assert counter(big.project) == quick_totals(big.project, catalog) == Totals(500, 8000)


def test_a_settings_edit_costs_nothing(big, catalog):
    counter = TotalsCounter(catalog)
    first = counter(big.project)
    project = replace(big.project, name="renamed")  # same racks tuple
    assert counter(project) is first and counter.counted == 500


def _rack(*types: str) -> Rack:
    return Rack("r", "R", "h1", "rack-48u-600x1200", 0, 0,
                devices=tuple(MountedDevice(f"d{i}", t, 1 + 2 * i, "front") for i, t in enumerate(types)))


@pytest.mark.parametrize("types, role", [
    (("gb200-nvl72",), "rack_scale"),
    (("dgx-b200", "qm9700"), "compute"),
    (("qm9700", "qm9790"), "network"),
    # a UFM manages a fabric: network gear; the SN2201 is a management switch; a tie goes to the network
    (("ufm-appliance", "sn2201"), "network"),
    (("mgmt-node", "mgmt-node", "sn2201"), "management"),
    ((), "empty"),
    (("not-in-the-catalog",), "empty"),
])
def test_rack_role_by_what_the_rack_holds(catalog, types, role):
    assert rack_role(_rack(*types), catalog) == role
    assert role in ROLES


def test_rack_roles_of_the_samples(catalog):
    b200 = load(samples.DGX_B200_SU, catalog)
    roles = {r.name: rack_role(r, catalog) for r in b200.racks}
    assert roles["A01"] == "compute" and roles["A09 network"] == "network"
    assert roles["M01 management"] == "management"
    nvl = load(samples.GB200_NVL72_SU, catalog)
    assert [rack_role(r, catalog) for r in nvl.racks].count("rack_scale") == 8


def test_totals_by_hall_add_up_and_reuse_the_counts_of_unchanged_racks(catalog):
    second = Hall("h2", "Hall 2", ((0, 0), (60000, 0), (60000, 60000), (0, 60000)), tile_mm=600)
    racks = tuple(replace(_dgx_rack(i), hall="h2" if i >= 3 else "h1") for i in range(5))
    project = Project(halls=(_hall(), second), racks=racks)
    counter = TotalsCounter(catalog)
    by_hall = counter.by_hall(project)
    assert by_hall == {"h1": Totals(racks=3, gpus=48), "h2": Totals(racks=2, gpus=32)}
    assert counter(project) == Totals(racks=5, gpus=80) and counter.counted == 5
    moved = replace(project, racks=project.racks[:4] + (replace(project.racks[4], hall="h1"),))
    assert counter.by_hall(moved) == {"h1": Totals(racks=4, gpus=64), "h2": Totals(racks=1, gpus=16)}
    assert counter.counted == 5  # a rack moved to another hall keeps its devices: nothing counted again
