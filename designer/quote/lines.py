"""The bill of materials as a buyer orders it: one line per orderable part, by section, priced.

Quantities come from what the other engines counted (devices, the fabric's cables by
length and transceivers); the quote-only lines (software, services, power cords) are
counted here from the catalog's ``basis`` of each. Money is decimal and rounded per
line: the net unit price is the list unit price less the section's discount, rounded to
the cent, and a line's extended price is net unit × quantity × years. On a subscription
line (``per_year``) ``unit_price`` and ``net_unit_price`` are prices per unit per year, and
``unit_price_per_year`` repeats the net one there so that the columns multiply:
quantity × term_years × unit_price_per_year == extended_price, to the cent. A total is given
in the project's currency only; a line in another currency stays out of it and says so.
A part without a price is listed with no price, never at zero, and the total says it
leaves it out. A line without a part number says why in ``part_number_note`` (the note of
the catalog's ``part_number`` figure, or a general one), is flagged ``no-part-number``, and
a finding lists such lines.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Mapping

from catalog import Catalog, DeviceType, Figure
from catalog.records import QUOTE_KINDS

from ..findings import Finding
from ..quote_settings import SECTIONS, QuoteSettings, part_key
from ..storage.fabric import StorageFabric
from .unit_prices import (CONFIRMED_EVIDENCE, CONVERTED, UnitPrice, catalog_price, converted, list_price, money,
                          price_flags)

_SURE = Figure(None, "", "P")
#: catalog kind -> bill section
SECTION_OF_KIND = {
    "server": "compute", "rack_system": "compute", "tray": "compute",
    "switch": "network", "appliance": "network",
    "transceiver": "optics", "cable": "optics",
    "pdu": "power", "power_shelf": "power", "accessory": "power",
    "cdu": "cooling",
    "crah": "cooling",
    "rack": "racks",
    "software": "software",
    "service": "services",
}
WHERE = "project:bom"
#: what a storage-fabric line's description ends with, beside the compute fabric's lines of the same part
STORAGE_SUFFIX = ", storage fabric"


#: flag of a line with no part number to order it by
NO_PART_NUMBER = "no-part-number"
#: why a line has no part number when its catalog entry does not say
NO_PART_NUMBER_NOTE = "no part number in the catalog: to be specified before ordering"


#: What the bill says of storage when the design places no storage appliance, and when it does.
STORAGE_EXCLUDED = "Storage systems: partner-supplied and partner-priced (DDN, VAST, WEKA, NetApp and others)."
STORAGE_INCLUDED = ("Storage systems beyond the appliances on this bill (their software licences past the term, user "
                    "and home storage); the appliances' prices are indicative, to be quoted by their vendor.")
FACILITY_EXCLUDED = "Facility plant above the rack: UPS, switchgear, busway, chillers and the facility water loop."
#: What no bill from this design includes, said on every quote (shared reference quote.md §3-4).
EXCLUSIONS = (
    "Tax, duty, freight and insurance.",
    STORAGE_EXCLUDED,
    "Optics and cables of the in-band and out-of-band networks: only the compute and storage fabrics' switch, "
    "node and storage-appliance links are derived from the layout.",
    FACILITY_EXCLUDED,
    "Hardware support beyond the term bundled in the system SKUs.",
    "Power cords of switches, appliances, management nodes and systems whose inlets the catalog does not name "
    "(only C19/C20 cords of DGX systems are counted).",
)
#: Catalog kinds that stand on the plan but are facility plant, not on the bill: the room's air handlers belong
#: to the building's mechanical works (with the chillers and the water loop), which no IT bill prices.
FACILITY_KINDS = ("crah",)


def facility_exclusion(units: Mapping[str, int]) -> str:
    """The facility line of the exclusions, naming the facility units the plan holds (name -> count)."""
    if not units:
        return FACILITY_EXCLUDED
    held = "; ".join(f"{n:,} x {name}" for name, n in sorted(units.items()))
    return (FACILITY_EXCLUDED.removesuffix(".") + f", and the room's air handlers on the plan ({held}): "
            "the building's mechanical works.")


#: Caveats shown when their line is on the bill: (catalog id, note).
NOTES = (
    ("nvaie", "DGX systems may bundle NVIDIA AI Enterprise for their support term (not confirmed); "
              "take the subscription line off if the systems' SKUs include it."),
    ("mission-control", "NVIDIA publishes no price or licence unit for Base Command Manager or Mission Control: the "
                        "line is a planning estimate per GPU per year; DGX SuperPOD support may include it (not "
                        "confirmed), so confirm it with NVIDIA or a partner."),
    ("ufm-licence", "NVIDIA sells UFM licences by managed-node tier (100, 250, 500, 1K, 2K, 4K nodes) and "
                    "publishes no price: the line is counted per node and needs a price from a quote."),
    ("dgx-b200", "The DGX B200 part number and price come from third-party sources; confirm both with NVIDIA "
                 "or a partner before ordering."),
    ("gb200-nvl72", "The GB200 NVL72 part number and price come from third-party sources; the rack ships "
                    "with its compute trays, NVLink switch trays and power shelves."),
    ("dgx-b300", "The DGX B300 part number and price are NVIDIA price-list figures as transcribed by a third "
                 "party; confirm both with NVIDIA or a partner before ordering."),
    ("gb300-nvl72", "The GB300 NVL72 part number and price are NVIDIA price-list figures as transcribed by a "
                    "third party; the rack ships with its compute trays, NVLink switch trays and power shelves."),
    ("dgx-rubin-nvl8", "DGX Rubin NVL8 is announced: its figures are preliminary and its price is a price-list "
                       "figure as transcribed by a third party."),
)


def section_of(dev: DeviceType) -> str:
    """The bill section of a catalog entry: by its kind, but an accessory by its category where that names a
    section (a coolant manifold is cooling, a power cord power)."""
    if dev.kind == "accessory" and dev.category in dict(SECTIONS):
        return dev.category
    if dev.is_storage:  # a storage appliance: its own section, not the networks'
        return "storage"
    return SECTION_OF_KIND[dev.kind]


def length_code(metres: float) -> str:
    """NVIDIA LinkX length code: whole metres zero-padded to three, ``A`` for a further half metre.

    ``30 -> "030"``, ``1.5 -> "01A"``, ``0.5 -> "00A"`` (MCP7Y00 ordering table, quote reference §1.6).
    """
    whole = int(math.floor(metres + 1e-9))
    half = metres - whole > 0.25
    return f"{whole:02d}A" if half else f"{whole:03d}"


def cable_part_number(dev: DeviceType, metres: float) -> tuple[str, str]:
    """(part number with its length variant, ordering part number where the catalog has it)."""
    base = dev.part_number
    pn = base + length_code(metres) if base.endswith("-N") else base
    return pn, dev.length_part_numbers.get(f"{metres:g}", "")


@dataclass(frozen=True)
class QuoteCounts:
    """What the quote-only lines are counted per."""

    gpus: int
    #: units with compute-fabric ports: DGX systems, NVL72 compute trays
    nodes: int
    #: catalog id -> quantity of hardware in the design (racks of rack-scale systems left out)
    devices: Mapping[str, int]
    #: racks holding liquid-cooled devices that a CDU of the design serves (0 when it has no CDU)
    liquid_racks: int = 0


def count_basis(dev: DeviceType, counts: QuoteCounts, catalog: Catalog) -> tuple[int, str]:
    """(quantity, how it was counted in words) for a quote-only catalog line."""
    kind, _, arg = dev.basis.partition(":")
    if kind == "gpu":
        return counts.gpus, f"{counts.gpus:,} GPUs"
    if kind == "node":  # node:ID[,ID...]: per node, when the design holds any of the IDs
        if arg and not any(counts.devices.get(i.strip().lower()) for i in arg.split(",")):
            return 0, ""
        return counts.nodes, f"{counts.nodes:,} managed nodes"
    if kind == "device":
        ids = [i.strip().lower() for i in arg.split(",")]
        n = sum(counts.devices.get(i, 0) for i in ids)
        named = [catalog.get(i).name for i in ids if counts.devices.get(i)]
        return n, "one per " + ", ".join(named) if named else ""
    if kind == "liquid-rack":
        n = counts.liquid_racks
        return n, f"one per liquid-cooled rack on a CDU loop ({n:,})" if n else ""
    if kind == "psu":
        n, per = 0, []
        for type_id, c in counts.devices.items():
            d = catalog.get(type_id)
            if d.psu and arg in d.psu.input:
                n += c * d.psu.count
                per.append(f"{d.psu.count} per {d.name}")
        return n, "; ".join(per)
    return 0, ""


class _Bill:
    def __init__(self, catalog: Catalog, quote: QuoteSettings, as_of: date, currency: str):
        self.catalog, self.quote, self.as_of, self.currency = catalog, quote, as_of, currency
        #: the stated rates lines were converted at, and how many lines each converted
        self.rates_used: Counter = Counter()
        self.by_part = {p.key: p for p in quote.prices}
        self.used_list_keys: set[str] = set()
        self.lines: dict[str, list[dict]] = {k: [] for k, _ in SECTIONS}
        #: facility units on the plan, left off the bill (name -> count)
        self.facility_units: Counter = Counter()

    def price_for(self, dev: DeviceType, *numbers: str) -> UnitPrice | None:
        """The unit price of ``dev`` in the quote's currency where a stated rate allows: the price list's entry
        for one of its part ``numbers`` or its catalog id, else the catalog's price."""
        price = None
        for pn in (*numbers, dev.id):
            if pn and part_key(pn) in self.by_part:
                self.used_list_keys.add(part_key(pn))
                price = list_price(self.by_part[part_key(pn)], self.quote.price_list_name)
                break
        else:
            price = catalog_price(dev, self.catalog)
        return None if price is None else converted(price, self.quote, self.currency)

    def add(self, dev: DeviceType, qty: int, *, part_number: str, alt: str = "", description: str,
            length: float | None = None, spare: bool = False, basis: str = "") -> dict:
        section = section_of(dev)
        price = self.price_for(dev, part_number, alt)
        # a part the vendor numbers nothing for takes the seller's own number from the seller's price list
        by_seller = not part_number and price is not None and bool(price.seller_part_number)
        if by_seller:
            part_number = price.seller_part_number
        years = self.quote.term_years if dev.per_year else 1
        pn_fig = dev.figure("part_number")
        line = {"section": section, "id": dev.id, "manufacturer": dev.manufacturer,
                "part_number": part_number, "alt_part_number": alt, "part_number_by_seller": by_seller,
                "part_number_unconfirmed": bool(part_number and not by_seller and pn_fig and pn_fig.unconfirmed),
                "alt_part_number_unconfirmed": bool(alt and (dev.figure("length_part_numbers") or _SURE).unconfirmed),
                "description": description, "quantity": int(qty),
                "unit": {"gpu": "GPU-year", "node": "node-year"}.get(dev.basis.partition(":")[0], "year")
                if dev.per_year else "each",
                "per_year": dev.per_year, "term_years": years, "spare": spare, "basis": basis,
                # the vendor calls the part's figures preliminary: the quote marks the line and says why
                "preliminary": dev.preliminary,
                "flags": price_flags(price, self.as_of, self.quote.price_max_age_days),
                # why there is no part number to order the line by; "" when there is one
                "part_number_note": "" if part_number else (pn_fig and pn_fig.note) or NO_PART_NUMBER_NOTE}
        if not part_number:
            line["flags"].append(NO_PART_NUMBER)
        if length is not None:
            line["length_m"] = length
        discount = Decimal(str(self.quote.discount(section)))
        if price is None:
            line.update(unit_price=None, discount_percent=float(discount), net_unit_price=None,
                        unit_price_per_year=None, list_extended=None, extended_price=None, currency=None,
                        price_source="", price_date="", price_confirmed=False, price_unconfirmed=None,
                        price_from_list=False, original_unit_price=None, original_currency=None, exchange_rate=None,
                        unit_cost=None, extended_cost=None, margin=None)
        else:
            net = money(price.unit * (1 - discount / 100))
            line.update(unit_price=price.unit, discount_percent=float(discount), net_unit_price=net,
                        # the net price of one unit for one year: quantity × years × it is the extended price
                        unit_price_per_year=net if dev.per_year else None,
                        list_extended=price.unit * qty * years, extended_price=net * qty * years,
                        currency=price.currency, price_source=price.source, price_date=price.date,
                        price_confirmed=price.confirmed, price_unconfirmed=not price.confirmed,
                        price_from_list=price.from_list, original_unit_price=None, original_currency=None,
                        exchange_rate=None, unit_cost=price.cost,
                        # what the line costs the seller, and what it leaves: from a seller's price list only
                        extended_cost=None if price.cost is None else price.cost * qty * years,
                        margin=None if price.cost is None else (net - price.cost) * qty * years)
            if price.converted is not None:
                unit, cur, factor, rate = price.converted
                line.update(original_unit_price=float(unit), original_currency=cur, exchange_rate=float(factor))
                line["flags"].append(CONVERTED)
                self.rates_used[rate] += 1
        self.lines[section].append(line)
        return line


