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


# -- 4. limits as the user states them ---------------------------------------------------------------

def test_no_facility_water_is_a_value_and_a_liquid_cooled_rack_in_such_a_hall_is_an_error(catalog):
    f = facility_from_json({"water_class": "none"})
    assert f.water_class == "none" and f.to_json() == {"water_class": "none"}
    assert facility_from_json({}).water_class is None  # an old file without it is not checked, as before
    r = analyze(nvl_design(Facility(water_class="none")), catalog)
    errors = [x for x in r.findings if x.code == "no-facility-water"]
    assert [x.severity for x in errors] == ["error"] and errors[0].places == ("rack:a0", "rack:a1")
    assert "2 liquid-cooled rack(s) (A00 and 1 more)" in errors[0].message
    # air-cooled racks in a hall without water are fine
    dgx = Rack("d", "D01", "h", "rack-48u-600x1200", 1000, 2000, 0, "A", (MountedDevice("n", "dgx-b200", 1),))
    dry = Project(name="t", halls=(replace(HALL, facility=Facility(water_class="none")),), racks=(dgx,))
    assert findings(analyze(dry, catalog), "no-facility-water") == []
    with pytest.raises(FacilityError, match="water_class: must be one of W32, W40, W45, none"):
        facility_from_json({"water_class": "W50"})


def test_a_water_class_too_warm_for_the_nvl72_says_its_limit_is_unconfirmed(catalog):
    # W45 plus the in-row CDU's 5 K approach gives 50 °C, over the NVL72's 45 °C (a secondary-source figure)
    r = analyze(nvl_design(Facility(water_class="W45")), catalog)
    warm = [x for x in r.findings if x.code == "coolant-too-warm"]
    assert len(warm) == 1 and "50 °C" in warm[0].message and "unconfirmed" in warm[0].message
    assert findings(analyze(nvl_design(Facility(water_class="W40")), catalog), "coolant-too-warm") == []


def test_hall_power_capacity_the_ups_cannot_carry_is_a_warning(catalog):
    # a 2N side of 300 kW within its 90 % design margin carries 270 - 20 kW of pumps = 250 kW of IT; a hall
    # stating 400 kW claims more
    p = nvl_design(Facility(ups_scheme="2N", ups_module_kw=300))
    over = p.with_hall(replace(p.halls[0], power_capacity_kw=400.0))
    r = analyze(over, catalog)
    assert r["power"]["ups"][0]["it_capacity_kw"] == 250.0
    warn = [x for x in r.findings if x.code == "hall-power-over-ups"]
    assert [x.severity for x in warn] == ["warning"] and "400.0 kW" in warn[0].message and "250.0 kW" in warn[0].message
    assert "within its 90% margin" in warn[0].message
    fits = p.with_hall(replace(p.halls[0], power_capacity_kw=250.0))
    assert findings(analyze(fits, catalog), "hall-power-over-ups") == []


def test_generated_hall_takes_the_stated_limits(catalog):
    from designer.generate.build import generate
    from designer.generate.spec import SuperpodSpec

    g = generate(SuperpodSpec(system="gb200-nvl72", sus=1, floor_kg_m2=3000, facility_water="w40",
                              hall_power_kw=5000.0), catalog, with_phases=False)
    hall = g.project.halls[0]
    assert (hall.floor_rating_kg_m2, hall.facility.water_class, hall.power_capacity_kw) == (3000, "W40", 5000.0)
    r = analyze(g.project, catalog)
    assert r["power"]["ups"][0]["it_capacity_kw"] >= 5000.0  # the hall's limit is its UPS's source
    assert findings(r, "hall-power-over-ups") == []
    dry = generate(SuperpodSpec(system="gb200-nvl72", sus=1, facility_water="none"), catalog, with_phases=False)
    assert [x.severity for x in analyze(dry.project, catalog).findings if x.code == "no-facility-water"] == ["error"]


# -- 5. honest rack limits ---------------------------------------------------------------------------

