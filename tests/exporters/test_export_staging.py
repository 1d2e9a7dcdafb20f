"""A multi-format export writes the whole set or nothing: each format to a temporary, all renamed at the end."""
from __future__ import annotations

import os
from dataclasses import replace

import pytest

from designer.cli import main
from designer.samples import DGX_B200_SU
from exporters import cli as export_command
from exporters.base import ExportError
from exporters.registry import FORMATS
from exporters.staging import Staging, StagingError


def run(capsys, *args):
    code = main(list(args), commands=[export_command])
    out, err = capsys.readouterr()
    return code, out, err


def _replace_fails_onto(monkeypatch, target, error: OSError) -> None:
    """``os.replace`` onto ``target`` fails with ``error``; every other rename goes through."""
    real = os.replace

    def replace(src, dst):
        if str(dst) == str(target):
            raise error
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)


def _failing(path, **_):
    """A format that writes part of its file and then finds it cannot go on."""
    with open(path, "w") as fh:
        fh.write("half")
    raise ExportError("the design's compute fabric cannot be built: test")


def test_a_failing_format_leaves_nothing_of_the_set(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(FORMATS, "cabling", replace(FORMATS["cabling"], write=lambda a, p, **o: _failing(p)))
    code, out, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(tmp_path / "bill.csv"),
                         "--netbox", str(tmp_path / "netbox"), "--cabling", str(tmp_path / "cab.csv"),
                         "--cabling-xlsx", str(tmp_path / "cab.xlsx"))
    assert code == 2 and out == ""
    assert err == "podplanner: error: export: --cabling: the design's compute fabric cannot be built: test\n"
    assert os.listdir(tmp_path) == []  # no bill, no NetBox folder (nor its empty 07-device-types), no temporaries


def test_a_format_that_cannot_write_leaves_the_old_files_as_they_were(capsys, tmp_path, monkeypatch):
    def full(analysis, path, **_):
        raise OSError(28, "No space left on device")

    bill, folder = tmp_path / "bill.csv", tmp_path / "netbox"
    assert run(capsys, "export", str(DGX_B200_SU), "--csv", str(bill), "--netbox", str(folder))[0] == 0
    before = {p: p.read_bytes() for p in [bill, *folder.rglob("*")] if p.is_file()}
    bill.write_text("old bill")
    before[bill] = b"old bill"
    monkeypatch.setitem(FORMATS, "dxf", replace(FORMATS["dxf"], write=full))
    code, out, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(bill), "--netbox", str(folder),
                         "--dxf", str(tmp_path / "plan.dxf"))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.endswith(f"--dxf: {tmp_path / 'plan.dxf'}: cannot be written (No space left on device)\n")
    assert {p: p.read_bytes() for p in [bill, *folder.rglob("*")] if p.is_file()} == before
    assert sorted(os.listdir(tmp_path)) == ["bill.csv", "netbox"]


def test_a_whole_set_is_written_with_no_temporaries_left(capsys, tmp_path):
    code, out, _ = run(capsys, "export", str(DGX_B200_SU), "--csv", str(tmp_path / "bill.csv"),
                       "--netbox", str(tmp_path / "netbox"), "--cabling", str(tmp_path / "cab.csv"))
    assert code == 0 and [line.split(":")[0] for line in out.splitlines()] == [
        f"wrote {tmp_path / n}" for n in ("bill.csv", "netbox", "cab.csv")]
    assert sorted(os.listdir(tmp_path)) == ["bill.csv", "cab.csv", "netbox"]
    assert (tmp_path / "netbox" / "07-device-types").is_dir()


def test_a_target_in_a_folder_that_takes_no_files_is_refused_before_the_analysis(capsys, tmp_path, monkeypatch):
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **k: False if str(p) == str(tmp_path / "ro") else
                        real(p, mode, **k))
    (tmp_path / "ro").mkdir()
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(tmp_path / "bill.csv"),
                       "--cabling", str(tmp_path / "ro" / "c.csv"))
    assert code == 2 and "--cabling" in err and "cannot write in this folder" in err and err.count("\n") == 1
    assert sorted(os.listdir(tmp_path)) == ["ro"]


