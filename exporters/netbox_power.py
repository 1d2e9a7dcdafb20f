"""The design's power as NetBox holds it: power panels, power feeds, power ports and outlets, power cables.

From :func:`designer.power.cords.power_cabling` (which follows the feed engine's convention, so NetBox and the
power figures agree cord for cord):

- a power panel per row's distribution element, side and parallel run (``Hall 1 R01A busway A``), in the hall's
  location;
- a power feed per rack inlet (a PDU's input, a mounted shelf's, each of a rack-scale system's shelves), in the
  panel of its row and side: feed A ``primary``, B ``redundant``, AC, the inlet's phases, voltage and amperage,
  and the design's continuous derating as its maximum utilisation (NetBox's power utilisation then reads what
  the design is sized to);
- power ports and outlets on the device types (:func:`type_components`, YAML ``power-ports`` and
  ``power-outlets`` as the devicetype-library writes them), so each device gets them when NetBox creates it: a
  DGX B200's ``PSU1``..``PSU6`` (C20, each supply's rating and its share of the system's maximum), a PDU's
  ``Input`` and its ``C13-01``..., ``C19-01``... outlets; a type the community library holds (the SN2201, SN5600,
  SN5610) has supply bays but no power ports there, so its devices' ports are rows of ``13-power-ports.csv``
  (and a type a NetBox held before the export gave types power components: its ports there, a PDU's outlets in
  ``14-power-outlets.csv``);
- a cable per cord (a PDU's outlet to a supply), and one per feed to the inlet it feeds (the feed's
  ``side_a_power_panel``, which NetBox's cable import takes from 4.4 on). Power cables are labelled
  ``<site code>-P000001`` ..., apart from the data cables' ``W`` series.

CDUs stand on the floor without a rack feed; their pumps' supply is a facility circuit, not written here.
"""
from __future__ import annotations

from designer.power.cords import PowerCabling, outlet_names, supply_ports

from .base import ExportError
from .cell_text import csv_text

#: NetBox's limit on a power panel's and a power feed's name
NAME_MAX = 100

#: a supply's coupler -> NetBox's power port type (dcim/choices.py PowerPortTypeChoices, every release from 4.1)
PORT_TYPES = {"C14": "iec-60320-c14", "C20": "iec-60320-c20"}
#: an outlet's coupler -> NetBox's power outlet type
OUTLET_TYPES = {"C13": "iec-60320-c13", "C19": "iec-60320-c19"}
FEED_TYPES = {"A": "primary", "B": "redundant"}

COLUMNS = {
    "11-power-panels.csv": ("site", "location", "name", "description"),
    "12-power-feeds.csv": ("site", "power_panel", "location", "rack", "name", "status", "type", "supply", "phase",
                           "voltage", "amperage", "max_utilization", "description"),
    "13-power-ports.csv": ("device", "name", "type", "maximum_draw", "allocated_draw", "description"),
    "14-power-outlets.csv": ("device", "name", "type", "power_port", "description"),
    "15-power-cables.csv": ("side_a_device", "side_a_type", "side_a_name", "side_b_device", "side_b_type",
                            "side_b_name", "type", "status", "label", "description"),
    "16-feed-cables.csv": ("side_a_site", "side_a_power_panel", "side_a_type", "side_a_name", "side_b_device",
                           "side_b_type", "side_b_name", "type", "status", "label", "description"),
}
FILES = tuple(COLUMNS)


def port_type(coupler: str, voltage_v: float) -> str:
    """NetBox's type of a power input: IEC 60320 by coupler; an industrial input IEC 60309 at the 6 h position,
    the 380-415 V three-phase (3P+N+E) or 200-250 V single-phase (P+N+E) one; blank where neither fits."""
    if coupler in PORT_TYPES:
        return PORT_TYPES[coupler]
    if coupler == "3P+N+E" and 380 <= voltage_v <= 415:
        return "iec-60309-3p-n-e-6h"
    if coupler == "P+N+E" and 200 <= voltage_v <= 250:
        return "iec-60309-p-n-e-6h"
    return ""


def type_components(dev, catalog) -> dict:
    """A device type's ``power-ports`` and ``power-outlets`` in the devicetype-library's YAML form."""
    out: dict = {}
    ports = [{"name": p.name, "type": port_type(p.coupler, p.voltage_v), "maximum_draw": p.maximum_w,
              **({"allocated_draw": p.allocated_w} if p.allocated_w else {})} for p in supply_ports(dev, catalog)]
    for p in ports:
        if not p["type"]:
            del p["type"]
    if ports:
        out["power-ports"] = ports
    if dev.kind == "pdu" and ports:
        out["power-outlets"] = [{"name": name, **({"type": OUTLET_TYPES[kind]} if kind in OUTLET_TYPES else {}),
                                 "power_port": ports[0]["name"]} for name, kind in outlet_names(dev)]
    return out


