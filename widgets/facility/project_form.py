"""The project page of the inspector: name, design assumptions, storage and the training workload.

Each field pushes one command (:class:`UpdateSettingsCommand`, :class:`SetWorkloadCommand`,
:class:`RenameProjectCommand`); a run of edits to one field merges into one undo step,
and a value out of range is refused by the command with its reason.
"""
from __future__ import annotations

import math

from typing import Callable

from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFormLayout, QLabel, QLineEdit, QSpinBox, QWidget

from designer.commands import RenameProjectCommand, SetWorkloadCommand, UpdateSettingsCommand
from designer.model import Project
from designer.gpu_power import FLOOR_W
from designer.settings import COOLANTS, FABRIC_NAMES, FABRIC_TECHNOLOGIES
from designer.training.models import PRESETS
from designer.training.section import (DEFAULT_WORKLOAD, FAILURE_KEY, FAILURE_RANGE, IMBALANCE_KEY, INTERVAL_KEY,
                                       INTERVAL_RANGE)
from designer.training.software import DEFAULT_PROFILE, MAX_IMBALANCE
from designer.training.software import LABELS as SOFTWARE_LABELS

from ..app import style
from .storage_fields import StorageFields
from .wrapped_label import WrappedLabel

#: (setting, label, suffix, minimum, maximum, decimals)
SETTINGS = [
    ("pue", "PUE", "", 1.0, 5.0, 2),
    ("power_factor", "Power factor", "", 0.5, 1.0, 2),
    ("derating", "Circuit derating", "", 0.5, 1.0, 2),
    ("coolant_delta_t_k", "Coolant ΔT", " K", 1.0, 50.0, 1),
    ("air_delta_t_k", "Air ΔT", " K", 1.0, 50.0, 1),
    ("air_supply_c", "Supply air", " °C", 10.0, 45.0, 1),
    ("rack_limit_kw", "Rack limit", " kW", 1.0, 10000.0, 1),
    ("rack_system_limit_kw", "Rack-scale limit", " kW", 0.0, 10000.0, 1),
    ("fabric_oversubscription", "Fabric oversubscription", " : 1", 1.0, 64.0, 1),
]
#: Settings whose box at 0 says "not stated" (None in the settings), with what then holds.
UNSET_AT_ZERO = {"rack_system_limit_kw": "each system's one-feed capacity"}
#: What the training engine assumes when the project states no workload (shown, not decided, here).
DEFAULT_MODEL = DEFAULT_WORKLOAD["model"]


def form_heading(text: str) -> QLabel:
    """A bold, muted heading between the rows of a settings form (the project's and the quote's)."""
    label = QLabel(text)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    label.setStyleSheet(f"color: {style.MUTED_TEXT.name()}; padding-top: 6px;")
    return label


