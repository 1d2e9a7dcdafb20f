"""``analyze(project)``: every engine's result for one project snapshot, as plain data.

The GUI, the CLI and the exporters all call this one function; none recomputes.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from catalog import Catalog

from .checks import Finding, check_space
from .model import Project


#: Kinds whose draw is facility load (pumps, fans), not IT load.
FACILITY_KINDS = frozenset({"cdu"})


@dataclass(frozen=True)
class Analysis:
    summary: dict
    devices: dict
    findings: tuple[Finding, ...] = field(default=())

    def to_json(self) -> dict:
        return {"summary": self.summary, "devices": self.devices,
                "findings": [f.to_json() for f in self.findings]}


def inventory(project: Project, catalog: Catalog) -> Counter:
    """How many of each catalog id the design holds (racks, mounted and floor devices)."""
    counts: Counter = Counter()
    for rack in project.racks:
        counts[rack.type] += 1
        for d in rack.devices:
            counts[d.type] += 1
    for f in project.floor_devices:
        counts[f.type] += 1
    return counts


def analyze(project: Project, catalog: Catalog) -> Analysis:
    counts = inventory(project, catalog)
    gpus = 0
    typical_w = max_w = 0.0
    by_kind: Counter = Counter()
    for type_id, n in counts.items():
        dev = catalog.get(type_id)
        by_kind[dev.kind] += n
        gpus += dev.gpu_count * n
        if dev.power_max_w is not None and dev.kind not in FACILITY_KINDS:
            max_w += dev.power_max_w * n
            typical = dev.power_typical_w if dev.power_typical_w is not None else dev.power_max_w
            typical_w += typical * n
    summary = {
        "name": project.name,
        "halls": len(project.halls),
        "racks": len(project.racks),
        "gpus": gpus,
        "it_power_typical_kw": round(typical_w / 1000, 3),
        "it_power_max_kw": round(max_w / 1000, 3),
        "currency": project.currency,
    }
    devices = {
        "by_type": dict(sorted(counts.items())),
        "by_kind": dict(sorted(by_kind.items())),
    }
    findings = tuple(sorted(check_space(project, catalog),
                            key=lambda f: (("error", "warning", "info").index(f.severity), f.where)))
    return Analysis(summary, devices, findings)
