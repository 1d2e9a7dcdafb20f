"""File ▸ New SuperPOD…: the generator's options, a live preview of the key numbers, and OK opens the design.

Every change to the form asks for a preview: after a quiet time the generator
and the analysis run on the :class:`~widgets.app.engine_runner.EngineRunner`'s worker
thread (the same debounced, single-worker, stale-dropping runner the main window
uses for its engines), so a 100,000-GPU target never freezes the dialog. Each
request carries a rising number; a result older than the newest request is
dropped, so an earlier target's numbers never replace a later one's.

A target the generator refuses shows its message (and, when it is too big for
the hall, the nearest size that fits, found in the worker too) and disables OK.
OK takes the preview's design for the inputs on screen (waiting for the worker
when it is still computing) and the window opens it as a new, unsaved document.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (QButtonGroup, QCheckBox, QComboBox, QDialog, QDialogButtonBox,
                               QDoubleSpinBox, QFormLayout, QFrame, QGridLayout, QGroupBox, QHBoxLayout, QLabel,
                               QLineEdit, QPlainTextEdit, QProgressBar, QPushButton, QRadioButton, QScrollArea,
                               QSpinBox, QVBoxLayout, QWidget)

from catalog import Catalog
from designer.analysis import analyze
from designer.formatting import count, quantity
from designer.generate import NETWORKS, SYSTEMS, GenerateError, Generated, SuperpodSpec, generate
from designer.generate.build import nearest_fit
from designer.generate.spec import DEFAULT_RACK_KW, DEFAULT_SWITCH, MAX_LIMIT, system_profile
from designer.generate.summary import NETWORK_NAMES, key_lines, key_numbers

from .engine_runner import EngineRunner

DEBOUNCE_MS = 250
MAX_SUS = 100_000
#: Hall power and cooling fields: 0 shows as this and means "fitted to the design".
FITTED = "fitted to the design"
ERROR_STYLE = ("QLabel { color: #8B1A1A; background: #FDECEC; border: 1px solid #E3A5A5; border-radius: 4px;"
               " padding: 8px; }")
MUTED_STYLE = "color: #5C6673;"


# -- the worker's part: pure, no Qt ----------------------------------------------------------------------
@dataclass(frozen=True)
class Preview:
    """What the worker found for ``spec``: a design and its key numbers, or the generator's refusal."""

    spec: SuperpodSpec
    generated: Generated | None = None
    lines: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: the generator's message when it refused the target
    error: str | None = None
    #: for a target too big for its hall: (scalable units, GPUs) of the largest that fits; None if none does
    nearest: tuple[int, int] | None = None
    #: the refusal was "too big for the hall" (so ``nearest`` was looked for)
    fit: bool = False
    numbers: dict = field(default_factory=dict, compare=False)

    @property
    def ok(self) -> bool:
        return self.generated is not None


def compute_preview(spec: SuperpodSpec, catalog: Catalog) -> Preview:
    """Generate, analyse and summarise ``spec`` (runs on the worker thread); a refusal is a result, not a raise."""
    try:
        generated = generate(spec, catalog, with_phases=False)  # the window opens the final design only
    except GenerateError as exc:
        nearest = None
        if exc.fit:
            try:
                near = nearest_fit(spec, catalog)
            except GenerateError:
                near = None
            nearest = None if near is None else (near.sus, near.gpus)
        return Preview(spec, error=str(exc), nearest=nearest, fit=exc.fit)
    analysis = analyze(generated.project, catalog)
    numbers = key_numbers(generated, analysis, catalog)
    return Preview(spec, generated, tuple(key_lines(numbers)), tuple(generated.notes), numbers=numbers)


# -- words: the generator speaks in command-line flags; the dialog in its own field names ----------------
def readable(message: str, catalog: Catalog) -> str:
    """``message`` with the command line's flags put as the dialog's fields."""
    def switch(m: re.Match) -> str:
        try:
            return f"the {catalog.get(m.group(1)).name} as compute switch"
        except Exception:  # noqa: BLE001 - an unknown id stays as written
            return f"compute switch {m.group(1)}"

    text = re.sub(r"--switch (\S+)", switch, message)
    text = re.sub(r"--rack-kw (\S+)", r"rack power \1 kW", text)
    text = re.sub(r"--nodes-per-rack (\S+)", r"\1 DGX per rack", text)
    text = re.sub(r"--sus (\S+)", r"\1 scalable units", text)
    return text[:1].upper() + text[1:]


