"""The design as a folder of NetBox bulk-import files: sites, halls, racks, devices, interfaces and cables.

NetBox (4.1 or later) imports each file in its own *Import* page, in the order of the
file names; README.txt in the folder says which page takes which file.

Where the column names come from: NetBox's import forms, ``netbox/dcim/forms/bulk_import.py``
(SiteImportForm, LocationImportForm, ManufacturerImportForm, DeviceRoleImportForm,
RackTypeImportForm, RackImportForm, DeviceImportForm, InterfaceImportForm, CableImportForm)
and ``netbox/extras/forms/bulk_import.py`` (CustomFieldImportForm), read at v4.6.8 and
compared with v4.0.0, v4.1.0 and v4.3.0; choice values from ``netbox/dcim/choices.py``;
the ``cf_<name>`` column of a custom field from ``netbox/netbox/forms/mixins.py``. Only
columns every release from 4.1 on accepts are written, because an import form refuses
a column it does not know: rack types (``rack_type``) arrived in 4.1, and the cable
form's ``side_a_site`` only in 4.4, so cables name their devices alone, which is why
device names are unique in the whole export, not only per site as NetBox requires.

Where a rack stands: NetBox has no floor coordinates for a rack. The plan position
goes in custom fields (``cf_podplanner_x_mm``, ``cf_podplanner_y_mm``,
``cf_podplanner_rotation_deg``), not in ``comments``: a custom field is a typed,
filterable number NetBox validates on import, and one that our own import reads back
without parsing prose. Custom fields must exist before a file names them, so the folder
starts with ``00-custom-fields.csv``. The design's own ids, names and catalog types
travel the same way, so a folder imported back (:mod:`designer.netbox_import`) gives
the same racks and devices.

Device types: NetBox imports them only as YAML in the community devicetype-library's
format (the format :mod:`catalog.netbox` reads), one file per type in
``07-device-types``, slug = catalog id so that file read by :mod:`catalog.netbox`
gives the same catalog entry back. A type the library already holds is referenced by
the library's manufacturer and model (:data:`COMMUNITY_TYPES`) and its YAML carries those, so
that a NetBox holding the library's file finds it (the API push by model; an admin skips
our file), and every design names the type alike. The
types carry no interface templates: ``09-interfaces.csv`` creates the interfaces the
cables end on, named as the cabling plan names them (a rack-scale system is one
NetBox device, so its trays' ports are ``tray01/1`` ...).

The storage fabric: its links (:mod:`designer.storage.links`) follow the compute fabric's in
``09-interfaces.csv`` and ``10-cables.csv`` (:mod:`.netbox_storage`), their cable labels going on from the
compute fabric's; a node's storage ports are ``S1``, ``S2`` …, a storage switch's ``cage/port``. The storage
appliances are devices of role Storage with their types' YAML like any other.

The management networks: the in-band and out-of-band links (:mod:`designer.management.links`) follow the storage
fabric's (:mod:`.netbox_management`), labelled on from them, each cable's description naming its network
(``OOB``, ``OOB uplink``, ``in-band``, ``in-band leaf-spine``); a system's ports are ``bmc``, ``inband1``,
``inband2``, a switch's or appliance's management port ``mgmt0``; the 1 GbE ones are ``1000base-t``, cabled ``cat6a``.

Twin-plane Ethernet (Spectrum-X) fabrics: a node's 800G cage carries one 400G port of each plane (cage 1:
ports ``1/1``, plane A, and ``1/2``, plane B), and an SN5610 cage two 400G ports of one plane; each is its own
``400gbase-x-osfp`` interface, named as the cabling plan names it. A switch's plane (A, B) goes in the
``podplanner_plane`` custom field, written only for a design of more than one plane, and each cable's
description names its plane. The SN5610's type carries the 64 OSFP cages, the management port and the
console as the community library's SN5610 has them (``swp1`` ... ``swp64``); the split ports the cables
end on are the interfaces of ``09-interfaces.csv`` (on Cumulus Linux, ``1/1`` and ``1/2`` are
``swp1s0`` and ``swp1s1``).
"""
from __future__ import annotations

import csv
import json
import math
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np

