"""Workspaces: saved arrangements of the main window's docks, one per kind of work.

An architect lays racks out with the catalog, the inspector and a full-height
rack elevation; a facilities engineer reads the heat map beside large charts; a
network designer follows cables; a sales engineer reads the bill. Each
workspace starts from a default arrangement and then keeps what the user makes
of it (docks moved, resized, closed, the heat map on or off) under its own key,
so switching back returns the arrangement as it was left. "Reset" puts the
current workspace back to its default.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence

Area = Qt.DockWidgetArea
Corner = Qt.Corner


@dataclass(frozen=True)
class Workspace:
    """A default arrangement: which docks show where, how big, and what the centre shows."""

    title: str
    #: dock attribute names of the window, per area; a list in a column is stacked top to bottom,
    #: a tuple inside it is tabbed (first tab in front).
    left: tuple = ()
    right: tuple = ()
    bottom: tuple = ()
    #: width of the left and right columns and height of the bottom row, in pixels
    left_px: int = 330
    right_px: int = 360
    bottom_px: int = 220
    #: relative heights of the docks stacked in the left / right column
    left_split: tuple[int, ...] = ()
    right_split: tuple[int, ...] = ()
    #: which area owns the bottom corners: a side column runs the window's full height when it does
    corners: dict = field(default_factory=dict)
    #: central tab: "plan" or "bom"
    centre: str = "plan"
    heat_map: bool = False


FULL_HEIGHT_SIDES = {Corner.BottomLeftCorner: Area.LeftDockWidgetArea,
                     Corner.BottomRightCorner: Area.RightDockWidgetArea}
WORKSPACES: dict[str, Workspace] = {
    # The elevation runs the window's full height on the right, so a whole 48U or 52U rack is read at once.
    "layout": Workspace("Layout", left=("palette_dock", "inspector_dock"), right=("elevation_dock",),
                        bottom=("findings_dock",), left_px=330, right_px=380, bottom_px=190, left_split=(45, 55),
                        corners=FULL_HEIGHT_SIDES),
    # The heat-mapped plan the window's full height between what was clicked and the charts stacked
    # one above another, each tall enough to read; what is wrong under the plan.
    "power": Workspace("Power & cooling", left=("inspector_dock",), right=("dashboards_dock",),
                       bottom=("findings_dock",), left_px=360, right_px=470, bottom_px=190,
                       corners=FULL_HEIGHT_SIDES, heat_map=True),
    # The hall's facility: its figures and settings in the inspector, the single-line diagram wide enough to read
    # a three-row hall whole, what is wrong under the plan.
    "facility": Workspace("Facility", left=("inspector_dock",), right=("single_line_dock",),
                          bottom=("findings_dock",), left_px=340, right_px=640, bottom_px=190,
                          corners=FULL_HEIGHT_SIDES, heat_map=True),
    "network": Workspace("Network", left=("inspector_dock",), right=("cabling_dock",), bottom=("findings_dock",),
                         left_px=320, right_px=520, bottom_px=190, corners=FULL_HEIGHT_SIDES),
    # The bill takes the window's width: part numbers, descriptions and prices side by side.
    "quote": Workspace("Quote", bottom=(("findings_dock", "dashboards_dock"),), bottom_px=230, centre="bom",
                       corners={Corner.BottomRightCorner: Area.BottomDockWidgetArea,
                                Corner.BottomLeftCorner: Area.BottomDockWidgetArea}),
}
DEFAULT = "layout"
_AREAS = (("left", Area.LeftDockWidgetArea), ("right", Area.RightDockWidgetArea),
          ("bottom", Area.BottomDockWidgetArea))


def _docks_in(entries) -> list[str]:
    out = []
    for entry in entries:
        out.extend(entry if isinstance(entry, tuple) else (entry,))
    return out


class WorkspaceController(QObject):
    """Switches, remembers and resets the window's workspaces (View ▸ Workspace)."""

    def __init__(self, window, settings):
        super().__init__(window)
        self.window = window
        self.settings = settings
        saved = settings.value("workspace/current")
        self.current = saved if saved in WORKSPACES else DEFAULT
        self.actions: dict[str, QAction] = {}

    # -- which docks exist ------------------------------------------------------------------
    def docks(self) -> dict:
        """Dock attribute name -> dock, for every dock the window has."""
        win = self.window
        names = ("palette_dock", "inspector_dock", "elevation_dock", "dashboards_dock", "findings_dock",
                 "cabling_dock", "single_line_dock")
        return {n: getattr(win, n) for n in names if getattr(win, n, None) is not None}

    # -- menu -------------------------------------------------------------------------------
    def build_menu(self, parent_menu):
        menu = parent_menu.addMenu("&Workspace")
        group = QActionGroup(self)
        group.setExclusive(True)
        for i, (key, ws) in enumerate(WORKSPACES.items(), start=1):
            act = QAction(ws.title, self.window)
            act.setCheckable(True)
            act.setShortcut(QKeySequence(f"Alt+{i}"))
            act.setChecked(key == self.current)
            act.triggered.connect(lambda _=False, k=key: self.switch(k))
            group.addAction(act)
            menu.addAction(act)
            self.actions[key] = act
        menu.addSeparator()
        self.reset_action = QAction("&Reset this workspace", self.window)
        self.reset_action.triggered.connect(self.reset)
        menu.addAction(self.reset_action)
        return menu

    # -- switching ------------------------------------------------------------------------
    def switch(self, key: str) -> None:
        """Leave the current workspace (keeping its arrangement) and show ``key`` as it was last left."""
        if key not in WORKSPACES:
            raise ValueError(f"no workspace {key!r} ({', '.join(WORKSPACES)})")
        if key == self.current:
            return
        view = self.window.view
        halls = view.scene().halls_rect()
        whole = not halls.isEmpty() and view.mapToScene(view.viewport().rect()).boundingRect().contains(halls)
        self.remember()
        self.current = key
        self.settings.setValue("workspace/current", key)
        self.restore()
        if key in self.actions:
            self.actions[key].setChecked(True)
        if whole:  # a plan that showed every hall still does at its new size: fitting also refits on resize
            view.fit_hall()

    def remember(self) -> None:
        """Keep the current workspace's arrangement (dock places and sizes, centre tab, heat map)."""
        win = self.window
        base = f"workspace/{self.current}"
        self.settings.setValue(f"{base}/state", win.saveState())
        self.settings.setValue(f"{base}/heat_map", bool(win.heat_map_action.isChecked()))
        self.settings.setValue(f"{base}/centre", "bom" if win.central_tabs.currentWidget() is win.bom else "plan")

    def restore(self, state=None) -> None:
        """Show the current workspace as it was left (or as ``state`` has it: the window's last arrangement),
        or its default arrangement the first time."""
        win, ws = self.window, WORKSPACES[self.current]
        base = f"workspace/{self.current}"
        self._corners(ws)
        state = state if state is not None else self.settings.value(f"{base}/state")
        if state is None or not win.restoreState(state):
            self.arrange(ws)
        heat = self.settings.value(f"{base}/heat_map")
        self._centre(self.settings.value(f"{base}/centre") or ws.centre)
        self._heat(ws.heat_map if heat is None else heat in (True, "true", "1", 1))

    def reset(self) -> None:
        """Put the current workspace back to its default arrangement."""
        base = f"workspace/{self.current}"
        for key in ("state", "heat_map", "centre"):
            self.settings.remove(f"{base}/{key}")
        ws = WORKSPACES[self.current]
        self._corners(ws)
        self.arrange(ws)
        self._centre(ws.centre)
        self._heat(ws.heat_map)

    # -- the default arrangement ------------------------------------------------------------
    def arrange(self, ws: Workspace) -> None:
        win = self.window
        docks = self.docks()
        shown = {name for _, area in _AREAS for name in _docks_in(getattr(ws, _)) if name in docks}
        for name, dock in docks.items():
            dock.setFloating(False)
            if name not in shown:
                dock.hide()
        for attr, area in _AREAS:
            column = [e for e in getattr(ws, attr) if any(n in docks for n in _docks_in((e,)))]
            previous = None
            for entry in column:
                group = [docks[n] for n in _docks_in((entry,)) if n in docks]
                first = group[0]
                win.addDockWidget(area, first)
                if previous is not None:
                    win.splitDockWidget(previous, first, Qt.Orientation.Vertical)
                for other in group[1:]:
                    win.addDockWidget(area, other)
                    win.tabifyDockWidget(first, other)
                for dock in group:
                    dock.show()
                first.raise_()
                previous = first
        self._sizes(ws, docks)

    def _sizes(self, ws: Workspace, docks: dict) -> None:
        win = self.window
        firsts = {attr: [docks[_docks_in((e,))[0]] for e in getattr(ws, attr) if _docks_in((e,))[0] in docks]
                  for attr, _ in _AREAS}
        horizontal = [(firsts["left"], ws.left_px), (firsts["right"], ws.right_px)]
        for column, px in horizontal:
            if column:
                win.resizeDocks([column[0]], [px], Qt.Orientation.Horizontal)
        if firsts["bottom"]:
            win.resizeDocks([firsts["bottom"][0]], [ws.bottom_px], Qt.Orientation.Vertical)
        for column, split in ((firsts["left"], ws.left_split), (firsts["right"], ws.right_split)):
            if len(column) > 1 and len(split) == len(column):
                win.resizeDocks(column, [s * 10 for s in split], Qt.Orientation.Vertical)

    def _corners(self, ws: Workspace) -> None:
        win = self.window
        defaults = {Corner.BottomLeftCorner: Area.BottomDockWidgetArea,
                    Corner.BottomRightCorner: Area.BottomDockWidgetArea,
                    Corner.TopLeftCorner: Area.TopDockWidgetArea, Corner.TopRightCorner: Area.TopDockWidgetArea}
        for corner, area in {**defaults, **ws.corners}.items():
            win.setCorner(corner, area)

    def _centre(self, centre: str) -> None:
        win = self.window
        win.central_tabs.setCurrentWidget(win.bom if centre == "bom" else win.view)

    def _heat(self, on: bool) -> None:
        act = self.window.heat_map_action
        if act.isChecked() != bool(on):
            act.trigger()
