"""The cluster a training run sees: GPU figures, NVLink domain, per-GPU fabric bandwidth,
power and price, taken from the catalog (a system id, a bare GPU id, or a project's racks)."""
from __future__ import annotations

import math

from ..inventory import dominant_system
from collections import Counter
from dataclasses import dataclass, replace

from ..fabric.technology import TECHNOLOGIES
from ..gpu_power import GpuPowerError, capped_draw, check_cap, clock_ratio, gpu_name
from .errors import TrainingError

#: Systems to pick when only a GPU id is given: the usual chassis for that GPU.
SYSTEM_FOR_GPU = {"a100": "dgx-a100", "h100": "dgx-h100", "h200": "dgx-h200", "b200": "dgx-b200",
                  "gb200": "gb200-nvl72", "b300": "dgx-b300", "gb300": "gb300-nvl72", "rubin": "vera-rubin-nvl72"}


@dataclass(frozen=True)
class Cluster:
    gpu: str
    generation: str
    gpus: int
    bf16_tflops: float
    fp8_tflops: float | None
    hbm_gb: float
    hbm_tbps: float
    #: NVLink GB/s per GPU as NVIDIA quotes it (both directions summed).
    nvlink_gbps: float
    nvlink_domain: int
    #: Scale-out (InfiniBand/RoCE) GB/s per GPU, one direction.
    ib_gbs_per_gpu: float
    oversubscription: float = 1.0
    system: str = ""
    gpus_per_system: int = 8
    power_typical_w_per_gpu: float = 0.0
    power_max_w_per_gpu: float = 0.0
    price_per_gpu: float = 0.0
    currency: str = "USD"
    #: why the vendor calls the GPU's or system's figures preliminary ("" when they are not)
    preliminary: str = ""
    tdp_w: float = 0.0
    #: per-GPU power cap, W (None: the GPUs run at their TDP); see designer/gpu_power.py
    gpu_power_cap_w: float | None = None
    #: dense NVFP4 tensor-core peak (None: no FP4 tensor cores). Never the sparse "inference" headline.
    fp4_tflops: float | None = None
    #: compute-fabric technology (designer/fabric/technology.py): infiniband, spectrum-x or roce
    fabric: str = "infiniband"
    #: fabric planes each GPU's port is split over (2: Spectrum-X twin-plane); ib_gbs_per_gpu counts them all
    planes: int = 1
    #: switch tiers of the fabric, and the GPUs one leaf reaches (0: unknown, traffic taken to leave the leaf)
    fabric_tiers: int = 2
    leaf_gpus: int = 0
    #: host (CPU) memory each GPU can offload to, GB, the host memory bandwidth that GPU's share of the CPU
    #: streams at, GB/s, and the GPU's link to it, GB/s each way (0: not known for the system, no offload)
    host_gb_per_gpu: float = 0.0
    host_gbs_per_gpu: float = 0.0
    host_link_gbs: float = 0.0
    #: the host link is the GPU's PCIe link, which its NIC's GPUDirect traffic crosses too (x86 hosts)
    host_link_shared: bool = False

    @property
    def beyond_leaf(self) -> bool:
        """Whether the job's network traffic leaves a leaf (as oversubscription, judged for the whole cluster)."""
        return self.gpus > self.leaf_gpus

    @property
    def clock_ratio(self) -> float:
        """Sustained clock under the power cap over the clock at TDP: what compute-bound work scales by."""
        return clock_ratio(self.gpu_power_cap_w, self.tdp_w)

    @property
    def gpu_name(self) -> str:
        return gpu_name(self.gpu)

    def validate(self) -> "Cluster":
        if not isinstance(self.gpus, int) or self.gpus <= 0:
            raise TrainingError(f"cluster: GPU count must be a positive integer, got {self.gpus!r}")
        if (self.nvlink_domain <= 0 or self.ib_gbs_per_gpu <= 0 or not math.isfinite(self.oversubscription)
                or self.oversubscription < 1):
            raise TrainingError("cluster: NVLink domain and fabric bandwidth must be positive, oversubscription ≥ 1")
        if self.fabric not in TECHNOLOGIES:
            raise TrainingError(f"cluster: fabric must be one of {', '.join(TECHNOLOGIES)}, got {self.fabric!r}")
        if self.planes not in (1, 2):
            raise TrainingError(f"cluster: planes must be 1 or 2, got {self.planes!r}")
        return self

    def peak_tflops(self, precision: str) -> float:
        if precision == "fp4":
            if not self.fp4_tflops:
                raise TrainingError(f"GPU {self.gpu} has no FP4 tensor cores; use --precision fp8 or bf16")
            return self.fp4_tflops
        if precision == "fp8":
            if not self.fp8_tflops:
                raise TrainingError(f"GPU {self.gpu} has no FP8 tensor cores; use --precision bf16")
            return self.fp8_tflops
        return self.bf16_tflops

    @property
    def nvlink_gbs_uni(self) -> float:
        """One-direction NVLink GB/s per GPU: what a ring collective's bus bandwidth is bounded by."""
        return self.nvlink_gbps / 2


