"""The options for a goal: for each allowed system and fabric, the design of the size that meets the deadline,
generated and analysed as ``new superpod`` and ``analyze`` would, then held to the power cap and the budget.

An option's figures are its design's analysis, never a second estimate: the days are the training engine's
wall-clock days (failures, restarts and checkpoints on the design's own storage and parts), the megawatts the
power engine's, the capital the bill's. Options run one per process on a local pool when asked (the sizing search
of each is a few dozen plan searches).
"""
from __future__ import annotations

import math
import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from catalog import Catalog

from ..analysis import Analysis, analyze_workloads
from ..design_errors import design_errors
from ..registry import ROW_ENGINES
from ..generate.build import Generated, generate
from ..generate.spec import GenerateError, SuperpodSpec, check_spec, fabric_for
from ..model import Project
from .goal import Goal
from .sensitivity import sensitivity
from .sizing import Sized, Walker, size_for

#: The engines an option's design runs (``analyze`` of a built option draws the throughput-vs-size chart)
ENGINES = ROW_ENGINES
#: Times the design's own analysis may find the size short of the deadline (its storage and fabric differ a little
#: from the catalog cluster the size search runs on) and the search walks again, aiming lower
MAX_RECHECKS = 3
#: Below this ETTR at the fastest size, failures (not the batch or communication) are what stops more GPUs helping
FAILURES_BIND = 0.8


@dataclass(frozen=True)
class Option:
    """One system × fabric for the goal. ``meets``: trains the tokens within the days under every cap; else
    ``binding`` names the limit (power, budget, scaling, memory) and ``why`` says it with figures. ``status``:
    ok, or invalid (the system has no such fabric, or it cannot be built: ``why``)."""

    system: str
    fabric: str
    status: str
    meets: bool = False
    binding: str | None = None
    why: str = ""
    system_name: str = ""
    sus: int | None = None
    gpus: int | None = None
    plan: dict = field(default_factory=dict)
    mfu: float | None = None
    tokens_per_s: float | None = None
    days: float | None = None
    compute_days: float | None = None
    ettr: float | None = None
    facility_mw: float | None = None
    it_mw: float | None = None
    racks: int | None = None
    halls: int | None = None
    capex: float | None = None
    currency: str = "USD"
    price_estimated: bool = False
    cost_per_million_tokens: float | None = None
    cost_per_gpu_hour: float | None = None
    errors: int = 0
    preliminary: bool = False
    #: days and the run's cost with MFU, failure rate, tokens and power price each 20 % off (:mod:`.sensitivity`)
    sensitivity: tuple = ()

    def as_json(self) -> dict:
        return {"system": self.system, "system_name": self.system_name, "fabric": self.fabric, "status": self.status,
                "meets": self.meets, "binding": self.binding, "why": self.why, "sus": self.sus, "gpus": self.gpus,
                "plan": dict(self.plan), "mfu": self.mfu, "tokens_per_s": self.tokens_per_s,
                "days": self.days, "compute_days": self.compute_days, "ettr": self.ettr,
                "facility_mw": self.facility_mw, "it_mw": self.it_mw, "racks": self.racks, "halls": self.halls,
                "capex": self.capex, "currency": self.currency, "price_estimated": self.price_estimated,
                "cost_per_million_tokens": self.cost_per_million_tokens,
                "cost_per_gpu_hour": self.cost_per_gpu_hour, "errors": self.errors,
                "preliminary": self.preliminary, "sensitivity": [dict(r) for r in self.sensitivity]}


def resolve_fabric(catalog: Catalog, system: str, tech: str) -> str:
    """The generator's fabric for a goal's technology: ``ethernet`` is the system's Spectrum-X RA, else RoCE where
    the generator builds it (a GenerateError when the system has neither)."""
    if tech != "ethernet":
        return fabric_for(catalog, system, tech)
    for ethernet in ("spectrum-x", "roce"):  # the first the system's RAs build
        try:
            return fabric_for(catalog, system, ethernet)
        except GenerateError:
            continue
    raise GenerateError(f"{system} has no Ethernet reference architecture the generator builds (neither "
                        f"Spectrum-X nor RoCE); InfiniBand only")


def spec_for(system: str, fabric: str, sus: int) -> SuperpodSpec:
    return SuperpodSpec(system=system, sus=sus, fabric=fabric)


