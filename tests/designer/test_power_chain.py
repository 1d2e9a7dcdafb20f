"""The power chain, level by level, against figures worked out by hand.

Figures used throughout (catalog): a DGX B200 draws 14.3 kW at most on six 3.3 kW supplies, 5+1; the
32 A rack PDU is 400 V three-phase with 12 C19 and 30 C13 outlets; the 60 A PDU is 415 V with 18 C19
and 6 C13; power factor 0.95, continuous limit 80 %. So one 32 A PDU carries 400 x 32 x sqrt 3 x 0.95 =
21.062 kW at its rating and 16.849 kW continuously.
"""
from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest

from catalog import Catalog, default_catalog
from designer import samples
from designer.analysis import analyze
from designer.commands import CommandError, UpdateHallCommand
from designer.facility import Facility, FacilityError, RowFacility, facility_from_json
from designer.fileformat import FORMAT_VERSION, ProjectFileError, dumps, from_dict, load, loads, to_dict
from designer.model import FloorDevice, MountedDevice, Project, Rack
from designer.settings import Settings
from tests.designer.test_power_cooling import HALL, dgx, findings

SQ3 = math.sqrt(3)
PDU32_FULL = 400 * 32 * SQ3 * 0.95 / 1000  # 21.062 kW
PDU32_CONT = PDU32_FULL * 0.8  # 16.849 kW


@pytest.fixture(scope="module")
def catalog():
    return default_catalog()


def hall(**facility):
    return replace(HALL, facility=Facility(**facility))


def row_of_racks(n, per_rack=2, row="A", x0=1000.0, y=2000.0, pdus=2):
    return [Rack(f"{row.lower()}{i}", f"{row}{i:02d}", "h", "rack-48u-600x1200", x0 + 600 * i, y, 0.0, row,
                 tuple(dgx(f"{row.lower()}{i}", per_rack, pdus=pdus))) for i in range(n)]


def power_problems(analysis) -> list[str]:
    return [f.code for f in analysis.result("power").findings if f.severity != "info"]


def design(racks, h=None, **settings):
    return Project(name="t", halls=(h or HALL,), racks=tuple(racks), settings=Settings(**settings))


# -- rack inlets ---------------------------------------------------------------------------------------

def test_dgx_rack_on_two_32a_pdus_is_nvidias_guidance_and_throttles_on_one_feed(catalog):
    r = analyze(design(row_of_racks(1)), catalog)
    feeds = r["power"]["racks"][0]["feeds"]
    a = feeds["A"]
    assert (a["pdus"], a["rating_kw"], a["capacity_kw"]) == (1, pytest.approx(PDU32_FULL, abs=1e-3),
                                                             pytest.approx(PDU32_CONT, abs=1e-3))
    assert a["normal_kw"] == 14.3  # six supplies per DGX, three on each feed
    assert a["failover_kw"] == 19.8  # 2 x 3 live supplies x 3.3 kW: each DGX throttles from 14.3 to 9.9 kW
    assert feeds["throttled_kw"] == pytest.approx(2 * (14.3 - 9.9))
    assert a["phases_kw"] == [pytest.approx(14.3 / 3, abs=1e-3)] * 3 and a["imbalance"] == 0
    assert (a["c19_needed"], a["c19_outlets"], a["c13_needed"], a["c13_outlets"]) == (6, 12, 0, 30)
    assert power_problems(r) == []


def test_one_heavy_phase_is_found_before_the_circuit_is_full(catalog):
    # Two DGX B200 and a QM9700 per feed: 6 x 2.383 kW + 1 x 0.86 kW = 15.16 kW, inside 16.85 kW. Spread heaviest
    # first the phases carry 5.627, 4.767 and 4.767 kW, and one phase may carry 16.849 / 3 = 5.616 kW.
    devs = dgx("r", 2, pdus=2) + [MountedDevice("sw", "qm9700", 30)]
    r = analyze(design([Rack("r", "R", "h", "rack-48u-600x1200", 1000, 2000, 0, "A", tuple(devs))]), catalog)
    a = r["power"]["racks"][0]["feeds"]["A"]
    assert sorted(a["phases_kw"]) == [pytest.approx(4.767, abs=1e-3)] * 2 + [pytest.approx(5.627, abs=1e-3)]
    assert a["imbalance"] == pytest.approx((5.627 - 15.16 / 3) / (15.16 / 3), abs=1e-3)
    assert findings(r, "phase-over-cap") == ["rack:r", "rack:r"] and findings(r, "circuit-over-cap") == []


