"""Model shapes, presets, parameter and FLOP counts.

A shape covers the dense transformers of 2020–24 and the mixture-of-experts models of 2024–26:
grouped-query or multi-head latent attention (MLA: DeepSeek-V2/V3 compress the queries and the
keys/values into low-rank latents, then expand them per head, with a separate rotary part),
a head size other than hidden/heads (Qwen3), routed experts narrower than the dense FFN plus
always-on shared experts, the first layers dense, node-limited routing, multi-token prediction
(MTP) modules, and GeLU, SwiGLU or squared-ReLU MLPs.

FLOPs follow Megatron-LM's ``num_floating_point_operations`` (reference §2.1):
attention counted over the full s² (no causal halving) so MFU figures compare
with NVIDIA's, Meta's and Korthikanti's logs. The *time* model (compute.py)
knows that a causal FlashAttention kernel does half that work.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import TrainingError

ACTIVATIONS = ("gelu", "swiglu", "relu2")


@dataclass(frozen=True)
class ModelSpec:
    name: str
    layers: int
    hidden: int
    ffn_hidden: int
    heads: int
    kv_heads: int
    vocab: int
    seq: int
    activation: str = "gelu"  # gelu | swiglu | relu2 (squared ReLU, Primer / Nemotron-4)
    experts: int = 1  # 1 = dense
    top_k: int = 1
    tied_embeddings: bool = False
    #: size of a query/key head when it is not hidden/heads (Qwen3: 128 with hidden 4,096 and 64 heads);
    #: with MLA the non-rotary part of a query/key head (DeepSeek-V3: 128). 0: hidden/heads
    head_size: int = 0
    #: multi-head latent attention (0 = grouped-query): rank of the query latent (0: queries straight from
    #: the hidden state), rank of the key-value latent, rotary dims per query/key head, value head size
    q_rank: int = 0
    kv_rank: int = 0
    rope_dim: int = 0
    v_head_size: int = 0
    #: FFN width of one routed expert when it differs from the dense layers' ``ffn_hidden``
    expert_ffn_hidden: int = 0
    #: experts every token passes through beside its routed top-k (DeepSeek-V3: 1), each of the routed width
    shared_experts: int = 0
    #: the first layers are dense, with ``ffn_hidden`` (DeepSeek-V3: 3 of 61)
    dense_layers: int = 0
    #: node-limited routing: a token's experts lie on at most this many nodes (DeepSeek-V3: 4; 0: no limit)
    route_nodes: int = 0
    #: multi-token prediction modules after the last layer, each one more layer and one more output head
    mtp_depth: int = 0

    def validate(self) -> "ModelSpec":
        for f in ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "seq", "experts", "top_k"):
            v = getattr(self, f)
            if not isinstance(v, int) or v <= 0:
                raise TrainingError(f"model {self.name}: {f.replace('_', '-')} must be a positive integer, got {v!r}")
        if self.activation not in ACTIVATIONS:
            raise TrainingError(f"model {self.name}: activation must be one of {', '.join(ACTIVATIONS)}, "
                                f"got {self.activation!r}")
        if self.hidden % self.heads and not self.head_size:
            raise TrainingError(f"model {self.name}: hidden {self.hidden} is not a multiple of heads {self.heads} "
                                f"(give the head size)")
        if self.heads % self.kv_heads:
            raise TrainingError(f"model {self.name}: heads {self.heads} is not a multiple of kv-heads {self.kv_heads}")
        if self.top_k > self.experts:
            raise TrainingError(f"model {self.name}: top-k {self.top_k} exceeds experts {self.experts}")
        for f in ("head_size", "q_rank", "kv_rank", "rope_dim", "v_head_size", "expert_ffn_hidden",
                  "shared_experts", "dense_layers", "route_nodes", "mtp_depth"):
            v = getattr(self, f)
            if not isinstance(v, int) or isinstance(v, bool) or v < 0 or v > 2**24:
                raise TrainingError(f"model {self.name}: {f.replace('_', '-')} must be a whole number ≥ 0, "
                                    f"got {v!r}")
        if not isinstance(self.tied_embeddings, bool):
            raise TrainingError(f"model {self.name}: tied-embeddings must be true or false, got "
                                f"{self.tied_embeddings!r}")
        if self.dense_layers >= self.layers and self.moe:
            raise TrainingError(f"model {self.name}: dense-layers {self.dense_layers} leaves no expert layer of "
                                f"{self.layers}")
        if (self.q_rank or self.rope_dim or self.v_head_size) and not self.kv_rank:
            raise TrainingError(f"model {self.name}: q-rank, rope-dim and v-head-size describe latent attention "
                                f"(MLA) and need kv-rank")
        return self

    @property
    def head_dim(self) -> int:
        """Query/key head size (with MLA its non-rotary part)."""
        return self.head_size or self.hidden // self.heads

    @property
    def mla(self) -> bool:
        return self.kv_rank > 0

    @property
    def qk_dim(self) -> int:
        """Query/key head size the attention core multiplies over (MLA: plus the rotary part)."""
        return self.head_dim + self.rope_dim

    @property
    def v_dim(self) -> int:
        return self.v_head_size or self.head_dim

    @property
    def moe(self) -> bool:
        return self.experts > 1

    @property
    def mlp_mats(self) -> int:
        """Weight matrices in one expert's MLP: 2 for GeLU and squared ReLU, 3 for SwiGLU (gate, up, down)."""
        return 3 if self.activation == "swiglu" else 2

    @property
    def expert_ffn(self) -> int:
        """FFN width of one routed (or shared) expert."""
        return self.expert_ffn_hidden or self.ffn_hidden

    @property
    def moe_layers(self) -> int:
        return self.layers - self.dense_layers if self.moe else 0

    @property
    def experts_per_token(self) -> int:
        """Expert MLPs a token runs through in an expert layer: its top-k plus the shared ones."""
        return self.top_k + self.shared_experts

    @property
    def kv_elements(self) -> int:
        """Key and value elements per token of a layer, all heads (what ring attention passes on)."""
        if self.mla:
            return self.heads * (self.qk_dim + self.v_dim)
        return 2 * self.kv_heads * self.head_dim

    # -- parameters ------------------------------------------------------
    @property
    def attn_params(self) -> int:
        h, a = self.hidden, self.heads
        if self.mla:
            q = (h * self.q_rank + self.q_rank * a * self.qk_dim) if self.q_rank else h * a * self.qk_dim
            kv = h * (self.kv_rank + self.rope_dim) + self.kv_rank * a * (self.head_dim + self.v_dim)
            return q + kv + a * self.v_dim * h + self.q_rank + self.kv_rank  # + the latents' norms
        g, dh = self.kv_heads, self.head_dim
        return h * (a * dh + 2 * g * dh) + a * dh * h

    @property
    def expert_params(self) -> int:
        return self.mlp_mats * self.hidden * self.expert_ffn

    @property
    def dense_mlp_params(self) -> int:
        return self.mlp_mats * self.hidden * self.ffn_hidden

    @property
    def layer_params_dense(self) -> int:
        """Per layer, excluding the routed experts (attention, norms, router, shared experts); for a model with
        experts, an expert layer's (the heavier kind, which the per-stage figures take)."""
        if not self.moe:
            return self.attn_params + 2 * self.hidden
        router = self.hidden * self.experts
        return self.attn_params + 2 * self.hidden + router + self.shared_experts * self.expert_params

    @property
    def layer_params(self) -> int:
        if not self.moe:
            return self.layer_params_dense + self.dense_mlp_params
        return self.layer_params_dense + self.experts * self.expert_params

    @property
    def embedding_params(self) -> int:
        return self.vocab * self.hidden * (1 if self.tied_embeddings else 2)

    @property
    def params(self) -> int:
        """Parameters of the model (multi-token prediction modules, dropped after training, not counted)."""
        if not self.moe:
            layers = self.layers * self.layer_params
        else:
            dense = self.attn_params + 2 * self.hidden + self.dense_mlp_params
            layers = self.dense_layers * dense + self.moe_layers * self.layer_params
        return layers + self.embedding_params + self.hidden

    @property
    def active_params(self) -> int:
        """Parameters a token touches (top-k experts of each layer)."""
        return self.params - self.moe_layers * (self.experts - self.top_k) * self.expert_params

    # -- FLOPs (Megatron convention) ---------------------------------------
    def _matmul_params_per_token(self) -> float:
        """Weights one token multiplies through in the layers (routers left out, as Megatron's formula does)."""
        attn = self.layers * self.attn_params
        if not self.moe:
            return attn + self.layers * self.dense_mlp_params
        return attn + self.dense_layers * self.dense_mlp_params + self.moe_layers * self.experts_per_token * \
            self.expert_params

    def model_flops_per_token(self) -> float:
        """Forward + backward model FLOPs per token, Megatron's formula, full s² attention: 6 per weight a token
        multiplies through, 6·h·V for the output layer, 3× the attention core's forward. An MTP module adds
        one more layer (an expert layer in a model with experts), its 2h→h projection and one more output
        layer. For a GPT this is Megatron's 12·L·h²·(1 + s/h + V/(2·L·h)) + the MLP terms."""
        mtp_layer = self.attn_params + 2 * self.hidden * self.hidden + (
            self.experts_per_token * self.expert_params if self.moe else self.dense_mlp_params)
        return (6.0 * (self._matmul_params_per_token() + self.mtp_depth * mtp_layer)
                + 6.0 * self.hidden * self.vocab * (1 + self.mtp_depth)
                + 3.0 * (self.layers + self.mtp_depth) * self.attention_core_flops_per_token())

    def forward_layer_flops_per_token(self) -> float:
        """One layer's forward FLOPs per token (what full recompute repeats)."""
        return (self.model_flops_per_token() - 6.0 * self.hidden * self.vocab * (1 + self.mtp_depth)) / (
            3 * (self.layers + self.mtp_depth))

    def attention_core_flops_per_token(self) -> float:
        """Forward QKᵀ and AV per token per layer (full s²): 2·s·heads·(qk + v), 4·s·h for a GPT."""
        return 2.0 * self.seq * self.heads * (self.qk_dim + self.v_dim)

    def hardware_flops_per_token(self, recompute: str, flash: bool = True) -> float:
        """Model FLOPs plus what recompute adds: one more layer forward (full) or, without
        FlashAttention, the attention core forward (selective). Flash kernels recompute the
        attention core inside their backward whatever the setting, which we count as kernel
        work (compute.py), not as recompute."""
        extra = 0.0
        if recompute == "full":
            extra = self.layers * self.forward_layer_flops_per_token()
        elif recompute == "selective" and not flash:
            extra = self.layers * self.attention_core_flops_per_token()
        elif recompute == "op":  # every other matmul of the forward again
            extra = 0.5 * self.layers * (self.forward_layer_flops_per_token() - self.attention_core_flops_per_token())
        return self.model_flops_per_token() + extra


