"""Bill of materials: every part with part number, quantity, unit and extended price, by section.

It reads counts the other engines produced (the design's inventory, and the fabric
engine's cables and transceivers) and never recounts them. Money is decimal and rounded
per line; a total is only given in one currency, with no conversion of its own. A price
that the catalog marks unconfirmed is flagged on its line and makes the total an estimate.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from catalog import Catalog

from .engines import Context, EngineResult
from .findings import Finding

#: BOM sections in quote order, by catalog kind.
SECTIONS = (
    ("compute", "Compute", {"server", "rack_system", "tray"}),
    ("network", "Networking", {"switch", "appliance"}),
    ("optics", "Optics and cables", {"transceiver", "cable"}),
    ("power", "Power distribution", {"pdu", "power_shelf"}),
    ("cooling", "Cooling", {"cdu"}),
    ("racks", "Racks", {"rack"}),
    ("other", "Other", set()),  # any kind the sections above do not name, so nothing is dropped
)
_NAMED = set().union(*(kinds for _, _, kinds in SECTIONS))
CENT = Decimal("0.01")


def _money(x: Decimal) -> float:
    return float(x.quantize(CENT, rounding=ROUND_HALF_UP))


def build_bom(counts: Counter, catalog: Catalog, currency: str,
              cable_lengths: dict[str, Counter] | None = None) -> tuple[dict, list[Finding]]:
    """``counts``: catalog id -> quantity; ``cable_lengths``: cable id -> {length_m: quantity}."""
    cable_lengths = cable_lengths or {}
    findings: list[Finding] = []
    sections = []
    totals: dict[str, Decimal] = {}
    unpriced: list[str] = []
    estimated = False
    for key, title, kinds in SECTIONS:
        lines = []
        for type_id in sorted(counts):
            dev = catalog.get(type_id)
            in_section = dev.kind in kinds or (key == "other" and dev.kind not in _NAMED)
            if not in_section or counts[type_id] <= 0 or dev.kind == "gpu":
                continue
            variants = (sorted(cable_lengths[type_id].items()) if type_id in cable_lengths
                        else [(None, counts[type_id])])
            for length, qty in variants:
                # The length goes in the description: the vendor's length code in the part number is not sourced.
                line = {"id": dev.id, "part_number": dev.part_number,
                        "manufacturer": dev.manufacturer, "description": dev.name
                        + (f", {length:g} m" if length is not None else ""), "quantity": int(qty)}
                if length is not None:
                    line["length_m"] = length
                if dev.price is None:
                    unpriced.append(dev.id)
                    line.update(unit_price=None, extended_price=None, currency=None, price_unconfirmed=None)
                else:
                    unit = Decimal(str(dev.price.amount)).quantize(CENT, rounding=ROUND_HALF_UP)
                    ext = unit * int(qty)
                    totals[dev.price.currency] = totals.get(dev.price.currency, Decimal(0)) + ext
                    fig = dev.figure("price.amount")
                    unconfirmed = bool(fig and fig.unconfirmed)
                    estimated |= unconfirmed
                    line.update(unit_price=_money(unit), extended_price=_money(ext), currency=dev.price.currency,
                                price_unconfirmed=unconfirmed)
                lines.append(line)
        if lines:
            by_currency: dict[str, Decimal] = {}
            for ln in lines:
                if ln["extended_price"] is not None:
                    by_currency[ln["currency"]] = by_currency.get(ln["currency"], Decimal(0)) + Decimal(
                        str(ln["extended_price"]))
            sections.append({"section": key, "title": title, "lines": lines,
                             "subtotals": {c: _money(v) for c, v in sorted(by_currency.items())}})
    if unpriced:
        findings.append(Finding("warning", "bom-unpriced", f"no price in the catalog for {', '.join(sorted(set(unpriced)))}",
                                "project:bom"))
    total_currency = currency if currency in totals or not totals else max(totals, key=totals.get)
    if len(totals) > 1 or (totals and total_currency != currency):
        findings.append(Finding("warning", "bom-currency",
                                f"catalog prices are in {', '.join(sorted(totals))}, the project in {currency}; "
                                f"the total is given in {total_currency} only, with no conversion", "project:bom"))
    for section in sections:  # the subtotal in the bill's currency; other currencies stay in "subtotals"
        section["subtotal"] = section["subtotals"].get(total_currency, 0.0)
        section["currency"] = total_currency
    bom = {
        "currency": total_currency,
        "sections": sections,
        "price_total": _money(totals.get(total_currency, Decimal(0))),
        "totals_by_currency": {c: _money(v) for c, v in sorted(totals.items())},
        "estimated": estimated,
        "lines": sum(len(s["lines"]) for s in sections),
    }
    return bom, findings


@dataclass(frozen=True, kw_only=True)
class BomResult(EngineResult):
    price_total: float
    currency: str
    #: true when any price on the bill is an unconfirmed estimate
    estimated: bool


def analyze_bom(ctx: Context) -> BomResult:
    """The bill for what the devices engine counted and the fabric engine chose (cables by length)."""
    fabric = ctx["fabric"]
    counts = Counter(ctx["devices"].counts) + fabric.parts()
    bom, findings = build_bom(counts, ctx.catalog, ctx.project.currency, cable_lengths=fabric.cable_lengths())
    return BomResult(section=bom, findings=tuple(findings), price_total=bom["price_total"],
                     currency=bom["currency"], estimated=bom["estimated"])
