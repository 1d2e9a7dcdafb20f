"""The New from a goal dialog's form: what to train, by when, under which caps, on which systems and fabrics.

Read back as a :class:`~designer.goal.goal.Goal` through ``make_goal``, the plan command's own check, so a bad
input gets the same one-line message naming it here as on the command line. Every field says ``changed``.
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGridLayout, QGroupBox,
                               QHBoxLayout, QSpinBox, QVBoxLayout, QWidget)

from catalog import Catalog
from designer.generate import SYSTEMS
from designer.goal.goal import CURRENT_SYSTEMS, DEFAULT_FABRICS, MAX_DAYS, MAX_POWER_MW, MIN_DAYS, make_goal
from designer.training.models import PRESETS
from designer.training.section import FAILURE_RANGE, INTERVAL_RANGE

#: The model preset the form opens on, and what it asks: Llama 3 405B on 15T tokens in 60 days (the issue's goal)
DEFAULT_MODEL, DEFAULT_TOKENS_T, DEFAULT_DAYS = "llama3-405b", 15.0, 60.0
CUSTOM = "custom"
#: Llama 3's interruptions per 1,000 GPU-days (419 in 54 days on 16,384 H100): the stated rate the box starts at
LLAMA3_FAILURE_RATE = 0.47
#: the interval the box starts at when the user states one, minutes
DEFAULT_INTERVAL_MIN = 30.0
FABRIC_LABELS = {"infiniband": ("InfiniBand", "The system's InfiniBand reference architecture"),
                 "ethernet": ("Ethernet", "The system's Spectrum-X reference architecture, else RoCE on SN5600 "
                                          "(DGX B200); a system with neither cannot be built on Ethernet")}
#: the form's column of fields is at most this wide: the options table beside it needs the room
FORM_MAX_WIDTH = 400


def short_name(name: str) -> str:
    """'DGX B300 AC' for 'NVIDIA DGX B300 (AC power supplies)': the name without the maker, and the first word of a
    bracket that tells two variants of one system apart."""
    base, _, rest = name.removeprefix("NVIDIA ").partition(" (")
    return f"{base} {rest.split()[0].rstrip(',)')}" if rest else base


def _spin(low: float, high: float, value: float, decimals: int, suffix: str, tip: str) -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setRange(low, high)
    spin.setDecimals(decimals)
    spin.setValue(value)
    spin.setSuffix(suffix)
    spin.setGroupSeparatorShown(True)
    spin.setAccelerated(True)
    spin.setToolTip(tip)
    return spin


class GoalForm(QWidget):
    """The goal's fields in four groups; :meth:`goal` reads them (a GoalError naming the first bad one)."""

    changed = Signal()

    def __init__(self, catalog: Catalog, parent: QWidget | None = None):
        super().__init__(parent)
        self.catalog = catalog
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 6, 0)
        for box in (self._what_box(), self._caps_box(), self._systems_box(), self._goodput_box()):
            col.addWidget(box)
        col.addStretch(1)
        self._on_model()

    # -- building ------------------------------------------------------------------------------------
    def _what_box(self) -> QGroupBox:
        box = QGroupBox("What to train, and by when")
        lay = QFormLayout(box)
        self.model_combo = QComboBox()
        for name in PRESETS:
            self.model_combo.addItem(name, name)
        self.model_combo.addItem("a parameter count…", CUSTOM)
        self.model_combo.setCurrentIndex(self.model_combo.findData(DEFAULT_MODEL))
        self.model_combo.currentIndexChanged.connect(self._on_model)
        lay.addRow("Model", self.model_combo)
        self.params_spin = _spin(0.001, 100_000.0, 70.0, 3, " B parameters",
                                 "A Llama-style shape of this many parameters (depth and width as Llama's)")
        lay.addRow("Parameters", self.params_spin)
        self.seq_spin = QSpinBox()
        self.seq_spin.setRange(0, 1_048_576)
        self.seq_spin.setSingleStep(1024)
        self.seq_spin.setGroupSeparatorShown(True)
        self.seq_spin.setSpecialValueText("the model's")
        self.seq_spin.setSuffix(" tokens")
        self.seq_spin.setToolTip("Sequence length; at 0 the model's own")
        lay.addRow("Sequence", self.seq_spin)
        self.tokens_spin = _spin(0.000001, 10_000.0, DEFAULT_TOKENS_T, 3, " T tokens", "Tokens to train, trillions")
        lay.addRow("Tokens", self.tokens_spin)
        self.days_spin = _spin(MIN_DAYS, MAX_DAYS, DEFAULT_DAYS, 1, " days",
                               "Deadline: days to train, failures, restarts and checkpoints included")
        lay.addRow("Deadline", self.days_spin)
        self.precision_combo = QComboBox()
        for p, text in (("bf16", "BF16"), ("fp8", "FP8"), ("fp4", "NVFP4 (published recipe)")):
            self.precision_combo.addItem(text, p)
        lay.addRow("Precision", self.precision_combo)
        for w in (self.params_spin, self.seq_spin, self.tokens_spin, self.days_spin):
            w.valueChanged.connect(self.changed)
        self.precision_combo.currentIndexChanged.connect(self.changed)
        return box

    def _caps_box(self) -> QGroupBox:
        box = QGroupBox("Caps")
        lay = QGridLayout(box)
        self.power_check = QCheckBox("Power")
        self.power_spin = _spin(0.01, MAX_POWER_MW, 40.0, 2, " MW", "The most power the design may draw")
        self.power_basis = QComboBox()
        self.power_basis.addItem("facility (IT × PUE)", "facility")
        self.power_basis.addItem("IT", "it")
        self.power_basis.setToolTip("What the cap holds: facility power (IT at full load times the PUE) or IT power")
        self.currency = self._currency()
        self.budget_check = QCheckBox("Budget")
        self.budget_spin = _spin(0.01, 1e7, 500.0, 2, f" M {self.currency}", "The most the bill may total")
        lay.addWidget(self.power_check, 0, 0)
        lay.addWidget(self.power_spin, 0, 1)
        lay.addWidget(self.power_basis, 0, 2)
        lay.addWidget(self.budget_check, 1, 0)
        lay.addWidget(self.budget_spin, 1, 1)
        lay.setColumnStretch(1, 1)
        for check, fields in ((self.power_check, (self.power_spin, self.power_basis)),
                              (self.budget_check, (self.budget_spin,))):
            check.toggled.connect(lambda on, fs=fields: [f.setEnabled(on) for f in fs])
            check.toggled.connect(self.changed)
            for f in fields:
                f.setEnabled(False)
        self.power_spin.valueChanged.connect(self.changed)
        self.power_basis.currentIndexChanged.connect(self.changed)
        self.budget_spin.valueChanged.connect(self.changed)
        return box

    def _systems_box(self) -> QGroupBox:
        box = QGroupBox("Systems and fabrics to size")
        lay = QVBoxLayout(box)
        grid = QGridLayout()
        self.system_checks: dict[str, QCheckBox] = {}
        for i, system in enumerate(SYSTEMS):
            check = QCheckBox(short_name(self.catalog.get(system).name if system in self.catalog else system))
            check.setChecked(system in CURRENT_SYSTEMS)
            check.setToolTip(self.catalog.get(system).name if system in self.catalog else system)
            check.toggled.connect(self.changed)
            self.system_checks[system] = check
            grid.addWidget(check, i // 2, i % 2)
        lay.addLayout(grid)
        fabrics = QHBoxLayout()
        self.fabric_checks: dict[str, QCheckBox] = {}
        for tech, (label, tip) in FABRIC_LABELS.items():
            check = QCheckBox(label)
            check.setToolTip(tip)
            check.setChecked(tech in DEFAULT_FABRICS)
            check.toggled.connect(self.changed)
            self.fabric_checks[tech] = check
            fabrics.addWidget(check)
        fabrics.addStretch(1)
        lay.addLayout(fabrics)
        return box

    def _goodput_box(self) -> QGroupBox:
        box = QGroupBox("Failures and checkpoints")
        lay = QGridLayout(box)
        self.failure_check = QCheckBox("Failure rate")
        self.failure_check.setToolTip("Unticked: each design's own rate from its GPUs, hosts, links and switches "
                                      "(Llama 3 Table 5; Alibaba HPN)")
        self.failure_spin = _spin(FAILURE_RANGE[0], FAILURE_RANGE[1], LLAMA3_FAILURE_RATE, 4, " per 1,000 GPU-days",
                                  "Interruptions of the whole job per 1,000 GPU-days; Llama 3 saw 0.47 (419 in 54 "
                                  "days on 16,384 H100, arXiv 2407.21783 Table 5)")
        self.interval_check = QCheckBox("Checkpoint every")
        self.interval_check.setToolTip("Unticked: Daly's optimal interval for each design's failure rate "
                                       "(Daly 2006)")
        self.interval_spin = _spin(INTERVAL_RANGE[0], INTERVAL_RANGE[1], DEFAULT_INTERVAL_MIN, 0, " min",
                                   "Minutes between checkpoints")
        lay.addWidget(self.failure_check, 0, 0)
        lay.addWidget(self.failure_spin, 0, 1)
        lay.addWidget(self.interval_check, 1, 0)
        lay.addWidget(self.interval_spin, 1, 1)
        lay.setColumnStretch(1, 1)
        for check, spin in ((self.failure_check, self.failure_spin), (self.interval_check, self.interval_spin)):
            spin.setEnabled(False)
            check.toggled.connect(spin.setEnabled)
            check.toggled.connect(self.changed)
            spin.valueChanged.connect(self.changed)
        return box

    def _currency(self) -> str:
        for system in CURRENT_SYSTEMS:
            if system in self.catalog and self.catalog.get(system).price is not None:
                return self.catalog.get(system).price.currency
        return "USD"

    def _on_model(self) -> None:
        self.params_spin.setEnabled(self.model_combo.currentData() == CUSTOM)
        self.changed.emit()

    # -- reading ------------------------------------------------------------------------------------
    def workload(self) -> dict:
        model = self.model_combo.currentData()
        wl: dict = {"model": None, "params": self.params_spin.value() * 1e9} if model == CUSTOM else {"model": model}
        if self.seq_spin.value():
            wl["seq"] = self.seq_spin.value()
        wl["tokens"] = self.tokens_spin.value() * 1e12
        wl["precision"] = self.precision_combo.currentData()
        return wl

    def goal(self):
        """The goal on screen, checked (a GoalError naming the first input at fault)."""
        return make_goal(
            self.catalog, workload=self.workload(), days=self.days_spin.value(),
            systems=[s for s, c in self.system_checks.items() if c.isChecked()] or "",
            fabrics=[f for f, c in self.fabric_checks.items() if c.isChecked()] or "",
            power_mw=self.power_spin.value() if self.power_check.isChecked() else None,
            power_basis=self.power_basis.currentData(),
            budget=self.budget_spin.value() * 1e6 if self.budget_check.isChecked() else None,
            failure_rate=self.failure_spin.value() if self.failure_check.isChecked() else None,
            checkpoint_interval_min=self.interval_spin.value() if self.interval_check.isChecked() else None)
