"""What a rack is for, judged by what it holds: the one rule the floor plan, legends and exporters share.

Roles, in the order a legend lists them:

- ``rack_scale``: the rack holds a rack-scale system (a GB200 NVL72 fills its rack);
- ``compute``: it holds GPU servers or compute trays;
- ``network``: only switches (besides power and other passive gear);
- ``management``: management appliances (UFM, head nodes), with or without their switches;
- ``empty``: nothing that decides a role (an empty rack, or PDUs only).
"""
from __future__ import annotations

from catalog import Catalog, DeviceType

from .model import Rack

#: Every role :func:`rack_role` returns, in legend order.
ROLES = ("compute", "rack_scale", "network", "management", "empty")


def rack_role(rack: Rack, catalog: Catalog) -> str:
    """The rack's role (one of :data:`ROLES`): a rack-scale system wins, then GPUs, then appliances.

    Appliances decide "management" before switches do, because a management rack
    also holds the out-of-band switches; a rack of only switches is "network".
    Devices the catalog does not know are ignored.
    """
    kinds = set()
    for d in rack.devices:
        dev = catalog.find(d.type)
        if dev is None:
            continue
        if dev.fills_rack or dev.kind == "rack_system":
            return "rack_scale"
        if dev.gpu_count or dev.kind in ("server", "tray"):
            kinds.add("compute")
        elif dev.kind in ("switch", "appliance"):
            kinds.add(dev.kind)
    if "compute" in kinds:
        return "compute"
    if "appliance" in kinds:
        return "management"
    if "switch" in kinds:
        return "network"
    return "empty"


def device_role(dev: DeviceType) -> str:
    """Colour role of one catalog entry in a rack elevation (the window's and the quote's alike):
    power, pdu, cdu (every cooling unit), network, rack_scale, management or compute."""
    text = f"{dev.id} {dev.name}".lower()
    if dev.kind == "power_shelf":
        return "power"
    if dev.kind == "pdu":
        return "pdu"
    if dev.kind in ("cdu", "crah"):  # cooling units share one colour
        return "cdu"
    if dev.kind == "switch" or (dev.kind == "tray" and "switch" in text):
        return "network"
    if dev.kind in ("rack_system", "tray"):
        return "rack_scale"
    if dev.kind == "appliance":
        return "management"
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
