"""How fast kernels and collectives really run, by operation size and GPU generation.

Why not one fudge factor: a GEMM's achieved fraction of peak rises with its size
(small GEMMs are launch/tail-bound or memory-bound; wave quantisation matters
less as tiles multiply), attention kernels run well below GEMMs, and memory-bound
element-wise kernels scale with HBM bandwidth, not FLOP/s. Each GPU generation
moves those three differently (H100 has 3.2× the A100's FLOP/s but 1.6× its HBM
bandwidth), which is why MFU fell from A100 to H100 at equal software.

GEMM time (roofline with a size ramp), per kernel:
    t = max(F / (peak · ceiling · F/(F + F½)),  bytes / (HBM · hbm_eff))
with F½ = peak · ramp_s: a fixed ≈5 µs of fill/drain per kernel (launch, first
and last wave). Calculon (Isaev et al., SC'23) ships the same idea as a step
table keyed on op size (A100: ≥128 GFLOP 0.95, ≥16 0.9, ≥1 0.6, else 0.1 of its
"matrix" peak — reference §1.1); the smooth form avoids steps in the search.

``ceiling`` is the fraction of the *dense* datasheet peak that large GEMMs reach
inside a training step. It is the product of
  • the kernel's efficiency at the power-capped sustained clock: maximum
    achievable matmul FLOP/s (cuBLAS, large square) ≈ 0.87 of peak on A100 and
    ≈ 0.80 on H100 (S. Bekman, *ml-engineering*, "MAMF" table) [S]; NVIDIA itself
    rates A100 HPL Rpeak at the 1305 MHz clock it sustains at its power limit vs
    1410 MHz boost (G. Lockwood, "peak FLOPS") [V] — the gap widens with TDP;
  • the layouts of training GEMMs (dgrad/wgrad with transposed operands, fused
    fp32 main-grad accumulation) and the host launch gaps of a real step, ≈0.8–0.85
    (Calculon's A100 table at ≥16 GFLOP × its 0.95 peak factor, reference §1.1).
The products below (ampere 0.73, hopper 0.62 bf16) are therefore the published
kernel ceilings times that training factor; they were not fitted to any one row —
validation.py shows every published row they must explain together.

FP8: Transformer Engine FP8 GEMMs reach ≈1.3–1.5× BF16 in practice, not 2×
(scaling/casting, amax bookkeeping; NeMo GPT-3 175B FP8 on H100 runs at 45 % of
FP8 peak [V, reference row 22]): ceiling_fp8 ≈ 0.55 of the FP8 peak.

Attention: FlashAttention-2 reaches ≈50–70 % of peak forward+backward on A100 and
≈35–50 % on H100 (Dao 2023, FA2 paper figs. 5–6) [S]; cuDNN/FA3 reach ≈60–75 %
on H100 (Shah et al. 2024) [S]. Frameworks of 2024+ use the cuDNN kernel.
Unfused attention (Megatron 2021–22) runs QKᵀ/AV as batched GEMMs of depth
head_dim and softmax/dropout as memory-bound kernels over a·s² elements.

Collectives: NCCL bus bandwidth ≈ 0.75–0.8 of the one-way NVLink rate for large
messages (nccl-tests on DGX A100 ≈ 230 GB/s of 300; DGX H100 ≈ 360–370 of 450)
and ≈ 0.85 of the NIC line rate across nodes [V, nccl-tests PERFORMANCE.md and
NVIDIA DGX reference results]. Overlapped communication still steals SMs:
Calculon's ``processor_usage`` is 0.15 for the NVLink tier and 0.02 for IB.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Generation:
    ceiling_bf16: float
    ceiling_fp8: float
    attn_flash: float  # fraction of BF16 peak, causal FlashAttention fwd+bwd
    hbm_eff: float = 0.80
    ramp_s: float = 5e-6
    nvlink_busbw_eff: float = 0.78
    ib_busbw_eff: float = 0.85
    nvlink_sm_usage: float = 0.15
    ib_sm_usage: float = 0.02
    latency_s: float = 10e-6  # per collective step start-up


GENERATIONS = {
    "ampere": Generation(ceiling_bf16=0.73, ceiling_fp8=0.73, attn_flash=0.55),
    "hopper": Generation(ceiling_bf16=0.62, ceiling_fp8=0.55, attn_flash=0.50),
    "blackwell": Generation(ceiling_bf16=0.62, ceiling_fp8=0.55, attn_flash=0.50),
}


def generation(name: str) -> Generation:
    return GENERATIONS.get(str(name).lower(), GENERATIONS["hopper"])


def gemm_time(flops, m, n, k, peak_flops: float, hbm_bytes_s: float, gen: Generation, ceiling: float,
              elem_bytes: float = 2.0):
    """Seconds for a GEMM of shape (m×k)·(k×n) with ``flops`` FLOPs (arrays broadcast).

    ``flops`` may exceed 2mnk when the same shape repeats (experts, heads)."""
    flops = np.asarray(flops, dtype=float)
    half = peak_flops * gen.ramp_s
    single = 2.0 * m * n * k
    eff = ceiling * single / (single + half)
    t_compute = flops / (peak_flops * eff)
    reps = np.where(single > 0, flops / np.maximum(single, 1.0), 0.0)
    t_memory = reps * elem_bytes * (m * k + k * n + m * n) / (hbm_bytes_s * gen.hbm_eff)
    return np.maximum(t_compute, t_memory)


def attention_efficiency(gen: Generation, head_dim: int, seq_local, flash: bool):
    """Fraction of BF16 peak of the attention core, normalised at 2k local tokens.

    Short local sequences (small s, or CP splitting it) fill fewer tiles; FA2's
    measured curves rise steeply to ≈2k tokens and flatten after (capped at +15 %)."""
    s = np.asarray(seq_local, dtype=float)
    ramp = np.minimum((s / (s + 512.0)) / (2048 / 2560), 1.15)
    if flash:
        return gen.attn_flash * ramp * min(1.0, head_dim / 128) ** 0.5
    # unfused batched GEMMs of depth head_dim: a GEMM of k=head_dim runs ≈70 % of a large one
    return gen.ceiling_bf16 * 0.7 * ramp
