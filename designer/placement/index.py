"""Where things may stand: one answer for the commands, the canvas and the findings.

:func:`hall_shape` and :func:`overlapping_pairs` are the rules (a footprint may
touch a wall and its neighbours, never cross them);
:class:`SpaceIndex` holds every footprint of one project value in an STRtree so
a proposed placement is a query; :func:`space_index` keeps the index of the last
few project values, and :func:`carry_index` derives the next value's index from
the last one after an edit, so typing a rack's x or dragging it never rebuilds
the tree of a 12,500-rack hall.
"""
from __future__ import annotations

import copy
import threading
import weakref
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import shapely

from ..model import Hall, Project
from .footprints import Footprint, Placed, footprint_of, placed_columns, placed_objects
from .geometry import rectangles

#: How far past a hall wall a footprint may reach and still count as inside: rounding after a
#: rotation must not push a rack that stands against the wall out of its hall.
WALL_TOLERANCE_MM = 0.5
#: Footprints may touch (racks stand side by side); only an overlap of more than this area counts.
OVERLAP_TOLERANCE_MM2 = 1.0
#: A derived index keeps changed footprints beside its tree; past this many it is rebuilt.
REBUILD_AFTER = 256


def hall_shape(hall: Hall):
    """The area a footprint must stay inside: the outline grown by the wall tolerance.

    None when the outline crosses itself: then nothing is judged inside or
    outside it, by the commands or the findings, which report the outline instead.
    """
    outline = shapely.Polygon(hall.outline)
    if not outline.is_valid:
        return None
    return outline.buffer(WALL_TOLERANCE_MM, join_style="mitre")


def overlapping_pairs(polys: np.ndarray, halls: np.ndarray):
    """``(left, right, areas)``: each pair i < j of ``polys`` in one hall that overlaps by more than the tolerance."""
    if len(polys) < 2:
        return np.empty(0, int), np.empty(0, int), np.empty(0)
    # one tree per hall: every hall's floor starts at (0, 0), so one tree of a site's halls would meet every rack
    # with the racks at its place in every other hall, pairs that grow with the square of the halls
    codes = np.unique(halls.astype(str), return_inverse=True)[1].reshape(-1)
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    lefts, rights = [], []
    for idx in np.split(order, bounds):
        if len(idx) < 2:
            continue
        a, b = shapely.STRtree(polys[idx]).query(polys[idx], predicate="intersects")
        keep = a < b
        lefts.append(idx[a[keep]])
        rights.append(idx[b[keep]])
    if not lefts:
        return np.empty(0, int), np.empty(0, int), np.empty(0)
    left, right = np.concatenate(lefts), np.concatenate(rights)
    swap = left > right  # pairs i < j, as before
    left, right = np.where(swap, right, left), np.where(swap, left, right)
    return _real_overlaps(polys[left], polys[right], left, right)


#: At most about this many candidate pairs come back from one query of the tree: the overlap clusters
#: query a slice of the footprints at a time and shrink the slice where they crowd, so memory stays bounded.
PAIR_BUDGET = 1_000_000
#: Unturned footprints whose bounds all fall in the same steps of this size (mm) are checked as one
#: pile when they share an area: a pile of near-identical racks is queried once, not once per rack.
PILE_STEP_MM = 50.0


