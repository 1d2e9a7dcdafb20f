"""Published training measurements (shared/reference/training.md §3) and the estimator's
predictions for them, in tokens/s per GPU.

Each row states what its source states. Fields a source leaves out (micro-batch,
virtual stages, recompute) are filled by the plan search restricted to the stated
fields — the assumption that the authors tuned what they did not report — never
picked per row. Software of the time is part of the row: 2021–22 Megatron-LM had
no FlashAttention and blocking collectives (Narayanan 2021; Korthikanti 2022);
Megatron-Core/NeMo 2024+ overlap TP/DP/PP communication (their READMEs).
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace

import numpy as np


from catalog import default_catalog

from .hardware import cluster_from_system
from .models import ModelSpec, gpt, preset
from .plan import Training
from .heldout import HELDOUT, MOVED_TO_REFERENCE
from .search import search_plans
from .software import profile

MEGATRON_2022 = "megatron-2022"
MEGATRON_2021 = "megatron-2021"
MCORE_2024 = "nemo-2024"


def _hw_tok(model: ModelSpec, tflops: float) -> float:
    """Tokens/s per GPU from a HW TFLOP/s figure in Narayanan's convention (96·…, full recompute)."""
    L, h, s, V = model.layers, model.hidden, model.seq, model.vocab
    return tflops * 1e12 / (96 * L * h * h * (1 + s / (6 * h) + V / (16 * L * h)))


def _model_tok(model: ModelSpec, tflops: float) -> float:
    return tflops * 1e12 / model.model_flops_per_token()


K22 = gpt("22b", 48, 6144, 64)
K175 = gpt("175b", 96, 12288, 96)
K530 = gpt("530b", 105, 20480, 128)
K1T = gpt("1t", 128, 25600, 160)
N17 = gpt("1.7b", 24, 2304, 24)
N18 = gpt("18.4b", 40, 6144, 48)
N145 = gpt("145.6b", 80, 12288, 96)
M177 = gpt("177b", 96, 12288, 96, vocab=131072, seq=4096)
M462 = gpt("462b", 112, 18432, 144, vocab=131072, seq=4096)
L405 = preset("llama3-405b")
NEMO175 = gpt("gpt3-175b", 96, 12288, 96)
DSV3 = preset("deepseek-v3")
#: DeepSeek-V3's pre-training: 14.8T tokens in 2,664K H800 GPU-hours (180K per trillion), i.e. 1,543 tokens/s
#: per GPU over the whole stage, its batch ramp (3,072 → 15,360 sequences over the first 469B tokens) included.
DSV3_TOKENS_PER_S = 1e12 / (180e3 * 3600)

KORTH = "Korthikanti et al. 2022, Tables 3 and 5 [V]"
#: "interleaved schedule" stated without v: search v > 1. A source silent on interleaving ran
#: Megatron's default (none, v = 1). Micro-batch and recompute, when unstated, are searched:
#: they are chosen to fit memory, which the estimator knows.
INTERLEAVED = [2, 3, 4, 6, 8]
NARAY = "Narayanan et al. 2021, Table 1 [V]"

