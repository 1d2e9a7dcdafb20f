"""Typed view of the ``storage`` section: the tier, what the appliances and the storage fabric deliver."""
from __future__ import annotations

from .base import Rows, view
from .fabric import RoomLink


@view
class StorageNeed:
    """``storage.need``: what the tier asks for the design's GPUs"""
    read_gb_s: float
    write_gb_s: float
    gpus: int


@view
class StorageAppliances:
    """``storage.appliances[]``: one catalog type of storage appliance and its summed figures"""
    type: str
    name: str
    count: int
    read_gb_s: float
    write_gb_s: float
    usable_tb: float
    #: figures of the type that are unconfirmed (read_gbs, write_gbs, usable_tb)
    unconfirmed: tuple[str, ...]


@view
class StorageFabricFlow:
    """``storage.fabric``: the storage fabric's switches and the GB/s it carries"""
    leaves: int
    spines: int
    clients_gb_s: float
    appliances_gb_s: float
    carried_gb_s: float
    #: storage-fabric links that leave their room, per pair of rooms (none in a design of one hall)
    room_links: Rows[RoomLink] | None = None


@view
class StorageView:
    """``storage``: ``read_gb_s`` / ``write_gb_s`` are what a restore and a checkpoint get (the appliances and
    the fabric's smaller, or the tier's figures where ``placed`` is false); ``tier`` is null for a design without
    GPUs or with a tier its systems have not"""
    tier: str | None
    tier_name: str | None
    tier_evidence: str | None
    tier_note: str | None
    read_gb_s: float
    write_gb_s: float
    capacity_pb: float
    placed: bool
    basis: str
    limited_by: str | None
    need: StorageNeed
    capacity_target_pb: float | None
    appliances: Rows[StorageAppliances]
    appliance_read_gb_s: float
    appliance_write_gb_s: float
    fabric: StorageFabricFlow
    tiers_above: tuple[str, ...]

    @property
    def unconfirmed(self) -> bool:
        """The tier's figures are borrowed from another system's RA, or an appliance's are unconfirmed."""
        return self.tier_evidence == "U" or any(a.unconfirmed for a in self.appliances)
