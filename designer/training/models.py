"""Model shapes, presets, parameter and FLOP counts.

FLOPs follow Megatron-LM's ``num_floating_point_operations`` (reference §2.1):
attention counted over the full s² (no causal halving) so MFU figures compare
with NVIDIA's, Meta's and Korthikanti's logs. The *time* model (compute.py)
knows that a causal FlashAttention kernel does half that work.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import TrainingError


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
    activation: str = "gelu"  # gelu | swiglu
    experts: int = 1  # 1 = dense
    top_k: int = 1
    tied_embeddings: bool = False

    def validate(self) -> "ModelSpec":
        for f in ("layers", "hidden", "ffn_hidden", "heads", "kv_heads", "vocab", "seq", "experts", "top_k"):
            v = getattr(self, f)
            if not isinstance(v, int) or v <= 0:
                raise TrainingError(f"model {self.name}: {f.replace('_', '-')} must be a positive integer, got {v!r}")
        if self.activation not in ("gelu", "swiglu"):
            raise TrainingError(f"model {self.name}: activation must be gelu or swiglu, got {self.activation!r}")
        if self.hidden % self.heads:
            raise TrainingError(f"model {self.name}: hidden {self.hidden} is not a multiple of heads {self.heads}")
        if self.heads % self.kv_heads:
            raise TrainingError(f"model {self.name}: heads {self.heads} is not a multiple of kv-heads {self.kv_heads}")
        if self.top_k > self.experts:
            raise TrainingError(f"model {self.name}: top-k {self.top_k} exceeds experts {self.experts}")
        return self

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    @property
    def moe(self) -> bool:
        return self.experts > 1

    @property
    def mlp_mats(self) -> int:
        """Weight matrices in one expert's MLP: 2 for GeLU, 3 for SwiGLU (gate, up, down)."""
        return 3 if self.activation == "swiglu" else 2

    # -- parameters ------------------------------------------------------
    @property
    def attn_params(self) -> int:
        h, g, dh = self.hidden, self.kv_heads, self.head_dim
        return h * (h + 2 * g * dh) + h * h

    @property
    def expert_params(self) -> int:
        return self.mlp_mats * self.hidden * self.ffn_hidden

    @property
    def layer_params_dense(self) -> int:
        """Per layer, excluding the routed experts (attention, norms, router)."""
        router = self.hidden * self.experts if self.moe else 0
        return self.attn_params + 2 * self.hidden + router

    @property
    def layer_params(self) -> int:
        return self.layer_params_dense + self.experts * self.expert_params

    @property
    def embedding_params(self) -> int:
        return self.vocab * self.hidden * (1 if self.tied_embeddings else 2)

    @property
    def params(self) -> int:
        return self.layers * self.layer_params + self.embedding_params + self.hidden

    @property
    def active_params(self) -> int:
        """Parameters a token touches (top-k experts of each layer)."""
        return self.params - self.layers * (self.experts - self.top_k) * self.expert_params

    # -- FLOPs (Megatron convention) ---------------------------------------
    def model_flops_per_token(self) -> float:
        """Forward + backward model FLOPs per token, Megatron's formula, full s² attention."""
        h, s, L, V = self.hidden, self.seq, self.layers, self.vocab
        a, g, f = self.heads, self.kv_heads, self.ffn_hidden
        q = a * self.head_dim
        glu = 1.5 if self.activation == "swiglu" else 1.0
        return 12.0 * L * h * h * ((1 + g / a + s / h) * (q / h) + (f / h) * self.top_k * glu + V / (2 * L * h))

    def forward_layer_flops_per_token(self) -> float:
        """One layer's forward FLOPs per token (what full recompute repeats)."""
        return (self.model_flops_per_token() - 6.0 * self.hidden * self.vocab) / (3 * self.layers)

    def attention_core_flops_per_token(self) -> float:
        """Forward QKᵀ and AV per token per layer (full s²): 4·s·h."""
        return 4.0 * self.seq * self.heads * self.head_dim

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
