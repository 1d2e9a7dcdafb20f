"""``podplanner train``: one plan's estimate, or the best plan with ``--search``.

``designer/cli.py`` wires ``add_parser(subparsers)`` and ``run(args, catalog)`` in;
``run`` raises TrainingError (a ValueError) with a one-line message for bad inputs.
"""
from __future__ import annotations


from ..json_output import print_json
from .errors import TrainingError
from .estimate import estimate
from .hardware import cluster_from_gpu, cluster_from_system
from .models import PRESETS, model_from_params, override, preset
from .plan import RECOMPUTE, Plan, Training
from .planner import best_plan


def _ints(p, *names, help_=""):
    for n in names:
        p.add_argument(f"--{n}", type=int, metavar="N", help=help_ or None)


def add_parser(subparsers):
    t = subparsers.add_parser("train", help="estimate LLM training throughput, memory and time for a plan, "
                                            "or search for the best plan")
    where = t.add_mutually_exclusive_group()
    where.add_argument("--gpu", metavar="ID", help="GPU type (a100, h100, h200, b200, gb200)")
    where.add_argument("--system", metavar="ID", help="system (dgx-a100, dgx-h100, dgx-h200, dgx-b200, gb200-nvl72)")
    t.add_argument("--gpus", type=int, metavar="N", help="GPU count (default: one system)")
    t.add_argument("--oversubscription", type=float, default=1.0, metavar="X", help="fabric down:up ratio")
    what = t.add_mutually_exclusive_group()
    what.add_argument("--model", metavar="PRESET", help=f"model preset: {', '.join(PRESETS)}")
    what.add_argument("--params", type=float, metavar="N", help="parameter count (e.g. 7e10) for a Llama-style shape")
    for n in ("layers", "hidden", "ffn-hidden", "heads", "kv-heads", "vocab", "seq", "experts", "top-k"):
        t.add_argument(f"--{n}", type=int, metavar="N")
    t.add_argument("--activation", choices=("gelu", "swiglu"), type=str.lower)
    t.add_argument("--global-batch", type=int, metavar="SEQ", help="sequences per step")
    t.add_argument("--tokens", type=float, metavar="N", help="token budget (default 15e12)")
    for n in ("tp", "pp", "dp", "cp", "ep", "micro-batch", "virtual-stages"):
        t.add_argument(f"--{n}", type=int, metavar="N")
    t.add_argument("--recompute", choices=RECOMPUTE, type=str.lower)
    t.add_argument("--precision", choices=("bf16", "fp8"), type=str.lower, default="bf16")
    t.add_argument("--zero", type=int, choices=(0, 1, 2, 3), help="ZeRO/FSDP stage of the data-parallel group")
    t.add_argument("--search", action="store_true", help="find the best plan (given plan flags are kept fixed)")
    t.add_argument("--json", action="store_true", help="print one JSON document")
    return t


def _model(args):
    fields = dict(layers=args.layers, hidden=args.hidden, ffn_hidden=args.ffn_hidden, heads=args.heads,
                  kv_heads=args.kv_heads, vocab=args.vocab, seq=args.seq, experts=args.experts, top_k=args.top_k,
                  activation=args.activation)
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
    if args.system:
        return cluster_from_system(catalog, args.system, args.gpus, oversubscription=args.oversubscription)
    # a bare GPU id trains on its usual chassis (hardware.SYSTEM_FOR_GPU): domain, fabric, power, price
    return cluster_from_gpu(catalog, args.gpu or "h100", args.gpus or 8, oversubscription=args.oversubscription)


