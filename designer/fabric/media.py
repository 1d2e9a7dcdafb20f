"""Cable and transceiver choice per link, by each end's cage and the run's length, counted the NVIDIA way.

Why parts come from the catalog's fields, not from fixed ids: a link's parts follow its
cages. A module must match its cage's port speed, ports per cage and top (a finned
module never goes in a flat NIC cage, an NDR 400G part never in an XDR 800G cage), so
an XDR switch cage takes an XDR module even when the far end is a 400G node, and each
end follows its own cage. The table of parts is built once per catalog from the
entries' ``speed_gbps``, ``links``, ``top``, ``form_factor``, ``media``, ``connector``
and ``reach_m``.

Why this order: passive copper is cheapest and draws nothing, so it wins up to its
reach; active copper next; then a splitter (a switch's twin cage to two single-port NIC
cages in the rack). Beyond that, fibre with optics at each end, by class: multimode SR
up to its reach, single-mode DR (MPO) up to 100 or 500 m, FR (duplex LC) up to 2 km;
within a class each cage gets the shortest-reach, cheapest module that reaches. The two
ends of a fibre must share a class (same medium and connector). A twin-port copper cable
joins two cages, so it can only serve two links that run between the *same* pair of
cages; a node's twin cage feeds two rails on two leaves, so node links go on fibre
unless a splitter fits. Fibre is one cable per link; a twin-port module carries two
links, so modules are counted per cage. A cage's links share one module, so a link of a
longer class turns its cages (and their other links) to that class.

A link no part of its speed reaches, or whose cages no part fits, stays NONE: the fabric
engine reports it (:func:`longest_reach`, :meth:`Parts.fits_any` say why).
"""
from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field

import numpy as np

from catalog import Catalog, DeviceType

DAC, ACC, SPLITTER, MMF, SMF, NONE = range(6)
MEDIA = ("dac", "acc", "dac", "mmf", "smf", "")
#: A cable's ``connector`` when it is a splitter: a twin-port end and two single-port (flat, NIC) ends.
SPLIT_CONNECTOR = "OSFP to 2 x OSFP"
_TOL = 1e-9


@dataclass(frozen=True, slots=True)
class Cage:
    """What a port's cage accepts: link speed, ports per cage, top ("" = not stated) and form (OSFP ...)."""

    speed_gbps: float
    ports: int
    top: str = ""
    form: str = ""
    switch: bool = False

    def label(self) -> str:
        ports = {1: "single-port", 2: "twin-port"}.get(self.ports, f"{self.ports}-port")
        top = f", {self.top} top" if self.top else ""
        return f"{self.speed_gbps:g}G {ports} {self.form or 'port'} cage{top}"


def cage_of(group, switch: bool) -> Cage:
    """The cage of a catalog port group."""
    return Cage(float(group.speed_gbps), int(group.ports_per_cage), group.top, group.cage, switch)


@dataclass(frozen=True, slots=True)
class Part:
    id: str
    reach: float
    price: float
    lengths: tuple


def _price(d: DeviceType) -> float:
    return d.price.amount if d.price is not None else math.inf


def _top_fits(part_top: str, cage_top: str) -> bool:
    # A cage whose top the catalog does not state takes either; a stated one only its own.
    return not cage_top or part_top == cage_top


