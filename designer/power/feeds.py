"""A rack's two feeds: what each inlet carries in normal operation, with a feed lost, with one inlet lost,
at the transient peak, per phase, and how many outlets of each kind it needs.

How supplies meet feeds (the convention the generator builds to and NVIDIA's guidance assumes):
- A rack's inlets are its rack PDUs, or, for a rack-scale system and for mounted power shelves, the
  shelves' AC inputs. Inlets alternate between feeds A and B in the order they are listed.
- A device's supplies are split between the feeds, the odd one on A: a DGX B200's six go three and
  three, an NVL72's 48 shelf supplies 24 and 24. In normal operation the supplies share the load
  equally, so each feed carries its share of the supplies.
- When a feed is lost, the device draws what its surviving supplies can deliver, at most its
  maximum: a DGX B200 on three of six 3.3 kW supplies throttles to 9.9 kW (the PSU behaviour
  NVIDIA documents as GPU power caps of 800 W with 3-4 supplies alive), an NVL72 on 24 of 48 keeps
  its full 132 kW.
- A device without supply data is taken as dual-corded with each cord able to carry it (1+1), the
  common case for switches and servers; devices without supplies in a rack with power shelves (compute
  and NVLink-switch trays) are fed from the busbar by those shelves.
- Single-phase supplies are plugged heaviest first, each on the lightest phase so far, as a careful
  installer balances them; a power shelf's three-phase input is balanced by construction. Up the chain, rack
  PDUs are connected with their phases rotated rack by rack along the row (rack 2's L1 on the busway's
  L2 ...), the usual tap-off practice.
- Peak: a system with a published (or estimated) peak factor draws typical x factor for
  milliseconds during synchronised steps, at most what its supplies can deliver; others peak at
  their maximum.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from catalog import Catalog

from ..arrays import DesignArrays

SQRT3 = 3.0 ** 0.5


@dataclass(frozen=True)
class RackFeeds:
    """Per rack, per feed (``_a``/``_b``), in kW unless named otherwise."""

    inlet_kind: list[str | None]  # "pdu", "power_shelf" or None per rack
    inlets_a: np.ndarray
    inlets_b: np.ndarray
    continuous_a: np.ndarray  # derated capacity (normal operation)
    continuous_b: np.ndarray
    rating_a: np.ndarray  # full rating x power factor (failover and peaks): inlets x the feed's weakest inlet
    rating_b: np.ndarray
    normal_a: np.ndarray
    normal_b: np.ndarray
    fail_a: np.ndarray  # on A when B is lost
    fail_b: np.ndarray
    throttled_kw: np.ndarray  # load shed by throttling in the worse feed loss
    inlet_lost_kw: np.ndarray  # the most one inlet carries after another inlet of the rack is lost
    peak_a: np.ndarray
    peak_b: np.ndarray
    phases_a: np.ndarray  # (racks, 3)
    phases_b: np.ndarray
    c19_need_a: np.ndarray
    c19_need_b: np.ndarray
    c13_need_a: np.ndarray
    c13_need_b: np.ndarray
    c19_have_a: np.ndarray
    c19_have_b: np.ndarray
    c13_have_a: np.ndarray
    c13_have_b: np.ndarray
    outlets_a: np.ndarray  # every outlet, whatever its coupler
    outlets_b: np.ndarray
    outlets_split: np.ndarray  # every PDU of the rack says how many of its outlets are C13 and C19
    weakest_inlet_kw: np.ndarray  # the smallest inlet rating of the rack (inf without inlets)
    unrated: np.ndarray  # an inlet without a rating: the rack's circuits are not checked
    single_phase: np.ndarray  # every PDU of the rack is single-phase
    single_corded: np.ndarray  # devices on one supply in a rack with two feeds

    @property
    def failover(self) -> np.ndarray:
        return np.maximum(self.fail_a, self.fail_b)


def imbalance(phases: np.ndarray) -> np.ndarray:
    """Largest deviation from the mean phase load over the mean (0 for an unloaded circuit)."""
    mean = phases.mean(axis=-1)
    dev = np.abs(phases - mean[..., None]).max(axis=-1)
    return np.divide(dev, mean, out=np.zeros_like(mean), where=mean > 1e-12)




#: the most one cord of a coupler carries at 230 V: IEC 60320 C13/C14 10 A, C19/C20 16 A
C14_MAX_W, C20_MAX_W = 2300.0, 3680.0


def dual_cord_coupler(max_w: float) -> str:
    """The inlet of a device without supply data, taken as dual-corded with each cord able to carry it all: a
    C14 where 10 A at 230 V does, a C20 where 16 A does, else none that fits ("")."""
    if max_w <= C14_MAX_W:
        return "C14"
    return "C20" if max_w <= C20_MAX_W else ""


def circuit_kw(dev, power_factor: float) -> float:
    """Real power a PDU's or power shelf's input carries at its full rating (before derating)."""
    if not (dev.voltage_v and dev.current_a):
        return 0.0
    return (SQRT3 if dev.phases == 3 else 1.0) * dev.voltage_v * dev.current_a * power_factor / 1000.0


@dataclass(frozen=True)
class _TypeSupply:
    """Per device type: what it offers as an inlet and what its supplies deliver (kW)."""

    is_pdu: np.ndarray
    is_shelf: np.ndarray
    phases_of: np.ndarray
    inlet_kw: np.ndarray
    comp_shelves: np.ndarray  # shelves a rack-scale system brings with it
    comp_shelf_kw: np.ndarray  # and the rating of one
    has_psu: np.ndarray
    count: np.ndarray
    rating: np.ndarray
    c20: np.ndarray
    maxkw: np.ndarray
    peak: np.ndarray


def _type_supplies(arrays: DesignArrays, catalog: Catalog, power_factor: float) -> _TypeSupply:
    # Built once per type, so the per-device work below stays array indexing.
    t = arrays.types
    types = t.types
    nt = len(types)
    kind = [d.kind for d in types]
    is_pdu = np.array([k == "pdu" for k in kind], dtype=bool)
    is_shelf = np.array([k == "power_shelf" for k in kind], dtype=bool)
    phases_of = np.array([d.phases or 3 for d in types], dtype=np.int64)
    inlet_kw = np.array([circuit_kw(d, power_factor) if d.kind in ("pdu", "power_shelf") else 0.0 for d in types],
                        dtype=float)
    # shelves a rack-scale system brings with it, and the rating of one
    comp_shelves = np.zeros(nt)
    comp_shelf_kw = np.zeros(nt)
    for k, d in enumerate(types):
        for comp in d.components:
            part = catalog.find(comp.id)
            if part is not None and part.kind == "power_shelf":
                comp_shelves[k] += comp.count
                comp_shelf_kw[k] = circuit_kw(part, power_factor)
    has_psu = np.array([d.psu is not None for d in types], dtype=bool)
    count = np.array([d.psu.count if d.psu else 2 for d in types], dtype=float)
    rating = np.array([d.psu.rating_w / 1000.0 if d.psu else 0.0 for d in types], dtype=float)
    c20 = np.array([d.psu.coupler == "C20" if d.psu else
                    dual_cord_coupler(float(d.power_max_w or 0)) != "C14" for d in types], dtype=bool)
    maxkw = t.power_max_w / 1000.0 * t.is_it
    typical = t.power_typical_w / 1000.0 * t.is_it
    rating = np.where(has_psu, rating, maxkw)  # 1+1 where no supply data: each cord carries it all
    factor = np.array([d.peak_factor or 0.0 for d in types], dtype=float)
    peak = np.where(factor > 0, np.minimum(typical * factor, count * rating), maxkw)
    return _TypeSupply(is_pdu=is_pdu, is_shelf=is_shelf, phases_of=phases_of, inlet_kw=inlet_kw,
                       comp_shelves=comp_shelves, comp_shelf_kw=comp_shelf_kw, has_psu=has_psu, count=count,
                       rating=rating, c20=c20, maxkw=maxkw, peak=peak)


@dataclass(frozen=True)
class _Inlets:
    """A rack's inlets (PDUs and power shelves, mounted or brought by a system), feed by feed."""

    inlet_dev: np.ndarray  # devices that are inlets, in rack order
    racks_of: np.ndarray  # their racks
    on_a: np.ndarray  # which of them are on feed A
    shelf_in: np.ndarray  # which of them are power shelves
    inlets_a: np.ndarray
    inlets_b: np.ndarray
    weakest: list[np.ndarray]  # per feed: the weakest inlet's rating (0 without inlets)
    unrated: np.ndarray
    inlet_kind: list[str | None]
    single_phase: np.ndarray


