"""Filling racks: devices stacked into racks by U and by power, and the PDUs each rack needs.

The generator collects every rack here before any is placed, so the whole design goes
to the commands in one step (see :mod:`designer.generate.build`).
"""
from __future__ import annotations

import math

from catalog import Catalog

from ..model import FloorDevice, MountedDevice, Rack
from ..power import pdu_capacity_kw
from ..power.cords import supply_ports
from ..settings import Settings

RACK_TYPE = "rack-48u-600x1200"
CDU_TYPE = "cdu-inrow-2mw"
PDU_TYPES = ("pdu-415v-60a-3ph", "pdu-415v-32a-3ph")
#: The DC power shelf of a busbar-fed server rack (DGX B300 DC, DGX Rubin NVL8).
SHELF_TYPE = "mgx-power-shelf-33kw"
#: Most a network or management rack is filled to (90 % of it): they are air-cooled, and air-cooled racks
#: much above 25-30 kW need rear-door or in-row cooling (dcim.md), whatever the compute racks draw.
NETWORK_RACK_KW = 30.0
#: Lowest U used in network and management racks (U1 left for cable management).
FIRST_U = 2


def _pdu_usable_kw(catalog: Catalog, type_id: str, settings: Settings) -> float:
    d = catalog.get(type_id)
    return pdu_capacity_kw(d.voltage_v, d.current_a, d.phases, settings.power_factor) * settings.derating


def _pdus(catalog: Catalog, rack_id: str, max_kw: float, failover_kw: float, supplies: tuple[int, int],
          settings: Settings, memo: dict | None = None) -> list[MountedDevice]:
    """PDUs for a rack drawing ``max_kw``: on each of feeds A and B enough for half the rack in normal
    operation and for ``failover_kw`` (what the rack draws on one feed) when the other is lost, and enough
    outlets for half the rack's supplies each: ``supplies`` is (C20 inlets, C14 inlets), as a C20 needs a
    C19 outlet and a C14 takes a C13 or a spare C19."""
    if max_kw <= 0:
        return []
    key = (max_kw, failover_kw, supplies)
    best = None if memo is None else memo.get(key)
    if best is None:
        best = _pdu_choice(catalog, max_kw / 2, failover_kw, supplies, settings)
        if memo is not None:
            memo[key] = best
    per_feed, type_id = best
    # Alternating A, B, A, B: the order the power engine assigns feeds in.
    return [MountedDevice(f"{rack_id}-pdu{i + 1}", type_id, None, "rear", f"PDU {'AB'[i % 2]}{i // 2 + 1}")
            for i in range(2 * per_feed)]


def _pdu_choice(catalog: Catalog, normal_kw: float, failover_kw: float, supplies: tuple[int, int],
                settings: Settings) -> tuple[int, str]:
    """(PDUs per feed, PDU type): the type that needs the fewest, the smaller rating on a tie.

    Each feed carries its half of the rack within the continuous limit, and the rack's failover load
    (devices throttled to their surviving supplies) within the rating: the rule that gives NVIDIA's
    2 x 32 A for a 2-DGX B200 rack and 2 x 60 A for a 4-DGX rack."""
    best = None
    for type_id in sorted(PDU_TYPES, key=lambda k: _pdu_usable_kw(catalog, k, settings)):
        usable = _pdu_usable_kw(catalog, type_id, settings)
        full = usable / settings.derating * settings.failover_derating
        dev = catalog.get(type_id)
        c19 = dev.outlets_c19 if (dev.outlets_c19 or dev.outlets_c13) else (dev.outlets or 1)
        outlets = (dev.outlets_c19 + dev.outlets_c13) or dev.outlets or 1
        c20_feed, c14_feed = (math.ceil(n / 2) for n in supplies)
        per_feed = max(math.ceil(normal_kw / usable - 1e-9), math.ceil(failover_kw / full - 1e-9),
                       math.ceil(c20_feed / max(c19, 1)), math.ceil((c20_feed + c14_feed) / outlets))
        if best is None or per_feed < best[0]:
            best = (per_feed, type_id)
    return best