from catalog.files import write_atomic
from designer.analysis import Analysis
from designer.fabric import media
from designer.fabric.topology import TIER_NAMES
from designer.fabric.wiring import plane_name, port_name
from designer.facility import NO_FACILITY
from designer.formatting import count
from designer.netbox_parts import split, written as files_of
from designer.power.cords import power_cabling
from designer.quote.lines import cable_part_number
from designer.rack_roles import device_role

from . import pdf_style as st
from .base import ExportError
from .cell_text import csv_cell, csv_text
from .cabling_management import management_cabling
from .cabling_storage import storage_cabling
from .netbox_held import Held, apply_held, held_unpowered
from .netbox_management import ManagementWiring
from .netbox_names import NAME_MAX, _device_names, _location_names, _rack_names, site_code
from .netbox_power import COLUMNS as POWER_COLUMNS, FILES as POWER_FILES, power_rows
from .netbox_readme import readme
from .netbox_storage import StorageWiring
from .netbox_types import (COMMUNITY_TYPES, TYPES_FOLDER, _interface_type,
                           _write_device_types, manufacturer_name, model_name, slug)

FILES = ("00-custom-fields.csv", "01-sites.csv", "02-locations.csv", "03-manufacturers.csv",
         "04-device-roles.csv", "05-rack-types.csv", "06-racks.csv", "08-devices.csv", "09-interfaces.csv",
         "10-cables.csv", *POWER_FILES)
#: everything an export writes into its folder: only these may already be there (an older export)
OWNED = (*FILES, TYPES_FOLDER, "README.txt")

#: (name, label, type, object types, description): the custom fields the other files fill.
CUSTOM_FIELDS = (
    ("podplanner_id", "PodPlanner id", "text", "dcim.location,dcim.rack,dcim.device",
     "The object's id in the PodPlanner design"),
    ("podplanner_type", "PodPlanner type", "text", "dcim.rack,dcim.device", "Catalog id of the rack or device type"),
    ("podplanner_name", "PodPlanner name", "text", "dcim.site,dcim.rack,dcim.device",
     "The design's, rack's or device's own name (NetBox's may be cut or made unique)"),
    ("podplanner_x_mm", "Plan x (mm)", "decimal", "dcim.rack,dcim.device",
     "Centre of the footprint on the hall plan, mm"),
    ("podplanner_y_mm", "Plan y (mm)", "decimal", "dcim.rack,dcim.device",
     "Centre of the footprint on the hall plan, mm"),
    ("podplanner_rotation_deg", "Plan rotation (deg)", "decimal", "dcim.rack,dcim.device",
     "Degrees clockwise; at 0 the front faces -y"),
    ("podplanner_row", "Row", "text", "dcim.rack", "The rack's row on the plan"),
    ("podplanner_serves", "Serves racks", "text", "dcim.device",
     "Racks a floor unit (CDU) serves, by their PodPlanner ids, separated by ;"),
    ("podplanner_outline_mm", "Hall outline (mm)", "text", "dcim.location",
     "The hall's outline as x,y points in mm separated by ;"),
    ("podplanner_tile_mm", "Floor tile (mm)", "decimal", "dcim.location", "Raised-floor tile size"),
    ("podplanner_power_capacity_kw", "Power capacity (kW)", "decimal", "dcim.location",
     "IT power the hall can supply"),
    ("podplanner_cooling_capacity_kw", "Air cooling capacity (kW)", "decimal", "dcim.location",
     "Heat the hall's air system can remove"),
    ("podplanner_liquid_cooling_capacity_kw", "Liquid cooling capacity (kW)", "decimal", "dcim.location",
     "Heat the facility water loop can take from CDUs"),
    ("podplanner_floor_rating_kg_m2", "Floor rating (kg/m²)", "decimal", "dcim.location",
     "Distributed load the floor is rated for"),
    ("podplanner_power_limit_kw", "Rack power limit (kW)", "decimal", "dcim.location,dcim.rack",
     "Per-rack power limit: a rack's own, or on a hall the limit of racks that set none"),
    ("podplanner_facility", "Facility (PodPlanner)", "json", "dcim.location",
     "The hall's busway, UPS, generators, air and water classes and floor tiles, as PodPlanner keeps them"),
)
#: search_weight, filter_logic and weight of every custom field: NetBox's own defaults, written out because
#: NetBox's import form requires the three (a real NetBox 4.6 and 4.7 refuse the file without them)
CUSTOM_FIELD_DEFAULTS = (1000, "loose", 100)
#: the custom field of a twin-plane design: which plane a fabric switch belongs to
PLANE_FIELD = ("podplanner_plane", "Fabric plane", "text", "dcim.device",
               "The compute-fabric plane (A, B) of a twin-plane design's switch; empty on a device of both planes")

