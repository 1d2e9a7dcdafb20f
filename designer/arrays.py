"""A design flattened into numpy arrays, so engines sum over devices without Python loops.

Built once per snapshot: one row per mounted device (with the index of its
rack), one row per rack, and a table of per-type figures that device rows index
into. 100,000 GPUs (about 31,000 mounted devices) flatten in a few milliseconds.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from catalog import Catalog, DeviceType

from .gpu_power import capped_draw
from .model import Project


@dataclass(frozen=True)
class TypeTable:
    ids: list[str]
    types: list[DeviceType]
    power_typical_w: np.ndarray
    power_max_w: np.ndarray
    liquid_fraction: np.ndarray
    weight_kg: np.ndarray
    airflow_cfm: np.ndarray  # NaN where the catalog gives none
    gpus: np.ndarray
    is_it: np.ndarray  # draws IT power (not a PDU, CDU or rack)
    is_pdu: np.ndarray
    is_cdu: np.ndarray
    fills_rack: np.ndarray


#: Kinds whose draw is facility load (pumps and fans of cooling units), not IT load.
FACILITY_KINDS = frozenset({"cdu", "crah"})


def gpu_tdp_w(t: DeviceType, catalog: Catalog) -> float:
    """TDP of the GPUs a device holds (0 when it holds none, or the catalog gives none)."""
    if not t.gpu_count or not t.gpu:
        return 0.0
    gpu = catalog.find(t.gpu)
    return float(gpu.gpu_spec.tdp_w or 0.0) if gpu is not None and gpu.gpu_spec is not None else 0.0


def _type_table(type_ids: list[str], catalog: Catalog, gpu_power_cap_w: float | None = None) -> TypeTable:
    types = [catalog.get(t) for t in type_ids]

    def col(fn, default=0.0):
        return np.array([fn(t) if fn(t) is not None else default for t in types], dtype=float)

    # One figure stands in for the other when the catalog gives only one (a switch's typical draw).
    maxw = np.array([t.power_max_w if t.power_max_w is not None else (t.power_typical_w or 0.0) for t in types],
                    dtype=float)
    typical = np.array([t.power_typical_w if t.power_typical_w is not None else (t.power_max_w or 0.0)
                        for t in types], dtype=float)
    if gpu_power_cap_w is not None:
        # the design's GPU power cap, applied here once so that every engine (power, cooling, the PDF that
        # reads them) sees the same capped draw: the GPUs' share of each system's maximum scales to cap/TDP
        for k, t in enumerate(types):
            typical[k], maxw[k] = capped_draw(typical[k], maxw[k], t.gpu_count or 0, gpu_tdp_w(t, catalog),
                                              gpu_power_cap_w)
    it = np.array([t.kind not in FACILITY_KINDS and (t.power_max_w is not None or t.power_typical_w is not None)
                   for t in types], dtype=bool)
    return TypeTable(
        ids=type_ids, types=types, power_typical_w=typical, power_max_w=maxw,
        liquid_fraction=col(lambda t: t.liquid_fraction), weight_kg=col(lambda t: t.weight_kg),
        airflow_cfm=col(lambda t: t.airflow_cfm, np.nan), gpus=col(lambda t: t.gpu_count),
        is_it=it, is_pdu=np.array([t.kind == "pdu" for t in types]),
        is_cdu=np.array([t.kind == "cdu" for t in types]),
        fills_rack=np.array([t.fills_rack for t in types]),
    )


@dataclass(frozen=True)
class DesignArrays:
    types: TypeTable
    #: per mounted device
    dev_rack: np.ndarray
    dev_type: np.ndarray
    #: per rack
    rack_ids: list[str]
    rack_type: np.ndarray  # index into ``types``
    rack_hall: np.ndarray  # index into ``hall_ids``
    rack_row: list[str]
    #: each rack's centre on the plan, mm
    rack_x: np.ndarray
    rack_y: np.ndarray
    hall_ids: list[str]
    #: per floor device
    floor_type: np.ndarray
    floor_hall: np.ndarray

    @property
    def n_racks(self) -> int:
        return len(self.rack_ids)

    @cached_property
    def gpus(self) -> int:
        """The GPUs of the mounted devices (what the devices section counts)."""
        return int(np.sum(self.types.gpus[self.dev_type])) if len(self.dev_type) else 0

    @cached_property
    def places_in_rows(self) -> np.ndarray:
        """Each rack's place along its row, 0, 1, 2 ... as they stand: by x in a row that runs along x
        (its racks spread wider in x than in y), else by y."""
        _, row_of = self.rows
        n, nr = len(row_of), len(self.rows[0])
        if not n:
            return np.zeros(0, dtype=np.int64)
        spans = []
        for coord in (self.rack_x, self.rack_y):
            lo, hi = np.full(nr, np.inf), np.full(nr, -np.inf)
            np.minimum.at(lo, row_of, coord)
            np.maximum.at(hi, row_of, coord)
            spans.append(hi - lo)
        along = np.where((spans[0] >= spans[1])[row_of], self.rack_x, self.rack_y)
        by_row = np.lexsort((np.arange(n), along, row_of))
        place = np.empty(n, dtype=np.int64)
        place[by_row] = np.arange(n) - np.searchsorted(row_of[by_row], row_of[by_row], side="left")
        return place

    @cached_property
    def rows(self) -> tuple[list[tuple[int, str]], np.ndarray]:
        """The rows, as sorted (hall index, row name) pairs, and each rack's index into them."""
        index: dict[tuple[int, str], int] = {}
        first = [index.setdefault(k, len(index)) for k in zip(self.rack_hall.tolist(), self.rack_row)]
        order = sorted(index)
        rank = np.empty(len(order), dtype=np.int64)
        rank[[index[k] for k in order]] = np.arange(len(order))
        return order, rank[np.asarray(first, dtype=np.int64)] if first else np.zeros(0, dtype=np.int64)

    def per_rack(self, values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Sum a per-device quantity over each rack."""
        w = values if mask is None else np.where(mask, values, 0.0)
        return np.bincount(self.dev_rack, weights=w, minlength=self.n_racks)

    def dev(self, column: np.ndarray) -> np.ndarray:
        """A per-type column expanded to one value per mounted device."""
        return column[self.dev_type]


def flatten(project: Project, catalog: Catalog) -> DesignArrays:
    index: dict[str, int] = {}
    dev_rack: list[int] = []
    dev_type: list[int] = []
    rack_type: list[int] = []
    xs: list[float] = []
    ys: list[float] = []
    for i, rack in enumerate(project.racks):
        rack_type.append(index.setdefault(rack.type, len(index)))
        xs.append(rack.x)
        ys.append(rack.y)
        for d in rack.devices:
            dev_rack.append(i)
            dev_type.append(index.setdefault(d.type, len(index)))
    floor_type = [index.setdefault(f.type, len(index)) for f in project.floor_devices]
    hall_ids = [h.id for h in project.halls]
    hall_pos = {h: i for i, h in enumerate(hall_ids)}
    return DesignArrays(
        types=_type_table(list(index), catalog, project.settings.gpu_power_cap_w),
        dev_rack=np.asarray(dev_rack, dtype=np.int64),
        dev_type=np.asarray(dev_type, dtype=np.int64),
        rack_ids=[r.id for r in project.racks],
        rack_type=np.asarray(rack_type, dtype=np.int64),
        rack_hall=np.asarray([hall_pos[r.hall] for r in project.racks], dtype=np.int64),
        rack_row=[r.row for r in project.racks],
        rack_x=np.asarray(xs, dtype=float), rack_y=np.asarray(ys, dtype=float),
        hall_ids=hall_ids,
        floor_type=np.asarray(floor_type, dtype=np.int64),
        floor_hall=np.asarray([hall_pos[f.hall] for f in project.floor_devices], dtype=np.int64),
    )
