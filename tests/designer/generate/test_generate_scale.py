"""The biggest targets the generator accepts, and what it says about them.

Each case is one the generator builds: the first is the largest DGX B200 target three tiers of the
default QM9700 reach, the others follow the generator's own advice for 100,000 GPUs (``--switch
q3400``). One hall that size is wider than the 100 m parts reach from its central cores to its
corners: the long runs take the 500 m single-mode parts. A DGX B200's 400G twin-port flat cages
have no part in the catalog that joins an XDR cage, so that design's analysis names the cages as an
error and the command's output says so in words, rather than writing a design that looks clean.
"""
from __future__ import annotations

import pytest


from designer.analysis import analyze
from designer.fabric import media
from designer.fileformat import load
from designer.cli import main
from designer.generate import GenerateError, SuperpodSpec, generate

CASES = {
    "dgx-b200-256su-qm9700": (SuperpodSpec(system="dgx-b200", sus=256), ["--sus", "256"]),
    "dgx-b200-100k-q3400": (SuperpodSpec(system="dgx-b200", gpus=100_000, switch="q3400"),
                            ["--gpus", "100000", "--switch", "q3400"]),
    "gb200-nvl72-100k-q3400": (SuperpodSpec(system="gb200-nvl72", gpus=100_000, switch="q3400"),
                               ["--gpus", "100000", "--switch", "q3400"]),
}


def _analysed(catalog, name):
    spec, _ = CASES[name]
    g = generate(spec, catalog)
    return g, analyze(g.project, catalog)


def _fabric_errors(analysis) -> set:
    return {f.code for f in analysis.findings if f.severity == "error" and f.code.startswith("fabric-")}


def test_runs_beyond_100_m_take_the_500_m_parts(catalog):
    _, a = _analysed(catalog, "dgx-b200-256su-qm9700")
    fab = a.result("fabric")
    assert _fabric_errors(a) == set() and fab.section["too_long_links"] == 0
    plan, ch = fab.plan, fab.plan.choice
    far = plan.raw_m > 100.0
    assert far.any() and (ch["medium"][far] == media.SMF).all()
    ids = ch["module_ids"]
    for end in ("module_a", "module_b"):
        assert {ids[m] for m in ch[end][far].tolist()} == {"osfp-800g-2xdr4-500m"}
    assert fab.section["placed"] == {"leaf": fab.section["leaf"], "spine": fab.section["spine"],
                                     "core": fab.section["core"]}


def test_rack_scale_400g_trays_on_xdr_switches_take_each_cage_its_own_part(catalog):
    _, a = _analysed(catalog, "gb200-nvl72-100k-q3400")
    fab = a.result("fabric")
    assert _fabric_errors(a) == set() and fab.section["too_long_links"] == 0
    ch = fab.plan.choice
    node = fab.plan.tier == 0
    ids = ch["module_ids"]
    # the 400G flat tray cage takes a 400G single-port part (the XDR UFM's 800G port its 800G one), the XDR
    # switch cage an XDR twin-port one
    assert {ids[m] for m in ch["module_a"][node & (ch["module_a"] >= 0)].tolist()} == {"osfp-400g-dr4",
                                                                                         "osfp-800g-dr4"}
    assert {ids[m] for m in ch["module_b"][node & (ch["module_b"] >= 0)].tolist()} == {"osfp-1600g-2xdr4"}


def test_400g_twin_port_nodes_on_xdr_switches_are_refused_before_any_work(tmp_path, capsys, catalog):
    """No catalog part joins a DGX B200's 400G cage to a Q3400's XDR cage: the generator says so and names the
    switches that do reach, rather than write 100,000 unwired links (the analysis's fabric-no-part finding says
    the same of a design placed by hand, tests/designer/fabric/test_optics.py)."""
    with pytest.raises(GenerateError) as info:
        generate(CASES["dgx-b200-100k-q3400"][0], catalog)
    msg = str(info.value)
    assert "400G twin-port OSFP cage, flat top" in msg and "800G twin-port OSFP cage, finned top" in msg
    assert "switches its ports do reach: qm9700, qm9790" in msg
    # and why none can exist: XDR's 200G-PAM4 lanes do not downshift to NDR's 100G-PAM4
    assert "cannot downshift to a 400G NDR port's 100G-PAM4" in msg
    out = tmp_path / "xdr.podplan.json"
    assert main(["new", "superpod", "--system", "dgx-b200", "--sus", "2", "--switch", "q3400", "-o", str(out)]) == 2
    assert "every compute link would be unwired" in capsys.readouterr().err and not out.exists()


def test_the_command_says_the_design_does_not_pass(tmp_path, capsys, catalog):
    out = tmp_path / "dry.podplan.json"
    # written, as a start, but the exit status says it does not pass its checks (as validate's would)
    assert main(["new", "superpod", "--system", "gb200-nvl72", "--sus", "1", "--facility-water", "none",
                 "-o", str(out)]) == 1
    captured = capsys.readouterr()
    assert "checks: " in captured.out and out.exists()
    assert "does not pass its checks" in captured.err and captured.err.count("\n") == 1
    a = analyze(load(out, catalog), catalog)
    assert [f.code for f in a.findings if f.severity == "error"] == ["no-facility-water"]
