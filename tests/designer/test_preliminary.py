"""Preliminary catalog entries: the analysis names each one the design holds, and the bill marks its lines."""
from __future__ import annotations

from dataclasses import replace

import pytest

from catalog.writer import entry_to_json
from designer.analysis import analyze
from designer.fileformat import load
from designer.samples import DGX_B200_SU, GB200_NVL72_SU


@pytest.fixture(scope="module")
def rubin(catalog):
    """The GB200 sample with its first two NVL72 racks holding Vera Rubin NVL72 instead."""
    project = load(GB200_NVL72_SU, catalog)
    swapped = [r.id for r in project.racks if any(d.type == "gb200-nvl72" for d in r.devices)][:2]
    racks = tuple(replace(r, devices=tuple(replace(d, type="vera-rubin-nvl72") if d.type == "gb200-nvl72" else d
                                           for d in r.devices)) if r.id in swapped else r for r in project.racks)
    project = replace(project, racks=racks)
    return project, analyze(project, catalog), swapped


def test_each_preliminary_type_is_named_once_with_every_rack_that_holds_it(rubin, catalog):
    _, a, swapped = rubin
    found = [f for f in a.findings if f.code == "catalog-preliminary"]
    assert len(found) == 1
    (f,) = found
    assert f.severity == "info" and f.places == tuple(f"rack:{r}" for r in swapped)
    assert f.message.startswith("2 × NVIDIA Vera Rubin NVL72: preliminary catalog figures (announced:")


def test_a_design_of_released_parts_has_no_such_finding(catalog):
    a = analyze(load(DGX_B200_SU, catalog), catalog)
    assert not [f for f in a.findings if f.code == "catalog-preliminary"]


def test_bill_lines_carry_why_their_part_is_preliminary(rubin, catalog):
    _, a, _ = rubin
    lines = [ln for sec in a.bom.sections for ln in sec.lines]
    (vr,) = [ln for ln in lines if ln.id == "vera-rubin-nvl72"]
    assert vr.preliminary == catalog.get("vera-rubin-nvl72").preliminary
    assert all(ln.preliminary == "" for ln in lines if ln.id != "vera-rubin-nvl72")


def test_a_written_entry_keeps_its_preliminary_text(catalog):
    doc = entry_to_json(catalog.get("dgx-rubin-nvl8"))
    assert doc["preliminary"] == catalog.get("dgx-rubin-nvl8").preliminary
    assert "preliminary" not in entry_to_json(catalog.get("dgx-b200"))
