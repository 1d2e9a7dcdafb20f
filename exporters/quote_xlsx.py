"""The quote as an XLSX workbook: a summary, one sheet per bill section, and the cost of ownership.

A buyer reworks a quote in a spreadsheet, so every money figure derived from a list
price is a live formula: a line's net unit price and extended price, the section
subtotals, the summary's totals and the cost of ownership. Each section has one
discount cell that its lines refer to, so changing it recomputes the whole workbook.
Each formula cell also stores the value it computes (:mod:`.quote_xlsx_values`), so a
reader that does not recalculate (a previewer, pandas, a mail client) shows every total.
The bill's rounding is kept (the net unit price is rounded to the cent, then
multiplied), so the workbook's totals equal the analysis' to the cent.

A line without a price has empty price cells and says "no price": a formula there
would give 0 and hide that the total leaves it out. A line in another currency than
the bill's stays out of the bill's sums (they are SUMIFs on the currency column) and
gets its own subtotal row.
"""
from __future__ import annotations

import io
from datetime import date

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.hyperlink import Hyperlink
from openpyxl.worksheet.worksheet import Worksheet

from catalog.files import write_atomic
from designer.analysis import Analysis
from designer.formatting import count, number, percent
from designer.quote_settings import QuoteSettings
from designer.views import BomLine, BomSection, BomView

from .bom_csv import bill_of, flag_words
from .quote_xlsx_cost import cost_sheet
from .quote_xlsx_values import Cached, serial, with_values
from .xlsx_cells import (
    BOLD,
    ESTIMATE,
    HEADER_FILL,
    INPUT_FILL,
    MONEY,
    NOT_XML,
    NOTE,
    RIGHT,
    TITLE,
    TOTAL_BORDER,
    WRAP,
    as_text,
    fit_columns,
    put_text,
    ref,
    sheet_name,
)

SUMMARY = "Summary"
COST = "Cost of ownership"

LINE_COLUMNS = ("Line", "Manufacturer", "Part number", "Ordering part number", "Description", "Basis/notes",
                "Qty", "Unit", "Years", "Unit list price", "Discount %", "Net unit price", "Extended price",
                "Currency", "Price source", "Price date", "Flags")
_COL = {name: get_column_letter(i) for i, name in enumerate(LINE_COLUMNS, start=1)}
#: the line columns whose cells are this workbook's own formulas; every other cell of a line is data
FORMULA_COLUMNS = frozenset({"Discount %", "Net unit price", "Extended price"})
#: where the line table starts; the rows above it (title, discount, legend) stay in view with the header
HEADER_ROW = 4
#: the section's one discount cell, above the lines' discount column
DISCOUNT_CELL = f"{_COL['Discount %']}2"
#: longest a column grows before its text is cut off on screen (descriptions and sources are long)
MAX_WIDTH = {"Description": 60, "Basis/notes": 34, "Price source": 44, "Flags": 30}

#: what other modules and the tests take from here
__all__ = ["COST", "DISCOUNT_CELL", "FORMULA_COLUMNS", "HEADER_ROW", "LINE_COLUMNS", "SUMMARY", "build_workbook",
           "put_text", "ref", "sheet_name", "write_quote_xlsx"]


def _money_format(currency: str | None, bill_currency: str) -> str:
    """Bill-currency cells carry the code in their header; another currency's cells carry it in the number."""
    return MONEY if not currency or currency == bill_currency else f'{MONEY} "{currency}"'


class _Widths:
    """The widest content of each column, measured as it is written (formulas measured by what they show)."""

    def __init__(self):
        self.w: dict[str, float] = {}

    def see(self, letter: str, text: str, cap: float = 60) -> None:
        self.w[letter] = min(max(self.w.get(letter, 0), len(text) + 2), cap)


def _quote(analysis: Analysis) -> QuoteSettings:
    """The project's quote settings; an analysis made without its project quotes with the defaults."""
    return analysis.project.quote if analysis.project is not None else QuoteSettings()


# -- a section sheet --------------------------------------------------------------------------------------------

class _SectionCells:
    """Where a section sheet holds what the summary refers to."""

    def __init__(self, sheet: str):
        self.sheet = sheet
        self.list_subtotal = self.net_subtotal = self.one_off = self.per_year = ""
        self.other: dict[str, str] = {}


