from __future__ import annotations

import json
from dataclasses import replace

import pytest

from designer.analysis import analyze
from designer.cli import main
from designer.cooling import KW_PER_TON, W_TO_BTU_H, air_cfm_for_kw, coolant_lpm_per_kw, heat_units
from designer.fileformat import load, loads
from designer.model import FloorDevice, Hall, MountedDevice, Project, Rack
from designer.power import pdu_capacity_kw
from designer import samples
from drawn import DGX_B200_SU, GB200_NVL72_SU
from designer.settings import Settings, SettingsError
from tests.designer.test_fileformat import GOLDEN

HALL = Hall("h", "Test hall", ((0, 0), (20000, 0), (20000, 10000), (0, 10000)))


def rack(rid, devices, x=1000.0, rack_type="rack-48u-600x1200", **kw):
    return Rack(rid, rid.upper(), "h", rack_type, x, 2000.0, 0.0, "A", tuple(devices), **kw)


def dgx(rid, n, pdus=4):
    devs = [MountedDevice(f"{rid}-n{i}", "dgx-b200", 1 + 11 * i) for i in range(n)]
    devs += [MountedDevice(f"{rid}-p{i}", "pdu-415v-32a-3ph", None, "rear") for i in range(pdus)]
    return devs


def project(*racks, hall=HALL, floor=(), **settings):
    return Project(name="t", halls=(hall,), racks=tuple(racks), floor_devices=tuple(floor),
                   settings=Settings(**settings))


def findings(result, code):
    return [f.where for f in result.findings if f.code == code]


# -- the published figures -----------------------------------------------------------------------

def test_dgx_b200_rack_and_scalable_unit_power(catalog):
    r = analyze(project(rack("r1", dgx("r1", 2))), catalog)
    assert r["power"]["racks"][0]["max_kw"] == 28.6
    su = analyze(project(*[rack(f"r{i}", dgx(f"r{i}", 2), x=300 + 600 * i) for i in range(16)]), catalog)
    assert su.summary_json["it_power_max_kw"] == 457.6
    assert su.summary_json["gpus"] == 256


def test_dgx_b200_supplies_give_16_5_kw_under_5_plus_1(catalog):
    r = analyze(project(rack("r1", dgx("r1", 1))), catalog)
    (psu,) = r["power"]["supplies"]
    assert (psu["type"], psu["scheme"], psu["installed_kw"], psu["usable_kw"], psu["max_kw"]) == (
        "dgx-b200", "5+1", 19.8, 16.5, 14.3)
    assert psu["headroom_kw"] == 2.2 and psu["one_feed_kw"] == 9.9


def test_gb200_nvl72_shelves_give_264_kw_nameplate(catalog):
    r = analyze(load(GB200_NVL72_SU, catalog), catalog)
    (psu,) = [p for p in r["power"]["supplies"] if p["type"] == "gb200-nvl72"]
    assert psu["installed_kw"] == 264.0 and psu["supplies"] == 48 and psu["rating_w"] == 5500
    assert psu["usable_kw"] == 132.0 and psu["unconfirmed"] is True  # N+N is not stated by NVIDIA


def test_unit_conversions():
    assert coolant_lpm_per_kw("water", 10) == pytest.approx(1.44, abs=0.005)
    assert coolant_lpm_per_kw("water", 12) == pytest.approx(1.20, abs=0.005)
    assert coolant_lpm_per_kw("water", 15) == pytest.approx(0.96, abs=0.005)
    assert coolant_lpm_per_kw("pg25", 10) == pytest.approx(1.51, abs=0.01)
    assert pytest.approx(3412, abs=0.5) == W_TO_BTU_H * 1000
    assert pytest.approx(3.517, abs=0.0005) == KW_PER_TON
    assert heat_units(3.516853) == {"kw": 3.517, "btu_h": 12000.0, "tons": 1.0}
    assert air_cfm_for_kw(1.0, 10) == pytest.approx(176, abs=1)  # 176 CFM per kW at 10 K
    assert air_cfm_for_kw(1.0, 20 / 1.8) == pytest.approx(158, abs=1)  # 158 CFM per kW at 20 °F


