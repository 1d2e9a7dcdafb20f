"""The design pushed straight into a NetBox through its REST API (``export FILE --netbox-url URL --netbox-token T``).

What is pushed is what the NetBox folder holds: the folder is written first (to a temporary directory, by
:func:`exporters.netbox_export.write_netbox`) and its files are read back here in the README's order, so the
bulk-import files and the API can never say two different things about one design.

A push is idempotent. Each object is found in NetBox by its natural key (a custom field by its name; a site,
manufacturer, role, rack type or device type by its slug; a location by its site and slug; a rack by its site,
location and name; a device by its site and name; an interface or a component template by its parent and
name; a cable by the interface its A end is on), compared field by field, created when missing, and patched
with only the fields that differ. A second push of the same design changes nothing; a moved rack patches
that rack's custom fields and nothing else. Objects NetBox holds in the site that the design does not are
counted and left as they are: a push never deletes.

A dry run reads what NetBox holds and says what a push would create and change, and writes nothing.
"""
from __future__ import annotations

import csv
import io
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Hashable

import yaml

from catalog.files import read_text

from .base import ExportError
from .cell_text import unescape
from designer.netbox_api import NetBoxAPI, NetBoxAPIError
from designer.netbox_parts import parts

#: a device type's component lists in the devicetype-library's YAML -> the API's template endpoint
COMPONENTS = {"interfaces": "dcim/interface-templates", "console-ports": "dcim/console-port-templates",
              "power-ports": "dcim/power-port-templates", "power-outlets": "dcim/power-outlet-templates",
              "module-bays": "dcim/module-bay-templates", "front-ports": "dcim/front-port-templates",
              "rear-ports": "dcim/rear-port-templates"}
#: the custom fields whose values are numbers, and the one that holds JSON
_DECIMAL_CF = {"podplanner_x_mm", "podplanner_y_mm", "podplanner_rotation_deg", "podplanner_power_limit_kw",
               "podplanner_tile_mm", "podplanner_power_capacity_kw", "podplanner_cooling_capacity_kw",
               "podplanner_liquid_cooling_capacity_kw", "podplanner_floor_rating_kg_m2"}
_JSON_CF = {"podplanner_facility"}
#: columns written as numbers in the files, and whether a whole number
_NUMBERS = {"search_weight": int, "weight": float, "width": int, "u_height": float, "outer_width": float,
            "outer_depth": float, "max_weight": int, "position": float, "length": float}
#: an object not yet created in a dry run: its children refer to this id
PENDING = -1
#: bulk requests of data cables in flight at once: a NetBox served by two worker processes or more (its install
#: guide runs gunicorn with several) creates them side by side; a single worker takes them in turn
PUSH_WORKERS = 2


class NetBoxPushError(ExportError):
    """A push that cannot go on; the message says what NetBox refused or what is missing."""


@dataclass
class Tally:
    """What one kind of object came to: created, updated (and which fields), unchanged, and NetBox's own extra."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    #: field names patched, with how many objects each
    fields: dict[str, int] = field(default_factory=dict)


@dataclass
class PushReport:
    url: str
    dry_run: bool
    netbox_version: str = ""
    kinds: dict[str, Tally] = field(default_factory=dict)
    #: objects of the site NetBox holds that the design has not (never deleted)
    extra: dict[str, int] = field(default_factory=dict)
    requests: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        verb = ("would create", "would update") if self.dry_run else ("created", "updated")
        out = []
        for kind, t in self.kinds.items():
            what = f"{kind}: {t.created:,} {verb[0]}, {t.updated:,} {verb[1]}, {t.unchanged:,} unchanged"
            if t.fields:
                what += " (" + ", ".join(f"{name} on {n:,}" for name, n in sorted(t.fields.items())) + ")"
            out.append(what)
        for kind, n in self.extra.items():
            out.append(f"{kind}: {n:,} in NetBox's site but not in the design (left as they are)")
        return out

    @property
    def changes(self) -> int:
        return sum(t.created + t.updated for t in self.kinds.values())


def _rows(folder: Path, name: str) -> list[dict]:
    """A file's rows (of all its parts, where the export split it)."""
    out = []
    for path in parts(folder, name):
        reader = csv.DictReader(io.StringIO(read_text(path, limit=1 << 30)))
        out += [{k: unescape(v) if isinstance(v, str) else v for k, v in row.items()} for row in reader]
    return out