def overlap_clusters(polys: np.ndarray, halls: np.ndarray) -> list[np.ndarray]:
    """The footprints joined by overlaps: each set of two or more, as ascending indices, by their first member.

    The connected components of the pairs :func:`overlapping_pairs` reports, found without listing
    them all (85,000 racks at one spot are 3.6 billion pairs). Footprints in one hall with the same
    bounds to :data:`PILE_STEP_MM` (or the very same corners, when turned) that all share an area
    form a pile: they overlap one another, so they join at once, and the tree is queried with the
    pile's bounds once. Its candidates are dropped when already in the pile's component, before any
    area is measured; the rest are measured against each member. The components grow by union-find,
    and the queries go a slice of piles at a time, so time and memory grow with the footprints and
    the piles that meet, not with the pairs inside a pile.
    """
    n = len(polys)
    if n < 2:
        return []
    labels = np.arange(n)  # each footprint's component: its smallest member, kept fully compressed
    hall_codes = np.unique(halls.astype(str), return_inverse=True)[1].reshape(-1)
    polys = apart_by_hall(polys, hall_codes)
    bounds, filled = _box_fit(polys)
    pile, members, starts, unturned, core, core_polys = _piles(polys, hall_codes, bounds, filled, labels)
    sizes, first = np.diff(starts), members[starts[:-1]]
    envelopes = shapely.box(*(np.minimum.reduceat(bounds[members, k], starts[:-1]) for k in (0, 1)),
                            *(np.maximum.reduceat(bounds[members, k], starts[:-1]) for k in (2, 3)))
    def over_core(piles, right):
        """Whether each footprint ``right[i]`` lies over the area all of pile ``piles[i]`` covers, by more
        than the tolerance: then it overlaps each member (a pile of one: the member)."""
        boxes = unturned[piles] & filled[right]
        areas = np.empty(len(piles))
        areas[boxes] = _box_areas(core[piles[boxes]], bounds[right[boxes]])
        areas[~boxes] = shapely.area(shapely.intersection(core_polys[piles[~boxes]], polys[right[~boxes]]))
        return areas > OVERLAP_TOLERANCE_MM2

    tree = shapely.STRtree(polys)
    start, step = 0, 16
    while start < len(first):
        piles, right = tree.query(envelopes[start:start + step])  # bounds that meet: the areas decide
        found = len(piles)
        piles += start
        keep = pile[right] > piles  # each pair of piles once
        piles, right = piles[keep], right[keep]
        keep = hall_codes[first[piles]] == hall_codes[right]
        piles, right = piles[keep], right[keep]

        # one footprint of each pile a pile meets first: in a crowd most piles join on it
        once = np.unique(piles * len(first) + pile[right], return_index=True)[1]
        keep = labels[first[piles[once]]] != labels[right[once]]
        once = once[keep]
        over = over_core(piles[once], right[once])
        _union(labels, first[piles[once[over]]], right[once[over]])
        keep = labels[first[piles]] != labels[right]
        piles, right = piles[keep], right[keep]
        over = over_core(piles, right)
        _union(labels, first[piles[over]], right[over])
        keep = ~over & (sizes[piles] > 1)  # the rest is measured against each member
        piles, right = piles[keep], right[keep]
        while len(piles):
            keep = labels[first[piles]] != labels[right]
            piles, right = piles[keep], right[keep]
            take = max(1, int(np.searchsorted(np.cumsum(sizes[piles]), PAIR_BUDGET)))
            (a, b), piles, right = _each_member(members, starts, piles[:take], right[:take]), piles[take:], right[take:]
            areas = _box_areas(bounds[a], bounds[b])
            turned = ~(filled[a] & filled[b])
            if turned.any():
                areas[turned] = shapely.area(shapely.intersection(polys[a[turned]], polys[b[turned]]))
            big = areas > OVERLAP_TOLERANCE_MM2
            _union(labels, a[big], b[big])
        start += step
        step = max(1, step // 2) if found > PAIR_BUDGET else min(step * 2, 65536) if found < PAIR_BUDGET // 8 else step
    joined = np.flatnonzero(np.bincount(labels, minlength=n)[labels] > 1)
    order = joined[np.argsort(labels[joined], kind="stable")]
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    return np.split(order, cuts) if len(order) else []


def hall_span(polys: np.ndarray) -> float:
    """How far apart :func:`apart_by_hall` sets the halls: the footprints' width and a metre."""
    if not len(polys):
        return 1000.0
    xmin, _, xmax, _ = shapely.total_bounds(polys)
    return float(xmax - xmin) + 1000.0


def apart_by_hall(polys: np.ndarray, hall_codes: np.ndarray, span: float | None = None) -> np.ndarray:
    """The footprints with each hall moved beside the one before (along x by its code times ``span``), so that
    one tree over all of them meets only footprints of one hall: every hall's plan starts at (0, 0), and a site
    of 124 halls had each rack's query meet the racks of every other hall at the same place. Areas within a hall
    are kept; callers still compare halls, so a footprint outside the span costs candidates, never a result."""
    if not len(polys) or not hall_codes.any():
        return polys
    shift = hall_codes * (hall_span(polys) if span is None else span)
    per_point = np.repeat(shift, shapely.get_num_coordinates(polys))
    return shapely.transform(polys, lambda xy: xy + np.column_stack([per_point, np.zeros(len(per_point))]))


def _each_member(members: np.ndarray, starts: np.ndarray, piles: np.ndarray, right: np.ndarray):
    """The pairs (member of ``piles[i]``, ``right[i]``) for every member of each pile."""
    reach = starts[piles + 1] - starts[piles]
    offsets = np.arange(reach.sum()) - np.repeat(np.cumsum(reach) - reach, reach)
    return members[np.repeat(starts[piles], reach) + offsets], np.repeat(right, reach)


def _piles(polys: np.ndarray, hall_codes: np.ndarray, bounds: np.ndarray, filled: np.ndarray, labels: np.ndarray):
    """Footprints in piles, each pile's members joined.

    A pile is the footprints of one hall, all unturned or all turned, with bounds in the same
    :data:`PILE_STEP_MM` steps, when one area lies in all of them; any other is a pile of its own.
    ``labels`` must be every footprint on its own (``arange``); it comes back with each pile under its
    first member. Returns the pile of each footprint, the footprints by pile, where each pile starts
    in them (and the end), whether the pile is unturned, and the area every member of each pile covers,
    as bounds (of an unturned pile) and as a polygon.
    """
    n = len(polys)
    steps = np.floor(bounds / PILE_STEP_MM)
    key = np.ascontiguousarray(np.column_stack([hall_codes.astype(float), filled, steps]))
    pile = np.unique(key.view(np.dtype((np.void, key.dtype.itemsize * key.shape[1]))),
                     return_inverse=True)[1].reshape(-1)
    members, starts, core, core_polys = _by_pile(pile, polys, bounds, filled)
    whole = shapely.area(core_polys)[pile] > OVERLAP_TOLERANCE_MM2
    if not whole.all():  # a loose pile breaks up into its members
        pile = np.unique(np.where(whole, pile, pile.max() + 1 + np.arange(n)), return_inverse=True)[1].reshape(-1)
        members, starts, core, core_polys = _by_pile(pile, polys, bounds, filled)
    labels[members] = np.repeat(members[starts[:-1]], np.diff(starts))
    return pile, members, starts, filled[members[starts[:-1]]], core, core_polys


def _by_pile(pile: np.ndarray, polys: np.ndarray, bounds: np.ndarray, filled: np.ndarray):
    """The footprints by pile (ascending in each), where each pile starts (and the end), what all members cover."""
    members = np.argsort(pile, kind="stable")
    starts = np.concatenate([[0], np.flatnonzero(np.diff(pile[members])) + 1, [len(pile)]])
    core = np.column_stack([np.maximum.reduceat(bounds[members, 0], starts[:-1]),
                            np.maximum.reduceat(bounds[members, 1], starts[:-1]),
                            np.minimum.reduceat(bounds[members, 2], starts[:-1]),
                            np.minimum.reduceat(bounds[members, 3], starts[:-1])])
    boxes = np.clip(core, None, np.column_stack([core[:, 2:], core[:, 2:]]))  # an empty core is a point
    core_polys = shapely.box(boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3])
    first, sizes = members[starts[:-1]], np.diff(starts)
    turned = ~filled[first]
    core_polys[turned & (sizes == 1)] = polys[first[turned & (sizes == 1)]]
    for i in np.flatnonzero(turned & (sizes > 1)).tolist():
        core_polys[i] = shapely.intersection_all(polys[members[starts[i]:starts[i + 1]]])
    return members, starts, core, core_polys


