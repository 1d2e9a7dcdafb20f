"""Read catalog data files into :class:`~catalog.records.DeviceType` records.

One JSON file describes one device type. A number may be written bare, in
which case it takes the file's default ``source`` and ``evidence``, or as
``{"value": ..., "source": ..., "evidence": ..., "note": ...}`` to say where
that one figure came from. Every problem names the file, the field and the
reason; nothing in a file is executed.
"""
from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from .files import FileReadError, read_text
from .records import (
    EVIDENCE,
    KINDS,
    Component,
    DeviceType,
    Figure,
    GpuSpec,
    PortGroup,
    Price,
    Psu,
    Source,
)

#: A catalog entry is a few kB; anything far larger is not one.
CATALOG_FILE_LIMIT = 4 * 1024 * 1024

# Patterns are matched with fullmatch: ``$`` alone would also match before a trailing newline.
ID_RE = re.compile(r"[a-z0-9][a-z0-9._-]*")
#: An id names a file when an entry is written (``<id>.json``); NetBox caps slugs at 100 characters too.
MAX_ID_CHARS = 100
AIRFLOWS = {"", "front-to-rear", "rear-to-front", "side-to-side", "passive", "liquid", "mixed"}
ROLES = {"compute", "storage", "inband", "oob", "bmc", "nvlink", "uplink", "fabric", "management"}
PROTOCOLS = {"infiniband", "ethernet", "nvlink"}
CURRENCY_RE = re.compile(r"[A-Z]{3}")


def one_line(text: str) -> str:
    """``text`` with control characters and lone surrogates escaped (``\\n``, ``\\udcff``): a file name
    or a value quoted in a message can then neither split it over lines nor fail to print."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class CatalogError(ValueError):
    """A catalog file is wrong: ``file: field: reason``, always on one line."""

    def __init__(self, file: str, field: str, reason: str):
        self.file, self.field, self.reason = file, field, reason
        where = f"{file}: {field}" if field else file
        super().__init__(one_line(f"{where}: {reason}"))


def clean_text(text: str, *, lines: bool = False) -> str:
    """``text`` in Unicode NFC, so that one name is one string however it was typed; ValueError with the
    reason when it cannot be written as UTF-8 (a lone surrogate, from a ``\\udcff`` escape) or holds a
    control character (tabs and line breaks are allowed where ``lines`` says the field is prose)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"is not valid Unicode text (a lone surrogate {text[exc.start]!r} at character "
                         f"{exc.start})") from None
    allowed = "\t\n\r" if lines else ""
    bad = next((c for c in text if unicodedata.category(c) == "Cc" and c not in allowed), None)
    if bad is not None:
        raise ValueError(f"holds a control character {bad!r}")
    return unicodedata.normalize("NFC", text)


