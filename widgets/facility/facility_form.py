"""The hall page's "Facility" group: row distribution, UPS, generators, air and water classes, floor tiles.

Each field pushes one :class:`~designer.commands.UpdateFacilityCommand` of its
setting, which applies it to the hall's facility as it stands and refuses a value
the facility cannot take. The form tries the value first only to word a refusal
with the field's label. Typing into one field merges into one undo step; an edit
of another setting is a step of its own. A refused choice snaps back to the
model; a refused number stays as typed, with the reason shown, until the field is
left, when it shows the model's value again.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QDoubleSpinBox, QSpinBox, QWidget

from designer.commands import UpdateFacilityCommand
from designer.facility import (CONTAINMENTS, DISTRIBUTION_NAMES, DISTRIBUTIONS, INLET_CLASSES, UPS_SCHEME_NAMES,
                               NO_WATER, UPS_SCHEMES, WATER_CLASSES, FacilityError)
from designer.model import Hall

from .facility_sections import Section
from .project_form import form_heading


#: A combo's item for "not set" (a QComboBox cannot find None among its data).
UNSET = ""
CONTAINMENT_NAMES = {"none": "no containment", "hot": "hot aisle contained", "cold": "cold aisle contained"}

#: (setting, label, suffix, maximum, decimals or None for a whole number, text at the minimum or None, minimum)
NUMBERS = {
    "distribution_amps": ("Rating per feed", " A", 10000, 0, "not set: rows not checked", 0),
    "distribution_voltage_v": ("Voltage", " V", 1000, 0, None, 100),
    "distribution_runs": ("Runs per feed", "", 16, None, None, 1),
    "ups_module_kw": ("Module rating", " kW", 100000, 1, "not set", 0),
    "ups_modules": ("Modules per system", "", 1000, None, None, 1),
    "ups_redundant_modules": ("Spare modules", "", 999, None, None, 0),
    "ups_blocks": ("Blocks (DR)", "", 16, None, None, 3),
    "generators": ("Generators", "", 1000, None, "none", 0),
    "generator_kw": ("Generator rating", " kW", 100000, 1, "not set", 0),
    "generator_redundant": ("Spare generators", "", 999, None, None, 0),
    "generator_blocks": ("Generator blocks", "", 100, None, None, 1),
    "distribution_margin": ("Row margin, feed lost", " %", 100, 0, None, 50),
    "ups_margin": ("UPS margin", " %", 100, 0, None, 50),
    "generator_margin": ("Generator margin", " %", 100, 0, None, 50),
    "altitude_m": ("Site altitude", " m", 5000, 0, None, -500),
    "ambient_c": ("Design ambient", " °C", 60, 0, "not stated", -60),
    "tile_point_kg": ("Tile point rating", " kg", 100000, 0, "not set", 0),
    "tile_rolling_kg": ("Tile rolling rating", " kg", 100000, 0, "not set", 0),
    "aisle_mm": ("Aisle", " mm", 20000, 0, None, 0),
}
#: Settings where the lowest value of the box means "not set" (None in the facility).
OPTIONAL = {"distribution_amps", "ups_module_kw", "generator_kw", "tile_point_kg", "tile_rolling_kg", "ambient_c"}
#: Settings kept as a share (0.8) and shown as a percentage (80 %).
PERCENT = {"distribution_margin", "ups_margin", "generator_margin"}
#: (setting, label, [(value, text)]) of the choices, UNSET standing for None.
CHOICES = {
    "distribution": ("Distribution", [(d, DISTRIBUTION_NAMES[d]) for d in DISTRIBUTIONS]),
    "ups_scheme": ("UPS scheme", [(UNSET, "not set: not checked")] + [(s, UPS_SCHEME_NAMES[s]) for s in UPS_SCHEMES]),
    "inlet_class": ("Inlet air class", [(c, f"{c} ({lo:g}–{hi:g} °C)") for c, (lo, hi) in INLET_CLASSES.items()]),
    "containment": ("Containment", [(UNSET, "not stated")] + [(c, CONTAINMENT_NAMES[c]) for c in CONTAINMENTS]),
    "water_class": ("Facility water", [(UNSET, "not set: not checked")]
                    + [(w, f"{w} (up to {t:g} °C)") for w, t in WATER_CLASSES.items()]
                    + [(NO_WATER, "none: the hall has no facility water")]),
    "cdu_on_ups": ("CDU pumps", [("on", "on the UPS"), ("off", "not on the UPS")]),
    "crah_on_ups": ("CRAH / fan-wall fans", [("on", "on the UPS"), ("off", "not on the UPS")]),
}
#: Choices that are true or false in the facility ("on" / "off" in the combo).
BOOLS = {"cdu_on_ups", "crah_on_ups"}
#: The form's groups, in order: (heading, settings).
GROUPS = [
    ("Row power distribution", ["distribution", "distribution_amps", "distribution_voltage_v", "distribution_runs"]),
    ("UPS", ["ups_scheme", "ups_module_kw", "ups_modules", "ups_redundant_modules", "ups_blocks", "cdu_on_ups",
             "crah_on_ups"]),
    ("Generators", ["generators", "generator_kw", "generator_redundant", "generator_blocks"]),
    ("Margins and site", ["distribution_margin", "ups_margin", "generator_margin", "altitude_m", "ambient_c"]),
    ("Air and water", ["inlet_class", "containment", "water_class"]),
    ("Floor", ["tile_point_kg", "tile_rolling_kg", "aisle_mm"]),
]
TOOLTIPS = {
    "distribution_amps": "Each row's A and B busway (or panel) is rated this many amps; unset, rows are not checked",
    "distribution_runs": "Parallel busways per row and feed; the row's racks are spread evenly over them",
    "ups_modules": "Modules per system (2N: per side; DR: per block)",
    "ups_redundant_modules": "Spare modules inside one system (an N+1 system of 4 has 1)",
    "ups_blocks": "Distributed redundant only: systems sharing the hall, any one of which may fail",
    "generator_redundant": "Spare units in each block: the rest of the block carries its share with these out",
    "generator_blocks": "Paralleled blocks of generators, each with its own spares (N+1 per block)",
    "distribution_margin": "The share of its rating a row's busway may carry with the other feed lost (a lost feed "
                           "lasts as long as the repair: a continuous load, 80 % by NEC)",
    "ups_margin": "The share of its capacity at the site a UPS system may carry, with its partner lost",
    "generator_margin": "The share of what the generators deliver at the site, with the spares out, the facility "
                        "load may take",
    "altitude_m": "Above 1,525 m generators, above 1,000 m the UPS deliver less than their rating",
    "ambient_c": "The site's design outdoor temperature: above 40 °C generators deliver less",
    "containment": "Every row's aisle containment, unless a row states its own; it sets the air a rack may reject",
    "cdu_on_ups": "Whether the UPS carries the CDUs' pumps (counted in its load); a cold-plate rack overheats in "
                  "seconds without them",
    "crah_on_ups": "Whether the UPS carries the CRAHs' and fan walls' fans (counted in its load)",
    "tile_rolling_kg": "What a tile takes from a caster rolling across it, checked against the racks' caster loads",
}


def _label_for(message: str) -> str:
    """'facility.ups_module_kw: a 2N UPS needs …' -> 'Module rating: a 2N UPS needs …' (names, not keys)."""
    where, sep, rest = message.partition(": ")
    key = where.removeprefix("facility.")
    label = NUMBERS.get(key, (None,))[0] or CHOICES.get(key, (None,))[0]
    return f"{label}: {rest}" if sep and label else message


class FacilityForm(Section):
    """Fields for one hall's facility; ``push(command, reload_on_refusal)`` sends each edit to the document
    and ``refuse(reason)`` shows a value the facility refused before any command was made."""

    def __init__(self, push: Callable[..., None], refuse: Callable[[str], None], parent: QWidget | None = None):
        super().__init__("Facility", parent)
        self._push, self._refuse = push, refuse
        self._hall: Hall | None = None
        self._loading = False
        self.combos: dict[str, QComboBox] = {}
        self.numbers: dict[str, QAbstractSpinBox] = {}
        for heading, keys in GROUPS:
            self.form.addRow(form_heading(heading))
            for key in keys:
                widget = self._combo(key) if key in CHOICES else self._number(key)
                widget.setToolTip(TOOLTIPS.get(key, ""))
                self.form.addRow((CHOICES.get(key) or NUMBERS[key])[0], widget)

    def _combo(self, key: str) -> QComboBox:
        combo = QComboBox()
        for value, text in CHOICES[key][1]:
            combo.addItem(text, value)
        combo.activated.connect(lambda i, k=key, c=combo: self._edit(
            k, (c.itemData(i) == "on") if k in BOOLS else (c.itemData(i) or None), snap_back=True))
        self.combos[key] = combo
        return combo

    def _number(self, key: str) -> QAbstractSpinBox:
        _, suffix, maximum, decimals, unset, minimum = NUMBERS[key]
        if decimals is None:
            box = QSpinBox()
            box.setRange(minimum, maximum)
            box.valueChanged.connect(lambda v, k=key: self._edit(k, int(v)))
        else:
            box = QDoubleSpinBox()
            box.setDecimals(decimals)
            box.setRange(minimum, maximum)
            box.valueChanged.connect(lambda v, k=key, b=box: self._edit(k, self._value_of(k, b, v)))
        box.setSuffix(suffix)
        box.setGroupSeparatorShown(True)  # 1,200.0 kW, as the figures of the analysis are written
        box.setKeyboardTracking(True)
        if unset:
            box.setSpecialValueText(unset)
        box.editingFinished.connect(self._show_model)  # a refused number must not stay on screen as if it held
        self.numbers[key] = box
        return box

    @staticmethod
    def _value_of(key: str, box: QDoubleSpinBox, shown: float) -> float | None:
        """The facility's value of what a box shows: None at an optional box's lowest value, a share of a %."""
        if key in OPTIONAL and shown <= box.minimum():
            return None
        return float(shown) / 100.0 if key in PERCENT else float(shown)

    # ---- edits ------------------------------------------------------------------------
    def _edit(self, key: str, value, snap_back: bool = False) -> None:
        if self._loading or self._hall is None:
            return
        try:
            facility = self._hall.facility.updated(**{key: value})
        except FacilityError as exc:
            self._refuse(_label_for(str(exc)))
            if snap_back:
                self._show_model()
            return
        if facility == self._hall.facility:
            return
        label = (CHOICES.get(key) or NUMBERS[key])[0]
        if not label[1:2].isupper():  # 'Rating per feed' -> 'rating per feed', 'UPS scheme' stays
            label = label[0].lower() + label[1:]
        self._push(UpdateFacilityCommand(self._hall.id, {key: value}, label=f"Edit {label}"), snap_back)

    def _show_model(self) -> None:
        if self._hall is not None and not self._loading:
            self.load(self._hall)

    # ---- model -> fields ----------------------------------------------------------------
    def load(self, hall: Hall) -> None:
        """Show ``hall``'s facility (guarded: showing it pushes nothing back)."""
        self._hall = hall
        f = hall.facility
        self._loading = True
        try:
            for key, combo in self.combos.items():
                value = getattr(f, key)
                if key in BOOLS:
                    value = "on" if value else "off"
                combo.setCurrentIndex(max(0, combo.findData(UNSET if value is None else value)))
            for key, box in self.numbers.items():
                value = getattr(f, key)
                value = box.minimum() if value is None else value * 100.0 if key in PERCENT else value
                if box.value() != value:
                    box.setValue(value)
            self.numbers["ups_blocks"].setEnabled(f.ups_scheme == "DR")  # only a DR scheme has blocks
        finally:
            self._loading = False
