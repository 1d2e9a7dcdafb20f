"""Names a spreadsheet would run as formulas stay text in every CSV and workbook the design is exported to.

The hostile-name design is one scalable unit of DGX B200 whose first racks and their devices are named (and the
racks also identified) by the texts OWASP lists for CSV injection: a leading = + - @, tab or carriage return.
Every CSV is read back and no text cell may start with one of those (the one sanitiser,
:mod:`exporters.cell_text`, puts a quote in front), while number columns keep their minus signs; every workbook
is read back and holds those names as they are, as text cells, never as formulas.
"""
from __future__ import annotations

import csv
import datetime
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from designer.analysis import analyze
from designer.generate import SuperpodSpec, generate
from exporters.cell_text import FORMULA_PREFIXES, csv_text, looks_like_formula, unescape

HOSTILE = ("=cmd|' /C calc'!A0", "@SUM(A1)", "+1", "-1", "\tTAB", "\rCR")


@pytest.fixture(scope="module")
def hostile(catalog):
    """The analysis of the hostile-name design: racks 1-6 named and identified by :data:`HOSTILE`, and in each the
    first six devices named by them too."""
    project = generate(SuperpodSpec(system="dgx-b200", sus=1), catalog).project
    racks = list(project.racks)
    renamed = {r.id: h for r, h in zip(racks, HOSTILE)}
    for i, (rack, name) in enumerate(zip(racks, HOSTILE)):
        devices = tuple(replace(d, name=HOSTILE[(i + j) % len(HOSTILE)]) if j < len(HOSTILE) else d
                        for j, d in enumerate(rack.devices))
        racks[i] = replace(rack, id=name, name=name, devices=devices)
    floor = tuple(replace(f, serves=tuple(renamed.get(s, s) for s in f.serves)) for f in project.floor_devices)
    project = replace(project, racks=tuple(racks), floor_devices=floor, name="=1+1")
    return analyze(project, catalog)


def _hostile_cells(wb, *, own_formulas: bool = False, quoted: bool = False) -> set[str]:
    """The hostile names a workbook holds, each checked to be a text cell (with Excel's quote prefix when
    ``quoted``); a formula cell is refused, or with ``own_formulas`` allowed when it names none of them."""
    seen = set()
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and cell.value in HOSTILE:
                    seen.add(cell.value)
                    assert cell.data_type == "s" and (cell.quotePrefix or not quoted), (ws.title, cell.coordinate)
                if cell.data_type == "f":
                    assert own_formulas, (ws.title, cell.coordinate, cell.value)
                    assert "cmd" not in cell.value and "SUM(A1)" not in cell.value, cell.value
    return seen


def _csv_rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _assert_no_formula(rows: list[dict], numbers=frozenset()) -> None:
    """No text cell starts a formula; a number column holds numbers (a minus sign left as it is)."""
    for row in rows:
        for column, value in row.items():
            if column in numbers:
                assert value == "" or float(value) == float(value), (column, value)
            else:
                assert not looks_like_formula(value), (column, value)


def test_the_sanitiser_quotes_formula_prefixes_only_and_is_undone_exactly():
    for name in HOSTILE:
        assert csv_text(name) == "'" + name and unescape(csv_text(name)) == name
    for name in ("DGX B200", "R01", "", "'", "'quoted", "5V", "a=b"):
        assert csv_text(name) == name and unescape(name) == name
    # a quote that unescape would take off is itself quoted, so every text comes back as it was
    for name in ("'=1+1", "''", "'-1"):
        assert csv_text(name) == "'" + name and unescape(csv_text(name)) == name
    assert set(FORMULA_PREFIXES) == {"=", "+", "-", "@", "\t", "\r"}


def test_the_cabling_csv_escapes_every_name_and_id(hostile, tmp_path):
    from exporters.cabling import write_cabling_csv

    write_cabling_csv(hostile, tmp_path / "c.csv")
    rows = _csv_rows(tmp_path / "c.csv")
    _assert_no_formula(rows, numbers={"length_m", "rail", "a_u", "b_u"})
    quoted = {"'" + h for h in HOSTILE}
    for end in ("a", "b"):
        racks = {r[f"{end}_rack"] for r in rows} & quoted
        assert {r[f"{end}_rack_name"] for r in rows if r[f"{end}_rack"] in racks} <= racks
    assert {r[f"{end}_rack"] for r in rows for end in "ab"} >= quoted  # every hostile rack is cabled
    assert {r["a_device"] for r in rows} & quoted and {r["a_device_name"] for r in rows} & quoted
    assert any(r["a_label"].startswith("'=cmd|' /C calc'!A0 ") for r in rows)


