"""The ``podplanner`` command line: the domain's own commands, and a place for more.

``main(argv, commands)`` runs ``analyze``, ``validate``, ``fabric``, ``train`` and
``catalog``, plus every *command module* it is given: a module (or any object) with

- ``NAME: str`` -- the command word,
- ``add_parser(subparsers) -> None`` -- adds its argparse sub-parser,
- ``run(args, catalog) -> int`` -- runs it and returns the exit code,
- optionally ``ERRORS``: exception types it raises for a user's mistake.

The window (``gui``, :mod:`widgets.app.cli`) and the exports (``export``,
:mod:`exporters.cli`) are such modules; the ``podplanner`` console script
(:mod:`widgets.app.launcher`) registers them, so nothing here imports Qt or an exporter.

Every error is one line on stderr and exit code 2; a finding-level problem in a
design (``validate``) exits 1.
"""
from __future__ import annotations

import argparse
import difflib
import dataclasses
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from catalog import Catalog, CatalogError, UnknownDeviceError, load_catalog
from catalog.files import FileReadError, write_atomic
from catalog.loader import one_line
from catalog.records import EVIDENCE

from .summary_lines import storage_lines, training_lines
from .plan import PlanError
from .sweep import SweepError
from .. import __version__
from ..allocator import keep_freed_memory
from ..engines import share_the_interpreter_often
from ..fileformat import ProjectFileError, load
from ..findings import listed
from ..formatting import count, kw, money, number, percent, quantity
from ..settings import FABRIC_NAMES, Settings, SettingsError
from ..training.errors import TrainingError
from ..fabric.sizing import FabricError
from ..generate.spec import GenerateError
from ..names import Namer
from .flags import checked, path, real, whole

#: Errors that are the user's to fix: one line on stderr, exit 2.
USER_ERRORS = (CatalogError, ProjectFileError, UnknownDeviceError, TrainingError, FabricError, GenerateError,
               SweepError, PlanError)


class CommandModule(Protocol):
    """What ``main(commands=...)`` takes: a command of the command line defined outside ``designer``."""

    NAME: str

    def add_parser(self, subparsers) -> None: ...

    def run(self, args: argparse.Namespace, catalog: Catalog) -> int: ...


class UsageError(Exception):
    """Bad flags or arguments: reported as one line, exit 2."""


def _setting(name: str):
    """The type of a what-if flag: a finite number the design's settings accept (their ranges, one place:
    designer/settings.py), refused while parsing, before any file is read."""
    return checked(real(None, None), lambda value: Settings(**{name: value}))


#: Bounds of ``fabric``'s numeric flags (its parser lives in designer/cli/fabric.py; they are set here, where
#: every command's flags are bounded). Endpoints stop at a billion, a thousand times the largest fabric built,
#: so that the sizer, not the parser, names the real reach of the switch; a node has at most 64 fabric ports;
#: a scalable unit at most 4,096 nodes; down:up at the leaf and at the spines 1 to 64, as the design's settings
#: take them.
FABRIC_FLAGS = {"endpoints": whole(1, 10**9), "rails": whole(1, 64), "su_nodes": whole(1, 4_096),
                "oversubscription": real(1, 64), "core_oversubscription": real(1, 64),
                "reserved_ports": whole(0, 1_000_000)}


def _bound(parser: argparse.ArgumentParser, types: Mapping[str, object]) -> None:
    """Give ``parser``'s flags (by dest) these argparse types."""
    for action in parser._actions:
        if action.dest in types:
            action.type = types[action.dest]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would print usage and exit; we want one clean line
        raise UsageError(f"{self.prog}: {message}{self._did_you_mean(message)}")

    #: the command line being parsed, so that a hint can name the flags of the command actually run
    argv: list[str] = []

    def _did_you_mean(self, message: str) -> str:
        """'did you mean --pue?' for a mistyped flag of the command given (argparse names what it did not
        recognise; the top parser reports a subcommand's strays too)."""
        if "unrecognized arguments:" not in message:
            return ""
        parser, top_flags = self._chosen(), set(self._option_string_actions)
        flags = {f.lstrip("-"): f for f in parser._option_string_actions if f.startswith("--")}
        hints = []
        for word in message.split("unrecognized arguments:", 1)[1].split():
            name = word.split("=", 1)[0]
            if not name.startswith("--") or name == "--" or name in parser._option_string_actions:
                continue  # a flag of this command left after '--' is not a typo
            if name in top_flags and parser is not self:
                hints.append(f"{name} goes before the command")
                continue
            close = difflib.get_close_matches(name.lstrip("-"), list(flags), n=1, cutoff=0.75)
            if close:
                hints.append(f"{word}: did you mean {flags[close[0]]}?")
        return f" ({'; '.join(hints)})" if hints else ""

    def _chosen(self) -> argparse.ArgumentParser:
        """The (sub)parser of the command words in :attr:`argv`: ``new superpod`` -> its own parser."""
        parser: argparse.ArgumentParser = self
        for word in self.argv:
            subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
            if word.startswith("-") or not subs:
                continue
            if word in subs[0].choices:
                parser = subs[0].choices[word]
        return parser


