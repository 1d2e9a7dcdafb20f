"""Reading a project file: JSON text to a checked, migrated project.

Why two parsers: orjson parses a 100,000-GPU design faster than :mod:`json`
(about 24 against 29 ms), but it reads a whole number beyond 64 bits as a float
and refuses what :mod:`json` reads (``NaN``, ``1e400``, a lone surrogate) with
messages of its own. So a document orjson refuses, one that fails a check, and
one with a float that may have been such a number are read again with
:mod:`json`: the project and every message are exactly what :mod:`json` gives.
"""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import orjson

from catalog import Catalog
from catalog.files import FileReadError, read_text

from ..collector import paused
from ..model import Project
from .checking import _Reader
from .errors import ProjectFileError


def _json_error(text: str, exc: ValueError) -> ProjectFileError:
    """What :func:`json.loads` refused, in words; it gives line and column of the offending spot."""
    if isinstance(exc, json.JSONDecodeError):
        return ProjectFileError("", f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}")
    # Python refuses to read a whole number longer than sys.get_int_max_str_digits() (4300 by default).
    limit = sys.get_int_max_str_digits()
    found = re.search(r"(?:^|[\[:,])[ \t\n\r]*(-?[0-9]{%d,})" % (limit + 1), text) if limit else None
    if found is None:
        return ProjectFileError("", f"not valid JSON: {exc}")
    pos = found.start(1)
    line, column = text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)
    digits = len(found.group(1).lstrip("-"))
    return ProjectFileError("", f"not valid JSON: a whole number of {digits} digits at line {line}, column {column} "
                                f"(at most {limit} digits are read)")


def _read(text: str, catalog: Catalog) -> Project:
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write (load drops it already)
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError:
        pass  # json says where, or reads what orjson refuses (NaN, 1e400, a lone surrogate)
    else:
        # ASCII text without an escape holds only ASCII strings: plain_rack need not look at each (one
        # character is looked for at memchr's speed, "\\u" some forty times slower)
        reader = _Reader(catalog, plain_text=text.isascii() and "\\" not in text)
        try:
            project = reader.read(doc)
        except ProjectFileError:
            pass  # read again with json, so the message quotes each value as it always has
        else:
            if not reader.wide_number:
                return project
            # orjson may have read a whole number beyond 64 bits as a float: read it as json does
    try:
        doc = json.loads(text)
    except RecursionError:
        raise ProjectFileError("", "not valid JSON: nested too deeply") from None
    except ValueError as exc:  # json.JSONDecodeError, or a whole number of too many digits
        raise _json_error(text, exc) from None
    return _Reader(catalog).read(doc)


@paused()
def loads(text: str, catalog: Catalog) -> Project:
    # Reading makes a container per JSON object and per model value (about 90,000 for a 100,000-GPU
    # design) and no reference cycles: the collector is paused (see designer.collector).
    return _read(text, catalog)


def load(path: str | os.PathLike, catalog: Catalog) -> Project:
    path = Path(path)
    try:
        text = read_text(path)
    except FileReadError as exc:
        raise ProjectFileError("", exc.reason, str(path)) from None
    try:
        return loads(text, catalog)
    except ProjectFileError as exc:
        raise ProjectFileError(exc.where, exc.reason, str(path)) from None
