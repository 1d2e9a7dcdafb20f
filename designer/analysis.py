"""``analyze(project)``: every engine's result for one project snapshot, as plain data.

The GUI, the CLI and the exporters all call this one function; none recomputes.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from catalog import Catalog

from .arrays import flatten
from .bom import build_bom
from .checks import Finding, check_space
from .cooling import analyze_cooling
from .floor_loading import analyze_floor
from .model import Project
from .fabric import FabricError, analyze_fabric, bandwidth_section
from .power import analyze_power
from .training import training_section

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Analysis:
    summary: dict
    sections: dict
    findings: tuple[Finding, ...] = field(default=())

    def __getitem__(self, key: str) -> dict:
        return self.sections[key]

    @cached_property
    def _rack_rows(self) -> dict[str, dict]:
        rows: dict[str, dict] = {}
        for key in ("power", "cooling", "floor"):
            for row in (self.sections.get(key) or {}).get("racks") or ():
                merged = rows.setdefault(row["id"], {})
                for k, v in row.items():
                    merged.setdefault(k, v)
        return rows

    def rack(self, rack_id: str) -> dict | None:
        """Every engine's per-rack figures for one rack (``limit_kw``, ``max_kw``, ``utilisation``,
        ``liquid_kw``, ``weight_kg`` ...), or None for a rack this analysis does not know."""
        return self._rack_rows.get(rack_id)

    def to_json(self) -> dict:
        out = {"summary": self.summary}
        out.update(self.sections)
        out["findings"] = [f.to_json() for f in self.findings]
        return out


def inventory(project: Project) -> Counter:
    """How many of each catalog id the design holds (racks, mounted and floor devices)."""
    counts: Counter = Counter()
    for rack in project.racks:
        counts[rack.type] += 1
        for d in rack.devices:
            counts[d.type] += 1
    for f in project.floor_devices:
        counts[f.type] += 1
    return counts


def fabric_parts(fabric: dict) -> Counter:
    """Cables and transceivers the fabric engine chose, by catalog id (they are not placed on the plan)."""
    parts: Counter = Counter()
    for key in ("cables", "transceivers"):
        for type_id, n in (fabric.get(key) or {}).items():
            if isinstance(n, int):
                parts[type_id] += n
    return parts


def _cable_lengths(fabric: dict) -> dict[str, Counter]:
    return {type_id: Counter({float(length): n for length, n in by_len.items()})
            for type_id, by_len in (fabric.get("cables_by_length") or {}).items()}


def analyze(project: Project, catalog: Catalog) -> Analysis:
    arrays = flatten(project, catalog)
    power, power_findings = analyze_power(project, catalog, arrays)
    cooling, cooling_findings = analyze_cooling(project, catalog, arrays)
    floor, floor_findings = analyze_floor(project, catalog, arrays)
    counts = inventory(project)
    by_kind: Counter = Counter()
    for type_id, n in counts.items():
        by_kind[catalog.get(type_id).kind] += n
    gpus = int(np.sum(arrays.dev(arrays.types.gpus)))
    # Dense BF16 peak of every GPU in the design, from each system's GPU figures in the catalog.
    bf16 = np.array([(catalog.gpu_spec_of(t).bf16_tflops if t.gpu else 0.0) for t in arrays.types.types])
    bf16_pflops = float(np.sum(arrays.dev(arrays.types.gpus * bf16))) / 1000.0
    summary = {
        "name": project.name,
        "halls": len(project.halls),
        "racks": len(project.racks),
        "gpus": gpus,
        "bf16_pflops": round(bf16_pflops, 3),
        "it_power_typical_kw": power["it_typical_kw"],
        "it_power_max_kw": power["it_max_kw"],
        "facility_power_kw": power["facility_max_kw"],
        "liquid_heat_kw": cooling["liquid_kw"],
        "air_heat_kw": cooling["air_kw"],
        "coolant_flow_lpm": cooling["coolant_flow_lpm"],
        "currency": project.currency,
    }
    s = project.settings
    fabric, fabric_findings = analyze_fabric(project, catalog, tiers=s.fabric_tiers,
                                             oversubscription=s.fabric_oversubscription)
    fabric.pop("bandwidth", None)  # the full section below adds the collective estimates
    try:
        bandwidth = bandwidth_section(project, catalog, tiers=s.fabric_tiers,
                                      oversubscription=s.fabric_oversubscription)
    except FabricError as exc:  # the fabric finding already says why; bandwidth has nothing to stand on
        bandwidth = {"status": "error", "error": str(exc)}
    summary["switches"] = {k: fabric.get(k, 0) for k in ("leaf", "spine", "core")}
    summary["cables"] = fabric.get("cables_total", 0)
    training, training_findings = training_section(project, catalog, project.workload_dict)
    summary["tokens_per_s"] = training.get("tokens_per_s")
    summary["mfu"] = training.get("mfu")
    bom, bom_findings = build_bom(counts + fabric_parts(fabric), catalog, project.currency,
                                  cable_lengths=_cable_lengths(fabric))
    summary["price_total"] = bom["price_total"]
    summary["currency"] = bom["currency"]
    findings = (check_space(project, catalog) + power_findings + cooling_findings + floor_findings + bom_findings
                + training_findings + fabric_findings)
    findings.sort(key=lambda f: (SEVERITY_ORDER[f.severity], f.where, f.code))
    sections = {
        "devices": {"by_type": dict(sorted(counts.items())), "by_kind": dict(sorted(by_kind.items()))},
        "power": power,
        "cooling": cooling,
        "floor": floor,
        "fabric": fabric,
        "bandwidth": bandwidth,
        "training": training,
        "bom": bom,
    }
    return Analysis(summary, sections, tuple(findings))
