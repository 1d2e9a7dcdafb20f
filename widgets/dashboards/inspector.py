"""Edit the selected rack, hall or project; every edit is one command, typing merges into one undo step.

Fields push a command on every user edit (``textEdited``, spin box
``valueChanged`` while the user types); the commands' ``merge_key`` folds a
run of keystrokes in one field into one undo step. When the project changes
(an edit elsewhere, undo, a newly opened file) the fields are refreshed under
the ``_loading`` guard, so a refresh never pushes a command back.

Figures the engines compute (the power limit a rack is held to, its draw and
utilisation, its feeds and cooling, a CDU loop's load, a hall's UPS and rows) are
read from the latest :class:`~designer.analysis.Analysis`, given with
:meth:`InspectorPanel.set_analysis`, never worked out here (the facility figures
are worded by :mod:`.facility_view`). An analysis describes the project it was
made from; once the project has changed, or for a rack it does not know, the panel
says the figure is being computed. Pages scroll, and their figure groups fold, so
a short dock still reaches every field.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFormLayout, QLabel, QLineEdit, QListWidget,
                               QListWidgetItem, QPushButton, QScrollArea, QStackedWidget, QVBoxLayout,
                               QWidget)

from catalog import Catalog, DeviceType
from designer.commands import Document, PlaceRackCommand, UpdateHallCommand, UpdateRackCommand
from designer.formatting import count, kw, number, percent, quantity
from designer.model import Project, Rack
from designer.names import Namer

from ..app import style
from ..app.doc_binding import bind, push
from ..app.wheel_guard import guard_wheel
from ..facility.facility_form import FacilityForm
from ..facility.facility_sections import FiguresSection, HallFacilityView
from ..facility.facility_view import hall_air_lines, loop_lines, loop_of, rack_lines
from ..facility.project_form import ProjectForm, form_heading
from .figures import fabric_text

if TYPE_CHECKING:  # the views are read, never built, here; they load with the first analysis
    from designer.views import RackView

UNCONFIRMED = "(unconfirmed)"
PENDING = "computing…"
#: Refusals and a load over its limit.
OVER_LIMIT_TEXT = "#B3261E"
#: Why the power engine chose a rack's limit (its ``limit_source``, when it says), as the inspector words it.
LIMIT_SOURCES = {"project": "project setting", "rack_system": "rack-scale system", "rack_scale": "rack-scale system",
                 "feed": "what one feed carries continuously, held to the rack's draw on one feed"}
#: Racks a floor unit's "serves" line names before the count of the rest (its tooltip names them all).
SERVES_SHOWN = 16


def power_text(dev: DeviceType) -> str:
    """'14.3 kW max · typical 12.0 kW (unconfirmed)': the device's power with its uncertain figures marked."""
    def mark(name: str) -> str:
        fig = dev.figure(name)
        return f" {UNCONFIRMED}" if fig is not None and fig.unconfirmed else ""

    parts = []
    if dev.power_max_w:
        parts.append(f"{kw(dev.power_max_w / 1000)} max{mark('power_max_w')}")
    if dev.power_typical_w:
        parts.append(f"typical {kw(dev.power_typical_w / 1000)}{mark('power_typical_w')}")
    if not parts and dev.kind in ("pdu", "power_shelf"):
        return "power distribution (no IT load of its own)"
    return " · ".join(parts) or "no power figure"


def device_caveats(dev: DeviceType | None) -> str:
    """A device's tooltip in the rack's list: why its figures are preliminary, and which are unconfirmed."""
    if dev is None:
        return ""
    parts = [f"{style.PRELIMINARY}: {dev.preliminary}"] if dev.preliminary else []
    if dev.unconfirmed_fields:
        parts.append("Unconfirmed catalog figures: " + ", ".join(dev.unconfirmed_fields))
    return "\n".join(parts)


