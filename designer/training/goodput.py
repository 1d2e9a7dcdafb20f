"""Goodput under failures: job MTBF, checkpoint cost, Young/Daly optimal interval, ETTR.

Failures are exponential and independent per GPU, so the job's MTBF is the per-GPU
MTBF divided by the GPU count (reference §2.6). The default per-GPU figure is
Llama 3's: 419 unexpected interruptions in 54 days on 16,384 H100 (≈5.1×10⁴
GPU-hours each). Checkpoints hold ≈14 bytes per parameter (fp32 Adam moments 8,
fp32 + BF16 weights 6: BLOOM's 2.3 TB for 176B, reference §2.4).
"""
from __future__ import annotations

import math

import numpy as np

CHECKPOINT_BYTES_PER_PARAM = 14.0


def young_interval(delta_s: float, mtbf_s: float) -> float:
    """Young (1974): τ = sqrt(2·δ·M)."""
    return math.sqrt(2.0 * delta_s * mtbf_s)


def daly_interval(delta_s, mtbf_s):
    """Daly (2006) eq. 37: τ = sqrt(2δM)·[1 + ⅓·sqrt(δ/2M) + (1/9)·(δ/2M)] − δ for δ < 2M, else M."""
    d, m = np.asarray(delta_s, dtype=float), np.asarray(mtbf_s, dtype=float)
    x = d / (2 * m)
    tau = np.sqrt(2 * d * m) * (1 + np.sqrt(x) / 3 + x / 9) - d
    out = np.where(d < 2 * m, tau, m)
    return float(out) if out.ndim == 0 else out


def ettr(tau_s, delta_s, restart_s, mtbf_s):
    """Effective training time ratio = solve time / expected wall time, Daly's model:
    T_w = M·e^{R/M}·(e^{(τ+δ)/M} − 1)·T_s/τ."""
    tau, d, r, m = (np.asarray(x, dtype=float) for x in (tau_s, delta_s, restart_s, mtbf_s))
    wall_per_solve = m * np.exp(r / m) * np.expm1((tau + d) / m) / tau
    out = 1.0 / wall_per_solve
    return float(out) if out.ndim == 0 else out


def goodput(params: float, gpus: int, training) -> dict:
    mtbf_s = training.gpu_mtbf_hours * 3600.0 / gpus
    delta = params * CHECKPOINT_BYTES_PER_PARAM / (gpus * training.checkpoint_gbs_per_gpu * 1e9)
    tau = daly_interval(delta, mtbf_s)
    ratio = ettr(tau, delta, training.restart_s, mtbf_s)
    return {"job_mtbf_h": mtbf_s / 3600, "checkpoint_s": delta, "checkpoint_interval_s": tau,
            "young_interval_s": young_interval(delta, mtbf_s), "restart_s": training.restart_s,
            "failures_per_day": 86400.0 / mtbf_s, "ettr": ratio,
            "checkpoint_tb": params * CHECKPOINT_BYTES_PER_PARAM / 1e12}
