"""File ▸ New SuperPOD…: a live preview from the worker, refusals with the nearest fit, OK opens the design."""
from __future__ import annotations


from designer.generate import SuperpodSpec
from widgets.app.new_superpod import compute_preview, readable

TIMEOUT_MS = 60000  # a hang, never a slow machine


def _wait_for(qtbot, dialog, *texts):
    qtbot.waitUntil(lambda: not dialog.runner.busy and all(t in dialog.preview_text() for t in texts),
                    timeout=TIMEOUT_MS)


def _fabric_line(dialog) -> str:
    return next(line for line in dialog.preview_view.toPlainText().splitlines() if line.startswith("compute fabric"))


def test_typing_a_size_updates_the_preview_from_the_worker(qtbot, dialog):
    assert dialog.system_combo.currentData() == "dgx-b200"
    assert dialog.system_combo.currentText() == "NVIDIA DGX B200"
    dialog.gpus_radio.setChecked(True)
    dialog.gpus_spin.setValue(2048)
    _wait_for(qtbot, dialog, "2,040 GPUs")
    assert "64 leaf" in _fabric_line(dialog)
    assert "255 × NVIDIA DGX B200 (8 scalable units)" in dialog.preview_text()  # a name, not the catalog id
    assert "UFM" in dialog.preview_text()  # the note on the GPUs the UFM appliances displace
    assert dialog.preview.spec.gpus == 2048 and dialog.ok_button.isEnabled()

    dialog.sus_radio.setChecked(True)
    dialog.sus_spin.setValue(4)
    _wait_for(qtbot, dialog, "1,016 GPUs")
    assert _fabric_line(dialog) == "compute fabric: 32 leaf, 16 spine (2 tiers)"
    assert "2,040 GPUs" not in dialog.preview_text()
    assert dialog.preview.spec.sus == 4 and dialog.preview.spec.gpus is None


def test_a_burst_of_changes_shows_only_the_newest_inputs(qtbot, dialog):
    dialog.sus_radio.setChecked(True)
    for n in (1, 2, 3, 2):
        dialog.sus_spin.setValue(n)
    _wait_for(qtbot, dialog, "scalable units)")
    assert dialog.preview.spec.sus == 2
    assert dialog.preview_text().startswith(dialog.preview.generated.project.name)
    assert "(2 scalable units)" in dialog.preview_text()


def test_a_target_too_big_for_the_hall_names_the_nearest_fit_and_disables_ok(qtbot, dialog):
    dialog.sus_radio.setChecked(True)
    dialog.sus_spin.setValue(16)
    # (a hall power below the design builds a site of such halls; the air a hall's handlers remove bounds one hall)
    dialog.hall_air_spin.setValue(1000)
    _wait_for(qtbot, dialog, "nearest that fits")
    text = dialog.error_label.text()
    assert dialog.error_label.isVisibleTo(dialog)
    assert "Hall air cooling 1.00 MW" in text  # megawatts to two decimals, as everywhere
    assert "nearest that fits: 2 scalable units (504 GPUs)" in text
    assert "Traceback" not in dialog.preview_text()
    assert not dialog.ok_button.isEnabled()
    assert dialog.preview_view.toPlainText() == ""
    # The offered fit is one click away, and it builds.
    assert dialog.nearest_button.isVisibleTo(dialog) and dialog.nearest_button.text() == "Use 2 scalable units"
    # any other change hides it at once: its answer was for the inputs before
    dialog.hall_air_spin.setValue(2000)
    assert not dialog.nearest_button.isVisibleTo(dialog)
    _wait_for(qtbot, dialog, "nearest that fits: 4 scalable units")
    dialog.nearest_button.click()
    _wait_for(qtbot, dialog, "1,016 GPUs in")
    assert not dialog.error_label.isVisibleTo(dialog)
    assert dialog.ok_button.isEnabled()


def test_refusals_speak_in_the_dialogs_fields_not_command_line_flags(catalog):
    preview = compute_preview(SuperpodSpec(system="dgx-b200", gpus=200_000), catalog)
    assert not preview.ok and not preview.fit
    text = readable(preview.error, catalog)
    assert "--" not in text
    # the advice names models, not catalog ids: planes of the QM9700, the Q3400 for 800G systems
    assert "NVIDIA Quantum-2 QM9700 NDR InfiniBand switch" in text and "qm9700" not in text
    assert "NVIDIA Quantum-X800 Q3400-RA XDR InfiniBand switch reaches" in text and "NVIDIA DGX B300" in text


