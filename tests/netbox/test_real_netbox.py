"""The NetBox folder of the bundled DGX B200 sample, imported by a real NetBox (``make test-netbox``).

tools/netbox/netbox_env.py builds and caches NetBox (the ``netbox`` wheel from PyPI, in a Python 3.13
built from Debian's source) and starts it with its own PostgreSQL and Redis on 127.0.0.1;
tools/netbox/nb_import.py, run by NetBox's Python, posts each file to NetBox's own import page in the
README's order and reports every refused row with NetBox's messages. Marked ``netbox``: ``make test``
leaves it out (it needs the build, root for apt-get on a fresh machine, and minutes).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.request
from pathlib import Path

import pytest

from designer.analysis import analyze
from designer.samples import DGX_B200_SU
from designer.fileformat import load
from exporters.netbox_export import write_netbox

import netbox_env  # noqa: E402  (tools/netbox, on the path conftest.py sets)

pytestmark = pytest.mark.netbox

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def design(catalog, tmp_path_factory):
    analysis = analyze(load(DGX_B200_SU, catalog), catalog)
    folder = tmp_path_factory.mktemp("netbox") / "out"
    account = write_netbox(analysis, folder)
    return analysis, folder, account


@pytest.fixture(scope="module")
def imported(netbox, design):
    """The folder imported as it is: it carries every device type it needs (the community library's types too,
    under the library's names), so nothing is fetched from elsewhere."""
    _, folder, _ = design
    proc = subprocess.run([netbox["python"], REPO / "tools" / "netbox" / "nb_import.py", folder, netbox["user"]],
                          env=netbox_env.netbox_env(), capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    result = json.loads(proc.stdout)
    report = Path(os.environ.get("PODPLANNER_NETBOX_REPORT", REPO / "build" / "netbox-import-report.json"))
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(summary(result))
    return result


def summary(result) -> str:
    """Per file: rows, created, refused; each message NetBox gave with the rows it gave it for
    (every row and message is in build/netbox-import-report.json)."""
    lines = []
    for f in result["files"]:
        lines.append(f"{f['file']}: {f['rows']} rows, {f['created']} created, {len(f['refused_rows'])} refused"
                     f" ({f['seconds']} s)")
        by_message: dict[str, list] = {}
        for r in f["refused_rows"]:
            for e in r["errors"]:
                by_message.setdefault(re.sub(r"Object not found: .*", "Object not found: ...", e), []).append(r)
        for message, rows in by_message.items():
            some = ", ".join(f"{r['row']} ({r['first_cell']})" for r in rows[:5])
            lines.append(f"    {len(rows)} rows: {message}  [rows {some}{', ...' if len(rows) > 5 else ''}]")
    return "\n".join(lines)


def api_count(netbox, path: str) -> int:
    request = urllib.request.Request(f"{netbox['url']}/api/{path}/?limit=1", headers={
        "Authorization": netbox["authorization"], "Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)["count"]


def test_netbox_is_the_real_one(netbox):
    assert netbox["status"]["netbox-version"].startswith(netbox_env.NETBOX_VERSION.rsplit(".", 1)[0])
    assert api_count(netbox, "dcim/devices") == 0  # a fresh database every run


def test_every_file_imports_without_a_refused_row(imported):
    refused = [f for f in imported["files"] if f["whole_file_errors"] or f["refused_rows"]]
    assert not refused, "NetBox refused rows:\n" + summary(imported)
    for f in imported["files"]:
        assert f["created"] == f["rows"], f["file"]


def test_netbox_holds_what_the_design_holds(netbox, imported, design):
    _, folder, account = design
    rows = {f["file"]: f["rows"] for f in imported["files"]}
    expected = {"dcim/racks": rows["06-racks.csv"], "dcim/devices": rows["08-devices.csv"],
                "dcim/interfaces": rows["09-interfaces.csv"], "dcim/cables": rows["10-cables.csv"]}
    got = {path: api_count(netbox, path) for path in expected}
    assert got == expected
    # the export's own account ("wrote ...: 23 racks, 123 devices, 1,400 interfaces, 700 cables, ...")
    counted = re.findall(r"([\d,]+) (racks|devices|interfaces|cables)", account)
    said = {f"dcim/{what}": int(n.replace(",", "")) for n, what in counted}
    assert got == said
    analysis = design[0]
    assert got["dcim/racks"] == len(analysis.project.racks)
