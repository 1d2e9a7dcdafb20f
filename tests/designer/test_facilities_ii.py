"""Facilities II: the cooling equipment on the UPS, limits as the user states them, honest rack limits.

Figures: a GB200 NVL72 rack draws 132 kW at most (catalog); the in-row CDU ``cdu-inrow-2mw`` draws 20 kW
(a planning estimate in the catalog, 1 % of its 2 MW); a 2N UPS's survivor carries every dual-corded load.
"""
from __future__ import annotations

from dataclasses import replace

import pytest

from catalog import default_catalog
from designer.analysis import analyze
from designer.facility import Facility, FacilityError, facility_from_json
from designer.model import FloorDevice, MountedDevice, Project, Rack
from designer.settings import Settings
from tests.designer.test_power_cooling import HALL, findings


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def nvl_row(n, row="A", y=2000.0):
    return [Rack(f"{row.lower()}{i}", f"{row}{i:02d}", "h", "rack-48u-600x1200", 1000 + 600 * i, y, 0.0, row,
                 (MountedDevice(f"{row.lower()}{i}-s", "gb200-nvl72", 1),)) for i in range(n)]


def cdu(i=0):
    return FloorDevice(f"cdu{i}", "cdu-inrow-2mw", "h", 15000 + 1300 * i, 6000)


def nvl_design(facility: Facility, n=2, cdus=1):
    return Project(name="t", halls=(replace(HALL, facility=facility),), racks=tuple(nvl_row(n)),
                   floor_devices=tuple(cdu(i) for i in range(cdus)), settings=Settings())


# -- 1. the cooling equipment on the UPS -------------------------------------------------------------

def test_cdu_pumps_are_on_a_2n_ups_by_default_half_a_side_all_of_them_on_the_survivor(catalog):
    # two NVL72 (264 kW, 132 a side) and one 20 kW CDU: A carries 132 + 10 kW, 264 + 20 kW with B lost
    r = analyze(nvl_design(Facility(ups_scheme="2N", ups_module_kw=300)), catalog)
    a = r["power"]["ups"][0]["systems"][0]
    assert (a["normal_kw"], a["failover_kw"], a["cooling_kw"], a["cooling_failover_kw"]) == (142.0, 284.0, 10.0, 20.0)
    assert r["power"]["ups"][0]["cooling_on_ups_kw"] == 20.0 and r["power"]["cooling_on_ups_kw"] == 20.0
    assert a["failover_utilisation"] == pytest.approx(284 / 300, abs=1e-4)
    assert findings(r, "ups-over-capacity-with-cooling") == []


def test_pumps_that_tip_the_ups_over_are_an_error_naming_their_share(catalog):
    # 270 kW a side: 264 kW of racks fit, 284 with the pumps do not
    r = analyze(nvl_design(Facility(ups_scheme="2N", ups_module_kw=270)), catalog)
    errors = [f for f in r.findings if f.code == "ups-over-capacity-with-cooling"]
    assert [f.severity for f in errors] == ["error", "error"]
    assert "20.0 kW of it is the cooling equipment" in errors[0].message and "CDU pumps" in errors[0].message
    assert "without them it would carry 264.0 kW (97.8%)" in errors[0].message
    # the redundancy warning the IT load alone would have raised is not said twice
    assert findings(r, "ups-redundancy-lost") == []
    off = analyze(nvl_design(Facility(ups_scheme="2N", ups_module_kw=270, cdu_on_ups=False)), catalog)
    assert findings(off, "ups-over-capacity-with-cooling") == []
    assert off["power"]["ups"][0]["systems"][0]["failover_kw"] == 264.0


def test_n_plus_1_ups_carries_all_the_pumps_and_dr_an_even_share(catalog):
    n1 = analyze(nvl_design(Facility(ups_scheme="N+1", ups_module_kw=200, ups_modules=3), cdus=2), catalog)
    s = n1["power"]["ups"][0]["systems"][0]
    assert (s["normal_kw"], s["cooling_kw"]) == (304.0, 40.0)
    dr = analyze(nvl_design(Facility(ups_scheme="DR", ups_module_kw=400, ups_blocks=4), cdus=2), catalog)
    assert {x["cooling_kw"] for x in dr["power"]["ups"][0]["systems"]} == {10.0}


def test_generators_hold_it_plus_cooling_when_the_pue_leaves_no_room(catalog):
    r = analyze(replace(nvl_design(Facility(generators=2, generator_kw=1000)),
                        settings=Settings(pue=1.05)), catalog)
    g = r["power"]["generators"][0]
    assert g["load_kw"] == pytest.approx(max(264 * 1.05, 264 + 20))
    assert findings(r, "pue-below-cooling") == ["hall:h"]
    assert r["power"]["pue_cooling_floor"] == pytest.approx(284 / 264, abs=1e-4)


def test_cooling_on_ups_settings_round_trip_and_refuse_non_booleans():
    f = facility_from_json({"cdu_on_ups": False, "crah_on_ups": True})
    assert (f.cdu_on_ups, f.crah_on_ups) == (False, True)
    assert f.to_json() == {"cdu_on_ups": False, "crah_on_ups": True}
    assert Facility().to_json() == {}  # an old file without them reads as the defaults
    with pytest.raises(FacilityError, match=r"halls\[0\].facility.cdu_on_ups: must be true or false"):
        facility_from_json({"cdu_on_ups": "yes"}, "halls[0].facility")


def test_generated_gb200_4su_sizes_its_ups_with_the_pumps(catalog):
    from designer.generate.build import generate
    from designer.generate.spec import SuperpodSpec

    g = generate(SuperpodSpec(system="gb200-nvl72", sus=4), catalog, with_phases=False)
    r = analyze(g.project, catalog)
    ups = r["power"]["ups"][0]
    assert ups["cooling_on_ups_kw"] == 160.0  # 8 in-row CDUs x 20 kW
    a = ups["systems"][0]
    assert a["failover_kw"] == pytest.approx(r["power"]["it_max_kw"] + 160.0, abs=0.01)
    assert a["failover_kw"] <= a["capacity_kw"]
    # the same hall with the four modules it had before the pumps were counted is over 100 %: an error
    four = g.project.with_hall(replace(g.project.halls[0], facility=g.project.halls[0].facility.updated(
        ups_modules=4)))
    assert [f.severity for f in analyze(four, catalog).findings
            if f.code == "ups-over-capacity-with-cooling"] == ["error", "error"]