def _parser(commands: Sequence[CommandModule] = ()) -> _Parser:
    p = _Parser(prog="podplanner", description="Design AI datacenters: DGX SuperPODs, GB200 NVL72 halls, "
                                                 "their power, cooling and fabric.")
    p.add_argument("--version", action="version", version=f"podplanner {__version__}")
    p.add_argument("--catalog", action="append", metavar="DIR", default=None, type=path,
                   help="extra catalog folder (JSON entries or NetBox device-type YAML); repeatable; "
                        "overrides built-in ids")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    a = sub.add_parser("analyze", help="analyse a project file")
    a.add_argument("file", type=path)
    a.add_argument("--json", action="store_true", help="print the analysis as one JSON document")
    w = a.add_argument_group("what-if settings (override the project's)")
    w.add_argument("--pue", type=_setting("pue"), help="power usage effectiveness, >= 1")
    w.add_argument("--coolant", help="water or pg25")
    w.add_argument("--delta-t", dest="coolant_delta_t_k", type=_setting("coolant_delta_t_k"), metavar="K",
                   help="coolant supply/return difference in K")
    w.add_argument("--air-delta-t", dest="air_delta_t_k", type=_setting("air_delta_t_k"), metavar="K",
                   help="air temperature rise in K")
    w.add_argument("--air-supply", dest="air_supply_c", type=_setting("air_supply_c"), metavar="C",
                   help="supply air temperature in °C (24)")
    w.add_argument("--power-factor", type=_setting("power_factor"), help="real/apparent power of the load, 0-1")
    w.add_argument("--derating", type=_setting("derating"), help="continuous-load share of a circuit's rating, 0-1")
    w.add_argument("--failover-derating", type=_setting("failover_derating"),
                   help="share of a circuit's rating its surviving feed may carry with the other lost, 0-1 (1)")
    w.add_argument("--air-rack-limit", dest="air_rack_limit_kw", type=_setting("air_rack_limit_kw"), metavar="KW",
                   help="air heat one rack may reject to the room, kW (30)")
    w.add_argument("--gpu-power-w", dest="gpu_power_cap_w", type=_setting("gpu_power_cap_w"), metavar="W",
                   help="cap every GPU's power at W watts (the design's own cap, if any, otherwise none)")

    v = sub.add_parser("validate",
                       help="check a project file; exit 0 valid, 1 findings of severity error, 2 unreadable")
    v.add_argument("file", type=path)

    from .fabric import add_parser as add_fabric_parser
    from .new import add_parser as add_new_parser
    from .plan import add_parser as add_plan_parser
    from .sweep import add_parser as add_sweep_parser
    from .train import add_parser as add_train_parser

    _bound(add_fabric_parser(sub), FABRIC_FLAGS)
    add_train_parser(sub)
    add_new_parser(sub)
    add_plan_parser(sub)

    c = sub.add_parser("catalog", help="list, show or import hardware catalog entries")
    csub = c.add_subparsers(dest="catalog_command", parser_class=_Parser, required=True)
    cl = csub.add_parser("list", help="every device type with its sources")
    cl.add_argument("--kind", help="only this kind (server, switch, rack, ...)")
    cl.add_argument("--json", action="store_true")
    cs = csub.add_parser("show", help="one device type, every figure with its source")
    cs.add_argument("id")
    cs.add_argument("--json", action="store_true")
    ci = csub.add_parser("import-netbox", help="convert a NetBox devicetype-library YAML file into a catalog entry")
    ci.add_argument("yaml", type=path)
    ci.add_argument("-o", "--output", metavar="DIR", type=path, help="catalog folder to write the JSON entry into "
                                                          "(default: print it)")
    ci.add_argument("--force", action="store_true", help="with -o: replace an entry of the same id already there")
    cmp = sub.add_parser("compare", help="two designs' key figures side by side with the change from A to B")
    cmp.add_argument("a", metavar="A", type=path, help="the first project file")
    cmp.add_argument("b", metavar="B", type=path, help="the second project file")
    cmp.add_argument("--json", action="store_true", help="print the comparison as one JSON document")
    add_sweep_parser(sub)
    for command in commands:
        command.add_parser(sub)
    return p


