"""The cabling CSV: written from the analysis' wiring plan, read back and checked."""
from __future__ import annotations

import csv
import dataclasses
import io
import os
from collections import Counter
from dataclasses import replace

import pytest
from drawn import DGX_B200_SU, GB200_NVL72_SU

from designer.analysis import analyze
from designer.fabric import LINK_COLUMNS
from designer.fileformat import load
from designer.quote.lines import cable_part_number
from designer.samples import DGX_B200_SU as SAMPLE_DGX
from designer.samples import GB200_NVL72_SU as SAMPLE_GB200
from exporters.cabling import COLUMNS, LABEL_SEPARATOR, cabling_plan, write_cabling_csv
from exporters.registry import FORMATS
from widgets.elevation.rack_layout import layout


@pytest.fixture(scope="module")
def analysis(catalog):
    return analyze(load(DGX_B200_SU, catalog), catalog)


@pytest.fixture(scope="module")
def nvl72(catalog):
    return analyze(load(GB200_NVL72_SU, catalog), catalog)


def read(path) -> list[dict]:
    return list(csv.DictReader(open(path, encoding="utf-8", newline="")))


def test_csv_holds_every_link_of_the_analysis(analysis, tmp_path):
    out = tmp_path / "cabling.csv"
    # the compute fabric's 508, then the management networks' 121: 62 in-band (31 DGX x 2), 51 OOB, 8 OOB uplinks
    assert write_cabling_csv(analysis, out) == "629 links"
    rows = list(csv.DictReader(out.open(encoding="utf-8", newline="")))
    links = analysis.result("fabric").links()
    assert tuple(rows[0]) == COLUMNS
    assert len(links) == 252 + 256  # Table 4, 1 SU: node and UFM links, leaf-spine links
    assert Counter(r["network"] for r in rows) == {"compute": 508, "inband": 62, "oob": 59}
    first = rows[0]
    assert (first["a_device"], first["b_device"], first["tier"]) == ("dgx-01", "leaf-r0", "node-leaf")
    assert (first["cable"], first["a_rack"], first["b_rack"]) == ("fiber-mpo12-mmf", "a01", "a09")
    assert float(first["length_m"]) == links[0].length_m > 0
    assert {r["rail"] for r in rows[:len(links)] if r["tier"] == "node-leaf" and r["a_device"].startswith("dgx")} == {
        str(r) for r in range(8)}
    assert os.listdir(tmp_path) == ["cabling.csv"]


@pytest.mark.parametrize("design", [DGX_B200_SU, GB200_NVL72_SU, SAMPLE_DGX, SAMPLE_GB200],
                         ids=lambda p: p.name.split(".")[0])
def test_the_wiring_plans_columns_come_first_and_unchanged(catalog, design, tmp_path):
    """Scripts read the first columns by position: they are the links' own fields, as before."""
    analysis = analyze(load(design, catalog), catalog)
    out = tmp_path / "cabling.csv"
    write_cabling_csv(analysis, out)
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert tuple(rows[0][:len(LINK_COLUMNS)]) == LINK_COLUMNS == COLUMNS[:len(LINK_COLUMNS)]
    links = analysis.result("fabric").links()
    # the compute fabric's rows first, then the storage fabric's, the in-band and the OOB network's
    network = [r[COLUMNS.index("network")] for r in rows[1:]]
    assert network[:len(links)] == ["compute"] * len(links) and len(links) > 0
    order = ("storage", "inband", "oob")
    assert network[len(links):] == sorted(network[len(links):], key=order.index)

    def text(value) -> str:
        return f"{value:g}" if isinstance(value, float) else str(value)

    assert [r[:len(LINK_COLUMNS)] for r in rows[1:len(links) + 1]] == [
        [text(getattr(link, c)) for c in LINK_COLUMNS] for link in links]
    # What the csv module itself would write, byte for byte (the fast path only joins).
    buf = io.StringIO(newline="")
    w = csv.writer(buf)
    w.writerow(COLUMNS)
    w.writerows(cabling_plan(analysis).rows())
    assert out.read_bytes() == buf.getvalue().encode("utf-8")