ROLE_NAMES = {"compute": "Compute", "rack_scale": "Rack-scale system", "network": "Network", "storage": "Storage",
              "management": "Management", "power": "Power shelf", "pdu": "PDU", "cdu": "CDU",
              "crah": "Air handler"}
#: wiring plan medium -> NetBox cable type
CABLE_TYPES = {"mmf": "mmf", "smf": "smf", "dac": "dac-passive", "acc": "dac-active", "aoc": "aoc"}
#: Racks are 19-inch (EIA-310) cabinets; the catalog gives their outer size, not the rail width.
RACK_WIDTH_IN = 19

COLUMNS = {
    "00-custom-fields.csv": ("name", "label", "group_name", "type", "object_types", "description", "search_weight",
                             "filter_logic", "weight"),
    "01-sites.csv": ("name", "slug", "status", "description", "comments", "cf_podplanner_name"),
    "02-locations.csv": ("site", "name", "slug", "status", "cf_podplanner_id",
                         "cf_podplanner_outline_mm", "cf_podplanner_tile_mm", "cf_podplanner_power_capacity_kw",
                         "cf_podplanner_cooling_capacity_kw", "cf_podplanner_liquid_cooling_capacity_kw",
                         "cf_podplanner_floor_rating_kg_m2", "cf_podplanner_power_limit_kw",
                         "cf_podplanner_facility"),
    "03-manufacturers.csv": ("name", "slug"),
    "04-device-roles.csv": ("name", "slug", "color", "description"),
    "05-rack-types.csv": ("manufacturer", "model", "slug", "form_factor", "width", "u_height", "outer_width",
                          "outer_depth", "outer_unit", "weight", "max_weight", "weight_unit", "description"),
    "06-racks.csv": ("site", "location", "name", "status", "rack_type", "cf_podplanner_id",
                     "cf_podplanner_type", "cf_podplanner_x_mm", "cf_podplanner_y_mm", "cf_podplanner_rotation_deg",
                     "cf_podplanner_row", "cf_podplanner_power_limit_kw", "cf_podplanner_name"),
    "08-devices.csv": ("name", "role", "manufacturer", "device_type", "status", "site", "location", "rack",
                       "position", "face", "cf_podplanner_id", "cf_podplanner_name", "cf_podplanner_type",
                       "cf_podplanner_x_mm", "cf_podplanner_y_mm", "cf_podplanner_rotation_deg",
                       "cf_podplanner_serves"),
    "09-interfaces.csv": ("device", "name", "type"),
    "10-cables.csv": ("side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type", "side_b_name",
                      "type", "status", "length", "length_unit", "label", "description"),
    **POWER_COLUMNS,
}


#: the columns written as numbers (by :func:`num`, or counts), left as they are; every other column is text, and
#: a text a spreadsheet could run as a formula gets a quote in front (:mod:`exporters.cell_text`). A hall's
#: outline is points the export formats itself ("-1200,0;..."), read back as numbers by PodPlanner's import.
NUMBER_COLUMNS = frozenset((
    "position", "length", "width", "u_height", "outer_width", "outer_depth", "weight", "max_weight",
    "cf_podplanner_x_mm", "cf_podplanner_y_mm", "cf_podplanner_rotation_deg", "cf_podplanner_power_limit_kw",
    "cf_podplanner_outline_mm", "cf_podplanner_tile_mm", "cf_podplanner_power_capacity_kw",
    "cf_podplanner_cooling_capacity_kw", "cf_podplanner_liquid_cooling_capacity_kw",
    "cf_podplanner_floor_rating_kg_m2", "voltage", "amperage", "max_utilization", "maximum_draw", "allocated_draw"))


