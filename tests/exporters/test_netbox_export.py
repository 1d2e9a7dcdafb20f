"""The NetBox import folder: every file read back and held to the analysis and to NetBox's import forms."""
from __future__ import annotations

import csv
import os
from collections import Counter
from dataclasses import replace

import pytest
from netbox_rows import read

from designer.netbox_parts import parts
import yaml

from catalog.netbox import import_devicetype
from designer.analysis import analyze
from designer.fileformat import load
from designer.samples import DGX_B200_SU, GB200_NVL72_SU
from designer.management.links import management_links
from exporters.base import ExportError
from exporters.netbox_export import (
    COLUMNS,
    COMMUNITY_TYPES,
    FILES,
    TYPES_FOLDER,
    write_netbox,
)

#: The columns NetBox's import forms accept (netbox/dcim/forms/bulk_import.py and
#: netbox/extras/forms/bulk_import.py, Meta.fields) in every release from 4.1.0 on: fields added
#: later (owner, outer_height, side_a_site ...) are left out, so a column here is one 4.1 takes.
NETBOX_41_FIELDS = {
    "00-custom-fields.csv": {"name", "label", "group_name", "type", "object_types", "related_object_type",
                             "required", "description", "search_weight", "filter_logic", "default", "choice_set",
                             "weight", "validation_minimum", "validation_maximum", "validation_regex", "ui_visible",
                             "ui_editable", "is_cloneable", "comments"},
    "01-sites.csv": {"name", "slug", "status", "region", "group", "tenant", "facility", "time_zone", "description",
                     "physical_address", "shipping_address", "latitude", "longitude", "comments", "tags"},
    "02-locations.csv": {"site", "parent", "name", "slug", "status", "tenant", "facility", "description", "tags"},
    "03-manufacturers.csv": {"name", "slug", "description", "tags"},
    "04-device-roles.csv": {"name", "slug", "color", "vm_role", "config_template", "description", "tags"},
    "05-rack-types.csv": {"manufacturer", "model", "slug", "form_factor", "width", "u_height", "starting_unit",
                          "desc_units", "outer_width", "outer_depth", "outer_unit", "mounting_depth", "weight",
                          "max_weight", "weight_unit", "description", "comments", "tags"},
    "06-racks.csv": {"site", "location", "name", "facility_id", "tenant", "status", "role", "rack_type",
                     "form_factor", "serial", "asset_tag", "width", "u_height", "desc_units", "outer_width",
                     "outer_depth", "outer_unit", "mounting_depth", "airflow", "weight", "max_weight", "weight_unit",
                     "description", "comments", "tags"},
    "08-devices.csv": {"name", "role", "tenant", "manufacturer", "device_type", "platform", "serial", "asset_tag",
                       "status", "site", "location", "rack", "position", "face", "latitude", "longitude", "parent",
                       "device_bay", "airflow", "virtual_chassis", "vc_position", "vc_priority", "cluster",
                       "description", "config_template", "comments", "tags"},
    "09-interfaces.csv": {"device", "name", "label", "parent", "bridge", "lag", "type", "speed", "duplex", "enabled",
                          "mark_connected", "wwn", "vdcs", "mtu", "mgmt_only", "description", "mode", "tags"},
    "10-cables.csv": {"side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type", "side_b_name",
                      "type", "status", "tenant", "label", "color", "length", "length_unit", "description",
                      "comments", "tags"},
    # the power files (PowerPanelImportForm, PowerFeedImportForm, PowerPortImportForm, CableImportForm);
    # 16-feed-cables.csv's side_a_site and side_a_power_panel are NetBox 4.4's, as its README says
    "11-power-panels.csv": {"site", "location", "name", "description", "comments", "tags"},
    "12-power-feeds.csv": {"site", "power_panel", "location", "rack", "name", "status", "type", "mark_connected",
                           "supply", "phase", "voltage", "amperage", "max_utilization", "tenant", "description",
                           "comments", "tags"},
    "13-power-ports.csv": {"device", "name", "label", "type", "mark_connected", "maximum_draw", "allocated_draw",
                           "description", "tags"},
    "14-power-outlets.csv": {"device", "name", "label", "type", "color", "mark_connected", "power_port", "feed_leg",
                             "description", "tags"},
    "15-power-cables.csv": {"side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type",
                            "side_b_name", "type", "status", "tenant", "label", "color", "length", "length_unit",
                            "description", "comments", "tags"},
    "16-feed-cables.csv": {"side_a_site", "side_a_power_panel", "side_a_type", "side_a_name", "side_b_device",
                           "side_b_type", "side_b_name", "type", "status", "label", "description"},
}
#: The model each file's custom fields must be assigned to
OBJECT_TYPE = {"01-sites.csv": "dcim.site", "02-locations.csv": "dcim.location", "06-racks.csv": "dcim.rack",
               "08-devices.csv": "dcim.device"}
