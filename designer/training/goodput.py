"""Goodput under failures: job MTBF, checkpoint cost, Young/Daly optimal interval, ETTR.

Failures are exponential and independent, so the job's MTBF is the per-GPU MTBF divided by the GPU
count (reference §2.6); a design gives its own per-GPU figure from its GPUs, hosts, links and switches
(:mod:`.failures`). Checkpoints hold ≈14 bytes per parameter (fp32 Adam moments 8, fp32 + BF16 weights
6: BLOOM's 2.3 TB for 176B, reference §2.4), sharded: every GPU writes its share at once, so a write
takes the checkpoint's size over the storage's write GB/s, and a restore its size over the read GB/s.

A synchronous save stops training for the write; an asynchronous one (the software's
``async_checkpoint``) only for the copy of each GPU's shard to host memory, while the write runs in the
background. The next checkpoint cannot start before that write ends, and a failure during it loses the
interval before too, so the write still costs time through the interval and the work redone.
Both pay a fixed pause to plan, stage and synchronise: PyTorch DCP's fastest path blocked training
0.78 s for Llama 3 70B on 1,856 H200 (PyTorch blog, 2025-04-30), of which the copy of 0.53 GB per GPU
over the host link is 0.01 s.
"""
from __future__ import annotations

import math

import numpy as np

CHECKPOINT_BYTES_PER_PARAM = 14.0
#: The least ETTR given: a job failing far more often than a restart takes does no work; a floor keeps its wall
#: time a (vast) finite figure that the ETTR finding explains, rather than a division by zero.
MIN_ETTR = 1e-6


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
    with np.errstate(over="ignore"):  # failures far more often than a restart takes: no work gets done
        wall_per_solve = m * np.exp(r / m) * np.expm1((tau + d) / m) / tau
    out = np.maximum(1.0 / wall_per_solve, MIN_ETTR)
    return float(out) if out.ndim == 0 else out


#: The fixed pause of a checkpoint (plan, stage, barrier), s: 0.78 s measured less its copy (above).
CHECKPOINT_PAUSE_S = 0.77
#: GPU to host copy, GB/s: a PCIe Gen5 x16 link's 64 GB/s each way (GB200's NVLink-C2C is faster; the
#: PCIe figure is the conservative one).
HOST_COPY_GBS = 64.0


def interval_and_ettr(mtbf_s: float, blocking_s: float, write_s: float, restart_s: float,
                      asynchronous: bool, fixed_s: float | None = None) -> tuple[float, float]:
    """(checkpoint interval, ETTR) of a job whose failures come every ``mtbf_s``: Daly's interval for the
    ``blocking_s`` pause, or ``fixed_s`` when the job is run with a stated one; an asynchronous save cannot start
    before the last write ended, and a failure during it loses that write too, so it costs the restart its
    ``write_s``."""
    tau = daly_interval(blocking_s, mtbf_s) if fixed_s is None else float(fixed_s)
    if asynchronous:
        tau = max(tau, write_s)
        return tau, ettr(tau, blocking_s, restart_s + write_s, mtbf_s)
    return tau, ettr(tau, blocking_s, restart_s, mtbf_s)


def goodput(params: float, gpus: int, training) -> dict:
    """Checkpoint and failure figures of one plan's job on ``gpus`` GPUs; the storage and failure rates
    come from ``training`` (per GPU, so a slice of a design keeps its storage and parts per GPU)."""
    mtbf_s = training.gpu_mtbf_hours * 3600.0 / gpus
    size = params * CHECKPOINT_BYTES_PER_PARAM
    write_gbs = gpus * training.checkpoint_gbs_per_gpu
    read_gbs = gpus * (training.restore_gbs_per_gpu or training.checkpoint_gbs_per_gpu)
    sharded = training.software.checkpoint_sharded
    if not sharded:  # one consolidated file through one host's storage links, both ways
        host = training.host_storage_gbs or 8 * training.checkpoint_gbs_per_gpu
        write_gbs, read_gbs = min(write_gbs, host), min(read_gbs, host)
    write_s = size / (write_gbs * 1e9)
    restore_s = size / (read_gbs * 1e9)
    restart = training.restart_s + restore_s
    asynchronous = training.software.async_checkpoint
    if asynchronous:
        blocking = CHECKPOINT_PAUSE_S + size / gpus / (HOST_COPY_GBS * 1e9)
    else:
        blocking = CHECKPOINT_PAUSE_S + write_s
    stated = training.checkpoint_interval_s
    tau, ratio = interval_and_ettr(mtbf_s, blocking, write_s, restart, asynchronous, stated)
    # what checkpointing costs: the pauses and the work redone since the last one; restarts excluded
    # (with instant checkpoints the ratio would be e^(-R/M), Daly's limit)
    # in logarithms: restarts far longer than the MTBF overflow e^(R/M) while the product stays below 1
    share = max(0.0, 1.0 - math.exp(min(math.log(ratio) + restart / mtbf_s, 0.0)))
    # work redone after a failure: half of an interval and its pause on average, and with an asynchronous save the
    # write in flight, whose checkpoint is not yet there to restart from
    lost = (tau + blocking) / 2 + (write_s if asynchronous else 0.0)
    return {"job_mtbf_h": mtbf_s / 3600, "checkpoint_s": write_s, "checkpoint_blocking_s": blocking,
            "checkpoint_interval_s": tau, "young_interval_s": young_interval(blocking, mtbf_s),
            "restart_s": restart, "restore_s": restore_s, "failures_per_day": 86400.0 / mtbf_s, "ettr": ratio,
            "checkpoint_tb": size / 1e12, "checkpoint_share": share, "write_gb_s": write_gbs,
            "read_gb_s": read_gbs, "async_checkpoint": asynchronous, "sharded": sharded,
            "lost_work_per_failure_s": lost, "interval_stated": stated is not None and tau == stated}