def test_supplies_beyond_the_outlets_are_a_shortfall(catalog):
    # Five DGX B200 put 15 C20 supplies on each feed; a 32 A PDU has 12 C19 outlets.
    devs = [MountedDevice(f"n{i}", "dgx-b200", 1 + 10 * i) for i in range(5)] + \
        [MountedDevice(f"p{i}", "pdu-415v-32a-3ph", None, "rear") for i in range(2)]
    r = analyze(design([Rack("r", "R", "h", "rack-52u-600x1200", 1000, 2000, 0, "A", tuple(devs))]), catalog)
    assert (r["power"]["racks"][0]["feeds"]["A"]["c19_needed"], r["power"]["racks"][0]["feeds"]["A"]["c19_outlets"]) \
        == (15, 12)
    assert findings(r, "outlet-shortfall") == ["rack:r", "rack:r"]


def test_nvl72_rack_is_fed_by_its_shelves_and_one_shelf_lost_spreads_over_seven(catalog):
    nvl = Rack("r", "NVL72-01", "h", "rack-48u-600x1200", 1000, 2000, 0, "A", (MountedDevice("s", "gb200-nvl72", 1),))
    r = analyze(design([nvl]), catalog)
    row = r["power"]["racks"][0]
    a = row["feeds"]["A"]
    shelf_full = 400 * 64 * SQ3 * 0.95 / 1000  # two 32 A whips per shelf (ORv3 HPR), 42.124 kW
    assert row["inlet"] == "power_shelf" and (a["pdus"], row["feeds"]["B"]["pdus"]) == (4, 4)
    assert a["rating_kw"] == pytest.approx(4 * shelf_full, abs=1e-3)
    assert a["normal_kw"] == 66.0 and a["failover_kw"] == 132.0  # N+N: 24 of 48 supplies carry 132 kW
    assert row["feeds"]["inlet_lost_kw"] == pytest.approx(132 / 7, abs=1e-3)  # one shelf lost: seven share it
    assert row["peak_kw"] == pytest.approx(120 * 1.4)  # typical x the 1.4 transient factor
    # the feeds are there and carry it; only its 168 kW peak on one feed's 132 kW of supplies is a warning
    assert power_problems(r) == ["peak-over-one-feed"]
    # the old report: 132 kW on feed A against 0 kW of capacity, and no finding
    assert a["capacity_kw"] > 0 and findings(r, "no-pdu") == []


def test_a_rack_without_pdus_or_shelves_is_found(catalog):
    r = analyze(design([Rack("r", "R", "h", "rack-48u-600x1200", 1000, 2000, 0, "A", tuple(dgx("r", 1, pdus=0)))]),
                catalog)
    assert findings(r, "no-pdu") == ["rack:r"]


# -- rows -----------------------------------------------------------------------------------------

def test_busway_at_95_percent_passes_normally_and_loses_redundancy_on_failover(catalog):
    # Four 2-DGX racks: 57.2 kW per feed, 79.2 kW with the other feed lost. A busway sized so that 57.2 kW is
    # 95 % of its continuous limit is rated 57.2 / 0.95 / 0.8 = 75.26 kW: too small for 79.2 kW.
    amps = 57.2 / (0.95 * 0.8 * SQ3 * 415 * 0.95 / 1000)
    r = analyze(design(row_of_racks(4), hall(distribution_amps=amps)), catalog)
    row = r["power"]["rows"][0]
    assert row["feeds"]["A"]["normal_kw"] == pytest.approx(57.2) and row["feeds"]["A"]["failover_kw"] == 79.2
    assert row["feeds"]["A"]["utilisation"] == pytest.approx(0.95, abs=1e-4)
    assert row["feeds"]["A"]["failover_utilisation"] == pytest.approx(79.2 / (57.2 / 0.95 / 0.8), abs=1e-4)
    assert findings(r, "distribution-over-cap") == []
    assert findings(r, "distribution-redundancy-lost") == ["hall:h", "hall:h"]
    # two runs a side halve the load on each
    r2 = analyze(design(row_of_racks(4), hall(distribution_amps=amps, distribution_runs=2)), catalog)
    assert r2["power"]["rows"][0]["feeds"]["A"]["utilisation"] == pytest.approx(0.475, abs=1e-4)
    assert findings(r2, "distribution-redundancy-lost") == []


