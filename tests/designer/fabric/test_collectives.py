"""Collective-time estimates against hand-computed cases, NCCL bus-bandwidth convention."""
from __future__ import annotations

import pytest

from designer.fabric import bandwidth_figures
from designer.fabric import collectives as c

GB = 1e9


def test_ring_all_reduce_by_hand():
    # 4 ranks, 1 GB, 100 GB/s: 2 * 3/4 * 1 GB / 100 GB/s = 15 ms, plus 2 * 3 steps of latency
    assert c.ring_all_reduce(1 * GB, 4, 100 * GB) == pytest.approx(0.015)
    assert c.ring_all_reduce(1 * GB, 4, 100 * GB, alpha=1e-5) == pytest.approx(0.015 + 6e-5)
    # nccl-tests convention: bus bandwidth of an ideal ring equals the link bandwidth
    assert c.bus_bandwidth("all_reduce", 1 * GB, 4, 0.015) == pytest.approx(100 * GB)
    assert c.ring_all_reduce(1 * GB, 1, 100 * GB) == 0.0


def test_tree_all_reduce_by_hand():
    # 8 ranks: 2 * log2(8) = 6 latency steps, same bytes as the ring: 2 * 7/8 * 1 GB / 100 GB/s = 17.5 ms
    assert c.tree_all_reduce(1 * GB, 8, 100 * GB, alpha=1e-5) == pytest.approx(6e-5 + 0.0175)
    # latency advantage at scale: 1024 ranks, 1 MB, alpha 5 us
    ring = c.ring_all_reduce(1e6, 1024, 50 * GB, alpha=5e-6)
    tree = c.tree_all_reduce(1e6, 1024, 50 * GB, alpha=5e-6)
    assert ring == pytest.approx(2 * 1023 * 5e-6 + 2 * 1023 / 1024 * 1e6 / (50 * GB))
    assert tree == pytest.approx(20 * 5e-6 + 2 * 1023 / 1024 * 1e6 / (50 * GB))
    assert tree < ring


def test_all_gather_and_reduce_scatter_by_hand():
    assert c.all_gather(1 * GB, 4, 100 * GB, alpha=1e-5) == pytest.approx(0.0075 + 3e-5)
    assert c.reduce_scatter(1 * GB, 4, 100 * GB) == pytest.approx(0.0075)
    assert c.bus_bandwidth("all_gather", 1 * GB, 4, 0.0075) == pytest.approx(100 * GB)


def test_all_to_all_by_hand():
    # 16 GPUs, two 8-GPU NVLink domains, 1.6 GB per rank: NVLink share 7/16 at 900 GB/s = 0.78 ms,
    # network share 8/16 at 50 GB/s = 16 ms; both at once, the network sets the time
    t = c.all_to_all(1.6 * GB, 16, 900 * GB, 50 * GB, domain=8)
    assert t == pytest.approx(0.016)
    assert c.all_to_all(1.6 * GB, 8, 900 * GB, 50 * GB, domain=8) == pytest.approx(7 / 8 * 1.6 / 900)
    assert c.bus_bandwidth("all_to_all", 1.6 * GB, 16, t) == pytest.approx(1.6 * GB / 0.016 * 15 / 16)


def test_hierarchical_all_reduce_by_hand():
    # 16 GPUs = 2 nodes x 8, 8 GB: reduce-scatter in NVLink 7/8 * 8 GB / 800 GB/s = 8.75 ms (twice, with the
    # all-gather), ring all-reduce of 1 GB between 2 nodes at 50 GB/s per GPU: 2 * 1/2 * 1 GB / 50 GB/s = 20 ms
    t = c.hierarchical_all_reduce(8 * GB, 16, 8, 800 * GB, 50 * GB)
    assert t == pytest.approx(2 * 0.00875 + 0.02)
    # inside one domain it is just the NVLink ring
    assert c.hierarchical_all_reduce(8 * GB, 8, 8, 800 * GB, 50 * GB) == pytest.approx(2 * 0.00875)


def test_group_bandwidth_is_the_nodes_nics_or_nvlink():
    assert c.group_bus_bw(8, 8, 900 * GB, 50 * GB) == 900 * GB
    assert c.group_bus_bw(256, 8, 900 * GB, 50 * GB) == 400 * GB  # 8 NICs x 50 GB/s
    assert c.group_bus_bw(576, 72, 900 * GB, 50 * GB) == 900 * GB  # NVL72: NVLink-bound
    with pytest.raises(ValueError):
        c.ring_all_reduce(-1, 4, GB)


def test_bandwidth_figures_for_a_dgx_su():
    bw = bandwidth_figures(gpus=256, gpus_per_node=8, rails=8, port_gbps=400, nvlink_gbs=1800, domain=8,
                           message_bytes=1 * GB)
    assert bw["per_gpu"]["scale_out_gbps"] == 400 and bw["per_gpu"]["scale_out_gbs"] == 50
    assert bw["per_gpu"]["nvlink_gbs_one_way"] == 900
    assert bw["bisection_tbps"] == pytest.approx(256 * 400 / 2 / 1000)  # 51.2 Tb/s
    ring = bw["collectives"]["all_gpus"]["all_reduce_ring"]
    assert ring["time_ms"] == pytest.approx((2 * 255 * c.ALPHA_NETWORK_S + 2 * 255 / 256 * GB / (400 * GB)) * 1e3,
                                            abs=1e-4)
    # 2:1 at the leaf halves the bisection
    half = bandwidth_figures(gpus=256, gpus_per_node=8, rails=8, port_gbps=400, nvlink_gbs=1800, domain=8,
                             oversubscription=2, leaf_uplinks=128, leaf_down=32)
    assert half["bisection_tbps"] == pytest.approx(25.6)
    assert half["bisection_tbps_non_blocking"] == pytest.approx(51.2)


def test_no_gpu_to_gpu_or_network_bandwidth_is_said_not_divided_by():
    none = bandwidth_figures(gpus=64, gpus_per_node=8, rails=8, port_gbps=400, nvlink_gbs=0, domain=8)
    assert none["collectives"] == {}
    assert none["collectives_not_estimated"] == "the node has no GPU-to-GPU bandwidth in the catalog"
    no_nic = bandwidth_figures(gpus=64, gpus_per_node=8, rails=0, port_gbps=400, nvlink_gbs=1800, domain=8)
    assert no_nic["collectives"] == {}
    assert no_nic["collectives_not_estimated"] == "the node has no network port for the compute fabric"
    # inside one NVLink domain the network is not needed
    one = bandwidth_figures(gpus=8, gpus_per_node=8, rails=0, port_gbps=400, nvlink_gbs=1800, domain=8)
    assert one["collectives"]["all_gpus"]["all_reduce_ring"]["time_ms"] > 0
