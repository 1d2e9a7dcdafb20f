"""Typed views of the ``fabric`` and ``bandwidth`` sections: the fat tree, its links, cables and optics,
and the collectives on it.

Each class mirrors one object of the section, attribute for key; the docstring names its JSON path.
"""
from __future__ import annotations

from collections.abc import Mapping

from .base import Rows, require, view
from .summary import SwitchCounts


@view
class LeafPorts:
    """``fabric.leaf_ports``"""
    down: int
    up: int


@view
class TierLinks:
    """``fabric.links``"""
    node_leaf: int
    leaf_spine: int
    spine_core: int


@view
class RolePorts:
    """``fabric.ports.leaf``"""
    total: int
    down_used: int
    up_used: int
    used: int
    free: int


@view
class PortUse:
    """``fabric.ports``"""
    leaf: RolePorts
    spine: RolePorts
    core: RolePorts


@view
class PlaneCounts:
    """``fabric.per_plane``: one plane's switches and links (every plane is the same tree)"""
    leaf: int
    spine: int
    core: int
    links: TierLinks


@view
class RoomLink:
    """``fabric.room_links[]`` (and ``storage.fabric.room_links[]``): a fabric's links between two rooms of a site,
    as one bundle"""
    #: the two halls' ids, the earlier of the project first
    a: str
    b: str
    links: int
    #: the longest run of the bundle, m (before rounding up to an orderable length)
    longest_m: float


@view
class FabricView:
    """``fabric``: the fat tree sized for the design and wired on its floor plan.

    A design no tree of its switch can hold has only ``endpoints`` and ``error``; one without compute
    nodes has the counts (all 0) and no switch.
    """
    endpoints: int
    error: str | None = None
    nodes: int | None = None
    tiers: int | None = None
    leaf: int | None = None
    spine: int | None = None
    core: int | None = None
    links: TierLinks | None = None
    max_endpoints: int | None = None
    notes: tuple[str, ...] | None = None
    cables: Mapping[str, int] | None = None
    cables_by_length: Mapping[str, Mapping[float, int]] | None = None
    cables_total: int | None = None
    transceivers: Mapping[str, int] | None = None
    gpus: int | None = None
    placed: SwitchCounts | None = None
    switch: str | None = None
    radix: int | None = None
    port_gbps: float | None = None
    reserved_ports: int | None = None
    rails: int | None = None
    su_nodes: int | None = None
    scalable_units: int | None = None
    oversubscription: float | None = None
    switches: int | None = None
    leaf_ports: LeafPorts | None = None
    pods: int | None = None
    ports: PortUse | None = None
    max_endpoints_by_tiers: Mapping[str, int] | None = None
    radix_max_endpoints_by_tiers: Mapping[str, int] | None = None
    cable_length_total_m: float | None = None
    node_type: str | None = None
    wired_links: TierLinks | None = None
    unwired_links: TierLinks | None = None
    too_long_links: int | None = None
    #: what the switches run: "infiniband", "spectrum-x" or "roce"
    technology: str = "infiniband"
    #: independent planes; the leaf, spine, core, link, cable and port counts include every plane
    planes: int = 1
    per_plane: PlaneCounts | None = None
    #: the spines' down:up above the pod of a three-tier tree, as built; absent at 1 (non-blocking)
    core_oversubscription: float | None = None
    #: links that leave their room, per pair of rooms (none in a design of one hall)
    room_links: Rows[RoomLink] | None = None

    def __post_init__(self):
        if self.error is None:  # a tree, or the empty one of a design without nodes: every count is there
            require(self, "fabric", ("nodes", "tiers", "leaf", "spine", "core", "links", "max_endpoints", "notes",
                                     "technology", "planes",
                                     "cables", "cables_by_length", "cables_total", "transceivers", "gpus", "placed"))

    @property
    def built(self) -> bool:
        """A tree was sized (the design has compute nodes and a switch holds them)."""
        return self.error is None and bool(self.tiers)


@view
class PerGpuBandwidth:
    """``bandwidth.per_gpu``"""
    scale_out_gbps: float
    scale_out_gbs: float
    scale_out_gbs_beyond_leaf: float
    nvlink_gbs_bidirectional: float
    nvlink_gbs_one_way: float
    #: what the fabric's technology delivers of the line rate, inside a leaf and beyond it (absent without a fabric)
    scale_out_effective_gbs: float | None = None
    scale_out_effective_gbs_beyond_leaf: float | None = None


@view
class CollectiveTime:
    """``bandwidth.collectives.all_gpus.all_reduce_ring``"""
    time_ms: float
    bus_bw_gbs: float


@view
class CollectiveSet:
    """``bandwidth.collectives.all_gpus``"""
    gpus: int
    all_reduce_ring: CollectiveTime
    all_reduce_tree: CollectiveTime
    all_reduce_hierarchical: CollectiveTime
    all_gather: CollectiveTime
    reduce_scatter: CollectiveTime
    all_to_all: CollectiveTime


@view
class Collectives:
    """``bandwidth.collectives``"""
    all_gpus: CollectiveSet | None = None
    one_nvlink_domain: CollectiveSet | None = None


@view
class CollectiveAssumptions:
    """``bandwidth.collective_assumptions``"""
    alpha_nvlink_us: float
    alpha_network_us: float
    efficiency: str


@view
class FabricTechnology:
    """``bandwidth.technology``: the fabric technology's achievable share of the line rate and latency per hop,
    each figure with its source and evidence mark (designer/fabric/technology.py)"""
    name: str
    label: str
    planes: int
    routing: str
    link_efficiency: float
    load_balance_beyond_leaf: float
    efficiency_within_leaf: float
    efficiency_beyond_leaf: float
    switch_hops_beyond_leaf: int
    switch_latency_us: float
    extra_step_latency_us: float
    figures: Mapping[str, Mapping]
    claims: tuple[Mapping, ...]


@view
class BandwidthView:
    """``bandwidth``: per-GPU and bisection bandwidth and collective times; ``status`` and ``error`` alone
    when the fabric engine found no tree to stand on."""
    status: str | None = None
    error: str | None = None
    gpus: int | None = None
    nvlink_domain_gpus: int | None = None
    per_gpu: PerGpuBandwidth | None = None
    nvlink_domain_tbs_bidirectional: float | None = None
    bisection_tbps: float | None = None
    bisection_tbps_non_blocking: float | None = None
    oversubscription: float | None = None
    message_bytes: int | None = None
    collectives: Collectives | None = None
    collective_assumptions: CollectiveAssumptions | None = None
    #: absent when there is no compute fabric to stand on
    technology: FabricTechnology | None = None
    #: with spines oversubscribed above the pod (a three-tier tree at a core ratio above 1); absent otherwise
    bisection_tbps_across_pods: float | None = None
    bisection_tbps_within_pod: float | None = None
    oversubscription_across_pods: float | None = None

    def __post_init__(self):
        if self.status != "error":
            require(self, "bandwidth", ("gpus", "nvlink_domain_gpus", "per_gpu", "nvlink_domain_tbs_bidirectional",
                                        "bisection_tbps", "bisection_tbps_non_blocking", "oversubscription",
                                        "message_bytes", "collectives"))