def test_busway_phases_rotate_rack_by_rack(catalog):
    # One QM9700 per rack puts its single A supply on the PDU's L1; tap-offs rotating L1-L2-L3 along the row
    # spread three such racks over the busway's three phases.
    racks = [Rack(f"s{i}", f"S{i}", "h", "rack-48u-600x1200", 1000 + 600 * i, 2000, 0, "N",
                  (MountedDevice("sw", "qm9700", 20), MountedDevice("p1", "pdu-415v-32a-3ph", None, "rear"),
                   MountedDevice("p2", "pdu-415v-32a-3ph", None, "rear"))) for i in range(3)]
    r = analyze(design(racks, hall(distribution_amps=100)), catalog)
    assert r["power"]["racks"][0]["feeds"]["A"]["phases_kw"] == [0.86, 0.0, 0.0]
    assert r["power"]["rows"][0]["feeds"]["A"]["phases_kw"] == [0.86, 0.86, 0.86]


# -- UPS and generators ---------------------------------------------------------------------------------

def test_2n_ups_losing_one_side(catalog):
    # Four 2-DGX racks: UPS A carries 57.2 kW, and 79.2 kW when UPS B is lost.
    r = analyze(design(row_of_racks(4), hall(ups_scheme="2N", ups_module_kw=75)), catalog)
    ups = r["power"]["ups"][0]
    assert [s["name"] for s in ups["systems"]] == ["UPS A", "UPS B"]
    a = ups["systems"][0]
    assert (a["capacity_kw"], a["normal_kw"], a["failover_kw"]) == (75.0, pytest.approx(57.2), 79.2)
    assert a["failover_utilisation"] == pytest.approx(79.2 / 75, abs=1e-4)
    assert findings(r, "ups-redundancy-lost") == ["hall:h", "hall:h"] and findings(r, "ups-over-capacity") == []
    ok = analyze(design(row_of_racks(4), hall(ups_scheme="2N", ups_module_kw=40, ups_modules=2)), catalog)
    assert ok["power"]["ups"][0]["systems"][0]["capacity_kw"] == 80 and findings(ok, "ups-redundancy-lost") == []
    # N+1 inside one system: 3 modules of 40 kW carry the 114.4 kW both feeds draw, but not with the spare out
    n1 = analyze(design(row_of_racks(4), hall(ups_scheme="N+1", ups_module_kw=40, ups_modules=3)), catalog)
    system = n1["power"]["ups"][0]["systems"][0]
    assert (system["normal_kw"], system["capacity_kw"], system["installed_kw"]) == (pytest.approx(114.4), 80, 120)
    assert findings(n1, "ups-redundancy-lost") == ["hall:h"] and findings(n1, "ups-over-capacity") == []
    two = analyze(design(row_of_racks(4), hall(ups_scheme="N+1", ups_module_kw=40, ups_modules=2)), catalog)
    assert findings(two, "ups-over-capacity") == ["hall:h"]  # 114.4 kW over the 80 kW installed
    assert findings(two, "transient-over-rating") == []  # no peak above the load: nothing transient to add


