"""The quote's checkpoint, failure and storage figures: the PDF read back with pypdf, the workbook with openpyxl,
each figure the one the analysis holds, written as the document writes it."""
from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from pypdf import PdfReader

from designer.analysis import analyze
from designer.fileformat import load
from designer.formatting import money, number, percent, quantity
from exporters.quote_pdf import write_appendix_pdf
from exporters.quote_xlsx import write_quote_xlsx

#: a kept 4-SU DGX B200 design without storage appliances (the tier's own figures are used)
NO_APPLIANCES = Path(__file__).resolve().parent / "golden" / "dgx-b200-4su.podplan.json"


def pdf_words(analysis, path: Path) -> str:
    """The technical appendix's text with every run of white space as one space (a value may wrap in its cell)."""
    write_appendix_pdf(analysis, path)
    return " ".join(" ".join(p.extract_text() for p in PdfReader(str(path)).pages).split())


def after(rows_ws, heading: str) -> dict[str, tuple]:
    """The rows below ``heading`` up to the next empty row, by label."""
    out, on = {}, False
    for label, value, unit in rows_ws.iter_rows(min_col=1, max_col=3, values_only=True):
        if label == heading:
            on = True
            continue
        if on:
            if label is None:
                break
            out[label] = (value, unit)
    return out


@pytest.fixture(scope="module")
def dgx_text(dgx, tmp_path_factory):
    return pdf_words(dgx, tmp_path_factory.mktemp("goodput") / "quote.pdf")


@pytest.fixture(scope="module")
def b300(spectrum_x, tmp_path_factory):
    """DGX B300, whose storage tier is borrowed from another system's reference architecture."""
    assert spectrum_x.storage.tier_evidence == "U"
    return pdf_words(spectrum_x, tmp_path_factory.mktemp("b300") / "quote.pdf")


def test_checkpoint_figures_are_the_analysis_own(dgx, dgx_text):
    gp, tr = dgx.training.goodput, dgx.training
    assert "Checkpoints and failures" in dgx_text
    assert f"{quantity(gp.checkpoint_tb, 'TB')} at {quantity(gp.write_gb_s, 'GB/s')}, from {gp.storage_basis}; " \
           f"tier {dgx.storage.tier_name}" in dgx_text
    assert f"{quantity(gp.checkpoint_s, 's')} to write; synchronous: the job pauses " \
           f"{quantity(gp.checkpoint_blocking_s, 's')} for each" in dgx_text
    assert f"every {number(gp.checkpoint_interval_s / 60, 1)} min ({quantity(gp.checkpoint_interval_s, 's')})" \
        in dgx_text
    assert f"{quantity(gp.restore_s, 's')} to read the checkpoint at {quantity(gp.read_gb_s, 'GB/s')}; " \
           f"{quantity(gp.restart_s, 's')} per restart" in dgx_text
    assert f"{quantity(gp.job_mtbf_h, 'h')}; {number(gp.failures_per_day, 2)} a day" in dgx_text
    sh = gp.failures.share
    assert f"GPUs and software {percent(sh.gpu_and_software, 1)}, hosts {percent(sh.host, 1)}, fabric links " \
           f"{percent(sh.fabric_link, 1)}, switches {percent(sh.switch, 1)}" in dgx_text
    assert f"Effective training time ratio (ETTR) {percent(gp.ettr, 1)}" in dgx_text
    assert f"{percent(gp.checkpoint_share, 1)} of the wall time" in dgx_text
    assert f"{quantity(tr.wall_time_days, 'days')} with failures and checkpoints; " \
           f"{quantity(tr.time_to_train_days, 'days')} without" in dgx_text


def test_the_planning_figure_stands_beside_the_designs_own_and_says_it_has_no_source(dgx, dgx_text):
    gp, sc = dgx.training.goodput, dgx.training.scenarios.two_percent_gpus_a_month
    ours = f"This design (its parts) {number(gp.job_mtbf_h, 1)} {number(gp.checkpoint_interval_s / 60, 1)} " \
           f"{percent(gp.checkpoint_share, 1)} {percent(gp.ettr, 1)} {number(dgx.training.wall_time_days, 1)}"
    assert ours in dgx_text
    planning = f"{number(sc.job_mtbf_h, 1)} {number(sc.checkpoint_interval_s / 60, 1)} " \
               f"{percent(sc.checkpoint_share, 1)} {percent(sc.ettr, 1)} {number(sc.wall_time_days, 1)}"
    assert planning in dgx_text
    assert "2 % of GPUs a month (planning figure, no source)" in dgx_text
    assert sc.note in dgx_text


