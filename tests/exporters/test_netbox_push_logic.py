"""The push's bookkeeping against a stand-in for NetBox's REST API, which answers as NetBox does for what the push
reads (choices as ``{"value": ...}``, related objects as ``{"id": ...}``, a device's power ports and outlets made
from its type's templates): a dry run on an empty NetBox, a first push, a second that changes nothing, and a site
pushed before the export had power. NetBox itself takes these pushes in tests/netbox (``make test-netbox``)."""
from __future__ import annotations

import collections
import itertools

import pytest

from designer.analysis import analyze
from designer.fileformat import load
from designer.samples import DGX_B200_SU
from exporters import netbox_export, netbox_types
from exporters.netbox_power import FILES as POWER_FILES
from exporters.netbox_push import push_netbox

CHOICES = {"status", "type", "supply", "phase", "length_unit", "face", "form_factor", "outer_unit", "weight_unit",
           "filter_logic", "airflow"}
RELATED = {"site", "location", "rack", "device", "device_type", "power_panel", "role", "manufacturer", "rack_type",
           "cable"}
TERMINATIONS = {"dcim.interface": "dcim/interfaces", "dcim.powerport": "dcim/power-ports",
                "dcim.poweroutlet": "dcim/power-outlets", "dcim.powerfeed": "dcim/power-feeds"}


class StandIn:
    """Objects by endpoint; ``all`` filters by the fields the push filters by."""

    base = "http://netbox.example"

    def __init__(self):
        self.db = collections.defaultdict(dict)
        self.ids = itertools.count(1)
        self.calls = collections.Counter()
        #: (endpoint, whether its objects may be created by requests side by side, the objects, their group keys),
        #: per create
        self.parallel = []

    def status(self):
        return {"netbox-version": "4.7.3"}

    def _out(self, endpoint, o):
        out = {}
        for k, v in o.items():
            if k in CHOICES and isinstance(v, str):
                out[k] = {"value": v, "label": v}
            elif k in RELATED and isinstance(v, int) or k == "power_port" and isinstance(v, int):
                out[k] = {"id": v}
            else:
                out[k] = v
        if endpoint in ("dcim/device-types", "dcim/rack-types") and isinstance(o.get("manufacturer"), int):
            out["manufacturer"] = {"id": o["manufacturer"],
                                   "name": self.db["dcim/manufacturers"][o["manufacturer"]]["name"]}
        return out

    def _site(self, endpoint, o):
        if endpoint in ("dcim/power-ports", "dcim/power-outlets", "dcim/interfaces"):
            return self.db["dcim/devices"][o["device"]]["site"]
        if endpoint == "dcim/cables":
            return o["_site"]
        if endpoint == "dcim/power-feeds":
            return self.db["dcim/power-panels"][o["power_panel"]]["site"]
        return o.get("site")

    def all(self, endpoint, **filters):
        self.calls[endpoint] += 1
        found = []
        for o in self.db[endpoint].values():
            keep = True
            for k, v in filters.items():
                want = v if isinstance(v, list) else [v]
                key = k[:-3] if k.endswith("_id") else k
                if key in ("brief", "fields"):
                    continue
                got = self._site(endpoint, o) if key == "site" else o.get(key)
                keep &= got in want
            if keep:
                out = self._out(endpoint, o)
                if "fields" in filters:  # NetBox returns the fields asked for alone
                    asked = set(filters["fields"].split(","))
                    out = {k: v for k, v in out.items() if k in asked}
                found.append(out)
        return found

    def create(self, endpoint, objects, parallel=False, groups=None):
        objects = list(objects)
        self.parallel.append((endpoint, parallel, objects, groups))
        made = []
        for o in objects:
            i = next(self.ids)
            o = {**o, "id": i}
            self.db[endpoint][i] = o
            if endpoint == "dcim/devices":  # NetBox makes a device's components from its type's templates
                ports = {}
                for t in [t for t in self.db["dcim/power-port-templates"].values() if t["device_type"] ==
                          o["device_type"]]:
                    j = next(self.ids)
                    ports[t["name"]] = j
                    self.db["dcim/power-ports"][j] = {**{k: v for k, v in t.items() if k not in ("id", "device_type")},
                                                      "id": j, "device": i}
                for t in [t for t in self.db["dcim/power-outlet-templates"].values() if t["device_type"] ==
                          o["device_type"]]:
                    j = next(self.ids)
                    port = next((n for n, pid in ports.items()
                                 if self.db["dcim/power-port-templates"].get(t.get("power_port"), {}).get("name") == n),
                                None)
                    self.db["dcim/power-outlets"][j] = {
                        **{k: v for k, v in t.items() if k not in ("id", "device_type", "power_port")},
                        "id": j, "device": i, "power_port": ports.get(port)}
            if endpoint == "dcim/cables":
                o["_site"] = None
                for t in o["a_terminations"] + o["b_terminations"]:
                    end = self.db[TERMINATIONS[t["object_type"]]][t["object_id"]]
                    end["cable"] = i
                    if "device" in end:
                        o["_site"] = self.db["dcim/devices"][end["device"]]["site"]
            made.append(self._out(endpoint, o))
        return made

    def update(self, endpoint, objects):
        for o in objects:
            self.db[endpoint][o["id"]].update(o)


