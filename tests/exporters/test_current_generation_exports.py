"""DGX B300 and GB300 NVL72 SuperPODs leave in every format, each read back by a reader of its kind."""
from __future__ import annotations

import csv
import json
import zipfile

import ezdxf
import pytest
from pypdf import PdfReader

from designer.cli import main
from designer.fileformat import save
from designer.netbox_parts import parts
from designer.generate import SuperpodSpec, generate
from exporters import cli as export_command

FORMATS = ("--pdf", "--xlsx", "--csv", "--dxf", "--svg", "--png", "--heat-map", "--netbox", "--cabling",
           "--cabling-xlsx")
SUFFIX = {"--pdf": "q.pdf", "--xlsx": "q.xlsx", "--csv": "bill.csv", "--dxf": "plan.dxf", "--svg": "plan.svg",
          "--png": "plan.png", "--heat-map": "heat.png", "--netbox": "netbox", "--cabling": "cab.csv",
          "--cabling-xlsx": "cab.xlsx"}


@pytest.mark.parametrize("system, part", [("dgx-b300", "D0B3-G2304+P1CMI36"), ("gb300-nvl72", "DGB3-0072F+P1CMI36")])
def test_every_format_of_a_current_generation_superpod(capsys, tmp_path, catalog, system, part):
    g = generate(SuperpodSpec(system=system, sus=1), catalog)
    design = tmp_path / "d.podplan.json"
    save(g.project, design, catalog=catalog)
    args = ["export", str(design)]
    for flag in FORMATS:
        args += [flag, str(tmp_path / SUFFIX[flag])]
    code = main(args, commands=[export_command])
    capsys.readouterr()
    assert code == 0
    bill = list(csv.DictReader((tmp_path / "bill.csv").open(encoding="utf-8")))
    assert any(r["part_number"] == part for r in bill)
    pdf = PdfReader(str(tmp_path / "q.pdf"))
    text = "".join(p.extract_text() for p in pdf.pages[:3])
    assert "1 scalable unit" in text and len(pdf.pages) > 5
    doc = ezdxf.readfile(str(tmp_path / "plan.dxf"))
    # a block per rack and per floor unit (the NVL72 SU's CDUs)
    assert len(list(doc.modelspace().query("INSERT"))) == len(g.project.racks) + len(g.project.floor_devices)
    rows = list(csv.DictReader((tmp_path / "cab.csv").open(encoding="utf-8")))
    cabling = [r for r in rows if r["network"] == "compute"]  # the storage and management rows come after
    assert len(cabling) == 2 * 576  # node-leaf and leaf-spine: one 800G link per GPU at each tier
    assert rows[:len(cabling)] == cabling and {r["network"] for r in rows[len(cabling):]} == {"storage", "inband",
                                                                                              "oob"}
    # 800G parts only: the Q3400's twin-port 1.6T modules at the switch ends
    assert {r["b_transceiver"] for r in cabling if r["tier"] == "leaf-spine"} == {"osfp-1600g-2xdr4"}
    for name in ("q.xlsx", "cab.xlsx"):
        with zipfile.ZipFile(tmp_path / name) as z:
            assert "xl/workbook.xml" in z.namelist()
    assert (tmp_path / "plan.svg").read_text(encoding="utf-8").lstrip().startswith("<")
    for png in ("plan.png", "heat.png"):
        assert (tmp_path / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    devices = "".join(p.read_text(encoding="utf-8") for p in parts(tmp_path / "netbox", "08-devices.csv"))
    assert "Q3400" in (tmp_path / "netbox" / "07-device-types" / "q3400.yaml").read_text(encoding="utf-8")
    assert devices.count("\n") > len(g.project.racks)
    json.dumps(bill)  # every row is plain text


def test_the_quote_states_a_gpu_power_cap(capsys, tmp_path, catalog):
    from dataclasses import replace

    g = generate(SuperpodSpec(system="gb300-nvl72", sus=1), catalog)
    project = g.project.with_settings(replace(g.project.settings, gpu_power_cap_w=1100.0))
    design = tmp_path / "d.podplan.json"
    save(project, design, catalog=catalog)
    assert main(["export", str(design), "--pdf", str(tmp_path / "q.pdf")], commands=[export_command]) == 0
    capsys.readouterr()
    text = "".join(p.extract_text() for p in PdfReader(str(tmp_path / "q.pdf")).pages[:4])
    assert "every GPU capped at 1,100 W" in text


def test_a_preliminary_part_is_flagged_in_the_csv_and_xlsx_bills(capsys, tmp_path, catalog):
    import openpyxl

    g = generate(SuperpodSpec(system="dgx-rubin-nvl8", sus=1), catalog)
    design = tmp_path / "d.podplan.json"
    save(g.project, design, catalog=catalog)
    assert main(["export", str(design), "--csv", str(tmp_path / "b.csv"), "--xlsx", str(tmp_path / "b.xlsx")],
                commands=[export_command]) == 0
    capsys.readouterr()
    rows = list(csv.DictReader((tmp_path / "b.csv").open(encoding="utf-8")))
    rubin = next(r for r in rows if r["part_number"] == "DGXR-G2304+P1CMI36")
    assert "preliminary" in rubin["flags"]
    assert not [r for r in rows if "preliminary" in r["flags"] and "Rubin" not in r["description"]]
    wb = openpyxl.load_workbook(tmp_path / "b.xlsx")
    flagged = [row for ws in wb for row in ws.iter_rows(values_only=True)
               if any(isinstance(c, str) and "DGX Rubin NVL8" in c for c in row)
               and any(isinstance(c, str) and "preliminary" in c for c in row)]
    assert flagged