def _device(catalog, device_id: str, what: str):
    try:
        return catalog.get(str(device_id))
    except KeyError:
        known = sorted(d.id for d in catalog if (d.gpu_count if what == "system" else d.kind == "gpu"))
        raise TrainingError(f"unknown {what} {device_id!r}; known: {', '.join(known)}") from None


def cluster_from_system(catalog, system_id: str, gpus: int | None = None, *, oversubscription: float = 1.0,
                        fabric: str = "infiniband", planes: int = 1) -> Cluster:
    """A cluster of ``gpus`` GPUs built from catalog system ``system_id`` (default one system)."""
    sysdev = _device(catalog, system_id, "system")
    if not sysdev.gpu_count or not sysdev.gpu:
        raise TrainingError(f"{sysdev.id} is not a GPU system")
    spec = catalog.get(sysdev.gpu).gpu_spec
    compute = [p for p in sysdev.ports if p.role == "compute"]
    ib_gbs = sum(p.speed_gbps * p.count for p in compute) / 8 / sysdev.gpu_count if compute else 25.0
    per = sysdev.gpu_count
    typical = (sysdev.power_typical_w or sysdev.power_max_w or spec.tdp_w * 1.8 * per) / per
    peak = (sysdev.power_max_w or typical * per) / per
    price = sysdev.price.amount / per if sysdev.price else 0.0
    n = per if gpus is None else gpus
    gpu = catalog.get(sysdev.gpu)
    return Cluster(sysdev.gpu, spec.generation, n, spec.bf16_tflops, spec.fp8_tflops, spec.hbm_gb, spec.hbm_tbps,
                   spec.nvlink_gbps, sysdev.nvlink_domain or per, ib_gbs, oversubscription, sysdev.id, per,
                   typical, peak, price, sysdev.price.currency if sysdev.price else "USD",
                   preliminary=sysdev.preliminary or gpu.preliminary, tdp_w=spec.tdp_w or 0.0,
                   fp4_tflops=spec.fp4_tflops, fabric=fabric, planes=planes,
                   host_gb_per_gpu=(sysdev.host_memory_gb or 0.0) / per,
                   host_gbs_per_gpu=(sysdev.host_memory_gbs or 0.0) / per,
                   host_link_gbs=sysdev.host_link_gbs or 0.0,
                   host_link_shared=sysdev.host_link == "pcie").validate()


def cluster_from_gpu(catalog, gpu_id: str, gpus: int, **kw) -> Cluster:
    """A cluster of bare GPUs: the usual system for that GPU supplies domain, fabric, power, price."""
    dev = _device(catalog, gpu_id, "GPU")
    if dev.kind != "gpu":
        return cluster_from_system(catalog, dev.id, gpus, **kw)
    system = SYSTEM_FOR_GPU.get(dev.id)
    if system and system in catalog:
        return cluster_from_system(catalog, system, gpus, **kw)
    spec = dev.gpu_spec
    return Cluster(dev.id, spec.generation, gpus, spec.bf16_tflops, spec.fp8_tflops, spec.hbm_gb, spec.hbm_tbps,
                   spec.nvlink_gbps, 8, 50.0, kw.get("oversubscription", 1.0), "", 8, spec.tdp_w * 1.8,
                   spec.tdp_w * 2.0, 0.0, preliminary=dev.preliminary, tdp_w=spec.tdp_w or 0.0,
                   fp4_tflops=spec.fp4_tflops, fabric=kw.get("fabric", "infiniband"),
                   planes=kw.get("planes", 1)).validate()


