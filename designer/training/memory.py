"""Memory per GPU: weights, gradients, optimizer state (ZeRO/FSDP sharding) and activations.

Model states (ZeRO paper, reference §2.4), with Ψ the parameters this GPU holds
(its pipeline stage's layers / TP, experts / (ETP·EP)) and N the sharding group (DP×CP,
as Megatron's distributed optimizer):
    stage 0: (w + g + K)Ψ   1: (w + g)Ψ + KΨ/N   2: wΨ + (g + K)Ψ/N   3: (w + g + K)Ψ/N
with w = 2 (BF16 weights), g = gradient bytes (4 for Megatron's fp32 main grads),
K = 12 (fp32 master weights, Adam m and v).

Activations per layer per micro-batch (Korthikanti et al. 2022, Table 2, decomposed
so GQA, SwiGLU, MoE and FlashAttention generalise it), in units of s·b·h bytes:
attention 7 + 4·g/a (QKV input, Q, K, V, projection input, dropout mask) [+2 for the
FlashAttention output; + 5·a·s/h scores without Flash or selective recompute];
MLP 3 + 2·mats·(f/h)·top_k (input, up/gate outputs, activation output, mask); norms 4; an
expert layer also holds its routed copies, 2·top_k·ETP/t (the T/t tokens' copies, gathered over expert TP).
For GPT (g = a, f = 4h, GeLU) that is Korthikanti's 34 + 5as/h. Sequence parallelism
divides all of it by t; without SP, 10 of the 34 (norm inputs, masks, GEMM inputs)
stay replicated. Full recompute keeps only each layer's input (2 sbh, /t with SP)
plus one layer's working set. The first stage holds min(m, p) micro-batches of its
layers, ×(1 + (p−1)/(p·v)) interleaved (Korthikanti §5). CP divides s.

Partial recompute (Megatron-Core ``--recompute-method block --recompute-num-layers``,
torchtitan's per-layer checkpointing): k of a stage's layers run as full recompute, the
rest keep everything. k is not searched but solved: the fewest (a multiple of v, each
virtual chunk recomputing alike) that bring the GPU within its memory.

The allocator's share: activations are allocated and freed every micro-batch through
PyTorch's caching allocator, which splits cached blocks and cannot compact them, so part
of what it reserves is unusable. GMLake (Guo et al., ASPLOS 2024) measured that share at
15 % on average over eight LLMs' training on A100-80GB (up to 33 %) [S]; STAlloc (Huang et
al., arXiv 2507.16274) saw up to 43 % with virtual pipelines and recompute [S]. Weights,
gradients and optimizer state live in buffers allocated once (Megatron's contiguous
parameter and gradient buffers, FSDP's flat parameters) and are not charged.
"""
from __future__ import annotations

import numpy as np

from .efficiency import rank_imbalance
from .offload import HOST_OPTIMIZER_BYTES, activation_layers, modes, resident_layers
from .plan import expert_tp

#: Memory figures are in GiB: NVIDIA's "80 GB" H100 is 80 GiB (nvidia-smi: 81,559 MiB), so
#: comparing GiB with the catalog's hbm_gb is like with like.
GB = float(2**30)
#: CUDA context, NCCL buffers and library workspaces (a few GB on every run).
OVERHEAD_GB = 3.0
#: Fraction of the activation pool the caching allocator reserves but cannot use: GMLake's mean for the
#: block-splitting allocator; with expandable segments the split-block waste does not arise, and what is
#: left (2 MB pages, one pool per stream) is taken as 5 % [U: no published measurement of the residual].
ALLOCATOR_WASTE = 0.15
EXPANDABLE_WASTE = 0.05
#: The recompute modes (plan.RECOMPUTE's order): none, selective, full, op, partial.
RC_FULL, RC_OP, RC_PARTIAL = 2, 3, 4


