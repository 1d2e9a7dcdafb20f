"""Smoke tests of the benchmark harness (bench/): it runs and its inputs are valid. No wall-clock asserts."""
from __future__ import annotations

import pytest

from bench.__main__ import BENCHMARKS, main
from bench.analyze_bench import AnalyzeRunError, analyze_cli_s, check_run, child_env, save_design
from designer.fileformat import load


def test_analyze_is_a_named_benchmark_and_in_the_default_run(capsys):
    assert "analyze" in BENCHMARKS
    assert main(["--list"]) == 0
    assert "analyze" in capsys.readouterr().out.split()


def test_analyze_benchmark_on_a_small_design(tmp_path, catalog):
    path = save_design(tmp_path / "small.podplan.json", gpus=64)
    project = load(path, catalog)
    assert len(project.racks) == 4
    seconds, doc = analyze_cli_s(path, runs=1, cache_dir=tmp_path / "pycache")
    assert isinstance(seconds, float) and seconds > 0
    assert doc["summary"]["gpus"] == 64
    assert doc["summary"]["racks"] == 4


def test_a_failing_analyze_run_is_an_error(tmp_path):
    bad = tmp_path / "bad.podplan.json"
    bad.write_text("{not json")
    with pytest.raises(AnalyzeRunError, match="exited"):
        check_run(bad, child_env(tmp_path / "pycache"))
