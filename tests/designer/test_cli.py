from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from designer.cli import main
from designer.samples import DGX_B200_SU, GB200_NVL72_SU
from tests.designer.test_fileformat import GOLDEN

REPO = Path(__file__).resolve().parents[2]


def run(capsys, *args, **kwargs):
    code = main(list(args), **kwargs)
    out, err = capsys.readouterr()
    return code, out, err


def test_catalog_list_shows_every_type_with_its_source(capsys):
    code, out, _ = run(capsys, "--catalog", str(REPO / "tests" / "catalog" / "fixtures" / "netbox"), "catalog", "list")
    assert code == 0
    lines = {line.split()[0]: line for line in out.splitlines()[1:]}
    for device_id in ("dgx-a100", "dgx-b200", "dgx-h100", "dgx-h200", "gb200-nvl72", "qm9700", "qm9790", "q3400",
                      "sn5600", "sn2201", "ufm-appliance", "cdu-inrow-2mw", "nvidia-sn5600"):
        assert device_id in lines
    # typical power, the third-party price-list SKU and the host memory's bandwidth are unconfirmed
    assert "S1" in lines["dgx-b200"] and "3 unconfirmed" in lines["dgx-b200"]


def test_catalog_list_json_and_kind_filter(capsys):
    code, out, _ = run(capsys, "catalog", "list", "--kind", "switch", "--json")
    rows = json.loads(out)
    assert code == 0 and {r["id"] for r in rows} == {"qm9700", "qm9790", "q3400", "sn5600", "sn5610", "sn2201"}
    code, _, err = run(capsys, "catalog", "list", "--kind", "toaster")
    assert code == 2 and "no device of kind 'toaster'" in err


def test_catalog_show_any_case(capsys):
    code, out, _ = run(capsys, "catalog", "show", "DGX-B200")
    assert code == 0
    assert "NVIDIA DGX B200" in out and "power_max_w" in out and "14300" in out and "UNCONFIRMED" in out
    # the evidence tags the figures carry are spelled out under the sources
    assert "evidence:\n  P: vendor primary document, read directly" in out and "  U: unconfirmed" in out
    code, out, _ = run(capsys, "catalog", "show", "qm9700", "--json")
    doc = json.loads(out)
    assert doc["ports"][0]["count"]["value"] == 64 and "S13" in doc["sources"]


def test_catalog_import_netbox_writes_a_loadable_entry(capsys, tmp_path):
    yaml_file = REPO / "tests" / "catalog" / "fixtures" / "netbox" / "sn5600.yaml"
    code, out, _ = run(capsys, "catalog", "import-netbox", str(yaml_file), "-o", str(tmp_path))
    assert code == 0 and "nvidia-sn5600" in out
    code, out, _ = run(capsys, "--catalog", str(tmp_path), "catalog", "show", "nvidia-sn5600", "--json")
    assert code == 0 and json.loads(out)["u_height"]["value"] == 2


@pytest.mark.parametrize(("sample", "gpus"), [(DGX_B200_SU, 248), (GB200_NVL72_SU, 576)])
def test_analyze_json_on_the_samples(capsys, sample, gpus):
    code, out, _ = run(capsys, "analyze", str(sample), "--json")
    doc = json.loads(out)
    assert code == 0
    assert doc["summary"]["gpus"] == gpus
    for key in ("gpus", "racks", "it_power_typical_kw", "it_power_max_kw"):
        assert key in doc["summary"]
    # the NVL72's 168 kW peak over the 132 kW one feed's shelves deliver is its one warning (a property of it)
    expected = [("warning", "peak-over-one-feed")] if gpus == 576 else []
    assert [(f["severity"], f["code"]) for f in doc["findings"] if f["severity"] != "info"] == expected
    assert sum(doc["devices"]["by_type"].values()) > 0


def test_analyze_text(capsys):
    code, out, _ = run(capsys, "analyze", str(DGX_B200_SU))
    assert code == 0 and "248 GPUs" in out and "31 x dgx-b200" in out
    # findings name their places as people read them; validate keeps the ids, one greppable line each
    assert "  info: Bill of materials: " in out and "  info: Racks SU01-01, SU01-02 +14 more: " in out
    assert "project:bom" not in out and "rack:su01" not in out


