"""Compute time of one transformer layer for one micro-batch on one GPU (vectorised over plans).

Every GEMM of the layer is timed at its own shape (efficiency.gemm_time), the
attention core with the attention model, element-wise kernels as HBM traffic.
Backward GEMMs (dgrad + wgrad) are two GEMMs of the forward's size. Recompute
repeats the forward (full) or, without FlashAttention, the attention core
(selective; Korthikanti 2022). Returned times are arrays over plans.
"""
from __future__ import annotations

import numpy as np

from .efficiency import Generation, attention_efficiency, gemm_time
from .models import ModelSpec

#: Element-wise HBM bytes per token per layer in the forward pass, in units of h:
#: two norms (read+write h, 2 B), two residual adds with dropout (read 2h, write h)
#: ⇒ 4+4+6+6 = 20 h bytes. Backward moves about twice that.
NORM_RESIDUAL_BYTES_PER_H = 20.0
#: Unfused softmax + dropout over the a·s scores of a token: write scores, read,
#: write probabilities, mask, dropout output ⇒ ≈11 bytes per score (Korthikanti's 5as
#: stored bytes plus the reads).
UNFUSED_SOFTMAX_BYTES = 11.0
#: FP8 casts: read 2 B, write 1 B per element of every GEMM input.
FP8_CAST_BYTES = 3.0


def layer_times(m: ModelSpec, c: dict, peak: float, hbm: float, gen: Generation, precision: str, flash: bool):
    """Per-layer, per-micro-batch seconds on one GPU: dict of arrays
    ``fwd`` (GEMMs+attention+element-wise), ``bwd``, ``recompute``, ``gemm_fwd``, ``attn_fwd``,
    plus ``logits`` (fwd+bwd of the output layer, last stage only)."""
    t, cp, ep, b = c["tp"].astype(float), c["cp"].astype(float), c["ep"].astype(float), c["b"].astype(float)
    sp = (c["sp"] > 0) & (c["tp"] > 1)
    h, f, dh, a, g, V, s = m.hidden, m.ffn_hidden, m.head_dim, m.heads, m.kv_heads, m.vocab, m.seq
    T = b * s / cp  # tokens of the micro-batch this GPU holds
    ceil = gen.ceiling_fp8 if precision == "fp8" else gen.ceiling_bf16
    pk = peak
    eb = 1.0 if precision == "fp8" else 2.0

    def gemm(mm, nn, kk, reps=1.0):
        return gemm_time(2.0 * mm * nn * kk * reps, mm, nn, kk, pk, hbm, gen, ceil, eb)

    kv_per_gpu = np.maximum(g / t, 1.0)
    qkv = gemm(T, h / t + 2 * dh * kv_per_gpu, h)
    proj = gemm(T, h, h / t)
    up_n = f * (m.mlp_mats - 1) / t
    if m.moe:
        experts_here = m.experts / ep
        tok_per_expert = T * m.top_k / experts_here
        mlp = gemm(tok_per_expert, up_n, h, experts_here) + gemm(tok_per_expert, h, f / t, experts_here)
    else:
        mlp = gemm(T, up_n, h) + gemm(T, h, f / t)
    gemm_fwd = qkv + proj + mlp

    # attention core: F_fwd = 4·T·s·h/t (full s²); causal flash does half of it; FA's
    # backward is 2.5× its forward (FA2 paper accounting), unfused backward 2×.
    attn_f = 4.0 * T * s * a * dh / t
    bf16_peak = peak / 2 if precision == "fp8" else peak  # attention stays in BF16
    eff = attention_efficiency(gen, dh, s / cp, flash)
    if flash:
        attn_fwd = 0.5 * attn_f / (bf16_peak * eff)
        attn_bwd = 2.5 * attn_fwd
        softmax_fwd = 0.0
    else:
        attn_fwd = attn_f / (bf16_peak * eff)
        attn_bwd = 2.0 * attn_fwd
        softmax_fwd = UNFUSED_SOFTMAX_BYTES * a * T * s / t / (hbm * gen.hbm_eff)

    norm_div = np.where(sp, t, 1.0)
    ew_bytes = T * (NORM_RESIDUAL_BYTES_PER_H * h / norm_div + 2 * m.mlp_mats * f * m.top_k / t)
    if m.moe:
        ew_bytes = ew_bytes + T * m.top_k * h * 2 * 4  # permute / unpermute of routed tokens
    if precision == "fp8":
        ew_bytes = ew_bytes + T * FP8_CAST_BYTES * (2 * h + h / t + f * m.top_k / t)
    ew_fwd = ew_bytes / (hbm * gen.hbm_eff)

    fwd = gemm_fwd + attn_fwd + softmax_fwd + ew_fwd
    bwd = 2.0 * gemm_fwd + attn_bwd + 2.0 * softmax_fwd + 2.0 * ew_fwd
    rc = c["rc"]
    recompute = np.where(rc == 2, fwd, np.where((rc == 1) & (not flash), attn_fwd + softmax_fwd, 0.0))
    logits = 3.0 * gemm(T, V / t, h) + T * V / t * 4 * 3 / (hbm * gen.hbm_eff)  # fp32 softmax-CE traffic
    return {"fwd": fwd, "bwd": bwd, "recompute": recompute, "gemm_fwd": gemm_fwd, "attn_fwd": attn_fwd,
            "attn_total": attn_fwd + attn_bwd, "logits": logits}
