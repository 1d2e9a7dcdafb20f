"""Write a record back as a catalog data file (used to keep NetBox imports as JSON).

What is written must load again: a NaN or an infinity is not JSON (Python would write
``NaN`` and no other reader takes it), nor is a lone surrogate UTF-8, so both are refused
with the field that holds them rather than written.
"""
from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any, Iterator

from .loader import NUMBERS, CatalogError
from .records import DeviceType, Figure


def _figure(value, fig: Figure | None):
    if fig is None:
        return value
    out = {"value": value, "source": fig.source, "evidence": fig.evidence}
    if fig.note:
        out["note"] = fig.note
    return out


def _bad_values(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(field path, reason) of every value in ``value`` that cannot be written as JSON and read back."""
    if isinstance(value, float) and not math.isfinite(value):
        yield path, f"{value!r} is not a finite number"
    elif isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            yield path, "is not valid Unicode text (a lone surrogate)"
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _bad_values(key, path)
            yield from _bad_values(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _bad_values(item, f"{path}[{i}]")


def check_writable(doc: dict, where: str) -> dict:
    """``doc`` when every value in it can be written as JSON; else CatalogError naming the first that cannot."""
    for path, reason in _bad_values(doc, ""):
        raise CatalogError(where, path, f"{reason}; not written")
    return doc


def entry_to_text(dev: DeviceType) -> str:
    """The catalog file of ``dev``: JSON text, UTF-8-safe, with finite numbers only."""
    doc = entry_to_json(dev)
    try:
        return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError as exc:  # check_writable let nothing through; this is the backstop
        raise CatalogError(dev.origin or dev.id, "", f"cannot be written as JSON ({exc})") from None


def entry_to_json(dev: DeviceType) -> dict:
    f = dev.figures
    doc: dict = {"id": dev.id, "kind": dev.kind, "name": dev.name, "manufacturer": dev.manufacturer,
                 "category": dev.category}
    if f:
        # Bare values (strings such as cages) need a file default; take the commonest provenance.
        common = Counter((fig.source, fig.evidence) for fig in f.values()).most_common(1)[0][0]
        doc["source"], doc["evidence"] = common
    for key in ("part_number", "description", "airflow", "gpu", "form_factor", "media", "connector", "top",
                "basis", "preliminary", "default_fabric", "protocols"):
        value = getattr(dev, key)
        if value:
            doc[key] = _figure(value, f.get(key)) if key in f else value
    for key in NUMBERS:
        value = getattr(dev, key)
        if value is not None and (key in f or value):
            doc[key] = _figure(value, f.get(key))
    if dev.psu:
        doc["psu"] = {k: _figure(getattr(dev.psu, k), f.get(f"psu.{k}")) for k in ("count", "rating_w", "redundant")}
        if dev.psu.input:
            doc["psu"]["input"] = dev.psu.input
    if dev.ports:
        doc["ports"] = [
            {"role": p.role, "protocol": p.protocol,
             "speed_gbps": _figure(p.speed_gbps, f.get(f"ports[{i}].speed_gbps")),
             "count": _figure(p.count, f.get(f"ports[{i}].count")),
             **({"cage": p.cage} if p.cage else {}),
             **({"ports_per_cage": p.ports_per_cage} if p.ports_per_cage != 1 else {}),
             **({"top": p.top} if p.top else {}),
             **({"breakout": p.breakout} if p.breakout != 1 else {})}
            for i, p in enumerate(dev.ports)
        ]
    if dev.components:
        doc["components"] = [{"id": c.id, "count": c.count} for c in dev.components]
    if dev.fills_rack:
        doc["fills_rack"] = True
    if dev.lengths_m:
        doc["lengths_m"] = _figure(list(dev.lengths_m), f.get("lengths_m"))
    if dev.length_part_numbers:
        doc["length_part_numbers"] = _figure(dict(dev.length_part_numbers), f.get("length_part_numbers"))
    if dev.per_year:
        doc["per_year"] = True
    if dev.busbar:
        doc["busbar"] = True
    if dev.replaces:
        doc["replaces"] = list(dev.replaces)
    if dev.price:
        doc["price"] = {"amount": _figure(dev.price.amount, f.get("price.amount")), "currency": dev.price.currency}
        if dev.price.date:
            doc["price"]["date"] = dev.price.date
    if dev.gpu_spec:
        g = dev.gpu_spec
        doc["gpu_spec"] = {k: _figure(getattr(g, k), f.get(f"gpu_spec.{k}")) if getattr(g, k) is not None else None
                           for k in ("bf16_tflops", "fp8_tflops", "fp4_tflops", "hbm_gb", "hbm_tbps",
                                     "nvlink_gbps", "tdp_w")}
        doc["gpu_spec"]["generation"] = g.generation
    return check_writable(doc, dev.origin or dev.id)