def _print_json(doc) -> None:
    from .json_output import print_json

    print_json(doc)


def _sources_of(dev) -> str:
    ids = sorted({f.source for f in dev.figures.values()})
    return ",".join(ids)


def _list_flags(dev) -> str:
    """What ``catalog list`` says beside an entry: preliminary figures first, then how many are unconfirmed."""
    flags = ["PRELIMINARY"] if dev.preliminary else []
    if dev.unconfirmed_fields:
        flags.append(f"{len(dev.unconfirmed_fields)} unconfirmed")
    return ", ".join(flags)


def cmd_catalog(args, catalog: Catalog) -> int:
    from catalog.writer import entry_to_json

    if args.catalog_command == "list":
        devices = [d for d in catalog if not args.kind or d.kind == args.kind]
        if args.kind and not devices:
            kinds = sorted({d.kind for d in catalog})
            raise UsageError(f"podplanner catalog list: no device of kind {args.kind!r}; kinds: {', '.join(kinds)}")
        if args.json:
            _print_json([{"id": d.id, "kind": d.kind, "name": d.name, "sources": _sources_of(d).split(","),
                          "unconfirmed": list(d.unconfirmed_fields), "preliminary": d.preliminary}
                         for d in devices])
            return 0
        rows = [(d.id, d.kind, d.name, _sources_of(d), _list_flags(d)) for d in devices]
        widths = [max(len(r[i]) for r in rows + [("ID", "KIND", "NAME", "SOURCES", "")]) for i in range(4)]
        head = ("ID", "KIND", "NAME", "SOURCES", "")
        for r in [head] + rows:
            print("  ".join(c.ljust(w) for c, w in zip(r[:4], widths)) + ("  " + r[4] if r[4] else ""))
        return 0
    if args.catalog_command == "show":
        dev = catalog.get(args.id)
        if args.json:
            doc = entry_to_json(dev)
            cited = sorted({f.source for f in dev.figures.values()})
            doc["sources"] = {s: dataclasses.asdict(catalog.sources[s]) for s in cited if s in catalog.sources}
            _print_json(doc)
            return 0
        print(f"{dev.name}  [{dev.id}]  {dev.kind}, {dev.category}")
        if dev.preliminary:
            print(f"  PRELIMINARY: {dev.preliminary}")
        if dev.description:
            print(f"  {dev.description}")
        for name, fig in sorted(dev.figures.items()):
            flag = "  UNCONFIRMED" if fig.unconfirmed else ""
            note = f"  ({fig.note})" if fig.note else ""
            print(f"  {name:28} {fig.value!s:>14}  {fig.source} {fig.evidence}{flag}{note}")
        print("sources:")
        for s in sorted({f.source for f in dev.figures.values()}):
            src = catalog.sources.get(s)
            if src:
                print(f"  {s}: {src.title}" + (f" <{src.url}>" if src.url else ""))
        print("evidence:")  # the tag after each figure's source, as the hardware reference defines them
        for tag in sorted({f.evidence for f in dev.figures.values()}, key=list(EVIDENCE).index):
            print(f"  {tag}: {EVIDENCE[tag]}")
        return 0
    from catalog.netbox import import_devicetype
    from catalog.writer import entry_to_text

    prog = "podplanner catalog import-netbox"
    if args.force and not args.output:
        raise UsageError(f"{prog}: --force applies to -o DIR (it replaces an entry there)")
    dev = import_devicetype(args.yaml)
    if args.output:
        out = Path(args.output)
        if not out.is_dir():
            raise UsageError(f"{prog}: {out}: no such folder")
        target = out / f"{dev.id}.json"
        if os.path.lexists(target) and not args.force:
            raise UsageError(f"{prog}: {target}: already exists; give --force to replace it")
        try:
            write_atomic(target, entry_to_text(dev))
        except OSError as exc:
            raise UsageError(f"podplanner catalog import-netbox: {target}: cannot be written "
                             f"({exc.strerror or exc})") from None
        print(f"wrote {target} ({dev.kind} {dev.id}; every figure marked unconfirmed)")
    else:
        _print_json(entry_to_json(dev))
    return 0