class RackBuilder:
    """Collects racks and CDUs with their places, then hands them to the commands in one step."""

    def __init__(self, catalog: Catalog, settings: Settings, hall: str = "hall-1"):
        self.catalog = catalog
        self.settings = settings
        #: the hall the racks and CDUs are placed in
        self.hall = hall
        self.racks: list[Rack] = []
        self.cdus: list[FloorDevice] = []
        self._types: dict = {}
        self._pdu_memo: dict = {}
        self._cords: dict[str, tuple[int, int]] = {}

    def _one_feed_kw(self, devices: list[MountedDevice]) -> float:
        """What the rack draws on one feed: each device capped by the half (rounded up) of its supplies."""
        total = 0.0
        for d in devices:
            t = self.dtype(d.type)
            mx = (t.power_max_w or 0) / 1000
            total += min(mx, math.ceil(t.psu.count / 2) * t.psu.rating_w / 1000) if t.psu else mx
        return total

    def shelves_for(self, system: str, count: int) -> list[MountedDevice]:
        """Power shelves for ``count`` busbar-fed systems: enough for their peak with one shelf spare (N+1), the
        rule that gives NVIDIA's four 33 kW shelves for four DGX B300 at 19 kW peak (at least three active)."""
        dev, shelf = self.dtype(system), self.dtype(SHELF_TYPE)
        peak_kw = count * (dev.power_max_w or 0) / 1000 * max(1.0, (dev.power_typical_w or dev.power_max_w or 0)
                                                               / (dev.power_max_w or 1) * (dev.peak_factor or 1.0))
        shelf_kw = shelf.psu.usable_w / 1000
        n = math.ceil(peak_kw / shelf_kw - 1e-9) + 1 if peak_kw > 0 else 0
        return [MountedDevice(f"shelf{i + 1}", SHELF_TYPE, FIRST_U + i, "front", f"Power shelf {i + 1}")
                for i in range(n)]

    def _supplies(self, type_id: str) -> tuple[int, int]:
        """(C20, C14-class) cords of a device type, as the power engine plugs them (:func:`supply_ports`: two
        where the catalog gives no supply data)."""
        got = self._cords.get(type_id)
        if got is None:
            ports = supply_ports(self.dtype(type_id), self.catalog)
            c20 = sum(1 for p in ports if p.coupler == "C20")
            got = self._cords[type_id] = (c20, len(ports) - c20)
        return got

    def dtype(self, type_id: str):
        t = self._types.get(type_id)
        if t is None:
            t = self._types[type_id] = self.catalog.get(type_id)
        return t

    def rack(self, rid: str, name: str, place, devices: list[MountedDevice], *, pdus: bool = True) -> Rack:
        if pdus:
            kw = sum((self.dtype(d.type).power_max_w or 0) for d in devices) / 1000
            c20 = c14 = 0
            for d in devices:
                t20, t14 = self._supplies(d.type)
                c20 += t20
                c14 += t14
            supplies = (c20, c14)
            devices = devices + _pdus(self.catalog, rid, kw, self._one_feed_kw(devices), supplies, self.settings,
                                      self._pdu_memo)
        rack = Rack(rid, name, self.hall, RACK_TYPE, place.x, place.y, place.rotation, place.row, tuple(devices))
        self.racks.append(rack)
        return rack


def _stack(items: list[tuple[str, str, str, str]], catalog: Catalog, units: int) -> list[list[MountedDevice]]:
    """``(id suffix, type, name, face)`` stacked from U2 upward, a new rack whenever one is full."""
    racks: list[list[MountedDevice]] = [[]]
    u = FIRST_U
    for suffix, type_id, name, face in items:
        h = int(math.ceil(catalog.get(type_id).u_height or 1))
        if u + h - 1 > units - 1:
            racks.append([])
            u = FIRST_U
        racks[-1].append(MountedDevice(suffix, type_id, u, face, name))
        u += h
    return [r for r in racks if r]


def fill_by_power(items, catalog: Catalog, units: int, limit_kw: float) -> list[list[MountedDevice]]:
    """Like :func:`_stack`, but a rack also closes when its devices would draw more than ``limit_kw``."""
    groups: list[list] = [[]]
    kw = 0.0
    for item in items:
        p = (catalog.get(item[1]).power_max_w or 0) / 1000
        if groups[-1] and kw + p > limit_kw:
            groups.append([])
            kw = 0.0
        groups[-1].append(item)
        kw += p
    out = []
    for g in groups:
        out += _stack(g, catalog, units)
    return out
