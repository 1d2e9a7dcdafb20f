"""Site derating of the plant: what a generator and a UPS deliver at the site's altitude and ambient, against their
nameplate rating at standard conditions.

- Generators (diesel engine and alternator): full output up to 1,525 m and 40 °C; above, 4 % less per 300 m of
  altitude and 2 % less per 11 °C of ambient (Cummins' published derating for its data-centre engines, as
  quoted by its licensee Chongqing Cummins: aosif.com/i/4-5.html, [S]). Other makers derate from 1,000 m
  (Wacker Neuson: 3 % per 500 m above 1,000 m, 3 % per 5 °C above 40 °C; Atlas Copco QAS 500: 90 % at 45 °C),
  so a site near those limits should use its generator's own datasheet: the factor is the user's to override
  through the unit rating.
- UPS (static double conversion): IEC 62040-3 states its normal service conditions up to 1,000 m; above, power
  electronics is derated 1 % per 100 m (ABB's converter technical data, applied here to a UPS: [U]). A UPS
  stands in a conditioned room, so the outdoor ambient does not derate it.
"""
from __future__ import annotations

GENERATOR_FULL_ALTITUDE_M = 1525.0
GENERATOR_ALTITUDE_STEP_M, GENERATOR_ALTITUDE_LOSS = 300.0, 0.04
GENERATOR_FULL_AMBIENT_C = 40.0
GENERATOR_AMBIENT_STEP_C, GENERATOR_AMBIENT_LOSS = 11.0, 0.02
UPS_FULL_ALTITUDE_M = 1000.0
UPS_ALTITUDE_STEP_M, UPS_ALTITUDE_LOSS = 100.0, 0.01
#: no plant is taken to deliver less than this share of its rating (the curves are not published beyond)
FLOOR = 0.5


def generator_factor(altitude_m: float, ambient_c: float | None) -> float:
    """The share of its rating a generator delivers at the site (1.0 at or below 1,525 m and 40 °C)."""
    alt = max(0.0, altitude_m - GENERATOR_FULL_ALTITUDE_M) / GENERATOR_ALTITUDE_STEP_M * GENERATOR_ALTITUDE_LOSS
    hot = 0.0 if ambient_c is None else \
        max(0.0, ambient_c - GENERATOR_FULL_AMBIENT_C) / GENERATOR_AMBIENT_STEP_C * GENERATOR_AMBIENT_LOSS
    return max(FLOOR, (1.0 - alt) * (1.0 - hot))


def ups_factor(altitude_m: float) -> float:
    """The share of its rating a UPS delivers at the site's altitude (1.0 at or below 1,000 m)."""
    return max(FLOOR, 1.0 - max(0.0, altitude_m - UPS_FULL_ALTITUDE_M) / UPS_ALTITUDE_STEP_M * UPS_ALTITUDE_LOSS)
