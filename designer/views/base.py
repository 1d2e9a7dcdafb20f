"""The machinery of the typed views: frozen dataclasses read from an engine's JSON section.

An engine writes its figures once, as the section ``analyze --json`` prints. Consumers (the
exporters, the window, the CLI's text) read them through the views of this package instead of
string keys, so a misspelt figure is an ``AttributeError`` where it is read, and a figure an
engine stopped writing is a :class:`ViewError` naming its path, never a silent 0 in a customer's
document.

A view class declares one attribute per key. A field without a default must be in the section
(typed ``X | None`` when the engine writes ``null`` for a figure it cannot give, such as the share
of a capacity that is not set); a field defaulting to ``None`` may be absent (an engine that could not
compute it says why in another field, such as ``error`` or ``status``). Nested objects are views too, lists of objects
are :class:`Rows` (built row by row on first read, so a 1,000,000-GPU design's 14,000 racks cost
nothing until a consumer reads one), lists of plain values are tuples, and objects keyed by data
(catalog ids, currencies, cable lengths) are read-only mappings.
"""
from __future__ import annotations

import dataclasses
import sys
import typing
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType, UnionType
from typing import Any, Generic, TypeVar

T = TypeVar("T")

#: How a field's value is turned into what the view holds.
_PLAIN, _VIEW, _ROWS, _TUPLE, _MAP = range(5)


class ViewError(KeyError):
    """A figure a view declares is missing from the engine's section: the engine and the view disagree."""

    def __str__(self) -> str:
        return str(self.args[0])


def key(name: str) -> Any:
    """A required field whose JSON key is not a Python name (``"2"``) or differs from the attribute."""
    return dataclasses.field(metadata={"key": name})


def view(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen, slotted dataclass that :func:`build` can fill from a section."""
    return dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(cls)


def _frozen(value: Any) -> Any:
    """A plain JSON value, read-only all the way down (a view never lets a consumer edit the analysis)."""
    if isinstance(value, Mapping):
        return MappingProxyType({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


def _kind(hint: Any) -> tuple[int, type | None]:
    """What a field holds, from its annotation: a nested view, rows of views, a tuple, a mapping or a value."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, UnionType):
        hint = next(a for a in args if a is not type(None))
        args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if dataclasses.is_dataclass(hint):
        return _VIEW, hint
    if origin is Rows:
        return _ROWS, args[0]
    if origin is tuple:
        return _TUPLE, None
    if origin in (Mapping, dict, typing.Mapping, MappingProxyType):
        return _MAP, None
    return _PLAIN, None


_SPECS: dict[type, tuple] = {}


def _spec(cls: type) -> tuple:
    """(attribute, key, kind, view class, required) per field, worked out once per class."""
    spec = _SPECS.get(cls)
    if spec is None:
        hints = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))
        spec = tuple((f.name, f.metadata.get("key", f.name), *_kind(hints[f.name]),
                      f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
                     for f in dataclasses.fields(cls))
        _SPECS[cls] = spec
    return spec


def build(cls: type[T], data: Mapping[str, Any], where: str) -> T:
    """The view ``cls`` of ``data`` (the section or sub-object at path ``where``)."""
    if not isinstance(data, Mapping):
        raise ViewError(f"{where}: expected an object, the analysis holds {type(data).__name__}")
    values = {}
    for attr, name, kind, sub, required in _spec(cls):
        if name not in data:
            if required:
                raise ViewError(f"{where}.{name}: missing from the analysis (the view {cls.__name__} needs it)")
            continue
        value = data[name]
        if value is not None:
            if kind == _VIEW:
                value = build(sub, value, f"{where}.{name}")
            elif kind == _ROWS:
                value = Rows(sub, value, f"{where}.{name}")
            elif kind in (_TUPLE, _MAP):
                value = _frozen(value)
        values[attr] = value
    return cls(**values)


class Rows(Sequence[T], Generic[T]):
    """A list of objects in a section, each read as the view ``cls`` when first asked for."""

    __slots__ = ("_cls", "_data", "_where", "_built")

    def __init__(self, cls: type[T], data: Sequence[Mapping[str, Any]], where: str):
        if not isinstance(data, Sequence) or isinstance(data, (str, bytes)):
            raise ViewError(f"{where}: expected a list, the analysis holds {type(data).__name__}")
        self._cls, self._data, self._where = cls, data, where
        self._built: list[T | None] = [None] * len(data)

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._data)))]
        row = self._built[index]
        if row is None:
            i = index if index >= 0 else index + len(self._data)
            row = self._built[index] = build(self._cls, self._data[index], f"{self._where}[{i}]")
        return row

    def __iter__(self) -> Iterator[T]:
        for i in range(len(self._data)):
            yield self[i]

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Rows[{self._cls.__name__}]({len(self._data)} rows)"


def undeclared(cls: type, data: Mapping[str, Any], where: str) -> list[str]:
    """Paths in ``data`` that the view ``cls`` does not declare: a figure an engine writes that no consumer
    could read. The tests hold this list empty for every design they analyse."""
    out: list[str] = []
    names = {}
    for _attr, name, kind, sub, _ in _spec(cls):
        names[name] = (kind, sub)
    for name, value in data.items():
        if name not in names:
            out.append(f"{where}.{name}")
            continue
        kind, sub = names[name]
        if value is None:
            continue
        if kind == _VIEW:
            out += undeclared(sub, value, f"{where}.{name}")
        elif kind == _ROWS:
            for i, row in enumerate(value):
                out += undeclared(sub, row, f"{where}.{name}[{i}]")
    return out


def require(v: Any, where: str, names: tuple[str, ...]) -> None:
    """Raise :class:`ViewError` for the first of ``names`` that ``v`` lacks: figures a section may omit in one
    of its shapes (an engine that could not compute) but must hold in the other."""
    for name in names:
        if getattr(v, name) is None:
            raise ViewError(f"{where}.{name}: missing from the analysis (the view {type(v).__name__} needs it)")


def build_all(cls: type, data: Mapping[str, Any], where: str) -> Any:
    """The view with every row built now: for tests, which want a missing figure found in any row."""
    v = build(cls, data, where)
    for attr, _, kind, _, _ in _spec(cls):
        value = getattr(v, attr)
        if kind == _ROWS and value is not None:
            for row in value:
                _build_rows(row)
        elif kind == _VIEW and value is not None:
            _build_rows(value)
    return v


def _build_rows(v: Any) -> None:
    for attr, _, kind, _, _ in _spec(type(v)):
        value = getattr(v, attr)
        if value is None:
            continue
        if kind == _ROWS:
            for row in value:
                _build_rows(row)
        elif kind == _VIEW:
            _build_rows(value)
