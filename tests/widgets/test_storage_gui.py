"""Storage in the window: the tier and capacity set in the project's settings (undoably), the storage and
checkpoint figures on the dashboards, storage appliances in New SuperPOD. Real widgets, offscreen."""
from __future__ import annotations

import pytest

from designer.fileformat import save
from designer.formatting import number, percent, quantity
from designer.generate import SuperpodSpec, generate
from widgets.dashboards.storage_figures import duration, storage_rows, tier_choices

TIMEOUT_MS = 60000  # a hang, never a slow machine


@pytest.fixture(scope="module")
def designs(catalog):
    """One SU of DGX B200 (its own RA's tiers) and of DGX B300 (tiers borrowed, so unconfirmed)."""
    return {system: generate(SuperpodSpec(system=system, sus=1), catalog, with_phases=False).project
            for system in ("dgx-b200", "dgx-b300")}


def _open(synced_window, tmp_path, project):
    path = tmp_path / "design.podplan.json"
    save(project, path)
    window = synced_window(path)
    window.inspector.show_selection("project")
    return window


def _texts(combo) -> list[str]:
    return [combo.itemText(i) for i in range(combo.count())]


# -- the project's settings ---------------------------------------------------------------------------------
def test_choosing_a_tier_is_one_undoable_settings_edit(qtbot, synced_window, tmp_path, designs):
    window = _open(synced_window, tmp_path, designs["dgx-b200"])
    fields = window.inspector.project_form.storage
    qtbot.waitUntil(lambda: fields.tier.count() == 4, timeout=TIMEOUT_MS)
    assert _texts(fields.tier) == ["Automatic (the RA's: Better)", "Good", "Better", "Best"]
    assert fields.tier.currentData() == "auto"
    assert "H100 SuperPOD RA Table 6" in fields.basis.text() and "Better" in fields.basis.text()
    assert not fields.unconfirmed.isVisibleTo(window)

    fields.tier.activated.emit(fields.tier.findData("best"))  # as a user's pick does
    assert window.project.settings.storage_tier == "best"
    assert window.undo_action.text() == "Undo Edit design settings"
    assert window.analysis.storage.tier == "best"  # the engines ran on the edit; the form shows their tier
    assert fields.tier.currentText() == "Best" and fields.basis.text().startswith("Best ·")
    window.document.undo()
    assert window.project.settings.storage_tier == "auto" and fields.tier.currentData() == "auto"
    assert not window.document.can_undo()  # the refresh pushed nothing back


def test_the_capacity_target_is_undoable_and_the_command_refuses_too_much(qtbot, synced_window, tmp_path, designs):
    window = _open(synced_window, tmp_path, designs["dgx-b200"])
    fields = window.inspector.project_form.storage
    assert fields.capacity.value() == 0 and fields.capacity.text() == "none"
    fields.capacity.setValue(2.5)
    assert window.project.settings.storage_capacity_pb == 2.5
    assert window.analysis.storage.capacity_target_pb == 2.5
    window.document.undo()
    assert window.project.settings.storage_capacity_pb is None and fields.capacity.value() == 0
    fields.capacity.setValue(2_000_000)  # the settings allow at most 1,000,000 PB: the command says so
    assert window.project.settings.storage_capacity_pb is None
    assert "storage_capacity_pb" in window.inspector.status.text()
    assert not window.document.can_undo()


def test_borrowed_tier_figures_are_shown_as_unconfirmed(qtbot, synced_window, tmp_path, designs):
    window = _open(synced_window, tmp_path, designs["dgx-b300"])
    fields = window.inspector.project_form.storage
    qtbot.waitUntil(lambda: fields.unconfirmed.isVisibleTo(window), timeout=TIMEOUT_MS)
    assert window.analysis.storage.tier_evidence == "U"
    assert "Better tier's figures are unconfirmed" in fields.unconfirmed.text()
    assert "dgx-b300" not in fields.basis.text()  # the borrowing is said in words, not by the catalog id
    assert window.dashboards.storage.value("Storage tier") == "Better (unconfirmed)"


