"""export --netbox-url: a design pushed into a real NetBox through its REST API (``make test-netbox``).

A generated 4-SU DGX B200 design is pushed into the session's NetBox beside the two samples imported through
NetBox's bulk-import pages (conftest.py loads them all), each into a site of its own. The push creates what the
NetBox folder holds, with no refused object, and NetBox then counts what the design holds; the shared objects
(custom fields, manufacturers, roles, types) that the bulk import made are found, not created again. A second
push of the same design changes nothing; a push of the B200 sample into the site its bulk import made finds it
equal to the design, and with a moved rack changes that rack's plan position and nothing else; a dry run writes
nothing; a site read back (``new from-netbox --url``) compares equal to its design. With ``make
test-netbox-large`` a copy of the B200 sample under another name (every device name of the one is a device name of
the other, as two SUs of one campus are) is pushed too.
"""
from __future__ import annotations

import dataclasses
import re

import pytest

from designer.analysis import analyze
from designer.fileformat import load
from exporters.netbox_export import write_netbox
from exporters.netbox_push import push_netbox

from tests.netbox.nb_helpers import IMPORTED, PUSHED, Design, api_count, site_id, token

pytestmark = pytest.mark.netbox


def _holds(report, design: Design) -> None:
    """The push created what its design's folder holds."""
    want = design.counts
    kinds = report.kinds
    assert kinds["Racks"].created == want["racks"] == len(design.analysis.project.racks)
    assert kinds["Devices"].created == want["devices"]
    assert kinds["Interfaces"].created == want["interfaces"]
    assert kinds["Cables"].created == want["cables"] > 0
    said = re.search(r"power: ([\d,]+) panels?, ([\d,]+) feeds?, ([\d,]+) power cables?", design.account)
    panels, feeds, cords = (int(x.replace(",", "")) for x in said.groups())
    assert (kinds["Power panels"].created, kinds["Power feeds"].created, kinds["Power cables"].created) == (
        panels, feeds, cords)


def test_the_push_creates_what_the_folder_holds_and_finds_the_shared_objects(loaded, designs):
    report = loaded.push
    _holds(report, designs[PUSHED])
    assert report.kinds["Sites"].created == 1
    # the bulk import made the shared objects: the push found them as they are
    assert report.kinds["Custom fields"].created == report.kinds["Custom fields"].updated == 0
    assert report.kinds["Custom fields"].unchanged == 16
    assert report.kinds["Manufacturers"].unchanged > 0 and report.kinds["Device types"].unchanged > 0
    assert sum(t.updated for t in report.kinds.values()) == 0, report.lines()


def _count(netbox, kind: str, **filters) -> int:
    """NetBox's count of ``kind``; of cables the data cables (the power cables are counted with the power)."""
    n = api_count(netbox, f"dcim/{kind}", **filters)
    return n - api_count(netbox, "dcim/cables", type="power", **filters) if kind == "cables" else n


def test_netbox_holds_every_design_each_in_its_site(netbox, loaded, designs):
    assert api_count(netbox, "dcim/sites") == len(designs)
    for kind in ("racks", "devices", "interfaces", "cables"):
        assert _count(netbox, kind) == sum(d.counts[kind] for d in designs.values()), kind
    from exporters.netbox_types import slug

    for design in designs.values():
        site = site_id(netbox, slug(design.analysis.project.name[:100]))
        for kind in ("racks", "devices", "interfaces", "cables"):
            assert _count(netbox, kind, site_id=site) == design.counts[kind], kind


def test_a_second_push_changes_nothing(netbox, loaded, designs):
    design = designs[PUSHED]
    report = push_netbox(design.analysis, netbox["url"], token(netbox))
    assert report.changes == 0, report.lines()
    assert report.kinds["Devices"].unchanged == design.counts["devices"]
    assert report.kinds["Cables"].unchanged == design.counts["cables"]
    assert "POST" not in report.requests and "PATCH" not in report.requests


def test_a_moved_rack_updates_that_rack_alone_and_a_dry_run_writes_nothing(netbox, loaded, designs, catalog):
    """On the B200 sample's site, made by the bulk import: the push finds it equal to the design but the moved rack
    (the two ways into NetBox agree)."""
    assert IMPORTED[0] == "b200"
    analysis = designs["b200"].analysis
    project = analysis.project
    rack = project.racks[3]
    moved = dataclasses.replace(rack, x=rack.x + 600.0)
    project = dataclasses.replace(project, racks=tuple(moved if r.id == rack.id else r for r in project.racks))
    changed = analyze(project, catalog)
    dry = push_netbox(changed, netbox["url"], token(netbox), dry_run=True)
    assert dry.changes == 1 and dry.kinds["Racks"].updated == 1 and dry.kinds["Racks"].fields == {"custom_fields": 1}
    assert dry.kinds["Cables"].unchanged == designs["b200"].counts["cables"]
    assert "PATCH" not in dry.requests and "POST" not in dry.requests
    report = push_netbox(changed, netbox["url"], token(netbox))
    assert report.changes == 1 and report.kinds["Racks"].fields == {"custom_fields": 1}
    again = push_netbox(changed, netbox["url"], token(netbox))
    assert again.changes == 0


def test_the_pushed_site_read_back_compares_equal_to_its_design(netbox, loaded, designs, catalog, tmp_path,
                                                                monkeypatch):
    """new from-netbox --url: the site read through the API is the design it came from."""
    _read_back(netbox, designs[PUSHED].analysis, catalog, tmp_path, monkeypatch)


def test_an_imported_site_read_back_compares_equal_to_its_design(netbox, loaded, designs, catalog, tmp_path,
                                                                 monkeypatch):
    """The same for the GB200 NVL72 sample's site, made by NetBox's bulk import."""
    _read_back(netbox, designs["nvl72"].analysis, catalog, tmp_path, monkeypatch)


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
    # read in the order they were created, the design's own (the storage fabric deals nodes to leaves by it)
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


# -- make test-netbox-large: these run last (they add a site) -------------------------------------------------


@pytest.fixture(scope="session")
def pushed_east(netbox, loaded, designs, catalog, tmp_path_factory):
    b200 = designs["b200"].analysis.project
    analysis = analyze(dataclasses.replace(b200, name="DGX B200 SuperPOD East - 1 scalable unit"), catalog)
    folder = tmp_path_factory.mktemp("netbox-east") / "netbox"
    design = Design(analysis, folder, write_netbox(analysis, folder))
    return design, push_netbox(analysis, netbox["url"], token(netbox))


@pytest.mark.netbox_large
def test_a_copy_of_the_b200_sample_pushed_beside_them(netbox, designs, pushed_east):
    design, report = pushed_east
    _holds(report, design)
    assert report.kinds["Custom fields"].created == 0 and report.kinds["Device types"].created == 0
    assert api_count(netbox, "dcim/sites") == len(designs) + 1
    assert api_count(netbox, "dcim/devices") == sum(d.counts["devices"] for d in [*designs.values(), design])


@pytest.mark.netbox_large
def test_the_copy_read_back_compares_equal_to_its_design(netbox, pushed_east, catalog, tmp_path, monkeypatch):
    _read_back(netbox, pushed_east[0].analysis, catalog, tmp_path, monkeypatch)
