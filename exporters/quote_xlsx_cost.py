"""The quote workbook's cost of ownership sheet: straight-line depreciation, energy and subscriptions, as live
formulas on the cost engine's inputs and the Summary's totals."""
from __future__ import annotations

from typing import Mapping

from openpyxl.styles import Font
from openpyxl.worksheet.worksheet import Worksheet

from designer.analysis import Analysis
from designer.formatting import number
from designer.quote.cost import no_tokens_of
from designer.views import CostView

from .quote_xlsx_goodput import goodput_lines, storage_lines
from .quote_xlsx_values import Cached
from .xlsx_cells import BOLD, INPUT_FILL, MONEY, NOTE, TITLE, fit_columns, put_text, ref

HOURS_PER_YEAR = 8760


class _CostLines:
    """The cost sheet's rows: label, value (an input on yellow, or a formula) and unit; ``at`` keeps where each
    value is, by key, for the formulas below it, and ``v`` the value itself (what a formula computes to)."""

    def __init__(self, ws: Worksheet, row: int, cached: Cached):
        self.ws, self.row, self.cached = ws, row, cached
        self.at: dict[str, str] = {}
        self.v: dict[str, float] = {}

    def line(self, key: str, label: str, value, unit: str, fmt: str, *, given: bool = False,
             bold: bool = False, computed: float | None = None) -> None:
        """A row; with ``computed``, ``value`` is a formula that computes to it."""
        ws, row = self.ws, self.row
        ws.cell(row, 1, label).font = BOLD if bold else Font()
        c = ws.cell(row, 2)
        if computed is not None:
            self.cached.put(c, value, computed)
            self.v[key] = computed
        else:
            c.value = value
            self.v[key] = value
        c.number_format = fmt
        if given:
            c.fill = INPUT_FILL
        if bold:
            c.font = BOLD
        ws.cell(row, 3, unit).font = NOTE
        self.at[key] = f"B{row}"
        self.row += 1

    def heading(self, text: str) -> None:
        self.ws.cell(self.row, 1, text).font = TITLE
        self.row += 1


def cost_sheet(ws: Worksheet, analysis: Analysis, totals: Mapping[str, str], summary: str, cached: Cached) -> None:
    """The cost of ownership on ``ws``: its inputs, and every result a formula on them and on the ``summary``
    sheet's totals (the cells ``totals`` names, their values in ``cached``, where the results' go too)."""
    cost = analysis.cost
    put_text(ws["A1"], f"Cost of ownership: {analysis.summary.name}")
    ws["A1"].font = TITLE
    ws["A2"] = ("Straight-line over the depreciation period. The inputs on yellow can be changed; "
                "every result below them is a formula.")
    ws["A2"].font = NOTE
    rows = _CostLines(ws, 4, cached)
    rows.heading("Inputs")
    _cost_inputs(rows, analysis, totals, summary)
    rows.row += 1
    rows.heading("Results")
    _cost_results(rows, cost, no_tokens_of(analysis.training if analysis.has("training") else None))
    rows.row += 1
    rows.heading("Left out")
    left_out = list(cost.assumptions)
    if cost.excludes_unpriced:
        left_out.append("lines without a price: " + "; ".join(cost.excludes_unpriced))
    for text in left_out:
        put_text(ws.cell(rows.row, 1), text)
        ws.cell(rows.row, 1).font = NOTE
        rows.row += 1
    goodput_lines(rows, analysis)
    storage_lines(rows, analysis)
    # column B holds the inputs and results; the largest of them sets its width
    figures = (cost.capital, cost.support_per_year, cost.energy_kwh_per_year, cost.energy_per_year,
               cost.yearly_cost, cost.total_over_period, cost.gpu_hours_per_year, cost.tokens_per_s)
    largest = max(abs(v) for v in figures if v is not None)
    fit_columns(ws, {"A": 50, "B": max(18, len(number(largest, 2)) + 2), "C": 50})


