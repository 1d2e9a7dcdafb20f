"""Checkpoints, failures and what they leave of the wall time (in the summary, under the training estimate), and the
storage the checkpoints are written to (in the engineering chapter, after the compute fabric).

Every figure is the analysis's, read through ``training.goodput``, ``training.scenarios`` and ``storage``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from designer.formatting import money, number, percent, quantity
from designer.goal.sensitivity import CHANGE, FACTORS, sensitivity
from designer.quote.cost import DOES_NOT_FIT

from .layout import CONTENT_W
from .text import cell, name

if TYPE_CHECKING:
    from designer.views.storage import StorageView
    from designer.views.training import FailureScenario, Goodput, TrainingView

    from .quote import Quote

#: the scenario's label: a figure people plan with, which no source backs
PLANNING_LABEL = "2 % of GPUs a month (planning figure, no source)"


def minutes(seconds: float | None) -> str:
    """A checkpoint interval in minutes: ``21.5 min``."""
    return "–" if seconds is None else f"{number(seconds / 60, 1)} min"


def goodput(quote: Quote) -> None:
    """The checkpoint, the restarts and what they cost the job, the design's failure rate beside the 2 %-a-month
    planning figure; nothing without a training estimate."""
    training = quote.optional("training")
    gp = training.goodput if training is not None and training.ok else None
    if gp is None:
        return
    s = quote.story
    s += quote.subheading("Checkpoints and failures", 200)
    st = quote.optional("storage")
    tier = st.tier_name if st is not None and st.tier == gp.storage_tier and st.tier_name else gp.storage_tier
    if tier and st is not None and st.tier_evidence == "U":  # borrowed from another system's RA: say so here too
        tier += " (unconfirmed for these systems)"
    s.append(quote.pairs(goodput_figures(training, gp, tier)))
    scenario = training.scenarios.two_percent_gpus_a_month if training.scenarios is not None else None
    s += quote.minor("Failure rate: this design against the planning figure", 80)
    s.append(scenario_table(quote, training, gp, scenario))
    notes = []
    if scenario is not None:
        notes.append(f"2 % of GPUs a month: {scenario.note}.")
    if gp.failures is not None and gp.failures.sources:
        notes.append("The design's failure rates: " + "; ".join(gp.failures.sources) + ".")
    for note in notes:
        s.append(quote.p(quote.t(note), "Small"))
    cost = quote.optional("cost")
    rows = sensitivity(training, cost)
    if rows:
        s += quote.minor("If one assumption is off by a fifth, alone", 80)
        s.append(sensitivity_table(quote, rows, cost.currency))
        s.append(quote.p(quote.t("Days with failures and checkpoints; the run's cost is the cost of ownership "
                                 "(capital over its depreciation, energy and support) for those days."), "Small"))


def sensitivity_table(quote: Quote, rows: tuple[dict, ...], currency: str):
    """Days and the run's cost with MFU, failure rate, tokens and power price each 20 % lower and higher."""
    by = {(r["factor"], r["change"]): r for r in rows}
    base = by[("as_designed", 0.0)]
    table = [["Assumption", "−20 %: days", f"cost ({currency})", "+20 %: days", f"cost ({currency})"],
             ["As designed", cell(base["days"], "days"), money(base["run_cost"]), "", ""]]
    for factor, label in FACTORS:
        lo, hi = by[(factor, -CHANGE)], by[(factor, CHANGE)]
        table.append([label[0].upper() + label[1:], cell(lo["days"], "days"), money(lo["run_cost"]),
                      cell(hi["days"], "days"), money(hi["run_cost"])])
    return quote.table(table, [CONTENT_W - 4 * 80] + [80] * 4, numeric=(1, 2, 3, 4))


def goodput_figures(training: TrainingView, gp: Goodput, tier: str | None) -> list[tuple[str, str]]:
    """The checkpoint's size, speed and pause, its interval, the restarts, the failure rate and the wall time."""
    where = gp.storage_basis or "the storage tier's figures"
    if tier and tier.split(" (")[0].lower() not in where.lower():
        where += f"; tier {tier}"
    pause = (f"asynchronous: the job pauses {quantity(gp.checkpoint_blocking_s, 's')} while it is copied off the GPUs"
             if gp.async_checkpoint else
             f"synchronous: the job pauses {quantity(gp.checkpoint_blocking_s, 's')} for each")
    rows = [
        ("Checkpoint size; write speed", f"{quantity(gp.checkpoint_tb, 'TB')} at {quantity(gp.write_gb_s, 'GB/s')}, "
                                         f"from {where}"),
        ("Checkpoint time", f"{quantity(gp.checkpoint_s, 's')} to write; {pause}"),
        ("Checkpoint interval", f"every {minutes(gp.checkpoint_interval_s)} "
                                f"({quantity(gp.checkpoint_interval_s, 's')})"
                                + (", as the workload states" if gp.interval_stated else "")),
        ("Restore; restart", f"{quantity(gp.restore_s, 's')} to read the checkpoint at "
                             f"{quantity(gp.read_gb_s, 'GB/s')}; {quantity(gp.restart_s, 's')} per restart in all"),
        ("Job MTBF; failures a day", f"{quantity(gp.job_mtbf_h, 'h')}; {number(gp.failures_per_day, 2)} a day"
                                     + (f", from the {gp.failures_stated:g} interruptions per 1,000 "
                                        f"GPU-days the workload states" if gp.failures_stated is not None else "")),
    ]
    fl = gp.failures
    if fl is not None:
        sh, n = fl.share, fl.counted
        rows.append(("Interruptions by part", f"GPUs and software {percent(sh.gpu_and_software, 1)}, hosts "
                                              f"{percent(sh.host, 1)}, fabric links {percent(sh.fabric_link, 1)}, "
                                              f"switches {percent(sh.switch, 1)} (of {number(n.gpus)} GPUs, "
                                              f"{number(n.hosts)} hosts, {number(n.fabric_links)} links, "
                                              f"{number(n.switches)} switches)"))
    rows += [
        ("Effective training time ratio (ETTR)", percent(gp.ettr, 1)),
        ("Checkpoint share", f"{percent(gp.checkpoint_share, 1)} of the wall time (pauses and work redone)"),
        # a plan that does not fit never runs: it has no wall time (the failure rate and checkpoints stand)
        ("Wall time", f"{quantity(training.wall_time_days, 'days')} with failures and checkpoints; "
                      f"{quantity(training.time_to_train_days, 'days')} without" if training.runs else
                      "none: " + DOES_NOT_FIT),
    ]
    return rows