def test_rack_scale_systems_have_no_dgx_per_rack(qtbot, dialog):
    assert dialog.per_rack_spin.isEnabled()
    dialog.system_combo.setCurrentIndex(dialog.system_combo.findData("gb200-nvl72"))
    assert dialog.system_combo.currentText() == "NVIDIA DGX GB200 NVL72"
    assert not dialog.per_rack_spin.isEnabled()
    assert dialog.spec().nodes_per_rack is None
    assert not dialog.network_checks["compute"].isEnabled() and dialog.network_checks["compute"].isChecked()


def test_the_form_reads_as_the_generators_target(dialog):
    dialog.gpus_radio.setChecked(True)
    dialog.gpus_spin.setValue(10_000_000)
    dialog.switch_combo.setCurrentIndex(dialog.switch_combo.findData("q3400"))
    dialog.rack_kw_spin.setValue(60)
    dialog.per_rack_spin.setValue(4)
    dialog.over_spin.setValue(2)
    dialog.tiers_combo.setCurrentIndex(dialog.tiers_combo.findData("3"))
    dialog.network_checks["oob"].setChecked(False)
    dialog.hall_combo.setCurrentIndex(dialog.hall_combo.findData("fixed"))
    dialog.hall_w_spin.setValue(50)
    dialog.hall_d_spin.setValue(35)
    dialog.hall_liquid_spin.setValue(500)
    dialog.phases_spin.setValue(2)
    spec = dialog.spec()
    assert (spec.gpus, spec.sus, spec.switch, spec.rack_kw, spec.nodes_per_rack) == (10_000_000, None, "q3400", 60, 4)
    assert (spec.oversubscription, spec.tiers, spec.networks) == (2, "3", ("compute", "storage", "inband"))
    assert (spec.hall, spec.hall_power_kw, spec.hall_cooling_kw, spec.hall_liquid_kw) == ((50, 35), None, None, 500)
    assert spec.phase_sus == 2
    assert dialog.rack_kw_spin.minimum() == 0 and dialog.per_rack_spin.maximum() == 64
    dialog.rack_kw_spin.setValue(0)
    dialog.per_rack_spin.setValue(0)
    dialog.phases_spin.setValue(0)
    assert (dialog.spec().rack_kw, dialog.spec().nodes_per_rack, dialog.spec().phase_sus) == (None, None, None)
    assert dialog.rack_kw_spin.text() == "auto (40.0 kW)"


def test_the_menu_has_new_superpod_under_file(window):
    file_menu = window.menuBar().actions()[0].menu()
    assert window.menuBar().actions()[0].text() == "&File"
    texts = [a.text().replace("&", "") for a in file_menu.actions()]
    assert "New SuperPOD…" in texts
    assert texts.index("New SuperPOD…") == texts.index("New") + 1
    assert window.new_superpod_action.text().replace("&", "") == "New SuperPOD…"


def test_ok_opens_the_design_as_a_new_document(qtbot, window, catalog):
    window.document.mark_unsaved()  # unsaved work in the window
    asked = []
    window.files.ask_save_changes = lambda: asked.append(1) or "discard"
    window.new_superpod_action.trigger()
    assert asked == [1]  # unsaved changes first, as File > New asks
    dialog = window.new_superpod_dialog
    assert dialog.isVisible() and dialog.isModal()
    dialog.runner._timer.setInterval(20)
    dialog.sus_radio.setChecked(True)
    dialog.sus_spin.setValue(4)
    _wait_for(qtbot, dialog, "1,016 GPUs")
    name = dialog.preview.generated.project.name
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: window.project.name == name, timeout=TIMEOUT_MS)
    project = window.document.project
    dgx = [d for r in project.racks for d in r.devices if d.type == "dgx-b200"]
    assert len(dgx) == 127
    assert name == "NVIDIA DGX B200 SuperPOD - 4 scalable units (127 systems)"
    assert window.windowTitle().startswith(name)
    assert window.path is None
    assert window.document.dirty and window.isWindowModified()  # generated work is unsaved work
    assert not window.document.can_undo() and not window.document.can_redo()
    assert not window.undo_action.isEnabled()


