"""The cabling workbook: read back with openpyxl and checked against the analysis' fabric section."""
from __future__ import annotations

import csv
import dataclasses
import os
from collections import Counter
from dataclasses import replace

import openpyxl
from openpyxl.utils import get_column_letter
import pytest
from drawn import DGX_B200_SU, GB200_NVL72_SU

from designer.analysis import analyze
from designer.fileformat import load
from designer.quote.lines import cable_part_number
from designer.management.links import management_links
from exporters.cabling import COLUMNS, write_cabling_csv
from exporters.cabling_management import cable_text
from exporters.cabling_xlsx import (
    CABLE_HEADER,
    LINKS,
    NO_CABLE,
    NUMBER_COLUMNS,
    PULL_LIST,
    SUMMARY,
    SUMMARY_HEADER,
    TRANSCEIVER_HEADER,
    write_cabling_xlsx,
)
from exporters.registry import FORMATS


@pytest.fixture(scope="module", params=[DGX_B200_SU, GB200_NVL72_SU], ids=["dgx-b200", "gb200-nvl72"])
def written(request, catalog, tmp_path_factory):
    analysis = analyze(load(request.param, catalog), catalog)
    folder = tmp_path_factory.mktemp("cabling")
    account = write_cabling_xlsx(analysis, folder / "cabling.xlsx")
    write_cabling_csv(analysis, folder / "cabling.csv")
    return analysis, folder, account


def table(ws, title: str, header) -> list[tuple]:
    """The rows of the pull list's table under ``title``, up to and without its total row."""
    rows = list(ws.iter_rows(values_only=True))
    start = next(i for i, r in enumerate(rows) if r[0] == title)
    assert tuple(rows[start + 1][:len(header)]) == header
    out = []
    for r in rows[start + 2:]:
        if r[0] == "Total":
            return out, r
        out.append(r[:len(header)])
    raise AssertionError(f"no total under {title}")


def test_links_sheet_holds_the_csv_rows(written):
    analysis, folder, account = written
    wb = openpyxl.load_workbook(folder / "cabling.xlsx")
    assert wb.sheetnames == [LINKS, PULL_LIST, SUMMARY]
    ws = wb[LINKS]
    rows = list(ws.iter_rows(values_only=True))
    assert rows[0] == COLUMNS
    assert ws.freeze_panes == "A2"
    assert ws.auto_filter.ref == f"A1:{get_column_letter(len(COLUMNS))}{len(rows)}"
    assert all(ws.column_dimensions[c].width >= 8 for c in "ABCDEFGHIJKLMNOPQRSTUVWXY")
    assert ws.column_dimensions["X"].width > ws.column_dimensions["E"].width  # labels are wider than tiers
    with (folder / "cabling.csv").open(encoding="utf-8", newline="") as fh:
        text = list(csv.DictReader(fh))
    links = analysis.result("fabric").links()
    assert len(rows) - 1 == len(text) >= len(links)  # the compute fabric's links, then the storage fabric's
    assert sum(r["network"] == "compute" for r in text) == len(links)
    assert account.startswith(f"{len(text):,} links, ")
    for row, csv_row in zip(rows[1:], text):
        for name, value in zip(COLUMNS, row):
            if name in NUMBER_COLUMNS:
                assert value == (float(csv_row[name]) if csv_row[name] else None)
            else:
                assert (value or "") == csv_row[name]
    mounted = {(rack.id, d.name or d.id): d for rack in analysis.project.racks for d in rack.devices}
    first = dict(zip(COLUMNS, rows[1]))
    if (first["a_rack"], first["a_device"]) in mounted:  # a DGX, not a tray of a rack-scale system
        assert first["a_u"] == mounted[(first["a_rack"], first["a_device"])].u
    assert first["b_u"] == mounted[(first["b_rack"], first["b_device"])].u


