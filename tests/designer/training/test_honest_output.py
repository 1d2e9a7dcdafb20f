"""A plan that does not fit in GPU memory never runs: it says ``fits: false`` and has no throughput, time or energy
(null in JSON, "none"/"does not fit" wherever a person reads it); a search that finds no plan names what binds."""
from __future__ import annotations

import json
import re

import pytest

from designer import samples
from designer.analysis import analyze
from designer.cli.main import main
from designer.cli.summary_lines import training_lines
from designer.fileformat import load
from designer.training import TrainingError
from designer.training.estimate import RUN_ENERGY, RUN_FIGURES, estimate
from designer.training.hardware import cluster_from_system
from designer.training.models import preset
from designer.training.plan import Plan, Training
from designer.training.planner import best_plan
from designer.views import training as training_views
from exporters.quote_pdf.summary import training_figures

#: Llama 3 405B on 64 H100 with TP8 PP8 and no recompute: 182 GB per GPU of 80
UNFIT = ["train", "--gpu", "h100", "--gpus", "64", "--model", "llama3-405b", "--tp", "8", "--pp", "8",
         "--recompute", "none"]


@pytest.fixture(scope="module")
def unfit(catalog):
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    return estimate(preset("llama3-405b"), Training(global_batch=512), Plan(tp=8, pp=8, dp=1, recompute="none"),
                    cluster)


def test_a_plan_that_does_not_fit_has_no_run_figures(unfit):
    assert unfit.fits is False
    assert unfit.memory_gb_per_gpu > unfit.hbm_gb == 80
    for key in RUN_FIGURES:
        assert unfit.figures[key] is None, key
    for key in RUN_ENERGY:
        assert unfit.figures["energy"][key] is None, key
    # what does not depend on running stays: the hardware's price, the memory and its parts, the failure rate
    assert unfit.figures["energy"]["hardware_price"] > 0
    assert sum(unfit.memory_breakdown_gb.values()) == pytest.approx(unfit.memory_gb_per_gpu, abs=0.05)
    assert unfit.goodput["job_mtbf_h"] > 0


def test_its_problem_says_how_far_over_and_what_is_largest(unfit):
    over = unfit.memory_gb_per_gpu - 80
    parts = unfit.memory_breakdown_gb
    problem = next(p for p in unfit.problems if p.startswith("does not fit in GPU memory"))
    assert f"needs {unfit.memory_gb_per_gpu:.1f} GB per GPU of 80 GB ({over:.1f} GB over" in problem
    largest = max(("weights", "gradients", "optimizer", "activations"), key=parts.get)
    assert largest == "optimizer" and f"optimizer state {parts['optimizer']:.1f} GB the largest part" in problem


def test_the_same_plan_fitting_keeps_every_figure(catalog):
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    est = estimate(preset("llama3-8b"), Training(global_batch=64), Plan(tp=4, dp=16, recompute="full"), cluster)
    assert est.fits
    assert all(est.figures[k] is not None for k in RUN_FIGURES)
    assert all(est.figures["energy"][k] is not None for k in RUN_ENERGY)
    assert not any(p.startswith("does not fit") for p in est.problems)


def test_the_view_asks_for_the_run_figures_the_estimate_nulls():
    assert training_views._RUN == RUN_FIGURES and training_views._RUN_ENERGY == RUN_ENERGY


