"""Hostile numeric flags: NaN, infinity, 1e308 and 5,000-digit numbers are one line and exit 2, in every command.

Runs ``designer.cli.main`` in-process, as a user's command line would, and checks the exit code, that
stderr holds exactly one line, and that it names the flag and the range.
"""
from __future__ import annotations

import argparse

import pytest

from designer.cli import main
from designer.cli.flags import checked, fmt, real, whole
from designer.samples import DGX_B200_SU

HUGE = "9" * 5000
TRAIN = ["train", "--system", "dgx-h100", "--gpus", "64", "--model", "llama3-8b", "--json"]


@pytest.fixture(autouse=True)
def _no_user_catalog(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    monkeypatch.delenv("PODPLANNER_CATALOG", raising=False)


def one_error(capsys, *args) -> str:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 2, (code, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("podplanner: error: "), err
    assert "internal error" not in err and "Traceback" not in err and out == ""
    assert len(lines[0]) < 200  # a 5,000-digit value is not echoed back
    return lines[0]


@pytest.mark.parametrize(("value", "words"), [
    ("1e308", "argument --params: 1e308 is out of range (1e6 to 1e14)"),
    ("nan", "argument --params: 'nan' is not a number"),
    ("inf", "argument --params: 'inf' is not a finite number"),
    ("1e400", "argument --params: 1e400 is out of range (1e6 to 1e14)"),
    ("1000", "argument --params: 1000 is out of range (1e6 to 1e14)"),
    (HUGE, "argument --params: '99999999999999999999'... (5,000 characters) is too long for a number"),
])
def test_train_params(capsys, value, words):
    assert words in one_error(capsys, "train", "--system", "dgx-h100", "--params", value)


@pytest.mark.parametrize(("flag", "value", "words"), [
    ("--gpus", HUGE, "argument --gpus: '9999"),
    ("--gpus", "0", "argument --gpus: 0 is out of range (1 to 1e6)"),
    ("--gpus", "1.5", "argument --gpus: '1.5' is not a whole number"),
    ("--tokens", "nan", "argument --tokens: 'nan' is not a number"),
    ("--tokens", "1e308", "argument --tokens: 1e308 is out of range (at most 1e16)"),
    ("--tokens", "Infinity", "argument --tokens: 'Infinity' is not a finite number"),
    ("--oversubscription", "inf", "argument --oversubscription: 'inf' is not a finite number"),
    ("--oversubscription", "1e308", "argument --oversubscription: 1e308 is out of range (1 to 64)"),
    ("--layers", HUGE, "argument --layers: '9999"),
    ("--hidden", "1e308", "argument --hidden: '1e308' is not a whole number"),
    ("--seq", "99999999999", "argument --seq: 99999999999 is out of range (at most 16,777,216)"),
    ("--tp", "99999999999", "argument --tp: 99999999999 is out of range (at most 1e6)"),
    ("--micro-batch", HUGE, "argument --micro-batch: '9999"),
    ("--global-batch", HUGE, "argument --global-batch: '9999"),
    ("--zero", HUGE, "argument --zero: '9999"),
    ("--zero", "7", "argument --zero: 7 is out of range (0 to 3)"),
    ("--grad-comm-bytes", "3", "argument --grad-comm-bytes: invalid choice: 3"),
    ("--expert-imbalance", "1_5", "argument --expert-imbalance: '1_5' is not a number"),
    ("--expert-imbalance", "0.5", "argument --expert-imbalance: 0.5 is out of range (1 to 64)"),
    ("--tokens", "1_000", "argument --tokens: '1_000' is not a number"),
])
def test_train_numeric_flags(capsys, flag, value, words):
    assert words in one_error(capsys, *TRAIN, f"{flag}={value}")


def test_train_lower_bounds_keep_the_engine_message(capsys):
    assert "--tp must be at least 1, got 0" in one_error(capsys, *TRAIN, "--tp", "0")
    assert "token budget must be positive" in one_error(capsys, *TRAIN, "--tokens", "0")


def test_train_accepts_the_edges(capsys):
    assert main([*TRAIN, "--tokens", "1e16", "--oversubscription", "64"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(("flag", "value", "words"), [
    ("--endpoints", HUGE, "argument --endpoints: '9999"),
    ("--endpoints", "1e3", "argument --endpoints: '1e3' is not a whole number"),
    ("--endpoints", "0", "argument --endpoints: 0 is out of range (1 to 1e9)"),
    ("--oversubscription", "nan", "argument --oversubscription: 'nan' is not a number"),
    ("--oversubscription", "1e308", "argument --oversubscription: 1e308 is out of range (1 to 64)"),
    ("--rails", "65", "argument --rails: 65 is out of range (1 to 64)"),
    ("--su-nodes", HUGE, "argument --su-nodes: '9999"),
    ("--reserved-ports", "-1", "argument --reserved-ports: -1 is out of range (0 to 1e6)"),
])
def test_fabric_numeric_flags(capsys, flag, value, words):
    args = ["--endpoints", "1024"] if flag != "--endpoints" else []
    assert words in one_error(capsys, "fabric", *args, f"{flag}={value}")


@pytest.mark.parametrize(("flag", "value", "words"), [
    ("--pue", "nan", "argument --pue: 'nan' is not a number"),
    ("--pue", "inf", "argument --pue: 'inf' is not a finite number"),
    ("--pue", "1e308", "argument --pue: pue must be >= 1 and <= 5, got 1e+308"),
    ("--pue", HUGE, "argument --pue: '9999"),
    ("--derating", "nan", "argument --derating: 'nan' is not a number"),
    ("--derating", "2", "argument --derating: derating must be >= 0.5 and <= 1, got 2"),
    ("--power-factor", "-inf", "argument --power-factor: '-inf' is not a finite number"),
    ("--failover-derating", "1e400", "argument --failover-derating: 1e400 is beyond any number a float can hold"),
    ("--delta-t", "0", "argument --delta-t: coolant_delta_t_k must be >= 1 and <= 50, got 0"),
    ("--air-delta-t", "nan", "argument --air-delta-t: 'nan' is not a number"),
    ("--air-rack-limit", "1e308", "argument --air-rack-limit: air_rack_limit_kw must be >= 0.001 and <= 10000"),
])
def test_analyze_settings_flags(capsys, tmp_path, flag, value, words):
    # refused while parsing: the project file is not even read
    assert words in one_error(capsys, "analyze", str(tmp_path / "missing.json"), f"{flag}={value}")


def test_analyze_accepts_a_sensible_setting(capsys):
    assert main(["analyze", str(DGX_B200_SU), "--json", "--pue", "1.2", "--derating", "0.8"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(("flags", "words"), [
    (["--gpus", HUGE], ["--gpus", "5000 digits"]),
    (["--gpus", "1e308"], ["--gpus", "a whole number"]),
    (["--sus", "1", "--rack-kw", "nan"], ["rack power", "nan"]),
    (["--sus", "1", "--rack-kw", "1e308"], ["rack power", "at most 10000"]),
    (["--sus", "1", "--oversubscription", "inf"], ["oversubscription", "at most 64"]),
    (["--sus", "1", "--hall", "1e308x1e308"], ["hall width", "at most 10000"]),
    (["--sus", "1", "--hall-power-kw=-inf"], ["hall power"]),
    (["--sus", "1", "--phases", HUGE], ["--phases"]),
])
def test_new_superpod_numeric_flags(capsys, tmp_path, flags, words):
    line = one_error(capsys, "new", "superpod", "--system", "dgx-b200", *flags, "-o", str(tmp_path / "x.json"))
    for w in words:
        assert w in line, line
    assert list(tmp_path.iterdir()) == []


def test_export_dpi_refuses_non_ascii_digits(capsys, tmp_path):
    from exporters import cli as export_command

    code = main(["export", str(DGX_B200_SU), "--png", str(tmp_path / "p.png"), "--dpi", "\u00b2"],
                commands=(export_command,))
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and "is not a resolution from 36 to 600" in err


# -- the types themselves -----------------------------------------------------------------------------------

def test_types_parse_what_people_write():
    assert whole(1, 10**6)("1_000") == 1000 and whole(1, 10**6)("1,000") == 1000
    assert whole(1, 10**9)("100,000,000") == 100_000_000 and whole(1, 10**6)("12,345") == 12345
    assert real(0, 1, lo_open=True)("0.5") == 0.5
    assert fmt(1e6) == "1e6" and fmt(1e14) == "1e14" and fmt(15e12) == "15e12" and fmt(0.5) == "0.5"
    assert fmt(64) == "64" and fmt(16_777_216) == "16,777,216" and fmt(0) == "0" and fmt(1e300) == "1e300"


@pytest.mark.parametrize(("parse", "text", "words"), [
    (real(0, 1, lo_open=True), "0", "0 is out of range (above 0 to 1)"),
    (real(None, None), "1e400", "beyond any number a float can hold"),
    (whole(1, 10), "١٠", "is not a whole number"),  # Arabic-Indic digits: int() would take them
    (whole(1, 10), "", "is not a whole number"),
    (whole(1, 100), "2,4", "'2,4' is not a whole number"),  # a list, not 24
    (whole(1, 10**6), "1,00", "'1,00' is not a whole number"),
    (whole(1, 10**6), "1000,000", "'1000,000' is not a whole number"),
    (checked(real(None, None), lambda v: (_ for _ in ()).throw(ValueError("nope"))), "1", "nope"),
])
def test_types_refuse_with_a_reason(parse, text, words):
    with pytest.raises(argparse.ArgumentTypeError, match=words.replace("(", r"\(").replace(")", r"\)")):
        parse(text)
