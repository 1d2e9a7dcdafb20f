"""One design, one fabric: every consumer of the analysis reads the tree the fabric engine sized.

The design below needs three tiers of QM9700 (264 DGX B200 = 2,112 fabric ports, past the
2,048 that two tiers reach) and places every leaf, spine and core switch it needs. Its
project setting allows two tiers only: the fabric is sized at three, the setting's
conflict is one finding, and the bandwidth, training, bill of materials and cabling
export all tell that same story.
"""
from __future__ import annotations

import argparse
import csv
from collections import Counter

import pytest

from designer.analysis import analyze
from designer.fabric import FabricError, size_fat_tree
from designer.model import Hall, MountedDevice, Project, Rack
from exporters import cli as export_cli
from exporters.cabling import write_cabling_csv
from exporters.registry import ExportError

NODES = 264
PITCH = 600.0
ROW_RACKS = 24


def _three_tier_design(catalog) -> Project:
    tree = size_fat_tree(NODES * 8, catalog.get("qm9700"), rails=8, tiers="auto")
    assert tree.tiers == 3  # the premise of every test here
    racks, x, y, row = [], 0, 0, 0

    def add(devs, name):
        nonlocal x, y, row
        rid = f"r{len(racks) + 1:03d}"
        racks.append(Rack(rid, name, "h", "rack-48u-600x1200", 1200 + x * PITCH, 3000 + row * 3000, 0.0,
                          chr(65 + row), tuple(devs(rid))))
        x += 1
        if x == ROW_RACKS:
            x, row = 0, row + 1

    for n in range(0, NODES, 2):
        add(lambda rid, n=n: [MountedDevice(f"{rid}-d{k}", "dgx-b200", 5 + 12 * k, "front", f"dgx-{n + k + 1:03d}")
                              for k in range(2)], f"C{n // 2 + 1:03d}")
    switches = [("leaf", tree.leaf), ("spine", tree.spine), ("core", tree.core)]
    labels = [f"{role}-{i + 1:03d}" for role, count in switches for i in range(count)]
    for start in range(0, len(labels), 40):
        chunk = labels[start:start + 40]
        add(lambda rid, chunk=chunk: [MountedDevice(f"{rid}-s{k}", "qm9700", 2 + k, "rear", label)
                                      for k, label in enumerate(chunk)], f"N{start // 40 + 1:02d}")
    rows = row + 1
    hall = Hall("h", "Hall 1", ((0, 0), (2400 + ROW_RACKS * PITCH, 0), (2400 + ROW_RACKS * PITCH, 3000 * rows + 3000),
                                (0, 3000 * rows + 3000)))
    project = Project(name="three tiers", halls=(hall,), racks=tuple(racks))
    return project.with_settings(project.settings.updated(fabric_tiers="2"))


@pytest.fixture(scope="module")
def design(catalog):
    return _three_tier_design(catalog)


@pytest.fixture(scope="module")
def analysis(design, catalog):
    return analyze(design, catalog)


def test_two_tiers_cannot_hold_the_design(catalog):
    with pytest.raises(FabricError, match="3 tiers"):
        size_fat_tree(NODES * 8, catalog.get("qm9700"), rails=8, tiers="2")


def test_fabric_is_sized_once_at_the_tiers_it_needs(analysis):
    fabric = analysis.result("fabric")
    tree = fabric.tree
    section = analysis["fabric"]
    assert (fabric.tiers_requested, fabric.tiers_exceeded, fabric.error) == ("2", True, None)
    assert section["tiers"] == tree.tiers == 3
    assert (section["leaf"], section["spine"], section["core"]) == (tree.leaf, tree.spine, tree.core)
    assert section["placed"] == {"leaf": tree.leaf, "spine": tree.spine, "core": tree.core}
    assert section["unwired_links"] == {"node_leaf": 0, "leaf_spine": 0, "spine_core": 0}
    assert analysis.summary_json["switches"] == {"leaf": tree.leaf, "spine": tree.spine, "core": tree.core}


def test_the_findings_say_it_once(analysis):
    fabric_codes = Counter(f.code for f in analysis.findings if f.code.startswith("fabric-"))
    assert fabric_codes == {"fabric-tier-forbidden": 1}
    forbidden = next(f for f in analysis.findings if f.code == "fabric-tier-forbidden")
    assert forbidden.severity == "error"
    assert "allows 2 tiers" in forbidden.message and "sized at 3 tiers" in forbidden.message
    assert forbidden.where == "hall:h"  # one hall: the hall


def test_on_a_site_the_finding_points_at_the_fabric_not_at_one_of_its_halls(design, catalog):
    # a second (empty) hall makes a site: the fabric spans it, so no one hall is where the fix is
    site = design.adding_hall(Hall("h2", "Hall 2", ((0, 0), (6000, 0), (6000, 6000), (0, 6000))))
    forbidden = next(f for f in analyze(site, catalog).findings if f.code == "fabric-tier-forbidden")
    assert forbidden.where == "project:fabric"