def _section_sheet(ws: Worksheet, section: BomSection, bom: BomView, project_name: str, max_age_days: int,
                   cached: Cached) -> _SectionCells:
    cur = bom.currency
    cells = _SectionCells(ws.title)
    lines = section.lines
    first, last = HEADER_ROW + 1, HEADER_ROW + len(lines)
    widths = _Widths()
    _section_head(ws, section, cur, project_name, max_age_days, widths)
    for row, ln in enumerate(lines, start=first):
        _line_row(ws, row, ln, cur, widths, cached)
    widths.see(_COL["Discount %"], "100.00")
    # the subtotals below the table are wider than any line's price
    widths.see(_COL["Extended price"], number(section.list_subtotal, 2))
    for other, amount in section.other_currencies.items():
        widths.see(_COL["Extended price"], f"{number(amount, 2)} {other}")

    ws.freeze_panes = f"A{first}"
    ws.auto_filter.ref = f"A{HEADER_ROW}:{_COL['Flags']}{last}"
    ws.print_title_rows = f"{HEADER_ROW}:{HEADER_ROW}"
    ws.page_setup.orientation = "landscape"
    ws.page_setup.fitToWidth, ws.page_setup.fitToHeight = 1, 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True

    at, row = _subtotal_rows(ws, lines, cur, first, last, cached)
    if section.unpriced:
        note = ws[f"{_COL['Net unit price']}{row}"]
        note.value = f"Excludes {count(section.unpriced, 'unpriced line')} (no price)"
        note.alignment, note.font = RIGHT, NOTE
    cells.list_subtotal, cells.net_subtotal = at["list_subtotal"], at["net_subtotal"]
    cells.one_off, cells.per_year = at.get("one_off", ""), at.get("per_year", "")
    cells.other = {k.split(":", 1)[1]: v for k, v in at.items() if k.startswith("other:")}
    fit_columns(ws, widths.w)
    ws.row_dimensions[HEADER_ROW].height = 30
    return cells


def _section_head(ws: Worksheet, section: BomSection, cur: str, project_name: str, max_age_days: int,
                  widths: _Widths) -> None:
    """The title, the section's one discount cell, the legend and the header row of the line table."""
    put_text(ws["A1"], f"{section.title}: {project_name}")
    ws["A1"].font = TITLE
    label = ws.cell(2, LINE_COLUMNS.index("Discount %"), "Section discount % (change it here; negative for an uplift)")
    label.font, label.alignment = BOLD, RIGHT
    disc = ws[DISCOUNT_CELL]
    disc.value = section.discount_percent
    disc.font, disc.fill, disc.number_format = BOLD, INPUT_FILL, "0.00"
    legend = ["est. = indicative price (press, third-party or planning estimate, not a vendor quote)",
              "no price = left out of every total"]
    if any("stale" in ln.flags for ln in section.lines):
        legend.append(f"stale price = older than {count(max_age_days, 'day')}")
    ws["A3"] = "; ".join(legend)
    ws["A3"].font = NOTE
    for col, name in enumerate(LINE_COLUMNS, start=1):
        head = name
        if name in ("Unit list price", "Net unit price", "Extended price"):
            head = f"{name} ({cur})"
        c = ws.cell(HEADER_ROW, col, head)
        c.font, c.fill, c.alignment = BOLD, HEADER_FILL, WRAP
        # a header wraps at its spaces, so its longest word is what the column must hold
        widths.see(get_column_letter(col), max(head.split(), key=len))