def test_three_phase_pdu_capacity():
    assert pdu_capacity_kw(415, 32, 3, 1.0) == pytest.approx(23.0, abs=0.05)
    assert pdu_capacity_kw(415, 32, 3, 1.0) * 0.8 == pytest.approx(18.4, abs=0.05)
    assert pdu_capacity_kw(208, 60, 3, 1.0) * 0.8 == pytest.approx(17.3, abs=0.05)
    assert pdu_capacity_kw(230, 32, 1, 0.95) == pytest.approx(6.992, abs=0.001)


def test_nvl72_rack_flow_matches_the_worked_example(catalog):
    # 120 kW to water at 10 K is about 172 L/min.
    assert 120 * coolant_lpm_per_kw("water", 10) == pytest.approx(172, abs=1)
    r = analyze(load(GB200_NVL72_SU, catalog), catalog)
    c = r["cooling"]
    assert c["liquid_kw"] == pytest.approx(8 * 132 * 0.85)
    assert c["coolant_flow_lpm"] == pytest.approx(c["liquid_kw"] * coolant_lpm_per_kw("water", 10), abs=0.1)
    assert r.summary_json["coolant_flow_lpm"] == c["coolant_flow_lpm"]
    assert c["liquid_kw"] + c["air_kw"] == pytest.approx(r.summary_json["it_power_max_kw"])
    assert c["air_kw"] == pytest.approx(8 * 132 * 0.15 + 36 * 1.72 + 2 * 0.689)  # the network racks are air-cooled


def test_samples_are_clean_and_carry_the_summary_keys(catalog):
    for sample in (DGX_B200_SU, GB200_NVL72_SU, samples.DGX_B200_SU, samples.GB200_NVL72_SU):
        r = analyze(load(sample, catalog), catalog)
        serious = [(f.code, f.where) for f in r.findings if f.severity != "info"]
        if sample == GB200_NVL72_SU:
            # The hand-drawn NVL72 SU stacks 20 QM9700 (1.72 kW max each) in one leaf rack: 34.4 kW to air, over
            # the ~30 kW a rack can reject to the room. The generated sample spreads its leaves over more racks.
            assert serious == [("air-density", "rack:n01")]
        elif sample == samples.GB200_NVL72_SU:
            # held to its feeds, the NVL72's 168 kW peak over the 132 kW one feed's shelves deliver is a warning
            assert serious == [("peak-over-one-feed", "rack:su01-01")]
        else:
            assert serious == []
        for key in ("facility_power_kw", "liquid_heat_kw", "air_heat_kw", "coolant_flow_lpm"):
            assert key in r.summary_json
    b = analyze(load(DGX_B200_SU, catalog), catalog)
    assert b.summary_json["liquid_heat_kw"] == 0 and b.summary_json["air_heat_kw"] == b.summary_json["it_power_max_kw"]
    assert b.summary_json["facility_power_kw"] == pytest.approx(b.summary_json["it_power_max_kw"] * 1.3, abs=0.01)


# -- rules, each on the right object ----------------------------------------------------------------

def test_rack_over_limit_from_rack_hall_and_default(catalog):
    p = project(rack("r1", dgx("r1", 2)), rack("r2", dgx("r2", 2), x=1600, power_limit_kw=25))
    r = analyze(p, catalog)
    assert findings(r, "rack-over-limit") == ["rack:r2"]
    assert r["power"]["racks"][0]["limit_kw"] == 100  # default class for air-cooled racks
    p2 = replace(p, halls=(replace(HALL, rack_power_limit_kw=20),))
    assert findings(analyze(p2, catalog), "rack-over-limit") == ["rack:r1", "rack:r2"]
    four = rack("r3", [MountedDevice(f"n{i}", "dgx-b200", 1 + 10 * i) for i in range(4)], x=2200)
    assert analyze(project(four, rack_limit_kw=50), catalog)["power"]["racks"][0]["max_kw"] == 57.2
    assert findings(analyze(project(four, rack_limit_kw=50), catalog), "rack-over-limit") == ["rack:r3"]


