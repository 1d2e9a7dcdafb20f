"""``podplanner export`` as a command module (exporters.cli) run by the command line's ``main``."""
from __future__ import annotations

import csv

from designer.cli import main
from designer.samples import DGX_B200_SU
from exporters import cli as export_command


def run(capsys, *args):
    code = main(list(args), commands=[export_command])
    out, err = capsys.readouterr()
    return code, out, err


def test_export_cabling_csv(capsys, tmp_path):
    out = tmp_path / "cabling.csv"
    code, text, _ = run(capsys, "export", str(DGX_B200_SU), "--cabling", str(out))
    rows = list(csv.DictReader(out.open()))
    assert code == 0 and "508 links" in text and len(rows) == 508
    assert all(float(r["length_m"]) > 0 and r["cable"] for r in rows)


def test_export_refuses_in_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--cabling", str(tmp_path / "no" / "x.csv"))
    assert code == 2 and "no such folder" in err and err.count("\n") == 1
    code, _, err = run(capsys, "export", str(DGX_B200_SU))
    assert code == 2 and "--cabling" in err and err.count("\n") == 1
    code, _, err = run(capsys, "export", str(tmp_path / "missing.podplan.json"), "--cabling", str(tmp_path / "x.csv"))
    assert code == 2 and "missing.podplan.json: no such file" in err and err.count("\n") == 1
