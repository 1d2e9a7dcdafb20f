"""A training goal, as a customer states it: this model, these tokens, in so many days, within a power cap and a
budget, on these systems and fabrics. Checked whole before any work: each bad input is one message naming it."""
from __future__ import annotations

import math
from dataclasses import dataclass

from catalog import Catalog

from ..generate.spec import SYSTEMS
from ..training.errors import TrainingError
from ..training.section import FAILURE_KEY, FAILURE_RANGE, INTERVAL_KEY, INTERVAL_RANGE, check_workload

#: The systems a goal is sized on unless told: the catalog's current generation (Blackwell, Blackwell Ultra and
#: the announced Rubin) that the generator builds. Hopper and Ampere are last generation's purchases.
CURRENT_SYSTEMS = ("dgx-b200", "dgx-b300", "dgx-b300-dc", "gb200-nvl72", "gb300-nvl72", "dgx-rubin-nvl8")
#: Fabric technologies a goal may ask for: ``ethernet`` is the system's Ethernet reference architecture
#: (Spectrum-X where it has one, else RoCE on SN5600 for the 400G ConnectX-7 systems).
FABRIC_CHOICES = ("infiniband", "ethernet", "spectrum-x", "roce")
DEFAULT_FABRICS = ("infiniband", "ethernet")
POWER_BASES = ("facility", "it")
#: Bounds of what a goal may ask: tokens up to 10^16 (600 times Llama 3's 15T), a deadline of at most ten years,
#: caps up to 100 GW and a budget up to 10^13 in the catalog's currency.
MAX_TOKENS = 1e16
MAX_DAYS = 3650.0
#: and at least a million tokens in at least 0.1 day: the engine gives days to 0.01, so a shorter deadline could
#: not be told from a miss
MIN_TOKENS = 1e6
MIN_DAYS = 0.1
MAX_POWER_MW = 100_000.0
MAX_BUDGET = 1e13


class GoalError(ValueError):
    """A goal that cannot be sized: the message names the input at fault."""


@dataclass(frozen=True)
class Goal:
    """What to train and under which limits. ``workload`` is the project workload the designs are given (model,
    tokens, precision); ``power_mw`` caps the facility (or IT) power, ``budget`` the bill's total."""

    workload: tuple[tuple[str, object], ...]
    tokens: float
    days: float
    systems: tuple[str, ...] = CURRENT_SYSTEMS
    fabrics: tuple[str, ...] = DEFAULT_FABRICS
    power_mw: float | None = None
    power_basis: str = "facility"
    budget: float | None = None

    @property
    def workload_dict(self) -> dict:
        return dict(self.workload)

    @property
    def failure_rate(self) -> float | None:
        """Interruptions per 1,000 GPU-days the goal states (None: each design's own rate from its parts)."""
        return self.workload_dict.get(FAILURE_KEY)

    @property
    def checkpoint_interval_min(self) -> float | None:
        """The checkpoint interval the goal states, minutes (None: Daly's optimum for each design)."""
        return self.workload_dict.get(INTERVAL_KEY)

    def as_json(self) -> dict:
        wl = self.workload_dict
        return {"model": wl.get("model") or {"params": wl.get("params")}, "seq": wl.get("seq"),
                "tokens": self.tokens, "days": self.days,
                "precision": wl.get("precision", "bf16"), "power_mw": self.power_mw, "power_basis": self.power_basis,
                "budget": self.budget, "systems": list(self.systems), "fabrics": list(self.fabrics),
                FAILURE_KEY: self.failure_rate, INTERVAL_KEY: self.checkpoint_interval_min}


def assumptions(goal: Goal) -> tuple[str, ...]:
    """What the options' figures assume, each with its source (the goal's stated goodput inputs said as such)."""
    if goal.failure_rate is None:
        failures = ("failures: each design's own rate from its GPUs, hosts, links and switches (Llama 3, arXiv "
                    "2407.21783, Table 5: 419 interruptions in 54 days on 16,384 H100, 0.47 per 1,000 GPU-days; "
                    "Alibaba HPN, SIGCOMM 2024: link and switch failure rates)")
    else:
        failures = (f"failures: {goal.failure_rate:g} interruptions per 1,000 GPU-days for the whole job, as the goal "
                    f"states (Llama 3 saw 0.47: arXiv 2407.21783, Table 5)")
    if goal.checkpoint_interval_min is None:
        interval = "checkpoints: every Daly-optimal interval (Daly 2006)"
    else:
        interval = f"checkpoints: every {goal.checkpoint_interval_min:g} min, as the goal states"
    return (
        "days: the best parallel plan's wall-clock time, failures, restarts and checkpoints included (the training "
        "engine on each design)",
        failures,
        interval + ", written at the design's storage tier's rate; restarts 10 minutes plus the read (MegaScale, "
        "NSDI 2024)",
        "global batch: about 2,048 tokens per GPU, at least 4M and at most the compute-optimal batch (Llama 3 405B; "
        "DeepSeek LLM's fit)",
        "capital: the bill of materials at the catalog's prices; facility power: IT at full load times the PUE",
        "sizes: whole scalable units of each system's reference architecture; options ranked by capital",
    )


