from __future__ import annotations

from dataclasses import replace

from designer.analysis import analyze
from designer.checks import check_space
from designer.fileformat import load
from designer.model import MountedDevice
from drawn import DGX_B200_SU, GB200_NVL72_SU
from tests.designer.test_fileformat import GOLDEN


def codes(findings):
    return sorted((f.code, f.where) for f in findings)


def test_golden_design_is_clean(catalog):
    assert check_space(load(GOLDEN, catalog), catalog) == []


def test_overlapping_racks_are_found_on_the_right_rack(catalog):
    p = load(GOLDEN, catalog)
    p = p.with_racks([replace(p.rack("r2"), x=1800)])  # 300 mm into r1
    found = check_space(p, catalog)
    assert codes(found) == [("overlap", "rack:r1")]
    assert "A01 overlaps rack A02 by 0.36 m²" in found[0].message


def test_racks_side_by_side_do_not_overlap(catalog):
    p = load(GOLDEN, catalog)
    assert p.rack("r2").x - p.rack("r1").x == 600
    assert check_space(p, catalog) == []


def test_rotated_rack_outside_the_hall(catalog):
    p = load(GOLDEN, catalog)
    # At 90 degrees the 1200 mm depth runs along x: centred 500 mm from the wall, it sticks out 100 mm.
    p = p.with_racks([replace(p.rack("r1"), x=500, y=2400, rotation=90)])
    assert codes(check_space(p, catalog)) == [("outside-hall", "rack:r1")]
    p = p.with_racks([replace(p.rack("r1"), x=600)])
    assert check_space(p, catalog) == []


def test_rack_overlapping_a_cdu(catalog):
    p = load(GOLDEN, catalog)
    p = p.with_racks([replace(p.rack("r1"), x=4200)])
    assert codes(check_space(p, catalog)) == [("overlap", "rack:r1")]


def test_u_collision_in_a_file_is_a_finding(catalog):
    p = load(GOLDEN, catalog)
    r1 = p.rack("r1")
    p = p.with_racks([replace(r1, devices=r1.devices + (MountedDevice("sw", "qm9700", 10, "rear"),))])
    found = check_space(p, catalog)
    assert codes(found) == [("u-collision", "rack:r1")]
    # an unnamed device is named by its type as the catalog names it, not by the catalog id
    assert "NVIDIA Quantum-2 QM9700 NDR InfiniBand switch at U10 collides with node-1 at U5" in found[0].message


def test_collision_behind_a_tall_device_is_found(catalog):
    p = load(GOLDEN, catalog)
    r2 = p.rack("r2")
    extra = (MountedDevice("a", "qm9700", 5, "rear"), MountedDevice("b", "qm9700", 20, "rear"))
    p = p.with_racks([replace(r2, devices=r2.devices + extra)])
    assert len([f for f in check_space(p, catalog) if f.code == "u-collision"]) == 2


def test_samples_analyze_to_their_gpu_counts_and_power(catalog):
    b200 = analyze(load(DGX_B200_SU, catalog), catalog).summary_json
    # One of the SU's 32 DGX B200 gives its leaf ports to UFM (RA Table 4): 31 x 14.3 kW.
    assert b200["gpus"] == 248 and b200["racks"] == 19
    assert b200["it_power_max_kw"] == round(31 * 14.3 + 12 * 1.72 + 2 * 0.689 + 2 * 2.092 + 4 * 0.2, 3)
    nvl = analyze(load(GB200_NVL72_SU, catalog), catalog).summary_json
    assert nvl["gpus"] == 576 and nvl["racks"] == 10
    # 8 x 132 kW of NVL72 plus the SU's 36 QM9700 and 2 UFM appliances
    assert nvl["it_power_max_kw"] == round(8 * 132 + 36 * 1.72 + 2 * 0.689, 3)
    assert nvl["it_power_typical_kw"] == round(8 * 120 + 36 * 0.747 + 2 * 0.689, 3)


def test_a_design_beyond_three_tiers_still_analyses(catalog):
    from dataclasses import replace

    from bench.designs import dgx_b200_project

    # 100,000 GPUs of DGX B200 need 100,000 endpoints: more than three tiers of QM9700 reach. Without its
    # Q3400 fabric the design is sized on the default QM9700, which cannot hold it.
    project = dgx_b200_project(100_000)
    project = replace(project, racks=tuple(replace(r, devices=tuple(d for d in r.devices if d.type != "q3400"))
                                           for r in project.racks))
    r = analyze(project, catalog)
    assert r.summary_json["gpus"] == 100_000
    assert "fabric-impossible" in {f.code for f in r.findings}
    assert r["bandwidth"]["status"] == "error"