def _role(dev) -> str:
    """A device's NetBox role: its colour role, except that a room air handler is not a CDU and a storage
    appliance (a type that states the throughput it serves) is storage, not management gear."""
    if dev.kind == "crah":
        return "crah"
    return "storage" if dev.is_storage else device_role(dev)


def num(value: float | None) -> str:
    """A number as NetBox's decimal fields take it: at most 4 decimals, no exponent."""
    if value is None:
        return ""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def write_netbox(analysis: Analysis, folder, held: Held | None = None) -> str:
    """Write the folder; ``held``: the shared objects a NetBox already holds, whose rows are left out so that the
    folder imports into that NetBox without a refused row (:mod:`.netbox_held`)."""
    project, catalog = analysis.project, analysis.catalog
    if not project.racks:
        raise ExportError("the design has no racks: place racks and devices first")
    folder = _folder(folder)
    site = (project.name or "PodPlanner design")[:NAME_MAX]
    locations = _location_names(project)
    rack_names = _rack_names(project)
    # every device name and cable label starts with the site's code: NetBox holds many sites, and its import
    # files find a device by its name alone (and a cable label is told apart by its site's code)
    code = site_code(project.name)
    dev_names = _device_names(project, code)
    rows: dict[str, list] = {name: [] for name in FILES}
    wiring = _Wiring(analysis, project)
    storage = StorageWiring(storage_cabling(analysis), catalog)
    planes = wiring.switch_planes()
    fields = CUSTOM_FIELDS + ((PLANE_FIELD,) if planes else ())
    rows["00-custom-fields.csv"] = [(n, label, "PodPlanner", kind, types, desc, *CUSTOM_FIELD_DEFAULTS)
                                    for n, label, kind, types, desc in fields]
    _site_rows(rows, project, site, locations)

    # -- types: one pass over the design ------------------------------------------------------
    device_type = {d.id: d.type for r in project.racks for d in r.devices}
    used_types = Counter(device_type.values()) + Counter(f.type for f in project.floor_devices)
    refs = _type_refs(catalog, used_types)
    rack_models = _type_rows(rows, project, catalog, refs, used_types)
    _device_rows(rows, project, catalog, used_types, refs, site, locations, rack_names, dev_names, rack_models)
    columns = dict(COLUMNS)
    if planes:
        columns["08-devices.csv"] += ("cf_podplanner_plane",)
        id_column = COLUMNS["08-devices.csv"].index("cf_podplanner_id")
        rows["08-devices.csv"] = [(*row, planes.get(row[id_column], "")) for row in rows["08-devices.csv"]]

    # -- interfaces and cables ------------------------------------------------------------------
    technology, port_gbps = _fabric_technology(analysis)
    itype = {t: _interface_type(catalog.get(t), catalog, technology, port_gbps)
             for t in {device_type[d] for d in wiring.cabled_devices}}
    # written as ready-made lines: csv.writer quoting the 900,000 rows of a 100,000-GPU design took over a second
    rows["09-interfaces.csv"] = wiring.interface_lines(dev_names, {d: itype[device_type[d]]
                                                                   for d in wiring.cabled_devices})
    rows["10-cables.csv"] = wiring.cable_lines(dev_names, catalog, f"{code}-")
    # the storage fabric's after the compute fabric's, its cables labelled on from them
    rows["09-interfaces.csv"] += storage.interface_lines(dev_names, csv_field)
    rows["10-cables.csv"] += storage.cable_lines(dev_names, catalog, csv_field, num,
                                                 {m: CABLE_TYPES[m] for m in ("mmf", "smf")},
                                                 len(rows["10-cables.csv"]) + 1, f"{code}-")
    # the management networks' after the storage fabric's
    management = ManagementWiring(management_cabling(analysis))
    rows["09-interfaces.csv"] += management.interface_lines(dev_names, csv_field)
    rows["10-cables.csv"] += management.cable_lines(dev_names, csv_field, num, len(rows["10-cables.csv"]) + 1,
                                                    f"{code}-")

    # -- power: panels, feeds, the ports types do not bring, cords and feed cables -------------------------
    # a device whose type in NetBox brings no power components: the library's types, or one NetBox already held
    ported = {d for d, t in device_type.items() if refs[t] == COMMUNITY_TYPES.get(t, (None, None))[:2]}
    if held is not None:
        ported |= held_unpowered(held, device_type, refs, catalog)
    cabling = power_cabling(project, catalog)
    rows.update(power_rows(project, catalog, cabling, site=site, code=code, locations=locations,
                           rack_names=rack_names, dev_names=dev_names, ported_devices=ported))

    # -- write ------------------------------------------------------------------------------------
    left_out = apply_held(held, rows, columns) if held is not None else 0
    written: dict[str, list[tuple[str, int]]] = {}
    for name in FILES:
        for old in files_of(folder, name):  # an older export's file or parts: this one may split it otherwise
            old.unlink()
        for file_name, part in split(name, rows[name]):
            _write_csv(folder / file_name, columns[name], part)
            written.setdefault(name, []).append((file_name, len(part)))
    yaml_files, types_left_out = _write_device_types(folder, catalog, used_types, refs, held)
    left_out += types_left_out
    community = sorted({COMMUNITY_TYPES[t] for t, ref in refs.items()
                        if t in COMMUNITY_TYPES and ref == COMMUNITY_TYPES[t][:2]})
    write_atomic(folder / "README.txt", readme(site, community, yaml_files, written, planes=bool(planes),
                                              held=(held.url, left_out) if held is not None else None))
    return _account(project, rows, yaml_files, cabling.unplugged, management.links.unconnected)