class Parts:
    """The catalog's transceivers and cables, indexed for :func:`choose` (built once per catalog)."""

    def __init__(self, catalog: Catalog):
        self.modules = [d for d in catalog.of_kind("transceiver") if d.speed_gbps and d.reach_m and d.links]
        reach: dict[tuple, float] = {}
        for d in self.modules:
            key = (d.media, d.connector)
            reach[key] = max(reach.get(key, 0.0), float(d.reach_m))
        #: fibre classes, (medium, connector), shortest longest reach first: SR, DR, FR
        self.classes = sorted(reach, key=lambda k: (reach[k], k))
        cables = [d for d in catalog.of_kind("cable") if d.speed_gbps and d.lengths_m]
        rank = {"dac": 0, "acc": 1}
        self.copper = sorted((d for d in cables if d.media in rank), key=lambda d: (rank[d.media], _price(d), d.id))
        self.fibre = [d for d in cables if d.media not in rank]
        #: the longest copper cable of any kind (0 without one): no copper choice looks at a longer run
        self.copper_reach = max((float(max(d.lengths_m)) for d in self.copper), default=0.0)
        self._options: dict = {}
        self._fibres: dict = {}
        self._copper: dict = {}

    def options(self, cage: Cage, cls: int) -> list[Part]:
        """Modules of class ``cls`` that fit ``cage``, shortest reach then cheapest first."""
        key = (cage, cls)
        if key not in self._options:
            medium, connector = self.classes[cls]
            fit = [d for d in self.modules if (d.media, d.connector) == (medium, connector)
                   and d.speed_gbps == cage.speed_gbps and d.links == cage.ports and _top_fits(d.top, cage.top)
                   and (not cage.form or not d.form_factor or d.form_factor == cage.form)]
            self._options[key] = [Part(d.id, float(d.reach_m), _price(d), ())
                                  for d in sorted(fit, key=lambda d: (d.reach_m, _price(d), d.id))]
        return self._options[key]

    def reach(self, cage: Cage, cls: int) -> float:
        opts = self.options(cage, cls)
        return opts[-1].reach if opts else 0.0

    def fits_any(self, cage: Cage) -> bool:
        """Whether any transceiver or copper cable of the catalog fits the cage."""
        return any(self.options(cage, c) for c in range(len(self.classes))) or any(
            d.speed_gbps == cage.speed_gbps and _top_fits(d.top, cage.top) and d.links == cage.ports
            for d in self.copper)

    def fibres(self, cls: int, speed: float) -> list[Part]:
        """Fibre cables of class ``cls`` that carry ``speed`` (passive glass: rated at or above it), cheapest first."""
        key = (cls, speed)
        if key not in self._fibres:
            medium, connector = self.classes[cls]
            fit = [d for d in self.fibre if d.media == medium and d.connector == connector
                   and d.speed_gbps >= speed - _TOL]
            self._fibres[key] = [Part(d.id, max(d.lengths_m), _price(d), d.lengths_m)
                                 for d in sorted(fit, key=lambda d: (_price(d), d.id))]
        return self._fibres[key]

    def coppers(self, a: Cage, b: Cage, split: bool) -> list[Part]:
        """Copper cables joining cage ``a`` to twin cage ``b`` (``split``: ``a`` is one of a splitter's single
        ends), passive before active, cheapest first. Copper runs at one speed end to end."""
        key = (a, b, split)
        if key not in self._copper:
            out = []
            for d in self.copper:
                if d.speed_gbps != b.speed_gbps or d.speed_gbps != a.speed_gbps or d.links != b.ports:
                    continue
                if (d.connector == SPLIT_CONNECTOR) != split or not _top_fits(d.top, b.top):
                    continue
                if split and (a.ports != 1 or not _top_fits("flat", a.top)):  # single ends, flat, for NIC cages
                    continue
                if not split and (a.ports != b.ports or not _top_fits(d.top, a.top)):
                    continue
                out.append(Part(d.id, max(d.lengths_m), _price(d), d.lengths_m))
            self._copper[key] = out
        return self._copper[key]

    def medium_code(self, part_id: str, cls: int | None = None) -> int:
        if cls is not None:
            return MMF if self.classes[cls][0] == "mmf" else SMF
        d = next(c for c in self.copper if c.id == part_id)
        return SPLITTER if d.connector == SPLIT_CONNECTOR else (DAC if d.media == "dac" else ACC)


_TABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def parts_table(catalog: Catalog) -> Parts:
    """The parts table of ``catalog``, built on first use and kept while the catalog lives."""
    table = _TABLES.get(catalog)
    if table is None:
        table = _TABLES[catalog] = Parts(catalog)
    return table


def longest_reach(catalog: Catalog, a: Cage, b: Cage) -> float:
    """The longest run any parts of the catalog make between cages ``a`` and ``b`` (0 when none join them)."""
    parts = parts_table(catalog)
    best = 0.0
    speed = min(a.speed_gbps, b.speed_gbps)
    for cls in range(len(parts.classes)):
        fibres = parts.fibres(cls, speed)
        if fibres:
            best = max(best, min(parts.reach(a, cls), parts.reach(b, cls), max(f.reach for f in fibres)))
    if b.ports == 2:
        for p in parts.coppers(a, b, split=False) + parts.coppers(a, b, split=True):
            best = max(best, p.reach)
    return best


def _round_up(lengths: np.ndarray, orderable) -> tuple[np.ndarray, np.ndarray]:
    """(rounded length, fits) — the shortest orderable length not below each length."""
    table = np.asarray(sorted(orderable), dtype=float)
    i = np.searchsorted(table, lengths - 1e-9, side="left")
    fits = i < len(table)
    return np.where(fits, table[np.minimum(i, len(table) - 1)], np.nan), fits