def _positive(value: float | None, flag: str, most: float, least: float = 0.0) -> None:
    if value is None:
        return
    if not math.isfinite(value) or value <= 0:
        raise GoalError(f"{flag}: must be above 0, got {value:g}")
    if value > most:
        raise GoalError(f"{flag}: {value:g} is above the {most:g} a goal may ask")
    if value < least:
        raise GoalError(f"{flag}: {value:g} is below the {least:g} a goal may ask")


def make_goal(catalog: Catalog, *, workload: dict, days: float, systems=None, fabrics=None,
              power_mw: float | None = None, power_basis: str = "facility", budget: float | None = None,
              failure_rate: float | None = None, checkpoint_interval_min: float | None = None) -> Goal:
    """The checked goal (a GoalError naming the first bad input). ``failure_rate`` (interruptions per 1,000
    GPU-days) and ``checkpoint_interval_min`` become the workload's, so a design built from an option keeps them."""
    tokens = workload.get("tokens")
    _positive(None if tokens is None else float(tokens), "--tokens", MAX_TOKENS, MIN_TOKENS)
    if tokens is None:
        raise GoalError("--tokens: say how many tokens to train (e.g. 15e12)")
    _positive(days, "--days", MAX_DAYS, MIN_DAYS)
    _positive(power_mw, "--power-mw", MAX_POWER_MW)
    _positive(budget, "--budget", MAX_BUDGET)
    _positive(failure_rate, "--failure-rate", FAILURE_RANGE[1], FAILURE_RANGE[0])
    _positive(checkpoint_interval_min, "--checkpoint-interval", INTERVAL_RANGE[1], INTERVAL_RANGE[0])
    workload = dict(workload)
    if failure_rate is not None:
        workload[FAILURE_KEY] = float(failure_rate)
    if checkpoint_interval_min is not None:
        workload[INTERVAL_KEY] = float(checkpoint_interval_min)
    if power_basis not in POWER_BASES:
        raise GoalError(f"--power-basis: {power_basis!r} is not one of {', '.join(POWER_BASES)}")
    try:
        check_workload(workload)
    except TrainingError as exc:
        raise GoalError(f"model: {exc}") from None
    chosen = _listed(systems, CURRENT_SYSTEMS, "--systems")
    for system in chosen:
        if system not in SYSTEMS:
            what = "not a system the generator builds" if system in catalog else "not in the catalog"
            raise GoalError(f"--systems: {system!r} is {what}; choose from {', '.join(SYSTEMS)}")
    techs = _listed(fabrics, DEFAULT_FABRICS, "--fabrics")
    for tech in techs:
        if tech not in FABRIC_CHOICES:
            raise GoalError(f"--fabrics: {tech!r} is not one of {', '.join(FABRIC_CHOICES)}")
    goal = Goal(tuple(sorted(workload.items())), float(tokens), float(days), chosen, techs, power_mw, power_basis,
                budget)
    _cap_above_one_system(goal, catalog)
    return goal


def _listed(value, default: tuple[str, ...], flag: str) -> tuple[str, ...]:
    if value is None:
        return default
    items = [v.strip().lower() for v in (value.split(",") if isinstance(value, str) else value)]
    items = [v for v in items if v]
    if not items:
        raise GoalError(f"{flag}: name at least one")
    if len(items) > 50:
        raise GoalError(f"{flag}: {len(items)} entries; at most 50")
    seen: list[str] = []
    for item in items:
        if len(item) > 60:
            raise GoalError(f"{flag}: {item[:60]!r}… is not a name")
        if item in seen:
            raise GoalError(f"{flag}: {item!r} is given twice")
        seen.append(item)
    return tuple(seen)


def system_draw_mw(catalog: Catalog, system: str, basis: str, pue: float) -> float:
    """One system's maximum draw in MW, at the IT plug or at the facility (IT times PUE)."""
    dev = catalog.get(system)
    it_mw = (dev.power_max_w or 0.0) / 1e6
    return it_mw * (pue if basis == "facility" else 1.0)


def _cap_above_one_system(goal: Goal, catalog: Catalog) -> None:
    """A power cap below even one of the allowed systems leaves nothing to size: refused, naming the smallest."""
    if goal.power_mw is None:
        return
    from ..settings import Settings

    pue = Settings().pue
    draws = {s: system_draw_mw(catalog, s, goal.power_basis, pue) for s in goal.systems}
    smallest = min(draws, key=draws.get)
    if goal.power_mw < draws[smallest]:
        raise GoalError(f"--power-mw {goal.power_mw:g}: smaller than one {catalog.get(smallest).name} "
                        f"({draws[smallest]:.3g} MW of {goal.power_basis} power at full load), the smallest "
                        f"system allowed")