def _account(project, rows: dict, yaml_files: list, unplugged: int, unconnected: dict) -> str:
    """What the folder holds, in words; and what it could not connect (a supply with no outlet, a management port
    with no free switch port)."""
    power_cables = len(rows['15-power-cables.csv']) + len(rows['16-feed-cables.csv'])
    text = (f"{count(len(project.racks), 'rack')}, {count(len(rows['08-devices.csv']), 'device')}, "
            f"{count(len(rows['09-interfaces.csv']), 'interface')}, {count(len(rows['10-cables.csv']), 'cable')}, "
            f"{count(len(yaml_files), 'device type')}; power: {count(len(rows['11-power-panels.csv']), 'panel')}, "
            f"{count(len(rows['12-power-feeds.csv']), 'feed')}, {count(power_cables, 'power cable')}")
    if unplugged:
        text += f", {count(unplugged, 'supply', 'supplies')} with no outlet"
    left = {k.replace("-", " "): v for k, v in unconnected.items() if v}
    if left:
        text += (f"; {count(sum(left.values()), 'management port')} with no free switch port ("
                 + ", ".join(f"{k} {v:,}" for k, v in left.items()) + ")")
    return text


def _fabric_technology(analysis: Analysis) -> tuple[str, float]:
    """The compute fabric's technology and its speed per port (Gb/s; 0 where the analysis has none)."""
    if not analysis.has("fabric"):
        return "infiniband", 0.0
    fabric = analysis.fabric
    return fabric.technology or "infiniband", float(fabric.port_gbps or 0)


def _folder(folder) -> Path:
    """The export's folder and its device-type folder, made where they are missing."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ExportError(f"{folder} is a file; NetBox files are written into a folder")
    try:
        os.makedirs(folder / TYPES_FOLDER, exist_ok=True)
    except OSError as exc:
        raise ExportError(f"cannot create the folder {folder}: {exc.strerror or exc}") from None
    return folder


def _site_rows(rows: dict[str, list], project, site: str, locations: dict[str, str]) -> None:
    """The site, and a location per hall carrying the hall's outline, tiles, capacities and facility."""
    # NetBox's description holds 200 characters; the whole text goes in comments
    rows["01-sites.csv"].append((site, slug(site), "planned", project.description[:200].strip(), project.description,
                                 project.name))
    # a location's slug need only be unique within its site: the hall's id, never cut off by a long site name
    hall_slugs: dict[str, str] = {}
    for h in project.halls:
        base = slug(h.id)
        hall_slugs[h.id] = base if base not in hall_slugs.values() else slug(f"{base}-{len(hall_slugs) + 1}")
    for h in project.halls:
        outline = ";".join(f"{num(x)},{num(y)}" for x, y in h.outline)
        rows["02-locations.csv"].append((site, locations[h.id], hall_slugs[h.id],
                                         "planned", h.id, outline, num(h.tile_mm), num(h.power_capacity_kw),
                                         num(h.cooling_capacity_kw), num(h.liquid_cooling_capacity_kw),
                                         num(h.floor_rating_kg_m2), num(h.rack_power_limit_kw),
                                         json.dumps(h.facility.to_json(), sort_keys=True)
                                         if h.facility != NO_FACILITY else ""))


