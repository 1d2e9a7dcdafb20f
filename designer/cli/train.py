"""``podplanner train``: one plan's estimate, or the best plan with ``--search``.

``designer/cli/main.py`` wires ``add_parser(subparsers)`` and ``run(args, catalog)`` in;
``run`` raises TrainingError (a ValueError) with a one-line message for bad inputs.
"""
from __future__ import annotations

import argparse
import math
import sys

from ..fabric.technology import TECHNOLOGY_NAMES
from ..training.errors import NothingFits, TrainingError
from ..gpu_power import gpu_name
from ..training.hardware import cluster_from_gpu, cluster_from_system, with_power_cap
from ..training.models import ACTIVATIONS, PRESETS, model_from_params, override, preset
from ..training.plan import OFFLOAD, RECOMPUTE, Training
from ..training.planner import best_plan, given_plan
from ..training.section import plane_lost
from ..training.batch import default_global_batch
from ..training.software import (ATTENTION, DEFAULT_PROFILE, DP_IMPL, EP_DISPATCH, FP8_RECIPE, KNOBS, MAX_IMBALANCE,
                                 PP_SCHEDULE, PROFILES, profile)
from .flags import real, whole
from .json_output import print_json


#: Bounds of the numeric flags, so that nothing non-finite or absurd reaches the engine (exit 2 at parse).
#: Parallel degrees and GPU counts stop at a million GPUs, five times the largest cluster built (~200k);
#: model shapes at several times the largest published (Llama 3 405B: 126 layers, hidden 16,384, 128 heads,
#: vocabulary 128k; PaLM: FFN 73,728; contexts of millions of tokens). None: the engine checks that side
#: itself with its own message (--tp must be at least 1; a model's sizes are positive; the global batch,
#: 1 to 2^40 sequences).
MAX_GPUS = 1_000_000
_SHAPE = {"layers": whole(None, 1_000), "hidden": whole(None, 131_072), "ffn-hidden": whole(None, 524_288),
          "heads": whole(None, 1_024), "kv-heads": whole(None, 1_024), "vocab": whole(None, 4_194_304),
          "seq": whole(None, 16_777_216), "experts": whole(None, 4_096), "top-k": whole(None, 256)}
#: The newer shape fields (latent attention, shared experts, dense first layers, MTP): 0 means "not used".
_SHAPE_EXTRA = {"head-dim": ("head_size", whole(0, 4_096), "query/key head size when not hidden/heads (with MLA: "
                                                            "its non-rotary part)"),
                "q-rank": ("q_rank", whole(0, 131_072), "MLA: rank of the query latent (0: no query latent)"),
                "kv-rank": ("kv_rank", whole(0, 131_072), "MLA: rank of the key-value latent (0: grouped-query "
                                                           "attention)"),
                "rope-dim": ("rope_dim", whole(0, 4_096), "MLA: rotary dims per query/key head"),
                "v-head-dim": ("v_head_size", whole(0, 4_096), "MLA: value head size"),
                "expert-ffn-hidden": ("expert_ffn_hidden", whole(0, 524_288), "FFN width of a routed expert when "
                                                                              "not --ffn-hidden"),
                "shared-experts": ("shared_experts", whole(0, 256), "experts every token passes through"),
                "dense-layers": ("dense_layers", whole(0, 1_000), "the first N layers are dense"),
                "route-nodes": ("route_nodes", whole(0, 4_096), "node-limited routing: a token's experts on at "
                                                                "most N nodes"),
                "mtp-depth": ("mtp_depth", whole(0, 64), "multi-token prediction modules")}
_PLAN = {"tp": whole(None, MAX_GPUS), "pp": whole(None, MAX_GPUS), "dp": whole(None, MAX_GPUS),
         "cp": whole(None, MAX_GPUS), "ep": whole(None, MAX_GPUS),
         "expert-tp": whole(None, MAX_GPUS),
         "micro-batch": whole(None, 65_536),  # sequences one GPU holds at once
         "virtual-stages": whole(None, 1_000)}  # a virtual stage holds at least one layer