def with_power_cap(cluster: Cluster, cap_w: float | None) -> Cluster:
    """``cluster`` with its GPUs capped at ``cap_w`` W: the clock (through ``clock_ratio``) and the
    per-GPU share of the system's draw (designer/gpu_power.py), or a TrainingError for a cap above the
    GPU's TDP or below the modelled floor. None leaves the cluster as it is."""
    if cap_w is None:
        return cluster
    if not cluster.tdp_w:
        raise TrainingError(f"{cluster.gpu_name} has no TDP in the catalog: a power cap cannot be modelled")
    try:
        check_cap(cap_w, cluster.tdp_w, cluster.gpu_name)
    except GpuPowerError as exc:
        raise TrainingError(str(exc)) from None
    typical, peak = capped_draw(cluster.power_typical_w_per_gpu, cluster.power_max_w_per_gpu, 1, cluster.tdp_w,
                                cap_w)
    return replace(cluster, gpu_power_cap_w=float(cap_w), power_typical_w_per_gpu=typical, power_max_w_per_gpu=peak)


def cluster_from_counts(catalog, gpus_by_system: dict[str, int], *, oversubscription: float = 1.0,
                        ib_gbs_per_gpu: float | None = None, fabric: str = "infiniband", planes: int = 1,
                        fabric_tiers: int = 2, leaf_nodes: int = 0) -> Cluster | None:
    """The design's cluster from its GPUs by system: the system it holds most GPUs of, and all
    its GPUs of that type (None when it holds none). A mixed design trains on its dominant GPU
    type only. ``ib_gbs_per_gpu`` is the fabric's scale-out per GPU when a fabric is sized; ``fabric``,
    ``planes``, ``fabric_tiers`` and ``leaf_nodes`` (nodes one leaf reaches, 0: unknown) describe it."""
    gpus = Counter({k: v for k, v in gpus_by_system.items() if v})
    system = dominant_system(gpus)
    if system is None:
        return None
    gpu = catalog.get(system).gpu
    total = sum(n for s, n in gpus.items() if catalog.get(s).gpu == gpu)
    cluster = cluster_from_system(catalog, system, total, oversubscription=oversubscription, fabric=fabric,
                                  planes=planes)
    cluster = replace(cluster, fabric_tiers=max(int(fabric_tiers), 1),
                      leaf_gpus=max(int(leaf_nodes), 0) * cluster.gpus_per_system)
    if ib_gbs_per_gpu:
        cluster = replace(cluster, ib_gbs_per_gpu=ib_gbs_per_gpu)
    return replace(cluster, gpus=total)


def cluster_from_project(project, catalog, *, oversubscription: float = 1.0) -> Cluster | None:
    """:func:`cluster_from_counts` for a project's mounted GPU systems."""
    gpus: Counter = Counter()
    for rack in project.racks:
        for d in rack.devices:
            dev = catalog.find(d.type)
            if dev is not None and dev.gpu_count and dev.gpu:
                gpus[dev.id] += dev.gpu_count
    return cluster_from_counts(catalog, gpus, oversubscription=oversubscription)


def with_plane_lost(cluster: Cluster) -> Cluster:
    """``cluster`` with one of its two fabric planes down: every GPU keeps its NIC but half of its scale-out
    bandwidth, the job runs on (NVIDIA's Spectrum-X RA: a single switch, optic or cable failure leaves the job
    running at half bandwidth). A TrainingError for a single-plane fabric, where a lost plane stops the job."""
    if cluster.planes != 2:
        raise TrainingError(f"a {cluster.planes}-plane fabric has no plane to lose and keep running")
    return replace(cluster, ib_gbs_per_gpu=cluster.ib_gbs_per_gpu / 2)