def _cf(row: dict) -> dict:
    out = {}
    for key, value in row.items():
        if not key.startswith("cf_"):
            continue
        name = key[3:]
        if value in ("", None):
            out[name] = None
        elif name in _DECIMAL_CF:
            out[name] = float(value)
        elif name in _JSON_CF:
            out[name] = json.loads(value)
        else:
            out[name] = value
    return out


def _plain(row: dict, *names: str) -> dict:
    out = {}
    for n in names:
        value = row.get(n, "")
        if value in ("", None):
            continue
        out[n] = _NUMBERS[n](value) if n in _NUMBERS else value
    return out


def _same(want, have) -> bool:
    """Whether a value NetBox holds is the one wanted: a related object by its id, a choice by its value, numbers
    as numbers, custom fields only those the design sets."""
    if isinstance(have, dict) and "id" in have and not isinstance(want, dict):
        return want == have["id"]
    if isinstance(have, dict) and "value" in have and not isinstance(want, dict):
        return want == have["value"]
    if isinstance(want, dict) and isinstance(have, dict):
        return all(_same(v, have.get(k)) for k, v in want.items())
    if isinstance(want, list) and isinstance(have, list):
        return sorted(map(str, want)) == sorted(map(str, have))
    if isinstance(want, (int, float)) and not isinstance(want, bool) and have is not None:
        try:
            return abs(float(have) - float(want)) < 1e-6
        except (TypeError, ValueError):
            return False
    if want is None:
        return have in (None, "", {})
    if isinstance(want, str) and isinstance(have, str):  # NetBox strips the blanks around every text it keeps
        return want.strip() == have.strip()
    return want == have


class _Push:
    def __init__(self, api: NetBoxAPI, dry_run: bool, say: Callable[[str], None]):
        self.api, self.dry_run, self.say = api, dry_run, say
        self.report = PushReport(api.base, dry_run)
        self._pending = 0

    def sync(self, kind: str, endpoint: str, wanted: list[tuple[tuple, dict]], existing: list[dict],
             key_of: Callable[[dict], tuple], parallel: bool = False,
             group_of: Callable[[tuple], Hashable] | None = None) -> dict[tuple, int]:
        """Make NetBox hold ``wanted`` ((natural key, fields) pairs); returns every wanted key's id. ``parallel``:
        the objects to create touch no common row, so their bulk requests may run at once; ``group_of``: of a
        natural key, the group whose objects may touch common rows (requests in flight hold disjoint groups)."""
        have = {key_of(o): o for o in existing}
        tally = self.report.kinds.setdefault(kind, Tally())
        ids: dict[tuple, int] = {}
        create, update, update_keys, create_keys = [], [], [], []
        for key, body in wanted:
            old = have.get(key)
            if old is None:
                create.append(body)
                create_keys.append(key)
                continue
            ids[key] = old["id"]
            changed = {k: v for k, v in body.items() if not _same(v, old.get(k))}
            if changed:
                update.append({"id": old["id"], **changed})
                update_keys.append(key)
                for k in changed:
                    tally.fields[k] = tally.fields.get(k, 0) + 1
            else:
                tally.unchanged += 1
        tally.created += len(create)
        tally.updated += len(update)
        if create or update:
            self.say(f"{kind}: {len(create):,} to create, {len(update):,} to update")
        if self.dry_run:
            for key in create_keys:
                ids[key] = PENDING
            return ids
        groups = [group_of(key) for key in create_keys] if group_of is not None else None
        made = self.api.create(endpoint, create, parallel=parallel, groups=groups) if create else []
        for key, obj in zip(create_keys, made):
            ids[key] = obj["id"]
        if update:
            self.api.update(endpoint, update)
        return ids

    def all(self, endpoint: str, **filters) -> list[dict]:
        """What NetBox holds; nothing under a parent that a dry run has not created yet."""
        if any(v == PENDING for v in filters.values()):
            return []
        return self.api.all(endpoint, **filters)