def _pairs(key: np.ndarray, other: np.ndarray) -> np.ndarray:
    """For each link: index of the one other link sharing its cage ``key`` and far cage ``other``, or -1."""
    n = len(key)
    partner = np.full(n, -1, dtype=np.int64)
    if n < 2:
        return partner
    order = np.lexsort((other, key))
    ks, os_ = key[order], other[order]
    same = (ks[1:] == ks[:-1]) & (os_[1:] == os_[:-1])
    # exactly two links in the group: no third neighbour on either side
    left_ok = np.concatenate([[True], ks[1:-1] != ks[:-2]]) if n > 2 else np.array([True])
    right_ok = np.concatenate([ks[2:] != ks[1:-1], [True]]) if n > 2 else np.array([True])
    good = same & left_ok & right_ok
    i = np.nonzero(good)[0]
    partner[order[i]] = order[i + 1]
    partner[order[i + 1]] = order[i]
    return partner


def _distinct(codes: np.ndarray) -> list[int]:
    """The distinct values of small non-negative integer codes, ascending (a count, not a sort)."""
    return np.flatnonzero(np.bincount(codes)).tolist() if len(codes) else []


class _Ids:
    """Part ids in first-use order; links hold an index into them."""

    def __init__(self):
        self.ids: list[str] = []
        self._at: dict[str, int] = {}

    def __call__(self, part_id: str) -> int:
        if part_id not in self._at:
            self._at[part_id] = len(self.ids)
            self.ids.append(part_id)
        return self._at[part_id]


@dataclass
class _Work:
    """The columns :func:`choose` fills in, and what it reads."""

    parts: Parts
    cages: list
    raw: np.ndarray
    a_key: np.ndarray
    b_key: np.ndarray
    a_cage: np.ndarray
    b_cage: np.ndarray
    medium: np.ndarray
    length: np.ndarray
    cable: np.ndarray
    partner: np.ndarray
    cable_ids: _Ids
    #: transceivers by catalog id, one per cage that carries a fibre link (filled in by :func:`_fibre`)
    transceivers: dict = field(default_factory=dict)

    def take(self, sel: np.ndarray, code: int, rounded: np.ndarray, part_id: str) -> None:
        self.medium[sel], self.length[sel], self.cable[sel] = code, rounded, self.cable_ids(part_id)


def _copper_pairs(w: _Work, ports: np.ndarray) -> None:
    """Twin-to-twin copper for links that pair up between the same two cages."""
    # Only runs copper can reach are paired: the links between two cages join the same two devices, so they
    # share a length and a group is kept or left whole (on a million-GPU site 3 % of 3.8 M links are that short,
    # and sorting them all to pair took a sixth of the media choice).
    near = np.nonzero((w.raw <= w.parts.copper_reach + _TOL) & (ports[w.a_cage] == 2) & (ports[w.b_cage] == 2))[0]
    if not len(near):
        return
    mate = _pairs(w.a_key[near], w.b_key[near])
    w.partner[near] = np.where(mate >= 0, near[np.maximum(mate, 0)], -1)
    paired = near[mate >= 0]
    if not len(paired):
        return
    pair_len = np.maximum(w.raw[paired], w.raw[w.partner[paired]])
    kinds = w.a_cage[paired] * len(w.cages) + w.b_cage[paired]
    for kind in _distinct(kinds):
        ka, kb = divmod(kind, len(w.cages))
        sel = paired[kinds == kind]
        for part in w.parts.coppers(w.cages[ka], w.cages[kb], split=False):
            rounded, fits = _round_up(pair_len[kinds == kind], part.lengths)
            take = fits & (w.medium[sel] == NONE)
            w.take(sel[take], w.parts.medium_code(part.id), rounded[take], part.id)


