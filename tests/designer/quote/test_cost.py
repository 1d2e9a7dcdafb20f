from __future__ import annotations

import math

import pytest

from designer.analysis import analyze
from designer.commands import UpdateQuoteCommand
from designer.fileformat import load
from designer.samples import DGX_B200_SU


@pytest.fixture(scope="module")
def analysis(catalog):
    return analyze(load(DGX_B200_SU, catalog), catalog)


def test_cost_of_ownership_follows_its_formula(analysis):
    c, bom, power = analysis["cost"], analysis["bom"], analysis.result("power")
    years, util, kwh = 4.0, 0.8, 0.10
    assert (c["depreciation_years"], c["utilisation"], c["energy_price_per_kwh"]) == (years, util, kwh)
    assert c["capital"] == bom["one_off_total"] and c["support_per_year"] == bom["yearly_total"]
    energy = power.it_typical_kw * 1.3 * 8760 * util * kwh
    assert math.isclose(c["energy_per_year"], energy, abs_tol=0.01)
    yearly = bom["one_off_total"] / years + energy + bom["yearly_total"]
    assert math.isclose(c["yearly_cost"], yearly, abs_tol=0.01)
    assert math.isclose(c["cost_per_gpu_hour"], yearly / (248 * 8760 * util), rel_tol=1e-4)
    tps = analysis["training"]["tokens_per_s"]
    assert math.isclose(c["cost_per_million_tokens"], yearly / (tps * 3600 * 8760 * util) * 1e6, rel_tol=1e-4)
    assert c["dominant"] == "depreciation"
    assert c["excludes_unpriced"] == ["NVIDIA UFM Enterprise licence and support"]
    assert analysis.summary_json["cost_per_gpu_hour"] == c["cost_per_gpu_hour"]
    # a DGX B200 SuperPOD owned outright lands between the H100 rental floor and hyperscaler list prices
    assert 2.0 < c["cost_per_gpu_hour"] < 14.24


def test_cost_settings_live_in_the_project(catalog):
    project = load(DGX_B200_SU, catalog)
    project, _ = UpdateQuoteCommand({"utilisation": 0.5, "depreciation_years": 3,
                                     "energy_price_per_kwh": 0.2}).apply(project, catalog)
    c = analyze(project, catalog)["cost"]
    assert (c["utilisation"], c["depreciation_years"], c["energy_price_per_kwh"]) == (0.5, 3, 0.2)
    assert math.isclose(c["gpu_hours_per_year"], 248 * 8760 * 0.5)


def test_no_workload_gives_no_token_cost(catalog):
    from designer.model import Project

    c = analyze(Project(), catalog)["cost"]
    assert c["cost_per_gpu_hour"] is None and c["cost_per_million_tokens"] is None and c["gpus"] == 0


def test_no_rate_from_a_bill_split_across_currencies(catalog):
    from designer.quote_settings import PriceEntry

    project = load(DGX_B200_SU, catalog)
    project = project.with_quote(project.quote.updated(prices=(PriceEntry("AR3307", 2400, "EUR", "2026-11-01"),)))
    from dataclasses import replace

    a = analyze(replace(project, currency="EUR"), catalog)
    # one EUR line makes EUR the bill's currency; the USD hardware is summed apart, never converted
    assert a["bom"]["currency"] == "EUR" and a["bom"]["other_currencies"]["USD"] > 2e7
    assert a["bom"]["estimated"] is True
    c = a["cost"]
    assert c["cost_per_gpu_hour"] is None and c["cost_per_million_tokens"] is None
    assert "USD" in c["excludes_currencies"] and any("not converted" in s for s in c["assumptions"])


def test_cost_of_ownership_is_a_function_of_the_quote_and_plain_figures():
    from designer.quote.cost import cost_of_ownership
    from designer.quote_settings import QuoteSettings

    c = cost_of_ownership(QuoteSettings(), currency="USD", capital=4_000_000.0, support_per_year=100_000.0,
                          unpriced=("a licence",), other_currencies={}, pue=1.25, it_typical_kw=100.0, gpus=8,
                          tokens_per_s=None)
    energy = 100.0 * 1.25 * 8760 * 0.8 * 0.10
    assert math.isclose(c["energy_per_year"], energy, abs_tol=0.01)
    assert math.isclose(c["yearly_cost"], 1_000_000 + energy + 100_000, abs_tol=0.01)
    assert math.isclose(c["cost_per_gpu_hour"], (1_100_000 + energy) / (8 * 8760 * 0.8), rel_tol=1e-4)
    assert c["cost_per_million_tokens"] is None and c["excludes_unpriced"] == ["a licence"]