def scenario_table(quote: Quote, training: TrainingView, gp: Goodput, scenario: FailureScenario | None):
    """The design's own failure rate and the planning figure, side by side."""
    rows = [["Failure rate", "Job MTBF (h)", "Interval (min)", "Checkpoint share", "ETTR", "Wall time (days)"],
            ["This design (its parts)" if gp.failures_stated is None else "This design (the stated rate)",
             cell(gp.job_mtbf_h, "h"), number(gp.checkpoint_interval_s / 60, 1),
             percent(gp.checkpoint_share, 1), percent(gp.ettr, 1), cell(training.wall_time_days, "days")]]
    if scenario is not None:
        rows.append([PLANNING_LABEL, cell(scenario.job_mtbf_h, "h"), number(scenario.checkpoint_interval_s / 60, 1),
                     percent(scenario.checkpoint_share, 1), percent(scenario.ettr, 1),
                     cell(scenario.wall_time_days, "days")])
    return quote.table(rows, [CONTENT_W - 5 * 60] + [60] * 5, numeric=(1, 2, 3, 4, 5))


def tier_words(st: StorageView) -> str:
    """The tier's name, and "unconfirmed" where its figures are borrowed from another system's RA."""
    if st.tier is None:
        return "none: the design has no GPUs, or its systems have no such tier"
    words = st.tier_name or st.tier
    if st.tier_evidence == "U":
        words += " (unconfirmed: figures borrowed from another system's reference architecture)"
    return words


def storage(quote: Quote) -> None:
    """The storage tier, what it asks, what the appliances and the storage fabric deliver, and the limit."""
    st = quote.optional("storage")
    if st is None:
        return
    s = quote.story
    s += quote.subheading("Storage", 200)
    need, fa = st.need, st.fabric
    rows = [("Storage tier", tier_words(st))]
    if st.tier is not None:
        rows.append(("The tier asks", f"{quantity(need.read_gb_s, 'GB/s')} read, {quantity(need.write_gb_s, 'GB/s')} "
                                      f"write for {number(need.gpus)} GPUs"
                                      + (f", {quantity(st.capacity_target_pb, 'PB')} usable"
                                         if st.capacity_target_pb else "")))
    if st.placed:
        rows += [("Appliances deliver", f"{quantity(st.appliance_read_gb_s, 'GB/s')} read, "
                                        f"{quantity(st.appliance_write_gb_s, 'GB/s')} write, "
                                        f"{quantity(st.capacity_pb, 'PB')} usable"),
                 ("Storage fabric", f"{number(fa.leaves)} leaf and {number(fa.spines)} spine switches; carries "
                                    f"{quantity(fa.carried_gb_s, 'GB/s')} (appliances' links "
                                    f"{quantity(fa.appliances_gb_s, 'GB/s')}, clients' "
                                    f"{quantity(fa.clients_gb_s, 'GB/s')})")]
    else:
        rows.append(("Appliances", "none placed: the tier's own figures are used"))
    rows.append(("Checkpoints and restores get", f"{quantity(st.read_gb_s, 'GB/s')} read, "
                                                 f"{quantity(st.write_gb_s, 'GB/s')} write, from {st.basis}"
                 + (f"; limited by the {st.limited_by}" if st.limited_by else "")))
    s.append(quote.pairs(rows))
    if st.tier_note:
        s.append(quote.p(quote.t(f"Tier: {st.tier_note}."), "Small"))
    if st.appliances:
        s += quote.minor("Storage appliances against the tier", 80)
        s.append(appliance_table(quote, st))
        if any(a.unconfirmed for a in st.appliances):
            s.append(quote.p("* figures not confirmed in a vendor document.", "Small"))


def appliance_table(quote: Quote, st: StorageView):
    """Each appliance type's count, read, write and usable capacity, their sum, and what the tier asks."""
    rows = [["Appliances", "Read (GB/s)", "Write (GB/s)", "Usable (PB)"]]
    for a in st.appliances:
        rows.append([f"{number(a.count)} × {name(a.name)}" + (" *" if a.unconfirmed else ""),
                     cell(a.read_gb_s, "GB/s"), cell(a.write_gb_s, "GB/s"), cell(a.usable_tb / 1000, "PB")])
    if len(st.appliances) > 1:
        rows.append(["All appliances", cell(st.appliance_read_gb_s, "GB/s"), cell(st.appliance_write_gb_s, "GB/s"),
                     cell(st.capacity_pb, "PB")])
    if st.tier is not None:
        rows.append([f"The tier asks ({number(st.need.gpus)} GPUs)", cell(st.need.read_gb_s, "GB/s"),
                     cell(st.need.write_gb_s, "GB/s"),
                     cell(st.capacity_target_pb, "PB") if st.capacity_target_pb else "–"])
    return quote.table(rows, [CONTENT_W - 3 * 80] + [80] * 3, numeric=(1, 2, 3), zebra=False)
