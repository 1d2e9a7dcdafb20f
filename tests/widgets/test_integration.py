"""The whole window: engines off the GUI thread, findings that point at the plan, files, layout."""
from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest

import drawn as samples
from designer.commands import MoveObjectsCommand
from designer.fileformat import load
from widgets.app.main_window import MainWindow


@pytest.fixture
def settings(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def win(qtbot, catalog, settings, tmp_path):
    w = MainWindow(catalog, load(samples.DGX_B200_SU, catalog), samples.DGX_B200_SU, settings=settings,
                   recovery_dir=tmp_path / "recovery", debounce_ms=10)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.analysis is not None, timeout=60000)
    return w


def test_engines_run_off_the_gui_thread_and_fill_the_docks(win, monkeypatch, qtbot):
    threads = []
    import designer.analysis as analysis_module

    real = analysis_module.analyze

    def spy(project, catalog):
        threads.append(threading.current_thread())
        return real(project, catalog)

    monkeypatch.setattr(win.runner, "analyze_fn", spy)
    win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    qtbot.waitUntil(lambda: bool(threads) and win.analysis.summary_json["racks"] == 19, timeout=60000)
    assert threading.main_thread() not in threads
    assert "248 GPUs" in win.totals_label.text()
    qtbot.waitUntil(lambda: "kW IT" in win.engine_label.text(), timeout=60000)
    assert "PFLOPS BF16" in win.engine_label.text()


def test_editing_a_limit_in_the_inspector_raises_the_finding_and_clicking_it_centres_the_rack(win, qtbot):
    win.scene.select("rack:a03")
    assert win.inspector.kind == "rack" and win.inspector.ids == ("a03",)
    win.inspector.rack_limit.setValue(20.0)  # a DGX pair draws 28.6 kW
    assert win.project.rack("a03").power_limit_kw == 20.0
    qtbot.waitUntil(lambda: any(f.code == "rack-over-limit" and f.where == "rack:a03"
                                for f in win.analysis.findings), timeout=60000)
    panel = win.findings
    qtbot.waitUntil(lambda: "rack:a03" in [panel.where_at(r) for r in range(panel.row_count())], timeout=60000)
    row = [panel.where_at(r) for r in range(panel.row_count())].index("rack:a03")
    win.scene.select_many([])
    win.view.zoom_by(8.0)
    win.view.centerOn(0, 0)
    index = panel.view.model().index(row, 0)
    rect = panel.view.visualRect(index)
    QTest.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert win.scene.selected_ids() == ["rack:a03"]
    item = win.scene.item_for("rack:a03")
    centre = win.view.mapFromScene(item.sceneBoundingRect().center())
    assert win.view.viewport().rect().contains(centre)
    assert win.elevation.rack.id == "a03"
    win.document.undo()
    qtbot.waitUntil(lambda: not any(f.code == "rack-over-limit" for f in win.analysis.findings), timeout=60000)


def test_save_as_then_save_and_recent_files(win, tmp_path, qtbot):
    target = tmp_path / "mine.podplan.json"
    win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    assert win.isWindowModified()
    assert win.files.save_as(target)
    assert not win.isWindowModified() and win.path == target
    assert load(target, win.catalog).rack("m01").y == 7200.0
    assert win.files.recent_files()[0] == str(target.resolve())
    win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 6600.0, 0.0)}))
    assert win.files.save()
    assert load(target, win.catalog).rack("m01").y == 6600.0
    win._fill_recent_menu()
    assert str(target.resolve()) in [a.text() for a in win.recent_menu.actions()]


def test_unsaved_changes_prompt_can_cancel_closing(win, monkeypatch):
    win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    monkeypatch.setattr(win.files, "ask_save_changes", lambda: "cancel")
    assert not win.close()
    assert win.isVisible()
    monkeypatch.setattr(win.files, "ask_save_changes", lambda: "discard")
    assert win.close()


def test_a_clean_close_after_saving_leaves_no_autosave(win, tmp_path):
    win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    assert win.files.autosave()
    path = win.files.recovery_path
    assert path.exists()
    assert win.files.save_as(tmp_path / "kept.podplan.json")
    win.close()
    assert not path.exists() and not (tmp_path / "recovery" / "trash").exists()