def not_buildable(option: Option) -> str | None:
    """Why ``option`` cannot become a design, as a predicate after "the option" (None: it can): it cannot be built
    at all, or its design has error findings and would not pass validate."""
    if option.status != "ok" or option.sus is None:
        return f"cannot be built: {option.why}"
    if option.errors:
        return (f"has a design with {option.errors} error finding{'s' if option.errors != 1 else ''}, which would not "
                f"pass validate: {option.why}")
    return None


def build_option(goal: Goal, option: Option, catalog: Catalog) -> Project:
    """The design of ``option`` with the goal's workload, as a project to save or open (the same generation the
    option was analysed on, so its analysis gives the option's figures). A ValueError when it cannot be built."""
    problem = not_buildable(option)
    if problem is not None:
        raise ValueError(problem)
    return generate(spec_for(option.system, option.fabric, option.sus), catalog).project.with_workload(
        goal.workload_dict)


def design_for(goal: Goal, system: str, fabric: str, sus: int, catalog: Catalog) -> tuple[Generated, Analysis]:
    """The generated design of ``sus`` scalable units with the goal's workload, and its analysis."""
    generated = generate(spec_for(system, fabric, sus), catalog)
    project = generated.project.with_workload(goal.workload_dict)
    generated.project = project
    # one thread per option: the plan's options already run on every core
    analysis = next(iter(analyze_workloads(project, catalog, [goal.workload_dict], engines=ENGINES, workers=1)))
    return generated, analysis


def _days(a: Analysis) -> float:
    t = a.training
    return t.wall_time_days if t.ok and t.fits and t.wall_time_days is not None else math.inf


def _over(goal: Goal, a: Analysis) -> tuple[str, float, float] | None:
    """(limit, need, cap) of the first cap the design passes (power, then budget), or None."""
    s = a.summary
    if goal.power_mw is not None:
        mw = (s.facility_power_kw if goal.power_basis == "facility" else s.it_power_max_kw) / 1000.0
        if mw > goal.power_mw * (1 + 1e-9):
            return "power", mw, goal.power_mw
    if goal.budget is not None and s.price_total > goal.budget * (1 + 1e-9):
        return "budget", s.price_total, goal.budget
    return None


def option_for(goal: Goal, system: str, tech: str, catalog: Catalog) -> Option:
    """The option of ``system`` on fabric technology ``tech`` (never raises for a design that cannot be built:
    the option says why)."""
    try:
        fabric = resolve_fabric(catalog, system, tech)
        planes = check_spec(spec_for(system, fabric, 1), catalog).planes  # the RA's: 2 for Spectrum-X
        walker = Walker(goal, system, fabric, planes, catalog)
        unsupported = walker.unsupported()
        if unsupported:  # FP4 on a GPU without FP4 tensor cores: no size would run it
            return Option(system, tech, "invalid", why=unsupported, system_name=catalog.get(system).name)
        deadline = goal.days
        too_big = None  # (size, why) when the size the goal takes is past what the generator builds
        for _ in range(MAX_RECHECKS):
            sized = size_for(walker, deadline)
            sus = sized.sus
            try:
                generated, a = design_for(goal, system, fabric, sus, catalog)
            except GenerateError as exc:
                largest = largest_buildable(system, fabric, sus, catalog)
                if largest is None:
                    raise GenerateError(f"the size it takes, {sus:,} scalable units ({walker.gpus(sus):,} GPUs, "
                                        f"{walker.days(sus):.1f} days), cannot be built: {exc}") from None
                too_big = (sus, str(exc))
                sus = largest
                generated, a = design_for(goal, system, fabric, sus, catalog)
                break
            if not sized.meets or _days(a) <= goal.days or not math.isfinite(_days(a)):
                break
            # the design's own storage, failure rate and fabric make it a little slower than the catalog cluster
            # the sizes were walked on: aim that much lower and walk again
            deadline *= sized.days / _days(a) * 0.999
        meets = _days(a) <= goal.days
        binding, why = (None, "") if meets else _short_of(goal, sized, a)
        if too_big is not None and not meets:
            took, problem = too_big
            binding = "build"
            why = (f"{'meeting' if sized.meets else 'coming closest to'} {goal.days:g} days takes {took:,} scalable "
                   f"units ({walker.gpus(took):,} GPUs, {walker.days(took):.2f} days), more than the generator "
                   f"builds ({_first_clause(problem)}); the largest it builds: {a.summary.gpus:,} GPUs, "
                   + (f"{_days(a):.2f} days" if math.isfinite(_days(a)) else "no plan that fits"))
        over = _over(goal, a)
        if over is not None:
            return _capped(goal, system, fabric, sus, over, catalog, a)
        return _option(goal, system, fabric, sus, a, meets, binding, why, catalog)
    except GenerateError as exc:
        return Option(system, tech, "invalid", why=str(exc), system_name=catalog.get(system).name)