def test_the_cabling_workbook_keeps_every_name_as_text(hostile, tmp_path):
    import openpyxl

    from exporters.cabling_xlsx import write_cabling_xlsx

    write_cabling_xlsx(hostile, tmp_path / "c.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "c.xlsx")
    assert _hostile_cells(wb) == set(HOSTILE)
    assert dict(r for r in wb["Summary"].iter_rows(values_only=True, max_col=2) if r[0] == "Project") == \
        {"Project": "=1+1"}


def test_the_netbox_files_escape_every_text_column_and_still_refer_to_each_other(hostile, tmp_path):
    from designer.netbox_parts import parts
    from exporters.netbox_export import FILES, NUMBER_COLUMNS, write_netbox

    folder = tmp_path / "nb"
    write_netbox(hostile, folder)
    tables = {name: [r for path in parts(folder, name) for r in _csv_rows(path)] for name in FILES}
    for rows in tables.values():
        _assert_no_formula(rows, numbers=NUMBER_COLUMNS - {"cf_podplanner_outline_mm"})
    racks = {r["name"] for r in tables["06-racks.csv"]}
    assert {"'" + h for h in HOSTILE} <= racks
    assert {r["cf_podplanner_id"] for r in tables["06-racks.csv"]} >= {"'" + h for h in HOSTILE}
    devices = {r["name"] for r in tables["08-devices.csv"]}
    assert {r["rack"] for r in tables["08-devices.csv"] if r["rack"]} <= racks
    assert {r["device"] for r in tables["09-interfaces.csv"]} <= devices
    assert {r[f"side_{s}_device"] for r in tables["10-cables.csv"] for s in "ab"} <= devices
    assert {r["cf_podplanner_name"] for r in tables["08-devices.csv"]} >= {"'" + h for h in HOSTILE}
    assert tables["01-sites.csv"][0]["name"] == "'=1+1"
    assert "single quote" in (folder / "README.txt").read_text(encoding="utf-8")


def test_podplanner_reads_the_netbox_folder_back_with_the_names_as_they_were(hostile, catalog, tmp_path):
    from designer.netbox_import import NetBoxImportError, _unquoted, read_netbox
    from exporters.netbox_export import write_netbox

    for name in HOSTILE + ("'=1+1", "''", "'quoted", "'", "R01"):
        assert _unquoted(csv_text(name)) == unescape(csv_text(name)) == name
    # names with a tab or a carriage return are escaped on the way out, but no design may hold them (one line
    # of text holds no control character): read back, the folder is refused naming the field
    write_netbox(hostile, tmp_path / "nb")
    with pytest.raises(NetBoxImportError, match=r"racks\[\d+\]\.(devices\[\d+\]\.)?(id|name): holds a "
                                                r"control character"):
        read_netbox(tmp_path / "nb", catalog)
    # the formula-like names a design may hold come back exactly as they were
    allowed = HOSTILE[:4]
    racks = tuple(replace(r, devices=tuple(d if d.name in allowed or d.name not in HOSTILE else
                                           replace(d, name=f"plain-{j}") for j, d in enumerate(r.devices)))
                  for r in hostile.project.racks if r.id not in HOSTILE[4:])
    kept = analyze(replace(hostile.project, racks=racks), catalog)
    write_netbox(kept, tmp_path / "nb2")
    back = read_netbox(tmp_path / "nb2", catalog)
    assert back.name == "=1+1"
    assert [(r.id, r.name) for r in back.racks[:4]] == [(h, h) for h in allowed]
    assert {d.name for r in back.racks[:4] for d in r.devices} >= set(allowed)


def test_the_bill_csv_and_the_quote_workbook_keep_formula_like_text_as_text(hostile, catalog, tmp_path):
    import openpyxl

    from designer.quote_settings import PriceEntry
    from exporters.bom_csv import COLUMNS, write_bom_csv
    from exporters.quote_xlsx import write_quote_xlsx

    project = hostile.project
    part = next(ln.part_number for s in hostile.bom.sections for ln in s.lines if ln.part_number)
    project = project.with_quote(project.quote.updated(
        customer="@SUM(A1)", prices=(PriceEntry(part, 2400, "USD", "2026-11-01", "=cmd|' /C calc'!A0"),)))
    analysis = analyze(project, catalog)
    write_bom_csv(analysis, tmp_path / "b.csv")
    rows = _csv_rows(tmp_path / "b.csv")
    numbers = {"line", "quantity", "years", "unit_price", "discount_percent", "net_unit_price", "extended_price"}
    assert set(numbers) < set(COLUMNS)
    _assert_no_formula(rows, numbers=numbers)
    assert {r["price_source"] for r in rows if r["part_number"] == part} == {"'=cmd|' /C calc'!A0"}
    write_quote_xlsx(analysis, tmp_path / "q.xlsx")
    wb = openpyxl.load_workbook(tmp_path / "q.xlsx")
    assert {"=cmd|' /C calc'!A0", "@SUM(A1)"} <= _hostile_cells(wb, own_formulas=True, quoted=True)
    # the workbook's own formulas store their numbers; the text kept as text stores none
    stored = openpyxl.load_workbook(tmp_path / "q.xlsx", data_only=True)
    own = [(ws.title, c.coordinate) for ws in wb for row in ws.iter_rows() for c in row if c.data_type == "f"]
    assert own and all(isinstance(stored[s][c].value, (int, float, datetime.datetime)) for s, c in own)


@pytest.mark.libreoffice
def test_libreoffice_shows_the_escaped_names_and_runs_none(hostile, tmp_path):
    """LibreOffice opens the cabling CSV with formula evaluation on (its CSV filter's 13th option) and saves what
    it shows: the escaped names come out as written, while a control file's bare =1+1 comes out as 2."""
    from exporters.cabling import write_cabling_csv

    write_cabling_csv(hostile, tmp_path / "c.csv")
    (tmp_path / "control.csv").write_text("name\n=1+1\n", encoding="utf-8")
    out = tmp_path / "out"
    evaluate = "44,34,76,1,,0,false,true,false,false,false,-1,true"
    for name in ("c.csv", "control.csv"):
        subprocess.run(["soffice", "--headless", f"-env:UserInstallation=file://{tmp_path / 'profile'}",
                        f"--infilter=CSV:{evaluate}", "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76",
                        "--outdir", str(out),
                        str(tmp_path / name)], check=True, capture_output=True, timeout=180)
    assert (out / "control.csv").read_text(encoding="utf-8").splitlines()[1] == "2"
    shown = _csv_rows(out / "c.csv")
    assert len(shown) == len(_csv_rows(tmp_path / "c.csv"))
    racks = {r["a_rack_name"] for r in shown}
    assert "'=cmd|' /C calc'!A0" in racks and "'@SUM(A1)" in racks and "'-1" in racks
