"""Hostile catalog input: NetBox YAML, catalog JSON and broken user folders, each one clear line, never a crash.

Every command-line case runs ``designer.cli.main`` in-process and checks the exit code, that stderr
holds exactly one line, and what that line names.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from catalog import CatalogError, load_catalog
from catalog import netbox
from catalog.netbox import devicetype_from_yaml, import_devicetype
from catalog.records import DeviceType, Figure
from catalog.writer import entry_to_json, entry_to_text
from designer.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "netbox"
BASE = "manufacturer: Acme\nmodel: X1\nslug: acme-x1\nu_height: 1\n"


@pytest.fixture(autouse=True)
def _no_user_catalog(tmp_path, monkeypatch):
    """No user folder of the machine running the tests is read; a test sets its own."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    monkeypatch.delenv("PODPLANNER_CATALOG", raising=False)


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_error(capsys, *args) -> str:
    code, out, err = run(capsys, *args)
    assert code == 2, (code, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("podplanner: error: "), err
    assert "Traceback" not in err and "internal error" not in err
    return lines[0]


def write(tmp_path: Path, text: str, name: str = "dev.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- NetBox YAML --------------------------------------------------------------------------------------------

BILLION_LAUGHS = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{n}: &{n} [{','.join(['*' + p] * 9)}]" for p, n in zip("abcdefgh", "bcdefghi")]
) + "\n" + BASE


def test_billion_laughs_is_refused_at_the_first_alias(capsys, tmp_path):
    line = one_error(capsys, "catalog", "import-netbox", str(write(tmp_path, BILLION_LAUGHS)))
    assert "dev.yaml: line 2: YAML aliases (*a) are not accepted" in line


def test_billion_laughs_is_refused_by_the_pure_python_loader_too(tmp_path, monkeypatch):
    monkeypatch.setattr(netbox, "_LOADER", yaml.SafeLoader)
    with pytest.raises(CatalogError, match=r"YAML aliases \(\*a\) are not accepted"):
        import_devicetype(write(tmp_path, BILLION_LAUGHS))


def test_too_many_yaml_nodes_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(netbox, "MAX_NODES", 100)
    items = "".join(f"  - name: e{i}\n    type: virtual\n" for i in range(60))
    with pytest.raises(CatalogError, match="holds more than 100 YAML values"):
        import_devicetype(write(tmp_path, BASE + "interfaces:\n" + items))


def test_deep_nesting_is_refused(capsys, tmp_path):
    line = one_error(capsys, "catalog", "import-netbox", str(write(tmp_path, BASE + "x: " + "[" * 500 + "]" * 500)))
    assert "dev.yaml: nests more than 32 levels deep" in line


@pytest.mark.parametrize(("extra", "field", "words"), [
    ("", "u_height", "nan is not a multiple of 0.5"),
    ("power-ports:\n  - name: p\n    maximum_draw: .nan\n", "power-ports[0].maximum_draw", "nan"),
    ("power-ports:\n  - name: p\n    maximum_draw: .inf\n", "power-ports[0].maximum_draw", "inf"),
    ("power-ports:\n  - name: p\n    maximum_draw: 250000\n", "power-ports[0].maximum_draw", "200,000"),
    ("power-ports:\n  - name: p\n    maximum_draw: 1" + "0" * 400 + "\n", "power-ports[0].maximum_draw",
     "digits"),
    ("weight: .nan\nweight_unit: kg\n", "weight", "a number"),
    ("weight: 1.0e+308\nweight_unit: lb\n", "weight", "kg any"),
    ("interfaces:\n  - name: e\n    type: 99999g-base-x-osfp\n", "interfaces[0].type", "3200"),
    ("interfaces:\n  - name: e\n    type: 0gbase-x\n", "interfaces[0].type", "more than 0"),
    ("interfaces:\n  - name: e\n    type: 1e308gbase-x-osfp\n", "interfaces[0].type", "not a NetBox interface type"),
    ("interfaces:\n  - name: e\n    type: 99999999999gbase-x\n", "interfaces[0].type",
     "not a NetBox interface type"),
    ("airflow: [front]\n", "airflow", "NetBox airflow"),
    ("interfaces: 5\n", "interfaces", "must be a list"),
    ("weight: 3\nweight_unit: [kg]\n", "weight", "weight_unit"),
])
def test_bad_netbox_numbers_name_the_field(capsys, tmp_path, extra, field, words):
    text = BASE.replace("u_height: 1", "u_height: .nan") if field == "u_height" else BASE + extra
    line = one_error(capsys, "catalog", "import-netbox", str(write(tmp_path, text)))
    assert f"dev.yaml: {field}: " in line and words in line, line
    assert len(line) < 300


@pytest.mark.parametrize("u", ["61", "-1", "0.3", "1" + "0" * 400])
def test_u_height_beyond_a_rack_is_refused(tmp_path, u):
    with pytest.raises(CatalogError, match=r"u_height: .* is not a multiple of 0.5 from 0 to 60"):
        import_devicetype(write(tmp_path, BASE.replace("u_height: 1", f"u_height: {u}")))


def test_slug_with_a_trailing_newline_is_refused(capsys, tmp_path):
    line = one_error(capsys, "catalog", "import-netbox", str(write(tmp_path, BASE.replace("slug: acme-x1",
                                                                                         'slug: "acme-x1\\n"'))),
                     "-o", str(tmp_path))
    assert "slug: 'acme-x1\\n' does not match" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dev.yaml"]


def test_slug_that_is_no_catalog_id_is_refused():
    with pytest.raises(CatalogError, match="slug: '-x' must start with a letter or digit"):
        devicetype_from_yaml({"manufacturer": "A", "model": "X", "slug": "-x", "u_height": 1}, "in.yaml")


@pytest.mark.parametrize("field", ["manufacturer", "model", "part_number", "comments"])
def test_unencodable_strings_are_refused_with_the_field(field):
    doc = {"manufacturer": "A", "model": "X", "slug": "x", "u_height": 1, field: "bad \udcff"}
    with pytest.raises(CatalogError) as err:
        devicetype_from_yaml(doc, "in.yaml")
    assert str(err.value).startswith(f"in.yaml: {field}: is not valid Unicode text")
    assert "\\udcff" in str(err.value)


def test_surrogate_escape_through_the_pure_python_loader(tmp_path, monkeypatch):
    monkeypatch.setattr(netbox, "_LOADER", yaml.SafeLoader)
    path = write(tmp_path, BASE.replace("Acme", '"\\udcff"'))
    with pytest.raises(CatalogError, match=r"manufacturer: is not valid Unicode text"):
        import_devicetype(path)


def test_strings_are_normalised_to_nfc():
    decomposed = "Cafe\u0301"
    dev = devicetype_from_yaml({"manufacturer": decomposed, "model": "X", "slug": "x", "u_height": 1,
                                "comments": "two\nlines"}, "in.yaml")
    assert dev.manufacturer == "Caf\u00e9" and dev.name == "Caf\u00e9 X" and dev.description == "two\nlines"


def test_control_characters_in_a_name_are_refused():
    with pytest.raises(CatalogError, match=r"in.yaml: model: holds a control character '\\x1b'"):
        devicetype_from_yaml({"manufacturer": "A", "model": "X\x1b[2J", "slug": "x", "u_height": 1}, "in.yaml")


def test_a_tag_its_constructor_refuses_is_one_line(capsys, tmp_path):
    line = one_error(capsys, "catalog", "import-netbox", str(write(tmp_path, BASE + "created: 2025-13-45\n")))
    assert "dev.yaml: is not valid YAML" in line


def test_import_refuses_to_overwrite_without_force(capsys, tmp_path):
    yaml_file = FIXTURES / "sn5600.yaml"
    code, out, err = run(capsys, "catalog", "import-netbox", str(yaml_file), "-o", str(tmp_path))
    assert code == 0 and err == ""
    target = tmp_path / "nvidia-sn5600.json"
    target.write_text('{"mine": true}')
    line = one_error(capsys, "catalog", "import-netbox", str(yaml_file), "-o", str(tmp_path))
    assert f"{target}: already exists; give --force to replace it" in line
    assert json.loads(target.read_text()) == {"mine": True}
    code, out, err = run(capsys, "catalog", "import-netbox", str(yaml_file), "-o", str(tmp_path), "--force")
    assert code == 0 and err == "" and json.loads(target.read_text())["id"] == "nvidia-sn5600"


def test_force_without_output_is_a_usage_error(capsys):
    line = one_error(capsys, "catalog", "import-netbox", str(FIXTURES / "sn5600.yaml"), "--force")
    assert "--force applies to -o DIR" in line


def test_a_bad_yaml_in_an_explicit_folder_is_an_error(capsys, tmp_path):
    write(tmp_path, BASE.replace("u_height: 1", "u_height: .inf"))
    line = one_error(capsys, "--catalog", str(tmp_path), "catalog", "list")
    assert "dev.yaml: u_height: inf" in line


# -- the writer -------------------------------------------------------------------------------------------

def _device(**changes) -> DeviceType:
    fields = dict(id="x", kind="appliance", name="X", manufacturer="A", category="misc", u_height=1.0,
                  power_max_w=100.0, figures={"power_max_w": Figure(100.0, "netbox", "U")})
    fields.update(changes)
    return DeviceType(**fields)


@pytest.mark.parametrize(("changes", "field"), [
    ({"power_max_w": float("nan")}, "power_max_w.value"),
    ({"weight_kg": float("inf")}, "weight_kg"),
    ({"description": "bad \udcff"}, "description"),
])
def test_the_writer_refuses_what_json_cannot_hold(changes, field):
    with pytest.raises(CatalogError) as err:
        entry_to_text(_device(**changes))
    assert f": {field}: " in str(err.value) and "not written" in str(err.value)


def test_the_writer_writes_strict_json():
    text = entry_to_text(_device())
    assert json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} written"))["power_max_w"]["value"] == 100


