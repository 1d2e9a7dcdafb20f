"""The ``cost`` engine: cost of ownership beside the bill, per year, per GPU-hour and per million tokens.

It reads the bill's totals (the ``bom`` engine), the typical IT draw (``power``), the GPU count
(``devices``) and the training throughput (``training``); the figures and their conventions are
:func:`designer.quote.cost.cost_of_ownership`'s.
"""
from __future__ import annotations

from dataclasses import dataclass

from .engines import Context, EngineResult
from .quote.cost import cost_of_ownership, no_tokens_reason


@dataclass(frozen=True, kw_only=True)
class CostResult(EngineResult):
    cost_per_gpu_hour: float | None
    yearly_cost: float


def analyze_cost(ctx: Context) -> CostResult:
    bom, power, devices = ctx["bom"], ctx["power"], ctx["devices"]
    training = ctx["training"].section
    section = cost_of_ownership(
        ctx.project.quote, currency=bom.currency, capital=bom.one_off_total, support_per_year=bom.yearly_total,
        unpriced=bom.unpriced, other_currencies=bom.section.get("other_currencies") or {}, pue=ctx.settings.pue,
        it_typical_kw=power.it_typical_kw, gpus=devices.gpus,
        tokens_per_s=training.get("tokens_per_s") if training else None,
        no_tokens=no_tokens_reason(training.get("status"), training.get("fits")) if training else
        no_tokens_reason(None, None))
    return CostResult(section=section, cost_per_gpu_hour=section["cost_per_gpu_hour"],
                      yearly_cost=section["yearly_cost"])