ROWS = [
    dict(row="1-full", model=K22, system="dgx-a100", gpus=8, gbs=4, plan=dict(tp=8, pp=1, b=4, rc=2, sp=0),
         sw=MEGATRON_2022, measured=4 * 2048 / 1.42 / 8, source=KORTH, note="step 1.42 s"),
    dict(row="1-sel", model=K22, system="dgx-a100", gpus=8, gbs=4, plan=dict(tp=8, pp=1, b=4, rc=1, sp=1),
         sw=MEGATRON_2022, measured=4 * 2048 / 1.10 / 8, source=KORTH, note="step 1.10 s"),
    dict(row="2-full", model=K175, system="dgx-a100", gpus=64, gbs=64,
         plan=dict(tp=8, pp=8, v=3, b=1, rc=2, sp=0), sw=MEGATRON_2022, measured=64 * 2048 / 18.13 / 64,
         source=KORTH, note="step 18.13 s"),
    dict(row="2-sel", model=K175, system="dgx-a100", gpus=64, gbs=64,
         plan=dict(tp=8, pp=8, v=3, b=1, rc=1, sp=1), sw=MEGATRON_2022, measured=64 * 2048 / 13.75 / 64,
         source=KORTH, note="step 13.75 s"),
    dict(row="3-full", model=K530, system="dgx-a100", gpus=280, gbs=280,
         plan=dict(tp=8, pp=35, v=3, b=1, rc=2, sp=0), sw=MEGATRON_2022, measured=2048 / 49.05,
         source=KORTH, note="step 49.05 s"),
    dict(row="3-sel", model=K530, system="dgx-a100", gpus=280, gbs=280,
         plan=dict(tp=8, pp=35, v=3, b=1, rc=1, sp=1), sw=MEGATRON_2022, measured=2048 / 37.83,
         source=KORTH, note="step 37.83 s"),
    dict(row="4-full", model=K1T, system="dgx-a100", gpus=512, gbs=512,
         plan=dict(tp=8, pp=64, v=1, b=1, rc=2, sp=0), sw=MEGATRON_2022, measured=2048 / 94.42,
         source=KORTH, note="step 94.42 s"),
    dict(row="4-sel", model=K1T, system="dgx-a100", gpus=512, gbs=512,
         plan=dict(tp=8, pp=64, v=1, b=1, rc=1, sp=1), sw=MEGATRON_2022, measured=2048 / 71.49,
         source=KORTH, note="step 71.49 s"),
    dict(row="6", model=N17, system="dgx-a100", gpus=32, gbs=512, plan=dict(tp=1, pp=1, rc=2, sp=0),
         sw=MEGATRON_2021, measured=_hw_tok(N17, 137), source=NARAY, note="137 TF/GPU HW"),
    dict(row="7", model=N18, system="dgx-a100", gpus=256, gbs=1024, plan=dict(tp=8, pp=1, rc=2, sp=0),
         sw=MEGATRON_2021, measured=_hw_tok(N18, 135), source=NARAY, note="135 TF/GPU HW"),
    dict(row="8", model=N145, system="dgx-a100", gpus=1536, gbs=2304, plan=dict(tp=8, pp=8, rc=2, sp=0, v=INTERLEAVED),
         sw=MEGATRON_2021, measured=_hw_tok(N145, 148), source=NARAY, note="148 TF/GPU HW"),
    dict(row="17-177b", model=M177, system="dgx-h100", gpus=2304, gbs=1152, plan=dict(tp=8, pp=6, cp=1),
         sw=MCORE_2024, measured=_model_tok(M177, 432.8),
         source="Megatron-LM README model_table.png (2024-07) [V]", note="432.8 TF/GPU, MFU 44 %"),
    dict(row="17-462b", model=M462, system="dgx-h100", gpus=6144, gbs=3072, plan=dict(tp=8, pp=16, cp=1),
         sw=MCORE_2024, measured=_model_tok(M462, 459.9),
         source="Megatron-LM README model_table.png (2024-07) [V]", note="459.9 TF/GPU, MFU 47 %"),
    dict(row="19", model=L405, system="dgx-h100", gpus=8192, gbs=2048,
         plan=dict(tp=8, pp=16, cp=1, dp=64, v=INTERLEAVED), sw=MCORE_2024, measured=_model_tok(L405, 430.0),
         source="Llama 3 paper (Dubey et al. 2024), Table 4 [V]", note="430 TF/GPU, 43 % BF16 MFU"),
    # the target for expert parallelism: chosen against (the EP overlap, DeepEP dispatch and DualPipe
    # were built with its error in view), so a reference row from the start
    dict(row="dsv3-h800", model=DSV3, system="dgx-h100", nvlink_gbps=400.0, gpus=2048, gbs=15360,
         plan=dict(tp=1, pp=16, cp=1, ep=64, dp=128, v=1), sw="deepseek-v3", precision="fp8",
         measured=DSV3_TOKENS_PER_S,
         source="DeepSeek-V3 technical report (arXiv 2412.19437) §1, §3.1–3.2, §4.2 [V]",
         note="2,048 H800 (an H100 with NVLink at 400 GB/s), PP16 EP64 ZeRO-1, no TP; 180K GPU-hours per "
              "trillion tokens; micro-batch and recompute not stated (searched)"),
    dict(row="22", model=NEMO175, system="dgx-h100", gpus=512, gbs=2048,
         plan=dict(tp=4, pp=8, cp=1, v=6, b=2), sw=MCORE_2024, precision="fp8", measured=825.0,
         source="NVIDIA NeMo performance summary (NeMo 24.07) [V]", note="825 tok/s/GPU FP8"),
]