def largest_buildable(system: str, fabric: str, sus: int, catalog: Catalog) -> int | None:
    """The most scalable units below ``sus`` the generator builds (None: not even one), by bisection on its quick
    check (the floor grid planned, nothing placed): a fabric's reach and a site's limits grow with the size."""
    def builds(k: int) -> bool:
        try:
            generate(spec_for(system, fabric, k), catalog, layout_only=True)
        except GenerateError:
            return False
        return True

    if sus <= 1 or not builds(1):
        return None
    lo, hi = 1, sus  # lo builds, hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if builds(mid) else (lo, mid)
    return lo


def _first_clause(text: str) -> str:
    """The first clause of a generator's message (up to its first semicolon), for a one-line why."""
    return text.split(";")[0].strip()


def _short_of(goal: Goal, sized: Sized, a: Analysis) -> tuple[str, str]:
    days = _days(a)
    if sized.binding == "failures":
        return "failures", (f"failures bind: even at {a.summary.gpus:,} GPUs the job is interrupted more often than "
                            f"it restarts, so it does no work")
    if sized.binding == "memory" or not math.isfinite(days):
        return "memory", "no parallel plan fits the model in the GPUs' memory at any size tried"
    gp = a.training.goodput if a.training.ok else None
    if sized.binding == "scaling" and gp is not None and gp.ettr < FAILURES_BIND:
        return "failures", (f"failures bind: at {a.summary.gpus:,} GPUs the job is interrupted every "
                            f"{gp.job_mtbf_h * 60:,.1f} min and {1 - gp.ettr:.0%} of the wall time goes to restarts "
                            f"and redone work, and more GPUs fail more often ({days:.2f} days at best)")
    if sized.binding == "scaling":
        return "scaling", (f"more GPUs stop shortening the run near {a.summary.gpus:,} GPUs ({days:.2f} days): the "
                           f"global batch caps data parallelism and communication outgrows the compute")
    return "estimate", (f"the design's own analysis gives {days:.2f} days at {a.summary.gpus:,} GPUs, where the size "
                        f"search on the catalog's cluster found {sized.days:.2f}: its storage, failure rate or fabric "
                        f"slow it")


def _capped(goal: Goal, system: str, fabric: str, sus: int, over: tuple[str, float, float], catalog: Catalog,
            first: Analysis) -> Option:
    """The largest size under the cap that binds, as the closest option: it does not meet the deadline (the size
    that does is over the cap)."""
    limit, need, cap = over
    needed_gpus, needed_days = first.summary.gpus, _days(first)
    fit = max(0, math.floor(sus * cap / need))
    a = None
    while fit >= 1:
        _, a = design_for(goal, system, fabric, fit, catalog)
        if _over(goal, a) is None:
            break
        fit -= 1
        a = None
    # a share of the cost is fixed (network, management, facility), so the proportional guess is low: climb while the
    # next size still fits under the cap
    while a is not None and fit + 1 < sus:
        try:
            _, bigger = design_for(goal, system, fabric, fit + 1, catalog)
        except GenerateError:
            break
        if _over(goal, bigger) is not None:
            break
        fit, a = fit + 1, bigger
    unit = "MW" if limit == "power" else first.summary.currency
    shown = (lambda x: f"{x:,.1f} MW") if limit == "power" else (lambda x: f"{x:,.0f} {unit}")
    what = "capital" if limit == "budget" else ("IT" if goal.power_basis == "it" else "facility") + " power"
    if not math.isfinite(needed_days):
        return _option(goal, system, fabric, sus, first, False, "memory",
                       "no parallel plan fits the model in the GPUs' memory at any size tried", catalog)
    took = "meeting" if needed_days <= goal.days else "coming closest to"
    why = (f"{took} {goal.days:g} days takes {needed_gpus:,} GPUs ({needed_days:.2f} days) and "
           f"{shown(need)} of {what}, over the {shown(cap)} cap")
    if a is None:
        return Option(system, fabric, "ok", False, limit, why + "; not one scalable unit fits under it",
                      catalog.get(system).name)
    under = f"{_days(a):.2f} days" if math.isfinite(_days(a)) else "no plan that fits"
    return _option(goal, system, fabric, fit, a, False, limit,
                   why + f"; under it: {a.summary.gpus:,} GPUs, {under}", catalog)


