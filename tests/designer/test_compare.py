"""``podplanner compare A B``: two designs' key figures side by side, with the change from A to B."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from designer import samples
from designer.analysis import analyze
from designer.cli import main
from designer.compare import compare
from designer.fileformat import load


def test_the_two_samples_side_by_side_with_their_deltas(catalog, capsys):
    a = analyze(load(samples.DGX_B200_SU, catalog), catalog)
    b = analyze(load(samples.GB200_NVL72_SU, catalog), catalog)
    assert main(["compare", str(samples.DGX_B200_SU), str(samples.GB200_NVL72_SU), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == json.loads(json.dumps(compare(a, b, str(samples.DGX_B200_SU), str(samples.GB200_NVL72_SU))))
    rows = {r["key"]: r for r in doc["figures"]}
    assert (rows["gpus"]["a"], rows["gpus"]["b"], rows["gpus"]["delta"]) == (248, 576, 328)
    assert rows["gpus"]["delta_percent"] == pytest.approx(328 / 248 * 100, abs=0.01)
    it = rows["it_power_max_kw"]
    assert it["delta"] == pytest.approx(a.summary_json["it_power_max_kw"] * -1 + b.summary_json["it_power_max_kw"])
    assert rows["price_total"]["unit"] == "USD"
    assert rows["price_total"]["delta"] == pytest.approx(b.summary_json["price_total"] - a.summary_json["price_total"])
    assert rows["switches"]["a"] == sum(a.summary_json["switches"].values())
    assert rows["time_to_train_days"]["a"] == a["training"]["time_to_train_days"]
    ups_systems = b["power"]["ups"][0]["systems"]
    assert rows["ups_failover_utilisation"]["b"] == max(s["failover_utilisation"] for s in ups_systems)
    assert [r["key"] for r in doc["figures"]][:4] == ["gpus", "racks", "it_power_max_kw", "facility_power_kw"]
    assert doc["a"]["name"] == a.summary_json["name"] and doc["b"]["file"] == str(samples.GB200_NVL72_SU)


def test_the_table_reads_as_text_and_a_zero_base_has_no_percentage(capsys):
    assert main(["compare", str(samples.DGX_B200_SU), str(samples.GB200_NVL72_SU)]) == 0
    out = capsys.readouterr().out.splitlines()
    gpus = next(line for line in out if line.startswith("GPUs"))
    assert gpus.split()[1:] == ["248", "576", "+328", "(+132.3", "%)"]
    liquid = next(line for line in out if line.startswith("Heat to liquid"))
    assert liquid.endswith("+897.6")  # from 0 kW: a change, and no share of nothing


def test_prices_in_two_currencies_are_not_subtracted(catalog):
    # prices are never converted: a bill in USD and one in EUR show both totals and no change
    real = analyze(load(samples.DGX_B200_SU, catalog), catalog)

    def priced(currency, total):
        return replace(real, summary_json={**real.summary_json, "currency": currency, "price_total": total,
                                           "cost_per_gpu_hour": 2.0})

    doc = compare(priced("USD", 100.0), priced("EUR", 90.0))
    rows = {r["key"]: r for r in doc["figures"]}
    assert (rows["price_total"]["a"], rows["price_total"]["b"], rows["price_total"]["delta"]) == (100.0, 90.0, None)
    assert rows["cost_per_gpu_hour"]["delta"] is None and rows["gpus"]["delta"] == 0
    assert rows["price_total"]["unit"] == "USD / EUR"  # both codes, so neither total is read as the other
    assert rows["racks"]["delta"] == 0  # not money: compared whatever the currencies


def test_a_missing_file_is_one_line_and_exit_2(capsys, tmp_path):
    assert main(["compare", str(samples.DGX_B200_SU), str(tmp_path / "none.podplan.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("podplanner: error: ") and "none.podplan.json" in err and err.count("\n") == 1


def test_a_mistyped_flag_or_command_gets_a_suggestion(capsys):
    assert main(["compare", "a", "b", "--jsn"]) == 2
    assert "(--jsn: did you mean --json?)" in capsys.readouterr().err
    assert main(["comparre", "a", "b"]) == 2
    assert "did you mean 'compare'?" in capsys.readouterr().err


@pytest.fixture(scope="module")
def ib_and_ethernet(catalog):
    """The same DGX B300 SuperPOD (1,024 GPUs) on one InfiniBand plane and on twin Spectrum-X planes, analysed."""
    from designer.generate import SuperpodSpec, generate

    ib = generate(SuperpodSpec(system="dgx-b300", gpus=1024, fabric="infiniband"), catalog, with_phases=False)
    ethernet = generate(SuperpodSpec(system="dgx-b300", gpus=1024, fabric="spectrum-x"), catalog, with_phases=False)
    return analyze(ib.project, catalog), analyze(ethernet.project, catalog)


def test_an_infiniband_and_a_spectrum_x_design_differ_in_their_fabric_rows(ib_and_ethernet):
    a, b = ib_and_ethernet
    doc = compare(a, b)
    rows = {r["key"]: r for r in doc["figures"]}
    assert rows["gpus"]["delta"] == 0  # the same system and size: what differs is the fabric
    tech = rows["fabric_technology"]
    assert (tech["a"], tech["b"], tech["delta"], tech["unit"]) == ("infiniband", "spectrum-x", None, "name")
    assert (rows["fabric_planes"]["a"], rows["fabric_planes"]["b"], rows["fabric_planes"]["delta"]) == (1, 2, 1)
    for tier in ("leaf", "spine", "core"):  # every plane counted, as the analysis counts them
        row = rows[f"{tier}_switches"]
        assert (row["a"], row["b"]) == (getattr(a.summary.switches, tier), getattr(b.summary.switches, tier))
    assert rows["leaf_switches"]["b"] == b.fabric.leaf == 2 * b.fabric.per_plane.leaf
    assert rows["switches"]["b"] == rows["leaf_switches"]["b"] + rows["spine_switches"]["b"] + \
        rows["core_switches"]["b"]
    assert rows["transceivers"]["a"] == sum(a.fabric.transceivers.values())
    assert rows["transceivers"]["delta"] == sum(b.fabric.transceivers.values()) - sum(a.fabric.transceivers.values())
    for key in ("cables", "it_power_max_kw", "price_total", "tokens_per_s", "time_to_train_days",
                "cost_per_gpu_hour"):
        assert rows[key]["a"] is not None and rows[key]["b"] is not None, key
    assert rows["price_total"]["delta"] == pytest.approx(b.summary.price_total - a.summary.price_total)
    # the rows that were there keep their keys and order; the fabric's are added among them
    keys = [r["key"] for r in doc["figures"]]
    old = ["gpus", "racks", "it_power_max_kw", "facility_power_kw", "liquid_heat_kw", "air_heat_kw",
           "ups_failover_utilisation", "switches", "fabric_port_gbps", "cables", "price_total", "tokens_per_s",
           "mfu", "time_to_train_days", "cost_per_gpu_hour"]
    assert [k for k in keys if k in old] == old
    # two 400G planes give a GPU what one 800G plane does: the port speed halves, the bandwidth does not
    assert rows["fabric_port_gbps"]["b"] * 2 == rows["fabric_port_gbps"]["a"]
    assert rows["scale_out_gbs_per_gpu"]["a"] == rows["scale_out_gbs_per_gpu"]["b"] == 100.0
    assert rows["bisection_tbps"]["b"] == b.bandwidth.bisection_tbps > 0
    # only the twin-plane design has a plane to lose
    lost = rows["tokens_per_s_plane_lost"]
    assert lost["a"] is None and lost["b"] == b.training.scenarios.plane_lost.tokens_per_s < rows["tokens_per_s"]["b"]


def test_the_fabric_rows_read_as_names_not_ids(ib_and_ethernet):
    from designer.compare import compare_text, row_texts

    texts = {row[0]: row[1:] for row in row_texts(compare(*ib_and_ethernet))}
    assert texts["Compute-fabric technology"] == ("InfiniBand", "Spectrum-X Ethernet", "changed")
    assert texts["Compute-fabric planes"][:2] == ("1", "2")
    assert texts["Leaf switches"][2].startswith("+")
    same = {row[0]: row[1:] for row in row_texts(compare(ib_and_ethernet[0], ib_and_ethernet[0]))}
    assert same["Compute-fabric technology"] == ("InfiniBand", "InfiniBand", "no change")
    text = compare_text(compare(*ib_and_ethernet))
    assert "spectrum-x" not in text and "Spectrum-X Ethernet" in text
