"""``podplanner new superpod`` on targets that build: what it prints, what it writes, how it rounds."""
from __future__ import annotations

import json

import pytest

from designer.analysis import analyze
from designer.fileformat import load, to_dict
from designer.formatting import kw, money
from designer.generate import SuperpodSpec, generate
from designer.rack_roles import rack_role

from ._support import run

JSON_KEYS = {"gpus", "racks", "rows", "switches", "it_power_max_kw", "facility_power_kw", "liquid_heat_kw",
             "air_heat_kw", "price_total", "currency"}


def test_one_su_dgx_b200_prints_its_key_numbers_and_writes_a_valid_file(capsys, tmp_path, catalog):
    out_file = tmp_path / "one.podplan.json"
    code, out, err = run(capsys, "new", "superpod", "--system", "dgx-b200", "--sus", "1", "-o", str(out_file))
    assert code == 0, err
    assert err == ""
    assert out_file.is_file()
    project = load(out_file, catalog)
    a = analyze(project, catalog)
    s = a.summary_json
    racks = len(project.racks)
    rows = len({r.row for r in project.racks})
    lines = [line.strip() for line in out.splitlines()]
    gpu_line = next(line for line in lines if "GPUs in" in line)
    assert gpu_line.startswith("248 GPUs in 31 ") and ("DGX B200" in gpu_line or "dgx-b200" in gpu_line), gpu_line
    assert f"{racks} racks (" in out and f"in {rows} rows" in out

    def line(label):
        return next(x for x in lines if x.startswith(label + ":"))

    assert line("compute fabric") == "compute fabric: 8 leaf, 4 spine (2 tiers)"
    # the RA rule (DGX storage ports at 4:3, storage devices at 1:1): 31 x 2 DGX ports, 2 storage UFM and 8
    # WEKApod nodes take (62 x 7/4 + 4 x 2 + 16 x 2) / 64 ports: 3 leaves
    assert line("storage fabric") == "storage fabric: 3 leaf, 2 spine"
    assert line("storage").startswith("storage: 8 × WEKApod Nitro")
    assert line("out-of-band management").split(":")[1].split()[0] == "4"
    inband = line("in-band management")
    assert "2 spine" in inband and "2 leaf" in inband and inband.count("2 ") == 3
    # the figures the analysis holds, written as everywhere else (one decimal of kW, the money to the cent)
    assert f"IT power {kw(s['it_power_max_kw'])} max" in out and "IT power 499.0 kW max" in out
    assert f"facility {kw(s['facility_power_kw'])}" in out
    assert f"heat {kw(s['liquid_heat_kw'])} to liquid, {kw(s['air_heat_kw'])} to air" in out
    assert f"price {money(s['price_total'], s['currency'])}" in out
    assert "checks: 0 errors, 0 warnings" in out
    assert out.rstrip().endswith(f"wrote {out_file}")
    # what was written is what the generator makes
    assert to_dict(project) == to_dict(generate(SuperpodSpec(system="dgx-b200", sus=1), catalog).project)
    capsys.readouterr()
    assert run(capsys, "validate", str(out_file))[0] == 0


def test_summary_line_says_one_scalable_unit_in_the_singular(capsys, tmp_path):
    """The title says "1 scalable unit"; the GPU line should agree."""
    code, out, _ = run(capsys, "new", "superpod", "--system", "dgx-b200", "--sus", "1",
                       "-o", str(tmp_path / "one.podplan.json"))
    assert code == 0
    gpu_line = next(line for line in out.splitlines() if "GPUs in" in line)
    assert gpu_line.rstrip().endswith("(1 scalable unit)"), gpu_line