#: Choice values from netbox/dcim/choices.py
STATUS = {"01-sites.csv": {"planned", "staging", "active", "decommissioning", "retired"},
          "02-locations.csv": {"planned", "staging", "active", "decommissioning", "retired"},
          "06-racks.csv": {"reserved", "available", "planned", "active", "deprecated"},
          "08-devices.csv": {"offline", "active", "planned", "staged", "failed", "inventory", "decommissioning"},
          "10-cables.csv": {"connected", "planned", "decommissioning"},
          "12-power-feeds.csv": {"offline", "active", "planned", "failed"},
          "15-power-cables.csv": {"connected", "planned", "decommissioning"},
          "16-feed-cables.csv": {"connected", "planned", "decommissioning"}}
CABLE_TYPES = {"dac-active", "dac-passive", "mmf", "mmf-om3", "mmf-om4", "smf", "smf-os2", "aoc"}
IB_TYPES = {"infiniband-ndr", "infiniband-xdr", "infiniband-hdr"}
#: the compute fabric's cables' descriptions start with their tier
COMPUTE_TIERS = ("node-leaf", "leaf-spine", "spine-core")




@pytest.fixture(scope="module", params=[DGX_B200_SU, GB200_NVL72_SU], ids=["dgx-b200", "gb200-nvl72"])
def exported(request, catalog, tmp_path_factory):
    analysis = analyze(load(request.param, catalog), catalog)
    folder = tmp_path_factory.mktemp("netbox") / "out"  # not there yet: the export makes it
    account = write_netbox(analysis, folder)
    return analysis, folder, account


def test_folder_holds_every_file_with_the_columns_netbox_41_accepts(exported):
    analysis, folder, account = exported
    written = [path.name for name in FILES for path in parts(folder, name)]
    assert sorted(os.listdir(folder)) == sorted([*written, TYPES_FOLDER, "README.txt"])
    custom = {r["name"]: set(r["object_types"].split(",")) for r in read(folder, "00-custom-fields.csv")}
    for name in FILES:
        for path in parts(folder, name):  # each part with the whole file's header
            with open(path, encoding="utf-8", newline="") as fh:
                header = next(csv.reader(fh))
            assert tuple(header) == COLUMNS[name]
        plain = [c for c in header if not c.startswith("cf_")]
        assert set(plain) <= NETBOX_41_FIELDS[name], name
        for column in (c for c in header if c.startswith("cf_")):
            assert OBJECT_TYPE[name] in custom[column[3:]], (name, column)
        for row in read(folder, name):
            if name in STATUS:
                assert row["status"] in STATUS[name]
    # NetBox's CustomFieldTypeChoices: the hall's facility goes in its one "json" field
    assert {r["type"] for r in read(folder, "00-custom-fields.csv")} <= {"text", "decimal", "json"}
    p = analysis.project
    assert account.startswith(f"{len(p.racks):,} racks, ")


