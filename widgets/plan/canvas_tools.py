"""Edits on the floor plan: drop, move, nudge, rotate, align, distribute, delete, copy/paste, duplicate a row.

:class:`CanvasTools` turns a gesture into exactly one command pushed on the
scene's :class:`~designer.commands.Document` (never an assignment to the
model). The command enforces the placement rules of :mod:`designer.placement`:
an overlap or a step outside the hall is refused, the reason goes to the
scene's ``refused`` signal, and the document is left as it was. The tools ask
the same rules beforehand only to preview a drag and to look for a free place
to paste into.
"""
from __future__ import annotations

import json
from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Sequence

import numpy as np

from designer import placement as pl
from designer.commands import (AddObjectsCommand, CommandError, MacroCommand, MoveObjectsCommand,
                               RemoveFloorDevicesCommand, RemoveRacksCommand)
from designer.model import FloorDevice, MountedDevice, Rack, copied_devices, new_device_id

from .floor_items import FootprintItem, RackItem

if TYPE_CHECKING:
    from .floor_plan import FloorPlanScene

#: The rack a rack-scale system dropped on the floor arrives in.
RACK_FOR_SYSTEM = "rack-48u-600x1200"
#: A drop this close (centre to centre, mm) to a rack continues that rack's row: name, turn, grid phase.
ROW_CAPTURE_MM = 1500.0
#: How many tile rows paste looks through for a free place.
PASTE_SEARCH_ROWS = 40
CLIPBOARD_FORMAT = "podplanner-floor-clipboard/1"


def _label(verb: str, footprints: Sequence[pl.Footprint]) -> str:
    kinds = {f.kind for f in footprints}
    noun = {"rack": ("rack", "racks"), "floor": ("floor unit", "floor units")}.get(
        next(iter(kinds)) if len(kinds) == 1 else "", ("object", "objects"))
    n = len(footprints)
    return f"{verb} {noun[0]}" if n == 1 else f"{verb} {n} {noun[1]}"


