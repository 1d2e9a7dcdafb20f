"""A NetBox folder written for a NetBox that already holds other designs (``--netbox-missing-only``): the shared
rows it holds are left out, so the folder imports with no refused row (tests/netbox imports such folders into a
real NetBox)."""
from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import pytest
from netbox_rows import read as rows

from designer.analysis import analyze
from designer.cli import main
from designer.fileformat import load
from designer.netbox_api import NetBoxAPI
from designer.samples import DGX_B200_SU
from exporters import cli as export_command
from exporters.netbox_export import write_netbox
from exporters.netbox_held import Held, read_held




@pytest.fixture(scope="module")
def analysis(catalog):
    return analyze(load(DGX_B200_SU, catalog), catalog)


def test_rows_netbox_holds_are_left_out_and_the_rest_kept(analysis, tmp_path):
    whole = tmp_path / "whole"
    write_netbox(analysis, whole)
    held = Held(url="http://nb.example", custom_fields=frozenset({"podplanner_id", "podplanner_x_mm"}),
                manufacturers={"nvidia": "Nvidia"}, roles={"compute": "Compute"},
                device_types={("nvidia", "sn2201"): ("Nvidia", "SN2201"),
                              ("nvidia", "dgx-b200"): ("Nvidia", "DGX B200")},
                powered_types=frozenset({("nvidia", "dgx b200")}))
    part = tmp_path / "part"
    write_netbox(analysis, part, held=held)
    assert {r["name"] for r in rows(whole, "00-custom-fields.csv")} - {r["name"] for r in rows(
        part, "00-custom-fields.csv")} == {"podplanner_id", "podplanner_x_mm"}
    # the library's spelling, "Nvidia", held: left out
    assert "Nvidia" in {r["name"] for r in rows(whole, "03-manufacturers.csv")}
    assert "Nvidia" not in {r["name"] for r in rows(part, "03-manufacturers.csv")}
    assert [r["name"] for r in rows(part, "04-device-roles.csv")] == [
        r["name"] for r in rows(whole, "04-device-roles.csv") if r["slug"] != "compute"]
    assert rows(part, "05-rack-types.csv") == rows(whole, "05-rack-types.csv")
    types = sorted(p.name for p in (part / "07-device-types").glob("*.yaml"))
    assert "sn2201.yaml" not in types and "dgx-b200.yaml" not in types and "qm9700.yaml" in types
    # the site's own rows are all there
    for name in ("06-racks.csv", "10-cables.csv", "15-power-cables.csv"):
        assert rows(part, name) == rows(whole, name)
    readme = (part / "README.txt").read_text(encoding="utf-8")
    # 2 custom fields, 1 manufacturer, 1 role, 2 device types
    assert "Written for the NetBox at http://nb.example: the 6 shared objects it already held" in readme


def test_held_objects_are_named_as_netbox_spells_them(analysis, tmp_path):
    """NetBox's import finds a manufacturer, role or type by its exact name: a row names the one NetBox holds."""
    held = Held(url="http://nb", manufacturers={"nvidia": "NVIDIA Corporation", "nvidia corporation":
                                                "NVIDIA Corporation"},
                roles={"compute": "GPU compute"},
                device_types={("nvidia corporation", "dgx-b200"): ("NVIDIA Corporation", "DGX-B200 (8 GPU)")},
                powered_types=frozenset({("nvidia corporation", "dgx-b200 (8 gpu)")}))
    write_netbox(analysis, tmp_path / "nb", held=held)
    devices = rows(tmp_path / "nb", "08-devices.csv")
    dgx = [d for d in devices if d["cf_podplanner_type"] == "dgx-b200"]
    assert {(d["manufacturer"], d["device_type"], d["role"]) for d in dgx} == {
        ("NVIDIA Corporation", "DGX-B200 (8 GPU)", "GPU compute")}
    # a type NetBox does not hold names the held manufacturer as NetBox spells it, in its YAML too
    assert {d["manufacturer"] for d in devices if d["cf_podplanner_type"] == "qm9700"} == {"NVIDIA Corporation"}
    doc = (tmp_path / "nb" / "07-device-types" / "qm9700.yaml").read_text(encoding="utf-8")
    assert "manufacturer: NVIDIA Corporation" in doc
    # a slug matches a type only under its own manufacturer
    other = Held(url="http://nb", device_types={("mellanox", "qm9700"): ("Mellanox", "QM9700")})
    write_netbox(analysis, tmp_path / "nb2", held=other)
    assert (tmp_path / "nb2" / "07-device-types" / "qm9700.yaml").exists()


