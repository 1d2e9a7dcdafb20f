"""``podplanner plan --model M --tokens T --days D [--power-mw P] [--budget B] [--systems …] [--fabrics …]
[--build N -o FILE] [--json]``: from a training goal to ranked options, each a design that can be built.

Exit 0 when at least one option meets the goal; 1 when none does (the closest are listed with the limit that
binds: that is an answer, not an error); 2 for an input that cannot be sized (one line naming it).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

from catalog import Catalog

from ..generate.spec import SYSTEMS
from ..goal.sensitivity import CHANGE, FACTORS
from ..training.models import PRESETS
from .flags import output_problem, real, whole
from .flags import path as checked_path
from .json_output import print_json

NAME = "plan"
PROG = "podplanner plan"
#: the most local worker processes: far beyond a workstation's cores, a sign of a typo
MAX_WORKERS = 256


class PlanError(ValueError):
    """A goal or a flag that cannot be sized: one line, exit 2."""


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("plan", help="from a training goal (model, tokens, days, caps) to ranked options, each "
                                           "a design that can be built")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--model", metavar="PRESET", type=str.lower, help=f"model preset: {', '.join(PRESETS)}")
    what.add_argument("--params", type=real(1e6, 1e14), metavar="N",
                      help="parameter count (e.g. 7e10) for a Llama-style shape")
    p.add_argument("--seq", type=whole(1, 1_048_576), metavar="N", help="sequence length (default: the model's)")
    p.add_argument("--tokens", type=real(None, 1e16), metavar="N", required=True, help="tokens to train (e.g. 15e12)")
    p.add_argument("--days", type=real(None, None), metavar="D", required=True,
                   help="deadline: days to train, failures and checkpoints included")
    p.add_argument("--precision", choices=("bf16", "fp8", "fp4"), type=str.lower, default="bf16",
                   help="GEMM precision (default bf16)")
    p.add_argument("--power-mw", type=real(None, None), metavar="P",
                   help="power cap in MW (facility power unless --power-basis it)")
    p.add_argument("--power-basis", choices=("facility", "it"), type=str.lower, default="facility",
                   help="what --power-mw caps: facility power (IT at full load times the PUE) or IT power")
    p.add_argument("--budget", type=real(None, None), metavar="B",
                   help="capital cap: the bill's total, in its currency")
    p.add_argument("--failure-rate", type=real(None, None), metavar="R",
                   help="interruptions per 1,000 GPU-days for the whole job (default: each design's own rate from "
                        "its parts; Llama 3 saw 0.47)")
    p.add_argument("--checkpoint-interval", type=real(None, None), metavar="MIN",
                   help="minutes between checkpoints (default: Daly's optimal interval for each design)")
    p.add_argument("--systems", metavar="LIST",
                   help=f"systems to size, comma-separated (default: the current generation; any of "
                        f"{', '.join(SYSTEMS)})")
    p.add_argument("--fabrics", metavar="LIST",
                   help="fabric technologies, comma-separated: infiniband, ethernet (the system's Ethernet RA), "
                        "spectrum-x, roce (default: infiniband,ethernet)")
    p.add_argument("--workers", type=whole(1, MAX_WORKERS), metavar="N",
                   help="local processes sizing options at once (default: the cores this process may use)")
    p.add_argument("--build", type=whole(1, 1000), metavar="N", help="write option N's design to -o FILE")
    p.add_argument("-o", "--output", metavar="FILE", type=checked_path, help="project file --build writes")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def _workload(args) -> dict:
    wl: dict = {"model": args.model} if args.model else {"model": None, "params": args.params}
    if args.seq is not None:
        wl["seq"] = args.seq
    wl["tokens"] = args.tokens
    wl["precision"] = args.precision
    return wl


def run(args, catalog: Catalog) -> int:
    from ..goal.goal import GoalError, assumptions, make_goal
    from ..goal.options import plan_goal
    from ..sweep.runners import available_cores

    if (args.build is None) != (args.output is None):
        raise PlanError(f"{PROG}: --build N and -o FILE go together")
    if args.output is not None:
        problem = output_problem(Path(args.output))
        if problem is not None:
            raise PlanError(f"{PROG}: -o {args.output}: {problem}")
    try:
        goal = make_goal(catalog, workload=_workload(args), days=args.days, systems=args.systems,
                         fabrics=args.fabrics, power_mw=args.power_mw, power_basis=args.power_basis,
                         budget=args.budget, failure_rate=args.failure_rate,
                         checkpoint_interval_min=args.checkpoint_interval)
    except GoalError as exc:
        raise PlanError(f"{PROG}: {exc}") from None
    options = plan_goal(goal, catalog, workers=args.workers or available_cores())
    if all(o.status != "ok" for o in options):  # nothing to rank: an input that cannot be sized
        raise PlanError(f"{PROG}: no option can be sized: " + "; ".join(
            f"{o.system} on {o.fabric}: {o.why}" for o in options[:3]) + ("; …" if len(options) > 3 else ""))
    built = None
    if args.build is not None:
        built = _build(goal, options, args.build, Path(args.output), catalog)
    meeting = sum(o.meets for o in options)
    if args.json:
        print_json({"goal": goal.as_json(), "ranked_by": "capital (options that meet the goal first)",
                    "assumptions": list(assumptions(goal)), "meets": meeting,
                    "options": [{"rank": i, **o.as_json()} for i, o in enumerate(options, 1)],
                    "built": built})
    else:
        _print_text(goal, options, meeting, built)
    return 0 if meeting else 1


def _build(goal, options, n: int, out: Path, catalog: Catalog) -> str:
    from ..fileformat import save
    from ..goal.options import build_option, not_buildable

    if n > len(options):
        there = "is 1 option" if len(options) == 1 else f"are {len(options)} options"
        raise PlanError(f"{PROG}: --build {n}: there {there}")
    option = options[n - 1]
    problem = not_buildable(option)
    if problem is not None:
        raise PlanError(f"{PROG}: --build {n}: option {n} ({option.system} on {option.fabric}) {problem}")
    project = build_option(goal, option, catalog)
    try:
        save(project, out, catalog=catalog)
    except OSError as exc:
        raise PlanError(f"{PROG}: -o {out}: cannot be written ({exc.strerror or exc})") from None
    return str(out)


_FABRIC = {"infiniband": "InfiniBand", "spectrum-x": "Spectrum-X", "roce": "RoCE", "ethernet": "Ethernet"}


def _plan_text(plan: dict) -> str:
    if not plan:
        return "-"
    text = f"TP{plan['tp']} PP{plan['pp']} DP{plan['dp']}"
    if plan.get("cp", 1) > 1:
        text += f" CP{plan['cp']}"
    if plan.get("ep", 1) > 1:
        text += f" EP{plan['ep']}"
    return text


def _print_sensitivity(rank: int, o) -> None:
    """Option ``rank``'s days and run cost with each assumption 20 % off, alone."""
    rows = {(r["factor"], r["change"]): r for r in o.sensitivity}
    base = rows[("as_designed", 0.0)]
    print(f"option {rank} ({_system(o)}, {_FABRIC.get(o.fabric, o.fabric)}) if one assumption is off, alone: "
          f"{base['days']:.1f} days and {_money(base['run_cost'], o.currency)} for the run as designed")
    print(f"    {'':<14} {'-20 %':>24} {'+20 %':>24}")
    for factor, label in FACTORS:
        cells = []
        for change in (-CHANGE, CHANGE):
            r = rows[(factor, change)]
            cells.append(f"{r['days']:.1f} d, {_money(r['run_cost'], o.currency)}")
        print(f"    {label:<14} {cells[0]:>24} {cells[1]:>24}")