def push_netbox(analysis, url: str, token: str, *, dry_run: bool = False, api: NetBoxAPI | None = None,
                say: Callable[[str], None] = lambda text: None) -> PushReport:
    """Push ``analysis``' design into the NetBox at ``url``; returns what it created and changed (or would)."""
    from .netbox_export import write_netbox

    try:
        api = api or NetBoxAPI(url, token, workers=PUSH_WORKERS)
        version = str(api.status().get("netbox-version", ""))
    except NetBoxAPIError as exc:
        raise NetBoxPushError(str(exc)) from None
    major = tuple(int(p) for p in version.split("-")[0].split(".")[:2] if p.isdigit())
    if major < (4, 1):
        raise NetBoxPushError(f"NetBox {version or '(unknown)'} at {api.base}: the push needs NetBox 4.1 or later")
    with tempfile.TemporaryDirectory(prefix="podplanner-netbox-") as tmp:
        folder = Path(tmp) / "netbox"
        write_netbox(analysis, folder)
        push = _Push(api, dry_run, say)
        push.report.netbox_version = version
        try:
            _push_folder(push, folder)
        except NetBoxAPIError as exc:
            raise NetBoxPushError(str(exc)) from None
    push.report.requests = dict(api.calls)
    return push.report


def _push_folder(p: _Push, folder: Path) -> None:
    # -- custom fields, site, locations ---------------------------------------------------------------
    rows = _rows(folder, "00-custom-fields.csv")
    wanted = [((r["name"],), {**_plain(r, "name", "label", "group_name", "type", "description", "search_weight",
                                        "filter_logic", "weight"),
                              "object_types": [t.strip() for t in r["object_types"].split(",") if t.strip()]})
              for r in rows]
    for _, body in wanted:
        body["weight"] = int(body["weight"]) if "weight" in body else 100
    p.sync("Custom fields", "extras/custom-fields", wanted,
           p.all("extras/custom-fields", name=[k[0] for k, _ in wanted]), lambda o: (o["name"],))
    sites = {}
    for r in _rows(folder, "01-sites.csv"):
        ids = p.sync("Sites", "dcim/sites",
                     [((r["slug"],), {**_plain(r, "name", "slug", "status", "description", "comments"),
                                      "custom_fields": _cf(r)})],
                     p.all("dcim/sites", slug=r["slug"]), lambda o: (o["slug"],))
        sites[r["name"]] = ids[(r["slug"],)]
    site_ids = sorted(set(sites.values()))
    locations = {}
    rows = _rows(folder, "02-locations.csv")
    wanted = [((sites[r["site"]], r["slug"]), {"site": sites[r["site"]], **_plain(r, "name", "slug", "status"),
                                               "custom_fields": _cf(r)}) for r in rows]
    existing = [o for s in site_ids for o in p.all("dcim/locations", site_id=s)]
    ids = p.sync("Locations", "dcim/locations", wanted, existing, lambda o: (o["site"]["id"], o["slug"]))
    for r in rows:
        locations[(r["site"], r["name"])] = ids[(sites[r["site"]], r["slug"])]
    # -- manufacturers, roles, rack types, device types -----------------------------------------------
    rows = _rows(folder, "03-manufacturers.csv")
    ids = p.sync("Manufacturers", "dcim/manufacturers", [((r["slug"],), _plain(r, "name", "slug")) for r in rows],
                 p.all("dcim/manufacturers", slug=[r["slug"] for r in rows]), lambda o: (o["slug"],))
    makers = {r["name"]: ids[(r["slug"],)] for r in rows}
    rows = _rows(folder, "04-device-roles.csv")
    ids = p.sync("Device roles", "dcim/device-roles",
                 [((r["slug"],), _plain(r, "name", "slug", "color", "description")) for r in rows],
                 p.all("dcim/device-roles", slug=[r["slug"] for r in rows]), lambda o: (o["slug"],))
    roles = {r["name"]: ids[(r["slug"],)] for r in rows}
    rows = _rows(folder, "05-rack-types.csv")
    ids = p.sync("Rack types", "dcim/rack-types",
                 [((r["slug"],), {"manufacturer": _maker(makers, r["manufacturer"]),
                                  **_plain(r, "model", "slug", "form_factor", "width", "u_height", "outer_width",
                                           "outer_depth", "outer_unit", "weight", "max_weight", "weight_unit",
                                           "description")}) for r in rows],
                 p.all("dcim/rack-types", slug=[r["slug"] for r in rows]), lambda o: (o["slug"],))
    rack_types = {r["model"]: ids[(r["slug"],)] for r in rows}
    device_types = _device_types(p, folder, makers)
    # -- racks, devices, interfaces, cables ---------------------------------------------------------
    rows = _rows(folder, "06-racks.csv")
    wanted = [((sites[r["site"]], locations[(r["site"], r["location"])], r["name"]),
               {"site": sites[r["site"]], "location": locations[(r["site"], r["location"])], "name": r["name"],
                "status": r["status"], "rack_type": rack_types[r["rack_type"]], "custom_fields": _cf(r)})
              for r in rows]
    existing = [o for s in site_ids for o in p.all("dcim/racks", site_id=s)]
    rack_ids = p.sync("Racks", "dcim/racks", wanted, existing,
                      lambda o: (o["site"]["id"], (o.get("location") or {}).get("id"), o["name"]))
    racks = {(r["site"], r["location"], r["name"]): rack_ids[k] for r, (k, _) in zip(rows, wanted)}
    _report_extra(p, "Racks", existing, set(rack_ids.values()))
    rows = _rows(folder, "08-devices.csv")
    wanted = []
    for r in rows:
        site = sites[r["site"]]
        body = {"name": r["name"], "role": roles[r["role"]],
                "device_type": _type(device_types, r["manufacturer"], r["device_type"]),
                "status": r["status"], "site": site, "location": locations[(r["site"], r["location"])],
                "rack": racks[(r["site"], r["location"], r["rack"])] if r["rack"] else None,
                "position": float(r["position"]) if r["position"] else None, "face": r["face"] or None,
                "custom_fields": _cf(r)}
        wanted.append(((site, r["name"]), body))
    existing = [o for s in site_ids for o in p.all("dcim/devices", site_id=s)]
    device_ids = p.sync("Devices", "dcim/devices", wanted, existing, lambda o: (o["site"]["id"], o["name"]))
    _report_extra(p, "Devices", existing, set(device_ids.values()))
    devices = {name: device_ids[(site, name)] for site, name in device_ids}
    rows = _rows(folder, "09-interfaces.csv")
    wanted = [((devices[r["device"]], r["name"]), {"device": devices[r["device"]], "name": r["name"],
                                                   "type": r["type"]}) for r in rows]
    # only the fields compared (NetBox 4.0+ ``fields``): a full interface costs NetBox ~3.7 ms to render, these ~0.45
    # (a second push of the 4-SU design read its 6,324 interfaces in 23.3 s, now 2.8 s)
    existing = [o for s in site_ids for o in p.all("dcim/interfaces", site_id=s, fields=_fields(wanted, "cable"))]
    # interfaces of one device update its interface count: a device's go in one request, devices side by side
    iface_ids = p.sync("Interfaces", "dcim/interfaces", wanted, existing, lambda o: (o["device"]["id"], o["name"]),
                       group_of=lambda key: key[0])
    cabled = {(o["device"]["id"], o["name"]): (o.get("cable") or {}).get("id") for o in existing}
    cables = _cables(p, folder, devices, iface_ids, site_ids, cabled)
    _power(p, folder, sites, locations, racks, devices, site_ids, cables)


