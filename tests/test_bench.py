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
    # the generator's SU: 4 compute racks of 2 DGX, 2 network racks, spine, storage, in-band and management racks
    assert len(project.racks) == 10
    seconds, doc = analyze_cli_s(path, runs=1, cache_dir=tmp_path / "pycache")
    assert isinstance(seconds, float) and seconds > 0
    assert doc["summary"]["gpus"] == 64
    assert doc["summary"]["racks"] == 10
    assert not [f for f in doc["findings"] if f["severity"] == "error"]


def test_generate_is_a_named_benchmark_with_the_figures_of_the_budget(monkeypatch):
    import bench.generate_bench as gb
    import designer.generate as gen

    assert "generate" in BENCHMARKS
    calls = []
    # A small target through the same code path: the figure names are the contract, not the size.
    original = gen.SuperpodSpec

    def small(**kw):
        calls.append(kw["system"])
        return original(system=kw["system"], sus=1, switch=kw.get("switch"))

    monkeypatch.setattr(gen, "SuperpodSpec", small)
    figures = gb.bench()
    assert calls == ["dgx-b200", "gb200-nvl72"]
    assert figures["generate_100k_gpus"] == 248 and figures["generate_100k_nvl72_gpus"] == 576
    assert figures["generate_100k_errors"] == 0 and figures["generate_100k_nvl72_errors"] == 0
    assert {"generate_100k_s", "generate_analyze_100k_s", "generate_100k_nvl72_s",
            "generate_analyze_100k_nvl72_s"} <= set(figures)


def test_a_failing_analyze_run_is_an_error(tmp_path):
    bad = tmp_path / "bad.podplan.json"
    bad.write_text("{not json")
    with pytest.raises(AnalyzeRunError, match="exited"):
        check_run(bad, child_env(tmp_path / "pycache"))


def test_quote_is_a_named_benchmark_with_the_figures_of_the_budget(monkeypatch):
    import bench.designs as designs
    import bench.quote_bench as qb

    assert "quote" in BENCHMARKS
    # A small design through the same code path: the figure names are the contract, not the size.
    monkeypatch.setattr(designs, "dgx_b200_project", lambda gpus=100_000: designs.generated("dgx-b200", 256))
    figures = qb.bench()
    assert {"pdf_sample_s", "pdf_100k_s", "xlsx_100k_s", "bom_csv_100k_s"} <= set(figures)
    assert figures["quote_100k_gpus"] == 248 and figures["quote_100k_bill_lines"] > 10
    assert figures["pdf_100k_pages_account"].endswith("pages")
