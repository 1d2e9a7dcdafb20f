"""Offload to host memory: the optimizer state stepped on the CPU, and as many layers' activations as memory needs."""
import json

import pytest

from catalog.loader import CatalogError, load_sources, parse_entry, read_json
from catalog.registry import DATA_DIR
from designer.cli import main
from designer.training.errors import TrainingError
from designer.training.estimate import estimate
from designer.training.hardware import cluster_from_system
from designer.training.models import preset
from designer.training.offload import (CPU_ADAM_BYTES, CPU_ADAM_EFF, GRAD_OUT_BYTES, HOST_MEMORY_EFF, LINK_EFF,
                                       SHARED_FLOOR, WEIGHT_BACK_BYTES, copy_rate)
from designer.training.plan import Plan, Training
from designer.training.planner import best_plan, given_plan
from designer.training.section import plan_fields_of
from designer.training.software import profile

L70 = preset("llama3-70b")
L405 = preset("llama3-405b")
FSDP = dict(dp=64, zero=3, recompute="none")


def test_the_catalog_gives_each_gpu_its_host_memory_and_link(catalog):
    h100 = cluster_from_system(catalog, "dgx-h100", 64)
    gb200 = cluster_from_system(catalog, "gb200-nvl72", 72)
    # 2 TB over 8 GPUs, PCIe Gen5 x16; 36 Graces x 480 GB over 72 GPUs, half of one C2C's 450 GB/s each way
    assert (h100.host_gb_per_gpu, h100.host_link_gbs, h100.host_link_shared) == (256.0, 64.0, True)
    assert (gb200.host_gb_per_gpu, gb200.host_link_gbs, gb200.host_link_shared) == (240.0, 225.0, False)
    # the x86 host's GPU link also carries the NIC's GPUDirect traffic: a busy network leaves copies its floor
    assert copy_rate(h100) == pytest.approx(64e9 * LINK_EFF)
    assert copy_rate(h100, 1.0) == pytest.approx(64e9 * LINK_EFF * SHARED_FLOOR)
    # on Grace the copies leave the NICs alone, and the LPDDR5X share (14 TB/s over 72 GPUs) binds, not the link
    assert copy_rate(gb200, 1.0) == copy_rate(gb200) == pytest.approx(14000e9 / 72 * HOST_MEMORY_EFF)
    assert "host_memory_gbs" in catalog.get("dgx-h100").unconfirmed_fields


def test_optimizer_offload_moves_the_state_to_the_host_and_charges_the_cpu_step(catalog):
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    training = Training(global_batch=128)
    on_gpu = estimate(L70, training, Plan(**FSDP), cluster)
    off = estimate(L70, training, Plan(**FSDP, offload="optimizer"), cluster)
    held = on_gpu.memory_breakdown_gb["optimizer"]
    assert held > 12 and off.memory_breakdown_gb["optimizer"] == 0
    # fp32 master, m and v (12 bytes) and the CPU's fp32 gradient copy (4) per parameter of the shard
    assert off.host_memory_gb_per_gpu == pytest.approx(held * 16 / 12, abs=0.02)
    assert off.memory_gb_per_gpu == pytest.approx(on_gpu.memory_gb_per_gpu - held, abs=0.02)
    # the shard (70.6 B / 64 GPUs): gradients out, weights back over PCIe, then Adam streaming the host memory
    shard = held * 2**30 / 12
    want = (shard * (GRAD_OUT_BYTES + WEIGHT_BACK_BYTES) / copy_rate(cluster)
            + shard * CPU_ADAM_BYTES / (cluster.host_gbs_per_gpu * 1e9 * CPU_ADAM_EFF))
    fitting = estimate(L70, Training(global_batch=128), Plan(**(FSDP | {"recompute": "full"}), offload="optimizer"),
                       cluster)
    assert fitting.time_breakdown_s["optimizer"] == pytest.approx(want, rel=0.01)
    # the GPU's own step over the same shard streams HBM at 3.35 TB/s: the CPU step is what offload costs
    gpu_step = estimate(L70, Training(global_batch=128), Plan(**(FSDP | {"recompute": "full"})), cluster)
    assert fitting.time_breakdown_s["optimizer"] > 50 * gpu_step.time_breakdown_s["optimizer"]


