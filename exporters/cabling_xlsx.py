"""The cabling plan as an XLSX workbook: every link, the pull list, and a summary.

- "Links": the CSV's columns (:data:`exporters.cabling.COLUMNS`), one row per link, with a
  frozen header and filters; lengths, rails and U positions are numbers, so they sort and sum.
- "Pull list": what the installer takes from stores: cables by part number and orderable
  length (count and total length) and transceivers by part number, each with a total. A
  copper pair (two links on one twin-port cable) is one cable; a transceiver is one per cage.
- "Summary": the project, and links and cables per tier and medium.

The storage fabric's links follow the compute fabric's (``network`` "storage"), then the management networks'
("inband", "oob"); the summary names their tiers "storage node-leaf", "oob node-switch" and so on. On a
twin-plane design, whose tables are per plane, each other network has tables of its own.

A twin-plane (Spectrum-X) fabric's pull list and summary have a table per plane: its cables and the
transceivers of the switch cages carrying its links; a node's cage carries one port of each plane, so its
transceivers are a table of their own, under both planes.

A 100,000-GPU design has some 300,000 links: openpyxl, even streaming, takes about two
minutes for their 7.5 million cells. So openpyxl writes the workbook with the Links sheet's
header only, and the link rows are then put into that sheet's XML directly, built column by
column from each distinct value's cell once (names repeat across thousands of links).
"""
from __future__ import annotations

import io
import zipfile
from xml.sax.saxutils import escape

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.utils import get_column_letter

from catalog.files import write_atomic
from designer.analysis import Analysis
from designer.fabric.topology import TIER_NAMES
from designer.formatting import count, number

from .base import ExportError
from .cabling import BETWEEN_BUILDINGS, COLUMNS, NETWORKS, CablingPlan, cabling_plan
from .xlsx_cells import BOLD, HEADER_FILL, NOT_XML, NOTE, TITLE, TOTAL_BORDER, as_text

LINKS = "Links"
PULL_LIST = "Pull list"
SUMMARY = "Summary"
#: the columns the Links sheet holds as numbers (empty where the CSV's text is empty)
NUMBER_COLUMNS = ("length_m", "rail", "a_u", "b_u")
#: the pull list's tables, each headed by its title in column A
CABLE_HEADER = ("Cable", "Part number", "Ordering part number", "Length (m)", "Count", "Total length (m)",
                "Catalog id")
TRANSCEIVER_HEADER = ("Transceiver", "Part number", "Count", "Catalog id")
SUMMARY_HEADER = ("Tier", "Medium", "Cable", "Links", "Cables")
#: how the summary names a link no catalog cable reaches (the plan's medium is empty there)
#: the other networks' tables on a twin-plane design, by the plan's network
NETWORK_TITLES = {"storage": "storage fabric", "inband": "in-band network", "oob": "out-of-band network"}
NO_CABLE = "none (too long, or no part fits)"
MAX_WIDTH = 48

LENGTH_FORMAT = "#,##0.0"
COUNT_FORMAT = "#,##0"


def _cell(ws, value, font=None, fill=None, number_format=None, border=None):
    c = as_text(WriteOnlyCell(ws, value))  # a name from the design or the catalog, never a formula
    if font is not None:
        c.font = font
    if fill is not None:
        c.fill = fill
    if number_format is not None:
        c.number_format = number_format
    if border is not None:
        c.border = border
    return c


def _widths(ws, columns: dict[str, list], header) -> None:
    for i, name in enumerate(header, start=1):
        values = columns.get(name, [])
        widest = max((len(v) for v in set(values) if isinstance(v, str)), default=0)  # names repeat: measure each once
        if name in NUMBER_COLUMNS:
            widest = max(widest, 6)
        ws.column_dimensions[get_column_letter(i)].width = min(MAX_WIDTH, max(len(name), widest) + 2)


def _links_sheet(wb: Workbook, plan: CablingPlan) -> None:
    """The sheet with its header, frozen row, filter and widths; its rows come in :func:`_link_rows_xml`."""
    ws = wb.create_sheet(LINKS)
    _widths(ws, plan.text, COLUMNS)
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = f"A1:{get_column_letter(len(COLUMNS))}{len(plan) + 1}"
    ws.append([_cell(ws, name, font=BOLD, fill=HEADER_FILL) for name in COLUMNS])