def test_each_end_names_its_rack_u_and_device_as_people_read_them(analysis, tmp_path):
    out = tmp_path / "cabling.csv"
    write_cabling_csv(analysis, out)
    rows = read(out)
    project = analysis.project
    mounted = {(rack.id, d.name or d.id): (rack, d) for rack in project.racks for d in rack.devices}
    for r in rows:
        for end in "ab":
            rack, d = mounted[(r[f"{end}_rack"], r[f"{end}_device"])]
            assert r[f"{end}_rack_name"] == rack.name
            assert r[f"{end}_u"] == f"{d.u:g}"
            assert r[f"{end}_device_name"] == (d.name or analysis.catalog.get(d.type).name)
    first = rows[0]
    assert (first["a_rack_name"], first["a_u"], first["b_rack_name"], first["b_u"]) == ("A01", "5", "A09 network", "20")
    # The rack names people read differ from the ids the id columns keep.
    assert {r["a_rack"] for r in rows}.isdisjoint({r["a_rack_name"] for r in rows})


def test_labels_of_both_ends_name_both_ends(analysis, tmp_path):
    out = tmp_path / "cabling.csv"
    write_cabling_csv(analysis, out)
    rows = read(out)
    for r in rows:
        if r["network"] != "compute":  # a management port is read by its name ("bmc"), a switch's "P1"
            continue
        a_end = f"{r['a_rack_name']} U{r['a_u']} P{r['a_port']}"
        b_end = f"{r['b_rack_name']} U{r['b_u']} P{r['b_port']}"
        assert r["a_label"] == a_end + LABEL_SEPARATOR + b_end  # near end first, where the label hangs
        assert r["b_label"] == b_end + LABEL_SEPARATOR + a_end
    assert rows[0]["a_label"] == "A01 U5 P1/1 > A09 network U20 P1/1"
    # Every label is unique to its cable end: two ends never carry the same text.
    labels = [r["a_label"] for r in rows] + [r["b_label"] for r in rows]
    assert len(set(labels)) == len(labels)


def test_labels_stay_short_on_the_generated_sample(catalog, tmp_path):
    analysis = analyze(load(SAMPLE_DGX, catalog), catalog)
    plan = cabling_plan(analysis)
    compute = [n == "compute" for n in plan.text["network"]]
    labels = [t for end in ("a_label", "b_label") for t, c in zip(plan.text[end], compute) if c]
    longest = max(labels, key=len)
    assert len(longest) <= 40, longest
    # the storage fabric's spine racks have longer names ("STORAGE-01"): a character or two more
    longest = max(plan.text["a_label"] + plan.text["b_label"], key=len)
    assert len(longest) <= 42, longest


def test_part_numbers_carry_the_length_code(analysis, tmp_path):
    out = tmp_path / "cabling.csv"
    write_cabling_csv(analysis, out)
    rows = read(out)
    catalog = analysis.catalog
    for r in rows:
        if catalog.find(r["cable"]) is None:  # a management network's patch cord or DAC the catalog lacks
            assert r["network"] in ("inband", "oob") and r["cable_part_number"] == "" and r["cable"]
            continue
        pn, ordering = cable_part_number(catalog.get(r["cable"]), float(r["length_m"]))
        assert (r["cable_part_number"], r["cable_ordering_part_number"]) == (pn, ordering)
        for end in "ab":
            module = r[f"{end}_transceiver"]
            assert r[f"{end}_transceiver_part_number"] == (catalog.get(module).part_number if module else "")
    assert {r["cable_part_number"] for r in rows if r["cable"] == "fiber-mpo12-mmf" and r["length_m"] == "10"} == {
        "MFP7E10-N010"}
    compute_dac = {r["cable_part_number"] for r in rows if r["medium"] == "dac" and r["network"] == "compute"}
    assert compute_dac == {"MCP4Y10-N001", "MCP4Y10-N01A"}


def test_counts_per_tier_and_medium_equal_the_fabric_section(analysis, tmp_path):
    out = tmp_path / "cabling.csv"
    write_cabling_csv(analysis, out)
    rows = [r for r in read(out) if r["network"] == "compute"]
    section = analysis.fabric
    tiers = Counter(r["tier"].replace("-", "_") for r in rows)
    assert tiers == {k: v for k, v in dataclasses.asdict(section.links).items() if v}
    fibre = Counter((r["cable"], r["length_m"]) for r in rows if r["medium"] in ("mmf", "smf"))
    copper = Counter((r["cable"], r["length_m"]) for r in rows if r["medium"] == "dac")
    assert copper  # the drawn design pairs its leaf-spine links in one rack on twin-port copper
    for (cid, length), n in fibre.items():
        assert section.cables_by_length[cid][length] == n  # one fibre per link
    for (cid, length), n in copper.items():
        assert section.cables_by_length[cid][length] * 2 == n  # a copper pair: two links, one cable


