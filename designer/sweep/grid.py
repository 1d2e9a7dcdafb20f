"""A sweep's grid: the lists whose every combination is one design, read from a YAML or JSON file and checked.

A grid file names the design's axes (systems, fabrics, sizes, hall power, hall size) and the workload's (models,
plans, precisions)::

    systems: [dgx-b200, gb200-nvl72]
    fabrics: [infiniband, spectrum-x]     # default: each system's own reference architecture's fabric
    gpus: [1024, 4096]                    # or sus: [1, 4]
    hall_mw: [null, 20]                   # null: the hall fitted to the design
    models: [llama3-70b, {preset: llama3-405b, seq: 4096, name: 405b-4k}]
    plans: [search, {tp: 8, pp: 8, name: tp8-pp8}]
    precisions: [bf16, fp8]
    tokens: 15e12
    options: {rack_kw: 40}                # new superpod's options, one value each

A value the generator or the estimate could never take (an unknown system, model or plan field) is refused here,
naming the key and the entry; a combination that cannot be built (a fabric a system's RA does not offer, a size
over the hall's power) is a row of the sweep saying why, not an error: grids cross such pairs as a matter of course.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from itertools import product
from pathlib import Path
from typing import Any

from catalog.files import read_text

from ..generate.spec import FABRICS, MAX_LIMIT, NETWORKS, SYSTEMS, NO_PUBLISHED_SU, SuperpodSpec
from ..training.errors import TrainingError
from ..training.section import MODEL_KEYS, PLAN_KEYS, check_workload
from ..training.software import KNOBS

#: rows a sweep writes at most: about 4 hours of two cores' estimates, a day's on a small cluster
MAX_ROWS = 100_000
#: entries in one list of a grid
MAX_ENTRIES = 1_000
#: bytes of a grid file
MAX_FILE_BYTES = 1_000_000
#: characters of a name a grid gives a model or a plan
MAX_NAME = 60
#: sequences per step a grid may state: far above any published run (Llama 3 405B: 16M tokens, 2,048
#: sequences), low enough that the plan search, which walks the batch's divisors, stays quick
MAX_GLOBAL_BATCH = 1_048_576
#: a model's parameters, as `podplanner train --params` takes them
PARAMS_RANGE = (1e6, 1e14)
#: ``fabrics`` entry for "the system's own reference architecture's fabric"
DEFAULT_FABRIC = "default"

#: new superpod's options a grid may set (one value each), and the kind of value each takes
OPTIONS = {"switch": str, "rack_kw": float, "nodes_per_rack": int, "oversubscription": float,
           "core_oversubscription": float, "tiers": str, "networks": list, "floor_kg_m2": float,
           "facility_water": str, "altitude_m": float, "ambient_c": float, "planes": int, "gpu_power_w": float,
           "storage_tier": str, "storage_pb": float, "storage_appliance": str}
AXES = ("systems", "fabrics", "gpus", "sus", "hall_mw", "halls", "models", "plans", "precisions")
SINGLE = ("tokens", "global_batch", "options")


class GridError(ValueError):
    """A grid that cannot be swept, with the key and entry at fault."""


def _shown(value: Any) -> str:
    """A grid value as a message quotes it, never more than a few words: a list or mapping is named by its kind
    (formatting a YAML alias bomb whole would take minutes and gigabytes)."""
    if isinstance(value, str):
        return repr(value[:40]) + ("..." if len(value) > 40 else "")
    if isinstance(value, bool) or value is None:
        return str(value).lower() if value is not None else "null"
    if isinstance(value, int):
        text = str(value) if value.bit_length() < 128 else f"a {len(str(value)):,}-digit number"
        return text
    if isinstance(value, float):
        return repr(value)
    return f"a {type(value).__name__}"


@dataclass(frozen=True)
class DesignPoint:
    """One design of the grid: what ``new superpod`` is asked for."""

    system: str
    fabric: str | None
    gpus: int | None
    sus: int | None
    hall_mw: float | None
    hall: tuple[float, float] | None
    options: tuple[tuple[str, Any], ...] = ()

    def spec(self) -> SuperpodSpec:
        opts = dict(self.options)
        if "networks" in opts:
            opts["networks"] = tuple(opts["networks"])
        return SuperpodSpec(system=self.system, gpus=self.gpus, sus=self.sus, fabric=self.fabric, hall=self.hall,
                            hall_power_kw=None if self.hall_mw is None else self.hall_mw * 1000.0, **opts)


@dataclass(frozen=True)
class WorkloadPoint:
    """One workload of the grid: its names in the output and the project workload it sets."""

    model: str
    plan: str
    precision: str
    workload: tuple[tuple[str, Any], ...]

    def as_dict(self) -> dict:
        return dict(self.workload)


@dataclass(frozen=True)
class Grid:
    designs: tuple[DesignPoint, ...]
    workloads: tuple[WorkloadPoint, ...]
    #: the file's text, for the outputs that keep what they sweep ("" for a grid made in code)
    text: str = field(default="", compare=False)

    @property
    def rows(self) -> int:
        return len(self.designs) * len(self.workloads)


def read_grid(path: str | Path) -> Grid:
    """The grid in the YAML or JSON file at ``path`` (a GridError naming what is wrong and where)."""
    text = read_text(path, MAX_FILE_BYTES)
    if str(path).lower().endswith(".json"):
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise GridError(f"{path}: not readable JSON ({_first_line(exc)})") from None
        return replace(parse_grid(doc), text=text)
    import yaml

    try:
        doc = yaml.load(text, Loader=_grid_loader())  # noqa: S506 - a SafeLoader without aliases, see below
    except (yaml.YAMLError, RecursionError) as exc:
        raise GridError(f"{path}: not readable YAML ({_first_line(exc)})") from None
    return replace(parse_grid(doc), text=text)


def _grid_loader():
    """YAML's safe loader without aliases (a few lines of them expand to gigabytes, and a grid needs none) and
    refusing a key given twice (YAML would keep the last one silently)."""
    import yaml

    class GridLoader(yaml.SafeLoader):
        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                raise yaml.composer.ComposerError(None, None, "aliases (*name) are not read in a grid: write the "
                                                  "values out", event.start_mark)
            return super().compose_node(parent, index)

        def construct_mapping(self, node, deep=False):
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if not isinstance(key, str):
                    continue
                if key in seen:
                    raise yaml.constructor.ConstructorError(None, None, f"{key[:60]!r} is given twice",
                                                            key_node.start_mark)
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return GridLoader


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__


def parse_grid(doc: Any) -> Grid:
    if not isinstance(doc, dict):
        raise GridError("a grid is a mapping of lists (systems: [...], gpus: [...], models: [...])")
    unknown = [k for k in doc if k not in AXES + SINGLE]
    if unknown:
        raise GridError(f"unknown key {_shown(unknown[0])}; a grid has {', '.join(AXES + SINGLE)}")
    if "systems" not in doc:
        raise GridError("systems: missing; name at least one, for example systems: [dgx-b200]")
    if ("gpus" in doc) == ("sus" in doc):
        raise GridError("give the sizes as gpus: [...] or as sus: [...], one of the two")
    size_key = "gpus" if "gpus" in doc else "sus"
    lists = {key: _listed(doc, key, default) for key, default in (
        ("systems", None), ("fabrics", [DEFAULT_FABRIC]), (size_key, None),
        ("hall_mw", [None]), ("halls", [None]), ("models", ["llama3-70b"]), ("plans", ["search"]),
        ("precisions", ["bf16"]))}
    rows = math.prod(len(v) for v in lists.values())  # before any combination is made: a small file can ask 10⁹
    if rows > MAX_ROWS:
        raise GridError(" × ".join(f"{len(v):,} {k}" for k, v in lists.items() if len(v) > 1) +
                        f" = {rows:,} rows, more than a sweep writes ({MAX_ROWS:,}); split the grid")
    systems = _distinct([_system(v, f"systems[{i}]") for i, v in enumerate(lists["systems"])], "systems")
    fabrics = _distinct([_fabric(v, f"fabrics[{i}]") for i, v in enumerate(lists["fabrics"])], "fabrics")
    sizes = _distinct([_whole(v, f"{size_key}[{i}]", MAX_LIMIT) for i, v in enumerate(lists[size_key])], size_key)
    hall_mw = _distinct([None if v is None else _positive(v, f"hall_mw[{i}]", 1_000_000.0)
                         for i, v in enumerate(lists["hall_mw"])], "hall_mw")
    halls = _distinct([_hall(v, f"halls[{i}]") for i, v in enumerate(lists["halls"])], "halls")
    options = _options(doc.get("options"))
    designs = tuple(DesignPoint(s, f, n if size_key == "gpus" else None, n if size_key == "sus" else None, mw, hall,
                                options)
                    for s, f, n, mw, hall in product(systems, fabrics, sizes, hall_mw, halls))
    common = {"tokens": _positive(doc.get("tokens", 15e12), "tokens", 1e30)}
    if doc.get("global_batch") is not None:
        common["global_batch"] = _whole(doc["global_batch"], "global_batch", MAX_GLOBAL_BATCH)
    models = [_model(v, f"models[{i}]") for i, v in enumerate(lists["models"])]
    plans = [_plan(v, f"plans[{i}]") for i, v in enumerate(lists["plans"])]
    _distinct([name for name, _ in models], "models")
    _distinct([name for name, _ in plans], "plans")
    precisions = _distinct([_precision(v, f"precisions[{i}]") for i, v in enumerate(lists["precisions"])],
                           "precisions")
    workloads = []
    for (i, (model_name, model)), (j, (plan_name, plan)), precision in product(enumerate(models), enumerate(plans),
                                                                                precisions):
        workload = {**common, "model": model, **plan, "precision": precision}
        try:
            check_workload(workload)
        except TrainingError as exc:
            raise GridError(f"models[{i}] with plans[{j}] in {precision}: {exc}") from None
        workloads.append(WorkloadPoint(model_name, plan_name, precision, tuple(sorted(workload.items()))))
    return Grid(designs, tuple(workloads))


def check_options(grid: Grid, catalog) -> None:
    """A GridError when the grid's options leave no system and fabric of it buildable (a switch, tier or storage
    tier nothing takes): options hold for every design, so such a grid would be rows of one refusal. Options that
    suit some systems and not others are rows that say why, as any combination."""
    from ..generate.spec import GenerateError, check_spec

    if not grid.designs or not grid.designs[0].options:
        return
    reasons = []
    for point in {(d.system, d.fabric): d for d in grid.designs}.values():
        try:
            check_spec(point.spec(), catalog)
            return
        except GenerateError as exc:
            try:
                check_spec(replace(point, options=()).spec(), catalog)
            except GenerateError:
                return  # the combination fails without the options too: not theirs to answer for
            reasons.append(f"{point.system}: {exc}")
    raise GridError(f"options: no system of the grid can be built with them ({reasons[0]})")


def _distinct(values: list, key: str) -> list:
    """``values`` with no entry given twice (two rows that say the same would be read as two results)."""
    seen: dict = {}
    for i, v in enumerate(values):
        if v in seen:
            raise GridError(f"{key}[{i}]: the same as {key}[{seen[v]}] ({_shown(v) if v is not None else 'null'}); "
                            "give each once, and different names to different shapes")
        seen[v] = i
    return values


def _listed(doc: dict, key: str, default: list | None = None) -> list:
    value = doc.get(key, default)
    if value is None:
        raise GridError(f"{key}: missing") if default is None else GridError(f"{key}: empty; leave it out instead")
    if not isinstance(value, list):
        value = [value]
    if not value:
        raise GridError(f"{key}: an empty list; give at least one entry or leave the key out")
    if len(value) > MAX_ENTRIES:
        raise GridError(f"{key}: {len(value):,} entries, more than {MAX_ENTRIES:,}")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME:
        raise GridError(f"{where}: a name of 1 to {MAX_NAME} characters, got {_shown(value)}")
    return value.strip()


def _system(value: Any, where: str) -> str:
    name = _text(value, where).lower()
    if name in NO_PUBLISHED_SU:
        raise GridError(f"{where}: {name}: {NO_PUBLISHED_SU[name]}")
    if name not in SYSTEMS:
        raise GridError(f"{where}: {name!r} is not a system the generator lays out; one of {', '.join(SYSTEMS)}")
    return name


def _fabric(value: Any, where: str) -> str | None:
    name = _text(value, where).lower()
    if name == DEFAULT_FABRIC:
        return None
    if name not in FABRICS:
        raise GridError(f"{where}: {name!r} is not a fabric the generator builds; one of {', '.join(FABRICS)} or "
                        f"{DEFAULT_FABRIC} (each system's reference architecture's)")
    return name


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)) or \
            (isinstance(value, str) and len(value) > 40):
        raise GridError(f"{where}: a number, got {_shown(value)}")
    try:
        out = float(value)
    except (ValueError, OverflowError):
        raise GridError(f"{where}: a number of at most 40 characters, got {_shown(value)}") from None
    if not math.isfinite(out):
        raise GridError(f"{where}: a finite number, got {_shown(value)}")
    return out


def _positive(value: Any, where: str, hi: float) -> float:
    out = _number(value, where)
    if not 0 < out <= hi:
        raise GridError(f"{where}: above 0 and at most {hi:,.0f}, got {_shown(value)}")
    return out


def _whole(value: Any, where: str, hi: float) -> int:
    out = _positive(value, where, hi)
    if out != int(out):
        raise GridError(f"{where}: a whole number, got {_shown(value)}")
    return int(out)


def _hall(value: Any, where: str) -> tuple[float, float] | None:
    if value is None or (isinstance(value, str) and value.strip().lower() == "fit"):
        return None
    parts = value.lower().replace("×", "x").split("x") if isinstance(value, str) and len(value) <= 40 else value
    if not isinstance(parts, list | tuple) or len(parts) != 2:
        raise GridError(f"{where}: a hall is WIDTHxDEPTH in metres (\"40x30\"), [40, 30] or fit, got "
                        f"{_shown(value)}")
    return (_positive(parts[0], f"{where} width", 10_000.0), _positive(parts[1], f"{where} depth", 10_000.0))


def _named(value: dict, where: str) -> tuple[str | None, dict]:
    rest = dict(value)
    name = rest.pop("name", None)
    return (None if name is None else _text(name, f"{where}.name")), rest


def _model(value: Any, where: str) -> tuple[str, str | dict]:
    """(its name in the output, the workload's model: a preset's name or a mapping the estimate reads)."""
    if isinstance(value, str):
        name = _text(value, where).lower()
        return name, name
    if not isinstance(value, dict):
        raise GridError(f"{where}: a model preset's name or a mapping (preset or params, and shape fields)")
    name, fields = _named(value, where)
    allowed = ("preset", "params", *MODEL_KEYS)
    bad = [k for k in fields if k not in allowed]
    if bad:
        raise GridError(f"{where}: unknown field {_shown(bad[0])}; a model has {', '.join(allowed)}")
    if ("preset" in fields) == ("params" in fields):
        raise GridError(f"{where}: give a preset or params, one of the two")
    if "preset" in fields:
        fields["preset"] = _text(fields["preset"], f"{where}.preset").lower()
    else:
        params = _number(fields["params"], f"{where}.params")
        if not PARAMS_RANGE[0] <= params <= PARAMS_RANGE[1]:
            raise GridError(f"{where}.params: {PARAMS_RANGE[0]:g} to {PARAMS_RANGE[1]:g}, got {_shown(params)}")
        fields["params"] = params
    if name is None:
        name = fields.get("preset") or f"{fields['params'] / 1e9:g}B"
        name += "".join(f" {k}={_shown(fields[k])}" for k in MODEL_KEYS if k in fields)
    return name[:MAX_NAME * 2], fields


def _plan(value: Any, where: str) -> tuple[str, dict]:
    if isinstance(value, str):
        if value.strip().lower() != "search":
            raise GridError(f"{where}: search, or a mapping of plan fields ({', '.join(PLAN_KEYS)})")
        return "search", {}
    if not isinstance(value, dict):
        raise GridError(f"{where}: search, or a mapping of plan fields ({', '.join(PLAN_KEYS)})")
    name, fields = _named(value, where)
    allowed = (*PLAN_KEYS, "software", *KNOBS)
    bad = [k for k in fields if k not in allowed]
    if bad:
        raise GridError(f"{where}: unknown field {_shown(bad[0])}; a plan has {', '.join(allowed)}")
    if not fields:
        raise GridError(f"{where}: an empty plan; write search for the best plan")
    if name is None:
        name = " ".join(f"{k}{_shown(fields[k])}" if k in ("tp", "pp", "dp", "cp", "ep") else
                        f"{k}={fields[k] if isinstance(fields[k], str) else _shown(fields[k])}" for k in fields)
        if not any(k in PLAN_KEYS for k in fields):
            name = f"search {name}"  # software alone: the best plan under that software
    return name[:MAX_NAME * 2], fields


def _precision(value: Any, where: str) -> str:
    name = _text(value, where).lower()
    if name not in ("bf16", "fp8", "fp4"):
        raise GridError(f"{where}: bf16, fp8 or fp4, got {name[:40]!r}")
    return name


def _options(value: Any) -> tuple[tuple[str, Any], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise GridError("options: a mapping of new superpod's options (rack_kw: 40, storage_tier: better ...)")
    out = {}
    for key, v in value.items():
        where = f"options.{key[:40] if isinstance(key, str) else _shown(key)}"
        kind = OPTIONS.get(key)
        if kind is None:
            raise GridError(f"{where}: not an option a sweep sets; options: {', '.join(OPTIONS)}")
        if kind is str:
            out[key] = _text(v, where).lower()
        elif kind is list:
            names = [_text(n, f"{where}[{i}]").lower() for i, n in enumerate(v if isinstance(v, list) else [v])]
            bad = [n for n in names if n not in NETWORKS]
            if bad:
                raise GridError(f"{where}: unknown network {bad[0]!r}; networks: {', '.join(NETWORKS)}")
            out[key] = tuple(names)
        elif kind is int:
            out[key] = _whole(v, where, 1e9)
        else:
            out[key] = _number(v, where)
    return tuple(sorted(out.items()))