def stage_layers(L: int, pp):
    """(layers on the fullest stage, layers on the last stage) for an even-as-possible split."""
    per = -(-L // pp)
    return per, L - (pp - 1) * per


def params_on_gpu(m, c):
    """Parameters held by the most loaded GPU (first or last stage)."""
    t, p, e = c["tp"].astype(float), c["pp"], c["ep"].astype(float)
    per, last = stage_layers(m.layers, p)
    layer = m.layer_params_dense / t + m.experts * m.expert_params / (expert_tp(c) * e)
    emb = m.vocab * m.hidden / t
    single = p == 1
    # one stage holds both embeddings; otherwise the first holds the input's and the last the output's, and
    # the last also the multi-token-prediction modules (one layer each, sharing the output layer)
    ends = np.where(single, m.embedding_params / t, emb)
    return np.maximum(per, last + m.mtp_depth) * layer + ends, layer


def model_states(m, c, grad_bytes: float, shard=None, held=None):
    """(weights, gradients, optimizer, params) bytes; ``shard`` is the ZeRO sharding group
    (DP×CP, or the NVLink-domain part of it under hybrid sharding); ``held`` is
    params_on_gpu's answer when the caller has it."""
    psi, layer = held if held is not None else params_on_gpu(m, c)
    n = (c["dp"] * c["cp"]).astype(float) if shard is None else np.asarray(shard, dtype=float)
    # Expert weights have only t·dp·cp/(etp·ep) copies (Megatron's expert-data-parallel group), so ZeRO
    # shards them over that many GPUs, not over all dp*cp.
    per, last = stage_layers(m.layers, c["pp"])
    folded = expert_tp(c) * c["ep"]
    expert = np.maximum(per, last) * m.experts * m.expert_params / folded
    dense = psi - expert
    n_expert = np.maximum(n * c["tp"] / folded, 1.0)
    z = c["zero"]
    w, g, k = 2.0, float(grad_bytes), 12.0
    weights = np.where(z == 3, w * (dense / n + expert / n_expert) + 2 * w * layer, w * psi)  # z3: 2 layers live
    grads = np.where(z >= 2, g * (dense / n + expert / n_expert), g * psi)
    optim = np.where(z >= 1, k * (dense / n + expert / n_expert), k * psi)
    return weights, grads, optim, psi


def attention_units(m) -> float:
    """Bytes the attention keeps for backward per token, in units of h (× s·b·h for a micro-batch).

    Grouped-query: input 2, Q 2·a·d/h, K and V 2·g·d/h each, the projection's input 2·a·d/h, dropout mask 1;
    with FlashAttention the attention output is the projection's input, already counted, and TP + SP +
    selective comes to 34 sbh/t for a GPT, as in the reference. Latent attention adds the query and
    key-value latents and keeps whole query, key and value heads (qk and v wide)."""
    h, a = m.hidden, m.heads
    if m.mla:
        latents = 2 * (m.q_rank + m.kv_rank + m.rope_dim) / h
        return 3 + latents + 2 * a * (2 * m.qk_dim + m.v_dim) / h + 2 * a * m.v_dim / h
    return 3 + 4 * a * m.head_dim / h + 4 * m.kv_heads * m.head_dim / h


def _activation_parts(m, c, micro_batches, flash: bool, fp8: bool, dual: bool, imbalance: float = 1.0) -> dict:
    """The pieces the activation memory is made of, per plan (bytes): one layer's stored activations per
    micro-batch without recompute and with full recompute, the micro-batches the fullest stage holds, the
    working set of a recomputed layer and what lives beside the layers (embedding output, logits). On the busiest
    expert rank the layer running holds ``imbalance`` times the mean routed copies (a dropless router's buffers
    grow with its load); the layers stored are charged the mean, since the ranks a learned router favours differ
    from layer to layer [U: judged, not measured]."""
    t, cp, b = c["tp"].astype(float), c["cp"].astype(float), c["b"].astype(float)
    p, v = c["pp"], c["v"].astype(float)
    sp = (c["sp"] > 0) & (c["tp"] > 1)
    h, a, s = m.hidden, m.heads, m.seq
    sbh = (s / cp) * b * h
    attn = attention_units(m)
    f = m.expert_ffn if m.moe else m.ffn_hidden
    k = m.experts_per_token if m.moe else 1
    mlp = 3 + 2 * m.mlp_mats * f / h * k
    total = attn + mlp + 4
    if fp8:  # Transformer Engine saves the four GEMM inputs in FP8 (1 byte, not 2) for backward
        total = total - (3 + f / h * k)
    base = np.where(sp, total / t, 10 + (total - 10) / t)
    surge = 0.0
    if m.moe:  # the routed copies the GPU holds (2 B each): its T/t tokens' top-k, gathered over expert TP
        base = base + 2 * m.top_k * expert_tp(c) / t
        routed = ((2 * m.mlp_mats - fp8) * f / h * k + 2 * m.top_k * expert_tp(c)) / t
        surge = sbh * routed * (rank_imbalance(imbalance, c["ep"]) - 1.0)
    scores = 5 * a * (s / cp) / h / t * (not flash)
    # DualPipe holds PP + 1 micro-batches' activations (DeepSeek-V3 report, Table 2)
    held = p + 1 if dual else p
    inflight = np.minimum(micro_batches, np.where(p > 1, held, 1)) * np.where(v > 1, 1 + (p - 1) / (p * v), 1.0)
    # p = 1: the output layer's fp32 logits (4·s·b·V/t) and the embedding output live here too
    ends = np.where(p == 1, 4 * (s / cp) * b * m.vocab / t + 2 * sbh, 2 * sbh) + surge
    # "none" is also a recomputed layer's working set: while it runs again it holds what no recompute keeps
    return {"sbh": sbh, "sp": sp, "t": t, "base": base, "none": sbh * (base + scores),
            "full": sbh * 2 / np.where(sp, t, 1.0), "inflight": inflight, "ends": ends}


def activations(m, c, micro_batches, flash: bool, fp8: bool = False, dual: bool = False, recompute_layers=None,
                imbalance: float = 1.0, parts: dict | None = None):
    """Activation bytes per GPU on the fullest stage; ``recompute_layers``: for partial recompute, the layers
    of that stage run as full recompute (the rest keep everything); ``parts``: :func:`_activation_parts`'s answer
    for the same arguments, when the caller has it."""
    parts = parts or _activation_parts(m, c, micro_batches, flash, fp8, dual, imbalance)
    rc = c["rc"]
    sbh, sp, t = parts["sbh"], parts["sp"], parts["t"]
    # selective keeps what none keeps but the attention scores (FlashAttention keeps none either way)
    per_layer = np.where(rc == 0, parts["none"], sbh * parts["base"])
    # per-op selective keeps about half of what no recompute keeps: every other matmul's
    # output, the attention output and the layer input [U: the exact set depends on the policy]
    per_layer = np.where(rc == RC_OP, 0.5 * per_layer + sbh * 2 / np.where(sp, t, 1.0), per_layer)
    full = rc == RC_FULL
    per_layer = np.where(full, parts["full"], per_layer)
    per, _ = stage_layers(m.layers, c["pp"])
    acts = per_layer * per * parts["inflight"] + np.where(full, parts["none"], 0.0)
    if recompute_layers is not None:
        k = np.asarray(recompute_layers, dtype=float)
        # a layer being recomputed needs its whole working set for a moment: only when some layer is
        partial = (((per - k) * parts["none"] + k * parts["full"]) * parts["inflight"]
                   + np.where(k > 0, parts["none"], 0.0))
        acts = np.where(rc == RC_PARTIAL, partial, acts)
    return acts + parts["ends"]


def partial_layers(m, c, micro_batches, flash: bool, fp8: bool, dual: bool, room, waste: float = ALLOCATOR_WASTE,
                   imbalance: float = 1.0, parts: dict | None = None):
    """Layers of the fullest stage a partial-recompute plan recomputes: the fewest, in whole multiples of v
    (0 when everything fits as it is), whose activations (with the allocator's share ``waste``) fit in
    ``room`` bytes; the whole stage when none do. ``parts`` as in :func:`activations`."""
    parts = parts or _activation_parts(m, c, micro_batches, flash, fp8, dual, imbalance)
    per, _ = stage_layers(m.layers, c["pp"])
    grow = 1.0 / (1.0 - waste)
    keep_all = (per * parts["none"] * parts["inflight"] + parts["none"] + parts["ends"]) * grow
    saved = np.maximum((parts["none"] - parts["full"]) * parts["inflight"] * grow, 1.0)
    v = np.maximum(c["v"], 1)
    k = np.ceil(np.maximum(keep_all - room, 0.0) / saved)
    k = np.ceil(k / v) * v
    return np.minimum(k, per)


def offload_layers(mem: dict, i: int, mode: str):
    """Layers whose activations plan ``i`` of a memory() answer keeps in host memory (None unless it offloads
    activations)."""
    return int(mem["offload_layers"][i]) if mode in ("activations", "both") else None


def recompute_layers(mem: dict, i: int, mode: str):
    """Layers of the fullest stage plan ``i`` of a memory() answer runs again under partial recompute (None for
    the other modes)."""
    return int(mem["recompute_layers"][i]) if mode == "partial" else None


def memory(m, c, micro_batches, flash: bool, grad_bytes: float, fp8: bool = False, shard=None,
           dual: bool = False, capacity_gb: float | None = None, expandable: bool = False, imbalance: float = 1.0):
    """Memory per GPU; ``dual``: the DualPipe schedule, which keeps two copies of a stage's model states;
    ``capacity_gb``: the GPU's memory, which partial recompute solves its layer count against; ``expandable``:
    the allocator grows segments page by page (its share of the activations is EXPANDABLE_WASTE, not
    ALLOCATOR_WASTE); ``imbalance``: the busiest expert rank's routed tokens over the mean."""
    waste = EXPANDABLE_WASTE if expandable else ALLOCATOR_WASTE
    held = params_on_gpu(m, c)
    weights, grads, optim, psi = model_states(m, c, grad_bytes, shard, held)
    if dual:  # a pipeline of one stage has nothing to run both ways
        two = np.where(c["pp"] > 1, 2.0, 1.0)
        weights, grads, optim = two * weights, two * grads, two * optim
    per, _ = stage_layers(m.layers, c["pp"])
    # offloaded optimizer state leaves the GPU (and the CPU keeps an fp32 gradient copy beside it)
    opt_off, act_off = modes(c)
    # the parameters whose optimizer state this GPU holds (experts sharded over fewer GPUs than the dense part)
    stepped = optim / 12.0
    host = np.where(opt_off, stepped * HOST_OPTIMIZER_BYTES, 0.0)
    optim = np.where(opt_off, 0.0, optim)
    room = (np.inf if capacity_gb is None else (capacity_gb - OVERHEAD_GB) * GB) - (weights + grads + optim)
    layers = np.zeros(len(weights))
    partial = c["rc"] == RC_PARTIAL
    # the activations' pieces once: the partial-recompute solve, the activations and their offload all read them
    parts = _activation_parts(m, c, micro_batches, flash, fp8, dual, imbalance)
    if partial.any():
        layers = np.where(partial, partial_layers(m, c, micro_batches, flash, fp8, dual, room, waste,
                                                  imbalance, parts), 0.0)
    acts = activations(m, c, micro_batches, flash, fp8, dual, layers, imbalance, parts)
    offloaded = np.zeros(len(weights))
    layer_bytes = np.zeros(len(weights))
    if act_off.any():
        layer_bytes = parts["none"] * parts["inflight"]
        offloaded = np.where(act_off, activation_layers(per, layer_bytes, parts["ends"], room, 1.0 / (1.0 - waste)),
                             0.0)
        acts = np.where(act_off, resident_layers(per, offloaded) * layer_bytes + parts["ends"], acts)
        host = host + offloaded * layer_bytes
    lost = acts * waste / (1.0 - waste)
    total = weights + grads + optim + acts + lost
    # the share of each layer's forward run again: every layer under full recompute, k of the stage's under partial
    rerun = np.where(c["rc"] == RC_FULL, 1.0, np.where(partial, layers / np.maximum(per, 1), 0.0))
    return {"weights_gb": weights / GB, "gradients_gb": grads / GB, "optimizer_gb": optim / GB,
            "activations_gb": acts / GB, "fragmentation_gb": lost / GB,
            "overhead_gb": np.full(len(total), OVERHEAD_GB),
            "total_gb": total / GB + OVERHEAD_GB, "params_on_gpu": psi,
            "layer_params": held[1], "recompute_layers": layers, "recompute_share": rerun,
            "offload_layers": offloaded, "offload_layer_bytes": layer_bytes, "host_gb": host / GB,
            "stepped_params": stepped}
