"""What a rack is for, judged by what it holds: the one rule the floor plan, legends and exporters share.

Roles, in the order a legend lists them:

- ``rack_scale``: the rack holds a rack-scale system (a GB200 NVL72 fills its rack);
- ``compute``: it holds GPU servers or compute trays;
- ``network``: only switches (besides power and other passive gear);
- ``management``: management appliances (UFM, head nodes), with or without their switches;
- ``empty``: nothing that decides a role (an empty rack, or PDUs only).
"""
from __future__ import annotations

from catalog import Catalog

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
