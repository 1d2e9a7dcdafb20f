"""Typed views of the ``cooling`` and ``floor`` sections: heat to liquid and air, CDU loops, floor loading.

Each class mirrors one object of the section, attribute for key; the docstring names its JSON path.
"""
from __future__ import annotations


from .base import Rows, view


@view
class CoolingSettings:
    """``cooling.settings``"""
    coolant: str
    coolant_name: str
    coolant_delta_t_k: float
    air_delta_t_k: float
    air_supply_c: float


@view
class Heat:
    """``cooling.heat``"""
    kw: float
    btu_h: float
    tons: float


@view
class AirHandlers:
    """``cooling.halls[].air_handlers``: the hall's CRAH units, when it has any on its floor"""
    units: tuple[str, ...]
    names: tuple[str, ...]
    capacity_kw: float
    capacity_n_minus_1_kw: float
    redundancy: str
    demand_cfm: float
    utilisation: float | None = None
    airflow_cfm: float | None = None
    #: the airflow left with the largest unit off (0 with a single unit)
    airflow_n_minus_1_cfm: float | None = None


@view
class HallCooling:
    """``cooling.halls[]``"""
    id: str
    name: str
    air_kw: float
    air_capacity_kw: float | None
    air_headroom_kw: float | None
    liquid_kw: float
    air_cfm: float
    inlet_class: str
    inlet_allowable_c: tuple[float, ...]
    liquid_capacity_kw: float | None = None
    liquid_headroom_kw: float | None = None
    device_inlet_max_c: float | None = None
    air_handlers: AirHandlers | None = None
    supply_c: float | None = None
    return_c: float | None = None


@view
class RowAir:
    """``cooling.rows[]``: a row's draw against the air handlers' airflow that reaches it (designer/cooling/rows.py)"""
    hall: str
    row: str
    racks: int
    containment: str
    air_kw: float
    demand_cfm: float
    delivered_cfm: float | None
    exhaust_c: float | None
    inlet_c: float | None
    #: the same with the hall's largest air handler off (None: fewer than two units, or airflow unknown)
    delivered_n_minus_1_cfm: float | None = None
    inlet_n_minus_1_c: float | None = None


@view
class FaultDomain:
    """``cooling.cdu_loops[].fault_domain``"""
    racks: int
    gpus: int
    liquid_kw: float


@view
class Plumbing:
    """``cooling.cdu_loops[].plumbing``: the liquid-cooled racks, their hoses to the loop, their trays' couplings"""
    racks: int
    rack_hoses: int
    tray_couplings: int


@view
class CduLoop:
    """``cooling.cdu_loops[]``"""
    loop: int
    units: tuple[str, ...]
    types: tuple[str, ...]
    racks: tuple[str, ...]
    load_kw: float
    capacity_kw: float
    capacity_n_minus_1_kw: float
    utilisation: float | None
    redundancy: str
    unit_lost_short_kw: float
    coolant_flow_lpm: float
    flow_capacity_lpm: float | None
    water_class: str | None
    facility_supply_c: float | None
    approach_k: float | None
    secondary_supply_c: float | None
    device_coolant_max_c: float | None
    fault_domain: FaultDomain
    plumbing: Plumbing | None = None


@view
class AirLimits:
    """``cooling.air_limits``"""
    contained_kw: float
    open_kw: float


@view
class RackCooling:
    """``cooling.racks[]``"""
    id: str
    name: str
    liquid_kw: float
    air_kw: float
    coolant_flow_lpm: float
    air_cfm: float
    containment: str
    air_limit_kw: float
    air_density: float
    cdu_loop: int | None = None
    air_remedy: str | None = None


@view
class CoolingView:
    """``cooling``"""
    settings: CoolingSettings
    basis: str
    liquid_kw: float
    air_kw: float
    heat: Heat
    liquid_heat: Heat
    air_heat: Heat
    lpm_per_kw: float
    coolant_flow_lpm: float
    coolant_flow_m3_h: float
    air_cfm: float
    air_m3_h: float
    halls: Rows[HallCooling]
    rows: Rows[RowAir]
    cdu_loops: Rows[CduLoop]
    air_limits: AirLimits
    racks: Rows[RackCooling]


@view
class RackFloor:
    """``floor.racks[]``"""
    id: str
    name: str
    weight_kg: float
    footprint_m2: float
    load_kg_m2: float
    rating_kg_m2: float
    caster_load_kg: float
    equipment_kg: float
    rack_rated_load_kg: float | None = None


@view
class RowFloor:
    """``floor.rows[]``"""
    hall: str
    row: str
    racks: int
    weight_kg: float
    length_m: float
    area_m2: float
    load_kg_m2: float
    rating_kg_m2: float


@view
class HallFloor:
    """``floor.halls[]``"""
    hall: str
    aisle_mm: float
    tile_point_kg: float | None = None
    tile_rolling_kg: float | None = None


@view
class FloorView:
    """``floor``"""
    total_weight_kg: float
    max_load_kg_m2: float
    racks: Rows[RackFloor]
    rows: Rows[RowFloor]
    halls: Rows[HallFloor]