def test_custom_fields_carry_the_three_columns_netbox_requires(exported):
    """NetBox 4.6 and 4.7 refuse a custom field row without search_weight, filter_logic and weight
    ("This field is required."); every row gives NetBox's own defaults (tests/netbox imports it for real)."""
    _, folder, _ = exported
    for row in read(folder, "00-custom-fields.csv"):
        assert (row["search_weight"], row["filter_logic"], row["weight"]) == ("1000", "loose", "100"), row["name"]


def test_racks_keep_their_plan_position_type_and_row(exported, catalog):
    analysis, folder, _ = exported
    rows = read(folder, "06-racks.csv")
    racks = analysis.project.racks
    assert len(rows) == len(racks)
    models = {r["model"]: r for r in read(folder, "05-rack-types.csv")}
    for row, rack in zip(rows, racks):
        assert (row["cf_podplanner_id"], row["name"], row["cf_podplanner_type"]) == (rack.id, rack.name, rack.type)
        assert (float(row["cf_podplanner_x_mm"]), float(row["cf_podplanner_y_mm"])) == (rack.x, rack.y)
        assert float(row["cf_podplanner_rotation_deg"]) == rack.rotation
        assert row["cf_podplanner_row"] == rack.row and row["location"] == "Data hall 1"
        rack_type = models[row["rack_type"]]
        dev = catalog.get(rack.type)
        assert rack_type["slug"] == rack.type
        assert (int(rack_type["u_height"]), float(rack_type["outer_width"]), float(rack_type["outer_depth"])) == (
            dev.rack_units, dev.width_mm, dev.depth_mm)
        assert (rack_type["width"], rack_type["outer_unit"], rack_type["form_factor"]) == ("19", "mm",
                                                                                          "4-post-cabinet")


def test_devices_sit_in_their_racks_at_their_u_and_face(exported, catalog):
    analysis, folder, _ = exported
    p = analysis.project
    rows = read(folder, "08-devices.csv")
    racked = [(r, d) for r in p.racks for d in r.devices]
    assert len(rows) == len(racked) + len(p.floor_devices)
    names = [r["name"] for r in rows]
    assert len({n.lower() for n in names}) == len(names)  # NetBox: unique per site, case-insensitively
    assert max(map(len, names)) <= 64
    roles = {r["name"] for r in read(folder, "04-device-roles.csv")}
    makers = {r["name"] for r in read(folder, "03-manufacturers.csv")}
    zero_u = 0
    for row, (rack, dev) in zip(rows, racked):
        assert (row["cf_podplanner_id"], row["cf_podplanner_name"], row["cf_podplanner_type"]) == (
            dev.id, dev.name, dev.type)
        assert row["rack"] == rack.name and row["face"] == dev.face
        if dev.u is None:  # a 0U PDU: NetBox refuses a position for a 0U type
            zero_u += 1
            assert row["position"] == "" and catalog.get(dev.type).u_height == 0
        else:
            assert float(row["position"]) == dev.u
        assert row["role"] in roles and row["manufacturer"] in makers
    assert zero_u == sum(1 for _, d in racked if d.u is None) > 0
    for row, unit in zip(rows[len(racked):], p.floor_devices):
        assert (row["rack"], row["position"], row["face"]) == ("", "", "")
        assert (float(row["cf_podplanner_x_mm"]), float(row["cf_podplanner_y_mm"])) == (unit.x, unit.y)
        # design ids (names repeat across halls); an air handler serves no rack
        assert row["cf_podplanner_serves"] == ";".join(unit.serves)