def test_train_json_prints_null_and_exits_1(capsys):
    assert main([*UNFIT, "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["fits"] is False
    for key in ("tokens_per_s", "tokens_per_s_per_gpu", "mfu", "step_time_s", "time_to_train_days",
                "wall_time_days", "exposed_comm_s"):
        assert key in doc and doc[key] is None, key
    assert doc["energy"]["energy_mwh"] is None and doc["energy"]["hardware_price"] == 3_200_000
    assert doc["scenarios"]["plane_lost"] is None


def test_train_text_shows_no_speed(capsys):
    assert main(UNFIT) == 1
    out = capsys.readouterr().out
    assert "no throughput: the plan does not fit in GPU memory" in out
    assert "DOES NOT FIT" in out
    assert "tokens/s" not in out and "MFU" not in out and "days compute" not in out and "MWh" not in out


def test_a_fitting_plan_still_exits_0(capsys):
    assert main(["train", "--gpu", "h100", "--gpus", "64", "--model", "llama3-8b", "--tp", "4", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["fits"] is True and doc["tokens_per_s"] > 0


def test_a_search_with_nothing_that_fits_names_the_leanest_plan(catalog):
    # 16 GPUs: 405.9 B weights and gradients (6 bytes each) are 152 GB a GPU, and the optimizer state (16 bytes
    # each in host memory) more than the hosts' 256 GB a GPU
    cluster = cluster_from_system(catalog, "dgx-h100", 16)
    with pytest.raises(TrainingError) as err:
        best_plan(preset("llama3-405b"), Training(global_batch=512), cluster)
    text = str(err.value)
    said = re.search(r"memory binds: the leanest plan, TP(\d+) PP(\d+) DP(\d+) CP(\d+) EP(\d+) micro-batch (\d+) "
                     r"recompute (\w+) ZeRO-(\d)(?: offload (\w+))?, needs ([\d.]+) GB per GPU of 80 GB "
                     r"\(([\d.]+) GB over", text)
    assert said, text
    tp, pp, dp, cp, ep, mb = (int(x) for x in said.groups()[:6])
    need, over = float(said.group(10)), float(said.group(11))
    assert tp * pp * dp * cp <= 16 and need == pytest.approx(80 + over, abs=0.11)
    leanest = estimate(preset("llama3-405b"), Training(global_batch=512),
                       Plan(tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, micro_batch=mb, recompute=said.group(7),
                            zero=int(said.group(8)), offload=said.group(9) or "none"), cluster, allow_idle=True)
    assert leanest.memory_gb_per_gpu == pytest.approx(need, abs=0.06) and not leanest.fits
    assert "add GPUs or shrink the batch or sequence" in text


def test_the_search_rows_of_a_plan_that_does_not_fit_have_no_speed(catalog):
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    _, summary = best_plan(preset("llama3-70b"), Training(global_batch=512), cluster)
    naive = summary["naive"]
    assert naive["fits"] is False and naive["tokens_per_s"] is None and naive["mfu"] is None
    assert all(r["tokens_per_s"] > 0 for r in summary["ranked"])


@pytest.fixture(scope="module")
def unfit_design(catalog):
    dgx = load(samples.DGX_B200_SU, catalog)
    return analyze(dgx.with_workload({"model": "llama3-405b", "tp": 1, "pp": 1}), catalog)


def test_a_design_whose_plan_does_not_fit_reads_no_throughput(unfit_design):
    t = unfit_design.training
    assert t.ok and not t.runs and t.fits is False
    assert t.tokens_per_s is None and t.mfu is None and t.time_to_train_days is None
    assert unfit_design.summary.tokens_per_s is None and unfit_design.summary.mfu is None
    assert t.data_loading.read_gb_s is None and t.energy.energy_cost is None
    assert any(f.code == "training-memory" and f.severity == "error" for f in unfit_design.findings)
    cost = unfit_design.cost
    assert cost.tokens_per_s is None and cost.cost_per_million_tokens is None and cost.cost_per_gpu_hour > 0
    assert "the training plan does not fit in GPU memory: cost per million tokens is not given" in cost.assumptions


def test_the_summary_line_and_the_quote_say_it_does_not_fit(unfit_design):
    t = unfit_design.training
    assert training_lines(unfit_design) == [
        f"training      does not fit (llama3-405b, TP1 PP1 DP{t.dp}): needs {t.memory_gb_per_gpu:,.1f} GB per GPU "
        f"of 180 GB, so no throughput or time to train"]
    rows = dict(training_figures(t))
    assert rows["Expected throughput"] == (f"none: the plan does not fit in GPU memory (it needs "
                                           f"{t.memory_gb_per_gpu:,.1f} GB per GPU of 180 GB)")
    assert "Days to train" not in rows


def test_a_search_that_breaks_rules_besides_memory_says_it_cannot_run(catalog):
    from designer.training.errors import NothingFits

    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    with pytest.raises(TrainingError) as err:
        best_plan(preset("llama3-8b"), Training(global_batch=512), cluster, tp=16)
    assert not isinstance(err.value, NothingFits)
    assert "can run on 64 GPUs" in str(err.value) and "memory binds" not in str(err.value)


def test_train_search_with_nothing_that_fits_exits_1_and_says_why(capsys):
    assert main(["train", "--gpu", "h100", "--gpus", "16", "--model", "llama3-405b", "--search"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("podplanner: train: no plan for llama3-405b fits 16× NVIDIA H100") and "memory binds" in err


def test_a_plan_that_does_not_fit_has_no_bubble_problem(catalog):
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    # PP 8 with 8 micro-batches: a 30 %+ bubble, were it to run
    plan = Plan(tp=8, pp=8, dp=1, recompute="none")
    est = estimate(preset("llama3-405b"), Training(global_batch=8), plan, cluster)
    assert not est.fits and not any(p.startswith("pipeline bubble") for p in est.problems)
    fitting = estimate(preset("llama3-8b"), Training(global_batch=8), Plan(tp=8, pp=8, dp=1, recompute="full"),
                       cluster)
    assert fitting.fits and any(p.startswith("pipeline bubble") for p in fitting.problems)


def test_the_workbook_and_the_appendix_say_why_there_is_no_throughput(unfit_design, tmp_path):
    import openpyxl
    from pypdf import PdfReader

    from exporters.quote_pdf import write_appendix_pdf
    from exporters.quote_xlsx import write_quote_xlsx

    path = tmp_path / "quote.xlsx"
    write_quote_xlsx(unfit_design, path)
    cells = [str(v) for ws in openpyxl.load_workbook(path).worksheets
             for row in ws.iter_rows(values_only=True) for v in row if v is not None]
    assert "the training plan does not fit in GPU memory: not given" in cells  # the throughput input
    assert cells.count("the training plan does not fit in GPU memory") >= 1  # cost per million tokens
    assert "none: the training plan does not fit in GPU memory" in cells  # days to train, under the failures
    assert not any("no training workload" in c for c in cells)
    write_appendix_pdf(unfit_design, tmp_path / "appendix.pdf")
    text = " ".join(" ".join(p.extract_text() for p in PdfReader(str(tmp_path / "appendix.pdf")).pages).split())
    assert "Checkpoints and failures" in text  # the failure rate and checkpoints stand without a run
    assert "Wall time none: the training plan does not fit in GPU memory" in text
    assert "Training throughput none: the training plan does not fit in GPU memory" in text
    assert "no training workload" not in text and "no training estimate" not in text


def test_copies_of_held_out_rows_are_still_held_out():
    import copy

    from designer.training.heldout import HELDOUT
    from designer.training.validation import compare

    rows = compare([copy.deepcopy(HELDOUT[0])])
    assert rows[0]["set"] == "held-out"
