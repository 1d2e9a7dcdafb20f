"""The plan search's speed paths give what the plain computation gives: the crossed grid built from its kept pairs,
the ranking of the plans near the top only, the enumeration kept for the next precision, the data-parallel
collectives worked out only for the plans that issue them."""
from __future__ import annotations

import numpy as np
import pytest

from catalog import default_catalog
from designer.training import Training, cluster_from_system, preset
from designer.training.comm import bandwidths, dp_comm
from designer.training.efficiency import generation
from designer.training.search import _cross, enumerate_plans, search_plans


@pytest.fixture(scope="module")
def b200():
    return cluster_from_system(default_catalog(), "dgx-b200", 512)


def test_a_cross_keeps_the_pairs_of_the_whole_product_in_its_order():
    rng = np.random.default_rng(7)
    cols = {"a": rng.integers(1, 9, 40), "b": rng.integers(1, 5, 40)}
    extra = {"x": np.repeat(np.arange(1, 4), 5), "y": np.tile(np.arange(5), 3)}
    got = _cross(cols, extra, lambda r, x: (r["a"] * x["x"] + r["b"] * x["y"]) % 3 != 0)
    # the plain way: every pair built, then filtered
    full = {k: np.repeat(v, 15) for k, v in cols.items()} | {k: np.tile(v, 40) for k, v in extra.items()}
    keep = (full["a"] * full["x"] + full["b"] * full["y"]) % 3 != 0
    assert 0 < keep.sum() < keep.size
    for k in ("a", "b", "x", "y"):
        assert np.array_equal(got[k], full[k][keep])


def test_the_ranked_plans_are_those_a_full_sort_ranks(b200):
    model, training = preset("mixtral-8x22b"), Training(global_batch=1024)
    out = search_plans(model, training, b200, top=7)
    res, ok = out["result"], np.nonzero(~np.logical_or.reduce(list(out["result"]["bad"].values())))[0]
    speed = np.round(res["tokens_per_s"][ok] / res["tokens_per_s"][ok].max() * 2000)
    every = ok[np.lexsort((res["memory"]["total_gb"][ok], -speed))]
    assert len(every) > 1000 and out["ranked"] == every[:7].tolist() and out["best"] == every[0]


def test_the_enumeration_is_kept_for_the_next_precision_and_cannot_be_changed(b200):
    model = preset("llama3-70b")
    first = enumerate_plans(model, Training(global_batch=512, precision="bf16"), b200)
    again = enumerate_plans(model, Training(global_batch=512, precision="fp8"), b200)
    assert again is not first and again["tp"] is first["tp"]  # the same columns, in a dict of the caller's own
    with pytest.raises(ValueError):
        first["tp"][0] = 3
    first["tp"] = None  # a caller's dict is its own
    assert enumerate_plans(model, Training(global_batch=512), b200)["tp"] is again["tp"]
    other = enumerate_plans(model, Training(global_batch=256), b200)
    assert other["tp"] is not again["tp"]
    plain = enumerate_plans(model, Training(global_batch=512), b200, pp=[1, 2])  # a list, as the CLI gives it
    assert set(plain["pp"].tolist()) == {1, 2}


def test_each_plans_data_parallel_collectives_are_those_it_would_have_alone(b200):
    model, training = preset("llama3-70b"), Training(global_batch=512)
    cols = enumerate_plans(model, training, b200)
    pick = np.arange(0, len(cols["tp"]), max(1, len(cols["tp"]) // 400))
    cols = {k: v[pick] for k, v in cols.items()}
    assert {0, 1, 2, 3} <= set(cols["zero"].tolist()) and (cols["hs"] > 0).any()
    nvl, ib = bandwidths(b200, generation(b200.generation))
    psi = 1e9 + cols["tp"] * 1e7
    layer = psi / 80
    together = dp_comm(layer, psi, cols, b200, nvl, ib, training.software)
    for i in range(0, len(pick), 37):
        alone = dp_comm(layer[i:i + 1], psi[i:i + 1], {k: v[i:i + 1] for k, v in cols.items()}, b200, nvl, ib,
                        training.software)
        for key, value in together.items():
            assert value[i] == alone[key][0], (key, i)
    assert all(together[k].any() for k in ("step_rs", "step_ag", "mb_rs", "layer_ag", "layer_rs", "replica_ar"))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # 0 tokens/s: the rates divide by it
def test_plans_that_move_no_token_are_still_ranked_as_a_full_sort_ranks_them():
    """A GPU capped to nothing runs every plan at 0 tokens/s: the speeds are not numbers, and the plans are ranked
    whole (the shortcut for the top ones needs numbers to cut at)."""
    from dataclasses import replace

    cluster = replace(cluster_from_system(default_catalog(), "dgx-h100", 8), gpu_power_cap_w=1.0)
    out = search_plans(preset("llama3-8b"), Training(global_batch=64), cluster, top=3)
    assert out["valid"] > 3 and len(out["ranked"]) == 3 and out["best"] == out["ranked"][0]