def _rack_inlets(arrays: DesignArrays, ts: _TypeSupply) -> _Inlets:
    n_racks = arrays.n_racks
    dev_t = arrays.dev_type
    dev_r = arrays.dev_rack
    is_pdu, is_shelf = ts.is_pdu, ts.is_shelf
    comp_shelves, comp_shelf_kw = ts.comp_shelves, ts.comp_shelf_kw
    inlet_dev = np.nonzero(is_pdu[dev_t] | is_shelf[dev_t])[0]
    racks_of = dev_r[inlet_dev]
    first = np.searchsorted(racks_of, racks_of, side="left")
    on_a = (np.arange(len(inlet_dev)) - first) % 2 == 0
    kw_full = ts.inlet_kw[dev_t[inlet_dev]]
    # a rack-scale system's own shelves: the first half (rounded up) on A
    sys_shelves = arrays.per_rack(comp_shelves[dev_t])
    sys_kw = arrays.per_rack(comp_shelves[dev_t] * comp_shelf_kw[dev_t])
    per_shelf = np.divide(sys_kw, sys_shelves, out=np.zeros(n_racks), where=sys_shelves > 0)
    sa, sb = np.ceil(sys_shelves / 2), np.floor(sys_shelves / 2)
    inlets_a = np.bincount(racks_of[on_a], minlength=n_racks).astype(float) + sa
    inlets_b = np.bincount(racks_of[~on_a], minlength=n_racks).astype(float) + sb
    # Supplies spread evenly over a feed's inlets, so the feed is as strong as its weakest inlet times their
    # number (a 60 A and a 32 A PDU on one feed carry two 32 A shares, not 60 + 32).
    weakest = []
    for side, extra in ((on_a, sa), (~on_a, sb)):
        w = np.full(n_racks, np.inf)
        np.minimum.at(w, racks_of[side], kw_full[side])
        w = np.where(extra > 0, np.minimum(w, per_shelf), w)
        weakest.append(np.where(np.isfinite(w), w, 0.0))
    # an inlet the catalog gives no rating for (a user's shelf without its AC input) leaves the rack unrated
    unrated_dev = np.bincount(racks_of, weights=(kw_full <= 0).astype(float), minlength=n_racks) > 0
    unrated = unrated_dev | ((sys_shelves > 0) & (per_shelf <= 0))
    pdus_in_rack = np.bincount(racks_of[is_pdu[dev_t[inlet_dev]]], minlength=n_racks)
    shelves_in_rack = np.bincount(racks_of[is_shelf[dev_t[inlet_dev]]], minlength=n_racks) + sys_shelves
    inlet_kind = ["pdu" if p and not s else "power_shelf" if s else None
                  for p, s in zip(pdus_in_rack.tolist(), shelves_in_rack.tolist())]
    # a rack whose PDUs are all single-phase has one phase to load, nothing to balance
    three = np.bincount(racks_of, weights=(ts.phases_of[dev_t[inlet_dev]] == 3).astype(float), minlength=n_racks)
    single_phase = (pdus_in_rack > 0) & (three == 0)
    return _Inlets(inlet_dev=inlet_dev, racks_of=racks_of, on_a=on_a, shelf_in=is_shelf[dev_t[inlet_dev]],
                   inlets_a=inlets_a, inlets_b=inlets_b, weakest=weakest, unrated=unrated, inlet_kind=inlet_kind,
                   single_phase=single_phase)


