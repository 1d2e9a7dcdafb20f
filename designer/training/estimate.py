"""One plan's full estimate: the engine's figures plus time to train, goodput, energy and cost."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..gpu_power import EXPONENT, STATIC_SHARE
from .compute import FP4_BF16_LAYER_SHARE
from .efficiency import DERIVED_FROM
from .engine import REASONS, evaluate
from .errors import TrainingError
from .goodput import goodput
from .memory import offload_layers, recompute_layers
from .offload import HOST_USABLE
from .plan import Plan, Training, columns


@dataclass(frozen=True)
class Estimate:
    model: object
    training: Training
    plan: Plan
    cluster: object
    figures: dict = field(compare=False)
    problems: tuple[str, ...] = ()

    def __getattr__(self, name):  # estimate.step_time_s, estimate.mfu, ...
        figs = object.__getattribute__(self, "figures")
        if name in figs:
            return figs[name]
        raise AttributeError(name)

    def to_json(self) -> dict:
        p = self.plan
        out = {"gpu": self.cluster.gpu, "system": self.cluster.system, "gpus": self.cluster.gpus,
               "model": self.model.name, "params_b": round(self.model.params / 1e9, 3),
               "tp": p.tp, "pp": p.pp, "dp": p.dp, "cp": p.cp, "ep": p.ep, "micro_batch": p.micro_batch,
               "virtual_stages": p.virtual_stages, "recompute": p.recompute,
               "sequence_parallel": p.sequence_parallel, "zero": p.zero, "hybrid_shard": p.hybrid_shard,
               "offload": p.offload, "expert_tp": p.etp if self.model.moe else None,
               "global_batch": self.training.global_batch, "seq": self.model.seq,
               "precision": self.training.precision, "tokens": self.training.tokens,
               "software": self.training.software.to_json()}
        out.update(self.figures)
        out["problems"] = list(self.problems)
        out["preliminary"] = self.cluster.preliminary or None
        out["gpu_power_cap_w"] = self.cluster.gpu_power_cap_w
        out["clock_ratio"] = round(self.cluster.clock_ratio, 4)
        out["notes"] = notes(self.cluster, self.training)
        out["fabric"] = fabric_json(self.cluster)
        return out


def fabric_json(cluster) -> dict:
    """The scale-out fabric the estimate ran on: technology, planes, per-GPU bandwidth and what the
    technology delivers of InfiniBand's bus bandwidth (designer/fabric/technology.py)."""
    from .comm import fabric_factor, net_hop_us

    return {"technology": cluster.fabric, "planes": cluster.planes,
            "scale_out_gbs_per_gpu": round(cluster.ib_gbs_per_gpu, 3),
            "oversubscription": cluster.oversubscription, "beyond_leaf": cluster.beyond_leaf,
            "bandwidth_vs_infiniband": round(fabric_factor(cluster), 4),
            "network_step_latency_us": round(net_hop_us(cluster, "simple"), 3)}


def notes(cluster, training) -> list[str]:
    """What an estimate rests on beyond measured hardware: each a line the reader should see beside it."""
    out = []
    if cluster.preliminary:
        out.append(f"preliminary: {cluster.preliminary}; this estimate is only as firm as those figures")
    base = DERIVED_FROM.get(cluster.generation)
    if base:
        out.append(f"no measured {cluster.generation.title()} training runs exist: its sustained efficiencies are "
                   f"{base.title()}'s, applied to the datasheet peaks")
    if training.precision == "fp4":
        out.append(f"FP4 (NVFP4): published recipe, not production-proven (NVIDIA, arXiv 2509.25149: a 12B model "
                   f"on 10T tokens); {1 - FP4_BF16_LAYER_SHARE:.0%} of the linear-layer GEMMs at the dense NVFP4 "
                   f"peak ({cluster.fp4_tflops:,.0f} TFLOP/s, not the sparse inference figure), the rest, attention "
                   f"and the output layer in BF16; no sustained FP4 GEMM rate is published")
    if cluster.gpu_power_cap_w is not None:
        out.append(f"GPUs capped at {cluster.gpu_power_cap_w:g} W of their {cluster.tdp_w:g} W TDP: compute-bound work "
                   f"at {cluster.clock_ratio:.1%} of the clock at TDP (modelled: P = P_static + "
                   f"(P_TDP - P_static)·(f/f_TDP)^{EXPONENT:g}, P_static {STATIC_SHARE:.0%} of TDP)")
    return out


#: A pipeline bubble above this share of the step is worth a problem (Narayanan 2021 keep it
#: under about a fifth with interleaving and enough micro-batches).
BUBBLE_LIMIT = 0.20


