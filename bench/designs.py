"""Large designs for the benchmarks (100,000 GPUs and more), drawn by the SuperPOD generator.

Each is what ``new superpod`` builds for the target: the system's own switch, and
past 65,536 endpoints of QM9700 the campus ratio above the pods, in as many halls
as the power blocks need.
"""
from __future__ import annotations

from catalog import default_catalog
from designer.generate import SuperpodSpec, generate
from designer.model import Project


def generated(system: str, gpus: int) -> Project:
    return generate(SuperpodSpec(system=system, gpus=gpus), default_catalog()).project


def dgx_b200_project(gpus: int = 100_000) -> Project:
    """About ``gpus`` GPUs as DGX B200, two per rack, with all four networks (12,500 DGX for 100,000 GPUs)."""
    return generated("dgx-b200", gpus)


def nvl72_project(gpus: int = 100_000) -> Project:
    """About ``gpus`` GPUs as GB200 NVL72 racks with their CDUs and all their networks (1,389 racks for 100,000)."""
    return generated("gb200-nvl72", gpus)