def test_activation_offload_solves_the_fewest_layers_that_fit(catalog):
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    training = Training(global_batch=128)
    est = estimate(L70, training, Plan(**FSDP, offload="activations"), cluster)
    k = est.offload_layers
    assert est.fits and 0 < k < L70.layers - 1
    none = estimate(L70, training, Plan(**FSDP), cluster)
    per_layer = (none.memory_breakdown_gb["activations"] - est.memory_breakdown_gb["activations"]) / k
    # one layer fewer on the host would not fit: the count is the least that does
    assert est.memory_gb_per_gpu + per_layer * (1 + 0.05 / 0.95) > 80
    assert est.host_memory_gb_per_gpu == pytest.approx(k * per_layer, rel=0.01)
    # the copies the neighbouring layers do not hide are charged: ZeRO-3's gathers keep the NIC busy on the
    # same PCIe link, so they are most of a second per micro-batch
    assert est.time_breakdown_s["offload"] > 0.1 * est.step_time_s


def test_activation_copies_over_grace_c2c_hide_behind_compute(catalog):
    cluster = cluster_from_system(catalog, "gb200-nvl72", 64)
    est = estimate(L405, Training(global_batch=128), Plan(tp=4, dp=16, zero=3, recompute="none",
                                                          offload="activations"), cluster)
    assert est.fits and est.offload_layers > 50 and est.time_breakdown_s["offload"] == 0


@pytest.mark.parametrize("plan, says", [
    (Plan(tp=8, pp=8, recompute="none", offload="activations"), r"without a pipeline \(PP 1\)"),
    (Plan(dp=64, zero=3, recompute="full", offload="activations"), "without recompute"),
    (Plan(dp=64, zero=0, recompute="full", offload="optimizer"), "ZeRO 1 or more"),
])
def test_offloads_megatron_core_refuses_are_refused(catalog, plan, says):
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    with pytest.raises(TrainingError, match=says):
        estimate(L70, Training(global_batch=128), plan, cluster)


def test_activation_offload_with_nothing_to_move_is_refused(catalog):
    cluster = cluster_from_system(catalog, "gb200-nvl72", 64)
    with pytest.raises(TrainingError, match="moves no layer"):
        estimate(L70, Training(global_batch=64, precision="fp8"),
                 Plan(dp=64, zero=3, recompute="none", offload="activations"), cluster)


def test_offload_past_the_host_memory_is_refused_with_figures(catalog):
    # 405.9 B parameters' optimizer state over 16 GPUs: 16 bytes each is 378 GiB a GPU, the host has 256 GB a GPU
    cluster = cluster_from_system(catalog, "dgx-h100", 16)
    with pytest.raises(TrainingError, match=r"host memory's share per GPU \(378\.0 GB of 256 GB, of which 80%"):
        estimate(L405, Training(global_batch=64), Plan(tp=8, dp=2, zero=1, recompute="full", offload="optimizer"),
                 cluster)


def test_a_software_or_system_without_offload_cannot_use_it(catalog):
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    old = Training(global_batch=128, software=profile("megatron-2022"))
    with pytest.raises(TrainingError, match="not one the software offers"):
        estimate(L70, old, Plan(tp=8, dp=8, zero=1, recompute="full", offload="optimizer"), cluster)
    # DGX Rubin NVL8's host memory is not in the catalog: no figure, no offload
    rubin = cluster_from_system(catalog, "dgx-rubin-nvl8", 64)
    with pytest.raises(TrainingError, match="host memory and link are known"):
        estimate(L70, Training(global_batch=128), Plan(dp=64, zero=3, recompute="none", offload="activations"),
                 rubin)


def test_the_search_offloads_where_nothing_else_fits(catalog):
    """Llama 3 405B on 64 H100: no plan keeps its optimizer state on the GPUs and fits; with the state on the
    hosts (ZeRO-Offload's trade) one does. A 2022 stack without offload still has none."""
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    est, summary = best_plan(L405, Training(global_batch=512), cluster)
    assert est.fits and est.plan.offload in ("optimizer", "both")
    assert all(r["offload"] in ("optimizer", "both") for r in summary["ranked"])
    with pytest.raises(TrainingError, match="memory binds"):
        best_plan(L405, Training(global_batch=512, software=profile("megatron-2022")), cluster)


