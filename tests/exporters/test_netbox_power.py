"""The NetBox folder's power (panels, feeds, ports, outlets, power cables) and the parts a large file is split into."""
from __future__ import annotations

import csv
from collections import Counter

import pytest
import yaml
from netbox_rows import read

from designer.analysis import analyze
from designer.fileformat import load
from designer.generate.build import generate
from designer.generate.spec import SuperpodSpec
from designer.netbox_import import read_netbox
from designer.netbox_parts import ROWS_PER_PART, parts
from designer.samples import DGX_B200_SU, GB200_NVL72_SU
from exporters.netbox_export import write_netbox
from exporters.registry import FORMATS




@pytest.fixture(scope="module")
def b200(catalog, tmp_path_factory):
    folder = tmp_path_factory.mktemp("nb-power") / "out"
    account = write_netbox(analyze(load(DGX_B200_SU, catalog), catalog), folder)
    return folder, account


@pytest.fixture(scope="module")
def four(catalog, tmp_path_factory):
    project = generate(SuperpodSpec(system="dgx-b200", sus=4), catalog).project
    folder = tmp_path_factory.mktemp("nb-4su") / "out"
    account = write_netbox(analyze(project, catalog), folder)
    return project, folder, account


def _ports(folder) -> dict[tuple[str, str], str]:
    """(device, port) -> kind, every power port and outlet the devices will have: from their types' YAML and from
    13-power-ports.csv."""
    types = {}
    for path in (folder / "07-device-types").glob("*.yaml"):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        types[(doc["manufacturer"], doc["model"])] = doc
    out = {}
    for d in read(folder, "08-devices.csv"):
        doc = types[(d["manufacturer"], d["device_type"])]
        for p in doc.get("power-ports", ()):
            out[(d["name"], p["name"])] = "dcim.powerport"
        for o in doc.get("power-outlets", ()):
            out[(d["name"], o["name"])] = "dcim.poweroutlet"
    for p in read(folder, "13-power-ports.csv"):
        assert (p["device"], p["name"]) not in out  # a library type has no power ports of its own
        out[(p["device"], p["name"])] = "dcim.powerport"
    return out


def test_every_power_cable_ends_on_a_port_or_outlet_the_devices_have_and_each_is_used_once(b200):
    folder, account = b200
    ports = _ports(folder)
    cables = read(folder, "15-power-cables.csv")
    feed_cables = read(folder, "16-feed-cables.csv")
    assert len(cables) == 278 and len(feed_cables) == 46
    ends = []
    for c in cables:
        assert ports[(c["side_a_device"], c["side_a_name"])] == c["side_a_type"] == "dcim.poweroutlet"
        assert ports[(c["side_b_device"], c["side_b_name"])] == c["side_b_type"] == "dcim.powerport"
        ends += [(c["side_a_device"], c["side_a_name"]), (c["side_b_device"], c["side_b_name"])]
    for c in feed_cables:
        assert ports[(c["side_b_device"], c["side_b_name"])] == "dcim.powerport"
        ends.append((c["side_b_device"], c["side_b_name"]))
    assert max(Counter(ends).values()) == 1
    labels = [c["label"] for c in cables + feed_cables]
    assert len(set(labels)) == len(labels) and labels[0] == "DGXB200S1SU-P000001"
    assert "power: 6 panels, 46 feeds, 324 power cables" in account


def test_each_feed_is_in_its_rows_panel_on_its_side_with_the_pdus_rating(b200):
    folder, _ = b200
    panels = {p["name"]: p for p in read(folder, "11-power-panels.csv")}
    racks = {r["name"]: r for r in read(folder, "06-racks.csv")}
    feeds = read(folder, "12-power-feeds.csv")
    for f in feeds:
        rack = racks[f["rack"]]
        assert f["power_panel"] == f"Data hall 1 {rack['cf_podplanner_row']} busway {f['name'][-2]}"
        assert f["power_panel"] in panels
        assert (f["type"], f["name"][-2]) in {("primary", "A"), ("redundant", "B")}
        assert (f["supply"], f["phase"], f["voltage"], f["amperage"], f["max_utilization"]) == (
            "ac", "three-phase", "400", "32", "80")
    feed_names = {(f["power_panel"], f["name"]) for f in feeds}
    assert {(c["side_a_power_panel"], c["side_a_name"]) for c in read(folder, "16-feed-cables.csv")} == feed_names


