"""From a training goal to ranked options: the size search, the caps, the exit codes and the built design."""
from __future__ import annotations

import json
import math

import pytest

from catalog import default_catalog
from designer.cli.main import main
from designer.fileformat import load
from designer.analysis import analyze
from designer.goal.goal import GoalError, make_goal
from designer.goal.options import check_spec, option_for, plan_goal, spec_for
from designer.goal.sizing import Walker, size_for

CATALOG = default_catalog()
#: a goal small enough to size in a second: Llama 3 70B on 2T tokens in 20 days
SMALL = {"model": "llama3-70b", "tokens": 2e12, "precision": "bf16"}


def _walker(goal, system, fabric):
    planes = check_spec(spec_for(system, fabric, 1), CATALOG).planes
    return Walker(goal, system, fabric, planes, CATALOG)


@pytest.mark.parametrize("system,fabric", [("dgx-b200", "infiniband"), ("dgx-b300", "spectrum-x"),
                                           ("gb200-nvl72", "infiniband")])
def test_the_size_found_is_the_smallest_that_meets_the_deadline(system, fabric):
    goal = make_goal(CATALOG, workload=SMALL, days=20.0, systems=[system], fabrics=["infiniband"])
    w = _walker(goal, system, fabric)
    sized = size_for(w, goal.days)
    assert sized.meets and sized.days <= 20.0
    assert sized.gpus == w.gpus(sized.sus)
    # every smaller size misses it, sizes that factor well included (days do not fall smoothly with GPUs)
    smaller = [w.days(k) for k in range(1, sized.sus)]
    assert all(d > 20.0 for d in smaller), smaller


def test_past_the_batchs_limit_the_smallest_size_is_still_found():
    """Llama 3 70B in 4 days on DGX B300: past ~19k GPUs the days stay flat (4.01 days at 41 SUs, 4.10 at 52, 3.67
    at 65), so the GPU-days of the sizes the walk first tries put the band's floor at 37 SUs, where 34 meets it; the
    band is walked again below each smaller size it finds."""
    goal = make_goal(CATALOG, workload={"model": "llama3-70b", "tokens": 15e12, "precision": "bf16"}, days=4.0,
                     systems=["dgx-b300"], fabrics=["infiniband"])
    w = _walker(goal, "dgx-b300", "infiniband")
    sized = size_for(w, goal.days)
    assert sized.meets and (sized.sus, sized.gpus) == (34, 19_584)
    # the sizes below, down to where the days still fall with the GPUs, all miss it
    assert [w.days(k) > 4.0 for k in range(28, sized.sus)] == [True] * 6
    assert w.days(28) > w.days(30) > w.days(33) > 4.0


def test_halving_the_deadline_never_lowers_an_options_gpus():
    systems = ["dgx-b200", "dgx-b300", "gb300-nvl72"]
    long = make_goal(CATALOG, workload=SMALL, days=20.0, systems=systems, fabrics=["infiniband", "ethernet"])
    short = make_goal(CATALOG, workload=SMALL, days=10.0, systems=systems, fabrics=["infiniband", "ethernet"])
    a = {(o.system, o.fabric): o for o in plan_goal(long, CATALOG)}
    b = {(o.system, o.fabric): o for o in plan_goal(short, CATALOG)}
    assert a.keys() == b.keys() and len(a) == 6
    for key, option in a.items():
        assert option.status == "ok" and option.meets, key
        assert b[key].gpus >= option.gpus, key
        assert b[key].meets and b[key].days <= 10.0
        assert option.days <= 20.0


def test_an_options_engines_run_on_one_thread(monkeypatch):
    """The plan puts an option on every core: its engines do not take a second one."""
    import designer.analysis as analysis

    asked = []
    real = analysis.run_engines
    monkeypatch.setattr(analysis, "run_engines", lambda engines, ctx, given=None, workers=None:
                        asked.append(workers) or real(engines, ctx, given, workers=workers))
    goal = make_goal(CATALOG, workload=SMALL, days=20.0, systems=["dgx-b300"], fabrics=["infiniband"])
    assert option_for(goal, "dgx-b300", "infiniband", CATALOG).status == "ok"
    assert asked and set(asked) == {1}


