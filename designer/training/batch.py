"""The global batch a real run would choose when the workload gives none.

Published runs grow their tokens per step with scale, within bounds:
- at least about 4M tokens: GPT-3 175B used 3.2M (Brown et al. 2020, Table 2.1), Llama 2
  4M (Touvron et al. 2023), Llama 3 405B started at 4M (Dubey et al. 2024, §3.4.1);
- about 2,048 tokens per GPU as the cluster grows: Llama 3 405B ran 16M tokens per step
  on 8,192 H100s (Table 4: DP 64 × 32 sequences × 8,192 tokens);
- at most the batch the training compute can use without losing sample efficiency:
  DeepSeek LLM's fit of the optimal batch size to compute, B_opt = 0.292·C^0.3271 tokens
  with C in FLOPs (DeepSeek-AI 2024, arXiv 2401.02954, §3.1) — 60–70M tokens for a
  Llama-3-405B-sized run, the size of DeepSeek-V3's 15,360 × 4,096.
The sequence count is then rounded up to a multiple of one sequence per 8 GPUs (or per
NVLink domain, or a power of two when those would overshoot the bound), so that data
parallelism divides it.
"""
from __future__ import annotations

import math

#: Tokens per step floor (Llama 2 / Llama 3 start) and per-GPU share (Llama 3, 8,192 GPUs).
MIN_TOKENS = 4 * 2**20
TOKENS_PER_GPU = 2048
#: DeepSeek LLM optimal-batch fit: B = A · C^E tokens.
CRITICAL_A = 0.2920
CRITICAL_E = 0.3271


def critical_batch_tokens(model, tokens: float) -> float:
    """DeepSeek LLM's optimal batch (tokens) for a run of ``tokens`` on ``model``."""
    compute = model.model_flops_per_token() * float(tokens)
    return CRITICAL_A * compute ** CRITICAL_E


def default_global_batch(model, gpus: int, domain: int, tokens: float) -> tuple[int, str]:
    """(sequences per step, why) for ``model`` on ``gpus`` GPUs training ``tokens`` tokens."""
    cap = critical_batch_tokens(model, tokens)
    want = min(max(MIN_TOKENS, TOKENS_PER_GPU * gpus), max(cap, MIN_TOKENS))
    seqs = max(want / model.seq, 1)
    limit = max(cap, MIN_TOKENS) * 1.05 / model.seq
    # round to a multiple every data-parallel degree is likely to divide: one sequence per GPU
    # (pure data parallelism divides it), else per 8 GPUs, else per NVLink domain, else a
    # power of two — the largest that stays in bounds and within twice the target
    granules = [g for g in (gpus, gpus // 8, gpus // max(domain, 1), 256, 64, 8, 1) if g >= 1]
    for groups in granules:
        gbs = math.ceil(seqs / groups) * groups
        if (gbs <= limit and gbs <= 2.0 * seqs) or groups == 1:
            break
    if TOKENS_PER_GPU * gpus <= MIN_TOKENS or cap <= MIN_TOKENS:
        rule = "the 4M-token floor of published runs (Llama 2, Llama 3's start)"
    elif TOKENS_PER_GPU * gpus <= cap:
        rule = f"{TOKENS_PER_GPU:,} tokens per GPU, as Llama 3 405B on 8,192 H100"
    else:
        rule = f"the compute's optimal batch of {cap / 1e6:.0f}M tokens (DeepSeek LLM's fit)"
    why = (f"{gbs:,} sequences × {model.seq:,} tokens = {gbs * model.seq / 1e6:.1f}M tokens per step: {rule}, "
           f"rounded up to a multiple of {groups:,} so that data parallelism divides it")
    return int(gbs), why
