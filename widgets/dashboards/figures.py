"""The dashboards' figures and texts, pure (no widgets): what each chart draws and what hovering it says.

Every figure is read from the analysis' views and the engines' arrays; nothing is recounted here. The
``*_tooltip`` texts are checked without a mouse, and :func:`label_step` / :func:`bar_index` hold the
arithmetic of thinned axis labels and hovered bars.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import math
from collections.abc import Sequence

import numpy as np

from designer.formatting import count, kw, number, percent, quantity
from designer.settings import FABRIC_NAMES

if TYPE_CHECKING:  # the views are read, never built, here; they load with the first analysis
    from designer.views import CoolingView, FabricView
    from designer.views.training import ScalingPoint

#: Clear space between two neighbouring rack labels.
RACK_LABEL_GAP_PX = 8


def totals_parts(analysis) -> list[str]:
    """['256 GPUs', '484.6 kW IT', '576.0 PFLOPS BF16', 'USD 17.52 M (est.)'] for the status bar.

    Every figure is the engines' (the analysis' summary); nothing is recounted here. "(est.)" marks
    a total that rests on unconfirmed prices.
    """
    summary = analysis.summary
    price = summary.price_total
    money = (f"{summary.currency} {number(price / 1e6, 2)} M" if price >= 1e5
             else f"{summary.currency} {number(price, 0)}")
    return [count(summary.gpus, "GPU"), f"{kw(summary.it_power_max_kw)} IT",
            f"{quantity(summary.bf16_pflops, 'PFLOPS')} BF16", money + (" (est.)" if summary.price_estimated else "")]


def totals_text(analysis) -> str:
    """'256 GPUs · 484.6 kW IT · 576.0 PFLOPS BF16 · USD 17.52 M (est.)': :func:`totals_parts` on one line."""
    return " · ".join(totals_parts(analysis))


def fabric_kind(fabric: FabricView | None) -> str:
    """'Spectrum-X Ethernet, 2 planes' or 'InfiniBand, 1 plane': the technology by its name, and the planes."""
    if fabric is None:
        return ""
    return f"{FABRIC_NAMES.get(fabric.technology, fabric.technology)}, {count(fabric.planes, 'plane')}"


def _core_word(fabric: FabricView) -> str:
    return "core" if fabric.technology == "infiniband" else "super-spine"  # as the RAs name the third tier


def _switches(counts: Sequence[tuple[int, str]], words: bool = True) -> str:
    return " + ".join(f"{number(n)} {word}" if words else number(n) for n, word in counts if n)


def plane_text(fabric: FabricView | None) -> str:
    """'16 leaf + 8 spine per plane' for a fabric of two planes or more; '' for one plane or none."""
    one = fabric.per_plane if fabric is not None and fabric.built and fabric.planes > 1 else None
    if one is None:
        return ""
    return _switches(((one.leaf, "leaf"), (one.spine, "spine"), (one.core, _core_word(fabric)))) + " per plane"


def fabric_text(fabric: FabricView | None) -> str:
    """'Spectrum-X Ethernet, 2 planes: 32 leaf + 16 spine (16 + 8 per plane)': the technology, the planes and the
    switches of every plane, then of one; 'InfiniBand, 1 plane: 16 leaf + 8 spine'. A fabric the engine could
    not size has its kind only."""
    if fabric is None:
        return ""
    kind = fabric_kind(fabric)
    if not fabric.built:
        return kind
    text = f"{kind}: " + _switches(((fabric.leaf or 0, "leaf"), (fabric.spine or 0, "spine"),
                                     (fabric.core or 0, _core_word(fabric))))
    one = fabric.per_plane
    if plane_text(fabric):
        text += " (" + _switches(((one.leaf, ""), (one.spine, ""), (one.core, "")), words=False) + " per plane)"
    return text


def fabric_tiers(fabric: FabricView | None) -> list[tuple[str, float, float]]:
    """(tier, used, free) from the fabric engine's port use; tiers the design lacks are left out, and a fabric
    the engine could not size (``fabric.error``) has none."""
    ports = fabric.ports if fabric is not None else None
    if ports is None:
        return []
    out = []
    for tier in ("leaf", "spine", "core"):
        p = getattr(ports, tier)
        if p.used or p.free:
            out.append((tier, float(p.used), float(max(p.free, 0))))
    return out


def training_points(scaling: Sequence[ScalingPoint] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GPU counts, tokens/s and days to train from the training estimate's ``scaling`` rows, sorted by GPUs."""
    rows = sorted((r for r in scaling or () if r.gpus), key=lambda r: r.gpus)
    return (np.array([float(r.gpus) for r in rows]), np.array([float(r.tokens_per_s) for r in rows]),
            np.array([float(r.time_to_train_days) for r in rows]))


