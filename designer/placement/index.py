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
    left, right = shapely.STRtree(polys).query(polys, predicate="intersects")
    keep = (left < right) & (halls[left] == halls[right])
    return _real_overlaps(polys[left[keep]], polys[right[keep]], left[keep], right[keep])


#: At most about this many candidate pairs come back from one query of the tree: the overlap clusters
#: query a slice of the footprints at a time and shrink the slice where they crowd, so memory stays bounded.
PAIR_BUDGET = 1_000_000


def overlap_clusters(polys: np.ndarray, halls: np.ndarray) -> list[np.ndarray]:
    """The footprints joined by overlaps: each set of two or more, as ascending indices, by their first member.

    The connected components of the pairs :func:`overlapping_pairs` reports, found without
    listing them all (1,000 racks at one spot are 499,500 pairs): footprints with the very same
    outline in one hall overlap one another whenever they have area, so they join at once and only
    the first of them goes into the tree; the tree is queried a slice at a time, pairs already in one
    component are dropped before their areas are measured, and the components grow by union-find.
    """
    n = len(polys)
    if n < 2:
        return []
    labels = np.arange(n)  # each footprint's component: its smallest member, kept fully compressed
    reps = _join_identical(polys, halls, labels)
    rep_polys, rep_halls = polys[reps], halls[reps]
    tree = shapely.STRtree(rep_polys)
    start, step = 0, 1024
    while start < len(reps):
        left, right = tree.query(rep_polys[start:start + step], predicate="intersects")
        found = len(left)
        left = left + start
        keep = (left < right) & (rep_halls[left] == rep_halls[right])
        left, right = left[keep], right[keep]
        keep = labels[reps[left]] != labels[reps[right]]
        left, right = left[keep], right[keep]
        big = overlap_areas(rep_polys[left], rep_polys[right]) > OVERLAP_TOLERANCE_MM2
        _union(labels, reps[left[big]], reps[right[big]])
        start += step
        if found > PAIR_BUDGET:
            step = max(1, step // 2)
        elif found < PAIR_BUDGET // 8:
            step = min(step * 2, 65536)
    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    return [group for group in np.split(order, cuts) if len(group) > 1]


def _join_identical(polys: np.ndarray, halls: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Join footprints of one hall with the very same outline and some area; the first of each outline, ascending."""
    n = len(polys)
    counts = shapely.get_num_coordinates(polys)
    if counts.min() != counts.max():
        return np.arange(n)
    hall_codes = np.unique(halls.astype(str), return_inverse=True)[1].reshape(-1)
    key = np.column_stack([hall_codes.astype(float), shapely.get_coordinates(polys).reshape(n, -1)])
    first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)[1:]
    same_as = first[inverse.reshape(-1)]
    joined = (same_as != np.arange(n)) & (shapely.area(polys) > OVERLAP_TOLERANCE_MM2)
    labels[joined] = same_as[joined]
    return np.sort(first)


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
    w = np.minimum(ba[:, 2], bb[:, 2]) - np.maximum(ba[:, 0], bb[:, 0])
    h = np.minimum(ba[:, 3], bb[:, 3]) - np.maximum(ba[:, 1], bb[:, 1])
    areas = np.clip(w, 0, None) * np.clip(h, 0, None)
    turned = ~(fa & fb)
    if turned.any():
        areas[turned] = shapely.area(shapely.intersection(a[turned], b[turned]))
    return areas


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
        self._tree = shapely.STRtree(placed.polys) if len(placed.polys) else None
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

    def _extras(self) -> tuple[Placed, shapely.STRtree | None]:
        if self._extra_cols is None:
            cols = placed_columns(list(self._extra.values()))
            self._extra_cols = cols, shapely.STRtree(cols.polys) if len(cols.polys) else None
        return self._extra_cols

    # -- queries -------------------------------------------------------------------------------
    def _standing_hits(self, polys: np.ndarray, halls: np.ndarray, ignore: set[str]):
        """(i, where, label) for each standing footprint in its hall, not ignored, that placed polygon i overlaps."""
        out = []
        for cols, tree, live in ((self._base, self._tree, self._live), (*self._extras(), None)):
            if tree is None:
                continue
            left, right = tree.query(polys, predicate="intersects")
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
