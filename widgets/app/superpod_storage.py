"""The New SuperPOD form's storage group: the tier, a capacity target and the appliance the storage is built of.

Mixed into :class:`~widgets.app.superpod_form.SuperpodForm`. The tiers offered are the chosen system's
family's (good, better, best for an 8-GPU DGX; standard, enhanced for NVL72 racks); the appliances those the
catalog holds, the ones whose storage ports the system's storage fabric does not speak greyed out. What the
generator refuses still reaches the preview as its message, in the dialog's words (:func:`readable`).
"""
from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QLabel

from designer.generate.storage import DEFAULT_APPLIANCE, storage_protocol
from designer.storage.tiers import DEFAULT_TIER, DGX_TIERS, NVL72_TIERS, TIER_NAMES, family_of, tier_for

from ..dashboards.storage_figures import UNCONFIRMED_COLOUR
from .superpod_preview import MUTED_STYLE, system_name


def appliance_name(catalog, appliance: str) -> str:
    """'WEKApod Nitro' for wekapod-nitro: the catalog's name without its bracketed detail."""
    return system_name(catalog, appliance)


class SuperpodStorage:
    """The storage group's fields; the dialog supplies ``catalog``, ``_changed`` and ``_rack_scale``."""

    def _storage_box(self) -> QGroupBox:
        box = QGroupBox("Storage")
        lay = QFormLayout(box)
        self.storage_tier_combo = QComboBox()
        lay.addRow("Tier", self.storage_tier_combo)
        self.storage_pb_spin = QDoubleSpinBox()
        self.storage_pb_spin.setRange(0, 1e7)  # the generator refuses above its limit, with its reason
        self.storage_pb_spin.setDecimals(2)
        self.storage_pb_spin.setSingleStep(0.5)
        self.storage_pb_spin.setSuffix(" PB")
        self.storage_pb_spin.setGroupSeparatorShown(True)
        self.storage_pb_spin.setSpecialValueText("none (as the tier's GB/s take)")
        self.storage_pb_spin.setToolTip("Usable capacity the storage appliances must hold; more appliances are "
                                        "placed when the tier's read and write GB/s take fewer")
        lay.addRow("Capacity", self.storage_pb_spin)
        self.storage_appliance_combo = QComboBox()
        self.storage_appliance_combo.setToolTip("The storage appliance the storage is built of; as many are "
                                                "placed as the tier and the capacity take")
        lay.addRow("Appliance", self.storage_appliance_combo)
        # where the tier's figures come from, and a note when they are borrowed from another system's RA
        self.storage_note = QLabel()
        self.storage_note.setWordWrap(True)
        self.storage_note.setStyleSheet(MUTED_STYLE)
        lay.addRow(self.storage_note)
        self.storage_group = box
        return box

    def _connect_storage(self) -> None:
        for combo in (self.storage_tier_combo, self.storage_appliance_combo):
            combo.currentIndexChanged.connect(self._changed)
        self.storage_pb_spin.valueChanged.connect(self._changed)
        self.network_checks["storage"].toggled.connect(self._on_storage_network)

    def _fill_storage(self, system: str) -> None:
        """The system's family's tiers and the appliances its storage fabric takes; a choice that still applies
        is kept."""
        rack_scale = self._rack_scale(system)
        family = family_of(rack_scale)
        own = NVL72_TIERS if family == "nvl72" else DGX_TIERS
        kept = self.storage_tier_combo.currentData()
        self.storage_tier_combo.blockSignals(True)
        self.storage_tier_combo.clear()
        self.storage_tier_combo.addItem(f"Automatic (the RA's: {TIER_NAMES[DEFAULT_TIER[family]]})", None)
        for tier in own:
            self.storage_tier_combo.addItem(TIER_NAMES[tier], tier)
        self.storage_tier_combo.setCurrentIndex(max(0, self.storage_tier_combo.findData(kept)))
        self.storage_tier_combo.blockSignals(False)
        try:
            tier = tier_for(None, system, rack_scale)
            protocol = storage_protocol(self.catalog, system)
        except Exception:  # noqa: BLE001 - a catalog without the system: the preview says so
            tier, protocol = None, "infiniband"
        self.storage_tier_combo.setToolTip(
            "The storage performance tier of the DGX SuperPOD reference architecture: the read and write GB/s the "
            f"appliances are sized to ({'NVL72 racks' if family == 'nvl72' else '8-GPU DGX'} tiers)")
        note = "" if tier is None else "Tier figures: " + tier.note.split("; ", 1)[0]
        if tier is not None and tier.evidence == "U":  # the system's own RA states none: borrowed, unconfirmed
            note = ("Unconfirmed: " + tier.note.split("; ", 1)[-1]).replace(system, system_name(self.catalog, system))
        self.storage_note.setText(note)
        self.storage_note.setStyleSheet(f"color: {UNCONFIRMED_COLOUR};" if note.startswith("Unconfirmed")
                                        else MUTED_STYLE)
        self._fill_appliances(protocol)

    def _fill_appliances(self, protocol: str) -> None:
        kept = self.storage_appliance_combo.currentData()
        combo = self.storage_appliance_combo
        combo.blockSignals(True)
        combo.clear()
        default = DEFAULT_APPLIANCE.get(protocol)
        combo.addItem(f"Automatic ({appliance_name(self.catalog, default)})" if default else "Automatic", None)
        for dev in sorted((d for d in self.catalog if d.is_storage), key=lambda d: d.name.lower()):
            combo.addItem(appliance_name(self.catalog, dev.id), dev.id)
            item = combo.model().item(combo.count() - 1)
            item.setToolTip(dev.name)  # the bracketed detail (rack units, drives) the short name leaves out
            groups = dev.ports_of("storage")
            if groups and groups[0].protocol != protocol:
                item.setEnabled(False)
                item.setToolTip(f"Its storage ports run {groups[0].protocol}; this system's storage fabric is "
                                f"{protocol}")
        index = combo.findData(kept)
        usable = index >= 0 and combo.model().item(index).isEnabled()
        combo.setCurrentIndex(index if usable else 0)
        combo.blockSignals(False)

    def _on_storage_network(self, on: bool) -> None:
        """Without a storage network the generator places no appliances: the group has nothing to set."""
        for widget in (self.storage_tier_combo, self.storage_pb_spin, self.storage_appliance_combo):
            widget.setEnabled(on)
        self.storage_group.setToolTip("" if on else "The storage network is off: no storage is placed")

    def storage_spec(self) -> dict:
        """The group as SuperpodSpec's storage fields (None: the generator's default)."""
        pb = self.storage_pb_spin.value()
        return {"storage_tier": self.storage_tier_combo.currentData(),
                "storage_pb": pb if pb > 0 else None,
                "storage_appliance": self.storage_appliance_combo.currentData()}