def _add_line(bill: _Bill, dev: DeviceType, qty: int, spares: Decimal, *, length: float | None = None,
              suffix: str = "", basis: str = "") -> None:
    """A hardware line, and a spares line after it for optics and cables when the quote asks for spares."""
    if length is None:
        pn, alt, desc = dev.part_number, "", dev.name + suffix
    else:
        pn, alt = cable_part_number(dev, length)
        desc = f"{dev.name}, {length:g} m{suffix}"
    bill.add(dev, qty, part_number=pn, alt=alt, description=desc, length=length, basis=basis)
    if dev.kind in ("transceiver", "cable") and spares > 0:
        extra = int(math.ceil(Decimal(qty) * spares))
        if extra:
            bill.add(dev, extra, part_number=pn, alt=alt, description=f"Spare: {desc}", length=length,
                     spare=True, basis=f"{bill.quote.spares_percent:g} % of {qty:,}, rounded up")


def _add_storage(bill: _Bill, storage: StorageFabric, spares: Decimal) -> None:
    """The storage fabric's optics and fibres: lines of their own, after the compute fabric's, so a buyer sees
    which fabric each serves."""
    for type_id in sorted(storage.transceivers):
        _add_line(bill, bill.catalog.get(type_id), storage.transceivers[type_id], spares, suffix=STORAGE_SUFFIX,
                  basis=storage.bases.get(type_id, ""))
    for type_id in sorted(storage.cables):
        for length, n in sorted(storage.cables[type_id].items()):
            _add_line(bill, bill.catalog.get(type_id), n, spares, length=length, suffix=STORAGE_SUFFIX,
                      basis=storage.bases.get(type_id, ""))