def test_every_device_type_is_in_the_folder_the_communitys_under_the_librarys_name(exported, catalog):
    analysis, folder, _ = exported
    used = {d.type for r in analysis.project.racks for d in r.devices} | {
        f.type for f in analysis.project.floor_devices}
    files = sorted(os.listdir(folder / TYPES_FOLDER))
    # every type the design uses has its file: nothing needs fetching from the community library
    assert files == sorted(f"{t}.yaml" for t in used)
    community = used & set(COMMUNITY_TYPES)
    assert community  # both samples hold the SN2201 management switches
    devices = read(folder, "08-devices.csv")
    readme = (folder / "README.txt").read_text(encoding="utf-8")
    for t in community:
        maker, model, path = COMMUNITY_TYPES[t]
        rows = [r for r in devices if r["cf_podplanner_type"] == t]
        assert rows and all((r["manufacturer"], r["device_type"]) == (maker, model) for r in rows)
        doc = yaml.safe_load((folder / TYPES_FOLDER / f"{t}.yaml").read_text(encoding="utf-8"))
        assert (doc["manufacturer"], doc["model"], doc["slug"]) == (maker, model, t)
        assert path in readme  # an admin whose NetBox holds the library's file skips ours
    for name in files:
        # our own catalog reader takes the file back as the same type
        back = import_devicetype(folder / TYPES_FOLDER / name)
        dev = catalog.get(name.removesuffix(".yaml"))
        assert back.id == dev.id and back.u_height == dev.u_height
        assert back.weight_kg == pytest.approx(dev.weight_kg, abs=0.01)
        assert back.part_number == dev.part_number
        rows = [r for r in devices if r["cf_podplanner_type"] == dev.id]
        assert {r["manufacturer"] for r in rows} == {back.manufacturer}


def test_cables_follow_the_wiring_plan_end_to_end(exported):
    analysis, folder, _ = exported
    links = analysis.result("fabric").links()
    cables = read(folder, "10-cables.csv")
    interfaces = read(folder, "09-interfaces.csv")
    storage = analysis.result("storage").fabric
    n_storage = storage.node_links + storage.uplinks
    management = management_links(analysis.project, analysis.catalog)
    # the compute fabric's cables, then the storage fabric's, then the management networks'
    assert len(cables) == len(links) + n_storage + len(management) and len(links) > 500
    assert all(c["description"].startswith("storage ") for c in cables[len(links):len(links) + n_storage])
    assert all(c["description"].split(", ")[0] in ("OOB", "OOB uplink", "in-band", "in-band leaf-spine")
               for c in cables[len(links) + n_storage:])
    assert len({c["label"] for c in cables}) == len(cables)
    devices = {r["name"]: r for r in read(folder, "08-devices.csv")}
    ports = Counter((r["device"], r["name"]) for r in interfaces)
    assert max(ports.values()) == 1  # NetBox: one interface of a name per device
    compute_ends = {(c[f"side_{s}_device"], c[f"side_{s}_name"]) for c in cables[:len(links)] for s in "ab"}
    assert {r["type"] for r in interfaces if (r["device"], r["name"]) in compute_ends} <= IB_TYPES
    # the storage fabric: InfiniBand, or Ethernet where its switches are (GB200's 200 GbE QSFP112: "other"); the
    # management networks' 1 GbE, the management nodes' 100 GbE and the DGX's 400 GbE in-band ports
    assert {r["type"] for r in interfaces} <= IB_TYPES | {"400gbase-x-osfp", "other", "1000base-t",
                                                          "100gbase-x-qsfp28", "400gbase-x-qsfp112"}
    ends = Counter()
    appliance_ends = 0
    for cable, link in zip(cables, links):
        assert cable["status"] == "planned" and cable["type"] in CABLE_TYPES
        assert float(cable["length"]) == link.length_m and cable["length_unit"] == "m"
        assert cable["description"].startswith(f"{link.tier}, rail {link.rail}, ")
        for side, label, port, rack in (("a", link.a_device, link.a_port, link.a_rack),
                                        ("b", link.b_device, link.b_port, link.b_rack)):
            assert cable[f"side_{side}_type"] == "dcim.interface"
            device, name = cable[f"side_{side}_device"], cable[f"side_{side}_name"]
            ends[(device, name)] += 1
            row = devices[device]
            design_name, tray = label.split("/") if "/tray" in label else (label, "")
            assert (row["cf_podplanner_name"], row["rack"]) == (design_name, analysis.project.rack(rack).name)
            if tray:
                assert name == f"{tray}/{port}"
            elif "ufm" in label:
                appliance_ends += 1  # numbered per port: see the next test
            else:
                assert name == port
    for cable in cables[len(links):]:
        for side in "ab":
            ends[(cable[f"side_{side}_device"], cable[f"side_{side}_name"])] += 1
    assert set(ends) == set(ports) and max(ends.values()) == 1  # every interface carries one cable
    assert appliance_ends == 4


