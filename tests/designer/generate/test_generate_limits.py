"""Targets the generator refuses: too big for the hall or the switch, and bad values, each one clean line."""
from __future__ import annotations

import re

import pytest

from designer.analysis import analyze
from designer.generate import GenerateError, SuperpodSpec, generate

from ._support import bad_findings, run, show

# (CLI flags, spec fields, words of the message)
TOO_BIG = [
    (["--system", "dgx-b200", "--sus", "16", "--hall", "20x20"],
     {"system": "dgx-b200", "sus": 16, "hall": (20, 20)}, ["hall 20 x 20 m is too small", "16 scalable units"]),
    (["--system", "dgx-b200", "--sus", "4", "--hall-cooling-kw", "1000"],
     {"system": "dgx-b200", "sus": 4, "hall_cooling_kw": 1000}, ["hall air cooling", "1.00 MW", "+", "%"]),
    (["--system", "gb200-nvl72", "--sus", "4", "--hall-liquid-kw", "2000"],
     {"system": "gb200-nvl72", "sus": 4, "hall_liquid_kw": 2000}, ["hall liquid cooling", "2.00 MW", "+", "%"]),
]


def _one_clean_line(code, out, err):
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and err.endswith("\n"), err
    assert err.startswith("podplanner")
    assert "Traceback" not in err and "internal error" not in err


def test_hall_power_below_one_scalable_unit_raises_with_the_figures(capsys, tmp_path, catalog):
    """A hall power that holds not one SU: refused with the figures (a larger design over the power is a site of
    several such halls, tests/designer/generate/test_generate_site.py)."""
    with pytest.raises(GenerateError) as info:
        generate(SuperpodSpec(system="dgx-b200", sus=16, hall_power_kw=300), catalog)
    msg = str(info.value)
    assert info.value.fit is True
    # one SU: 32 DGX B200 at 14.3 kW (457.6 kW) and its busiest network racks' switches (33.1 kW)
    assert "hall power 300.0 kW, one scalable unit needs 490.7 kW (+64 %)" in msg, msg
    code, out, err = run(capsys, "new", "superpod", "--system", "dgx-b200", "--sus", "16", "--hall-power-kw", "300",
                         "-o", str(tmp_path / "x.json"))
    _one_clean_line(code, out, err)
    assert "not even one scalable unit fits" in err and not (tmp_path / "x.json").exists()


@pytest.mark.parametrize(("flags", "fields", "words"), TOO_BIG,
                         ids=["hall-size", "hall-air-cooling", "hall-liquid-cooling"])
def test_too_big_names_the_nearest_fit_and_it_fits(capsys, tmp_path, catalog, flags, fields, words):
    with pytest.raises(GenerateError) as info:
        generate(SuperpodSpec(**fields), catalog)
    assert info.value.fit is True
    for w in words:
        assert w in str(info.value), (w, str(info.value))

    out_file = tmp_path / "x.podplan.json"
    code, out, err = run(capsys, "new", "superpod", *flags, "-o", str(out_file))
    _one_clean_line(code, out, err)
    assert "nearest that fits: --sus" in err
    for w in words:
        assert w in err
    assert not out_file.exists()
    near = int(re.search(r"nearest that fits: --sus (\d+) \(([\d,]+) GPUs\)", err).group(1))
    assert 1 <= near < fields["sus"]
    # the nearest fit really fits the same hall: no error (a headroom warning may say it is nearly full) ...
    g = generate(SuperpodSpec(**{**fields, "sus": near}), catalog)
    gpus = re.search(r"--sus \d+ \(([\d,]+) GPUs\)", err).group(1)
    assert f"{g.gpus:,}" == gpus
    errors = [f for f in analyze(g.project, catalog).findings if f.severity == "error"]
    assert not errors, show(errors)
    # ... and it is the largest that does
    with pytest.raises(GenerateError) as bigger:
        generate(SuperpodSpec(**{**fields, "sus": near + 1}), catalog)
    assert bigger.value.fit is True


def test_not_even_one_su_fits(capsys, tmp_path):
    code, out, err = run(capsys, "new", "superpod", "--system", "dgx-b200", "--sus", "4", "--hall", "5x5",
                         "-o", str(tmp_path / "x.podplan.json"))
    _one_clean_line(code, out, err)
    assert "too small" in err and "not even one scalable unit fits" in err


