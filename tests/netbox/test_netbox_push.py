"""export --netbox-url: the design pushed into a real NetBox through its REST API (``make test-netbox``).

The DGX B200 sample and a copy of it under another name (so every device name of the one is a device name of
the other, as two SUs of one campus are) go into one fresh NetBox, each into a site of its own; with
``make test-netbox-large`` (about 15 minutes more: NetBox traces every cable's path as it creates it) the GB200
NVL72 sample and a generated 4-SU DGX B200 design join them. Each push creates what the NetBox folder holds,
with no refused object, and NetBox then counts what the design holds; the shared objects (custom fields,
manufacturers, roles, types) are found, not created again. A second push of the same design changes nothing;
a moved rack changes that rack's plan position and nothing else; a dry run writes nothing; a site read back
(``new from-netbox --url``) compares equal to its design.
"""
from __future__ import annotations

import dataclasses
import json
import re
import tempfile
import urllib.request
from pathlib import Path

import pytest

from designer.analysis import analyze
from designer.fileformat import load
from designer.generate.build import generate
from designer.generate.spec import SuperpodSpec
from designer.samples import DGX_B200_SU, GB200_NVL72_SU
from exporters.netbox_export import write_netbox
from exporters.netbox_push import push_netbox

pytestmark = pytest.mark.netbox


def token(state) -> str:
    return state["authorization"].split(" ", 1)[1]


