"""A goal's goodput assumptions: a stated failure rate and checkpoint interval replace the design's own rate and
Daly's interval, in the training engine, the options, the sensitivity, the built design and the command."""
from __future__ import annotations

import json

import pytest

from catalog import default_catalog
from designer.analysis import analyze
from designer.cli.main import main
from designer.fileformat import load
from designer.goal.goal import GoalError, assumptions, make_goal
from designer.goal.options import build_option, option_for
from designer.training.errors import TrainingError
from designer.training.goodput import interval_and_ettr
from designer.training.section import check_workload

CATALOG = default_catalog()
SMALL = {"model": "llama3-70b", "tokens": 2e12, "precision": "bf16"}


def _option(days: float = 20.0, **stated):
    goal = make_goal(CATALOG, workload=SMALL, days=days, systems=["dgx-b200"], fabrics=["infiniband"], **stated)
    return goal, option_for(goal, "dgx-b200", "infiniband", CATALOG)


def test_a_stated_rate_and_interval_are_the_jobs_in_the_built_designs_analysis():
    goal, option = _option(failure_rate=5.0, checkpoint_interval_min=90.0)
    project = build_option(goal, option, CATALOG)
    assert project.workload_dict["failures_per_1000_gpu_days"] == 5.0
    assert project.workload_dict["checkpoint_interval_min"] == 90.0
    t = analyze(project, CATALOG).training
    g = t.goodput
    # 5 interruptions per 1,000 GPU-days on the job's GPUs: its MTBF in hours
    assert g.job_mtbf_h == pytest.approx(1000 * 24 / 5.0 / t.gpus, rel=1e-3)
    assert g.failures_per_day == pytest.approx(5.0 * t.gpus / 1000, rel=1e-3)
    assert g.checkpoint_interval_s == 5400.0 and g.interval_stated and g.failures_stated == 5.0
    # the ETTR is Daly's model at that interval, as the goodput model works it out
    _, ettr = interval_and_ettr(g.job_mtbf_h * 3600, g.checkpoint_blocking_s, g.checkpoint_s, g.restart_s,
                                bool(g.async_checkpoint), 5400.0)
    assert g.ettr == pytest.approx(ettr, abs=1e-4)
    assert option.days == pytest.approx(t.wall_time_days, rel=1e-9)


def test_unstated_the_design_keeps_its_own_rate_and_dalys_interval():
    goal, option = _option()
    t = analyze(build_option(goal, option, CATALOG), CATALOG).training
    g = t.goodput
    assert not g.interval_stated and g.failures_stated is None
    # the design's parts give the rate: the job's failures per day are the breakdown's
    assert g.failures_per_day == pytest.approx(g.failures.failures_per_day, rel=1e-3)
    assert g.checkpoint_interval_s == pytest.approx(g.young_interval_s, rel=0.2)  # Daly's is near Young's


def test_a_higher_failure_rate_costs_days_and_a_longer_interval_with_it_more():
    # a deadline all three meet at one size, so that only the goodput differs
    _, own = _option(60.0)
    _, often = _option(60.0, failure_rate=20.0)
    _, rare_checkpoints = _option(60.0, failure_rate=20.0, checkpoint_interval_min=120.0)
    assert often.gpus == rare_checkpoints.gpus
    assert often.gpus == own.gpus and often.compute_days == own.compute_days
    assert own.ettr > often.ettr > rare_checkpoints.ettr
    assert own.days < often.days < rare_checkpoints.days


def test_the_sensitivity_keeps_a_stated_interval():
    _, option = _option(failure_rate=20.0, checkpoint_interval_min=240.0)
    rows = {(r["factor"], r["change"]): r for r in option.sensitivity}
    base = rows[("as_designed", 0.0)]["days"]
    mtbf_h = 1000 * 24 / 20.0 / option.gpus
    goal, _ = _option(failure_rate=20.0, checkpoint_interval_min=240.0)
    g = analyze(build_option(goal, option, CATALOG), CATALOG).training.goodput

    def ettr(m):
        return interval_and_ettr(m * 3600, g.checkpoint_blocking_s, g.checkpoint_s, g.restart_s,
                                 bool(g.async_checkpoint), 14_400.0)[1]

    for change in (-0.2, 0.2):
        expected = base * ettr(mtbf_h) / ettr(mtbf_h / (1 + change))
        assert rows[("failure_rate", change)]["days"] == pytest.approx(expected, abs=2e-3)


@pytest.mark.parametrize("stated,says", [
    ({"failure_rate": 0.0}, "--failure-rate: must be above 0"),
    ({"failure_rate": 5000.0}, "--failure-rate: 5000 is above the 1000"),
    ({"checkpoint_interval_min": 0.5}, "--checkpoint-interval: 0.5 is below the 1"),
    ({"checkpoint_interval_min": 20_000.0}, "--checkpoint-interval: 20000 is above the 10080"),
    ({"failure_rate": float("nan")}, "--failure-rate: must be above 0"),
])
def test_a_goodput_input_out_of_range_is_named(stated, says):
    with pytest.raises(GoalError, match=says.replace(".", r"\.")):
        make_goal(CATALOG, workload=SMALL, days=20.0, systems=["dgx-b200"], **stated)


