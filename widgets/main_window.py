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

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QLabel, QMainWindow, QMessageBox

from catalog import Catalog
from designer import samples
from designer.analysis import analyze
from designer.commands import Change, Document
from designer.fileformat import ProjectFileError, load
from designer.model import Project

from .floor_plan import FloorPlanScene, FloorPlanView

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
        self.totals_label = QLabel()
        self.statusBar().addPermanentWidget(self.totals_label)
        self._build_menus()
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
        view_menu = self.menuBar().addMenu("&View")
        self.zoom_in_action = self._action(view_menu, "Zoom &in", lambda: self.view.zoom_by(1.25),
                                           QKeySequence("Ctrl++"))
        self.zoom_in_action.setShortcuts([QKeySequence("Ctrl++"), QKeySequence("Ctrl+=")])
        self.zoom_out_action = self._action(view_menu, "Zoom &out", lambda: self.view.zoom_by(0.8),
                                            QKeySequence("Ctrl+-"))
        self.fit_action = self._action(view_menu, "&Fit to hall", self.view.fit_hall, QKeySequence("Ctrl+0"))

    # -- documents ------------------------------------------------------------
    def _set_document(self, document: Document) -> None:
        self.document = document
        document.subscribe(self._on_project_changed)
        self._on_project_changed(document.project, Change(project=True))
        self.view.fit_hall()
        self.document_replaced.emit(document)

    def _on_project_changed(self, project: Project, change: Change) -> None:
        # A full rebuild is instant for a sample; ``change`` allows per-item updates later.
        self.scene.set_project(project)
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
