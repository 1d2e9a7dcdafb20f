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
from dataclasses import dataclass
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

    @property
    def rows(self) -> int:
        return len(self.designs) * len(self.workloads)


def read_grid(path: str | Path) -> Grid:
    """The grid in the YAML or JSON file at ``path`` (a GridError naming what is wrong and where)."""
    text = read_text(path, MAX_FILE_BYTES)
    try:
        if str(path).lower().endswith(".json"):
            doc = json.loads(text)
        else:
            import yaml

            doc = yaml.safe_load(text)
    except (ValueError, ImportError) as exc:  # json's and yaml's errors are ValueErrors or YAMLError
        raise GridError(f"{path}: not a readable grid ({_first_line(exc)})") from None
    except Exception as exc:  # yaml.YAMLError is not a ValueError
        raise GridError(f"{path}: not readable YAML ({_first_line(exc)})") from None
    return parse_grid(doc)


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__


def parse_grid(doc: Any) -> Grid:
    if not isinstance(doc, dict):
        raise GridError("a grid is a mapping of lists (systems: [...], gpus: [...], models: [...])")
    unknown = [k for k in doc if k not in AXES + SINGLE]
    if unknown:
        raise GridError(f"unknown key {str(unknown[0])[:40]!r}; a grid has {', '.join(AXES + SINGLE)}")
    if "systems" not in doc:
        raise GridError("systems: missing; name at least one, for example systems: [dgx-b200]")
    if ("gpus" in doc) == ("sus" in doc):
        raise GridError("give the sizes as gpus: [...] or as sus: [...], one of the two")
    systems = [_system(v, f"systems[{i}]") for i, v in enumerate(_listed(doc, "systems"))]
    fabrics = [_fabric(v, f"fabrics[{i}]") for i, v in enumerate(_listed(doc, "fabrics", [DEFAULT_FABRIC]))]
    size_key = "gpus" if "gpus" in doc else "sus"
    sizes = [_whole(v, f"{size_key}[{i}]", MAX_LIMIT) for i, v in enumerate(_listed(doc, size_key))]
    hall_mw = [None if v is None else _positive(v, f"hall_mw[{i}]", 1_000_000.0)
               for i, v in enumerate(_listed(doc, "hall_mw", [None]))]
    halls = [_hall(v, f"halls[{i}]") for i, v in enumerate(_listed(doc, "halls", [None]))]
    options = _options(doc.get("options"))
    designs = tuple(DesignPoint(s, f, n if size_key == "gpus" else None, n if size_key == "sus" else None, mw, hall,
                                options)
                    for s, f, n, mw, hall in product(systems, fabrics, sizes, hall_mw, halls))
    common = {"tokens": _positive(doc.get("tokens", 15e12), "tokens", 1e30)}
    if doc.get("global_batch") is not None:
        common["global_batch"] = _whole(doc["global_batch"], "global_batch", 2**40)
    models = [_model(v, f"models[{i}]") for i, v in enumerate(_listed(doc, "models", ["llama3-70b"]))]
    plans = [_plan(v, f"plans[{i}]") for i, v in enumerate(_listed(doc, "plans", ["search"]))]
    precisions = [_precision(v, f"precisions[{i}]") for i, v in enumerate(_listed(doc, "precisions", ["bf16"]))]
    workloads = []
    for (i, (model_name, model)), (j, (plan_name, plan)), precision in product(enumerate(models), enumerate(plans),
                                                                                precisions):
        workload = {**common, "model": model, **plan, "precision": precision}
        try:
            check_workload(workload)
        except TrainingError as exc:
            raise GridError(f"models[{i}] with plans[{j}] in {precision}: {exc}") from None
        workloads.append(WorkloadPoint(model_name, plan_name, precision, tuple(sorted(workload.items()))))
    grid = Grid(designs, tuple(workloads))
    if grid.rows > MAX_ROWS:
        raise GridError(f"{len(designs):,} designs × {len(workloads):,} workloads = {grid.rows:,} rows, more than a "
                        f"sweep writes ({MAX_ROWS:,}); split the grid")
    return grid


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
        raise GridError(f"{where}: a name of 1 to {MAX_NAME} characters, got {str(value)[:40]!r}")
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
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise GridError(f"{where}: a number, got {str(value)[:40]!r}")
    try:
        out = float(value)
    except (ValueError, OverflowError):
        raise GridError(f"{where}: a number, got {value[:40]!r}") from None
    if not math.isfinite(out):
        raise GridError(f"{where}: a finite number, got {str(value)[:40]}")
    return out


def _positive(value: Any, where: str, hi: float) -> float:
    out = _number(value, where)
    if not 0 < out <= hi:
        raise GridError(f"{where}: above 0 and at most {hi:,.0f}, got {str(value)[:40]}")
    return out


def _whole(value: Any, where: str, hi: float) -> int:
    out = _positive(value, where, hi)
    if out != int(out):
        raise GridError(f"{where}: a whole number, got {str(value)[:40]}")
    return int(out)


def _hall(value: Any, where: str) -> tuple[float, float] | None:
    if value is None or (isinstance(value, str) and value.strip().lower() == "fit"):
        return None
    parts = str(value).lower().replace("×", "x").split("x") if isinstance(value, str) else value
    if not isinstance(parts, list | tuple) or len(parts) != 2:
        raise GridError(f"{where}: a hall is WIDTHxDEPTH in metres (\"40x30\"), [40, 30] or fit, got "
                        f"{str(value)[:40]!r}")
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
        raise GridError(f"{where}: unknown field {str(bad[0])[:40]!r}; a model has {', '.join(allowed)}")
    if ("preset" in fields) == ("params" in fields):
        raise GridError(f"{where}: give a preset or params, one of the two")
    if name is None:
        name = str(fields.get("preset") or f"{_number(fields['params'], f'{where}.params') / 1e9:g}B")
        name += "".join(f" {k}={fields[k]}" for k in MODEL_KEYS if k in fields)
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
        raise GridError(f"{where}: unknown field {str(bad[0])[:40]!r}; a plan has {', '.join(allowed)}")
    if not fields:
        raise GridError(f"{where}: an empty plan; write search for the best plan")
    if name is None:
        name = " ".join(f"{k}{fields[k]}" if k in ("tp", "pp", "dp", "cp", "ep") else f"{k}={fields[k]}"
                        for k in fields)
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
        where = f"options.{str(key)[:40]}"
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