def finite(value: object) -> bool:
    """Whether ``value`` is an int or float a float can hold and not NaN or infinity (never raises)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer of hundreds of digits
        return False


# name -> (python type, minimum, maximum); ints are whole numbers of things.
NUMBERS: dict[str, tuple[type, float, float]] = {
    "u_height": (float, 0, 60),
    "width_mm": (float, 1, 5000),
    "depth_mm": (float, 1, 5000),
    "height_mm": (float, 1, 5000),
    "weight_kg": (float, 0, 10000),
    "power_typical_w": (float, 0, 1e7),
    "power_max_w": (float, 0, 1e7),
    "liquid_fraction": (float, 0, 1),
    "airflow_cfm": (float, 0, 1e6),
    "gpu_count": (int, 0, 100000),
    "nvlink_domain": (int, 0, 100000),
    "rack_units": (int, 1, 60),
    "max_load_kg": (float, 0, 100000),
    "voltage_v": (float, 1, 1000),
    "current_a": (float, 0.1, 10000),
    "phases": (int, 1, 3),
    "outlets": (int, 0, 1000),
    "outlets_c13": (int, 0, 1000),
    "outlets_c19": (int, 0, 1000),
    "peak_factor": (float, 1, 5),
    "inlet_max_c": (float, 0, 80),
    "coolant_inlet_max_c": (float, 0, 90),
    "approach_k": (float, 0, 30),
    "cooling_capacity_kw": (float, 0, 1e5),
    "flow_lpm": (float, 0, 1e6),
    "links": (int, 0, 64),
    "reach_m": (float, 0, 1e5),
    "speed_gbps": (float, 1, 1e5),
    "su_systems": (int, 1, 10000),
    "systems_per_rack": (int, 1, 64),
    "ethernet_su_systems": (int, 1, 10000),
    "ethernet_planes": (int, 1, 2),
    "usable_tb": (float, 0, 1e7),
    "read_gbs": (float, 0, 1e5),
    "write_gbs": (float, 0, 1e5),
    "min_count": (int, 1, 100000),
    "host_memory_gb": (float, 1, 1e6),
    "host_memory_gbs": (float, 1, 1e6),
    "host_link_gbs": (float, 1, 10000),
}
STRINGS = {"name", "manufacturer", "category", "part_number", "description", "airflow", "gpu", "form_factor", "media",
           "basis", "top", "preliminary", "connector", "default_fabric", "protocols", "host_link"}
#: What a transceiver's protocols name (``protocols``, comma-separated): a twin-port OSFP sold for both runs
#: whichever its switch speaks.
MODULE_PROTOCOLS = ("infiniband", "ethernet")
#: Compute-fabric technologies a system's reference architectures name (``default_fabric``).
FABRICS = ("infiniband", "spectrum-x")
#: Longest orderable cable run, m: a 2 km FR4 link rides one single-mode fibre (10 km for LR4).
MAX_CABLE_M = 10000
#: Cage and module tops: a flat-top module sits under a NIC's riding heat sink, a finned one in a switch cage.
TOPS = {"", "flat", "finned"}
STRUCTURES = {"psu", "ports", "components", "price", "gpu_spec", "lengths_m", "fills_rack", "length_part_numbers",
              "per_year", "replaces", "busbar"}
#: Most former ids one entry may name: a model is renamed a few times in its life, not hundreds.
MAX_REPLACES = 20
META = {"id", "kind", "source", "evidence", "note", "sources", "schema"}

REQUIRED: dict[str, tuple[str, ...]] = {
    "gpu": ("gpu_spec",),
    "server": ("u_height", "width_mm", "depth_mm", "weight_kg", "power_max_w", "psu", "gpu", "gpu_count", "ports"),
    "rack_system": ("power_max_w", "gpu", "gpu_count", "components", "nvlink_domain"),
    "tray": ("u_height",),
    "power_shelf": ("u_height", "psu"),
    "switch": ("u_height", "power_typical_w", "ports"),
    "appliance": ("u_height", "power_max_w"),
    "pdu": ("voltage_v", "current_a", "phases"),
    "cdu": ("cooling_capacity_kw",),
    "crah": ("cooling_capacity_kw",),
    "rack": ("rack_units", "width_mm", "depth_mm", "height_mm"),
    "transceiver": ("form_factor", "links", "reach_m", "media"),
    "cable": ("media", "lengths_m", "links"),
    "software": ("basis",),
    "service": ("basis",),
    "accessory": ("basis",),
}
#: How a quote-only line is counted (``device:`` takes catalog ids, ``psu:`` a coupler named in PSU inputs).
BASES = ("gpu", "node", "liquid-rack")
BASIS_PREFIXES = ("device:", "psu:", "node:")
_DATE_RE = re.compile(r"\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?", re.ASCII)


@dataclass
class _Ctx:
    file: str
    source: str
    evidence: str
    sources: dict[str, Source]
    figures: dict[str, Figure]

    def fail(self, field: str, reason: str) -> CatalogError:
        return CatalogError(self.file, field, reason)


def _figure(ctx: _Ctx, name: str, raw: Any) -> Any:
    """Unwrap ``raw`` (bare or ``{"value": ...}``), record its provenance, return the value."""
    if isinstance(raw, dict) and "value" in raw:
        unknown = set(raw) - {"value", "source", "evidence", "note"}
        if unknown:
            raise ctx.fail(name, f"unknown key(s) {sorted(unknown)} in a figure")
        value = raw["value"]
        source = raw.get("source", ctx.source)
        evidence = raw.get("evidence", ctx.evidence)
        note = _text(ctx, f"{name}.note", raw.get("note", ""), lines=True)
    else:
        value, source, evidence, note = raw, ctx.source, ctx.evidence, ""
    if not source:
        raise ctx.fail(name, "no source: give the figure a source or the file a default 'source'")
    if not isinstance(source, str) or source not in ctx.sources:
        raise ctx.fail(name, f"source {quoted(source)} is not a known source id")
    if not isinstance(evidence, str) or evidence not in EVIDENCE:
        raise ctx.fail(name, f"evidence {quoted(evidence)} is not one of {', '.join(EVIDENCE)}")
    ctx.figures[name] = Figure(value, source, evidence, note)
    return value


def _number(ctx: _Ctx, name: str, raw: Any, kind: type, lo: float, hi: float) -> float | int:
    """A finite number within [lo, hi]: every call states both bounds, none is left open to infinity."""
    value = _figure(ctx, name, raw)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ctx.fail(name, f"must be a number, got {quoted(value)}")
    if not finite(value):
        raise ctx.fail(name, f"must be finite and within {lo:g}..{hi:g}, got {quoted(value)}")
    if kind is int and value != int(value):
        raise ctx.fail(name, f"must be a whole number, got {quoted(value)}")
    if not lo <= value <= hi:
        raise ctx.fail(name, f"{quoted(value)} is outside {lo:g}..{hi:g}")
    return int(value) if kind is int else float(value) + 0.0  # + 0.0: -0.0 is 0.0 (a price of -0 prints 0.00)


def quoted(value: Any) -> str:
    """``value`` as quoted in a message: a long one is cut, so the message stays one short line."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        # counted, not printed: str() of an int beyond 4,300 digits raises
        return f"a number of {len(str(abs(value))) if value.bit_length() < 14000 else 'thousands of'} digits"
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:50]}... ({len(text):,} characters)"