def _maker(makers: dict, name: str) -> int:
    if name not in makers:
        raise NetBoxPushError(f"manufacturer {name!r} is not in 03-manufacturers.csv")
    return makers[name]


def _type(device_types: dict, manufacturer: str, model: str) -> int:
    found = device_types.get((manufacturer, model))
    if found is None:
        raise NetBoxPushError(f"NetBox has no device type {manufacturer} {model}, and the export carries none: "
                              "import it from the community devicetype-library first (the folder's README names it)")
    return found


def _type_docs(folder: Path) -> list[dict]:
    """The folder's device types, each YAML file read."""
    return [yaml.safe_load(read_text(path, limit=4 << 20))
            for path in sorted((folder / "07-device-types").glob("*.yaml"))]


def _device_types(p: _Push, folder: Path, makers: dict) -> dict[tuple[str, str], int]:
    """The export's device types (YAML) with their component templates; and any type NetBox already holds."""
    docs = _type_docs(folder)
    existing = p.all("dcim/device-types")
    # a type is found by its manufacturer and model (NetBox's own uniqueness): one NetBox already holds from the
    # community library, under its own slug, is used as it is and never rewritten
    theirs = {(o["manufacturer"]["name"], o["model"]) for o in existing if o["slug"] not in {d["slug"] for d in docs}}
    wanted = []
    for doc in docs:
        key = (doc["manufacturer"], doc["model"])
        body = {k: v for k, v in doc.items() if k not in COMPONENTS and k != "manufacturer"}
        body["manufacturer"] = _maker(makers, doc["manufacturer"])
        wanted.append((key, {} if key in theirs else body))
    ids = p.sync("Device types", "dcim/device-types", wanted, existing,
                 lambda o: (o["manufacturer"]["name"], o["model"]))
    out = {(o["manufacturer"]["name"], o["model"]): o["id"] for o in existing}
    out.update(ids)
    docs = [d for d in docs if (d["manufacturer"], d["model"]) not in theirs]  # their components are theirs
    made: dict[str, dict] = {}
    for key, endpoint in COMPONENTS.items():
        wanted = []
        for doc in docs:
            type_id = ids[(doc["manufacturer"], doc["model"])]
            for comp in doc.get(key) or ():
                body = {"device_type": type_id, **comp}
                if key == "power-outlets" and comp.get("power_port"):
                    # the YAML names the outlet's power port; the API takes that template's id
                    body["power_port"] = made["power-ports"].get((type_id, comp["power_port"]), PENDING)
                wanted.append(((type_id, comp["name"]), body))
        if not wanted:
            continue
        type_ids = sorted({k[0] for k, _ in wanted if k[0] != PENDING})
        existing = [o for t in type_ids for o in p.all(endpoint, device_type_id=t)]
        made[key] = p.sync(f"Device type {key.replace('-', ' ')}", endpoint, wanted, existing,
                           lambda o: ((o.get("device_type") or {}).get("id"), o["name"]))
    return out


