"""Storage and checkpoint figures as the window words them, pure (no widgets).

Every figure is read from the typed views (``analysis.storage``, ``analysis.training.goodput`` and its
scenarios); nothing is recomputed here, only put in words. The inspector's storage group and the
dashboards' storage card both read these texts, so the two say the same thing.
"""
from __future__ import annotations

import html
from typing import TYPE_CHECKING

from designer.formatting import MISSING, number, percent, quantity
from designer.storage.tiers import DEFAULT_TIER, DGX_TIERS, NVL72_TIERS, TIER_NAMES

if TYPE_CHECKING:  # the views are read, never built, here; they load with the first analysis
    from designer.views import StorageView
    from designer.views.training import TrainingView

#: How people name the two families of tiers (the RA each comes from).
FAMILY_NAMES = {"dgx": "8-GPU DGX", "nvl72": "NVL72 racks"}
#: Amber, as the palette and the bill mark unconfirmed figures.
UNCONFIRMED_COLOUR = "#B26A00"
#: The label column's width: the longest label ("At 2 % GPUs a month") at the dashboards' font size.
LABEL_PX = 150
NO_STORAGE = "No storage result yet: the storage tier and checkpoint figures appear here once the engines have run."


def tier_family(storage: StorageView | None) -> str | None:
    """"dgx" or "nvl72": the family of the tier the analysis holds the design to; None when it holds none
    (no GPUs, no analysis yet, or a tier the design's systems have not)."""
    tier = storage.tier if storage is not None else None
    if tier in DGX_TIERS:
        return "dgx"
    if tier in NVL72_TIERS:
        return "nvl72"
    return None


def tier_choices(family: str | None, current: str) -> list[tuple[str, str]]:
    """(setting, text) of the tier combo: automatic first, then the family's tiers by name (every tier, with
    its family, while the family is unknown); a stored tier the family has not stays listed, marked."""
    if family is None:
        out = [("auto", "Automatic (the RA's)")]
        out += [(t, f"{TIER_NAMES[t]} ({FAMILY_NAMES[f]})") for f, own in (("dgx", DGX_TIERS), ("nvl72", NVL72_TIERS))
                for t in own]
        return out
    own = DGX_TIERS if family == "dgx" else NVL72_TIERS
    out = [("auto", f"Automatic (the RA's: {TIER_NAMES[DEFAULT_TIER[family]]})")]
    out += [(t, TIER_NAMES[t]) for t in own]
    if current != "auto" and current not in own:
        out.append((current, f"{TIER_NAMES.get(current, current)} (not a tier of {FAMILY_NAMES[family]})"))
    return out


def gb_s(x: float | None) -> str:
    """'256.0 GB/s'."""
    return MISSING if x is None else f"{number(x, 1)} GB/s"


def duration(seconds: float | None) -> str:
    """'3.9 s', '21.5 min', '2.3 h': the unit a person reads a checkpoint or an interval in."""
    if seconds is None:
        return MISSING
    if seconds < 120:
        return f"{number(seconds, 1)} s"
    if seconds < 2 * 3600:
        return f"{number(seconds / 60, 1)} min"
    return f"{number(seconds / 3600, 1)} h"


def tier_text(storage: StorageView | None) -> str:
    """'Best · H100 SuperPOD RA Table 6: …': the tier, where its figures come from and what delivers them;
    'unconfirmed' where the figures are borrowed from another system's RA."""
    if storage is None:
        return "computing…"
    if storage.tier is None:
        return "no tier: the design has no GPUs, or a tier its systems have not (see the findings)"
    note = storage.tier_note or ""
    if storage.tier_evidence == "U":  # the borrowing, which names a catalog id, is said by unconfirmed_text
        note = note.rsplit("; ", 1)[0]
    text = f"{storage.tier_name} · {note}".rstrip(" ·")
    text += f". Figures from {storage.basis}"
    if storage.limited_by:
        text += f", limited by the {storage.limited_by}"
    return text + "."


def unconfirmed_text(storage: StorageView | None) -> str:
    """What of the storage figures is unconfirmed, or '' when all of it is sourced."""
    if storage is None:
        return ""
    parts = []
    if storage.tier_evidence == "U":
        parts.append(f"the {storage.tier_name} tier's figures are unconfirmed (borrowed from another system's RA)")
    names = [a.name for a in storage.appliances if a.unconfirmed]
    if names:
        parts.append("unconfirmed appliance figures: " + ", ".join(names))
    return "; ".join(parts)


