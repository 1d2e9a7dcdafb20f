from __future__ import annotations

import json
from pathlib import Path

import pytest

from catalog import CatalogError, load_catalog
from catalog.netbox import devicetype_from_yaml, import_devicetype
from catalog.writer import entry_to_json

FIXTURES = Path(__file__).parent / "fixtures" / "netbox"


def test_sn5600_yaml_imports_as_a_switch():
    dev = import_devicetype(FIXTURES / "sn5600.yaml")
    assert dev.id == "nvidia-sn5600" and dev.kind == "switch"
    assert dev.u_height == 2 and dev.weight_kg == 23.5
    assert dev.airflow == "rear-to-front"
    fabric = dev.ports_of("fabric")[0]
    assert (fabric.count, fabric.speed_gbps, fabric.cage) == (64, 800, "OSFP")
    oob = dev.ports_of("oob")[0]
    assert (oob.count, oob.speed_gbps, oob.cage) == (1, 1, "RJ45")
    # NetBox data carries no source: every figure is shown as unconfirmed.
    assert all(f.unconfirmed and f.source == "netbox" for f in dev.figures.values())


def test_qm9700_yaml_keeps_its_upstream_port_count():
    # The devicetype-library file lists 62 of the switch's 64 ports; the import shows the data as it is.
    dev = import_devicetype(FIXTURES / "qm9700.yaml")
    assert dev.ports_of("fabric")[0].count == 62


def test_imported_entry_round_trips_through_a_user_catalog(tmp_path):
    dev = import_devicetype(FIXTURES / "sn5600.yaml")
    (tmp_path / f"{dev.id}.json").write_text(json.dumps(entry_to_json(dev)))
    cat = load_catalog([tmp_path])
    again = cat.get("nvidia-sn5600")
    assert again.ports == dev.ports and again.u_height == dev.u_height and again.weight_kg == dev.weight_kg


def test_yaml_in_a_user_folder_is_imported_directly(tmp_path):
    (tmp_path / "sn5600.yaml").write_text((FIXTURES / "sn5600.yaml").read_text())
    assert load_catalog([tmp_path]).get("nvidia-sn5600").kind == "switch"


@pytest.mark.parametrize(("doc", "field"), [
    ({"model": "X", "slug": "x", "u_height": 1}, "manufacturer"),
    ({"manufacturer": "A", "model": "X", "slug": "Bad Slug", "u_height": 1}, "slug"),
    ({"manufacturer": "A", "model": "X", "slug": "x", "u_height": 1.3}, "u_height"),
    ({"manufacturer": "A", "model": "X", "slug": "x", "u_height": 1, "weight": 3}, "weight"),
    ({"manufacturer": "A", "model": "X", "slug": "x", "u_height": 1, "airflow": "sideways"}, "airflow"),
    ({"manufacturer": "A", "model": "X", "slug": "x", "u_height": 1,
      "power-ports": [{"name": "p", "maximum_draw": "hot"}]}, "power-ports[0].maximum_draw"),
])
def test_bad_netbox_documents_name_the_field(doc, field):
    with pytest.raises(CatalogError) as err:
        devicetype_from_yaml(doc, "in.yaml")
    assert str(err.value).startswith(f"in.yaml: {field}:")


def test_invalid_yaml_is_refused_with_a_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("manufacturer: [unclosed\n")
    with pytest.raises(CatalogError, match="is not valid YAML at line"):
        import_devicetype(bad)


@pytest.mark.parametrize(("text", "line", "key"), [
    ("manufacturer: NVIDIA\nmodel: A\nslug: a\nmodel: B\nu_height: 1\n", 4, "model"),
    ("manufacturer: NVIDIA\nmodel: A\nslug: a\nu_height: 1\ninterfaces:\n  - {name: p0, name: p1, type: other}\n",
     6, "name"),
])
def test_a_key_given_twice_is_refused_with_its_line(tmp_path, text, line, key):
    twice = tmp_path / "twice.yaml"
    twice.write_text(text)
    with pytest.raises(CatalogError, match=f"line {line}: key '{key}' is given twice in one mapping") as err:
        import_devicetype(twice)
    assert "\n" not in str(err.value)


def test_the_same_key_in_two_mappings_is_read(tmp_path):
    ok = tmp_path / "ok.yaml"
    ok.write_text("manufacturer: NVIDIA\nmodel: A\nslug: a\nu_height: 1\n"
                  "interfaces:\n  - {name: p0, type: other}\n  - {name: p1, type: other}\n")
    assert import_devicetype(ok).id == "a"


def test_yaml_tags_are_not_executed(tmp_path):
    evil = tmp_path / "evil.yaml"
    evil.write_text("manufacturer: !!python/object/apply:os.system ['echo hi']\nmodel: X\nslug: x\nu_height: 1\n")
    with pytest.raises(CatalogError, match="not valid YAML"):
        import_devicetype(evil)
