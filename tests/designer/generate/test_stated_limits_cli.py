"""``new superpod --floor-kg-m2 --facility-water --hall-mw``: the hall's limits as the user states them."""
from __future__ import annotations

import pytest

from designer.analysis import analyze
from designer.fileformat import load

from ._support import run


@pytest.mark.parametrize(("flags", "named"), [
    (["--facility-water", "W50"], "--facility-water: one of none, W32, W40, W45"),
    (["--floor-kg-m2", "-5"], "--floor-kg-m2: must be above 0"),
    (["--floor-kg-m2", "heavy"], "--floor-kg-m2: a number, got 'heavy'"),
    (["--floor-kg-m2", "nan"], "--floor-kg-m2: must be above 0"),
    (["--hall-mw", "0"], "--hall-mw: must be above 0"),
    (["--hall-mw", "-3"], "--hall-mw: must be above 0"),
    (["--hall-mw", "2", "--hall-power-kw", "2000"], "not allowed with argument"),
])
def test_bad_limits_exit_2_naming_the_flag(capsys, tmp_path, flags, named):
    out_file = tmp_path / "x.podplan.json"
    code, _, err = run(capsys, "new", "superpod", "--system", "gb200-nvl72", "--sus", "1", *flags,
                       "-o", str(out_file))
    assert code == 2 and named in err, err
    assert "Traceback" not in err and not out_file.exists()


def test_stated_limits_are_stored_on_the_hall(capsys, tmp_path, catalog):
    out_file = tmp_path / "g.podplan.json"
    code, out, err = run(capsys, "new", "superpod", "--system", "gb200-nvl72", "--sus", "1", "--floor-kg-m2", "3000",
                         "--facility-water", "W40", "--hall-mw", "2.5", "-o", str(out_file))
    assert code == 0, err + out
    hall = load(out_file, catalog).halls[0]
    assert (hall.floor_rating_kg_m2, hall.facility.water_class, hall.power_capacity_kw) == (3000.0, "W40", 2500.0)


def test_a_design_over_hall_mw_is_a_site_of_halls_within_it(capsys, tmp_path, catalog):
    out = tmp_path / "x.json"
    code, stdout, err = run(capsys, "new", "superpod", "--system", "gb200-nvl72", "--sus", "4", "--hall-mw", "3",
                            "-o", str(out))
    assert code == 0, err
    project = load(out, catalog)
    data = [h for h in project.halls if h.kind == "data"]
    # an SU of 8 GB200 NVL72 racks with its network racks and CDUs draws about 1.2 MW, and a leaf block of 32
    # trays spans two SUs of 144: two SUs to a 3 MW hall
    assert len(data) == 2 and all(h.power_capacity_kw == 3000 for h in data)
    power = analyze(project, catalog)["power"]["halls"]
    assert all(p["it_max_kw"] <= 3000 for p in power if p["id"].startswith("hall-"))
    assert "2 data halls of at most 2 scalable units in 1 building" in stdout
    # a 2 MW hall holds one SU, half a leaf block: refused, as its nodes would be cabled to another hall
    code, _, err = run(capsys, "new", "superpod", "--system", "gb200-nvl72", "--sus", "4", "--hall-mw", "2",
                       "-o", str(out))
    assert code == 2 and "fewer than one leaf block of the compute fabric spans" in err


def test_no_facility_water_with_an_nvl72_is_an_error(capsys, tmp_path, catalog):
    out_file = tmp_path / "dry.podplan.json"
    code, out, err = run(capsys, "new", "superpod", "--system", "gb200-nvl72", "--sus", "1", "--facility-water",
                         "none", "-o", str(out_file))
    assert code == 1  # written, but it fails its own checks
    assert "which has no facility water" in out + err
    project = load(out_file, catalog)
    assert project.halls[0].facility.water_class == "none"
    codes = [(f.severity, f.code) for f in analyze(project, catalog).findings if f.severity == "error"]
    assert codes == [("error", "no-facility-water")]


def test_an_air_cooled_hall_may_have_no_facility_water(capsys, tmp_path, catalog):
    out_file = tmp_path / "air.podplan.json"
    code, out, err = run(capsys, "new", "superpod", "--system", "dgx-b200", "--sus", "1", "--facility-water", "none",
                         "-o", str(out_file))
    assert code == 0, err + out
    assert load(out_file, catalog).halls[0].facility.water_class == "none"