def _line_row(ws: Worksheet, row: int, ln: BomLine, cur: str, widths: _Widths, cached: Cached) -> None:
    """One bill line: its data, and for a priced line the formulas of its net and extended price."""
    c = {k: f"{v}{row}" for k, v in _COL.items()}
    values = {
        "Line": ln.line, "Manufacturer": ln.manufacturer, "Part number": ln.part_number or None,
        "Ordering part number": ln.alt_part_number or None, "Description": ln.description,
        "Basis/notes": ln.basis or None, "Qty": ln.quantity, "Unit": ln.unit,
        "Years": ln.term_years, "Discount %": f"=${_COL['Discount %']}$2",
        "Currency": ln.currency, "Price source": ln.price_source or None,
        "Price date": ln.price_date or None,
        "Flags": "; ".join(flag_words(ln, indicative="est.")) or None,
    }
    priced = ln.unit_price is not None
    if priced:
        values["Unit list price"] = ln.unit_price
        # in cents, rounded twice: ROUND(1500*(1-12.345/100),2) meets the float 1314.82499… and gives the
        # wrong cent, while 1500*(100-12.345) is 131482.5 once its float noise is rounded off at 6 places
        values["Net unit price"] = (f"=ROUND(ROUND({c['Unit list price']}*(100-{c['Discount %']}),6),0)/100")
        values["Extended price"] = f"={c['Net unit price']}*{c['Qty']}*{c['Years']}"
    # what the formulas compute to: the bill's own figures, rounded as the formulas round
    computed = {"Discount %": ln.discount_percent, "Net unit price": ln.net_unit_price,
                "Extended price": ln.extended_price}
    for name, value in values.items():
        cell = ws[c[name]]
        if name in FORMULA_COLUMNS:
            cached.put(cell, value, computed[name])
        else:
            put_text(cell, value)
        if name == "Discount %":
            cell.number_format = "0.00"
        elif name == "Qty":
            cell.number_format = "#,##0"
    # an unpriced line's empty price cells are formatted too, for the price a buyer types in
    fmt = _money_format(ln.currency, cur)
    for name in ("Unit list price", "Net unit price", "Extended price"):
        ws[c[name]].number_format = fmt
        if "unconfirmed" in ln.flags:
            ws[c[name]].font = ESTIMATE
    for name in LINE_COLUMNS:
        if name in ("Discount %",):
            continue
        shown = values.get(name)
        if name in ("Net unit price", "Extended price") and priced:
            shown = ln.net_unit_price if name == "Net unit price" else ln.extended_price
        if isinstance(shown, float):
            shown = number(shown, 2) + (f" {ln.currency}" if ln.currency != cur else "")
        elif isinstance(shown, int):
            shown = number(shown)
        if shown:
            widths.see(_COL[name], str(shown), MAX_WIDTH.get(name, 60))


def _subtotal_values(lines, cur: str) -> dict[str, float]:
    """What each subtotal row's formula computes to: the same sums over the lines' figures, an empty price
    counting 0."""
    ext = [(ln, ln.extended_price or 0.0) for ln in lines]
    in_cur = [(ln, e) for ln, e in ext if ln.currency == cur]
    out = {"list_subtotal": sum((ln.unit_price or 0.0) * ln.quantity * ln.term_years for ln, _ in in_cur),
           "net_subtotal": sum(e for _, e in in_cur),
           "one_off": sum(e for ln, e in in_cur if ln.unit == "each"),
           "per_year": sum((ln.net_unit_price or 0.0) * ln.quantity for ln, _ in in_cur if ln.unit != "each")}
    out["discount"] = out["list_subtotal"] - out["net_subtotal"]
    for other in {ln.currency for ln in lines if ln.currency and ln.currency != cur}:
        out[f"other:{other}"] = sum(e for ln, e in ext if ln.currency == other)
    return out


def _subtotal_rows(ws: Worksheet, lines, cur: str, first: int, last: int, cached: Cached
                   ) -> tuple[dict[str, str], int]:
    """The subtotals, below the filtered table so a filter never hides or double-counts them: where each is,
    and the first row below them."""
    span = {k: f"{v}{first}:{v}{last}" for k, v in _COL.items()}
    in_cur = f'({span["Currency"]}="{cur}")'
    rows: list[tuple[str, str, str, str | None]] = [
        ("list_subtotal", f"List subtotal ({cur})",
         f"=SUMPRODUCT({in_cur}*{span['Unit list price']}*{span['Qty']}*{span['Years']})", cur),
        ("discount", f"Discount ({cur})", None, cur),
        ("net_subtotal", f"Net subtotal ({cur})",
         f'=SUMIF({span["Currency"]},"{cur}",{span["Extended price"]})', cur),
    ]
    if any(ln.per_year for ln in lines):
        rows += [
            ("one_off", f"of which one-off ({cur})",
             f'=SUMIFS({span["Extended price"]},{span["Currency"]},"{cur}",{span["Unit"]},"each")', cur),
            ("per_year", f"Subscriptions and support, one year ({cur})",
             f'=SUMPRODUCT({in_cur}*({span["Unit"]}<>"each")*{span["Net unit price"]}*{span["Qty"]})', cur),
        ]
    for other in sorted({ln.currency for ln in lines if ln.currency and ln.currency != cur}):
        rows.append((f"other:{other}", f"Net subtotal in {other}, not converted and not in the {cur} totals",
                     f'=SUMIF({span["Currency"]},"{other}",{span["Extended price"]})', other))
    label_col, value_col = _COL["Net unit price"], _COL["Extended price"]
    computed = _subtotal_values(lines, cur)
    row = last + 2
    at: dict[str, str] = {}
    for key, text, formula, currency in rows:
        at[key] = f"{value_col}{row}"
        if key == "discount":
            formula = f"={at['list_subtotal']}-{value_col}{row + 1}"
        lab, val = ws[f"{label_col}{row}"], ws[at[key]]
        lab.value, lab.alignment = text, RIGHT
        cached.put(val, formula, computed[key])
        val.number_format = _money_format(currency, cur)
        if key == "net_subtotal":
            lab.font = val.font = BOLD
            val.border = TOTAL_BORDER
        row += 1
    return at, row