def test_beyond_three_tiers_of_qm9700_proposes_planes_and_says_why_not_q3400(capsys, tmp_path, catalog):
    # 100,000 GPUs of DGX B200 pass three tiers of QM9700 (65,536 endpoints). The Q3400 reaches them, but its
    # 800G XDR cages take no part that joins a B200's 400G flat twin-port cage: the advice is planes, and
    # the Q3400 for systems with 800G ports.
    # (asked for at 1:1 above the pods: unasked, the campus ratios build it: test_generate_site.py)
    with pytest.raises(GenerateError) as info:
        generate(SuperpodSpec(system="dgx-b200", gpus=100_000, core_oversubscription=1), catalog)
    msg = str(info.value)
    assert info.value.fit is False
    assert "65,536" in msg and "2 separate planes of qm9700" in msg and "--switch q3400" not in msg
    assert "q3400 reaches 746,496 in 3 tiers, but its 800G cages take no 400G node's optics" in msg
    out_file = tmp_path / "x.podplan.json"
    code, out, err = run(capsys, "new", "superpod", "--system", "dgx-b200", "--gpus", "100000",
                         "--core-oversubscription", "1", "-o", str(out_file))
    _one_clean_line(code, out, err)
    assert "65,536" in err and "such as dgx-b300" in err
    assert "nearest that fits" not in err  # no smaller hall helps: the switch does
    assert not out_file.exists()
    # and the 800G system the advice names builds on it, clean
    code, out, err = run(capsys, "new", "superpod", "--system", "dgx-b300", "--gpus", "100000", "-o", str(out_file))
    assert code == 0 and "checks: 0 errors" in out


# -- bad values ------------------------------------------------------------------------------------------

BASE = ["--system", "dgx-b200", "--sus", "1"]
BAD = {
    "unknown-system": (["--system", "dgx-z9", "--sus", "1"], ["'dgx-z9'", "dgx-b200", "gb200-nvl72"]),
    "gpus-0": (["--system", "dgx-b200", "--gpus", "0"], ["GPUs", "got 0"]),
    "gpus-abc": (["--system", "dgx-b200", "--gpus", "abc"], ["--gpus", "'abc'"]),
    "gpus-5000-digits": (["--system", "dgx-b200", "--gpus", "9" * 5000], ["--gpus", "5000 digits"]),
    "sus-negative": (["--system", "dgx-b200", "--sus", "-1"], ["scalable units", "-1"]),
    "rack-kw-nan": (BASE + ["--rack-kw", "nan"], ["rack power", "nan"]),
    "rack-kw-inf": (BASE + ["--rack-kw", "inf"], ["rack power", "inf"]),
    "rack-kw-5": (BASE + ["--rack-kw", "5"], ["14.3 kW", "9.3 kW", "--rack-kw 15"]),
    "nodes-per-rack-9": (BASE + ["--nodes-per-rack", "9"], ["9 dgx-b200", "40 kW", "--nodes-per-rack 2"]),
    "networks-unknown": (BASE + ["--networks", "compute,foo"], ["'foo'", "compute, storage, inband, oob"]),
    "networks-without-compute": (BASE + ["--networks", "storage"], ["compute network"]),
    "hall-one-number": (BASE + ["--hall", "10"], ["'10'", "WIDTHxDEPTH"]),
    "hall-letters": (BASE + ["--hall", "axb"], ["'axb'", "WIDTHxDEPTH"]),
    "tiers-4": (BASE + ["--tiers", "4"], ["--tiers", "'4'"]),
    "no-output": (BASE, ["-o/--output"]),
    "gpus-and-sus": (BASE + ["--gpus", "256"], ["--gpus", "--sus"]),
    "phases-0": (BASE + ["--phases", "0"], ["per phase", "got 0"]),
    "phases-beyond-design": (BASE + ["--phases", "2"], ["2 scalable units per phase", "design's 1"]),
    "switch-not-infiniband": (BASE + ["--switch", "sn5600"], ["sn5600", "qm9700"]),
    "oversubscription-below-1": (BASE + ["--oversubscription", "0.5"], ["oversubscription", "0.5"]),
    "hall-power-negative": (BASE + ["--hall-power-kw", "-5"], ["hall power", "-5"]),
    "nvl72-rack-kw-too-low": (["--system", "gb200-nvl72", "--sus", "1", "--rack-kw", "100"], ["132 kW", "100 kW"]),
}


