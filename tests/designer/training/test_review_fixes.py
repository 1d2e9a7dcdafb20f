"""Inputs that once slipped through the training engine."""
from __future__ import annotations

import pytest

from designer.cli import main


@pytest.mark.parametrize(("flags", "message"), [
    (["--tp", "0"], "--tp must be at least 1"),
    (["--pp", "0"], "--pp must be at least 1"),
    (["--cp", "0"], "--cp must be at least 1"),
    (["--global-batch", "100000000000000000000"], "beyond any training run"),
    (["--global-batch", "0"], "global batch must be a positive integer"),
    (["--tokens", "0"], "token budget must be positive"),
    (["--oversubscription", "nan"], "oversubscription"),
    (["--tp", "8", "--seq", "4100", "--global-batch", "8"], "by TP"),
])
def test_refused_with_one_line(capsys, flags, message):
    assert main(["train", "--system", "dgx-h100", "--gpus", "64", "--model", "llama3-8b", *flags, "--json"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_moe_expert_states_shard_over_the_expert_data_parallel_group():
    import numpy as np

    from designer.training.memory import model_states
    from designer.training.models import preset

    m = preset("mixtral-8x7b")
    cols = {k: np.array([v]) for k, v in dict(tp=1, pp=2, dp=4, cp=1, ep=4, zero=2).items()}
    _, grads, optim, psi = model_states(m, cols, 4.0)
    expert = 16 * m.experts * m.expert_params  # 16 of 32 layers on the first stage, all 8 experts / EP4 * 4
    expert_on_gpu = 16 * m.experts * m.expert_params / 4
    dense = psi[0] - expert_on_gpu
    # ZeRO-2 over DP4: dense states / 4; expert states have DP4/EP4 = 1 copy each, so they are not sharded.
    assert optim[0] == pytest.approx(12 * (dense / 4 + expert_on_gpu / 1))
    assert grads[0] == pytest.approx(4 * (dense / 4 + expert_on_gpu))
    assert expert > 0