def _cables(p: _Push, folder: Path, devices: dict, ifaces: dict, site_ids: list[int], cabled: dict) -> dict:
    """The data cables; returns every cable the sites held before, by id (the power cables are among them)."""
    rows = _rows(folder, "10-cables.csv")
    # the fields a data or a power cable compares, and its ends (a cable's other fields cost NetBox its rendering)
    existing = {o["id"]: o for s in site_ids for o in p.all("dcim/cables", site_id=s, fields=CABLE_FIELDS)}
    wanted, have = [], []
    for r in rows:
        a = ifaces[(devices[r["side_a_device"]], r["side_a_name"])]
        b = ifaces[(devices[r["side_b_device"]], r["side_b_name"])]
        body = {"a_terminations": [{"object_type": "dcim.interface", "object_id": a}],
                "b_terminations": [{"object_type": "dcim.interface", "object_id": b}],
                **_plain(r, "type", "status", "length", "length_unit", "label", "description")}
        key = (devices[r["side_a_device"]], r["side_a_name"])
        wanted.append(((a,), body))
        cable_id = cabled.get(key)
        if cable_id in existing:
            have.append({**existing[cable_id], "_a": a})
    for o in have:  # terminations compare by the interfaces' ids
        for side in ("a_terminations", "b_terminations"):
            o[side] = [{"object_type": t.get("object_type"), "object_id": t.get("object_id")} for t in o.get(side, [])]
    # each data cable joins two interfaces no other cable has, and its path ends at them: NetBox's workers can
    # create them side by side
    p.sync("Cables", "dcim/cables", wanted, have, lambda o: (o["_a"],), parallel=True)
    # the site's data cables (its power cables are counted with the power)
    data = [o for o in existing.values()
            if all(t.get("object_type") == "dcim.interface" for t in o.get("a_terminations") or ())]
    _report_extra(p, "Cables", data, {o["id"] for o in have})
    return existing