def _system(o) -> str:
    """The system's name as people say it ("DGX B300 (AC power …)"), cut to the column."""
    name = (o.system_name or o.system).removeprefix("NVIDIA ")
    return name if len(name) <= 26 else name[:25] + "…"


def _money(x: float | None, currency: str) -> str:
    if x is None:
        return "-"
    return f"{x / 1e6:,.1f}M {currency}" if x >= 1e6 else f"{x:,.0f} {currency}"


def _print_text(goal, options, meeting: int, built: str | None) -> None:
    from ..goal.goal import assumptions

    wl = goal.workload_dict
    model = wl.get("model") or f"a {wl.get('params', 0):.3g}-parameter model"
    caps = []
    if goal.power_mw is not None:
        caps.append(f"{goal.power_mw:g} MW of {'IT' if goal.power_basis == 'it' else 'facility'} power")
    if goal.budget is not None:
        currency = next((o.currency for o in options if o.status == "ok"), "")
        caps.append(f"a budget of {goal.budget:,.0f} {currency}".rstrip())
    print(f"{model} on {goal.tokens:.3g} tokens in {goal.days:g} days"
          + (f" within {' and '.join(caps)}" if caps else "")
          + f": {meeting} of {len(options)} options meet it")
    head = (f"{'#':>2}  {'system':<26} {'fabric':<11} {'GPUs':>9}  {'plan':<20} {'MFU':>4} {'days':>6} "
            f"{'MW':>6} {'racks':>6} {'halls':>5} {'capital':>15} {'$/M tok':>8} {'$/GPU-h':>7}  meets")
    print(head)
    for i, o in enumerate(options, 1):
        if o.status != "ok":
            print(f"{i:>2}  {_system(o):<26} {_FABRIC.get(o.fabric, o.fabric):<11} cannot be built: "
                  f"{o.why}")
            continue
        mfu = f"{o.mfu * 100:.0f}%" if o.mfu is not None else "-"
        days = f"{o.days:.2f}" if o.days is not None and math.isfinite(o.days) else "-"
        per_m = f"{o.cost_per_million_tokens:.2f}" if o.cost_per_million_tokens is not None else "-"
        per_h = f"{o.cost_per_gpu_hour:.2f}" if o.cost_per_gpu_hour is not None else "-"
        flag = "yes" if o.meets else f"no: {o.binding}"
        mark = " (preliminary)" if o.preliminary else ""
        gpus = f"{o.gpus:,}" if o.gpus else "-"
        mw = f"{o.facility_mw:.1f}" if o.facility_mw is not None else "-"
        racks = f"{o.racks:,}" if o.racks is not None else "-"
        halls = f"{o.halls}" if o.halls is not None else "-"
        print(f"{i:>2}  {_system(o):<26} {_FABRIC.get(o.fabric, o.fabric):<11} "
              f"{gpus:>9}  {_plan_text(o.plan):<20} {mfu:>4} {days:>6} {mw:>6} "
              f"{racks:>6} {halls:>5} {_money(o.capex, o.currency):>15} {per_m:>8} {per_h:>7}  "
              f"{flag}{mark}")
        if not o.meets and o.why:
            print(f"      {o.why}")
    top = next((o for o in options if o.meets and o.sensitivity), None)
    if top is not None:
        _print_sensitivity(options.index(top) + 1, top)
    print("assumptions:")
    for line in assumptions(goal):
        print(f"  - {line}")
    if built:
        print(f"wrote {built}")
    if not meeting:
        print(f"{PROG}: no option meets the goal; the closest are listed first, with the limit that binds",
              file=sys.stderr)
