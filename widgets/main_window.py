"""The main window: a document (project + undo history), its floor plan, menus and totals.

The window owns one :class:`designer.commands.Document` per open file and
follows it through ``subscribe``: every change (an edit, undo, redo) reaches the
scene and the totals through ``_on_project_changed``, never by widgets editing
the project themselves. Errors go through ``show_error`` so tests can replace
the modal dialog.
"""
from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QFileDialog, QLabel, QMainWindow, QMessageBox

from catalog import Catalog
from designer import samples
from designer.analysis import analyze
from designer.commands import Change, Document
from designer.fileformat import ProjectFileError, load
from designer.model import Project

from .floor_plan import FloorPlanScene, FloorPlanView
from .palette import CatalogPalette

FILE_FILTER = "PodPlanner projects (*.podplan.json *.json)"
APP_NAME = "PodPlanner"


def _sample_title(path: Path) -> str:
    """A sample's project name for its menu entry, without building the whole project."""
    try:
        name = json.loads(path.read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError):
        name = None
    return name if isinstance(name, str) and name else path.name.removesuffix(".podplan.json")


class MainWindow(QMainWindow):
    #: A new document replaced the old one (a file was opened); later docks rebind to it.
    document_replaced = Signal(object)

    def __init__(self, catalog: Catalog, project: Project | None = None, path: str | Path | None = None):
        super().__init__()
        self.catalog = catalog
        self.path: Path | None = Path(path) if path else None
        self.last_error: str | None = None
        self.document: Document | None = None
        self.scene = FloorPlanScene(catalog, self)
        self.view = FloorPlanView(self.scene, self)
        self.setCentralWidget(self.view)
        self.palette = CatalogPalette(catalog, self)
        self.palette_dock = QDockWidget("Catalog", self)
        self.palette_dock.setObjectName("catalog_dock")
        self.palette_dock.setWidget(self.palette)
        self.palette.setMinimumWidth(300)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.palette_dock)
        self.totals_label = QLabel()
        self.statusBar().addPermanentWidget(self.totals_label)
        self.scene.refused.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.scene.status_message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self._build_menus()
        self.scene.selection_changed.connect(lambda *_: self._update_edit_actions())
        self.resize(1280, 820)
        self._set_document(Document(project if project is not None else Project(), catalog))

    # -- menus --------------------------------------------------------------
    def _action(self, menu, text: str, slot, shortcut=None) -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        act.triggered.connect(slot)
        menu.addAction(act)
        return act

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.open_action = self._action(file_menu, "&Open…", self.choose_file, QKeySequence.StandardKey.Open)
        self.samples_menu = file_menu.addMenu("Open &sample")
        for path in samples.all_samples():
            self._action(self.samples_menu, _sample_title(path), lambda _=False, p=path: self.open_path(p))
        file_menu.addSeparator()
        self.quit_action = self._action(file_menu, "&Quit", self.close, QKeySequence("Ctrl+Q"))
        self._build_edit_menu()
        view_menu = self.menuBar().addMenu("&View")
        self.zoom_in_action = self._action(view_menu, "Zoom &in", lambda: self.view.zoom_by(1.25),
                                           QKeySequence("Ctrl++"))
        self.zoom_in_action.setShortcuts([QKeySequence("Ctrl++"), QKeySequence("Ctrl+=")])
        self.zoom_out_action = self._action(view_menu, "Zoom &out", lambda: self.view.zoom_by(0.8),
                                            QKeySequence("Ctrl+-"))
        self.fit_action = self._action(view_menu, "&Fit to hall", self.view.fit_hall, QKeySequence("Ctrl+0"))
        view_menu.addSeparator()
        self.clearance_action = self._action(view_menu, "&Clearance zones (all racks)", self.scene.set_all_clearances)
        self.clearance_action.setCheckable(True)
        self.heat_map_action = self._action(view_menu, "&Heat map", self.scene.set_heat_map, QKeySequence("Ctrl+H"))
        self.heat_map_action.setCheckable(True)
        view_menu.addSeparator()
        view_menu.addAction(self.palette_dock.toggleViewAction())

    def _build_edit_menu(self) -> None:
        """Undo/redo bound to the document; every other entry is one of the floor plan's tools."""
        tools = self.scene.tools
        edit = self.menuBar().addMenu("&Edit")
        self.undo_action = self._action(edit, "Undo", self._undo, QKeySequence.StandardKey.Undo)
        self.redo_action = self._action(edit, "Redo", self._redo, QKeySequence("Ctrl+Shift+Z"))
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        edit.addSeparator()
        self.cut_action = self._action(edit, "Cu&t", lambda: self._clip(tools.cut), QKeySequence.StandardKey.Cut)
        self.copy_action = self._action(edit, "&Copy", lambda: self._clip(tools.copy), QKeySequence.StandardKey.Copy)
        self.paste_action = self._action(edit, "&Paste", lambda: tools.paste(), QKeySequence.StandardKey.Paste)
        self.duplicate_action = self._action(edit, "D&uplicate row", lambda: tools.duplicate_row(), QKeySequence("Ctrl+D"))
        self.delete_action = self._action(edit, "&Delete", lambda: tools.delete(), QKeySequence.StandardKey.Delete)
        self.delete_action.setShortcuts([QKeySequence(Qt.Key.Key_Delete), QKeySequence(Qt.Key.Key_Backspace)])
        edit.addSeparator()
        self.rotate_action = self._action(edit, "&Rotate 90°", lambda: tools.rotate(), QKeySequence("R"))
        align = edit.addMenu("&Align")
        self.align_actions = {}
        for mode, text in (("left", "&Left edges"), ("right", "&Right edges"), ("top", "&Top edges"),
                           ("bottom", "&Bottom edges"), ("hcenter", "Centres &horizontally"),
                           ("vcenter", "Centres &vertically")):
            self.align_actions[mode] = self._action(align, text, lambda _=False, m=mode: tools.align(m))
        distribute = edit.addMenu("Di&stribute")
        self.distribute_actions = {
            "x": self._action(distribute, "&Horizontally", lambda: tools.distribute("x")),
            "y": self._action(distribute, "&Vertically", lambda: tools.distribute("y")),
        }
        self.align_menu, self.distribute_menu = align, distribute
        edit.addSeparator()
        self.select_all_action = self._action(edit, "Select &all", lambda: self.scene.select_all(),
                                              QKeySequence.StandardKey.SelectAll)
        self._update_edit_actions()

    def _clip(self, fn) -> None:
        fn()
        self._update_edit_actions()

    def _undo(self) -> None:
        self.document.undo()

    def _redo(self) -> None:
        self.document.redo()

    def _update_edit_actions(self) -> None:
        doc = self.document
        can_undo, can_redo = doc is not None and doc.can_undo(), doc is not None and doc.can_redo()
        self.undo_action.setEnabled(can_undo)
        self.undo_action.setText(f"Undo {doc.undo_label()}" if can_undo else "Undo")
        self.redo_action.setEnabled(can_redo)
        self.redo_action.setText(f"Redo {doc.redo_label()}" if can_redo else "Redo")
        n = len(self.scene.selected_ids())
        for act in (self.cut_action, self.copy_action, self.duplicate_action, self.delete_action, self.rotate_action):
            act.setEnabled(n > 0)
        self.paste_action.setEnabled(self.scene.tools.can_paste())
        self.align_menu.setEnabled(n >= 2)
        self.distribute_menu.setEnabled(n >= 3)

    # -- documents ------------------------------------------------------------
    def _set_document(self, document: Document) -> None:
        self.document = document
        self.scene.set_document(document)
        document.subscribe(lambda project, change, doc=document: doc is self.document
                           and self._on_project_changed(project, change))
        self._on_project_changed(document.project, Change(project=True))
        self.view.fit_hall()
        self.document_replaced.emit(document)

    def _on_project_changed(self, project: Project, change: Change) -> None:
        # The scene follows the document itself (per-item updates); the window keeps title, totals, actions.
        self._update_edit_actions()
        self.setWindowTitle(f"{project.name} — {APP_NAME}")
        self._update_totals()

    def _update_totals(self) -> None:
        """Totals from the analysis engine; the one place to move off the GUI thread later."""
        summary = analyze(self.document.project, self.catalog).summary
        racks = summary["racks"]
        self.totals_label.setText(f"{racks} rack{'s' if racks != 1 else ''} · {summary['gpus']} GPUs · "
                                  f"{summary['it_power_max_kw']:,.1f} kW max IT")

    @property
    def project(self) -> Project:
        return self.document.project

    # -- files ----------------------------------------------------------------
    def choose_file(self) -> None:
        start = str(self.path.parent) if self.path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open project", start, FILE_FILTER)
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path) -> bool:
        """Open a project file; on failure report it and keep the current project."""
        try:
            project = load(path, self.catalog)
        except ProjectFileError as exc:
            self.last_error = str(exc)
            self.show_error(self.last_error)
            return False
        self.path = Path(path)
        self.last_error = None
        self._set_document(Document(project, self.catalog))
        return True

    def show_error(self, text: str) -> None:
        """Tell the user something failed (one line); tests monkeypatch this to avoid the modal box."""
        self.statusBar().showMessage(text, 10000)
        QMessageBox.warning(self, f"{APP_NAME} — cannot open project", text)