def test_distributed_redundant_block_takes_its_partners_failover(catalog):
    # Three rows of two 2-DGX racks (28.6 kW a feed each row, 39.6 kW on failover). Row i: A on block i,
    # B on block i+1: each block carries 57.2 kW; when one fails its two partners each take 39.6 - 28.6 more.
    racks = row_of_racks(2, row="A") + row_of_racks(2, row="B", y=5000) + row_of_racks(2, row="C", y=8000)
    r = analyze(design(racks, hall(ups_scheme="DR", ups_module_kw=65, ups_blocks=3)), catalog)
    systems = r["power"]["ups"][0]["systems"]
    assert [s["name"] for s in systems] == ["UPS block 1", "UPS block 2", "UPS block 3"]
    assert all(s["normal_kw"] == pytest.approx(57.2) and s["failover_kw"] == pytest.approx(68.2) for s in systems)
    assert findings(r, "ups-redundancy-lost") == ["hall:h"] * 3
    bigger_modules = analyze(design(racks, hall(ups_scheme="DR", ups_module_kw=70)), catalog)
    assert findings(bigger_modules, "ups-redundancy-lost") == []


def test_transient_peaks_of_an_nvl72_against_the_ups(catalog):
    nvl = Rack("r", "NVL72-01", "h", "rack-48u-600x1200", 1000, 2000, 0, "A", (MountedDevice("s", "gb200-nvl72", 1),))
    r = analyze(design([nvl], hall(ups_scheme="2N", ups_module_kw=80)), catalog)
    a = r["power"]["ups"][0]["systems"][0]
    assert (a["normal_kw"], a["failover_kw"], a["peak_kw"]) == (66.0, 132.0, 84.0)  # peak: 168 kW over two feeds
    assert findings(r, "transient-over-rating") == ["hall:h", "hall:h"]
    assert findings(analyze(design([nvl], hall(ups_scheme="2N", ups_module_kw=140)), catalog),
                    "transient-over-rating") == []


def test_generators_n_plus_1_on_the_facility_load(catalog):
    # 114.4 kW of IT at PUE 1.3 = 148.72 kW; two 100 kW units, one spare, leave 100 kW.
    r = analyze(design(row_of_racks(4), hall(generators=2, generator_kw=100)), catalog)
    g = r["power"]["generators"][0]
    assert (g["load_kw"], g["capacity_kw"], g["installed_kw"]) == (pytest.approx(148.72), 100.0, 200.0)
    assert findings(r, "generator-redundancy-lost") == ["hall:h"] and findings(r, "generator-over-capacity") == []
    r2 = analyze(design(row_of_racks(4), hall(generators=2, generator_kw=70, generator_redundant=0)), catalog)
    assert findings(r2, "generator-over-capacity") == ["hall:h"]


def test_a_hall_without_a_chain_says_what_is_not_checked(catalog):
    r = analyze(design(row_of_racks(1)), catalog)
    assert findings(r, "power-chain-unchecked") == ["hall:h"]
    assert findings(analyze(design(row_of_racks(1), hall(distribution_amps=250)), catalog),
                    "power-chain-unchecked") == []


# -- the samples ------------------------------------------------------------------------------------------

def test_dgx_sample_has_nvidias_two_pdus_per_rack_and_the_gb200_sample_its_feeds(catalog):
    dgx_sample = load(samples.DGX_B200_SU, catalog)
    for r in dgx_sample.racks:
        kinds = [catalog.get(d.type) for d in r.devices]
        if sum(k.id == "dgx-b200" for k in kinds) == 2:  # NVIDIA: 2 x 380-415 V 3-phase 32 A per 2-DGX rack
            assert [k.id for k in kinds if k.kind == "pdu"] == ["pdu-415v-32a-3ph"] * 2, r.name
    a = analyze(load(samples.GB200_NVL72_SU, catalog), catalog)
    nvl = [row for row in a["power"]["racks"] if row["inlet"] == "power_shelf"]
    assert len(nvl) == 8 and all(row["feeds"]["A"]["capacity_kw"] > 132 and row["feeds"]["failover_kw"] == 132
                                 for row in nvl)
    assert a["power"]["ups"][0]["scheme"] == "2N" and a["power"]["generators"][0]["units"] >= 2
    assert [f.code for f in a.findings if f.severity != "info"] == ["peak-over-one-feed"]


# -- the facility as data ---------------------------------------------------------------------------------