def test_appliance_ports_get_one_interface_each(exported):
    _, folder, _ = exported
    ufm = sorted((r["device"], r["name"]) for r in read(folder, "09-interfaces.csv") if "ufm" in r["device"])
    devices = sorted({d for d, _ in ufm})
    assert ufm == [(d, n) for d in devices for n in ("1", "2", "mgmt0")]  # fabric ports, then management


def test_rack_scale_system_is_one_device_with_its_trays_ports(catalog, tmp_path):
    analysis = analyze(load(GB200_NVL72_SU, catalog), catalog)
    write_netbox(analysis, tmp_path)
    nvl = [r for r in read(tmp_path, "08-devices.csv") if r["cf_podplanner_type"] == "gb200-nvl72"]
    assert len(nvl) == 8 and all((r["position"], r["face"]) == ("1", "front") for r in nvl)
    ports = [r["name"] for r in read(tmp_path, "09-interfaces.csv") if r["device"] == nvl[0]["name"]]
    compute = [p for p in ports if p.startswith("tray")]
    assert len(compute) == 18 * 4 and compute[0] == "tray01/1" and "tray18/4" in compute
    # and its storage ports, S1 … S72 (the catalog holds them on the system)
    assert [p for p in ports if not p.startswith("tray")] == [f"S{i}" for i in range(1, 73)]
    cdus = [r for r in read(tmp_path, "08-devices.csv") if r["cf_podplanner_type"] == "cdu-inrow-2mw"]
    assert [r["role"] for r in cdus] == ["CDU", "CDU"]


def test_names_shared_by_devices_are_made_unique_and_deterministic(catalog, tmp_path):
    analysis = analyze(load(DGX_B200_SU, catalog), catalog)
    write_netbox(analysis, tmp_path / "one")
    write_netbox(analysis, tmp_path / "two")
    one = sorted(p.name for p in (tmp_path / "one").glob("*.*"))
    assert one == sorted(p.name for p in (tmp_path / "two").glob("*.*")) and len(one) >= len(FILES) + 1
    for name in one:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    rows = read(tmp_path / "one", "08-devices.csv")
    pdus = [r for r in rows if r["cf_podplanner_name"] == "PDU A1"]
    racks_with = sum(any(d.name == "PDU A1" for d in r.devices) for r in analysis.project.racks)
    # every name starts with the site's code, so that designs in sites of their own share one NetBox
    assert len(pdus) == racks_with > 20 and [r["name"] for r in pdus[:2]] == ["DGXB200S1SU-SU01-01 PDU A1",
                                                                              "DGXB200S1SU-SU01-02 PDU A1"]
    assert any(r["name"] == "DGXB200S1SU-dgx-0001" and r["cf_podplanner_name"] == "dgx-0001" for r in rows)
    assert all(r["name"].startswith("DGXB200S1SU-") for r in rows)
    labels = [r["label"] for r in read(tmp_path / "one", "10-cables.csv")]
    assert labels[:2] == ["DGXB200S1SU-W000001", "DGXB200S1SU-W000002"] and len(set(labels)) == len(labels)


