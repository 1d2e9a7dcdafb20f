"""``analyze_fabric``: the ``fabric`` section of ``analyze`` and the findings that go with it.

Why findings point where they do: a missing leaf is fixed in the rack that holds
the other leaves (or in the hall when there are none); an unplugged appliance in
its own rack; a too-long cable in the rack at its lower end.
"""
from __future__ import annotations

from catalog import Catalog

from ..findings import Finding
from ..model import Project
from .bandwidth import bandwidth_section
from .geometry import inventory
from .sizing import FabricError
from .wiring import plan_wiring, size_design

EMPTY_LINKS = {"node_leaf": 0, "leaf_spine": 0, "spine_core": 0}


def _hall_of(project: Project, inv) -> str:
    if inv.nodes:
        return f"hall:{inv.rack_halls[inv.devices.rack[inv.nodes[0]]]}"
    return f"hall:{project.halls[0].id}" if project.halls else "hall:"


def _rack_where(inv, device: int) -> str:
    return f"rack:{inv.rack_ids[inv.devices.rack[device]]}"


def analyze_fabric(project: Project, catalog: Catalog, *, tiers="auto",
                   oversubscription: float = 1.0) -> tuple[dict, list[Finding]]:
    """Size the design's compute fabric, wire it from the floor plan, and check it."""
    inv = inventory(project, catalog)
    findings: list[Finding] = []
    hall = _hall_of(project, inv)
    if not inv.nodes:
        return {"endpoints": 0, "nodes": 0, "gpus": 0, "tiers": 0, "leaf": 0, "spine": 0, "core": 0,
                "links": dict(EMPTY_LINKS), "max_endpoints": 0, "cables": {}, "cables_by_length": {},
                "cables_total": 0, "transceivers": {}, "placed": {r: len(inv.switches[r]) for r in
                                                                   ("leaf", "spine", "core")},
                "notes": ["no compute nodes in the design"]}, findings
    try:
        required = size_design(inv, catalog, tiers=tiers, oversubscription=oversubscription)
    except FabricError as exc:
        if str(tiers) != "2":
            return {"endpoints": len(inv.nodes) * inv.rails + len(inv.reserved), "error": str(exc)}, [
                Finding("error", "fabric-impossible", str(exc), hall)]
        findings.append(Finding("error", "fabric-tier-forbidden", f"{exc} (the design allows 2 tiers)", hall))
        required = size_design(inv, catalog, tiers="auto", oversubscription=oversubscription)
    plan = plan_wiring(project, catalog, oversubscription=oversubscription, inv=inv, required=required)
    switch = required.switch
    needs = (("leaf", required.leaf), ("spine", required.spine), ("core", required.core))
    if not any(plan.placed[r] for r, _ in needs):
        parts = " + ".join(f"{n} {r}" for r, n in needs if n)
        findings.append(Finding("warning", "fabric-no-switches",
                                f"no compute-fabric switches placed: {required.endpoints:,} fabric ports need "
                                f"{parts} {switch} switches ({required.tiers} tiers)", hall))
    else:
        for role, need in needs:
            have = plan.placed[role]
            if len(have) < need:
                where = _rack_where(inv, have[-1]) if have else hall
                findings.append(Finding("warning", "fabric-too-few-switches",
                                        f"{required.endpoints:,} fabric ports need {need} {role} {switch} switches "
                                        f"({required.tiers} tiers); the design places {len(have)}", where))
    if plan.unwired_endpoints and plan.placed["leaf"]:
        first = inv.nodes + inv.reserved
        lost_dev = next(i for i in first if inv.devices.labels[i] == plan.unwired_endpoints[0])
        names = ", ".join(plan.unwired_endpoints[:4]) + (" ..." if len(plan.unwired_endpoints) > 4 else "")
        findings.append(Finding("warning", "fabric-ports-exhausted",
                                f"{plan.unwired_links['node_leaf']} fabric ports find no free leaf port "
                                f"({names}): the {len(plan.placed['leaf'])} leaves placed are full",
                                _rack_where(inv, lost_dev)))
    for tier in ("leaf_spine", "spine_core"):
        if plan.unwired_links[tier]:
            findings.append(Finding("warning", "fabric-ports-exhausted",
                                    f"{plan.unwired_links[tier]} {tier.replace('_', '-')} links have no switch "
                                    f"port to land on", hall))
    bad = plan.too_long
    if len(bad):
        i = int(bad[0])
        findings.append(Finding("error", "fabric-cable-too-long",
                                f"{len(bad)} fabric links are longer than any orderable cable "
                                f"({plan.raw_m[i]:.1f} m from {inv.devices.labels[plan.a_dev[i]]} to "
                                f"{inv.devices.labels[plan.b_dev[i]]}; fibre reaches 100 m)",
                                _rack_where(inv, int(plan.a_dev[i]))))
    section = required.to_json()
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
    section["notes"] = list(section.get("notes", [])) + inv.notes
    bw = bandwidth_section(project, catalog, tree=required, inv=inv)
    section["bandwidth"] = {k: bw[k] for k in ("per_gpu", "bisection_tbps", "bisection_tbps_non_blocking",
                                               "oversubscription")}
    return section, findings

