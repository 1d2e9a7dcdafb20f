"""The storage and training lines of ``analyze``'s text summary, read from the typed views."""
from __future__ import annotations

from ..formatting import number, percent, quantity
from ..settings import FABRIC_NAMES


def storage_lines(result) -> list[str]:
    """The storage the design holds against its tier, in a line (nothing for a design without a tier)."""
    if not result.has("storage"):
        return []
    st = result.storage
    if st.tier is None:
        return []
    tier = f"{st.tier_name} tier" + (" (unconfirmed for these systems)" if st.tier_evidence == "U" else "")
    asks = (f"asks {quantity(st.need.write_gb_s, 'GB/s')} write, {quantity(st.need.read_gb_s, 'GB/s')} read "
            f"for {st.need.gpus:,} GPUs")
    if not st.placed:
        return [f"storage       no appliances placed; the {tier} {asks}, assumed for the checkpoints"]
    kinds = ", ".join(f"{a.count:,} x {a.name}" for a in st.appliances)
    return [f"storage       {kinds}: {quantity(st.write_gb_s, 'GB/s')} write, {quantity(st.read_gb_s, 'GB/s')} "
            f"read, {number(st.capacity_pb, 2)} PB usable; the {tier} {asks}"]


def training_lines(result) -> list[str]:
    """The training estimate in a line, its checkpoints and failures in another, and on a twin-plane fabric
    what losing one plane costs."""
    t = result.training
    if not t.ok:
        return []
    plan = f"TP{t.tp} PP{t.pp} DP{t.dp}" + (f" CP{t.cp}" if (t.cp or 1) > 1 else "") + \
        (f" EP{t.ep}" if (t.ep or 1) > 1 else "") + \
        (f" ETP{t.expert_tp}" if t.expert_tp and t.expert_tp != t.tp else "")
    if not t.runs:  # it never takes a step: what it needs, not a speed it would not reach
        return [f"training      does not fit ({t.model}, {plan}): needs {quantity(t.memory_gb_per_gpu, 'GB')} per GPU "
                f"of {t.hbm_gb:g} GB, so no throughput or time to train"]
    out = [f"training      {t.tokens_per_s:,.0f} tokens/s ({t.model}, {plan}), "
           f"{t.time_to_train_days:,.1f} days for {t.tokens:.3g} tokens"
           + (f" on {FABRIC_NAMES.get(t.fabric.technology, t.fabric.technology)}" if t.fabric else "")]
    g = t.goodput
    if g is not None:
        mode = "async" if g.async_checkpoint else "sync"
        out.append(f"checkpoints   {quantity(g.checkpoint_tb, 'TB')} in {quantity(g.checkpoint_s, 's')} at "
                   f"{quantity(g.write_gb_s, 'GB/s')} ({mode}, {quantity(g.checkpoint_blocking_s, 's')} pause) every "
                   f"{number(g.checkpoint_interval_s / 60, 1)} min; a failure every "
                   f"{number(g.job_mtbf_h * 60, 0)} min; ETTR {percent(g.ettr, 1)}, checkpoints cost "
                   f"{percent(g.checkpoint_share, 1)}: {quantity(t.wall_time_days, 'days')} wall")
    lost = t.scenarios.plane_lost if t.scenarios else None
    if lost is not None:
        share = f" ({percent(lost.relative_tokens_per_s)} of normal)" if lost.relative_tokens_per_s else ""
        out.append(f"plane lost    {lost.tokens_per_s:,.0f} tokens/s{share}, {lost.time_to_train_days:,.1f} days "
                   f"(+{lost.extra_days:,.1f}): one of two planes down, the job runs on at half the scale-out "
                   f"bandwidth")
    return out
