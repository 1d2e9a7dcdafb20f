"""The README of the NetBox export's folder: what to import, in which order, and where NetBox keeps what it has
no field for."""
from __future__ import annotations

from designer.formatting import count


#: each file's import page
PAGES = {
    "00-custom-fields.csv": "Customization > Custom Fields > Import",
    "01-sites.csv": "Organization > Sites > Import",
    "02-locations.csv": "Organization > Locations > Import",
    "03-manufacturers.csv": "Devices > Manufacturers > Import",
    "04-device-roles.csv": "Devices > Device Roles > Import",
    "05-rack-types.csv": "Racks > Rack Types > Import",
    "06-racks.csv": "Racks > Racks > Import",
    "08-devices.csv": "Devices > Devices > Import",
    "09-interfaces.csv": "Devices > Interfaces > Import",
    "10-cables.csv": "Connections > Cables > Import",
    "11-power-panels.csv": "Power > Power Panels > Import",
    "12-power-feeds.csv": "Power > Power Feeds > Import",
    "13-power-ports.csv": "Devices > Power Ports > Import",
    "14-power-outlets.csv": "Devices > Power Outlets > Import",
    "15-power-cables.csv": "Connections > Cables > Import",
    "16-feed-cables.csv": "Connections > Cables > Import",
}


def readme(site: str, community: list[tuple[str, str, str]], yaml_files: list[str], rows: dict[str, list],
           planes: bool = False, held: tuple[str, int] | None = None) -> str:
    """The README: the order to import the files in, how many rows each holds, the device types (this export's
    and the community library's (manufacturer, model, path) to import first), and where things are."""
    def listed(name: str) -> list[str]:
        """The file's line, or a line per part of a file split for the import form (its rows each)."""
        return [f"  {file:<28}{PAGES[name]:<40}({count(n, 'row')})" for file, n in rows[name]]

    lines = [
        f"NetBox import of the PodPlanner design {site!r}",
        "",
        *([f"Written for the NetBox at {held[0]}: the {count(held[1], 'shared object')} it already held",
           "(custom fields, manufacturers, roles, rack and device types) are left out, so every row imports.",
           ""] if held is not None else []),
        "For NetBox 4.1 or later. Import the files in this order, each in the page named, with",
        "Import > Format CSV (or YAML for device types); every object is created with status 'planned'.",
        "A file of many rows is split into parts (-part01, -part02 ...), each imported in its turn: NetBox's",
        "import form works in one request, which the web server ends after its timeout (120 s by NetBox's",
        "gunicorn setting); each part takes about a minute on a two-core NetBox.",
        "",
        *listed("00-custom-fields.csv"), *listed("01-sites.csv"), *listed("02-locations.csv"),
        *listed("03-manufacturers.csv"), *listed("04-device-roles.csv"), *listed("05-rack-types.csv"),
        *listed("06-racks.csv"),
        f"  {'07-device-types/':<28}Devices > Device Types > Import, YAML, a file at a time "
        f"({count(len(yaml_files), 'file')})",
        *(line for name in PAGES if name > "08" for line in listed(name)),
        "",
        "16-feed-cables.csv names each feed by its power panel (side_a_power_panel), a column NetBox's",
        "cable import has from 4.4 on: on an older NetBox, connect the feeds by hand or push through the API.",
        "",
        "NetBox refuses a row for an object that already exists (a manufacturer, a role, a custom",
        "field from an earlier import). For a NetBox that holds other designs, write the folder for it:",
        "export --netbox DIR --netbox-url URL --netbox-missing-only leaves out the shared rows it holds;",
        "the push through the API (export --netbox-url) needs no such care.",
        "",
        "Device types in 07-device-types:",
        *(f"  {f}" for f in yaml_files),
    ]
    if community:
        lines += ["", "Device types the community devicetype-library also holds",
                  "(https://github.com/netbox-community/devicetype-library): their files here carry the library's",
                  "manufacturer and model; if NetBox already holds the library's file, skip this export's:"]
        lines += [f"  {path}  ({m} {model})" for m, model, path in community]
    lines += [
        "",
        "Where things are: NetBox has no floor plan, so each rack's position on the hall plan is in",
        "the custom fields 'Plan x (mm)', 'Plan y (mm)' and 'Plan rotation (deg)' (rotation clockwise;",
        "at 0 the rack's front faces -y). Devices are placed in their racks by position (lowest U)",
        "and face; 0U PDUs have a face and no position. CDUs stand on the floor: they are devices",
        "in the hall's location, without a rack, with the same position fields.",
        "",
        "Cables are labelled <site code>-W000001 ... in the order of the cabling plan; their description holds",
        "the fabric tier, rail, part number with its length code and the transceivers. The storage",
        "fabric's cables follow the compute fabric's, their description starting 'storage'; a node's",
        "storage ports are the interfaces S1, S2 ... (the storage appliances' too). The management",
        "networks' cables come last, their description naming the network (OOB, OOB uplink, in-band,",
        "in-band leaf-spine): BMC ports are 'bmc', management ports 'mgmt0', in-band ports 'inband1',",
        "'inband2'.",
        "",
        "Power: a power panel per row's busway (or RPP) and side, A and B; a power feed per rack inlet (a",
        "PDU's input, each shelf of a rack-scale system) named <rack> A1, <rack> B1 ..., feed A primary and",
        "B redundant, with its voltage, phases, amperage and the design's continuous derating as maximum",
        "utilisation. The device types bring their power ports (PSU1 ..., a PDU's Input) and a PDU's",
        "outlets (C13-01 ..., C19-01 ...), so NetBox makes them with each device; the community library's",
        "switch types have none, so their ports are in 13-power-ports.csv (14-power-outlets.csv holds a",
        "PDU's outlets only where NetBox held its type without them). Each supply's cord goes to an",
        "outlet of its feed's PDU (15-power-cables.csv) and each feed to its inlet (16-feed-cables.csv),",
        "labelled <site code>-P000001 ...; NetBox then shows each feed's and panel's utilisation.",
        "",
        "A name or id that starts with =, +, -, @, a tab or a carriage return (\"=SUM(A1)\", \"+5V\",",
        "\"-1\") is written with a single quote in front ('+5V), so that a spreadsheet opening these",
        "files shows it instead of running it as a formula (OWASP's advice on CSV injection); numbers",
        "are never quoted. NetBox imports the quote as part of the name: rename such objects in NetBox",
        "after the import, or take the quote off in a text editor before importing. Every reference",
        "to the object carries the same quote, so the files still import together, and PodPlanner's",
        "own import of this folder takes the quote off again.",
        "",
        "Cables and interfaces name their devices by name alone (NetBox before 4.4 has no site column",
        "there), so every device name starts with the site's code (the design's own name is in the",
        "custom field 'PodPlanner name'): designs in sites of their own import into one NetBox side by",
        "side. Manufacturers, roles, rack types and device types are shared by every site: a folder",
        "written with --netbox-missing-only for that NetBox leaves out those it holds (export",
        "--netbox-url pushes through the API and skips what exists by itself).",
        "",
    ]
    if planes:
        lines += [
            "Twin-plane fabric: each switch's plane (A or B) is in the custom field 'Fabric plane', and",
            "each cable's description names its plane. A node's 800G cage carries one 400G port of each",
            "plane (cage 1: 1/1 on plane A, 1/2 on plane B); a switch's cage two 400G ports of its plane.",
            "",
        ]
    return "\n".join(lines)