def heat_figures(cooling: CoolingView | None) -> list[tuple[str, float, float]]:
    """[("Liquid", kW, hall capacity kW), ("Air", ...)]; the capacity is NaN where no hall gives one."""
    if cooling is None:
        return [("Liquid", 0.0, math.nan), ("Air", 0.0, math.nan)]
    out = []
    for label, load, capacities in (("Liquid", cooling.liquid_kw, [h.liquid_capacity_kw for h in cooling.halls]),
                                    ("Air", cooling.air_kw, [h.air_capacity_kw for h in cooling.halls])):
        given = [c for c in capacities if c is not None]  # a hall without a capacity set gives none
        out.append((label, float(load), float(sum(given)) if given else math.nan))
    return out


def rack_figures(analysis) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Each rack's name, maximum draw, limit and share of it, in the project's order.

    Read from the power engine's per-rack arrays (the figures of ``power.racks[]``): a 100,000-GPU floor has
    12,500 racks, and a view per rack on every result would cost more than the chart."""
    if analysis is None:
        return [], np.zeros(0), np.zeros(0), np.zeros(0)
    power = analysis.result("power")
    racks = analysis.project.racks
    names = [rack_name(r.name, r.id) for r in racks]
    return names, np.asarray(power.rack_max_kw, float), np.asarray(power.rack_limit_kw, float), \
        np.asarray(power.rack_utilisation, float)


def rack_name(name: str, rack_id: str) -> str:
    """The name the user gave the rack; its id when the name is blank."""
    return (name or "").strip() or rack_id


def _rate(value: float) -> str:
    """'1.69 M', '851.4 k', '950': three or four significant figures, as the engine's estimate warrants."""
    if value >= 1e6:
        return f"{number(value / 1e6, 2)} M"
    if value >= 1e3:
        return f"{number(value / 1e3, 1)} k"
    return number(value, 0)


def power_tooltip(name: str, max_kw: float, limit_kw: float, share: float) -> str:
    """'SU01-06 · 132.0 kW of 132.0 kW limit (100 %)': a rack's max draw against its limit."""
    text = f"{name} · {kw(max_kw)}"
    if limit_kw and not math.isnan(limit_kw):
        return text + f" of {kw(limit_kw)} limit ({percent(share)})"
    return text + " (no limit set)"


def heat_tooltip(cooling: CoolingView | None, index: int) -> str:
    """'Liquid 897.6 kW of 1,200.0 kW hall capacity' for bar 0 (liquid) or 1 (air)."""
    label, load, cap = heat_figures(cooling)[index]
    if math.isnan(cap):
        return f"{label} {kw(load)} (no hall capacity set)"
    return f"{label} {kw(load)} of {kw(cap)} hall capacity"


def fabric_tooltip(tiers: Sequence[tuple[str, float, float]], index: int) -> str:
    """'leaf: 1,024 used · 0 free ports'."""
    tier, used, free = tiers[index]
    return f"{tier}: {number(used)} used · {number(free)} free ports"


def training_tooltip(points: tuple[np.ndarray, np.ndarray, np.ndarray], index: int) -> str:
    """'576 GPUs · 1.69 M tokens/s · 103.0 days'."""
    gpus, tokens, days = (float(a[index]) for a in points)
    return " · ".join([count(int(gpus), "GPU"), f"{_rate(tokens)} tokens/s", quantity(days, "days")])


def label_step(count: int, slot_px: float, widest_px: float, gap_px: float = RACK_LABEL_GAP_PX) -> int:
    """Show every k-th of ``count`` labels ``slot_px`` apart so that no two of them (``widest_px`` wide) touch."""
    if count <= 0:
        return 1
    if slot_px <= 0:
        return count
    return max(1, math.ceil((widest_px + gap_px) / slot_px))


def bar_index(x: float, count: int) -> int | None:
    """The bar whose slot (centre ± 0.5) holds view coordinate ``x``, or None past either end."""
    if math.isnan(x) or count <= 0:
        return None
    i = math.floor(x + 0.5)
    return i if 0 <= i < count else None
