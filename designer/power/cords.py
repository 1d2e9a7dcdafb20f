"""The power cabling of every rack, cord by cord: which supply plugs into which outlet, and which feed each
rack inlet takes, for NetBox (power ports, outlets, feeds and power cables) and the pull lists.

It follows the convention :mod:`.feeds` loads the feeds with, so the cords and the feed loads agree:

- A rack's inlets are its PDUs and mounted power shelves, in the order the rack lists them, alternating
  between feeds A and B (the first on A); a rack-scale system's own shelves (an NVL72's eight) are inlets of
  that system, the first half (rounded up) on A.
- A device's supplies are split between the feeds: the first half on A, the second on B, and an odd one on A
  and B in turn, device by device, counted afresh in every rack (:func:`.feeds._odd_supply_on_a`). A rack with
  inlets on one feed only takes every supply on that feed. A device without supply data is dual-corded (two
  supplies); trays fed from the busbar by the rack's power shelves have no cord.
- A supply plugs into an outlet of its coupler (a C20 inlet into a C19 outlet; a C14 into a C13, else a spare
  C19), on the PDU of its feed with the most such outlets still free (the supplies spread over a feed's PDUs
  as :mod:`.feeds` spreads their load), the lowest-numbered free outlet first.

Each inlet takes its own feed from the row's distribution element of its side (a busway or a remote power
panel, per parallel run as :mod:`.chain` splits a row): one power panel per row, run and side.

Names, unique per device and the same on every export: a supply ``PSU1`` ... (``PSU1`` to ``PSUn/2`` on A); a
PDU's input ``Input`` and its outlets ``C13-01``..., ``C19-01``... by coupler (``01``... where the catalog
gives no split); a rack-scale system's shelf inputs ``PS1``... (shelf order); a mounted shelf's input ``AC in``.
A feed is named for its rack, side and number on that side (``R01-03 A1``); a panel for its hall, row, side
and run.

Built when an export asks for it, not in every analysis; a 100,000-GPU design has some 80,000 cords.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from catalog import Catalog

from ..arrays import FACILITY_KINDS, flatten
from ..model import Project
from .feeds import _odd_supply_on_a, circuit_kw, dual_cord_coupler

#: a supply's coupler -> the outlet kinds it plugs into, in order of preference
FITS = {"C20": ("C19",), "C14": ("C13", "C19")}


@dataclass(frozen=True)
class Inlet:
    """One rack inlet and the feed it takes."""

    rack: str  # rack id
    device: str  # device id (the PDU, the mounted shelf, or the rack-scale system)
    port: str  # the inlet's power-port name on that device
    side: str  # "A" or "B"
    number: int  # 1, 2 ... on its side of the rack
    panel: int  # index into PowerCabling.panels
    voltage_v: float
    current_a: float
    phases: int
    kind: str  # "pdu", "shelf" (a mounted shelf) or "system" (a rack-scale system's own shelf)


@dataclass(frozen=True)
class Cord:
    """A supply's cord: the device's power port into a PDU's outlet."""

    device: str
    port: str
    pdu: str
    outlet: str
    side: str


@dataclass(frozen=True)
class Panel:
    """A row's distribution element on one side (one per parallel run)."""

    hall: str  # hall id
    row: str
    side: str
    run: int  # 1, 2 ...


@dataclass(frozen=True)
class PowerCabling:
    inlets: tuple[Inlet, ...]
    cords: tuple[Cord, ...]
    panels: tuple[Panel, ...]
    #: supplies left without a cord: no inlet in the rack on any feed, or no free outlet that fits
    unplugged: int


@dataclass(frozen=True)
class SupplyPort:
    """One power input of a device type: a supply's inlet, a PDU's or shelf's input."""

    name: str
    coupler: str  # "C20", "C14", or "3P+N+E"/"P+N+E" for an industrial (IEC 60309) input
    maximum_w: int  # what the input can draw: the supply's rating, or the input circuit's
    allocated_w: int  # its share of the device's maximum draw in normal operation (0 for a PDU: it passes on)
    voltage_v: float = 0.0