def test_facility_round_trips_through_the_file_and_bad_values_name_their_key(catalog):
    f = Facility(distribution="rpp", distribution_amps=400, ups_scheme="DR", ups_module_kw=500, ups_blocks=4,
                 generators=3, generator_kw=2000, inlet_class="A2", containment="hot", water_class="W40",
                 tile_point_kg=1360, tile_rolling_kg=1130, rows=(("A", RowFacility("cold", 250)),))
    p = design(row_of_racks(1), replace(HALL, facility=f))
    back = loads(dumps(p), catalog)
    assert back.halls[0].facility == f and to_dict(back)["format_version"] == FORMAT_VERSION
    assert f.containment_of("A") == "cold" and f.distribution_amps_of("A") == 250 and f.distribution_amps_of("B") == 400
    doc = to_dict(p)
    doc["halls"][0]["facility"]["ups_scheme"] = "3N"
    with pytest.raises(ProjectFileError, match=r"halls\[0\]\.facility\.ups_scheme: must be one of N, N\+1, 2N, DR"):
        from_dict(doc, catalog)
    doc["halls"][0]["facility"] = {"ups_modules": 2, "ups_redundant_modules": 2}
    with pytest.raises(ProjectFileError, match="ups_redundant_modules: 2 spare of 2 modules leaves none"):
        from_dict(doc, catalog)
    for bad in ({"tile_point_kg": float("nan")}, {"generator_kw": 1e308}, {"ups_modules": 10 ** 400}, {"x": 1}):
        with pytest.raises(FacilityError):
            facility_from_json(bad)


def test_the_command_sets_the_facility_and_refuses_bad_ones(catalog):
    p = design(row_of_racks(1))
    new, _ = UpdateHallCommand("h", {"facility": Facility(ups_scheme="2N", ups_module_kw=100)}).apply(p, catalog)
    assert new.halls[0].facility.ups_scheme == "2N"
    with pytest.raises(FacilityError, match="ups_module_kw"):  # a facility is checked when it is made
        replace(Facility(), ups_scheme="2N")
    with pytest.raises(CommandError, match="must be a Facility"):
        UpdateHallCommand("h", {"facility": {"ups_scheme": "2N"}}).apply(p, catalog)


def test_failover_and_air_limits_are_what_if_flags(capsys):
    from designer.cli import main

    sample = str(samples.DGX_B200_SU)
    assert main(["analyze", sample, "--json"]) == 0
    base = json.loads(capsys.readouterr().out)
    assert not [f for f in base["findings"] if f["code"] in ("feed-redundancy-lost", "air-density")]
    # held to 80 % on failover, each 2-DGX rack's 19.8 kW is over its 32 A PDUs' 16.85 kW, on both feeds
    assert main(["analyze", sample, "--json", "--failover-derating", "0.8"]) == 0
    strict = json.loads(capsys.readouterr().out)
    compute = [r for r in strict["power"]["racks"] if r["feeds"]["failover_kw"] == 19.8]
    lost = [f["where"] for f in strict["findings"] if f["code"] == "feed-redundancy-lost"]
    assert len(compute) == 15 and sorted(lost) == sorted(f"rack:{r['id']}" for r in compute for _ in "AB")
    assert main(["analyze", sample, "--air-rack-limit", "20"]) == 0
    # the 15 racks alike are one finding that names them all
    out = capsys.readouterr().out
    assert out.count("reject 28.6 kW to air, over the 20 kW") == 1 and "15 racks (" in out
    assert main(["analyze", sample, "--failover-derating", "2"]) == 2
    assert "--failover-derating: failover_derating must be >= 0.5 and <= 1, got 2" in capsys.readouterr().err


# -- conventions that must hold at the edges ---------------------------------------------------------------

def test_trays_on_mounted_shelves_split_by_the_shelves_on_each_feed(catalog):
    # An NVL72 built tray by tray: 8 shelves (4 per feed) feed 18 compute and 9 switch trays over the busbar.
    devs = [MountedDevice(f"s{i}", "gb200-power-shelf", 1 + i) for i in range(8)]
    devs += [MountedDevice(f"t{i}", "gb200-compute-tray", 9 + i) for i in range(18)]
    devs += [MountedDevice(f"w{i}", "nvlink-switch-tray", 27 + i) for i in range(9)]
    r = analyze(design([Rack("r", "R", "h", "rack-48u-600x1200", 1000, 2000, 0, "A", tuple(devs))]), catalog)
    row = r["power"]["racks"][0]
    half = row["max_kw"] / 2
    assert row["feeds"]["A"]["normal_kw"] == pytest.approx(half)
    assert row["feeds"]["B"]["normal_kw"] == pytest.approx(half)
    assert row["feeds"]["A"]["failover_kw"] == row["feeds"]["B"]["failover_kw"] == row["max_kw"]  # 24 x 5.5 kW carry it
    assert row["feeds"]["throttled_kw"] == 0


