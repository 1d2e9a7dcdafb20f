"""The project page's storage group: the tier the design is held to and its capacity target.

Both fields push :class:`UpdateSettingsCommand`, as every other design assumption does; the command
refuses what the settings do not allow (a capacity of a million PB and more), not the fields. The tiers
offered are those of the design's systems, read from the analysis (the tier it holds the design to);
the line below says where the tier's figures come from and whether they are confirmed.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFormLayout

from designer.commands import UpdateSettingsCommand
from designer.settings import Settings

from ..app import style
from ..dashboards.storage_figures import UNCONFIRMED_COLOUR, tier_choices, tier_family, tier_text, unconfirmed_text
from .wrapped_label import WrappedLabel

if TYPE_CHECKING:
    from designer.views import StorageView


class StorageFields:
    """The tier combo, the capacity target and the tier's basis, as rows of the project form."""

    def __init__(self, form: QFormLayout, push: Callable[[object], None]):
        self._push = push
        self._family: str | None = None
        self._current = "auto"
        self.tier = QComboBox()
        self.tier.setToolTip("The storage performance tier of the DGX SuperPOD reference architectures the design "
                             "is held to: the read and write GB/s its GPUs ask of the storage. Automatic takes the "
                             "RA's middle tier for the design's systems")
        self.tier.activated.connect(
            lambda i: self._push(UpdateSettingsCommand({"storage_tier": self.tier.itemData(i)})))
        form.addRow("Storage tier", self.tier)
        self.capacity = QDoubleSpinBox()
        self.capacity.setRange(0.0, 1e7)  # the command refuses what the settings do not allow, with its reason
        self.capacity.setDecimals(2)
        self.capacity.setSingleStep(0.5)
        self.capacity.setSuffix(" PB")
        self.capacity.setSpecialValueText("none")
        self.capacity.setGroupSeparatorShown(True)
        self.capacity.setKeyboardTracking(False)  # one command when the figure is typed, not one per digit
        self.capacity.setToolTip("Usable capacity the storage must hold; none: no target, the tier's GB/s alone")
        self.capacity.valueChanged.connect(
            lambda v: self._push(UpdateSettingsCommand({"storage_capacity_pb": round(v, 6) if v else None})))
        form.addRow("Capacity target", self.capacity)
        self.basis = WrappedLabel()
        self.basis.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        form.addRow("Basis", self.basis)
        self.unconfirmed = WrappedLabel()
        self.unconfirmed.setStyleSheet(f"color: {UNCONFIRMED_COLOUR};")
        self.unconfirmed.setVisible(False)
        form.addRow(self.unconfirmed)
        self._fill_tiers()

    def load(self, settings: Settings) -> None:
        """Show the settings' tier and capacity (the caller guards against pushing them back)."""
        self._current = settings.storage_tier
        self._fill_tiers()
        pb = settings.storage_capacity_pb or 0.0
        if abs(self.capacity.value() - pb) > 1e-9:
            self.capacity.setValue(pb)

    def show_storage(self, storage: StorageView | None) -> None:
        """The analysis' storage: the tiers of the design's systems, the tier's basis, what is unconfirmed."""
        family = tier_family(storage)
        if family is not None or storage is not None:
            self._family = family
        self._fill_tiers()
        self.basis.setText(tier_text(storage))
        note = unconfirmed_text(storage)
        self.unconfirmed.setText(note[:1].upper() + note[1:] + "." if note else "")
        self.unconfirmed.setVisible(bool(note))

    def _fill_tiers(self) -> None:
        """The combo's choices for the family known last; a programmatic change pushes nothing (activated only)."""
        choices = tier_choices(self._family, self._current)
        if [(self.tier.itemData(i), self.tier.itemText(i)) for i in range(self.tier.count())] != choices:
            self.tier.clear()
            for value, text in choices:
                self.tier.addItem(text, value)
        self.tier.setCurrentIndex(max(0, self.tier.findData(self._current)))
