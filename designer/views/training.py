"""Typed views of the ``training`` section: the plan, its step time, memory, goodput and the search that chose it.

Each class mirrors one object of the section, attribute for key; the docstring names its JSON path.
"""
from __future__ import annotations

from collections.abc import Mapping

from .base import Rows, require, view


@view
class SoftwareProfile:
    """``training.software``"""
    name: str
    attention: str
    tp_overlap: bool
    dp_overlap: bool
    pp_overlap: bool
    dp_impl: str
    default_zero: int
    grad_comm_bytes: int
    recompute_modes: tuple[str, ...]
    fp8: str
    fused_kernels: bool
    context_parallel: bool
    async_checkpoint: bool
    checkpoint_sharded: bool
    ep_dispatch: str
    ep_overlap: bool
    pp_schedule: str
    #: the busiest expert-parallel rank's routed tokens over the mean (1: a balancing router)
    expert_imbalance: float
    #: the allocator grows segments page by page (PyTorch's expandable segments) rather than splitting blocks
    expandable_segments: bool
    #: what the framework can keep in host memory (none, optimizer, activations, both)
    offload_modes: tuple[str, ...]


@view
class MemoryBreakdown:
    """``training.memory_breakdown_gb``"""
    weights: float
    gradients: float
    optimizer: float
    activations: float
    #: what the caching allocator reserves for the activations but cannot use (memory.ALLOCATOR_WASTE)
    fragmentation: float
    overhead: float


@view
class TimeBreakdown:
    """``training.time_breakdown_s``"""
    compute: float
    bubble: float
    optimizer: float
    #: activation copies to and from host memory the neighbouring layers' compute does not hide
    offload: float


@view
class ExposedComm:
    """``training.exposed_comm_s``"""
    tp: float
    cp: float
    ep: float
    pp: float
    dp: float


@view
class FailureShare:
    """``training.goodput.failures.share``: each part's share of the job's interruptions"""
    gpu_and_software: float
    host: float
    fabric_link: float
    switch: float


@view
class FailureCounts:
    """``training.goodput.failures.counted``: the parts whose failures interrupt the job"""
    gpus: int
    hosts: int
    fabric_links: int
    switches: int


@view
class JobFailures:
    """``training.goodput.failures``: the design's interruption rate, from its parts"""
    job_mtbf_h: float
    failures_per_day: float
    counted: FailureCounts
    share: FailureShare
    sources: tuple[str, ...]


@view
class Goodput:
    """``training.goodput``: the checkpoint (written in ``checkpoint_s`` at ``write_gb_s``), the interval, the
    restarts and what they leave of the wall time (``ettr``); ``checkpoint_share``: what the checkpoints' pauses
    and the work redone since the last one cost"""
    job_mtbf_h: float
    checkpoint_s: float
    checkpoint_blocking_s: float
    checkpoint_interval_s: float
    young_interval_s: float
    restart_s: float
    restore_s: float
    failures_per_day: float
    ettr: float
    checkpoint_tb: float
    checkpoint_share: float
    write_gb_s: float
    read_gb_s: float
    async_checkpoint: bool
    sharded: bool
    lost_work_per_failure_s: float
    #: where the storage figures come from, the tier, and the failure breakdown (a design's analysis only)
    storage_basis: str | None = None
    storage_tier: str | None = None
    failures: JobFailures | None = None
    #: the checkpoint interval is the one the workload states, not Daly's optimum (false too when an asynchronous
    #: write outlasts the stated interval: a finding says so)
    interval_stated: bool = False
    #: interruptions per 1,000 GPU-days the workload states in place of the rate the design's parts give (None:
    #: the parts' rate, or the engine's default without a design); with it ``failures`` (the parts') is None
    failures_stated: float | None = None


@view
class TrainingEnergy:
    """``training.energy``: the run's energy and cost are null when the plan does not fit (it never runs)"""
    it_power_kw: float
    pue: float
    energy_mwh: float | None
    energy_cost: float | None
    hardware_price: float
    hardware_cost_amortized: float | None
    currency: str


