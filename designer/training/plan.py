"""Training settings and parallelism plans, scalar and as numpy columns for the search.

The engine evaluates plans as columns (one array per field), so one call scores one
plan or a hundred thousand at the same cost per plan."""
from __future__ import annotations

import math

from dataclasses import dataclass, fields

import numpy as np

from .errors import TrainingError
from .software import DEFAULT_PROFILE, PROFILES, Software

#: none; selective (Megatron: rerun the attention core); full (rerun each layer's forward);
#: op (PyTorch per-op selective checkpointing as torchtitan ships it: keep every other
#: matmul's output and the attention output, rerun the rest of the forward); partial (full
#: recompute of only as many of a stage's layers as memory needs, the count solved by memory.py).
RECOMPUTE = ("none", "selective", "full", "op", "partial")
#: What moves to host memory (offload.py): nothing; the optimizer state, stepped on the CPU (Megatron-Core's
#: ``--optimizer-cpu-offload``, DeepSpeed's ZeRO-Offload); the activations of as many layers as memory needs,
#: sent out in the forward and read back in the backward (Megatron-Core's ``--cpu-offloading-num-layers``);
#: or both. The column holds the index: bit 1 the optimizer, bit 2 the activations.
OFFLOAD = ("none", "optimizer", "activations", "both")


@dataclass(frozen=True)
class Training:
    global_batch: int  # sequences per step
    tokens: float = 15e12  # token budget to train
    precision: str = "bf16"  # bf16 | fp8 | fp4 (NVFP4: a published recipe, not production-proven)
    #: Software the throughput assumes (software.py): today's NeMo/Megatron-Core unless given.
    software: Software = PROFILES[DEFAULT_PROFILE]
    #: Bytes per gradient element held (4 = Megatron's fp32 main-grad accumulation).
    grad_bytes: int = 4
    #: Checkpoint write bandwidth per GPU, GB/s. BLOOM wrote 2.3 TB in ≈40 s from 384
    #: A100s = 0.15 GB/s per GPU (reference §3.2 G2).
    checkpoint_gbs_per_gpu: float = 0.15
    #: Restore (checkpoint read) bandwidth per GPU after a failure, GB/s; None: the write figure.
    restore_gbs_per_gpu: float | None = None
    #: What one host's storage ports carry, GB/s: the limit of a consolidated (unsharded) checkpoint, which one
    #: host writes. None: 8 GPUs' share of the per-GPU figure.
    host_storage_gbs: float | None = None
    #: Mean hours between unexpected interruptions per GPU: Llama 3 saw 419 in 54 days
    #: on 16,384 H100s ⇒ ≈5.1×10⁴ GPU-hours each (reference §2.6, G1).
    gpu_mtbf_hours: float = 50_700.0
    #: Detect, diagnose and reschedule after a failure, before the checkpoint is read back: MegaScale's
    #: "less than 10 minutes" (NSDI 2024 §6.3); the read itself is charged from the storage's read rate.
    restart_s: float = 600.0
    #: A checkpoint interval the job is run with, s; None: Daly's optimal interval for the job's failure rate.
    checkpoint_interval_s: float | None = None
    electricity_per_kwh: float = 0.08
    pue: float = 1.25
    amortization_years: float = 4.0

    def validate(self) -> "Training":
        if not isinstance(self.global_batch, int) or self.global_batch <= 0:
            raise TrainingError(f"global batch must be a positive integer of sequences, got {self.global_batch!r}")
        if self.global_batch > 2**40:
            raise TrainingError(f"global batch of {self.global_batch} sequences is beyond any training run")
        if not self.tokens or not math.isfinite(self.tokens) or self.tokens <= 0:
            raise TrainingError(f"token budget must be positive, got {self.tokens!r}")
        if self.precision not in ("bf16", "fp8", "fp4"):
            raise TrainingError(f"precision must be bf16, fp8 or fp4, got {self.precision!r}")
        if self.precision in ("fp8", "fp4") and self.software.fp8 == "none":
            raise TrainingError(f"software {self.software.name} has no {self.precision.upper()} training; use "
                                f"--precision bf16 or a newer --software profile")
        self.software.validate()
        return self


@dataclass(frozen=True)
class Plan:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    micro_batch: int = 1
    virtual_stages: int = 1
    recompute: str = "selective"
    sequence_parallel: bool = True  # used when tp > 1
    zero: int = 1  # 0 plain DP, 1 distributed optimizer, 2 + grads, 3 FSDP (+ weights)
    #: hybrid sharding (HSDP): shard the ZeRO state inside an NVLink domain, replicate across
    hybrid_shard: bool = False
    #: what the plan keeps in host memory (OFFLOAD)
    offload: str = "none"
    #: expert tensor parallelism (Megatron-Core's ``--expert-tensor-parallel-size``, "MoE parallel folding"):
    #: how many GPUs split each expert's FFN, independent of the attention's TP; 0 = the same as TP, the
    #: layout before folding. The expert grid ETP × EP × expert-DP folds over the same TP × CP × DP GPUs.
    expert_tp: int = 0

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp * self.cp

    @property
    def etp(self) -> int:
        """The expert tensor parallelism the plan runs at (TP unless folded)."""
        return self.expert_tp or self.tp

    def to_json(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["expert_tp"] = self.etp
        return out


PLAN_COLUMNS = ("tp", "pp", "dp", "cp", "ep", "b", "v", "rc", "sp", "zero", "hs", "off", "etp")


def expert_tp(c: dict) -> np.ndarray:
    """The columns' expert tensor parallelism (column ``etp``; TP where the columns predate it)."""
    return c["etp"] if "etp" in c else c["tp"]


def columns(plans: list[Plan]) -> dict[str, np.ndarray]:
    """Plans as int64 columns (recompute as 0/1/2, sequence parallel as 0/1)."""
    for pl in plans:
        if pl.recompute not in RECOMPUTE:
            raise TrainingError(f"recompute must be one of {', '.join(RECOMPUTE)}, got {pl.recompute!r}")
        if pl.offload not in OFFLOAD:
            raise TrainingError(f"offload must be one of {', '.join(OFFLOAD)}, got {pl.offload!r}")
    rows = [(p.tp, p.pp, p.dp, p.cp, p.ep, p.micro_batch, p.virtual_stages, RECOMPUTE.index(p.recompute),
             int(p.sequence_parallel), p.zero, int(p.hybrid_shard), OFFLOAD.index(p.offload), p.etp) for p in plans]
    arr = np.asarray(rows, dtype=np.int64).reshape(-1, len(PLAN_COLUMNS))
    return {k: arr[:, i] for i, k in enumerate(PLAN_COLUMNS)}


def plan_at(cols: dict[str, np.ndarray], i: int) -> Plan:
    c = {k: int(v[i]) for k, v in cols.items()}
    etp = c.get("etp", c["tp"])
    return Plan(c["tp"], c["pp"], c["dp"], c["cp"], c["ep"], c["b"], c["v"], RECOMPUTE[c["rc"]], bool(c["sp"]),
                c["zero"], bool(c["hs"]), OFFLOAD[c.get("off", 0)], 0 if etp == c["tp"] else etp)