def test_the_cli_and_the_workload_say_what_goes_to_the_host(capsys):
    args = ["train", "--gpu", "h100", "--gpus", "64", "--model", "llama3-70b", "--dp", "64", "--zero", "3",
            "--recompute", "none", "--global-batch", "128", "--offload", "activations"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "offload activations (" in out and "GB in host memory" in out
    assert main(args + ["--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["offload"] == "activations" and doc["offload_layers"] > 0 and doc["host_memory_gb_per_gpu"] > 0
    assert doc["software"]["offload_modes"] == ["none", "optimizer", "activations", "both"]
    assert main(["train", "--gpu", "h100", "--gpus", "64", "--model", "llama3-70b", "--pp", "8",
                 "--offload", "activations"]) == 2
    assert "without a pipeline (PP 1)" in capsys.readouterr().err
    assert plan_fields_of({"offload": "Optimizer"}) == {"offload": "optimizer"}
    with pytest.raises(TrainingError, match="workload offload must be one of none, optimizer"):
        plan_fields_of({"offload": "disk"})


def test_the_catalog_names_the_host_link():
    sources = load_sources(DATA_DIR / "sources.json")
    entry = read_json(DATA_DIR / "systems" / "dgx-h100.json")
    assert parse_entry(entry, "dgx-h100.json", sources).host_link == "pcie"
    with pytest.raises(CatalogError, match="host_link: must be pcie"):
        parse_entry(entry | {"host_link": "usb"}, "dgx-h100.json", sources)


def test_a_moe_cpu_step_covers_the_expert_shard_the_host_holds(catalog):
    """Experts are sharded over DP·CP/EP GPUs, fewer than the dense part's DP·CP: the CPU steps what the
    host holds (16 bytes a parameter), not the parameters over DP·CP."""
    cluster = cluster_from_system(catalog, "gb200-nvl72", 256)
    est = estimate(preset("deepseek-v3"), Training(global_batch=1024),
                   Plan(pp=4, dp=64, ep=64, virtual_stages=1, recompute="full", zero=1, offload="optimizer"), cluster)
    stepped = est.host_memory_gb_per_gpu * 2**30 / 16
    want = (stepped * (GRAD_OUT_BYTES + WEIGHT_BACK_BYTES) / copy_rate(cluster)
            + stepped * CPU_ADAM_BYTES / (cluster.host_gbs_per_gpu * 1e9 * CPU_ADAM_EFF))
    assert stepped > 2e9 and est.time_breakdown_s["optimizer"] == pytest.approx(want, rel=0.01)


def test_published_runs_are_never_taken_to_offload():
    from designer.training.validation import every_row, predict

    assert all(predict(r)[1].offload == "none" for r in every_row())


def test_activation_offload_with_recompute_unstated_runs_without_recompute(catalog):
    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    est, chosen = given_plan(L405, Training(global_batch=512), cluster, {"tp": 8, "offload": "activations"})
    assert est.plan.recompute == "none" and est.plan.offload == "activations" and not est.fits


@pytest.mark.parametrize("extra, says", [
    (["--zero", "0"], "optimizer offload needs ZeRO 1 or more"),
    (["--software", "megatron-2021"], "megatron-2021 does not offload optimizer"),
    (["--gpus", "8"], "does not fit in the host memory's share per GPU (80% of 256 GB)"),
])
def test_a_search_that_cannot_offload_says_why(capsys, extra, says):
    args = ["train", "--gpu", "h100", "--gpus", "64", "--model", "llama3-405b", "--search", "--offload", "optimizer"]
    assert main(args + extra) == 2
    assert says in capsys.readouterr().err
    assert main(["train", "--gpu", "b300", "--gpus", "72", "--model", "llama3-405b", "--search",
                 "--offload", "optimizer"]) == 2
    assert "no host memory bandwidth for dgx-b300" in capsys.readouterr().err


def test_one_data_parallel_rank_still_offloads_the_optimizer(catalog):
    from designer.training.search import enumerate_plans

    cluster = cluster_from_system(catalog, "dgx-h100", 64)
    cols = enumerate_plans(L405, Training(global_batch=512), cluster, off=1)
    single = (cols["dp"] * cols["cp"]) == 1
    assert single.any() and (cols["zero"][single] == 1).all()