def build_bill(counts: Mapping[str, int], catalog: Catalog, currency: str, quote: QuoteSettings,
               quote_counts: QuoteCounts | None = None, *, cable_lengths: Mapping[str, Counter] | None = None,
               as_of: date | None = None, storage: StorageFabric | None = None,
               bases: Mapping[str, str] | None = None) -> tuple[dict, list[Finding]]:
    """``counts``: catalog id -> quantity of hardware; ``cable_lengths``: cable id -> {length_m: quantity};
    ``storage``: the storage fabric's optics and fibres, billed on lines of their own; ``bases``: catalog id ->
    what its hardware line says of it (a compute-fabric transceiver on an Ethernet fabric: its protocols)."""
    bases = bases or {}
    cable_lengths = cable_lengths or {}
    as_of = as_of or date.today()
    bill = _Bill(catalog, quote, as_of, currency)
    spares = Decimal(str(quote.spares_percent)) / 100
    for type_id in sorted(counts):
        dev = catalog.get(type_id)
        qty = int(counts[type_id])
        if qty <= 0 or dev.kind == "gpu" or dev.kind in QUOTE_KINDS:
            continue
        if dev.kind in FACILITY_KINDS:
            bill.facility_units[dev.name] += qty
            continue
        variants = sorted(cable_lengths[type_id].items()) if type_id in cable_lengths else [(None, qty)]
        for length, n in variants:
            _add_line(bill, dev, int(n), spares, length=length, basis=bases.get(type_id, ""))
    if storage is not None:
        _add_storage(bill, storage, spares)
    if quote_counts is not None:
        for dev in sorted(catalog.of_kind(*QUOTE_KINDS), key=lambda d: (section_of(d), d.id)):
            if dev.id in quote.excluded:
                continue
            qty, basis = count_basis(dev, quote_counts, catalog)
            if qty > 0:
                bill.add(dev, qty, part_number=dev.part_number, description=dev.name, basis=basis)
    return _assemble(bill, currency)


