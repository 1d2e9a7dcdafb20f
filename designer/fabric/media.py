"""Cable and transceiver choice per link, by length, counted the NVIDIA way.

Why this order: passive copper is cheapest and draws nothing, so it wins up to
its reach; active copper next; beyond that fibre with optics at each end
(multimode to 50 m, single-mode to 100 m). A twin-port copper cable joins two
cages, so it can only serve two links that run between the *same* pair of cages
(leaf to spine with several links per pair); a node's twin cage feeds two rails
on two different leaves, so node links go on fibre unless a splitter fits. Fibre
is one MPO cable per 400G link; a twin-port module carries two links, so modules
are counted per cage, not per link. A cage's two links must share one module
type, so a single-mode link turns its cages (and their other links) single-mode.
"""
from __future__ import annotations

import numpy as np

from catalog import Catalog

DAC, ACC, SPLITTER, MMF, SMF, NONE = range(6)
MEDIA = ("dac", "acc", "dac", "mmf", "smf", "")
CABLES = ("dac-osfp-800g", "acc-osfp-800g", "dac-osfp-splitter-2x400g", "fiber-mpo12-mmf", "fiber-mpo12-smf", "")
#: Modules by (medium, ports per cage, end is a switch).
MODULES = {
    (MMF, 2, True): "osfp-800g-2xsr4", (MMF, 2, False): "osfp-800g-2xsr4-flat",
    (SMF, 2, True): "osfp-800g-2xdr4", (SMF, 2, False): "osfp-800g-2xdr4",
    (MMF, 1, True): "osfp-400g-sr4", (MMF, 1, False): "osfp-400g-sr4",
    (SMF, 1, True): "osfp-400g-dr4", (SMF, 1, False): "osfp-400g-dr4",
}


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


def choose(catalog: Catalog, raw_m: np.ndarray, a_key: np.ndarray, b_key: np.ndarray,
           a_cage_ports: np.ndarray, b_cage_ports: np.ndarray, a_switch: np.ndarray, b_switch: np.ndarray) -> dict:
    """Medium, cable, orderable length and end modules for every link (all numpy columns).

    ``*_key`` identify a cage uniquely (device * big + cage). Returns a dict of
    columns: ``medium`` (code), ``length_m``, ``owner`` (True on the link that
    counts the physical cable: every fibre, the first link of a copper pair),
    ``module_a`` / ``module_b`` (index into ``module_ids`` or -1) and ``module_ids``.
    """
    spec = {c: catalog.get(CABLES[c]) for c in (DAC, ACC, SPLITTER, MMF, SMF)}
    n = len(raw_m)
    medium = np.full(n, NONE, dtype=np.int8)
    length = np.full(n, np.nan)
    twin = (a_cage_ports == 2) & (b_cage_ports == 2)
    partner = np.where(twin, _pairs(a_key, b_key), -1)
    paired = partner >= 0
    pair_len = np.where(paired, np.maximum(raw_m, raw_m[np.maximum(partner, 0)]), raw_m)
    for code in (DAC, ACC):
        rounded, fits = _round_up(pair_len, spec[code].lengths_m)
        take = paired & fits & (medium == NONE)
        medium[take], length[take] = code, rounded[take]
    single_to_twin = (a_cage_ports == 1) & (b_cage_ports == 2) & (medium == NONE)
    if single_to_twin.any():
        idx = np.nonzero(single_to_twin)[0]
        mate = _pairs(b_key[idx], np.zeros(len(idx), dtype=np.int64))
        ok = mate >= 0
        longest = np.where(ok, np.maximum(raw_m[idx], raw_m[idx[np.maximum(mate, 0)]]), np.inf)
        rounded, fits = _round_up(longest, spec[SPLITTER].lengths_m)
        take = ok & fits
        medium[idx[take]], length[idx[take]] = SPLITTER, rounded[take]
        partner[idx[take]] = idx[mate[take]]
    fibre = medium == NONE
    smf = fibre & (raw_m > (spec[MMF].reach_m or 0))
    if smf.any():
        # Cages numbered densely once, so each round of spreading is two lookups, not a set search.
        _, cage = np.unique(np.concatenate([a_key, b_key]), return_inverse=True)
        cage_a, cage_b = cage[:n], cage[n:]
        for _ in range(8):  # a single-mode link makes its cages single-mode, and their other links too
            single = np.zeros(int(cage.max()) + 1, dtype=bool)
            single[cage_a[smf]] = True
            single[cage_b[smf]] = True
            spread = fibre & (single[cage_a] | single[cage_b]) & ~smf
            if not spread.any():
                break
            smf |= spread
    mmf = fibre & ~smf
    rounded, fits = _round_up(raw_m, spec[MMF].lengths_m)
    medium[mmf & fits], length[mmf & fits] = MMF, rounded[mmf & fits]
    rounded, fits = _round_up(raw_m, spec[SMF].lengths_m)
    take = smf & fits
    medium[take], length[take] = SMF, rounded[take]
    owner = np.ones(n, dtype=bool)
    copper = (medium == DAC) | (medium == ACC) | (medium == SPLITTER)
    owner[copper] = np.arange(n)[copper] < partner[copper]
    module_ids: list[str] = []
    mods = []
    for cage_ports, is_switch in ((a_cage_ports, a_switch), (b_cage_ports, b_switch)):
        col = np.full(n, -1, dtype=np.int64)
        for (med, ports, sw), part in MODULES.items():
            sel = (medium == med) & (cage_ports == ports) & (is_switch == sw)
            if sel.any():
                if part not in module_ids:
                    module_ids.append(part)
                col[sel] = module_ids.index(part)
        mods.append(col)
    return {"medium": medium, "length_m": length, "owner": owner, "module_a": mods[0], "module_b": mods[1],
            "module_ids": module_ids}


def count_modules(a_key, b_key, module_a, module_b, module_ids) -> dict:
    """Transceivers by catalog id: one module per cage that carries an optical link."""
    keys = np.concatenate([a_key, b_key])
    mods = np.concatenate([module_a, module_b])
    sel = mods >= 0
    if not sel.any():
        return {}
    width = len(module_ids)
    # Sorted, then the first of each run: numpy's hashing unique is many times slower on 600,000 keys.
    cages = np.sort(keys[sel] * width + mods[sel])
    cages = cages[np.concatenate(([True], cages[1:] != cages[:-1]))]
    counts = np.bincount(cages % width, minlength=width)
    return {module_ids[i]: int(c) for i, c in sorted(enumerate(counts), key=lambda t: module_ids[t[0]]) if c}
