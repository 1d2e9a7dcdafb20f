"""The air side, the liquid side above the CDUs and the floor tiles, against figures worked out by hand."""
from __future__ import annotations

from dataclasses import replace

import pytest

from catalog import default_catalog
from designer.analysis import analyze
from designer.cooling.air import air_remedy
from designer.facility import Facility, RowFacility
from designer.model import FloorDevice, MountedDevice, Project, Rack
from designer.settings import Settings
from tests.designer.test_power_cooling import HALL, findings


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def hall(**facility):
    return replace(HALL, facility=Facility(**facility))


def dgx_rack(rid, n, x=1000.0, y=2000.0, row="A"):
    devs = [MountedDevice(f"{rid}-n{i}", "dgx-b200", 1 + 10 * i) for i in range(n)]
    devs += [MountedDevice(f"{rid}-p{i}", "pdu-415v-60a-3ph", None, "rear") for i in range(2)]
    return Rack(rid, rid.upper(), "h", "rack-48u-600x1200", x, y, 0.0, row, tuple(devs))


def nvl(rid, x, y=2000.0, row="A"):
    return Rack(rid, rid.upper(), "h", "rack-48u-600x1200", x, y, 0.0, row, (MountedDevice("s", "gb200-nvl72", 1),))


def design(racks, h=None, floor=(), **settings):
    return Project(name="t", halls=(h or HALL,), racks=tuple(racks), floor_devices=tuple(floor),
                   settings=Settings(**settings))


# -- air ------------------------------------------------------------------------------------------------

def test_a_57_kw_air_cooled_rack_is_found_with_its_remedy(catalog):
    r = analyze(design([dgx_rack("r", 4)], hall(containment="hot")), catalog)
    row = r["cooling"]["racks"][0]
    assert row["air_kw"] == 57.2 and row["air_limit_kw"] == 30
    assert row["air_density"] == pytest.approx(57.2 / 30, abs=1e-4)
    assert row["air_cfm"] == 8580  # NVIDIA's deck: 8,580 CFM for a 4-DGX B200 rack (150 CFM/kW)
    assert "55-75 kW" in row["air_remedy"]
    assert findings(r, "air-density") == ["rack:r"]


def test_a_34_kw_rack_wants_a_rear_door_and_an_open_row_wants_containment(catalog):
    assert "20-40 kW" in air_remedy(34.4, 30)
    assert air_remedy(28.6, 30) is None
    assert air_remedy(28.6, 15, contained_kw=30) == "hot or cold aisle containment to the row"
    assert "liquid cooling" in air_remedy(90, 30)
    # the two-DGX rack NVIDIA air-cools: 28.6 kW passes in a contained row, not in a row stated to be open
    contained = analyze(design([dgx_rack("r", 2)], hall(containment="cold")), catalog)
    assert contained["cooling"]["racks"][0]["air_cfm"] == 4290 and findings(contained, "air-density") == []
    open_row = analyze(design([dgx_rack("r", 2)], hall(rows=(("A", RowFacility(containment="none")),))), catalog)
    assert open_row["cooling"]["racks"][0]["air_limit_kw"] == 15 and findings(open_row, "air-density") == ["rack:r"]


def test_air_handlers_n_plus_1_and_airflow(catalog):
    # Eight 2-DGX racks: 228.8 kW of air heat, 8 x 4,290 = 34,320 CFM. Two 200 kW CRAHs carry it, not with one off.
    racks = [dgx_rack(f"r{i}", 2, x=1000 + 600 * i) for i in range(8)]
    crahs = [FloorDevice(f"c{i}", "crah-cw-200kw", "h", 3000 + 3000 * i, 8000) for i in range(2)]
    r = analyze(design(racks, hall(containment="hot"), crahs), catalog)
    air = r["cooling"]["halls"][0]["air_handlers"]
    assert (air["capacity_kw"], air["capacity_n_minus_1_kw"], air["redundancy"]) == (400, 200, "N")
    assert (air["airflow_cfm"], air["demand_cfm"]) == (63400, 34320)
    assert findings(r, "crah-redundancy-lost") == ["hall:h"] and findings(r, "crah-over-capacity") == []
    three = crahs + [FloorDevice("c2", "crah-cw-200kw", "h", 12000, 8000)]
    assert findings(analyze(design(racks, hall(containment="hot"), three), catalog), "crah-redundancy-lost") == []
    # the fans are facility load, not IT load
    assert r["power"]["cooling_equipment_kw"] == 12.0 and r["power"]["it_max_kw"] == pytest.approx(228.8)