def _against(delivered: float, asked: float) -> str:
    mark = "" if delivered + 1e-9 >= asked else " (short)"
    return f"{gb_s(delivered)} of {gb_s(asked)} the tier asks{mark}"


def storage_rows(storage: StorageView | None, training: TrainingView | None) -> list[tuple[str, str]]:
    """(label, value) rows of the storage card: :func:`tier_rows`, then :func:`checkpoint_rows`."""
    if storage is None:
        return []
    return tier_rows(storage) + checkpoint_rows(training)


def tier_rows(storage: StorageView) -> list[tuple[str, str]]:
    """The tier, write and read against what it asks, the capacity and the appliances."""
    rows = [("Storage tier", storage.tier_name or "none")]
    if storage.tier_evidence == "U":
        rows[-1] = ("Storage tier", f"{storage.tier_name} (unconfirmed)")
    rows.append(("Write", _against(storage.write_gb_s, storage.need.write_gb_s)))
    rows.append(("Read", _against(storage.read_gb_s, storage.need.read_gb_s)))
    capacity = f"{number(storage.capacity_pb, 2)} PB"
    if storage.capacity_target_pb is not None:
        capacity += f" of {number(storage.capacity_target_pb, 2)} PB asked"
    rows.append(("Capacity", capacity if storage.placed else "no storage placed"))
    if storage.placed:
        # the catalog's name without its bracketed detail (drive sizes, rack units): the card is narrow
        rows.append(("Appliances", ", ".join(f"{a.count:,} × {a.name.split(' (')[0]}" for a in storage.appliances)))
    else:
        rows.append(("Appliances", "none placed: the tier's figures stand in"))
    return rows


def checkpoint_rows(training: TrainingView | None) -> list[tuple[str, str]]:
    """The checkpoint, its interval, the restart, ETTR and wall time, the checkpoints' share, the job's MTBF,
    and the same for every GPU failing at 2 % a month; none without a training estimate."""
    goodput = training.goodput if training is not None and training.ok else None
    if goodput is None:
        return []
    rows = []
    written = f"{quantity(goodput.checkpoint_tb, 'TB')} in {duration(goodput.checkpoint_s)}"
    if goodput.async_checkpoint:
        written += f" (async, {duration(goodput.checkpoint_blocking_s)} blocking)"
    rows.append(("Checkpoint", written))
    rows.append(("Interval", f"every {duration(goodput.checkpoint_interval_s)}"
                             + (" (stated)" if goodput.interval_stated else "")))
    rows.append(("Restart", f"{duration(goodput.restart_s)} (restore {duration(goodput.restore_s)})"))
    ettr = percent(goodput.ettr, 1)
    if training.wall_time_days is not None:
        ettr += f" · {number(training.wall_time_days, 1)} days wall time"
    rows.append(("ETTR", ettr))
    rows.append(("Checkpoint share", f"{percent(goodput.checkpoint_share, 1)} of the wall time"))
    rows.append(("Job MTBF", f"{number(goodput.job_mtbf_h, 1)} h ({number(goodput.failures_per_day, 2)} "
                             "failures a day" + (f", stated: {goodput.failures_stated:g} per 1,000 GPU-days"
                                                 if goodput.failures_stated is not None else "") + ")"))
    scenario = training.scenarios.two_percent_gpus_a_month if training.scenarios is not None else None
    if scenario is not None:  # the planning figure people quote, beside the design's own ETTR row above it
        other = percent(scenario.ettr, 1)
        if scenario.wall_time_days is not None:
            other += f" · {number(scenario.wall_time_days, 1)} days wall time"
        rows.append(("At 2 % GPUs a month", f"{other} (job MTBF {number(scenario.job_mtbf_h, 1)} h)"))
    return rows


def rows_html(rows: list[tuple[str, str]], note: str = "") -> str:
    """``rows`` as a table of label and value, with ``note`` below it in amber."""
    # one label width for both halves of the card, so that their values line up when they are stacked
    body = "".join(f"<tr><td width='{LABEL_PX}' style='color:#5C6673; padding-right:10px'>{html.escape(label)}</td>"
                   f"<td>{html.escape(value)}</td></tr>" for label, value in rows)
    text = f"<table cellspacing='0' cellpadding='2'>{body}</table>"
    if note:
        text += f"<p style='color:{UNCONFIRMED_COLOUR}'>{html.escape(note[:1].upper() + note[1:])}.</p>"
    return text