def gpt(name: str, layers: int, hidden: int, heads: int, vocab: int = 51200, seq: int = 2048) -> ModelSpec:
    """A GPT-3/Megatron shape: FFN 4h, GeLU, multi-head attention, untied output layer."""
    return ModelSpec(name, layers, hidden, 4 * hidden, heads, heads, vocab, seq, "gelu")


PRESETS: dict[str, ModelSpec] = {
    "gpt3-175b": gpt("gpt3-175b", 96, 12288, 96),
    "llama3-8b": ModelSpec("llama3-8b", 32, 4096, 14336, 32, 8, 128256, 8192, "swiglu"),
    "llama3-70b": ModelSpec("llama3-70b", 80, 8192, 28672, 64, 8, 128256, 8192, "swiglu"),
    "llama3-405b": ModelSpec("llama3-405b", 126, 16384, 53248, 128, 8, 128256, 8192, "swiglu"),
    # Mixtral 8x7B (Mistral AI, 2024): 8 experts, top-2, 32k vocabulary.
    "mixtral-8x7b": ModelSpec("mixtral-8x7b", 32, 4096, 14336, 32, 8, 32000, 4096, "swiglu", 8, 2),
    # Mixtral 8x22B: 56 layers, hidden 6144, FFN 16384, 48 heads / 8 KV, 32k vocabulary.
    "mixtral-8x22b": ModelSpec("mixtral-8x22b", 56, 6144, 16384, 48, 8, 32768, 4096, "swiglu", 8, 2),
    # DeepSeek-V3 (DeepSeek-AI 2024, arXiv 2412.19437 §2, §4.2; config_671B.json): 61 layers, the first 3
    # dense (FFN 18,432), then 256 routed experts of FFN 2,048, top-8, one shared expert, routing to at most
    # 4 nodes; MLA with 128 heads of 128 + 64 rotary dims, query latent 1,536, key-value latent 512; one MTP
    # module; 4k pre-training sequences; 671B parameters, 37B active.
    "deepseek-v3": ModelSpec("deepseek-v3", 61, 7168, 18432, 128, 128, 129280, 4096, "swiglu", 256, 8,
                             head_size=128, q_rank=1536, kv_rank=512, rope_dim=64, v_head_size=128,
                             expert_ffn_hidden=2048, shared_experts=1, dense_layers=3, route_nodes=4, mtp_depth=1),
    # Qwen3-235B-A22B (Qwen3 Technical Report, arXiv 2505.09388, Table 2 and §2): 94 layers, 64 query and 4 KV
    # heads, 128 experts (top-8, no shared expert), every layer an expert layer; head size 128, expert FFN
    # 1,536, hidden 4,096 and vocabulary 151,936 as its config.json gives them [S: read in copies of that
    # file]; 4k pre-training sequences (its stages S1 and S2).
    "qwen3-235b-a22b": ModelSpec("qwen3-235b-a22b", 94, 4096, 12288, 64, 4, 151936, 4096, "swiglu", 128, 8,
                                 head_size=128, expert_ffn_hidden=1536),
    "gpt3-22b": gpt("gpt3-22b", 48, 6144, 64),
    "mt-nlg-530b": gpt("mt-nlg-530b", 105, 20480, 128),
    "gpt-1t": gpt("gpt-1t", 128, 25600, 160),
}