def _text(ctx: _Ctx, name: str, raw: Any, *, lines: bool = False) -> str:
    if not isinstance(raw, str):
        raise ctx.fail(name, f"must be text, got {quoted(raw)}")
    try:
        return clean_text(raw, lines=lines)
    except ValueError as exc:
        raise ctx.fail(name, str(exc)) from None


def _dict(ctx: _Ctx, name: str, raw: Any, allowed: set[str], required: set[str]) -> dict:
    if not isinstance(raw, dict):
        raise ctx.fail(name, f"must be an object, got {type(raw).__name__}")
    unknown = set(raw) - allowed
    if unknown:
        raise ctx.fail(name, f"unknown key(s) {sorted(unknown)}")
    missing = required - set(raw)
    if missing:
        raise ctx.fail(name, f"missing {sorted(missing)}")
    return raw


def _psu(ctx: _Ctx, raw: Any) -> Psu:
    d = _dict(ctx, "psu", raw, {"count", "rating_w", "redundant", "input", "inlet"}, {"count", "rating_w", "redundant"})
    count = _number(ctx, "psu.count", d["count"], int, 1, 1000)
    rating = _number(ctx, "psu.rating_w", d["rating_w"], float, 1, 1e6)
    redundant = _number(ctx, "psu.redundant", d["redundant"], int, 0, 1000)
    if redundant >= count:
        raise ctx.fail("psu.redundant", f"{redundant} redundant of {count} supplies leaves none to carry the load")
    inlet = _text(ctx, "psu.inlet", d.get("inlet", ""))
    if inlet not in ("", "C14", "C20"):
        raise ctx.fail("psu.inlet", f"{quoted(inlet)} is not C14 or C20")
    return Psu(count, rating, redundant, _text(ctx, "psu.input", d.get("input", "")), inlet)


