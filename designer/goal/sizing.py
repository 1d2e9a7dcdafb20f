"""The smallest size of one system and fabric that trains a goal in time, found by the training engine.

Sizes are whole scalable units, as the generator builds them (:func:`designer.generate.build.design_size`: the
last NDR scalable unit gives a DGX to the UFM appliances). The days at a size are the best plan's wall-clock days
(failures, restarts and checkpoints included) from the plan search on that size's cluster; the search walks sizes
by their throughput, not by a grid:

1. a first guess from the model's FLOPs at 40 % MFU of the GPU's dense BF16 peak;
2. jumps in proportion to the days still missing (time to train is about inversely proportional to GPUs) until a
   size meets the deadline, or more GPUs stop shortening the run (the global batch caps data parallelism: the
   scaling limit) or the size passes a million GPUs;
3. bisection between the largest size known to miss and the smallest known to meet.

This runs on the cluster the catalog describes for that size, with the engine's stated storage and failure
defaults; the option's figures then come from the generated design's own analysis (:mod:`.options`), which
checks the size once more against the design's fabric and storage.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from catalog import Catalog

from ..generate.build import design_size
from ..generate.spec import SuperpodSpec
from ..settings import Settings
from ..training.errors import TrainingError
from ..training.goodput import MIN_ETTR
from ..training.hardware import cluster_from_system
from ..training.planner import best_plan
from ..training.section import workload_training
from .goal import Goal

#: GPUs a size may reach: the largest campuses designed (1M GPUs)
MAX_GPUS = 1_048_576
#: MFU of the first guess, a round figure between published large runs (38–43 %) and today's recipes
GUESS_MFU = 0.40
#: Added GPUs that speed the run up by less than this share of their own number have hit the scaling limit
#: (the global batch caps data parallelism, or communication grows faster than compute shrinks)
MARGINAL = 0.25
#: How much better than the best size tried a smaller one may use its GPUs: sizes that factor well or badly differ
#: by up to ~7 % in GPU-days (DGX B200 on InfiniBand for Llama 3 405B: 30 SUs need 6.6 % fewer GPU-days than 35), so
#: every size with at least 0.9 of the GPUs the best GPU-days imply is tried
BAND = 0.90
#: Sizes of that band tried at most (evenly spaced when there are more: a one-rack SU makes the band long)
BAND_STEPS = 16
#: Estimates one search may run (each a plan search): a guard, never reached by the steps above
MAX_STEPS = 80


@dataclass(frozen=True)
class Sized:
    """Where one system and fabric land: the size that meets the deadline (``meets``), or the best size short of
    it with the limit that binds (``binding``: scaling or memory)."""

    sus: int
    gpus: int
    days: float
    meets: bool
    binding: str | None = None


class Walker:
    """The days and GPUs of each size of one system and fabric, worked out once (a search with a tighter deadline
    walks the same sizes again)."""

    def __init__(self, goal: Goal, system: str, fabric: str, planes: int, catalog: Catalog):
        self.goal, self.system, self.fabric, self.planes, self.catalog = goal, system, fabric, planes, catalog
        self.pue = Settings().pue
        self.days_at: dict[int, float] = {}
        self.gpus_at: dict[int, int] = {}
        #: sizes whose job fails faster than it restarts (no work gets done: their days are infinite)
        self.failing: set[int] = set()

    def gpus(self, sus: int) -> int:
        if sus not in self.gpus_at:
            self.gpus_at[sus] = design_size(SuperpodSpec(system=self.system, sus=sus, fabric=self.fabric,
                                                         planes=self.planes), self.catalog)[1]
        return self.gpus_at[sus]

    def days(self, sus: int) -> float:
        """Wall-clock days of the best plan on ``sus`` scalable units (inf when no plan runs or fits)."""
        if sus not in self.days_at:
            if len(self.days_at) >= MAX_STEPS:
                raise _Exhausted
            cluster = cluster_from_system(self.catalog, self.system, self.gpus(sus), fabric=self.fabric,
                                          planes=self.planes)
            try:
                model, training, _ = workload_training(cluster, self.goal.workload_dict, self.pue)
                est, _ = best_plan(model, training, cluster, top=1)
                days = est.wall_time_days if est.fits else math.inf
                if est.fits and est.figures["goodput"]["ettr"] <= MIN_ETTR:  # failing faster than it restarts
                    days = math.inf
                    self.failing.add(sus)
            except TrainingError:
                days = math.inf
            self.days_at[sus] = days
        return self.days_at[sus]

    def unsupported(self) -> str | None:
        """Why the goal's precision cannot run on this system at any size (None: it can)."""
        cluster = cluster_from_system(self.catalog, self.system, self.gpus(1), fabric=self.fabric, planes=self.planes)
        try:
            _, training, _ = workload_training(cluster, self.goal.workload_dict, self.pue)
            cluster.peak_tflops(training.precision)
        except TrainingError as exc:
            return str(exc)
        return None

    def most_sus(self) -> int:
        per_su = self.gpus(2) - self.gpus(1)
        return max(1, MAX_GPUS // max(per_su, 1))

    def first_guess(self) -> int:
        cluster = cluster_from_system(self.catalog, self.system, self.gpus(1), fabric=self.fabric, planes=self.planes)
        model, training, _ = workload_training(cluster, self.goal.workload_dict, self.pue)
        flops = model.model_flops_per_token() * self.goal.tokens
        gpus = flops / (self.goal.days * 86400.0 * cluster.bf16_tflops * 1e12 * GUESS_MFU)
        return min(self.most_sus(), max(1, math.ceil(gpus / max(self.gpus(1), 1))))


def size_for(w: Walker, deadline: float) -> Sized:
    """The smallest whole-SU size of the walker's system and fabric whose best plan trains its goal in
    ``deadline`` days (among the sizes the walk tries: see the module's docstring)."""
    try:
        return _walk(w, replace(w.goal, days=deadline))
    except _Exhausted:  # the guard: the best the estimates so far found
        met = [k for k, d in w.days_at.items() if d <= deadline]
        return Sized(min(met), w.gpus(min(met)), w.days(min(met)), True) if met else _short(w, "scaling")


def _walk(w: Walker, goal: Goal) -> Sized:
    top = w.most_sus()
    hi = w.first_guess()
    lo = 0  # sizes at or below lo miss the deadline (0: none tried)
    if w.days(hi) > goal.days:
        lo = hi
        while True:
            days = w.days(lo)
            if lo >= top:
                return _smaller_first(w, goal.days)
            # a little past the size the days predict, and at least a quarter more: sizes that factor badly run
            # slower than their neighbours, and a small step could read that as the end of scaling
            want = max(lo * days / goal.days * 1.05, lo * 1.25) if math.isfinite(days) else lo * 2
            nxt = min(top, max(lo + 1, math.ceil(want)))
            if w.days(nxt) <= goal.days:
                hi = nxt
                break
            # the end of scaling: twice the GPUs of the fastest size so far bought less than MARGINAL of their share
            # of speed (one slow size, whose GPU count factors badly, is not the end)
            fast = min(w.days_at, key=lambda k: (w.days_at[k], k))
            if math.isfinite(w.days(fast)) and w.gpus(nxt) >= 2 * w.gpus(fast) \
                    and w.days(nxt) > w.days(fast) * (1 - MARGINAL * (1 - w.gpus(fast) / w.gpus(nxt))):
                return _smaller_first(w, goal.days)
            lo = nxt
    else:
        while True:  # a smaller size may meet it too: jump down in proportion, then bisect
            days = w.days(hi)
            down = min(hi - 1, math.floor(hi * days / goal.days * 0.98))
            if down <= lo:
                break
            if w.days(down) > goal.days:
                lo = down
                break
            hi = down
    hi = _bisect(w, goal.days, lo, hi)
    # Days do not fall smoothly with size: the batch and the parallel degrees must divide, so a size whose GPU
    # count factors well can beat a larger one, and past the batch's limit the days stay flat over many sizes. Sizes
    # in the band below that could still meet the deadline are tried, smallest first (at most BAND_STEPS of them,
    # evenly spaced, then bisected), so the answer is not only a local one. The fewest GPU-days any size tried needs,
    # less the band, bounds the GPUs a smaller size must have; a smaller size found lowers that bound, so the band is
    # walked again below it until it finds nothing smaller.
    while True:
        best = min(w.days_at[k] * w.gpus(k) for k in w.days_at if math.isfinite(w.days_at[k]))
        floor = hi
        while floor > 1 and w.gpus(floor - 1) * goal.days >= best * BAND:
            floor -= 1
        stride = max(1, math.ceil((hi - floor) / BAND_STEPS))
        missed, found = floor - 1, None
        for sus in range(floor, hi, stride):
            if w.days(sus) <= goal.days:
                found = _bisect(w, goal.days, missed, sus)
                break
            missed = sus
        if found is None:
            return Sized(hi, w.gpus(hi), w.days(hi), True)
        hi = found


def _bisect(w: Walker, deadline: float, lo: int, hi: int) -> int:
    """The smallest size in (lo, hi] that meets ``deadline`` as bisection finds it (``hi`` meets it)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if w.days(mid) <= deadline:
            hi = mid
        else:
            lo = mid
    return hi


class _Exhausted(Exception):
    """The walk has run MAX_STEPS estimates."""


def _smaller_first(w: Walker, deadline: float) -> Sized:
    """More GPUs stopped shortening the run. Where failures are what slows the larger sizes (a job's MTBF falls
    with its size, so restarts and redone work grow), a size below the first guess can be faster: the sizes below the
    fastest tried are tried while they get faster (each about 0.7 of the last), and one that meets the deadline is
    bisected down to the smallest that does."""
    k = min(w.days_at, key=lambda j: (w.days_at[j], j))
    while k > 1:
        smaller = min(k - 1, max(1, int(k * 0.7)))
        # faster, or both failing faster than they restart (a smaller job fails less often: keep going down)
        if not (w.days(smaller) < w.days(k) or (smaller in w.failing and k in w.failing)):
            break
        k = smaller
        if w.days(k) <= deadline:
            missed = max((j for j in w.days_at if j < k and w.days_at[j] > deadline), default=0)
            sus = _bisect(w, deadline, missed, k)
            return Sized(sus, w.gpus(sus), w.days(sus), True)
    return _short(w, "scaling")


def _short(w: Walker, limit: str) -> Sized:
    """The size with the fewest days tried, as the closest to the goal (memory when no size ran at all)."""
    best = min(w.days_at, key=lambda k: (w.days_at[k], k))
    if not math.isfinite(w.days_at[best]):
        return Sized(best, w.gpus(best), math.inf, False, "failures" if best in w.failing else "memory")
    return Sized(best, w.gpus(best), w.days_at[best], False, limit)
