"""The helpers of the NetBox tests (conftest.py's fixtures use them, and so do the tests)."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools" / "netbox"))
import netbox_env  # noqa: E402  (tools/netbox: no package)

#: the bulk-import files every design shares, and each design's own (names without NN- and extension)
SHARED = ("custom-fields", "manufacturers", "device-roles", "rack-types", "device-types")
PLACED = ("sites", "locations", "racks", "devices")
CABLED = ("interfaces", "cables", "power-panels", "power-feeds", "power-ports", "power-outlets", "power-cables",
          "feed-cables")
#: the designs imported through the bulk-import pages, and the one pushed through the API
IMPORTED = ("b200", "nvl72")
PUSHED = "four"


def token(state) -> str:
    return state["authorization"].split(" ", 1)[1]


def api_count(state, path: str, **filters) -> int:
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


def account_counts(account: str) -> dict[str, int]:
    """The export's own account ("wrote ...: 23 racks, 123 devices, 1,400 interfaces, 700 cables, ..."), by kind."""
    return {what: int(n.replace(",", "")) for n, what in re.findall(r"([\d,]+) (racks|devices|interfaces|cables)",
                                                                     account)}


@dataclass
class Design:
    analysis: object
    folder: Path
    #: the export's own account of the folder
    account: str

    @property
    def counts(self) -> dict[str, int]:
        return account_counts(self.account)


@dataclass
class Loaded:
    """What loading came to: per imported design the files' results (nb_import's report), the push's report,
    NetBox's device count before anything was loaded, and the seconds each stage took."""

    before: int
    imports: dict[str, list[dict]] = field(default_factory=dict)
    push: object = None
    seconds: dict[str, float] = field(default_factory=dict)


def nb_import(state, folder: Path, files, skip_present: bool = False) -> list[dict]:
    """tools/netbox/nb_import.py run by NetBox's Python on ``files`` of ``folder``: its per-file results."""
    cmd = [state["python"], REPO / "tools" / "netbox" / "nb_import.py", folder, state["user"], "--only",
           ",".join(files)] + (["--skip-present"] if skip_present else [])
    proc = subprocess.run([str(c) for c in cmd], env=netbox_env.netbox_env(), capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout)["files"]
