"""Inputs that once slipped through: each must give the right figure or a clean refusal."""
from __future__ import annotations

import json
import os
import stat
from collections import Counter

import pytest

from catalog import CatalogError, load_catalog
from catalog.netbox import import_devicetype
from designer.analysis import analyze
from designer.quote.lines import build_bill
from designer.quote_settings import QuoteSettings
from designer.cli import main
from designer.fileformat import ProjectFileError, load, loads, save
from designer.model import FloorDevice, MountedDevice, Project, Rack
from drawn import GB200_NVL72_SU
from tests.designer.test_fileformat import GOLDEN
from tests.designer.test_power_cooling import HALL


def test_cdus_sharing_racks_form_one_loop(catalog):
    p = load(GB200_NVL72_SU, catalog)
    cdu2 = p.floor_device("cdu-2")
    p = p.with_floor_devices([FloorDevice(cdu2.id, cdu2.type, cdu2.hall, cdu2.x, cdu2.y, 0.0, cdu2.name,
                                          ("r01", "r02", "r03", "r04"))])
    loops = analyze(p, catalog)["cooling"]["cdu_loops"]
    assert len(loops) == 1 and loops[0]["redundancy"] == "N+1"
    assert loops[0]["load_kw"] == pytest.approx(8 * 132 * 0.85)  # each rack counted once


def test_a_switch_with_only_a_typical_figure_draws_power(tmp_path):
    (tmp_path / "sw.json").write_text(json.dumps({
        "id": "edge-sw", "kind": "switch", "name": "Edge switch", "manufacturer": "A", "category": "network",
        "source": "EST", "evidence": "U", "u_height": 1, "power_typical_w": 800,
        "ports": [{"role": "fabric", "protocol": "ethernet", "speed_gbps": 100, "count": 32}]}))
    cat = load_catalog([tmp_path])
    devices = tuple(MountedDevice(f"s{i}", "edge-sw", 1 + i) for i in range(10))
    r = analyze(Project(halls=(HALL,), racks=(Rack("r", "R", "h", "rack-42u-600x1200", 1000, 2000, 0, "A",
                                                     devices),)), cat)
    assert r.summary_json["it_power_max_kw"] == 8.0 and r.summary_json["air_heat_kw"] == 8.0


def test_non_utf8_netbox_file_is_a_catalog_error(tmp_path):
    bad = tmp_path / "latin.yaml"
    bad.write_bytes("manufacturer: Caf\xe9\nmodel: X\nslug: x\nu_height: 1\n".encode("latin-1"))
    with pytest.raises(CatalogError, match="is not UTF-8 text"):
        import_devicetype(bad)


def test_wrongly_typed_values_are_clean_errors(tmp_path, capsys):
    doc = json.loads(GOLDEN.read_text())
    doc["format_version"] = 2
    doc["settings"] = {"coolant": ["water"]}
    path = tmp_path / "p.podplan.json"
    path.write_text(json.dumps(doc))
    assert main(["analyze", str(path)]) == 2
    assert "settings.coolant" in capsys.readouterr().err
    cat = tmp_path / "cat"
    cat.mkdir()
    (cat / "x.json").write_text(json.dumps({"id": "x", "kind": "appliance", "name": "X", "manufacturer": "A",
                                           "category": "m", "source": "EST", "evidence": ["P"], "u_height": 1,
                                           "power_max_w": 1}))
    assert main(["--catalog", str(cat), "catalog", "list"]) == 2
    assert "evidence" in capsys.readouterr().err