def management(analysis) -> tuple[int, float, dict]:
    """The management networks' rows the plan adds after the fabrics': links (one cable each), their metres, and
    cables by cable and length text, as the pull list counts them."""
    links = management_links(analysis.project, analysis.catalog)
    by_length: dict = {}
    for cid, length in zip(cable_text(links), links.length_m.tolist()):
        into = by_length.setdefault(cid, {})
        into[f"{length:g}"] = into.get(f"{length:g}", 0) + 1
    return len(links), float(links.length_m.sum()), by_length


def plus(a: dict, b: dict) -> dict:
    out = {k: dict(v) for k, v in a.items()}
    for k, v in b.items():
        for length, n in v.items():
            out.setdefault(k, {})[length] = out.get(k, {}).get(length, 0) + n
    return out


def test_pull_list_counts_equal_the_fabric_section(written):
    analysis, folder, account = written
    section = analysis.fabric
    ws = openpyxl.load_workbook(folder / "cabling.xlsx")[PULL_LIST]
    cables, total = table(ws, "Cables", CABLE_HEADER)
    n_mgmt, metres_mgmt, mgmt = management(analysis)
    by_length: dict = {}
    for name, pn, ordering, length, count, metres, cid in cables:
        by_length.setdefault(cid, {})[f"{length:g}"] = count
        dev = analysis.catalog.find(cid)
        if dev is None:  # a management network's patch cord or copper the catalog lacks: named, no part number
            assert cid in mgmt and (name, pn, ordering) == (cid, None, None)
        else:
            assert (name, pn, ordering or "") == (dev.name, *cable_part_number(dev, length))
        assert metres == pytest.approx(length * count)
    assert by_length == plus(section.cables_by_length, mgmt)
    assert total[4] == section.cables_total + n_mgmt == sum(c[4] for c in cables)
    assert total[5] == pytest.approx(section.cable_length_total_m + metres_mgmt)
    modules, total = table(ws, "Transceivers", TRANSCEIVER_HEADER)
    assert {cid: count for _, _, count, cid in modules} == section.transceivers
    assert all(pn == analysis.catalog.get(cid).part_number for _, pn, _, cid in modules)
    assert total[2] == sum(section.transceivers.values())
    assert account == (f"{len(analysis.result('fabric').links()) + n_mgmt:,} links, "
                       f"{section.cables_total + n_mgmt:,} cables, "
                       f"{sum(section.transceivers.values()):,} transceivers")


def test_summary_counts_links_per_tier_and_medium(written):
    analysis, folder, _ = written
    section = analysis.fabric
    ws = openpyxl.load_workbook(folder / "cabling.xlsx")[SUMMARY]
    rows = list(ws.iter_rows(values_only=True))
    facts = {r[0]: r[1] for r in rows[1:7]}
    n_mgmt, metres_mgmt, _ = management(analysis)
    assert facts["Project"] == analysis.project.name
    assert facts["Links"] == sum(dataclasses.asdict(section.links).values()) + n_mgmt
    assert facts["Cables to pull"] == section.cables_total + n_mgmt
    assert facts["Cable length (m)"] == pytest.approx(section.cable_length_total_m + metres_mgmt)
    assert facts["Transceivers"] == sum(section.transceivers.values())
    assert facts["Links no catalog cable reaches"] == section.too_long_links == 0
    start = rows.index(SUMMARY_HEADER)
    body = rows[start + 1:-1]
    links_per_tier: dict = {}
    cables: dict = {}
    for tier, medium, cable, links, n in body:
        if tier.split()[0] in ("inband", "oob"):  # the management networks' ("oob node-switch")
            continue
        links_per_tier[tier.replace("-", "_")] = links_per_tier.get(tier.replace("-", "_"), 0) + links
        cables[cable] = cables.get(cable, 0) + n
        assert medium != NO_CABLE
    assert links_per_tier == {k: v for k, v in dataclasses.asdict(section.links).items() if v}
    assert cables == section.cables
    assert rows[-1][0] == "Total"
    assert rows[-1][3:] == (sum(dataclasses.asdict(section.links).values()) + n_mgmt, section.cables_total + n_mgmt)