@view
class RankedPlan:
    """``training.search.ranked[]``"""
    tp: int
    pp: int
    dp: int
    cp: int
    ep: int
    micro_batch: int
    virtual_stages: int
    recompute: str
    zero: int
    tokens_per_s: float
    mfu: float
    #: layers of the fullest stage run again under partial recompute (null for the other modes)
    recompute_layers: int | None
    hybrid_shard: bool
    #: what the plan keeps in host memory (none, optimizer, activations, both) and, when it offloads activations,
    #: how many layers' (null otherwise)
    offload: str
    offload_layers: int | None
    #: GPUs splitting each expert (equal to TP unless the plan folds its experts otherwise; null without experts)
    expert_tp: int | None
    memory_gb_per_gpu: float
    rank: int
    why: str


@view
class NaivePlan:
    """``training.search.naive``"""
    tp: int
    pp: int
    dp: int
    cp: int
    ep: int
    micro_batch: int
    virtual_stages: int
    recompute: str
    zero: int
    #: layers of the fullest stage run again under partial recompute (null for the other modes)
    recompute_layers: int | None
    hybrid_shard: bool
    offload: str
    offload_layers: int | None
    #: GPUs splitting each expert (equal to TP unless the plan folds its experts otherwise; null without experts)
    expert_tp: int | None
    #: null when the plan does not fit in memory (it never runs)
    tokens_per_s: float | None
    mfu: float | None
    memory_gb_per_gpu: float
    why: str
    fits: bool


@view
class PlanSearch:
    """``training.search``"""
    evaluated: int
    runnable: int
    valid: int
    ranked: Rows[RankedPlan]
    naive: NaivePlan


@view
class ScalingPoint:
    """``training.scaling[]``"""
    gpus: int
    tokens_per_s: float
    mfu: float
    time_to_train_days: float


@view
class TrainingFabric:
    """``training.fabric``: the scale-out fabric the estimate ran on"""
    technology: str
    planes: int
    scale_out_gbs_per_gpu: float
    oversubscription: float
    beyond_leaf: bool
    bandwidth_vs_infiniband: float
    network_step_latency_us: float


@view
class PlaneLost:
    """``training.scenarios.plane_lost``: the same plan with one of two fabric planes down (half the scale-out
    bandwidth, the job still running)"""
    planes_up: int
    scale_out_gbs_per_gpu: float
    tokens_per_s: float
    step_time_s: float
    time_to_train_days: float
    wall_time_days: float
    mfu: float
    exposed_comm_s: ExposedComm
    relative_tokens_per_s: float | None
    extra_days: float
    note: str


@view
class FailureScenario:
    """``training.scenarios.two_percent_gpus_a_month``: the planning figure people quote, beside the design's own"""
    job_mtbf_h: float
    ettr: float
    checkpoint_interval_s: float
    checkpoint_share: float
    wall_time_days: float | None
    note: str


@view
class TrainingScenarios:
    """``training.scenarios``: ``plane_lost`` is null unless the fabric has two planes"""
    plane_lost: PlaneLost | None = None
    two_percent_gpus_a_month: FailureScenario | None = None


@view
class DataLoading:
    """``training.data_loading``: the token stream the job reads against the storage's read GB/s"""
    bytes_per_token: int
    #: null when the plan does not fit: it never runs, so it reads nothing
    read_gb_s: float | None
    share_of_storage_read: float | None


