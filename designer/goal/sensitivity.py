"""How an option's days and cost move when its assumptions are off by a fifth: MFU, failure rate, tokens and the
power price, each ±20 % alone, read from the option's analysis (its training and cost views) with the engines'
own relations:

- MFU: the step time is the work over the rate, so compute days scale by 1/(1 ± 0.2); the checkpoint interval is
  set in wall time, so the ETTR stays.
- failure rate: the job's MTBF is the GPUs' over their count, so it scales by 1/(1 ± 0.2); the checkpoint interval
  (Daly's, unless the goal states one) and the ETTR are worked out again as the goodput model does
  (:func:`.interval_and_ettr`).
- tokens: compute days scale with them.
- power price: the energy share of the yearly cost scales; days stay.

The run's cost is the cost of ownership for the wall-clock days (capital over its depreciation, energy and
support, per utilised hour), so it moves with the days and with the energy price.
"""
from __future__ import annotations

from ..quote.cost import HOURS_PER_YEAR
from ..training.goodput import interval_and_ettr

CHANGE = 0.20
FACTORS = (("mfu", "MFU"), ("failure_rate", "failure rate"), ("tokens", "tokens"), ("power_price", "power price"))


def sensitivity(training, cost) -> tuple[dict, ...]:
    """Rows (factor, label, change, days, cost) for each factor at −20 % and +20 %, and the option as it is first
    (change 0); empty when the plan does not run or the design has no cost of ownership."""
    t, c = training, cost
    if c is None or not t.ok or not t.fits or t.goodput is None or not c.yearly_cost or not c.utilisation \
            or not t.wall_time_days:
        return ()
    g = t.goodput
    hours_used = HOURS_PER_YEAR * c.utilisation

    def run_cost(days: float, yearly: float) -> float:
        return yearly * days * 24.0 / hours_used

    def ettr_at(mtbf_h: float) -> float:
        fixed = g.checkpoint_interval_s if g.interval_stated else None  # a stated interval stays as it is
        return interval_and_ettr(mtbf_h * 3600.0, g.checkpoint_blocking_s, g.checkpoint_s, g.restart_s,
                                 bool(g.async_checkpoint), fixed)[1]

    base_days = t.wall_time_days
    base_ettr = ettr_at(g.job_mtbf_h)
    rows = [_row("as_designed", "as designed", 0.0, base_days, run_cost(base_days, c.yearly_cost))]
    for key, label in FACTORS:
        for sign in (-1.0, 1.0):
            x = sign * CHANGE
            yearly = c.yearly_cost
            if key == "mfu":
                days = base_days / (1 + x)
            elif key == "failure_rate":
                days = base_days * base_ettr / ettr_at(g.job_mtbf_h / (1 + x))
            elif key == "tokens":
                days = base_days * (1 + x)
            else:
                days, yearly = base_days, c.yearly_cost + c.energy_per_year * x
            rows.append(_row(key, label, x, days, run_cost(days, yearly)))
    return tuple(rows)


def _row(factor: str, label: str, change: float, days: float, cost: float) -> dict:
    return {"factor": factor, "label": label, "change": change, "days": round(days, 3), "run_cost": round(cost, 2)}
