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

``ceiling`` is the fraction of the *dense* datasheet peak that large GEMMs sustain
inside a training step, where every GPU of the node runs at its power limit. It is
the *maximum sustainable matmul FLOP/s* (MSMF: the best shape, thermally soaked,
all eight GPUs busy) over the peak, from S. Bekman's *ml-engineering* benchmarks [S]:
H200 698.6 of 989 TFLOP/s (0.706; H100 has the same die, clock and 700 W limit) and
B200 1,426.4 of 2,250 (0.634) — well below the boost-clock bursts (MAMF: 0.83 and
0.78) that marketing-style peaks and single-GEMM benchmarks see. For the A100 no
MSMF is published: its MAMF (267.9 of 312, 0.859) scaled by the 1,305 MHz clock
NVIDIA rates it to sustain at its power limit against 1,410 MHz boost (HPL Rpeak;
G. Lockwood, "peak FLOPS") [V] gives 0.795. Nothing is fitted to the published runs:
validation.py shows every row these figures must explain together. Training GEMMs
are not the best shape: tile_utilisation() and the K-loop overhead charge for that.

FP8: at boost clocks FP8 GEMMs reach 1.83× BF16 on H200 and 1.97× on B200 (MAMF
tables) [S], but they draw more power under the same cap and training runs gain
1.3–1.5× end to end (torchtitan: 1.28× on Llama 3.1 8B, 1.44× on 70B; reference
row 22's 45 % of FP8 peak) [V]. GEMMs are taken at 1.5× BF16 (FP8_OF_BF16), the
top of that range, since only they gain; casts and scaling are charged as HBM
traffic in compute.py [U: the sustained FP8 ratio is not published].

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

from .errors import TrainingError


@dataclass(frozen=True)
class Generation:
    ceiling_bf16: float
    #: fraction of the *FP8* dense peak that large FP8 GEMMs reach in training (see FP8 above)
    ceiling_fp8: float
    attn_flash: float  # fraction of BF16 peak, causal fused (cuDNN / FA3-class) attention fwd+bwd
    attn_flash2: float  # the same for FlashAttention-2
    sms: int  # streaming multiprocessors: the tiles one wave of a GEMM runs
    hbm_eff: float = 0.80
    ramp_s: float = 5e-6
    nvlink_busbw_eff: float = 0.78
    ib_busbw_eff: float = 0.85
    nvlink_sm_usage: float = 0.15
    ib_sm_usage: float = 0.02
    #: GPU-to-GPU spread of sustained matmul speed (one standard deviation), see straggler_factor
    speed_sigma: float = 0.0105
    #: fraction of the dense *NVFP4* peak that FP4 GEMMs reach in training (0: no FP4 tensor cores)
    ceiling_fp4: float = 0.0


#: SM counts: A100 108 (NVIDIA A100 whitepaper), H100 SXM5 132 (H100 whitepaper), B200 148
#: (CUDA device query as published in NVIDIA's Blackwell tuning guide) [S]. Ampere has no FP8.
#: Sustained matmul FLOP/s over the dense peak (see ``ceiling`` above).
SUSTAINED = {"ampere": 267.9 / 312 * 1305 / 1410, "hopper": 698.6 / 989, "blackwell": 1426.4 / 2250}
#: FP8 GEMMs: 0.75 of the BF16 ceiling on the doubled peak, i.e. 1.5× BF16 (see FP8 above).
FP8_OF_BF16 = 0.75
#: NVFP4 GEMMs (Blackwell and later): no sustained, thermally soaked FP4 GEMM rate is published. They are
#: taken at the FP8 ceiling's share of their own dense peak, times 0.75 once more: the step down from FP8
#: to FP4 is charged the same power penalty as the step from BF16 to FP8, so on a part whose FP4 peak is
#: twice its FP8 peak an FP4 GEMM runs 1.5x an FP8 one [U: an assumption, not a measurement].
FP4_OF_FP8 = 0.75


#: Spread of sustained matmul speed between GPUs of one model, from 40 measurements (8 GPUs ×
#: 5 rounds, all busy; Bekman, MSMF tables) [S]: a range of 4.5 % on H200 and 10.4 % on B200,
#: about 4.3 standard deviations for 40 samples ⇒ σ ≈ 1.05 % and 2.4 %. A100: taken as H200 [U].
SPEED_SIGMA = {"ampere": 0.045 / 4.3, "hopper": 0.045 / 4.3, "blackwell": 0.104 / 4.3}

#: Rubin: no training run, MSMF table or kernel benchmark on Rubin has been published, so nothing
#: here is measured. Its rows are Blackwell's taken as they are: the same fractions of the
#: (preliminary) datasheet peaks, the same attention fractions, spread and SM count (Rubin's SM
#: count is not in what was read). That is a derivation, not a measurement: Rubin's FP8 dense peak
#: is 4.4x its BF16 peak (17.5 vs 4 PF) where earlier parts have 2x, and whether FP8 GEMMs sustain
#: the same share of it under Rubin's power limit is unknown, so a Rubin FP8 estimate is the least
#: certain figure the estimator gives. Every Rubin estimate is reported as preliminary (hardware.py).
DERIVED_FROM = {"rubin": "blackwell"}


def _gen(name: str, attn_flash: float, attn_flash2: float, sms: int, fp8: bool, fp4: bool = False) -> Generation:
    bf16 = SUSTAINED[name]
    return Generation(ceiling_bf16=bf16, ceiling_fp8=bf16 * FP8_OF_BF16 if fp8 else bf16,
                      attn_flash=attn_flash, attn_flash2=attn_flash2, sms=sms, speed_sigma=SPEED_SIGMA[name],
                      ceiling_fp4=bf16 * FP8_OF_BF16 * FP4_OF_FP8 if fp4 else 0.0)


GENERATIONS = {
    "ampere": _gen("ampere", 0.55, 0.55, 108, fp8=False),
    "hopper": _gen("hopper", 0.50, 0.35, 132, fp8=True),
    "blackwell": _gen("blackwell", 0.50, 0.35, 148, fp8=True, fp4=True),
}
GENERATIONS.update({name: GENERATIONS[base] for name, base in DERIVED_FROM.items()})

#: Output tile shapes (rows × columns) cuBLAS/CUTLASS choose among for large BF16/FP8 GEMMs;
#: the library picks the one that leaves the fewest idle SMs in the last wave.
TILES = ((128, 128), (128, 256), (256, 128))
#: Per output tile the main loop runs K/64 steps, and the pipeline prologue (filling the
#: 3–4 shared-memory stages) and the epilogue (writing the tile) cost about two more
#: (CUTLASS multistage main loop structure) [U: order of magnitude].
K_STEP = 64
K_OVERHEAD_STEPS = 2.0


def generation(name: str) -> Generation:
    """The efficiency table of a GPU generation. An unknown one is an error, not a silent stand-in:
    borrowing another generation's table would print a figure nothing supports."""
    try:
        return GENERATIONS[str(name).lower()]
    except KeyError:
        raise TrainingError(f"no sustained-efficiency figures for GPU generation {name!r} "
                            f"(known: {', '.join(GENERATIONS)})") from None


_TM = np.array([t[0] for t in TILES], dtype=float)
_TN = np.array([t[1] for t in TILES], dtype=float)


def tile_utilisation(m, n, groups, sms: int):
    """Fraction of the SM-tile slots a (grouped) GEMM keeps busy: partial tiles at the
    matrix edges and the idle SMs of the last wave, for the best of the tile shapes."""
    m = np.maximum(np.asarray(m, dtype=float), 1.0)[..., None]
    n = np.maximum(np.asarray(n, dtype=float), 1.0)[..., None]
    g = np.asarray(groups, dtype=float)[..., None]
    tiles = g * np.ceil(m / _TM) * np.ceil(n / _TN)
    util = g * m * n / (np.ceil(tiles / sms) * (sms * _TM * _TN))
    return util.max(axis=-1)


def gemm_time(flops, m, n, k, peak_flops: float, hbm_bytes_s: float, gen: Generation, ceiling: float,
              elem_bytes: float = 2.0, groups=1.0):
    """Seconds for a GEMM of shape (m×k)·(k×n), or ``groups`` of them in one grouped kernel
    (MoE experts), with ``flops`` FLOPs in all (arrays broadcast)."""
    flops = np.asarray(flops, dtype=float)
    groups = np.asarray(groups, dtype=float)
    half = peak_flops * gen.ramp_s
    single = 2.0 * m * n * k * groups
    k_steps = np.maximum(np.asarray(k, dtype=float) / K_STEP, 1.0)
    shape = tile_utilisation(m, n, groups, gen.sms) * k_steps / (k_steps + K_OVERHEAD_STEPS)
    eff = ceiling * shape * single / (single + half)
    t_compute = flops / (peak_flops * eff)
    reps = np.where(single > 0, flops / np.maximum(single, 1.0), 0.0)
    t_memory = reps * groups * elem_bytes * (m * k + k * n + m * n) / (hbm_bytes_s * gen.hbm_eff)
    return np.maximum(t_compute, t_memory)


def attention_efficiency(gen: Generation, head_dim: int, seq_local, kernel: str):
    """Fraction of BF16 peak of the attention core, normalised at 2k local tokens.

    Short local sequences (small s, or CP splitting it) fill fewer tiles; FA2's
    measured curves rise steeply to ≈2k tokens and flatten after (capped at +15 %)."""
    s = np.asarray(seq_local, dtype=float)
    ramp = np.minimum((s / (s + 512.0)) / (2048 / 2560), 1.15)
    if kernel != "unfused":
        base = gen.attn_flash2 if kernel == "flash2" else gen.attn_flash
        return base * ramp * min(1.0, head_dim / 128) ** 0.5
    # unfused batched GEMMs of depth head_dim: a GEMM of k=head_dim runs ≈70 % of a large one
    return gen.ceiling_bf16 * 0.7 * ramp


def moe_load_factor(routed_tokens, experts: int):
    """Busiest expert's tokens over the mean, for ``routed_tokens`` token copies routed to
    ``experts`` experts by a balanced router (the all-to-all waits for the busiest rank, and
    a dropless grouped GEMM runs as long as its largest group).

    Even a perfectly balanced router sends each token independently, so expert loads are
    multinomial: the largest of E counts of mean μ is about μ + sqrt(2·μ·ln E) (the
    Gaussian extreme-value bound)."""
    mu = np.maximum(np.asarray(routed_tokens, dtype=float) / max(experts, 1), 1.0)
    return 1.0 + np.sqrt(2.0 * np.log(max(experts, 2)) / mu)


def rank_imbalance(stated: float, ep):
    """The busiest expert-parallel rank's routed tokens over the mean that a run's router leaves (``stated``,
    software.expert_imbalance), per plan: none with one rank (it runs every copy whatever their spread), and at
    most EP, every copy on one rank."""
    ep = np.asarray(ep, dtype=float)
    return np.where(ep > 1, np.minimum(float(stated), ep), 1.0)


def straggler_factor(gen: Generation, gpus):
    """How much longer a synchronous step's compute takes than one average GPU's: every
    collective waits for the slowest of ``gpus`` GPUs, whose speed is about σ·z(n) below the
    mean, z(n) the expected largest of n standard normal draws (≈ sqrt(2 ln n) less the
    usual correction). MSMF is already the mean of busy GPUs, so one GPU costs nothing."""
    n = np.maximum(np.asarray(gpus, dtype=float), 2.0)
    r = np.sqrt(2.0 * np.log(n))
    z = r - (np.log(np.log(n)) + np.log(4 * np.pi)) / (2 * r)
    return 1.0 + gen.speed_sigma * np.maximum(z, 0.0) * (np.asarray(gpus) > 1)