def _spin(maximum: float, suffix: str, unset_text: str | None, decimals: int = 1) -> QDoubleSpinBox:
    """A spin box whose minimum means 'not set' when ``unset_text`` is given."""
    box = QDoubleSpinBox()
    box.setDecimals(decimals)
    box.setRange(0.0, maximum)
    box.setSuffix(suffix)
    box.setGroupSeparatorShown(True)  # 1,400.0 kW, as every figure beside it is written
    box.setKeyboardTracking(True)
    if unset_text:
        box.setSpecialValueText(unset_text)
    return box


class InspectorPanel(QWidget):
    """Properties of the current selection, editable through the document."""

    #: An edit was refused; the reason (also shown in the panel).
    refused = Signal(str)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None):
        super().__init__(parent)
        self.catalog = catalog
        self._document: Document | None = None
        self._analysis = None
        self._analysis_of: Project | None = None
        self._loading = False
        self.kind, self.ids = "", ()
        self.heading = QLabel()
        font = self.heading.font()
        font.setPixelSize(14)
        font.setBold(True)
        self.heading.setFont(font)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setStyleSheet(f"color: {OVER_LIMIT_TEXT};")
        self.pages = QStackedWidget()
        self.empty_page = QLabel("Nothing selected.\nSelect a rack, a floor unit or the hall on the plan.")
        self.empty_page.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        self.empty_page.setWordWrap(True)
        self.pages.addWidget(self.empty_page)
        self._build_rack_page()
        self._build_hall_page()
        self._build_project_page()
        self._build_floor_page()
        box = QVBoxLayout(self)
        box.setContentsMargins(8, 6, 8, 6)
        box.addWidget(self.heading)
        box.addWidget(self.pages, 1)
        box.addWidget(self.status)
        # The pages scroll, so nothing forces a size any more: keep the width a feed's or a busway's line needs
        # to read on two lines, and the height to show a page's first fields with its first figures.
        self.setMinimumSize(440, 320)
        guard_wheel(self.pages)
        self.show_selection("")

    # ---- pages ----------------------------------------------------------------------
    def _form(self) -> tuple[QScrollArea, QFormLayout]:
        """A page that scrolls vertically (its figure groups make it taller than a short dock) and wraps its
        text to the dock's width instead of scrolling sideways."""
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 4, 4, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(page)
        self.pages.addWidget(scroll)
        return scroll, form

    def _build_rack_page(self) -> None:
        self.rack_page, form = self._form()
        self.rack_name, self.rack_row = QLineEdit(), QLineEdit()
        self.rack_type = QComboBox()
        # Long catalog names must not widen the page past the dock (it would be cut off, not wrapped).
        self.rack_type.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.rack_type.setMinimumContentsLength(16)
        for rtype in self.catalog.of_kind("rack"):
            self.rack_type.addItem(rtype.name, rtype.id)
        self.rack_limit = _spin(10000.0, " kW", f"default ({PENDING})")
        self.rack_limit.setToolTip("The rack's own power limit; at the lowest value the default applies: "
                                   "the hall's, else the project's (rack-scale systems have their own)")
        self.rack_load = QLabel()
        self.rack_load.setWordWrap(True)
        self.rack_position = QLabel()
        self.rack_position.setWordWrap(True)  # a long hall name must not widen the dock
        self.rack_position.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        self.rack_place: dict[str, QDoubleSpinBox] = {}
        for key, suffix, lo, hi in (("x", " mm", -1e7, 1e7), ("y", " mm", -1e7, 1e7), ("rotation", "°", 0, 359)):
            box = _spin(hi, suffix, None, decimals=0)
            box.setMinimum(lo)
            box.setSingleStep(90 if key == "rotation" else 600)
            box.valueChanged.connect(lambda v, k=key: self._place_rack({k: v}))
            box.editingFinished.connect(self._show_rack_place)
            self.rack_place[key] = box
        self.rack_devices = QListWidget()
        self.rack_devices.setAlternatingRowColors(True)
        self.rack_devices.setWordWrap(True)
        self.rack_devices.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        form.addRow("Name", self.rack_name)
        form.addRow("Row", self.rack_row)
        form.addRow("Type", self.rack_type)
        form.addRow("Power limit", self.rack_limit)
        form.addRow("Load", self.rack_load)
        self.rack_facility = FiguresSection("Power and cooling")
        self.rack_cdu = FiguresSection("CDU in this rack")
        form.addRow(self.rack_facility)
        form.addRow(self.rack_cdu)
        form.addRow(form_heading("Placement"))
        form.addRow("x", self.rack_place["x"])
        form.addRow("y", self.rack_place["y"])
        form.addRow("Rotation", self.rack_place["rotation"])
        form.addRow("", self.rack_position)
        form.addRow(form_heading("Devices"))
        form.addRow(self.rack_devices)
        self.rack_name.textEdited.connect(lambda t: self._edit_rack({"name": t}))
        self.rack_row.textEdited.connect(lambda t: self._edit_rack({"row": t}))
        self.rack_type.activated.connect(lambda i: self._edit_rack({"type": self.rack_type.itemData(i)}, True))
        self.rack_limit.valueChanged.connect(lambda v: self._edit_rack({"power_limit_kw": v or None}))

    HALL_FIELDS = [("power_capacity_kw", "Power capacity", " kW", 1e6, "not set"),
                   ("cooling_capacity_kw", "Air cooling", " kW", 1e6, "not set"),
                   ("liquid_cooling_capacity_kw", "Liquid cooling", " kW", 1e6, "not set"),
                   ("floor_rating_kg_m2", "Floor rating", " kg/m²", 1e5, "not set"),
                   ("rack_power_limit_kw", "Default rack limit", " kW", 1e4, "project default"),
                   ("tile_mm", "Floor tile", " mm", 5000.0, None)]

    def _build_hall_page(self) -> None:
        self.hall_page, form = self._form()
        self.hall_name = QLineEdit()
        form.addRow("Name", self.hall_name)
        self.hall_name.textEdited.connect(lambda t: self._edit_hall({"name": t}))
        self.hall_fields: dict[str, QDoubleSpinBox] = {}
        for key, label, suffix, maximum, unset in self.HALL_FIELDS:
            box = _spin(maximum, suffix, unset, decimals=0 if key == "tile_mm" else 1)
            if key == "tile_mm":
                box.setMinimum(100.0)
            box.valueChanged.connect(lambda v, k=key, u=unset: self._edit_hall({k: (v or None) if u else v}))
            self.hall_fields[key] = box
            form.addRow(label, box)
        self.hall_info = QLabel()
        self.hall_info.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
        form.addRow(self.hall_info)
        self.project_button = QPushButton("Project settings and workload…")
        self.project_button.clicked.connect(lambda: self.show_selection("project"))
        form.addRow(self.project_button)
        self.hall_figures = HallFacilityView()
        form.addRow(self.hall_figures)
        self.facility_form = FacilityForm(self._push, self._refuse)
        form.addRow(self.facility_form)

    def _build_project_page(self) -> None:
        self.project_form = ProjectForm(self._push)
        self.project_page = QScrollArea()
        self.project_page.setWidgetResizable(True)
        self.project_page.setFrameShape(QScrollArea.Shape.NoFrame)
        self.project_page.setWidget(self.project_form)
        self.project_name = self.project_form.name
        self.pages.addWidget(self.project_page)

    def _build_floor_page(self) -> None:
        self.floor_page, form = self._form()
        self.floor_info = QLabel()
        self.floor_info.setWordWrap(True)
        form.addRow(self.floor_info)
        self.floor_cdu = FiguresSection("CDU loop")
        self.floor_air = FiguresSection("Hall air")
        form.addRow(self.floor_cdu)
        form.addRow(self.floor_air)

    # ---- public API ------------------------------------------------------------------
    def set_document(self, document: Document | None) -> None:
        self._document = document
        if document is not None:
            bind(document, self, "_on_project_changed")
        self.show_selection(self.kind, self.ids)

    def set_analysis(self, analysis) -> None:
        """The latest analysis of the document's current project (None: none yet); the pages' figures read it.

        Only the figures are refreshed: a field being typed into keeps its text and cursor."""
        self._analysis = analysis
        self._analysis_of = self._document.project if analysis is not None and self._document else None
        project = self._document.project if self._document else None
        first = self.ids[0] if self.ids else None
        if project is not None and self.kind == "project":
            self._fill_project_figures(project)
            return
        if project is None or not first:
            return
        self._loading = True
        try:
            if self.kind == "rack" and project.has_rack(first):
                self._fill_rack_figures(project, project.rack(first))
            elif self.kind == "hall" and project.has_hall(first):
                self.hall_figures.show_hall(self.analysis_of(project), first)
            elif self.kind == "floor" and project.has_floor_device(first):
                self._fill_floor_figures(project, project.floor_device(first))
        finally:
            self._loading = False

    def analysis_of(self, project: Project):
        """The analysis shown if it describes ``project``, else None (its figures would be of another design)."""
        return self._analysis if self._analysis is not None and self._analysis_of is project else None

    def rack_figures(self, project: Project, rack_id: str) -> RackView | None:
        """The engines' figures for ``rack_id`` if the analysis shown describes ``project``, else None."""
        analysis = self.analysis_of(project)
        return analysis.rack(rack_id) if analysis is not None else None

    def show_selection(self, kind: str, ids=()) -> None:
        """Show ``kind`` ("rack", "floor", "hall", "project" or "") with ids from the plan's selection."""
        self.kind, self.ids = kind, tuple(ids or ())
        self.status.setText("")
        self._load()

    # ---- edits ------------------------------------------------------------------------
    def _push(self, command, reload_on_refusal: bool = False) -> None:
        """Push unless the fields are being loaded; a refused choice (a combo) snaps back to the model.

        Text fields keep what the user typed on refusal (an empty name half-way
        through retyping it), with the reason shown below them.
        """
        if self._loading:
            return
        if push(self._document, command, self._refuse):
            self.status.setText("")
        elif reload_on_refusal:
            self._load()

    def _refuse(self, message: str) -> None:
        self.status.setText(message)
        self.refused.emit(message)

    def _edit_rack(self, changes: dict, reload_on_refusal: bool = False) -> None:
        if self.kind == "rack" and self.ids:
            self._push(UpdateRackCommand(self.ids[0], changes), reload_on_refusal)

    def _place_rack(self, changes: dict) -> None:
        if self.kind == "rack" and self.ids:
            self._push(PlaceRackCommand(self.ids[0], changes))

    def _show_rack_place(self) -> None:
        """When typing ends, the fields show where the rack stands: a refused position must not stay
        on screen as if it held (the reason stays in the status line)."""
        if self._loading or self.kind != "rack" or not self.ids or self._document is None:
            return
        project = self._document.project
        if not project.has_rack(self.ids[0]):
            return
        rack = project.rack(self.ids[0])
        self._loading = True
        try:
            for key, box in self.rack_place.items():
                _set_value(box, getattr(rack, key))
        finally:
            self._loading = False

    def _edit_hall(self, changes: dict) -> None:
        if self.kind == "hall" and self.ids:
            self._push(UpdateHallCommand(self.ids[0], changes))

    # ---- model -> fields ----------------------------------------------------------------
    def _on_project_changed(self, project: Project, change) -> None:
        self._load()

    def _load(self) -> None:
        self._loading = True
        try:
            project = self._document.project if self._document else None
            page = self._fill(project) if project is not None else None
            self.pages.setCurrentWidget(page or self.empty_page)
            if page is None:
                self.heading.setText("Inspector")
        finally:
            self._loading = False

    def _fill(self, project: Project) -> QWidget | None:
        first = self.ids[0] if self.ids else None
        if self.kind == "rack" and first and project.has_rack(first):
            self._fill_rack(project, first)
            return self.rack_page
        if self.kind == "hall" and ((first and project.has_hall(first)) or project.halls):
            hall_id = first if first and project.has_hall(first) else project.halls[0].id
            self.ids = (hall_id,)
            self._fill_hall(project, hall_id)
            return self.hall_page
        if self.kind == "floor" and first and project.has_floor_device(first):
            self._fill_floor(project, first)
            return self.floor_page
        if self.kind == "project":
            self.heading.setText(f"Project {project.name}")
            self.project_form.load(project)
            self._fill_project_figures(project)
            return self.project_page
        return None

    def _fill_project_figures(self, project: Project) -> None:
        """The compute fabric the engines sized for the design (technology, planes, switches) and its storage."""
        analysis = self.analysis_of(project)
        self.project_form.show_fabric(None if analysis is None else fabric_text(analysis.fabric))
        self.project_form.show_storage(analysis.storage if analysis is not None and analysis.has("storage")
                                       else None)

    def _fill_rack(self, project: Project, rack_id: str) -> None:
        rack = project.rack(rack_id)
        more = f" (+{len(self.ids) - 1} more selected)" if len(self.ids) > 1 else ""
        self.heading.setText(f"Rack {rack.name or rack.id}{more}")
        _set_text(self.rack_name, rack.name)
        _set_text(self.rack_row, rack.row)
        index = self.rack_type.findData(rack.type)
        if index < 0:
            self.rack_type.addItem(rack.type, rack.type)
            index = self.rack_type.count() - 1
        self.rack_type.setCurrentIndex(index)
        hall = project.hall(rack.hall) if project.has_hall(rack.hall) else None
        self._fill_rack_figures(project, rack)
        _set_value(self.rack_limit, rack.power_limit_kw or 0.0)
        for key, box in self.rack_place.items():
            _set_value(box, getattr(rack, key))
        self.rack_position.setText(f"in {hall.name if hall else rack.hall} (centre of the footprint; "
                                   "a place that overlaps or leaves the hall is refused)")
        self.rack_devices.clear()
        for d in sorted(rack.devices, key=lambda d: (d.u is None, -(d.u or 0))):
            dev = self.catalog.find(d.type)
            where = "0U" if d.u is None else f"U{d.u:g}"
            text = f"{where} {d.face} · {d.name or d.id} · {dev.name if dev else d.type}"
            if dev is not None and dev.preliminary:
                text += f" · {style.PRELIMINARY}"
            item = QListWidgetItem(f"{text}\n    {power_text(dev) if dev else 'not in the catalog'}")
            item.setToolTip(device_caveats(dev))
            if dev is not None and UNCONFIRMED in power_text(dev):
                item.setForeground(style.ROLES["network"][0].darker(140))
            self.rack_devices.addItem(item)

    def _fill_rack_figures(self, project: Project, rack: Rack) -> None:
        """The limit the power engine applied (shown when the rack has none of its own), the load on it, its
        feeds and cooling, and the loop of a CDU mounted in it."""
        analysis = self.analysis_of(project)
        known = analysis is not None and analysis.rack(rack.id) is not None
        self.rack_facility.show_lines(rack_lines(analysis, project, rack.id) if known else None)
        loop = loop_of(analysis, f"rack:{rack.id}") if known else None
        self.rack_cdu.setVisible(loop is not None)
        if loop is not None:
            self.rack_cdu.show_lines(loop_lines(loop, project))
        row = self.rack_figures(project, rack.id)
        if row is None:
            self.rack_limit.setSpecialValueText(f"default ({PENDING})")
            self.rack_load.setText(PENDING)
            self.rack_load.setStyleSheet(f"color: {style.MUTED_TEXT.name()};")
            return
        source = row.limit_source
        if source == "hall" and project.has_hall(rack.hall):
            why = f" (hall {project.hall(rack.hall).name} default)"
        elif source and source != "rack":
            why = f" ({LIMIT_SOURCES.get(source, source.replace('_', ' '))})"
        else:
            why = ""
        self.rack_limit.setSpecialValueText(f"default: {kw(row.limit_kw)}{why}")
        text = f"{kw(row.max_kw)} max · typical {kw(row.typical_kw)}"
        util = row.utilisation
        if row.limit_kw:  # a limit of 0 is none: the engine's share of it is no figure
            text += f" · {percent(util)} of {kw(row.limit_kw)}"
        self.rack_load.setText(text)
        over = bool(row.limit_kw) and util > 1.0 + 1e-9
        self.rack_load.setStyleSheet(f"color: {OVER_LIMIT_TEXT};" if over else "")

    def _fill_hall(self, project: Project, hall_id: str) -> None:
        hall = project.hall(hall_id)
        self.heading.setText(f"Hall {hall.name}")
        _set_text(self.hall_name, hall.name)
        for key, box in self.hall_fields.items():
            _set_value(box, getattr(hall, key) or 0.0)
        x0, y0, x1, y1 = hall.bounds
        racks = len(project.racks_in(hall_id))
        self.hall_info.setText(f"{number((x1 - x0) / 1000, 1)} × {quantity((y1 - y0) / 1000, 'm')} · "
                               f"{quantity(hall.area_m2, 'm²')} · {count(racks, 'rack')}")
        self.hall_figures.show_hall(self.analysis_of(project), hall_id)
        self.facility_form.load(hall)

    def _fill_floor(self, project: Project, device_id: str) -> None:
        unit = project.floor_device(device_id)
        dev = self.catalog.find(unit.type)
        self.heading.setText(f"Floor unit {unit.name or unit.id}")
        namer = Namer(project, self.catalog)
        served = [namer.rack(r) for r in unit.serves]
        shown = served if len(served) <= SERVES_SHOWN + 1 else served[:SERVES_SHOWN]
        serves = ", ".join(shown) if served else "unassigned"
        if len(served) > len(shown):
            serves += f" +{len(served) - len(shown):,} more"
        self.floor_info.setText(f"{dev.name if dev else unit.type}\n{power_text(dev) if dev else ''}\n"
                                f"x {quantity(unit.x, 'mm')} · y {quantity(unit.y, 'mm')} · {unit.rotation:g}°\n"
                                f"serves: {serves}")
        self.floor_info.setToolTip(f"<p>{escape(namer.listing([f'rack:{r}' for r in unit.serves]))}</p>"
                                   if len(served) > len(shown) else "")
        self._fill_floor_figures(project, unit)

    def _fill_floor_figures(self, project: Project, unit) -> None:
        """A CDU's loop, or for an air handler the hall's air, from the analysis; neither for other units."""
        kind = getattr(self.catalog.find(unit.type), "kind", "")
        analysis = self.analysis_of(project)
        self.floor_cdu.setVisible(kind == "cdu")
        self.floor_air.setVisible(kind == "crah")
        if kind == "cdu":
            loop = loop_of(analysis, f"floor:{unit.id}") if analysis is not None else None
            self.floor_cdu.show_lines(loop_lines(loop, project) if loop is not None else None)
        elif kind == "crah":
            self.floor_air.show_lines(hall_air_lines(analysis, unit.hall) if analysis is not None else None)


def _set_text(edit: QLineEdit, text: str) -> None:
    """Refresh a field without moving the cursor when it already shows the model's value."""
    if edit.text() != text:
        edit.setText(text)


def _set_value(box: QDoubleSpinBox, value: float) -> None:
    if abs(box.value() - value) > 1e-9:
        box.setValue(value)