@dataclass(frozen=True)
class _Supplies:
    """Per device: how many supplies it has, how many are on feed A, what one delivers, what it draws."""

    it: np.ndarray  # IT devices other than power shelves
    busbar: np.ndarray  # trays fed by the rack's mounted shelves
    c: np.ndarray
    n_a: np.ndarray
    r: np.ndarray
    p: np.ndarray
    pk: np.ndarray


def _odd_supply_on_a(odd: np.ndarray, dev_r: np.ndarray, n_racks: int) -> np.ndarray:
    # A device's odd supply goes to A and B in turn, device by device, as an installer alternates cords;
    # the count restarts in every rack, so each rack's first odd supply is on A.
    odd_rank = np.cumsum(odd) - 1
    rack_first_odd = np.zeros(n_racks)
    if len(odd):
        starts = np.searchsorted(dev_r, np.arange(n_racks), side="left")
        valid = starts < len(odd)
        rack_first_odd[valid] = (np.cumsum(odd) - odd)[starts[valid]]
    return (odd_rank - rack_first_odd[dev_r]) % 2 == 0


def _device_supplies(arrays: DesignArrays, ts: _TypeSupply, inl: _Inlets) -> _Supplies:
    t = arrays.types
    n_racks = arrays.n_racks
    dev_t = arrays.dev_type
    dev_r = arrays.dev_rack
    inlet_dev, racks_of, on_a, shelf_in = inl.inlet_dev, inl.racks_of, inl.on_a, inl.shelf_in
    inlets_a, inlets_b = inl.inlets_a, inl.inlets_b
    count, rating = ts.count, ts.rating
    it = t.is_it[dev_t] & ~ts.is_shelf[dev_t]
    mounted_shelves = np.bincount(racks_of[shelf_in], minlength=n_racks) > 0
    busbar = it & ~ts.has_psu[dev_t] & mounted_shelves[dev_r]  # trays fed by the rack's mounted shelves
    c = count[dev_t]
    r = rating[dev_t]
    p = ts.maxkw[dev_t] * it
    pk = ts.peak[dev_t] * it
    only_b = (inlets_a == 0) & (inlets_b > 0)
    only_a = (inlets_a > 0) & (inlets_b == 0)
    odd = (c % 2 == 1) & it
    odd_on_a = _odd_supply_on_a(odd, dev_r, n_racks)
    split_a = np.floor(c / 2) + np.where(odd & odd_on_a, 1.0, 0.0)
    n_a = np.where(only_b[dev_r], 0.0, np.where(only_a[dev_r], c, split_a))
    if busbar.any():
        # the trays of a rack share its shelves' supplies in proportion to their draw, feed by feed
        shelf_dev = inlet_dev[shelf_in]
        shelf_a = on_a[shelf_in]
        sup_a = np.bincount(dev_r[shelf_dev[shelf_a]], weights=count[dev_t[shelf_dev[shelf_a]]], minlength=n_racks)
        sup = np.bincount(dev_r[shelf_dev], weights=count[dev_t[shelf_dev]], minlength=n_racks)
        sup_kw = np.bincount(dev_r[shelf_dev], weights=count[dev_t[shelf_dev]] * rating[dev_t[shelf_dev]],
                             minlength=n_racks)
        rack_busbar_kw = arrays.per_rack(p, busbar)
        share = np.divide(p, rack_busbar_kw[dev_r], out=np.zeros_like(p), where=rack_busbar_kw[dev_r] > 0)
        c = np.where(busbar, sup[dev_r] * share, c)
        n_a = np.where(busbar, sup_a[dev_r] * share, n_a)
        r = np.where(busbar, np.divide(sup_kw[dev_r], sup[dev_r], out=np.zeros_like(p), where=sup[dev_r] > 0), r)
    return _Supplies(it=it, busbar=busbar, c=c, n_a=n_a, r=r, p=p, pk=pk)