def test_the_sensitivity_table_holds_the_goal_planners_figures(dgx, dgx_text):
    from designer.goal.sensitivity import sensitivity

    rows = {(r["factor"], r["change"]): r for r in sensitivity(dgx.training, dgx.cost)}
    assert "If one assumption is off by a fifth, alone" in dgx_text
    base = rows[("as_designed", 0.0)]
    assert base["days"] == dgx.training.wall_time_days
    assert f"As designed {number(base['days'], 1)} {money(base['run_cost'])}" in dgx_text
    for factor, label in (("mfu", "MFU"), ("failure_rate", "Failure rate"), ("tokens", "Tokens"),
                          ("power_price", "Power price")):
        lo, hi = rows[(factor, -0.2)], rows[(factor, 0.2)]
        assert f"{label} {number(lo['days'], 1)} {money(lo['run_cost'])} {number(hi['days'], 1)} " \
               f"{money(hi['run_cost'])}" in dgx_text
    assert rows[("mfu", -0.2)]["days"] > base["days"] > rows[("mfu", 0.2)]["days"]


def test_storage_section_lists_tier_appliances_fabric_and_limit(dgx, dgx_text):
    st = dgx.storage
    assert "Power, cooling, fabric and storage" in dgx_text
    assert f"Storage tier {st.tier_name} The tier asks" in dgx_text  # confirmed: no "unconfirmed" after it
    assert f"The tier asks {quantity(st.need.read_gb_s, 'GB/s')} read, {quantity(st.need.write_gb_s, 'GB/s')} " \
           f"write for {number(st.need.gpus)} GPUs" in dgx_text
    assert f"{quantity(st.appliance_read_gb_s, 'GB/s')} read, {quantity(st.appliance_write_gb_s, 'GB/s')} write, " \
           f"{quantity(st.capacity_pb, 'PB')} usable" in dgx_text
    assert f"{number(st.fabric.leaves)} leaf and {number(st.fabric.spines)} spine switches; carries " \
           f"{quantity(st.fabric.carried_gb_s, 'GB/s')}" in dgx_text
    assert f"limited by the {st.limited_by}" in dgx_text
    a = st.appliances[0]
    assert f"{number(a.count)} × {a.name}" in dgx_text
    assert f"{number(a.read_gb_s, 1)} {number(a.write_gb_s, 1)} {number(a.usable_tb / 1000, 2)}" in dgx_text
    assert f"The tier asks ({number(st.need.gpus)} GPUs) {number(st.need.read_gb_s, 1)} " \
           f"{number(st.need.write_gb_s, 1)}" in dgx_text


def test_a_borrowed_tier_is_called_unconfirmed(spectrum_x, b300):
    st = spectrum_x.storage
    assert f"Storage tier {st.tier_name} (unconfirmed: figures borrowed from another system's reference " \
           f"architecture)" in b300
    assert "Checkpoints and failures" in b300


def test_a_design_without_appliances_says_the_tiers_figures_are_used(catalog, tmp_path):
    a = analyze(load(NO_APPLIANCES, catalog), catalog)
    assert not a.storage.placed
    text = pdf_words(a, tmp_path / "quote.pdf")
    assert "Appliances none placed: the tier's own figures are used" in text
    assert f"{quantity(a.storage.read_gb_s, 'GB/s')} read, {quantity(a.storage.write_gb_s, 'GB/s')} write, " \
           f"from {a.storage.basis}" in text
    assert "Storage appliances against the tier" not in text