def _system_name(catalog: Catalog, system: str) -> str:
    """'NVIDIA DGX B200' for dgx-b200: the catalog's name without its kind in brackets."""
    try:
        return catalog.get(system).name.split(" (")[0]
    except Exception:  # noqa: BLE001 - a catalog without the system: its id is all there is
        return system


def _fabric_switches(catalog: Catalog) -> list:
    return [d for d in catalog if d.kind == "switch"
            and any(g.role == "fabric" and g.protocol == "infiniband" for g in d.ports)]


# -- the dialog ------------------------------------------------------------------------------------------
class NewSuperpodDialog(QDialog):
    """The generator's options on the left, the design's key numbers on the right; OK hands the design over."""

    #: OK: the generated project, to open as a new document.
    design_ready = Signal(object)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None, *, debounce_ms: int = DEBOUNCE_MS):
        super().__init__(parent)
        self.catalog = catalog
        self.setWindowTitle("New SuperPOD")
        self.setSizeGripEnabled(True)
        #: The design OK accepted (None until then).
        self.generated: Generated | None = None
        #: The newest preview shown (a design or a refusal), for the inputs it was computed for.
        self.preview: Preview | None = None
        self._revision = 0
        self._accept_when_ready = False
        self.runner = EngineRunner(catalog, analyze_fn=compute_preview, debounce_ms=debounce_ms, parent=self)
        self.runner.finished.connect(self._on_preview)
        self.runner.failed.connect(self._on_failed)
        self.runner.busy_changed.connect(self._on_busy)

        form = self._build_form()
        scroll = QScrollArea()
        scroll.setWidget(form)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(form.sizeHint().width() + 24)
        body = QHBoxLayout()
        body.addWidget(scroll, 0)
        body.addWidget(self._build_preview(), 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Open design")
        self.ok_button.setToolTip("Open the generated design in the window as a new, unsaved project")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        outer = QVBoxLayout(self)
        outer.addLayout(body, 1)
        outer.addWidget(self.buttons)
        self.resize(1180, 800)
        self._on_system()
        self._changed()

    # -- building ------------------------------------------------------------------------------------
    def _build_form(self) -> QWidget:
        form = QWidget()
        col = QVBoxLayout(form)
        col.setContentsMargins(0, 0, 6, 0)

        # System and size
        box = QGroupBox("System and size")
        lay = QFormLayout(box)
        self.system_combo = QComboBox()
        for system in SYSTEMS:
            self.system_combo.addItem(_system_name(self.catalog, system), system)
        self.system_combo.setToolTip("The system the SuperPOD is built from, with its reference architecture's "
                                     "scalable unit")
        lay.addRow("System", self.system_combo)
        self.gpus_radio = QRadioButton("GPUs")
        self.sus_radio = QRadioButton("Scalable units")
        self.size_group = QButtonGroup(self)
        self.size_group.addButton(self.gpus_radio)
        self.size_group.addButton(self.sus_radio)
        self.gpus_spin = QSpinBox()
        self.gpus_spin.setRange(1, MAX_LIMIT)
        self.gpus_spin.setValue(1024)
        self.gpus_spin.setToolTip("GPUs wanted, rounded to whole systems and scalable units "
                                  f"(up to {MAX_LIMIT:,})")
        self.sus_spin = QSpinBox()
        self.sus_spin.setRange(1, MAX_SUS)
        self.sus_spin.setValue(4)
        for spin in (self.gpus_spin, self.sus_spin):
            spin.setGroupSeparatorShown(True)
            spin.setAccelerated(True)
        # What the generator builds for the GPUs asked: it rounds to whole systems and scalable units, and
        # a DGX SuperPOD gives one DGX's leaf ports to the UFM appliances (1,024 asked, 1,016 built).
        self.gpus_built = QLabel()
        self.gpus_built.setStyleSheet(MUTED_STYLE)
        self.gpus_built.setVisible(False)
        size = QGridLayout()
        size.setContentsMargins(0, 0, 0, 0)
        size.addWidget(self.gpus_radio, 0, 0)
        size.addWidget(self.gpus_spin, 0, 1)
        size.addWidget(self.sus_radio, 2, 0)
        size.addWidget(self.sus_spin, 2, 1)
        size.addWidget(self.gpus_built, 1, 1)
        size.setColumnStretch(1, 1)
        lay.addRow("Size", size)
        self.sus_radio.setChecked(True)
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("from the system and size")
        lay.addRow("Design name", self.name_edit)
        col.addWidget(box)

        # Racks and compute fabric
        box = QGroupBox("Racks and compute fabric")
        lay = QFormLayout(box)
        self.switch_combo = QComboBox()
        for dev in _fabric_switches(self.catalog):
            self.switch_combo.addItem(dev.name, dev.id)
        self.switch_combo.setCurrentIndex(max(0, self.switch_combo.findData(DEFAULT_SWITCH)))
        self.switch_combo.setToolTip("Leaf, spine and core switches of the compute fabric "
                                     "(both reference architectures use the Quantum-2 QM9700)")
        lay.addRow("Compute switch", self.switch_combo)
        self.rack_kw_spin = QDoubleSpinBox()
        self.rack_kw_spin.setRange(0, 10_000)
        self.rack_kw_spin.setDecimals(1)
        self.rack_kw_spin.setSuffix(" kW")
        self.rack_kw_spin.setSingleStep(5)
        self.rack_kw_spin.setToolTip("Rack power limit; sets how many DGX a rack holds. auto: 40 kW for DGX "
                                     "(the B200 reference architecture's rack), a rack-scale system's own figure")
        lay.addRow("Rack power", self.rack_kw_spin)
        self.per_rack_spin = QSpinBox()
        self.per_rack_spin.setRange(0, 64)
        self.per_rack_spin.setSpecialValueText("auto (as the rack power allows)")
        self.per_rack_spin.setToolTip("DGX systems per rack; auto fills each rack up to its power limit")
        lay.addRow("DGX per rack", self.per_rack_spin)
        self.over_spin = QDoubleSpinBox()
        self.over_spin.setRange(1, 64)
        self.over_spin.setDecimals(2)
        self.over_spin.setSingleStep(0.5)
        self.over_spin.setSuffix(" : 1")
        self.over_spin.setValue(1)
        self.over_spin.setToolTip("Leaf down : up ratio; 1 : 1 is non-blocking, as in the reference architectures")
        lay.addRow("Oversubscription", self.over_spin)
        self.tiers_combo = QComboBox()
        for text, value in (("Automatic (by size)", "auto"), ("2 tiers (leaf, spine)", "2"),
                            ("3 tiers (leaf, spine, core)", "3")):
            self.tiers_combo.addItem(text, value)
        lay.addRow("Fabric tiers", self.tiers_combo)
        col.addWidget(box)

        # Networks
        box = QGroupBox("Networks")
        lay = QGridLayout(box)
        self.network_checks: dict[str, QCheckBox] = {}
        for k, net in enumerate(NETWORKS):
            check = QCheckBox(NETWORK_NAMES.get(net, net).capitalize())
            check.setChecked(True)
            self.network_checks[net] = check
            lay.addWidget(check, k // 2, k % 2)
        compute = self.network_checks["compute"]
        compute.setEnabled(False)
        compute.setToolTip("The compute fabric is part of every SuperPOD")
        col.addWidget(box)

        # Hall
        box = QGroupBox("Hall")
        lay = QFormLayout(box)
        self.hall_combo = QComboBox()
        self.hall_combo.addItem("Fitted to the design", "fit")
        self.hall_combo.addItem("Fixed size", "fixed")
        self.hall_combo.setToolTip("Fitted: the hall is drawn around the design. Fixed: the design must fit "
                                   "a hall of this width and depth")
        self.hall_w_spin, self.hall_d_spin = QDoubleSpinBox(), QDoubleSpinBox()
        for spin, value in ((self.hall_w_spin, 40.0), (self.hall_d_spin, 30.0)):
            spin.setRange(1, 10_000)
            spin.setDecimals(1)
            spin.setSuffix(" m")
            spin.setValue(value)
            spin.setGroupSeparatorShown(True)
        self.hall_w_spin.setToolTip("Hall width (m)")
        self.hall_d_spin.setToolTip("Hall depth (m)")
        dims = QHBoxLayout()
        dims.setContentsMargins(0, 0, 0, 0)
        dims.addWidget(self.hall_combo, 2)
        dims.addWidget(self.hall_w_spin, 1)
        dims.addWidget(QLabel("×"))
        dims.addWidget(self.hall_d_spin, 1)
        lay.addRow("Size", dims)
        self.hall_power_spin = self._capacity_spin("IT power the hall supplies")
        self.hall_air_spin = self._capacity_spin("Heat the hall's air system removes")
        self.hall_liquid_spin = self._capacity_spin("Heat the facility water loop takes")
        lay.addRow("Power", self.hall_power_spin)
        lay.addRow("Air cooling", self.hall_air_spin)
        lay.addRow("Liquid cooling", self.hall_liquid_spin)
        col.addWidget(box)

        # Phases
        box = QGroupBox("Build phases")
        lay = QFormLayout(box)
        self.phases_spin = QSpinBox()
        self.phases_spin.setRange(0, MAX_SUS)
        self.phases_spin.setSpecialValueText("off (build everything at once)")
        self.phases_spin.setSuffix(" scalable units per phase")
        tip = ("Scalable units per build phase. The design is laid out for phases (the UFM appliances stand in "
               "the management band), and the window opens the final design; the file of each phase is written "
               "by the command line: podplanner new superpod … --phases N -o FILE")
        self.phases_spin.setToolTip(tip)
        box.setToolTip(tip)
        lay.addRow("Phases", self.phases_spin)
        col.addWidget(box)
        col.addStretch(1)

        # Every change asks for a new preview.
        self.system_combo.currentIndexChanged.connect(self._on_system)
        self.size_group.buttonToggled.connect(self._on_size_mode)
        self.hall_combo.currentIndexChanged.connect(self._on_hall_mode)
        for combo in (self.system_combo, self.switch_combo, self.tiers_combo, self.hall_combo):
            combo.currentIndexChanged.connect(self._changed)
        for spin in (self.gpus_spin, self.sus_spin, self.rack_kw_spin, self.per_rack_spin, self.over_spin,
                     self.hall_w_spin, self.hall_d_spin, self.hall_power_spin, self.hall_air_spin,
                     self.hall_liquid_spin, self.phases_spin):
            spin.valueChanged.connect(self._changed)
        for check in self.network_checks.values():
            check.toggled.connect(self._changed)
        self.name_edit.textChanged.connect(self._changed)
        self.size_group.buttonToggled.connect(lambda _b, on: on and self._changed())
        self._on_size_mode()
        self._on_hall_mode()
        return form

    def _capacity_spin(self, tip: str) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setRange(0, 100_000_000)
        spin.setDecimals(0)
        spin.setSingleStep(100)
        spin.setSuffix(" kW")
        spin.setGroupSeparatorShown(True)
        spin.setSpecialValueText(FITTED)
        spin.setToolTip(f"{tip}; {FITTED}: 15 % above what the design needs")
        return spin

    def _build_preview(self) -> QWidget:
        box = QGroupBox("Preview")
        lay = QVBoxLayout(box)
        head = QHBoxLayout()
        self.title_label = QLabel()
        self.title_label.setWordWrap(True)
        font = self.title_label.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.title_label.setFont(font)
        self.title_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        head.addWidget(self.title_label, 1)
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)
        self.busy_bar.setMaximumWidth(90)
        self.busy_bar.setMaximumHeight(12)
        self.busy_bar.setVisible(False)
        head.addWidget(self.busy_bar, 0, Qt.AlignmentFlag.AlignVCenter)
        self.status_label = QLabel()
        self.status_label.setStyleSheet(MUTED_STYLE)
        head.addWidget(self.status_label, 0, Qt.AlignmentFlag.AlignVCenter)
        lay.addLayout(head)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(ERROR_STYLE)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.setVisible(False)
        lay.addWidget(self.error_label)
        self.nearest_button = QPushButton()
        self.nearest_button.setVisible(False)
        self.nearest_button.clicked.connect(self._use_nearest)
        lay.addWidget(self.nearest_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.preview_view = QPlainTextEdit()
        self.preview_view.setReadOnly(True)
        self.preview_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.preview_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.preview_view.setFrameShape(QFrame.Shape.NoFrame)
        lay.addWidget(self.preview_view, 1)
        return box

    # -- reading the form ----------------------------------------------------------------------------
    def spec(self) -> SuperpodSpec:
        """The form as the generator's target."""
        system = self.system_combo.currentData()
        by_gpus = self.gpus_radio.isChecked()
        rack_scale = self._rack_scale(system)
        fixed = self.hall_combo.currentData() == "fixed"

        def opt(spin):
            return None if spin.value() == spin.minimum() else spin.value()

        return SuperpodSpec(
            system=system,
            gpus=self.gpus_spin.value() if by_gpus else None,
            sus=None if by_gpus else self.sus_spin.value(),
            switch=self.switch_combo.currentData(),
            rack_kw=opt(self.rack_kw_spin),
            nodes_per_rack=None if rack_scale else opt(self.per_rack_spin),
            oversubscription=self.over_spin.value(),
            tiers=self.tiers_combo.currentData(),
            networks=tuple(n for n, c in self.network_checks.items() if c.isChecked()),
            hall=(self.hall_w_spin.value(), self.hall_d_spin.value()) if fixed else None,
            hall_power_kw=opt(self.hall_power_spin),
            hall_cooling_kw=opt(self.hall_air_spin),
            hall_liquid_kw=opt(self.hall_liquid_spin),
            phase_sus=opt(self.phases_spin),
            name=self.name_edit.text().strip(),
        )

    def _rack_scale(self, system: str) -> bool:
        try:
            return self.catalog.get(system).kind == "rack_system"
        except Exception:  # noqa: BLE001
            return False

    def preview_text(self) -> str:
        """Everything the preview shows, as plain text (title, status, message, numbers)."""
        parts = [self.title_label.text(), self.status_label.text()]
        if self.error_label.isVisibleTo(self):
            parts.append(self.error_label.text())
        parts.append(self.preview_view.toPlainText())
        return "\n".join(p for p in parts if p)

    # -- reacting ------------------------------------------------------------------------------------
    def _on_system(self) -> None:
        system = self.system_combo.currentData()
        rack_scale = self._rack_scale(system)
        self.per_rack_spin.setEnabled(not rack_scale)
        self.per_rack_spin.setToolTip("A rack-scale system is its own rack" if rack_scale
                                      else "DGX systems per rack; auto fills each rack up to its power limit")
        try:
            profile = system_profile(self.catalog, system)
        except GenerateError:
            profile = None
        auto_kw = profile.node_max_kw if rack_scale and profile else DEFAULT_RACK_KW
        self.rack_kw_spin.setSpecialValueText(f"auto ({quantity(auto_kw, 'kW')})")
        if profile is not None:  # what one scalable unit is, beside the count
            per = SYSTEMS[system]
            what = "racks" if rack_scale else "DGX"
            self.sus_spin.setSuffix(f" × {per} {what} ({count(per * profile.gpus_per_node, 'GPU')} per SU)")
            tip = (f"Scalable units of the reference architecture: {per} {what} of {profile.gpus_per_node} GPUs "
                   f"each (up to {MAX_SUS:,})")
            self.sus_spin.setToolTip(tip)
            self.sus_radio.setToolTip(tip)

    def _on_size_mode(self, *_args) -> None:
        by_gpus = self.gpus_radio.isChecked()
        self.gpus_spin.setEnabled(by_gpus)
        self.sus_spin.setEnabled(not by_gpus)

    def _on_hall_mode(self, *_args) -> None:
        fixed = self.hall_combo.currentData() == "fixed"
        self.hall_w_spin.setEnabled(fixed)
        self.hall_d_spin.setEnabled(fixed)

    def _changed(self, *_args) -> None:
        """The form changed: ask for a preview of it (debounced; older previews will be dropped)."""
        self._accept_when_ready = False
        self._revision += 1
        self.nearest_button.setVisible(False)  # its answer was for the inputs before this change
        self.runner.request(self._revision, self.spec())
        self._set_ok()

    def _on_busy(self, busy: bool) -> None:
        self.busy_bar.setVisible(busy)
        self.status_label.setText("computing…" if busy else "")
        self.preview_view.setEnabled(not busy)  # greyed: the numbers shown are for earlier inputs

    def _on_preview(self, revision: int, preview: Preview) -> None:
        if revision != self._revision:
            return
        self.preview = preview
        self._show(preview)
        if self._accept_when_ready:
            self._accept_when_ready = False
            if preview.ok and preview.spec == self.spec():
                self._finish(preview)
                return
        self._set_ok()

    def _on_failed(self, revision: int, message: str) -> None:
        """The generator or an engine failed in a way it should not (a bug): one line, never a traceback."""
        if revision != self._revision:
            return
        self._accept_when_ready = False
        self.preview = Preview(self.spec(), error=f"The preview failed: {message}")
        self._show(self.preview)
        self._set_ok()

    def _show_built(self, preview: Preview) -> None:
        """The size fields say what the preview builds: the field not typed in shows the built count, and a
        GPU count the generator rounds says so beside it (1,024 asked, 1,016 built)."""
        if not preview.ok:
            self.gpus_built.setText("")
            self.gpus_built.setVisible(False)
            return
        g = preview.generated
        idle = self.sus_spin if self.gpus_radio.isChecked() else self.gpus_spin
        idle.blockSignals(True)  # showing what is built is not a change of the target
        idle.setValue(g.sus if idle is self.sus_spin else g.gpus)
        idle.blockSignals(False)
        asked = preview.spec.gpus
        if asked is not None and asked != g.gpus:
            self.gpus_built.setText(f"builds {count(g.gpus, 'GPU')}, not {asked:,} (see the notes)")
            self.gpus_built.setToolTip("\n".join(g.notes) or "rounded to whole systems and scalable units")
        else:
            self.gpus_built.setText("")
            self.gpus_built.setToolTip("")
        self.gpus_built.setVisible(bool(self.gpus_built.text()))

    def _show(self, preview: Preview) -> None:
        self._show_built(preview)
        if not preview.ok:
            self.title_label.setText("This target cannot be built")
            text = readable(preview.error or "", self.catalog).rstrip(".") + "."
            if preview.fit:
                if preview.nearest is not None:
                    sus, gpus = preview.nearest
                    text += f"\nThe nearest that fits: {count(sus, 'scalable unit')} ({count(gpus, 'GPU')})."
                    self.nearest_button.setText(f"Use {count(sus, 'scalable unit')}")
                else:
                    text += "\nNot even one scalable unit fits."
            self.error_label.setText(text)
            self.error_label.setVisible(True)
            self.nearest_button.setVisible(preview.fit and preview.nearest is not None)
            self.preview_view.setPlainText("")
            return
        self.error_label.setVisible(False)
        self.nearest_button.setVisible(False)
        g = preview.generated
        self.title_label.setText(g.project.name)
        out = list(preview.lines)
        if preview.notes:
            out += ["", "Notes:"] + [f"• {n}" for n in preview.notes]
        phase = preview.spec.phase_sus
        if phase:
            phases = math.ceil(g.sus / phase)
            out += ["", (f"Phases: {count(phases, 'phase')} of up to {count(phase, 'scalable unit')}; the window "
                         "opens the final design (the command line writes one file per phase)")]
        self.preview_view.setPlainText("\n".join(out))

    def _set_ok(self) -> None:
        """OK is off while the inputs on screen are known not to build (or OK is waiting for the worker)."""
        refused = self.preview is not None and not self.preview.ok and self.preview.spec == self.spec()
        self.ok_button.setEnabled(not refused and not self._accept_when_ready)

    def _use_nearest(self) -> None:
        if self.preview is None or self.preview.nearest is None:
            return
        self.sus_spin.setValue(self.preview.nearest[0])
        self.sus_radio.setChecked(True)

    # -- OK -----------------------------------------------------------------------------------------
    def accept(self) -> None:
        spec = self.spec()
        ready = self.preview
        if ready is not None and ready.spec == spec and not self.runner.busy:
            if ready.ok:
                self._finish(ready)
            return  # a refusal: OK is disabled, and Enter does nothing either
        if self.runner.busy:  # the worker is on it: open when its result comes
            self._accept_when_ready = True
            self.status_label.setText("computing… the design opens when ready")
            self._set_ok()
            return
        preview = compute_preview(spec, self.catalog)  # nothing ready nor coming (should not happen)
        self.preview = preview
        self._show(preview)
        if preview.ok:
            self._finish(preview)
        else:
            self._set_ok()

    def _finish(self, preview: Preview) -> None:
        self.generated = preview.generated
        self.runner.shutdown(wait=False)
        super().accept()
        self.design_ready.emit(preview.generated.project)

    def done(self, result: int) -> None:
        self.runner.shutdown(wait=False)  # a run still going finishes on its own; its result is ignored
        super().done(result)


def start(window) -> NewSuperpodDialog | None:
    """File ▸ New SuperPOD…: offer to save unsaved changes (as File ▸ New does), then show the dialog;
    its design opens as a new, unsaved document."""
    if not window.files.maybe_save():
        return None
    dialog = NewSuperpodDialog(window.catalog, window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def adopt(project) -> None:
        # Unsaved work, not a clean sample: closing asks to save it, and autosave keeps a recovery copy.
        window.adopt_project(project, None, dirty=True)
        window.statusBar().showMessage(f"Generated {project.name}: not saved yet (File ▸ Save keeps it)", 10000)

    dialog.design_ready.connect(adopt)
    window.new_superpod_dialog = dialog
    dialog.open()
    return dialog
