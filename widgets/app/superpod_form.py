"""The New SuperPOD dialog's form: the generator's options in field groups, read back as a target.

:class:`SuperpodForm` is the dialog's half that builds the groups (system and size, racks and compute fabric,
networks, storage, hall, build phases), keeps their fields consistent with each other (a rack-scale system has no
"DGX per rack", a fitted hall no width) and reads them as a :class:`~designer.generate.SuperpodSpec`. The
dialog supplies ``catalog`` and ``_changed``, which every field calls.
"""
from __future__ import annotations

from PySide6.QtWidgets import (QButtonGroup, QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QGridLayout,
                               QGroupBox, QHBoxLayout, QLabel, QLineEdit, QRadioButton, QSpinBox, QVBoxLayout,
                               QWidget)

from designer.formatting import count, quantity
from designer.generate import NETWORKS, SYSTEMS, GenerateError, SuperpodSpec
from designer.generate.spec import DEFAULT_RACK_KW, DEFAULT_SWITCH, FABRICS, MAX_LIMIT, ROCE_SYSTEMS, system_profile
from designer.generate.summary import NETWORK_NAMES
from designer.settings import FABRIC_NAMES

from .superpod_preview import FITTED, MAX_SUS, MUTED_STYLE, fabric_switches, system_name
from .superpod_storage import SuperpodStorage


