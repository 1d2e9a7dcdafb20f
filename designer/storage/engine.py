"""The ``storage`` engine: the tier the design is held to, what its appliances and storage fabric deliver.

What the training estimate's checkpoints and restarts read is the smaller of the appliances' summed
throughput and what the storage fabric carries between the nodes and the appliances (:mod:`.fabric`).
A design without storage appliances is taken at its tier's RA figures, and says so: its checkpoint
figures then describe the storage the tier asks for, not storage the design holds.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..engines import Context, EngineResult
from ..findings import Finding
from ..inventory import dominant_system
from ..formatting import quantity
from .fabric import StorageFabric, storage_fabric
from .tiers import TIERS, Tier, TierError, tier_for, tiers_above

WHERE = "project:storage"


@dataclass(frozen=True, kw_only=True)
class StorageResult(EngineResult):
    fabric: StorageFabric
    #: None when the design has no GPUs (nothing to hold to a tier) or states a tier its systems have not
    tier: Tier | None
    #: GB/s a checkpoint write and a restore read get: what the design delivers, or the tier's figure
    #: when it places no storage appliances (``placed`` false); 0 with neither
    write_gbs: float
    read_gbs: float
    placed: bool
    capacity_pb: float


def _main_system(ctx: Context):
    """(catalog type, GPUs) of the design's GPU system that holds the most GPUs, or (None, 0)."""
    by_system = ctx["devices"].gpus_by_system
    type_id = dominant_system(by_system)
    if type_id is None:
        return None, 0
    return ctx.catalog.get(type_id), sum(by_system.values())


def _appliances(ctx: Context) -> list[dict]:
    out = []
    for type_id, n in sorted(ctx["devices"].counts.items()):
        dev = ctx.catalog.find(type_id)
        if dev is None or not dev.is_storage:
            continue
        out.append({"type": type_id, "name": dev.name, "count": n, "read_gb_s": round(dev.read_gbs * n, 3),
                    "write_gb_s": round(dev.write_gbs * n, 3), "usable_tb": round((dev.usable_tb or 0) * n, 3),
                    "unconfirmed": sorted(f for f in ("read_gbs", "write_gbs", "usable_tb")
                                          if (fig := dev.figures.get(f)) is not None and fig.unconfirmed)})
    return out


def analyze_storage(ctx: Context) -> StorageResult:
    fabric = storage_fabric(ctx.project, ctx.catalog)
    system, gpus = _main_system(ctx)
    settings = ctx.settings
    findings: list[Finding] = []
    tier = None
    if system is not None:
        try:
            tier = tier_for(settings.storage_tier, system.id, system.kind == "rack_system")
        except TierError as exc:
            findings.append(Finding("error", "storage-tier", str(exc), WHERE))
    apps = _appliances(ctx)
    app_read = sum(a["read_gb_s"] for a in apps)
    app_write = sum(a["write_gb_s"] for a in apps)
    capacity_pb = sum(a["usable_tb"] for a in apps) / 1000.0
    need_read, need_write = tier.need(gpus) if tier else (0.0, 0.0)
    placed = bool(apps)
    limited_by = None
    if placed:
        carried = fabric.carried_gbs
        read, write = min(app_read, carried), min(app_write, carried)
        limited_by = _limit(fabric, app_write)
        if carried < app_write:
            findings.append(_fabric_short(fabric, app_write, limited_by))
    else:
        read, write = need_read, need_write
        if tier is not None:
            findings.append(Finding("info", "storage-not-placed",
                                    f"no storage appliances in the design: checkpoint and restore figures assume "
                                    f"the {tier.name} tier's {quantity(need_write, 'GB/s')} of write and "
                                    f"{quantity(need_read, 'GB/s')} of read for {gpus:,} GPUs", WHERE))
    for a in apps:
        least = ctx.catalog.get(a["type"]).min_count
        if a["count"] < least:
            findings.append(Finding("warning", "storage-appliance-minimum",
                                    f"{a['count']:,} × {a['name']}: a cluster of them needs at least {least:,}",
                                    WHERE))
    if placed and tier is not None and (write < need_write * 0.999 or read < need_read * 0.999):
        findings.append(_tier_short(tier, gpus, read, write, need_read, need_write))
    target = settings.storage_capacity_pb
    if placed and target is not None and capacity_pb < target:
        findings.append(Finding("warning", "storage-capacity",
                                f"storage appliances hold {capacity_pb:,.2f} PB usable, the design asks for "
                                f"{target:,.2f} PB", WHERE))
    section = {
        "tier": tier.id if tier else None,
        "tier_name": tier.name if tier else None,
        "tier_evidence": tier.evidence if tier else None,
        "tier_note": tier.note if tier else None,
        "read_gb_s": round(read, 3), "write_gb_s": round(write, 3), "capacity_pb": round(capacity_pb, 4),
        "placed": placed,
        "basis": ("appliances and storage fabric" if placed else
                  "the tier's RA figures (no storage appliances placed)" if tier else "no storage"),
        "limited_by": limited_by,
        "need": {"read_gb_s": round(need_read, 3), "write_gb_s": round(need_write, 3), "gpus": gpus},
        "capacity_target_pb": target,
        "appliances": apps,
        "appliance_read_gb_s": round(app_read, 3), "appliance_write_gb_s": round(app_write, 3),
        "fabric": {"leaves": fabric.leaves, "spines": fabric.spines, "clients_gb_s": round(fabric.client_gbs, 3),
                   "appliances_gb_s": round(fabric.server_gbs, 3), "carried_gb_s": round(fabric.carried_gbs, 3),
                   "room_links": list(fabric.room_links)},
        # the family's higher tiers the design does not already meet (a smallest cluster may meet them all)
        "tiers_above": [t for t in tiers_above(tier) if TIERS[t].need(gpus)[1] > write * 1.001
                        or TIERS[t].need(gpus)[0] > read * 1.001] if tier else [],
    }
    return StorageResult(section=section, findings=tuple(findings), fabric=fabric, tier=tier,
                         write_gbs=write, read_gbs=read, placed=placed, capacity_pb=capacity_pb)


