"""Compute time of one transformer layer for one micro-batch on one GPU (vectorised over plans).

Every GEMM of the layer is timed at its own shape (efficiency.gemm_time), the
attention core with the attention model, element-wise kernels as HBM traffic.
Backward GEMMs (dgrad + wgrad) are two GEMMs of the forward's size. Recompute
repeats the forward (full) or, without FlashAttention, the attention core
(selective; Korthikanti 2022). Returned times are arrays over plans.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .efficiency import Generation, attention_efficiency, gemm_time, moe_load_factor, rank_imbalance
from .models import ModelSpec
from .plan import expert_tp

#: Element-wise HBM bytes per token per layer in the forward pass, in units of h:
#: two norms (read+write h, 2 B), two residual adds with dropout (read 2h, write h)
#: ⇒ 4+4+6+6 = 20 h bytes. Backward moves about twice that.
NORM_RESIDUAL_BYTES_PER_H = 20.0
#: Unfused softmax + dropout over the a·s scores of a token: write scores, read,
#: write probabilities, mask, dropout output ⇒ ≈11 bytes per score (Korthikanti's 5as
#: stored bytes plus the reads).
UNFUSED_SOFTMAX_BYTES = 11.0
#: FP8 casts of every GEMM input (Transformer Engine / torchao): a fused cast-transpose
#: (read 2 B, write the FP8 copy and the transposed FP8 copy that Hopper/Blackwell FP8
#: GEMMs need for backward, 1 B each) ⇒ 4 B; scaling from the current tensor (dynamic or
#: "current" scaling) first reads it once more for its amax (2 B) ⇒ 6 B, while delayed
#: scaling takes the scale from past steps' amax history.
#: Backward casts the output gradients the same way (the ×2 of backward element-wise).
#: Weights are cast once per step (Transformer Engine caches them over micro-batches) or
#: on the shard before an FP8 all-gather (torchao): negligible beside the activations.
FP8_CAST_BYTES = 6.0
#: Unfused (eager PyTorch) element-wise kernels, per token per layer, forward:
#: an RMS/LayerNorm in fp32 as separate kernels (upcast r2h w4h, square r4h w4h, mean r4h,
#: scale r4h w4h, downcast r4h w2h, weight r2h w2h ⇒ 36h) twice, two residual adds (12h):
#: 84h bytes where fused kernels move 20h; the MLP activation as two kernels (bias/gate
#: and activation, or SiLU then multiply: r2 w2 + r2 r2 w2) moves 4 bytes more per
#: element of f. torchtitan measured the same gap: torch.compile (which fuses them) made
#: Llama 3.1 8B on 8 H100 16 % faster (5,762 → 6,667 tokens/s/GPU).
EAGER_EXTRA_BYTES_PER_H = 84.0 - NORM_RESIDUAL_BYTES_PER_H
EAGER_EXTRA_BYTES_PER_F = 4.0
#: FP4 training follows NVIDIA's published NVFP4 recipe ("Pretraining Large Language Models with NVFP4",
#: arXiv 2509.25149, 2025: a 12B model on 10T tokens on Blackwell, matching its FP8 baseline) [S: abstract
#: and summaries read]: only the linear layers' GEMMs run in NVFP4; about 16 % of the linear layers (the
#: most sensitive blocks) stay in BF16, as do attention, the output layer and the element-wise work.
#: Casts use current (per-tensor amax) scaling plus Hadamard transforms of the weight-gradient inputs: taken
#: at the FP8 current-scaling cast's bytes [U: the smaller 4-bit output and the extra transform roughly
#: cancel]. No production run has used it: estimates at FP4 say so (estimate.notes).
FP4_BF16_LAYER_SHARE = 0.16
FP4_CAST_BYTES = FP8_CAST_BYTES
ELEMENT_BYTES = {"bf16": 2.0, "fp8": 1.0, "fp4": 0.5}


class Peaks(NamedTuple):
    """Dense FLOP/s one GPU sustains at the clock it runs (a power cap lowers both alike)."""
    gemm: float  # at the training precision: what the linear layers' GEMMs run on
    bf16: float  # BF16: attention, and the layers an FP4 recipe keeps in BF16


def _gemm_times(mm, nn, kk, gg, peak: Peaks, hbm: float, gen: Generation, precision: str):
    """The layer's GEMMs (attention, MLP, shared experts; the output layer last), one call per precision."""
    ceil = {"fp8": gen.ceiling_fp8, "fp4": gen.ceiling_fp4}.get(precision, gen.ceiling_bf16)
    flops = 2.0 * mm * nn * kk * gg
    times = gemm_time(flops, mm, nn, kk, peak.gemm, hbm, gen, ceil, ELEMENT_BYTES[precision], gg)
    if precision != "fp4":
        return times[..., :-1].sum(axis=-1), times[..., -1]
    bf16 = gemm_time(flops, mm, nn, kk, peak.bf16, hbm, gen, gen.ceiling_bf16, 2.0, gg)
    share = FP4_BF16_LAYER_SHARE
    return ((1 - share) * times[..., :-1] + share * bf16[..., :-1]).sum(axis=-1), bf16[..., -1]


