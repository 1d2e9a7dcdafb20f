"""How many storage appliances a SuperPOD gets, and which: enough to meet its storage tier's read and
write GB/s (designer/storage/tiers.py) and its capacity target, never fewer than the appliance's
smallest cluster.

The appliance defaults to the WEKApod Nitro node: its 400G OSFP ports join both an NDR InfiniBand
storage fabric (QM9700) and a Spectrum-4 Ethernet one (SN5600) with the modules the storage fabric
already orders; the catalog holds it once per setting of its VPI adapter, and the storage fabric's
protocol picks which. The DDN AI400X2 is the other appliance class the catalog holds; its 200G HDR
ports need splitter cables the catalog does not list, which the bill says.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from catalog import Catalog, UnknownDeviceError

from ..storage.tiers import TIERS, TierError, tier_for, tiers_above
from .spec import GenerateError

#: the default appliance by the storage fabric's protocol
DEFAULT_APPLIANCE = {"infiniband": "wekapod-nitro", "ethernet": "wekapod-nitro-eth"}


@dataclass(frozen=True)
class StoragePlan:
    appliance: str
    count: int
    tier: str
    #: storage ports the appliances put on the storage fabric, and their speed
    ports: int
    port_gbps: float
    #: which of the tier's read, write or the capacity target set the count
    sized_by: str


#: the most capacity one design may ask for, PB (10 EB: beyond any AI cluster's storage), and the most appliances
MAX_STORAGE_PB = 10_000.0
MAX_APPLIANCES = 50_000


def check_storage(spec, catalog: Catalog, system: str, rack_scale: bool,
                  networks: tuple[str, ...]) -> tuple[str | None, float | None, str]:
    """(tier as asked or None, capacity PB or None, appliance id) checked, or a GenerateError naming the flag."""
    asked = [flag for flag, v in (("--storage-tier", spec.storage_tier), ("--storage-pb", spec.storage_pb),
                                  ("--storage-appliance", spec.storage_appliance)) if v is not None]
    if asked and "storage" not in networks:
        raise GenerateError(f"{', '.join(asked)}: the design builds no storage network; add storage to --networks "
                            f"(compute,storage,...) or leave {'it' if len(asked) == 1 else 'them'} out")
    tier = None
    if spec.storage_tier is not None:
        if not isinstance(spec.storage_tier, str):
            raise GenerateError(f"--storage-tier must be a tier name, got {spec.storage_tier!r:.40}")
        try:
            tier = tier_for(spec.storage_tier, system, rack_scale).id
        except TierError as exc:
            raise GenerateError(f"--storage-tier: {exc}") from None
    pb = None
    if spec.storage_pb is not None:
        try:
            pb = float(spec.storage_pb)
        except (TypeError, ValueError, OverflowError):
            raise GenerateError(f"--storage-pb must be a number of petabytes, got {spec.storage_pb!r:.40}") from None
        if not math.isfinite(pb) or pb <= 0 or pb > MAX_STORAGE_PB:
            raise GenerateError(f"--storage-pb must be above 0 and at most {MAX_STORAGE_PB:,.0f} PB, "
                                f"got {spec.storage_pb!r}")
    protocol = storage_protocol(catalog, system)
    appliance = spec.storage_appliance or DEFAULT_APPLIANCE[protocol]
    if not isinstance(appliance, str):
        raise GenerateError(f"--storage-appliance must be a catalog id, got {appliance!r:.40}")
    appliance = appliance.strip().lower()
    try:
        dev = catalog.get(appliance)
    except UnknownDeviceError:
        choices = ", ".join(d.id for d in catalog if d.is_storage)
        raise GenerateError(f"--storage-appliance: no catalog entry {appliance!r:.60}; choose {choices}") from None
    if not dev.is_storage or not dev.ports_of("storage"):
        choices = ", ".join(d.id for d in catalog if d.is_storage)
        raise GenerateError(f"--storage-appliance: {appliance} is not a storage appliance; choose {choices}")
    runs = dev.ports_of("storage")[0].protocol
    if runs != protocol:
        same = [d.id for d in catalog if d.is_storage and d.ports_of("storage")
                and d.ports_of("storage")[0].protocol == protocol]
        raise GenerateError(f"--storage-appliance: {appliance}'s storage ports run {runs}, but {system}'s storage "
                            f"fabric is {protocol}; choose {', '.join(same) or 'another system'}")
    return tier, pb, appliance


def storage_protocol(catalog: Catalog, system: str) -> str:
    """What the system's storage ports speak (a rack system's trays carry them)."""
    dev = catalog.get(system)
    groups = list(dev.ports_of("storage"))
    for comp in dev.components:
        part = catalog.find(comp.id)
        if part is not None:
            groups += part.ports_of("storage")
    return groups[0].protocol if groups else "infiniband"


def plan_storage(spec, catalog: Catalog, system: str, rack_scale: bool, gpus: int) -> StoragePlan | None:
    """The appliances for ``gpus`` GPUs, or None when the design builds no storage network."""
    if "storage" not in spec.networks:
        return None
    tier = tier_for(spec.storage_tier, system, rack_scale)
    dev = catalog.get(spec.storage_appliance or DEFAULT_APPLIANCE[storage_protocol(catalog, system)])
    need_read, need_write = tier.need(gpus)
    counts = {"read": math.ceil(need_read / dev.read_gbs - 1e-9), "write": math.ceil(need_write / dev.write_gbs - 1e-9)}
    if spec.storage_pb is not None:
        counts["capacity"] = math.ceil(spec.storage_pb * 1000.0 / dev.usable_tb - 1e-9)
    sized_by = max(counts, key=lambda k: counts[k])
    count = max(counts[sized_by], dev.min_count or 1, 1)
    if count > counts[sized_by]:
        sized_by = "smallest cluster"
    if count > MAX_APPLIANCES:
        raise GenerateError(f"{count:,} × {dev.name} are more than the {MAX_APPLIANCES:,} appliances one design "
                            f"holds: ask less --storage-pb, or an appliance of more capacity")
    group = dev.ports_of("storage")
    return StoragePlan(dev.id, count, tier.id, count * sum(g.count for g in group), group[0].speed_gbps, sized_by)


def cluster_note(plan: StoragePlan | None, catalog: Catalog, system: str, rack_scale: bool, gpus: int) -> str:
    """What a design built to its appliance's smallest cluster should know when that cluster meets higher tiers
    too (choosing them then changes nothing); "" otherwise."""
    if plan is None or plan.sized_by != "smallest cluster":
        return ""
    dev = catalog.get(plan.appliance)
    write, read = plan.count * dev.write_gbs, plan.count * dev.read_gbs
    tier = tier_for(plan.tier, system, rack_scale)
    met = [TIERS[t].name for t in tiers_above(tier)
           if TIERS[t].need(gpus)[1] <= write and TIERS[t].need(gpus)[0] <= read]
    if not met:
        return ""
    return (f"{plan.count} × {dev.name}, the smallest cluster, give {write:,.1f} GB/s of write and {read:,.1f} of "
            f"read where the {tier.name} tier asks {tier.need(gpus)[1]:,.1f} and {tier.need(gpus)[0]:,.1f}: they meet "
            f"the {' and '.join(met)} tier{'s' if len(met) > 1 else ''} too, so a higher tier changes nothing here")