def test_workbook_holds_the_figures_as_values_with_units(dgx, tmp_path):
    gp, tr, st = dgx.training.goodput, dgx.training, dgx.storage
    write_quote_xlsx(dgx, tmp_path / "quote.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "quote.xlsx")["Cost of ownership"]
    ours = after(ws, "Checkpoints and failures")
    assert ours["Checkpoint size"] == (gp.checkpoint_tb, "TB")
    assert ours["Checkpoint write speed"] == (gp.write_gb_s, f"GB/s, from {gp.storage_basis}")
    assert ours["Checkpoint time"] == (gp.checkpoint_s, "s to write")
    assert ours["Pause per checkpoint"] == (gp.checkpoint_blocking_s, "s, synchronous checkpoint")
    assert ours["Checkpoint interval"] == (gp.checkpoint_interval_s, "s")
    assert ours["Restore time"][0] == gp.restore_s
    assert ours["Job MTBF"] == (gp.job_mtbf_h, "h between interruptions")
    assert ours["Failures per day"][0] == gp.failures_per_day
    assert ours["Interruptions from GPUs and software"][0] == gp.failures.share.gpu_and_software
    assert ours["Interruptions from switches"] == (gp.failures.share.switch,
                                                   f"share, of {number(gp.failures.counted.switches)} switches")
    assert ours["Effective training time ratio (ETTR)"][0] == gp.ettr
    assert ours["Checkpoint share"][0] == gp.checkpoint_share
    assert ours["Days to train, without failures"] == (tr.time_to_train_days, "days")
    assert ours["Wall time, with failures and checkpoints"] == (tr.wall_time_days, "days")
    sc = tr.scenarios.two_percent_gpus_a_month
    planning = after(ws, "2 % of GPUs failing a month (planning figure, no source)")
    assert planning["Job MTBF"][0] == sc.job_mtbf_h and planning["Effective training time ratio (ETTR)"][0] == sc.ettr
    assert planning["Wall time"] == (sc.wall_time_days, "days")
    assert sc.note in planning
    storage = after(ws, "Storage")
    assert storage["Storage tier"] == (st.tier_name, None)  # confirmed: nothing said beside it
    assert storage["The tier asks: read"][0] == st.need.read_gb_s
    assert storage[st.appliances[0].name] == (st.appliances[0].count, "appliances")
    assert storage["Appliances: usable capacity"] == (st.capacity_pb, "PB")
    assert storage["Storage fabric carries"][0] == st.fabric.carried_gb_s
    assert storage["Checkpoints and restores get: write"] == (
        st.write_gb_s, f"GB/s, from {st.basis}; limited by the {st.limited_by}")
    # values, never formulas: nothing below the cost results recomputes
    assert not any(isinstance(v, str) and v.startswith("=") for v, _ in [*ours.values(), *storage.values()])


def test_workbook_calls_a_borrowed_tier_unconfirmed(spectrum_x, tmp_path):
    write_quote_xlsx(spectrum_x, tmp_path / "quote.xlsx")
    ws = openpyxl.load_workbook(tmp_path / "quote.xlsx")["Cost of ownership"]
    tier = after(ws, "Storage")["Storage tier"]
    assert tier == (spectrum_x.storage.tier_name,
                    "unconfirmed: figures borrowed from another system's reference architecture")


def test_a_stated_failure_rate_and_interval_are_said_so_in_the_appendix(tmp_path, catalog):
    project = load(NO_APPLIANCES, catalog=catalog)
    project = project.with_workload((project.workload_dict or {}) | {"failures_per_1000_gpu_days": 2.5,
                                                                     "checkpoint_interval_min": 40})
    analysis = analyze(project, catalog)
    gp = analysis.training.goodput
    assert gp.failures_stated == 2.5 and gp.checkpoint_interval_s == 2400.0
    text = pdf_words(analysis, tmp_path / "appendix.pdf")
    assert f"every 40.0 min ({quantity(2400.0, 's')}), as the workload states" in text
    assert (f"{quantity(gp.job_mtbf_h, 'h')}; {number(gp.failures_per_day, 2)} a day, from the 2.5 interruptions "
            f"per 1,000 GPU-days the workload states") in text
    assert "Interruptions by part" not in text  # the parts' breakdown is not the job's rate when one is stated
    assert f"This design (the stated rate) {number(gp.job_mtbf_h, 1)} 40.0" in text
    write_quote_xlsx(analysis, tmp_path / "quote.xlsx")
    rows = after(openpyxl.load_workbook(tmp_path / "quote.xlsx")["Cost of ownership"], "Checkpoints and failures")
    assert rows["Checkpoint interval"] == (2400.0, "s, as the workload states")
    assert rows["Failures per day"] == (gp.failures_per_day, "interruptions a day, from the 2.5 per 1,000 GPU-days "
                                                             "the workload states")
    assert not any(label.startswith("Interruptions from") for label in rows)