@pytest.mark.parametrize("key,value,says", [
    ("failures_per_1000_gpu_days", "often", "must be a number"),
    ("failures_per_1000_gpu_days", -1, "must be a positive number"),
    ("checkpoint_interval_min", 100_000, "must be from 1 to 10080"),
])
def test_a_project_files_goodput_fields_are_checked(key, value, says):
    with pytest.raises(TrainingError, match=f"workload {key} {says}"):
        check_workload(SMALL | {key: value})


def test_the_command_takes_them_and_says_so(capsys, tmp_path):
    out = tmp_path / "b.json"
    code = main(["plan", "--model", "llama3-70b", "--tokens", "2e12", "--days", "20", "--systems", "dgx-b200",
                 "--fabrics", "infiniband", "--failure-rate", "3", "--checkpoint-interval", "60", "--json",
                 "--build", "1", "-o", str(out)])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    assert doc["goal"]["failures_per_1000_gpu_days"] == 3.0 and doc["goal"]["checkpoint_interval_min"] == 60.0
    assert any("3 interruptions per 1,000 GPU-days" in a for a in doc["assumptions"])
    assert any("every 60 min, as the goal states" in a for a in doc["assumptions"])
    t = analyze(load(out, catalog=CATALOG), CATALOG).training
    assert t.goodput.checkpoint_interval_s == 3600.0 and t.goodput.failures_stated == 3.0
    assert t.wall_time_days == pytest.approx(doc["options"][0]["days"], rel=1e-9)
    assert main(["plan", "--model", "llama3-70b", "--tokens", "2e12", "--days", "20", "--failure-rate", "0"]) == 2
    assert capsys.readouterr().err.strip().endswith("--failure-rate: must be above 0, got 0")


def test_unstated_assumptions_cite_the_sources():
    goal = make_goal(CATALOG, workload=SMALL, days=20.0)
    text = " ".join(assumptions(goal))
    assert "Llama 3, arXiv 2407.21783, Table 5" in text and "Daly 2006" in text


def _sample(workload: dict):
    import drawn as samples

    return load(samples.DGX_B200_SU, catalog=CATALOG).with_workload(workload)


def test_a_rate_the_check_allows_never_breaks_the_engine_and_failures_bind(capsys):
    """1,000 interruptions per 1,000 GPU-days (one per GPU a day) fails a large job faster than it restarts: the
    engine gives a floor ETTR rather than overflowing, and the option is the size failing least, binding failures."""
    code = main(["plan", "--model", "llama3-70b", "--tokens", "2e12", "--days", "1", "--systems", "dgx-b200",
                 "--fabrics", "infiniband", "--failure-rate", "1000", "--json"])
    option = json.loads(capsys.readouterr().out)["options"][0]
    assert code == 1 and option["binding"] == "failures" and option["gpus"] == 248  # one SU, the fewest GPUs
    assert "interrupted every 5.8 min" in option["why"]


def test_failures_that_grow_with_the_size_make_the_search_go_down():
    """At 20 interruptions per 1,000 GPU-days a 1-day goal is out of reach, and more GPUs fail more often: the
    closest option is the fastest size, found below the first guess, binding failures."""
    goal = make_goal(CATALOG, workload=SMALL, days=1.0, systems=["dgx-b200"], fabrics=["infiniband"],
                     failure_rate=20.0)
    option = option_for(goal, "dgx-b200", "infiniband", CATALOG)
    assert option.binding == "failures" and not option.meets
    assert option.gpus < 8_000 and option.days < 5.0
    assert option.why.startswith(f"failures bind: at {option.gpus:,} GPUs the job is interrupted every ")


def test_a_stated_interval_an_asynchronous_write_outlasts_is_said_so():
    wl = {"model": "gpt-1t", "tokens": 1e12, "async_checkpoint": True, "checkpoint_sharded": False,
          "checkpoint_interval_min": 1}
    a = analyze(_sample(wl), CATALOG)
    g = a.training.goodput
    assert g.checkpoint_interval_s == pytest.approx(g.checkpoint_s, rel=1e-3) and g.checkpoint_s > 60
    assert not g.interval_stated  # the interval is the write's, not the one stated
    finding = next(f for f in a.findings if f.code == "training-checkpoint-interval")
    assert finding.message.startswith("the stated checkpoint interval of 1.0 min cannot be kept: an asynchronous "
                                      "checkpoint takes ")


def test_a_stated_interval_far_from_dalys_is_named_in_the_advice():
    a = analyze(_sample({"model": "llama3-70b", "tokens": 2e12, "checkpoint_interval_min": 10_080}), CATALOG)
    share = next(f for f in a.findings if f.code == "training-checkpoint-share")
    assert "the workload states one checkpoint every 10,080.0 min, where Daly's optimum for this failure rate is " \
        in share.message


def test_a_stated_rate_drops_the_parts_breakdown_and_true_is_not_a_number():
    doc = analyze(_sample({"model": "llama3-70b", "tokens": 2e12, "failures_per_1000_gpu_days": 2}), CATALOG)
    gp = doc["training"]["goodput"]
    assert gp["failures"] is None and gp["failures_stated"] == 2.0
    for key in ("failures_per_1000_gpu_days", "checkpoint_interval_min"):
        with pytest.raises(TrainingError, match=f"workload {key} must be a number, got True"):
            check_workload(SMALL | {key: True})
