"""Spectrum-X (Ethernet) twin-plane fabrics in the window: chosen in New SuperPOD, set in the project's settings
(undoably), named in the dashboards, the inspector and the comparison. Real widgets, offscreen."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF

from designer.analysis import analyze
from designer.fileformat import save
from designer.generate import SuperpodSpec, generate
from widgets.dashboards.figures import fabric_kind, fabric_text, plane_text

TIMEOUT_MS = 60000  # a hang, never a slow machine


@pytest.fixture(scope="module")
def b300_designs(catalog):
    """The same 1,024-GPU DGX B300 SuperPOD on InfiniBand and on twin-plane Spectrum-X."""
    ib = generate(SuperpodSpec(system="dgx-b300", gpus=1024, fabric="infiniband"), catalog, with_phases=False)
    ethernet = generate(SuperpodSpec(system="dgx-b300", gpus=1024, fabric="spectrum-x"), catalog, with_phases=False)
    return ib.project, ethernet.project


def _pick(combo, data) -> None:
    combo.setCurrentIndex(combo.findData(data))


def _wait_for(qtbot, dialog, *texts):
    qtbot.waitUntil(lambda: not dialog.runner.busy and all(t in dialog.preview_text() for t in texts),
                    timeout=TIMEOUT_MS)


def _items(combo) -> list:
    return [combo.itemData(i) for i in range(combo.count())]


def _enabled(combo, data) -> bool:
    return combo.model().item(combo.findData(data)).isEnabled()


# -- New SuperPOD ------------------------------------------------------------------------------------------
def test_the_fabric_starts_at_the_systems_reference_architecture(dialog):
    _pick(dialog.system_combo, "dgx-b300")
    assert dialog.fabric_combo.currentText() == "InfiniBand"  # the DGX B300 SuperPOD RA: Quantum-X800
    assert dialog.fabric_combo.isEnabled() and _enabled(dialog.fabric_combo, "spectrum-x")
    assert not dialog.fabric_note.isVisibleTo(dialog)
    assert [dialog.fabric_combo.itemText(i) for i in range(dialog.fabric_combo.count())] == \
        ["InfiniBand", "Spectrum-X Ethernet", "RoCE Ethernet"]  # names, never ids
    assert not _enabled(dialog.fabric_combo, "roce")  # RoCE is built for the 400G ConnectX-7 systems
    assert "72 DGX" in dialog.sus_spin.suffix()
    _pick(dialog.system_combo, "dgx-b300-dc")
    assert dialog.fabric_combo.currentData() == "spectrum-x"  # its RA builds Spectrum-X
    assert dialog.planes_combo.currentData() == 2 and dialog.switch_combo.currentData() == "sn5610"
    assert "64 DGX" in dialog.sus_spin.suffix()


def test_choosing_spectrum_x_offers_its_switches_two_planes_and_its_su(dialog):
    _pick(dialog.system_combo, "dgx-b300")
    assert _items(dialog.switch_combo) == ["q3400", "qm9700", "qm9790"]
    assert _items(dialog.planes_combo) == [1] and not dialog.planes_combo.isEnabled()  # no second IB plane
    _pick(dialog.fabric_combo, "spectrum-x")
    assert sorted(_items(dialog.switch_combo)) == ["sn5600", "sn5610"]
    assert dialog.switch_combo.currentData() == "sn5610"  # the RA's
    assert _items(dialog.planes_combo) == [1, 2] and dialog.planes_combo.currentData() == 2
    assert dialog.planes_combo.isEnabled()
    assert "64 DGX" in dialog.sus_spin.suffix() and "512 GPUs per SU" in dialog.sus_spin.suffix()
    spec = dialog.spec()
    assert (spec.fabric, spec.planes, spec.switch) == ("spectrum-x", 2, "sn5610")
    _pick(dialog.fabric_combo, "infiniband")
    assert dialog.switch_combo.currentData() == "q3400" and "72 DGX" in dialog.sus_spin.suffix()
    assert (dialog.spec().fabric, dialog.spec().planes) == ("infiniband", 1)


def test_choosing_spectrum_x_generates_a_twin_plane_design(qtbot, dialog):
    _pick(dialog.system_combo, "dgx-b300")
    _pick(dialog.fabric_combo, "spectrum-x")
    dialog.sus_radio.setChecked(True)
    dialog.sus_spin.setValue(2)
    _wait_for(qtbot, dialog, "1,024 GPUs", "Spectrum-X Ethernet")
    assert "fabric technology: Spectrum-X Ethernet, 2 planes (16 leaf + 8 spine per plane)" in dialog.preview_text()
    assert "compute fabric: 32 leaf, 16 spine" in dialog.preview_text()
    project = dialog.preview.generated.project
    assert (project.settings.fabric_technology, project.settings.fabric_planes) == ("spectrum-x", 2)
    with qtbot.waitSignal(dialog.design_ready, timeout=TIMEOUT_MS) as ready:
        dialog.ok_button.click()
    assert ready.args[0].settings.fabric_planes == 2


def test_one_plane_of_spectrum_x_says_why_it_cannot_be_built(qtbot, dialog):
    _pick(dialog.system_combo, "dgx-b300")
    _pick(dialog.fabric_combo, "spectrum-x")
    _pick(dialog.planes_combo, 1)
    dialog.sus_radio.setChecked(True)
    dialog.sus_spin.setValue(1)
    # a DGX B300 port run whole at 800G on an SN5610 cage takes no optic the catalog has: the preview says so
    # instead of offering a design of unwired links
    _wait_for(qtbot, dialog, "--planes 1: each NVIDIA DGX B300 port would run at 800G")
    assert dialog.preview.generated is None


def test_an_infiniband_only_system_cannot_pick_spectrum_x(qtbot, dialog):
    _pick(dialog.system_combo, "gb200-nvl72")
    assert dialog.fabric_combo.currentData() == "infiniband"
    assert not dialog.fabric_combo.isEnabled() and not _enabled(dialog.fabric_combo, "spectrum-x")
    assert "InfiniBand only" in dialog.fabric_combo.toolTip() and "GB200 NVL72" in dialog.fabric_combo.toolTip()
    assert dialog.fabric_note.isVisibleTo(dialog) and "no Spectrum-X" in dialog.fabric_note.text()  # said, not hidden
    assert all(d in ("qm9700", "qm9790", "q3400") for d in _items(dialog.switch_combo))
    assert dialog.spec().fabric == "infiniband"
    _wait_for(qtbot, dialog, "fabric technology: InfiniBand, 1 plane")
    # a DGX B200 has no Spectrum-X RA either, but its ConnectX-7 ports build a RoCE fabric
    _pick(dialog.system_combo, "dgx-b200")
    assert dialog.fabric_combo.isEnabled() and _enabled(dialog.fabric_combo, "roce")
    assert not _enabled(dialog.fabric_combo, "spectrum-x") and "RoCE" in dialog.fabric_combo.toolTip()
    _pick(dialog.fabric_combo, "roce")
    assert all(d in ("sn5600", "sn5610") for d in _items(dialog.switch_combo))
    assert dialog.spec().fabric == "roce"
    # from a system with Ethernet back to one without: InfiniBand again, and the choice closed
    _pick(dialog.system_combo, "dgx-b300")
    _pick(dialog.fabric_combo, "spectrum-x")
    _pick(dialog.system_combo, "gb200-nvl72")
    assert dialog.fabric_combo.currentData() == "infiniband" and not dialog.fabric_combo.isEnabled()
    assert dialog.switch_combo.currentData() == "qm9700" and dialog.spec().planes == 1


# -- the project's settings --------------------------------------------------------------------------------
@pytest.fixture
def ethernet_window(synced_window, tmp_path, b300_designs):
    path = tmp_path / "b300-spectrum-x.podplan.json"
    save(b300_designs[1], path)
    window = synced_window(path)
    window.inspector.show_selection("project")
    return window


def test_the_project_page_names_the_fabric_and_its_change_is_undoable(qtbot, ethernet_window):
    window = ethernet_window
    form = window.inspector.project_form
    assert form.fabric.currentText() == "Spectrum-X Ethernet" and form.planes.currentData() == 2
    assert [form.fabric.itemText(i) for i in range(form.fabric.count())] == \
        ["InfiniBand", "Spectrum-X Ethernet", "RoCE Ethernet"]
    qtbot.waitUntil(lambda: "32 leaf" in form.fabric_figure.text(), timeout=TIMEOUT_MS)
    assert form.fabric_figure.text() == "Spectrum-X Ethernet, 2 planes: 32 leaf + 16 spine (16 + 8 per plane)"

    form.planes.activated.emit(form.planes.findData(1))  # as a user's pick does
    assert window.project.settings.fabric_planes == 1
    assert window.undo_action.text() == "Undo Edit design settings"
    window.document.undo()
    assert window.project.settings.fabric_planes == 2 and form.planes.currentData() == 2
    assert not window.document.can_undo()  # the refresh pushed nothing back

    # InfiniBand is one plane: choosing it on a twin-plane design makes it one plane, in one undo step
    form.fabric.activated.emit(form.fabric.findData("infiniband"))
    s = window.project.settings
    assert (s.fabric_technology, s.fabric_planes) == ("infiniband", 1)
    assert form.planes.currentData() == 1 and not _enabled(form.planes, 2)
    window.document.undo()
    s = window.project.settings
    assert (s.fabric_technology, s.fabric_planes) == ("spectrum-x", 2) and not window.document.can_undo()
    assert form.fabric.currentData() == "spectrum-x" and _enabled(form.planes, 2)


def test_the_settings_command_refuses_two_infiniband_planes(catalog, b300_designs):
    from designer.commands import CommandError, Document, UpdateSettingsCommand

    doc = Document(b300_designs[0], catalog)
    with pytest.raises(CommandError, match="fabric_planes must be 1 on an InfiniBand fabric"):
        doc.push(UpdateSettingsCommand({"fabric_planes": 2}))
    assert doc.project.settings.fabric_planes == 1 and not doc.can_undo()


# -- shown where the window shows the fabric ---------------------------------------------------------------
def test_fabric_texts_name_the_technology_and_planes(catalog, b300_designs):
    ib, ethernet = (analyze(p, catalog).fabric for p in b300_designs)
    assert fabric_text(ib) == "InfiniBand, 1 plane: 16 leaf + 8 spine"
    assert fabric_text(ethernet) == "Spectrum-X Ethernet, 2 planes: 32 leaf + 16 spine (16 + 8 per plane)"
    assert (fabric_kind(ethernet), plane_text(ethernet)) == ("Spectrum-X Ethernet, 2 planes",
                                                              "16 leaf + 8 spine per plane")
    assert plane_text(ib) == "" and fabric_text(None) == ""


def test_the_fabric_chart_names_its_fabric(qtbot, ethernet_window):
    window = ethernet_window
    chart = window.dashboards.fabric
    axis = chart.plot.getAxis("bottom")
    qtbot.waitUntil(lambda: chart.kind != "", timeout=TIMEOUT_MS)
    assert axis.label.isVisible() and axis.label.toPlainText().strip() == "Spectrum-X Ethernet, 2 planes"
    detail = "Spectrum-X Ethernet, 2 planes: 32 leaf + 16 spine (16 + 8 per plane)"
    assert chart.card.title.toolTip() == detail
    leaf = chart.text_at(chart.plot, chart.plot.getViewBox().mapViewToScene(QPointF(0.0, 100.0)))
    assert leaf.endswith(f"free ports\n{detail}")  # the bar's ports are both planes'
    window.dashboards.set_analysis(None)  # no fabric: no title left over
    assert not axis.label.isVisible() and chart.card.title.toolTip() == ""


# -- Compare with… -----------------------------------------------------------------------------------------
def test_comparing_infiniband_with_spectrum_x_shows_the_fabric_deltas(qtbot, synced_window, tmp_path, b300_designs):
    ib_path, x_path = tmp_path / "ib.podplan.json", tmp_path / "x.podplan.json"
    save(b300_designs[0], ib_path)
    save(b300_designs[1], x_path)
    window = synced_window(ib_path)
    dialog = window.compare_with(x_path)
    qtbot.waitUntil(lambda: dialog.doc is not None or dialog.error != "", timeout=TIMEOUT_MS)
    assert dialog.error == ""
    # the Ethernet variant says so in its name
    assert "B: NVIDIA DGX B300 SuperPOD on Spectrum-X Ethernet" in dialog.status.text()
    assert dialog.table.horizontalHeaderItem(2).text() == "B (x.podplan.json)"
    assert [dialog.cell("fabric_technology", c) for c in (1, 2, 3)] == ["InfiniBand", "Spectrum-X Ethernet",
                                                                         "changed"]
    assert [dialog.cell("fabric_planes", c) for c in (1, 2)] == ["1", "2"]
    assert dialog.cell("gpus", 3) == "no change"
    assert [dialog.cell("leaf_switches", c) for c in (1, 2, 3)] == ["16", "32", "+16 (+100.0 %)"]
    assert [dialog.cell("spine_switches", c) for c in (1, 2)] == ["8", "16"]
    for key in ("transceivers", "cables", "it_power_max_kw", "price_total", "tokens_per_s", "time_to_train_days",
                "cost_per_gpu_hour"):
        assert dialog.cell(key, 1) and dialog.cell(key, 2), key
    assert dialog.cell("transceivers", 3).startswith("+")
    rows = dialog.table.rowCount()
    assert rows == len(dialog.doc["figures"])
    labels = [dialog.table.item(r, 0).text() for r in range(rows)]
    assert "Compute-fabric technology" in labels and "Compute-fabric transceivers" in labels
    dialog.close()


def test_the_cabling_summary_says_what_fabric_its_links_are_of(qtbot, synced_window, tmp_path, b300_designs):
    path = tmp_path / "x.podplan.json"
    save(b300_designs[1], path)
    window = synced_window(path)
    window.workspaces.switch("network")
    panel = window.cabling
    qtbot.waitUntil(lambda: "cables" in panel.subtitle.text(), timeout=TIMEOUT_MS)
    assert panel.subtitle.text().startswith("Spectrum-X Ethernet, 2 planes · 4,096 cables")


def test_the_training_chart_marks_the_job_with_one_plane_lost(qtbot, ethernet_window):
    window = ethernet_window
    chart = window.dashboards.training
    qtbot.waitUntil(lambda: len(chart.lost_point.xData or []) == 1, timeout=TIMEOUT_MS)
    lost = window.analysis.training.scenarios.plane_lost
    assert chart.lost_point.xData[0] == window.analysis.training.gpus
    assert chart.lost_point.yData[0] == lost.tokens_per_s < window.analysis.training.tokens_per_s
    title = chart.card.title.text()
    assert "one plane lost: " in title and f"+{lost.extra_days:,.1f} days" in title