def build(args, catalog):
    """(model, training, cluster, fixed plan fields) from parsed flags."""
    model = _model(args)
    cluster = _cluster(args, catalog)
    gbs = args.global_batch if args.global_batch is not None else max(1, 4 * 2**20 // model.seq)
    tokens = args.tokens if args.tokens is not None else 15e12
    training = Training(global_batch=gbs, tokens=tokens, precision=args.precision).validate()
    for flag in ("tp", "pp", "dp", "cp", "ep", "micro_batch", "virtual_stages"):
        value = getattr(args, flag, None)
        if value is not None and value < 1:
            raise TrainingError(f"--{flag.replace('_', '-')} must be at least 1, got {value}")
    fixed = {"tp": args.tp, "pp": args.pp, "dp": args.dp, "cp": args.cp, "ep": args.ep, "b": args.micro_batch,
             "v": args.virtual_stages, "rc": RECOMPUTE.index(args.recompute) if args.recompute else None,
             "zero": args.zero}
    return model, training, cluster, {k: v for k, v in fixed.items() if v is not None}


def run(args, catalog) -> int:
    model, training, cluster, fixed = build(args, catalog)
    summary = None
    if args.search:
        est, summary = best_plan(model, training, cluster, **fixed)
    else:
        t, p, c = fixed.get("tp", 1), fixed.get("pp", 1), fixed.get("cp", 1)
        if cluster.gpus % (t * p * c):
            raise TrainingError(f"TP{t}×PP{p}×CP{c} = {t * p * c} does not divide {cluster.gpus} GPUs")
        dp = fixed.get("dp", cluster.gpus // (t * p * c))
        plan = Plan(tp=t, pp=p, dp=dp, cp=c, ep=fixed.get("ep", 1), micro_batch=fixed.get("b", 1),
                    virtual_stages=fixed.get("v", 1), recompute=args.recompute or "selective",
                    zero=fixed.get("zero", 1))
        est = estimate(model, training, plan, cluster)
    doc = est.to_json()
    if summary:
        doc["search"] = summary
    if args.json:
        print_json(doc)
        return 0
    _print_text(doc)
    return 0


def _print_text(d: dict) -> None:
    print(f"{d['model']} ({d['params_b']:.1f} B params) on {d['gpus']}× {d['gpu']}, {d['precision']}, "
          f"global batch {d['global_batch']} × {d['seq']}")
    print(f"  plan: TP{d['tp']} PP{d['pp']} DP{d['dp']} CP{d['cp']} EP{d['ep']} v{d['virtual_stages']} "
          f"micro-batch {d['micro_batch']} recompute {d['recompute']} ZeRO-{d['zero']}")
    print(f"  step {d['step_time_s']:.3f} s, {d['tokens_per_s']:,.0f} tokens/s, {d['tflops_per_gpu']:.0f} TFLOP/s/GPU, "
          f"MFU {d['mfu'] * 100:.1f} %, HFU {d['hfu'] * 100:.1f} %")
    fit = "fits" if d["fits"] else "DOES NOT FIT"
    print(f"  memory {d['memory_gb_per_gpu']:.1f} of {d['hbm_gb']:g} GB per GPU ({fit}): "
          + ", ".join(f"{k} {v:.1f}" for k, v in d["memory_breakdown_gb"].items()))
    print("  exposed comm (s/step): " + ", ".join(f"{k} {v:.3f}" for k, v in d["exposed_comm_s"].items())
          + f"; bubble {d['bubble_fraction'] * 100:.1f} %")
    g = d["goodput"]
    print(f"  train {d['tokens']:.3g} tokens: {d['time_to_train_days']:.1f} days compute, "
          f"{d['wall_time_days']:.1f} days wall at ETTR {g['ettr'] * 100:.1f} % "
          f"(job MTBF {g['job_mtbf_h']:.1f} h, checkpoint every {g['checkpoint_interval_s'] / 60:.0f} min)")
    e = d["energy"]
    print(f"  energy {e['energy_mwh']:,.0f} MWh ({e['energy_cost']:,.0f} {e['currency']}), hardware "
          f"{e['hardware_price']:,.0f} {e['currency']}")
    for p in d.get("problems", []):
        print(f"  problem: {p}")
    s = d.get("search")
    if s:
        print(f"  searched {s['evaluated']} plans, {s['valid']} valid and fitting:")
        for r in s["ranked"]:
            print(f"    {r['rank']}. TP{r['tp']} PP{r['pp']} DP{r['dp']} CP{r['cp']} v{r['virtual_stages']} "
                  f"mbs{r['micro_batch']} {r['recompute']} ZeRO-{r['zero']}: {r['tokens_per_s']:,.0f} tok/s — {r['why']}")
        if "naive" in s:
            print(f"    naive (pure DP): {s['naive']['why']}")
