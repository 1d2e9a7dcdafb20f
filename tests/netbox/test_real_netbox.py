"""The NetBox folders of the bundled DGX B200 and GB200 NVL72 samples, imported by a real NetBox
(``make test-netbox``).

tools/netbox/netbox_env.py builds and caches NetBox (the ``netbox`` wheel from PyPI, in a Python 3.13
built from Debian's source) and starts it with its own PostgreSQL and Redis on this machine;
tools/netbox/nb_import.py, run by NetBox's Python, posts each file to NetBox's own import page in the
README's order and reports every refused row with NetBox's messages (conftest.py loads both samples, and the
pushed design beside them, into the session's one NetBox). Marked ``netbox``: ``make test`` leaves it out (it
needs the build, root for apt-get on a fresh machine, and minutes).
"""
from __future__ import annotations

import re

import pytest

from tests.netbox.nb_helpers import IMPORTED, api_count, netbox_env, site_id

pytestmark = pytest.mark.netbox


def summary(files) -> str:
    """Per file: rows, created, refused; each message NetBox gave with the rows it gave it for
    (every row and message is in build/netbox-import-report.json)."""
    lines = []
    for f in files:
        lines.append(f"{f['file']}: {f['rows']} rows, {f['present']} present, {f['created']} created, "
                     f"{len(f['refused_rows'])} refused ({f['seconds']} s)")
        by_message: dict[str, list] = {}
        for r in f["refused_rows"]:
            for e in r["errors"]:
                by_message.setdefault(re.sub(r"Object not found: .*", "Object not found: ...", e), []).append(r)
        for message, rows in by_message.items():
            some = ", ".join(f"{r['row']} ({r['first_cell']})" for r in rows[:5])
            lines.append(f"    {len(rows)} rows: {message}  [rows {some}{', ...' if len(rows) > 5 else ''}]")
    return "\n".join(lines)


def test_netbox_is_the_real_one(netbox, loaded):
    assert netbox["status"]["netbox-version"].startswith(netbox_env.NETBOX_VERSION.rsplit(".", 1)[0])
    assert loaded.before == 0  # a fresh database every run


@pytest.mark.parametrize("name", IMPORTED)
def test_every_file_imports_without_a_refused_row(loaded, designs, name):
    files = loaded.imports[name]
    refused = [f for f in files if f["whole_file_errors"] or f["refused_rows"]]
    assert not refused, f"NetBox refused rows of {name}:\n" + summary(files)
    for f in files:
        assert f["created"] == f["rows"], f["file"]
    # every file of the README, each once; the device types a file each
    folder = designs[name].folder
    assert sorted(f["file"] for f in files if "/" not in f["file"]) == sorted(p.name for p in folder.glob("*.csv"))
    assert len([f for f in files if "/" in f["file"]]) == len(list(folder.glob("07-device-types/*.yaml")))


def test_the_second_folder_written_for_this_netbox_leaves_out_what_it_holds(loaded, designs):
    """The NVL72's folder was written for the NetBox holding the B200's shared objects (--netbox-missing-only): it
    left those out, named them as NetBox spells them, and every row of it imported."""
    first, second = (loaded.imports[name] for name in IMPORTED)
    readme = (designs[IMPORTED[1]].folder / "README.txt").read_text(encoding="utf-8")
    assert "Written for the NetBox at " in readme and "shared objects it already held" in readme
    held = {f["whole"]: f["rows"] for f in second if "whole" in f}
    assert held["00-custom-fields.csv"] == 0 and held["05-rack-types.csv"] == 0  # all 16 and the rack type held
    # its own device types (the NVL72, its storage and PDUs) created, the B200's shared ones not sent again
    types = [f for f in second if f["file"].startswith("07-device-types/")]
    assert types and all(f["created"] == 1 for f in types)
    assert {f["file"] for f in types}.isdisjoint({f["file"] for f in first if f["file"].startswith("07-")})


@pytest.mark.parametrize("name", IMPORTED)
def test_netbox_holds_what_the_design_holds(netbox, loaded, designs, name):
    from exporters.netbox_types import slug

    design = designs[name]
    rows: dict[str, int] = {}
    for f in loaded.imports[name]:  # a file's parts summed
        rows[f.get("whole", f["file"])] = rows.get(f.get("whole", f["file"]), 0) + f["rows"]
    expected = {"racks": rows["06-racks.csv"], "devices": rows["08-devices.csv"],
                "interfaces": rows["09-interfaces.csv"], "cables": rows["10-cables.csv"]}
    site = site_id(netbox, slug(design.analysis.project.name[:100]))
    got = {kind: api_count(netbox, f"dcim/{kind}", site_id=site) for kind in expected}
    power = api_count(netbox, "dcim/cables", site_id=site, type="power")
    got["cables"] -= power  # the data cables; the power cables are counted next
    assert got == expected
    # the export's own account ("wrote ...: 23 racks, 123 devices, 1,400 interfaces, 700 cables, ...; power: ...")
    assert got == design.counts
    assert got["racks"] == len(design.analysis.project.racks)
    # the power: a panel per row and side, a feed per rack inlet, a cable per cord and per feed
    panels = api_count(netbox, "dcim/power-panels", site_id=site)
    feeds = api_count(netbox, "dcim/power-feeds", site_id=site)
    assert (panels, feeds) == (rows["11-power-panels.csv"], rows["12-power-feeds.csv"])
    assert power == rows["15-power-cables.csv"] + rows["16-feed-cables.csv"] > 0
    said = re.search(r"power: ([\d,]+) panels?, ([\d,]+) feeds?, ([\d,]+) power cables?", design.account)
    assert [int(x.replace(",", "")) for x in said.groups()] == [panels, feeds, power]
    # every feed reaches its inlet: NetBox marks a feed connected once a cable ends on it
    assert api_count(netbox, "dcim/power-feeds", site_id=site, cabled="true") == feeds