#: Interleavings a bubble problem may propose (evaluated beside the plan itself, in one pass).
V_CANDIDATES = (2, 3, 4, 6, 8, 12, 16)


def _bubble_problem(plan: Plan, res, fraction: float, candidates) -> tuple[str, ...]:
    """A problem when the bubble exceeds BUBBLE_LIMIT, naming the virtual stages that fix it
    (``res`` rows 1… are the plan at each of ``candidates`` virtual stages)."""
    if plan.pp < 2 or fraction <= BUBBLE_LIMIT:
        return ()
    ok = [(float(res["bubble_fraction"][i + 1]), v) for i, v in enumerate(candidates)
          if not any(res["bad"][k][i + 1] for k in ("interleave", "memory", "partial"))]
    text = f"pipeline bubble is {fraction * 100:.0f} % of the step (PP {plan.pp}, {int(res['micro_batches'][0])} " \
           f"micro-batches, {plan.virtual_stages} virtual stage{'s' if plan.virtual_stages > 1 else ''})"
    good = [(f, v) for f, v in ok if f <= BUBBLE_LIMIT]
    if good:
        f, v = min(good, key=lambda fv: fv[1])
        return (f"{text}; --virtual-stages {v} would bring it to {f * 100:.0f} %",)
    if ok:
        f, v = min(ok)
        return (f"{text}; the best interleaving (--virtual-stages {v}) still leaves {f * 100:.0f} %: "
                f"use more micro-batches (a larger global batch or smaller micro-batch) or fewer stages",)
    return (f"{text}; no interleaving fits: use more micro-batches or fewer stages",)


def _r(x, nd=4):
    return round(float(x), nd)


#: The figures only a running plan has. A plan that does not fit in GPU memory never takes a step, so it has no
#: speed, no time to train and no energy: each is None (null in JSON), never a figure counted as if it ran.
RUN_FIGURES = ("step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "tflops_per_gpu", "hw_tflops_per_gpu", "mfu",
               "hfu", "time_breakdown_s", "exposed_comm_s", "bubble_fraction", "time_to_train_days", "gpu_hours",
               "wall_time_days")
#: The energy figures of a run (the hardware's price stands whether or not the plan fits).
RUN_ENERGY = ("energy_mwh", "energy_cost", "hardware_cost_amortized")


def memory_short(mem: dict, i: int, hbm_gb: float) -> str:
    """What a plan that does not fit lacks, in words: how far over the GPU's memory it is and its largest part."""
    parts = {"weights": mem["weights_gb"][i], "gradients": mem["gradients_gb"][i],
             "optimizer state": mem["optimizer_gb"][i], "activations": mem["activations_gb"][i]}
    largest = max(parts, key=parts.get)
    return (f"needs {float(mem['total_gb'][i]):,.1f} GB per GPU of {hbm_gb:g} GB "
            f"({float(mem['total_gb'][i]) - hbm_gb:,.1f} GB over; {largest} {float(parts[largest]):,.1f} GB "
            f"the largest part)")


