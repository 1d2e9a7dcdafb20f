"""Offload to host memory: what a plan keeps in the CPU's memory, and what moving it there costs.

Two mechanisms, as Megatron-Core ships them (Megatron-Bridge's CPU-offloading guide; the constraints are
Megatron-Core's TransformerConfig checks, read in the code):

- **Optimizer state** (``--optimizer-cpu-offload``, HybridDeviceOptimizer; DeepSpeed's ZeRO-Offload, Ren et
  al., USENIX ATC 2021): the fp32 master weights and Adam's two moments of the GPU's shard live in host memory
  beside an fp32 copy of the gradients, and the CPU runs the step. Each step the shard's gradients go to the
  host (fp32) and the updated BF16 weights come back, and the CPU streams about 30 bytes per parameter through
  its memory. Megatron runs the copies and the CPU step one after the other unless
  ``overlap_cpu_optimizer_d2h_h2d`` is set, and the guide measured that overlap at only 7 % of the step
  (Qwen3-30B-A3B on 16 H100: 4.2x the step time offloading all of it, 3.9x with the overlap): the CPU step
  is what costs, so no overlap is taken. It needs the distributed optimizer (ZeRO >= 1).
- **Activations** (``--cpu-offloading --cpu-offloading-num-layers N``, Transformer Engine's offload context):
  the first N layers' stored activations are copied to the host during the forward, each while the next layer
  computes, and read back during the backward ahead of the layer that needs them. Megatron-Core refuses it
  with pipeline parallelism and with any activation recompute, and N must be fewer than the layers. The count
  is solved, not searched, as partial recompute's is: the fewest layers that bring the GPU within its memory.
  Two layers' activations stay on the GPU whatever N is (the one being copied and the one being computed).

The link is one GPU's own: PCIe Gen5 x16 on x86 hosts (about 64 GB/s each way), a share of Grace's NVLink-C2C
on GB200/GB300 (900 GB/s both ways for one Grace and two GPUs). Copies run on the copy engines, not the SMs.
"""
from __future__ import annotations

import numpy as np

#: Bit of the plan's offload column (plan.OFFLOAD's index) for each mechanism.
OPTIMIZER, ACTIVATIONS = 1, 2
#: Sustained share of a host link's rate for large pinned copies: about 53-55 of PCIe Gen5 x16's 64 GB/s in
#: CUDA's bandwidthTest on H100 hosts [S: commonly reported, not measured here]; C2C taken alike [U].
LINK_EFF = 0.85
#: Share of the host memory's rated bandwidth that DMA copies into it reach, as STREAM-class traffic does
#: (NVIDIA's Grace guide: about 0.9 of 512 GB/s in STREAM triad; x86 servers typically 0.8) [U: taken at 0.8].
HOST_MEMORY_EFF = 0.8
#: Least share of a shared PCIe link left to host copies while the NIC runs at its line rate [U: the NIC and
#: the copies interleave; neither starves the other completely].
SHARED_FLOOR = 0.1
#: Share of the host memory's rated bandwidth a CPU Adam step streams at [U: no measurement of CPU Adam's
#: memory bandwidth on these hosts was found. STREAM-class kernels reach 0.8-0.9 of the rated peak; Adam's
#: seven streams with fp32 conversions on a CPU busy with data loading are taken at half].
CPU_ADAM_EFF = 0.5
#: Bytes the CPU's Adam step moves per parameter: read fp32 master, m, v and gradient (16 B), write master, m, v
#: and the BF16 copy sent back (14 B), as the GPU step in engine.py.
CPU_ADAM_BYTES = 30.0
#: Host bytes per parameter of the shard under optimizer offload: fp32 master, m, v (12) and the fp32 gradient
#: copy the CPU steps from (4).
HOST_OPTIMIZER_BYTES = 16.0
#: Bytes per parameter crossing the link each step: fp32 gradients out, BF16 weights back.
GRAD_OUT_BYTES, WEIGHT_BACK_BYTES = 4.0, 2.0
#: Share of a GPU's part of the host memory that offload may fill: the operating system, data-loader workers,
#: pinned staging buffers and asynchronous checkpoint copies need the rest [U: a planning margin].
HOST_USABLE = 0.8
#: Layers whose activations stay on the GPU while the rest are offloaded (double buffering).
RESIDENT_LAYERS = 2


