"""Software profiles: what the training framework of an era actually does.

The same plan on the same GPUs ran 15–35 % slower in 2021 than it does now: the
kernels, the overlap of communication with compute and the way data parallelism
shards and moves the model all changed. A profile is a named bundle of those
knobs; each knob is also a flag of its own, and a flag given beside a profile
overrides it.

Profiles and their sources:
- ``megatron-2021`` — Megatron-LM as in Narayanan et al. 2021 (SC'21): unfused
  attention (QKᵀ and AV as batched GEMMs, softmax and dropout as separate kernels),
  blocking tensor-parallel all-reduces, a blocking data-parallel all-reduce of fp32
  gradients after backward, no optimizer sharding, only full-layer recompute.
- ``megatron-2022`` — Megatron-LM as in Korthikanti et al. 2022: the same kernels and
  blocking collectives, plus sequence parallelism and *selective* recompute, which
  reruns the attention core in backward.
- ``deepspeed-2021`` — Megatron-DeepSpeed as BLOOM (tr11 README) and MT-NLG (Smith et
  al. 2022) ran it: unfused attention, blocking TP, ZeRO (stage 1 by default) through
  flat NCCL rings; with stage 2 gradients are reduce-scattered every micro-batch, with
  stage 3 each module's weights are all-gathered before its forward and backward and
  its gradients reduce-scattered (Rajbhandari et al. 2020, §5–7); ``overlap_comm``
  hides the reductions behind backward; gradients reduced in 16-bit.
- ``nemo-2024`` (default) — NeMo 24.x / Megatron-Core 0.8+: cuDNN fused (Flash) attention,
  TP communication overlapped with GEMMs (userbuffers), gradient reduce-scatter and
  parameter all-gather of the distributed optimizer overlapped with backward and the
  next forward, PP send/receive overlapped, Transformer Engine FP8 with delayed
  scaling (NeMo performance-tuning guide; Megatron-Core README).
- ``fsdp-2024`` — PyTorch FSDP2 as torchtitan runs it (Liang et al. 2024): Flash/cuDNN
  SDPA, per-layer all-gather of weights before forward and again before backward
  (reshard after forward), per-layer reduce-scatter of fp32 gradients, each
  prefetched one layer ahead; eager element-wise kernels (``fused_kernels`` on for
  torch.compile); torchao Float8 with dynamic scaling.
- ``deepseek-v3`` — DeepSeek's HAI-LLM as the DeepSeek-V3 report describes it (arXiv 2412.19437, §3.2–3.3):
  no tensor parallelism, DualPipe (a bidirectional pipeline that pairs one micro-batch's forward
  with another's backward so the expert all-to-alls and pipeline sends hide behind compute, on
  20 of the H800's 132 SMs), dispatch sent once per destination node over InfiniBand and forwarded
  over NVLink, tokens dispatched in FP8 and combined in BF16, fine-grained (tile-wise, online)
  FP8 scaling, ZeRO-1 data parallelism. Its attention kernel is not stated: taken as a
  FlashAttention-class fused kernel [U].

Expert-parallel knobs: ``ep_dispatch`` ``alltoall`` sends every routed copy of a token to its expert's
GPU (NeMo/Megatron-Core's all-to-all dispatcher of 2024); ``deepep`` sends it once to each node
(NVLink domain) holding one of its experts and forwards it there over NVLink — DeepSeek's DeepEP,
also Megatron-Core's "flex" dispatcher since 2025 — and dispatches FP8 tokens when training in FP8.
``ep_overlap`` hides the all-to-alls behind another micro-batch's compute (DualPipe; dual-batch overlap).
``pp_schedule`` ``dualpipe``: bubble (PP/2 − 1)·(F&B + B − 3W), two copies of the parameters and
PP + 1 micro-batches of activations (the report's Table 2), against 1F1B's (PP − 1)·(F + B).
``expert_imbalance``: the busiest expert-parallel rank's routed tokens over the mean, as the run's router
leaves them. 1 (the default) is a router that balances: each token's experts as good as drawn at random, whose
multinomial spread the engine charges itself (efficiency.moe_load_factor) — what NVIDIA's published MoE
benchmarks force (Megatron-Core's ``--moe-router-force-load-balancing``). A learned router running dropless
leaves more: the busiest rank's grouped GEMMs, the all-to-all that waits for it and the activations it holds
all grow by it. Megatron-Core's MoE model zoo ran Qwen3-235B-A22B on 256 H100 both ways at four sequence
lengths (16k-128k, TP 4, EP 8, 16 experts a GPU): dropless steps took 9-25 % longer, and the estimates come
closest to the four dropless runs with the busiest rank at 1.8x the mean (heldout.IMBALANCE_CHOSEN) [D: set
from those runs, early in training from scratch; not a measurement of the router itself]. Capacity-factor
training (tokens past capacity dropped) bounds it at the capacity factor. It is a figure between ranks: a plan
with EP 1 runs every copy on each GPU, whatever their spread, and a search applies the stated figure at every
EP it tries (how it grows with fewer experts a rank is not known).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from .errors import TrainingError

ATTENTION = ("unfused", "flash2", "cudnn")
DP_IMPL = ("megatron", "deepspeed", "fsdp")
FP8_RECIPE = ("none", "delayed", "dynamic")
EP_DISPATCH = ("alltoall", "deepep")
PP_SCHEDULE = ("1f1b", "dualpipe")
#: A busiest rank with 64x the mean tokens is a router that sends nearly everything to one rank of 64: past any run.
MAX_IMBALANCE = 64.0


@dataclass(frozen=True)
class Software:
    name: str
    #: attention kernel: unfused (2021–22 Megatron), FlashAttention-2, cuDNN/FA3-class fused kernel
    attention: str = "cudnn"
    #: TP all-reduce / reduce-scatter / all-gather overlapped with the neighbouring GEMMs
    tp_overlap: bool = True
    #: data-parallel reductions (and ZeRO-3 gathers) overlapped with compute
    dp_overlap: bool = True
    #: pipeline send/receive overlapped with compute
    pp_overlap: bool = True
    #: who moves the data-parallel state. All three issue the same collectives at each ZeRO
    #: stage; they differ where the engine says so: Megatron's distributed optimizer gathers
    #: the updated weights beside the next forward, DeepSpeed's ZeRO-1/2 after the optimizer
    #: step (blocking), and PyTorch FSDP2 copies each gathered layer in and out (copy traffic)
    dp_impl: str = "megatron"
    #: ZeRO stage used when the plan does not give one
    default_zero: int = 1
    #: bytes per gradient element on the wire (fp32 reduction 4, 16-bit 2)
    grad_comm_bytes: int = 2
    #: recompute modes the framework offers
    #: (partial: Megatron-Core's block recompute of N layers a stage; torchtitan's per-layer checkpointing)
    recompute_modes: tuple[str, ...] = ("none", "selective", "partial", "full")
    #: FP8 recipe: none (no FP8 support), delayed scaling (Transformer Engine), dynamic (torchao)
    fp8: str = "delayed"
    #: fused element-wise kernels (norms, activations, bias/residual adds): Megatron's and
    #: Transformer Engine's, or torch.compile's; eager PyTorch runs each as separate kernels
    fused_kernels: bool = True
    #: context parallelism (ring attention) available
    context_parallel: bool = True
    #: checkpoints saved asynchronously: training waits only while each GPU's shard is copied to host memory,
    #: and a background process writes it. Megatron-Core (``--async-save``, torch_dist format) and PyTorch DCP
    #: (``async_save``; torchtitan's ``checkpoint.async_mode``) offer it, both off unless asked for.
    async_checkpoint: bool = False
    #: checkpoints saved sharded, every rank writing its own part at once (Megatron-Core's torch_dist format,
    #: PyTorch DCP, DeepSpeed's per-rank files); off: one consolidated file, written through one host
    checkpoint_sharded: bool = True
    #: how routed tokens travel to their experts' GPUs (see the module's expert-parallel knobs)
    ep_dispatch: str = "alltoall"
    #: expert all-to-alls overlapped with another micro-batch's compute
    ep_overlap: bool = False
    #: pipeline schedule: 1F1B (interleaved when the plan has virtual stages) or DualPipe
    pp_schedule: str = "1f1b"
    #: PyTorch's caching allocator grows one segment page by page (``expandable_segments:True``, PyTorch 2.1+;
    #: torchtitan's launcher sets it) instead of splitting fixed blocks: see memory.py for what each wastes
    expandable_segments: bool = True
    #: the busiest expert-parallel rank's routed tokens over the mean (see the module's expert-parallel knobs);
    #: 1: a balancing router, whose random spread the engine charges on its own
    expert_imbalance: float = 1.0
    #: what the framework can keep in host memory (plan.OFFLOAD). Megatron-Core offloads the optimizer state and
    #: steps it on the CPU (HybridDeviceOptimizer, ``--optimizer-cpu-offload``) and a chosen number of layers'
    #: activations (``--cpu-offloading-num-layers``, only without a pipeline and without recompute: its config
    #: check); DeepSpeed has ZeRO-Offload's optimizer on the CPU (Ren et al., USENIX ATC 2021). FSDP2's
    #: CPUOffloadPolicy moves the weights and gradients too, a different trade not modelled: none offered.
    offload_modes: tuple[str, ...] = ("none", "optimizer", "activations", "both")

    @property
    def flash(self) -> bool:
        return self.attention != "unfused"

    def validate(self) -> "Software":
        checks = (("attention", ATTENTION), ("dp_impl", DP_IMPL), ("fp8", FP8_RECIPE), ("ep_dispatch", EP_DISPATCH),
                  ("pp_schedule", PP_SCHEDULE))
        for field, allowed in checks:
            if getattr(self, field) not in allowed:
                raise TrainingError(f"software {field.replace('_', '-')} must be one of {', '.join(allowed)}, "
                                    f"got {getattr(self, field)!r}")
        if self.grad_comm_bytes not in (2, 4):
            raise TrainingError(f"gradient bytes on the wire must be 2 or 4, got {self.grad_comm_bytes!r}")
        if (isinstance(self.expert_imbalance, bool) or not isinstance(self.expert_imbalance, (int, float))
                or not math.isfinite(self.expert_imbalance) or not 1.0 <= self.expert_imbalance <= MAX_IMBALANCE):
            raise TrainingError(f"expert imbalance (the busiest expert rank's tokens over the mean) must be from 1 to "
                                f"{MAX_IMBALANCE:g}, got {self.expert_imbalance!r}")
        if self.default_zero not in (0, 1, 2, 3):
            raise TrainingError(f"default ZeRO stage must be 0–3, got {self.default_zero!r}")
        return self

    def to_json(self) -> dict:
        out = asdict(self)
        out["recompute_modes"] = list(self.recompute_modes)
        out["offload_modes"] = list(self.offload_modes)
        return out


PROFILES: dict[str, Software] = {
    "megatron-2021": Software("megatron-2021", attention="unfused", tp_overlap=False, dp_overlap=False,
                              pp_overlap=False, dp_impl="megatron", default_zero=0, grad_comm_bytes=4,
                              recompute_modes=("none", "full"), fp8="none", context_parallel=False,
                              expandable_segments=False, offload_modes=("none",)),
    "megatron-2022": Software("megatron-2022", attention="unfused", tp_overlap=False, dp_overlap=False,
                              pp_overlap=False, dp_impl="megatron", default_zero=0, grad_comm_bytes=4,
                              recompute_modes=("none", "selective", "full"), fp8="none", context_parallel=False,
                              expandable_segments=False, offload_modes=("none",)),
    "deepspeed-2021": Software("deepspeed-2021", attention="unfused", tp_overlap=False, dp_overlap=True,
                               pp_overlap=False, dp_impl="deepspeed", default_zero=1, grad_comm_bytes=2,
                               recompute_modes=("none", "full"), fp8="none", context_parallel=False,
                               expandable_segments=False, offload_modes=("none", "optimizer")),
    "nemo-2024": Software("nemo-2024"),
    "fsdp-2024": Software("fsdp-2024", attention="cudnn", tp_overlap=False, dp_overlap=True, pp_overlap=False,
                          dp_impl="fsdp", default_zero=3, grad_comm_bytes=4,
                          recompute_modes=("none", "op", "partial", "full"), fp8="dynamic", fused_kernels=False,
                          offload_modes=("none",)),
    "deepseek-v3": Software("deepseek-v3", tp_overlap=False, dp_impl="megatron", default_zero=1, fp8="dynamic",
                            context_parallel=False, ep_dispatch="deepep", ep_overlap=True, pp_schedule="dualpipe",
                            offload_modes=("none",)),
}
DEFAULT_PROFILE = "nemo-2024"
#: What people call each profile (the GUI's list).
LABELS = {
    "nemo-2024": "NeMo / Megatron-Core 2024+",
    "fsdp-2024": "PyTorch FSDP2 (torchtitan) 2024+",
    "megatron-2022": "Megatron-LM 2022 (selective recompute)",
    "megatron-2021": "Megatron-LM 2021",
    "deepspeed-2021": "Megatron-DeepSpeed 2021 (ZeRO)",
    "deepseek-v3": "DeepSeek-V3 (DualPipe, DeepEP) 2024",
}

#: The single knobs, as flags and workload keys (value parsers).
KNOBS = {
    "attention": str, "tp_overlap": bool, "dp_overlap": bool, "pp_overlap": bool, "dp_impl": str,
    "grad_comm_bytes": int, "fp8": str, "fused_kernels": bool, "context_parallel": bool, "async_checkpoint": bool,
    "checkpoint_sharded": bool, "ep_dispatch": str, "ep_overlap": bool, "pp_schedule": str,
    "expert_imbalance": float,
}


def parse_flag(value, what: str) -> bool:
    """true/false as people write it in a flag or a project file (True, "yes", "on", 1 ...);
    anything else is a TrainingError naming ``what``."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise TrainingError(f"{what} must be true or false, got {value!r}")


