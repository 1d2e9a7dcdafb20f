"""export --netbox-url: the design pushed into a real NetBox through its REST API (``make test-netbox``).

The two bundled samples go into one fresh NetBox, each into a site of its own, and (``make test-netbox-large``,
about 10 minutes more: NetBox traces every cable's path as it creates it) a generated 4-SU DGX B200 design
joins them. Each push creates what the NetBox folder holds, with no refused object, and NetBox then counts what
the design holds; the shared objects (custom fields, manufacturers, roles, types) are found, not created again.
A second push of the same design changes nothing; a moved rack changes that rack's plan position and nothing
else; a dry run writes nothing.
"""
from __future__ import annotations

import dataclasses
import json
import re
import sys
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

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools" / "netbox"))
import netbox_env  # noqa: E402  (tools/netbox is no package: found by the path above)


@pytest.fixture(scope="module")
def netbox():
    state = netbox_env.start()
    try:
        yield state
    finally:
        netbox_env.stop()


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
    b200 = analyze(load(DGX_B200_SU, catalog), catalog)
    nvl72 = analyze(load(GB200_NVL72_SU, catalog), catalog)
    return {"b200": b200, "nvl72": nvl72}


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
    assert pushed["nvl72"].kinds["Custom fields"].created == 0
    assert pushed["b200"].kinds["Custom fields"].created == 16
    assert pushed["nvl72"].kinds["Manufacturers"].unchanged > 0


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


@pytest.mark.netbox_large
def test_a_generated_4su_design_joins_them(netbox, designs, pushed, catalog):
    four = analyze(generate(SuperpodSpec(system="dgx-b200", sus=4), catalog).project, catalog)
    report = push_netbox(four, netbox["url"], token(netbox))
    _holds(netbox, {"four": report}, {"four": four})
    assert report.kinds["Custom fields"].created == report.kinds["Manufacturers"].created == 0
    assert count(netbox, "dcim/sites") == 3


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