def row_software(row: dict) -> tuple[str, dict]:
    """(profile name, knob overrides) of a row: ``sw`` is a profile name or (name, {knob: value})."""
    return row["sw"] if isinstance(row["sw"], tuple) else (row["sw"], {})


def row_run(row: dict):
    """(cluster, training) a row ran on: its system and GPUs (and fabric, where the source
    states another), its batch, precision and software."""
    cluster = cluster_from_system(default_catalog(), row["system"], row["gpus"])
    if row.get("ib_gbs_per_gpu"):
        cluster = replace(cluster, ib_gbs_per_gpu=row["ib_gbs_per_gpu"])
    if row.get("nvlink_gbps"):  # an export part with a slower NVLink (H800)
        cluster = replace(cluster, nvlink_gbps=row["nvlink_gbps"])
    name, knobs = row_software(row)
    training = Training(global_batch=row["gbs"], precision=row.get("precision", "bf16"),
                        software=profile(name, **knobs))
    return cluster, training


def predict(row: dict):
    """(tokens/s per GPU, the plan used) for one row."""
    cluster, training = row_run(row)
    sw = training.software
    fixed = dict(row["plan"])
    fixed.setdefault("zero", sw.default_zero)
    fixed.setdefault("hs", 0)
    fixed.setdefault("v", 1)
    # a published run keeps everything on its GPUs unless its source says it offloads
    fixed.setdefault("off", 0)
    out = search_plans(row["model"], training, cluster, top=1, **fixed)
    if out["best"] is None:
        raise ValueError(f"validation row {row['row']}: no valid plan")
    i = out["best"]
    from .plan import plan_at
    return float(out["result"]["tokens_per_s_per_gpu"][i]), plan_at(out["cols"], i), out["result"], i


def sw_name(row: dict) -> str:
    name, knobs = row_software(row)
    return name + "".join(f" {k}={v}" for k, v in knobs.items())


def reference_rows() -> list[dict]:
    """The reference set: the rows the estimator's constants were read or chosen from, and the held-out rows that
    were once used to choose something (heldout.MOVED_TO_REFERENCE)."""
    return ROWS + MOVED_TO_REFERENCE


def every_row() -> list[dict]:
    return reference_rows() + HELDOUT


def compare(rows_in: list[dict] | None = None) -> list[dict]:
    """Every published row: measured vs predicted tokens/s per GPU and the error in %."""
    rows = []
    held = {r["row"] for r in HELDOUT}
    for r in (every_row() if rows_in is None else rows_in):
        pred, plan, res, i = predict(r)
        rows.append({"row": r["row"], "set": "held-out" if r["row"] in held else "reference",
                     "model": r["model"].name, "gpus": r["gpus"], "system": r["system"],
                     "precision": r.get("precision", "bf16"), "software": sw_name(r),
                     "plan": f"TP{plan.tp} PP{plan.pp} DP{plan.dp} CP{plan.cp}"
                             + (f" EP{plan.ep}" if plan.ep > 1 else "") + (f" ETP{plan.etp}" if plan.etp != plan.tp
                                                                          and r["model"].moe else "")
                             + f" v{plan.virtual_stages} mbs{plan.micro_batch} {plan.recompute}"
                             + (f" offload {plan.offload}" if plan.offload != "none" else ""),
                     "measured": round(r["measured"], 2), "predicted": round(pred, 2),
                     "error_pct": round((pred / r["measured"] - 1) * 100, 2),
                     "predicted_mfu": round(float(res["mfu"][i]), 4), "source": r["source"], "note": r["note"]})
    return rows


