"""Two designs' key figures side by side, with the change from the first to the second.

Both sides are read from their own :class:`~designer.analysis.Analysis`; nothing is
recomputed here. A delta is B - A, and its share is of A (none when A is 0). Money is
compared only in one currency: prices are never converted, so two designs priced in
different currencies show both totals and no delta. A figure that is a name (the compute
fabric's technology) has no delta: it is the same or it changed.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from .analysis import Analysis
from .formatting import DECIMALS, MISSING, number, percent
from .settings import FABRIC_NAMES
from .storage.tiers import TIER_NAMES

#: names people read for the figures that are names (a fabric technology, a storage tier)
NAMES = {**FABRIC_NAMES, **TIER_NAMES}


def _switches(a: Analysis) -> int:
    sw = a.summary.switches
    return sw.leaf + sw.spine + sw.core


def _transceivers(a: Analysis) -> int | None:
    optics = a.fabric.transceivers
    return None if optics is None else sum(optics.values())


def _scale_out(a: Analysis) -> float | None:
    """Scale-out GB/s per GPU over every plane: what the fabric gives a GPU, whatever its ports' speed."""
    bw = a.bandwidth
    return bw.per_gpu.scale_out_gbs if bw.per_gpu is not None else None


def _plane_lost(a: Analysis) -> float | None:
    """Tokens/s with one of two planes down (None on one plane: no such scenario)."""
    t = a.training
    lost = t.scenarios.plane_lost if t.scenarios is not None else None
    return lost.tokens_per_s if lost is not None else None


def _storage(field: str):
    """A storage figure, None when the analysis has no storage section (one made with engines left out)."""
    return lambda a: getattr(a.storage, field) if a.has("storage") else None


def _goodput(field: str):
    """A checkpoint or failure figure of the training estimate (None where there is no estimate)."""
    def read(a: Analysis):
        g = a.training.goodput if a.training.ok else None
        return getattr(g, field) if g is not None else None
    return read


def _worst_ups(a: Analysis) -> float | None:
    shares = [s.failover_utilisation for u in a.power.ups for s in u.systems]
    shares = [s for s in shares if s is not None]
    return max(shares) if shares else None


#: (key, label, unit, how to read it, money): the figures in the order people read them.
FIGURES: tuple[tuple[str, str, str, Callable[[Analysis], Any], bool], ...] = (
    ("gpus", "GPUs", "", lambda a: a.summary.gpus, False),
    ("racks", "Racks", "", lambda a: a.summary.racks, False),
    ("it_power_max_kw", "IT power (maximum)", "kW", lambda a: a.summary.it_power_max_kw, False),
    ("facility_power_kw", "Facility power", "kW", lambda a: a.summary.facility_power_kw, False),
    ("liquid_heat_kw", "Heat to liquid", "kW", lambda a: a.summary.liquid_heat_kw, False),
    ("air_heat_kw", "Heat to air", "kW", lambda a: a.summary.air_heat_kw, False),
    ("ups_failover_utilisation", "UPS loading with its partner lost", "share", _worst_ups, False),
    ("switches", "Compute-fabric switches", "", _switches, False),
    ("leaf_switches", "Leaf switches", "", lambda a: a.summary.switches.leaf, False),
    ("spine_switches", "Spine switches", "", lambda a: a.summary.switches.spine, False),
    ("core_switches", "Core switches", "", lambda a: a.summary.switches.core, False),
    # what the fabric is built of: InfiniBand or Ethernet, on one plane or split over two (Spectrum-X)
    ("fabric_technology", "Compute-fabric technology", "name", lambda a: a.fabric.technology, False),
    ("fabric_planes", "Compute-fabric planes", "", lambda a: a.fabric.planes, False),
    # what an upgrade changes underneath the totals: the fabric's port speed (NDR 400G to XDR 800G) and how
    # much of the GPUs' peak the best plan reaches (more HBM lets it shard less)
    ("fabric_port_gbps", "Compute-fabric port speed, each plane", "Gb/s", lambda a: a.fabric.port_gbps, False),
    # what a GPU gets over all planes (two 400G planes give what one 800G plane does), and the thinnest cut
    ("scale_out_gbs_per_gpu", "Scale-out bandwidth per GPU", "GB/s", _scale_out, False),
    ("bisection_tbps", "Bisection bandwidth", "Tb/s", lambda a: a.bandwidth.bisection_tbps, False),
    ("cables", "Fabric cables", "", lambda a: a.summary.cables, False),
    ("transceivers", "Compute-fabric transceivers", "", _transceivers, False),
    ("price_total", "Price", "currency", lambda a: a.summary.price_total, True),
    ("tokens_per_s", "Training throughput", "tokens/s", lambda a: a.summary.tokens_per_s, False),
    ("mfu", "Model FLOPs utilisation", "share", lambda a: a.training.mfu, False),
    ("time_to_train_days", "Days to train", "", lambda a: a.training.time_to_train_days, False),
    # the storage behind the checkpoints, and what failures and checkpoints leave of the wall time
    ("storage_tier", "Storage tier", "name", _storage("tier"), False),
    ("storage_write_gb_s", "Storage write", "GB/s", _storage("write_gb_s"), False),
    ("storage_read_gb_s", "Storage read", "GB/s", _storage("read_gb_s"), False),
    ("storage_capacity_pb", "Storage capacity (usable)", "PB", _storage("capacity_pb"), False),
    ("checkpoint_s", "Checkpoint write time", "s", _goodput("checkpoint_s"), False),
    ("ettr", "Effective training time (ETTR)", "share", _goodput("ettr"), False),
    ("checkpoint_share", "Training time lost to checkpoints", "share", _goodput("checkpoint_share"), False),
    ("wall_time_days", "Wall time to train, with failures", "days", lambda a: a.training.wall_time_days, False),
    ("tokens_per_s_plane_lost", "Training throughput with one plane lost", "tokens/s", _plane_lost, False),
    ("cost_per_gpu_hour", "Cost per GPU-hour", "currency", lambda a: a.summary.cost_per_gpu_hour, True),
)