def estimate(model, training: Training, plan: Plan, cluster, *, allow_idle: bool = False) -> Estimate:
    """Every figure for one plan. Raises TrainingError for plans that cannot run at all
    (do not divide the GPUs, the batch or the layers); a plan that merely does not fit in
    memory or puts TP across InfiniBand is estimated, with ``fits`` False / a problem listed."""
    model = model.validate()
    training = training.validate()
    cluster = cluster.validate()
    if plan.gpus > cluster.gpus or (plan.gpus != cluster.gpus and not allow_idle):
        raise TrainingError(f"plan TP{plan.tp}×PP{plan.pp}×DP{plan.dp}×CP{plan.cp} = {plan.gpus} GPUs "
                            f"does not equal the cluster's {cluster.gpus}")
    for f in ("tp", "pp", "dp", "cp", "ep", "micro_batch", "virtual_stages", "etp"):
        if getattr(plan, f) < 1:
            name = "expert-tp" if f == "etp" else f.replace("_", "-")
            raise TrainingError(f"plan: {name} must be at least 1, got {getattr(plan, f)}")
    from dataclasses import replace

    candidates = [v for v in V_CANDIDATES if v != plan.virtual_stages] if plan.pp > 1 else []
    cols = columns([plan] + [replace(plan, virtual_stages=v) for v in candidates])
    res = evaluate(model, training, cols, cluster)
    fatal = [k for k in ("gpus", "batch", "layers", "interleave", "schedule", "heads", "seq", "experts",
                         "expert-grid", "expert-tp", "moe-sp", "zero",
                         "recompute", "partial", "offload", "offload-idle") if res["bad"][k][0]]
    if fatal:
        raise TrainingError(f"plan {plan.tp}/{plan.pp}/{plan.dp}/{plan.cp} (TP/PP/DP/CP): {REASONS[fatal[0]]}")
    if res["bad"]["host"][0]:
        raise TrainingError(f"plan {plan.tp}/{plan.pp}/{plan.dp}/{plan.cp} (TP/PP/DP/CP) offloading {plan.offload}: "
                            f"{REASONS['host']} ({float(res['memory']['host_gb'][0]):,.1f} GB of "
                            f"{cluster.host_gb_per_gpu:,.0f} GB, of which {HOST_USABLE:.0%} may be filled)")
    idle = cluster.gpus - plan.gpus
    spare = (f"{idle:,} of the {cluster.gpus:,} GPUs stay idle (spares): the plan's {plan.gpus:,} are the most that "
             f"TP{plan.tp}×PP{plan.pp}×CP{plan.cp} and the global batch divide",) if idle else ()
    mem = res["memory"]
    fits = not res["bad"]["memory"][0]
    # a plan that does not fit has no bubble to speak of: it never takes a step
    problems = spare + tuple(REASONS[k] + ("" if fits or k != "memory" else ": " + memory_short(mem, 0, cluster.hbm_gb))
                             for k in ("memory", "tp-ib") if res["bad"][k][0]) + (_bubble_problem(
        plan, res, float(res["bubble_fraction"][0]), candidates) if fits else ())
    tok_s = float(res["tokens_per_s"][0])
    train_s = training.tokens / tok_s
    gp = goodput(model.params, cluster.gpus, training)
    wall_s = train_s / gp["ettr"]
    kw_it = cluster.power_typical_w_per_gpu * cluster.gpus / 1000
    energy_mwh = kw_it * training.pue * wall_s / 3600 / 1000
    capex = cluster.price_per_gpu * cluster.gpus
    figures = {
        "step_time_s": _r(res["step_time_s"][0], 4), "tokens_per_s": _r(tok_s, 1),
        "tokens_per_s_per_gpu": _r(res["tokens_per_s_per_gpu"][0], 2),
        "tflops_per_gpu": _r(res["tflops_per_gpu"][0], 1), "hw_tflops_per_gpu": _r(res["hw_tflops_per_gpu"][0], 1),
        "mfu": _r(res["mfu"][0]), "hfu": _r(res["hfu"][0]),
        "model_flops_per_step": float(model.model_flops_per_token() * training.global_batch * model.seq),
        "micro_batches": int(res["micro_batches"][0]), "idle_gpus": int(idle),
        "memory_gb_per_gpu": _r(mem["total_gb"][0], 2), "hbm_gb": cluster.hbm_gb,
        "fits": fits,
        "memory_breakdown_gb": {k[:-3]: _r(mem[k][0], 2) for k in
                                ("weights_gb", "gradients_gb", "optimizer_gb", "activations_gb", "fragmentation_gb",
                                 "overhead_gb")},
        "recompute_layers": recompute_layers(mem, 0, plan.recompute),
        "offload_layers": offload_layers(mem, 0, plan.offload),
        "host_memory_gb_per_gpu": _r(mem["host_gb"][0], 2),
        "time_breakdown_s": {"compute": _r(res["compute_s"][0]), "bubble": _r(res["bubble_s"][0]),
                             "optimizer": _r(res["optimizer_s"][0]), "offload": _r(res["offload_s"][0])},
        "exposed_comm_s": {k: _r(res[f"exposed_{k}_s"][0]) for k in ("tp", "cp", "ep", "pp", "dp")},
        "bubble_fraction": _r(res["bubble_fraction"][0]),
        "time_to_train_days": _r(train_s / 86400, 2),
        "gpu_hours": _r(train_s * cluster.gpus / 3600, 0),
        "goodput": {k: _r(v, 4) if isinstance(v, float) else v for k, v in gp.items()},
        "wall_time_days": _r(wall_s / 86400, 2),
        "energy": {"it_power_kw": _r(kw_it, 1), "pue": training.pue, "energy_mwh": _r(energy_mwh, 1),
                   "energy_cost": _r(energy_mwh * 1000 * training.electricity_per_kwh, 0),
                   "hardware_price": _r(capex, 0),
                   "hardware_cost_amortized": _r(capex * wall_s / (training.amortization_years * 365.25 * 86400), 0),
                   "currency": cluster.currency},
    }
    if not fits:
        figures.update(dict.fromkeys(RUN_FIGURES))
        figures["energy"].update(dict.fromkeys(RUN_ENERGY))
    return Estimate(model, training, plan, cluster, figures, problems)
