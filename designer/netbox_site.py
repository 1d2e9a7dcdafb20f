"""A design read from a site of a running NetBox (``podplanner new from-netbox --url URL --token T --site SLUG``).

The site's locations, racks, devices and their types are read through NetBox's REST API and written, in the
columns of the NetBox folder the export writes, to a temporary folder that :func:`designer.netbox_import.read_netbox`
then reads: one reader for a folder and for a NetBox, so both come back alike, with the same checks and the
same errors (a rack without a plan position cannot be placed: NetBox has no floor coordinates, so a site that
PodPlanner did not push needs the ``podplanner_x_mm`` / ``podplanner_y_mm`` custom fields filled). A device type
is taken by its ``podplanner_type`` custom field, else by its slug (a catalog id) or its model. A rack PodPlanner
did not write takes its power limit from its power feeds (:func:`feed_limits_kw`); the PDUs, power shelves and
CDUs are devices like any other. The panels and feeds themselves are not kept: the design makes them again
from its rows and its racks' inlets when it is exported.
"""
from __future__ import annotations

import csv
import json
import tempfile
from pathlib import Path

import yaml

from .netbox_api import NetBoxAPI, NetBoxAPIError
from .netbox_import import DEVICES, LOCATIONS, RACK_TYPES, RACKS, SITES, TYPES_FOLDER, read_netbox
from .settings import Settings

#: the columns each file gets, as the export writes them (the reader needs only these)
COLUMNS = {
    SITES: ("name", "slug", "status", "description", "comments", "cf_podplanner_name"),
    LOCATIONS: ("site", "name", "slug", "status", "cf_podplanner_id", "cf_podplanner_outline_mm",
                "cf_podplanner_tile_mm", "cf_podplanner_power_capacity_kw", "cf_podplanner_cooling_capacity_kw",
                "cf_podplanner_liquid_cooling_capacity_kw", "cf_podplanner_floor_rating_kg_m2",
                "cf_podplanner_power_limit_kw", "cf_podplanner_facility"),
    RACK_TYPES: ("manufacturer", "model", "slug"),
    RACKS: ("site", "location", "name", "status", "rack_type", "cf_podplanner_id", "cf_podplanner_type",
            "cf_podplanner_x_mm", "cf_podplanner_y_mm", "cf_podplanner_rotation_deg", "cf_podplanner_row",
            "cf_podplanner_power_limit_kw", "cf_podplanner_name"),
    DEVICES: ("name", "role", "manufacturer", "device_type", "status", "site", "location", "rack", "position",
              "face", "cf_podplanner_id", "cf_podplanner_name", "cf_podplanner_type", "cf_podplanner_x_mm",
              "cf_podplanner_y_mm", "cf_podplanner_rotation_deg", "cf_podplanner_serves"),
}


class NetBoxSiteError(ValueError):
    """A site that cannot be read: NetBox unreachable, the token refused, no such site; the message says which."""


def _name(obj) -> str:
    return "" if not obj else str(obj.get("name") or obj.get("model") or "")


def _value(obj) -> str:
    """A choice (``{"value": ...}``) or a plain value as the export writes it."""
    if isinstance(obj, dict):
        obj = obj.get("value")
    return "" if obj is None else str(obj)


def _cf(obj: dict, column: str) -> str:
    value = (obj.get("custom_fields") or {}).get(column[3:])
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".")
    return str(value)


def _row(obj: dict, columns: tuple[str, ...], **given: str) -> list[str]:
    return [given[c] if c in given else _cf(obj, c) if c.startswith("cf_") else _value(obj.get(c))
            for c in columns]


def _write(folder: Path, name: str, rows: list[list[str]]) -> None:
    with open(folder / name, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS[name])
        w.writerows(rows)


def feed_limits_kw(feeds: list[dict], power_factor: float | None = None) -> dict[int, float]:
    """Per rack id, the real power its feeds supply with either side lost: the lesser of what its primary and its
    redundant feeds each give, a feed giving NetBox's own ``available_power`` (voltage x amperage, x 1.732 on three
    phases, x its maximum utilisation: volt-amperes) x the power factor. A rack whose feeds are all of one type
    (NetBox's default is primary: a site that never said which is B) is taken as an A/B pair split evenly when it
    has two or more, a single feed when it has one. Feeds without a rack, offline or failed count for nothing."""
    pf = Settings().power_factor if power_factor is None else power_factor
    sides: dict[int, dict[str, list[float]]] = {}
    for f in feeds:
        rack = (f.get("rack") or {}).get("id")
        if rack is None or not f.get("available_power") or _value(f.get("status")) in ("offline", "failed"):
            continue
        kind = _value(f.get("type")) or "primary"
        sides.setdefault(rack, {}).setdefault(kind, []).append(float(f["available_power"]) * pf / 1000.0)
    out = {}
    for rack, by_side in sides.items():
        if len(by_side) > 1:
            out[rack] = min(sum(v) for v in by_side.values())
        else:
            (one,) = by_side.values()
            out[rack] = sum(one) / 2.0 if len(one) > 1 else one[0]
    return {rack: round(kw, 3) for rack, kw in out.items()}