def _limit(fabric: StorageFabric, app_write: float) -> str:
    """What bounds a checkpoint write: the appliances, or between them and the nodes the nodes' own storage
    ports, the appliances' ports or the storage fabric's uplinks (the first that is full)."""
    carried = fabric.carried_gbs
    if carried >= app_write:
        return "appliances"
    if carried >= fabric.client_gbs * 0.999:
        return "nodes' storage ports"
    if carried >= fabric.server_gbs * 0.999:
        return "appliances' ports"
    return "storage fabric"


def _fabric_short(fabric: StorageFabric, app_write: float, limit: str) -> Finding:
    """Why the appliances' write does not reach the nodes, and whether more switches would help."""
    carried = quantity(fabric.carried_gbs, "GB/s")
    if not fabric.leaves:
        return Finding("warning", "storage-fabric-limit",
                       f"no storage leaf joins the storage appliances' {quantity(app_write, 'GB/s')} of write to the "
                       f"nodes: place storage leaves (switches named storage-leaf-…)", WHERE)
    if limit == "nodes' storage ports":  # capacity bought beyond what the nodes can read or write: not a fault
        return Finding("info", "storage-fabric-limit",
                       f"the nodes' storage ports carry at most {carried}, less than the storage appliances' "
                       f"{quantity(app_write, 'GB/s')} of write: the appliances are sized past the nodes' throughput "
                       f"(for capacity); more switches would not raise it", WHERE)
    if limit == "appliances' ports":
        return Finding("warning", "storage-fabric-limit",
                       f"the storage appliances' own ports carry {carried}, less than their "
                       f"{quantity(app_write, 'GB/s')} of write", WHERE)
    return Finding("warning", "storage-fabric-limit",
                   f"the storage fabric carries {carried} between the nodes and the storage appliances, less than "
                   f"their {quantity(app_write, 'GB/s')} of write: add storage leaf uplinks or spines", WHERE)


def _tier_short(tier: Tier, gpus: int, read: float, write: float, need_read: float, need_write: float) -> Finding:
    short = [f"{quantity(write, 'GB/s')} of write against {quantity(need_write, 'GB/s')}"] if write < need_write else []
    if read < need_read:
        short.append(f"{quantity(read, 'GB/s')} of read against {quantity(need_read, 'GB/s')}")
    return Finding("warning", "storage-tier-short",
                   f"storage delivers {' and '.join(short)} the {tier.name} tier asks for {gpus:,} GPUs", WHERE)