def attention_gemms(m: ModelSpec, T, t, one) -> list:
    """(m, n, k) of the attention's GEMMs on one of ``t`` tensor-parallel GPUs for ``T`` tokens.

    Grouped-query: the fused QKV projection and the output projection. Latent attention (MLA): the
    query and key-value down-projections to their latents (small, kept whole on every TP rank, as
    Megatron-Core's MLA does), their per-head up-projections (split by heads) and the output."""
    h, a = m.hidden, m.heads
    if not m.mla:
        kv_per_gpu = np.maximum(m.kv_heads / t, 1.0)
        return [(T, a * m.head_dim / t + 2 * m.head_dim * kv_per_gpu, h * one), (T, h * one, a * m.head_dim / t)]
    out = []
    if m.q_rank:
        out += [(T, m.q_rank * one, h * one), (T, a * m.qk_dim / t, m.q_rank * one)]
    else:
        out += [(T, a * m.qk_dim / t, h * one)]
    out += [(T, (m.kv_rank + m.rope_dim) * one, h * one), (T, a * (m.head_dim + m.v_dim) / t, m.kv_rank * one),
            (T, h * one, a * m.v_dim / t)]
    return out


def layer_times(m: ModelSpec, c: dict, peak: Peaks, hbm: float, gen: Generation, precision: str, sw):
    """Per-layer, per-micro-batch seconds on one GPU: dict of arrays
    ``fwd`` (GEMMs+attention+element-wise), ``bwd``, ``recompute``, ``gemm_fwd``, ``attn_fwd``,
    plus ``logits`` (fwd+bwd of the output layer, last stage only). A model with experts is timed at an
    expert layer (its first dense layers are no heavier: DeepSeek-V3 sizes them alike)."""
    t, cp, ep, b = c["tp"].astype(float), c["cp"].astype(float), c["ep"].astype(float), c["b"].astype(float)
    sp = (c["sp"] > 0) & (c["tp"] > 1)
    h, V, s = m.hidden, m.vocab, m.seq
    f = m.expert_ffn if m.moe else m.ffn_hidden
    T = b * s / cp  # tokens of the micro-batch this GPU holds
    flash = sw.flash

    one = np.ones_like(T)
    up_n = f * (m.mlp_mats - 1) / t
    u = expert_tp(c).astype(float) if m.moe else t  # GPUs splitting one expert's FFN
    if m.moe:
        # grouped GEMM over the local experts; the rank waits for its busiest expert. Each GPU routes the T/t
        # tokens sequence parallelism leaves it (Megatron-Core requires SP with TP and experts); the expert-TP
        # group gathers its u members' copies, each member running 1/u of every local expert's FFN
        experts_here = m.experts / ep
        copies = T / t * u * m.top_k
        # the busiest expert's load under a balancing router's random spread, or, when larger, the imbalance the
        # run's router leaves between expert-parallel ranks (rank_imbalance; the all-to-all and the memory charge
        # only the latter)
        tok = copies / experts_here * np.maximum(moe_load_factor(copies * ep, m.experts),
                                                 rank_imbalance(sw.expert_imbalance, ep))
        groups = experts_here * one
        up_n = f * (m.mlp_mats - 1) / u
    else:
        tok, groups = T, one
    # the layer's GEMMs side by side (attention, MLP up, MLP down, shared experts, output layer), one call
    shapes = attention_gemms(m, T, t, one) + [(tok, up_n * one, h * one), (tok, h * one, f / u)]
    grouped = [one] * (len(shapes) - 2) + [groups, groups]
    if m.shared_experts:
        wide = m.shared_experts * f
        shapes += [(T, wide * (m.mlp_mats - 1) / t, h * one), (T, h * one, wide / t)]
        grouped += [one, one]
    shapes.append((T, V / t, h * one))
    grouped.append(one)
    mm, nn, kk = (np.stack([np.broadcast_to(x[i], T.shape) for x in shapes], axis=-1) for i in range(3))
    gg = np.stack(grouped, axis=-1)
    gemm_fwd, logits_gemm = _gemm_times(mm, nn, kk, gg, peak, hbm, gen, precision)

    # attention core: F_fwd = 2·T·s·heads·(qk + v)/t (full s²; 4·T·s·h/t for a GPT); causal flash does
    # half of it; FA's backward is 2.5× its forward (FA2 paper accounting), unfused backward 2×.
    a = m.heads
    attn_f = T * m.attention_core_flops_per_token() / t
    bf16_peak = peak.bf16  # attention stays in BF16 (Rubin's FP8 peak is 4.4x its BF16, not 2x)
    eff = attention_efficiency(gen, m.qk_dim, s / cp, sw.attention)
    if flash:
        attn_fwd = 0.5 * attn_f / (bf16_peak * eff)
        attn_bwd = 2.5 * attn_fwd
        softmax_fwd = 0.0
    else:
        attn_fwd = attn_f / (bf16_peak * eff)
        attn_bwd = 2.0 * attn_fwd
        softmax_fwd = UNFUSED_SOFTMAX_BYTES * a * T * s / t / (hbm * gen.hbm_eff)

    norm_div = np.where(sp, t, 1.0)
    fk = f * (m.experts_per_token if m.moe else 1)  # FFN elements a token's MLPs produce
    ew_bytes = T * (NORM_RESIDUAL_BYTES_PER_H * h / norm_div + 2 * m.mlp_mats * fk / t)
    if not sw.fused_kernels:
        ew_bytes = ew_bytes + T * (EAGER_EXTRA_BYTES_PER_H * h / norm_div + EAGER_EXTRA_BYTES_PER_F * fk / t)
    if m.moe:
        ew_bytes = ew_bytes + T / t * u * m.top_k * h * 2 * 4  # permute / unpermute of the routed copies held
    # GEMM inputs cast per token: the attention's and the MLP's (each routed copy), the projection's
    cast_in = 2 * h + h / t + fk / t
    if precision == "fp4":
        ew_bytes = ew_bytes + T * FP4_CAST_BYTES * cast_in
    elif precision == "fp8":
        cast = FP8_CAST_BYTES if sw.fp8 == "dynamic" else FP8_CAST_BYTES - 2.0
        ew_bytes = ew_bytes + T * cast * cast_in
    ew_fwd = ew_bytes / (hbm * gen.hbm_eff)

    fwd = gemm_fwd + attn_fwd + softmax_fwd + ew_fwd
    bwd = 2.0 * gemm_fwd + attn_bwd + 2.0 * softmax_fwd + 2.0 * ew_fwd
    rc = c["rc"]
    recompute = np.where(rc == 2, fwd, np.where((rc == 1) & (not flash), attn_fwd + softmax_fwd, 0.0))
    # per-op selective: every other matmul and the element-wise kernels run again
    recompute = np.where(rc == 3, 0.5 * gemm_fwd + ew_fwd, recompute)
    logits = 3.0 * logits_gemm + T * V / t * 4 * 3 / (hbm * gen.hbm_eff)  # fp32 softmax-CE traffic
    return {"fwd": fwd, "bwd": bwd, "recompute": recompute, "gemm_fwd": gemm_fwd, "attn_fwd": attn_fwd,
            "attn_total": attn_fwd + attn_bwd, "logits": logits}