def test_window_layout_is_remembered(qtbot, catalog, settings, tmp_path):
    first = MainWindow(catalog, settings=settings, recovery_dir=tmp_path / "r")
    qtbot.addWidget(first)
    first.show()
    first.findings_dock.hide()
    first.close()
    second = MainWindow(catalog, settings=settings, recovery_dir=tmp_path / "r")
    qtbot.addWidget(second)
    second.show()
    assert second.findings_dock.isHidden() and not second.inspector_dock.isHidden()


def test_new_project_has_an_empty_hall(win):
    win.new_project()
    assert win.project.racks == () and len(win.project.halls) == 1 and win.path is None


def test_delete_in_the_rack_elevation_removes_the_device_not_the_rack(win, qtbot):
    from PySide6.QtWidgets import QApplication

    win.activateWindow()
    win.scene.select("rack:a03")
    face = win.elevation.front
    dev = sorted(win.project.rack("a03").devices, key=lambda d: d.u or 0)[-1]
    QTest.mouseClick(face, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     face.point_for_u(dev.u).toPoint())
    assert win.elevation.selected == dev.id
    QTest.keyClick(face, Qt.Key.Key_Delete)
    assert win.project.has_rack("a03")
    assert dev.id not in {d.id for d in win.project.rack("a03").devices}
    assert win.undo_action.text() == "Undo Remove device"
    assert QApplication.focusWidget() is not None


def test_opening_another_design_refreshes_every_dock(win, qtbot):
    for _ in range(4):  # the old document's revisions run ahead of the new one's
        win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0 - 600.0 * (_ % 2), 0.0)}))
    qtbot.waitUntil(lambda: win.analysis.summary_json["racks"] == 19 and not win.runner.busy, timeout=60000)
    win.scene.select("rack:a03")
    assert win.open_path(samples.GB200_NVL72_SU)
    assert win.scene.selected_ids() == [] and win.inspector.kind == "hall"
    qtbot.waitUntil(lambda: win.analysis is not None and win.analysis.summary_json["racks"] == 10, timeout=60000)
    assert "576 GPUs" in win.totals_label.text()


def test_a_sample_is_never_saved_over(win, monkeypatch):
    asked = []
    monkeypatch.setattr(win.files, "ask_save_path", lambda: asked.append(True) or None)
    from designer.samples import DGX_B200_SU

    assert win.open_path(DGX_B200_SU)
    assert win.path is None
    assert not win.files.save()
    assert asked == [True]


def test_a_design_without_halls_opens(win, tmp_path):
    from designer.fileformat import save
    from designer.model import Project

    path = tmp_path / "empty.podplan.json"
    save(Project(name="empty"), path)
    win.inspector.show_selection("hall", ["hall-1"])
    assert win.open_path(path)
    assert win.project.halls == () and win.inspector.kind == "project"
    assert win.windowTitle().startswith("empty")


def test_opening_another_design_moves_the_old_autosave_to_the_trash(win, tmp_path):
    win.document.push(MoveObjectsCommand(racks={"m01": (7800.0, 7200.0, 0.0)}))
    assert win.files.autosave()
    assert win.open_path(samples.GB200_NVL72_SU)
    assert win.files.recovery_path is None
    trashed = win.files.trashed()
    assert len(trashed) == 1 and trashed[0].original == str(samples.DGX_B200_SU)
    assert load(trashed[0].latest.path, win.catalog).rack("m01").y == 7200.0