def test_unreachable_links_are_named_and_not_pulled(catalog, tmp_path):
    """A link longer than every cable has no medium: counted in the summary, never in the pull list."""
    analysis = analyze(load(DGX_B200_SU, catalog), catalog)
    project = analysis.project
    spine = next(r for r in project.racks if any("spine" in (d.name or d.id) for d in r.devices))
    far = project.with_racks([replace(spine, x=spine.x + 400_000.0)])  # 400 m away: no cable reaches
    far_analysis = analyze(far, catalog)
    section = far_analysis.fabric
    assert section.too_long_links > 0  # the premise
    out = tmp_path / "far.xlsx"
    write_cabling_xlsx(far_analysis, out)
    wb = openpyxl.load_workbook(out)
    cables, _ = table(wb[PULL_LIST], "Cables", CABLE_HEADER)
    by_length: dict = {}
    for _, _, _, length, count, _, cid in cables:
        by_length.setdefault(cid, {})[f"{length:g}"] = count
    assert by_length == plus(section.cables_by_length, management(far_analysis)[2])
    notes = [r[0] for r in wb[PULL_LIST].iter_rows(values_only=True) if r[0] and "longer than any cable" in r[0]]
    assert notes == [(f"{section.too_long_links:,} links have no parts, longer than any cable in the catalog "
                      "reaches or with no part that fits their cages: they have no cable to pull and are not "
                      "counted here.")]
    rows = list(wb[SUMMARY].iter_rows(values_only=True))
    assert {r[0]: r[1] for r in rows[1:7]}["Links no catalog cable reaches"] == section.too_long_links
    none = [r for r in rows if len(r) > 1 and r[1] == NO_CABLE]
    assert sum(r[3] for r in none) == section.too_long_links and all(r[4] == 0 for r in none)


def test_names_that_look_like_formulas_stay_text(catalog, tmp_path):
    analysis = analyze(load(DGX_B200_SU, catalog), catalog)
    project = analysis.project
    odd = project.with_racks([replace(project.racks[0], name="=SUM(A1)\x07")]).renamed("=Pod")
    out = tmp_path / "odd.xlsx"
    write_cabling_xlsx(analyze(odd, catalog), out)
    wb = openpyxl.load_workbook(out)
    ws = wb[LINKS]
    col = COLUMNS.index("a_rack_name")
    names = {r[col] for r in ws.iter_rows(min_row=2, values_only=True) if r[COLUMNS.index("a_rack")] == "a01"}
    assert names == {"=SUM(A1)\ufffd"}
    cells = [c for c in next(ws.iter_rows(min_row=2, max_row=2))]
    assert cells[col].data_type == "s"
    assert {r[0]: r[1] for r in wb[SUMMARY].iter_rows(values_only=True) if r[0] == "Project"} == {"Project": "=Pod"}
    assert os.listdir(tmp_path) == ["odd.xlsx"]


def test_registry_names_the_workbook_format():
    fmt = FORMATS["cabling-xlsx"]
    assert (fmt.flag, fmt.suffix) == ("--cabling-xlsx", ".xlsx")


# -- a twin-plane Spectrum-X fabric: 1 SU of DGX B300 ------------------------------------------------------------