class _SharedStrings:
    """The workbook's shared-string table: each distinct text once, cells refer to it by number
    (a name repeated on thousands of links is stored once, and the sheet is a third the size)."""

    def __init__(self):
        self.index: dict[str, int] = {}

    def cell(self, value: str) -> str:
        if not value:
            return "<c/>"  # an empty cell keeps the cells after it in their columns
        n = self.index.setdefault(value, len(self.index))
        # a shared string is text whatever it starts with: a name "=1+1" is never a formula
        return f'<c t="s"><v>{n}</v></c>'

    def xml(self) -> bytes:
        items = []
        for value in self.index:
            value = NOT_XML.sub("\ufffd", value)
            space = ' xml:space="preserve"' if value != value.strip() else ""
            # a carriage return as a character reference: a bare one reads back as a line feed (XML's line ends)
            items.append(f"<si><t{space}>{escape(value, _CR)}</t></si>")
        head = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="{_MAIN_NS}" '
                f'count="{len(items)}" uniqueCount="{len(items)}">')
        return (head + "".join(items) + "</sst>").encode("utf-8")


_CR = {"\r": "&#13;"}
_MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_SST_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
_SST_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings"


def _number_cell(value) -> str:
    if value is None:
        return "<c/>"
    return f"<c><v>{value!r}</v></c>" if isinstance(value, float) else f"<c><v>{value}</v></c>"


def _link_rows_xml(plan: CablingPlan, strings: _SharedStrings) -> str:
    """Rows 2… of the Links sheet as SpreadsheetML, one column at a time: each distinct value's cell is made once."""
    columns = [[f'<row r="{r}">' for r in range(2, len(plan) + 2)]]
    for name in COLUMNS:
        make = _number_cell if name in NUMBER_COLUMNS else strings.cell
        values = plan.numbers[name] if name in NUMBER_COLUMNS else plan.text[name]
        cells: dict = {}
        columns.append([cells[v] if v in cells else cells.setdefault(v, make(v)) for v in values])
    columns.append(["</row>"] * len(plan))
    return "".join(map("".join, zip(*columns)))


