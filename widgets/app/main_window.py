"""The main window: a document (project + undo history), its floor plan, docks, menus and totals.

The window owns one :class:`designer.commands.Document` per open file. Every
change (an edit, undo, redo) reaches the views through the document's
listeners, never by widgets editing the project themselves; the engines run in
:class:`~widgets.app.engine_runner.EngineRunner`'s worker on an immutable snapshot,
and their results go to :class:`~widgets.app.analysis_hub.AnalysisHub`, which every
panel subscribes to when it is made (the window lists no panels to update).
Errors go through ``show_error`` so tests can replace the modal dialog.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (QDockWidget, QFileDialog, QLabel, QMainWindow, QMessageBox, QProgressBar,
                               QTabWidget, QVBoxLayout, QWidget)

from catalog import Catalog
from designer import samples
from designer.commands import Change, Document
from designer.fileformat import ProjectFileError, load
from designer.formatting import count
from designer.model import Project
from designer.totals import TotalsCounter

from . import file_limit, menus, style
from .analysis_hub import AnalysisHub
from .disk_bar import DiskChangeBar
from .disk_state import Fingerprint, fingerprint
from ..quote.bom_panel import BomPanel
from ..cabling.cabling_panel import CablingPanel
from ..dashboards.dashboards import DashboardPanel, totals_parts
from .engine_runner import EngineRunner
from ..facility.single_line_view import SingleLineView
from ..quote.export_actions import ExportController
from .file_actions import FileController
from ..dashboards.findings_panel import FindingsPanel
from ..plan.floor_plan import FloorPlanScene
from ..plan.floor_view import FloorPlanView
from ..dashboards.inspector import InspectorPanel
from .lazy_panel import LazyPanel
from .goal_dialog import start as start_goal_dialog
from .new_superpod import start as start_new_superpod
from ..plan.palette import CatalogPalette
from ..quote.quote_form import QuoteActions
from ..elevation.rack_elevation import RackElevationPanel
from ..site.site_panel import SitePanel
from .workspaces import WorkspaceController

FILE_FILTER = "PodPlanner projects (*.podplan.json *.json)"
APP_NAME = "PodPlanner"


class MainWindow(QMainWindow):
    #: A new document replaced the old one (a file was opened); later docks rebind to it.
    document_replaced = Signal(object)

    def __init__(self, catalog: Catalog, project: Project | None = None, path: str | Path | None = None, *,
                 settings: QSettings | None = None, recovery_dir: Path | None = None, debounce_ms: int = 200,
                 disk: Fingerprint | None = None):
        """``disk``: what ``path`` held when ``project`` was read from it (by default, what it holds now)."""
        super().__init__()
        self.catalog = catalog
        self.path: Path | None = Path(path) if path else None
        self.last_error: str | None = None
        self.document: Document | None = None
        self.settings = settings or QSettings()
        #: the latest analysis of the open document, for every panel that subscribes
        self.hub = AnalysisHub(self)
        self.scene = FloorPlanScene(catalog, self)
        self.hub.subscribe(self.scene.set_analysis)
        self.view = FloorPlanView(self.scene, self, self.settings)
        # The plan and the bill share the centre as tabs: each needs the window's largest area to be read.
        self.central_tabs = QTabWidget(self)
        self.central_tabs.setDocumentMode(True)
        self.central_tabs.addTab(self.view, "Floor plan")
        # Above the plan and the bill: the open file changed on disk (hidden until it does).
        self.disk_bar = DiskChangeBar(self)
        central = QWidget(self)
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.disk_bar)
        column.addWidget(self.central_tabs, 1)
        self.setCentralWidget(central)
        self._build_docks()
        self.bom = BomPanel(self)
        self.hub.subscribe(self.bom.set_analysis)
        self.central_tabs.addTab(self.bom, "Bill of materials")
        # A design of several halls is read from its site first; a one-hall design has no site tab.
        self.site = SitePanel(catalog, self)
        self.hub.subscribe(self.site.set_analysis)
        self.central_tabs.insertTab(0, self.site, "Site")
        self.central_tabs.setTabVisible(0, False)
        self._build_status_bar()
        self.runner = EngineRunner(catalog, debounce_ms=debounce_ms, parent=self)
        #: Request numbers rise across documents, so a result for a closed document is always stale.
        self._ticket = 0
        self._totals = TotalsCounter(catalog)
        self.hub.follow(self.runner)
        self.hub.subscribe(self._show_summary)
        self.runner.failed.connect(self._on_engine_failed)
        self.runner.busy_changed.connect(self._on_busy)
        self.files = FileController(self, self.settings, recovery_dir)
        self.files.watch.state_changed.connect(lambda _state: self._show_disk_state())
        self.disk_bar.reload_requested.connect(self.files.reload)
        self.disk_bar.save_as_requested.connect(self.files.save_as)
        self.disk_bar.save_requested.connect(self.files.save)
        self.disk_bar.compare_requested.connect(lambda: self.compare_with(self.files.watch.path))
        # After the hub's slot on runner.finished, so an export waiting for the analysis reads it.
        self.exports = ExportController(self)
        self.quote_actions = QuoteActions(self)
        self._connect_panels()
        self.files.recent_changed.connect(self._fill_recent_menu)
        self.workspaces = WorkspaceController(self, self.settings)
        menus.build_menus(self)
        menus.build_toolbar(self)
        self.resize(1400, 900)
        self._restore_layout()
        self._set_document(Document(project if project is not None else Project(), catalog))
        if self.path is not None:
            self.files.track(self.path, disk or fingerprint(self.path))

    def _build_docks(self) -> None:
        catalog = self.catalog
        self.palette = CatalogPalette(catalog, self)
        self.palette.setMinimumWidth(300)
        self.palette_dock = self._dock("Catalog", "catalog_dock", self.palette, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.inspector = InspectorPanel(catalog, self)
        self.hub.subscribe(self.inspector.set_analysis)
        self.inspector_dock = self._dock("Inspector", "inspector_dock", self.inspector,
                                         Qt.DockWidgetArea.RightDockWidgetArea)
        self.elevation = RackElevationPanel(catalog, self)
        self.elevation_dock = self._dock("Rack elevation", "elevation_dock", self.elevation,
                                         Qt.DockWidgetArea.RightDockWidgetArea)
        self.dashboards_dock = self._dock("Dashboards", "dashboards_dock", None, Qt.DockWidgetArea.BottomDockWidgetArea)
        self._dashboards = LazyPanel(self.dashboards_dock, lambda: DashboardPanel(catalog, self),
                                     self._feed_dashboards)
        self._dashboards.follow(self.hub.analysisChanged)
        self.findings = FindingsPanel(self)
        self.hub.subscribe(self.findings.set_analysis)
        self.findings_dock = self._dock("Findings", "findings_dock", self.findings,
                                        Qt.DockWidgetArea.BottomDockWidgetArea)
        self.single_line_dock = self._dock("Single-line diagram", "single_line_dock", None,
                                           Qt.DockWidgetArea.RightDockWidgetArea)
        self.single_line_dock.hide()
        self._single_line = LazyPanel(self.single_line_dock, SingleLineView,
                                      lambda panel: panel.set_analysis(self.hub.current))
        self._single_line.follow(self.hub.analysisChanged)
        self.cabling_dock = self._dock("Cabling", "cabling_dock", None, Qt.DockWidgetArea.RightDockWidgetArea)
        self.cabling_dock.hide()
        # The cabling view works only while it is seen: a click on a rack costs nothing more when it is hidden,
        # and no routes stay on the plan once the view that explains them is gone.
        self._selection: tuple[str, list] = ("", [])
        self._cabling = LazyPanel(self.cabling_dock, self._make_cabling, self._feed_cabling,
                                  on_hide=lambda panel: panel.show_selection("", []))
        self._cabling.follow(self.hub.analysisChanged)

    def _build_status_bar(self) -> None:
        self.totals_label = QLabel()
        self.engine_label = QLabel()
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)  # indeterminate: engines report no progress
        self.busy_bar.setMaximumWidth(90)
        self.busy_bar.setMaximumHeight(12)
        self.busy_bar.setVisible(False)
        self.busy_bar.setToolTip("Engines are computing")
        self.autosave_label = QLabel()  # shown only while autosave cannot write: the user must know
        self.autosave_label.setVisible(False)
        for widget in (self.autosave_label, self.busy_bar, self.totals_label, self.engine_label):
            self.statusBar().addPermanentWidget(widget)

    def _connect_panels(self) -> None:
        """Refusals and notes to the status bar; the plan's selection and the findings to the panels."""
        for source in (self.scene, self.inspector, self.elevation, self.bom):
            source.refused.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.scene.status_message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.scene.selection_changed.connect(self._on_selection)
        self.scene.hall_clicked.connect(lambda hall_id: self.inspector.show_selection("hall", [hall_id]))
        self.site.hall_opened.connect(self.open_hall)
        self.findings.finding_activated.connect(self.go_to)
        self.findings.places_activated.connect(self.go_to_all)

    def _dock(self, title: str, name: str, widget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        if widget is not None:
            dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    # -- menus (built by .menus) ---------------------------------------------------
    def show_welcome(self) -> None:
        from .welcome import show_welcome

        show_welcome(self)

    def show_about(self):
        from .about import show_about  # reads every package's metadata: only when asked

        return show_about(self)

    def _update_edit_actions(self) -> None:
        menus.update_edit_actions(self)

    def _fill_recent_menu(self) -> None:
        menus.fill_recent_menu(self)

    # -- layout -------------------------------------------------------------------
    def _restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        #: nothing saved yet: the window opens maximised, on whatever screen it is
        self.first_start = geometry is None
        state = self.settings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        # The last arrangement is the current workspace's; without one, that workspace's default.
        self.workspaces.restore(state)

    def save_layout(self) -> None:
        self.workspaces.remember()
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()

    def closeEvent(self, event) -> None:
        if not self.files.maybe_save():
            event.ignore()
            return
        self.save_layout()
        self.runner.shutdown(wait=True)  # a worker must not deliver to a window that is gone
        self.exports.shutdown()  # finishes the files already asked for
        self.files.discard_recovery()  # saved already, or the user chose to discard: then it goes to the trash
        self.files.shutdown()
        for lazy in (self._dashboards, self._cabling):
            if lazy.built:
                lazy.panel.dispose()
        event.accept()

    # -- documents ------------------------------------------------------------
    def _set_document(self, document: Document, *, keep_autosaves: bool = False) -> None:
        old = self.document
        if old is not None:
            old.unsubscribe(self._on_project_changed)
        self.document = document
        self.hub.clear()  # every panel forgets the closed document's analysis
        if not keep_autosaves:
            self.files.discard_recovery()  # it belonged to the document now closed: to the trash, for a week
        self.bom.set_document(document)
        if self._cabling.built:
            self._cabling.panel.set_document(document)
        self._selection = ("", [])
        self._cabling.changed()
        self.scene.set_document(document)
        self.site.new_document()
        self.inspector.set_document(document)
        self.elevation.set_document(document)
        document.subscribe(self._on_project_changed)
        self._on_project_changed(document.project, Change(project=True))
        self._on_selection("", [])
        self.view.fit_hall()
        if len(document.project.halls) > 1:
            self.show_site()  # a site is read from its buildings first; a room opens from there
        self.document_replaced.emit(document)

    def adopt_project(self, project: Project, path: Path | None, *, dirty: bool = False,
                      keep_autosaves: bool = False, disk: Fingerprint | None = None) -> None:
        """Make ``project`` the open document (a restored autosave is ``dirty``; going back to an earlier
        autosave of the same document ``keep_autosaves``); ``disk`` is what ``path`` held when ``project``
        was read from it (None: not known, so Save asks before writing over the file). Going back to an
        earlier autosave keeps the file's watch as it was."""
        self.path = path
        document = Document(project, self.catalog)
        if dirty:
            document.mark_unsaved()
        if not keep_autosaves:
            self.files.track(path, disk)
        self._set_document(document, keep_autosaves=keep_autosaves)

    def _show_disk_state(self) -> None:
        """The bar above the plan follows the open file's state on disk."""
        watch = self.files.watch
        name = watch.path.name if watch.path is not None else ""
        self.disk_bar.show_state(watch.state, name, edited=self.document is not None and self.document.dirty)

    def _on_project_changed(self, project: Project, change: Change) -> None:
        self.files.document_changed()
        if self.disk_bar.isVisible():
            self._show_disk_state()  # its offer depends on whether there are edits to lose
        self._update_edit_actions()
        self.update_title()
        self._update_counts(project)
        self._show_site(project)
        self._ticket += 1
        self.runner.request(self._ticket, self.document.snapshot()[1])

    def _show_site(self, project: Project) -> None:
        """The site tab is there while the design has more than one hall; the findings offer its halls."""
        index = self.central_tabs.indexOf(self.site)
        several = len(project.halls) > 1
        if several != self.central_tabs.isTabVisible(index):
            self.central_tabs.setTabVisible(index, several)
        if several:
            self.site.set_project(project)
        self.findings.set_halls([(h.id, h.label) for h in project.halls] if several else [])

    def open_hall(self, hall_id: str) -> None:
        """A room picked on the site: its floor plan, the hall in the inspector, the findings of that hall."""
        self.show_plan()
        self.view.fit_room(hall_id)
        self.inspector.show_selection("hall", [hall_id])
        self.findings.set_hall(hall_id)

    def update_title(self) -> None:
        self.setWindowTitle(f"{self.document.project.name}[*] — {APP_NAME}")
        self.setWindowModified(self.document.dirty)

    def _update_counts(self, project: Project) -> None:
        """Racks and GPUs at once, from the model's quick totals; the analysis' own figures replace them
        when it arrives (and power, petaFLOPS and price come only from it)."""
        totals = self._totals(project)
        self.totals_label.setText(counts_text(totals.racks, totals.gpus))

    @property
    def analysis(self):
        """The latest analysis of the open document (the hub's), or None."""
        return self.hub.current

    def _show_summary(self, analysis) -> None:
        """The analysis' totals in the status bar, and its errors in the findings dock's title."""
        if analysis is None:
            self.engine_label.setText("")
            return
        summary = analysis.summary
        self.totals_label.setText(counts_text(summary.racks, summary.gpus))
        self.engine_label.setText("· " + " · ".join(totals_parts(analysis)[1:]))
        errors = sum(f.severity == "error" for f in analysis.findings)
        self.findings_dock.setWindowTitle(f"Findings ({count(errors, 'error')})" if errors else "Findings")

    def _on_engine_failed(self, revision: int, message: str) -> None:
        self.statusBar().showMessage(f"Analysis failed: {message}", 15000)

    def _on_busy(self, busy: bool) -> None:
        self.busy_bar.setVisible(busy)
        if self._dashboards.built:
            self._dashboards.panel.set_busy(busy)
        self.bom.set_busy(busy)

    def _on_selection(self, kind: str, ids) -> None:
        self._update_edit_actions()
        if kind:
            self.inspector.show_selection(kind, ids)
        elif self.document.project.halls:
            self.inspector.show_selection("hall", [self.document.project.halls[0].id])
        else:
            self.inspector.show_selection("project", [])
        # the elevation follows the selection: a rack's, or none (a CDU, the hall, an undone rack)
        self.elevation.show_rack(ids[0] if kind == "rack" and ids else None)
        self._selection = (kind, list(ids))
        self._cabling.changed()

    # -- panels built when first seen -------------------------------------------------
    @property
    def dashboards(self) -> DashboardPanel:
        """The charts, built on first use and showing the latest analysis."""
        return self._dashboards.get()

    @property
    def cabling(self) -> CablingPanel:
        """The cabling view, built on first use and showing the latest analysis and selection."""
        return self._cabling.get()

    def _feed_dashboards(self, panel: DashboardPanel) -> None:
        panel.set_analysis(self.hub.current)
        panel.set_busy(self.runner.busy)

    def _make_cabling(self) -> CablingPanel:
        panel = CablingPanel(self.catalog, self.scene, self)
        panel.set_document(self.document)
        panel.rack_activated.connect(lambda rack_id: self.go_to(f"rack:{rack_id}"))
        return panel

    def _feed_cabling(self, panel: CablingPanel) -> None:
        panel.set_analysis(self.hub.current)
        # a hidden view draws no routes on the plan: the selection's links wait for the dock to show
        panel.show_selection(*(self._selection if self._cabling.shown else ("", [])))
        if not self._cabling.shown:
            self._cabling.stale = True

    def show_project_settings(self) -> None:
        self.inspector_dock.show()
        self.inspector_dock.raise_()
        self.inspector.show_selection("project", [])

    def show_bom(self) -> None:
        """Quote ▸ Bill of materials: the bill's tab in the centre."""
        self.central_tabs.setCurrentWidget(self.bom)

    def show_plan(self) -> None:
        self.central_tabs.setCurrentWidget(self.view)

    def show_site(self) -> None:
        """View ▸ Site plan: the site's tab (a design of one hall has none: its floor plan then)."""
        index = self.central_tabs.indexOf(self.site)
        self.central_tabs.setCurrentIndex(index if self.central_tabs.isTabVisible(index) else
                                          self.central_tabs.indexOf(self.view))

    def go_to(self, where: str) -> None:
        """Select the object a finding names and centre it on the plan; a finding about the bill opens the bill."""
        kind, _, ident = where.partition(":")
        if kind in ("rack", "floor", "hall"):
            self.show_plan()
        if where == "project:bom":
            self.show_bom()
        elif kind in ("rack", "floor"):
            if self.scene.select(where):
                self.view.center_on_object(where)
        elif kind == "hall":
            self.scene.select_many([])
            self.view.center_on_object(where)
            self.inspector.show_selection("hall", [ident])
        else:
            self.inspector.show_selection("project", [])

    def go_to_all(self, places) -> None:
        """Select every object a finding names and centre the first: a finding about 31 DGX B200 selects the
        16 racks that hold them."""
        self.show_plan()
        self.scene.select_many([p for p in places if p.partition(":")[0] in ("rack", "floor")])
        if places:
            self.view.center_on_object(places[0])

    @property
    def project(self) -> Project:
        return self.document.project

    # -- files ----------------------------------------------------------------
    def new_project(self) -> None:
        if self.files.maybe_save():
            self.adopt_project(Project(halls=(_empty_hall(),)), None)

    def new_superpod(self) -> None:
        """File ▸ New SuperPOD…: the generator's dialog (after the unsaved-changes question, as New asks)."""
        start_new_superpod(self)

    def new_from_goal(self) -> None:
        """File ▸ New from a goal…: a training goal to ranked options, one of which opens as the design."""
        start_goal_dialog(self)

    def choose_file(self) -> None:
        if not self.files.maybe_save():
            return
        start = str(self.path.parent) if self.path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open project", start, FILE_FILTER)
        if path:
            self.open_path(path)

    def choose_comparison(self) -> None:
        start = str(self.path.parent) if self.path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Compare with", start, FILE_FILTER)
        if path:
            self.compare_with(path)

    def compare_with(self, path: str | Path):
        """This design beside the one in ``path``, in a dialog of their key figures and the change."""
        from ..dashboards.compare_dialog import CompareDialog

        dialog = CompareDialog(self.project, path, self.catalog, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def open_interactively(self, path: str | Path) -> bool:
        """Open from a menu: offer to save unsaved changes first."""
        return self.files.maybe_save() and self.open_path(path)

    def open_path(self, path: str | Path) -> bool:
        """Open a project file; on failure report it and keep the current project."""
        # Read before the project: a change made while it loads then shows as a change, not as ours.
        known = fingerprint(path)
        try:
            project = load(path, self.catalog)
        except ProjectFileError as exc:
            size_mb = file_limit.too_large(path)
            if size_mb is not None and self.ask_raise_limit(Path(path), size_mb):
                file_limit.set_limit(self.settings, size_mb)
                return self.open_path(path)
            self.last_error = str(exc)
            self.show_error(self.last_error)
            return False
        self.last_error = None
        if Path(path).resolve().parent == samples.FOLDER.resolve():
            self.adopt_project(project, None)  # a sample is a starting point: Save asks where to keep it
        else:
            self.adopt_project(project, Path(path), disk=known)
            self.files.add_recent(path)
        return True

    def show_autosave_state(self, error: str) -> None:
        """A lasting mark in the status bar while autosave fails (the reason in its tooltip); gone once it works."""
        self.autosave_label.setVisible(bool(error))
        if error:
            self.autosave_label.setText("⚠ Not autosaved")
            self.autosave_label.setStyleSheet(f"color: {style.SEVERITY['error'].name()}; font-weight: 600;")
            self.autosave_label.setToolTip(f"Autosave failed: {error}\nSave the project to keep your changes.")

    def ask_raise_limit(self, path: Path, size_mb: int) -> bool:
        """Whether to raise the largest-file limit to ``size_mb`` and open ``path`` (tests monkeypatch it)."""
        box = QMessageBox(QMessageBox.Icon.Question, APP_NAME,
                          f"{path.name} is {size_mb:,} MB, larger than the {file_limit.limit_mb():,} MB "
                          "this window opens.", parent=self)
        box.setInformativeText("The limit keeps a wrong file (a disk image, a log) from filling memory. "
                               "Raise it if this is the design you meant to open; "
                               "File\u00a0▸\u00a0Largest\u00a0file\u00a0to\u00a0open… changes it later.")
        raise_button = box.addButton(f"Raise to {size_mb:,} MB and open", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is raise_button

    def show_error(self, text: str) -> None:
        """Tell the user something failed (one line); tests monkeypatch this to avoid the modal box."""
        self.statusBar().showMessage(text, 10000)
        QMessageBox.warning(self, APP_NAME, text)


def counts_text(racks: int, gpus: int) -> str:
    """'10 racks · 576 GPUs' for the status bar."""
    return f"{count(racks, 'rack')} · {count(gpus, 'GPU')}"


def _empty_hall():
    from designer.model import Hall

    # A 20 x 12 m room on 600 mm tiles: room for a DGX scalable unit's two rows to be laid out by hand.
    return Hall("hall-1", "Hall 1", ((0, 0), (20000, 0), (20000, 12000), (0, 12000)), tile_mm=600)