def _union(labels: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """Join the components of each pair ``a[i]``, ``b[i]`` (vectorised union-find: roots hook under the smaller)."""
    while len(a):
        ra, rb = labels[a], labels[b]
        apart = ra != rb
        if not apart.any():
            return
        a, b, ra, rb = a[apart], b[apart], ra[apart], rb[apart]
        low = np.minimum(ra, rb)
        np.minimum.at(labels, ra, low)
        np.minimum.at(labels, rb, low)
        while True:  # point every footprint at its root again
            up = labels[labels]
            if np.array_equal(up, labels):
                break
            labels[:] = up


def _box_fit(polys: np.ndarray):
    """Bounds of each polygon, and whether it fills them (an unturned or quarter-turned rectangle)."""
    bounds = shapely.bounds(polys)
    box_area = (bounds[:, 2] - bounds[:, 0]) * (bounds[:, 3] - bounds[:, 1])
    return bounds, np.abs(shapely.area(polys) - box_area) <= 1e-9 * np.maximum(box_area, 1.0)


def overlap_areas(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Area shared by each pair ``a[i]``, ``b[i]``.

    Nearly every pair a tree query finds is two racks side by side in a row;
    when both fill their bounds the overlap of the bounds is the answer, a
    hundred times faster than shapely's intersection, which is kept for turned ones.
    """
    if not len(a):
        return np.empty(0)
    (ba, fa), (bb, fb) = _box_fit(a), _box_fit(b)
    areas = _box_areas(ba, bb)
    turned = ~(fa & fb)
    if turned.any():
        areas[turned] = shapely.area(shapely.intersection(a[turned], b[turned]))
    return areas


def _box_areas(ba: np.ndarray, bb: np.ndarray) -> np.ndarray:
    """Area shared by each pair of bounds ``ba[i]``, ``bb[i]``."""
    w = np.minimum(ba[:, 2], bb[:, 2]) - np.maximum(ba[:, 0], bb[:, 0])
    h = np.minimum(ba[:, 3], bb[:, 3]) - np.maximum(ba[:, 1], bb[:, 1])
    return np.clip(w, 0, None) * np.clip(h, 0, None)


def _real_overlaps(a: np.ndarray, b: np.ndarray, left: np.ndarray, right: np.ndarray):
    areas = overlap_areas(a, b)
    big = areas > OVERLAP_TOLERANCE_MM2
    return left[big], right[big], areas[big]


@dataclass
class Problem:
    """Why a placement is refused, and which objects to mark."""

    message: str
    bad: set[str]  # where-strings of the placed objects at fault
    hit: set[str]  # where-strings of the standing objects they hit


class SpaceIndex:
    """Every footprint of one project value, to test proposed placements against.

    The tree is built once (tens of milliseconds for a 100,000-GPU hall). An index derived by
    :meth:`updated` shares that tree, masks the entries of objects that changed
    since, and keeps their new footprints in a short list beside it.
    """

    def __init__(self, project: Project, catalog):
        placed = placed_objects(project, catalog)
        self._base = placed
        # the tree holds the halls set apart (:func:`apart_by_hall`), and queries are set apart the same way
        self._slot = {h.id: k for k, h in enumerate(project.halls)}
        self._span = hall_span(placed.polys)
        self._tree = shapely.STRtree(self._apart(placed.polys, placed.halls)) if len(placed.polys) else None
        self._pos = {w: i for i, w in enumerate(placed.wheres)}
        self._live = np.ones(len(placed.wheres), dtype=bool)
        self._extra: dict[str, Footprint] = {}
        self._extra_cols: tuple[Placed, shapely.STRtree | None] | None = None
        self._set_halls(project.halls)

    def _set_halls(self, halls: tuple[Hall, ...]) -> None:
        self._halls = halls
        self._hall_shapes = {h.id: hall_shape(h) for h in halls}
        self._hall_names = {h.id: h.name or h.id for h in halls}

    # -- keeping up with edits -----------------------------------------------------------------
    def updated(self, project: Project, catalog, racks: Iterable[str], floors: Iterable[str]) -> SpaceIndex:
        """The index of ``project``: this one's, with the named racks and floor units as they are now."""
        changed = [f"rack:{r}" for r in racks] + [f"floor:{f}" for f in floors]
        if len(self._extra) + len(changed) > REBUILD_AFTER:
            return SpaceIndex(project, catalog)
        new = copy.copy(self)
        new._live, new._extra, new._extra_cols = self._live.copy(), dict(self._extra), None
        if project.halls is not self._halls:
            new._set_halls(project.halls)
        for where in changed:
            pos = new._pos.get(where)
            if pos is not None:
                new._live[pos] = False
            new._extra.pop(where, None)
            kind, _, oid = where.partition(":")
            if project.has_rack(oid) if kind == "rack" else project.has_floor_device(oid):
                new._extra[where] = footprint_of(project, catalog, where)
        return new

    def _apart(self, polys: np.ndarray, halls: np.ndarray) -> np.ndarray:
        """``polys`` set apart by hall as the tree holds them (a hall the index does not know: past the last)."""
        other = len(self._slot)
        codes = np.fromiter((self._slot.get(h, other) for h in halls.tolist()), dtype=float, count=len(halls))
        return apart_by_hall(polys, codes, self._span)

    def _extras(self) -> tuple[Placed, shapely.STRtree | None]:
        if self._extra_cols is None:
            cols = placed_columns(list(self._extra.values()))
            self._extra_cols = cols, shapely.STRtree(self._apart(cols.polys, cols.halls)) if len(cols.polys) else None
        return self._extra_cols

    # -- queries -------------------------------------------------------------------------------
    def _standing_hits(self, polys: np.ndarray, halls: np.ndarray, ignore: set[str]):
        """(i, where, label) for each standing footprint in its hall, not ignored, that placed polygon i overlaps."""
        out = []
        apart = self._apart(polys, halls)
        for cols, tree, live in ((self._base, self._tree, self._live), (*self._extras(), None)):
            if tree is None:
                continue
            left, right = tree.query(apart, predicate="intersects")  # the areas below are the unmoved ones'
            keep = halls[left] == cols.halls[right]
            if live is not None:
                keep &= live[right]
            left, right = left[keep], right[keep]
            if ignore and len(left):
                keep = np.array([cols.wheres[j] not in ignore for j in right.tolist()], dtype=bool)
                left, right = left[keep], right[keep]
            left, right, _ = _real_overlaps(polys[left], cols.polys[right], left, right)
            out += [(i, cols.wheres[j], cols.labels[j]) for i, j in zip(left.tolist(), right.tolist())]
        return sorted(out, key=lambda hit: hit[0])

    def check(self, placed: Sequence[Footprint], ignore: Iterable[str] = (), among: bool = True) -> Problem | None:
        """Why ``placed`` cannot stand where they are, or None.

        ``ignore`` are where-strings of standing objects to leave out (the ones
        being moved, whose old places no longer count). With ``among`` the placed
        objects are also tested against each other.
        """
        placed = [f for f in placed if f.solid]
        if not placed:
            return None
        polys = rectangles(np.array([(f.x, f.y, f.width, f.depth, f.rotation) for f in placed], dtype=float))
        halls = np.array([f.hall for f in placed], dtype=object)
        ignore = set(ignore)
        bad: set[str] = set()
        hit: set[str] = set()
        messages: list[str] = []
        for hall in dict.fromkeys(halls.tolist()):
            idx = np.nonzero(halls == hall)[0]
            if hall not in self._hall_shapes:
                outside = idx
            elif self._hall_shapes[hall] is None:
                continue
            else:
                outside = idx[~shapely.covers(self._hall_shapes[hall], polys[idx])]
            for i in outside.tolist():
                bad.add(placed[i].where)
                messages.append(f"{placed[i].label} would leave hall {self._hall_names.get(hall, hall)}")
        for i, where, label in self._standing_hits(polys, halls, ignore):
            bad.add(placed[i].where)
            hit.add(where)
            messages.append(f"{placed[i].label} would overlap {label}")
        if among:
            left, right, _ = overlapping_pairs(polys, halls)
            for i, j in zip(left.tolist(), right.tolist()):
                bad.update((placed[i].where, placed[j].where))
                messages.append(f"{placed[i].label} would overlap {placed[j].label}")
        if not bad:
            return None
        more = f" (and {len(messages) - 1} more)" if len(messages) > 1 else ""
        return Problem(messages[0] + more, bad, hit)


def _rigid(project: Project, after: Sequence[Footprint]) -> bool:
    """True when ``after`` is where the project has them, shifted as one block: nothing inside can newly overlap.

    Reads the model's values, not footprints: a drag of a whole hall asks this on every mouse move.
    """
    if len(after) < 2:
        return True
    before = [project.rack(f.id) if f.kind == "rack" else project.floor_device(f.id) for f in after]
    dx, dy = after[0].x - before[0].x, after[0].y - before[0].y
    return all(a.rotation % 360 == b.rotation % 360 and a.hall == b.hall
               and abs(a.x - b.x - dx) < 1e-6 and abs(a.y - b.y - dy) < 1e-6 for a, b in zip(after, before))


def check_move(project: Project, catalog, placed: Sequence[Footprint]) -> Problem | None:
    """Why objects of ``project`` cannot move to ``placed`` (their old places no longer count), or None.

    The group is tested against itself too, unless it moves as one rigid block
    (a drag, a nudge): then its members keep their places relative to each other,
    and a file's existing overlaps inside the group do not block the move.
    """
    return space_index(project, catalog).check(placed, ignore={f.where for f in placed},
                                               among=not _rigid(project, placed))


def check_new(project: Project, catalog, placed: Sequence[Footprint]) -> Problem | None:
    """Why new objects cannot stand at ``placed`` (against everything standing, and each other), or None."""
    return space_index(project, catalog).check(placed, among=True)


# -- one index per project value -------------------------------------------------------------------
#: How many project values keep their index: the current one, and the few undo or a refused
#: edit goes back to. Every older value's index is dropped (a 12,500-rack index is megabytes).
CACHE_SIZE = 4
_cache: list[tuple[weakref.ref, object, SpaceIndex]] = []
_lock = threading.Lock()


def _cached(project: Project, catalog) -> SpaceIndex | None:
    with _lock:
        for ref, cat, index in _cache:
            if ref() is project and cat is catalog:
                return index
    return None


def _remember(project: Project, catalog, index: SpaceIndex) -> None:
    with _lock:
        _cache[:] = [e for e in _cache if e[0]() is not None and e[0]() is not project][-(CACHE_SIZE - 1):]
        _cache.append((weakref.ref(project), catalog, index))


def space_index(project: Project, catalog) -> SpaceIndex:
    """The index of this project value (kept for the next query of the same value)."""
    index = _cached(project, catalog)
    if index is None:
        index = SpaceIndex(project, catalog)
        _remember(project, catalog, index)
    return index


def carry_index(before: Project, after: Project, catalog, racks: Iterable[str], floors: Iterable[str]) -> None:
    """After an edit that changed only the named racks and floor units, derive ``after``'s index from ``before``'s.

    Does nothing when ``before`` has no index yet: the next query builds one.
    """
    index = _cached(before, catalog)
    if index is not None and _cached(after, catalog) is None:
        _remember(after, catalog, index.updated(after, catalog, racks, floors))
