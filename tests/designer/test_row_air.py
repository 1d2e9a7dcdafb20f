"""Air per row: the air handlers' airflow that reaches each row and the inlet air it makes, worked out by hand."""
from __future__ import annotations

import json

import numpy as np
import pytest

from designer.analysis import analyze
from designer.cli.main import main
from designer.cooling.rows import air_rise_k, delivered_cfm, inlet_c
from designer.facility import RowFacility
from designer.fileformat import save
from designer.model import FloorDevice
from designer.settings import Settings, SettingsError
from tests.designer.test_air_liquid_floor import catalog, design, dgx_rack, hall  # noqa: F401 (fixture)
from tests.designer.test_power_cooling import findings

OPEN = RowFacility(containment="none")


def two_rows(**facility):
    """Row A: two 4-DGX racks (114.4 kW of air, 2 x 8,580 = 17,160 CFM); row B: six 1-DGX racks (85.8 kW,
    6 x 2,145 = 12,870 CFM); one 200 kW air handler moving 31,700 CFM, more than the 30,030 the hall draws."""
    racks = [dgx_rack(f"a{i}", 4, x=1000 + 600 * i, y=2000, row="A") for i in range(2)]
    racks += [dgx_rack(f"b{i}", 1, x=1000 + 600 * i, y=5000, row="B") for i in range(6)]
    return racks, [FloorDevice("c0", "crah-cw-200kw", "h", 12000, 8000)]


def test_the_rise_of_air_through_a_rack():
    # 10 kW through 1,000 CFM (0.471943 m³/s): 10,000 / (1.2 x 1,005 x 0.471943) = 17.569 K; no air, no rise
    assert air_rise_k(10.0, 1000.0) == pytest.approx(17.569, abs=1e-3)
    assert air_rise_k(np.array([5.0]), np.array([0.0])).tolist() == [0.0]


def test_open_rows_share_by_racks_contained_rows_by_what_they_draw():
    demand, racks = np.array([17160.0, 12870.0]), np.array([2.0, 6.0])
    assert delivered_cfm(31700, demand, racks, np.array([True, True])).tolist() == [7925.0, 23775.0]
    contained = delivered_cfm(31700, demand, racks, np.array([False, False]))
    assert contained.tolist() == pytest.approx([31700 * 17160 / 30030, 31700 * 12870 / 30030])
    # an open row takes its tiles' share first; the contained row gets what is left
    assert delivered_cfm(31700, demand, racks, np.array([False, True])).tolist() == [7925.0, 23775.0]
    # the inlet of a row short of air: supply + (draw / delivered - 1) x rise; a row with enough: the supply
    assert inlet_c(24.0, demand, np.array([7925.0, 23775.0]), np.array([11.7131, 11.7131])).tolist() == \
        pytest.approx([24 + (17160 / 7925 - 1) * 11.7131, 24.0], abs=1e-4)


def test_a_dense_open_row_takes_back_its_exhaust_over_the_class(catalog):  # noqa: F811
    racks, crah = two_rows()
    r = analyze(design(racks, hall(containment="hot", rows=(("A", OPEN), ("B", OPEN))), crah), catalog)
    rows = {row["row"]: row for row in r["cooling"]["rows"]}
    a, b = rows["A"], rows["B"]
    assert (a["racks"], a["containment"], a["air_kw"], a["demand_cfm"], a["delivered_cfm"]) == (
        2, "none", 114.4, 17160, 7925)
    # 114.4 kW through 17,160 CFM rises 11.713 K; 17,160 / 7,925 = 2.1653: 24 + 1.1653 x 11.713 = 37.65 °C
    assert a["inlet_c"] == pytest.approx(37.65, abs=0.01) and a["exhaust_c"] == pytest.approx(49.36, abs=0.01)
    assert (b["delivered_cfm"], b["inlet_c"], b["exhaust_c"]) == (23775, 24.0, pytest.approx(35.71, abs=0.01))
    # the hall: 200.2 kW through the 31,700 CFM the unit moves (more than the racks draw): return 35.10 °C
    h = r["cooling"]["halls"][0]
    assert (h["supply_c"], h["return_c"]) == (24.0, pytest.approx(35.10, abs=0.01))
    assert findings(r, "row-inlet-over-class") == ["hall:h"] and findings(r, "row-air-short") == []
    f = next(f for f in r.findings if f.code == "row-inlet-over-class")
    assert "7,925 CFM for 17,160 CFM" in f.message and "37.7 °C" in f.message and "class A1" in f.message
    assert f.places == ("hall:h", "rack:a0")
    # the typed view reads the same rows
    assert r.cooling.rows[0].row == "A" and r.cooling.rows[0].inlet_c == a["inlet_c"]
    # the hall as a whole moves enough air: no hall-level airflow finding hides the row's
    assert findings(r, "crah-airflow") == []


def test_the_same_rows_contained_get_what_they_draw(catalog):  # noqa: F811
    racks, crah = two_rows()
    r = analyze(design(racks, hall(containment="hot"), crah), catalog)
    assert [row["inlet_c"] for row in r["cooling"]["rows"]] == [24.0, 24.0]
    assert findings(r, "row-inlet-over-class") == findings(r, "row-air-short") == []