@view
class TrainingView:
    """``training``: the estimate when ``status`` is ``"ok"``; otherwise ``status`` says why there is none
    (no GPUs in the design) or ``error`` what was wrong with the workload."""
    status: str
    workload_source: str | None = None
    gpu: str | None = None
    system: str | None = None
    gpus: int | None = None
    model: str | None = None
    params_b: float | None = None
    tp: int | None = None
    pp: int | None = None
    dp: int | None = None
    cp: int | None = None
    ep: int | None = None
    micro_batch: int | None = None
    virtual_stages: int | None = None
    recompute: str | None = None
    sequence_parallel: bool | None = None
    zero: int | None = None
    hybrid_shard: bool | None = None
    #: what the plan keeps in host memory: none, optimizer (stepped on the CPU), activations or both
    offload: str | None = None
    #: GPUs splitting each expert: TP unless the plan folds its experts otherwise (Megatron-Core's MoE parallel
    #: folding); null for a model without experts
    expert_tp: int | None = None
    global_batch: int | None = None
    seq: int | None = None
    precision: str | None = None
    tokens: float | None = None
    software: SoftwareProfile | None = None
    step_time_s: float | None = None
    tokens_per_s: float | None = None
    tokens_per_s_per_gpu: float | None = None
    tflops_per_gpu: float | None = None
    hw_tflops_per_gpu: float | None = None
    mfu: float | None = None
    hfu: float | None = None
    model_flops_per_step: float | None = None
    micro_batches: int | None = None
    idle_gpus: int | None = None
    memory_gb_per_gpu: float | None = None
    hbm_gb: float | None = None
    fits: bool | None = None
    memory_breakdown_gb: MemoryBreakdown | None = None
    #: layers of the fullest pipeline stage run again under partial recompute (null for the other modes)
    recompute_layers: int | None = None
    #: layers whose activations go to host memory (null unless the plan offloads activations), and the host memory
    #: a GPU's offloaded state takes, GB
    offload_layers: int | None = None
    host_memory_gb_per_gpu: float | None = None
    time_breakdown_s: TimeBreakdown | None = None
    exposed_comm_s: ExposedComm | None = None
    bubble_fraction: float | None = None
    time_to_train_days: float | None = None
    gpu_hours: float | None = None
    goodput: Goodput | None = None
    wall_time_days: float | None = None
    energy: TrainingEnergy | None = None
    problems: tuple[str, ...] | None = None
    #: the vendor's reason its figures are preliminary (null when they are not)
    preliminary: str | None = None
    #: per-GPU power cap, W (null: none) and the clock it leaves, over the clock at TDP
    gpu_power_cap_w: float | None = None
    clock_ratio: float | None = None
    #: what the estimate rests on beyond measured hardware (preliminary figures, derived efficiencies, a cap)
    notes: tuple[str, ...] | None = None
    chosen: Mapping[str, str] | None = None
    search: PlanSearch | None = None
    #: the best plan at smaller sizes; None where the analysis was run without the chart (the goal planner's)
    scaling: Rows[ScalingPoint] | None = None
    fabric: TrainingFabric | None = None
    scenarios: TrainingScenarios | None = None
    data_loading: DataLoading | None = None
    error: str | None = None

    def __post_init__(self):
        if self.status == "ok":
            require(self, "training", _ESTIMATE)
            if self.fits:
                require(self, "training", _RUN)
                require(self.energy, "training.energy", _RUN_ENERGY)

    @property
    def runs(self) -> bool:
        """An estimate was made and its plan fits in GPU memory: it has a throughput, a time and an energy."""
        return self.status == "ok" and bool(self.fits)

    @property
    def ok(self) -> bool:
        """An estimate was made (the design has GPUs and the workload could be planned)."""
        return self.status == "ok"


#: What an estimate always holds (``search`` only when the plan was searched for).
_ESTIMATE = ("workload_source", "gpu", "system", "gpus", "model", "params_b", "tp", "pp", "dp", "cp", "ep",
             "micro_batch", "virtual_stages", "recompute", "sequence_parallel", "zero", "hybrid_shard", "offload",
             "global_batch", "seq", "precision", "tokens", "software", "model_flops_per_step",
             "micro_batches", "idle_gpus", "memory_gb_per_gpu", "hbm_gb", "fits", "memory_breakdown_gb",
             "host_memory_gb_per_gpu", "goodput", "energy", "problems", "clock_ratio", "notes", "chosen")
#: What only a plan that fits holds (designer.training.estimate.RUN_FIGURES: null when it does not fit).
_RUN = ("step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "tflops_per_gpu", "hw_tflops_per_gpu", "mfu", "hfu",
        "time_breakdown_s", "exposed_comm_s", "bubble_fraction", "time_to_train_days", "gpu_hours",
        "wall_time_days")
#: The run's energy figures (designer.training.estimate.RUN_ENERGY), held only by a plan that fits.
_RUN_ENERGY = ("energy_mwh", "energy_cost", "hardware_cost_amortized")
