"""Argparse types for numeric flags: finite numbers within a stated range, or one clear error.

``type=real(1e6, 1e14)`` refuses ``nan``, ``inf``, ``1e308`` and a 5,000-digit integer while
argparse parses, so no engine ever sees them: argparse reports
``argument --params: 1e308 is out of range (1e6 to 1e14)`` and the command line exits 2.

A bound given as None is left to the command, which already checks that side with a
message of its own (``--tp must be at least 1``); the other checks still apply.
"""
from __future__ import annotations

import argparse
import math
import os
import re
from pathlib import Path
from typing import Callable

#: No flag needs more characters: a float has 17 significant digits, and the longest
#: sensible integer here (a token budget) has 17. Longer text is refused before it is parsed,
#: so a huge literal never costs time or memory.
MAX_CHARS = 40
#: The longest file or folder name in a path, in bytes: what ext4, XFS, Btrfs and APFS hold.
MAX_NAME_BYTES = 255
#: The longest path, in bytes: Linux's PATH_MAX.
MAX_PATH_BYTES = 4096
# 1000, 1_000 and 1,000 alike; a comma only between groups of three ("2,4" is a list, not 24)
_WHOLE_RE = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+(?:_\d+)*)", re.ASCII)


def _shown(text: str) -> str:
    """The user's text as quoted in a message, never more than a line."""
    return repr(text) if len(text) <= 24 else f"{text[:20]!r}... ({len(text):,} characters)"


def fmt(x: float) -> str:
    """A bound the way people write it, exactly: 1e6, 15e12, 16,777,216, 64, 0.5."""
    if float(x).is_integer() and abs(x) < 1e18:
        n = int(x)
        digits = str(abs(n))
        zeros = len(digits) - len(digits.rstrip("0"))
        if zeros >= 6:
            return f"{'-' if n < 0 else ''}{digits.rstrip('0')}e{zeros}"
        return f"{n:,}"
    return re.sub(r"e\+?0*(\d)", r"e\1", f"{x:.12g}").replace("e-0", "e-")


def _range(lo: float | None, hi: float | None, lo_open: bool) -> str:
    if lo is None and hi is None:
        return ""
    if lo is None:
        return f"at most {fmt(hi)}"
    if hi is None:
        return f"{'above' if lo_open else 'at least'} {fmt(lo)}"
    return f"{'above ' if lo_open else ''}{fmt(lo)} to {fmt(hi)}"


def _check(value: float, text: str, lo: float | None, hi: float | None, lo_open: bool) -> None:
    below = lo is not None and (value <= lo if lo_open else value < lo)
    if below or (hi is not None and value > hi):
        raise argparse.ArgumentTypeError(f"{text.strip()} is out of range ({_range(lo, hi, lo_open)})")


def real(lo: float | None, hi: float | None, *, lo_open: bool = False) -> Callable[[str], float]:
    """A finite float in [lo, hi] (or (lo, hi] with ``lo_open``)."""

    def parse(text: str) -> float:
        if len(text) > MAX_CHARS:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is too long for a number")
        try:  # "1_5" is 15 to Python's float(), never what a person typing a number meant
            value = float(text) if "_" not in text else math.nan
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number") from None
        if math.isnan(value):
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a number")
        if math.isinf(value) and "inf" in text.lower():
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a finite number")
        if math.isinf(value) and lo is None and hi is None:  # a literal beyond any float (1e400)
            raise argparse.ArgumentTypeError(f"{text.strip()} is beyond any number a float can hold")
        _check(value, text, lo, hi, lo_open)
        return value

    parse.__name__ = "number"  # what argparse would call it
    return parse


def whole(lo: int | None, hi: int | None) -> Callable[[str], int]:
    """A whole number in [lo, hi], written in digits (``1_000`` and ``1,000`` too)."""

    def parse(text: str) -> int:
        t = text.strip()
        if len(t) > MAX_CHARS:
            raise argparse.ArgumentTypeError(f"{_shown(text)} is too long for a number")
        if not _WHOLE_RE.fullmatch(t):
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not a whole number")
        value = int(t.replace(",", "").replace("_", ""))
        _check(value, t, lo, hi, False)
        return value

    parse.__name__ = "whole number"
    return parse


def checked(parse: Callable[[str], float], check: Callable[[float], None]) -> Callable[[str], float]:
    """``parse``, then ``check(value)``, whose ValueError becomes argparse's error (its text as it is):
    lets a flag share the range its model enforces, so the two can never disagree."""

    def run(text: str) -> float:
        value = parse(text)
        try:
            check(value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return value

    run.__name__ = getattr(parse, "__name__", "value")
    return run


def path(text: str) -> str:
    """A file or folder a file system can name: each name in it at most MAX_NAME_BYTES, the whole at most
    MAX_PATH_BYTES, no NUL. Refused while argparse parses, before any work, with the flag named."""
    try:
        raw = os.fsencode(text)
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogatepass")
    if b"\0" in raw:
        raise argparse.ArgumentTypeError("a path holds no NUL character")
    if len(raw) > MAX_PATH_BYTES:
        raise argparse.ArgumentTypeError(f"the path is {len(raw):,} bytes long; a path is at most "
                                         f"{MAX_PATH_BYTES:,} bytes")
    seps = os.sep.encode() + (os.altsep.encode() if os.altsep else b"")
    longest = max(re.split(b"[" + re.escape(seps) + b"]", raw), key=len)
    if len(longest) > MAX_NAME_BYTES:
        raise argparse.ArgumentTypeError(f"a name in the path is {len(longest):,} bytes long; a file or folder "
                                         f"name is at most {MAX_NAME_BYTES} bytes")
    return text


path.__name__ = "path"


def output_problem(target: Path) -> str | None:
    """Why ``target`` cannot take a command's output, in words (None: it can), asked before any work: a folder,
    a device or pipe, a read-only file, or a folder that is not there or cannot be written to."""
    from catalog.files import check_target

    if not target.parent.is_dir():
        return f"folder {target.parent} does not exist"
    if target.is_dir():
        return "is a folder; give a file name"
    if target.exists() and not target.is_file():
        return "is not a regular file (a device or pipe); give a file name"
    try:
        check_target(target)
    except OSError as exc:
        return exc.strerror or str(exc)
    if not os.access(target.parent, os.W_OK | os.X_OK):
        return f"folder {target.parent} cannot be written to"
    return None
