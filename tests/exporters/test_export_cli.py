"""``podplanner export`` as a command module (exporters.cli) run by the command line's ``main``."""
from __future__ import annotations

import csv
import io
import re
import sys

import pytest

from designer.cli import main
from designer.samples import DGX_B200_SU, GB200_NVL72_SU
from exporters import cli as export_command
from exporters.cli import Progress


def run(capsys, *args):
    code = main(list(args), commands=[export_command])
    out, err = capsys.readouterr()
    return code, out, err


def test_export_cabling_csv(capsys, tmp_path):
    out = tmp_path / "cabling.csv"
    code, text, _ = run(capsys, "export", str(DGX_B200_SU), "--cabling", str(out))
    rows = list(csv.DictReader(out.open()))
    # 508 links of the compute fabric, then 192 of the storage fabric, 98 of the in-band and 93 of the OOB network
    assert code == 0 and "891 links" in text and len(rows) == 891
    assert [r["network"] for r in rows] == ["compute"] * 508 + ["storage"] * 192 + ["inband"] * 98 + ["oob"] * 93
    assert all(float(r["length_m"]) > 0 and r["cable"] for r in rows)


def test_export_refuses_in_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--cabling", str(tmp_path / "no" / "x.csv"))
    assert code == 2 and "no such folder" in err and err.count("\n") == 1
    code, _, err = run(capsys, "export", str(DGX_B200_SU))
    assert code == 2 and err.count("\n") == 1
    assert all(flag in err for flag in ("--pdf", "--xlsx", "--csv", "--cabling"))
    code, _, err = run(capsys, "export", str(tmp_path / "missing.podplan.json"), "--cabling", str(tmp_path / "x.csv"))
    assert code == 2 and "missing.podplan.json: no such file" in err and err.count("\n") == 1


def test_export_applies_a_price_list_and_customer_for_this_export_only(capsys, tmp_path):
    prices = tmp_path / "prices.csv"
    prices.write_text("Part number,Unit price,Date,Source\n"
                      "DGXB-G1440+P1CMI36,\"480,000\",2026-11-01,Distributor quote 4711\n"
                      "ufm-licence,900,2026-11-01,UFM quote\n")
    before = DGX_B200_SU.read_bytes()
    out = tmp_path / "bill.csv"
    code, text, _ = run(capsys, "export", str(DGX_B200_SU), "--csv", str(out), "--prices", str(prices),
                        "--customer", "Acme AI Labs")
    assert code == 0 and f"wrote {out}" in text
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    dgx = next(r for r in rows if r["part_number"] == "DGXB-G1440+P1CMI36")
    assert float(dgx["unit_price"]) == 480000 and dgx["price_source"] == "Distributor quote 4711"
    ufm = next(r for r in rows if "UFM Enterprise licence" in r["description"])
    assert float(ufm["unit_price"]) == 900  # the catalog id matches too, for parts with no part number
    assert DGX_B200_SU.read_bytes() == before  # the design file is not changed


def test_export_refuses_a_bad_price_list_before_writing(capsys, tmp_path):
    prices = tmp_path / "prices.csv"
    prices.write_text("Part number,Unit price\nDGXB-G1440+P1CMI36,lots\n")
    out = tmp_path / "bill.csv"
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(out), "--prices", str(prices))
    assert code == 2 and err.strip() == ("podplanner: error: export: --prices: prices.csv: row 2: price 'lots' is not "
                                         "a number")
    assert not out.exists()
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(out), "--prices", str(tmp_path / "none.csv"))
    assert code == 2 and "none.csv: no such file" in err and err.count("\n") == 1
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(out), "--customer", "x" * 300)
    assert code == 2 and "quote.customer" in err and not out.exists()


def test_quote_flags_need_a_quote_format(capsys, tmp_path):
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--cabling", str(tmp_path / "c.csv"),
                       "--prices", str(tmp_path / "p.csv"))
    assert code == 2 and "--prices applies to the quote" in err and not (tmp_path / "c.csv").exists()
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(tmp_path / "b.csv"), "--customer", "  ")
    assert code == 2 and "give the customer's name" in err