# -- the summary --------------------------------------------------------------------------------------------------

class _Pairs:
    """A sheet filled top to bottom with label and value pairs; ``out`` keeps where the named values are, and
    ``cached`` what its formulas compute to."""

    def __init__(self, ws: Worksheet, row: int, cached: Cached):
        self.ws, self.row, self.cached = ws, row, cached
        self.out: dict[str, str] = {}

    def pair(self, label: str, value, fmt: str | None = None, key: str | None = None, *,
             computed: float | None = None) -> None:
        """A label and its value; with ``computed``, the value is a formula that computes to it."""
        self.ws.cell(self.row, 1, label).font = BOLD
        cell = self.ws.cell(self.row, 2)
        if computed is not None:
            self.cached.put(cell, value, computed)
        else:
            put_text(cell, value)
        cell.alignment = Alignment(horizontal="left")
        if fmt:
            cell.number_format = fmt
        if key:
            self.out[key] = f"B{self.row}"
        self.row += 1

    def heading(self, text: str) -> None:
        self.row += 1
        self.ws.cell(self.row, 1, text).font = TITLE
        self.row += 1


def _summary_sheet(ws: Worksheet, analysis: Analysis, bom: BomView, sections: list[tuple[BomSection, _SectionCells]],
                   cached: Cached) -> dict[str, str]:
    summary = analysis.summary
    put_text(ws["A1"], f"Quotation: {summary.name}")
    ws["A1"].font = TITLE
    ws["A2"] = (f"Bill of materials from PodPlanner, priced as of {bom.as_of}. Change a section's discount on "
                "its sheet; every price, subtotal and the cost of ownership recompute.")
    ws["A2"].font = NOTE
    sheet = _Pairs(ws, 4, cached)
    _quote_pairs(sheet, analysis, bom)
    sheet.heading("Key figures")
    sheet.pair("GPUs", summary.gpus, "#,##0", "gpus")
    sheet.pair("Racks", summary.racks, "#,##0")
    sheet.pair("BF16 compute (PFLOPS)", summary.bf16_pflops, "#,##0.0")
    sheet.pair("IT power, typical (kW)", summary.it_power_typical_kw, "#,##0.0", "it_kw")
    sheet.pair("IT power, maximum (kW)", summary.it_power_max_kw, "#,##0.0")
    sheet.pair("Facility power, maximum (kW)", summary.facility_power_kw, "#,##0.0")
    if summary.liquid_heat_kw:
        sheet.pair("Heat to liquid (kW)", summary.liquid_heat_kw, "#,##0.0")
    sheet.heading("Price by section")
    _section_table(sheet, sections, bom.currency)
    _other_currencies(sheet, bom, sections)
    _notes(sheet, bom, sections)

    # every money column holds at most the list total; the headers wrap to two lines
    money = max(16, len(number(bom.list_total, 2)) + 2)
    fit_columns(ws, {"A": 30, "B": max(money, 18), "C": 11, "D": money, "E": money, "F": money, "G": money,
                      "H": 10})
    ws.page_setup.orientation = "landscape"
    ws.page_setup.fitToWidth, ws.page_setup.fitToHeight = 1, 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    return sheet.out