def test_the_inlet_class_against_the_devices_rating(catalog):
    a3 = analyze(design([dgx_rack("r", 2)], hall(inlet_class="A3")), catalog)
    assert a3["cooling"]["halls"][0]["inlet_allowable_c"] == [5, 40]
    assert a3["cooling"]["halls"][0]["device_inlet_max_c"] == 35  # DGX B200 operating range ends at 35 C
    assert findings(a3, "inlet-class") == ["hall:h"]
    assert findings(analyze(design([dgx_rack("r", 2)], hall(inlet_class="A2")), catalog), "inlet-class") == []


# -- liquid ---------------------------------------------------------------------------------------------

def test_facility_water_class_plus_approach_against_the_cold_plates(catalog):
    cdus = [FloorDevice(f"c{i}", "cdu-inrow-2mw", "h", 3000 + 3000 * i, 8000, serves=("n1",)) for i in range(2)]
    w45 = analyze(design([nvl("n1", 1000)], hall(water_class="W45"), cdus), catalog)
    loop = w45["cooling"]["cdu_loops"][0]
    assert (loop["facility_supply_c"], loop["approach_k"], loop["secondary_supply_c"]) == (45, 5, 50)
    assert loop["device_coolant_max_c"] == 45 and findings(w45, "coolant-too-warm") == ["floor:c0"]
    w40 = analyze(design([nvl("n1", 1000)], hall(water_class="W40"), cdus), catalog)
    assert w40["cooling"]["cdu_loops"][0]["secondary_supply_c"] == 45 and findings(w40, "coolant-too-warm") == []