def test_spectrum_x_pull_list_and_summary_are_split_by_plane(spectrum_x, tmp_path):
    """Per plane 512 node-leaf and 512 leaf-spine links, each one fibre; 768 switch-side twin-port modules per
    plane (256 leaf down, 256 leaf up, 256 spine cages); the 512 node cages carry one port of each plane."""
    write_cabling_xlsx(spectrum_x, tmp_path / "c.xlsx")
    write_cabling_csv(spectrum_x, tmp_path / "c.csv")
    wb = openpyxl.load_workbook(tmp_path / "c.xlsx")
    links = list(wb[LINKS].iter_rows(values_only=True))
    plane_col = links[0].index("plane")
    with open(tmp_path / "c.csv", encoding="utf-8", newline="") as fh:
        csv_rows = list(csv.DictReader(fh))
    network_col = links[0].index("network")
    links = [links[0]] + [r for r in links[1:] if r[network_col] == "compute"]
    storage_rows = [r for r in csv_rows if r["network"] == "storage"]
    mgmt_rows = [r for r in csv_rows if r["network"] in ("inband", "oob")]
    csv_rows = [r for r in csv_rows if r["network"] == "compute"]
    for rows, plane_of in ((links[1:], lambda r: r[plane_col]), (csv_rows, lambda r: r["plane"])):
        assert Counter(plane_of(r) for r in rows) == {"A": 1024, "B": 1024}
    assert storage_rows and {r["plane"] for r in storage_rows} == {""}
    tiers = Counter((r["plane"], r["tier"]) for r in csv_rows)
    assert tiers == {("A", "node-leaf"): 512, ("A", "leaf-spine"): 512,
                     ("B", "node-leaf"): 512, ("B", "leaf-spine"): 512}
    for r in csv_rows:  # a switch's name says its plane; a node's port n/1 is plane A's, n/2 plane B's
        assert r["b_device"].split("-")[1] == r["plane"].lower()
        if r["tier"] == "node-leaf":
            assert r["a_port"].endswith("/1" if r["plane"] == "A" else "/2")

    pull = wb[PULL_LIST]
    for plane in "AB":
        rows, total = table(pull, f"Cables, plane {plane}", CABLE_HEADER)
        assert total[4] == 1024 and sum(r[4] for r in rows) == 1024
        rows, total = table(pull, f"Transceivers, plane {plane}", TRANSCEIVER_HEADER)
        assert [(r[3], r[2]) for r in rows] == [("osfp-800g-2xsr4", 768)] and total[2] == 768
    rows, total = table(pull, "Transceivers, both planes (node cages)", TRANSCEIVER_HEADER)
    assert [(r[3], r[2]) for r in rows] == [("osfp-800g-2xsr4-flat", 512)]

    summary = wb[SUMMARY]
    values = {r[0]: r[1] for r in summary.iter_rows(values_only=True) if r and r[0]}
    storage = spectrum_x.result("storage").fabric  # its rows come after the planes' and are counted apart
    storage_cables = sum(sum(c.values()) for c in storage.cables.values())
    assert (values["Links"], values["Cables to pull"], values["Transceivers"], values["Planes"]) == (
        2048 + len(storage_rows) + len(mgmt_rows), 2048 + storage_cables + len(mgmt_rows),
        2048 + sum(storage.transceivers.values()), "A, B")
    for network, title in (("inband", "in-band network"), ("oob", "out-of-band network")):  # one cable a link
        n = sum(r["network"] == network for r in mgmt_rows)
        assert n and table(pull, f"Cables, {title}", CABLE_HEADER)[1][4] == n
        assert table(summary, title.capitalize(), SUMMARY_HEADER)[1][3:5] == (n, n)
    rows, total = table(pull, "Cables, storage fabric", CABLE_HEADER)
    assert total[4] == storage_cables
    rows, total = table(pull, "Transceivers, storage fabric", TRANSCEIVER_HEADER)
    assert {r[3]: r[2] for r in rows} == storage.transceivers
    rows, total = table(summary, "Storage fabric", SUMMARY_HEADER)
    assert total[3] == len(storage_rows) == storage.node_links + storage.uplinks
    for plane in "AB":
        rows, total = table(summary, f"Plane {plane}", SUMMARY_HEADER)
        assert [(r[0], r[3], r[4]) for r in rows] == [("node-leaf", 512, 512), ("leaf-spine", 512, 512)]
        assert (total[3], total[4]) == (1024, 1024)