def test_a_long_basis_gets_the_height_its_wrapped_lines_take(qtbot, synced_window):
    """The project page's form, taller than its dock, sized the wrapped basis from its one-line hint and cut its
    first and last lines."""
    from designer import samples

    window = synced_window(samples.GB200_NVL72_SU)
    window.inspector.show_selection("project")
    basis = window.inspector.project_form.storage.basis
    qtbot.waitUntil(lambda: "SuperPOD RA" in basis.text(), timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: basis.width() > 0 and basis.height() >= basis.heightForWidth(basis.width()),
                    timeout=TIMEOUT_MS)
    assert basis.height() >= 3 * basis.fontMetrics().lineSpacing()  # three lines or more in the dock, each whole


def test_an_nvl72_design_offers_its_own_tiers(qtbot, synced_window):
    from designer import samples

    window = synced_window(samples.GB200_NVL72_SU)
    window.inspector.show_selection("project")
    fields = window.inspector.project_form.storage
    qtbot.waitUntil(lambda: fields.tier.count() == 3, timeout=TIMEOUT_MS)
    assert _texts(fields.tier) == ["Automatic (the RA's: Standard)", "Standard", "Enhanced"]
    fields.tier.activated.emit(fields.tier.findData("enhanced"))
    assert window.project.settings.storage_tier == "enhanced" and window.analysis.storage.tier_name == "Enhanced"


def test_tier_choices_follow_the_family():
    assert [v for v, _ in tier_choices("nvl72", "auto")] == ["auto", "standard", "enhanced"]
    assert tier_choices("nvl72", "good")[-1] == ("good", "Good (not a tier of NVL72 racks)")
    assert len(tier_choices(None, "auto")) == 6  # no analysis yet: every tier, each with its family


# -- the dashboards ---------------------------------------------------------------------------------------
def test_the_dashboard_shows_the_analysis_storage_and_checkpoint_figures(qtbot, synced_window, tmp_path, designs):
    window = _open(synced_window, tmp_path, designs["dgx-b200"])
    card = window.dashboards.storage
    analysis = window.analysis
    goodput, storage = analysis.training.goodput, analysis.storage
    assert card.card.showing_plot
    assert card.value("Checkpoint") == f"{quantity(goodput.checkpoint_tb, 'TB')} in {duration(goodput.checkpoint_s)}"
    assert card.value("Interval") == f"every {duration(goodput.checkpoint_interval_s)}"
    wall = analysis.training.wall_time_days
    # the card rounds as a person does (formatting.number: half up from the figure as written), not as %.1f does
    assert card.value("ETTR") == f"{percent(goodput.ettr, 1)} · {number(wall, 1)} days wall time"
    assert card.value("Checkpoint share") == f"{percent(goodput.checkpoint_share, 1)} of the wall time"
    assert card.value("Job MTBF").startswith(f"{goodput.job_mtbf_h:.1f} h")
    assert card.value("Write").startswith(f"{storage.write_gb_s:,.1f} GB/s of {storage.need.write_gb_s:,.1f} GB/s")
    scenario = analysis.training.scenarios.two_percent_gpus_a_month
    days = number(scenario.wall_time_days, 1)
    assert card.value("At 2 % GPUs a month") == (f"{percent(scenario.ettr, 1)} · {days} days "
                                                 f"wall time (job MTBF {scenario.job_mtbf_h:.1f} h)")
    appliances = card.value("Appliances")
    assert "WEKApod" in appliances and "wekapod" not in appliances  # names people read, not ids
    assert card.text().count("<tr>") == len(card.rows)

    # another tier: the card follows the new analysis, and says whether the write falls short of it
    window.inspector.project_form.storage.tier.activated.emit(
        window.inspector.project_form.storage.tier.findData("best"))
    after = window.analysis.storage
    assert after.tier == "best"
    card = window.dashboards.storage  # a dock not on screen is fed when it is next asked for
    assert card.value("Storage tier") == "Best"
    assert card.value("Write").endswith("(short)") == (after.write_gb_s < after.need.write_gb_s)
    window.dashboards.set_analysis(None)
    assert not card.card.showing_plot and "No storage result yet" in card.card.placeholder.text()