def profile(name: str | None = None, **overrides) -> Software:
    """The named profile (default ``nemo-2024``) with single knobs overridden (None = keep)."""
    key = str(name or DEFAULT_PROFILE).strip().lower()
    if key not in PROFILES:
        raise TrainingError(f"unknown software profile {name!r}; known: {', '.join(PROFILES)}")
    given = {}
    for k, v in overrides.items():
        if v is None:
            continue
        if k not in KNOBS:
            raise TrainingError(f"unknown software knob {k!r}; known: {', '.join(KNOBS)}")
        if KNOBS[k] is bool:
            given[k] = parse_flag(v, f"software {k.replace('_', '-')}")
        elif KNOBS[k] is int:
            try:
                given[k] = int(v)
            except (TypeError, ValueError, OverflowError):
                raise TrainingError(f"software {k.replace('_', '-')} must be a whole number, got {v!r}") from None
        elif KNOBS[k] is float:
            text = str(v).strip()[:40]
            try:  # "1_5" is 15 to Python, never what a person writing a ratio meant
                given[k] = float(text) if not isinstance(v, bool) and "_" not in text else None
            except (TypeError, ValueError, OverflowError):
                given[k] = None
            if given[k] is None:
                raise TrainingError(f"software {k.replace('_', '-')} must be a number, got {text!r}")
        else:
            given[k] = str(v).strip().lower()
    sw = PROFILES[key]
    return replace(sw, **given).validate() if given else sw


__all__ = ["Software", "PROFILES", "DEFAULT_PROFILE", "LABELS", "parse_flag", "KNOBS", "ATTENTION", "DP_IMPL",
           "FP8_RECIPE", "EP_DISPATCH", "PP_SCHEDULE", "MAX_IMBALANCE", "profile"]