def _splitters(w: _Work, ports: np.ndarray) -> None:
    """A twin switch cage split to two single-port cages, when both runs are short enough."""
    idx = np.nonzero((ports[w.a_cage] == 1) & (ports[w.b_cage] == 2) & (w.medium == NONE))[0]
    if not len(idx):
        return
    mate = _pairs(w.b_key[idx], np.zeros(len(idx), dtype=np.int64))
    kinds = w.a_cage[idx] * len(w.cages) + w.b_cage[idx]
    ok = (mate >= 0) & (kinds == kinds[np.maximum(mate, 0)])
    longest = np.where(ok, np.maximum(w.raw[idx], w.raw[idx[np.maximum(mate, 0)]]), np.inf)
    for kind in _distinct(kinds[ok]):
        ka, kb = divmod(kind, len(w.cages))
        group = ok & (kinds == kind)
        for part in w.parts.coppers(w.cages[ka], w.cages[kb], split=True):
            rounded, fits = _round_up(longest[group], part.lengths)
            sel = idx[group]
            take = fits & (w.medium[sel] == NONE)
            w.take(sel[take], SPLITTER, rounded[take], part.id)
            w.partner[sel[take]] = idx[mate[group][take]]


def _fibre_fits(parts: Parts, cls: int, speed: float, raw: np.ndarray) -> np.ndarray:
    fits = np.zeros(len(raw), dtype=bool)
    for f in parts.fibres(cls, speed):
        fits |= raw <= f.reach + _TOL
    return fits


def _fibre_classes(w: _Work, fi: np.ndarray, cage: np.ndarray) -> np.ndarray:
    """Per fibre link the lowest class both ends and a fibre reach (len(classes) where none does), then
    raised to its cages' classes: a cage's links share one module."""
    n_cls = len(w.parts.classes)
    # a class fits in a byte (a catalog of more than 126 fibre classes aside): the columns below are gathered and
    # compared several times over millions of links
    small = np.int8 if n_cls < 127 else np.int64
    need = np.full(len(fi), n_cls, dtype=small)
    kinds = w.a_cage[fi] * len(w.cages) + w.b_cage[fi]
    raw_fi = w.raw[fi]
    for kind in _distinct(kinds):
        ka, kb = divmod(kind, len(w.cages))
        at = np.nonzero(kinds == kind)[0]
        raw = raw_fi[at]
        spd = min(w.cages[ka].speed_gbps, w.cages[kb].speed_gbps)
        for cls in range(n_cls):
            reach = min(w.parts.reach(w.cages[ka], cls), w.parts.reach(w.cages[kb], cls))
            if reach <= 0:
                continue
            ok = (raw <= reach + _TOL) & _fibre_fits(w.parts, cls, spd, raw) & (need[at] == n_cls)
            need[at[ok]] = cls
    live = need < n_cls
    if live.any() and n_cls > 1:
        ca, cb = cage[:len(fi)], cage[len(fi):]
        every = bool(live.all())  # the usual case: no copy of the columns through the mask
        ca_live, cb_live = (ca, cb) if every else (ca[live], cb[live])
        for _ in range(8):
            top = np.zeros(int(cage.max()) + 1, dtype=small)
            need_live = need if every else need[live]
            np.maximum.at(top, ca_live, need_live)
            np.maximum.at(top, cb_live, need_live)
            raised = np.maximum(top[ca], top[cb]) if every else np.where(live, np.maximum(top[ca], top[cb]), need)
            if (raised == need).all():
                break
            need = raised
    return need.astype(np.int64)  # callers compute group codes from it that pass a byte


def _modules(w: _Work, fi: np.ndarray, cls: np.ndarray, cage: np.ndarray, ids: _Ids) -> tuple[np.ndarray, np.ndarray]:
    """Per fibre link, the module index at each end (-1 where no module of its class reaches): one module per
    cage, the shortest-reach cheapest that reaches the longest of the cage's links, whichever end it is."""
    m, n_cls = len(fi), len(w.parts.classes)
    cls2 = np.concatenate([cls, cls])
    live = cls2 < n_cls
    if not live.any():
        return np.full(m, -1, dtype=np.int64), np.full(m, -1, dtype=np.int64)
    every = bool(live.all())  # the usual case: no copy of 7.5 M link ends through the mask
    n_cages = int(cage.max()) + 1
    need = np.zeros(n_cages)
    ends = np.tile(w.raw[fi], 2)
    np.maximum.at(need, cage if every else cage[live], ends if every else ends[live])
    groups = np.concatenate([w.a_cage[fi], w.b_cage[fi]])
    groups *= n_cls + 1
    groups += cls2  # an end without a class falls in a group of class n_cls, which no option serves
    # A module is chosen per cage, from its kind, its class and its longest run; the class choice gave every link
    # of a cage one class, so each cage has one group and the choice runs over cages, not over link ends (half as
    # many). Where a cage's ends disagree (the class choice stopped before it settled), over the ends.
    per_cage = np.full(n_cages, -1, dtype=np.int64)
    per_cage[cage] = groups
    if (per_cage[cage] == groups).all():
        return _pick_modules(w, per_cage, need, n_cls, ids)[cage].reshape(2, m)
    return _pick_modules(w, groups, need[cage], n_cls, ids).reshape(2, m)


