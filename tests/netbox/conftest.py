"""The real NetBox of ``make test-netbox``: ONE NetBox for the whole session (tools/netbox/netbox_env.py starts it
and stops it), and the designs loaded into it once, side by side.

What is loaded (the ``loaded`` fixture), each design into a site of its own:

* the DGX B200 sample and the GB200 NVL72 sample through NetBox's own bulk-import pages, the way the folder's
  README tells a person to (tools/netbox/nb_import.py, run by NetBox's Python): the objects every design shares
  first (custom fields, manufacturers, roles, rack and device types: the B200's, then the NVL72's from its folder
  written for this NetBox, ``--netbox-missing-only``, which leaves out what NetBox holds), then each sample's own
  files, its power (panels, feeds, ports, outlets, cords and feed cables) with its interfaces and cables;
* a generated 4-SU DGX B200 design through the REST API (``exporters.netbox_push.push_netbox``).

NetBox creates about ten objects a second on a core, most of the time in cables (it traces each one's path), so
the three are loaded at once: the push in a thread here (it waits on NetBox's server), each sample's interfaces and
cables in a process of its own. Devices are created one design at a time: each device adds one to its device
type's count, a row the designs share, and two transactions taking those rows in different orders would deadlock.
"""
from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from designer.analysis import analyze
from designer.fileformat import load
from designer.generate.build import generate
from designer.generate.spec import SuperpodSpec
from designer.samples import DGX_B200_SU, GB200_NVL72_SU
from designer.netbox_api import NetBoxAPI
from exporters.netbox_export import write_netbox
from exporters.netbox_held import read_held
from exporters.netbox_push import PUSH_WORKERS, push_netbox

from tests.netbox.nb_helpers import (CABLED, IMPORTED, PLACED, PUSHED, REPO, SHARED, Design, Loaded, api_count,
                                     nb_import, netbox_env, token)


#: seconds the push waits for one bulk request
PUSH_TIMEOUT_S = 1200


@pytest.fixture(scope="session")
def netbox():
    """A running NetBox (started here, stopped after the session); its state: url, authorization, python."""
    state = netbox_env.start()
    try:
        yield state
    finally:
        netbox_env.stop()


@pytest.fixture(scope="session")
def designs(catalog, tmp_path_factory) -> dict[str, Design]:
    """The two samples and the generated 4-SU design, each with its NetBox folder."""
    analyses = {"b200": analyze(load(DGX_B200_SU, catalog), catalog),
                "nvl72": analyze(load(GB200_NVL72_SU, catalog), catalog),
                "four": analyze(generate(SuperpodSpec(system="dgx-b200", sus=4), catalog).project, catalog)}
    out = {}
    for name, analysis in analyses.items():
        folder = tmp_path_factory.mktemp(f"netbox-{name}") / "netbox"
        out[name] = Design(analysis, folder, write_netbox(analysis, folder))
    return out


@pytest.fixture(scope="session")
def loaded(netbox, designs) -> Loaded:
    """Every design loaded into the one NetBox (see the module's docstring for the order and why)."""
    result = Loaded(before=api_count(netbox, "dcim/devices"))
    start = time.monotonic()

    def stage(name: str, began: float) -> None:
        result.seconds[name] = round(time.monotonic() - began, 1)

    for k, name in enumerate(IMPORTED):  # the shared objects: the B200's, then the NVL72's NetBox lacks
        t = time.monotonic()
        if k:
            # the second folder written for this NetBox, as its README tells a person to (export --netbox DIR
            # --netbox-url URL --netbox-missing-only): the shared rows NetBox holds left out, so none is refused
            design = designs[name]
            held = read_held(netbox["url"], token(netbox))
            designs[name] = Design(design.analysis, design.folder, write_netbox(design.analysis, design.folder,
                                                                                held=held))
        result.imports[name] = nb_import(netbox, designs[name].folder, SHARED)
        stage(f"{name} shared objects (bulk import)", t)
    for name in IMPORTED:
        t = time.monotonic()
        result.imports[name] += nb_import(netbox, designs[name].folder, PLACED)
        stage(f"{name} sites to devices (bulk import)", t)

    def push() -> object:
        t = time.monotonic()
        # a bulk request of 500 cables takes NetBox minutes on a busy core: a client timeout longer than that
        api = NetBoxAPI(netbox["url"], token(netbox), timeout=PUSH_TIMEOUT_S, workers=PUSH_WORKERS)
        report = push_netbox(designs[PUSHED].analysis, netbox["url"], token(netbox), api=api)
        stage(f"{PUSHED} push (REST API)", t)
        return report

    def cabled(name: str) -> list[dict]:
        t = time.monotonic()
        # the same priority as the push: it keeps two requests in flight all through, so no load is the
        # tail left on one core
        files = nb_import(netbox, designs[name].folder, CABLED)
        stage(f"{name} interfaces and cables (bulk import)", t)
        return files

    with ThreadPoolExecutor(max_workers=1 + len(IMPORTED)) as pool:
        pushing = pool.submit(push)  # the longest: first
        cabling = {name: pool.submit(cabled, name) for name in IMPORTED}
        result.push = pushing.result()
        for name, future in cabling.items():
            result.imports[name] += future.result()
    stage("loading, in all", start)
    report = Path(os.environ.get("PODPLANNER_NETBOX_REPORT", REPO / "build" / "netbox-import-report.json"))
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(json.dumps({"imports": result.imports, "push": result.push.lines(), "seconds": result.seconds},
                                 indent=1), encoding="utf-8")
    print("\n".join(f"{k}: {v} s" for k, v in result.seconds.items()))
    return result