def test_a_cooler_supply_keeps_the_short_row_within_the_class(catalog):  # noqa: F811
    racks, crah = two_rows()
    r = analyze(design(racks, hall(containment="hot", rows=(("A", OPEN), ("B", OPEN))), crah, air_supply_c=18.0),
                catalog)
    assert r["cooling"]["rows"][0]["inlet_c"] == pytest.approx(31.65, abs=0.01)
    assert findings(r, "row-air-short") == ["hall:h"] and findings(r, "row-inlet-over-class") == []
    assert "within class A1's 32.0 °C" in next(f.message for f in r.findings if f.code == "row-air-short")


def test_without_air_handlers_a_row_has_its_draw_and_its_inlet_is_the_supply(catalog):  # noqa: F811
    racks, _ = two_rows()
    r = analyze(design(racks, hall(containment="hot")), catalog)
    assert [(row["delivered_cfm"], row["inlet_c"]) for row in r["cooling"]["rows"]] == [(None, 24.0), (None, 24.0)]
    # return: 200.2 kW through the 30,030 CFM the racks draw
    assert r["cooling"]["halls"][0]["return_c"] == pytest.approx(24 + 200.2 / (1.2 * 1.005 * 30030 / 2118.88), abs=0.01)


def test_the_supply_setting_is_bounded_saved_only_when_set_and_a_what_if_flag(catalog, tmp_path, capsys):  # noqa: F811
    with pytest.raises(SettingsError, match="air_supply_c"):
        Settings(air_supply_c=5.0)
    assert "air_supply_c" not in Settings().to_json() and Settings(air_supply_c=20.0).to_json()["air_supply_c"] == 20
    racks, crah = two_rows()
    path = tmp_path / "d.json"
    save(design(racks, hall(containment="hot", rows=(("A", OPEN), ("B", OPEN))), crah), path)
    assert main(["analyze", str(path), "--json", "--air-supply", "18"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cooling"]["settings"]["air_supply_c"] == 18 and doc["cooling"]["rows"][0]["inlet_c"] == 31.65
    assert main(["analyze", str(path), "--air-supply", "60"]) == 2
    assert "--air-supply" in capsys.readouterr().err


def unit_off_rows():
    """Row A: four 4-DGX racks (228.8 kW, 34,320 CFM); row B: six 1-DGX racks (12,870 CFM); two 31,700 CFM units."""
    racks = [dgx_rack(f"a{i}", 4, x=1000 + 600 * i, y=2000, row="A") for i in range(4)]
    racks += [dgx_rack(f"b{i}", 1, x=1000 + 600 * i, y=5000, row="B") for i in range(6)]
    return racks, [FloorDevice(f"c{i}", "crah-cw-200kw", "h", 12000, 6000 + 3000 * i) for i in range(2)]


def test_a_row_over_its_class_with_the_largest_air_handler_off(catalog):  # noqa: F811
    racks, crahs = unit_off_rows()  # open rows
    r = analyze(design(racks, hall(containment="hot", rows=(("A", OPEN), ("B", OPEN))), crahs), catalog)
    assert r["cooling"]["halls"][0]["air_handlers"]["airflow_n_minus_1_cfm"] == 31700
    a, b = r["cooling"]["rows"]
    # both running, A's tiles pass 4/10 of 63,400 = 25,360 CFM: 24 + (34,320 / 25,360 - 1) x 11.713 = 28.14 °C;
    # one off, 4/10 of 31,700 = 12,680: 24 + (34,320 / 12,680 - 1) x 11.713 = 43.99 °C, over A1's 32 °C
    assert (a["delivered_cfm"], a["inlet_c"]) == (25360, pytest.approx(28.14, abs=0.01))
    assert (a["delivered_n_minus_1_cfm"], a["inlet_n_minus_1_c"]) == (12680, pytest.approx(43.99, abs=0.01))
    # B gets 19,020 of 12,870 with one off: its inlet is still the supply
    assert (b["delivered_n_minus_1_cfm"], b["inlet_n_minus_1_c"]) == (19020, 24.0)
    assert findings(r, "row-air-short") == ["hall:h"] and findings(r, "row-air-unit-off") == ["hall:h"]
    f = next(f for f in r.findings if f.code == "row-air-unit-off")
    assert f.severity == "warning" and f.places == ("hall:h", "rack:a0")
    assert ("largest of its 2 air handlers off, row (A) gets less air than it draws (row A: 12,680 CFM for "
            "34,320 CFM) and the inlet air warms to 44.0 °C, over the 32.0 °C class A1 allows") in f.message
    assert r.cooling.rows[0].inlet_n_minus_1_c == a["inlet_n_minus_1_c"]
    # contained, the plenum shares 31,700 by draw: A gets 23,054 for 34,320, 29.72 °C, within the class
    r = analyze(design(racks, hall(containment="hot"), crahs), catalog)
    assert r["cooling"]["rows"][0]["inlet_n_minus_1_c"] == pytest.approx(29.72, abs=0.01)
    assert findings(r, "row-air-unit-off") == []


def test_a_hall_of_one_air_handler_has_no_unit_off_case(catalog):  # noqa: F811
    racks, crah = two_rows()
    r = analyze(design(racks, hall(containment="hot"), crah), catalog)
    assert [(row["delivered_n_minus_1_cfm"], row["inlet_n_minus_1_c"]) for row in r["cooling"]["rows"]] == \
        [(None, None), (None, None)]
    assert r["cooling"]["halls"][0]["air_handlers"]["airflow_n_minus_1_cfm"] == 0
