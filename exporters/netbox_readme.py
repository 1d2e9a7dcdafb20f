"""The README of the NetBox export's folder: what to import, in which order, and where NetBox keeps what it has
no field for."""
from __future__ import annotations

from designer.formatting import count


def readme(site: str, community: list[tuple[str, str, str]], yaml_files: list[str], rows: dict[str, int],
           planes: bool = False) -> str:
    """The README: the order to import the files in, how many rows each holds, the device types (this export's
    and the community library's (manufacturer, model, path) to import first), and where things are."""
    def rows_of(name: str) -> str:
        return count(rows[name], "row")

    lines = [
        f"NetBox import of the PodPlanner design {site!r}",
        "",
        "For NetBox 4.1 or later. Import the files in this order, each in the page named, with",
        "Import > Format CSV (or YAML for device types); every object is created with status 'planned'.",
        "",
        f"  00-custom-fields.csv  Customization > Custom Fields > Import   ({rows_of('00-custom-fields.csv')})",
        f"  01-sites.csv          Organization > Sites > Import           ({rows_of('01-sites.csv')})",
        f"  02-locations.csv      Organization > Locations > Import       ({rows_of('02-locations.csv')})",
        f"  03-manufacturers.csv  Devices > Manufacturers > Import        ({rows_of('03-manufacturers.csv')})",
        f"  04-device-roles.csv   Devices > Device Roles > Import         ({rows_of('04-device-roles.csv')})",
        f"  05-rack-types.csv     Racks > Rack Types > Import             ({rows_of('05-rack-types.csv')})",
        f"  06-racks.csv          Racks > Racks > Import                  ({rows_of('06-racks.csv')})",
        f"  07-device-types/      Devices > Device Types > Import, YAML, a file at a time "
        f"({count(len(yaml_files), 'file')})",
        f"  08-devices.csv        Devices > Devices > Import              ({rows_of('08-devices.csv')})",
        f"  09-interfaces.csv     Devices > Interfaces > Import           ({rows_of('09-interfaces.csv')})",
        f"  10-cables.csv         Connections > Cables > Import           ({rows_of('10-cables.csv')})",
        "",
        "NetBox refuses a row for an object that already exists (a manufacturer, a role, a custom",
        "field from an earlier import): delete that row from the file, or the file's rows that",
        "exist, before importing it; the push through the API (export --netbox-url) needs no such care.",
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
        "side. Manufacturers, roles, rack types and device types are shared by every site: for a second",
        "design, NetBox refuses the rows it already holds, so skip those (export --netbox-url pushes",
        "through the API and skips what exists by itself).",
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