def _power(p: _Push, folder: Path, sites: dict, locations: dict, racks: dict, devices: dict,
           site_ids: list[int], cables: dict) -> None:
    """Power panels and feeds, every device's power ports and outlets, and the power cables; ``cables``: the
    sites' cables NetBox holds, by id."""
    rows = _rows(folder, "11-power-panels.csv")
    wanted = [((sites[r["site"]], r["name"]),
               {"site": sites[r["site"]], "location": locations[(r["site"], r["location"])],
                **_plain(r, "name", "description")}) for r in rows]
    existing = [o for s in site_ids for o in p.all("dcim/power-panels", site_id=s)]
    ids = p.sync("Power panels", "dcim/power-panels", wanted, existing, lambda o: (o["site"]["id"], o["name"]))
    panels = {(r["site"], r["name"]): ids[k] for r, (k, _) in zip(rows, wanted)}
    rows = _rows(folder, "12-power-feeds.csv")
    wanted = []
    for r in rows:
        panel = panels[(r["site"], r["power_panel"])]
        body = {"power_panel": panel, "rack": racks[(r["site"], r["location"], r["rack"])],
                **_plain(r, "name", "status", "type", "supply", "phase", "description")}
        for n in ("voltage", "amperage", "max_utilization"):
            if r.get(n):
                body[n] = int(r[n])
        wanted.append(((panel, r["name"]), body))
    panel_ids = sorted({i for i in panels.values() if i != PENDING})
    existing = [o for i in panel_ids for o in p.all("dcim/power-feeds", power_panel_id=i)]
    feeds = p.sync("Power feeds", "dcim/power-feeds", wanted, existing,
                   lambda o: (o["power_panel"]["id"], o["name"]))
    feed_cable = {o["id"]: (o.get("cable") or {}).get("id") for o in existing}
    ports, outlets, cabled = _power_components(p, folder, devices, site_ids)
    existing = cables

    def port_id(table: dict, kind: str, device: str, name: str) -> int:
        found = table.get((devices[device], name))
        if found is None:
            if p.dry_run:
                return PENDING
            raise NetBoxPushError(f"NetBox has no {kind} {name!r} on device {device!r}, and this export's "
                                  "device types and 13-power-ports.csv name none")
        return found

    # a power cable's path ends at its two ports (NetBox traces no further than an outlet or a feed), so cables
    # of different racks touch no common row: racks side by side, a rack's cables in one request
    rack_of = {r["name"]: (r["site"], r["location"], r["rack"] or r["name"]) for r in _rows(folder, "08-devices.csv")}
    group: dict[tuple, tuple] = {}
    wanted, have = [], []
    for r in _rows(folder, "15-power-cables.csv"):
        a = port_id(outlets, "power outlet", r["side_a_device"], r["side_a_name"])
        b = port_id(ports, "power port", r["side_b_device"], r["side_b_name"])
        group[(("dcim.poweroutlet", a),)] = rack_of.get(r["side_b_device"], r["side_b_device"])
        wanted.append(((("dcim.poweroutlet", a),), _power_cable(r, "dcim.poweroutlet", a, b)))
        held = cabled.get(("dcim.poweroutlet", a))
        if held in existing:
            have.append({**existing[held], "_a": ("dcim.poweroutlet", a)})
    for r in _rows(folder, "16-feed-cables.csv"):
        a = feeds[(panels[(r["side_a_site"], r["side_a_power_panel"])], r["side_a_name"])]
        b = port_id(ports, "power port", r["side_b_device"], r["side_b_name"])
        group[(("dcim.powerfeed", a),)] = rack_of.get(r["side_b_device"], r["side_b_device"])
        wanted.append(((("dcim.powerfeed", a),), _power_cable(r, "dcim.powerfeed", a, b)))
        if feed_cable.get(a) in existing:
            have.append({**existing[feed_cable[a]], "_a": ("dcim.powerfeed", a)})
    for o in have:
        for side in ("a_terminations", "b_terminations"):
            o[side] = [{"object_type": t.get("object_type"), "object_id": t.get("object_id")} for t in o.get(side, [])]
    p.sync("Power cables", "dcim/cables", wanted, have, lambda o: (o["_a"],), group_of=group.__getitem__)


