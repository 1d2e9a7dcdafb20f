"""Typed views of the ``power`` section: the IT load by hall, row and rack, the feeds, supplies, UPS and generators.

Each class mirrors one object of the section, attribute for key; the docstring names its JSON path.
"""
from __future__ import annotations


from .base import Rows, view


@view
class PowerSettings:
    """``power.settings``"""
    pue: float
    power_factor: float
    derating: float
    failover_derating: float
    #: the design's per-GPU power cap, W (null: none): the draws below are under it
    gpu_power_cap_w: float | None


@view
class HallPower:
    """``power.halls[]``"""
    id: str
    name: str
    it_typical_kw: float
    it_max_kw: float
    capacity_kw: float | None
    headroom_kw: float | None
    facility_kw: float


@view
class RowFeed:
    """``power.rows[].feeds.A``"""
    normal_kw: float
    failover_kw: float
    peak_kw: float
    utilisation: float | None
    failover_utilisation: float | None
    phases_kw: tuple[float, ...]
    imbalance: float
    run_normal_kw: float
    run_failover_kw: float


@view
class RowFeeds:
    """``power.rows[].feeds``"""
    A: RowFeed
    B: RowFeed


@view
class RowPower:
    """``power.rows[]``"""
    hall: str
    row: str
    racks: int
    typical_kw: float
    max_kw: float
    distribution: str
    rating_a: float | None
    runs: int
    voltage_v: float | None
    capacity_kw: float | None
    failover_capacity_kw: float | None
    rating_kw: float | None
    feeds: RowFeeds


@view
class RackFeed:
    """``power.racks[].feeds.A``"""
    pdus: int
    capacity_kw: float
    normal_kw: float
    rating_kw: float
    failover_kw: float
    peak_kw: float
    phases_kw: tuple[float, ...]
    imbalance: float
    c19_needed: int
    c19_outlets: int
    c13_needed: int
    c13_outlets: int


@view
class RackFeeds:
    """``power.racks[].feeds``"""
    A: RackFeed
    B: RackFeed
    failover_kw: float
    throttled_kw: float
    inlet_lost_kw: float


@view
class RackPower:
    """``power.racks[]``"""
    id: str
    name: str
    hall: str
    row: str
    typical_kw: float
    max_kw: float
    limit_kw: float
    limit_source: str
    headroom_kw: float
    utilisation: float
    pdus: int
    inlet: str
    chain_utilisation: float | None
    peak_kw: float
    feeds: RackFeeds


@view
class SupplyGroup:
    """``power.supplies[]``"""
    type: str
    devices: int
    supplies: int
    rating_w: float
    scheme: str
    installed_kw: float
    usable_kw: float
    max_kw: float
    headroom_kw: float
    one_feed_kw: float
    unconfirmed: bool


@view
class UpsSystem:
    """``power.ups[].systems[]``"""
    name: str
    capacity_kw: float
    installed_kw: float
    normal_kw: float
    failover_kw: float
    peak_kw: float
    utilisation: float | None
    failover_utilisation: float | None
    #: the cooling equipment it carries (its share in normal operation, and with its partner lost)
    cooling_kw: float = 0.0
    cooling_failover_kw: float = 0.0
    #: what it may carry within the hall's UPS design margin (of its capacity at the site)
    margin_kw: float | None = None


@view
class UpsPlant:
    """``power.ups[]``"""
    hall: str
    scheme: str
    modules: int
    spare_modules: int
    module_kw: float
    systems: Rows[UpsSystem]
    blocks: int | None = None
    #: the hall's cooling equipment on the UPS, and the IT load the UPS carries with its redundancy kept
    cooling_on_ups_kw: float = 0.0
    it_capacity_kw: float | None = None
    #: the share of its rating it delivers at the site's altitude, and the design margin it is held to
    derating: float = 1.0
    margin: float | None = None


@view
class GeneratorPlant:
    """``power.generators[]``"""
    hall: str
    units: int
    unit_kw: float
    redundant: int
    load_kw: float
    capacity_kw: float
    installed_kw: float
    utilisation: float | None
    #: paralleled blocks, each N + ``redundant``; the share of their rating they deliver at the site; the design
    #: margin and the load it allows
    blocks: int = 1
    derating: float = 1.0
    margin: float | None = None
    margin_kw: float | None = None


@view
class PowerView:
    """``power``"""
    settings: PowerSettings
    it_typical_kw: float
    it_max_kw: float
    facility_typical_kw: float
    facility_max_kw: float
    cooling_equipment_kw: float
    halls: Rows[HallPower]
    #: the cooling equipment the halls' UPS carry, and the PUE the modelled pumps and fans alone give
    cooling_on_ups_kw: float = 0.0
    pue_cooling_floor: float | None = None
    rows: Rows[RowPower]
    racks: Rows[RackPower]
    supplies: Rows[SupplyGroup]
    ups: Rows[UpsPlant]
    generators: Rows[GeneratorPlant]
    peak_kw: float