def _type_refs(catalog, used_types) -> dict[str, tuple[str, str]]:
    """(manufacturer, model) each device row names its type by: the community library's where it has the type,
    else this export's own; the same in every design, so designs pushed into one NetBox share their types (the
    cables end on the interfaces of 09-interfaces.csv, never on a type's templates); two types named alike are
    refused."""
    def type_ref(type_id: str) -> tuple[str, str]:
        if type_id in COMMUNITY_TYPES:
            return COMMUNITY_TYPES[type_id][:2]
        dev = catalog.get(type_id)
        return manufacturer_name(dev.manufacturer), model_name(dev)

    refs = {t: type_ref(t) for t in used_types}
    models_seen: dict[tuple[str, str], str] = {}
    for t, (m, model) in refs.items():
        other = models_seen.setdefault((m, model.lower()), t)
        if other != t:
            raise ExportError(f"catalog types {other} and {t} would both be {m} {model} in NetBox")
    return refs


def _type_rows(rows: dict[str, list], project, catalog, refs, used_types) -> dict[str, str]:
    """The manufacturers, device roles and rack types; returns the model name of each rack type."""
    rack_types = sorted({r.type for r in project.racks})
    manufacturers = sorted({m for m, _ in refs.values()} | {manufacturer_name(catalog.get(t).manufacturer)
                                                             for t in rack_types})
    rows["03-manufacturers.csv"] = [(m, slug(m)) for m in manufacturers]
    roles = sorted({_role(catalog.get(t)) for t in used_types}, key=list(ROLE_NAMES).index)
    rows["04-device-roles.csv"] = [(ROLE_NAMES[r], slug(ROLE_NAMES[r]),
                                    st.DEVICE_COLOURS[r].hexval()[2:].lower(), "") for r in roles]
    rack_models = {}
    for t in rack_types:
        dev = catalog.get(t)
        rack_models[t] = model_name(dev)
        units = int(dev.rack_units or dev.u_height or 42)
        rows["05-rack-types.csv"].append((
            manufacturer_name(dev.manufacturer), rack_models[t], slug(t), "4-post-cabinet",
            RACK_WIDTH_IN, units, num(round(dev.width_mm)) if dev.width_mm else "",
            num(round(dev.depth_mm)) if dev.depth_mm else "", "mm" if dev.width_mm or dev.depth_mm else "",
            num(dev.weight_kg), int(dev.max_load_kg) if dev.max_load_kg else "",
            "kg" if dev.weight_kg is not None or dev.max_load_kg else "",
            f"Part number {dev.part_number}" if dev.part_number else ""))
    return rack_models


def _device_rows(rows: dict[str, list], project, catalog, used_types, refs, site: str, locations, rack_names,
                 dev_names, rack_models) -> None:
    """The racks, the devices in them and the floor units."""
    for r in project.racks:
        rows["06-racks.csv"].append((
            site, locations[r.hall], rack_names[r.id], "planned", rack_models[r.type],
            r.id, r.type, num(r.x), num(r.y), num(r.rotation), r.row,
            num(r.power_limit_kw), r.name))
    role_of = {t: ROLE_NAMES[_role(catalog.get(t))] for t in used_types}
    device_rows = rows["08-devices.csv"]
    for r in project.racks:
        loc, rack = locations[r.hall], rack_names[r.id]
        for d in r.devices:
            m, model = refs[d.type]
            # A 0U device (vertical PDU) has no position; NetBox refuses one. Its face is kept.
            device_rows.append((dev_names[d.id], role_of[d.type], m, model, "planned",
                                site, loc, rack, "" if d.u is None else num(d.u), d.face, d.id,
                                d.name, d.type, "", "", "", ""))
    for f in project.floor_devices:
        m, model = refs[f.type]
        # by the racks' design ids: names repeat across halls, ids never (and ids hold no ';')
        serves = ";".join(i for i in f.serves if i in rack_names)
        device_rows.append((dev_names[f.id], role_of[f.type], m, model, "planned", site,
                            locations[f.hall], "", "", "", f.id, f.name, f.type, num(f.x),
                            num(f.y), num(f.rotation), serves))


