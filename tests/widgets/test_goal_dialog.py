"""File ▸ New from a goal…: the form reads as the plan command's goal, the table shows plan_goal's ranking, the
chart draws the chosen option's sensitivity, and Open design opens that option's design in the window."""
from __future__ import annotations

import pytest

from designer.goal.goal import make_goal
from designer.goal.options import build_option, plan_goal
from designer.goal.sensitivity import CHANGE
from widgets.app.goal_dialog import COLUMNS, GoalDialog, readable_error, row_cells
from widgets.app.goal_form import short_name

TIMEOUT_MS = 120_000
#: a goal small enough to size in about a second: Llama 3 8B on 0.3T tokens in 5 days, two systems, both fabrics
SMALL = {"model": "llama3-8b", "tokens_t": 0.3, "days": 5.0, "systems": ("dgx-b200", "gb200-nvl72")}


def _set_small(dialog: GoalDialog, **changes) -> None:
    goal = SMALL | changes
    form = dialog.form
    form.model_combo.setCurrentIndex(form.model_combo.findData(goal["model"]))
    form.tokens_spin.setValue(goal["tokens_t"])
    form.days_spin.setValue(goal["days"])
    for system, check in form.system_checks.items():
        check.setChecked(system in goal["systems"])


def _small_goal(catalog, **extra):
    return make_goal(catalog, workload={"model": "llama3-8b", "tokens": 0.3e12, "precision": "bf16"}, days=5.0,
                     systems=SMALL["systems"], **extra)


@pytest.fixture
def dialog(qtbot, catalog):
    d = GoalDialog(catalog, sync=True)
    qtbot.addWidget(d)
    d.resize(1400, 900)
    d.show()
    return d


def _cells(dialog: GoalDialog, row: int) -> list[str]:
    return [dialog.table.item(row, c).text() for c in range(len(COLUMNS))]


def test_the_form_reads_as_the_plan_commands_goal(qtbot, dialog, catalog):
    _set_small(dialog)
    form = dialog.form
    form.power_check.setChecked(True)
    form.power_spin.setValue(12.5)
    form.power_basis.setCurrentIndex(form.power_basis.findData("it"))
    form.failure_check.setChecked(True)
    form.failure_spin.setValue(2.0)
    form.interval_check.setChecked(True)
    form.interval_spin.setValue(45)
    assert form.goal() == _small_goal(catalog, power_mw=12.5, power_basis="it", failure_rate=2.0,
                                      checkpoint_interval_min=45.0)
    # the default goal is the issue's: Llama 3 405B on 15T tokens in 60 days, current systems, both fabrics
    fresh = GoalDialog(catalog, sync=True)
    qtbot.addWidget(fresh)
    goal = fresh.form.goal()
    assert (goal.workload_dict["model"], goal.tokens, goal.days) == ("llama3-405b", 15e12, 60.0)
    assert set(goal.systems) == {"dgx-b200", "dgx-b300", "dgx-b300-dc", "gb200-nvl72", "gb300-nvl72", "dgx-rubin-nvl8"}
    assert goal.fabrics == ("infiniband", "ethernet")
    assert (goal.power_mw, goal.budget, goal.failure_rate, goal.checkpoint_interval_min) == (None, None, None, None)


def test_the_table_is_plan_goals_ranking_and_the_chart_its_sensitivity(qtbot, dialog, catalog):
    _set_small(dialog)
    dialog.find()
    expected = plan_goal(_small_goal(catalog), catalog)
    assert dialog.options == expected
    assert dialog.table.rowCount() == 4
    for r, o in enumerate(expected):
        assert _cells(dialog, r) == row_cells(r + 1, o)
    first = _cells(dialog, 0)
    assert first[1] == "DGX B200" and first[2] == "InfiniBand" and first[3] == f"{expected[0].gpus:,}"
    assert first[6] == f"{expected[0].days:.2f}" and first[-1] == "yes"
    assert _cells(dialog, 3)[-1] == "cannot be built"  # GB200 has no Ethernet RA
    assert "3 of 4 options meet it" in dialog.summary_label.text()
    assert "Daly" in dialog.assumptions_label.text()
    # the first row is chosen: its tornado bars run from the option as designed to each factor's days at ±20 %
    assert dialog.chosen() == expected[0]
    tornado = dialog.chart.days
    rows = {(r["factor"], r["change"]): r for r in expected[0].sensitivity}
    assert tornado.base == rows[("as_designed", 0.0)]["days"]
    assert [r[0] for r in tornado.rows] == ["MFU", "failure rate", "tokens", "power price"]
    assert tornado.rows[0][1:] == (rows[("mfu", -CHANGE)]["days"], rows[("mfu", CHANGE)]["days"])
    widths = list(tornado.lower.opts["width"])
    assert widths[0] == pytest.approx(rows[("mfu", -CHANGE)]["days"] - tornado.base)
    assert widths[2] == pytest.approx(tornado.base - rows[("tokens", -CHANGE)]["days"])
    cost = dialog.chart.cost  # a small job's run costs thousands: the chart's unit is k USD
    assert rows[("as_designed", 0.0)]["run_cost"] < 1e6 and cost.unit == "k USD"
    assert cost.base == pytest.approx(rows[("as_designed", 0.0)]["run_cost"] / 1e3)
    assert cost.rows[3][1:] == pytest.approx((rows[("power_price", -CHANGE)]["run_cost"] / 1e3,
                                              rows[("power_price", CHANGE)]["run_cost"] / 1e3))
    assert dialog.chart.days.card.showing_plot and dialog.open_button.isEnabled()
    # an option that cannot be built: no chart, and Open design off with the reason
    dialog.table.selectRow(3)
    assert not dialog.chart.days.card.showing_plot
    assert not dialog.open_button.isEnabled()
    assert dialog.open_button.toolTip().startswith("This option cannot be built: gb200-nvl72 has no Ethernet "
                                                   "reference architecture")
    assert "cannot be built" in dialog.detail_label.text()