def test_device_types_bring_their_supplies_and_a_pdus_outlets(b200):
    folder, _ = b200
    dgx = yaml.safe_load((folder / "07-device-types" / "dgx-b200.yaml").read_text(encoding="utf-8"))
    assert [(p["name"], p["type"], p["maximum_draw"]) for p in dgx["power-ports"]] == [
        (f"PSU{k}", "iec-60320-c20", 3300) for k in range(1, 7)]
    pdu = yaml.safe_load((folder / "07-device-types" / "pdu-415v-32a-3ph.yaml").read_text(encoding="utf-8"))
    assert pdu["power-ports"] == [{"name": "Input", "type": "iec-60309-3p-n-e-6h", "maximum_draw": 22170}]
    kinds = Counter(o["type"] for o in pdu["power-outlets"])
    assert kinds == {"iec-60320-c13": 30, "iec-60320-c19": 12}
    assert {o["power_port"] for o in pdu["power-outlets"]} == {"Input"}
    # the community library's SN2201 has supply bays, no power ports: its devices' ports are rows of their own
    sn2201 = yaml.safe_load((folder / "07-device-types" / "sn2201.yaml").read_text(encoding="utf-8"))
    assert "power-ports" not in sn2201
    assert Counter(p["name"] for p in read(folder, "13-power-ports.csv")) == {"PSU1": 10, "PSU2": 10}


def test_an_nvl72_takes_eight_feeds_on_its_shelves(catalog, tmp_path):
    write_netbox(analyze(load(GB200_NVL72_SU, catalog), catalog), tmp_path / "nb")
    feeds = read(tmp_path / "nb", "16-feed-cables.csv")
    on_system = Counter(c["side_b_device"] for c in feeds if c["side_b_name"].startswith("PS"))
    assert len(on_system) == 8 and set(on_system.values()) == {8}


def test_a_large_file_is_split_into_parts_listed_in_order_and_read_back_whole(catalog, four):
    project, folder, account = four
    cables = parts(folder, "10-cables.csv")
    rows = read(folder, "10-cables.csv")
    n = len(rows)
    assert n > 2556 and f"{n:,} cables" in account  # the fabrics' 2,556 and the management networks'
    assert [p.name for p in cables] == [f"10-cables-part{k:02d}.csv" for k in range(1, -(-n // 500) + 1)]
    assert not (folder / "10-cables.csv").exists()
    assert all(len(read_part) <= ROWS_PER_PART["10-cables.csv"] for read_part in
               (list(csv.DictReader(p.open(encoding="utf-8", newline=""))) for p in cables))
    readme = (folder / "README.txt").read_text(encoding="utf-8")
    listed = [line.split()[0] for line in readme.splitlines() if line.startswith("  10-cables")]
    assert listed == [p.name for p in cables]
    # the labels run on across the parts
    assert [r["label"] for r in rows] == [f"{rows[0]['label'][:-6]}{k:06d}" for k in range(1, n + 1)]
    # PodPlanner's own import reads the parts as one file
    back = read_netbox(folder, catalog)
    assert len(back.racks) == len(project.racks) == 78
    # the folder's parts belong to the export: a second export may replace them
    assert FORMATS["netbox"].owns("10-cables-part03.csv") and not FORMATS["netbox"].owns("10-cables-old.csv")


def test_a_second_export_into_the_folder_leaves_no_part_of_the_first(catalog, four, tmp_path):
    _, folder, _ = four
    import shutil

    target = tmp_path / "nb"
    shutil.copytree(folder, target)
    write_netbox(analyze(load(DGX_B200_SU, catalog), catalog), target)
    # the sample's 700 cables: two parts, where the 4-SU design's six were; its 1,400 interfaces: one file
    assert [p.name for p in parts(target, "10-cables.csv")] == ["10-cables-part01.csv", "10-cables-part02.csv"]
    assert parts(target, "09-interfaces.csv") == [target / "09-interfaces.csv"]
    assert sorted(p.name for p in target.glob("*-part*.csv")) == ["10-cables-part01.csv", "10-cables-part02.csv"]