def cmd_validate(args, catalog: Catalog) -> int:
    from ..analysis import analyze
    from ..registry import APART

    project = load(args.file, catalog)
    findings = analyze(project, catalog, apart=APART).findings  # the findings analyze reports, every engine's
    kept, left_out = listed(findings)
    for f in kept:
        print(f"{args.file}: {f.severity}: {f.where}: {f.message}")
    for lo in left_out:
        print(f"{args.file}: {lo.severity}: {lo.text()}")
    errors = sum(f.severity == "error" for f in findings)
    print(f"{args.file}: {len(project.racks)} racks, {len(findings)} findings, {errors} errors")
    return 1 if errors else 0


def _with_overrides(project, args):
    """Apply what-if settings given on the command line (--pue, --coolant, --delta-t ...)."""
    changes = {key: getattr(args, key) for key in ("pue", "coolant", "coolant_delta_t_k", "air_delta_t_k",
                                                    "air_supply_c", "power_factor", "derating", "failover_derating",
                                                    "air_rack_limit_kw", "gpu_power_cap_w")
               if getattr(args, key, None) is not None}
    if not changes:
        return project
    try:
        return project.with_settings(project.settings.updated(**changes))  # keeps the file's renames
    except SettingsError as exc:
        flag = "--" + str(exc).split(" ")[0].replace("coolant_delta_t_k", "delta-t").replace(
            "air_delta_t_k", "air-delta-t").replace("air_supply_c", "air-supply").replace(
            "air_rack_limit_kw", "air-rack-limit").replace(
            "gpu_power_cap_w", "gpu-power-w").replace("_", "-")
        raise UsageError(f"podplanner analyze: {flag}: {exc}") from None


def cmd_analyze(args, catalog: Catalog) -> int:
    from ..analysis import analyze
    from ..registry import APART

    project = _with_overrides(load(args.file, catalog), args)
    result = analyze(project, catalog, apart=APART)
    if args.json:
        _print_json(result.to_json())
        return 0
    s, p, c = result.summary, result.power, result.cooling
    print(f"{s.name}")
    print(f"  {count(s.racks, 'rack')}, {count(s.gpus, 'GPU')}")
    print(f"  IT power      {kw(s.it_power_typical_kw):>13} typical  {kw(s.it_power_max_kw):>13} max"
          + (f"  (every GPU capped at {quantity(p.settings.gpu_power_cap_w, 'W')})"
             if p.settings.gpu_power_cap_w else ""))
    print(f"  facility      {kw(s.facility_power_kw):>13} at PUE {p.settings.pue:g}")
    print(f"  heat          {kw(c.liquid_kw):>13} liquid     {kw(c.air_kw):>13} air  "
          f"({quantity(c.heat.btu_h, 'BTU/h')}, {quantity(c.heat.tons, 'tons')})")
    print(f"  coolant       {quantity(c.coolant_flow_lpm, 'l/min'):>13} {c.settings.coolant} at "
          f"{quantity(c.settings.coolant_delta_t_k, 'K')}   air {quantity(c.air_cfm, 'CFM')}")
    print(f"  heaviest rack {quantity(result.floor.max_load_kg_m2, 'kg/m²'):>13}")
    fabric_line = _fabric_line(result, catalog)
    if fabric_line:
        print(f"  {fabric_line}")
    for line in _chain_lines(result):
        print(f"  {line}")
    b, cost = result.bom, result.cost
    net = money(b.price_total, b.currency)
    discount = f" after {money(b.discount_total, b.currency)} discount" if b.discount_total else ""
    notes = (["indicative prices"] if b.estimated else []) + (
        [f"{count(len(b.unpriced), 'line')} without a price left out"] if b.unpriced else [])
    print(f"  quote         {net}{discount}, {count(b.lines, 'line')}" + (f" ({'; '.join(notes)})" if notes else ""))
    if cost.cost_per_gpu_hour is not None:
        per_tokens = (f", {money(cost.cost_per_million_tokens, cost.currency)} per million tokens"
                      if cost.cost_per_million_tokens is not None else "")
        print(f"  cost          {money(cost.cost_per_gpu_hour, cost.currency)} per GPU-hour at "
              f"{percent(cost.utilisation)} use over {cost.depreciation_years:g} years{per_tokens}")
    for line in storage_lines(result) + training_lines(result):
        print(f"  {line}")
    for type_id, n in result.devices.by_type.items():
        print(f"  {n:6,d} x {type_id}")
    namer = Namer(result.project, catalog)  # a summary for people: places by name (validate keeps ids for grep)
    kept, left_out = listed(result.findings)
    for f in kept:
        print(f"  {f.severity}: {namer.summary(f.places)}: {f.message}")
    for lo in left_out:
        print(f"  {lo.severity}: {lo.text()}")
    return 0