def test_a_design_netbox_cannot_take_is_refused(catalog, tmp_path):
    analysis = analyze(load(DGX_B200_SU, catalog), catalog)
    empty = analyze(replace(analysis.project, racks=(), floor_devices=()), catalog)
    with pytest.raises(ExportError, match="no racks"):
        write_netbox(empty, tmp_path / "empty")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ExportError, match="is a file"):
        write_netbox(analysis, tmp_path / "file")


def test_a_long_device_name_is_shortened_for_netbox_and_kept_whole_for_the_round_trip(catalog, tmp_path):
    import csv as _csv
    from dataclasses import replace

    from designer.analysis import analyze
    from designer.fileformat import load
    from designer.netbox_import import read_netbox
    from designer.samples import DGX_B200_SU
    from exporters.netbox_export import write_netbox
    from exporters.netbox_names import DEVICE_NAME_MAX

    project = load(DGX_B200_SU, catalog)
    rack = project.racks[0]
    long_name = "Primary compute node with an unusually descriptive name, " * 2 + "first"
    dev = replace(rack.devices[0], name=long_name)
    project = project.with_racks([replace(rack, devices=(dev, *rack.devices[1:]))])
    write_netbox(analyze(project, catalog), tmp_path / "nb")
    with open(tmp_path / "nb" / "08-devices.csv", encoding="utf-8") as fh:
        row = next(r for r in _csv.DictReader(fh) if r["cf_podplanner_id"] == dev.id)
    assert len(row["name"]) <= DEVICE_NAME_MAX and row["name"].endswith(f"({dev.id})")
    back = read_netbox(tmp_path / "nb", catalog)
    assert back.racks[0].devices[0].name == long_name


# -- a twin-plane Spectrum-X fabric: 1 SU of DGX B300, two planes of 8 leaves and 4 spines each --------------------

@pytest.fixture(scope="module")
def spectrum_x_folder(spectrum_x, tmp_path_factory):
    folder = tmp_path_factory.mktemp("netbox-sx") / "out"
    write_netbox(spectrum_x, folder)
    return folder


def test_spectrum_x_switches_carry_their_plane_in_a_custom_field(spectrum_x_folder):
    folder = spectrum_x_folder
    fields = {r["name"]: r for r in read(folder, "00-custom-fields.csv")}
    assert fields["podplanner_plane"]["object_types"] == "dcim.device"
    with open(folder / "08-devices.csv", encoding="utf-8", newline="") as fh:
        header = next(csv.reader(fh))
    assert header == [*COLUMNS["08-devices.csv"], "cf_podplanner_plane"]
    assert {c for c in header if not c.startswith("cf_")} <= NETBOX_41_FIELDS["08-devices.csv"]
    devices = read(folder, "08-devices.csv")
    planes = Counter((r["cf_podplanner_plane"], r["cf_podplanner_name"].split("-")[0]) for r in devices
                     if r["cf_podplanner_type"] == "sn5610")
    assert planes == {("A", "leaf"): 8, ("B", "leaf"): 8, ("A", "spine"): 4, ("B", "spine"): 4}
    for r in devices:
        if r["cf_podplanner_type"] == "sn5610":
            assert r["cf_podplanner_name"].startswith(("leaf-a-", "spine-a-") if r["cf_podplanner_plane"] == "A"
                                        else ("leaf-b-", "spine-b-"))
    # a node is cabled to both planes: no plane of its own
    assert {r["cf_podplanner_plane"] for r in devices if r["cf_podplanner_type"] == "dgx-b300"} == {""}
    assert "Twin-plane fabric" in (folder / "README.txt").read_text(encoding="utf-8")


def folder_code(folder) -> str:
    """The site code every device name of the folder starts with."""
    return read(folder, "10-cables.csv")[0]["label"].rsplit("-W", 1)[0]