class SuperpodForm(SuperpodStorage):
    """The form's fields, their groups and their reading; mixed into the dialog (a QDialog)."""

    # -- building ------------------------------------------------------------------------------------
    def _build_form(self) -> QWidget:
        form = QWidget()
        col = QVBoxLayout(form)
        col.setContentsMargins(0, 0, 6, 0)

        for box in (self._size_box(), self._fabric_box(), self._networks_box(), self._storage_box(),
                    self._hall_box(), self._phases_box()):
            col.addWidget(box)
        col.addStretch(1)
        self._connect_form()
        return form

    def _size_box(self) -> QGroupBox:
        """System and size: the system, the size as GPUs or scalable units, the design's name."""
        box = QGroupBox("System and size")
        lay = QFormLayout(box)
        self.system_combo = QComboBox()
        for system in SYSTEMS:
            self.system_combo.addItem(system_name(self.catalog, system), system)
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
        return box

    def _fabric_box(self) -> QGroupBox:
        """Racks and compute fabric: technology, planes, switch, rack power, DGX per rack, oversubscription, tiers."""
        box = QGroupBox("Racks and compute fabric")
        lay = QFormLayout(box)
        self.fabric_combo = QComboBox()
        for fabric in FABRICS:
            self.fabric_combo.addItem(FABRIC_NAMES[fabric], fabric)
        # why the choice is closed, in words beside it (a disabled field's tooltip is easily missed)
        self.fabric_note = QLabel()
        self.fabric_note.setStyleSheet(MUTED_STYLE)
        fabric_row = QHBoxLayout()
        fabric_row.setContentsMargins(0, 0, 0, 0)
        fabric_row.addWidget(self.fabric_combo, 1)
        fabric_row.addWidget(self.fabric_note, 0)
        lay.addRow("Fabric", fabric_row)
        self.planes_combo = QComboBox()
        lay.addRow("Planes", self.planes_combo)
        self.switch_combo = QComboBox()
        self.switch_combo.setToolTip("Leaf, spine and core switches of the compute fabric (the NDR reference "
                                     "architectures use the Quantum-2 QM9700, the XDR ones the Quantum-X800 "
                                     "Q3400, the Spectrum-X ones the Spectrum-4 SN5610); set from the system and "
                                     "fabric, and yours to change")
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
        return box

    def _networks_box(self) -> QGroupBox:
        """Networks: one check per network; the compute fabric is always on."""
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
        return box

    def _hall_box(self) -> QGroupBox:
        """Hall: fitted or fixed size, and its power and cooling capacities."""
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
        return box

    def _phases_box(self) -> QGroupBox:
        """Build phases: scalable units per phase, or off."""
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
        return box

    def _connect_form(self) -> None:
        """Every change asks for a new preview."""
        self.system_combo.currentIndexChanged.connect(self._on_system)
        self.size_group.buttonToggled.connect(self._on_size_mode)
        self.hall_combo.currentIndexChanged.connect(self._on_hall_mode)
        self.fabric_combo.currentIndexChanged.connect(self._on_fabric)
        for combo in (self.system_combo, self.fabric_combo, self.planes_combo, self.switch_combo, self.tiers_combo,
                      self.hall_combo):
            combo.currentIndexChanged.connect(self._changed)
        for spin in (self.gpus_spin, self.sus_spin, self.rack_kw_spin, self.per_rack_spin, self.over_spin,
                     self.hall_w_spin, self.hall_d_spin, self.hall_power_spin, self.hall_air_spin,
                     self.hall_liquid_spin, self.phases_spin):
            spin.valueChanged.connect(self._changed)
        for check in self.network_checks.values():
            check.toggled.connect(self._changed)
        self.name_edit.textChanged.connect(self._changed)
        self._connect_storage()
        self.size_group.buttonToggled.connect(lambda _b, on: on and self._changed())
        self._on_size_mode()
        self._on_hall_mode()

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
            fabric=self.fabric_combo.currentData(),
            planes=self.planes_combo.currentData(),
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
            **self.storage_spec(),
        )

    def _rack_scale(self, system: str) -> bool:
        try:
            return self.catalog.get(system).kind == "rack_system"
        except Exception:  # noqa: BLE001
            return False


    # -- keeping the fields consistent -------------------------------------------------------------
    def _on_system(self) -> None:
        """A system brings its RA's fabric (and with it the switch, the planes and the SU); a system with no
        Spectrum-X reference architecture is built on InfiniBand only."""
        system = self.system_combo.currentData()
        rack_scale = self._rack_scale(system)
        self.per_rack_spin.setEnabled(not rack_scale)
        self.per_rack_spin.setToolTip("A rack-scale system is its own rack" if rack_scale
                                      else "DGX systems per rack; auto fills each rack up to its power limit")
        try:
            dev = self.catalog.get(system)
        except Exception:  # noqa: BLE001 - a catalog without the system: the generator says so in the preview
            dev = None
        ethernet = dev is not None and bool(dev.ethernet_su_systems)
        roce = system in ROCE_SYSTEMS
        name = system_name(self.catalog, system)
        self.fabric_combo.model().item(self.fabric_combo.findData("spectrum-x")).setEnabled(ethernet)
        self.fabric_combo.model().item(self.fabric_combo.findData("roce")).setEnabled(roce)
        self.fabric_combo.setEnabled(ethernet or roce)
        self.fabric_note.setText("" if ethernet else "no Spectrum-X RA")
        self.fabric_note.setVisible(not ethernet)
        default = FABRIC_NAMES[(dev.default_fabric if dev else '') or 'infiniband']
        tip = (
            f"The compute fabric's technology; the {name} reference architectures build {default} by default"
            if ethernet else
            f"NVIDIA has published no Spectrum-X (Ethernet) reference architecture with a scalable unit for the "
            f"{name}: InfiniBand, or a RoCE Ethernet fabric of SN5600 on its ConnectX-7 ports" if roce else
            f"InfiniBand only: NVIDIA has published no Spectrum-X (Ethernet) reference architecture with a "
            f"scalable unit for the {name}")
        self.fabric_combo.setToolTip(tip)
        self.fabric_note.setToolTip(tip)
        self._fill_storage(system)
        self.fabric_combo.blockSignals(True)  # one change of the target: the system's
        self.fabric_combo.setCurrentIndex(max(0, self.fabric_combo.findData(
            (dev.default_fabric if dev else "") or "infiniband")))
        self.fabric_combo.blockSignals(False)
        self._on_fabric()

    def _on_fabric(self, *_args) -> None:
        """The fabric sets the switches offered, the planes offered and the scalable unit's size."""
        system = self.system_combo.currentData()
        fabric = self.fabric_combo.currentData()
        rack_scale = self._rack_scale(system)
        try:
            profile = system_profile(self.catalog, system, fabric)
        except GenerateError:
            profile = None
        auto_kw = profile.node_max_kw if rack_scale and profile else DEFAULT_RACK_KW
        self.rack_kw_spin.setSpecialValueText(f"auto ({quantity(auto_kw, 'kW')})")
        self.switch_combo.blockSignals(True)
        self.switch_combo.clear()
        for dev in fabric_switches(self.catalog, fabric):
            self.switch_combo.addItem(dev.name, dev.id)
        # the RA's switch for this system and fabric: QM9700 for NDR nodes, Q3400 for XDR, SN5610 on Spectrum-X
        default = profile.default_switch if profile is not None else DEFAULT_SWITCH
        self.switch_combo.setCurrentIndex(max(0, self.switch_combo.findData(default)))
        self.switch_combo.blockSignals(False)
        self._fill_planes(system, fabric)
        if profile is not None:  # what one scalable unit is, beside the count
            per = profile.nodes_per_su // max(1, profile.trays)
            what = "racks" if rack_scale else "DGX"
            self.sus_spin.setSuffix(f" × {per} {what} ({count(per * profile.gpus_per_node, 'GPU')} per SU)")
            tip = (f"Scalable units of the {FABRIC_NAMES.get(profile.fabric, profile.fabric)} reference "
                   f"architecture: {per} {what} of {profile.gpus_per_node} GPUs each (up to {MAX_SUS:,})")
            self.sus_spin.setToolTip(tip)
            self.sus_radio.setToolTip(tip)

    def _fill_planes(self, system: str, fabric: str) -> None:
        """One plane for InfiniBand; one or two for Spectrum-X, two (the RA's) to start with."""
        self.planes_combo.blockSignals(True)
        self.planes_combo.clear()
        self.planes_combo.addItem("1", 1)
        if fabric == "infiniband":
            self.planes_combo.setEnabled(False)
            self.planes_combo.setToolTip("An InfiniBand fabric is one plane: a Quantum switch's ports do not split, "
                                         "so a GPU's port cannot be shared by two planes")
        else:
            self.planes_combo.addItem("2 (each GPU port split over both)", 2)
            try:
                planes = self.catalog.get(system).ethernet_planes or 2
            except Exception:  # noqa: BLE001
                planes = 2
            self.planes_combo.setCurrentIndex(max(0, self.planes_combo.findData(planes)))
            self.planes_combo.setEnabled(True)
            self.planes_combo.setToolTip("Independent fabric planes: 2 splits each GPU's port in two halves, one per "
                                         "plane (the Spectrum-X RA's twin planes), so a lost plane leaves every "
                                         "job running at half bandwidth")
        self.planes_combo.blockSignals(False)

    def _on_size_mode(self, *_args) -> None:
        by_gpus = self.gpus_radio.isChecked()
        self.gpus_spin.setEnabled(by_gpus)
        self.sus_spin.setEnabled(not by_gpus)

    def _on_hall_mode(self, *_args) -> None:
        fixed = self.hall_combo.currentData() == "fixed"
        self.hall_w_spin.setEnabled(fixed)
        self.hall_d_spin.setEnabled(fixed)