def panel_names(project, cabling: PowerCabling, locations: dict[str, str]) -> list[str]:
    """A name per panel, unique in the site: its hall, row, element, side and (of several) run."""
    halls = {h.id: h for h in project.halls}
    runs: dict[tuple, int] = {}
    for p in cabling.panels:
        runs[(p.hall, p.row, p.side)] = max(runs.get((p.hall, p.row, p.side), 0), p.run)
    names = []
    for p in cabling.panels:
        hall = halls.get(p.hall)
        element = "RPP" if hall is not None and hall.facility.distribution == "rpp" else "busway"
        run = f" run {p.run}" if runs[(p.hall, p.row, p.side)] > 1 else ""
        tail = f" {element} {p.side}{run}"
        head = f"{locations.get(p.hall, p.hall)} {p.row or '(no row)'}"
        names.append(_plain_name(head, NAME_MAX - len(tail)) + tail)
    if len(set(names)) != len(names):
        raise ExportError("two power panels would share a name in NetBox (hall and row names cut to fit its "
                          f"{NAME_MAX} characters): shorten the hall's or a row's name")
    return names


def _csv_field(text: str) -> str:
    """One field as csv.writer writes it (quoted where it holds a comma, a quote or a line break)."""
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\r\n') else text


def _plain_name(text: str, size: int) -> str:
    """A name for a panel or feed: no comma (NetBox's cable import splits its name columns on commas), cut to
    ``size`` characters."""
    return text.replace(",", " ")[:max(1, size)].rstrip()


def power_rows(project, catalog, cabling: PowerCabling, *, site: str, code: str, locations: dict[str, str],
               rack_names: dict[str, str], dev_names: dict[str, str], ported_devices: set[str]) -> dict:
    """The rows of the power files, by file name; ``ported_devices``: the devices whose types in NetBox bring no
    power components (the community library's, or a held type made without them), whose ports and outlets are
    rows of their own."""
    rows: dict[str, list] = {name: [] for name in FILES}
    panels = panel_names(project, cabling, locations)
    rack_hall = {r.id: r.hall for r in project.racks}
    for p, name in zip(cabling.panels, panels):
        rows["11-power-panels.csv"].append((site, locations[p.hall], name,
                                            f"Feed {p.side} of row {p.row or '(none)'}"))
    utilisation = round(project.settings.derating * 100)
    label = 0
    feed_names = []
    seen: set[tuple[int, str]] = set()
    for inlet in cabling.inlets:
        tail = f" {inlet.side}{inlet.number}"
        name = _plain_name(rack_names[inlet.rack], NAME_MAX - len(tail)) + tail
        if (inlet.panel, name.lower()) in seen:
            raise ExportError(f"two power feeds of one panel would both be named {name!r} in NetBox (rack names cut "
                              f"to fit its {NAME_MAX} characters): shorten the rack's name")
        seen.add((inlet.panel, name.lower()))
        feed_names.append(name)
        rows["12-power-feeds.csv"].append((
            site, panels[inlet.panel], locations[rack_hall[inlet.rack]], rack_names[inlet.rack], name, "planned",
            FEED_TYPES[inlet.side], "ac", "three-phase" if inlet.phases == 3 else "single-phase",
            round(inlet.voltage_v) or "", round(inlet.current_a) or "", utilisation,
            f"{dev_names[inlet.device]} {inlet.port}"))
    # the ports of devices whose type in NetBox has none (the community library's has supply bays, no ports)
    types = {d.id: d.type for r in project.racks for d in r.devices}
    for dev_id in (d for d in types if d in ported_devices):  # in the design's order
        dev = catalog.find(types[dev_id])
        ports = supply_ports(dev, catalog)
        for p in ports:
            rows["13-power-ports.csv"].append((dev_names[dev_id], p.name, port_type(p.coupler, p.voltage_v),
                                               p.maximum_w, p.allocated_w or "", "Supply"))
        if dev is not None and dev.kind == "pdu" and ports:
            rows["14-power-outlets.csv"] += [(dev_names[dev_id], name, OUTLET_TYPES.get(kind, ""), ports[0].name,
                                              "Outlet") for name, kind in outlet_names(dev)]
    # a 100,000-GPU design has some 130,000 cords: their rows are written as ready-made CSV lines, each device's
    # name escaped once (the outlet and port names are PodPlanner's own: letters, digits and dashes)
    field: dict[str, str] = {}

    def named(dev_id: str) -> str:
        if dev_id not in field:
            field[dev_id] = _csv_field(csv_text(dev_names[dev_id]))
        return field[dev_id]

    lines = rows["15-power-cables.csv"]
    for c in cabling.cords:
        label += 1
        lines.append(f"{named(c.pdu)},dcim.poweroutlet,{c.outlet},{named(c.device)},dcim.powerport,{c.port},power,"
                     f"planned,{code}-P{label:06d},feed {c.side}\r\n")
    for inlet, panel_feed in zip(cabling.inlets, feed_names):
        label += 1
        rows["16-feed-cables.csv"].append((site, panels[inlet.panel], "dcim.powerfeed", panel_feed,
                                           dev_names[inlet.device], "dcim.powerport", inlet.port, "power", "planned",
                                           f"{code}-P{label:06d}", f"feed {inlet.side}"))
    return rows
