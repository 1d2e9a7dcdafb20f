"""Typed views of the summary, the device counts and the findings.

Each class mirrors one object of the section, attribute for key; the docstring names its JSON path.
"""
from __future__ import annotations

from collections.abc import Mapping

from .base import view


@view
class SwitchCounts:
    """``summary.switches``"""
    leaf: int
    spine: int
    core: int


@view
class Summary:
    """``summary``"""
    name: str
    halls: int
    racks: int
    gpus: int
    bf16_pflops: float
    it_power_typical_kw: float
    it_power_max_kw: float
    facility_power_kw: float
    liquid_heat_kw: float
    air_heat_kw: float
    coolant_flow_lpm: float
    currency: str
    switches: SwitchCounts
    cables: int
    price_total: float
    list_total: float
    price_estimated: bool
    unpriced_lines: int
    tokens_per_s: float | None = None
    mfu: float | None = None
    cost_per_gpu_hour: float | None = None


@view
class DeviceCounts:
    """``devices``"""
    by_type: Mapping[str, int]
    by_kind: Mapping[str, int]


@view
class FindingView:
    """``findings[]``"""
    severity: str
    code: str
    message: str
    where: str
    places: tuple[str, ...]