def test_the_card_puts_its_halves_side_by_side_when_wide(qtbot, catalog, designs):
    from PySide6.QtWidgets import QBoxLayout

    from designer.analysis import analyze
    from widgets.dashboards.storage_card import SIDE_BY_SIDE_MIN_WIDTH, StorageCard

    analysis = analyze(designs["dgx-b200"], catalog)
    card = StorageCard()
    qtbot.addWidget(card.card)
    card.update(analysis.storage, analysis.training)
    card.card.show()
    card.card.resize(SIDE_BY_SIDE_MIN_WIDTH + 200, 400)
    tier, checkpoints = card.figures.tier, card.figures.checkpoints
    # the layout places the halves on the event loop's next pass after the direction changes
    qtbot.waitUntil(lambda: card.figures.box.direction() == QBoxLayout.Direction.LeftToRight
                    and checkpoints.x() > tier.x() and checkpoints.y() == tier.y())
    card.card.resize(SIDE_BY_SIDE_MIN_WIDTH - 100, 600)
    qtbot.waitUntil(lambda: card.figures.box.direction() == QBoxLayout.Direction.TopToBottom
                    and checkpoints.y() > tier.y() and checkpoints.x() == tier.x())
    assert "Checkpoint" in card.figures.checkpoints.text() and "Write" in card.figures.tier.text()


def test_an_async_checkpoint_says_so(catalog, designs):
    from dataclasses import replace

    from designer.analysis import analyze

    analysis = analyze(designs["dgx-b200"], catalog)
    training = replace(analysis.training, goodput=replace(analysis.training.goodput, async_checkpoint=True,
                                                          checkpoint_blocking_s=1.2))
    rows = dict(storage_rows(analysis.storage, training))
    assert rows["Checkpoint"].endswith("(async, 1.2 s blocking)")


# -- New SuperPOD -----------------------------------------------------------------------------------------
def _wait_for(qtbot, dialog, *texts):
    qtbot.waitUntil(lambda: not dialog.runner.busy and all(t in dialog.preview_text() for t in texts),
                    timeout=TIMEOUT_MS)


def test_the_dialog_builds_a_spec_with_the_storage_chosen(qtbot, dialog):
    assert _texts(dialog.storage_tier_combo) == ["Automatic (the RA's: Better)", "Good", "Better", "Best"]
    dialog.storage_tier_combo.setCurrentIndex(dialog.storage_tier_combo.findData("best"))
    dialog.storage_pb_spin.setValue(3)
    ddn = dialog.storage_appliance_combo.findData("ddn-ai400x2")
    assert dialog.storage_appliance_combo.itemText(ddn) == "DDN AI400X2 storage appliance"
    dialog.storage_appliance_combo.setCurrentIndex(ddn)
    spec = dialog.spec()
    assert (spec.storage_tier, spec.storage_pb, spec.storage_appliance) == ("best", 3.0, "ddn-ai400x2")
    _wait_for(qtbot, dialog, "Best tier asks")
    assert dialog.preview.ok and dialog.preview.spec.storage_tier == "best"
    assert "DDN AI400X2" in dialog.preview_text()

    # an NVL72 system offers its own tiers; a tier it has not is not kept
    dialog.system_combo.setCurrentIndex(dialog.system_combo.findData("gb200-nvl72"))
    assert _texts(dialog.storage_tier_combo) == ["Automatic (the RA's: Standard)", "Standard", "Enhanced"]
    assert dialog.spec().storage_tier is None
    dialog.network_checks["storage"].setChecked(False)
    assert not dialog.storage_tier_combo.isEnabled() and not dialog.storage_pb_spin.isEnabled()


def test_bad_storage_values_give_a_message_in_the_form(qtbot, dialog):
    # an Ethernet appliance on a DGX B200's InfiniBand storage fabric: greyed out, and refused if chosen anyway
    combo = dialog.storage_appliance_combo
    eth = combo.findData("wekapod-nitro-eth")
    assert not combo.model().item(eth).isEnabled()
    combo.setCurrentIndex(eth)
    _wait_for(qtbot, dialog, "cannot be built")
    text = dialog.error_label.text()
    assert text.startswith("Storage appliance:") and "storage ports run ethernet" in text
    assert "--" not in text and "Traceback" not in dialog.preview_text()
    assert not dialog.ok_button.isEnabled()

    combo.setCurrentIndex(0)
    dialog.storage_pb_spin.setValue(20_000)
    _wait_for(qtbot, dialog, "at most 10,000 PB")
    assert dialog.error_label.text().startswith("Storage capacity (PB) must be above 0")
    assert not dialog.ok_button.isEnabled()