def _ports(ctx: _Ctx, raw: Any) -> tuple[PortGroup, ...]:
    if not isinstance(raw, list):
        raise ctx.fail("ports", "must be a list of port groups")
    out = []
    for i, item in enumerate(raw):
        at = f"ports[{i}]"
        d = _dict(ctx, at, item, {"role", "protocol", "speed_gbps", "count", "cage", "ports_per_cage", "top",
                                  "breakout"},
                  {"role", "protocol", "speed_gbps", "count"})
        top = _text(ctx, f"{at}.top", d.get("top", ""))
        if top not in TOPS:
            raise ctx.fail(f"{at}.top", f"{quoted(top)} is not flat or finned")
        role = _text(ctx, f"{at}.role", d["role"])
        if role not in ROLES:
            raise ctx.fail(f"{at}.role", f"{quoted(role)} is not one of {', '.join(sorted(ROLES))}")
        protocol = _text(ctx, f"{at}.protocol", d["protocol"])
        if protocol not in PROTOCOLS:
            raise ctx.fail(f"{at}.protocol", f"{quoted(protocol)} is not one of {', '.join(sorted(PROTOCOLS))}")
        out.append(PortGroup(
            role=role,
            protocol=protocol,
            speed_gbps=_number(ctx, f"{at}.speed_gbps", d["speed_gbps"], float, 0.001, 1e5),
            count=_number(ctx, f"{at}.count", d["count"], int, 1, 100000),
            cage=_text(ctx, f"{at}.cage", d.get("cage", "")),
            ports_per_cage=_number(ctx, f"{at}.ports_per_cage", d.get("ports_per_cage", 1), int, 1, 16),
            top=top,
            breakout=_number(ctx, f"{at}.breakout", d.get("breakout", 1), int, 1, 8),
        ))
    return tuple(out)


def _components(ctx: _Ctx, raw: Any) -> tuple[Component, ...]:
    if not isinstance(raw, list) or not raw:
        raise ctx.fail("components", "must be a non-empty list of {id, count}")
    out = []
    for i, item in enumerate(raw):
        d = _dict(ctx, f"components[{i}]", item, {"id", "count"}, {"id", "count"})
        out.append(Component(_text(ctx, f"components[{i}].id", d["id"]).lower(),
                             _number(ctx, f"components[{i}].count", d["count"], int, 1, 10000)))
    return tuple(out)


def _price(ctx: _Ctx, raw: Any) -> Price:
    d = _dict(ctx, "price", raw, {"amount", "currency", "date"}, {"amount", "currency"})
    currency = _text(ctx, "price.currency", d["currency"])
    if not CURRENCY_RE.fullmatch(currency):
        raise ctx.fail("price.currency", f"{quoted(currency)} is not an ISO 4217 code such as USD")
    date = _text(ctx, "price.date", d.get("date", ""))
    if date and not _DATE_RE.fullmatch(date):
        raise ctx.fail("price.date", f"{quoted(date)} is not a date such as 2025-03-16 or 2025-03")
    return Price(_number(ctx, "price.amount", d["amount"], float, 0, 1e10), currency, date)


def _basis(ctx: _Ctx, basis: str) -> str:
    if basis in BASES or (basis.startswith(BASIS_PREFIXES) and basis.partition(":")[2].strip()):
        return basis
    raise ctx.fail("basis", f"{quoted(basis)} is not one of {', '.join(BASES)}, device:ID[,ID...] psu:COUPLER "
                            "or node:ID[,ID...] (per node, when the design holds one of the IDs)")


