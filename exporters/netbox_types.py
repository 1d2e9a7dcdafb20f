"""NetBox device types: the devicetype-library YAML of the types the community library does not hold, the
library's names for the ones it does, and the interface type of a type's fabric ports.

Split from :mod:`.netbox_export`, which writes the import files that refer to these types.
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml

from catalog.files import write_atomic

from .netbox_power import type_components

#: NetBox's limit on a model's name (dcim models' max_length), as the export's other names
NAME_MAX = 100
#: where the export writes the types' YAML
TYPES_FOLDER = "07-device-types"


def slug(text: str) -> str:
    """NetBox's slug alphabet (``^[-a-zA-Z0-9_]+$``), lower case."""
    s = re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-")
    return s[:NAME_MAX] or "x"


#: Catalog types the community devicetype-library holds (read at netbox-community/devicetype-library),
#: as (manufacturer, model, file). The library's QM9700 is left out on purpose: its file skips
#: interfaces P22.1 and P23.0, and fabric cables land on every port of a leaf.
COMMUNITY_TYPES = {
    "sn2201": ("Nvidia", "SN2201", "device-types/Nvidia/SN2201.yaml"),
    "sn5600": ("Nvidia", "SN5600", "device-types/Nvidia/SN5600.yaml"),
    "sn5610": ("Nvidia", "SN5610", "device-types/Nvidia/SN5610.yaml"),
}
#: The library's spelling of a manufacturer: NetBox slugs "NVIDIA" and "Nvidia" alike, and slugs are unique.
MANUFACTURER_SPELLING = {"NVIDIA": "Nvidia"}

#: InfiniBand speed per port (Gb/s) -> NetBox interface type
IB_TYPES = {10: "infiniband-sdr", 20: "infiniband-ddr", 40: "infiniband-qdr", 56: "infiniband-fdr",
            100: "infiniband-edr", 200: "infiniband-hdr", 400: "infiniband-ndr", 800: "infiniband-xdr"}
#: (Ethernet speed per port in Gb/s, cage) -> NetBox interface type (dcim/choices.py, in every release from 4.1)
ETHERNET_TYPES = {(400, "OSFP"): "400gbase-x-osfp", (800, "OSFP"): "800gbase-x-osfp",
                  (400, "QSFP112"): "400gbase-x-qsfp112", (200, "QSFP56"): "200gbase-x-qsfp56",
                  (400, "QSFP-DD"): "400gbase-x-qsfpdd", (800, "QSFP-DD"): "800gbase-x-qsfpdd"}
#: What a type's YAML adds from the community library's file of the same switch (read at
#: netbox-community/devicetype-library, device-types/Nvidia/SN5610.yaml): its console, management port,
#: supply bays and the 64 OSFP cages, named and typed as there.
LIBRARY_COMPONENTS = {
    "sn5610": {
        "console-ports": [{"name": "con0", "type": "rj-45"}],
        "module-bays": [{"name": f"PSU{i}", "position": f"PSU{i}"} for i in range(1, 5)],
        "interfaces": [{"name": "eth0", "type": "1000base-t", "mgmt_only": True}]
                      + [{"name": f"swp{i}", "type": "800gbase-x-osfp"} for i in range(1, 65)],
    },
}
#: catalog airflow -> NetBox airflow, where one names the other exactly
AIRFLOW = {"front-to-rear": "front-to-rear", "rear-to-front": "rear-to-front", "passive": "passive"}
#: A device less deep than this (or of unknown depth) is imported half-depth, so NetBox refuses
#: no front/rear pairing the design allows.
FULL_DEPTH_MM = 500.0
def manufacturer_name(name: str) -> str:
    return MANUFACTURER_SPELLING.get(name, name) or "Generic"


def model_name(dev) -> str:
    """A type's model in NetBox: its catalog name without the manufacturer's name in front."""
    name = dev.name
    for prefix in (dev.manufacturer, manufacturer_name(dev.manufacturer)):
        if prefix and name.lower().startswith(prefix.lower() + " "):
            name = name[len(prefix) + 1:]
            break
    return name[:NAME_MAX]