def test_rack_scale_system_is_held_to_one_feeds_capacity_unless_the_project_states_a_limit(catalog):
    nvl = rack("r1", [MountedDevice("s", "gb200-nvl72", 1)])
    r = analyze(project(nvl), catalog)
    row = r["power"]["racks"][0]
    # four 400 V 64 A shelf inputs a feed at PF 0.95, 80 % continuous: 134.8 kW, against its 132 kW on one feed
    assert (row["limit_kw"], row["limit_source"]) == (pytest.approx(134.795, abs=1e-3), "feed")
    assert row["utilisation"] == pytest.approx(132 / 134.795, abs=1e-4) and findings(r, "rack-over-limit") == []
    stated = analyze(project(nvl, rack_system_limit_kw=132), catalog)["power"]["racks"][0]
    assert (stated["limit_kw"], stated["limit_source"], stated["utilisation"]) == (132, "rack_system", 1.0)
    assert findings(analyze(project(nvl, rack_system_limit_kw=120), catalog), "rack-over-limit") == ["rack:r1"]


def test_circuit_over_cap_and_feed_redundancy(catalog):
    # One 32 A PDU per feed (NVIDIA's guidance for a 2-DGX B200 rack): 14.3 kW per feed fits the 16.85 kW
    # continuous limit; with a feed lost each DGX B200 throttles to its three live 3.3 kW supplies, so the
    # other feed carries 2 x 9.9 = 19.8 kW, within the PDU's 21.06 kW rating (400 V x 32 A x sqrt 3 x 0.95).
    r = analyze(project(rack("r1", dgx("r1", 2, pdus=2))), catalog)
    feeds = r["power"]["racks"][0]["feeds"]
    assert feeds["A"]["capacity_kw"] == pytest.approx(pdu_capacity_kw(400, 32, 3, 0.95) * 0.8, abs=0.001)
    assert feeds["A"]["rating_kw"] == pytest.approx(21.062, abs=0.001)
    assert feeds["A"]["normal_kw"] == 14.3 and feeds["failover_kw"] == 19.8 and feeds["throttled_kw"] == 8.8
    assert findings(r, "feed-redundancy-lost") == [] and findings(r, "circuit-over-cap") == []
    # Held to the continuous limit in failover too, 19.8 kW is over 16.85 kW: redundancy lost.
    strict = analyze(project(rack("r1", dgx("r1", 2, pdus=2)), failover_derating=0.8), catalog)
    assert findings(strict, "feed-redundancy-lost") == ["rack:r1", "rack:r1"]  # feed A, then feed B
    # Four DGX B200 on two PDUs: 28.6 kW per feed is over the cap in normal operation.
    four = rack("r2", [MountedDevice(f"n{i}", "dgx-b200", 1 + 10 * i) for i in range(4)] +
                [MountedDevice(f"p{i}", "pdu-415v-32a-3ph", None, "rear") for i in range(2)])
    assert findings(analyze(project(four), catalog), "circuit-over-cap") == ["rack:r2", "rack:r2"]
    # Single PDU: one feed only.
    assert findings(analyze(project(rack("r3", dgx("r3", 1, pdus=1))), catalog), "single-feed") == ["rack:r3"]
    assert findings(analyze(project(rack("r4", dgx("r4", 1, pdus=0))), catalog), "no-pdu") == ["rack:r4"]


def test_derating_and_power_factor_change_the_cap(catalog):
    p = project(rack("r1", dgx("r1", 2, pdus=2)), derating=1.0, power_factor=1.0)
    cap = analyze(p, catalog)["power"]["racks"][0]["feeds"]["A"]["capacity_kw"]
    assert cap == pytest.approx(pdu_capacity_kw(400, 32, 3, 1.0), abs=0.001)


def test_hall_capacity_findings(catalog):
    racks = [rack(f"r{i}", dgx(f"r{i}", 2), x=300 + 600 * i) for i in range(4)]  # 114.4 kW
    over = analyze(project(*racks, hall=replace(HALL, power_capacity_kw=100)), catalog)
    assert findings(over, "hall-over-power") == ["hall:h"]
    near = analyze(project(*racks, hall=replace(HALL, power_capacity_kw=120)), catalog)
    assert findings(near, "hall-power-headroom") == ["hall:h"]
    hall = near["power"]["halls"][0]
    assert hall["headroom_kw"] == pytest.approx(5.6) and hall["facility_kw"] == pytest.approx(114.4 * 1.3)
    air = analyze(project(*racks, hall=replace(HALL, cooling_capacity_kw=100)), catalog)
    assert findings(air, "hall-over-air-cooling") == ["hall:h"]