class ProjectForm(QWidget):
    """Fields for the whole project; ``push(command)`` sends each edit to the document."""

    def __init__(self, push: Callable[[object], None], parent: QWidget | None = None):
        super().__init__(parent)
        self._push = push
        form = QFormLayout(self)
        form.setContentsMargins(0, 4, 0, 0)
        self.name = QLineEdit()
        form.addRow("Name", self.name)
        self.name.textEdited.connect(lambda t: self._push(RenameProjectCommand(t)))

        form.addRow(form_heading("Design assumptions"))
        self.settings: dict[str, QDoubleSpinBox] = {}
        for key, label, suffix, lo, hi, decimals in SETTINGS:
            box = QDoubleSpinBox()
            box.setRange(lo, hi)
            box.setDecimals(decimals)
            box.setSingleStep(10 ** -decimals if decimals else 1)
            box.setSuffix(suffix)
            if key in UNSET_AT_ZERO:
                box.setSpecialValueText(UNSET_AT_ZERO[key])
            box.valueChanged.connect(lambda v, k=key: self._push(UpdateSettingsCommand(
                {k: (round(v, 6) or None) if k in UNSET_AT_ZERO else round(v, 6)})))
            self.settings[key] = box
            form.addRow(label, box)
        self.coolant = QComboBox()
        for key, props in COOLANTS.items():
            self.coolant.addItem(props["name"], key)
        self.coolant.activated.connect(
            lambda i: self._push(UpdateSettingsCommand({"coolant": self.coolant.itemData(i)})))
        form.addRow("Coolant", self.coolant)
        self.tiers = QComboBox()
        for value, text in (("auto", "as many as needed"), ("2", "2 (leaf, spine)"), ("3", "3 (leaf, spine, core)")):
            self.tiers.addItem(text, value)
        self.tiers.activated.connect(
            lambda i: self._push(UpdateSettingsCommand({"fabric_tiers": self.tiers.itemData(i)})))
        form.addRow("Fabric tiers", self.tiers)
        self.fabric = QComboBox()
        for key in FABRIC_TECHNOLOGIES:
            self.fabric.addItem(FABRIC_NAMES[key], key)
        self.fabric.setToolTip("What the compute fabric's switches run; only switches of that kind in the racks are "
                               "taken as its leaf, spine and core (a new SuperPOD sets it with its switches)")
        self.fabric.activated.connect(self._set_fabric)
        form.addRow("Fabric technology", self.fabric)
        self.planes = QComboBox()
        self.planes.addItem("1", 1)
        self.planes.addItem("2 (each GPU port split over both)", 2)
        self.planes.activated.connect(
            lambda i: self._push(UpdateSettingsCommand({"fabric_planes": self.planes.itemData(i)})))
        form.addRow("Fabric planes", self.planes)
        #: the fabric the engines sized from these settings: technology, planes, switches (the inspector fills it)
        self.fabric_figure = WrappedLabel()
        self.fabric_figure.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        self.fabric_figure.setToolTip("The compute fabric as the fabric engine sized it: every plane's switches, "
                                      "then one plane's")
        form.addRow("Compute fabric", self.fabric_figure)
        self.gpu_cap = QSpinBox()
        self.gpu_cap.setRange(0, 5000)
        self.gpu_cap.setSingleStep(50)
        self.gpu_cap.setSuffix(" W")
        self.gpu_cap.setSpecialValueText("none (each GPU at its TDP)")
        self.gpu_cap.setKeyboardTracking(False)  # one command when the figure is typed, not one per digit
        self.gpu_cap.setToolTip("A power limit on every GPU, as halls that cap power set one (an H100 at 500 W): it "
                                "lowers the systems' draw by the GPUs' share and their clock with it, so power, "
                                "cooling and the training estimate all follow")
        self.gpu_cap.valueChanged.connect(self._set_gpu_cap)
        form.addRow("GPU power cap", self.gpu_cap)

        form.addRow(form_heading("Storage"))
        self.storage = StorageFields(form, self._push)

        form.addRow(form_heading("Training workload"))
        self.model = QComboBox()
        self.model.addItem(f"not set (assume {DEFAULT_MODEL})", None)
        for name in sorted(PRESETS):
            self.model.addItem(name, name)
        self.model.activated.connect(lambda i: self._set_workload(model=self.model.itemData(i)))
        self.tokens = QDoubleSpinBox()
        self.tokens.setRange(0.0, 1000.0)
        self.tokens.setDecimals(2)
        self.tokens.setSuffix(" T tokens")
        self.tokens.setSpecialValueText(f"{DEFAULT_WORKLOAD['tokens'] / 1e12:g} T tokens (default)")
        self.tokens.valueChanged.connect(lambda v: self._set_workload(tokens=v * 1e12 if v else None))
        self.batch = QSpinBox()
        self.batch.setRange(0, 1 << 20)
        self.batch.setSuffix(" sequences")
        self.batch.setSpecialValueText("chosen for the GPU count")
        self.batch.setToolTip("Sequences per step. Unset: at least 4M tokens, 2,048 tokens per GPU, at most the "
                              "compute-optimal batch of the run; the analysis says what it chose and why")
        self.batch.valueChanged.connect(lambda v: self._set_workload(global_batch=v or None))
        self.precision = QComboBox()
        for p, text in (("bf16", "BF16"), ("fp8", "FP8"), ("fp4", "NVFP4 (published recipe)")):
            self.precision.addItem(text, p)
        self.precision.activated.connect(lambda i: self._set_workload(precision=self.precision.itemData(i)))
        self.software = QComboBox()
        for key, label in SOFTWARE_LABELS.items():
            self.software.addItem(label + (" (default)" if key == DEFAULT_PROFILE else ""), key)
        self.software.setToolTip("The training framework the estimate assumes: its attention kernel, the overlap "
                                 "of communication with compute, how data parallelism shards the model, FP8 support")
        self.software.activated.connect(lambda i: self._set_workload(
            software=None if self.software.itemData(i) == DEFAULT_PROFILE else self.software.itemData(i)))
        form.addRow("Model", self.model)
        form.addRow("Token budget", self.tokens)
        form.addRow("Global batch", self.batch)
        form.addRow("Precision", self.precision)
        form.addRow("Software", self.software)
        self.failures = self._unset_box(FAILURE_KEY, FAILURE_RANGE[1] * 1000, 4, " per 1,000 GPU-days",
                                        "the design's own rate",
                                        "Interruptions of the whole job per 1,000 GPU-days. Unset: the rate the "
                                        "design's GPUs, hosts, links and switches give (Llama 3 saw 0.47: arXiv "
                                        "2407.21783 Table 5)")
        self.interval = self._unset_box(INTERVAL_KEY, INTERVAL_RANGE[1] * 100, 1, " min", "Daly's optimum",
                                        "Minutes between checkpoints. Unset: Daly's optimal interval for the job's "
                                        "failure rate (Daly 2006)")
        # 1 is a balancing router, the engine's default: the box's least value leaves the key out of the workload
        self.imbalance = QDoubleSpinBox()
        self.imbalance.setRange(1.0, MAX_IMBALANCE * 10)  # past the engine's bound, to show what a file holds
        self.imbalance.setDecimals(2)
        self.imbalance.setSingleStep(0.1)
        self.imbalance.setKeyboardTracking(False)
        self.imbalance.setSuffix("× the mean")
        self.imbalance.setSpecialValueText("a balancing router")
        self.imbalance.setToolTip("Mixture-of-experts models: the busiest expert rank's routed tokens over the mean. "
                                  "Unset: a router that balances, its random spread charged. A learned router "
                                  "running dropless left 1.8 on Qwen3-235B early in training (Megatron-Core's MoE "
                                  "model zoo)")
        self.imbalance.valueChanged.connect(
            lambda v: self._set_workload(**{IMBALANCE_KEY: v if v > 1.0 else None}))
        form.addRow("Failure rate", self.failures)
        form.addRow("Checkpoints", self.interval)
        form.addRow("Expert imbalance", self.imbalance)
        note = WrappedLabel("The best parallelism plan is searched for the design's GPUs; a fixed plan can be set "
                            "in the project file's workload (tp, pp, dp ...).")
        note.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        form.addRow(note)
        self._workload: dict = {}
        for combo in self.findChildren(QComboBox):  # long choices elide in a narrow dock; the open list shows them
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(12)

    def _unset_box(self, key: str, high: float, decimals: int, suffix: str, unset: str, tip: str) -> QDoubleSpinBox:
        """A box for the workload number ``key`` whose 0 says ``unset`` (the field left out of the workload). It shows
        what a file holds even where the engine refuses it (its finding says why), so it ranges past the engine's
        bounds, and it takes a value when typing ends, not at each digit."""
        box = QDoubleSpinBox()
        box.setRange(0.0, high)
        box.setDecimals(decimals)
        box.setKeyboardTracking(False)
        box.setSuffix(suffix)
        box.setSpecialValueText(unset)
        box.setToolTip(tip)
        box.valueChanged.connect(lambda v: self._set_workload(**{key: v or None}))
        return box

    def _set_fabric(self, index: int) -> None:
        """A technology; InfiniBand is one plane, so choosing it on a twin-plane design makes it one (one step)."""
        changes = {"fabric_technology": self.fabric.itemData(index)}
        if changes["fabric_technology"] == "infiniband" and self.planes.currentData() != 1:
            changes["fabric_planes"] = 1
        self._push(UpdateSettingsCommand(changes))

    def _show_planes(self, technology: str, planes: int) -> None:
        """Two planes are offered on Ethernet only: a Quantum switch's ports do not split."""
        ethernet = technology != "infiniband"
        self.planes.model().item(self.planes.findData(2)).setEnabled(ethernet or planes == 2)
        self.planes.setCurrentIndex(max(0, self.planes.findData(planes)))
        self.planes.setToolTip(
            "Independent fabric planes: 2 splits each GPU's port in two halves, one per plane (Spectrum-X twin "
            "planes); a lost plane leaves every job running at half bandwidth" if ethernet else
            "An InfiniBand fabric is one plane: a Quantum switch's ports do not split, so two planes are built "
            "of Ethernet switches (Spectrum-X or RoCE)")

    def show_fabric(self, text: str | None) -> None:
        """The sized fabric's line (:func:`~widgets.dashboards.figures.fabric_text`); None while it is computed."""
        self.fabric_figure.setText("computing…" if text is None else text or "no compute fabric")

    def show_storage(self, storage) -> None:
        """The analysis' storage section (None while it is computed): the tiers offered and the tier's basis."""
        self.storage.show_storage(storage)

    def _set_gpu_cap(self, watts: int) -> None:
        if 0 < watts < FLOOR_W:  # one step up from "none" lands on the lowest cap a design may state
            self.gpu_cap.setValue(int(FLOOR_W))
            return
        self._push(UpdateSettingsCommand({"gpu_power_cap_w": float(watts) if watts else None}))

    def _set_workload(self, **changes) -> None:
        workload = {k: v for k, v in {**self._workload, **changes}.items() if v is not None}
        if not workload.get("model"):
            workload = {k: v for k, v in workload.items() if k != "model"}
            if workload:
                workload["model"] = DEFAULT_MODEL  # a token budget or batch needs a model to apply to
        self._push(SetWorkloadCommand(workload or None))

    def load(self, project: Project) -> None:
        """Show ``project``'s values (the caller guards against pushing them back)."""
        if self.name.text() != project.name:
            self.name.setText(project.name)
        s = project.settings
        for key, box in self.settings.items():
            value = getattr(s, key) or 0.0  # a setting left unstated shows the box's "not stated" text
            if abs(box.value() - value) > 1e-9:
                box.setValue(value)
        self.coolant.setCurrentIndex(max(0, self.coolant.findData(s.coolant)))
        self.tiers.setCurrentIndex(max(0, self.tiers.findData(s.fabric_tiers)))
        self.fabric.setCurrentIndex(max(0, self.fabric.findData(s.fabric_technology)))
        self._show_planes(s.fabric_technology, s.fabric_planes)
        cap = int(round(s.gpu_power_cap_w or 0))
        if self.gpu_cap.value() != cap:
            self.gpu_cap.setValue(cap)
        self.storage.load(s)
        self._workload = dict(project.workload)
        w = self._workload
        self.model.setCurrentIndex(max(0, self.model.findData(w.get("model"))))
        tokens = float(w.get("tokens") or 0) / 1e12
        if abs(self.tokens.value() - tokens) > 1e-9:
            self.tokens.setValue(tokens)
        batch = int(w.get("global_batch") or 0)
        if self.batch.value() != batch:
            self.batch.setValue(batch)
        self.precision.setCurrentIndex(max(0, self.precision.findData(str(w.get("precision") or "bf16"))))
        self.software.setCurrentIndex(max(0, self.software.findData(str(w.get("software") or DEFAULT_PROFILE).lower())))
        for box, key in ((self.failures, FAILURE_KEY), (self.interval, INTERVAL_KEY), (self.imbalance, IMBALANCE_KEY)):
            # (a value the engine refuses below the box's least shows as unset; its finding names it)
            value = _stated(w.get(key))
            if abs(box.value() - value) > 1e-9:
                box.setValue(value)


def _stated(value) -> float:
    """A workload number as its box shows it: 0 ("not stated") for none, or for text the engine will refuse (its
    finding says so)."""
    try:
        number = float(value or 0.0)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return number if math.isfinite(number) and number > 0 else 0.0