def _length_part_numbers(ctx: _Ctx, raw: Any) -> Mapping[str, str]:
    value = _figure(ctx, "length_part_numbers", raw)
    if not isinstance(value, dict) or not value:
        raise ctx.fail("length_part_numbers", 'must map lengths in metres ("30") to part numbers')
    out = {}
    for length, pn in value.items():
        try:
            metres = float(length)
        except ValueError:
            metres = math.nan
        if not math.isfinite(metres) or not 0 < metres <= 1000 or not isinstance(pn, str) or not pn.strip():
            raise ctx.fail(f"length_part_numbers.{length[:20]}", "must map a length in metres (up to 1000) to a "
                                                                 "part number")
        out[f"{metres:g}"] = _text(ctx, f"length_part_numbers.{length[:20]}", pn.strip())
    return MappingProxyType(out)


def _replaces(ctx: _Ctx, raw: Any, dev_id: str) -> tuple[str, ...]:
    """The ids this entry had before: a list of ids, each once, none its own. Whether another entry has one
    of them, or replaces it too, only the whole catalog can tell (:mod:`catalog.registry` checks it)."""
    if not isinstance(raw, list):
        raise ctx.fail("replaces", f"must be a list of the ids this entry had before, got {quoted(raw)}")
    if len(raw) > MAX_REPLACES:
        raise ctx.fail("replaces", f"names {len(raw):,} ids; at most {MAX_REPLACES}")
    out: list[str] = []
    for i, old in enumerate(raw):
        if not isinstance(old, str) or not ID_RE.fullmatch(old) or len(old) > MAX_ID_CHARS:
            raise ctx.fail(f"replaces[{i}]", f"{quoted(old)} is not a catalog id (lowercase letters, digits, '.', "
                                             f"'_' or '-', at most {MAX_ID_CHARS})")
        if old == dev_id:
            raise ctx.fail(f"replaces[{i}]", f"{old!r} is this entry's own id")
        if old in out:
            raise ctx.fail(f"replaces[{i}]", f"{old!r} is named twice")
        out.append(old)
    return tuple(out)


def _gpu_spec(ctx: _Ctx, raw: Any) -> GpuSpec:
    keys = {"bf16_tflops", "fp8_tflops", "fp4_tflops", "hbm_gb", "hbm_tbps", "nvlink_gbps", "tdp_w", "generation"}
    d = _dict(ctx, "gpu_spec", raw, keys, keys - {"fp8_tflops", "fp4_tflops"})

    def opt(name: str) -> float | None:
        if d.get(name) is None:
            return None
        return _number(ctx, f"gpu_spec.{name}", d[name], float, 0.001, 1e6)

    return GpuSpec(
        bf16_tflops=_number(ctx, "gpu_spec.bf16_tflops", d["bf16_tflops"], float, 0.001, 1e6),
        fp8_tflops=opt("fp8_tflops"),
        fp4_tflops=opt("fp4_tflops"),
        hbm_gb=_number(ctx, "gpu_spec.hbm_gb", d["hbm_gb"], float, 0.001, 1e5),
        hbm_tbps=_number(ctx, "gpu_spec.hbm_tbps", d["hbm_tbps"], float, 0.001, 1e3),
        nvlink_gbps=_gpu_to_gpu(ctx, d["nvlink_gbps"]),
        tdp_w=_number(ctx, "gpu_spec.tdp_w", d["tdp_w"], float, 1, 1e5),
        generation=_text(ctx, "gpu_spec.generation", d["generation"]),
    )


def _gpu_to_gpu(ctx: _Ctx, raw: Any) -> float:
    """GB/s a GPU exchanges with its peers, both ways added. A GPU without NVLink still has its PCIe link,
    and every collective estimate divides by this figure: it is at least 1 GB/s."""
    value = _figure(ctx, "gpu_spec.nvlink_gbps", raw)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and finite(value) and 0 <= value < 1:
        raise ctx.fail("gpu_spec.nvlink_gbps", f"{value!r} GB/s: a GPU without NVLink exchanges data over PCIe; "
                                               "give that bandwidth, both ways added (PCIe Gen5 x16: 128)")
    return _number(ctx, "gpu_spec.nvlink_gbps", raw, float, 1, 1e6)