# -- catalog JSON -----------------------------------------------------------------------------------------

def _entry(**changes) -> dict:
    doc = {"id": "x-box", "kind": "appliance", "name": "X", "manufacturer": "A", "category": "misc",
           "source": "EST", "u_height": 1, "power_max_w": 100}
    doc.update(changes)
    return doc


@pytest.mark.parametrize(("raw", "field", "words"), [
    ('"power_max_w": NaN', "power_max_w", "nan"),
    ('"power_max_w": Infinity', "power_max_w", "inf"),
    ('"power_max_w": -Infinity', "power_max_w", "inf"),
    ('"power_max_w": 1e400', "power_max_w", "inf"),
    ('"power_max_w": 1' + "0" * 400, "power_max_w", "401 digits"),
    ('"weight_kg": 1' + "0" * 400, "weight_kg", "401 digits"),
    ('"name": "bad \\udcff"', "name", "not valid Unicode text"),
    ('"part_number": {"value": "P\\udcff", "source": "EST"}', "part_number", "not valid Unicode text"),
    ('"id": "x-box\\n"', "id", "must be lowercase"),
    ('"price": {"amount": 5, "currency": "USD\\n"}', "price.currency", "control character"),
    ('"price": {"amount": 5, "currency": "USDX"}', "price.currency", "ISO 4217"),
    ('"price": {"amount": NaN, "currency": "USD"}', "price.amount", "nan"),
    ('"sources": {"S": {"title": "t\\udcff"}}', "sources.S.title", "not valid Unicode text"),
    ('"name": "two\\nlines"', "name", "control character"),
])
def test_bad_catalog_json_names_file_and_field(capsys, tmp_path, raw, field, words):
    text = json.dumps(_entry())[:-1] + ", " + raw + "}"
    (tmp_path / "x.json").write_text(text)
    line = one_error(capsys, "--catalog", str(tmp_path), "catalog", "list")
    assert f"x.json: {field}: " in line and words in line, line
    assert len(line) < 400