def _power_components(p: _Push, folder: Path, devices: dict, site_ids: list[int]) -> tuple[dict, dict, dict]:
    """Every device's power ports and outlets, made where missing: those its type brings (NetBox makes them with a
    device, but not on a device made before its type had them) and the rows of 13-power-ports.csv. Returns the
    ids of ports and of outlets by (device id, name), and the cable each holds by (type, id)."""
    types = {(doc["manufacturer"], doc["model"]): doc for doc in _type_docs(folder)}
    wanted_ports, wanted_outlets = [], []
    for r in _rows(folder, "08-devices.csv"):
        doc, dev = types.get((r["manufacturer"], r["device_type"])) or {}, devices[r["name"]]
        for comp in doc.get("power-ports") or ():
            wanted_ports.append(((dev, comp["name"]), {"device": dev, **comp}))
        for comp in doc.get("power-outlets") or ():
            wanted_outlets.append(((dev, comp["name"]), {"device": dev, **comp}))
    for r in _rows(folder, "13-power-ports.csv"):
        body = {"device": devices[r["device"]], **_plain(r, "name", "type", "description")}
        for n in ("maximum_draw", "allocated_draw"):
            if r.get(n):
                body[n] = int(r[n])
        wanted_ports.append(((devices[r["device"]], r["name"]), body))
    have_ports = [o for s in site_ids for o in p.all("dcim/power-ports", site_id=s,
                                                     fields=_fields(wanted_ports, "device", "name", "cable"))]
    ports = p.sync("Power ports", "dcim/power-ports", wanted_ports, have_ports,
                   lambda o: (o["device"]["id"], o["name"]))
    for (dev, _), body in wanted_outlets:  # the YAML names an outlet's port; the API takes the device's port id
        if body.get("power_port"):
            body["power_port"] = ports.get((dev, body["power_port"]), PENDING)
    have_outlets = [o for s in site_ids for o in p.all("dcim/power-outlets", site_id=s,
                                                       fields=_fields(wanted_outlets, "device", "name", "cable"))]
    outlets = p.sync("Power outlets", "dcim/power-outlets", wanted_outlets, have_outlets,
                     lambda o: (o["device"]["id"], o["name"]))
    cabled = {("dcim.powerport", o["id"]): (o.get("cable") or {}).get("id") for o in have_ports}
    cabled.update({("dcim.poweroutlet", o["id"]): (o.get("cable") or {}).get("id") for o in have_outlets})
    return ports, outlets, cabled


def _fields(wanted: list[tuple[tuple, dict]], *more: str) -> str:
    """NetBox's ``fields`` parameter for a read: the id, ``more`` and every field a wanted body compares (a read of
    the 4-SU design's 6,516 power outlets took 14.8 s whole, 2.7 s so)."""
    return ",".join(sorted({"id", *more}.union(*(body for _, body in wanted))))


#: what a push compares of a cable NetBox holds: its ends and the fields of :func:`_cables`' and :func:`_power_cable`'s
#: bodies
CABLE_FIELDS = "id,a_terminations,b_terminations,type,status,length,length_unit,label,description"


def _power_cable(r: dict, a_type: str, a: int, b: int) -> dict:
    return {"a_terminations": [{"object_type": a_type, "object_id": a}],
            "b_terminations": [{"object_type": "dcim.powerport", "object_id": b}],
            **_plain(r, "type", "status", "label", "description")}


def _report_extra(p: _Push, kind: str, existing: list[dict], kept: set[int]) -> None:
    extra = sum(1 for o in existing if o["id"] not in kept)
    if extra:
        p.report.extra[kind] = extra
