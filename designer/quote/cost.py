"""Cost of ownership beside the bill, per year, per GPU-hour and per million tokens.

Straight-line, the convention of the public models the quote reference (§5) compiles::

    yearly cost   = capital / depreciation years + energy per year + subscriptions and support per year
    energy / year = IT kW (typical, under sustained training) × PUE × 8,760 h × utilisation × price per kWh
    $ / GPU-hour  = yearly cost / (GPUs × 8,760 h × utilisation)
    $ / M tokens  = yearly cost / (tokens per second × 3,600 × 8,760 h × utilisation) × 10⁶

Capital is the bill's one-off net total (hardware and services); subscriptions are its per-year
lines. Idle draw outside the utilised hours, colocation, financing and residual value are left
out and listed as such; unpriced lines are out of every figure, which then says so.

The ``cost`` engine (:mod:`designer.cost`) hands this the bill's totals and the figures of the
power, devices and training engines.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..quote_settings import QuoteSettings

HOURS_PER_YEAR = 8760.0


#: What every document says where a figure of the training run would be, when the plan does not fit in memory.
DOES_NOT_FIT = "the training plan does not fit in GPU memory"


def no_tokens_reason(status: str | None, fits: bool | None) -> str:
    """Why a cost of ownership has no training throughput, from the training section's ``status`` and ``fits``
    (None, None: no training section)."""
    if status == "ok" and fits is False:
        return DOES_NOT_FIT
    if status == "error":
        return "the training workload could not be estimated"
    return "no training workload"


def no_tokens_of(training) -> str:
    """:func:`no_tokens_reason` of a typed training view (None: the analysis has no training section)."""
    return no_tokens_reason(training.status, training.fits) if training is not None else no_tokens_reason(None, None)


def cost_of_ownership(q: QuoteSettings, *, currency: str, capital: float, support_per_year: float,
                      unpriced: Iterable[str], other_currencies: Mapping[str, float], pue: float,
                      it_typical_kw: float, gpus: int, tokens_per_s: float | None,
                      no_tokens: str = "no training workload") -> dict:
    """The ``cost`` section: ``capital`` is the bill's one-off net total, ``support_per_year`` its per-year
    lines, both in ``currency``; ``other_currencies`` the bill's totals it could not convert, and
    ``unpriced`` its lines without a price. ``tokens_per_s`` is None without a training workload or when its
    plan does not run; ``no_tokens`` says which, in the assumptions."""
    years, util, price_kwh = q.depreciation_years, q.utilisation, q.energy_price_per_kwh
    facility_kw = it_typical_kw * pue
    energy_kwh = facility_kw * HOURS_PER_YEAR * util
    energy = energy_kwh * price_kwh
    support = support_per_year
    depreciation = capital / years
    yearly = depreciation + energy + support
    gpu_hours = gpus * HOURS_PER_YEAR * util
    per_gpu_hour = yearly / gpu_hours if gpu_hours else None
    tps = tokens_per_s
    per_m_tokens = (yearly / (tps * 3600.0 * HOURS_PER_YEAR * util) * 1e6) if tps else None
    other = dict(other_currencies)
    if other:
        # capital in one currency with the rest left out would understate every rate many times over
        per_gpu_hour = per_m_tokens = None
    terms = {"depreciation": depreciation, "energy": energy, "subscriptions and support": support}
    dominant = max(terms, key=terms.get) if yearly else None
    return {
        "currency": currency,
        "capital": round(capital, 2),
        "depreciation_years": years,
        "utilisation": util,
        "energy_price_per_kwh": price_kwh,
        "pue": pue,
        "facility_kw": round(facility_kw, 3),
        "energy_kwh_per_year": round(energy_kwh, 1),
        "energy_per_year": round(energy, 2),
        "support_per_year": round(support, 2),
        "depreciation_per_year": round(depreciation, 2),
        "yearly_cost": round(yearly, 2),
        "total_over_period": round(capital + (energy + support) * years, 2),
        "gpus": gpus,
        "gpu_hours_per_year": round(gpu_hours, 1),
        "cost_per_gpu_hour": round(per_gpu_hour, 4) if per_gpu_hour is not None else None,
        "tokens_per_s": tps,
        "cost_per_million_tokens": round(per_m_tokens, 4) if per_m_tokens is not None else None,
        "dominant": dominant,
        "excludes_unpriced": list(unpriced),
        "excludes_currencies": other,
        "assumptions": [
            "straight-line depreciation, no residual value and no financing",
            "energy at typical IT draw × PUE for the utilised hours only; idle draw is not counted",
            "colocation, staff and insurance are not included",
        ] + ([f"{no_tokens}: cost per million tokens is not given"] if not tps else [])
          + ([f"prices in {', '.join(other)} are not converted to {currency}: capital leaves them out, so no "
              "cost per GPU-hour or per million tokens is given"] if other else []),
    }