def test_saving_keeps_the_files_permissions(catalog, tmp_path):
    path = tmp_path / "shared.podplan.json"
    save(load(GOLDEN, catalog), path)
    os.chmod(path, 0o664)
    save(load(GOLDEN, catalog), path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o664


def test_generated_device_ids_never_take_a_written_one(catalog):
    doc = json.loads(GOLDEN.read_text())
    doc["racks"][0]["devices"] = [{"id": "r1-d1", "type": "qm9700", "u": 40}, {"type": "qm9700", "u": 41}]
    rack = loads(json.dumps(doc), catalog).rack("r1")
    assert [d.id for d in rack.devices] == ["r1-d1", "r1-d2"]
    doc["racks"][0]["devices"] = [{"type": "qm9700", "u": 40}, {"id": "r1-d1", "type": "qm9700", "u": 41}]
    rack = loads(json.dumps(doc), catalog).rack("r1")
    assert len({d.id for d in rack.devices}) == 2


def test_infinite_values_are_never_written(catalog, tmp_path):
    from dataclasses import replace

    p = load(GOLDEN, catalog)
    p = p.with_racks([replace(p.rack("r1"), power_limit_kw=float("inf"))])
    with pytest.raises(ValueError):
        save(p, tmp_path / "x.podplan.json")
    assert not (tmp_path / "x.podplan.json").exists()


def test_bom_lists_every_kind_and_keeps_currencies_apart(catalog, tmp_path):
    bom, findings = build_bill(Counter({"gb200-compute-tray": 2}), catalog, "USD", QuoteSettings())
    assert [ln["id"] for s in bom["sections"] for ln in s["lines"]] == ["gb200-compute-tray"]
    assert [f.code for f in findings] == ["bom-unpriced", "bom-no-part-number"]
    (tmp_path / "eur.json").write_text(json.dumps({
        "id": "rack-eu", "kind": "rack", "name": "EU rack", "manufacturer": "A", "category": "racks",
        "source": "EST", "rack_units": 42, "width_mm": 600, "depth_mm": 1200, "height_mm": 2000,
        "price": {"amount": 2000, "currency": "EUR"}}))
    cat = load_catalog([tmp_path])
    bom, _ = build_bill(Counter({"rack-eu": 1, "rack-42u-600x1200": 1}), cat, "USD", QuoteSettings())
    racks = bom["sections"][0]
    assert racks["other_currencies"] == {"EUR": 2000.0}
    assert racks["subtotal"] == cat.get("rack-42u-600x1200").price.amount and racks["currency"] == "USD"


def test_catalog_flag_without_a_folder(capsys):
    assert main(["--catalog"]) == 2
    assert "expected one argument" in capsys.readouterr().err


def test_fabric_settings_of_the_design_reach_the_engines(catalog):
    from bench.designs import dgx_b200_project

    # 2,080 DGX B200 = 16,640 endpoints: beyond two tiers of QM9700, so forbidding three is a finding.
    p = dgx_b200_project(2 * 8 * 1040)
    forbid = p.with_settings(p.settings.updated(fabric_tiers="2"))
    assert "fabric-tier-forbidden" in {f.code for f in analyze(forbid, catalog).findings}
    assert "fabric-tier-forbidden" not in {f.code for f in analyze(p, catalog).findings}
    sample = load(GB200_NVL72_SU, catalog)
    over = sample.with_settings(sample.settings.updated(fabric_oversubscription=2.0))
    r = analyze(over, catalog)
    assert r["bandwidth"]["oversubscription"] > 1 and r["training"]["tokens_per_s"] > 0


def test_fabric_settings_in_a_file(catalog):
    doc = json.loads(GOLDEN.read_text())
    doc["format_version"] = 2
    doc["settings"] = {"fabric_tiers": 3, "fabric_oversubscription": 2}
    assert loads(json.dumps(doc), catalog).settings.fabric_tiers == "3"
    doc["settings"] = {"fabric_tiers": 4}
    with pytest.raises(ProjectFileError, match="settings.fabric_tiers: fabric_tiers must be auto, 2 or 3"):
        loads(json.dumps(doc), catalog)
    doc["settings"] = {"fabric_oversubscription": 0.5}
    with pytest.raises(ProjectFileError, match="fabric_oversubscription must be >= 1"):
        loads(json.dumps(doc), catalog)


def test_numbers_beyond_a_float_are_refused_in_words(catalog, tmp_path):
    from designer.commands import CommandError, Document, MoveObjectsCommand, PlaceRackCommand
    from drawn import DGX_B200_SU
    from designer.settings import Settings, SettingsError

    doc = Document(load(DGX_B200_SU, catalog), catalog)
    before = doc.project
    for command in (PlaceRackCommand("a01", {"x": 10**5000}), MoveObjectsCommand(racks={"a01": (0, -10**400, 0)})):
        with pytest.raises(CommandError, match=r"must be a number, got a number of \d+ digits"):
            doc.push(command)
    assert doc.project is before
    with pytest.raises(SettingsError, match="pue must be a number a float can hold, got one of 401 digits"):
        Settings().updated(pue=10**400)
    entry = tmp_path / "big.json"
    entry.write_text('{"id": "x", "power_max_w": ' + "9" * 5000 + "}")
    from catalog import CatalogError
    from catalog.loader import read_json
    with pytest.raises(CatalogError, match="is not valid JSON"):
        read_json(entry)


def test_validate_reports_every_engines_errors(catalog, tmp_path, capsys):
    """validate and analyze tell one story: a forbidden fabric tier count is an error for both."""
    from designer.cli import main
    from designer.fileformat import save
    from bench.designs import dgx_b200_project

    p = dgx_b200_project(2 * 8 * 1040)
    path = tmp_path / "big.podplan.json"
    save(p.with_settings(p.settings.updated(fabric_tiers="2")), path)
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    # a site of two halls and a network room: the finding points at the fabric, not at one of its rooms
    assert ": error: project:fabric:" in out and "(the design allows 2 tiers); sized at 3 tiers" in out