def _with_link_rows(workbook: bytes, rows_xml: str, strings: _SharedStrings) -> bytes:
    """The saved workbook with the rows put into the Links sheet (the first sheet written) and the
    shared-string table they refer to added to the package (its part, content type and relationship)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(workbook)) as src, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "xl/worksheets/sheet1.xml":
                head, tail = data.decode("utf-8").split("</sheetData>", 1)
                data = (head + rows_xml + "</sheetData>" + tail).encode("utf-8")
            elif item.filename == "[Content_Types].xml":
                data = data.replace(b"</Types>", f'<Override PartName="/xl/sharedStrings.xml" '
                                                 f'ContentType="{_SST_TYPE}"/></Types>'.encode())
            elif item.filename == "xl/_rels/workbook.xml.rels":
                data = data.replace(b"</Relationships>", f'<Relationship Id="rIdSharedStrings" Type="{_SST_REL}" '
                                                         f'Target="sharedStrings.xml"/></Relationships>'.encode())
            dst.writestr(item.filename, data)
        dst.writestr("xl/sharedStrings.xml", strings.xml())
    return out.getvalue()


def _pull_list_sheet(wb: Workbook, plan: CablingPlan, project_name: str) -> tuple[int, float, int]:
    """The cables and transceivers to take from stores; a twin-plane fabric's by plane (a node cage carrying a
    port of each plane holds one module, listed once under both planes), each table with its total."""
    ws = wb.create_sheet(PULL_LIST)
    for letter, width in zip("ABCDEFG", (62, 18, 22, 12, 10, 16, 26)):
        ws.column_dimensions[letter].width = width
    ws.append([_cell(ws, NOT_XML.sub("\ufffd", f"Pull list: {project_name}"), font=TITLE)])
    ws.append([_cell(ws, "A copper pair (two links on one twin-port cable) is one cable; a transceiver is one "
                         "per cage, whichever of its ports carry links.", font=NOTE)])
    planes = plan.planes()
    if planes:
        ws.append([_cell(ws, f"Twin-plane fabric: cables and switch-side transceivers are listed per plane "
                             f"({', '.join(planes)}); a node's cage carries one port of each plane, so its "
                             "transceiver is listed once, under both planes.", font=NOTE)])
    n_cables, metres = 0, 0.0
    for plane in planes or [None]:
        ws.append([])
        n, m = _cable_table(ws, plan, "Cables" + (f", plane {plane}" if plane else ""), plane)
        n_cables, metres = n_cables + n, metres + m
    missing = plan.unreachable()
    if missing:
        ws.append([_cell(ws, f"{count(missing, 'link')} have no parts, longer than any cable in the catalog reaches or "
                             "with no part that fits their cages: they have no cable to pull and are not counted "
                             "here.", font=NOTE)])
    n_modules = 0
    groups = [(f"Transceivers, plane {p}", p) for p in planes] + [("Transceivers, both planes (node cages)", "")]
    for title, plane in groups if planes else [("Transceivers", None)]:
        modules = plan.transceivers(plane)
        if plane == "" and not modules:
            continue
        ws.append([])
        n_modules += _transceiver_table(ws, title, modules)
    for network in plan.networks()[1:] if planes else []:  # the plane tables hold the compute fabric's alone
        ws.append([])
        n, m = _cable_table(ws, plan, f"Cables, {NETWORK_TITLES[network]}", None, network)
        n_cables, metres = n_cables + n, metres + m
        modules = plan.transceivers(network=network)
        if modules or network == "storage":
            ws.append([])
            n_modules += _transceiver_table(ws, f"Transceivers, {NETWORK_TITLES[network]}", modules)
    buildings = plan.buildings()
    if buildings:
        ws.append([])
        ws.append([_cell(ws, "By building: the same cables (every network), those with both ends in one building, "
                             "then those that run between buildings, for the crew of each.", font=NOTE)])
        for name in buildings + [BETWEEN_BUILDINGS]:
            ws.append([])
            title = ("Cables between buildings" if name == BETWEEN_BUILDINGS else
                     f"Cables in {name}" if name else "Cables in rooms without a building")
            _cable_table(ws, plan, NOT_XML.sub("\ufffd", title), None, building=name)
    return n_cables, round(metres, 1), n_modules


def _cable_table(ws, plan: CablingPlan, title: str, plane: str | None, network: str | None = None,
                 building: str | None = None) -> tuple[int, float]:
    ws.append([_cell(ws, title, font=BOLD)])
    ws.append([_cell(ws, h, font=BOLD, fill=HEADER_FILL) for h in CABLE_HEADER])
    cables = plan.cables(plane, network, building)
    for c in cables:
        ws.append([_cell(ws, NOT_XML.sub("\ufffd", c["name"])), _cell(ws, c["part_number"]),
                   _cell(ws, c["ordering_part_number"] or None), c["length_m"],
                   _cell(ws, c["count"], number_format=COUNT_FORMAT),
                   _cell(ws, c["total_length_m"], number_format=LENGTH_FORMAT), _cell(ws, c["cable"])])
    n_cables = sum(c["count"] for c in cables)
    metres = round(sum(c["total_length_m"] for c in cables), 1)
    ws.append([_cell(ws, "Total", font=BOLD, border=TOTAL_BORDER)]
              + [_cell(ws, None, border=TOTAL_BORDER) for _ in range(3)]
              + [_cell(ws, n_cables, font=BOLD, number_format=COUNT_FORMAT, border=TOTAL_BORDER),
                 _cell(ws, metres, font=BOLD, number_format=LENGTH_FORMAT, border=TOTAL_BORDER),
                 _cell(ws, None, border=TOTAL_BORDER)])
    return n_cables, metres


def _transceiver_table(ws, title: str, modules: list[dict]) -> int:
    ws.append([_cell(ws, title, font=BOLD)])
    ws.append([_cell(ws, h, font=BOLD, fill=HEADER_FILL) for h in TRANSCEIVER_HEADER])
    for m in modules:
        ws.append([_cell(ws, NOT_XML.sub("\ufffd", m["name"])), _cell(ws, m["part_number"]),
                   _cell(ws, m["count"], number_format=COUNT_FORMAT),
                   _cell(ws, m["transceiver"])])
    n_modules = sum(m["count"] for m in modules)
    ws.append([_cell(ws, "Total", font=BOLD, border=TOTAL_BORDER), _cell(ws, None, border=TOTAL_BORDER),
               _cell(ws, n_modules, font=BOLD, number_format=COUNT_FORMAT, border=TOTAL_BORDER),
               _cell(ws, None, border=TOTAL_BORDER)])
    return n_modules


def tier_medium_counts(plan: CablingPlan, plane: str | None = None,
                       network: str | None = None) -> list[tuple[str, str, str, int, int]]:
    """(tier, medium, cable, links, physical cables) for each mix the plan has (of one plane's links with
    ``plane``, of one network's with ``network``), tiers in fabric order, the other networks' after the compute
    fabric's in the plan's order and named for them ("storage node-leaf", "oob uplink")."""
    counts: dict[tuple[str, str, str], list[int]] = {}
    first: dict[str, int] = {}  # each tier's network, by its place in the plan's networks
    order = {n: i for i, n in enumerate(NETWORKS)}
    for tier, medium, cable, own, pl, net in zip(plan.text["tier"], plan.text["medium"], plan.text["cable"],
                                                 plan.owner.tolist(), plan.text["plane"], plan.text["network"]):
        if (plane is not None and pl != plane) or (network is not None and net != network):
            continue
        if net != "compute":
            tier = f"{net} {tier}"
        first.setdefault(tier, order.get(net, len(order)))
        slot = counts.setdefault((tier, medium, cable), [0, 0])
        slot[0] += 1
        slot[1] += own
    rank = {t: i for i, t in enumerate(TIER_NAMES)}
    return [(t, m, c, n, k) for (t, m, c), (n, k) in
            sorted(counts.items(), key=lambda kv: (first[kv[0][0]], rank.get(kv[0][0].split(" ")[-1], len(rank)),
                                                   kv[0][1] == "", kv[0]))]


def _summary_sheet(wb: Workbook, plan: CablingPlan, project_name: str, n_cables: int, metres: float,
                   n_modules: int) -> None:
    ws = wb.create_sheet(SUMMARY)
    for letter, width in zip("ABCDE", (34, 18, 26, 12, 12)):
        ws.column_dimensions[letter].width = width
    ws.append([_cell(ws, "Cabling plan", font=TITLE)])
    ws.append(["Project", _cell(ws, NOT_XML.sub("\ufffd", project_name))])
    for label, value, fmt in (("Links", len(plan), COUNT_FORMAT), ("Cables to pull", n_cables, COUNT_FORMAT),
                              ("Cable length (m)", metres, LENGTH_FORMAT), ("Transceivers", n_modules, COUNT_FORMAT),
                              ("Links no catalog cable reaches", plan.unreachable(), COUNT_FORMAT)):
        ws.append([label, _cell(ws, value, number_format=fmt)])
    planes = plan.planes()
    if planes:
        ws.append(["Planes", _cell(ws, ", ".join(planes))])
    sections = [(f"Plane {p}", p, None) for p in planes]
    sections += [(NETWORK_TITLES[n].capitalize(), None, n) for n in (plan.networks()[1:] if planes else [])]
    for title, plane, network in sections or [(None, None, None)]:
        ws.append([])
        if title:
            ws.append([_cell(ws, title, font=BOLD)])
        ws.append([_cell(ws, h, font=BOLD, fill=HEADER_FILL) for h in SUMMARY_HEADER])
        rows = tier_medium_counts(plan, plane, network)
        for tier, medium, cable, links, cables in rows:
            ws.append([tier, medium or NO_CABLE, _cell(ws, cable or None), _cell(ws, links, number_format=COUNT_FORMAT),
                       _cell(ws, cables, number_format=COUNT_FORMAT)])
        ws.append([_cell(ws, "Total", font=BOLD, border=TOTAL_BORDER), _cell(ws, None, border=TOTAL_BORDER),
                   _cell(ws, None, border=TOTAL_BORDER),
                   _cell(ws, sum(r[3] for r in rows), font=BOLD, number_format=COUNT_FORMAT, border=TOTAL_BORDER),
                   _cell(ws, sum(r[4] for r in rows), font=BOLD, number_format=COUNT_FORMAT,
                         border=TOTAL_BORDER)])


#: rows a worksheet holds (Excel's limit), less the header
MAX_LINKS = 1_048_575


def write_cabling_xlsx(analysis: Analysis, path) -> str:
    plan = cabling_plan(analysis)
    if len(plan) > MAX_LINKS:
        raise ExportError(f"{count(len(plan), 'link')} are more rows than a worksheet holds ({number(MAX_LINKS)}); "
                          "write the cabling plan as CSV (--cabling) instead")
    name = analysis.project.name
    wb = Workbook(write_only=True)
    wb.properties.title = NOT_XML.sub("\ufffd", f"Cabling plan: {name}")
    wb.properties.creator = "PodPlanner"
    _links_sheet(wb, plan)
    n_cables, metres, n_modules = _pull_list_sheet(wb, plan, name)
    _summary_sheet(wb, plan, name, n_cables, metres, n_modules)
    saved = io.BytesIO()
    wb.save(saved)
    strings = _SharedStrings()
    rows = _link_rows_xml(plan, strings)
    write_atomic(path, _with_link_rows(saved.getvalue(), rows, strings))
    return f"{count(len(plan), 'link')}, {count(n_cables, 'cable')}, {count(n_modules, 'transceiver')}"
