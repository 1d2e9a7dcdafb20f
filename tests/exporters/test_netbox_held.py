"""A NetBox folder written for a NetBox that already holds other designs (``--netbox-missing-only``): the shared
rows it holds are left out, so the folder imports with no refused row (tests/netbox imports such folders into a
real NetBox)."""
from __future__ import annotations

import csv
import json
from urllib.parse import parse_qs, urlparse

import pytest

from designer.analysis import analyze
from designer.cli import main
from designer.fileformat import load
from designer.netbox_api import NetBoxAPI
from designer.netbox_parts import parts
from designer.samples import DGX_B200_SU
from exporters import cli as export_command
from exporters.netbox_export import write_netbox
from exporters.netbox_held import Held, read_held


def rows(folder, name):
    out = []
    for path in parts(folder, name):
        with open(path, encoding="utf-8", newline="") as fh:
            out += list(csv.DictReader(fh))
    return out


@pytest.fixture(scope="module")
def analysis(catalog):
    return analyze(load(DGX_B200_SU, catalog), catalog)


def test_rows_netbox_holds_are_left_out_and_the_rest_kept(analysis, tmp_path):
    whole = tmp_path / "whole"
    write_netbox(analysis, whole)
    held = Held(url="http://nb.example", custom_fields=frozenset({"podplanner_id", "podplanner_x_mm"}),
                manufacturers=frozenset({"nvidia"}), roles=frozenset({"compute"}),
                rack_types=frozenset(), device_types=frozenset({("nvidia", "sn2201"), "dgx-b200"}))
    part = tmp_path / "part"
    write_netbox(analysis, part, held=held)
    assert {r["name"] for r in rows(whole, "00-custom-fields.csv")} - {r["name"] for r in rows(
        part, "00-custom-fields.csv")} == {"podplanner_id", "podplanner_x_mm"}
    # the library's spelling, "Nvidia": a NetBox finds a clash case-insensitively
    assert "Nvidia" in {r["name"] for r in rows(whole, "03-manufacturers.csv")}
    assert "Nvidia" not in {r["name"] for r in rows(part, "03-manufacturers.csv")}
    assert [r["name"] for r in rows(part, "04-device-roles.csv")] == [
        r["name"] for r in rows(whole, "04-device-roles.csv") if r["slug"] != "compute"]
    assert rows(part, "05-rack-types.csv") == rows(whole, "05-rack-types.csv")
    types = sorted(p.name for p in (part / "07-device-types").glob("*.yaml"))
    assert "sn2201.yaml" not in types and "dgx-b200.yaml" not in types and "qm9700.yaml" in types
    # the site's own rows are all there, still naming the held objects
    for name in ("06-racks.csv", "08-devices.csv", "10-cables.csv", "14-power-cables.csv"):
        assert rows(part, name) == rows(whole, name)
    readme = (part / "README.txt").read_text(encoding="utf-8")
    # 2 custom fields, 1 manufacturer, 1 role, 2 device types
    assert "Written for the NetBox at http://nb.example: the 6 shared objects it already held" in readme


def test_what_a_netbox_holds_is_read_from_its_api():
    answers = {
        "extras/custom-fields": [{"name": "podplanner_id"}],
        "dcim/manufacturers": [{"name": "Nvidia", "slug": "nvidia"}],
        "dcim/device-roles": [{"name": "Network", "slug": "network"}],
        "dcim/rack-types": [{"slug": "nvidia-mgx-rack"}],
        "dcim/device-types": [{"manufacturer": {"name": "Nvidia"}, "model": "SN2201", "slug": "mellanox-sn2201"}],
    }
    asked = []

    def opener(req, timeout):
        url = urlparse(req.full_url)
        endpoint = url.path.removeprefix("/api/").strip("/")
        asked.append((endpoint, parse_qs(url.query)))
        return 200, json.dumps({"results": answers[endpoint], "next": None}).encode()

    held = read_held("http://nb", "t", api=NetBoxAPI("http://nb", "t", opener=opener))
    assert held.custom_fields == {"podplanner_id"}
    assert held.manufacturers == {"nvidia"} and held.roles == {"network"}
    assert held.rack_types == {"nvidia-mgx-rack"}
    assert held.holds_type("Nvidia", "SN2201", "sn2201") and held.holds_type("Other", "X", "mellanox-sn2201")
    assert not held.holds_type("NVIDIA", "DGX B200", "dgx-b200")
    assert {e for e, _ in asked} == set(answers)


def test_missing_only_needs_a_folder_and_a_netbox(tmp_path, capsys):
    rc = main(["export", str(DGX_B200_SU), "--netbox", str(tmp_path / "nb"), "--netbox-missing-only"],
              commands=[export_command])
    assert rc == 2 and "--netbox-missing-only go with --netbox-url URL" in capsys.readouterr().err
    rc = main(["export", str(DGX_B200_SU), "--netbox-url", "http://nb.example", "--netbox-token", "t",
               "--netbox-missing-only"], commands=[export_command])
    assert rc == 2 and "give --netbox DIR" in capsys.readouterr().err
    assert not (tmp_path / "nb").exists()
