"""``podplanner export``: every file format from one analysis of the design.

A command module of the ``podplanner`` command line: ``NAME``, ``add_parser`` and
``run``, registered by the launcher beside the domain's own commands. Each format's
flag comes from :data:`exporters.registry.FORMATS`.
"""
from __future__ import annotations

from pathlib import Path

from catalog import Catalog
from designer.cli import UsageError
from designer.fileformat import load

from .registry import FORMATS, ExportError

NAME = "export"


def add_parser(subparsers) -> None:
    e = subparsers.add_parser(NAME, help="write files from a design: " + ", ".join(
        f.title.lower() for f in FORMATS.values()))
    e.add_argument("file")
    for fmt in FORMATS.values():
        e.add_argument(fmt.flag, dest=f"out_{fmt.name}", metavar=f"OUT{fmt.suffix}", help=fmt.description)


def run(args, catalog: Catalog) -> int:
    wanted = [(fmt, Path(getattr(args, f"out_{fmt.name}"))) for fmt in FORMATS.values()
              if getattr(args, f"out_{fmt.name}", None)]
    if not wanted:
        first = next(iter(FORMATS.values()))
        raise UsageError(f"podplanner export: say what to write, e.g. {first.flag} OUT{first.suffix}")
    for fmt, out in wanted:  # refuse a bad target before spending time on the analysis
        if not out.parent.is_dir():
            raise UsageError(f"podplanner export: {fmt.flag}: {out.parent}: no such folder")
        if out.is_dir():
            raise UsageError(f"podplanner export: {fmt.flag}: {out}: is a folder")
    from designer.analysis import analyze

    analysis = analyze(load(args.file, catalog), catalog)
    for fmt, out in wanted:
        try:
            account = fmt.write(analysis, out)
        except ExportError as exc:
            raise UsageError(f"podplanner export: {fmt.flag}: {exc}") from None
        except OSError as exc:
            raise UsageError(f"podplanner export: {fmt.flag}: {out}: cannot be written "
                             f"({exc.strerror or exc})") from None
        print(f"wrote {out}: {account}")
    return 0
