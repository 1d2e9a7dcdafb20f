"""podplanner sweep: a grid read and checked, every combination generated and analysed by the same functions as
new superpod and analyze, one row each, the same rows in this process, on a local pool and on a Dask cluster."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from designer.analysis import analyze, analyze_workloads
from designer.cli import main
from designer.generate import SuperpodSpec, generate
from designer.sweep import runners
from designer.sweep.grid import MAX_ROWS, GridError, parse_grid, read_grid
from designer.sweep.rows import NAMES, Task, evaluate

GRID = {"systems": ["dgx-b200", "gb300-nvl72"], "fabrics": ["infiniband", "spectrum-x"], "sus": [1],
        "models": ["llama3-8b", {"preset": "llama3-70b", "seq": 4096, "name": "70b-4k"}],
        "plans": ["search", {"tp": 8, "pp": 2, "name": "tp8-pp2"}]}


def _col(row: tuple, name: str):
    return row[NAMES.index(name)]


@pytest.fixture(scope="module")
def rows(catalog):
    grid = parse_grid(GRID)
    return [r for t in runners.tasks(grid) for r in evaluate(t, catalog)]


def test_the_grid_is_every_combination_in_order():
    grid = parse_grid(GRID)
    assert grid.rows == 16
    assert [(d.system, d.fabric, d.sus) for d in grid.designs] == [
        ("dgx-b200", "infiniband", 1), ("dgx-b200", "spectrum-x", 1),
        ("gb300-nvl72", "infiniband", 1), ("gb300-nvl72", "spectrum-x", 1)]
    assert [(w.model, w.plan) for w in grid.workloads] == [
        ("llama3-8b", "search"), ("llama3-8b", "tp8-pp2"), ("70b-4k", "search"), ("70b-4k", "tp8-pp2")]
    assert grid.workloads[2].as_dict()["model"] == {"preset": "llama3-70b", "seq": 4096}


@pytest.mark.parametrize("doc, words", [
    ({"systems": ["dgx-b20"], "gpus": [8]}, "systems[0]: 'dgx-b20' is not a system the generator lays out"),
    ({"systems": ["vera-rubin-nvl72"], "gpus": [8]}, "systems[0]: vera-rubin-nvl72: NVIDIA has published no"),
    ({"systems": ["dgx-b200"], "gpus": [8], "sus": [1]}, "one of the two"),
    ({"systems": ["dgx-b200"]}, "give the sizes as gpus"),
    ({"systems": ["dgx-b200"], "gpus": [8, -1]}, "gpus[1]: above 0"),
    ({"systems": ["dgx-b200"], "gpus": [8.5]}, "gpus[0]: a whole number"),
    ({"systems": ["dgx-b200"], "gpus": []}, "gpus: an empty list"),
    ({"systems": ["dgx-b200"], "gpus": [8], "fabrics": ["ib"]}, "fabrics[0]: 'ib' is not a fabric"),
    ({"systems": ["dgx-b200"], "gpus": [8], "models": ["llama9"]}, "models[0] with plans[0] in bf16: unknown model"),
    ({"systems": ["dgx-b200"], "gpus": [8], "models": [{"preset": "llama3-8b", "heads": 0}]}, "models[0]"),
    ({"systems": ["dgx-b200"], "gpus": [8], "plans": [{"tq": 2}]}, "plans[0]: unknown field 'tq'"),
    ({"systems": ["dgx-b200"], "gpus": [8], "plans": [{"recompute": "most"}]}, "recompute must be one of"),
    ({"systems": ["dgx-b200"], "gpus": [8], "plans": ["best"]}, "plans[0]: search, or a mapping"),
    ({"systems": ["dgx-b200"], "gpus": [8], "precisions": ["fp7"]}, "precisions[0]: bf16, fp8 or fp4"),
    ({"systems": ["dgx-b200"], "gpus": [8], "halls": ["40by30"]}, "halls[0]: a hall is WIDTHxDEPTH"),
    ({"systems": ["dgx-b200"], "gpus": [8], "hall_mw": [float("nan")]}, "hall_mw[0]: a finite number"),
    ({"systems": ["dgx-b200"], "gpus": [8], "options": {"rack-kw": 40}}, "options.rack-kw: not an option"),
    ({"systems": ["dgx-b200"], "gpus": [8], "options": {"rack_kw": "forty"}}, "options.rack_kw: a number"),
    ({"systems": ["dgx-b200"], "gpus": [8], "colour": "red"}, "unknown key 'colour'"),
    ({"systems": ["dgx-b200"], "gpus": list(range(1, 1001)), "models": ["llama3-8b"] * 101},
     f"more than a sweep writes ({MAX_ROWS:,})"),
    ([1, 2], "a grid is a mapping"),
])
def test_a_grid_that_cannot_be_swept_says_what_and_where(doc, words):
    with pytest.raises(GridError) as err:
        parse_grid(doc)
    assert words in str(err.value)


def test_one_analysis_per_workload_is_the_analysis_of_the_design_with_that_workload(catalog):
    project = generate(SuperpodSpec(system="dgx-b200", sus=1), catalog).project
    workloads = [None, {"model": "llama3-8b", "tokens": 1e12}, {"model": "llama3-70b", "tp": 8, "pp": 2}]
    shared = list(analyze_workloads(project, catalog, workloads))
    for workload, analysis in zip(workloads, shared):
        alone = analyze(project.with_workload(workload), catalog)
        assert analysis.to_json() == alone.to_json()
    # the engines that do not read the workload ran once: their results are the same objects
    assert shared[1].result("fabric") is shared[0].result("fabric")
    assert shared[1].result("training") is not shared[0].result("training")


def test_a_row_is_the_design_and_its_estimate_as_analyze_gives_them(catalog, rows):
    assert len(rows) == 16 and all(len(r) == len(NAMES) for r in rows)
    first = rows[0]
    project = generate(SuperpodSpec(system="dgx-b200", sus=1, fabric="infiniband"), catalog).project
    a = analyze(project.with_workload({"model": "llama3-8b", "tokens": 15e12, "precision": "bf16"}), catalog)
    assert (_col(first, "design"), _col(first, "system"), _col(first, "fabric"), _col(first, "sus_asked")) == \
        (1, "dgx-b200", "infiniband", 1)
    assert _col(first, "status") == "ok" and _col(first, "message") == ""
    assert _col(first, "gpus") == a.summary.gpus == 248  # 31 DGX: one SU less the UFM's node
    assert _col(first, "racks") == a.summary.racks
    assert _col(first, "price_total") == a.summary.price_total
    assert _col(first, "leaf") == a.summary.switches.leaf
    assert _col(first, "tp") == a.training.tp and _col(first, "dp") == a.training.dp
    assert _col(first, "mfu") == a.training.mfu
    assert _col(first, "time_to_train_days") == a.training.time_to_train_days
    assert _col(first, "cost_per_million_tokens") == a.cost.cost_per_million_tokens
    assert _col(first, "preliminary") is False


def test_a_combination_that_cannot_be_built_is_a_row_that_says_why(rows):
    b200_ethernet = [r for r in rows if _col(r, "system") == "dgx-b200" and _col(r, "fabric") == "spectrum-x"]
    assert len(b200_ethernet) == 4
    for r in b200_ethernet:
        assert _col(r, "status") == "invalid"
        assert "dgx-b200 has no Ethernet reference architecture" in _col(r, "message")
        assert _col(r, "gpus") is None and _col(r, "mfu") is None
    gb300_ethernet = [r for r in rows if _col(r, "system") == "gb300-nvl72" and _col(r, "fabric") == "spectrum-x"]
    assert {_col(r, "status") for r in gb300_ethernet} <= {"ok", "errors"}
    assert _col(gb300_ethernet[0], "gpus") == 72  # the Spectrum-X SU of GB300 NVL72: one rack


def test_a_plan_that_does_not_fit_promises_no_throughput(catalog):
    grid = parse_grid({"systems": ["dgx-b200"], "sus": [1], "global_batch": 248, "models": [
        {"preset": "llama3-70b", "seq": 4096}], "plans": [{"tp": 1, "pp": 1, "micro_batch": 1, "recompute": "none"}]})
    assert grid.workloads[0].plan == "tp1 pp1 micro_batch=1 recompute=none"
    (row,) = evaluate(runners.tasks(grid)[0], catalog)
    assert _col(row, "fits") is False
    assert _col(row, "status") == "errors"
    assert "training plan needs" in _col(row, "message") and "per GPU" in _col(row, "message")
    assert _col(row, "memory_gb_per_gpu") > 180  # 70B unsharded on one B200
    for name in ("tokens_per_s", "mfu", "step_time_s", "time_to_train_days", "cost_per_million_tokens"):
        assert _col(row, name) is None


def test_a_design_that_fails_inside_is_a_failed_row_and_the_sweep_goes_on(catalog, monkeypatch):
    import designer.generate.build as build

    grid = parse_grid({"systems": ["dgx-b200"], "sus": [1, 2], "models": ["llama3-8b"]})
    real = build.generate

    def broken(spec, cat):
        if spec.sus == 1:
            raise ZeroDivisionError("division by zero")
        return real(spec, cat)

    monkeypatch.setattr(build, "generate", broken)
    got = [r for t in runners.tasks(grid) for r in evaluate(t, catalog)]
    assert [_col(r, "status") for r in got] == ["failed", "ok"]
    assert _col(got[0], "message") == "internal error: ZeroDivisionError: division by zero"


def _write_grid(tmp_path, doc) -> str:
    path = tmp_path / "grid.yaml"
    import yaml

    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return str(path)


SMALL = {"systems": ["dgx-b200", "gb200-nvl72"], "sus": [1, 2], "models": ["llama3-8b", "llama3-70b"],
         "fabrics": ["default", "spectrum-x"]}


@pytest.fixture(scope="module")
def serial_rows(tmp_path_factory):
    grid = tmp_path_factory.mktemp("grid") / "grid.json"
    grid.write_text(json.dumps(SMALL), encoding="utf-8")
    return list(runners.run_sweep(read_grid(grid), workers=1))


def test_sweep_on_two_local_workers_writes_the_rows_of_one_process_as_csv(tmp_path, serial_rows, capsys):
    out = tmp_path / "rows.csv"
    assert main(["sweep", _write_grid(tmp_path, SMALL), "--workers", "2", "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert f"wrote {out}: 16 rows (8 designs x 2 workloads)" in said and "on 2 workers" in said
    assert "8 ok, 0 with error findings, 8 cannot be built as asked, 0 failed" in said
    with out.open(newline="") as fh:
        table = list(csv.reader(fh))
    assert tuple(table[0]) == NAMES
    assert len(table) == 17
    for got, want in zip(table[1:], serial_rows):
        assert got == ["" if v is None else ("true" if v is True else "false" if v is False else
                                             repr(v) if isinstance(v, float) else str(v)) for v in want]


def test_sweep_on_a_dask_cluster_writes_the_same_rows_as_parquet(tmp_path, serial_rows, capsys):
    import pyarrow.parquet as pq
    from distributed import LocalCluster

    out = tmp_path / "rows.parquet"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        code = main(["sweep", _write_grid(tmp_path, SMALL), "--dask", cluster.scheduler_address, "-o", str(out),
                     "--json"])
    assert code == 0
    said = json.loads(capsys.readouterr().out)
    assert said["runner"].startswith("dask tcp://") and said["rows"] == 16
    assert said["status"] == {"ok": 8, "errors": 0, "invalid": 8, "failed": 0}
    table = pq.read_table(out)
    assert table.column_names == list(NAMES)
    assert str(table.schema.field("gpus").type) == "int64" and str(table.schema.field("mfu").type) == "double"
    assert str(table.schema.field("fits").type) == "bool"
    assert table.schema.field("mfu").metadata[b"description"] == b"model FLOPs utilisation, 0-1"
    assert b"llama3-70b" in table.schema.metadata[b"podplanner.sweep.grid"]
    assert [tuple(r.values()) for r in table.to_pylist()] == serial_rows


@pytest.mark.parametrize("args, words", [
    (["-o", "{tmp}/rows.txt"], "the output is a .csv or a .parquet file"),
    (["-o", "{tmp}/missing/rows.csv"], "folder"),
    (["--workers", "0", "-o", "{tmp}/rows.csv"], "--workers"),
    (["--workers", "2", "--dask", "tcp://127.0.0.1:9", "-o", "{tmp}/rows.csv"], "not allowed with argument"),
])
def test_sweep_flags_that_cannot_run_exit_2_in_one_line(tmp_path, capsys, args, words):
    grid = _write_grid(tmp_path, {"systems": ["dgx-b200"], "sus": [1]})
    code = main(["sweep", grid, *[a.format(tmp=tmp_path) for a in args]])
    err = capsys.readouterr().err
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


def test_sweep_of_a_broken_grid_file_names_the_file_and_the_entry(tmp_path, capsys):
    bad = tmp_path / "grid.yaml"
    bad.write_text("systems: [dgx-b200\ngpus: 8\n", encoding="utf-8")
    assert main(["sweep", str(bad), "-o", str(tmp_path / "r.csv")]) == 2
    assert f"{bad}: not readable YAML" in capsys.readouterr().err
    bad.write_bytes(b"systems: [dgx-b200]\n# \xff\xfe\n")
    assert main(["sweep", str(bad), "-o", str(tmp_path / "r.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"podplanner: error: sweep: {bad}: ") and "UTF-8" in err
    grid = _write_grid(tmp_path, {"systems": ["dgx-b200"], "gpus": [8], "plans": [{"tp": "eight"}]})
    assert main(["sweep", grid, "-o", str(tmp_path / "r.csv")]) == 2
    assert "models[0] with plans[0] in bf16: workload tp must be a whole number" in capsys.readouterr().err
    assert not (tmp_path / "r.csv").exists()


def test_sweep_to_a_scheduler_that_is_not_there_exits_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(runners, "DASK_CONNECT_S", 1.0)
    grid = _write_grid(tmp_path, {"systems": ["dgx-b200"], "sus": [1]})
    assert main(["sweep", grid, "--dask", "tcp://127.0.0.1:9", "-o", str(tmp_path / "r.csv")]) == 2
    assert "--dask tcp://127.0.0.1:9: no Dask scheduler answers there" in capsys.readouterr().err


def test_a_failed_row_is_written_and_exits_1(tmp_path, capsys, monkeypatch):
    import designer.generate.build as build

    def broken(spec, cat):
        raise KeyError("x")

    monkeypatch.setattr(build, "generate", broken)
    out = tmp_path / "r.csv"
    grid = _write_grid(tmp_path, {"systems": ["dgx-b200"], "sus": [1]})
    assert main(["sweep", grid, "--workers", "1", "-o", str(out)]) == 1
    assert "1 row failed on an internal error (written, status failed); the first: design 1: internal error: " \
           "KeyError" in capsys.readouterr().err
    assert ",failed,internal error: KeyError: 'x'," in out.read_text()


def test_task_is_plain_data_for_another_process():
    import pickle

    task = runners.tasks(parse_grid(GRID))[0]
    assert pickle.loads(pickle.dumps(task)) == task
    assert isinstance(task, Task) and task.number == 1


def test_sweep_on_a_scheduler_without_workers_exits_2(tmp_path, capsys, monkeypatch):
    from distributed import LocalCluster

    monkeypatch.setattr(runners, "DASK_CONNECT_S", 1.0)
    grid = _write_grid(tmp_path, {"systems": ["dgx-b200"], "sus": [1]})
    with LocalCluster(n_workers=0, processes=True, dashboard_address=None) as cluster:
        code = main(["sweep", grid, "--dask", cluster.scheduler_address, "-o", str(tmp_path / "r.csv")])
    assert code == 2
    assert "the scheduler has no workers (none joined in 1 s)" in capsys.readouterr().err
    assert not (tmp_path / "r.csv").exists()


def test_a_workload_that_fails_inside_fails_its_own_row_only(catalog, monkeypatch):
    import designer.training.section as section

    real = section.training_section

    def breaks_on_70b(cluster, settings, workload, io=None, **kw):
        if workload and workload.get("model") == "llama3-70b":
            raise OverflowError("int too large")
        return real(cluster, settings, workload, io=io, **kw)

    monkeypatch.setattr(section, "training_section", breaks_on_70b)
    grid = parse_grid({"systems": ["dgx-b200"], "sus": [1], "models": ["llama3-8b", "llama3-70b", "gpt3-22b"]})
    got = evaluate(runners.tasks(grid)[0], catalog)
    assert [_col(r, "model") for r in got] == ["llama3-8b", "llama3-70b", "gpt3-22b"]
    assert [_col(r, "status") for r in got] == ["ok", "failed", "ok"]
    assert _col(got[1], "message") == "internal error: OverflowError: int too large"
    assert _col(got[2], "mfu") > 0


def test_an_invalid_row_names_the_fabric_the_system_would_have(catalog):
    grid = parse_grid({"systems": ["dgx-b200"], "sus": [4], "hall_mw": [0.1]})
    (row,) = evaluate(runners.tasks(grid)[0], catalog)
    assert (_col(row, "status"), _col(row, "fabric")) == ("invalid", "infiniband")


def test_the_sweep_reads_the_catalog_every_command_reads(tmp_path, monkeypatch, catalog, catalog_copy, capsys):
    """PODPLANNER_CATALOG is a user's catalog folder: the sweep's workers price with it, as analyze does."""
    user = tmp_path / "user"
    user.mkdir()
    entry = json.loads((catalog_copy / "systems" / "dgx-b200.json").read_text())
    entry["price"]["amount"]["value"] = 1.0
    (user / "dgx-b200.json").write_text(json.dumps(entry))
    monkeypatch.setenv("PODPLANNER_CATALOG", str(user))
    out = tmp_path / "rows.csv"
    grid = _write_grid(tmp_path, {"systems": ["dgx-b200"], "sus": [1, 2], "models": ["llama3-8b"]})
    assert main(["sweep", grid, "--workers", "2", "-o", str(out)]) == 0
    assert "warning" not in capsys.readouterr().err
    swept = list(csv.DictReader(out.open()))
    from catalog import load_catalog

    mine = load_catalog(None)
    for row, sus in zip(swept, (1, 2)):
        project = generate(SuperpodSpec(system="dgx-b200", sus=sus), mine).project
        want = analyze(project.with_workload({"model": "llama3-8b", "tokens": 15e12, "precision": "bf16"}), mine)
        assert float(row["price_total"]) == want.summary.price_total
    builtin = generate(SuperpodSpec(system="dgx-b200", sus=1), catalog).project
    assert float(swept[0]["price_total"]) < analyze(builtin, catalog).summary.price_total


@pytest.mark.parametrize("text, words", [
    ("systems: &s [dgx-b200]\nmodels: *s\nsus: [1]\n", "aliases (*name) are not read in a grid"),
    ("systems: [dgx-b200]\nsystems: [gb200-nvl72]\nsus: [1]\n", "'systems' is given twice"),
    ("systems: [dgx-b200]\ngpus: [" + "9" * 400 + "]\n", "gpus[0]: a number"),
    ("systems: [dgx-b200]\nsus: [1]\nmodels: [{preset: null}]\n", "models[0].preset: a name of 1 to 60"),
    ("systems: [dgx-b200]\nsus: [1]\nmodels: [{params: 1e30}]\n", "models[0].params: 1e+06 to 1e+14"),
    ("systems: [dgx-b200]\nsus: [1]\nmodels: [llama3-8b, {preset: llama3-70b, name: llama3-8b}]\n",
     "models[1]: the same as models[0] ('llama3-8b')"),
    ("systems: [dgx-b200]\nsus: [1]\nglobal_batch: 1099511627776\n", "global_batch: above 0 and at most 1,048,576"),
    ("systems: [dgx-b200, gb200-nvl72]\nsus: [1]\noptions: {switch: nope}\n",
     "options: no system of the grid can be built with them (dgx-b200: "),
])
def test_a_grid_file_that_cannot_be_swept_exits_2_at_once(tmp_path, capsys, text, words):
    path = tmp_path / "grid.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["sweep", str(path), "-o", str(tmp_path / "rows.csv")]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_a_grid_of_a_billion_rows_is_refused_before_it_is_crossed(tmp_path, capsys):
    path = tmp_path / "grid.json"
    path.write_text(json.dumps({"systems": ["dgx-b200"] * 1000, "fabrics": ["default"] * 1000,
                                "gpus": list(range(1, 1001))}))
    assert main(["sweep", str(path), "-o", str(tmp_path / "rows.csv")]) == 2
    assert "1,000 systems × 1,000 fabrics × 1,000 gpus = 1,000,000,000 rows, more than a sweep writes" in \
        capsys.readouterr().err


def test_an_output_that_cannot_take_the_rows_is_refused_before_the_sweep(tmp_path, capsys):
    grid = _write_grid(tmp_path, {"systems": ["dgx-b200"], "sus": [1]})
    same = tmp_path / "same.csv"  # any other name is read as YAML
    same.write_text(Path(grid).read_text())
    assert main(["sweep", str(same), "-o", str(same)]) == 2
    assert "is the grid file itself" in capsys.readouterr().err
    assert same.read_text() == Path(grid).read_text()
    link = tmp_path / "link.csv"
    link.symlink_to(grid)
    assert main(["sweep", grid, "-o", str(link)]) == 2
    assert "is the grid file itself" in capsys.readouterr().err
    kept = tmp_path / "kept.csv"
    kept.write_text("old\n")
    kept.chmod(0o444)
    assert main(["sweep", grid, "-o", str(kept)]) == 2
    assert f"-o {kept}: is read-only" in capsys.readouterr().err
    assert kept.read_text() == "old\n"


@pytest.mark.parametrize("address", ["foo", "tcp://", "http://x", "", "ucx://x:1"])
def test_a_dask_address_that_is_not_a_schedulers_exits_2_in_one_line(tmp_path, capsys, address):
    grid = _write_grid(tmp_path, {"systems": ["dgx-b200"], "sus": [1]})
    assert main(["sweep", grid, "--dask", address, "-o", str(tmp_path / "r.csv")]) == 2
    err = capsys.readouterr().err
    assert "a scheduler address is tcp://HOST:PORT" in err and len(err.strip().splitlines()) == 1


def test_a_sweep_row_runs_its_engines_on_one_thread(catalog, monkeypatch):
    """The sweep already puts a design on every core (or dask thread): its engines do not take a second one."""
    import designer.analysis as analysis

    asked = []
    real = analysis.run_engines

    def spy(engines, ctx, given=None, workers=None):
        asked.append(workers)
        return real(engines, ctx, given, workers=workers)

    monkeypatch.setattr(analysis, "run_engines", spy)
    grid = parse_grid({"systems": ["dgx-b200"], "sus": [1], "models": ["llama3-8b", "llama3-70b"]})
    got = evaluate(runners.tasks(grid)[0], catalog)
    assert [_col(r, "status") for r in got] == ["ok", "ok"]
    assert asked == [1, 1]


def test_a_sweep_row_searches_each_workload_once_without_the_size_chart(catalog, monkeypatch):
    """A row shows the plan at the design's size only: the throughput-vs-size chart's three extra searches per
    workload (two thirds of a sweep's time) are not run, and the row's figures are those analyze gives."""
    import designer.training.planner as planner
    import designer.training.section as section

    searched = []
    real = planner.search_plans

    def spy(model, training, cluster, **kw):
        searched.append(cluster.gpus)
        return real(model, training, cluster, **kw)

    monkeypatch.setattr(planner, "search_plans", spy)
    drawn = []
    monkeypatch.setattr(section, "_scaling", lambda *a, **k: drawn.append(a) or [])
    grid = parse_grid({"systems": ["dgx-b200"], "sus": [1], "models": ["llama3-8b", "llama3-70b"]})
    got = evaluate(runners.tasks(grid)[0], catalog)
    assert searched == [248, 248] and drawn == []
    project = generate(SuperpodSpec(system="dgx-b200", sus=1), catalog).project
    a = analyze(project.with_workload({"model": "llama3-70b", "tokens": 15e12, "precision": "bf16"}), catalog)
    assert (_col(got[1], "tp"), _col(got[1], "pp"), _col(got[1], "mfu")) == (a.training.tp, a.training.pp,
                                                                           a.training.mfu)