def preset(name: str) -> ModelSpec:
    key = str(name).lower()
    if key not in PRESETS:
        raise TrainingError(f"unknown model preset {name!r}; known: {', '.join(PRESETS)}")
    return PRESETS[key]


def model_from_params(params: float, *, seq: int = 4096, vocab: int = 128256, name: str = "custom") -> ModelSpec:
    """A Llama-style shape for a bare parameter count: depth from the usual aspect
    ratio h ≈ 128·L (Kaplan et al. 2020 found loss flat over a wide range of it),
    width from 12·L·h² ≈ N, heads of 128, 8 KV heads, SwiGLU with FFN 3.5h."""
    if not params or params <= 0:
        raise TrainingError(f"--params must be positive, got {params!r}")
    layers = max(2, round((params / (12 * 128 * 128)) ** (1 / 3)))
    hidden = max(128, 128 * round((params / (12 * layers)) ** 0.5 / 128))
    heads = hidden // 128
    kv = 8 if heads % 8 == 0 else heads
    return ModelSpec(name, layers, hidden, int(3.5 * hidden) // 128 * 128, heads, kv, vocab, seq, "swiglu")


def override(model: ModelSpec, **fields) -> ModelSpec:
    """The preset with the given fields replaced (None values are ignored)."""
    given = {k: v for k, v in fields.items() if v is not None}
    return replace(model, **given).validate() if given else model.validate()
