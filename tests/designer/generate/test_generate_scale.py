"""The biggest targets the generator accepts, and what it says about them.

Each case is one the generator builds: the first is the largest DGX B200 target three tiers of the
default QM9700 reach, the others follow the generator's own advice for 100,000 GPUs (``--switch
q3400``). One hall that size is wider than fibre reaches (100 m) from its central cores to its
corners. The generator lays it out in one hall (multi-hall layouts are not built), so the
analysis reports the too-long runs as an error and the command's output says so in words, with
the run and its length, rather than writing a design that looks clean.
"""
from __future__ import annotations

import pytest

from designer.analysis import analyze
from designer.cli import main
from designer.generate import SuperpodSpec, generate
from designer.generate.summary import key_lines, key_numbers

CASES = {
    "dgx-b200-256su-qm9700": (SuperpodSpec(system="dgx-b200", sus=256), ["--sus", "256"]),
    "dgx-b200-100k-q3400": (SuperpodSpec(system="dgx-b200", gpus=100_000, switch="q3400"),
                            ["--gpus", "100000", "--switch", "q3400"]),
    "gb200-nvl72-100k-q3400": (SuperpodSpec(system="gb200-nvl72", gpus=100_000, switch="q3400"),
                               ["--gpus", "100000", "--switch", "q3400"]),
}


@pytest.mark.parametrize("name", CASES)
def test_runs_beyond_fibre_reach_are_named_in_the_key_numbers(catalog, name):
    spec, _ = CASES[name]
    g = generate(spec, catalog)
    a = analyze(g.project, catalog)
    fab = a.result("fabric").section
    numbers = key_numbers(g, a, catalog)
    lines = key_lines(numbers)
    # only the too-long runs are wrong; everything else about the design holds
    assert {f.code for f in a.findings if f.severity == "error"} == {"fabric-cable-too-long"}
    assert fab["too_long_links"] > 0 and numbers["errors"] == 1
    assert any(line.startswith("error: ") and "longer than any orderable cable" in line and "100 m" in line
               for line in lines)
    assert fab["placed"] == {"leaf": fab["leaf"], "spine": fab["spine"], "core": fab["core"]}


def test_the_command_prints_the_error(tmp_path, capsys):
    _, flags = CASES["dgx-b200-256su-qm9700"]
    out = tmp_path / "big.podplan.json"
    # written, as a start, but the exit status says it does not pass its checks (as validate's would)
    assert main(["new", "superpod", "--system", "dgx-b200", *flags, "-o", str(out)]) == 1
    captured = capsys.readouterr()
    assert "checks: 1 error," in captured.out and "longer than any orderable cable" in captured.out and out.exists()
    assert "does not pass its checks" in captured.err and captured.err.count("\n") == 1
