"""The upgrade path: a B200 and a B300 design, a GB200 and a GB300 design of the same GPU count, compared.

The expected figures are worked out here from the catalog and the sizing rules, not read back from a run.
"""
from __future__ import annotations

import pytest

from designer.analysis import analyze
from designer.compare import compare
from designer.generate import SuperpodSpec, generate


@pytest.fixture(scope="module")
def pair(catalog):
    def build(system: str):
        g = generate(SuperpodSpec(system=system, gpus=2304), catalog)
        return analyze(g.project, catalog)
    return {s: build(s) for s in ("dgx-b200", "dgx-b300", "gb200-nvl72", "gb300-nvl72")}


def _rows(doc) -> dict:
    return {r["key"]: r for r in doc["figures"]}


def test_b200_to_b300_same_gpus_side_by_side(pair):
    rows = _rows(compare(pair["dgx-b200"], pair["dgx-b300"]))
    # 2,304 GPUs asked: 288 DGX B300 fill 4 XDR SUs; 288 DGX B200 need 9 NDR SUs less the one DGX UFM displaces
    assert (rows["gpus"]["a"], rows["gpus"]["b"]) == (287 * 8, 288 * 8)
    assert (rows["fabric_port_gbps"]["a"], rows["fabric_port_gbps"]["b"]) == (400, 800)
    # B200: 9 SUs x 8 leaves = 72 QM9700 leaves, past 2 tiers (2,048 ports): 72 spines, 64 cores = 208;
    # B300: 4 SUs x 8 = 32 Q3400 leaves, 18 spines (smallest divisor of 72 >= 2304/144 = 16)
    assert (rows["switches"]["a"], rows["switches"]["b"]) == (208, 50)
    # same dense BF16/FP8 per GPU (2.25 / 4.5 PF), more HBM and twice the scale-out: never slower
    assert rows["tokens_per_s"]["b"] >= rows["tokens_per_s"]["a"] > 0
    assert rows["time_to_train_days"]["b"] <= rows["time_to_train_days"]["a"]
    for key in ("it_power_max_kw", "facility_power_kw", "air_heat_kw", "price_total", "cost_per_gpu_hour", "mfu"):
        assert rows[key]["a"] and rows[key]["b"], key


def test_gb200_to_gb300_same_gpus_side_by_side(pair):
    a, b = pair["gb200-nvl72"], pair["gb300-nvl72"]
    rows = _rows(compare(a, b))
    assert rows["gpus"]["a"] == rows["gpus"]["b"] == 32 * 72
    assert (rows["fabric_port_gbps"]["a"], rows["fabric_port_gbps"]["b"]) == (400, 800)
    # 32 racks at GB300's 142 kW maximum against GB200's 132 kW: the racks alone add 320 kW; the network
    # changes too (50 Q3400 for 208 QM9700), so the rest is what the switches save or add
    assert rows["it_power_max_kw"]["b"] >= 32 * 142.0 and rows["it_power_max_kw"]["a"] >= 32 * 132.0
    assert rows["it_power_max_kw"]["b"] > rows["it_power_max_kw"]["a"]
    # the list price of the racks alone: 32 x (6.5 M - 3.0 M)
    assert rows["price_total"]["delta"] > 32 * (6_500_000 - 3_000_000) * 0.9
    # Blackwell Ultra keeps Blackwell's dense BF16/FP8 (2.5 / 5 PF per GPU): training is no slower
    assert rows["tokens_per_s"]["b"] >= rows["tokens_per_s"]["a"] > 0
