"""``podplanner export``: every file format from one analysis of the design.

A command module of the ``podplanner`` command line: ``NAME``, ``add_parser`` and
``run``, registered by the launcher beside the domain's own commands.
"""
from __future__ import annotations

from pathlib import Path

from catalog import Catalog
from designer.cli import UsageError
from designer.fileformat import load

NAME = "export"


def add_parser(subparsers) -> None:
    e = subparsers.add_parser(NAME, help="write files from a design: the cabling plan (more formats to come)")
    e.add_argument("file")
    e.add_argument("--cabling", metavar="OUT.csv", help="the fabric's port-to-port cabling plan as CSV")


def run(args, catalog: Catalog) -> int:
    if not args.cabling:
        raise UsageError("podplanner export: say what to write, e.g. --cabling OUT.csv")
    from designer.fabric import wiring_plan, write_cabling_csv

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