def _bill_currency(bill: _Bill, wanted: str) -> str:
    """The project's currency, unless no priced line is in it: then the one most of the money is in."""
    sums: dict[str, Decimal] = {}
    for lines in bill.lines.values():
        for ln in lines:
            if ln["extended_price"] is not None:
                sums[ln["currency"]] = sums.get(ln["currency"], Decimal(0)) + ln["extended_price"]
    return wanted if wanted in sums or not sums else max(sums, key=sums.get)


@dataclass
class _Totals:
    """What the sections add up to as they are numbered, in the bill's currency unless named otherwise."""

    number: int = 0  # lines numbered so far
    list_total: Decimal = Decimal(0)
    net_total: Decimal = Decimal(0)
    one_off: Decimal = Decimal(0)
    yearly: Decimal = Decimal(0)
    unconfirmed_net: Decimal = Decimal(0)
    indicative_elsewhere: bool = False  # an indicative price in another currency
    other: dict[str, Decimal] = field(default_factory=dict)
    unpriced: list[str] = field(default_factory=list)
    no_part_number: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    #: the seller's margins, each section's: (title, net of its lines with a cost, their cost, lines with a cost,
    #: priced lines without one)
    margins: list[tuple[str, str, Decimal, Decimal, int, int]] = field(default_factory=list)