class _Wiring:
    """The analysis' wiring plan as NetBox interfaces and cables, read from the plan's columns.

    Why columns and not ``FabricResult.links()``: a 100,000-GPU design has 300,000 links, and
    making a ``Link`` object for each takes longer than writing every file of the export. The
    columns are read the way ``WiringPlan.links`` reads them (ports "cage/lane" on multi-port
    cages, "n" otherwise; a rack-scale system's trays "name/trayNN"); the tests hold the two
    to the same cables.
    """

    def __init__(self, analysis: Analysis, project):
        fabric = analysis.result("fabric")
        plan = fabric.plan if fabric.error is None else None
        self.plan = plan if plan is not None and len(plan) else None
        self.cabled_devices: list[str] = []
        if self.plan is None:
            return  # no fabric: racks and devices still go to NetBox, without cables
        inv = self.plan.inv
        by_label = {(r.id, d.name or d.id): d.id for r in project.racks for d in r.devices}
        used = np.unique(np.concatenate([self.plan.a_dev, self.plan.b_dev]))
        self.device = {}  # fabric device index -> (design device id, interface-name prefix)
        for i in used.tolist():
            rack_id, label, prefix = inv.rack_ids[inv.devices.rack[i]], inv.devices.labels[i], ""
            dev_id = by_label.get((rack_id, label))
            if dev_id is None and "/tray" in label:  # a tray of a rack-scale system: one NetBox device
                base, tray = label.rsplit("/", 1)
                dev_id, prefix = by_label.get((rack_id, base)), tray + "/"
            if dev_id is None:
                raise ExportError(f"the wiring plan names device {label!r} in rack {rack_id!r}, "
                                  "which the design lacks")
            self.device[i] = (dev_id, prefix)
        self.cabled_devices = sorted({d for d, _ in self.device.values()})
        # every end of every link, a then b: (device, port) keys and their interface names
        ppc = np.asarray(inv.devices.cage_ports, dtype=np.int64)
        devs = np.empty(2 * len(self.plan), dtype=np.int64)
        ports = np.empty_like(devs)
        devs[0::2], devs[1::2] = self.plan.a_dev, self.plan.b_dev
        ports[0::2], ports[1::2] = self.plan.a_port, self.plan.b_port
        span = int(ports.max()) + 1
        keys, first, self.end_of = np.unique(devs * span + ports, return_index=True, return_inverse=True)
        self.first_use = np.argsort(first, kind="stable")
        k_dev, k_port = (keys // span).tolist(), (keys % span).tolist()
        k_ppc = ppc[keys // span].tolist()
        # digits, "/" and "trayNN": never a character CSV must quote
        self.names = [self.device[d][1] + port_name(n, p) for d, p, n in zip(k_dev, k_port, k_ppc)]
        self.owners = [self.device[d][0] for d in k_dev]

    def switch_planes(self) -> dict[str, str]:
        """The plane ("A", "B") of each cabled device whose links are all of one plane, by design device id:
        the switches of a twin-plane fabric (a node, cabled to both, has none); empty with one plane."""
        plan = self.plan
        if plan is None or plan.plane is None or plan.planes < 2:
            return {}
        seen: dict[str, set] = {}
        for devs in (plan.a_dev, plan.b_dev):
            pairs = np.unique(np.stack([np.asarray(devs, dtype=np.int64),
                                        np.asarray(plan.plane, dtype=np.int64)]), axis=1)
            for d, p in pairs.T.tolist():
                seen.setdefault(self.device[d][0], set()).add(p)
        return {d: plane_name(next(iter(p))) for d, p in seen.items() if len(p) == 1}

    def interface_lines(self, dev_names: dict, itype: dict) -> list[str]:
        """The rows of 09-interfaces.csv as CSV lines, in the order cables first use them."""
        if self.plan is None:
            return []
        names, owners = self.names, self.owners
        head = {d: f"{csv_field(csv_text(dev_names[d]))}," for d in self.cabled_devices}
        tail = {d: f",{itype[d]}\r\n" for d in self.cabled_devices}
        return [head[owners[k]] + names[k] + tail[owners[k]] for k in self.first_use.tolist()]

    def cable_lines(self, dev_names: dict, catalog, prefix: str = "") -> list[str]:
        """The rows of 10-cables.csv as CSV lines, one per link of the plan, labelled ``{prefix}W000001`` ..."""
        if self.plan is None:
            return []
        plan, ch = self.plan, self.plan.choice
        ids = ch["module_ids"]
        ends = self.end_of.reshape(-1, 2).tolist()
        names, owners = self.names, self.owners
        # each end written once as "device,dcim.interface,port"
        device_text = {d: csv_field(csv_text(dev_names[d])) + ",dcim.interface," for d in self.cabled_devices}
        end_text = [device_text[o] + n for o, n in zip(owners, names)]
        described: dict[tuple, tuple] = {}

        cable_ids = list(ch["cable_ids"]) + [""]

        def describe(t, rail, med, cid, length, ma, mb, plane) -> tuple:
            """The row's text after the ends and after the label: few distinct ones, so each is made once."""
            ok = not math.isnan(length) and length > 0
            cable = catalog.find(cable_ids[cid]) if cable_ids[cid] else None
            part = ""
            if cable is not None and ok:
                legacy, ordering = cable_part_number(cable, length)
                part = ordering or legacy
            what = (TIER_NAMES[t], f"plane {plane_name(plane)}" if plane >= 0 else "",
                    f"rail {rail}" if rail >= 0 else "", part or cable_ids[cid],
                    " / ".join(ids[m] for m in (ma, mb) if m >= 0))
            before_label = f",{CABLE_TYPES.get(media.MEDIA[med], '')},planned,{num(length) if ok else ''},"
            before_label += "m," if ok else ","
            return before_label, "," + csv_field(", ".join(w for w in what if w)) + "\r\n"

        rows = []
        planes = (plan.plane if plan.plane is not None and plan.planes > 1 else np.full(len(plan), -1)).tolist()
        cols = zip(ends, plan.tier.tolist(), plan.rail.tolist(), ch["medium"].tolist(), ch["cable"].tolist(),
                   ch["length_m"].tolist(), ch["module_a"].tolist(), ch["module_b"].tolist(), planes)
        for n, ((a, b), *key) in enumerate(cols, 1):
            d = described.get(tuple(key))
            if d is None:
                d = described[tuple(key)] = describe(*key)
            rows.append(f"{end_text[a]},{end_text[b]}{d[0]}{prefix}W{n:06d}{d[1]}")
        return rows


_NEEDS_QUOTES = re.compile(r'[,"\r\n]').search


def csv_field(text: str) -> str:
    """One field as csv.writer writes it (minimal quoting), for rows written as lines."""
    if _NEEDS_QUOTES(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def _write_csv(path: Path, header, rows) -> None:
    """A file's rows: tuples, whose text columns are escaped here, or ready-made lines, escaped as they were made.
    Not synced to disk one by one (a large design's folder holds a thousand parts): the README, written last,
    is."""
    if rows and not isinstance(rows[0], str):
        text = [i for i, name in enumerate(header) if name not in NUMBER_COLUMNS]
        memo: dict = {}  # a name repeats on row after row (a feed's panel, a cord's PDU): escaped once
        rows = [_escaped(row, text, memo) for row in rows]

    def write(fh) -> None:
        w = csv.writer(fh)
        w.writerow(header)
        if rows and isinstance(rows[0], str):
            fh.writelines(rows)
        else:
            w.writerows(rows)

    write_atomic(path, write, newline="", durable=False)


def _escaped(row, text_columns: list[int], memo: dict) -> list:
    out = list(row)
    for i in text_columns:
        value = out[i]
        if isinstance(value, str):
            done = memo.get(value)
            if done is None:
                done = memo[value] = csv_cell(value)
            out[i] = done
    return out