def modes(c: dict) -> tuple[np.ndarray, np.ndarray]:
    """(optimizer offloaded, activations offloaded) boolean columns of plan columns ``c`` (none without an
    offload column)."""
    off = np.asarray(c["off"]) if "off" in c else np.zeros(len(c["tp"]), dtype=np.int64)
    return (off & OPTIMIZER) > 0, (off & ACTIVATIONS) > 0


def breaks_rules(c: dict) -> np.ndarray:
    """Plans whose offload Megatron-Core refuses: activations with a pipeline or any recompute, the optimizer
    state without the distributed optimizer (ZeRO 0)."""
    opt, act = modes(c)
    return (act & ((c["pp"] > 1) | (c["rc"] != 0))) | (opt & (c["zero"] < 1))


def activation_layers(per, layer_bytes, ends, room, grow: float):
    """Layers of the stage whose activations go to the host: the fewest that bring the activations
    ((per − k) layers on the GPU, at least RESIDENT_LAYERS, plus ``ends``; grown by the allocator's share
    ``grow``) within ``room`` bytes; at most per − RESIDENT_LAYERS (offloading more frees nothing)."""
    keep = np.floor(np.maximum(room / grow - ends, 0.0) / np.maximum(layer_bytes, 1.0))
    most = np.maximum(per - RESIDENT_LAYERS, 0)
    return np.clip(per - keep, 0, most)


def resident_layers(per, k):
    """Layers' activations on the GPU when ``k`` of the stage's ``per`` are offloaded."""
    return np.where(k > 0, np.maximum(per - k, np.minimum(per, RESIDENT_LAYERS)), per)


def copy_rate(cluster, busy=0.0):
    """Bytes/s one GPU moves to or from host memory: its link, less what its NIC's traffic takes of a shared PCIe
    link while the network is ``busy`` (a share of the time), or its share of the host memory if slower."""
    link = max(cluster.host_link_gbs, 1e-9) * 1e9 * LINK_EFF  # a system without the figure is refused offload
    if cluster.host_link_shared:
        # GPUDirect RDMA: the NIC reads and writes the GPU's memory across the GPU's own PCIe link, in both
        # directions at once (a ring sends as much as it receives), so copies to the host get what it leaves
        link = np.maximum(link - cluster.ib_gbs_per_gpu * 1e9 * np.asarray(busy), SHARED_FLOOR * link)
    share = cluster.host_gbs_per_gpu * 1e9 * HOST_MEMORY_EFF
    return np.minimum(link, share) if share > 0 else link


def activation_exposed(k, layer_bytes, fwd_layer, bwd_layer, rate: float):
    """Seconds per micro-batch the stage waits for activation copies: each offloaded layer's copy out hides
    behind the next layer's forward and its copy back behind the backward before it."""
    t = layer_bytes / rate
    return k * (np.maximum(t - fwd_layer, 0.0) + np.maximum(t - bwd_layer, 0.0))


def optimizer_step(shard_params, cluster) -> np.ndarray:
    """Seconds of an offloaded optimizer step: the gradients out, the CPU's Adam over the shard, the weights back."""
    copies = shard_params * (GRAD_OUT_BYTES + WEIGHT_BACK_BYTES) / copy_rate(cluster)
    cpu = shard_params * CPU_ADAM_BYTES / (max(cluster.host_gbs_per_gpu, 1e-9) * 1e9 * CPU_ADAM_EFF)
    return copies + cpu