def _quote_pairs(sheet: _Pairs, analysis: Analysis, bom: BomView) -> None:
    """Who the quote is for and on what terms."""
    quote = _quote(analysis)
    pair, out = sheet.pair, sheet.out
    pair("Project", analysis.summary.name)
    pair("Customer", quote.customer or None)
    seller = quote.seller
    pair("Seller", " · ".join(x for x in (seller.company, ", ".join(seller.address_lines()), seller.email,
                                          f"tax id {seller.tax_id}" if seller.tax_id else "") if x) or None)
    pair("Prepared by", quote.prepared_by or None)
    pair("Quote number", quote.quote_number or None)
    pair("Revision", quote.revision)
    # the bill prices as of the quote's own date, or the day it was analysed when the quote has none
    day = date.fromisoformat(bom.as_of)
    pair("Quote date", day, "yyyy-mm-dd", "date")
    pair("Valid for (days)", quote.validity_days, "0", "validity")
    pair("Valid until", f"={out['date']}+{out['validity']}", "yyyy-mm-dd",
         computed=serial(day) + quote.validity_days)
    pair("Currency", bom.currency)
    price_list = bom.price_list
    pair("Price list", f"{price_list.name or 'user price list'} ({number(price_list.used)} of "
                       f"{count(price_list.entries, 'entry', 'entries')} used)" if price_list.entries
         else "none: catalog prices")
    pair("Subscriptions and support", count(bom.term_years, "year"))
    spares = bom.spares_percent  # a setting: shown as given, whole or to a tenth
    pair("Spare optics and cables",
         f"{percent(spares / 100, 0 if float(spares).is_integer() else 1)} of each part, rounded up")


def _section_table(sheet: _Pairs, sections: list[tuple[BomSection, _SectionCells]], cur: str) -> None:
    """A row per section sheet (formulas on its subtotals), their total, and the quote's totals below."""
    ws, row, out, cached = sheet.ws, sheet.row, sheet.out, sheet.cached
    put = cached.put
    heads = ("Section", f"List subtotal ({cur})", "Discount %", f"Discount ({cur})", f"Net subtotal ({cur})",
             f"One-off ({cur})", f"Subscriptions per year ({cur})", "Unpriced lines")
    for col, head in enumerate(heads, start=1):
        c = ws.cell(row, col, head)
        c.font, c.fill, c.alignment = BOLD, HEADER_FILL, WRAP
    ws.row_dimensions[row].height = 30
    row += 1
    top = row
    sums = dict.fromkeys((2, 4, 5, 6, 7, 8), 0.0)
    for section, cells in sections:
        s = cells.sheet
        link = as_text(ws.cell(row, 1, section.title))
        link.hyperlink = Hyperlink(ref=link.coordinate, location=ref(s, "A1"))
        link.font = Font(color="1F4E79", underline="single")
        got = {2: cached.get(s, cells.list_subtotal), 5: cached.get(s, cells.net_subtotal)}
        got[4] = got[2] - got[5]
        # a section without subscription lines is all one-off
        got[6] = cached.get(s, cells.one_off) if cells.one_off else got[5]
        got[7] = cached.get(s, cells.per_year) if cells.per_year else 0
        got[8] = section.unpriced or 0
        put(ws.cell(row, 2), f"={ref(s, cells.list_subtotal)}", got[2])
        put(ws.cell(row, 3), f"={ref(s, DISCOUNT_CELL)}", section.discount_percent).number_format = "0.00"
        put(ws.cell(row, 4), f"=B{row}-E{row}", got[4])
        put(ws.cell(row, 5), f"={ref(s, cells.net_subtotal)}", got[5])
        put(ws.cell(row, 6), f"={ref(s, cells.one_off)}" if cells.one_off else f"=E{row}", got[6])
        if cells.per_year:
            put(ws.cell(row, 7), f"={ref(s, cells.per_year)}", got[7])
        else:
            ws.cell(row, 7, 0)
        ws.cell(row, 8, section.unpriced or None)
        for col in range(2, 8):
            if col != 3:
                ws.cell(row, col).number_format = MONEY
        for col in sums:
            sums[col] += got[col]
        row += 1
    bottom = row - 1
    ws.cell(row, 1, "Total").font = BOLD
    for col, total in sums.items():
        letter = get_column_letter(col)
        c = put(ws.cell(row, col), f"=SUM({letter}{top}:{letter}{bottom})", int(total) if col == 8 else total)
        c.number_format = MONEY if col != 8 else "0"
    # the discount the buyer gets over the whole quote, 0 where nothing is priced
    share = 0 if sums[2] == 0 else sums[4] / sums[2] * 100
    put(ws.cell(row, 3), f"=IF(B{row}=0,0,D{row}/B{row}*100)", share).number_format = "0.00"
    for col in range(1, 9):
        ws.cell(row, col).font, ws.cell(row, col).border = BOLD, TOTAL_BORDER
    out.update(list_total=f"B{row}", discount_total=f"D{row}", net_total=f"E{row}", one_off=f"F{row}",
               per_year=f"G{row}", unpriced=f"H{row}")
    row += 2
    for label, key in ((f"Total at list price ({cur})", "list_total"), (f"Discount ({cur})", "discount_total"),
                       (f"Total after discount ({cur})", "net_total")):
        ws.cell(row, 1, label).font = BOLD
        c = put(ws.cell(row, 2), f"={out[key]}", cached.get(ws.title, out[key]))
        c.number_format, c.font = MONEY, (TITLE if key == "net_total" else BOLD)
        out[f"{key}_line"] = f"B{row}"
        row += 1
    sheet.row = row