def _fabric_line(result, catalog: Catalog) -> str:
    """The compute fabric in one line: technology, planes, switches by tier (every plane), cables."""
    f = result.fabric
    if not f.built:
        return ""
    switch = catalog.find(f.switch or "")
    model = switch.name if switch is not None else (f.switch or "")
    top = "core" if f.technology == "infiniband" else "super-spine"
    tiers = f"{number(f.leaf)} leaf + {number(f.spine)} spine" + (f" + {number(f.core)} {top}" if f.core else "")
    planes = (f", {f.planes} planes of {f.port_gbps:g}G ({number(f.per_plane.leaf)} + {number(f.per_plane.spine)}"
              + (f" + {number(f.per_plane.core)}" if f.core else "") + " each)") if f.planes > 1 else ""
    return (f"fabric        {FABRIC_NAMES.get(f.technology, f.technology)}{planes}: {tiers} {model}, "
            f"{f.tiers} tiers, {count(f.cables_total or 0, 'cable')}")


def _chain_lines(result) -> list[str]:
    """The power chain above the racks in a line per level: the busiest row, each hall's UPS and generators."""
    p = result.power
    out = []
    rated = [r for r in p.rows if r.rating_kw]
    if rated:
        def worst_feed(r):
            return max((r.feeds.A, r.feeds.B), key=lambda f: f.failover_utilisation or 0)

        top = max(rated, key=lambda r: worst_feed(r).failover_utilisation or 0)
        fa = worst_feed(top)
        runs = f"{top.runs} x " if top.runs > 1 else ""
        out.append(f"busiest row   {top.row}: {runs}{quantity(top.rating_a, 'A')} {top.distribution} "
                   f"{percent(fa.utilisation)} normal, {percent(fa.failover_utilisation)} with a feed lost")
    for ups in p.ups:
        worst = max(ups.systems, key=lambda u: u.failover_utilisation or 0)
        out.append(f"UPS           {ups.scheme}, {len(ups.systems)} x {kw(worst.capacity_kw)}: "
                   f"{percent(worst.utilisation)} normal, {percent(worst.failover_utilisation)} with its partner lost")
    for g in p.generators:
        blocks = f" per block, {g.blocks} blocks" if g.blocks > 1 else ""
        site = f", {percent(g.derating)} of rating at the site" if g.derating < 1.0 else ""
        out.append(f"generators    {g.units} x {kw(g.unit_kw)} ({g.redundant} spare{blocks}{site}): "
                   f"{percent(g.utilisation)} of {kw(g.capacity_kw)}"
                   + (f" (margin {percent(g.margin)})" if g.margin is not None else ""))
    return out


def cmd_compare(args, catalog: Catalog) -> int:
    from ..analysis import analyze
    from ..compare import compare, compare_text

    a, b = (analyze(load(path, catalog), catalog) for path in (args.a, args.b))
    doc = compare(a, b, args.a, args.b)
    if args.json:
        _print_json(doc)
    else:
        print(compare_text(doc))
    return 0


def cmd_fabric(args, catalog: Catalog) -> int:
    from .fabric import run

    return run(args, catalog)


def cmd_new(args, catalog: Catalog) -> int:
    from .new import run

    return run(args, catalog)


def cmd_sweep(args, catalog: Catalog) -> int:
    from .sweep import run

    return run(args, catalog)


def cmd_plan(args, catalog: Catalog) -> int:
    from .plan import run

    return run(args, catalog)


def cmd_train(args, catalog: Catalog) -> int:
    from .train import run

    return run(args, catalog)


_DOMAIN_RUN = {"analyze": cmd_analyze, "validate": cmd_validate, "fabric": cmd_fabric, "train": cmd_train,
               "new": cmd_new, "catalog": cmd_catalog, "compare": cmd_compare, "sweep": cmd_sweep,
             "plan": cmd_plan}