def _section(bill: _Bill, key: str, title: str, lines: list[dict], currency: str, t: _Totals) -> dict:
    """One section: numbers its lines, adds them to the totals and rounds their prices for the report (the
    totals keep the exact Decimals)."""
    sec_list = sec_net = costed_net = cost = Decimal(0)
    sec_other: dict[str, Decimal] = {}
    n_unpriced = n_costed = n_uncosted = 0
    for ln in lines:
        t.number += 1
        ln["line"] = t.number
        if ln["extended_price"] is None:
            n_unpriced += 1
            t.unpriced.append(ln["description"])
        elif ln["currency"] == currency:
            sec_list += ln["list_extended"]
            sec_net += ln["extended_price"]
            if ln["per_year"]:
                t.yearly += ln["extended_price"] / ln["term_years"]
            else:
                t.one_off += ln["extended_price"]
            if not ln["price_confirmed"]:
                t.unconfirmed_net += ln["extended_price"]
            if ln["extended_cost"] is None:
                n_uncosted += 1
            else:
                n_costed += 1
                costed_net += ln["extended_price"]
                cost += ln["extended_cost"]
        else:
            sec_other[ln["currency"]] = sec_other.get(ln["currency"], Decimal(0)) + ln["extended_price"]
            t.other[ln["currency"]] = t.other.get(ln["currency"], Decimal(0)) + ln["extended_price"]
            t.indicative_elsewhere |= not ln["price_confirmed"]
        if "stale" in ln["flags"]:
            t.stale.append(ln["description"])
        if NO_PART_NUMBER in ln["flags"] and not ln["spare"]:
            t.no_part_number.append(ln["description"])
        for k in ("unit_price", "net_unit_price", "unit_price_per_year", "list_extended", "extended_price",
                  "unit_cost", "extended_cost", "margin"):
            if ln[k] is not None:
                ln[k] = float(money(ln[k]))
    t.list_total += sec_list
    t.net_total += sec_net
    t.margins.append((key, title, costed_net, cost, n_costed, n_uncosted))
    return {"section": key, "title": title, "lines": lines, "currency": currency,
            "list_subtotal": float(money(sec_list)), "discount_percent": bill.quote.discount(key),
            "discount": float(money(sec_list - sec_net)), "subtotal": float(money(sec_net)),
            "other_currencies": {c: float(money(v)) for c, v in sorted(sec_other.items())},
            # every currency's net subtotal, the bill's included (kept for scripts that read it)
            "subtotals": {c: float(money(v)) for c, v in sorted({currency: sec_net, **sec_other}.items())
                          if v or c == currency},
            "unpriced": n_unpriced}