_PLAN_HELP = {"expert-tp": "GPUs splitting each expert, apart from TP (Megatron-Core's --expert-tensor-parallel-size; "
                           "default: TP; 1 keeps experts whole)"}


def add_parser(subparsers):
    t = subparsers.add_parser("train", help="estimate LLM training throughput, memory and time for a plan, "
                                            "or search for the best plan")
    where = t.add_mutually_exclusive_group()
    where.add_argument("--gpu", metavar="ID", help="GPU type (a100, h100, h200, b200, gb200, b300, gb300, rubin)")
    where.add_argument("--system", metavar="ID", help="system (dgx-a100, dgx-h100, dgx-h200, dgx-b200, gb200-nvl72, "
                                                      "dgx-b300, dgx-b300-dc, gb300-nvl72, vera-rubin-nvl72, "
                                                      "dgx-rubin-nvl8)")
    t.add_argument("--gpus", type=whole(1, MAX_GPUS), metavar="N", help="GPU count (default: one system)")
    # down:up at the leaf, as the design's settings bound it: 1 (non-blocking) to 64
    t.add_argument("--oversubscription", type=real(1, 64), default=1.0, metavar="X", help="fabric down:up ratio")
    t.add_argument("--fabric", choices=TECHNOLOGY_NAMES, type=str.lower, default="infiniband",
                   help="scale-out fabric technology: infiniband (adaptive routing), spectrum-x (RoCE with "
                        "adaptive routing) or roce (RoCE with ECMP hashing); default infiniband")
    t.add_argument("--planes", type=whole(1, 2), choices=(1, 2), default=1, metavar="N",
                   help="fabric planes each GPU's port is split over, 1 or 2 (2: Spectrum-X twin-plane; "
                        "adds the plane-lost scenario)")
    # the range depends on the GPU (its floor to its TDP): the engine checks it, with its own message
    t.add_argument("--gpu-power-w", type=real(None, None), metavar="W",
                   help="cap each GPU's power at W watts (nvidia-smi -pl): slower clock, lower draw")
    what = t.add_mutually_exclusive_group()
    what.add_argument("--model", metavar="PRESET", help=f"model preset: {', '.join(PRESETS)}")
    # a million parameters is a toy; 1e14 is hundreds of times the largest model trained (~2e12)
    what.add_argument("--params", type=real(1e6, 1e14), metavar="N",
                      help="parameter count (e.g. 7e10) for a Llama-style shape")
    for n, kind in _SHAPE.items():
        t.add_argument(f"--{n}", type=kind, metavar="N")
    for n, (_, kind, text) in _SHAPE_EXTRA.items():
        t.add_argument(f"--{n}", type=kind, metavar="N", help=text)
    t.add_argument("--tied-embeddings", action=argparse.BooleanOptionalAction, default=None,
                   help="the output layer shares the input embedding's weights")
    t.add_argument("--activation", choices=ACTIVATIONS, type=str.lower)
    t.add_argument("--global-batch", type=whole(None, None), metavar="SEQ", help="sequences per step")
    # 1e16 is hundreds of times the largest corpora trained on (15-36e12 tokens); 0 and below: the engine says
    t.add_argument("--tokens", type=real(None, 1e16), metavar="N", help="token budget (default 15e12)")
    for n, kind in _PLAN.items():
        t.add_argument(f"--{n}", type=kind, metavar="N", help=_PLAN_HELP.get(n))
    t.add_argument("--recompute", choices=RECOMPUTE, type=str.lower)
    t.add_argument("--offload", choices=OFFLOAD, type=str.lower,
                   help="keep in host memory: the optimizer state (stepped on the CPU), the activations of as many "
                        "layers as memory needs (PP 1, no recompute), or both")
    t.add_argument("--precision", choices=("bf16", "fp8", "fp4"), type=str.lower, default="bf16",
                   help="GEMM precision; fp4 is NVIDIA's published NVFP4 recipe, not production-proven")
    t.add_argument("--zero", type=whole(0, 3), choices=(0, 1, 2, 3), help="ZeRO/FSDP stage of the data-parallel group")
    t.add_argument("--hybrid-shard", action=argparse.BooleanOptionalAction, default=None,
                   help="shard ZeRO/FSDP state inside an NVLink domain and replicate across (HSDP)")
    sw = t.add_argument_group("software (a profile, and single knobs that override it)")
    sw.add_argument("--software", metavar="PROFILE", type=str.lower,
                    help=f"software profile: {', '.join(PROFILES)} (default {DEFAULT_PROFILE})")
    sw.add_argument("--attention", choices=ATTENTION, type=str.lower, help="attention kernel")
    sw.add_argument("--tp-overlap", action=argparse.BooleanOptionalAction, default=None,
                    help="overlap tensor-parallel communication with GEMMs")
    sw.add_argument("--dp-overlap", action=argparse.BooleanOptionalAction, default=None,
                    help="overlap data-parallel reductions and ZeRO-3 gathers with compute")
    sw.add_argument("--pp-overlap", action=argparse.BooleanOptionalAction, default=None,
                    help="overlap pipeline send/receive with compute")
    sw.add_argument("--dp-impl", choices=DP_IMPL, type=str.lower,
                    help="data-parallel implementation: Megatron distributed optimizer, DeepSpeed ZeRO, PyTorch FSDP")
    sw.add_argument("--grad-comm-bytes", type=whole(2, 4), choices=(2, 4), help="bytes per gradient element reduced")
    sw.add_argument("--fp8-recipe", dest="fp8", choices=FP8_RECIPE, type=str.lower,
                    help="FP8 recipe of the framework (none: no FP8)")
    sw.add_argument("--ep-dispatch", choices=EP_DISPATCH, type=str.lower,
                    help="expert dispatch: alltoall (every routed copy) or deepep (once per node, forwarded over "
                         "NVLink; FP8 when training in FP8)")
    sw.add_argument("--ep-overlap", action=argparse.BooleanOptionalAction, default=None,
                    help="overlap expert all-to-alls with another micro-batch's compute (DualPipe, dual-batch overlap)")
    sw.add_argument("--expert-imbalance", type=real(1, MAX_IMBALANCE), metavar="X",
                    help="the busiest expert rank's routed tokens over the mean (default 1: a balancing router, "
                         "its random spread charged; a learned router running dropless left 1.8 on Qwen3-235B "
                         "early in training)")
    sw.add_argument("--pp-schedule", choices=PP_SCHEDULE, type=str.lower,
                    help="pipeline schedule: 1f1b (interleaved with --virtual-stages) or dualpipe")
    sw.add_argument("--async-checkpoint", action=argparse.BooleanOptionalAction, default=None,
                    help="save checkpoints asynchronously: the job pauses only to copy them to host memory")
    sw.add_argument("--checkpoint-sharded", action=argparse.BooleanOptionalAction, default=None,
                    help="every rank writes its share of a checkpoint (default); --no-checkpoint-sharded: one "
                         "consolidated file through one host")
    t.add_argument("--search", action="store_true", help="find the best plan (given plan flags are kept fixed)")
    t.add_argument("--json", action="store_true", help="print one JSON document")
    return t


