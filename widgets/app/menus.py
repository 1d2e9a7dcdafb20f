"""The main window's menus and toolbar: the actions, built once onto the window, and their enabled state.

Like a Designer form's ``setupUi``, :func:`build_menus` creates every action with the
window as parent and keeps it on the window (``window.undo_action``...), so the rest of
the window, its controllers and the tests reach an action by name. The slots are the
window's public methods, its controllers' (files, exports, quote, workspaces) and the
floor plan's tools.
"""
from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QStyle, QToolBar

from designer import samples

from . import file_limit
from ..plan.floor_heatmap import LAYERS as HEAT_LAYERS
from .recover_menu import RecoverMenu


def sample_title(path: Path) -> str:
    """A sample's project name for its menu entry, without building the whole project."""
    try:
        name = json.loads(path.read_text(encoding="utf-8")).get("name")
    except (OSError, ValueError, AttributeError):
        name = None
    return name if isinstance(name, str) and name else path.name.removesuffix(".podplan.json")


def add_action(window, menu, text: str, slot, shortcut=None) -> QAction:
    act = QAction(text, window)
    if shortcut is not None:
        act.setShortcut(QKeySequence(shortcut))
    act.triggered.connect(slot)
    menu.addAction(act)
    return act


def build_menus(win) -> None:
    """File, Edit, View, Quote and Help, in that order."""
    _build_file_menu(win)
    build_edit_menu(win)
    _build_view_menu(win)
    win.quote_menu = win.quote_actions.build_menu(win.menuBar())
    win.quote_menu.addSeparator()
    win.bom_action = add_action(win, win.quote_menu, "&Bill of materials", win.show_bom, QKeySequence("Ctrl+B"))
    help_menu = win.menuBar().addMenu("&Help")
    win.welcome_action = add_action(win, help_menu, "Show what you can &do", win.show_welcome)
    help_menu.addSeparator()
    win.about_action = add_action(win, help_menu, "&About PodPlanner…", win.show_about)
    win.about_action.setMenuRole(QAction.MenuRole.AboutRole)


def _build_file_menu(win) -> None:
    file_menu = win.menuBar().addMenu("&File")
    win.new_action = add_action(win, file_menu, "&New", win.new_project, QKeySequence.StandardKey.New)
    win.new_superpod_action = add_action(win, file_menu, "New Super&POD…", win.new_superpod)
    win.new_from_goal_action = add_action(win, file_menu, "New from a &goal…", win.new_from_goal)
    win.open_action = add_action(win, file_menu, "&Open…", win.choose_file, QKeySequence.StandardKey.Open)
    win.recent_menu = file_menu.addMenu("Open &recent")
    win.recover_menu = RecoverMenu(win, file_menu)
    win.samples_menu = file_menu.addMenu("Open &sample")
    for path in samples.all_samples():
        add_action(win, win.samples_menu, sample_title(path), lambda _=False, p=path: win.open_interactively(p))
    file_menu.addSeparator()
    win.save_action = add_action(win, file_menu, "&Save", win.files.save, QKeySequence.StandardKey.Save)
    win.save_as_action = add_action(win, file_menu, "Save &as…", lambda: win.files.save_as(),
                                    QKeySequence("Ctrl+Shift+S"))
    win.compare_action = add_action(win, file_menu, "Co&mpare with…", win.choose_comparison)
    file_menu.addSeparator()
    win.export_menu = win.exports.build_menu(file_menu)
    file_menu.addSeparator()
    win.file_limit_action = add_action(win, file_menu, "Largest file to open…",
                                       lambda: file_limit.ask(win, win.settings))
    win.quit_action = add_action(win, file_menu, "&Quit", win.close, QKeySequence("Ctrl+Q"))
    fill_recent_menu(win)


def _build_view_menu(win) -> None:
    view_menu = win.menuBar().addMenu("&View")
    win.zoom_in_action = add_action(win, view_menu, "Zoom &in", lambda: win.view.zoom_by(1.25),
                                    QKeySequence("Ctrl++"))
    win.zoom_in_action.setShortcuts([QKeySequence("Ctrl++"), QKeySequence("Ctrl+=")])
    win.zoom_out_action = add_action(win, view_menu, "Zoom &out", lambda: win.view.zoom_by(0.8),
                                     QKeySequence("Ctrl+-"))
    win.fit_action = add_action(win, view_menu, "&Fit to hall", win.view.fit_hall, QKeySequence("Ctrl+0"))
    win.site_action = add_action(win, view_menu, "&Site plan", win.show_site, QKeySequence("Ctrl+9"))
    win.project_action = add_action(win, view_menu, "&Project settings and workload",
                                    win.show_project_settings, QKeySequence("Ctrl+,"))
    view_menu.addSeparator()
    win.clearance_action = add_action(win, view_menu, "&Clearance zones (all racks)", win.scene.set_all_clearances)
    win.clearance_action.setCheckable(True)
    win.heat_map_action = add_action(win, view_menu, "&Heat map", win.scene.set_heat_map, QKeySequence("Ctrl+H"))
    win.heat_map_action.setCheckable(True)
    # Which figure colours the racks; one at a time, and choosing one shows the heat map.
    win.heat_layer_menu = view_menu.addMenu("Heat map &layer")
    layers = QActionGroup(win)
    layers.setExclusive(True)
    win.heat_layer_actions = {}
    for layer, (text, *_) in HEAT_LAYERS.items():
        act = add_action(win, win.heat_layer_menu, text, lambda _=False, k=layer: _show_heat_layer(win, k))
        act.setCheckable(True)
        act.setChecked(layer == win.scene.heat_layer)
        layers.addAction(act)
        win.heat_layer_actions[layer] = act
    view_menu.addSeparator()
    win.workspace_menu = win.workspaces.build_menu(view_menu)
    for dock in (win.palette_dock, win.inspector_dock, win.elevation_dock, win.dashboards_dock,
                 win.findings_dock, win.cabling_dock, win.single_line_dock):
        view_menu.addAction(dock.toggleViewAction())