def _price_findings(bill: _Bill, currency: str, wanted: str, t: _Totals) -> list[Finding]:
    """What the totals leave out or rest on: unpriced lines, other currencies, stale and indicative prices."""
    findings: list[Finding] = []
    unpriced, other, stale = t.unpriced, t.other, t.stale
    if unpriced:
        names = sorted(set(unpriced))
        # Hardware the catalog cannot price is missing data; a licence with no public price is expected.
        hardware = any(ln["extended_price"] is None and ln["section"] not in ("software", "services")
                       for lines in bill.lines.values() for ln in lines)
        findings.append(Finding("warning" if hardware else "info", "bom-unpriced",
                                f"{len(unpriced)} line{'s' if len(unpriced) != 1 else ''} of the bill "
                                f"{'have' if len(unpriced) != 1 else 'has'} no price and "
                                f"{'are' if len(unpriced) != 1 else 'is'} left out of the total: "
                                + "; ".join(names[:6]) + (" …" if len(names) > 6 else ""), WHERE))
    if currency != wanted:
        findings.append(Finding("warning", "bom-currency",
                                f"the project's currency is {wanted}, but no price is in it: the bill is totalled "
                                f"in {currency}, with no conversion", WHERE))
    if other:
        findings.append(Finding("warning", "bom-currency",
                                f"prices in {', '.join(sorted(other))} are not converted to {currency}: "
                                + ", ".join(f"{c} {float(v):,.2f}" for c, v in sorted(other.items()))
                                + f" stay out of the {currency} total", WHERE))
    if stale:
        findings.append(Finding("info", "bom-stale-price",
                                f"{len(stale)} price{'s are' if len(stale) != 1 else ' is'} older than "
                                f"{bill.quote.price_max_age_days} days: " + "; ".join(sorted(set(stale))[:4])
                                + (" …" if len(set(stale)) > 4 else ""), WHERE))
    if t.no_part_number:
        names = sorted(set(t.no_part_number))
        findings.append(Finding("info", "bom-no-part-number",
                                f"{len(names)} line{'s' if len(names) != 1 else ''} of the bill "
                                f"{'have' if len(names) != 1 else 'has'} no part number and "
                                f"{'say' if len(names) != 1 else 'says'} why (planning items, or parts the "
                                "vendor publishes no number for); specify them before ordering: "
                                + "; ".join(names[:6]) + (" …" if len(names) > 6 else ""), WHERE))
    if t.net_total and t.unconfirmed_net:
        share = float(t.unconfirmed_net / t.net_total) * 100
        findings.append(Finding("info", "bom-indicative",
                                f"{share:.0f} % of the total rests on indicative prices (press, third-party "
                                "or planning estimates, not a vendor quote); load a price list to replace them", WHERE))
    return findings


def _price_list_findings(bill: _Bill, unused: list[str]) -> list[Finding]:
    """A loaded price list none or only some of whose entries the bill uses."""
    if bill.quote.prices and len(unused) == len(bill.quote.prices):
        return [Finding("warning", "bom-price-list-unused",
                        f"none of the {len(unused):,} prices of {bill.quote.price_list_name or 'the price list'} "
                        "matches a part number or catalog id on the bill", WHERE)]
    if unused:
        return [Finding("info", "bom-price-list-unused",
                        f"{len(unused):,} of {len(bill.quote.prices):,} prices of "
                        f"{bill.quote.price_list_name or 'the price list'} match nothing on the bill: "
                        + ", ".join(unused[:5]) + (" …" if len(unused) > 5 else ""), WHERE)]
    return []