def test_an_options_figures_are_its_designs_analysis():
    goal = make_goal(CATALOG, workload=SMALL, days=20.0, systems=["dgx-b300"], fabrics=["infiniband"])
    option = option_for(goal, "dgx-b300", "infiniband", CATALOG)
    assert option.status == "ok" and option.meets and option.binding is None
    assert option.gpus % 8 == 0 and option.sus >= 1
    assert option.plan["tp"] * option.plan["pp"] * option.plan["dp"] * option.plan["cp"] <= option.gpus
    assert 0.2 < option.mfu < 0.7
    assert option.compute_days < option.days <= 20.0  # failures and checkpoints cost wall time
    assert 0.8 < option.ettr < 1.0
    assert option.facility_mw > option.it_mw > 0
    assert option.capex > 1e6 and option.currency == "USD"
    assert option.cost_per_million_tokens > 0 and option.cost_per_gpu_hour > 0
    assert option.racks >= option.gpus // 8 // 4  # four DGX B300 to a rack at most


def test_a_power_cap_removes_the_options_over_it():
    systems = ["dgx-b200", "dgx-b300"]
    goal = dict(workload=SMALL, days=5.0, systems=systems, fabrics=["infiniband"])
    free = {(o.system, o.fabric): o for o in plan_goal(make_goal(CATALOG, **goal), CATALOG)}
    low, high = sorted(o.facility_mw for o in free.values())
    assert high > low
    cap = (low + high) / 2  # the smaller option fits under it, the larger not
    capped = {(o.system, o.fabric): o for o in plan_goal(make_goal(CATALOG, **goal, power_mw=cap), CATALOG)}
    for key, option in capped.items():
        if free[key].facility_mw <= cap:
            assert option.meets and option.gpus == free[key].gpus
        else:  # the largest size under the cap, as the closest option, saying what meeting the goal would take
            assert not option.meets and option.binding == "power"
            assert option.facility_mw <= cap and option.gpus < free[key].gpus and option.days > 5.0
            assert f"{free[key].gpus:,} GPUs" in option.why and "MW cap" in option.why
    assert sum(o.meets for o in capped.values()) == 1


def test_an_ethernet_fabric_the_system_has_none_of_is_an_option_that_says_so():
    goal = make_goal(CATALOG, workload=SMALL, days=20.0, systems=["gb200-nvl72"], fabrics=["ethernet"])
    option = option_for(goal, "gb200-nvl72", "ethernet", CATALOG)
    assert option.status == "invalid" and not option.meets
    assert "no Ethernet reference architecture" in option.why