def test_trays_of_a_rack_scale_system_sit_where_the_elevation_draws_them(nvl72, tmp_path):
    out = tmp_path / "cabling.csv"
    write_cabling_csv(nvl72, out)
    rows = read(out)
    project, catalog = nvl72.project, nvl72.catalog
    seen = 0
    for rack in project.racks:
        blocks = [b for b in layout(rack, catalog, "front")[0] if b.component == "gb200-compute-tray"]
        if not blocks:
            continue
        system = next(d for d in rack.devices if catalog.get(d.type).fills_rack)
        name = system.name or system.id
        trays = {r["a_device"]: r for r in rows if r["a_rack"] == rack.id and r["a_device"].startswith(name + "/")}
        assert len(trays) == len(blocks) == 18
        for t, block in enumerate(blocks, start=1):
            r = trays[f"{name}/tray{t:02d}"]
            assert float(r["a_u"]) == block.u
            assert r["a_device_name"] == f"{system.name or catalog.get(system.type).name} compute tray {t}"
            assert r["a_label"].startswith(f"{rack.name} U{block.u:g} P")
            seen += 1
    assert seen == nvl72["fabric"]["nodes"]


def test_names_with_commas_and_quotes_are_quoted(analysis, tmp_path):
    project = analysis.project
    odd = project.with_racks([replace(project.racks[0], name='A01, "north"')])
    renamed = analyze(odd, analysis.catalog)
    out = tmp_path / "cabling.csv"
    write_cabling_csv(renamed, out)
    rows = read(out)
    mine = [r for r in rows if r["a_rack"] == project.racks[0].id]
    assert mine and all(r["a_rack_name"] == 'A01, "north"' for r in mine)
    assert mine[0]["a_label"].startswith('A01, "north" U')
    assert len(rows) == len(analysis.result("fabric").links()) + 121  # and the management networks'


def test_a_design_without_a_fabric_writes_the_header_only(catalog, tmp_path):
    from designer.model import Project

    out = tmp_path / "cabling.csv"
    assert write_cabling_csv(analyze(Project(), catalog), out) == "0 links"
    assert out.read_text(encoding="utf-8").splitlines() == [",".join(COLUMNS)]


def test_registry_names_the_format_for_the_command_line_and_the_window():
    fmt = FORMATS["cabling"]
    assert (fmt.flag, fmt.suffix, fmt.file_filter) == ("--cabling", ".csv", "Cabling plan (*.csv)")
    assert fmt.write.__name__ == "_write_cabling"


def test_a_name_that_looks_like_a_formula_is_escaped_in_the_added_columns(catalog, tmp_path):
    import csv as _csv
    from dataclasses import replace

    from designer.analysis import analyze
    from designer.fileformat import load
    from designer.samples import DGX_B200_SU
    from exporters.cabling import write_cabling_csv

    project = load(DGX_B200_SU, catalog)
    first = project.racks[0]
    project = project.with_racks([replace(first, name="=cmd|calc")])
    write_cabling_csv(analyze(project, catalog), tmp_path / "c.csv")
    rows = [r for r in _csv.DictReader((tmp_path / "c.csv").open(encoding="utf-8", newline=""))
            if r["a_rack"] == first.id]
    assert rows and all(r["a_rack_name"] == "'=cmd|calc" and r["a_label"].startswith("'=cmd|calc") for r in rows)


def test_a_system_id_shared_by_two_racks_takes_each_racks_own_tray_units(catalog, tmp_path):
    """Device ids are unique only within a rack: the second system's trays sit where its own (taller) rack has
    them, not where the first rack's do."""
    project = load(SAMPLE_GB200, catalog)
    a, b = [r for r in project.racks if any(catalog.get(d.type).fills_rack for d in r.devices)][:2]
    b2 = replace(b, type="rack-52u-600x1200", devices=(replace(b.devices[0], id=a.devices[0].id),) + b.devices[1:])
    project = project.with_racks([b2])
    out = tmp_path / "cabling.csv"
    write_cabling_csv(analyze(project, catalog), out)
    rows = read(out)
    for rack in (a, b2):
        blocks = [bl for bl in layout(rack, catalog, "front")[0] if bl.component == "gb200-compute-tray"]
        system = rack.devices[0]
        name = system.name or system.id
        trays = {r["a_device"]: r for r in rows if r["a_rack"] == rack.id and r["a_device"].startswith(name + "/")}
        assert len(trays) == len(blocks) == 18
        assert [float(trays[f"{name}/tray{t:02d}"]["a_u"]) for t in range(1, 19)] == [bl.u for bl in blocks]
    assert layout(a, catalog, "front")[0][0].u != layout(b2, catalog, "front")[0][0].u  # the racks differ