def _margin_row(net: Decimal, cost: Decimal, costed: int, uncosted: int) -> dict:
    return {"net": float(money(net)), "cost": float(money(cost)), "margin": float(money(net - cost)),
            "margin_percent": float((net - cost) / net * 100) if net else None,
            "costed_lines": costed, "uncosted_lines": uncosted}


def _margins(t: _Totals) -> dict:
    """What the bill leaves the seller, by section and in all, over the lines whose cost the seller's price list
    gives (in the bill's currency); the priced lines without a cost are counted, never guessed."""
    sections = [{"section": key, "title": title, **_margin_row(net, cost, n, m)}
                for key, title, net, cost, n, m in t.margins if n or m]
    net = sum((row[2] for row in t.margins), Decimal(0))
    cost = sum((row[3] for row in t.margins), Decimal(0))
    return {**_margin_row(net, cost, sum(r[4] for r in t.margins), sum(r[5] for r in t.margins)),
            "sections": sections}


def _assemble(bill: _Bill, wanted: str) -> tuple[dict, list[Finding]]:
    currency = _bill_currency(bill, wanted)
    t = _Totals()
    sections = [_section(bill, key, title, bill.lines[key], currency, t) for key, title in SECTIONS
                if bill.lines[key]]
    findings = _price_findings(bill, currency, wanted, t)
    unused = sorted(p.part_number for p in bill.quote.prices if p.key not in bill.used_list_keys)
    ids = {ln["id"] for lines in bill.lines.values() for ln in lines}
    findings += _price_list_findings(bill, unused)
    list_total, net_total, other, unconfirmed_net = t.list_total, t.net_total, t.other, t.unconfirmed_net
    bom = {
        "currency": currency,
        "as_of": bill.as_of.isoformat(),
        "sections": sections,
        "list_total": float(money(list_total)),
        "discount_total": float(money(list_total - net_total)),
        "price_total": float(money(net_total)),
        "one_off_total": float(money(t.one_off)),
        "yearly_total": float(money(t.yearly)),
        "other_currencies": {c: float(money(v)) for c, v in sorted(other.items())},
        "totals_by_currency": {currency: float(money(net_total)),
                               **{c: float(money(v)) for c, v in sorted(other.items())}},
        "estimated": bool(unconfirmed_net) or t.indicative_elsewhere,
        "unpriced": sorted(set(t.unpriced)),
        "indicative_share": float(unconfirmed_net / net_total) if net_total else 0.0,
        "lines": t.number,
        "spares_percent": bill.quote.spares_percent,
        "term_years": bill.quote.term_years,
        "price_list": {"name": bill.quote.price_list_name, "entries": len(bill.quote.prices),
                       "used": len(bill.used_list_keys), "unused": unused},
        "exclusions": [STORAGE_INCLUDED if e == STORAGE_EXCLUDED and bill.lines["storage"] else
                       facility_exclusion(bill.facility_units) if e == FACILITY_EXCLUDED else e
                       for e in EXCLUSIONS],
        "notes": [note for key, note in NOTES if key in ids],
        "margins": _margins(t),
        # the stated rates prices were converted at, each with the lines it converted
        "exchange_rates": [{**rate.to_json(), "text": rate.text(), "lines": n}
                           for rate, n in sorted(bill.rates_used.items(), key=lambda kv: (kv[0].base, kv[0].quote))],
    }
    if bill.rates_used:
        findings.append(Finding("info", "bom-converted",
                                "prices converted to " + currency + " at the quote's stated rates: "
                                + "; ".join(f"{r['text']}, {r['lines']:,} line{'s' if r['lines'] != 1 else ''}"
                                            for r in bom["exchange_rates"]), WHERE))
    return bom, findings


__all__ = ["CONFIRMED_EVIDENCE", "CONVERTED", "NO_PART_NUMBER", "QuoteCounts", "SECTION_OF_KIND", "build_bill",
           "cable_part_number", "count_basis", "length_code", "section_of"]