def supply_ports(dev, catalog: Catalog) -> list[SupplyPort]:
    """A device type's power inputs, named as :func:`power_cabling` names them.

    A PDU has one ``Input`` and a mounted power shelf one ``AC in``; a rack-scale system its shelves' inputs
    ``PS1``...; a device that draws IT power its supplies ``PSU1``..., two where the catalog gives no supply
    data (dual-corded, as the feed loads take it; a tray in a rack with power shelves is fed from the busbar and
    gets no cord).
    """
    if dev is None:
        return []
    if dev.kind in ("pdu", "power_shelf"):
        return [SupplyPort("Input" if dev.kind == "pdu" else "AC in", _industrial(dev), round(_circuit_w(dev)), 0,
                           float(dev.voltage_v or 0))]
    shelves, part = _system_shelves(dev, catalog)
    maxw = float(dev.power_max_w or 0)
    if shelves:
        return [SupplyPort(f"PS{k}", _industrial(part), round(_circuit_w(part)), round(maxw / shelves),
                           float(part.voltage_v or 0)) for k in range(1, shelves + 1)]
    if dev.psu is not None:
        n = int(dev.psu.count)
        return [SupplyPort(f"PSU{k}", dev.psu.coupler, round(dev.psu.rating_w), round(maxw / max(n, 1)))
                for k in range(1, n + 1)]
    if dev.kind in FACILITY_KINDS or not (dev.power_max_w or dev.power_typical_w):
        return []
    # each cord able to carry it all (1+1): the coupler that carries its maximum ("" where none does)
    return [SupplyPort(f"PSU{k}", dual_cord_coupler(maxw), round(maxw), round(maxw / 2)) for k in (1, 2)]


def _industrial(dev) -> str:
    return "3P+N+E" if (dev.phases or 3) == 3 else "P+N+E"


def _circuit_w(dev) -> float:
    return 1000.0 * circuit_kw(dev, 1.0)


def outlet_names(dev) -> list[tuple[str, str]]:
    """A PDU type's outlets, (name, coupler) in order: ``C13-01``..., ``C19-01``... by coupler where the catalog
    gives the split, else ``01``... of coupler ``any``."""
    if dev.outlets_c13 or dev.outlets_c19:
        return ([(f"C13-{i:02d}", "C13") for i in range(1, dev.outlets_c13 + 1)]
                + [(f"C19-{i:02d}", "C19") for i in range(1, dev.outlets_c19 + 1)])
    return [(f"{i:02d}", "any") for i in range(1, dev.outlets + 1)]


def _system_shelves(dev, catalog: Catalog):
    """A rack-scale system's own power shelves: (count, the shelf's catalog entry)."""
    for comp in dev.components:
        part = catalog.find(comp.id)
        if part is not None and part.kind == "power_shelf":
            return int(comp.count), part
    return 0, None


