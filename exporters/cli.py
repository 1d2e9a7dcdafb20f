"""``podplanner export``: every file format from one analysis of the design.

A command module of the ``podplanner`` command line: ``NAME``, ``add_parser`` and
``run``, registered by the launcher beside the domain's own commands. Each format's
flag comes from :data:`exporters.registry.FORMATS`.

A large design takes seconds to analyse and to write, so on a terminal each step says what it is doing
and how long it took, on stderr ("Writing Quote (PDF) to q.pdf… 1.20 s"); where stderr is not a terminal
(a script, a pipe, CI) nothing is added, and stdout carries only the "wrote" lines either way.
"""
from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from catalog import Catalog
from designer.cli import UsageError
from designer.cli.flags import path
from designer.fileformat import load
from designer.formatting import quantity

from .registry import FORMATS, ExportError, check_target
from .staging import Staging, StagingError

NAME = "export"
MIN_DPI, MAX_DPI = 36, 600
#: the formats that carry prices and the customer's name
QUOTE_FORMATS = ("pdf", "xlsx", "csv")


def add_parser(subparsers) -> None:
    e = subparsers.add_parser(NAME, help="write files from a design: " + ", ".join(
        f.title.lower() for f in FORMATS.values()))
    e.add_argument("file", type=path)
    for fmt in FORMATS.values():
        e.add_argument(fmt.flag, dest=f"out_{fmt.name}", metavar=fmt.metavar, type=path, help=fmt.description)
    e.add_argument("--dpi", type=_dpi, metavar="N", help=f"resolution of the PNG images, {MIN_DPI}-{MAX_DPI} (150)")
    e.add_argument("--prices", metavar="FILE", type=path,
                   help="a price list (CSV or XLSX: part number, price, currency, date) whose prices override the "
                        "catalog's for this export")
    e.add_argument("--customer", metavar="NAME", help="the customer the quote is for (overrides the project's)")


def run(args, catalog: Catalog) -> int:
    wanted = [(fmt, Path(getattr(args, f"out_{fmt.name}"))) for fmt in FORMATS.values()
              if getattr(args, f"out_{fmt.name}", None)]
    if not wanted:
        flags = [f"{f.flag} {f.metavar}" for f in FORMATS.values()]
        raise UsageError(f"podplanner export: say what to write: {', '.join(flags[:-1])} or {flags[-1]}")
    priced = [fmt for fmt, _ in wanted if fmt.name in QUOTE_FORMATS]
    for flag in ("prices", "customer"):
        if getattr(args, flag) is not None and not priced:
            raise UsageError(f"podplanner export: --{flag} applies to the quote: give it with "
                             + ", ".join(FORMATS[n].flag for n in QUOTE_FORMATS if n in FORMATS))
    if args.customer is not None and not args.customer.strip():
        raise UsageError("podplanner export: --customer: give the customer's name")
    if args.dpi is not None and not any("dpi" in fmt.options for fmt, _ in wanted):
        raise UsageError("podplanner export: --dpi applies to the images: give it with "
                         + ", ".join(f.flag for f in FORMATS.values() if "dpi" in f.options))
    for fmt, out in wanted:  # refuse a bad target before spending time on the analysis
        try:
            check_target(fmt, out)
        except ExportError as exc:
            raise UsageError(f"podplanner export: {fmt.flag}: {exc}") from None
    seen: dict[str, str] = {}
    for fmt, out in wanted:  # two formats on one file would each replace the other's (a link counts as its file)
        real = os.path.realpath(out)
        if real in seen:
            raise UsageError(f"podplanner export: {seen[real]} and {fmt.flag} name the same file ({out}); give each "
                             f"format its own")
        seen[real] = fmt.flag
    from designer.analysis import analyze

    progress = Progress(sys.stderr)
    with progress.step(f"Analysing {Path(args.file).name}"):
        project = load(args.file, catalog)
        project = _with_quote_flags(project, args)
        analysis = analyze(project, catalog)
    # Each format goes to a temporary beside its target; all are renamed into place only when every one
    # is written, so a failing format leaves no partial set (exporters/staging.py).
    staging, wrote = Staging(), []
    try:
        for fmt, out in wanted:
            options = {"dpi": args.dpi} if "dpi" in fmt.options and args.dpi is not None else {}
            try:
                with progress.step(f"Writing {fmt.title} to {out.name}"):
                    wrote.append((out, fmt.write(analysis, staging.temporary(fmt, out), **options)))
            except ExportError as exc:
                raise UsageError(f"podplanner export: {fmt.flag}: {exc}") from None
            except OSError as exc:
                raise UsageError(f"podplanner export: {fmt.flag}: {out}: cannot be written "
                                 f"({exc.strerror or exc})") from None
        try:
            staging.commit()
        except StagingError as exc:
            raise UsageError(f"podplanner export: {exc.fmt.flag}: {exc}") from None
    finally:
        staging.discard()
    for out, account in wrote:
        print(f"wrote {out}: {account}")
    return 0


class Progress:
    """One line per step on ``stream`` when it is a terminal: what is being done, then how long it took
    (or "failed"); nothing at all when it is not a terminal."""

    def __init__(self, stream: TextIO, clock=time.monotonic):
        self.stream, self.clock = stream, clock
        try:
            self.enabled = bool(stream.isatty())
        except (AttributeError, ValueError):  # no isatty, or a closed stream
            self.enabled = False

    @contextmanager
    def step(self, what: str):
        if not self.enabled:
            yield
            return
        sys.stdout.flush()  # a "wrote" line already printed comes first on a shared terminal
        self.stream.write(f"{what}… ")
        self.stream.flush()
        start = self.clock()
        try:
            yield
        except BaseException:
            self.stream.write("failed\n")
            self.stream.flush()
            raise
        self.stream.write(f"{quantity(self.clock() - start, 's')}\n")
        self.stream.flush()


def _with_quote_flags(project, args):
    """The project with ``--prices`` and ``--customer`` applied, through the same command the window uses."""
    from catalog.files import FileReadError
    from designer.commands import CommandError, UpdateQuoteCommand
    from designer.quote.prices import read_price_list
    from designer.quote_settings import QuoteError

    changes: dict = {}
    if args.prices:
        try:
            entries, name = read_price_list(args.prices, default_currency=project.currency)
        except QuoteError as exc:
            raise UsageError(f"podplanner export: --prices: {exc}") from None
        except FileReadError as exc:
            raise UsageError(f"podplanner export: --prices: {args.prices}: {exc}") from None
        changes.update(prices=entries, price_list_name=name)
    if args.customer is not None:
        changes["customer"] = args.customer
    if not changes:
        return project
    try:
        return UpdateQuoteCommand(changes).apply(project, None)[0]
    except CommandError as exc:
        raise UsageError(f"podplanner export: {exc}") from None


def _dpi(text: str) -> int:
    """A resolution the image can be drawn at without running out of memory on a large hall."""
    import argparse

    t = text.strip()
    # ASCII digits only: str.isdigit() also takes "²", which int() then refuses
    if not (t.isascii() and t.isdigit()) or len(t) > 4 or not MIN_DPI <= int(t) <= MAX_DPI:
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a resolution from {MIN_DPI} to {MAX_DPI}")
    return int(text)