def _interface_type(dev, catalog, technology: str = "infiniband", port_gbps: float = 0) -> str:
    """The NetBox type of a type's fabric ports: InfiniBand by speed (the wiring plan cables only those); on an
    Ethernet fabric, Ethernet at the fabric's speed per port (an 800G cage split 2 x 400G: two 400G ports)."""
    groups = list(dev.ports)
    for comp in dev.components:
        part = catalog.find(comp.id)
        if part is not None:
            groups.extend(part.ports)
    for g in groups:
        if g.role not in ("compute", "fabric"):
            continue
        if technology != "infiniband":
            if g.protocol == "ethernet" or g.role == "compute":
                speed = int(port_gbps or g.speed_gbps)
                return ETHERNET_TYPES.get((speed, (g.cage or "").upper()), "other")
            continue
        if g.protocol == "infiniband":
            return IB_TYPES.get(int(g.speed_gbps), "other")
    return "other"


def _device_type_yaml(dev) -> dict:
    """One type in the devicetype-library's format (keys in the library's order)."""
    doc: dict = {"manufacturer": manufacturer_name(dev.manufacturer), "model": model_name(dev), "slug": slug(dev.id)}
    if dev.part_number:
        doc["part_number"] = dev.part_number
    doc["u_height"] = int(dev.u_height) if float(dev.u_height).is_integer() else float(dev.u_height)
    doc["is_full_depth"] = bool(dev.u_height > 0 and dev.depth_mm is not None and dev.depth_mm >= FULL_DEPTH_MM)
    if dev.airflow in AIRFLOW:
        doc["airflow"] = AIRFLOW[dev.airflow]
    if dev.weight_kg is not None:
        doc["weight"] = round(float(dev.weight_kg), 2)
        doc["weight_unit"] = "kg"
    doc["comments"] = f"{dev.name}. Exported by PodPlanner from catalog entry {dev.id}."
    library = LIBRARY_COMPONENTS.get(dev.id)
    if library:
        doc["comments"] += (" Cages, management port, console and supply bays as the community devicetype-library's "
                            f"{COMMUNITY_TYPES[dev.id][2]}; the fabric cables end on the split ports of "
                            "09-interfaces.csv (cage/port: 1/1 and 1/2 are swp1s0 and swp1s1 on Cumulus Linux).")
        doc.update(library)
    return doc


def _write_device_types(folder: Path, catalog, used_types, refs, held=None) -> tuple[list[str], int]:
    """A YAML file per type the design uses, so the folder holds every type it needs; a type the community library
    holds is written under the library's manufacturer and model (a NetBox that holds the library's file already
    has it: the API push finds it by model, an admin skips that file). An older export's files go."""
    # an older export's device types would be imported beside this one's: only this export's stay
    for old in (folder / TYPES_FOLDER).glob("*.yaml"):
        if old.is_file() and not old.is_symlink():
            old.unlink()
    yaml_files, skipped = [], 0
    for t in sorted(used_types):
        doc = _device_type_yaml(catalog.get(t))
        if refs[t] == COMMUNITY_TYPES.get(t, (None, None))[:2]:
            doc.update(manufacturer=refs[t][0], model=refs[t][1])
        else:
            # power ports and outlets come with the type, so NetBox makes them with each device (a library
            # type has supply bays and no power ports: its devices' ports are rows of 13-power-ports.csv)
            doc.update(type_components(catalog.get(t), catalog))
        if held is not None:
            if held.device_type(doc["manufacturer"], doc["model"], doc["slug"]) is not None:
                skipped += 1  # the NetBox the folder is for holds it
                continue
            doc["manufacturer"] = held.manufacturer(doc["manufacturer"]) or doc["manufacturer"]
        file_name = f"{slug(t)}.yaml"
        text = "---\n" + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)
        write_atomic(folder / TYPES_FOLDER / file_name, text)
        yaml_files.append(file_name)
    return yaml_files, skipped