def test_a_rename_that_fails_puts_every_target_back(tmp_path, monkeypatch):
    """The commit itself failing on its third target: the first two (a replaced file, a replaced folder) are
    put back as they were, and no temporary or old copy is left."""
    old_file, old_folder, third = tmp_path / "a.csv", tmp_path / "nb", tmp_path / "c.csv"
    old_file.write_text("old a")
    old_folder.mkdir()
    (old_folder / "README.txt").write_text("old readme")
    staging = Staging()
    staging.temporary(FORMATS["csv"], old_file).write_text("new a")
    new_folder = staging.temporary(FORMATS["netbox"], old_folder)
    new_folder.mkdir()
    (new_folder / "README.txt").write_text("new readme")
    staging.temporary(FORMATS["cabling"], third).write_text("new c")
    _replace_fails_onto(monkeypatch, third, OSError(5, "Input/output error"))
    with pytest.raises(StagingError, match=r"c\.csv: cannot be written \(Input/output error\)") as caught:
        staging.commit()
    staging.discard()
    assert caught.value.fmt is FORMATS["cabling"]
    assert old_file.read_text() == "old a" and (old_folder / "README.txt").read_text() == "old readme"
    assert sorted(os.listdir(tmp_path)) == ["a.csv", "nb"] and os.listdir(old_folder) == ["README.txt"]


def test_a_symlinked_target_is_written_through(tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    staging = Staging()
    staging.temporary(FORMATS["csv"], link).write_text("new")
    staging.commit()
    assert link.is_symlink() and real.read_text() == "new" and sorted(os.listdir(tmp_path)) == ["link.csv", "real.csv"]


def test_targets_alike_in_their_first_hundred_bytes_get_temporaries_of_their_own(capsys, tmp_path):
    bill, cabling = tmp_path / ("p" * 100 + "-bom.csv"), tmp_path / ("p" * 100 + "-cabling.csv")
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(bill), "--cabling", str(cabling))
    assert code == 0, err
    assert bill.read_text(encoding="utf-8").startswith("section,line,manufacturer,part_number")
    assert cabling.read_text(encoding="utf-8").startswith("a_device,a_port")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([bill.name, cabling.name])


def test_a_long_multibyte_name_that_fits_is_written(capsys, tmp_path):
    target = tmp_path / ("中" * 80 + ".csv")  # 244 bytes: within a name's 255
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(target))
    assert code == 0, err
    assert target.is_file()


def test_one_file_named_by_two_formats_is_refused_before_any_work(capsys, tmp_path):
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "x.csv")
    for second in (tmp_path / "x.csv", link):
        code, out, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(tmp_path / "x.csv"),
                             "--cabling", str(second))
        assert code == 2 and "--csv and --cabling name the same file" in err and len(err.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv"]


def test_a_read_only_target_is_kept(capsys, tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("KEEP")
    target.chmod(0o444)
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(target))
    assert code == 2 and "is read-only" in err and target.read_text() == "KEEP"


def test_a_new_target_put_in_place_before_a_failed_rename_is_taken_away(tmp_path, monkeypatch):
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    old.write_text("OLD")
    staging = Staging()
    fmt_a, fmt_b = FORMATS["cabling"], FORMATS["csv"]
    staging.temporary(fmt_a, new).write_text("NEW1")
    staging.temporary(fmt_b, old).write_text("NEW2")
    _replace_fails_onto(monkeypatch, old, OSError(28, "No space left on device"))
    with pytest.raises(StagingError):
        staging.commit()
    monkeypatch.undo()
    staging.discard()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.csv"] and old.read_text() == "OLD"


def test_what_a_killed_export_left_is_swept_by_the_next(capsys, tmp_path):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)  # a process that has ended: its temporaries are orphans
    staged_file = tmp_path / f".bill.csv.{pid}-0123456789abcdef-1.staged.csv"
    staged_folder = tmp_path / f".netbox.{pid}-0123456789abcdef-2.staged"
    aside = tmp_path / f".bill.csv.{pid}-0123456789abcdef-3.old.csv"
    staged_file.write_text("half")
    staged_folder.mkdir()
    (staged_folder / "07-device-types").mkdir()
    aside.write_text("old")
    keep = tmp_path / ".notes.staged"  # a name of another making is never touched
    keep.write_text("mine")
    code, _, err = run(capsys, "export", str(DGX_B200_SU), "--csv", str(tmp_path / "bill.csv"))
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == [".notes.staged", "bill.csv"]