def test_a_held_type_without_power_components_gets_its_ports_and_outlets_as_rows(analysis, tmp_path):
    """A type an earlier export (before power) put in NetBox has no power templates: NetBox will not make the
    ports, so the folder carries them, and a PDU's outlets."""
    held = Held(url="http://nb", manufacturers={"nvidia": "Nvidia", "apc by schneider electric":
                                                "APC by Schneider Electric"},
                device_types={("nvidia", "dgx-b200"): ("Nvidia", "DGX B200"),
                              ("apc by schneider electric", "pdu-415v-32a-3ph"): (
                                  "APC by Schneider Electric", "Rack PDU, 3-phase 32 A, 22 kW class, 0U (AP8886)")})
    write_netbox(analysis, tmp_path / "nb", held=held)
    ports = rows(tmp_path / "nb", "13-power-ports.csv")
    outlets = rows(tmp_path / "nb", "14-power-outlets.csv")
    assert sum(1 for p in ports if "-dgx-" in p["device"] and p["type"] == "iec-60320-c20") == 31 * 6
    assert sum(1 for p in ports if p["name"] == "Input") == 46
    assert len(outlets) == 46 * 42 and {o["power_port"] for o in outlets} == {"Input"}
    # every cord's two ends are rows or come with a type NetBox makes them from
    ends = {(p["device"], p["name"]) for p in ports} | {(o["device"], o["name"]) for o in outlets}
    cords = rows(tmp_path / "nb", "15-power-cables.csv")
    assert all((c["side_a_device"], c["side_a_name"]) in ends for c in cords)


def test_what_a_netbox_holds_is_read_from_its_api():
    answers = {
        "extras/custom-fields": [{"name": "podplanner_id"}],
        "dcim/manufacturers": [{"name": "Nvidia", "slug": "nvidia"}],
        "dcim/device-roles": [{"name": "Network", "slug": "network"}],
        "dcim/rack-types": [{"id": 3, "manufacturer": {"name": "Nvidia"}, "model": "MGX rack", "slug": "mgx"}],
        "dcim/device-types": [{"id": 7, "manufacturer": {"name": "Nvidia"}, "model": "SN2201",
                               "slug": "mellanox-sn2201"},
                              {"id": 8, "manufacturer": {"name": "Nvidia"}, "model": "DGX B200", "slug": "dgx-b200"}],
        "dcim/power-port-templates": [{"device_type": {"id": 8}, "name": "PSU1"}],
    }
    asked = []

    def opener(req, timeout):
        url = urlparse(req.full_url)
        endpoint = url.path.removeprefix("/api/").strip("/")
        asked.append((endpoint, parse_qs(url.query)))
        return 200, json.dumps({"results": answers[endpoint], "next": None}).encode()

    held = read_held("http://nb", "t", api=NetBoxAPI("http://nb", "t", opener=opener))
    assert held.custom_fields == {"podplanner_id"}
    assert held.manufacturer("NVIDIA") == "Nvidia" and held.role("network") == "Network"
    assert held.rack_type("NVIDIA", "other", "mgx") == ("Nvidia", "MGX rack")
    assert held.device_type("NVIDIA", "SN2201", "sn2201") == ("Nvidia", "SN2201")
    assert held.device_type("Nvidia", "x", "mellanox-sn2201") == ("Nvidia", "SN2201")
    assert held.device_type("Mellanox", "x", "mellanox-sn2201") is None  # a slug is its manufacturer's
    assert held.powered("Nvidia", "DGX B200") and not held.powered("Nvidia", "SN2201")
    assert {e for e, _ in asked} == set(answers)


def test_missing_only_needs_a_folder_and_a_netbox(tmp_path, capsys):
    rc = main(["export", str(DGX_B200_SU), "--netbox", str(tmp_path / "nb"), "--netbox-missing-only"],
              commands=[export_command])
    assert rc == 2 and "--netbox-missing-only go with --netbox-url URL" in capsys.readouterr().err
    rc = main(["export", str(DGX_B200_SU), "--netbox-url", "http://nb.example", "--netbox-token", "t",
               "--netbox-missing-only"], commands=[export_command])
    assert rc == 2 and "give --netbox DIR" in capsys.readouterr().err
    assert not (tmp_path / "nb").exists()
