"""Reading a project file: JSON text to a checked, migrated project.

Why two parsers: orjson parses a 100,000-GPU design faster than :mod:`json`
(about 24 against 29 ms), but it reads a whole number beyond 64 bits as a float
and refuses what :mod:`json` reads (``NaN``, ``1e400``, a lone surrogate) with
messages of its own. So a document orjson refuses, one that fails a check, and
one with a float that may have been such a number are read again with
:mod:`json`: the project and every message are exactly what :mod:`json` gives.

A key given twice in one object is refused (either parser would keep the last one
silently: a second ``"racks": []`` would empty the design). orjson cannot say so;
what it read is written again, and a document without a backslash whose text holds
as many colons as that writing holds no key twice: each key has its colon, which
no escape can hide, and dropping a key drops it. Any other document is read again
with :mod:`json`, whose ``object_pairs_hook`` sees every key.
"""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

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


class _Repeated(dict):
    """An object that gave a key twice (``key``), as :class:`_Objects` makes it."""

    key: str


class _Objects:
    """The json parser's object_pairs_hook: a dict per object, a :class:`_Repeated` where a key is given twice."""

    def __init__(self):
        self.repeated = False

    def __call__(self, pairs: list) -> dict:
        d = dict(pairs)
        if len(d) == len(pairs):
            return d
        seen: set = set()
        d = _Repeated(d)
        d.key = next(k for k, _ in pairs if k in seen or seen.add(k))
        self.repeated = True
        return d


def _repeated_key(doc: Any, where: str = "") -> str:
    """The path of the first key given twice in ``doc`` (as json read it with :class:`_Objects`)."""
    stack = [(doc, where)]
    while stack:
        value, where = stack.pop()
        if type(value) is _Repeated:
            return f"{where}.{value.key}" if where else value.key
        if isinstance(value, dict):
            stack.extend((v, f"{where}.{k}" if where else k) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(value))))
    return where  # not reached


def _no_key_twice(text: str, doc: Any) -> bool:
    """Whether ``doc``, as orjson read it from ``text``, surely kept every key of ``text`` (see the module)."""
    if "\\" in text:
        return False
    try:
        written = orjson.dumps(doc)
    except orjson.JSONEncodeError:  # a value orjson does not write (it reads none)
        return False
    return text.count(":") == written.count(b":")


def _read(text: str, catalog: Catalog) -> Project:
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write (load drops it already)
    try:
        doc = orjson.loads(text)
    except orjson.JSONDecodeError:
        fast = False  # json says where, or reads what orjson refuses (NaN, 1e400, a lone surrogate)
    else:
        fast = _no_key_twice(text, doc)  # before reading: a migration may change doc
    if fast:
        # ASCII text without an escape holds only ASCII strings: plain_rack need not look at each (one
        # character is looked for at memchr's speed, "\\u" some forty times slower)
        # ASCII with no escape and no DEL (JSON needs escapes only below 0x20, so a raw 0x7F can stand in a
        # string): then no text holds a control character and the fast reader checks lengths alone
        reader = _Reader(catalog, plain_text=text.isascii() and "\\" not in text and "\x7f" not in text)
        try:
            project = reader.read(doc)
        except ProjectFileError:
            pass  # read again with json, so the message quotes each value as it always has
        else:
            if not reader.wide_number:
                return project
            # orjson may have read a whole number beyond 64 bits as a float: read it as json does
    objects = _Objects()
    try:
        doc = json.loads(text, object_pairs_hook=objects)
    except RecursionError:
        raise ProjectFileError("", "not valid JSON: nested too deeply") from None
    except ValueError as exc:  # json.JSONDecodeError, or a whole number of too many digits
        raise _json_error(text, exc) from None
    if objects.repeated:
        raise ProjectFileError(_repeated_key(doc), "is given twice in one object (the last would silently "
                                                   "replace the first)")
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
