"""What a rack is for, judged by what it holds: the one rule the floor plan, legends and exporters share.

Roles, in the order a legend lists them:

- ``rack_scale``: the rack holds a rack-scale system (a GB200 NVL72 fills its rack);
- ``compute``: it holds GPU servers or compute trays;
- ``network``: mostly compute-fabric gear: its leaf, spine and core switches, and the UFM appliances that
  manage a fabric;
- ``storage``: mostly the storage fabric's switches (and its UFM), the devices named "storage";
- ``management``: mostly management gear: head nodes, and the in-band and out-of-band switches;
- ``empty``: nothing that decides a role (an empty rack, or PDUs only).

A network rack of a generated SuperPOD holds its scalable unit's compute leaves, one storage leaf, two
out-of-band switches and, in the last unit, the compute UFM pair: it is a network rack, because most of
what it holds is the compute fabric, whatever else shares it.
"""
from __future__ import annotations

from collections import Counter

from catalog import Catalog, DeviceType

from .model import MountedDevice, Rack

#: Every role :func:`rack_role` returns, in legend order.
ROLES = ("compute", "rack_scale", "network", "storage", "management", "empty")
#: Roles a rack of switches and appliances can take, in the order a tie goes.
GEAR_ROLES = ("network", "storage", "management")
#: Words that make a switch or appliance management gear (its catalog name, or the name it is mounted under):
#: the SN2201 is NVIDIA's "1 GbE management switch"; the generator names in-band and out-of-band switches so.
MANAGEMENT_WORDS = ("management", "mgmt", "oob", "out-of-band", "inband", "in-band")


def _is_ufm(dev: DeviceType) -> bool:
    return "ufm" in f"{dev.id} {dev.name}".lower()


def gear_role(dev: DeviceType, mounted: MountedDevice | None = None) -> str:
    """What a switch or appliance serves: "storage" (mounted under a name saying so), "network" (a fabric
    switch, or a UFM appliance, which manages a fabric) or "management" (head nodes, management switches)."""
    name = (mounted.name or mounted.id).lower() if mounted is not None else ""
    if "storage" in name:
        return "storage"
    if dev.kind == "appliance" and _is_ufm(dev):
        return "network"
    text = f"{name} {dev.id} {dev.name}".lower()
    if any(word in text for word in MANAGEMENT_WORDS):
        return "management"
    return "network" if dev.kind == "switch" else "management"


def rack_role(rack: Rack, catalog: Catalog) -> str:
    """The rack's role (one of :data:`ROLES`): a rack-scale system wins, then GPUs, then what most of its
    switches and appliances serve by rack units (:func:`gear_role`; a tie goes to the first of
    :data:`GEAR_ROLES`).

    Devices the catalog does not know are ignored.
    """
    tally: Counter = Counter()
    compute = False
    for d in rack.devices:
        dev = catalog.find(d.type)
        if dev is None:
            continue
        if dev.fills_rack or dev.kind == "rack_system":
            return "rack_scale"
        if dev.gpu_count or dev.kind in ("server", "tray"):
            compute = True
        elif dev.kind in ("switch", "appliance"):
            # weighed by the space it takes: four 4U Q3400 leaves outweigh five 1U out-of-band switches
            tally[gear_role(dev, d)] += max(float(dev.u_height), 1.0)
    if compute:
        return "compute"
    if not tally:
        return "empty"
    return max(GEAR_ROLES, key=lambda role: tally[role])


def device_role(dev: DeviceType) -> str:
    """Colour role of one catalog entry in a rack elevation (the window's and the quote's alike):
    power, pdu, cdu (every cooling unit), network, rack_scale, management or compute. Switches and appliances
    take the role :func:`gear_role` gives them, so an elevation agrees with the rack's colour on the plan."""
    text = f"{dev.id} {dev.name}".lower()
    if dev.kind == "power_shelf":
        return "power"
    if dev.kind == "pdu":
        return "pdu"
    if dev.kind in ("cdu", "crah"):  # cooling units share one colour
        return "cdu"
    if dev.kind == "tray" and "switch" in text:
        return "network"
    if dev.kind in ("switch", "appliance"):
        return gear_role(dev)
    if dev.kind in ("rack_system", "tray"):
        return "rack_scale"
    return "compute"


def system_components(dev: DeviceType, catalog: Catalog) -> list[tuple[str, DeviceType]]:
    """A rack-scale system's trays bottom-up, as (catalog id, entry): power, compute, switches, compute,
    power. The order is illustrative: NVIDIA publishes no U map of the NVL72. Unknown or 0U parts are left out."""
    power, compute, switch, other = [], [], [], []
    for comp in dev.components:
        part = catalog.find(comp.id)
        if part is None or part.u_height <= 0:
            continue
        bucket = {"power": power, "network": switch, "rack_scale": compute}.get(device_role(part), other)
        bucket.extend([(comp.id, part)] * comp.count)
    half_p, half_c = len(power) // 2, len(compute) // 2
    return power[:half_p] + compute[:half_c] + other + switch + compute[half_c:] + power[half_p:]