#: The domain's own commands.
DOMAIN_COMMANDS = tuple(_DOMAIN_RUN)


def _command_position(argv: list[str]) -> int | None:
    """Index of the command word in ``argv`` (``len(argv)`` when none is given), or None when
    argparse answers first: ``--help``, ``--version``, or ``--catalog`` without its folder."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help", "--version"):
            return None
        if arg == "--catalog":
            if i + 1 >= len(argv):
                return None
            i += 2
            continue
        if not arg.startswith("-"):
            return i
        i += 1
    return i


def _looks_like_a_file(arg: str) -> bool:
    return Path(arg).exists() or "." in arg or "/" in arg or os.sep in arg


def _with_command(argv: list[str], names: Sequence[str], default: str | None,
                  elsewhere: Mapping[str, str]) -> list[str]:
    """``argv`` with its command word: ``default`` is implied when none is given or the first
    argument is a file (``podplanner``, ``podplanner FILE``). A command of another entry
    point (``elsewhere``) is named with its message; any other unknown word is refused."""
    i = _command_position(argv)
    if i is None:
        return argv
    word = argv[i] if i < len(argv) else None
    if word in names:
        return argv
    if word in elsewhere:
        raise UsageError(elsewhere[word])
    if word is not None and not _looks_like_a_file(word):
        hint = "; or give a project file to open" if default and default not in elsewhere else ""
        close = difflib.get_close_matches(word, [*names, *elsewhere], n=1, cutoff=0.6)
        mean = f"did you mean {close[0]!r}? " if close else ""
        raise UsageError(f"podplanner: unknown command {word!r} ({mean}commands: {', '.join(names)}{hint})")
    if default is None:
        raise UsageError(f"podplanner: say which command: {', '.join(names)}")
    if default in elsewhere:
        raise UsageError(elsewhere[default])
    return argv[:i] + [default] + argv[i:]


def _without_prog(message: str, commands) -> str:
    """'podplanner analyze: --pue: ...' -> 'analyze: --pue: ...': every error line starts 'podplanner: error:'.
    Only the CLI's own prefix goes: a message about a file named 'podplanner x.json' keeps its name."""
    if message.startswith("podplanner: "):
        return message[len("podplanner: "):]
    word = message[len("podplanner "):].split(" ", 1)[0].rstrip(":")
    if message.startswith("podplanner ") and word in commands:
        return message[len("podplanner "):]
    return message


def main(argv: list[str] | None = None, commands: Sequence[CommandModule] = (), *,
         default: str | None = None, elsewhere: Mapping[str, str] | None = None) -> int:
    """Run one command line; returns the exit code.

    ``commands`` are extra command modules (see the module's docstring). ``default``
    names the command that runs when none is named or a file comes first. ``elsewhere``
    maps command words that another entry point provides to the one-line message that
    says so (``python -m designer gui``).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    keep_freed_memory()  # a large design's columns reuse freed memory (see designer.allocator)
    share_the_interpreter_often()  # engines on threads wait less for the interpreter (see designer.engines)
    elsewhere = dict(elsewhere or {})
    errors = (UsageError, *USER_ERRORS, *(e for c in commands for e in getattr(c, "ERRORS", ())))
    try:
        run = dict(_DOMAIN_RUN)
        for command in commands:
            if command.NAME in run:
                raise ValueError(f"command {command.NAME!r} is registered twice")
            run[command.NAME] = command.run
        argv = _with_command(argv, list(run), default, elsewhere)
        parser = _parser(commands)
        parser.argv = argv
        args = parser.parse_args(argv)
        catalog = load_catalog(args.catalog)
        for warning in catalog.warnings:  # implicit user folders only: --catalog DIR broken is an error
            print(f"podplanner: warning: {warning}", file=sys.stderr)
        return run[args.command](args, catalog)
    except errors as exc:
        print(f"podplanner: error: {one_line(_without_prog(str(exc), (*run, *elsewhere)))}", file=sys.stderr)
        return 2
    except FileReadError as exc:  # carries its path apart from its reason
        print(f"podplanner: error: {one_line(f'{exc.path}: {exc.reason}')}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: still one line, never a traceback
        print(f"podplanner: error: internal error: {type(exc).__name__}: {one_line(str(exc))[:500]}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