def test_a_feed_is_as_strong_as_its_weakest_inlet(catalog):
    # A 60 A and a 32 A PDU per feed: the supplies spread evenly, so the feed carries two 32 A shares.
    devs = [MountedDevice(f"n{i}", "dgx-b200", 1 + 10 * i) for i in range(5)] + [
        MountedDevice(f"p{i}", t, None, "rear") for i, t in
        enumerate(["pdu-415v-60a-3ph", "pdu-415v-60a-3ph", "pdu-415v-32a-3ph", "pdu-415v-32a-3ph"])]
    r = analyze(design([Rack("r", "R", "h", "rack-52u-600x1200", 1000, 2000, 0, "A", tuple(devs))]), catalog)
    a = r["power"]["racks"][0]["feeds"]["A"]
    assert a["rating_kw"] == pytest.approx(2 * PDU32_FULL, abs=1e-3) and a["normal_kw"] == pytest.approx(35.75)
    assert findings(r, "circuit-over-cap") == ["rack:r", "rack:r"]
    assert findings(r, "inlet-loss-over-rating") == ["rack:r"]  # 23.8 kW left on one 32 A PDU (21.06 kW)


def test_a_run_carries_its_stretch_of_the_row(catalog):
    # Three NVL72 on two runs a side: the first run takes two racks, 264 kW with the other feed lost, over one
    # run's 310 A x 415 V x sqrt 3 x 0.95 = 211.7 kW; split evenly the row would look fine.
    racks = [Rack(f"n{i}", f"N{i}", "h", "rack-48u-600x1200", 1000 + 600 * i, 2000, 0, "A",
                  (MountedDevice("s", "gb200-nvl72", 1),)) for i in range(3)]
    r = analyze(design(racks, hall(distribution_amps=310, distribution_runs=2)), catalog)
    row = r["power"]["rows"][0]
    assert row["runs"] == 2 and row["feeds"]["A"]["failover_kw"] == 396
    assert row["feeds"]["A"]["failover_utilisation"] == pytest.approx(264 / (310 * 415 * SQ3 * 0.95 / 1000), abs=1e-4)
    assert findings(r, "distribution-redundancy-lost") == ["hall:h", "hall:h"]
    one = analyze(design(racks[:1], hall(distribution_amps=150, distribution_runs=16)), catalog)
    assert one["power"]["rows"][0]["runs"] == 1  # one rack hangs off one run, whatever the hall says


def test_racks_without_inlets_still_load_the_chain_with_their_failover(catalog):
    bare = [Rack(f"r{i}", f"R{i}", "h", "rack-48u-600x1200", 1000 + 600 * i, 2000, 0, "A", tuple(dgx(f"r{i}", 2, 0)))
            for i in range(2)]
    r = analyze(design(bare, hall(ups_scheme="2N", ups_module_kw=35)), catalog)
    ups = r["power"]["ups"][0]["systems"][0]
    assert (ups["normal_kw"], ups["failover_kw"]) == (pytest.approx(28.6), pytest.approx(39.6))
    assert findings(r, "ups-redundancy-lost") == ["hall:h", "hall:h"] and len(findings(r, "no-pdu")) == 2


