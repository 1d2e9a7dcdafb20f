"""The executive summary: what the design is and costs in a paragraph, headline tiles, key figures, price by section."""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Spacer

from designer.formatting import kw, kw_pair, money, number, percent, quantity

from ..fabric_text import switches_label, switches_value
from .bill import totals_table
from .goodput import goodput
from .layout import CONTENT_W
from .text import cell, plural

#: The width a headline tile's figure has: a quarter of the page less the gutters and the tile's padding.
TILE_ROOM = (CONTENT_W - 3 * 6) / 4 - 14

if TYPE_CHECKING:
    from .quote import Quote


def summary(quote: Quote) -> None:
    """What the design is and what it costs in one paragraph, then the headline tiles, the key figures and the
    price of each section of the bill. The customer's copy keeps to the design, its power and its price; the
    internal appendix adds the training estimate, its checkpoints and failures, and the cost of ownership's
    rates."""
    training = quote.optional("training") if quote.internal else None
    # a plan that does not fit has no speed or days to show: the key figures say why
    trained = training if training is not None and training.runs else None
    quote.chapter("Technical summary" if quote.internal else "Executive summary")
    s = quote.story
    s.append(opening(quote))
    s += [quote.cards(headline(quote, trained)), Spacer(1, 4)]
    s += quote.subheading("Key figures")
    s.append(quote.pairs(key_figures(quote, training)))
    if quote.internal:
        goodput(quote)
    s += quote.subheading("Price by section")
    s.append(totals_table(quote))


def opening(quote: Quote):
    """The design's GPUs, the systems they come in (the three most common), its racks and halls, and its price."""
    summ = quote.a.summary
    systems = Counter()
    devices = quote.optional("devices")
    for type_id, n in (devices.by_type if devices is not None else {}).items():
        dev = quote.catalog.find(type_id)
        if dev is not None and (dev.gpu_count or dev.kind == "rack_system"):
            systems[dev.name] += n
    made_of = ", ".join(f"{number(n)} × {name}" for name, n in systems.most_common(3)) or "no GPU systems"
    return quote.p(
        f"{quote.t(quote.name)} is a design of <b>{number(summ.gpus)} GPUs</b> ({quote.t(made_of)}) in "
        f"{plural(summ.racks, 'rack')} across {plural(summ.halls, 'hall')}. This quote prices its "
        f"{plural(quote.bom.lines, 'bill line')} at <b>{quote.t(money(quote.bom.price_total, quote.cur))}</b> "
        f"net{total_caveat(quote)}.")


def headline(quote: Quote, trained) -> list[tuple[str, str]]:
    """The tiles under the opening: size and power; in the customer's copy the racks, halls and price, in the
    internal appendix training speed and the cost of an hour and of tokens ("–" where the design has no
    training estimate or no GPUs to price an hour of)."""
    summ, cost, cur = quote.a.summary, quote.cost, quote.cur
    tiles = [
        (number(summ.gpus), "GPUs"),
        (cell(summ.bf16_pflops, "PFLOPS"), "peak PFLOPS, dense BF16"),
        (kw(summ.it_power_max_kw), f"IT power, maximum ({kw(summ.it_power_typical_kw)} typical)"),
        (kw(summ.facility_power_kw), "facility power at maximum draw"),
    ]
    if not quote.internal:
        return tiles + [(number(summ.racks), "racks"), (number(summ.halls), "halls" if summ.halls != 1 else "hall"),
                        (number(quote.bom.lines), "bill lines"),
                        price_tile(quote)]
    return tiles + [
        (cell(summ.tokens_per_s, "tokens/s") if trained else "–", "tokens per second, training"),
        (quantity(trained.time_to_train_days, "days") if trained and trained.time_to_train_days else "–",
         "to train the workload"),
        (money(cost.cost_per_gpu_hour, cur) if cost.cost_per_gpu_hour is not None else "–",
         "per GPU-hour, cost of ownership"),
        (money(cost.cost_per_million_tokens, cur) if cost.cost_per_million_tokens is not None else "–",
         "per million training tokens"),
    ]


def price_tile(quote: Quote) -> tuple[str, str]:
    """The net total as a tile: to the cent where it fits the tile, else in millions (the key figures and the
    bill print it to the cent)."""
    total, style = quote.bom.price_total, quote.s["Figure"]
    text = money(total)
    if stringWidth(text, style.fontName, style.fontSize) <= TILE_ROOM:
        return text, f"{quote.cur}, total price (net)"
    return number(total / 1e6, 1), f"{quote.cur} million, total price (net)"