def test_validate(capsys, tmp_path):
    from designer.samples import DGX_B200_SU

    code, out, _ = run(capsys, "validate", str(DGX_B200_SU))
    assert code == 0 and "0 errors" in out
    # validate reports every engine's findings, as analyze does: this old file's PDUs and floor are short
    code, out, _ = run(capsys, "validate", str(GOLDEN))
    assert code == 1 and "error: rack:r2: rack A02 draws up to 132.0 kW, over its 40 kW limit" in out
    doc = json.loads(GOLDEN.read_text())
    doc["racks"][1]["x"] = 1800
    bad = tmp_path / "overlap.podplan.json"
    bad.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "validate", str(bad))
    assert code == 1 and "error: rack:r1: rack A01 overlaps rack A02" in out


@pytest.mark.parametrize(("args", "message"), [
    (["analyze"], "the following arguments are required: file"),
    (["analyze", "x.json", "--jsn"], "unrecognized arguments: --jsn"),
    (["catalog"], "required: catalog_command"),
    (["catalog", "show", "dgx-b210"], "unknown device id 'dgx-b210'; did you mean dgx-b200"),
    (["catalog", "frobnicate"], "invalid choice: 'frobnicate'"),
    (["validate", "/nonexistent/x.json"], "/nonexistent/x.json: no such file"),
    (["--catalog", "/nonexistent/cat", "catalog", "list"], "/nonexistent/cat: user catalog folder does not exist"),
    (["catalog", "import-netbox", "/nonexistent.yaml"], "/nonexistent.yaml: no such file"),
])
def test_errors_are_one_line_exit_2(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_broken_project_file(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    code, _, err = run(capsys, "validate", str(bad))
    assert code == 2 and err.strip() == (f"podplanner: error: {bad}: not valid JSON: Expecting property name "
                                         "enclosed in double quotes at line 1, column 3")


def test_broken_catalog_file(capsys, tmp_path):
    (tmp_path / "x.json").write_text('{"id": "x", "kind": "server"}')
    code, _, err = run(capsys, "--catalog", str(tmp_path), "catalog", "list")
    assert code == 2 and err.strip() == f"podplanner: error: {tmp_path / 'x.json'}: name: is required"


def test_module_entry_point_runs_the_domain_commands(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    p = subprocess.run([sys.executable, "-m", "designer", "validate", str(bad)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr and p.stderr.count("\n") == 1
    p = subprocess.run([sys.executable, "-m", "designer", "analyze", str(DGX_B200_SU), "--json"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0 and json.loads(p.stdout)["summary"]["gpus"] == 248


@pytest.mark.parametrize(("args", "message"), [
    ([], "the window opens with the podplanner command"),
    (["design.podplan.json"], "the window opens with the podplanner command"),
    (["gui", "--help"], "the window opens with the podplanner command"),
    (["export", "x.json", "--cabling", "x.csv"], "exports are written by the podplanner command"),
])
def test_module_entry_point_points_to_podplanner_for_the_window_and_exports(args, message):
    p = subprocess.run([sys.executable, "-m", "designer", *args], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and message in p.stderr
    assert "analyze, validate, fabric, train, new, catalog" in p.stderr


def test_domain_commands_never_load_qt():
    code = ("import sys; from designer.cli import main; main(['analyze', %r, '--json']); "
            "print('QT' if any(m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6', 'widgets') "
            "for m in sys.modules) else 'NOQT', file=sys.stderr)") % str(DGX_B200_SU)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stderr.strip().endswith("NOQT")


class Hello:
    """A command module of the shape ``main(commands=...)`` takes."""

    NAME = "hello"

    class Refused(Exception):
        """A user's mistake this command reports in one line."""

    ERRORS = (Refused,)

    @staticmethod
    def add_parser(subparsers):
        subparsers.add_parser("hello").add_argument("file", nargs="?")

    @staticmethod
    def run(args, catalog):
        if args.file == "refused.json":
            raise Hello.Refused("hello: refused.json: no thanks")
        print(f"hello {args.file} ({len(list(catalog))} catalog entries)")
        return 0


def test_registered_commands_run_beside_the_domain_commands(capsys):
    code, out, _ = run(capsys, "hello", "x.json", commands=[Hello])
    assert code == 0 and out.startswith("hello x.json (")
    with pytest.raises(SystemExit) as done:
        main(["--help"], commands=[Hello])
    out = capsys.readouterr().out
    assert done.value.code == 0 and "{analyze,validate,fabric,train,new,plan,catalog,compare,sweep,hello}" in out
    code, _, err = run(capsys, "hello", "refused.json", commands=[Hello])
    assert code == 2 and err == "podplanner: error: hello: refused.json: no thanks\n"


def test_the_default_command_opens_a_file_or_runs_alone(capsys):
    for argv, file in (([], "None"), (["x.podplan.json"], "x.podplan.json"),
                       (["--catalog", str(REPO / "catalog" / "data"), "x.json"], "x.json")):
        code, out, _ = run(capsys, *argv, commands=[Hello], default="hello")
        assert code == 0 and out.startswith(f"hello {file} ("), argv
    code, _, err = run(capsys, "helo", commands=[Hello], default="hello")
    assert code == 2 and err == ("podplanner: error: unknown command 'helo' (did you mean 'hello'? commands: "
                                 "analyze, validate, fabric, train, new, catalog, compare, sweep, plan, hello; or give "
                                 "a project file to open)\n")
    code, _, err = run(capsys)
    assert code == 2 and err == ("podplanner: error: say which command: "
                                 "analyze, validate, fabric, train, new, catalog, compare, sweep, plan\n")


def test_a_command_registered_twice_is_a_bug_not_a_traceback(capsys):
    class Analyze(Hello):
        NAME = "analyze"

    code, _, err = run(capsys, "analyze", commands=[Analyze])
    assert code == 3 and "registered twice" in err and "Traceback" not in err


def test_unknown_command_is_named(capsys):
    code, _, err = run(capsys, "fabrik", "--endpoints", "3")
    assert code == 2 and "unknown command 'fabrik'" in err


def test_train_json_contract(capsys):
    code, out, _ = run(capsys, "train", "--system", "DGX-H100", "--gpus", "64", "--model", "llama3-8b", "--seq",
                       "8192", "--global-batch", "128", "--tp", "1", "--pp", "1", "--dp", "64", "--micro-batch", "1",
                       "--json")
    doc = json.loads(out)
    assert code == 0
    for key in ("step_time_s", "tokens_per_s", "tflops_per_gpu", "mfu", "memory_gb_per_gpu", "fits",
                "time_to_train_days", "tp", "pp", "dp", "cp", "ep", "micro_batch", "global_batch"):
        assert key in doc
    assert doc["dp"] == 64 and doc["global_batch"] == 128 and 0 < doc["mfu"] < 1


@pytest.mark.parametrize(("args", "message"), [
    (["--system", "dgx-h100", "--gpus", "64", "--model", "llama3-8b", "--tp", "3", "--pp", "1", "--dp", "64"],
     "GPUs"),
    (["--gpu", "tpu-v5", "--gpus", "64", "--model", "llama3-8b"], "tpu-v5"),
    (["--system", "dgx-h100", "--gpus", "64", "--model", "llama3-8b", "--layers", "0"], "layers"),
])
def test_train_bad_input_is_one_line(capsys, args, message):
    code, _, err = run(capsys, "train", *args, "--json")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_analyze_uses_the_project_workload(capsys, tmp_path):
    doc = json.loads(DGX_B200_SU.read_text())
    doc["workload"] = {"model": "llama3-8b", "tokens": 1e12, "global_batch": 248}
    path = tmp_path / "w.podplan.json"
    path.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "analyze", str(path), "--json")
    t = json.loads(out)["training"]
    assert code == 0 and t["workload_source"] == "project" and t["model"] == "llama3-8b"
    assert t["gpus"] == 248 and t["global_batch"] == 248


def test_fabric_json_contract_reproduces_table_4(capsys):
    code, out, _ = run(capsys, "fabric", "--endpoints", "1024", "--switch", "QM9700", "--rails", "8", "--su-nodes",
                       "32", "--reserved-ports", "4", "--json")
    doc = json.loads(out)
    assert code == 0
    assert (doc["nodes"], doc["tiers"], doc["leaf"], doc["spine"], doc["core"]) == (127, 2, 32, 16, 0)
    assert doc["links"] == {"node_leaf": 1020, "leaf_spine": 1024, "spine_core": 0}
    assert doc["max_endpoints"] == 2048 and "cables" in doc and "transceivers" in doc


@pytest.mark.parametrize(("args", "message"), [
    (["--endpoints", "1024", "--rails", "0"], "rails"),
    (["--endpoints", "100000000"], "3 tiers"),
    (["--endpoints", "1024", "--switch", "qm9701"], "did you mean"),
    (["--endpoints", "4096", "--tiers", "2"], "tier"),
    (["--endpoints", "1024", "--oversubscription", "0.5"], "oversubscription"),
    (["--endpoints", "7"], "make no node of 8 rails"),
])
def test_fabric_refuses_impossible_requests(capsys, args, message):
    code, _, err = run(capsys, "fabric", *args)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_fabric_names_endpoints_left_without_a_node(capsys):
    assert main(["fabric", "--endpoints", "100", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["nodes"] == 12 and doc["links"]["node_leaf"] == 96
    assert any("4 of the 100 endpoints" in n for n in doc["notes"])


def test_catalog_marks_preliminary_entries_in_list_and_show(capsys):
    code, out, _ = run(capsys, "catalog", "list")
    lines = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert code == 0
    for device_id in ("vera-rubin-nvl72", "dgx-rubin-nvl8", "rubin", "vera-rubin-compute-tray", "nvlink6-switch-tray"):
        assert "PRELIMINARY" in lines[device_id], lines[device_id]
    assert "PRELIMINARY" not in lines["dgx-b200"] and "PRELIMINARY" not in lines["gb300-nvl72"]
    code, out, _ = run(capsys, "catalog", "list", "--kind", "rack_system", "--json")
    rows = {r["id"]: r for r in json.loads(out)}
    assert rows["vera-rubin-nvl72"]["preliminary"].startswith("announced:") and rows["gb200-nvl72"]["preliminary"] == ""
    code, out, _ = run(capsys, "catalog", "show", "vera-rubin-nvl72")
    assert out.splitlines()[1].startswith("  PRELIMINARY: announced: NVIDIA's Vera Rubin NVL72 specifications")
    code, out, _ = run(capsys, "catalog", "show", "vera-rubin-nvl72", "--json")
    assert json.loads(out)["preliminary"].startswith("announced:")


@pytest.mark.parametrize("device_id", ["dgx-b300", "dgx-b300-dc", "gb300-nvl72", "q3400", "sn5610", "vera-rubin-nvl72",
                                       "dgx-rubin-nvl8", "ufm-appliance-xdr", "qsfp112-400g-sr4", "mission-control",
                                       "cdu-rack-manifold"])
def test_catalog_show_names_the_source_of_every_figure(capsys, device_id):
    from catalog import default_catalog

    dev = default_catalog().get(device_id)
    code, out, _ = run(capsys, "catalog", "show", device_id)
    sources = out.split("\nsources:\n", 1)[1]
    cited = {f.source for f in dev.figures.values()}
    assert code == 0 and cited
    for source in cited:
        assert f"  {source}: " in sources, source


def test_findings_past_the_first_hundred_of_a_code_are_counted(capsys, tmp_path):
    """1,000 racks at one spot are one overlap finding; 250 racks outside the hall are 100 lines and a count."""
    doc = json.loads(GOLDEN.read_text())
    rack = {**doc["racks"][1], "devices": []}
    doc["racks"] = ([{**rack, "id": f"s{i}", "name": f"S{i}"} for i in range(1000)]
                    + [{**rack, "id": f"o{i}", "name": f"O{i}", "x": 100_000 + 700 * i} for i in range(250)])
    doc["floor_devices"] = []
    path = tmp_path / "crowded.podplan.json"
    path.write_text(json.dumps(doc))
    code, out, _ = run(capsys, "validate", str(path))
    lines = out.splitlines()
    assert code == 1 and sum(": overlap" in line or "overlap one another" in line for line in lines) == 1
    assert f"{path}: error: rack:s0: 1,000 racks overlap one another within 0.60 m × 1.20 m: rack S0, rack S1 and " \
           f"998 more" in lines
    assert sum("is not inside hall" in line for line in lines) == 100
    assert f"{path}: error: and 150 more outside-hall findings" in lines
    assert lines[-1].startswith(f"{path}: 1250 racks, ")  # the last line counts every finding
    assert int(lines[-1].split(", ")[1].split()[0]) >= 251
    code, out, _ = run(capsys, "analyze", str(path))
    assert "  error: and 150 more outside-hall findings" in out.splitlines()
    code, out, _ = run(capsys, "analyze", str(path), "--json")
    doc = json.loads(out)
    assert doc["findings_left_out"]["outside-hall"] == 150
    assert sum(f["code"] == "outside-hall" for f in doc["findings"]) == 100
    assert [f["code"] for f in doc["findings"]].count("overlap") == 1
    assert set(doc["findings"][0]) == {"severity", "code", "message", "where", "places"}


def test_listed_keeps_order_and_counts_the_rest_by_code():
    from designer.findings import Finding, LeftOut, listed

    fs = ([Finding("error", "a", f"a{i}", "x") for i in range(3)] + [Finding("warning", "b", "b", "x")]
          + [Finding("info", "a", "late", "x")])
    kept, left_out = listed(fs, per_code=2)
    assert [f.message for f in kept] == ["a0", "a1", "b"]
    assert left_out == [LeftOut("a", "error", 2)] and left_out[0].text() == "and 2 more a findings"
    assert listed(fs) == (fs, [])