def test_odd_supplies_alternate_and_single_corded_devices_are_named(catalog):
    # Two UFM appliances made single-corded: one supply each, on A then on B.
    ufm = replace(catalog.get("ufm-appliance"), id="ufm-one-psu", psu=replace(catalog.get("ufm-appliance").psu,
                                                                            count=1, redundant=0))
    cat = Catalog(list(catalog) + [ufm], catalog.sources)
    devs = (MountedDevice("u1", "ufm-one-psu", 1), MountedDevice("u2", "ufm-one-psu", 3),
            MountedDevice("p1", "pdu-415v-32a-3ph", None, "rear"),
            MountedDevice("p2", "pdu-415v-32a-3ph", None, "rear"))
    r = analyze(design([Rack("r", "R", "h", "rack-48u-600x1200", 1000, 2000, 0, "A", devs)]), cat)
    feeds = r["power"]["racks"][0]["feeds"]
    assert feeds["A"]["normal_kw"] == feeds["B"]["normal_kw"] == pytest.approx(ufm.power_max_w / 1000)
    assert findings(r, "single-corded") == ["rack:r"]


def test_catalog_entries_without_the_new_figures_are_not_misread(catalog):
    # A user's PDU that gives only its total outlets, a shelf without its AC input: checked on what is known.
    old_pdu = replace(catalog.get("pdu-415v-60a-3ph"), id="old-pdu", outlets=24, outlets_c13=0, outlets_c19=0)
    old_shelf = replace(catalog.get("gb200-power-shelf"), id="old-shelf", voltage_v=None, current_a=None, phases=0)
    cat = Catalog(list(catalog) + [old_pdu, old_shelf], catalog.sources)
    pdu_rack = Rack("r", "R", "h", "rack-48u-600x1200", 1000, 2000, 0, "A",
                    tuple(dgx("r", 2, 0)) + (MountedDevice("p1", "old-pdu", None, "rear"),
                                             MountedDevice("p2", "old-pdu", None, "rear")))
    shelves = [MountedDevice(f"s{i}", "old-shelf", 1 + i) for i in range(4)]
    trays = [MountedDevice(f"t{i}", "gb200-compute-tray", 5 + i) for i in range(8)]
    shelf_rack = Rack("s", "S", "h", "rack-48u-600x1200", 1600, 2000, 0, "A", tuple(shelves + trays))
    r = analyze(design([pdu_rack, shelf_rack]), cat)
    assert findings(r, "outlet-shortfall") == [] and findings(r, "circuit-over-cap") == []
    assert findings(r, "inlet-unrated") == ["rack:s"]
    six = Catalog(list(catalog) + [replace(old_pdu, outlets=4)], catalog.sources)
    assert findings(analyze(design([pdu_rack]), six), "outlet-shortfall") == ["rack:r", "rack:r"]  # 6 cords, 4 outlets


def test_a_single_phase_pdu_has_no_phases_to_balance(catalog):
    single = replace(catalog.get("pdu-415v-32a-3ph"), id="pdu-1ph", voltage_v=230, phases=1)
    cat = Catalog(list(catalog) + [single], catalog.sources)
    devs = tuple(MountedDevice(f"q{i}", "qm9700", 1 + i) for i in range(4)) + (
        MountedDevice("p1", "pdu-1ph", None, "rear"), MountedDevice("p2", "pdu-1ph", None, "rear"))
    r = analyze(design([Rack("r", "R", "h", "rack-48u-600x1200", 1000, 2000, 0, "A", devs)]), cat)
    a = r["power"]["racks"][0]["feeds"]["A"]
    assert a["phases_kw"] == [3.44, 0.0, 0.0] and a["imbalance"] is None
    assert findings(r, "phase-imbalance") == findings(r, "phase-over-cap") == []


def test_a_cdu_loop_takes_the_water_of_its_own_hall(catalog):
    # The CDU stands in a W45 hall and serves an NVL72 there and one in a W32 hall: 45 + 5 K is too warm.
    h1 = replace(HALL, facility=Facility(water_class="W45"))
    h2 = replace(HALL, id="h2", name="Annex", outline=((30000, 0), (40000, 0), (40000, 10000), (30000, 10000)),
                 facility=Facility(water_class="W32"))
    racks = [Rack("n1", "N1", "h", "rack-48u-600x1200", 1000, 2000, 0, "A", (MountedDevice("s", "gb200-nvl72", 1),)),
             Rack("n2", "N2", "h2", "rack-48u-600x1200", 31000, 2000, 0, "A", (MountedDevice("s", "gb200-nvl72", 1),))]
    cdu = FloorDevice("c1", "cdu-inrow-2mw", "h", 5000, 5000, name="CDU-North-01", serves=("n1", "n2"))
    p = Project(name="t", halls=(h1, h2), racks=tuple(racks), floor_devices=(cdu,))
    r = analyze(p, catalog)
    loop = r["cooling"]["cdu_loops"][0]
    assert loop["water_class"] == "W45" and loop["secondary_supply_c"] == 50
    [f] = [f for f in r.findings if f.code == "coolant-too-warm"]
    assert f.message.startswith("CDU loop CDU-North-01:")