@pytest.mark.parametrize("argv,says", [
    (["--tokens", "0", "--days", "60"], "--tokens"),
    (["--tokens", "15e12", "--days", "0"], "--days"),
    (["--tokens", "15e12", "--days", "60", "--power-mw", "0.01"], "--power-mw 0.01: smaller than one"),
    (["--tokens", "15e12", "--days", "60", "--systems", "dgx-b9000"], "--systems: 'dgx-b9000'"),
    (["--tokens", "15e12", "--days", "60", "--fabrics", "token-ring"], "--fabrics: 'token-ring'"),
    (["--tokens", "15e12", "--days", "60", "--build", "1"], "--build N and -o FILE go together"),
])
def test_bad_input_is_one_line_naming_it_and_exit_2(capsys, argv, says):
    assert main(["plan", "--model", "llama3-405b", *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_goal_no_option_meets_exits_1_with_the_closest_and_the_binding_limit(capsys):
    rc = main(["plan", "--model", "llama3-70b", "--tokens", "2e12", "--days", "20", "--systems", "dgx-b200",
               "--fabrics", "infiniband", "--power-mw", "1", "--json"])
    assert rc == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["meets"] == 0
    (option,) = doc["options"]
    # two scalable units meet it at 1.3 MW; the one under the cap is the closest, 248 GPUs in about 36 days
    assert option["binding"] == "power" and option["facility_mw"] <= 1 and option["days"] > 20
    assert option["sus"] == 1 and option["gpus"] == 248


def test_json_ranks_options_with_the_figures_a_quote_needs(capsys):
    rc = main(["plan", "--model", "llama3-70b", "--tokens", "2e12", "--days", "20", "--systems", "dgx-b200,dgx-b300",
               "--fabrics", "infiniband,ethernet", "--json", "--workers", "1"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["goal"]["days"] == 20 and doc["goal"]["tokens"] == 2e12
    assert [o["rank"] for o in doc["options"]] == [1, 2, 3, 4]
    meeting = [o for o in doc["options"] if o["meets"]]
    assert len(meeting) == 4
    assert [o["capex"] for o in meeting] == sorted(o["capex"] for o in meeting)
    for o in meeting:
        assert {"system", "fabric", "gpus", "plan", "days", "facility_mw", "racks", "halls", "capex",
                "cost_per_million_tokens", "cost_per_gpu_hour"} <= o.keys()
    assert {o["fabric"] for o in doc["options"]} == {"infiniband", "roce", "spectrum-x"}
    assert any("Llama 3" in line for line in doc["assumptions"])


def test_build_writes_a_design_whose_analysis_matches_the_option(tmp_path, capsys):
    out = tmp_path / "goal.podplan.json"
    rc = main(["plan", "--model", "llama3-70b", "--tokens", "2e12", "--days", "20", "--systems", "dgx-b300",
               "--fabrics", "infiniband", "--build", "1", "-o", str(out), "--json"])
    assert rc == 0
    doc = json.loads(capsys.readouterr().out)
    option = doc["options"][0]
    assert doc["built"] == str(out)
    project = load(out, CATALOG)
    a = analyze(project, CATALOG)
    assert not [f for f in a.findings if f.severity == "error"]
    assert a.summary.gpus == option["gpus"]
    assert math.isclose(a.training.wall_time_days, option["days"], rel_tol=0.02)
    assert project.workload_dict["model"] == "llama3-70b" and project.workload_dict["tokens"] == 2e12


def test_a_goal_is_checked_whole_before_any_work():
    with pytest.raises(GoalError, match="--budget"):
        make_goal(CATALOG, workload=SMALL, days=20.0, budget=-1.0)
    with pytest.raises(GoalError, match="--systems: 'dgx-b200' is given twice"):
        make_goal(CATALOG, workload=SMALL, days=20.0, systems="dgx-b200,dgx-b200")
    with pytest.raises(GoalError, match="model"):
        make_goal(CATALOG, workload={**SMALL, "model": "gpt-9"}, days=20.0)


def test_sensitivity_moves_days_and_cost_as_the_engines_relations_do():
    goal = make_goal(CATALOG, workload=SMALL, days=5.0, systems=["dgx-b200"], fabrics=["infiniband"])
    option = option_for(goal, "dgx-b200", "infiniband", CATALOG)
    rows = {(r["factor"], r["change"]): r for r in option.sensitivity}
    assert len(rows) == 9
    base = rows[("as_designed", 0.0)]
    assert base["days"] == option.days
    assert math.isclose(rows[("mfu", -0.2)]["days"], option.days / 0.8, rel_tol=1e-3)
    assert math.isclose(rows[("mfu", 0.2)]["days"], option.days / 1.2, rel_tol=1e-3)
    assert math.isclose(rows[("tokens", 0.2)]["days"], base["days"] * 1.2, rel_tol=1e-3)
    # more failures: shorter checkpoint intervals and more work redone, a little later; fewer: a little sooner
    assert rows[("failure_rate", -0.2)]["days"] < base["days"] < rows[("failure_rate", 0.2)]["days"]
    assert rows[("failure_rate", 0.2)]["days"] < base["days"] * 1.05
    # the power price moves the cost, never the days; the run's cost follows the days otherwise
    assert rows[("power_price", 0.2)]["days"] == base["days"]
    assert rows[("power_price", -0.2)]["run_cost"] < base["run_cost"] < rows[("power_price", 0.2)]["run_cost"]
    assert math.isclose(rows[("tokens", 0.2)]["run_cost"], base["run_cost"] * 1.2, rel_tol=1e-3)
    # the cost of the run is the cost per GPU-hour over the wall-clock days
    assert math.isclose(base["run_cost"], option.cost_per_gpu_hour * option.gpus * base["days"] * 24, rel_tol=1e-3)


def test_the_text_names_the_top_options_sensitivity(capsys):
    assert main(["plan", "--model", "llama3-70b", "--tokens", "2e12", "--days", "20", "--systems", "dgx-b300",
                 "--fabrics", "infiniband"]) == 0
    out = capsys.readouterr().out
    assert "option 1 (DGX B300" in out and "if one assumption is off, alone" in out
    assert [line.split()[0] for line in out.splitlines() if line.startswith("    ") and " d, " in line] == [
        "MFU", "failure", "tokens", "power"]


def test_a_precision_a_gpu_lacks_makes_its_option_unbuildable_and_none_left_is_exit_2(capsys):
    goal = make_goal(CATALOG, workload={**SMALL, "precision": "fp4"}, days=20.0, systems=["dgx-h100", "dgx-b300"],
                     fabrics=["infiniband"])
    by = {o.system: o for o in plan_goal(goal, CATALOG)}
    assert by["dgx-h100"].status == "invalid" and "no FP4 tensor cores" in by["dgx-h100"].why
    assert by["dgx-b300"].status == "ok" and by["dgx-b300"].meets
    assert main(["plan", "--model", "llama3-70b", "--tokens", "2e12", "--days", "20", "--precision", "fp4",
                 "--systems", "dgx-h100", "--fabrics", "infiniband,ethernet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("podplanner: error: plan: no option can be sized: dgx-h100 on ")
    assert "GPU h100 has no FP4 tensor cores" in err and err.count("\n") == 1


@pytest.mark.parametrize("flag,value,says", [("--days", "0.01", "--days: 0.01 is below the 0.1"),
                                             ("--tokens", "1000", "--tokens: 1000 is below the 1e+06")])
def test_a_goal_too_small_to_tell_from_a_miss_is_refused(capsys, flag, value, says):
    argv = {"--days": "60", "--tokens": "15e12", flag: value}
    assert main(["plan", "--model", "llama3-405b", "--tokens", argv["--tokens"], "--days", argv["--days"]]) == 2
    assert says in capsys.readouterr().err


def test_one_slow_size_is_not_the_end_of_scaling():
    """Llama 3 70B on 15T tokens in 4 days: DGX B300's first guess (41 SUs) misses by 0.3 %, and the next size tried
    runs slower (its GPU count factors badly); larger sizes meet the deadline, so the option must too."""
    goal = make_goal(CATALOG, workload={"model": "llama3-70b", "tokens": 15e12}, days=4.0, systems=["dgx-b300"],
                     fabrics=["infiniband"])
    sized = size_for(_walker(goal, "dgx-b300", "infiniband"), 4.0)
    assert sized.meets and sized.days <= 4.0 and sized.binding is None


def test_the_largest_size_the_generator_builds_is_found_by_its_quick_check():
    from designer.generate.build import generate
    from designer.generate.spec import GenerateError
    from designer.goal.options import largest_buildable

    # DGX B200 on QM9700 InfiniBand: three tiers reach 65,536 endpoints, with a campus fabric above the pods
    largest = largest_buildable("dgx-b200", "infiniband", 681, CATALOG)
    assert largest is not None and 256 < largest < 681
    generate(spec_for("dgx-b200", "infiniband", largest), CATALOG, layout_only=True)
    with pytest.raises(GenerateError, match="endpoints are more than 3 tiers"):
        generate(spec_for("dgx-b200", "infiniband", largest + 1), CATALOG, layout_only=True)
    assert largest_buildable("dgx-b200", "infiniband", 1, CATALOG) is None


def test_a_size_past_what_the_generator_builds_gives_the_largest_it_builds(monkeypatch):
    """The goal's size cannot be built: the option is the largest size that can, binding ``build``, saying what
    meeting the goal would have taken (the generator's limit stood in for by refusing more than 3 SUs)."""
    from designer.goal import options
    from designer.generate.spec import GenerateError

    real = options.design_for

    def refusing(goal, system, fabric, sus, catalog):
        if sus > 3:
            raise GenerateError("compute fabric: 99,999 endpoints are more than 3 tiers reach; 3 planes would do")
        return real(goal, system, fabric, sus, catalog)

    monkeypatch.setattr(options, "design_for", refusing)
    monkeypatch.setattr(options, "largest_buildable", lambda system, fabric, sus, catalog: 3)
    goal = make_goal(CATALOG, workload=SMALL, days=5.0, systems=["dgx-b200"], fabrics=["infiniband"])
    option = option_for(goal, "dgx-b200", "infiniband", CATALOG)
    assert option.status == "ok" and not option.meets and option.binding == "build"
    assert option.sus == 3 and option.gpus == 760 and option.days > 5.0
    assert option.why.startswith("meeting 5 days takes ")
    assert "more than the generator builds (compute fabric: 99,999 endpoints are more than 3 tiers reach); the " \
           f"largest it builds: 760 GPUs, {option.days:.2f} days" in option.why
