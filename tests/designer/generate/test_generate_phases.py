"""A build in phases: each phase a clean design, and each the next one's start (racks stay, cables stay)."""
from __future__ import annotations

import json

import pytest

from designer.analysis import analyze
from designer.fileformat import load, to_dict
from designer.generate import SuperpodSpec, generate

from ._support import bad_findings, count_prefixes, run, show


@pytest.fixture(scope="module")
def phased(catalog):
    g = generate(SuperpodSpec(system="dgx-b200", sus=3, phase_sus=1), catalog)
    return g, [analyze(p, catalog) for p in g.phases]


def _links(analysis) -> set:
    """Port-to-port links by device label, from the wiring plan's columns."""
    fab = analysis.result("fabric")
    plan, labels = fab.plan, fab.inventory.devices.labels
    out = {(labels[a], int(ap), labels[b], int(bp)) for a, ap, b, bp in
           zip(plan.a_dev.tolist(), plan.a_port.tolist(), plan.b_dev.tolist(), plan.b_port.tolist())}
    assert len(out) == len(plan)
    assert {(x.a_device, x.b_device) for x in fab.links()} == {(a, b) for a, _, b, _ in out}
    return out


def _device_key(d):
    return (d.id, d.type, d.u, d.face, d.name)


def test_three_phases_each_clean(phased):
    g, analyses = phased
    assert len(g.phases) == 3
    for k, a in enumerate(analyses, 1):
        bad = bad_findings(a)
        assert not bad, f"phase {k}:\n{show(bad)}"
        assert a.summary_json["gpus"] == (32 * k - 1) * 8
        # every phase stands in the final hall, with the final design's spines from the start
        assert a.result("fabric").section["placed"] == {"leaf": 8 * k, "spine": 16, "core": 0}
        assert count_prefixes(g.phases[k - 1])["spine"] == 16
        assert g.phases[k - 1].halls == g.project.halls
    # the last phase is the design
    last, final = to_dict(g.phases[-1]), to_dict(g.project)
    assert {k: v for k, v in last.items() if k != "name"} == {k: v for k, v in final.items() if k != "name"}


def test_racks_are_never_removed_or_moved(phased):
    g, _ = phased
    for k in range(len(g.phases) - 1):
        before, after = g.phases[k], {r.id: r for r in g.phases[k + 1].racks}
        for rack in before.racks:
            assert rack.id in after, f"phase {k + 2} removes rack {rack.name}"
            later = after[rack.id]
            assert (later.x, later.y, later.rotation, later.row, later.type) == \
                (rack.x, rack.y, rack.rotation, rack.row, rack.type), f"phase {k + 2} moves rack {rack.name}"


def test_a_later_phase_only_adds_devices(phased):
    """A rack of phase k holds the same devices, at the same U, in phase k+1; the next phase may only add (the
    DGX the UFM displaced in the previous phase's last SU). Taking an installed appliance out of its rack, or
    re-mounting a switch at another U, is not adding."""
    g, _ = phased
    problems = []
    for k in range(len(g.phases) - 1):
        after = {r.id: r for r in g.phases[k + 1].racks}
        for rack in g.phases[k].racks:
            later = {d.id: d for d in after[rack.id].devices}
            for d in rack.devices:
                e = later.get(d.id)
                if e is None:
                    problems.append(f"phase {k + 2} takes {d.name} out of rack {rack.name}")
                elif _device_key(e) != _device_key(d):
                    problems.append(f"phase {k + 2} moves {d.name} in rack {rack.name} from U{d.u} {d.face} "
                                    f"to U{e.u} {e.face}")
    assert not problems, "\n".join(problems)


def test_cables_stay_but_the_four_ufm_links(phased):
    _, analyses = phased
    for k in range(len(analyses) - 1):
        before, after = _links(analyses[k]), _links(analyses[k + 1])
        lost = before - after
        assert len(lost) == 4, sorted(lost)
        assert all(a.startswith("ufm-compute-") or b.startswith("ufm-compute-") for a, _, b, _ in lost), lost
        assert len(after) > len(before)


def test_cli_phases_writes_one_file_per_phase(capsys, tmp_path, catalog):
    out_file = tmp_path / "X.podplan.json"
    code, out, err = run(capsys, "new", "superpod", "--system", "dgx-b200", "--sus", "3", "--phases",
                         "-o", str(out_file), "--json")
    assert code == 0, err
    doc = json.loads(out)
    files = [tmp_path / f"X.phase-{k}.podplan.json" for k in (1, 2, 3)]
    assert doc["phase_files"] == [str(f) for f in files]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["X.podplan.json"] + [f.name for f in files])
    for k, f in enumerate(files, 1):
        project = load(f, catalog)
        assert f"phase {k} of 3" in project.name
        assert analyze(project, catalog).summary_json["gpus"] == (32 * k - 1) * 8
    code, out, _ = run(capsys, "new", "superpod", "--system", "dgx-b200", "--sus", "3", "--phases", "2",
                       "-o", str(tmp_path / "Y.podplan.json"))
    assert code == 0
    assert "2 phase files (Y.phase-1.podplan.json, Y.phase-2.podplan.json)" in out


# -- phases of a target given in GPUs ---------------------------------------------------------------------

def test_phases_of_a_gpu_target_end_at_the_design(catalog):
    """--gpus 1000 is 125 DGX B200 in 4 SUs; its last phase should be those 125, not a full 127."""
    g = generate(SuperpodSpec(system="dgx-b200", gpus=1000, phase_sus=1), catalog)
    assert g.gpus == 1000
    last = analyze(g.phases[-1], catalog)
    assert last.summary_json["gpus"] == 1000, f"last phase has {last.summary_json['gpus']} GPUs, the design {g.gpus}"
    assert len(g.phases[-1].racks) == len(g.project.racks)


def test_phases_of_a_gpu_target_fit_the_hall_fitted_to_it(catalog):
    """--gpus 600 of GB200 NVL72 is 9 racks in 2 SUs, in a hall fitted to them: it builds, phased or not."""
    g = generate(SuperpodSpec(system="gb200-nvl72", gpus=600), catalog)
    assert (g.gpus, g.sus) == (648, 2)
    phased = generate(SuperpodSpec(system="gb200-nvl72", gpus=600, phase_sus=1), catalog)
    assert [analyze(p, catalog).summary_json["gpus"] for p in phased.phases] == [576, 648]