def _pick_modules(w: _Work, groups: np.ndarray, need: np.ndarray, n_cls: int, ids: _Ids) -> np.ndarray:
    """The module index for each entry of ``groups`` (cage kind × (n_cls + 1) + class; -1: no entry) whose
    longest run is ``need``: the shortest-reach cheapest of its kind and class that reaches (-1 where none)."""
    out = np.full(len(groups), -1, dtype=np.int64)
    for g in _distinct(groups[groups >= 0]):
        kind, c = divmod(g, n_cls + 1)
        opts = w.parts.options(w.cages[kind], c) if c < n_cls else []
        if not opts:
            continue
        sel = np.nonzero(groups == g)[0]
        pick = np.searchsorted(np.asarray([o.reach for o in opts]), need[sel] - _TOL, side="left")
        ok = pick < len(opts)
        table = np.full(len(opts), -1, dtype=np.int64)
        for i in _distinct(pick[ok]):  # only the modules taken get an id
            table[i] = ids(opts[i].id)
        out[sel[ok]] = table[pick[ok]]
    return out


#: A cage key is ``device * CAGE_KEY + cage`` (the wiring plan builds them so).
CAGE_BITS = 12
CAGE_KEY = 1 << CAGE_BITS
#: Largest table of (device, cage) slots numbered without sorting: 64 M slots, 64 MB of flags.
DENSE_MAX = 1 << 26


def _slots(keys: np.ndarray) -> np.ndarray | None:
    """Each cage key as a slot of a (device, cage up to the largest in use) table, or None when that table would
    pass DENSE_MAX (or a key is negative): bit operations, as CAGE_KEY is a power of two."""
    dev, cage = keys >> CAGE_BITS, keys & (CAGE_KEY - 1)
    flat = dev * (int(cage.max()) + 1)
    flat += cage
    if int(flat.min()) < 0 or int(flat.max()) >= DENSE_MAX:
        return None
    return flat


def cage_index(keys: np.ndarray) -> np.ndarray:
    """Cage keys as indices of per-cage tables: as they are when they already number the cages compactly (the
    wiring plan numbers every cage of the design; a million-GPU site's 7.5 M link ends then need no numbering
    pass, which took a second), else :func:`dense_ids`."""
    if len(keys) and int(keys.min()) >= 0 and int(keys.max()) < 4 * len(keys) + 1024:
        return keys
    return dense_ids(keys)


def dense_ids(keys: np.ndarray) -> np.ndarray:
    """Each key's rank among the distinct keys (what ``np.unique(..., return_inverse=True)`` gives), found
    without sorting: a flag per (device, cage) slot, and each flagged slot numbered in turn. Sorting 600,000
    keys took a third of the wiring's media choice; a running sum over the 19 M flags of a million-GPU site
    took a second, where numbering only the flagged slots takes a tenth of that."""
    if not len(keys):
        return np.zeros(0, dtype=np.int64)
    flat = _slots(keys)
    if flat is None:
        return np.unique(keys, return_inverse=True)[1].reshape(-1)
    present = np.zeros(int(flat.max()) + 1, dtype=bool)
    present[flat] = True
    used = np.flatnonzero(present)
    rank = np.empty(len(present), dtype=np.int64)  # only the used slots are written, and only they are read
    rank[used] = np.arange(len(used))
    return rank[flat]