def test_a_bad_goal_names_the_field_and_runs_nothing(qtbot, dialog, catalog):
    _set_small(dialog)
    form = dialog.form
    form.power_check.setChecked(True)
    form.power_spin.setValue(0.01)  # below one DGX B200
    assert dialog.error_label.isVisibleTo(dialog)
    assert dialog.error_label.text().startswith("Power cap 0.01: smaller than one NVIDIA DGX B200 (0.0186 MW of "
                                                "facility power at full load)")
    assert not dialog.find_button.isEnabled()
    dialog.find()
    assert dialog.runner.run_count == 0 and dialog.options == []
    form.power_check.setChecked(False)
    for check in form.fabric_checks.values():
        check.setChecked(False)
    assert dialog.error_label.text() == "Fabrics: name at least one"
    assert readable_error("--days: must be above 0, got 0") == "Deadline: must be above 0, got 0"
    assert readable_error("--power-mw 3: smaller") == "Power cap 3: smaller"
    assert readable_error("something else: as it is") == "something else: as it is"


def test_a_changed_goal_marks_the_table_as_an_earlier_goals(qtbot, dialog):
    _set_small(dialog)
    dialog.find()
    assert dialog.summary_label.text().startswith("llama3-8b on 0.3T tokens in 5 days")
    dialog.form.days_spin.setValue(3.0)
    assert dialog.summary_label.text().startswith("For an earlier goal (press Find options for this one): llama3-8b")
    dialog.find()
    assert dialog.goal.days == 3.0
    assert dialog.summary_label.text().startswith("llama3-8b on 0.3T tokens in 3 days")


def test_a_new_search_shows_its_own_first_option(dialog):
    """The same number of rows again: the detail, the chart and Open design follow the new first option."""
    _set_small(dialog)
    dialog.find()
    before = dialog.chart.days.base
    dialog.form.tokens_spin.setValue(0.6)
    dialog.find()
    first = dialog.options[0]
    assert dialog.table.rowCount() == 4 and dialog.chosen() == first
    assert dialog.chart.days.base == first.sensitivity[0]["days"] != before
    assert f"{first.days:,.2f} days" in dialog.detail_label.text()


@pytest.fixture
def live(qtbot, catalog):
    """The dialog with its searches on the worker thread, as in the window."""
    d = GoalDialog(catalog)
    qtbot.addWidget(d)
    _set_small(d)
    progress: list[tuple[int, int, int]] = []
    d._relay.progressed.connect(lambda *event: progress.append(event))
    d.progress_events = progress
    yield d
    d.done(0)