def _lengths(ctx: _Ctx, raw: Any) -> tuple[float, ...]:
    value = _figure(ctx, "lengths_m", raw)
    if not isinstance(value, list) or not value:
        raise ctx.fail("lengths_m", "must be a non-empty list of lengths in metres")
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= MAX_CABLE_M:
            raise ctx.fail("lengths_m", f"{quoted(v)} is not a length in metres")
    if sorted(value) != list(value) or len(set(value)) != len(value):
        raise ctx.fail("lengths_m", "lengths must be listed shortest first, each once")
    return tuple(float(v) for v in value)


def parse_entry(data: Any, file: str, sources: dict[str, Source]) -> DeviceType:
    """Turn one decoded catalog document into a record, or raise :class:`CatalogError`."""
    if not isinstance(data, dict):
        raise CatalogError(file, "", "must hold one JSON object")
    for key in ("id", "kind", "name", "manufacturer", "category"):
        if key not in data:
            raise CatalogError(file, key, "is required")
    dev_id = data["id"]
    if not isinstance(dev_id, str) or not ID_RE.fullmatch(dev_id) or len(dev_id) > MAX_ID_CHARS:
        raise CatalogError(file, "id", f"{quoted(dev_id)} must be lowercase letters, digits, '.', '_' or '-' "
                                       f"(at most {MAX_ID_CHARS})")
    kind = data["kind"]
    if not isinstance(kind, str) or kind not in KINDS:
        raise CatalogError(file, "kind", f"{quoted(kind)} is not one of {', '.join(KINDS)}")
    local = dict(sources)
    if "sources" in data:
        if not isinstance(data["sources"], dict):
            raise CatalogError(file, "sources", "must map source ids to {title, url}")
        for sid, s in data["sources"].items():
            local[sid] = _source(file, sid, s, "sources.")
    ctx = _Ctx(file, data.get("source", ""), data.get("evidence", "P"), local, {})
    if not isinstance(ctx.evidence, str) or ctx.evidence not in EVIDENCE:
        raise ctx.fail("evidence", f"{quoted(ctx.evidence)} is not one of {', '.join(EVIDENCE)}")
    unknown = set(data) - set(NUMBERS) - STRINGS - STRUCTURES - META
    if unknown:
        known = sorted(set(NUMBERS) | STRINGS | STRUCTURES | META)
        raise ctx.fail(sorted(unknown)[0], f"is not a catalog field (known: {', '.join(known)})")
    # a busbar-fed system has no supplies of its own: the rack's power shelves feed it
    missing = [k for k in REQUIRED[kind] if data.get(k) is None and not (k == "psu" and data.get("busbar") is True)]
    if missing:
        raise ctx.fail(missing[0], f"is required for a {kind}")

    fields: dict[str, Any] = {}
    for name, (typ, lo, hi) in NUMBERS.items():
        if name in data and data[name] is not None:
            fields[name] = _number(ctx, name, data[name], typ, lo, hi)
    for name in STRINGS:
        if name in data:
            raw = data[name]
            # a part number is a figure a buyer orders by: it keeps the file's source even when written bare
            if isinstance(raw, dict) or (name == "part_number" and ctx.source):
                raw = _figure(ctx, name, raw)
            fields[name] = _text(ctx, name, raw, lines=name == "description")
    if fields.get("airflow", "") not in AIRFLOWS:  # a str by now: _text checked it
        raise ctx.fail("airflow", f"{quoted(fields['airflow'])} is not one of {', '.join(sorted(AIRFLOWS - {''}))}")
    if fields.get("top", "") not in TOPS:
        raise ctx.fail("top", f"{quoted(fields['top'])} is not flat or finned")
    if "protocols" in fields:
        names = [p.strip() for p in fields["protocols"].split(",")]
        if not all(names) or set(names) - set(MODULE_PROTOCOLS) or len(set(names)) != len(names):
            raise ctx.fail("protocols", f"{quoted(fields['protocols'])} is not a comma-separated list of "
                                        f"{', '.join(MODULE_PROTOCOLS)}")
        fields["protocols"] = ", ".join(names)
    if fields.get("default_fabric", "infiniband") not in FABRICS:
        raise ctx.fail("default_fabric", f"{quoted(fields['default_fabric'])} is not one of {', '.join(FABRICS)}")
    if fields.get("host_link") not in (None, "", "pcie", "c2c"):
        raise ctx.fail("host_link", "must be pcie (the GPU's PCIe link) or c2c (NVLink-C2C to the CPU)")
    if fields.get("default_fabric") == "spectrum-x" and not fields.get("ethernet_su_systems"):
        raise ctx.fail("default_fabric", "spectrum-x needs the Ethernet RA's scalable unit (ethernet_su_systems)")
    if "gpu" in fields:
        fields["gpu"] = fields["gpu"].lower()
        if not fields["gpu"].strip() and fields.get("gpu_count"):
            raise ctx.fail("gpu", f"names no GPU for the {fields['gpu_count']} it holds")
    if "psu" in data:
        fields["psu"] = _psu(ctx, data["psu"])
    if "ports" in data:
        fields["ports"] = _ports(ctx, data["ports"])
    if "components" in data:
        fields["components"] = _components(ctx, data["components"])
    if "price" in data:
        fields["price"] = _price(ctx, data["price"])
    if "gpu_spec" in data:
        fields["gpu_spec"] = _gpu_spec(ctx, data["gpu_spec"])
    if "lengths_m" in data:
        fields["lengths_m"] = _lengths(ctx, data["lengths_m"])
    for flag in ("fills_rack", "per_year", "busbar"):
        if flag in data:
            if not isinstance(data[flag], bool):
                raise ctx.fail(flag, "must be true or false")
            fields[flag] = data[flag]
    if "replaces" in data:
        fields["replaces"] = _replaces(ctx, data["replaces"], dev_id)
    if "length_part_numbers" in data:
        fields["length_part_numbers"] = _length_part_numbers(ctx, data["length_part_numbers"])
    if "basis" in fields:
        fields["basis"] = _basis(ctx, fields["basis"])

    typ, mx = fields.get("power_typical_w"), fields.get("power_max_w")
    if typ is not None and mx is not None and typ > mx:
        raise ctx.fail("power_typical_w", f"{typ:g} W is above power_max_w {mx:g} W")
    if "u_height" in fields and fields["u_height"] * 2 != int(fields["u_height"] * 2):
        raise ctx.fail("u_height", "must be a multiple of 0.5 U")
    return DeviceType(id=dev_id, kind=kind, figures=MappingProxyType(ctx.figures), origin=file, **fields)