def test_a_rack_moved_out_of_its_row_names_the_row_it_stands_in(catalog):
    racks = nvl_row(4, "A") + nvl_row(4, "B", y=5000.0)
    moved = replace(racks[0], x=1000 + 600 * 4, y=5000.0)  # row A's first rack now stands at the end of row B
    p = Project(name="t", halls=(HALL,), racks=tuple([moved] + racks[1:]), settings=Settings())
    off = [x for x in analyze(p, catalog).findings if x.code == "rack-off-row"]
    assert [(x.severity, x.where) for x in off] == [("warning", "rack:a0")]
    assert "is in row A by its file but stands in row B" in off[0].message and "set its row to B" in off[0].message
    astray = replace(racks[0], y=8500.0)
    p2 = Project(name="t", halls=(HALL,), racks=tuple([astray] + racks[1:]), settings=Settings())
    off2 = [x for x in analyze(p2, catalog).findings if x.code == "rack-off-row"]
    assert len(off2) == 1 and "stands in no row" in off2[0].message
    assert findings(analyze(Project(name="t", halls=(HALL,), racks=tuple(racks)), catalog), "rack-off-row") == []


def test_nvl72_peak_over_one_feeds_shelves_is_one_warning_naming_every_rack(catalog):
    r = analyze(nvl_design(Facility(), n=3), catalog)
    peak = [x for x in r.findings if x.code == "peak-over-one-feed"]
    assert [x.severity for x in peak] == ["warning"] and peak[0].places == ("rack:a0", "rack:a1", "rack:a2")
    assert "168.0 kW" in peak[0].message and "132.0 kW" in peak[0].message and "unconfirmed" in peak[0].message


def _bands(analysis):
    from designer.colours import load_band

    return {rid: load_band(u) for rid, u in zip(analysis.result("power").rack_ids,
                                                 analysis.result("power").rack_utilisation.tolist())}


def _said(analysis, rack_id: str) -> bool:
    """A finding about the rack's own limit names it."""
    return any(f"rack:{rack_id}" in f.places and f.code == "rack-over-limit" for f in analysis.findings)


@pytest.mark.parametrize("system", ["gb200-nvl72", "gb300-nvl72"])
def test_default_nvl72_designs_show_no_rack_at_the_limit_unless_a_finding_says_so(catalog, system):
    from designer import samples
    from designer.fileformat import load
    from designer.generate.build import generate
    from designer.generate.spec import SuperpodSpec

    project = (load(samples.GB200_NVL72_SU, catalog) if system == "gb200-nvl72"
               else generate(SuperpodSpec(system=system, sus=1), catalog, with_phases=False).project)
    a = analyze(project, catalog)
    bands = _bands(a)
    hot = [rid for rid, band in bands.items() if band in ("at_limit", "over") and not _said(a, rid)]
    assert hot == []
    systems = [r.id for r in project.racks if any(d.type == system for d in r.devices)]
    assert systems and {bands[rid] for rid in systems} == {"near"}  # 132 kW on one feed of 134.8 kW: 97.9 %


def test_crah_fans_ride_on_the_ups_only_where_the_hall_says_so(catalog):
    crah = FloorDevice("crah1", "crah-cw-200kw", "h", 15000, 8000)  # 6 kW of fans (a planning estimate)
    base = nvl_design(Facility(ups_scheme="N", ups_module_kw=400))
    with_crah = replace(base, floor_devices=base.floor_devices + (crah,))
    off = analyze(with_crah, catalog)["power"]
    assert off["ups"][0]["cooling_on_ups_kw"] == 20.0 and off["cooling_equipment_kw"] == 26.0
    on = with_crah.with_hall(replace(with_crah.halls[0], facility=with_crah.halls[0].facility.updated(
        crah_on_ups=True)))
    ups = analyze(on, catalog)["power"]["ups"][0]
    assert ups["cooling_on_ups_kw"] == 26.0 and ups["systems"][0]["normal_kw"] == 264.0 + 26.0


def test_a_file_that_saved_the_old_132_kw_rack_scale_limit_keeps_it():
    from designer.settings import settings_from_json

    assert Settings().rack_system_limit_kw is None and "rack_system_limit_kw" not in Settings().to_json()
    assert settings_from_json({"rack_system_limit_kw": 132.0}).rack_system_limit_kw == 132.0
