"""The ``bom`` engine: the bill of materials a buyer orders from, priced, by section.

It reads counts the other engines produced (the devices engine's inventory, the fabric
engine's cables by length and transceivers, the storage engine's storage-fabric optics counted from
the placed storage switches, :mod:`designer.storage.fabric`) and never recounts them; the bill itself
is built in :mod:`designer.quote.lines`. Racks that hold a rack-scale system (a GB200 NVL72
ships in its own rack) are not ordered again as enclosures.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from .engines import Context, EngineResult
from .findings import Finding
from .quote.lines import QuoteCounts, build_bill
from .quote_settings import effective_date


@dataclass(frozen=True, kw_only=True)
class BomResult(EngineResult):
    #: net total (after discounts) in ``currency``, unpriced lines and other currencies left out
    price_total: float
    currency: str
    #: true when any price on the bill is an indicative estimate rather than a vendor or user price
    estimated: bool
    #: one-off (hardware and services) and per-year (subscriptions, support) net totals
    one_off_total: float
    yearly_total: float
    unpriced: tuple[str, ...]


def hardware_counts(ctx: Context) -> Counter:
    """Catalog id -> quantity to order: the inventory, less the racks rack-scale systems bring."""
    a = ctx.arrays
    counts = Counter(ctx["devices"].counts)
    own = np.zeros(len(a.rack_ids), dtype=bool)
    if len(a.dev_type):
        own[a.dev_rack[a.types.fills_rack[a.dev_type]]] = True
    if own.any():
        for idx, n in zip(*np.unique(a.rack_type[own], return_counts=True)):
            counts[a.types.ids[int(idx)]] -= int(n)
    return +counts


def node_count(counts: Counter, ctx: Context) -> int:
    """Units with compute-fabric ports: GPU servers, and a rack-scale system's compute trays."""
    nodes = 0
    for type_id, n in counts.items():
        dev = ctx.catalog.get(type_id)
        if dev.kind == "server" and dev.gpu_count:
            nodes += n
        elif dev.kind == "rack_system":
            per = sum(c.count for c in dev.components if ctx.catalog.get(c.id).ports_of("compute"))
            nodes += n * per
    return nodes


def liquid_racks(ctx: Context) -> int:
    """Racks holding a liquid-cooled device, when the design has a CDU (in a rack or on the floor) to serve
    them: each takes a manifold pair and a hose set to the CDU loop. Without a CDU nothing connects them,
    which the cooling engine reports, so the bill orders none."""
    a = ctx.arrays
    t = a.types
    has_cdu = bool(t.is_cdu[a.dev_type].any() or t.is_cdu[a.floor_type].any()) if len(t.is_cdu) else False
    if not has_cdu or not len(a.dev_type):
        return 0
    wet = t.liquid_fraction[a.dev_type] > 0
    return int(np.unique(a.dev_rack[wet]).size)


#: the fabric technology -> the protocol its switches speak, and the name a buyer knows it by
FABRIC_PROTOCOL = {"spectrum-x": ("ethernet", "Spectrum-X Ethernet"), "roce": ("ethernet", "RoCE Ethernet")}


def fabric_optics(fabric, catalog) -> tuple[dict[str, str], list[Finding]]:
    """On an Ethernet compute fabric, what each of its transceiver lines says of the part's protocols (a
    twin-port OSFP sold for InfiniBand and Ethernet alike runs its switch's), and a warning for a part the
    catalog does not list for Ethernet. Nothing on an InfiniBand fabric."""
    technology = getattr(fabric.inventory, "technology", "infiniband")
    if technology not in FABRIC_PROTOCOL:
        return {}, []
    protocol, name = FABRIC_PROTOCOL[technology]
    bases: dict[str, str] = {}
    findings: list[Finding] = []
    for type_id in sorted(fabric.section.get("transceivers") or {}):
        dev = catalog.get(type_id)
        protocols = [p.strip() for p in dev.protocols.split(",") if p.strip()]
        if protocol in protocols:
            both = len(protocols) > 1
            fig = dev.figures.get("protocols")
            unconfirmed = fig is not None and fig.evidence == "U"
            bases[type_id] = (f"compute fabric, {name}: "
                              + ("an InfiniBand and Ethernet part, it runs the protocol of the port it plugs into"
                                 if both else "an Ethernet part")
                              + (" (assumed from its family; not stated for this part)" if unconfirmed else ""))
        else:
            said = f"listed for {dev.protocols} only" if protocols else "not listed for Ethernet"
            findings.append(Finding("warning", "bom-optics-protocol",
                                    f"the compute fabric is {name} but its transceiver {dev.name} is {said} in the "
                                    "catalog: check that the part runs Ethernet, or order its Ethernet SKU",
                                    "project:bom"))
    return bases, findings


def analyze_bom(ctx: Context) -> BomResult:
    fabric, devices = ctx["fabric"], ctx["devices"]
    hardware = hardware_counts(ctx)
    quote = ctx.project.quote
    counts = QuoteCounts(gpus=devices.gpus, nodes=node_count(hardware, ctx), devices=dict(hardware),
                         liquid_racks=liquid_racks(ctx))
    storage = ctx["storage"].fabric
    bases, optics_findings = fabric_optics(fabric, ctx.catalog)
    bom, findings = build_bill(hardware + fabric.parts(), ctx.catalog, ctx.project.currency, quote, counts,
                               cable_lengths=fabric.cable_lengths(), as_of=effective_date(quote), storage=storage,
                               bases=bases)
    findings += optics_findings
    # what the storage fabric's count could not cover is missing from the bill: say so beside it
    findings += [Finding("warning", "bom-storage-fabric", note, "project:bom") for note in storage.notes]
    return BomResult(section=bom, findings=tuple(findings), price_total=bom["price_total"],
                     currency=bom["currency"], estimated=bom["estimated"], one_off_total=bom["one_off_total"],
                     yearly_total=bom["yearly_total"], unpriced=tuple(bom["unpriced"]))