def _cost_inputs(rows: _CostLines, analysis: Analysis, totals: Mapping[str, str], summary: str) -> None:
    """The capital and subscriptions from the Summary's totals, and the cost engine's inputs, on yellow."""
    cost, line, got = analysis.cost, rows.line, rows.cached.get
    cur = cost.currency
    line("capital", "Capital: one-off net total (hardware and services)", f"={ref(summary, totals['one_off'])}",
         f"{cur}, from the Summary", MONEY, computed=got(summary, totals["one_off"]))
    line("support", "Subscriptions and support per year", f"={ref(summary, totals['per_year'])}",
         f"{cur} per year, from the Summary", MONEY, computed=got(summary, totals["per_year"]))
    line("years", "Depreciation period", cost.depreciation_years, "years", "0.0#", given=True)
    line("util", "Utilisation", cost.utilisation, "share of the year the GPUs work", "0%", given=True)
    line("price", "Energy price", cost.energy_price_per_kwh, f"{cur} per kWh", "0.000#", given=True)
    line("it_kw", "IT power, typical under sustained training", analysis.summary.it_power_typical_kw, "kW",
         "#,##0.000", given=True)
    line("pue", "PUE", cost.pue, "facility power / IT power", "0.00", given=True)
    line("gpus", "GPUs", cost.gpus, "", "#,##0", given=True)
    tps = cost.tokens_per_s  # None without a training workload or a plan that runs: the cell stays empty, never 0
    why = no_tokens_of(analysis.training if analysis.has("training") else None)
    line("tps", "Training throughput", tps, "tokens per second" if tps else f"{why}: not given",
         "#,##0.0", given=True)
    line("hours", "Hours per year", HOURS_PER_YEAR, "h", "#,##0")


def _cost_results(rows: _CostLines, cost: CostView, why_no_tokens: str) -> None:
    """Every result as a formula on the inputs above it, each computed here as its formula computes it (the
    inputs' bounds keep every divisor above 0)."""
    a, v, line, cur = rows.at, rows.v, rows.line, cost.currency
    line("facility_kw", "Facility power (IT × PUE)", f"={a['it_kw']}*{a['pue']}", "kW", "#,##0.000",
         computed=v["it_kw"] * v["pue"])
    line("energy_kwh", "Energy per year", f"={a['facility_kw']}*{a['hours']}*{a['util']}",
         "kWh: facility kW × 8,760 h × utilisation", "#,##0.0", computed=v["facility_kw"] * v["hours"] * v["util"])
    line("energy", "Energy cost per year", f"={a['energy_kwh']}*{a['price']}", f"{cur} per year", MONEY,
         computed=v["energy_kwh"] * v["price"])
    line("depreciation", "Depreciation per year", f"={a['capital']}/{a['years']}", f"{cur} per year: capital / years",
         MONEY, computed=v["capital"] / v["years"])
    line("yearly", "Yearly cost", f"={a['depreciation']}+{a['energy']}+{a['support']}",
         f"{cur} per year: depreciation + energy + subscriptions", MONEY, bold=True,
         computed=v["depreciation"] + v["energy"] + v["support"])
    line("total", "Total over the depreciation period", f"={a['capital']}+({a['energy']}+{a['support']})*{a['years']}",
         f"{cur}: capital + (energy + subscriptions) × years", MONEY,
         computed=v["capital"] + (v["energy"] + v["support"]) * v["years"])
    line("gpu_hours", "GPU-hours per year", f"={a['gpus']}*{a['hours']}*{a['util']}",
         "GPUs × 8,760 h × utilisation", "#,##0.0", computed=v["gpus"] * v["hours"] * v["util"])
    if cost.gpus:
        line("per_gpu_hour", "Cost per GPU-hour", f"={a['yearly']}/{a['gpu_hours']}", f"{cur}: yearly cost / GPU-hours",
             "#,##0.0000", bold=True, computed=v["yearly"] / v["gpu_hours"])
    else:
        line("per_gpu_hour", "Cost per GPU-hour", "not given", "the design has no GPUs", "@")
    if cost.tokens_per_s:
        line("per_m_tokens", "Cost per million tokens",
             f"={a['yearly']}/({a['tps']}*3600*{a['hours']}*{a['util']})*1000000",
             f"{cur}: yearly cost / tokens per year × 10⁶", "#,##0.0000", bold=True,
             computed=v["yearly"] / (v["tps"] * 3600 * v["hours"] * v["util"]) * 1000000)
    else:
        line("per_m_tokens", "Cost per million tokens", "not given", why_no_tokens, "@")