def _show_heat_layer(win, layer: str) -> None:
    win.scene.set_heat_layer(layer)
    if not win.heat_map_action.isChecked():
        win.heat_map_action.trigger()  # checks it and turns the map on, as Ctrl+H would


def build_edit_menu(win) -> None:
    """Undo/redo bound to the document; every other entry is one of the floor plan's tools."""
    tools = win.scene.tools
    edit = win.menuBar().addMenu("&Edit")

    def clip(fn) -> None:
        fn()
        update_edit_actions(win)

    win.undo_action = add_action(win, edit, "Undo", lambda: win.document.undo(), QKeySequence.StandardKey.Undo)
    win.redo_action = add_action(win, edit, "Redo", lambda: win.document.redo(), QKeySequence("Ctrl+Shift+Z"))
    win.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    edit.addSeparator()
    win.cut_action = add_action(win, edit, "Cu&t", lambda: clip(tools.cut), QKeySequence.StandardKey.Cut)
    win.copy_action = add_action(win, edit, "&Copy", lambda: clip(tools.copy), QKeySequence.StandardKey.Copy)
    win.paste_action = add_action(win, edit, "&Paste", lambda: tools.paste(), QKeySequence.StandardKey.Paste)
    win.duplicate_action = add_action(win, edit, "D&uplicate row", lambda: tools.duplicate_row(),
                                      QKeySequence("Ctrl+D"))
    win.delete_action = add_action(win, edit, "&Delete", lambda: tools.delete(), QKeySequence.StandardKey.Delete)
    win.delete_action.setShortcuts([QKeySequence(Qt.Key.Key_Delete), QKeySequence(Qt.Key.Key_Backspace)])
    edit.addSeparator()
    win.rotate_action = add_action(win, edit, "&Rotate 90°", lambda: tools.rotate(), QKeySequence("R"))
    align = edit.addMenu("&Align")
    win.align_actions = {}
    for mode, text in (("left", "&Left edges"), ("right", "&Right edges"), ("top", "&Top edges"),
                       ("bottom", "&Bottom edges"), ("hcenter", "Centres &horizontally"),
                       ("vcenter", "Centres &vertically")):
        win.align_actions[mode] = add_action(win, align, text, lambda _=False, m=mode: tools.align(m))
    distribute = edit.addMenu("Di&stribute")
    win.distribute_actions = {
        "x": add_action(win, distribute, "&Horizontally", lambda: tools.distribute("x")),
        "y": add_action(win, distribute, "&Vertically", lambda: tools.distribute("y")),
    }
    win.align_menu, win.distribute_menu = align, distribute
    edit.addSeparator()
    win.select_all_action = add_action(win, edit, "Select &all", lambda: win.scene.select_all(),
                                       QKeySequence.StandardKey.SelectAll)
    # Keys that act on the plan's selection act only while the plan has focus: Delete in the rack
    # elevation removes a device, Ctrl+C in a text field copies text, R types an R.
    for action in (win.cut_action, win.copy_action, win.paste_action, win.duplicate_action,
                   win.delete_action, win.rotate_action, win.select_all_action):
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        win.view.addAction(action)
    update_edit_actions(win)


def update_edit_actions(win) -> None:
    """Undo and redo name what they would do; the plan's tools are enabled for what is selected."""
    doc = win.document
    can_undo, can_redo = doc is not None and doc.can_undo(), doc is not None and doc.can_redo()
    win.undo_action.setEnabled(can_undo)
    win.undo_action.setText(f"Undo {doc.undo_label()}" if can_undo else "Undo")
    win.redo_action.setEnabled(can_redo)
    win.redo_action.setText(f"Redo {doc.redo_label()}" if can_redo else "Redo")
    n = len(win.scene.selected_ids())
    for act in (win.cut_action, win.copy_action, win.duplicate_action, win.delete_action, win.rotate_action):
        act.setEnabled(n > 0)
    win.paste_action.setEnabled(win.scene.tools.can_paste())
    win.align_menu.setEnabled(n >= 2)
    win.distribute_menu.setEnabled(n >= 3)


def build_toolbar(win) -> None:
    bar = QToolBar("Main", win)
    bar.setObjectName("main_toolbar")
    bar.setMovable(False)
    icon = win.style().standardIcon
    pix = QStyle.StandardPixmap
    for action, std in ((win.new_action, pix.SP_FileIcon), (win.open_action, pix.SP_DialogOpenButton),
                        (win.save_action, pix.SP_DialogSaveButton), (win.undo_action, pix.SP_ArrowBack),
                        (win.redo_action, pix.SP_ArrowForward)):
        action.setIcon(icon(std))
        bar.addAction(action)
    bar.addSeparator()
    for action in (win.zoom_in_action, win.zoom_out_action, win.fit_action, win.heat_map_action):
        bar.addAction(action)
    win.addToolBar(bar)


def fill_recent_menu(win) -> None:
    win.recent_menu.clear()
    recent = win.files.recent_files()
    for path in recent:
        add_action(win, win.recent_menu, path, lambda _=False, p=path: win.open_interactively(p))
    if recent:
        win.recent_menu.addSeparator()
        add_action(win, win.recent_menu, "Clear list", win.files.clear_recent)
    win.recent_menu.setEnabled(bool(recent))
