"""The benchmark harness's wiring (bench/): its names, its figures' names, its inputs. Nothing here times anything
or runs a benchmark at full size: the figures are ``python -m bench``'s, never the test suite's."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from bench.__main__ import BENCHMARKS, main
from bench.analyze_bench import AnalyzeRunError, check_run, child_env, save_design
from designer.fileformat import load

ROOT = Path(__file__).resolve().parents[1]


def _readme_benchmarks() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8").split("## Benchmarks", 1)[1].split("\n## ", 1)[0]


@pytest.fixture
def once(monkeypatch):
    """``once(module)``: the module's ``best_of`` calls its function once and times nothing."""
    def patch(module):
        monkeypatch.setattr(module, "best_of", lambda fn, runs=3: (0.0, fn()))
        return module

    return patch


def test_the_list_is_every_benchmark_and_the_readme_names_each(capsys):
    assert main(["--list"]) == 0
    assert capsys.readouterr().out.split() == list(BENCHMARKS)
    assert all(callable(fn) for fn in BENCHMARKS.values())
    listed = re.search(r"runs only the named benchmarks: (.*?)\.", _readme_benchmarks(), re.S)[1]
    assert sorted(re.findall(r"`(\w+)`", listed)) == sorted(BENCHMARKS)


def test_an_unknown_benchmark_is_refused(capsys):
    assert main(["no-such-bench"]) == 2
    assert "unknown benchmark 'no-such-bench'" in capsys.readouterr().err


def test_every_figure_with_a_budget_in_the_readme_is_one_a_benchmark_prints():
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "bench").glob("*.py"))
    rows = [line.split("|")[1] for line in _readme_benchmarks().splitlines() if line.startswith("| `")]
    figures = [name for row in rows for name in re.findall(r"`([a-z0-9_…]+)`", row)]
    assert len(figures) > 20
    for name in figures:
        quoted = re.escape(name.rstrip("…")) + ("\\w*" if name.endswith("…") else "")
        assert re.search(f"[\"']{quoted}[\"']", source), f"no benchmark prints {name}"


@pytest.mark.parametrize("module", ["analyze_bench", "fabric_bench", "training_bench", "generate_bench",
                                    "quote_bench", "handoff_bench", "names_bench", "gui_bench", "campus_bench"])
def test_each_benchmark_module_has_its_bench(module):
    assert callable(importlib.import_module(f"bench.{module}").bench)


def test_the_analyze_benchmarks_design_analyses_without_errors(tmp_path, catalog):
    path = save_design(tmp_path / "small.podplan.json", gpus=64)
    project = load(path, catalog)
    # the generator's SU: 4 compute racks of 2 DGX, 2 network racks, spine, storage, storage array, in-band and
    # management racks
    assert len(project.racks) == 11
    doc = check_run(path, child_env(tmp_path / "pycache"))  # the untimed run the benchmark checks first
    assert doc["summary"]["gpus"] == 64
    assert doc["summary"]["racks"] == 11
    assert not [f for f in doc["findings"] if f["severity"] == "error"]


def test_generate_is_a_named_benchmark_with_the_figures_of_the_budget(monkeypatch, once):
    import bench.generate_bench as gb
    import designer.generate as gen

    assert "generate" in BENCHMARKS
    calls = []
    # A small target through the same code path: the figure names are the contract, not the size.
    original = gen.SuperpodSpec

    def small(**kw):
        calls.append((kw["system"], kw.get("fabric")))
        return original(system=kw["system"], sus=1, switch=kw.get("switch"), fabric=kw.get("fabric"))

    monkeypatch.setattr(gen, "SuperpodSpec", small)
    figures = once(gb).bench()
    assert calls == [("dgx-b200", None), ("gb200-nvl72", None), ("dgx-b300", None), ("gb300-nvl72", None),
                     ("dgx-b300", "spectrum-x")]
    assert figures["generate_100k_gpus"] == 248 and figures["generate_100k_nvl72_gpus"] == 576
    assert figures["generate_100k_b300_gpus"] == figures["generate_100k_gb300_gpus"] == 576
    # every system on the switch the generator picks for it builds clean (DGX B200 on its RA's QM9700, at the campus
    # ratio above the pods at 100,000 GPUs)
    assert figures["generate_100k_errors"] == 0 and figures["generate_100k_nvl72_errors"] == 0
    assert figures["generate_100k_b300_errors"] == 0 and figures["generate_100k_gb300_errors"] == 0
    # one SU of the Spectrum-X RA: 64 DGX B300, no node making way for UFM (an Ethernet fabric has none)
    assert figures["generate_100k_ethernet_gpus"] == 512 and figures["generate_100k_ethernet_errors"] == 0
    assert {"generate_100k_s", "generate_analyze_100k_s", "generate_100k_nvl72_s",
            "generate_analyze_100k_nvl72_s", "generate_100k_b300_s", "generate_100k_gb300_s",
            "generate_100k_ethernet_s"} <= set(figures)


def test_a_failing_analyze_run_is_an_error(tmp_path):
    bad = tmp_path / "bad.podplan.json"
    bad.write_text("{not json")
    with pytest.raises(AnalyzeRunError, match="exited"):
        check_run(bad, child_env(tmp_path / "pycache"))


def test_quote_is_a_named_benchmark_with_the_figures_of_the_budget(monkeypatch, once):
    import bench.designs as designs
    import bench.quote_bench as qb

    assert "quote" in BENCHMARKS
    # A small design through the same code path: the figure names are the contract, not the size.
    monkeypatch.setattr(designs, "dgx_b200_project", lambda gpus=100_000: designs.generated("dgx-b200", 256))
    figures = once(qb).bench()
    assert {"pdf_sample_s", "pdf_100k_s", "xlsx_100k_s", "bom_csv_100k_s"} <= set(figures)
    assert figures["quote_100k_gpus"] == 248 and figures["quote_100k_bill_lines"] > 10
    assert figures["pdf_100k_pages_account"].endswith("pages")


def test_names_is_a_named_benchmark_with_the_figure_of_the_budget(monkeypatch, once):
    import bench.names_bench as nb

    assert "names" in BENCHMARKS
    monkeypatch.setattr(nb, "RACKS", 10)  # the figure's name is the contract, not the size
    figures = once(nb).bench()
    assert set(figures) == {"names_25k_places_ms", "names_25k_places"} and figures["names_25k_places"] == 20