def power_cabling(project: Project, catalog: Catalog) -> PowerCabling:
    arrays = flatten(project, catalog)
    order, row_of = arrays.rows
    place = arrays.places_in_rows
    in_row = np.bincount(row_of, minlength=len(order)) if len(row_of) else np.zeros(0, dtype=np.int64)
    halls = {h.id: h for h in project.halls}
    panels: dict[tuple, int] = {}
    # the odd supply's side, device by device, as the feed loads count it
    types = [catalog.find(d.type) for r in project.racks for d in r.devices]
    count = np.array([(t.psu.count if t is not None and t.psu else 2) for t in types], dtype=np.int64)
    is_it = arrays.types.is_it[arrays.dev_type]
    odd_on_a = _odd_supply_on_a((count % 2 == 1) & is_it, arrays.dev_rack, arrays.n_racks) if len(types) else []
    inlets: list[Inlet] = []
    cords: list[Cord] = []
    port_cache: dict[str, tuple] = {}
    shelf_cache: dict[str, tuple] = {}

    def shelves_of(t) -> tuple:
        if t is None:
            return 0, None
        if t.id not in shelf_cache:
            shelf_cache[t.id] = _system_shelves(t, catalog)
        return shelf_cache[t.id]

    unplugged = 0
    k = 0
    for i, rack in enumerate(project.racks):
        devs = list(zip(rack.devices, types[k:k + len(rack.devices)], range(k, k + len(rack.devices))))
        k += len(rack.devices)
        hall = halls.get(rack.hall)
        runs = max(1, int(hall.facility.distribution_runs)) if hall is not None else 1
        row = int(row_of[i])
        run = int(place[i]) * runs // max(int(in_row[row]), 1) + 1

        def panel(side: str, rack=rack, run=run) -> int:
            return panels.setdefault((rack.hall, rack.row, side, run), len(panels))

        rack_inlets: list[Inlet] = []
        mounted = [(d, t) for d, t, _ in devs if t is not None and t.kind in ("pdu", "power_shelf")]
        numbers = {"A": 0, "B": 0}
        for n, (d, t) in enumerate(mounted):
            side = "AB"[n % 2]
            numbers[side] += 1
            rack_inlets.append(Inlet(rack.id, d.id, "Input" if t.kind == "pdu" else "AC in", side, numbers[side],
                                     panel(side), float(t.voltage_v or 0), float(t.current_a or 0), t.phases or 3,
                                     "pdu" if t.kind == "pdu" else "shelf"))
        for d, t, _ in devs:
            shelves, part = shelves_of(t)
            for s in range(shelves):
                side = "A" if s < (shelves + 1) // 2 else "B"
                numbers[side] += 1
                rack_inlets.append(Inlet(rack.id, d.id, f"PS{s + 1}", side, numbers[side], panel(side),
                                         float(part.voltage_v or 0), float(part.current_a or 0), part.phases or 3,
                                         "system"))
        inlets.extend(rack_inlets)
        pdus = {"A": [], "B": []}
        free: dict[str, dict[str, list[str]]] = {}
        for inlet in rack_inlets:
            if inlet.kind == "pdu":
                dev = catalog.find(next(d.type for d, _, _ in devs if d.id == inlet.device))
                names = outlet_names(dev)
                pdus[inlet.side].append(inlet.device)
                free[inlet.device] = {kind: [n for n, kd in names if kd == kind] for kind in ("C13", "C19", "any")}
        shelf_fed = any(inlet.kind == "shelf" for inlet in rack_inlets)
        for d, t, j in devs:
            if t is None or not is_it[j] or t.kind == "power_shelf":
                continue  # draws no IT power (a PDU, a CDU) or is an inlet itself
            if shelves_of(t)[0]:
                continue  # its shelves are its inlets
            if t.psu is None and shelf_fed:
                continue  # a tray on the busbar
            ports = port_cache.get(t.id)
            if ports is None:
                ports = port_cache[t.id] = tuple(supply_ports(t, catalog))
            if not ports:
                continue
            c = len(ports)
            on_a = c // 2 + (1 if c % 2 and odd_on_a[j] else 0)
            if not numbers["B"]:  # a rack with inlets on one feed takes every supply there, as the engine does
                on_a = c
            elif not numbers["A"]:
                on_a = 0
            for p, port in enumerate(ports):
                side = "A" if p < on_a else "B"
                # no outlet takes a supply whose coupler is unknown, nor one on a side whose inlets are shelves
                plugged = _plug(free, pdus[side], FITS[port.coupler]) if port.coupler in FITS else None
                if plugged is None:
                    unplugged += 1
                    continue
                cords.append(Cord(d.id, port.name, plugged[0], plugged[1], side))
    return PowerCabling(inlets=tuple(inlets), cords=tuple(cords),
                        panels=tuple(Panel(h, r, s, n) for (h, r, s, n) in panels), unplugged=unplugged)


def _plug(free: dict, pdus: list[str], kinds: tuple[str, ...]) -> tuple[str, str] | None:
    """The outlet a supply takes: of the first kind any PDU of its feed has free, on the PDU with the most of
    that kind free (the first such PDU on a tie), its lowest-numbered one."""
    for kind in (*kinds, "any"):
        best = max(pdus, key=lambda p: len(free[p][kind]), default=None)
        if best is not None and free[best][kind]:
            return best, free[best][kind].pop(0)
    return None