def _one_inlet_lost(arrays: DesignArrays, s: _Supplies, k_lost: np.ndarray, n_lost: np.ndarray,
                    k_other: np.ndarray, n_other: np.ndarray) -> np.ndarray:
    """One inlet lost: its share of the feed's supplies goes, the rest carry what they can."""
    dev_r = arrays.dev_rack
    c, r, p = s.c, s.r, s.p
    kl = k_lost[dev_r]
    gone = np.divide(n_lost, kl, out=np.zeros_like(n_lost), where=kl > 0)
    left = c - gone
    p2 = np.minimum(p, left * r)
    per_supply = np.divide(p2, left, out=np.zeros_like(p2), where=left > 0)
    ko = k_other[dev_r]
    same = arrays.per_rack(per_supply * np.divide(n_lost, kl, out=np.zeros_like(n_lost), where=kl > 1))
    other = arrays.per_rack(per_supply * np.divide(n_other, ko, out=np.zeros_like(n_other), where=ko > 0))
    return np.where(k_lost > 0, np.maximum(same, other), 0.0)


def _feed_phases(arrays: DesignArrays, it: np.ndarray, pdu_rack: np.ndarray, single_phase: np.ndarray,
                 per_supply_kw: np.ndarray, n: np.ndarray, side_total: np.ndarray) -> np.ndarray:
    """One feed's load on L1-L3: the supplies spread heaviest first; shelves balanced."""
    n_racks = arrays.n_racks
    dev_r = arrays.dev_rack
    plugged = it & pdu_rack[dev_r] & (n > 0)
    # racks whose supplies are all alike (most racks of a large hall) split q or q + 1 to a phase
    big = np.full(n_racks, -np.inf)
    small = np.full(n_racks, np.inf)
    np.maximum.at(big, dev_r[plugged], per_supply_kw[plugged])
    np.minimum.at(small, dev_r[plugged], per_supply_kw[plugged])
    alike = np.isfinite(big) & (big - small < 1e-12)
    count = np.rint(arrays.per_rack(np.where(plugged, n, 0.0))).astype(np.int64)
    q, extra = np.divmod(count, 3)
    even = (q[:, None] + (np.arange(3)[None, :] < extra[:, None])) * np.where(alike, big, 0.0)[:, None]
    idx = np.nonzero(plugged & ~alike[dev_r])[0]
    sup_dev = np.repeat(idx, np.rint(n[idx]).astype(np.int64))
    kw, rk = per_supply_kw[sup_dev], dev_r[sup_dev]
    order = np.lexsort((-kw, rk))
    rk, kw = rk[order], kw[order]
    rank = np.arange(len(rk)) - np.searchsorted(rk, rk, side="left")
    # each rack's k-th heaviest supply goes on its lightest phase so far: every rack at once, rank by rank
    out = np.zeros((n_racks, 3))
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.searchsorted(rank[by_rank], np.arange(int(rank.max()) + 2 if len(rank) else 1))
    for k in range(len(bounds) - 1):
        sel = by_rank[bounds[k]:bounds[k + 1]]
        racks_k = rk[sel]
        out[racks_k, np.argmin(out[racks_k], axis=1)] += kw[sel]
    out = np.where(alike[:, None], even, out)
    balanced = np.repeat((side_total / 3.0)[:, None], 3, axis=1)
    one = np.zeros((n_racks, 3))
    one[:, 0] = side_total
    return np.where(single_phase[:, None], one, np.where(pdu_rack[:, None], out, balanced))