class CanvasTools:
    """The floor plan's editing operations; one per scene (``scene.tools``)."""

    def __init__(self, scene: FloorPlanScene):
        self.scene = scene
        self._clipboard: str | None = None

    # -- context ---------------------------------------------------------------------
    @property
    def document(self):
        return self.scene.document

    @property
    def project(self):
        return self.document.project if self.document is not None else self.scene.project

    @property
    def catalog(self):
        return self.scene.catalog

    def tile_of(self, item_or_hall) -> float:
        hall_id = item_or_hall if isinstance(item_or_hall, str) else self.footprint(item_or_hall.where).hall
        project = self.project
        return project.hall(hall_id).tile_mm if project.has_hall(hall_id) else 600.0

    def footprint(self, where: str) -> pl.Footprint:
        """The model's placement of a rack or floor unit, in its hall's plane."""
        return pl.footprint_of(self.project, self.catalog, where)

    def selection(self) -> list[pl.Footprint]:
        return [self.footprint(w) for w in self.scene.selected_ids()]

    # -- refusing and pushing --------------------------------------------------------------
    def refuse(self, message: str) -> bool:
        self.scene.refused.emit(message)
        return False

    def push(self, command, verb: str | None = None) -> bool:
        """Push ``command``; a refusal goes to the ``refused`` signal and the document is unchanged."""
        if self.document is None:
            return self.refuse("no document to edit")
        try:
            self.document.push(command)
        except CommandError as exc:
            return self.refuse(f"{verb} refused: {exc}" if verb else str(exc))
        return True

    def _item_footprints(self, items: Sequence[FootprintItem]) -> list[pl.Footprint]:
        """Where items stand on the plan now (during a drag: their preview), in hall coordinates."""
        out = []
        for item in items:
            f = self.footprint(item.where)
            off = self.scene.hall_offsets.get(f.hall)
            p = item.pos()
            x, y = (p.x() - off.x(), p.y() - off.y()) if off is not None else (p.x(), p.y())
            out.append(f.moved(x, y, item.rotation()))
        return out

    def check_items(self, items: Sequence[FootprintItem]) -> pl.Problem | None:
        """What the move command would say of the items where a drag shows them now (to paint them red)."""
        return pl.check_move(self.project, self.catalog, self._item_footprints(items))

    def commit_items(self, items: Sequence[FootprintItem]) -> bool:
        """Push where a drag left ``items`` as one move."""
        return self.place(self._item_footprints(items), "Move")

    def place(self, placed: Sequence[pl.Footprint], verb: str) -> bool:
        """Move existing racks and floor units to ``placed`` as one undo step, or refuse."""
        if not placed:
            return False
        racks = {f.id: (f.x, f.y, f.rotation % 360) for f in placed if f.kind == "rack"}
        floors = {f.id: (f.x, f.y, f.rotation % 360) for f in placed if f.kind == "floor"}
        return self.push(MoveObjectsCommand(racks, floors, label=_label(verb, placed)), verb)

    # -- selection operations -------------------------------------------------------------
    def nudge(self, ux: int, uy: int, fine: bool = False) -> bool:
        """Move the selection one tile (or 10 mm with ``fine``) in the direction (ux, uy)."""
        sel = self.selection()
        if not sel:
            return False
        step = 10.0 if fine else self.tile_of(sel[0].hall)
        return self.place([f.moved(f.x + ux * step, f.y + uy * step) for f in sel], "Move")

    def move_by(self, dx: float, dy: float) -> bool:
        sel = self.selection()
        return bool(sel) and self.place([f.moved(f.x + dx, f.y + dy) for f in sel], "Move")

    def rotate(self, degrees: float = 90.0) -> bool:
        """Turn each selected object by ``degrees`` clockwise about its own centre."""
        sel = self.selection()
        if not sel:
            return False
        return self.place([f.moved(f.x, f.y, (f.rotation + degrees) % 360) for f in sel], "Rotate")

    def _one_hall(self, sel, at_least: int, what: str) -> bool:
        if len(sel) < at_least:
            return self.refuse(f"{what} needs at least {at_least} selected racks")
        if len({f.hall for f in sel}) > 1:
            return self.refuse(f"{what} works on racks in one hall")
        return True

    def align(self, mode: str) -> bool:
        """Line the selection up: ``left``, ``right``, ``top``, ``bottom``, ``hcenter``, ``vcenter``."""
        sel = self.selection()
        if not self._one_hall(sel, 2, "Align"):
            return False
        deltas = pl.align([f.box for f in sel], mode)
        return self.place([f.moved(f.x + dx, f.y + dy) for f, (dx, dy) in zip(sel, deltas)], "Align")

    def distribute(self, axis: str) -> bool:
        """Leave equal gaps between the selected racks along ``axis`` ("x" or "y")."""
        sel = self.selection()
        if not self._one_hall(sel, 3, "Distribute"):
            return False
        deltas = pl.distribute([f.box for f in sel], axis)
        return self.place([f.moved(f.x + dx, f.y + dy) for f, (dx, dy) in zip(sel, deltas)], "Distribute")

    def delete(self, verb: str = "Delete") -> bool:
        sel = self.selection()
        if not sel:
            return False
        label = _label(verb, sel)
        racks = tuple(f.id for f in sel if f.kind == "rack")
        floors = tuple(f.id for f in sel if f.kind == "floor")
        commands = ([RemoveRacksCommand(racks, label=label)] if racks else []) + \
                   ([RemoveFloorDevicesCommand(floors, label=label)] if floors else [])
        return self.push(commands[0] if len(commands) == 1 else MacroCommand(commands, label=label))

    # -- clipboard -----------------------------------------------------------------------
    def copy(self) -> bool:
        """Keep the selected racks and floor units (whole values, devices included) as JSON."""
        sel = self.scene.selected_ids()
        if not sel:
            return False
        racks = [asdict(self.project.rack(w[5:])) for w in sel if w.startswith("rack:")]
        floors = [asdict(self.project.floor_device(w[6:])) for w in sel if w.startswith("floor:")]
        self._clipboard = json.dumps({"format": CLIPBOARD_FORMAT, "racks": racks, "floor_devices": floors})
        return True

    def cut(self) -> bool:
        return self.copy() and self.delete("Cut")

    def can_paste(self) -> bool:
        return self._clipboard is not None

    def clipboard_values(self) -> tuple[list[Rack], list[FloorDevice]]:
        if self._clipboard is None:
            return [], []
        data = json.loads(self._clipboard)
        racks = [Rack(**{**r, "devices": tuple(MountedDevice(**d) for d in r["devices"])}) for r in data["racks"]]
        floors = [FloorDevice(**{**f, "serves": tuple(f["serves"])}) for f in data["floor_devices"]]
        return racks, floors

    def paste(self) -> bool:
        """Add copies of the clipboard with new ids and names, on the nearest free tile rows below the originals.

        After a cut the originals' own place is tried first.
        """
        racks, floors = self.clipboard_values()
        if not racks and not floors:
            return False
        project = self.project
        if not project.halls:
            return self.refuse("Paste refused: the project has no hall")
        fallback = project.halls[0].id
        racks = [r if project.has_hall(r.hall) else replace(r, hall=fallback) for r in racks]
        floors = [f if project.has_hall(f.hall) else replace(f, hall=fallback) for f in floors]
        tile = self.tile_of((racks or floors)[0].hall)
        originals_gone = not any(project.has_rack(r.id) for r in racks) and \
            not any(project.has_floor_device(f.id) for f in floors)
        steps = [0] if originals_gone else []
        for k in range(1, PASTE_SEARCH_ROWS + 1):
            steps += [k, -k]
        problem = None
        for k in steps:
            new_racks, new_floors = self._copies(racks, floors, 0.0, k * tile, keep_row=True)
            problem = self._problem_of_new(new_racks, new_floors)
            if problem is None:
                return self._add(new_racks, new_floors, "Paste")
        return self.refuse(f"Paste refused: no free place near the originals ({problem.message})")

    def duplicate_row(self) -> bool:
        """Copy the selected racks to the next row position: rack depth plus a 1200 mm aisle behind them.

        If that place is taken, the row in front is tried. A row named by its
        letter ("A01"...) becomes the next free letter ("C01"...).
        """
        sel = self.selection()
        if not sel:
            return False
        racks = [self.project.rack(f.id) for f in sel if f.kind == "rack"]
        floors = [self.project.floor_device(f.id) for f in sel if f.kind == "floor"]
        lead = sel[0]
        distance = lead.depth + pl.ROW_AISLE_MM
        problem = None
        for sign in (1.0, -1.0):
            dx, dy = pl.rear_offset(lead.rotation, sign * distance)
            new_racks, new_floors = self._copies(racks, floors, dx, dy, keep_row=False)
            problem = self._problem_of_new(new_racks, new_floors)
            if problem is None:
                return self._add(new_racks, new_floors, "Duplicate", label="Duplicate row")
        return self.refuse(f"Duplicate row refused: {problem.message}")

    # -- making new objects ---------------------------------------------------------------
    def _problem_of_new(self, racks, floors) -> pl.Problem | None:
        """What the add command would say of these copies: paste and duplicate try places until it says nothing."""
        return pl.check_new(self.project, self.catalog, pl.footprints_of(racks, floors, self.catalog))

    def _copies(self, racks, floors, dx: float, dy: float, keep_row: bool):
        """Copies shifted by (dx, dy) with fresh ids; names continue each original's numbering."""
        project = self.project
        rack_ids, floor_ids = pl.new_ids(project, "r", len(racks)), pl.new_ids(project, "f", len(floors))
        taken = {r.name for r in project.racks}
        new_row = None
        rows = {r.row for r in racks}
        if not keep_row and len(rows) == 1 and next(iter(rows)):
            new_row = pl.next_row_letter(r.row for r in project.racks)
        new_racks = []
        device_ids: set[str] = set()
        for rack, rid in zip(racks, rack_ids):
            name, row = self._copy_name(rack.name, rack.row, new_row, taken)
            taken.add(name)
            devices = copied_devices(project, rack, rid, device_ids)
            new_racks.append(replace(rack, id=rid, name=name, row=row, x=rack.x + dx, y=rack.y + dy,
                                     devices=devices))
        taken_f = {f.name for f in project.floor_devices}
        new_floors = []
        for dev, fid in zip(floors, floor_ids):
            parts = pl.split_name(dev.name)
            name = pl.next_names(parts[0], taken_f, 1, parts[2], parts[3])[0] if parts else f"{dev.name} copy"
            taken_f.add(name)
            new_floors.append(replace(dev, id=fid, name=name, x=dev.x + dx, y=dev.y + dy))
        return new_racks, new_floors

    @staticmethod
    def _copy_name(name: str, row: str, new_row: str | None, taken: set) -> tuple[str, str]:
        parts = pl.split_name(name)
        if new_row is not None and parts and parts[0] == row:
            candidate = f"{new_row}{parts[1]:0{parts[2]}d}{parts[3]}"
            if candidate not in taken:
                return candidate, new_row
        if parts:
            return pl.next_names(parts[0], taken, 1, parts[2], parts[3])[0], new_row or row
        return pl.next_names("R", taken, 1, 1)[0], new_row or row

    def _add(self, racks, floors, verb: str, label: str | None = None) -> bool:
        placed = pl.footprints_of(racks, floors, self.catalog)
        if not self.push(AddObjectsCommand(tuple(racks), tuple(floors), label=label or _label(verb, placed)), verb):
            return False
        self.scene.select_many([f.where for f in placed])
        return True

    # -- drops from the palette -------------------------------------------------------------
    def _nearest_rack(self, hall: str, x: float, y: float) -> Rack | None:
        racks = [r for r in self.project.racks if r.hall == hall]
        if not racks:
            return None
        pts = np.array([(r.x, r.y) for r in racks])
        d = np.hypot(pts[:, 0] - x, pts[:, 1] - y)
        i = int(np.argmin(d))
        return racks[i] if d[i] <= ROW_CAPTURE_MM else None

    def drop_device(self, device_id: str, scene_pos) -> bool:
        """Place what the palette dropped at ``scene_pos`` as one command; False (with a reason) if not placed.

        A rack arrives empty; a rack-scale system arrives in a 48U rack at U1; a
        floor unit with a footprint stands on its own. Both snap so their
        footprint edges lie on the tile grid (on the grid of the row they
        continue, when dropped next to one). Servers, switches and other
        mountable devices go in through the rack elevation instead.
        """
        dev = self.catalog.find(device_id)
        if dev is None:
            return self.refuse(f"Drop refused: unknown catalog id {device_id!r}")
        floor_unit = dev.kind in ("cdu", "crah", "pdu") and dev.width_mm and dev.depth_mm
        if dev.kind not in ("rack", "rack_system") and not dev.fills_rack and not floor_unit:
            target = self.scene.footprint_at(scene_pos)
            if isinstance(target, RackItem):
                rack = self.project.rack(target.rack_id)
                text = f"To mount {dev.name} in {rack.name or rack.id}, drop it on the rack elevation"
            else:
                text = f"{dev.name} mounts in a rack: select a rack and drop it on the rack elevation"
            self.scene.status_message.emit(text)
            return False
        spot = self.scene.hall_at(scene_pos)
        if spot is None:
            return self.refuse(f"Drop refused: drop {dev.name} inside a hall")
        hall_id, hx, hy = spot
        tile = self.tile_of(hall_id)
        near = self._nearest_rack(hall_id, hx, hy)
        rotation = near.rotation if near is not None and not floor_unit else 0.0
        if floor_unit:
            w, d = dev.width_mm, dev.depth_mm
        else:
            w, d = pl.rack_size(self.catalog, dev.id if dev.kind == "rack" else RACK_FOR_SYSTEM)
        ex, ey = pl.extent(w, d, rotation)
        phase_x = phase_y = 0.0
        if near is not None:
            bx0, by0, _, _ = pl.rack_footprint(near, self.catalog).box
            phase_x, phase_y = bx0 % tile, by0 % tile
        x = pl.snap_centre(hx, ex, tile, phase_x)
        y = pl.snap_centre(hy, ey, tile, phase_y)
        project = self.project
        if floor_unit:
            prefix = {"cdu": "CDU-", "crah": "CRAH-"}.get(dev.kind, "PDU-")
            name = pl.next_names(prefix, (f.name for f in project.floor_devices), 1, 1)[0]
            return self._add([], [FloorDevice(pl.new_ids(project, "f")[0], dev.id, hall_id, x, y, rotation, name)],
                             "Drop", label="Add floor unit")
        rid = pl.new_ids(project, "r")[0]
        taken = {r.name for r in project.racks}
        parts = pl.split_name(near.name) if near is not None else None
        prefix, start = (parts[0], parts[2]) if parts else ("R", 1)
        name = pl.next_names(prefix, taken, 1, start)[0]
        row = near.row if near is not None else ""
        if dev.kind == "rack":
            rack = Rack(rid, name, hall_id, dev.id, x, y, rotation, row)
        else:
            rack = Rack(rid, name, hall_id, RACK_FOR_SYSTEM, x, y, rotation, row,
                        devices=(MountedDevice(new_device_id(project, rid), dev.id, 1.0, "front"),))
        return self._add([rack], [], "Drop", label="Add rack")