def read_json(path: Path) -> Any:
    try:
        text = read_text(path, CATALOG_FILE_LIMIT)
    except FileReadError as exc:
        raise CatalogError(str(path), "", exc.reason) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogError(str(path), "",
                           f"is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:  # a number of more digits than Python reads, nesting too deep
        raise CatalogError(str(path), "", f"is not valid JSON: {str(exc).split(';')[0]}") from None


def _source(file: str, sid: str, raw: Any, prefix: str = "") -> Source:
    """One source: ``{title, url, how}``, every part text that can be shown and written."""
    if not isinstance(raw, dict) or not isinstance(raw.get("title"), str):
        raise CatalogError(file, f"{prefix}{sid}", "needs at least a title")
    parts = {}
    for key in ("id", "title", "url", "how"):
        value = sid if key == "id" else raw.get(key, "")
        if not isinstance(value, str):
            raise CatalogError(file, f"{prefix}{sid}.{key}", f"must be text, got {quoted(value)}")
        try:
            parts[key] = clean_text(value)
        except ValueError as exc:
            raise CatalogError(file, f"{prefix}{sid}" + ("" if key == "id" else f".{key}"), str(exc)) from None
    return Source(**parts)


def load_sources(path: Path) -> dict[str, Source]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise CatalogError(str(path), "", "must map source ids to {title, url, how}")
    return {sid: _source(str(path), sid, s) for sid, s in data.items()}
