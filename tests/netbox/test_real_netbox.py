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

from tests.netbox.nb_helpers import IMPORTED, SHARED, api_count, netbox_env, site_id

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


def test_the_second_sample_finds_the_shared_objects_the_first_made(loaded):
    first, second = (loaded.imports[name] for name in IMPORTED)
    assert all(f["present"] == 0 for f in first)
    shared = {re.sub(r"^\d\d-", "", f["file"]).split("/")[0].removesuffix(".csv"): f for f in second}
    assert set(SHARED) <= set(shared)
    held = {f["file"]: f["present"] for f in second if f["present"]}
    assert held["00-custom-fields.csv"] == 16 and held["05-rack-types.csv"] == 1
    assert held["03-manufacturers.csv"] > 0 and any(name.startswith("07-device-types/") for name in held)
    # and it still created what it holds alone (its own device types)
    assert any(f["created"] for f in second if f["file"].startswith("07-device-types/"))


@pytest.mark.parametrize("name", IMPORTED)
def test_netbox_holds_what_the_design_holds(netbox, loaded, designs, name):
    from exporters.netbox_types import slug

    design = designs[name]
    rows = {f["file"]: f["rows"] for f in loaded.imports[name]}
    expected = {"racks": rows["06-racks.csv"], "devices": rows["08-devices.csv"],
                "interfaces": rows["09-interfaces.csv"], "cables": rows["10-cables.csv"]}
    site = site_id(netbox, slug(design.analysis.project.name[:100]))
    got = {kind: api_count(netbox, f"dcim/{kind}", site_id=site) for kind in expected}
    assert got == expected
    # the export's own account ("wrote ...: 23 racks, 123 devices, 1,400 interfaces, 700 cables, ...")
    assert got == design.counts
    assert got["racks"] == len(design.analysis.project.racks)