def _fibre(w: _Work, module_ids: _Ids) -> tuple[np.ndarray, np.ndarray]:
    """Fibre and optics for every link copper did not take; returns the module columns of both ends."""
    n = len(w.raw)
    mod_a = np.full(n, -1, dtype=np.int64)
    mod_b = np.full(n, -1, dtype=np.int64)
    fi = np.nonzero(w.medium == NONE)[0]
    if not len(fi) or not w.parts.classes:
        return mod_a, mod_b
    speeds = np.asarray([c.speed_gbps for c in w.cages])
    speed = np.minimum(speeds[w.a_cage[fi]], speeds[w.b_cage[fi]])
    # Cages numbered densely once (a end, then b end), so spreading a class and sizing a cage's module are
    # lookups, not set searches.
    cage = cage_index(np.concatenate([w.a_key[fi], w.b_key[fi]]))
    cls = _fibre_classes(w, fi, cage)
    ma, mb = _modules(w, fi, cls, cage, module_ids)
    ok = (ma >= 0) & (mb >= 0)
    groups = cls * (int(speeds.max()) + 1) + speed.astype(np.int64)
    for g in _distinct(groups[ok]):
        c, spd = divmod(g, int(speeds.max()) + 1)
        sel = np.nonzero(ok & (groups == g))[0]
        placed = np.zeros(len(sel), dtype=bool)
        for f in w.parts.fibres(c, float(spd)):
            rounded, fits = _round_up(w.raw[fi[sel]], f.lengths)
            take = fits & ~placed
            w.take(fi[sel[take]], w.parts.medium_code(f.id, c), rounded[take], f.id)
            placed |= take
    done = w.medium[fi] != NONE
    mod_a[fi[done]], mod_b[fi[done]] = ma[done], mb[done]
    # counted here, where each end's cage is already numbered: numbering 7.5 M ends again took 0.3 s at 1M GPUs
    w.transceivers = _per_cage(cage, np.concatenate([np.where(done, ma, -1), np.where(done, mb, -1)]),
                               module_ids.ids)
    return mod_a, mod_b


def choose(catalog: Catalog, raw_m: np.ndarray, a_key: np.ndarray, b_key: np.ndarray,
           a_cage: np.ndarray, b_cage: np.ndarray, cages: list[Cage]) -> dict:
    """Medium, cable, orderable length and end modules for every link (all numpy columns).

    ``*_key`` identify a cage uniquely (device * big + cage); ``*_cage`` index ``cages``, what
    each end's cage accepts. Returns a dict of columns: ``medium`` (code), ``length_m``,
    ``owner`` (True on the link that counts the physical cable: every fibre, the first link
    of a copper pair), ``cable`` (index into ``cable_ids`` or -1), ``module_a`` /
    ``module_b`` (index into ``module_ids`` or -1), the two id lists, and ``transceivers`` (catalog id -> count,
    one per cage that carries a fibre link).
    """
    n = len(raw_m)
    a_cage = np.asarray(a_cage, dtype=np.int64)
    b_cage = np.asarray(b_cage, dtype=np.int64)
    w = _Work(parts_table(catalog), list(cages), np.asarray(raw_m, dtype=float), a_key, b_key, a_cage, b_cage,
              np.full(n, NONE, dtype=np.int8), np.full(n, np.nan), np.full(n, -1, dtype=np.int64),
              np.full(n, -1, dtype=np.int64), _Ids())
    module_ids = _Ids()
    mod_a = mod_b = np.full(n, -1, dtype=np.int64)
    if n:
        ports = np.asarray([c.ports for c in w.cages], dtype=np.int64)
        _copper_pairs(w, ports)
        _splitters(w, ports)
        mod_a, mod_b = _fibre(w, module_ids)
    owner = np.ones(n, dtype=bool)
    copper = (w.medium == DAC) | (w.medium == ACC) | (w.medium == SPLITTER)
    owner[copper] = np.arange(n)[copper] < w.partner[copper]
    return {"medium": w.medium, "length_m": w.length, "owner": owner, "cable": w.cable,
            "cable_ids": w.cable_ids.ids, "module_a": mod_a, "module_b": mod_b, "module_ids": module_ids.ids,
            "transceivers": w.transceivers}


def cable_column(choice: dict) -> np.ndarray:
    """The cable id of every link ("" where none reaches)."""
    return np.asarray(list(choice["cable_ids"]) + [""], dtype=object)[choice["cable"]]


def _per_cage(cage: np.ndarray, mods: np.ndarray, module_ids: list) -> dict:
    """Modules by catalog id, each (cage, module) counted once (``mods`` -1: none); ``cage`` numbered densely.
    Flags counted by module, not a sort: sorting 7.5 M keys of a million-GPU site took 0.6 s."""
    sel = mods >= 0
    if not sel.any():
        return {}
    width = len(module_ids)
    pair = cage[sel] * width + mods[sel]
    present = np.zeros(int(pair.max()) + 1, dtype=bool)
    present[pair] = True
    counts = np.bincount(np.flatnonzero(present) % width, minlength=width)
    return {module_ids[i]: int(c) for i, c in sorted(enumerate(counts), key=lambda t: module_ids[t[0]]) if c}