def site_folder(api: NetBoxAPI, slug: str, folder: Path) -> None:
    """Write NetBox's site ``slug`` into ``folder`` as the export's files."""
    sites = api.all("dcim/sites", slug=slug)
    if not sites:
        raise NetBoxSiteError(f"NetBox at {api.base} has no site with the slug {slug!r}")
    site = sites[0]
    sid = site["id"]
    # in the order they were created, which is the design's for a site PodPlanner pushed (NetBox lists by name;
    # the storage fabric deals its nodes to leaves in the design's rack order)
    locations = sorted(api.all("dcim/locations", site_id=sid), key=lambda o: o["id"])
    racks = sorted(api.all("dcim/racks", site_id=sid), key=lambda o: o["id"])
    devices = sorted(api.all("dcim/devices", site_id=sid), key=lambda o: o["id"])
    loc_name = {o["id"]: o["name"] for o in locations}
    _write(folder, SITES, [_row(site, COLUMNS[SITES])])
    _write(folder, LOCATIONS, [_row(o, COLUMNS[LOCATIONS], site=site["name"]) for o in locations])
    rack_types = {o["rack_type"]["id"] for o in racks if o.get("rack_type")}
    types = api.all("dcim/rack-types", id=sorted(rack_types)) if rack_types else []
    _write(folder, RACK_TYPES, [[_name(o.get("manufacturer")), o["model"], o["slug"]] for o in types])
    fed = feed_limits_kw(api.all("dcim/power-feeds", site_id=sid))
    rows = []
    for o in racks:
        given = {"site": site["name"], "location": loc_name.get((o.get("location") or {}).get("id"), ""),
                 "rack_type": _name(o.get("rack_type"))}
        if not _cf(o, "cf_podplanner_power_limit_kw") and not _cf(o, "cf_podplanner_id") and o["id"] in fed:
            # a rack PodPlanner did not write: its limit is what its feeds supply
            given["cf_podplanner_power_limit_kw"] = f"{fed[o['id']]:.4f}".rstrip("0").rstrip(".")
        rows.append(_row(o, COLUMNS[RACKS], **given))
    _write(folder, RACKS, rows)
    dev_types = {o["device_type"]["id"] for o in devices}
    (folder / TYPES_FOLDER).mkdir(exist_ok=True)
    models = {}
    for t in api.all("dcim/device-types", id=sorted(dev_types)) if dev_types else []:
        models[t["id"]] = (_name(t.get("manufacturer")), t["model"])
        doc = {"manufacturer": models[t["id"]][0], "model": t["model"], "slug": t["slug"],
               "u_height": t.get("u_height") or 0}
        (folder / TYPES_FOLDER / f"{t['slug']}.yaml").write_text("---\n" + yaml.safe_dump(doc, sort_keys=False),
                                                                 encoding="utf-8")
    rows = []
    for o in devices:
        maker, model = models.get(o["device_type"]["id"], ("", ""))
        pos = o.get("position")
        rows.append(_row(o, COLUMNS[DEVICES], role=_name(o.get("role")), manufacturer=maker, device_type=model,
                         site=site["name"], location=loc_name.get((o.get("location") or {}).get("id"), ""),
                         rack=_name(o.get("rack")),
                         position="" if pos is None else f"{float(pos):g}", face=_value(o.get("face"))))
    _write(folder, DEVICES, rows)


def read_site(url: str, token: str, slug: str, catalog=None):
    """The design NetBox's site ``slug`` holds, as a Project (the checks of :func:`read_netbox`)."""
    try:
        api = NetBoxAPI(url, token)
        api.status()
        with tempfile.TemporaryDirectory(prefix="podplanner-netbox-site-") as tmp:
            folder = Path(tmp)
            site_folder(api, slug, folder)
            return read_netbox(folder, catalog)
    except NetBoxAPIError as exc:
        raise NetBoxSiteError(str(exc)) from None
