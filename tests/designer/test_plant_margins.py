"""Design margins per level, site derating for altitude and ambient, and generators in blocks with a spare each."""
from __future__ import annotations

import dataclasses
import json

import pytest

from designer.analysis import analyze
from designer.cli import main
from designer.facility import FacilityError
from designer.fileformat import load
from designer.generate.build import generate
from designer.generate.spec import SuperpodSpec
from designer.power.derating import generator_factor, ups_factor
from designer.samples import DGX_B200_SU


def test_derating_curves():
    # Cummins: full output to 1,525 m and 40 °C, then 4 % per 300 m and 2 % per 11 °C
    assert generator_factor(0, None) == generator_factor(1525, 40) == 1.0
    assert generator_factor(2125, None) == pytest.approx(0.92)
    assert generator_factor(0, 51) == pytest.approx(0.98)
    assert generator_factor(2125, 51) == pytest.approx(0.92 * 0.98)
    # a UPS from 1,000 m, 1 % per 100 m
    assert ups_factor(1000) == 1.0 and ups_factor(2000) == pytest.approx(0.90)
    assert generator_factor(20000, 60) == 0.5  # no curve below half


def _with_facility(project, **changes):
    hall = project.halls[0]
    return project.with_hall(dataclasses.replace(hall, facility=hall.facility.updated(**changes)))


def _codes(analysis) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in analysis.findings:
        out.setdefault(f.code, []).append(f.message)
    return out


@pytest.fixture(scope="module")
def b200(catalog):
    return load(DGX_B200_SU, catalog)


def test_the_generated_sample_meets_every_margin(catalog, b200):
    codes = _codes(analyze(b200, catalog))
    assert not {c for c in codes if c.endswith("over-margin")}
    gen = analyze(b200, catalog).power.generators[0]
    assert gen.load_kw <= gen.margin_kw and gen.margin == 0.9


def test_a_level_over_its_margin_is_a_warning_and_over_its_rating_still_an_error(catalog, b200):
    a = analyze(b200, catalog)
    gen = a.power.generators[0]
    load = gen.load_kw
    # generators sized so the load sits between 90 % and 100 % of what is left with the spare out
    unit = load / 0.95 / (gen.units - gen.redundant)
    codes = _codes(analyze(_with_facility(b200, generator_kw=unit), catalog))
    assert "generator-over-margin" in codes and "generator-redundancy-lost" not in codes
    assert "over the 90% design margin" in codes["generator-over-margin"][0]
    # a looser margin the user states takes it back
    assert "generator-over-margin" not in _codes(analyze(_with_facility(b200, generator_kw=unit,
                                                                        generator_margin=0.98), catalog))
    # the busway with a feed lost: the 250 A the sample once had carries 98 % of its rating
    codes = _codes(analyze(_with_facility(b200, distribution_amps=250.0), catalog))
    assert len(codes["distribution-over-margin"]) == 4  # two rows, each side
    assert "98.1% of its 170.7 kW rating: over the 80% design margin" in codes["distribution-over-margin"][0]


def test_altitude_derates_the_ups_and_the_generators(catalog, b200):
    sea = analyze(b200, catalog).power
    high = analyze(_with_facility(b200, altitude_m=2125.0, ambient_c=51.0), catalog).power
    assert high.generators[0].derating == pytest.approx(0.92 * 0.98, abs=1e-4)
    assert high.generators[0].capacity_kw == pytest.approx(sea.generators[0].capacity_kw * 0.92 * 0.98, rel=1e-4)
    assert high.ups[0].derating == pytest.approx(0.8875)
    assert high.ups[0].systems[0].capacity_kw == pytest.approx(sea.ups[0].systems[0].capacity_kw * 0.8875, rel=1e-4)


def test_generators_in_blocks_keep_a_spare_per_block(catalog, b200):
    a = analyze(_with_facility(b200, generators=9, generator_kw=400.0, generator_blocks=3), catalog)
    gen = a.power.generators[0]
    assert (gen.units, gen.blocks, gen.redundant) == (9, 3, 1)
    assert gen.capacity_kw == pytest.approx(6 * 400.0)  # three spares out
    with pytest.raises(FacilityError, match="3 generators cannot make 3 blocks"):
        b200.halls[0].facility.updated(generators=3, generator_blocks=3)


def test_a_32_su_b200_hall_high_and_hot_gets_generators_that_meet_the_margin(catalog):
    spec = SuperpodSpec(system="dgx-b200", sus=32, networks=("compute",), altitude_m=2000.0, ambient_c=45.0)
    project = generate(spec, catalog).project
    f = project.halls[0].facility
    assert (f.altitude_m, f.ambient_c) == (2000.0, 45.0)
    gen = analyze(project, catalog).power.generators[0]
    factor = generator_factor(2000.0, 45.0)
    assert gen.derating == pytest.approx(factor, abs=1e-4)
    assert gen.load_kw <= gen.margin_kw
    # N+1 per block of at most eight running units
    assert gen.blocks == -(-(gen.units - gen.blocks) // 8) and gen.units - gen.blocks >= 8
    sea = generate(dataclasses.replace(spec, altitude_m=0.0, ambient_c=None), catalog).project
    assert sea.halls[0].facility.generators < f.generators  # the thinner, hotter air asks for more units
    codes = _codes(analyze(project, catalog))
    assert not {c for c in codes if c.endswith("over-margin") or "redundancy-lost" in c or "over-capacity" in c}


def test_new_superpod_takes_the_site_and_refuses_an_impossible_one(tmp_path, capsys):
    out = tmp_path / "d.podplan.json"
    assert main(["new", "superpod", "--system", "dgx-b200", "--sus", "1", "--altitude-m", "1800", "--ambient-c",
                 "46", "-o", str(out)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["halls"][0]["facility"]["altitude_m"] == 1800.0 and doc["halls"][0]["facility"]["ambient_c"] == 46.0
    capsys.readouterr()
    assert main(["new", "superpod", "--system", "dgx-b200", "--sus", "1", "--altitude-m", "9000",
                 "-o", str(tmp_path / "x.podplan.json")]) == 2
    err = capsys.readouterr().err
    assert "--altitude-m (m above sea level) must be at least -500 and at most 5000, got 9000.0" in err


def test_blocks_each_need_a_running_unit_and_their_spares(b200):
    with pytest.raises(FacilityError, match="5 generators cannot make 3 blocks of at least one running unit and 1 "
                                            "spare each"):
        b200.halls[0].facility.updated(generators=5, generator_kw=1000.0, generator_blocks=3)
    assert b200.halls[0].facility.updated(generators=6, generator_kw=1000.0, generator_blocks=3).generators == 6
