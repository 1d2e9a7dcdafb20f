"""A GPU power cap (``nvidia-smi -pl``): what it does to the sustained clock and to a system's draw.

One model, used by the training estimate (the clock) and the power engine (the draw), so the two never
disagree about the same cap.

Clock. A capped GPU holds its draw at the cap by lowering its clock and, with it, its voltage (DVFS).
CMOS dynamic power is α·C·V²·f and across the DVFS range V rises roughly linearly with f, so dynamic
power goes as f^k with k near 3; leakage, HBM, NVLink and I/O power hardly move with the SM clock.
Hence ``P(f) = P_static + (P_tdp - P_static)·(f / f_tdp)^k`` and a cap below TDP runs at
``f / f_tdp = ((cap - P_static) / (P_tdp - P_static))^(1/k)``, f_tdp being the clock the GPU sustains at
its TDP (the clock the efficiency tables' MSMF figures were measured at, training/efficiency.py).

Figures. k = 2.5, the low end of the 2.5-3 range: V stops falling near the bottom of the range, which
makes the effective exponent smaller, and the only training-level figure found says capping costs more
than k = 3 predicts (an H100 capped at 600 W "typically loses 10 to 15 %" of transformer pre-training
step throughput; factryze.ai "Power capping", a secondary page [S], no measurement shown [U]): at 600 W
k = 3 gives a clock 6.8 % lower, k = 2.5 8.1 % (and 17.5 % at 500 W). The
static share is 0.25 of TDP [U: an assumption]: an idle H100 SXM draws about 70-100 W of its 700 W and
leakage grows with temperature under load. Ujeniya et al. measured H100/H200 DGEMM throughput and SM
clock at caps from 200 to 700 W (arXiv 2604.11391, 2026) [S: abstract read, figures not]; fitting k
and the static share to their curves is the way to firm these up. Neither is fitted to anything here.

Only compute-bound work slows by the clock ratio: HBM runs on its own clock, so memory-bound kernels
(norms, casts, optimizer) keep their speed, and NVLink/InfiniBand collectives keep theirs.

Draw. The GPUs' share of a system's maximum (gpu_count × TDP of the system's power_max_w) scales to
cap/TDP and the rest (CPUs, NICs, fans, switches, conversion) is unchanged: max' = max - n·(TDP - cap).
The typical draw scales by the same ratio max'/max, its make-up taken as the maximum's.
"""
from __future__ import annotations

import math

from .formatting import quantity

#: Exponent of the dynamic-power / clock relation (see above).
EXPONENT = 2.5
#: Share of TDP that does not scale with the SM clock (see above).
STATIC_SHARE = 0.25
#: No cap is modelled below this share of TDP: the clock there would be about half of f_tdp
#: (((0.40 - 0.25) / 0.75)^(1/2.5) = 0.53), where the voltage reaches its floor and power then falls
#: only linearly with f, outside the relation above. This is the model's floor, not the driver's
#: (nvidia-smi accepts 200 W on an H100 SXM).
FLOOR_SHARE = 0.40
#: The lowest power limit any NVIDIA data-centre GPU accepts (A100 SXM: 100 W); also the settings' floor.
FLOOR_W = 100.0


class GpuPowerError(ValueError):
    """A cap the model cannot apply to a GPU (above its TDP, or below the floor)."""


def floor_w(tdp_w: float) -> float:
    """The lowest cap modelled for a GPU of ``tdp_w``."""
    return max(FLOOR_W, math.ceil(FLOOR_SHARE * tdp_w))


def check_cap(cap_w: float | None, tdp_w: float, gpu: str) -> None:
    """Raise GpuPowerError when ``cap_w`` cannot be applied to ``gpu`` (None: no cap, always fine)."""
    if cap_w is None:
        return
    if not math.isfinite(cap_w) or cap_w > tdp_w:
        raise GpuPowerError(f"a GPU power cap of {quantity(cap_w, 'W')} is above the {gpu}'s "
                            f"{quantity(tdp_w, 'W')} TDP")
    if cap_w < floor_w(tdp_w):
        raise GpuPowerError(f"a GPU power cap of {quantity(cap_w, 'W')} is below the {quantity(floor_w(tdp_w), 'W')} "
                            f"floor modelled for the {gpu} ({FLOOR_SHARE:.0%} of its {quantity(tdp_w, 'W')} TDP)")


def clock_ratio(cap_w: float | None, tdp_w: float) -> float:
    """Sustained SM clock under ``cap_w`` over the clock at TDP (1 without a binding cap)."""
    if cap_w is None or not tdp_w or cap_w >= tdp_w:
        return 1.0
    static = STATIC_SHARE * tdp_w
    return ((max(cap_w, static) - static) / (tdp_w - static)) ** (1.0 / EXPONENT)


def capped_draw(typical_w: float, max_w: float, gpus: float, tdp_w: float,
                cap_w: float | None) -> tuple[float, float]:
    """(typical, max) draw of a system of ``gpus`` GPUs of ``tdp_w`` under ``cap_w`` (see Draw above)."""
    if cap_w is None or not gpus or not tdp_w or cap_w >= tdp_w or max_w <= 0:
        return typical_w, max_w
    # below the modelled floor the power engine reports the cap as an error; the draw stops at the floor, so
    # no figure rests on a cap the model itself refuses
    cap_w = max(cap_w, floor_w(tdp_w))
    new_max = max(max_w - gpus * (tdp_w - cap_w), 0.0)
    return typical_w * new_max / max_w, new_max


def gpu_name(gpu: str) -> str:
    """The GPU as people call it ("NVIDIA B200", "NVIDIA Rubin"): the ids are NVIDIA's model names in lower
    case, a model number in capitals and an architecture's name as a word."""
    name = gpu.upper() if any(ch.isdigit() for ch in gpu) else gpu.capitalize()
    return f"NVIDIA {name}"