def test_rows_sum_their_racks(catalog):
    racks = [rack("a1", dgx("a1", 2)), rack("a2", dgx("a2", 1), x=1600),
             replace(rack("b1", dgx("b1", 2), x=1000), y=5000, row="B")]
    rows = analyze(project(*racks), catalog)["power"]["rows"]
    assert [(r["row"], r["racks"], r["max_kw"]) for r in rows] == [("A", 2, 42.9), ("B", 1, 28.6)]


def test_pue_scales_facility_power(catalog):
    r = analyze(project(rack("r1", dgx("r1", 2)), pue=1.5), catalog)
    assert r.summary_json["facility_power_kw"] == pytest.approx(42.9)


def test_cdu_loops_capacity_and_redundancy(catalog):
    nvls = [rack(f"r{i}", [MountedDevice(f"s{i}", "gb200-nvl72", 1)], x=1800 + 600 * i) for i in range(8)]
    one = FloorDevice("c1", "cdu-inrow-2mw", "h", 600, 2000)
    two = FloorDevice("c2", "cdu-inrow-2mw", "h", 7200, 2000)
    r = analyze(project(*nvls, floor=[one]), catalog)
    assert findings(r, "cdu-single") == ["floor:c1"]
    assert r["cooling"]["cdu_loops"][0]["racks"] == [f"r{i}" for i in range(8)]
    r2 = analyze(project(*nvls, floor=[one, two]), catalog)
    loop = r2["cooling"]["cdu_loops"][0]
    assert loop["redundancy"] == "N+1" and loop["capacity_kw"] == 4000 and loop["load_kw"] == pytest.approx(897.6)
    assert findings(r2, "cdu-single") == [] and findings(r2, "no-cdu") == []
    assert findings(analyze(project(*nvls), catalog), "no-cdu") == [f"rack:r{i}" for i in range(8)]


def test_cdu_over_capacity_and_in_rack_cdu(catalog):
    nvls = [rack(f"r{i}", [MountedDevice(f"s{i}", "gb200-nvl72", 1)], x=1800 + 600 * i) for i in range(8)]
    small = [FloorDevice(f"c{i}", "cdu-inrow-2mw", "h", 600 + 6000 * i, 2000, serves=("r0",)) for i in range(2)]
    r = analyze(project(*nvls, floor=small), catalog)
    assert findings(r, "no-cdu") == [f"rack:r{i}" for i in range(1, 8)]
    # An in-rack CDU serves its own rack: DGX racks are air-cooled, so a liquid rack needs it.
    inrack = catalog.get("cdu-inrack")
    assert inrack.cooling_capacity_kw == 250
    dev = [MountedDevice("n1", "gb200-compute-tray", 1), MountedDevice("cdu", "cdu-inrack", 10)]
    r2 = analyze(project(rack("x", dev)), catalog)
    assert findings(r2, "no-cdu") == [] and r2["cooling"]["cdu_loops"][0]["units"] == ["rack:x"]


def test_delta_t_and_coolant_change_the_flow(catalog):
    p = load(GB200_NVL72_SU, catalog)
    base = analyze(p, catalog).summary_json["coolant_flow_lpm"]
    wide = analyze(p.with_settings(p.settings.updated(coolant_delta_t_k=20)), catalog).summary_json["coolant_flow_lpm"]
    glycol = analyze(p.with_settings(p.settings.updated(coolant="pg25")), catalog).summary_json["coolant_flow_lpm"]
    assert wide == pytest.approx(base / 2, abs=0.1) and glycol > base * 1.04