def test_bandwidth_reads_the_same_tree(analysis):
    tree = analysis.result("fabric").tree
    bw = analysis["bandwidth"]
    assert "status" not in bw  # sized, not an error
    assert bw["oversubscription"] == pytest.approx(tree.actual_oversubscription)
    assert bw["bisection_tbps_non_blocking"] == pytest.approx(tree.nodes * tree.rails * 400 / 2 / 1000)
    assert bw["per_gpu"]["scale_out_gbps"] == 400
    assert bw["gpus"] == NODES * 8


def test_training_runs_on_the_designs_gpus_and_fabric(analysis):
    training = analysis["training"]
    assert training["status"] == "ok" and training["tp"] * training["pp"] * training["dp"] * training["cp"] == NODES * 8
    assert analysis.summary_json["tokens_per_s"] == training["tokens_per_s"] > 0


def test_bom_orders_the_cables_the_fabric_chose(analysis):
    section = analysis["fabric"]
    # spares are ordered on lines of their own, beside what the fabric wires
    lines = [ln for s in analysis["bom"]["sections"] for ln in s["lines"] if not ln["spare"]]
    ordered = Counter()
    for ln in lines:
        if ln["id"] in section["cables"] or ln["id"] in section["transceivers"]:
            ordered[ln["id"]] += ln["quantity"]
    assert ordered == Counter(section["cables"]) + Counter(section["transceivers"])
    by_length = {(ln["id"], ln["length_m"]): ln["quantity"] for ln in lines if "length_m" in ln}
    assert by_length == {(cid, float(length)): n for cid, lengths in section["cables_by_length"].items()
                         for length, n in lengths.items()}
    switches = sum(ln["quantity"] for ln in lines if ln["id"] == "qm9700")
    assert switches == section["leaf"] + section["spine"] + section["core"]


def test_cabling_export_writes_the_analysis_links(analysis, tmp_path):
    out = tmp_path / "cabling.csv"
    write_cabling_csv(analysis, out)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    section = analysis["fabric"]
    assert len(rows) == sum(section["links"].values()) == sum(section["wired_links"].values())
    tiers = Counter(r["tier"] for r in rows)
    assert tiers == {"node-leaf": section["links"]["node_leaf"], "leaf-spine": section["links"]["leaf_spine"],
                     "spine-core": section["links"]["spine_core"]}
    fibre = Counter((r["cable"], float(r["length_m"])) for r in rows if r["medium"] in ("mmf", "smf"))
    for (cid, length), n in fibre.items():
        assert section["cables_by_length"][cid][f"{length:g}"] == n  # one fibre cable per link


def test_cabling_export_command_succeeds_where_analyze_does(design, catalog, tmp_path, capsys):
    from designer.fileformat import save

    path = tmp_path / "three-tiers.podplan.json"
    save(design, path)
    parser = argparse.ArgumentParser()
    export_cli.add_parser(parser.add_subparsers(dest="command"))
    out = tmp_path / "cabling.csv"
    # its fabric needs 3 tiers where the design allows 2 (an error finding): written as a draft
    assert export_cli.run(parser.parse_args(["export", str(path), "--cabling", str(out), "--allow-errors"]),
                          catalog) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert out.stat().st_size > 0


def test_a_fabric_no_tree_can_hold_is_one_error_everywhere(catalog, tmp_path):
    # 70,000 fabric ports are beyond three tiers of QM9700 (65,536): no tree, and every consumer says so.
    racks = tuple(Rack(f"r{i}", f"R{i}", "h", "rack-48u-600x1200", 600 + (i % 100) * 600, 1000 + (i // 100) * 2400,
                       devices=tuple(MountedDevice(f"r{i}-d{k}", "dgx-b200", 5 + 12 * k) for k in range(2)))
                  for i in range(4375))
    hall = Hall("h", "Hall", ((0, 0), (62000, 0), (62000, 110000), (0, 110000)))
    project = Project(halls=(hall,), racks=racks)
    analysis = analyze(project, catalog)
    fabric = analysis.result("fabric")
    assert fabric.tree is None and fabric.error and "65,536" in fabric.error
    assert analysis["bandwidth"] == {"status": "error", "error": fabric.error}
    assert [f.code for f in analysis.findings if f.code.startswith("fabric-")] == ["fabric-impossible"]
    with pytest.raises(ExportError, match="cannot be built"):
        write_cabling_csv(analysis, tmp_path / "x.csv")
    assert not (tmp_path / "x.csv").exists()


def test_an_appliance_numbers_its_fabric_ports(catalog):
    from designer.analysis import analyze
    from designer.fileformat import load
    from designer.samples import DGX_B200_SU

    links = analyze(load(DGX_B200_SU, catalog), catalog).result("fabric").links()
    ufm = sorted((ln.a_device, ln.a_port) for ln in links if ln.a_device.startswith("ufm-"))
    # two UFM appliances with two compute-fabric ports each: four cables to four distinct ports
    assert ufm == [("ufm-compute-1", "1"), ("ufm-compute-1", "2"), ("ufm-compute-2", "1"), ("ufm-compute-2", "2")]
