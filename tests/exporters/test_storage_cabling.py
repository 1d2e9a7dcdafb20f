"""The storage fabric's links in the cabling CSV and workbook and in the NetBox folder, read back."""
from __future__ import annotations

import csv
from collections import Counter

import openpyxl
import pytest

from designer.netbox_parts import parts

from designer.analysis import analyze
from designer.generate import SuperpodSpec, generate
from designer.netbox_import import read_netbox
from exporters.cabling import COLUMNS, write_cabling_csv
from exporters.cabling_xlsx import LINKS, SUMMARY, write_cabling_xlsx
from exporters.netbox_export import write_netbox


@pytest.fixture(scope="module")
def b200(catalog):
    project = generate(SuperpodSpec(system="dgx-b200", sus=4), catalog).project
    return analyze(project, catalog)


def _csv(path) -> list[dict]:
    """A file's rows, of every part where the NetBox export split it."""
    rows = []
    for part in parts(path.parent, path.name) or [path]:
        with open(part, encoding="utf-8", newline="") as fh:
            rows += list(csv.DictReader(fh))
    return rows


def test_cabling_csv_holds_the_storage_links_after_the_compute_ones(b200, tmp_path):
    write_cabling_csv(b200, tmp_path / "c.csv")
    with open(tmp_path / "c.csv", encoding="utf-8", newline="") as fh:
        header = next(csv.reader(fh))
    # new columns last: the plane and network, then each end's hall and building
    assert header == list(COLUMNS) and header[-6:-4] == ["plane", "network"]
    assert header[-4:] == ["a_hall", "a_building", "b_hall", "b_building"]
    rows = _csv(tmp_path / "c.csv")
    compute = len(b200.result("fabric").links())
    fabric = b200.result("storage").fabric
    n_storage = fabric.node_links + fabric.uplinks
    assert [r["network"] for r in rows[:compute + n_storage]] == ["compute"] * compute + ["storage"] * n_storage
    assert {r["network"] for r in rows[compute + n_storage:]} == {"inband", "oob"}  # the management networks'
    storage = rows[compute:compute + n_storage]
    assert Counter(r["tier"] for r in storage) == {"node-leaf": fabric.node_links, "leaf-spine": fabric.uplinks}
    # every link one fibre here (no splitter): lengths by cable id as the bill orders them
    lengths: dict[str, Counter] = {}
    for r in storage:
        lengths.setdefault(r["cable"], Counter())[float(r["length_m"])] += 1
    assert lengths == fabric.cables
    arrays = [r for r in storage if r["a_device"].startswith("storage-array-")]
    assert Counter(r["a_device"] for r in arrays) == {f"storage-array-{i:04d}": 2 for i in range(1, 9)}
    assert {r["a_port"] for r in arrays} == {"S1", "S2"} and {r["a_rack_name"] for r in arrays} == {"ARRAY-01"}
    first = storage[0]
    assert (first["a_device"], first["a_port"], first["b_device"], first["b_port"], first["rail"]) == (
        "dgx-0001", "S1", "storage-leaf-0001", "1/1", "")
    near, far = f"{first['a_rack_name']} U{first['a_u']}", f"{first['b_rack_name']} U{first['b_u']}"
    assert first["a_label"] == f"{near} S1 > {far} P1/1"


def test_cabling_workbook_counts_the_storage_links_apart(b200, tmp_path):
    write_cabling_xlsx(b200, tmp_path / "c.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "c.xlsx")
    rows = list(wb[LINKS].iter_rows(values_only=True))
    network = Counter(r[rows[0].index("network")] for r in rows[1:])
    fabric = b200.result("storage").fabric
    assert network["storage"] == fabric.node_links + fabric.uplinks
    summary = {r[0]: r[3] for r in wb[SUMMARY].iter_rows(values_only=True) if r and isinstance(r[0], str)}
    assert (summary["storage node-leaf"], summary["storage leaf-spine"]) == (fabric.node_links, fabric.uplinks)


def test_netbox_folder_holds_the_storage_cables_and_appliances(b200, catalog, tmp_path):
    write_netbox(b200, tmp_path / "nb")
    cables = _csv(tmp_path / "nb" / "10-cables.csv")
    compute = len(b200.result("fabric").links())
    fabric = b200.result("storage").fabric
    n_storage = fabric.node_links + fabric.uplinks
    assert len(cables) > compute + n_storage  # the management networks' come last
    assert len({c["label"] for c in cables}) == len(cables)  # unique in the site
    storage = cables[compute:compute + n_storage]
    assert Counter(c["description"].split(", ")[0] for c in storage) == {
        "storage node-leaf": fabric.node_links, "storage leaf-spine": fabric.uplinks}
    interfaces = {(r["device"], r["name"]): r["type"] for r in _csv(tmp_path / "nb" / "09-interfaces.csv")}
    for c in storage:
        for side in "ab":
            assert interfaces[(c[f"side_{side}_device"], c[f"side_{side}_name"])] == "infiniband-ndr"
    devices = {r["name"]: r for r in _csv(tmp_path / "nb" / "08-devices.csv")}
    arrays = [n for n, r in devices.items() if r["cf_podplanner_name"].startswith("storage-array-")]
    assert len(arrays) == 8 and {devices[n]["role"] for n in arrays} == {"Storage"}
    assert (tmp_path / "nb" / "07-device-types" / "wekapod-nitro.yaml").is_file()
    assert sorted(n for (d, n) in interfaces if d == arrays[0]) == ["S1", "S2", "mgmt0", "mgmt1"]
    # the folder reads back as the design: its appliances in their rack
    back = read_netbox(tmp_path / "nb", catalog)
    assert sum(d.type == "wekapod-nitro" for r in back.racks for d in r.devices) == 8
    assert sum(len(r.devices) for r in back.racks) == sum(len(r.devices) for r in b200.project.racks)
