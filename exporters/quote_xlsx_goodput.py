"""The cost of ownership sheet's checkpoint, failure and storage figures: values from the analysis (not formulas,
nothing on them recomputes), each with its unit, below the training throughput they qualify."""
from __future__ import annotations

from typing import TYPE_CHECKING

from openpyxl.styles import Font

from designer.formatting import count, number
from designer.quote.cost import DOES_NOT_FIT

from .xlsx_cells import NOTE, put_text

if TYPE_CHECKING:
    from designer.analysis import Analysis

    from .quote_xlsx_cost import _CostLines

#: the number formats of the block
SECONDS, HOURS, DAYS, SHARE, RATE = "#,##0.00", "#,##0.0", "#,##0.0", "0.0%", "#,##0.0"

#: the scenario as the sheet names it: a planning figure no source backs
PLANNING = "2 % of GPUs failing a month (planning figure, no source)"


def text_line(rows: _CostLines, label: str, value: str, unit: str = "") -> None:
    """A row whose value is text from the analysis or the catalog (kept text, never a formula)."""
    ws, row = rows.ws, rows.row
    ws.cell(row, 1, label).font = Font()
    put_text(ws.cell(row, 2), value)
    put_text(ws.cell(row, 3), unit)
    ws.cell(row, 3).font = NOTE
    rows.row += 1


def goodput_lines(rows: _CostLines, analysis: Analysis) -> None:
    """The checkpoint, the restarts, the failure rate and the wall time, then the 2 %-a-month planning figure;
    nothing without a training estimate."""
    training = analysis.training if analysis.has("training") else None
    gp = training.goodput if training is not None and training.ok else None
    if gp is None:
        return
    line = rows.line
    rows.row += 1
    rows.heading("Checkpoints and failures")
    line("gp_ckpt_tb", "Checkpoint size", gp.checkpoint_tb, "TB", "#,##0.000")
    line("gp_write", "Checkpoint write speed", gp.write_gb_s, "GB/s, from " + (gp.storage_basis or "the storage tier"),
         RATE)
    line("gp_ckpt_s", "Checkpoint time", gp.checkpoint_s, "s to write", SECONDS)
    line("gp_pause", "Pause per checkpoint", gp.checkpoint_blocking_s,
         "s, asynchronous checkpoint" if gp.async_checkpoint else "s, synchronous checkpoint", SECONDS)
    line("gp_interval", "Checkpoint interval", gp.checkpoint_interval_s,
         "s, as the workload states" if gp.interval_stated else "s", SECONDS)
    line("gp_restore", "Restore time", gp.restore_s, f"s, reading at {number(gp.read_gb_s, 1)} GB/s", SECONDS)
    line("gp_restart", "Restart time, in all", gp.restart_s, "s per interruption", SECONDS)
    line("gp_mtbf", "Job MTBF", gp.job_mtbf_h, "h between interruptions", HOURS)
    line("gp_per_day", "Failures per day", gp.failures_per_day, "interruptions a day" + (
        f", from the {gp.failures_stated:g} per 1,000 GPU-days the workload states"
        if gp.failures_stated is not None else ""), "#,##0.00")
    fl = gp.failures
    if fl is not None:
        sh, n = fl.share, fl.counted
        parts = (("gpu", "GPUs and software", sh.gpu_and_software, count(n.gpus, "GPU")),
                 ("host", "hosts", sh.host, count(n.hosts, "host")),
                 ("link", "fabric links", sh.fabric_link, count(n.fabric_links, "link")),
                 ("switch", "switches", sh.switch, count(n.switches, "switch", "switches")))
        for key, label, share, counted in parts:
            line(f"gp_share_{key}", f"Interruptions from {label}", share, f"share, of {counted}", SHARE)
    line("gp_ettr", "Effective training time ratio (ETTR)", gp.ettr, "share of the wall time spent training", SHARE)
    line("gp_share", "Checkpoint share", gp.checkpoint_share, "share of the wall time: pauses and work redone",
         SHARE)
    if training.runs:  # a plan that does not fit never runs: no days (the failure rate and checkpoints stand)
        line("gp_days", "Days to train, without failures", training.time_to_train_days, "days", DAYS)
        line("gp_wall", "Wall time, with failures and checkpoints", training.wall_time_days, "days", DAYS)
    else:
        text_line(rows, "Days to train", "none: " + DOES_NOT_FIT)
    scenario = training.scenarios.two_percent_gpus_a_month if training.scenarios is not None else None
    if scenario is None:
        return
    rows.row += 1
    rows.heading(PLANNING)
    line("sc_mtbf", "Job MTBF", scenario.job_mtbf_h, "h between interruptions", HOURS)
    line("sc_interval", "Checkpoint interval", scenario.checkpoint_interval_s, "s", SECONDS)
    line("sc_share", "Checkpoint share", scenario.checkpoint_share, "share of the wall time", SHARE)
    line("sc_ettr", "Effective training time ratio (ETTR)", scenario.ettr, "share of the wall time", SHARE)
    if scenario.wall_time_days is not None:  # null when the plan does not fit: no run, no wall time
        line("sc_wall", "Wall time", scenario.wall_time_days, "days", DAYS)
    put_text(rows.ws.cell(rows.row, 1), scenario.note)
    rows.ws.cell(rows.row, 1).font = NOTE
    rows.row += 1


def storage_lines(rows: _CostLines, analysis: Analysis) -> None:
    """The storage tier, what it asks, the appliances, the storage fabric and what checkpoints get."""
    if not analysis.has("storage"):
        return
    st, line = analysis.storage, rows.line
    rows.row += 1
    rows.heading("Storage")
    if st.tier is None:
        text_line(rows, "Storage tier", "none", "the design has no GPUs, or its systems have no such tier")
    else:
        text_line(rows, "Storage tier", st.tier_name or st.tier,
                  "unconfirmed: figures borrowed from another system's reference architecture"
                  if st.tier_evidence == "U" else "")
        gpus = f"GB/s for {count(st.need.gpus, 'GPU')}"
        line("st_need_read", "The tier asks: read", st.need.read_gb_s, gpus, RATE)
        line("st_need_write", "The tier asks: write", st.need.write_gb_s, gpus, RATE)
    for i, a in enumerate(st.appliances):
        unit = "appliances" + (" (figures unconfirmed: " + ", ".join(a.unconfirmed) + ")" if a.unconfirmed else "")
        line(f"st_app_{i}", "", a.count, unit, "#,##0")
        put_text(rows.ws.cell(rows.row - 1, 1), a.name)  # a catalog name stays text
    if st.placed:
        line("st_app_read", "Appliances: read", st.appliance_read_gb_s, "GB/s", RATE)
        line("st_app_write", "Appliances: write", st.appliance_write_gb_s, "GB/s", RATE)
        line("st_usable", "Appliances: usable capacity", st.capacity_pb, "PB", "#,##0.000")
        line("st_fabric", "Storage fabric carries", st.fabric.carried_gb_s,
             f"GB/s ({number(st.fabric.leaves)} leaf and {number(st.fabric.spines)} spine switches)", RATE)
    unit = f"GB/s, from {st.basis}" + (f"; limited by the {st.limited_by}" if st.limited_by else "")
    line("st_read", "Checkpoints and restores get: read", st.read_gb_s, unit, RATE)
    line("st_write", "Checkpoints and restores get: write", st.write_gb_s, unit, RATE)
