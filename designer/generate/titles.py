"""What a generated design is called and how its description sums it up."""
from __future__ import annotations

from ..settings import FABRIC_NAMES
from .networks import NetworkPlan
from .spec import SystemProfile


def design_title(profile: SystemProfile, sus: int, units: int) -> str:
    what = "racks" if profile.rack_scale else "systems"
    # an Ethernet build says so in its name: the same system and size on InfiniBand is another design
    fabric = "" if profile.fabric == "infiniband" else f" on {FABRIC_NAMES.get(profile.fabric, profile.fabric)}"
    return (f"{profile.name.split(' (')[0]} SuperPOD{fabric} - {sus} scalable unit{'s' if sus != 1 else ''} "
            f"({units:,} {what})")


def design_description(profile: SystemProfile, sus: int, units: int, per_rack: int, net: NetworkPlan) -> str:
    # Model names as people print them (QM9700, SN5600), never catalog ids.
    t = net.compute
    gpus = units * profile.gpus_per_node
    what = "racks" if profile.rack_scale else "systems"
    parts = [f"{units:,} {profile.name.split(' (')[0]} {what} ({gpus:,} GPUs) in {sus} scalable "
             f"unit{'s' if sus != 1 else ''}" + ("" if profile.rack_scale else f", {per_rack} per rack"),
             f"compute fabric {t.leaf_switches} leaf + {t.spine_switches} spine"
             + (f" + {t.core_switches} {'core' if t.technology == 'infiniband' else 'super-spine'}" if t.core else "")
             + f" {t.switch.upper()} ("
             + ("" if t.technology == "infiniband" else f"{FABRIC_NAMES.get(t.technology, t.technology)}, ")
             + f"{t.tiers} tiers, {t.rails} rails"
             + (f", {t.planes} planes of {t.port_gbps:g}G" if t.planes > 1 else "")
             + (f", {t.actual_core_oversubscription:g}:1 above the pod" if t.tiers == 3 and t.core_oversubscription != 1
                else "") + ")"]
    if net.storage:
        parts.append(f"storage {net.storage.leaf} leaf + {net.storage.spine} spine {net.storage.switch.upper()}")
    if net.oob:
        parts.append(f"out-of-band {net.oob} SN2201")
    return "Generated from the DGX SuperPOD reference architecture: " + "; ".join(parts) + "."
