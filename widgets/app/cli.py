"""``podplanner gui [FILE]``: open the window, on FILE or on the bundled sample.

A command module of the ``podplanner`` command line (``NAME``, ``add_parser``,
``run``; see :mod:`designer.cli`), registered by :mod:`widgets.app.launcher`. Importing
it loads no Qt: Qt is imported only once the window is about to open, after the
file has been read and the display checked, so a broken file or a missing X11
library is one line on stderr and exit 2, not a crash.
"""
from __future__ import annotations

import argparse

from catalog import Catalog
from designer.cli import UsageError

NAME = "gui"


def add_parser(subparsers) -> None:
    g = subparsers.add_parser(NAME, help="open the designer window (the default when no command is given)")
    g.add_argument("file", nargs="?", help="project file to open (default: the bundled sample)")
    # For smoke tests of a built app: open, run this long, quit (exit 1 if an error was logged meanwhile).
    g.add_argument("--quit-after", type=_seconds, metavar="SECONDS", help=argparse.SUPPRESS)


def run(args, catalog: Catalog) -> int:
    from designer.fileformat import load

    from .qt_env import display_problem

    if args.file:
        load(args.file, catalog)  # a broken file is one line and exit 2, before any window
    problem = display_problem()
    if problem:
        raise UsageError(f"podplanner: {problem}")
    from .application import run_app

    if args.quit_after is not None:
        return run_app(args.file, catalog, quit_after_s=args.quit_after)
    return run_app(args.file, catalog)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r}: give more than 0 and at most 3600 seconds")
    return value