def test_air_handlers_are_air_handlers_in_netbox(catalog, tmp_path):
    from exporters.netbox_export import write_netbox

    crah = FloorDevice("c1", "crah-cw-200kw", "h", 8000, 8000, name="CRAH-01")
    a = analyze(Project(name="t", halls=(HALL,), racks=tuple(row_of_racks(1)), floor_devices=(crah,)), catalog)
    write_netbox(a, tmp_path / "nb")
    text = (tmp_path / "nb" / "08-devices.csv").read_text()
    assert "CRAH-01,Air handler," in text


def test_generated_air_cooled_halls_keep_racks_within_the_air_limit(catalog):
    from designer.generate import SuperpodSpec, generate

    for system in ("dgx-h100", "dgx-b200"):
        g = generate(SuperpodSpec(system=system, sus=1), catalog)
        a = analyze(g.project, catalog)
        assert findings(a, "air-density") == [], system
        assert max(r["air_kw"] for r in a["cooling"]["racks"]) <= 30


def test_the_facility_command_edits_one_setting_and_merges_only_typing(catalog):
    from designer.commands import Document, UpdateFacilityCommand

    doc = Document(design(row_of_racks(1)), catalog)
    doc.push(UpdateFacilityCommand("h", {"distribution_amps": 25}))
    doc.push(UpdateFacilityCommand("h", {"distribution_amps": 250}))  # typing "250": one step
    with pytest.raises(CommandError, match="ups_module_kw: the 2N UPS needs its module rating"):
        doc.push(UpdateFacilityCommand("h", {"ups_scheme": "2N"}))  # refused: the facility is unchanged
    doc.push(UpdateFacilityCommand("h", {"ups_module_kw": 500}))
    assert doc.project.halls[0].facility.distribution_amps == 250
    doc.undo()
    assert doc.project.halls[0].facility.ups_module_kw is None
    assert doc.project.halls[0].facility.distribution_amps == 250
    doc.undo()
    assert doc.project.halls[0].facility == Facility()
    with pytest.raises(CommandError, match="no setting 'x'"):
        doc.push(UpdateFacilityCommand("h", {"x": 1}))


def test_runs_follow_where_racks_stand_not_the_order_they_were_added(catalog):
    # Listed heavy, light, heavy, light but standing heavy, heavy, light, light: the first of two runs carries
    # both heavy (4-DGX) racks, 2 x 28.6 kW on each feed.
    heavy = [Rack(f"h{i}", f"H{i}", "h", "rack-48u-600x1200", 1000 + 600 * i, 2000, 0, "A",
                  tuple(MountedDevice(f"h{i}n{k}", "dgx-b200", 1 + 10 * k) for k in range(4))
                  + (MountedDevice("p1", "pdu-415v-60a-3ph", None, "rear"),
                     MountedDevice("p2", "pdu-415v-60a-3ph", None, "rear"))) for i in range(2)]
    light = [Rack(f"l{i}", f"L{i}", "h", "rack-48u-600x1200", 2200 + 600 * i, 2000, 0, "A",
                  (MountedDevice("sw", "qm9700", 20), MountedDevice("p1", "pdu-415v-32a-3ph", None, "rear"),
                   MountedDevice("p2", "pdu-415v-32a-3ph", None, "rear"))) for i in range(2)]
    listed = [heavy[0], light[0], heavy[1], light[1]]
    r = analyze(design(listed, hall(distribution_amps=100, distribution_runs=2)), catalog)
    per_run = 100 * 415 * SQ3 * 0.95 / 1000 * 0.8
    assert r["power"]["rows"][0]["feeds"]["A"]["utilisation"] == pytest.approx(2 * 28.6 / per_run, abs=1e-4)