def count(state, path: str, **filters) -> int:
    query = "&".join(f"{k}={v}" for k, v in {"limit": 1, **filters}.items())
    request = urllib.request.Request(f"{state['url']}/api/{path}/?{query}", headers={
        "Authorization": state["authorization"], "Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)["count"]


def site_id(state, slug: str) -> int:
    request = urllib.request.Request(f"{state['url']}/api/dcim/sites/?slug={slug}", headers={
        "Authorization": state["authorization"], "Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)["results"][0]["id"]


@pytest.fixture(scope="module")
def designs(catalog):
    b200 = load(DGX_B200_SU, catalog)
    east = dataclasses.replace(b200, name="DGX B200 SuperPOD East - 1 scalable unit")
    return {"b200": analyze(b200, catalog), "east": analyze(east, catalog)}


@pytest.fixture(scope="module")
def pushed(netbox, designs):
    """Each design pushed once, in turn, into the one NetBox: their reports."""
    return {name: push_netbox(a, netbox["url"], token(netbox)) for name, a in designs.items()}


def _expected(analysis) -> dict[str, int]:
    """What the design's NetBox folder holds, by kind (the push reads that folder)."""
    with tempfile.TemporaryDirectory() as tmp:
        account = write_netbox(analysis, Path(tmp) / "nb")
    return {what: int(n.replace(",", "")) for n, what in re.findall(r"([\d,]+) (racks|devices|interfaces|cables)",
                                                                     account)}


def _holds(netbox, pushed, designs) -> int:
    """Each push created what its design's folder holds; returns the devices of them all."""
    seen = 0
    for name, analysis in designs.items():
        report = pushed[name]
        want = _expected(analysis)
        kinds = report.kinds
        assert kinds["Racks"].created == want["racks"] == len(analysis.project.racks)
        assert kinds["Devices"].created == want["devices"]
        assert kinds["Interfaces"].created == want["interfaces"]
        assert kinds["Cables"].created == want["cables"] > 0
        seen += want["devices"]
    return seen


def test_two_designs_go_into_one_netbox_each_in_its_own_site(netbox, designs, pushed):
    seen = _holds(netbox, pushed, designs)
    assert count(netbox, "dcim/sites") == 2
    assert count(netbox, "dcim/devices") == seen
    # shared objects were created by the first push only: the later one found them
    assert pushed["east"].kinds["Custom fields"].created == 0
    assert pushed["b200"].kinds["Custom fields"].created == 16
    assert pushed["east"].kinds["Manufacturers"].unchanged > 0 and pushed["east"].kinds["Device types"].created == 0


def test_netbox_holds_each_design_in_its_site(netbox, designs, pushed):
    from exporters.netbox_types import slug

    for analysis in designs.values():
        site = site_id(netbox, slug(analysis.project.name[:100]))
        want = _expected(analysis)
        assert count(netbox, "dcim/racks", site_id=site) == want["racks"]
        assert count(netbox, "dcim/devices", site_id=site) == want["devices"]
        assert count(netbox, "dcim/interfaces", site_id=site) == want["interfaces"]
        assert count(netbox, "dcim/cables", site_id=site) == want["cables"]


def test_a_second_push_changes_nothing(netbox, designs, pushed):
    report = push_netbox(designs["b200"], netbox["url"], token(netbox))
    assert report.changes == 0, report.lines()
    assert report.kinds["Devices"].unchanged == _expected(designs["b200"])["devices"]
    assert "POST" not in report.requests and "PATCH" not in report.requests


@pytest.fixture(scope="module")
def large(netbox, designs, pushed, catalog):
    """The GB200 NVL72 sample and a generated 4-SU design pushed beside the others."""
    more = {"nvl72": analyze(load(GB200_NVL72_SU, catalog), catalog),
            "four": analyze(generate(SuperpodSpec(system="dgx-b200", sus=4), catalog).project, catalog)}
    return more, {name: push_netbox(a, netbox["url"], token(netbox)) for name, a in more.items()}


@pytest.mark.netbox_large
def test_the_gb200_sample_and_a_generated_4su_design_join_them(netbox, large):
    more, reports = large
    _holds(netbox, reports, more)
    for report in reports.values():
        assert report.kinds["Custom fields"].created == 0
    assert count(netbox, "dcim/sites") == 4


def test_a_moved_rack_updates_that_rack_alone_and_a_dry_run_writes_nothing(netbox, designs, pushed, catalog):
    analysis = designs["b200"]
    project = analysis.project
    rack = project.racks[3]
    moved = dataclasses.replace(rack, x=rack.x + 600.0)
    project = dataclasses.replace(project, racks=tuple(moved if r.id == rack.id else r for r in project.racks))
    changed = analyze(project, catalog)
    dry = push_netbox(changed, netbox["url"], token(netbox), dry_run=True)
    assert dry.changes == 1 and dry.kinds["Racks"].updated == 1 and dry.kinds["Racks"].fields == {"custom_fields": 1}
    assert "PATCH" not in dry.requests and "POST" not in dry.requests
    report = push_netbox(changed, netbox["url"], token(netbox))
    assert report.changes == 1 and report.kinds["Racks"].fields == {"custom_fields": 1}
    again = push_netbox(changed, netbox["url"], token(netbox))
    assert again.changes == 0


def test_a_pushed_site_read_back_compares_equal_to_its_design(netbox, designs, pushed, catalog, tmp_path,
                                                              monkeypatch):
    """new from-netbox --url: the site read through the API is the design it came from."""
    _read_back(netbox, designs["east"], catalog, tmp_path, monkeypatch)


@pytest.mark.netbox_large
def test_the_gb200_site_read_back_compares_equal_to_its_design(netbox, large, catalog, tmp_path, monkeypatch):
    _read_back(netbox, large[0]["nvl72"], catalog, tmp_path, monkeypatch)


def _placed(project) -> tuple:
    """A design's racks, each with its devices, and its floor units, in id order."""
    racks = sorted((dataclasses.replace(r, devices=tuple(sorted(r.devices, key=lambda d: d.id))) for r in
                    project.racks), key=lambda r: r.id)
    return tuple(racks), tuple(sorted(project.floor_devices, key=lambda f: f.id))


def _read_back(netbox, analysis, catalog, tmp_path, monkeypatch) -> None:
    from designer.cli.main import main
    from designer.compare import compare
    from designer.netbox_site import read_site
    from exporters.netbox_types import slug

    original = analysis.project
    back = read_site(netbox["url"], token(netbox), slug(original.name[:100]), catalog)
    # read in the order the push created them: the design's own (the storage fabric deals nodes to leaves by it)
    assert back.racks == original.racks and back.floor_devices == original.floor_devices
    assert back.halls == original.halls and back.name == original.name
    # NetBox holds no quote and no design settings (PUE, storage tier, workload): they are the original's
    back = dataclasses.replace(back, settings=original.settings, quote=original.quote, workload=original.workload,
                               currency=original.currency, description=original.description)
    doc = compare(analysis, analyze(back, catalog))
    moved = [row["key"] for row in doc["figures"] if row["a"] != row["b"]]
    assert moved == [] and doc["bill"]["added"] == doc["bill"]["removed"] == doc["bill"]["changed"] == []
    # and from the command line
    out = tmp_path / "back.podplan.json"
    monkeypatch.setenv("NETBOX_TOKEN", token(netbox))
    assert main(["new", "from-netbox", "--url", netbox["url"], "--site", slug(original.name[:100]),
                 "-o", str(out)]) == 0
    assert _placed(load(out, catalog)) == _placed(original)
    assert main(["new", "from-netbox", "--url", netbox["url"], "--token", token(netbox), "--site", "no-such-site",
                 "-o", str(tmp_path / "x.json")]) == 2