def key_figures(quote: Quote, training) -> list[tuple[str, str]]:
    """The design's figures as label and value: compute, power, heat, fabric, weight, training and price."""
    summ, sw = quote.a.summary, quote.a.summary.switches
    fabric, power = quote.optional("fabric"), quote.optional("power")
    tiers = fabric.tiers if fabric is not None else None
    pue = power.settings.pue if power is not None else 0
    # a fabric without a tree (no compute nodes, or no switch holds them) has no cable length to print
    cable_km = ((fabric.cable_length_total_m if fabric is not None else None) or 0) / 1000
    rows = [
        ("GPUs", number(summ.gpus)),
        ("Peak compute, dense BF16", quantity(summ.bf16_pflops, "PFLOPS")),
        ("IT power, typical / maximum", kw_pair(summ.it_power_typical_kw, summ.it_power_max_kw)
         + (f" (every GPU capped at {quantity(power.settings.gpu_power_cap_w, 'W')})"
            if power is not None and power.settings.gpu_power_cap_w else "")),
        ("Facility power at maximum draw", f"{kw(summ.facility_power_kw)} (PUE {pue:g})"),
        ("Heat to liquid / to air", kw_pair(summ.liquid_heat_kw, summ.air_heat_kw)),
        ("Coolant flow", quantity(summ.coolant_flow_lpm, "l/min") if summ.coolant_flow_lpm else
         "none (air-cooled)"),
        ("Compute fabric", f"{tiers}-tier fat tree of {quote.name_of(fabric.switch)}" if tiers else "not built"),
        (switches_label(fabric), switches_value(fabric, sw.leaf, sw.spine, sw.core)),
        ("Fabric cables", number(summ.cables) + (f" ({quantity(cable_km, 'km')})" if cable_km else "")),
    ]
    floor = quote.optional("floor")
    if floor is not None:
        rows.append(("Total weight; highest floor load", f"{quantity(floor.total_weight_kg, 'kg')}; "
                                                         f"{quantity(floor.max_load_kg_m2, 'kg/m²')}"))
    if quote.internal:
        rows += training_figures(training)
    return rows + price_figures(quote)


def training_figures(training) -> list[tuple[str, str]]:
    """The workload, its throughput and its days to train; or why there is no estimate."""
    if training is None or not training.ok:
        return [("Training estimate", (training.error or training.status) if training is not None
                 else "not available")]
    workload = ("Training workload", f"{training.model}, {number(training.params_b, 1)} B "
                                     f"parameters, {number(training.tokens / 1e12, 1)} T tokens")
    if not training.runs:  # the plan never takes a step: what it needs, never a speed it would not reach
        return [workload, ("Expected throughput", f"none: the plan does not fit in GPU memory (it needs "
                                                  f"{quantity(training.memory_gb_per_gpu, 'GB')} per GPU of "
                                                  f"{training.hbm_gb:g} GB)")]
    return [workload,
            ("Expected throughput", f"{quantity(training.tokens_per_s, 'tokens/s')} "
                                    f"(MFU {percent(training.mfu, 1)})"),
            ("Days to train", f"{quantity(training.time_to_train_days, 'days')} of compute; "
                              f"{quantity(training.wall_time_days, 'days')} with failures and checkpoints")] \
        + plane_lost_figures(training)


def plane_lost_figures(training) -> list[tuple[str, str]]:
    """What losing one of two fabric planes costs the job (it keeps running on the other): twin-plane only."""
    lost = training.scenarios.plane_lost if training.scenarios is not None else None
    if lost is None:
        return []
    share = f", {percent(lost.relative_tokens_per_s)} of normal" if lost.relative_tokens_per_s else ""
    return [("With one fabric plane lost", f"{quantity(lost.tokens_per_s, 'tokens/s')}{share}; "
                                           f"{quantity(lost.time_to_train_days, 'days')} of compute "
                                           f"(+{number(lost.extra_days, 1)}): the job runs on at half the "
                                           f"scale-out bandwidth")]


def price_figures(quote: Quote) -> list[tuple[str, str]]:
    """The net total (and the list total when there is a discount), and the cost of ownership's two rates."""
    b, cost, cur = quote.bom, quote.cost, quote.cur
    rows = [("Total price (net)", money(b.price_total, cur)
             + (f", {money(b.list_total, cur)} at list" if b.discount_total else ""))]
    if not quote.internal:  # the cost of ownership rests on the training estimate: the appendix's
        return rows
    if cost.cost_per_gpu_hour is not None:
        rows.append(("Cost per GPU-hour", money(cost.cost_per_gpu_hour, cur)))
    if cost.cost_per_million_tokens is not None:
        rows.append(("Cost per million tokens", money(cost.cost_per_million_tokens, cur)))
    return rows


def total_caveat(quote: Quote) -> str:
    """What the net total leaves out and takes off, in brackets after it: " (excluding 1 unpriced line; ...)"."""
    parts = []
    n = len(quote.unpriced_lines())
    if n:
        parts.append(f"excluding {plural(n, 'unpriced line')}")
    if quote.bom.discount_total:
        d = quote.bom.discount_total
        parts.append(f"after {quote.t(money(d, quote.cur))} discount" if d > 0
                     else f"including {quote.t(money(-d, quote.cur))} uplift")
    return (" (" + "; ".join(parts) + ")") if parts else ""