def test_ok_while_computing_waits_for_the_worker(qtbot, window):
    window.new_superpod_action.trigger()
    dialog = window.new_superpod_dialog
    opened = []
    dialog.design_ready.connect(opened.append)
    dialog.sus_radio.setChecked(True)
    dialog.sus_spin.setValue(2)
    assert dialog.runner.busy
    dialog.ok_button.click()  # before the preview is in: the design opens when it is
    assert not opened and not dialog.ok_button.isEnabled()
    qtbot.waitUntil(lambda: bool(opened), timeout=TIMEOUT_MS)
    assert opened[0].name == "NVIDIA DGX B200 SuperPOD - 2 scalable units (63 systems)"
    assert window.project is opened[0]


def test_cancel_keeps_the_open_document(qtbot, window):
    before = window.project
    window.new_superpod_action.trigger()
    dialog = window.new_superpod_dialog
    dialog.buttons.button(dialog.buttons.StandardButton.Cancel).click()
    assert window.project is before
    assert not dialog.runner.busy
    assert dialog.result() == 0


def test_the_size_fields_say_what_the_preview_builds(qtbot, dialog):
    """Four DGX B200 scalable units build 1,016 GPUs (one DGX gives its leaf ports to the UFM appliances): the GPU
    field never reads 1,024 beside a preview of 1,016."""
    assert dialog.sus_radio.isChecked() and dialog.sus_spin.value() == 4
    _wait_for(qtbot, dialog, "1,016 GPUs")
    assert dialog.preview.generated.gpus == 1016
    assert dialog.gpus_spin.value() == 1016  # the field not typed in shows what is built
    assert not dialog.gpus_built.isVisibleTo(dialog)
    # typed: the field keeps the number asked for, and says beside it what is built
    dialog.gpus_radio.setChecked(True)
    dialog.gpus_spin.setValue(1024)
    _wait_for(qtbot, dialog, "1,016 GPUs of the 1,024 asked for")
    assert dialog.gpus_spin.value() == 1024 and dialog.preview.spec.gpus == 1024
    assert dialog.gpus_built.isVisibleTo(dialog)
    assert dialog.gpus_built.text() == "builds 1,016 GPUs, not 1,024 (see the notes)"
    assert "UFM" in dialog.gpus_built.toolTip()
    assert dialog.sus_spin.value() == dialog.preview.generated.sus == 4
    # a count the generator builds as asked needs no word beside it
    dialog.gpus_spin.setValue(1000)
    _wait_for(qtbot, dialog, "1,000 GPUs")
    assert dialog.preview.generated.gpus == 1000 and not dialog.gpus_built.isVisibleTo(dialog)
    # a rack-scale system rounds up to whole racks, and says so
    dialog.system_combo.setCurrentIndex(dialog.system_combo.findData("gb200-nvl72"))
    dialog.gpus_spin.setValue(1024)
    _wait_for(qtbot, dialog, "1,080 GPUs")
    assert dialog.gpus_built.text() == "builds 1,080 GPUs, not 1,024 (see the notes)"
    assert dialog.sus_spin.value() == dialog.preview.generated.sus


def test_choosing_dgx_b300_picks_its_xdr_switch_and_previews_its_fabric(qtbot, dialog):
    dialog.system_combo.setCurrentIndex(dialog.system_combo.findData("dgx-b300"))
    assert dialog.switch_combo.currentData() == "q3400"  # RA-11339-001: Quantum-X800 throughout
    dialog.sus_radio.setChecked(True)
    dialog.sus_spin.setValue(4)
    _wait_for(qtbot, dialog, "2,304 GPUs")
    assert "32 leaf, 18 spine" in _fabric_line(dialog)
    assert "72 DGX" in dialog.sus_spin.suffix()
    dialog.system_combo.setCurrentIndex(dialog.system_combo.findData("dgx-b200"))
    assert dialog.switch_combo.currentData() == "qm9700"