def _option(goal: Goal, system: str, fabric: str, sus: int, a: Analysis, meets: bool, binding: str | None,
            why: str, catalog: Catalog) -> Option:
    s, t = a.summary, a.training
    errors = design_errors(a)
    plan = {}
    if t.ok:
        plan = {"tp": t.tp, "pp": t.pp, "dp": t.dp, "cp": t.cp, "ep": t.ep, "expert_tp": t.expert_tp,
                "micro_batch": t.micro_batch, "virtual_stages": t.virtual_stages, "recompute": t.recompute,
                "zero": t.zero, "offload": t.offload, "global_batch": t.global_batch}
    days = _days(a)
    if errors.count and meets:
        meets, binding = False, "design"
        why = "the design has error findings: " + "; ".join(errors.first)
    return Option(
        system, fabric, "ok", meets, binding, why, catalog.get(system).name, sus, s.gpus, plan,
        mfu=t.mfu if t.ok and t.fits else None, tokens_per_s=t.tokens_per_s if t.ok and t.fits else None,
        days=days if math.isfinite(days) else None,
        compute_days=t.time_to_train_days if t.ok and t.fits else None,
        ettr=t.goodput.ettr if t.ok and t.fits and t.goodput is not None else None,
        facility_mw=round(s.facility_power_kw / 1000.0, 4), it_mw=round(s.it_power_max_kw / 1000.0, 4), racks=s.racks,
        halls=s.halls,
        capex=s.price_total, currency=s.currency, price_estimated=s.price_estimated,
        cost_per_million_tokens=a.cost.cost_per_million_tokens if a.has("cost") else None,
        cost_per_gpu_hour=a.cost.cost_per_gpu_hour if a.has("cost") else None, errors=errors.count,
        preliminary=any(f.code in ("catalog-preliminary", "training-preliminary") for f in a.findings),
        sensitivity=sensitivity(t, a.cost if a.has("cost") else None))


def rank(options: list[Option]) -> list[Option]:
    """Options that meet the goal first, cheapest capital first (then fewest days); then those short of it, closest
    first; then those that cannot be built."""
    def key(o: Option):
        if o.status != "ok":
            return (2, 0.0, 0.0, o.system, o.fabric)
        if o.meets:
            return (0, o.capex or 0.0, o.days or 0.0, o.system, o.fabric)
        return (1, o.days if o.days is not None else math.inf, o.capex or 0.0, o.system, o.fabric)
    return sorted(options, key=key)


_POOL_GOAL: list = []


def _pooled(job: tuple[str, str]) -> Option:
    goal, catalog = _POOL_GOAL[0]
    return option_for(goal, job[0], job[1], catalog)


def plan_goal(goal: Goal, catalog: Catalog, *, workers: int = 1,
              progress: Callable[[int, int], None] | None = None) -> list[Option]:
    """Every system × fabric option of ``goal``, ranked. ``workers`` > 1 sizes them on a local process pool."""
    jobs = [(system, tech) for system in goal.systems for tech in goal.fabrics]
    # a pool forks this process: one that has started threads (the window, a test runner's) sizes them here instead
    if workers <= 1 or len(jobs) <= 1 or threading.active_count() > 1:
        options = []
        for i, (system, tech) in enumerate(jobs, 1):
            options.append(option_for(goal, system, tech, catalog))
            if progress is not None:
                progress(i, len(jobs))
        return rank(options)
    # fork: the goal and the catalog already read are the workers' as they are, without a second load; the
    # command line has started no threads of its own
    _POOL_GOAL[:] = [(goal, catalog)]
    # the longest first, so that no worker starts one late while the other idles: rack-scale systems search many
    # more tensor-parallel widths (an NVLink domain of 72), and Ethernet rack-scale SUs are one rack each
    jobs.sort(key=lambda job: (catalog.get(job[0]).nvlink_domain or 0) * (2 if job[1] != "infiniband" else 1),
              reverse=True)
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=context) as pool:
        options = list(pool.map(_pooled, jobs))
    return rank(options)