def test_a_goal_asked_for_while_sizing_stops_the_old_search(qtbot, live, monkeypatch):
    """The worker checks between options: a newer Find makes the running search stop after the option it is on,
    and only the newer goal's options are shown."""
    import threading

    from widgets.app import goal_dialog

    asked_again = threading.Event()
    real = goal_dialog.plan_goal

    def held(goal, catalog, *, workers, progress):
        def first_then_wait(done, total):
            progress(done, total)
            if goal.days == 5.0 and done == 1:
                asked_again.wait(60)  # the first search waits after one option until the second is asked for
        return real(goal, catalog, workers=workers, progress=first_then_wait)

    monkeypatch.setattr(goal_dialog, "plan_goal", held)
    live.find()
    qtbot.waitUntil(lambda: any(e[0] == 1 for e in live.progress_events), timeout=TIMEOUT_MS)
    assert not live.open_button.isEnabled()  # nothing to open while the options are being replaced
    live.form.days_spin.setValue(4.0)
    assert live.summary_label.text().startswith("For an earlier goal (press Find options for this one): Sizing")
    live.find()
    asked_again.set()
    qtbot.waitUntil(lambda: live.goal is not None and not live.runner.busy, timeout=TIMEOUT_MS)
    first_search = [done for revision, done, _ in live.progress_events if revision == 1]
    assert first_search == [1]  # it stopped at its next check, after the second option, before telling of it
    assert [done for revision, done, _ in live.progress_events if revision == 2] == [1, 2, 3, 4]
    assert live.goal.days == 4.0
    assert live.summary_label.text().startswith("llama3-8b on 0.3T tokens in 4 days: 3 of 4 options meet it")
    assert live.open_button.isEnabled()


def test_a_form_changed_while_sizing_marks_its_result_as_an_earlier_goals(qtbot, live):
    live.find()
    live.form.days_spin.setValue(3.0)
    qtbot.waitUntil(lambda: live.goal is not None and not live.runner.busy, timeout=TIMEOUT_MS)
    assert live.goal.days == 5.0
    assert live.summary_label.text().startswith("For an earlier goal (press Find options for this one): llama3-8b "
                                                "on 0.3T tokens in 5 days")



def test_the_goals_failure_rate_and_interval_reach_the_options(dialog, catalog):
    _set_small(dialog, systems=("dgx-b200",))
    dialog.form.fabric_checks["ethernet"].setChecked(False)
    dialog.find()
    own = dialog.options[0]
    dialog.form.failure_check.setChecked(True)
    dialog.form.failure_spin.setValue(50.0)
    dialog.find()
    often = dialog.options[0]
    assert often.gpus == own.gpus and often.compute_days == own.compute_days
    assert often.ettr < own.ettr and often.days > own.days  # 50 per 1,000 GPU-days
    assert "50 interruptions per 1,000 GPU-days" in dialog.assumptions_label.text()
    assert "every Daly-optimal interval" in dialog.assumptions_label.text()
    dialog.form.failure_check.setChecked(False)
    dialog.form.interval_check.setChecked(True)
    dialog.form.interval_spin.setValue(600)
    dialog.find()
    rare = dialog.options[0]  # the design's own rate, a checkpoint every 10 hours: more work redone per failure
    assert rare.gpus == own.gpus and rare.ettr < own.ettr
    assert "every 600 min, as the goal states" in dialog.assumptions_label.text()
    assert "each design's own rate" in dialog.assumptions_label.text()


def test_open_design_opens_the_chosen_option_in_the_window(qtbot, window, catalog):
    window.document.mark_unsaved()
    window.new_from_goal_action.trigger()
    dialog = window.goal_dialog
    assert dialog.isVisible()
    _set_small(dialog, systems=("dgx-b200",))
    dialog.form.fabric_checks["ethernet"].setChecked(False)
    dialog.find()
    qtbot.waitUntil(lambda: dialog.goal is not None and not dialog.runner.busy, timeout=TIMEOUT_MS)
    option = dialog.options[0]
    expected = build_option(dialog.goal, option, catalog)
    dialog.open_design()
    qtbot.waitUntil(lambda: window.project.name == expected.name and bool(window.project.workload), timeout=TIMEOUT_MS)
    project = window.document.project
    assert project.workload_dict == dialog.goal.workload_dict
    assert sum(1 for r in project.racks for d in r.devices if d.type == "dgx-b200") * 8 == option.gpus
    assert window.path is None and window.document.dirty
    qtbot.waitUntil(lambda: window.analysis is not None and not window.runner.busy
                    and window.analysis.summary.gpus == option.gpus, timeout=TIMEOUT_MS)
    assert window.analysis.training.wall_time_days == pytest.approx(option.days, rel=1e-9)


def test_the_menu_has_new_from_a_goal_under_file(window):
    file_menu = window.menuBar().actions()[0].menu()
    texts = [a.text().replace("&", "") for a in file_menu.actions()]
    assert texts.index("New from a goal…") == texts.index("New SuperPOD…") + 1


def test_short_names_tell_variants_apart():
    assert short_name("NVIDIA DGX B300 (AC power supplies)") == "DGX B300 AC"
    assert short_name("NVIDIA DGX B300 (DC busbar, MGX rack)") == "DGX B300 DC"
    assert short_name("NVIDIA DGX GB200 NVL72") == "DGX GB200 NVL72"
