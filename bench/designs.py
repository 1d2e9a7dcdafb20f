"""Large designs for the benchmarks (100,000 GPUs and more), drawn by the SuperPOD generator.

The compute fabric is QM9700 while three tiers of it reach the endpoints (65,536
at 8 rails) and Quantum-X800 Q3400 beyond, which is what the generator itself
proposes for a larger target.
"""
from __future__ import annotations

from catalog import default_catalog
from designer.generate import GenerateError, SuperpodSpec, generate
from designer.model import Project


def generated(system: str, gpus: int) -> Project:
    catalog = default_catalog()
    try:
        return generate(SuperpodSpec(system=system, gpus=gpus), catalog).project
    except GenerateError:
        return generate(SuperpodSpec(system=system, gpus=gpus, switch="q3400"), catalog).project


def dgx_b200_project(gpus: int = 100_000) -> Project:
    """About ``gpus`` GPUs as DGX B200, two per rack, with all four networks (12,500 DGX for 100,000 GPUs)."""
    return generated("dgx-b200", gpus)


def nvl72_project(gpus: int = 100_000) -> Project:
    """About ``gpus`` GPUs as GB200 NVL72 racks with their CDUs and all their networks (1,389 racks for 100,000)."""
    return generated("gb200-nvl72", gpus)