def test_json_is_one_document_with_the_key_numbers(capsys, tmp_path, catalog):
    out_file = tmp_path / "one.podplan.json"
    code, out, err = run(capsys, "new", "superpod", "--system", "dgx-b200", "--sus", "1", "--json",
                         "-o", str(out_file))
    assert code == 0 and err == ""
    doc = json.loads(out)  # the whole of stdout is one document
    assert set(doc) >= JSON_KEYS
    a = analyze(load(out_file, catalog), catalog)
    assert doc["gpus"] == 248
    assert doc["racks"] == len(load(out_file, catalog).racks)
    assert doc["switches"]["compute"] == {"leaf": 8, "spine": 4}
    assert sum(doc["switches"]["oob"].values()) == 4
    assert doc["switches"]["storage"] == {"leaf": 3, "spine": 2}
    assert doc["storage"]["tier"] == "better" and doc["storage"]["appliances"] == {
        "WEKApod Nitro storage node, NDR InfiniBand (1U, 14 x 7.68 TB E3.S)": 8}
    assert doc["storage"]["write_gb_s"] == 8 * 32 >= doc["storage"]["need_write_gb_s"]
    assert doc["it_power_max_kw"] == pytest.approx(a.summary_json["it_power_max_kw"])
    assert doc["facility_power_kw"] == pytest.approx(a.summary_json["facility_power_kw"])
    assert doc["liquid_heat_kw"] == 0 and doc["air_heat_kw"] == pytest.approx(a.summary_json["air_heat_kw"])
    assert doc["price_total"] == pytest.approx(a.summary_json["price_total"])
    assert doc["currency"] == a.summary_json["currency"]
    assert doc["file"] == str(out_file) and doc["phase_files"] == []


def test_gpus_2048_dgx_b200_gives_2040_and_says_why(capsys, tmp_path, catalog):
    code, out, _ = run(capsys, "new", "superpod", "--system", "dgx-b200", "--gpus", "2048",
                       "-o", str(tmp_path / "x.podplan.json"))
    assert code == 0
    gpu_line = next(line for line in out.splitlines() if "GPUs in" in line).strip()
    assert gpu_line.startswith("2,040 GPUs in 255 ") and gpu_line.endswith("(8 scalable units)"), gpu_line
    note = next(line for line in out.splitlines() if line.strip().startswith("note:"))
    assert "2,040 GPUs of the 2,048" in note and "UFM" in note and "9 scalable units" in note
    g = generate(SuperpodSpec(system="dgx-b200", gpus=2048), catalog)
    assert (g.gpus, g.sus, g.nodes) == (2040, 8, 255)
    # the UFM's note, and the hall lengthened for its 21 air handlers
    assert len(g.notes) == 2 and "UFM" in g.notes[0] and "21 air handlers" in g.notes[1]


def test_gpus_2300_gb200_rounds_up_to_whole_racks(capsys, tmp_path, catalog):
    code, out, _ = run(capsys, "new", "superpod", "--system", "gb200-nvl72", "--gpus", "2300",
                       "-o", str(tmp_path / "x.podplan.json"))
    assert code == 0
    gpu_line = next(line for line in out.splitlines() if "GPUs in" in line).strip()
    assert gpu_line.startswith("2,304 GPUs in 32 ") and gpu_line.endswith("(4 scalable units)"), gpu_line
    assert "note: 2,304 GPUs: the 2,300 asked for, rounded up to whole racks" in out
    g = generate(SuperpodSpec(system="gb200-nvl72", gpus=2300), catalog)
    assert (g.gpus, g.sus, g.nodes) == (2304, 4, 32)


@pytest.mark.parametrize(("rack_kw", "per_rack"), [(None, 2), (60, 4)])
def test_dgx_per_rack_follows_the_rack_power(design, catalog, rack_kw, per_rack):
    kw = {} if rack_kw is None else {"rack_kw": rack_kw}
    g, a = design("dgx-b200", 1, **kw)
    counts = [sum(d.type == "dgx-b200" for d in r.devices) for r in g.project.racks
              if rack_role(r, catalog) == "compute"]
    assert sum(counts) == 31
    assert max(counts) == per_rack
    assert sorted(counts)[1:] == [per_rack] * (len(counts) - 1)  # only the UFM-displaced rack has one less
    assert len(counts) == -(-32 // per_rack)
    assert g.project.halls[0].rack_power_limit_kw == (rack_kw or 40)
    serious = [f for f in a.findings if f.severity in ("error", "warning")]
    if per_rack == 2:
        assert not serious
    else:
        # Four air-cooled DGX B200 reject 57.2 kW to the room, past the ~30 kW air can take from one rack: every
        # full compute rack says so and names the remedy (NVIDIA's 4-per-rack layout assumes rear doors or liquid).
        assert {f.code for f in serious} == {"air-density"}
        # one finding per figure, naming every rack over: three DGX B200 (42.9 kW) are over as well
        assert sum(len(f.places) for f in serious) == sum(c * 14.3 > 30 for c in counts)
        assert sum(len(f.places) for f in serious if "57.2 kW" in f.message) == counts.count(4)
        assert all("rear-door" in f.message for f in serious)