def test_clicking_empty_floor_shows_its_hall_in_the_inspector(win):
    win.scene.select("rack:a03")
    assert win.inspector.kind == "rack"
    win.view.fit_hall()
    point = win.view.mapFromScene(500.0, 500.0)  # an empty corner of Data hall 1
    QTest.mouseClick(win.view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert win.scene.selected_ids() == []
    assert win.inspector.kind == "hall" and win.inspector.ids == ("hall-1",)


def test_design_settings_and_workload_are_edited_in_the_inspector(win, qtbot):
    win.inspector.show_selection("hall", ["hall-1"])
    win.inspector.project_button.click()
    assert win.inspector.kind == "project"
    form = win.inspector.project_form
    form.settings["pue"].setValue(1.5)
    assert win.project.settings.pue == 1.5
    qtbot.waitUntil(lambda: win.analysis.summary_json["facility_power_kw"]
                    == pytest.approx(win.analysis.summary_json["it_power_max_kw"] * 1.5, abs=0.01), timeout=60000)
    form.model.setCurrentIndex(form.model.findData("llama3-8b"))
    form.model.activated.emit(form.model.currentIndex())
    form.tokens.setValue(2.0)
    assert win.project.workload_dict == {"model": "llama3-8b", "tokens": 2e12}
    qtbot.waitUntil(lambda: win.analysis["training"].get("model") == "llama3-8b", timeout=60000)
    assert win.analysis["training"]["workload_source"] == "project"
    form.software.setCurrentIndex(form.software.findData("megatron-2022"))
    form.software.activated.emit(form.software.currentIndex())
    assert win.project.workload_dict["software"] == "megatron-2022"
    assert "Megatron-LM 2022" in form.software.currentText()
    qtbot.waitUntil(lambda: win.analysis["training"].get("software", {}).get("name") == "megatron-2022",
                    timeout=60000)
    # the goodput assumptions: a stated failure rate and checkpoint interval in place of the design's and Daly's
    assert form.failures.text() == "the design's own rate" and form.interval.text() == "Daly's optimum"
    form.failures.setValue(4.0)
    form.interval.setValue(45)
    assert win.project.workload_dict["failures_per_1000_gpu_days"] == 4.0
    assert win.project.workload_dict["checkpoint_interval_min"] == 45.0
    qtbot.waitUntil(lambda: (win.analysis.training.goodput is not None
                             and win.analysis.training.goodput.failures_stated == 4.0
                             and win.analysis.training.goodput.checkpoint_interval_s == 2700.0), timeout=60000)
    form.interval.setValue(0)  # back to Daly's
    assert "checkpoint_interval_min" not in win.project.workload_dict
    # a learned router's imbalance reaches the estimate's software; unset again, the key leaves the workload
    assert form.imbalance.text() == "a balancing router"
    form.imbalance.stepBy(8)  # from 1 in tenths
    assert win.project.workload_dict["expert_imbalance"] == pytest.approx(1.8)
    qtbot.waitUntil(lambda: win.analysis.training.software is not None
                    and win.analysis.training.software.expert_imbalance == pytest.approx(1.8), timeout=60000)
    form.imbalance.setValue(1.0)  # its least value: a balancing router, the key left out
    assert "expert_imbalance" not in win.project.workload_dict and form.imbalance.text() == "a balancing router"
    win.document.undo()  # the workload edits merge into one step
    assert win.project.workload_dict is None
    win.document.undo()
    assert win.project.settings.pue == 1.3


def test_typing_a_rack_position_is_one_undo_step(win, qtbot):
    win.scene.select("rack:m01")
    box = win.inspector.rack_place["y"]
    box.lineEdit().selectAll()
    QTest.keyClicks(box.lineEdit(), "7200")
    assert win.project.rack("m01").y == 7200.0
    assert win.scene.rack_items["m01"].pos().y() == 7200.0
    win.document.undo()
    assert win.project.rack("m01").y == 5400.0


def test_a_gpu_power_cap_set_in_the_inspector_lowers_the_halls_power(win, qtbot):
    win.inspector.show_selection("hall", ["hall-1"])
    win.inspector.project_button.click()
    form = win.inspector.project_form
    before = win.analysis.power.it_max_kw
    gpus = win.analysis.summary.gpus
    form.gpu_cap.setValue(700)  # DGX B200: 1,000 W GPUs capped at 700 W
    assert win.project.settings.gpu_power_cap_w == 700.0
    qtbot.waitUntil(lambda: win.analysis.power.it_max_kw < before - 1, timeout=60000)
    assert win.analysis.power.it_max_kw == pytest.approx(before - gpus * 0.3, abs=0.05)
    win.document.undo()  # one step: the design's GPUs at their TDP again
    assert win.project.settings.gpu_power_cap_w is None and form.gpu_cap.value() == 0
    form.gpu_cap.stepUp()  # one step up from "none" lands on the lowest cap a design may state, not 50 W
    assert form.gpu_cap.value() == 100 and win.project.settings.gpu_power_cap_w == 100.0
    win.document.undo()
    assert win.project.settings.gpu_power_cap_w is None and form.gpu_cap.value() == 0
    qtbot.waitUntil(lambda: win.analysis.power.it_max_kw == pytest.approx(before, abs=0.01), timeout=60000)