def test_floor_loading(catalog):
    nvl = rack("r1", [MountedDevice("s", "gb200-nvl72", 1)])
    r = analyze(project(nvl, hall=replace(HALL, floor_rating_kg_m2=1500)), catalog)
    row = r["floor"]["racks"][0]
    # The NVL72 ships as an integrated rack: 1,360 kg on 0.6 x 1.2 m, about 1,890 kg/m².
    assert row["weight_kg"] == 1360 and row["load_kg_m2"] == pytest.approx(1888.9, abs=0.1)
    assert row["caster_load_kg"] == 340
    assert findings(r, "floor-over-rating") == ["rack:r1"]
    frame = catalog.get("rack-48u-600x1200").weight_kg
    d = analyze(project(rack("r2", dgx("r2", 2))), catalog)["floor"]["racks"][0]
    pdu = catalog.get("pdu-415v-32a-3ph").weight_kg or 0
    assert d["weight_kg"] == pytest.approx(2 * 142.4 + 4 * pdu + frame, abs=0.1)


def test_rack_over_its_rated_load(tmp_path):
    from catalog import load_catalog

    (tmp_path / "ups.json").write_text(json.dumps({
        "id": "ups-block", "kind": "appliance", "name": "Battery block", "manufacturer": "ACME", "category": "power",
        "source": "EST", "evidence": "U", "u_height": 4, "weight_kg": 450, "power_max_w": 0}))
    cat = load_catalog([tmp_path])
    limit = cat.get("rack-42u-600x1070").max_load_kg
    blocks = [MountedDevice(f"u{i}", "ups-block", 1 + 4 * i) for i in range(4)]  # 1,800 kg
    assert limit < 4 * 450
    r = analyze(project(rack("r1", blocks, rack_type="rack-42u-600x1070")), cat)
    assert findings(r, "rack-over-load") == ["rack:r1"]
    assert findings(analyze(project(rack("r1", blocks[:3], rack_type="rack-42u-600x1070")), cat),
                    "rack-over-load") == []


# -- bad settings ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("changes", "message"), [
    ({"coolant_delta_t_k": -5}, "coolant_delta_t_k must be >= 1 and <= 50, got -5"),
    ({"pue": 0.9}, "pue must be >= 1"),
    ({"coolant": "mercury"}, "coolant 'mercury' is unknown; choose one of water, pg25"),
    ({"derating": 1.5}, "derating must be >= 0.5 and <= 1, got 1.5"),
    ({"power_factor": 0}, "power_factor must be >= 0.5 and <= 1, got 0"),
    ({"air_delta_t_k": "warm"}, "air_delta_t_k must be a number"),
])
def test_bad_settings_are_refused(changes, message):
    with pytest.raises(SettingsError, match=message):
        Settings(**changes)


def test_bad_settings_in_a_file_name_the_key(catalog):
    doc = json.loads(GOLDEN.read_text())
    doc["format_version"] = 2
    doc["settings"] = {"pue": 0.8}
    with pytest.raises(ValueError, match=r"settings\.pue: pue must be >= 1"):
        loads(json.dumps(doc), catalog)
    doc["settings"] = {"colour": "blue"}
    with pytest.raises(ValueError, match=r"settings\.colour: is not a known setting"):
        loads(json.dumps(doc), catalog)


def test_version_1_file_migrates_to_default_settings(catalog):
    assert json.loads(GOLDEN.read_text())["format_version"] == 1
    assert load(GOLDEN, catalog).settings == Settings()


@pytest.mark.parametrize(("flags", "message"), [
    (["--delta-t", "-3"], "--delta-t: coolant_delta_t_k must be >= 1 and <= 50, got -3"),
    (["--pue", "0.5"], "--pue: pue must be >= 1"),
    (["--coolant", "oil"], "--coolant: coolant 'oil' is unknown"),
])
def test_bad_settings_on_the_command_line(capsys, flags, message):
    assert main(["analyze", str(GB200_NVL72_SU), *flags]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_what_if_flags(capsys):
    assert main(["analyze", str(GB200_NVL72_SU), "--json", "--pue", "1.1", "--coolant", "pg25", "--delta-t", "12"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["power"]["settings"]["pue"] == 1.1 and doc["cooling"]["settings"]["coolant"] == "pg25"
    assert doc["summary"]["facility_power_kw"] == pytest.approx(doc["summary"]["it_power_max_kw"] * 1.1)
    for key in ("power", "cooling", "floor", "findings"):
        assert key in doc