@pytest.mark.parametrize("name", BAD)
def test_bad_value_is_one_line_exit_2(capsys, tmp_path, name):
    flags, words = BAD[name]
    out_file = tmp_path / "x.podplan.json"
    args = ["new", "superpod", *flags] + ([] if name == "no-output" else ["-o", str(out_file)])
    code, out, err = run(capsys, *args)
    _one_clean_line(code, out, err)
    assert len(err) < 300, err[:300]  # a 5000-digit number is not echoed back
    for w in words:
        assert w in err, (w, err)
    assert list(tmp_path.iterdir()) == []


def test_output_into_a_missing_folder(capsys, tmp_path):
    target = tmp_path / "missing" / "x.podplan.json"
    code, out, err = run(capsys, "new", "superpod", *BASE, "-o", str(target))
    _one_clean_line(code, out, err)
    assert str(target) in err and "does not exist" in err
    assert list(tmp_path.iterdir()) == []


def test_output_onto_a_pipe_is_refused_before_any_work(capsys, tmp_path):
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, out, err = run(capsys, "new", "superpod", *BASE, "-o", str(fifo))
    _one_clean_line(code, out, err)
    assert "not a regular file" in err
    assert not fifo.is_file() and fifo.is_fifo()


def test_output_is_an_existing_folder(capsys, tmp_path):
    folder = tmp_path / "here"
    folder.mkdir()
    code, out, err = run(capsys, "new", "superpod", *BASE, "-o", str(folder))
    _one_clean_line(code, out, err)
    assert "is a folder" in err
    assert list(folder.iterdir()) == []


def test_rack_kw_too_low_names_a_rack_kw_that_fits(capsys, tmp_path, catalog):
    code, _, err = run(capsys, "new", "superpod", *BASE, "--rack-kw", "5", "-o", str(tmp_path / "x.podplan.json"))
    assert code == 2
    kw = float(re.search(r"--rack-kw (\d+(?:\.\d+)?)", err).group(1))
    assert kw >= catalog.get("dgx-b200").power_max_w / 1000
    g = generate(SuperpodSpec(system="dgx-b200", sus=1, rack_kw=kw), catalog)
    bad = bad_findings(analyze(g.project, catalog))
    assert not bad, show(bad)


def test_a_narrow_hall_takes_shorter_rows_before_refusing(catalog):
    from designer.generate import SuperpodSpec, generate

    # 7.8 m of rows and the air handlers' two 2.1 m galleries: rows of two SUs (13.8 m) do not fit 14 m
    g = generate(SuperpodSpec(system="dgx-b200", sus=2, hall=(14, 40)), catalog)
    x0, y0, x1, y1 = g.project.halls[0].bounds
    assert (x1, y1) == (14_000, 40_000) and g.grid.segments_per_pair == 1 and g.grid.su_pairs == 2
    assert max(r.x for r in g.project.racks) < 14_000 - 2100


def test_the_nearest_fit_of_a_given_hall_is_the_largest_that_fits_even_past_one_that_does_not(catalog):
    from designer.generate import SuperpodSpec, generate
    from designer.generate.build import nearest_fit

    spec = SuperpodSpec(system="gb200-nvl72", sus=5, hall=(12, 30))
    fits = {}
    for sus in range(1, 5):
        try:
            generate(SuperpodSpec(system="gb200-nvl72", sus=sus, hall=(12, 30)), catalog)
            fits[sus] = True
        except GenerateError:
            fits[sus] = False
    near = nearest_fit(spec, catalog)
    # an SU is one 8.4 m row: 3 SUs fit the 12 m; at 4 the leaves take a second network rack a stack (9.6 m)
    assert near.sus == max(s for s, ok in fits.items() if ok) == 3 and not fits[4]


def test_output_over_a_read_only_file_is_refused_before_the_design_is_built(capsys, tmp_path):
    target = tmp_path / "kept.podplan.json"
    target.write_text("{}")
    target.chmod(0o444)
    code, out, err = run(capsys, "new", "superpod", *BASE, "-o", str(target))
    _one_clean_line(code, out, err)
    assert f"-o {target}: is read-only" in err
    assert target.read_text() == "{}"