#: Scales of every GPU's GEMM ceiling tried by the leave-one-source-out calibration.
SCALES = (0.8, 0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15, 1.2)


@contextmanager
def ceilings_scaled(k: float):
    """Every generation's GEMM ceilings times ``k`` while the block runs."""
    from . import efficiency

    saved = dict(efficiency.GENERATIONS)
    try:
        for name, gen in saved.items():
            efficiency.GENERATIONS[name] = replace(gen, ceiling_bf16=min(gen.ceiling_bf16 * k, 1.0),
                                                   ceiling_fp8=min(gen.ceiling_fp8 * k, 1.0))
        yield
    finally:
        efficiency.GENERATIONS.clear()
        efficiency.GENERATIONS.update(saved)


def leave_one_source_out(rows_in: list[dict] | None = None) -> list[dict]:
    """What calibrating would buy, measured honestly: for each source, the one free scale of the
    GEMM ceilings that best fits every *other* source's rows (least squares in log error), then
    this source's rows predicted with it. Returns each row with its error as derived (scale 1,
    constants from the literature alone) and its error held out under that calibration."""
    rows_in = every_row() if rows_in is None else rows_in
    measured = np.array([r["measured"] for r in rows_in])
    preds = {}
    for k in SCALES:
        with ceilings_scaled(k):
            preds[k] = np.array([predict(r)[0] for r in rows_in])
    sources = sorted({r["source"] for r in rows_in})
    out = []
    for src in sources:
        mine = np.array([r["source"] == src for r in rows_in])
        cost = {k: float(np.mean(np.log(preds[k][~mine] / measured[~mine]) ** 2)) for k in SCALES}
        k_best = min(cost, key=cost.get)
        for i in np.nonzero(mine)[0]:
            r = rows_in[i]
            out.append({"row": r["row"], "source": src, "scale": k_best,
                        "error_as_derived_pct": round((preds[1.0][i] / measured[i] - 1) * 100, 2),
                        "error_held_out_pct": round((preds[k_best][i] / measured[i] - 1) * 100, 2)})
    order = {r["row"]: i for i, r in enumerate(rows_in)}
    return sorted(out, key=lambda r: order[r["row"]])


def max_abs_error_pct(rows: list[dict] | None = None) -> float:
    return max(abs(r["error_pct"]) for r in (rows or compare()))


def set_errors(rows: list[dict]) -> dict[str, dict]:
    """Per set (reference, held-out, all): how many rows, their mean and largest |error| in %."""
    out = {}
    for which in ("reference", "held-out", "all"):
        errs = [abs(r["error_pct"]) for r in rows if which == "all" or r["set"] == which]
        out[which] = {"rows": len(errs), "mean_abs_err_pct": round(sum(errs) / len(errs), 2) if errs else None,
                      "max_abs_err_pct": round(max(errs), 2) if errs else None}
    return out


def _main(argv: list[str]) -> None:
    if "--loso" in argv:
        rows = leave_one_source_out()
        for r in rows:
            print(f"{r['row']:26} as derived {r['error_as_derived_pct']:+6.1f}%   held out (scale {r['scale']:.2f} "
                  f"fitted to the other sources) {r['error_held_out_pct']:+6.1f}%")
        for key in ("error_as_derived_pct", "error_held_out_pct"):
            errs = [abs(r[key]) for r in rows]
            print(f"{key:22} mean |error| {sum(errs) / len(errs):5.1f} %  max {max(errs):5.1f} %")
        return
    out = compare()
    for r in out:
        print(f"{r['row']:26} {r['model']:16} {r['system']:11} {r['precision']:4} {r['plan']:40} "
              f"measured {r['measured']:9.1f} predicted {r['predicted']:9.1f}  {r['error_pct']:+6.1f}%  "
              f"MFU {r['predicted_mfu']:.3f}")
    for which, e in set_errors(out).items():
        print(f"{which:10} rows {e['rows']:3}  mean |error| {e['mean_abs_err_pct']:5.1f} %  "
              f"max {e['max_abs_err_pct']:5.1f} %")


if __name__ == "__main__":
    import sys

    _main(sys.argv[1:])
