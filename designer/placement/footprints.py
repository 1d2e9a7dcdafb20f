"""What stands on the floor: the footprint of each rack and floor unit of a project, one by one or all at once."""
from __future__ import annotations

from typing import Iterable, NamedTuple

import numpy as np

from ..model import FloorDevice, Project, Rack
from .geometry import box, rectangles

#: A rack type without a footprint in the catalog is drawn and checked as a standard rack.
DEFAULT_RACK_MM = (600.0, 1200.0)
#: What users call each kind in messages.
KIND_LABEL = {"rack": "rack", "floor": "floor unit"}


class Footprint(NamedTuple):
    """One object's place: ``kind`` is "rack" or "floor"; a zero width or depth means it takes no floor.

    A named tuple, not a frozen dataclass: a drag of a whole hall makes 12,500 of them per mouse move.
    """

    kind: str
    id: str
    name: str
    hall: str
    x: float
    y: float
    rotation: float
    width: float
    depth: float

    @property
    def where(self) -> str:
        return f"{self.kind}:{self.id}"

    @property
    def label(self) -> str:
        """How a message names it: ``rack A03``, ``floor unit CDU-1``."""
        return f"{KIND_LABEL[self.kind]} {self.name or self.id}"

    @property
    def solid(self) -> bool:
        """True when it takes floor space (a unit without a footprint, wall-mounted or in-rack, cannot collide)."""
        return self.width > 0 and self.depth > 0

    @property
    def box(self) -> tuple[float, float, float, float]:
        """Its axis-aligned bounds ``(x0, y0, x1, y1)`` in the hall plane."""
        return box(self.x, self.y, self.width, self.depth, self.rotation)

    def moved(self, x: float, y: float, rotation: float | None = None) -> Footprint:
        return self._replace(x=x, y=y, rotation=self.rotation if rotation is None else rotation)


def rack_size(catalog, type_id: str) -> tuple[float, float]:
    """(width, depth) of a rack type in mm."""
    dev = catalog.find(type_id)
    if dev is None:
        return DEFAULT_RACK_MM
    return float(dev.width_mm or DEFAULT_RACK_MM[0]), float(dev.depth_mm or DEFAULT_RACK_MM[1])


def rack_footprint(rack: Rack, catalog) -> Footprint:
    return Footprint("rack", rack.id, rack.name, rack.hall, rack.x, rack.y, rack.rotation,
                     *rack_size(catalog, rack.type))


def floor_footprint(unit: FloorDevice, catalog) -> Footprint:
    dev = catalog.find(unit.type)
    w, d = (dev.width_mm or 0.0, dev.depth_mm or 0.0) if dev is not None else (0.0, 0.0)
    if not (w and d):
        w = d = 0.0
    return Footprint("floor", unit.id, unit.name, unit.hall, unit.x, unit.y, unit.rotation, float(w), float(d))


def footprints_of(racks: Iterable[Rack], floors: Iterable[FloorDevice], catalog) -> list[Footprint]:
    return [rack_footprint(r, catalog) for r in racks] + [floor_footprint(f, catalog) for f in floors]


def footprint_of(project: Project, catalog, where: str) -> Footprint:
    """The footprint of ``"rack:<id>"`` or ``"floor:<id>"`` as the project places it."""
    kind, _, oid = where.partition(":")
    if kind == "rack":
        return rack_footprint(project.rack(oid), catalog)
    return floor_footprint(project.floor_device(oid), catalog)


class Placed(NamedTuple):
    """Every solid footprint of a project as columns: where-strings, labels, halls, and shapely polygons."""

    wheres: list[str]
    labels: list[str]
    halls: np.ndarray
    polys: np.ndarray


def placed_columns(footprints: list[Footprint]) -> Placed:
    solid = [f for f in footprints if f.solid]
    rows = np.array([(f.x, f.y, f.width, f.depth, f.rotation) for f in solid], dtype=float)
    return Placed([f.where for f in solid], [f.label for f in solid],
                  np.array([f.hall for f in solid], dtype=object), rectangles(rows))


def placed_objects(project: Project, catalog) -> Placed:
    """Every rack and floor unit of ``project`` that takes floor space, as columns.

    Built from plain tuples, not :class:`Footprint` values: a big hall has
    12,500 racks, and this runs once per project value.
    """
    sizes: dict[str, tuple[float, float]] = {}
    wheres, labels, halls, rows = [], [], [], []
    for r in project.racks:
        size = sizes.get(r.type)
        if size is None:
            size = sizes[r.type] = rack_size(catalog, r.type)
        wheres.append(f"rack:{r.id}")
        labels.append(f"{KIND_LABEL['rack']} {r.name or r.id}")
        halls.append(r.hall)
        rows.append((r.x, r.y, size[0], size[1], r.rotation))
    unit_sizes: dict[str, tuple[float, float]] = {}  # floor_footprint's size, once per type (30,000 units at 1M GPUs)
    for f in project.floor_devices:
        size = unit_sizes.get(f.type)
        if size is None:
            fp = floor_footprint(f, catalog)
            size = unit_sizes[f.type] = (fp.width, fp.depth)
        if size[0] > 0 and size[1] > 0:  # Footprint.solid
            wheres.append(f"floor:{f.id}")
            labels.append(f"{KIND_LABEL['floor']} {f.name or f.id}")
            halls.append(f.hall)
            rows.append((f.x, f.y, size[0], size[1], f.rotation))
    return Placed(wheres, labels, np.array(halls, dtype=object), rectangles(np.array(rows, dtype=float)))
