"""The ``devices`` engine: how many of each catalog id the design holds, GPUs and their peak.

Counted once from the flattened arrays, so the bill of materials, the training engine
and the summary all read the same figures.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from .engines import Context, EngineResult


@dataclass(frozen=True, kw_only=True)
class DevicesResult(EngineResult):
    #: catalog id -> quantity: racks, mounted devices and floor units
    counts: Mapping[str, int]
    #: GPU system id -> GPUs in the design
    gpus_by_system: Mapping[str, int]
    gpus: int
    #: dense BF16 peak of every GPU in the design, PFLOP/s (catalog figures)
    bf16_pflops: float


def dominant_system(gpus_by_system: Mapping[str, int]) -> str | None:
    """The GPU system the design holds most GPUs of (the first listed among equals), or None: the one rule the
    training estimate, its checkpoints and failures, and the storage tier all take the design's system by."""
    held = {k: v for k, v in gpus_by_system.items() if v}
    return max(held, key=held.__getitem__) if held else None


def run(ctx: Context) -> DevicesResult:
    a, catalog = ctx.arrays, ctx.catalog
    t = a.types
    n = len(t.ids)
    per_type = (np.bincount(a.dev_type, minlength=n) + np.bincount(a.rack_type, minlength=n)
                + np.bincount(a.floor_type, minlength=n))
    counts = {t.ids[i]: int(c) for i, c in enumerate(per_type.tolist()) if c}
    by_kind: dict[str, int] = {}
    for type_id, c in counts.items():
        kind = catalog.get(type_id).kind
        by_kind[kind] = by_kind.get(kind, 0) + c
    mounted = np.bincount(a.dev_type, minlength=n)
    gpus_by_system = {t.ids[i]: int(mounted[i] * t.gpus[i]) for i in range(n) if mounted[i] and t.gpus[i]}
    bf16 = np.array([(catalog.gpu_spec_of(d).bf16_tflops if d.gpu else 0.0) for d in t.types])
    gpus = a.gpus
    bf16_pflops = float(np.sum(mounted * t.gpus * bf16)) / 1000.0
    counts, gpus_by_system = MappingProxyType(counts), MappingProxyType(gpus_by_system)
    section = {"by_type": dict(sorted(counts.items())), "by_kind": dict(sorted(by_kind.items()))}
    return DevicesResult(section=section, counts=counts, gpus_by_system=gpus_by_system, gpus=gpus,
                         bf16_pflops=bf16_pflops)
