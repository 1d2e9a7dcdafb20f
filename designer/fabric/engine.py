"""The fabric engines: the design's compute fabric sized once (``fabric_sizing``), then wired from the floor plan,
given its cables and optics, and checked (``fabric``).

Why one sizing: the bandwidth, training, bill-of-materials and cabling consumers all
read the tree the sizing settles on, so a design has one fabric whatever asks.
Why the fallback is a finding: a design whose endpoints need more tiers than the
project allows is still sized (at the tiers it needs) so that every figure stays
usable, and the ``fabric-tier-forbidden`` error says the setting cannot hold.

Why findings point where they do: a missing leaf is fixed in the rack that holds
the other leaves (or in the hall when there are none); an unplugged appliance in
its own rack; a too-long cable in the rack at its lower end.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from catalog import Catalog

from ..formatting import quantity
from ..engines import Context, EngineResult
from ..findings import Finding
from ..model import Project
from .geometry import OTHER_NETWORKS, Inventory, inventory
from .sizing import FabricError, FatTree
from . import media
from .wiring import Link, WiringPlan, device_cages, plan_wiring, size_design

EMPTY_LINKS = {"node_leaf": 0, "leaf_spine": 0, "spine_core": 0}


@dataclass(frozen=True, kw_only=True)
class FabricResult(EngineResult):
    """The ``fabric`` section, the one fat tree the design needs, and its port-to-port wiring."""

    inventory: Inventory
    #: the tree every consumer reads; None without compute nodes or when no tree can be built
    tree: FatTree | None
    #: what the project asked for (``auto``, ``2``, ``3``) and whether the tree had to exceed it
    tiers_requested: str
    tiers_exceeded: bool
    #: why no tree could be built (``fabric-impossible``), else None
    error: str | None
    plan: WiringPlan | None

    def links(self) -> list[Link]:
        """Every cable of the wiring plan, port to port (empty when nothing is wired)."""
        return self.plan.links() if self.plan is not None else []

    def parts(self) -> Counter:
        """Cables and transceivers by catalog id: what the bill of materials orders."""
        parts: Counter = Counter()
        for key in ("cables", "transceivers"):
            for type_id, n in (self.section.get(key) or {}).items():
                parts[type_id] += int(n)
        return parts

    def cable_lengths(self) -> dict[str, Counter]:
        """Cable id -> {orderable length in m: quantity}."""
        return {type_id: Counter({float(length): n for length, n in by_len.items()})
                for type_id, by_len in (self.section.get("cables_by_length") or {}).items()}


def _hall_of(project: Project, inv: Inventory) -> str:
    """Where a finding about the fabric as a whole points: its hall, or on a site of several halls the compute
    fabric itself (one hall among many would send the user to the wrong room)."""
    if len(project.halls) > 1:
        return "project:fabric"
    if inv.nodes:
        return f"hall:{inv.rack_halls[inv.devices.rack[inv.nodes[0]]]}"
    return f"hall:{project.halls[0].id}" if project.halls else "hall:"


def _rack_where(inv: Inventory, device: int) -> str:
    return f"rack:{inv.rack_ids[inv.devices.rack[device]]}"


def size_for_design(inv: Inventory, catalog: Catalog, tiers="auto", oversubscription: float = 1.0, *,
                    where: str = "", core_oversubscription: float = 1.0
                    ) -> tuple[FatTree | None, bool, list[Finding], str | None]:
    """The one sizing policy: (tree, tiers exceeded, findings, error).

    The project's tier setting is tried first; when the endpoints need more tiers than it
    allows, the tree is sized at the tiers it needs and an error finding says so. A design
    that no tree of the switch can hold gets no tree and a ``fabric-impossible`` error.
    """
    if not inv.nodes:
        return None, False, [], None
    try:
        return size_design(inv, catalog, tiers=tiers, oversubscription=oversubscription,
                           core_oversubscription=core_oversubscription), False, [], None
    except FabricError as exc:
        first = str(exc)
    tree = _auto_tree(inv, catalog, oversubscription, core_oversubscription) if str(tiers) != "auto" else None
    if tree is None:  # not even the tiers the endpoints need can be built
        return None, False, [Finding("error", "fabric-impossible", first, where)], first
    why = (f"{first} (the design allows {tiers} tiers)" if tree.tiers > int(tiers) else
           f"{tiers} tiers of this switch cannot be built for these endpoints ({first})")
    return tree, True, [Finding("error", "fabric-tier-forbidden", f"{why}; sized at {tree.tiers} tiers", where)], None


def _auto_tree(inv: Inventory, catalog: Catalog, oversubscription: float,
               core_oversubscription: float = 1.0) -> FatTree | None:
    """The tree at the tiers the endpoints need, or None when no tier count of the switch holds them."""
    try:
        return size_design(inv, catalog, tiers="auto", oversubscription=oversubscription,
                           core_oversubscription=core_oversubscription)
    except FabricError:
        return None


def _type_name(catalog: Catalog, type_id: str) -> str:
    found = catalog.find(type_id)
    return found.name if found is not None else type_id


def parts_findings(plan: WiringPlan, catalog: Catalog) -> list[Finding]:
    """Why links have no parts, one finding per pair of cage kinds: a cage no catalog part fits (named by its
    kind and device type), two cages no common part joins, or runs longer than the longest parts for those
    cages reach (naming the longest such link, its ends and ports)."""
    bad = plan.too_long
    if not len(bad):
        return []
    inv, parts = plan.inv, media.parts_table(catalog)
    cages, of_dev = device_cages(inv)
    a_dev, b_dev = plan.a_dev[bad], plan.b_dev[bad]
    kinds = of_dev[a_dev] * len(cages) + of_dev[b_dev]
    out: list[Finding] = []
    for kind in np.unique(kinds).tolist():
        sel = bad[kinds == kind]
        ca, cb = cages[kind // len(cages)], cages[kind % len(cages)]
        i = int(sel[np.argmax(plan.raw_m[sel])])
        a, b = int(plan.a_dev[i]), int(plan.b_dev[i])
        where = _rack_where(inv, a)
        names = (_type_name(catalog, inv.devices.types[a]), _type_name(catalog, inv.devices.types[b]))
        lacking = [(c, n) for c, n in ((ca, names[0]), (cb, names[1])) if not parts.fits_any(c)]
        if lacking:
            what = " or ".join(f"the {c.label()} of the {n}" for c, n in dict(lacking).items())
            out.append(Finding("error", "fabric-no-part", f"no transceiver or cable in the catalog fits {what}: "
                                                          f"{len(sel):,} fabric links have no parts", where))
            continue
        reach = media.longest_reach(catalog, ca, cb)
        if reach <= 0:
            out.append(Finding("error", "fabric-no-part",
                               f"no catalog parts join the {ca.label()} of the {names[0]} to the {cb.label()} of "
                               f"the {names[1]}: {len(sel):,} fabric links have no parts", where))
            continue
        ports = plan.port_names(np.asarray([a, b]), np.asarray([plan.a_port[i], plan.b_port[i]]))
        speed = min(ca.speed_gbps, cb.speed_gbps)
        out.append(Finding("error", "fabric-cable-too-long",
                           f"{len(sel):,} fabric links are longer than any {speed:g}G parts for their cages reach: "
                           f"{inv.devices.labels[a]} port {ports[0]} to {inv.devices.labels[b]} port {ports[1]} "
                           f"runs {quantity(plan.raw_m[i], 'm')}; the longest reach there is "
                           f"{quantity(reach, 'm', 0)}", where))
    return out


def technology_findings(project: Project, catalog: Catalog, inv: Inventory, hall: str) -> list[Finding]:
    """Compute-fabric switches of the other kind than the design's technology (they are left out of the
    fabric), and a second plane the switches cannot be split for."""
    out: list[Finding] = []
    wanted = "infiniband" if inv.technology == "infiniband" else "ethernet"
    other: Counter = Counter()
    where = ""
    types: dict[str, str] = {}
    for rack in project.racks:
        for d in rack.devices:
            if d.type not in types:
                dt = catalog.find(d.type)
                g = next((g for g in dt.ports if g.role == "fabric"), None) if dt is not None and \
                    dt.kind == "switch" else None
                types[d.type] = g.protocol if g is not None else ""
            proto = types[d.type]
            name = (d.name or d.id).lower()
            if proto and proto != wanted and not any(w in name for w in OTHER_NETWORKS) \
                    and any(r in name for r in ("leaf", "spine", "core")):
                other[d.type] += 1
                where = where or f"rack:{rack.id}"
    if other:
        names = ", ".join(f"{n} {_type_name(catalog, t)}" for t, n in other.items())
        kind = "Ethernet" if wanted == "infiniband" else "InfiniBand"
        out.append(Finding("error", "fabric-technology-mismatch",
                           f"the design's compute fabric is {inv.technology} but it places {kind} fabric "
                           f"switches named as compute-fabric tiers ({names}): they are left out of the fabric; "
                           f"change the fabric technology in the project settings or replace them",
                           where or hall))
    return out


@dataclass(frozen=True, kw_only=True)
class SizingResult(EngineResult):
    """The fabric's endpoints and the one tree sized for them, before any cable is laid: what the bandwidth and
    training engines read (a separate engine so that they need not wait for the wiring and the cable choice, most
    of a large fabric's time)."""

    inventory: Inventory
    tree: FatTree | None
    tiers_requested: str
    tiers_exceeded: bool
    error: str | None
    #: the sizing's findings, given by the fabric engine (its own result has none, so each is reported once)
    sizing_findings: tuple[Finding, ...]
    #: where a finding about the fabric as a whole points
    hall: str


def size_fabric(ctx: Context) -> SizingResult:
    """The fabric-sizing engine: the design's endpoints and the one fat tree they need."""
    project, catalog, s = ctx.project, ctx.catalog, ctx.settings
    tiers, oversubscription = str(s.fabric_tiers), s.fabric_oversubscription
    inv = inventory(project, catalog)
    hall = _hall_of(project, inv)
    required, exceeded, findings, error = size_for_design(
        inv, catalog, tiers, oversubscription, where=hall,
        core_oversubscription=getattr(s, "fabric_core_oversubscription", 1.0))
    findings.extend(technology_findings(project, catalog, inv, hall))
    return SizingResult(inventory=inv, tree=required, tiers_requested=tiers, tiers_exceeded=exceeded, error=error,
                        sizing_findings=tuple(findings), hall=hall)


def analyze_fabric(ctx: Context) -> FabricResult:
    """Wire the sized fabric from the floor plan, choose its cables and optics, and check it."""
    project, catalog, s = ctx.project, ctx.catalog, ctx.settings
    sized: SizingResult = ctx["fabric_sizing"]
    inv, required, hall, error = sized.inventory, sized.tree, sized.hall, sized.error
    tiers, exceeded, oversubscription = sized.tiers_requested, sized.tiers_exceeded, s.fabric_oversubscription
    findings = list(sized.sizing_findings)

    def result(section: dict, plan: WiringPlan | None = None) -> FabricResult:
        return FabricResult(section=section, findings=tuple(findings), inventory=inv, tree=required,
                            tiers_requested=tiers, tiers_exceeded=exceeded, error=error, plan=plan)

    kind = {"technology": inv.technology, "planes": inv.planes}
    if not inv.nodes:
        return result({**kind, "endpoints": 0, "nodes": 0, "gpus": 0, "tiers": 0, "leaf": 0, "spine": 0, "core": 0,
                       "links": dict(EMPTY_LINKS), "max_endpoints": 0, "cables": {}, "cables_by_length": {},
                       "cables_total": 0, "transceivers": {}, "placed": {r: len(inv.switches[r]) for r in
                                                                          ("leaf", "spine", "core")},
                       "notes": ["no compute nodes in the design"]})
    if required is None:
        return result({**kind, "endpoints": len(inv.nodes) * inv.rails + len(inv.reserved), "error": error})
    plan = plan_wiring(project, catalog, oversubscription=oversubscription, inv=inv, required=required)
    for column in (plan.tier, plan.a_dev, plan.a_port, plan.b_dev, plan.b_port, plan.rail, plan.raw_m,
                   *(v for v in plan.choice.values() if hasattr(v, "flags"))):
        column.flags.writeable = False  # the exports and every view share this plan
    switch_type = catalog.find(required.switch)
    switch = switch_type.name if switch_type is not None else required.switch  # the name people read
    needs = (("leaf", required.leaf_switches), ("spine", required.spine_switches), ("core", required.core_switches))
    if not any(plan.placed[r] for r, _ in needs):
        parts = " + ".join(f"{n} {r}" for r, n in needs if n)
        findings.append(Finding("warning", "fabric-no-switches",
                                f"no compute-fabric switches placed: {required.endpoints * required.planes:,} "
                                f"fabric ports need "
                                f"{parts} {switch} switches ({required.tiers} tiers)", hall))
    else:
        for role, need in needs:
            have = plan.placed[role]
            if len(have) < need:
                where = _rack_where(inv, have[-1]) if have else hall
                findings.append(Finding("warning", "fabric-too-few-switches",
                                        f"{required.endpoints * required.planes:,} fabric ports need {need} {role} "
                                        f"{switch} switches "
                                        f"({required.tiers} tiers); the design places {len(have)}", where))
    reserved = {inv.devices.labels[i] for i in inv.reserved}
    lost_nodes = [n for n in plan.unwired_endpoints if n not in reserved]
    lost_reserved = [n for n in plan.unwired_endpoints if n in reserved]
    lost_ports = len(inv.reserved) - (plan.wired.reserved_ports if plan.wired is not None else 0)
    if lost_nodes and plan.placed["leaf"]:
        lost_dev = next(i for i in inv.nodes if inv.devices.labels[i] == lost_nodes[0])
        names = ", ".join(lost_nodes[:4]) + (" ..." if len(lost_nodes) > 4 else "")
        findings.append(Finding("warning", "fabric-ports-exhausted",
                                f"{plan.unwired_links['node_leaf'] - lost_ports} fabric ports find no free leaf port "
                                f"({names}): the {len(plan.placed['leaf'])} leaves placed are full",
                                _rack_where(inv, lost_dev)))
    if lost_reserved and plan.placed["leaf"]:
        # A full scalable unit leaves no node slot for the UFM appliances, and they never open a leaf block
        # of their own (that would add an SU's worth of switches for 4 cables): say so, where they stand.
        lost_dev = next(i for i in inv.reserved if inv.devices.labels[i] == lost_reserved[0])
        ports = required.ports()
        free_above = ports["spine"]["free"] + ports["core"]["free"]
        where = (f"; {free_above:,} spine{' and core' if ports['core']['free'] else ''} ports are free for them too"
                 if free_above >= lost_ports else "; no spine port is free either")
        findings.append(Finding("info", "fabric-appliance-no-port",
                                f"{', '.join(lost_reserved[:4])}{' ...' if len(lost_reserved) > 4 else ''}: no free "
                                f"compute-leaf port, every one carries a node or an uplink, so "
                                f"{'they are' if len(lost_reserved) > 1 else 'it is'} not cabled to the compute "
                                f"fabric; a node slot left free (one system fewer, as the NDR reference "
                                f"architectures do) takes {'them' if len(lost_reserved) > 1 else 'it'}{where}",
                                _rack_where(inv, lost_dev)))
    for tier in ("leaf_spine", "spine_core"):
        if plan.unwired_links[tier]:
            findings.append(Finding("warning", "fabric-ports-exhausted",
                                    f"{plan.unwired_links[tier]} {tier.replace('_', '-')} links have no switch "
                                    f"port to land on", hall))
    bad = plan.too_long
    findings.extend(parts_findings(plan, catalog))
    section = required.to_json(catalog, parts=False)
    for key in ("cables", "cables_total", "transceivers", "assumption"):
        section.pop(key, None)
    counts = plan.counts()
    section.update(counts)
    section["gpus"] = int(round(len(inv.nodes) * inv.gpus_per_node))
    section["node_type"] = inv.node_type
    section["placed"] = {r: len(plan.placed[r]) for r in ("leaf", "spine", "core")}
    section["wired_links"] = {name: int((plan.tier == t).sum()) for t, name in enumerate(EMPTY_LINKS)}
    section["unwired_links"] = dict(plan.unwired_links)
    section["too_long_links"] = int(len(bad))
    rack = np.asarray(inv.devices.rack, dtype=np.int64)
    section["room_links"] = inv.sites.room_links([h.id for h in project.halls], rack[plan.a_dev],
                                                 rack[plan.b_dev], plan.raw_m) if inv.sites is not None else []
    section["notes"] = list(section.get("notes", [])) + inv.notes
    return result(section, plan)

