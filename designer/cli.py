"""The ``podplanner`` command line.

Every error is one line on stderr and exit code 2; a finding-level problem in a
design (``validate``) exits 1. Qt is imported only by the GUI command.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path

from catalog import Catalog, CatalogError, UnknownDeviceError, load_catalog

from . import __version__
from .fileformat import ProjectFileError, load
from .settings import SettingsError
from .training.errors import TrainingError
from .fabric.sizing import FabricError

COMMANDS = ("analyze", "catalog", "validate", "fabric", "train", "export", "gui")


class UsageError(Exception):
    """Bad flags or arguments: reported as one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would print usage and exit; we want one clean line
        raise UsageError(f"{self.prog}: {message}")


def _parser() -> _Parser:
    p = _Parser(prog="podplanner", description="Design AI datacenters: DGX SuperPODs, GB200 NVL72 halls, "
                                                 "their power, cooling and fabric.")
    p.add_argument("--version", action="version", version=f"podplanner {__version__}")
    p.add_argument("--catalog", action="append", metavar="DIR", default=None,
                   help="extra catalog folder (JSON entries or NetBox device-type YAML); repeatable; "
                        "overrides built-in ids")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    g = sub.add_parser("gui", help="open the designer window (the default when no command is given)")
    g.add_argument("file", nargs="?", help="project file to open (default: the bundled sample)")

    a = sub.add_parser("analyze", help="analyse a project file")
    a.add_argument("file")
    a.add_argument("--json", action="store_true", help="print the analysis as one JSON document")
    w = a.add_argument_group("what-if settings (override the project's)")
    w.add_argument("--pue", type=float, help="power usage effectiveness, >= 1")
    w.add_argument("--coolant", help="water or pg25")
    w.add_argument("--delta-t", dest="coolant_delta_t_k", type=float, metavar="K",
                   help="coolant supply/return difference in K")
    w.add_argument("--air-delta-t", dest="air_delta_t_k", type=float, metavar="K", help="air temperature rise in K")
    w.add_argument("--power-factor", type=float, help="real/apparent power of the load, 0-1")
    w.add_argument("--derating", type=float, help="continuous-load share of a circuit's rating, 0-1")

    v = sub.add_parser("validate", help="check a project file; exit 0 valid, 1 findings of severity error, 2 unreadable")
    v.add_argument("file")

    from .fabric.cli import add_parser as add_fabric_parser
    from .training.cli import add_parser as add_train_parser

    add_fabric_parser(sub)
    add_train_parser(sub)

    e = sub.add_parser("export", help="write files from a design: the cabling plan (more formats to come)")
    e.add_argument("file")
    e.add_argument("--cabling", metavar="OUT.csv", help="the fabric's port-to-port cabling plan as CSV")

    c = sub.add_parser("catalog", help="list, show or import hardware catalog entries")
    csub = c.add_subparsers(dest="catalog_command", parser_class=_Parser, required=True)
    cl = csub.add_parser("list", help="every device type with its sources")
    cl.add_argument("--kind", help="only this kind (server, switch, rack, ...)")
    cl.add_argument("--json", action="store_true")
    cs = csub.add_parser("show", help="one device type, every figure with its source")
    cs.add_argument("id")
    cs.add_argument("--json", action="store_true")
    ci = csub.add_parser("import-netbox", help="convert a NetBox devicetype-library YAML file into a catalog entry")
    ci.add_argument("yaml")
    ci.add_argument("-o", "--output", metavar="DIR", help="catalog folder to write the JSON entry into "
                                                          "(default: print it)")
    return p


def _print_json(doc) -> None:
    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def _sources_of(dev) -> str:
    ids = sorted({f.source for f in dev.figures.values()})
    return ",".join(ids)


def cmd_catalog(args, catalog: Catalog) -> int:
    from catalog.writer import entry_to_json

    if args.catalog_command == "list":
        devices = [d for d in catalog if not args.kind or d.kind == args.kind]
        if args.kind and not devices:
            kinds = sorted({d.kind for d in catalog})
            raise UsageError(f"podplanner catalog list: no device of kind {args.kind!r}; kinds: {', '.join(kinds)}")
        if args.json:
            _print_json([{"id": d.id, "kind": d.kind, "name": d.name, "sources": _sources_of(d).split(","),
                          "unconfirmed": list(d.unconfirmed_fields)} for d in devices])
            return 0
        rows = [(d.id, d.kind, d.name, _sources_of(d), f"{len(d.unconfirmed_fields)} unconfirmed"
                 if d.unconfirmed_fields else "") for d in devices]
        widths = [max(len(r[i]) for r in rows + [("ID", "KIND", "NAME", "SOURCES", "")]) for i in range(4)]
        head = ("ID", "KIND", "NAME", "SOURCES", "")
        for r in [head] + rows:
            print("  ".join(c.ljust(w) for c, w in zip(r[:4], widths)) + ("  " + r[4] if r[4] else ""))
        return 0
    if args.catalog_command == "show":
        dev = catalog.get(args.id)
        if args.json:
            doc = entry_to_json(dev)
            doc["sources"] = {s: dataclasses.asdict(catalog.sources[s]) for s in sorted({f.source for f in dev.figures.values()})
                              if s in catalog.sources}
            _print_json(doc)
            return 0
        print(f"{dev.name}  [{dev.id}]  {dev.kind}, {dev.category}")
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
        return 0
    from catalog.netbox import import_devicetype

    dev = import_devicetype(args.yaml)
    doc = entry_to_json(dev)
    if args.output:
        out = Path(args.output)
        if not out.is_dir():
            raise UsageError(f"podplanner catalog import-netbox: {out}: no such folder")
        target = out / f"{dev.id}.json"
        target.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {target} ({dev.kind} {dev.id}; every figure marked unconfirmed)")
    else:
        _print_json(doc)
    return 0


