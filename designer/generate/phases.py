"""A phased build: the design at the end of each phase, cut back from the final design."""
from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from catalog import Catalog

from ..commands import AddHallCommand, AddObjectsCommand
from ..model import Project, Rack
from .networks import compute_fabric
from .sizing import units_per_su
from .spec import SuperpodSpec

if TYPE_CHECKING:  # build imports this module
    from .build import Generated

_LEAF = re.compile(r"^leaf-(?:[ab]-)?(\d+)-r\d+$")  # a twin-plane fabric names its plane: leaf-a-0001-r0
_SPINE = re.compile(r"^spine-(?:[ab]-)?(\d+)$")
_NODE_UNIT = re.compile(r"^su(\d+)-\d+$")
_SU_RACK = re.compile(r"^su(\d+)-")


def phases_of(spec: SuperpodSpec, catalog: Catalog, final: Generated, reserved: int, reserved_nodes: int
              ) -> list[Project]:
    """The design at the end of each phase of ``spec.phase_sus`` scalable units; the last is the design.

    A phase is the final design cut back, never a layout of its own: its scalable units stand where
    they stand at the end, the band (spines of a two-tier fabric, cores, storage spines, in-band,
    UFM and management) is there from the first phase, and a later phase only adds racks, devices
    and cables. As in the RA, the phase's last SU leaves one DGX out for the UFM's leaf ports; the
    next phase adds it. Leaves a phase needs for its UFM ports beyond its last SU, and a three-tier
    pod's spines, come with their racks at the places the later SUs keep for them.
    """
    profile, sus = final.profile, final.sus
    count = math.ceil(sus / spec.phase_sus)
    # A fabric that ends with three tiers is built with three from the first phase: going from two
    # tiers to three would recable every leaf.
    tiers = str(final.networks.compute.tiers)
    settings = final.project.settings.updated(fabric_tiers=tiers) if tiers == "3" else final.project.settings
    spec = replace(spec, tiers=tiers) if tiers == "3" else spec
    hall = final.project.halls[0]
    out = []
    for n in range(1, count):
        k = n * spec.phase_sus
        units = k * units_per_su(profile) - (0 if profile.rack_scale else reserved_nodes)
        tree = compute_fabric(profile, spec, catalog, units * profile.trays, reserved)
        final_tree = final.networks.compute
        # every spine of each pod the phase reaches (three tiers): a pod's spines come with its first leaf
        spines = min(final_tree.spine, tree.pods * final_tree.pod_spines) if tree.tiers == 3 else 0
        racks = []
        for rack in final.project.racks:
            m = _SU_RACK.match(rack.id)
            if m is None:  # the band
                racks.append(rack)
                continue
            su = int(m.group(1))
            if su <= k:
                if su == k and not profile.rack_scale and _NODE_UNIT.match(rack.id):
                    rack = replace(rack, devices=_without_last_node(rack, profile.id, k, final, reserved_nodes))
                racks.append(rack)
                continue
            kept = tuple(d for d in rack.devices if _needed_early(d.name, tree.blocks, spines))
            if kept:  # the rack comes early for these switches, with its PDUs
                pdus = tuple(d for d in rack.devices if catalog.get(d.type).kind == "pdu")
                racks.append(replace(rack, devices=kept + pdus))
        racks = [r for r in racks if r.devices]
        ids = {r.id for r in racks}
        # the CDUs of the racks built so far, and the room's air handlers (they serve no rack: the room is
        # built whole, with its air handling)
        cdus = tuple(f for f in final.project.floor_devices if not f.serves or set(f.serves) <= ids)
        project = Project(name=f"{final.project.name} - phase {n} of {count}",
                          description=f"Phase {n} of {count}: scalable units 1-{k} of the design. "
                                      + final.project.description, settings=settings)
        project, _ = AddHallCommand(hall).apply(project, catalog)
        project, _ = AddObjectsCommand(racks=tuple(racks), floor_devices=cdus).apply(project, catalog)
        out.append(project)
    out.append(replace(final.project, name=f"{final.project.name} - phase {count} of {count}"))
    return out


def _without_last_node(rack: Rack, system: str, k: int, final: Generated, reserved_nodes: int):
    """The devices of SU ``k``'s rack without the DGX that makes way for the UFM (the SU's last ones)."""
    su_prefix = f"su{k:0{max(2, len(str(final.sus)))}d}-"
    su_racks = [r for r in final.project.racks if r.id.startswith(su_prefix) and _NODE_UNIT.match(r.id)]
    nodes = [d.id for r in su_racks for d in r.devices if d.type == system]
    drop = set(nodes[len(nodes) - reserved_nodes:]) if reserved_nodes else set()
    return tuple(d for d in rack.devices if d.id not in drop)


def _needed_early(name: str, blocks: int, spines: int) -> bool:
    """A leaf of a block the phase's endpoints reach, or a spine of a pod they reach (three tiers)."""
    m = _LEAF.match(name)
    if m:
        return int(m.group(1)) <= blocks
    m = _SPINE.match(name)
    return bool(m) and int(m.group(1)) <= spines