def test_spectrum_x_cables_and_split_ports_of_both_planes(spectrum_x_folder):
    folder = spectrum_x_folder
    cables = read(folder, "10-cables.csv")
    plane_of = {r["name"]: r["cf_podplanner_plane"] for r in read(folder, "08-devices.csv")}
    per = Counter()
    for c in cables:
        if c["description"].split(", ")[0] not in COMPUTE_TIERS:
            continue  # the storage fabric's and the management networks': of no plane
        tier, plane = c["description"].split(", ")[:2]
        switch = c["side_b_device"]
        assert plane == f"plane {plane_of[switch]}"
        if tier == "leaf-spine":
            assert plane_of[c["side_a_device"]] == plane_of[switch]
        per[plane, tier] += 1
    # per plane: 64 nodes x 8 rails node-leaf, as many leaf-spine (1:1); both planes twice that
    assert per == {("plane A", "node-leaf"): 512, ("plane A", "leaf-spine"): 512,
                   ("plane B", "node-leaf"): 512, ("plane B", "leaf-spine"): 512}
    # a DGX B300's 800G cage carries port 1 on plane A and port 2 on plane B
    code = folder_code(folder)
    dgx = [c for c in cables
           if c["side_a_device"] == f"{code}-dgx-0001" and c["description"].split(", ")[0] in COMPUTE_TIERS]
    assert sorted((c["side_a_name"], plane_of[c["side_b_device"]]) for c in dgx) == sorted(
        [(f"{cage}/1", "A") for cage in range(1, 9)] + [(f"{cage}/2", "B") for cage in range(1, 9)])
    interfaces = read(folder, "09-interfaces.csv")
    assert len(interfaces) == 2 * len(cables)
    fabrics = {(c[f"side_{s}_device"], c[f"side_{s}_name"]) for c in cables for s in "ab"
               if c["description"].split(", ")[0] in COMPUTE_TIERS or c["description"].startswith("storage ")}
    of_fabrics = [r for r in interfaces if (r["device"], r["name"]) in fabrics]
    assert {r["type"] for r in of_fabrics} == {"400gbase-x-osfp", "400gbase-x-qsfp112"}  # 400 GbE, not InfiniBand
    # the QSFP112 ones: the nodes' storage ports (BlueField-3)
    assert {r["name"][0] for r in of_fabrics if r["type"] == "400gbase-x-qsfp112"} == {"S"}
    # the management networks': 1 GbE BMC and management ports, the nodes' 100 GbE, the B300s' QSFP112 in-band
    # ports (typed as the 400 G ports they are, run at 200 GbE), the in-band leaves' 200 G lanes of an 800 G cage,
    # which NetBox has no OSFP type for
    assert {r["type"] for r in interfaces if (r["device"], r["name"]) not in fabrics} == {
        "1000base-t", "100gbase-x-qsfp28", "400gbase-x-qsfp112", "other"}
    ends = Counter((c[f"side_{s}_device"], c[f"side_{s}_name"]) for c in cables for s in "ab")
    assert set(ends.values()) == {1} and set(ends) == {(r["device"], r["name"]) for r in interfaces}


def test_spectrum_x_sn5610_type_has_the_librarys_64_osfp_cages(spectrum_x_folder, catalog):
    import yaml

    doc = yaml.safe_load((spectrum_x_folder / TYPES_FOLDER / "sn5610.yaml").read_text(encoding="utf-8"))
    cages = [i for i in doc["interfaces"] if not i.get("mgmt_only")]
    assert [i["name"] for i in cages] == [f"swp{n}" for n in range(1, 65)]
    assert {i["type"] for i in cages} == {"800gbase-x-osfp"}
    assert [i["name"] for i in doc["interfaces"] if i.get("mgmt_only")] == ["eth0"]
    assert doc["console-ports"] == [{"name": "con0", "type": "rj-45"}]
    # read back by the catalog's own library reader, it is still the catalog's SN5610
    dev = import_devicetype(spectrum_x_folder / TYPES_FOLDER / "sn5610.yaml")
    assert dev.id == "sn5610" and any(g.count == 64 and g.cage == "OSFP" for g in dev.ports)
