"""The cooling engine: heat to liquid and to air, coolant flow, CDU loops, the room's air and the facility water.

Pure functions of a project snapshot and the catalog (numpy, no Qt):

* :mod:`.engine` — :func:`analyze_cooling`, the engine of ``analyze``: heat per rack split between cold
  plates and air, coolant and air flow, CDU loops and their redundancy, and the unit conversions;
* :mod:`.air` — the air side: each rack's air limit and its remedy, the room's air handlers, inlet classes;
* :mod:`.liquid` — the liquid side above the CDUs: facility water class, approach, secondary supply.
"""
from .air import air_remedy
from .engine import (AIR_CP, AIR_DENSITY, KW_PER_TON, W_TO_BTU_H, CoolingResult, air_cfm_for_kw, analyze_cooling,
                     coolant_lpm_per_kw, heat_units)
from .liquid import loop_temperatures

__all__ = [
    "AIR_CP",
    "AIR_DENSITY",
    "KW_PER_TON",
    "W_TO_BTU_H",
    "CoolingResult",
    "air_cfm_for_kw",
    "air_remedy",
    "analyze_cooling",
    "coolant_lpm_per_kw",
    "heat_units",
    "loop_temperatures",
]