def _other_currencies(sheet: _Pairs, bom: BomView, sections: list[tuple[BomSection, _SectionCells]]) -> None:
    """A row per other currency the bill holds lines in: their sum, kept out of the totals."""
    for other in sorted(bom.other_currencies):
        held = [(c.sheet, c.other[other]) for _, c in sections if other in c.other]
        sheet.ws.cell(sheet.row, 1, f"Lines priced in {other}, not converted and not in the totals").font = BOLD
        cell = sheet.cached.put(sheet.ws.cell(sheet.row, 2), "=" + "+".join(ref(s, c) for s, c in held),
                                sum(sheet.cached.get(s, c) for s, c in held))
        cell.number_format = _money_format(other, bom.currency)
        sheet.out[f"other:{other}"] = f"B{sheet.row}"
        sheet.row += 1


def _notes(sheet: _Pairs, bom: BomView, sections: list[tuple[BomSection, _SectionCells]]) -> None:
    """What the totals leave out, how much rests on indicative prices, and the bill's own notes."""
    notes = []
    n_unpriced = sum(s.unpriced for s, _ in sections)
    if n_unpriced:
        names = bom.unpriced
        notes.append(f"The totals exclude {count(n_unpriced, 'unpriced line')} (no price): "
                     + "; ".join(names[:6]) + (" …" if len(names) > 6 else ""))
    if bom.estimated:
        notes.append(f"Indicative prices (marked est. on the section sheets: press, third-party or planning "
                     f"estimates, not a vendor quote) make up {percent(bom.indicative_share)} of the net "
                     "total as exported; a vendor quote or price list replaces them.")
    if any(ln.per_year for s, _ in sections for ln in s.lines):
        notes.append(f"Subscriptions and support are quoted for {count(bom.term_years, 'year')}; the per-year "
                     "column is one year of them, and the cost of ownership counts them yearly.")
    notes += bom.conversion_notes()
    notes += list(bom.notes)
    notes += [f"Not included: {text[0].lower()}{text[1:]}" for text in bom.exclusions]
    if not notes:
        return
    ws, row = sheet.ws, sheet.row + 1
    ws.cell(row, 1, "Notes").font = BOLD
    row += 1
    for text in notes:
        c = ws.cell(row, 1)
        put_text(c, text)
        c.font = NOTE
        if text.startswith("The totals exclude"):
            sheet.out["unpriced_note"] = f"A{row}"
        row += 1
    sheet.row = row


def build_workbook(analysis: Analysis) -> tuple[Workbook, int, Cached]:
    """The workbook, the number of section sheets in it and what its formulas compute to."""
    bom = bill_of(analysis)
    name = analysis.summary.name
    wb = Workbook()
    summary_ws = wb.active
    summary_ws.title = SUMMARY
    taken = {SUMMARY.lower(), COST.lower()}
    sections = []
    cached = Cached()
    quote = _quote(analysis)
    max_age = quote.price_max_age_days
    for section in bom.sections:
        ws = wb.create_sheet(sheet_name(section.title, taken))
        sections.append((section, _section_sheet(ws, section, bom, name, max_age, cached)))
    totals = _summary_sheet(summary_ws, analysis, bom, sections, cached)
    cost_sheet(wb.create_sheet(COST), analysis, totals, SUMMARY, cached)
    wb.properties.title = NOT_XML.sub("\ufffd", f"Quotation: {name}")
    wb.properties.creator = NOT_XML.sub("\ufffd", quote.prepared_by) or "PodPlanner"
    return wb, len(sections), cached


def write_quote_xlsx(analysis: Analysis, path) -> str:
    wb, n_sections, cached = build_workbook(analysis)
    buf = io.BytesIO()
    wb.save(buf)
    write_atomic(path, with_values(buf.getvalue(), cached))
    bom = analysis.bom
    unpriced = sum(s.unpriced for s in bom.sections)
    return (f"{count(bom.lines, 'line')} in {count(n_sections, 'section')}"
            + (f", {number(unpriced)} without a price" if unpriced else ""))