def test_a_cdu_loop_losing_a_unit_and_its_fault_domain(catalog):
    # Twenty NVL72 at 132 kW x 0.85 to liquid = 2,244 kW on two 2 MW CDUs: carried, but not with one down.
    racks = [nvl(f"n{i}", 1000 + 600 * (i % 10), y=2000 + 3000 * (i // 10), row="AB"[i // 10]) for i in range(20)]
    cdus = [FloorDevice(f"c{i}", "cdu-inrow-2mw", "h", 8000 + 3000 * i, 8000) for i in range(2)]
    r = analyze(design(racks, replace(HALL, outline=((0, 0), (20000, 0), (20000, 12000), (0, 12000))), cdus), catalog)
    loop = r["cooling"]["cdu_loops"][0]
    assert loop["load_kw"] == pytest.approx(2244) and loop["capacity_n_minus_1_kw"] == 2000
    assert loop["redundancy"] == "N" and findings(r, "cdu-redundancy-lost") == ["floor:c0"]
    assert loop["unit_lost_short_kw"] == pytest.approx(244)  # 2,244 - 2,000 kW with one unit down
    assert loop["fault_domain"] == {"racks": 20, "gpus": 1440, "liquid_kw": pytest.approx(2244)}


# -- floor ----------------------------------------------------------------------------------------------

def test_casters_against_the_tiles_point_and_rolling_ratings(catalog):
    # An NVL72 of 1,360 kg stands on four casters of 340 kg each.
    point = analyze(design([nvl("n1", 1000)], hall(tile_point_kg=300)), catalog)
    assert point["floor"]["racks"][0]["caster_load_kg"] == 340 and findings(point, "tile-point-load") == ["rack:n1"]
    rolling = analyze(design([nvl("n1", 1000)], hall(tile_point_kg=1361, tile_rolling_kg=300)), catalog)
    assert findings(rolling, "tile-point-load") == [] and findings(rolling, "tile-rolling-load") == ["rack:n1"]
    ok = analyze(design([nvl("n1", 1000)], hall(tile_point_kg=1361, tile_rolling_kg=1134)), catalog)
    assert findings(ok, "tile-point-load") == findings(ok, "tile-rolling-load") == []


def test_a_row_spreads_its_weight_over_its_pitch(catalog):
    # Four NVL72 side by side: 5,440 kg over 2.4 m of row x (1.2 m deep + a 1.2 m aisle) = 944.4 kg/m².
    racks = [nvl(f"n{i}", 1000 + 600 * i) for i in range(4)]
    r = analyze(design(racks, replace(HALL, floor_rating_kg_m2=900)), catalog)
    row = r["floor"]["rows"][0]
    assert (row["weight_kg"], row["length_m"], row["area_m2"], row["rating_kg_m2"]) == (5440, 2.4, 5.76, 900)
    assert row["load_kg_m2"] == pytest.approx(5440 / 5.76, abs=0.1)
    # each rack on its own footprint (1,360 / 0.72 = 1,889 kg/m²) is what is held to the rating
    assert findings(r, "floor-over-rating") == ["rack:n0", "rack:n1", "rack:n2", "rack:n3"]
    wide = analyze(design(racks, replace(HALL, floor_rating_kg_m2=900, facility=Facility(aisle_mm=2400))), catalog)
    assert wide["floor"]["rows"][0]["load_kg_m2"] == pytest.approx(5440 / (2.4 * 3.6), abs=0.1)


# -- the loop's plumbing ----------------------------------------------------------------------------

def test_a_loop_counts_its_racks_hoses_and_the_trays_couplings(catalog):
    """The GB200 NVL72 sample: one loop of two in-row CDUs cools its 8 NVL72 racks: a manifold pair each, hosed
    to the loop by its inlet and outlet (16 hoses), and 18 compute + 9 NVLink-switch trays per rack, each with a
    supply and a return coupling (8 x 27 x 2 = 432). An air-cooled rack in a loop adds nothing."""
    from designer.fileformat import load
    from designer.samples import GB200_NVL72_SU

    r = analyze(load(GB200_NVL72_SU, catalog), catalog)
    (loop,) = r["cooling"]["cdu_loops"]
    assert len(loop["racks"]) == 8
    assert loop["plumbing"] == {"racks": 8, "rack_hoses": 16, "tray_couplings": 432}
    assert r.cooling.cdu_loops[0].plumbing.tray_couplings == 432
    racks = [nvl("n", 1000), dgx_rack("d", 2, x=2000)]
    cdus = [FloorDevice("c", "cdu-inrow-2mw", "h", 6000, 2000)]
    (loop,) = analyze(design(racks, hall(containment="hot"), cdus), catalog)["cooling"]["cdu_loops"]
    assert loop["racks"] == ["n", "d"] and loop["plumbing"] == {"racks": 1, "rack_hoses": 2, "tray_couplings": 54}


def test_a_row_inlet_warms_only_where_the_row_is_short_of_air():
    import warnings

    import numpy as np

    from designer.cooling.rows import inlet_c

    demand = np.array([1000.0, 1000.0, 0.0, 500.0])
    delivered = np.array([500.0, 1000.0, 0.0, 0.0])
    rise = np.array([10.0, 10.0, 0.0, 12.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a row with no air and no heat is no NaN in passing
        out = inlet_c(24.0, demand, delivered, rise)
    # half the air: half the exhaust comes back, 10 K warmer; enough air or no draw: the supply; no air at all: no limit
    assert out[0] == 34.0 and out[1] == 24.0 and out[2] == 24.0 and np.isinf(out[3])