def test_netbox_folder_round_trip_through_the_command_line(capsys, tmp_path, catalog):
    from designer.fileformat import load

    folder = tmp_path / "netbox"
    code, text, _ = run(capsys, "export", str(DGX_B200_SU), "--netbox", str(folder))
    original = load(DGX_B200_SU, catalog)
    racks, devices = len(original.racks), sum(len(r.devices) for r in original.racks)
    assert code == 0 and f"{racks} racks" in text and "891 cables" in text and (folder / "README.txt").is_file()
    back = tmp_path / "back.podplan.json"
    code, text, _ = run(capsys, "new", "from-netbox", str(folder), "-o", str(back))
    assert code == 0 and f"{racks} racks, {devices} devices" in text
    again = load(back, catalog)
    assert [(r.id, r.type, r.x, r.y, r.rotation) for r in again.racks] == \
        [(r.id, r.type, r.x, r.y, r.rotation) for r in original.racks]
    assert [[(d.type, d.u, d.face) for d in r.devices] for r in again.racks] == \
        [[(d.type, d.u, d.face) for d in r.devices] for r in original.racks]
    (folder / "06-racks.csv").write_text("name\nx\n")
    code, _, err = run(capsys, "new", "from-netbox", str(folder), "-o", str(tmp_path / "bad.json"))
    assert code == 2 and err.startswith("podplanner: error: new from-netbox: 06-racks.csv") and err.count("\n") == 1


def test_a_folder_format_refuses_a_file_and_dpi_needs_an_image(capsys, tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("x")
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--netbox", str(target))
    assert code == 2 and "is a file, not a folder" in err
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--cabling", str(tmp_path / "c.csv"), "--dpi", "300")
    assert code == 2 and "--dpi applies to the images" in err
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--png", str(tmp_path / "p.png"), "--dpi", "5000")
    assert code == 2 and "is not a resolution from 36 to 600" in err


def test_targets_that_are_not_plain_files_or_our_folders_are_refused(capsys, tmp_path):
    import os

    from exporters.netbox_export import OWNED
    from exporters.registry import FORMATS

    assert FORMATS["netbox"].owned and set(FORMATS["netbox"].owned) == set(OWNED)
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--png", str(fifo))
    assert code == 2 and "is not a regular file" in err and fifo.is_fifo()
    mine = tmp_path / "project"
    mine.mkdir()
    (mine / "README.txt").write_text("my notes")
    (mine / "design.podplan.json").write_text("{}")
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--netbox", str(mine))
    assert code == 2 and "holds files this export does not write (design.podplan.json)" in err
    assert (mine / "README.txt").read_text() == "my notes"
    # an older export may be replaced, and its device types do not linger
    old = tmp_path / "nb"
    assert run(capsys, "export", str(GB200_NVL72_SU), "--netbox", str(old))[0] == 0
    assert (old / "07-device-types" / "gb200-nvl72.yaml").is_file()
    assert run(capsys, "export", str(DGX_B200_SU), "--netbox", str(old))[0] == 0
    assert not (old / "07-device-types" / "gb200-nvl72.yaml").exists()


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal, as stderr is when a person runs the command."""

    def isatty(self) -> bool:
        return True


def test_a_terminal_is_told_each_step_and_its_time_and_a_script_nothing(capsys, tmp_path, monkeypatch):
    plan, bill = tmp_path / "plan.dxf", tmp_path / "bill.csv"
    args = ["export", str(DGX_B200_SU), "--dxf", str(plan), "--csv", str(bill)]
    code, text, err = run(capsys, *args)
    assert code == 0 and err == ""  # stderr is not a terminal here (a script, a pipe, CI)
    assert [line.split(":")[0] for line in text.splitlines()] == [f"wrote {bill}", f"wrote {plan}"]

    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code = main(args, commands=[export_command])
    out, _ = capsys.readouterr()
    seconds = r"\d[\d,]*\.\d\d s"
    lines = terminal.getvalue().splitlines()
    assert code == 0 and len(lines) == 3, lines
    assert re.fullmatch(rf"Analysing {re.escape(DGX_B200_SU.name)}… {seconds}", lines[0])
    assert re.fullmatch(rf"Writing Bill of materials \(CSV\) to bill\.csv… {seconds}", lines[1])
    assert re.fullmatch(rf"Writing Floor plan \(DXF\) to plan\.dxf… {seconds}", lines[2])
    assert out == text  # stdout is the same, terminal or not


def test_a_step_that_fails_says_so_on_its_line():
    terminal = FakeTerminal()
    progress = Progress(terminal, clock=iter([10.0, 11.234, 20.0]).__next__)
    with progress.step("Writing Quote (PDF) to q.pdf"):
        pass
    with pytest.raises(OSError), progress.step("Writing Floor plan (DXF) to plan.dxf"):
        raise OSError("disk full")
    assert terminal.getvalue() == "Writing Quote (PDF) to q.pdf… 1.23 s\nWriting Floor plan (DXF) to plan.dxf… failed\n"
    quiet = io.StringIO()
    with Progress(quiet).step("Writing Quote (PDF) to q.pdf"):
        pass
    assert quiet.getvalue() == ""