def _outlets(arrays: DesignArrays, ts: _TypeSupply, inl: _Inlets, s: _Supplies, n_a: np.ndarray,
             n_b: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """C20 inlets need C19 outlets; C14 inlets take C13 or a spare C19.

    Returns the cords needed (C19 A, C19 B, C13 A, C13 B), the outlets had (C19 A, C19 B, C13 A, C13 B,
    all A, all B) and, per rack, how many PDUs give no C13/C19 split.
    """
    t = arrays.types
    types = t.types
    n_racks = arrays.n_racks
    dev_t = arrays.dev_type
    inlet_dev, racks_of, on_a = inl.inlet_dev, inl.racks_of, inl.on_a
    c20 = ts.c20
    # every corded device: one without supply data is dual-corded (two C14 inlets), as its load is taken
    cord = s.it & ~s.busbar & (t.fills_rack[dev_t] == 0)
    need = [arrays.per_rack(np.where(cord & c20[dev_t], n_a, 0.0)),
            arrays.per_rack(np.where(cord & c20[dev_t], n_b, 0.0)),
            arrays.per_rack(np.where(cord & ~c20[dev_t], n_a, 0.0)),
            arrays.per_rack(np.where(cord & ~c20[dev_t], n_b, 0.0))]
    o19 = np.array([d.outlets_c19 for d in types], dtype=float)[dev_t[inlet_dev]]
    o13 = np.array([d.outlets_c13 for d in types], dtype=float)[dev_t[inlet_dev]]
    # a PDU that gives only its total outlets (no C13/C19 split) is checked on the total
    o_all = np.array([max(d.outlets, d.outlets_c19 + d.outlets_c13) for d in types], dtype=float)[dev_t[inlet_dev]]
    have = [np.bincount(racks_of[side], weights=o[side], minlength=n_racks).astype(float)
            for o in (o19, o13, o_all) for side in (on_a, ~on_a)]
    pdu_in = ts.is_pdu[dev_t[inlet_dev]]
    no_split = np.bincount(racks_of[pdu_in], weights=((o19 + o13)[pdu_in] == 0).astype(float), minlength=n_racks)
    return need, have, no_split


def rack_feeds(arrays: DesignArrays, catalog: Catalog, power_factor: float, derating: float) -> RackFeeds:
    ts = _type_supplies(arrays, catalog, power_factor)
    inl = _rack_inlets(arrays, ts)
    inlets_a, inlets_b, weakest = inl.inlets_a, inl.inlets_b, inl.weakest
    rating_a, rating_b = inlets_a * weakest[0], inlets_b * weakest[1]

    # -- supplies per device and feed ---------------------------------------------------------------
    s = _device_supplies(arrays, ts, inl)
    it, busbar, c, n_a, r, p, pk = s.it, s.busbar, s.c, s.n_a, s.r, s.p, s.pk
    both = (inlets_a > 0) & (inlets_b > 0)
    n_b = c - n_a
    safe_c = np.where(c > 0, c, 1.0)
    normal_a = arrays.per_rack(p * n_a / safe_c)
    normal_b = arrays.per_rack(p * n_b / safe_c)
    peak_a = arrays.per_rack(pk * n_a / safe_c)
    peak_b = arrays.per_rack(pk * n_b / safe_c)
    fa = np.minimum(p, n_a * r)
    fb = np.minimum(p, n_b * r)
    fail_a = arrays.per_rack(fa)
    fail_b = arrays.per_rack(fb)
    total = arrays.per_rack(p)
    # a rack without inlets is taken as dual-corded, so the chain above sees its failover load all the same
    fed_both = both | ((inlets_a == 0) & (inlets_b == 0))
    throttled = np.where(fed_both, np.maximum(total - fail_a, total - fail_b), 0.0)
    single_corded = arrays.per_rack(((c == 1) & it & ~busbar).astype(float)) * both
    inlet_lost = np.maximum(_one_inlet_lost(arrays, s, inlets_a, n_a, inlets_b, n_b),
                            _one_inlet_lost(arrays, s, inlets_b, n_b, inlets_a, n_a))

    # -- phases: the supplies spread over L1-L3 heaviest first; shelves balanced -------------------
    pdu_rack = np.array([k == "pdu" for k in inl.inlet_kind], dtype=bool)
    per_supply_kw = p / safe_c
    phases_a = _feed_phases(arrays, it, pdu_rack, inl.single_phase, per_supply_kw, n_a, normal_a)
    phases_b = _feed_phases(arrays, it, pdu_rack, inl.single_phase, per_supply_kw, n_b, normal_b)

    need, have, no_split = _outlets(arrays, ts, inl, s, n_a, n_b)

    return RackFeeds(
        inlet_kind=inl.inlet_kind, inlets_a=inlets_a, inlets_b=inlets_b,
        continuous_a=rating_a * derating, continuous_b=rating_b * derating, rating_a=rating_a, rating_b=rating_b,
        normal_a=normal_a, normal_b=normal_b, fail_a=np.where((inlets_b > 0) | fed_both, fail_a, normal_a),
        fail_b=np.where((inlets_a > 0) | fed_both, fail_b, normal_b), throttled_kw=throttled, inlet_lost_kw=inlet_lost,
        peak_a=peak_a, peak_b=peak_b, phases_a=phases_a, phases_b=phases_b,
        c19_need_a=need[0], c19_need_b=need[1], c13_need_a=need[2], c13_need_b=need[3],
        c19_have_a=have[0], c19_have_b=have[1], c13_have_a=have[2], c13_have_b=have[3],
        outlets_a=have[4], outlets_b=have[5], outlets_split=no_split == 0, weakest_inlet_kw=np.minimum(
            np.where(inlets_a > 0, weakest[0], np.inf), np.where(inlets_b > 0, weakest[1], np.inf)),
        unrated=inl.unrated, single_phase=inl.single_phase, single_corded=single_corded)