def cmd_validate(args, catalog: Catalog) -> int:
    from .checks import check_space

    project = load(args.file, catalog)
    findings = check_space(project, catalog)
    for f in findings:
        print(f"{args.file}: {f.severity}: {f.where}: {f.message}")
    errors = sum(f.severity == "error" for f in findings)
    print(f"{args.file}: {len(project.racks)} racks, {len(findings)} findings, {errors} errors")
    return 1 if errors else 0


def _with_overrides(project, args):
    """Apply what-if settings given on the command line (--pue, --coolant, --delta-t ...)."""
    changes = {key: getattr(args, key) for key in ("pue", "coolant", "coolant_delta_t_k", "air_delta_t_k",
                                                    "power_factor", "derating")
               if getattr(args, key, None) is not None}
    if not changes:
        return project
    try:
        return project.with_settings(project.settings.updated(**changes))
    except SettingsError as exc:
        flag = "--" + str(exc).split(" ")[0].replace("coolant_delta_t_k", "delta-t").replace(
            "air_delta_t_k", "air-delta-t").replace("_", "-")
        raise UsageError(f"podplanner analyze: {flag}: {exc}") from None


def cmd_analyze(args, catalog: Catalog) -> int:
    from .analysis import analyze

    project = _with_overrides(load(args.file, catalog), args)
    result = analyze(project, catalog)
    if args.json:
        _print_json(result.to_json())
        return 0
    s, p, c = result.summary, result["power"], result["cooling"]
    print(f"{s['name']}")
    print(f"  {s['racks']} racks, {s['gpus']} GPUs")
    print(f"  IT power      {s['it_power_typical_kw']:10.1f} kW typical  {s['it_power_max_kw']:10.1f} kW max")
    print(f"  facility      {s['facility_power_kw']:10.1f} kW at PUE {p['settings']['pue']:g}")
    print(f"  heat          {c['liquid_kw']:10.1f} kW liquid     {c['air_kw']:10.1f} kW air  "
          f"({c['heat']['btu_h']:,.0f} BTU/h, {c['heat']['tons']:.1f} tons)")
    print(f"  coolant       {c['coolant_flow_lpm']:10.1f} L/min {c['settings']['coolant']} at "
          f"{c['settings']['coolant_delta_t_k']:g} K   air {c['air_cfm']:,.0f} CFM")
    print(f"  heaviest rack {result['floor']['max_load_kg_m2']:10.1f} kg/m²")
    for type_id, n in result["devices"]["by_type"].items():
        print(f"  {n:6d} x {type_id}")
    for f in result.findings:
        print(f"  {f.severity}: {f.where}: {f.message}")
    return 0


def cmd_fabric(args, catalog: Catalog) -> int:
    from .fabric.cli import run

    return run(args, catalog)


def cmd_export(args, catalog: Catalog) -> int:
    if not args.cabling:
        raise UsageError("podplanner export: say what to write, e.g. --cabling OUT.csv")
    from .fabric import wiring_plan, write_cabling_csv

    project = load(args.file, catalog)
    links = wiring_plan(project, catalog, tiers=project.settings.fabric_tiers,
                        oversubscription=project.settings.fabric_oversubscription)
    out = Path(args.cabling)
    if not out.parent.is_dir():
        raise UsageError(f"podplanner export: --cabling: {out.parent}: no such folder")
    try:
        write_cabling_csv(links, out)
    except OSError as exc:
        raise UsageError(f"podplanner export: --cabling: {out}: cannot be written ({exc.strerror or exc})") from None
    print(f"wrote {out}: {len(links)} links")
    return 0


def cmd_train(args, catalog: Catalog) -> int:
    from .training.cli import run

    return run(args, catalog)


def cmd_gui(args, catalog: Catalog) -> int:
    from widgets.qt_env import display_problem

    if args.file:
        load(args.file, catalog)  # a broken file is one line and exit 2, before any window
    problem = display_problem()
    if problem:
        raise UsageError(f"podplanner: {problem}")
    from widgets.app import run_app

    return run_app(args.file, catalog)


def _default_to_gui(argv: list[str]) -> list[str]:
    """`podplanner` and `podplanner FILE` open the GUI: insert the implied `gui` command."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help", "--version"):
            return argv
        if arg == "--catalog":
            if i + 1 >= len(argv):
                return argv  # let argparse say the flag needs a folder
            i += 2
            continue
        if arg.startswith("-"):
            i += 1
            continue
        if arg in COMMANDS:
            return argv
        if not Path(arg).exists() and "." not in arg and "/" not in arg and os.sep not in arg:
            raise UsageError(f"podplanner: unknown command {arg!r} (commands: {', '.join(COMMANDS)}; "
                             "or give a project file to open)")
        return argv[:i] + ["gui"] + argv[i:]
    return argv + ["gui"]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    try:
        argv = _default_to_gui(argv)
        args = parser.parse_args(argv)
        catalog = load_catalog(args.catalog)
        handler = {"analyze": cmd_analyze, "catalog": cmd_catalog, "validate": cmd_validate, "gui": cmd_gui,
                   "train": cmd_train, "fabric": cmd_fabric, "export": cmd_export}
        return handler[args.command](args, catalog)
    except (UsageError, CatalogError, ProjectFileError, UnknownDeviceError, TrainingError, FabricError) as exc:
        print(f"podplanner: error: {exc}" if not str(exc).startswith("podplanner") else f"{exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: still one line, never a traceback
        print(f"podplanner: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