@pytest.fixture(scope="module")
def sample(catalog):
    return analyze(load(DGX_B200_SU, catalog), catalog)


def _lines(report, word="ower"):
    return {line.split(":")[0]: line.split(": ")[1] for line in report.lines() if word in line}


def test_a_dry_run_then_a_push_then_a_push_that_changes_nothing(sample):
    api = StandIn()
    dry = push_netbox(sample, api.base, "t", dry_run=True, api=api)
    assert dry.changes > 0 and not api.db["dcim/devices"]
    assert _lines(dry)["Power cables"].startswith("324 would create")
    first = push_netbox(sample, api.base, "t", api=api)
    kinds = first.kinds
    # the types bring 304 ports and every outlet; the 20 of the library's switch types are made here
    assert (kinds["Power ports"].created, kinds["Power ports"].unchanged) == (20, 304)
    assert kinds["Power outlets"].created == 0 and kinds["Power outlets"].updated == 0
    assert kinds["Power feeds"].created == 46 and kinds["Power cables"].created == 324
    # side by side: the data cables one by one; interfaces by device (each updates its device's count); power
    # cables by rack (a cable's path ends at its two ports, both in its rack); nothing else
    creates = {(e, objs[0].get("type") == "power" if e == "dcim/cables" else None): (par, objs, groups)
               for e, par, objs, groups in api.parallel}
    assert [e for e, par, _, groups in api.parallel if par or groups] == ["dcim/interfaces", "dcim/cables",
                                                                        "dcim/cables"]
    par, objs, groups = creates[("dcim/cables", False)]
    assert par and groups is None and len(objs) == kinds["Cables"].created
    par, objs, groups = creates[("dcim/interfaces", None)]
    assert not par and groups == [o["device"] for o in objs]
    assert len(set(groups)) == len({o["device"] for o in api.db["dcim/interfaces"].values()}) > 50
    par, objs, groups = creates[("dcim/cables", True)]
    assert not par and len(objs) == 324 and len(set(groups)) == len(api.db["dcim/racks"])
    rack_name = {i: r["name"] for i, r in api.db["dcim/racks"].items()}
    for o, (_, _, rack) in zip(objs, groups):
        port = api.db["dcim/power-ports"][o["b_terminations"][0]["object_id"]]
        assert rack_name[api.db["dcim/devices"][port["device"]]["rack"]] == rack
    second = push_netbox(sample, api.base, "t", api=api)
    assert second.changes == 0
    assert second.kinds["Power cables"].unchanged == 324 and second.kinds["Power outlets"].unchanged == 46 * 42


def test_a_site_pushed_before_power_gets_its_ports_and_outlets(sample, monkeypatch):
    api = StandIn()
    with monkeypatch.context() as m:  # the export as it was: types without power, no power files
        m.setattr(netbox_types, "type_components", lambda dev, catalog: {})
        m.setattr(netbox_export, "power_rows", lambda *a, **k: {name: [] for name in POWER_FILES})
        push_netbox(sample, api.base, "t", api=api)
    assert not api.db["dcim/power-ports"]
    report = push_netbox(sample, api.base, "t", api=api)
    kinds = report.kinds
    assert kinds["Power ports"].created == 324 and kinds["Power outlets"].created == 46 * 42
    assert kinds["Power cables"].created == 324
    assert push_netbox(sample, api.base, "t", api=api).changes == 0