def _number(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def compare(a: Analysis, b: Analysis, name_a: str = "", name_b: str = "") -> dict:
    """The ``compare --json`` document: both designs named, then one row per key figure."""
    cur_a, cur_b = a.summary.currency, b.summary.currency
    rows = []
    for key, label, unit, read, money in FIGURES:
        va, vb = read(a), read(b)
        na, nb = _number(va), _number(vb)
        comparable = na is not None and nb is not None and (not money or cur_a == cur_b)
        whole = isinstance(va, int) and isinstance(vb, int)
        delta = (vb - va if whole else round(nb - na, 6)) if comparable else None
        share = (nb - na) / abs(na) if comparable and na else None
        if unit == "currency":  # never converted: one code when both agree, both when they differ
            unit = cur_a if cur_a == cur_b else f"{cur_a} / {cur_b}"
        rows.append({"key": key, "label": label, "unit": unit, "money": money, "a": va, "b": vb, "delta": delta,
                     "delta_percent": None if share is None else round(share * 100, 2)})
    from .compare_bill import bill_changes

    return {"a": {"name": a.summary.name, "file": name_a, "currency": cur_a},
            "b": {"name": b.summary.name, "file": name_b, "currency": cur_b},
            "figures": rows, "bill": bill_changes(a, b) if a.has("bom") and b.has("bom") else None}


#: shares read to a tenth of a percent: a point of ETTR is days on a long run
FINE_SHARES = frozenset({"ettr", "checkpoint_share"})


def _shown(x: Any, unit: str, money: bool = False, sign: str = "", fine: bool = False) -> str:
    if x is None:
        return MISSING
    if unit == "share":
        text = percent(abs(x), 1 if fine else 0)
        return f"{'+' if sign and x > 0 else '-' if x < 0 else ''}{text}"
    if money and abs(x) < 100:  # a price per GPU-hour is read to the cent
        digits = 2
    elif unit in DECIMALS:  # the unit's own rule, as everywhere else
        digits = DECIMALS[unit]
    elif isinstance(x, float) and not x.is_integer():
        digits = 2 if abs(x) < 100 else 1 if abs(x) < 10_000 else 0
    else:
        digits = 0
    return ("+" if sign and x > 0 else "") + number(x, digits)


def row_texts(doc: dict) -> list[tuple[str, str, str, str]]:
    """Each figure as a person reads it: (label with unit, A, B, change)."""
    out = []
    for row in doc["figures"]:
        unit = row["unit"]
        label = f"{row['label']} ({unit})" if unit and unit != "share" else row["label"]
        money = row.get("money", False)
        if unit == "name":  # a technology or a tier: named as people say it, and either the same or changed
            a, b = (MISSING if v is None else NAMES.get(v, str(v)) for v in (row["a"], row["b"]))
            out.append((row["label"], a, b, "no change" if row["a"] == row["b"] else "changed"))
            continue
        if row["delta"] is None:
            change = MISSING if row["a"] is None or row["b"] is None else "not comparable"
        elif unit == "share":  # points between the percentages shown, so the three columns agree
            fine = row["key"] in FINE_SHARES
            digits = 1 if fine else 0
            points = round(round(row["b"] * 100, digits) - round(row["a"] * 100, digits), digits)
            change = (f"{points:+.{digits}f} points" if points else "no change")
        else:
            change = _shown(row["delta"], unit, money, "+") if row["delta"] else "no change"
            if row["delta_percent"] is not None and row["delta"]:
                change += f" ({row['delta_percent']:+.1f} %)"
        fine = row["key"] in FINE_SHARES
        out.append((label, _shown(row["a"], unit, money, fine=fine), _shown(row["b"], unit, money, fine=fine),
                    change))
    return out


def compare_text(doc: dict) -> str:
    """The comparison as a table a person reads: figure, A, B, change."""
    a, b = doc["a"]["name"] or "A", doc["b"]["name"] or "B"
    if a == b:  # two designs of one name (two tiers of one generated SuperPOD): told apart by their files
        a, b = (Path(doc[k]["file"]).name or k.upper() for k in ("a", "b"))
    head = [("", a, b, "change")]
    body = row_texts(doc)
    widths = [max(len(r[i]) for r in head + body) for i in range(4)]
    lines = ["  ".join((r[0].ljust(widths[0]), r[1].rjust(widths[1]), r[2].rjust(widths[2]), r[3]))
             for r in head + body]
    if doc.get("bill") is not None:
        from .compare_bill import bill_changes_text

        lines += [""] + bill_changes_text(doc["bill"])
    return "\n".join(line.rstrip() for line in lines)