def _model(args):
    fields = dict(layers=args.layers, hidden=args.hidden, ffn_hidden=args.ffn_hidden, heads=args.heads,
                  kv_heads=args.kv_heads, vocab=args.vocab, seq=args.seq, experts=args.experts, top_k=args.top_k,
                  activation=args.activation, tied_embeddings=args.tied_embeddings,
                  **{field: getattr(args, flag.replace("-", "_")) for flag, (field, _, _) in _SHAPE_EXTRA.items()})
    if args.model:
        base = preset(args.model)
    elif args.params:
        base = model_from_params(args.params, seq=args.seq or 4096)
    elif args.layers is not None and args.hidden is not None:
        h = args.hidden
        base = model_from_params(12 * args.layers * h * h, name="custom")
        fields.setdefault("heads", None)
        if not args.heads:
            fields["heads"] = max(1, h // 128)
        if not args.ffn_hidden:
            fields["ffn_hidden"] = 4 * h
        if not args.kv_heads:
            fields["kv_heads"] = args.heads or max(1, h // 128)
    else:
        raise TrainingError("give --model PRESET, --params N, or at least --layers and --hidden")
    for k in ("layers", "hidden", "seq"):
        if fields.get(k) is not None and fields[k] <= 0:
            raise TrainingError(f"--{k} must be a positive integer, got {fields[k]}")
    return override(base, **fields)


def _cluster(args, catalog):
    if args.gpus is not None and args.gpus <= 0:
        raise TrainingError(f"--gpus must be positive, got {args.gpus}")
    net = {"oversubscription": args.oversubscription, "fabric": getattr(args, "fabric", None) or "infiniband",
           "planes": getattr(args, "planes", None) or 1}
    if args.system:
        cluster = cluster_from_system(catalog, args.system, args.gpus, **net)
    else:
        # a bare GPU id trains on its usual chassis (hardware.SYSTEM_FOR_GPU): domain, fabric, power, price
        cluster = cluster_from_gpu(catalog, args.gpu or "h100", args.gpus or 8, **net)
    return with_power_cap(cluster, getattr(args, "gpu_power_w", None))


def build(args, catalog):
    """(model, training, cluster, fixed plan fields) from parsed flags."""
    model = _model(args)
    cluster = _cluster(args, catalog)
    tokens = args.tokens if args.tokens is not None else 15e12
    if not math.isfinite(tokens) or tokens <= 0:
        raise TrainingError(f"token budget must be positive, got {tokens!r}")
    if args.global_batch is not None:
        gbs, why = args.global_batch, "given"
    else:
        gbs, why = default_global_batch(model, cluster.gpus, cluster.nvlink_domain, tokens)
    software = profile(args.software, **{k: getattr(args, k, None) for k in KNOBS})
    training = Training(global_batch=gbs, tokens=tokens, precision=args.precision, software=software).validate()
    for flag in ("tp", "pp", "dp", "cp", "ep", "micro_batch", "virtual_stages", "expert_tp"):
        value = getattr(args, flag, None)
        if value is not None and value < 1:
            raise TrainingError(f"--{flag.replace('_', '-')} must be at least 1, got {value}")
    if args.expert_tp and not model.moe:
        raise TrainingError(f"--expert-tp splits experts; {model.name} has none")
    fixed = {"tp": args.tp, "pp": args.pp, "dp": args.dp, "cp": args.cp, "ep": args.ep, "b": args.micro_batch,
             "v": args.virtual_stages, "rc": RECOMPUTE.index(args.recompute) if args.recompute else None,
             "zero": args.zero, "hs": None if args.hybrid_shard is None else int(args.hybrid_shard),
             "off": OFFLOAD.index(args.offload) if args.offload else None, "etp": args.expert_tp}
    return model, training, cluster, {k: v for k, v in fixed.items() if v is not None}, why


def run(args, catalog) -> int:
    model, training, cluster, fixed, batch_why = build(args, catalog)
    summary = None
    chosen = {"global_batch": batch_why} if batch_why != "given" else {}
    if args.search:
        try:
            est, summary = best_plan(model, training, cluster, **fixed)
        except NothingFits as exc:  # an answer, as a plan that does not fit is: memory binds (exit 1, not 2)
            print(f"podplanner: train: {exc}", file=sys.stderr)
            return 1
    else:
        names = {"b": "micro_batch", "v": "virtual_stages", "hs": "hybrid_shard", "etp": "expert_tp"}
        fields = {names.get(k, k): v for k, v in fixed.items() if k not in ("rc", "off")}
        fields["recompute"] = args.recompute
        fields["offload"] = args.offload
        est, picked = given_plan(model, training, cluster, fields)
        chosen.update(picked)
    doc = est.to_json()
    doc["chosen"] = chosen
    if summary:
        doc["search"] = summary
    doc["scenarios"] = {"plane_lost": plane_lost(est)}
    # no design here: the checkpoints take the engine's stated default, which says so (analyze gives a design's)
    doc["goodput"]["storage_basis"] = (f"the engine's default of {training.checkpoint_gbs_per_gpu:g} GB/s per GPU "
                                       "(BLOOM's checkpoint writes); analyze a design for its own storage")
    # a plan that does not fit is an answer, not an error in the input: exit 1, as a design with errors does
    code = 0 if est.fits else 1
    if args.json:
        print_json(doc)
        return code
    _print_text(doc)
    if not args.search and (doc.get("problems") or doc.get("idle_gpus")):
        # the plan given (or the pure data-parallel default) cannot use these GPUs well: say what does
        print("  hint: run with --search for the fastest plan that fits in memory and uses every GPU")
    return code


def _recompute(d: dict) -> str:
    """The recompute mode as read: partial says how many of the fullest stage's layers run again."""
    k = d.get("recompute_layers")
    if k is None:
        return d["recompute"]
    v = d.get("virtual_stages") or 1
    chunk = f", {k // v} a virtual stage" if v > 1 else ""  # Megatron's --recompute-num-layers counts per chunk
    return f"partial ({k} layer{'s' if k != 1 else ''} a stage{chunk})"


def _offload(d: dict) -> str:
    """What the plan keeps in host memory, as read ("" when nothing): activation offload says how many layers."""
    mode = d.get("offload") or "none"
    if mode == "none":
        return ""
    k = d.get("offload_layers")
    if k is None:
        return f" offload {mode}"
    if mode == "activations":
        return f" offload activations ({k} layer{'s' if k != 1 else ''})"
    whose = "1 layer's" if k == 1 else f"{k} layers'"
    return f" offload optimizer and {whose} activations"


def _expert_tp(d: dict) -> str:
    """" ETP1" where a plan's experts are split otherwise than its attention (MoE parallel folding)."""
    etp = d.get("expert_tp")
    return f" ETP{etp}" if etp and etp != d["tp"] else ""


def _print_text(d: dict) -> None:
    print(f"{d['model']} ({d['params_b']:.1f} B params) on {d['gpus']}× {gpu_name(d['gpu'])}, {d['precision']}, "
          f"global batch {d['global_batch']} × {d['seq']}")
    print(f"  plan: TP{d['tp']} PP{d['pp']} DP{d['dp']} CP{d['cp']} EP{d['ep']}{_expert_tp(d)} v{d['virtual_stages']} "
          f"micro-batch {d['micro_batch']} recompute {_recompute(d)} ZeRO-{d['zero']}"
          + (" hybrid-sharded" if d.get("hybrid_shard") else "") + _offload(d))
    sw = d["software"]
    print(f"  software {sw['name']}: attention {sw['attention']}, TP overlap {'on' if sw['tp_overlap'] else 'off'}, "
          f"DP overlap {'on' if sw['dp_overlap'] else 'off'}, PP overlap {'on' if sw['pp_overlap'] else 'off'}, "
          f"data parallel {sw['dp_impl']}, FP8 {sw['fp8']}"
          + (f", experts {sw['ep_dispatch']} dispatch{' overlapped' if sw['ep_overlap'] else ''}"
             + (f", busiest rank {sw['expert_imbalance']:g}x the mean" if sw["expert_imbalance"] != 1 else "")
             if d["ep"] > 1 else "")
          + (f", {sw['pp_schedule']} pipeline" if d["pp"] > 1 else ""))
    for field, why in d.get("chosen", {}).items():
        print(f"  {field.replace('_', ' ')}: {why}")
    if d["fits"]:
        print(f"  step {d['step_time_s']:.3f} s, {d['tokens_per_s']:,.0f} tokens/s, "
              f"{d['tflops_per_gpu']:.0f} TFLOP/s/GPU, "
              f"MFU {d['mfu'] * 100:.1f} %, HFU {d['hfu'] * 100:.1f} %"
              # MFU is of the dense BF16 peak, as papers report it: an FP8 or FP4 run on Rubin (FP8 at 4.4 times its
              # BF16) passes 100 %, which reads as a fault unless said
              + (" (of the dense BF16 peak)" if d.get("precision") != "bf16" else ""))
    else:  # it never takes a step: no speed, no time, no energy to show
        print("  no throughput: the plan does not fit in GPU memory, so it does not run")
    fit = "fits" if d["fits"] else "DOES NOT FIT"
    print(f"  memory {d['memory_gb_per_gpu']:.1f} of {d['hbm_gb']:g} GB per GPU ({fit}): "
          + ", ".join(f"{k} {v:.1f}" for k, v in d["memory_breakdown_gb"].items())
          + (f"; {d['host_memory_gb_per_gpu']:.1f} GB in host memory" if d.get("host_memory_gb_per_gpu") else ""))
    if d["fits"]:
        print("  exposed comm (s/step): " + ", ".join(f"{k} {v:.3f}" for k, v in d["exposed_comm_s"].items())
              + f"; bubble {d['bubble_fraction'] * 100:.1f} %")
    f = d.get("fabric")
    if f:
        print(f"  fabric {f['technology']}, {f['planes']} plane{'s' if f['planes'] > 1 else ''}: "
              f"{f['scale_out_gbs_per_gpu']:g} GB/s per GPU, {f['bandwidth_vs_infiniband'] * 100:.1f} % of "
              f"InfiniBand's bus bandwidth, {f['network_step_latency_us']:.2f} us a network step")
    lost = (d.get("scenarios") or {}).get("plane_lost")
    if lost:
        print(f"  plane lost: {lost['tokens_per_s']:,.0f} tokens/s ({lost['relative_tokens_per_s'] * 100:.1f} % of "
              f"normal), step {lost['step_time_s']:.3f} s, {lost['time_to_train_days']:.1f} days compute "
              f"(+{lost['extra_days']:.1f}); the job keeps running on half the scale-out bandwidth")
    g, e = d["goodput"], d["energy"]
    if d["fits"]:
        print(f"  train {d['tokens']:.3g} tokens: {d['time_to_train_days']:.1f} days compute, "
              f"{d['wall_time_days']:.1f} days wall at ETTR {g['ettr'] * 100:.1f} % "
              f"(job MTBF {g['job_mtbf_h']:.1f} h, checkpoint every {g['checkpoint_interval_s'] / 60:.0f} min)")
        print(f"  energy {e['energy_mwh']:,.0f} MWh ({e['energy_cost']:,.0f} {e['currency']}), hardware "
              f"{e['hardware_price']:,.0f} {e['currency']}")
    else:
        print(f"  hardware {e['hardware_price']:,.0f} {e['currency']}")
    for p in d.get("problems", []):
        print(f"  problem: {p}")
    for n in d.get("notes", []):
        print(f"  note: {n}")
    s = d.get("search")
    if s:
        print(f"  searched {s['evaluated']:,} plans: {s['runnable']:,} can run, {s['valid']:,} also fit in memory:")
        for r in s["ranked"]:
            print(f"    {r['rank']}. TP{r['tp']} PP{r['pp']} DP{r['dp']} CP{r['cp']}"
                  f"{' EP' + str(r['ep']) if r['ep'] > 1 else ''}{_expert_tp(r)} v{r['virtual_stages']} "
                  f"mbs{r['micro_batch']} {_recompute(r)} ZeRO-{r['zero']}"
                  f"{' hybrid-sharded' if r.get('hybrid_shard') else ''}{_offload(r)}: "
                  f"{r['tokens_per_s']:,.0f} tok/s — {r['why']}")
        if "naive" in s:
            print(f"    naive (pure DP): {s['naive']['why']}")