def test_catalog_json_strings_are_normalised(tmp_path):
    (tmp_path / "x.json").write_text(json.dumps(_entry(name="Cafe\u0301", description="line\nline")))
    dev = load_catalog([tmp_path]).get("x-box")
    assert dev.name == "Caf\u00e9" and dev.description == "line\nline"


# -- broken user folders: warnings for the implicit ones, errors for --catalog ------------------------------

def _config_catalog(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    folder = tmp_path / "config" / "podplanner" / "catalog"
    folder.parent.mkdir(parents=True)
    return folder


def _switch_ids(out: str) -> set[str]:
    return {line.split()[0] for line in out.splitlines()[1:]}


def test_config_catalog_that_is_a_file_is_one_warning(capsys, tmp_path, monkeypatch):
    folder = _config_catalog(tmp_path, monkeypatch)
    folder.write_text("not a folder")
    code, out, err = run(capsys, "catalog", "list", "--kind", "switch")
    assert code == 0 and "qm9700" in _switch_ids(out)
    assert err == f"podplanner: warning: {folder}: is not a folder; its entries are not loaded\n"


def test_bad_entries_in_the_config_folder_are_warnings_and_the_rest_loads(capsys, tmp_path, monkeypatch):
    folder = _config_catalog(tmp_path, monkeypatch)
    folder.mkdir()
    (folder / "bad.json").write_text(json.dumps(_entry(id="bad-box", power_max_w=-5)))
    (folder / "good.json").write_text(json.dumps(_entry(id="good-box")))
    os.mkfifo(folder / "pipe.json")
    code, out, err = run(capsys, "catalog", "show", "good-box")
    assert code == 0 and "good-box" in out
    lines = err.splitlines()
    assert lines == [
        f"podplanner: warning: {folder / 'bad.json'}: power_max_w: -5 is outside 0..1e+07; this entry is not loaded",
        f"podplanner: warning: {folder / 'pipe.json'}: is not a regular file (a pipe, socket or device); "
        "this entry is not loaded",
    ]
    code, _, err = run(capsys, "catalog", "show", "bad-box")
    assert code == 2 and err.splitlines()[-1].startswith("podplanner: error: unknown device id 'bad-box'")


def test_missing_environment_folder_is_a_warning(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PODPLANNER_CATALOG", str(tmp_path / "gone"))
    code, out, err = run(capsys, "fabric", "--endpoints", "1024", "--json")
    assert code == 0 and json.loads(out)["leaf"] == 32
    assert err == f"podplanner: warning: {tmp_path / 'gone'}: user catalog folder does not exist; " \
                  "its entries are not loaded\n"


def test_unreadable_config_folder_is_a_warning(capsys, tmp_path, monkeypatch):
    """Unreadable as the kernel reports it: os.scandir raising EACCES (as it does under chmod 000 for anyone
    but root), so the test holds whoever runs it."""
    folder = _config_catalog(tmp_path, monkeypatch)
    folder.mkdir()
    real_scandir = os.scandir

    def scandir(path="."):
        if os.path.abspath(path) == str(folder):
            raise PermissionError(13, "Permission denied", str(folder))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, out, err = run(capsys, "catalog", "list", "--kind", "switch")
    assert code == 0 and "qm9700" in _switch_ids(out)
    assert err == f"podplanner: warning: {folder}: cannot be read (Permission denied); its entries are not loaded\n"


def test_explicit_broken_folder_stays_an_error(capsys, tmp_path):
    (tmp_path / "bad.json").write_text(json.dumps(_entry(power_max_w=-5)))
    line = one_error(capsys, "--catalog", str(tmp_path), "catalog", "list")
    assert "bad.json: power_max_w: -5 is outside" in line
    line = one_error(capsys, "--catalog", str(tmp_path / "bad.json"), "catalog", "list")
    assert "bad.json: is not a folder" in line


def test_user_override_that_breaks_a_builtin_is_left_out(tmp_path, monkeypatch):
    """A user "b200" that is no GPU would break every DGX B200 entry: it is dropped, the built-in one stays."""
    monkeypatch.setenv("PODPLANNER_CATALOG", str(tmp_path))
    (tmp_path / "b200.json").write_text(json.dumps(_entry(id="b200")))
    (tmp_path / "ref.json").write_text(json.dumps(_entry(id="needs-x", kind="server", gpu="no-such-gpu")))
    cat = load_catalog()
    assert cat.get("b200").kind == "gpu" and "needs-x" not in cat
    assert len(cat.warnings) == 2 and all(w.endswith("this entry is not loaded") for w in cat.warnings)
    assert any("b200.json: replaces 'b200'" in w for w in cat.warnings)


def test_bad_sources_file_leaves_out_the_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PODPLANNER_CATALOG", str(tmp_path))
    (tmp_path / "sources.json").write_text("[1, 2]")
    (tmp_path / "x.json").write_text(json.dumps(_entry()))
    cat = load_catalog()
    assert "x-box" not in cat
    assert cat.warnings == (f"{tmp_path / 'sources.json'}: must map source ids to {{title, url, how}}; "
                            f"the entries of {tmp_path} are not loaded",)


def test_a_file_name_with_a_newline_stays_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PODPLANNER_CATALOG", str(tmp_path))
    (tmp_path / "bad\nname.json").write_text("{")
    code, _, err = run(capsys, "catalog", "list", "--kind", "switch")
    assert code == 0 and len(err.splitlines()) == 1 and "bad\\nname.json" in err


def test_the_builtin_catalog_is_untouched_by_the_checks():
    assert len(load_catalog([])) > 20


def test_an_imported_entry_loads_back(tmp_path):
    dev = import_devicetype(FIXTURES / "qm9700.yaml")
    (tmp_path / f"{dev.id}.json").write_text(entry_to_text(dev))
    again = load_catalog([tmp_path]).get(dev.id)
    assert again.ports == dev.ports and entry_to_json(again)["id"] == dev.id


# -- entries whose values an engine would divide by, or read as defaults -------------------------------------

def _builtin(name: str) -> dict:
    from catalog.registry import DATA_DIR

    return json.loads(next(DATA_DIR.rglob(name)).read_text())


@pytest.mark.parametrize(("value", "words"), [
    (0, "0 GB/s: a GPU without NVLink exchanges data over PCIe; give that bandwidth, both ways added"),
    (5e-324, "5e-324 GB/s: a GPU without NVLink"),
    (0.5, "0.5 GB/s: a GPU without NVLink"),
])
def test_a_gpu_without_gpu_to_gpu_bandwidth_is_refused(capsys, tmp_path, value, words):
    doc = _builtin("b200.json")
    doc["id"] = "pcie-gpu"
    doc["gpu_spec"]["nvlink_gbps"] = value
    (tmp_path / "g.json").write_text(json.dumps(doc))
    line = one_error(capsys, "--catalog", str(tmp_path), "catalog", "list")
    assert f"g.json: gpu_spec.nvlink_gbps: {words}" in line, line


def test_a_pcie_gpu_with_its_pcie_bandwidth_analyses(capsys, tmp_path):
    gpu = _builtin("b200.json")
    gpu.update(id="pcie-gpu", name="PCIe GPU")
    gpu["gpu_spec"]["nvlink_gbps"] = 128
    server = _builtin("dgx-b200.json")
    server.update(id="pcie-server", name="PCIe server", gpu="pcie-gpu", nvlink_domain=1)
    server.pop("price", None)
    server.pop("part_number", None)
    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "g.json").write_text(json.dumps(gpu))
    (folder / "s.json").write_text(json.dumps(server))
    from designer import samples

    design = tmp_path / "pcie.podplan.json"
    design.write_text(samples.DGX_B200_SU.read_text().replace('"dgx-b200"', '"pcie-server"'))
    code, out, err = run(capsys, "--catalog", str(folder), "analyze", "--json", str(design))
    assert code in (0, 1) and "Traceback" not in err, err
    collectives = json.loads(out)["bandwidth"]["collectives"]["all_gpus"]
    assert collectives["all_reduce_ring"]["time_ms"] > 0


def test_a_server_that_names_no_gpu_for_its_gpus_is_refused(capsys, tmp_path):
    doc = _builtin("dgx-b200.json")
    doc.update(id="no-gpu-named", gpu="")
    (tmp_path / "s.json").write_text(json.dumps(doc))
    line = one_error(capsys, "--catalog", str(tmp_path), "catalog", "list")
    assert "s.json: gpu: names no GPU for the 8 it holds" in line, line


@pytest.mark.parametrize("field", ["u_height", "power_max_w", "gpu_count", "weight_kg"])
def test_a_required_figure_written_null_is_refused_not_defaulted(capsys, tmp_path, field):
    doc = _builtin("dgx-b200.json")
    doc.update(id="nulled", **{field: None})
    (tmp_path / "s.json").write_text(json.dumps(doc))
    line = one_error(capsys, "--catalog", str(tmp_path), "catalog", "list")
    assert f"s.json: {field}: is required for a server" in line, line


def test_a_huge_bad_value_is_quoted_short(capsys, tmp_path, monkeypatch):
    folder = _config_catalog(tmp_path, monkeypatch)
    folder.mkdir()
    doc = _builtin("dgx-b200.json")
    doc.update(id="my-dgx", gpu="x" * 200_000)
    (folder / "a.json").write_text(json.dumps(doc))
    code, _, err = run(capsys, "catalog", "list", "--kind", "switch")
    assert code == 0 and len(err.splitlines()) == 1 and len(err) < 400, err[:400]
    assert "gpu: 'xxxxxxxx" in err and "(200,002 characters) is not a GPU in the catalog" in err


def test_one_id_in_two_files_of_a_folder_loads_neither(capsys, tmp_path, monkeypatch):
    folder = _config_catalog(tmp_path, monkeypatch)
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(_entry(id="twin-box", power_max_w=100)))
    (folder / "b.json").write_text(json.dumps(_entry(id="twin-box", power_max_w=900)))
    qm = _builtin("qm9700.json")
    qm["name"] = "Overridden twice"
    (folder / "c.json").write_text(json.dumps(qm))
    (folder / "d.json").write_text(json.dumps(qm))
    code, out, err = run(capsys, "catalog", "show", "qm9700")
    assert code == 0 and "Overridden twice" not in out and "QM9700" in out  # the built-in entry stands
    assert err.splitlines() == [
        f"podplanner: warning: {folder / 'b.json'}: id: 'twin-box' is also defined in {folder / 'a.json'}; "
        "neither is loaded",
        f"podplanner: warning: {folder / 'd.json'}: id: 'qm9700' is also defined in {folder / 'c.json'}; "
        "neither is loaded",
    ]
    code, _, err = run(capsys, "catalog", "show", "twin-box")
    assert code == 2
