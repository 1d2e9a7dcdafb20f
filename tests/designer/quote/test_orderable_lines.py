"""Every line orderable: a part number on every line of the bill, or a note saying why there is none and a flag;
subscription lines whose columns multiply (quantity × years × unit price per year = extended price)."""
from __future__ import annotations

from decimal import Decimal

import drawn
import pytest

from designer.analysis import analyze
from designer.fileformat import load
from designer.generate.build import generate
from designer.generate.spec import SuperpodSpec
from designer.quote.lines import NO_PART_NUMBER
from designer.quote_settings import QuoteSettings
from designer.samples import DGX_B200_SU, GB200_NVL72_SU
from designer.views.base import build
from designer.views.bill import BomLine

DESIGNS = ("sample:dgx-b200", "sample:gb200-nvl72", "drawn:dgx-b200", "drawn:gb200-nvl72", "dgx-b200:4",
           "gb200-nvl72:1", "dgx-b300:1", "gb300-nvl72:1")


def _lines(a):
    return [ln for s in a["bom"]["sections"] for ln in s["lines"]]


@pytest.fixture(scope="module", params=DESIGNS)
def design(request, catalog):
    kind, _, arg = request.param.partition(":")
    if kind == "sample":
        project = load({"dgx-b200": DGX_B200_SU, "gb200-nvl72": GB200_NVL72_SU}[arg], catalog)
    elif kind == "drawn":
        project = load({"dgx-b200": drawn.DGX_B200_SU, "gb200-nvl72": drawn.GB200_NVL72_SU}[arg], catalog)
    else:
        project = generate(SuperpodSpec(system=kind, sus=int(arg)), catalog).project
    return project, analyze(project, catalog)


def test_every_line_has_a_part_number_or_says_why_and_is_flagged(design):
    _, a = design
    lines = _lines(a)
    assert lines
    for ln in lines:
        if ln["part_number"]:
            assert ln["part_number_note"] == "" and NO_PART_NUMBER not in ln["flags"], ln["id"]
        else:
            assert ln["part_number_note"].strip() and NO_PART_NUMBER in ln["flags"], ln["id"]
    missing = sorted({ln["description"] for ln in lines if not ln["part_number"] and not ln["spare"]})
    found = [f for f in a.findings if f.code == "bom-no-part-number"]
    if missing:
        (finding,) = found
        assert finding.severity == "info" and all(name in finding.message for name in missing[:6])
    else:
        assert not found


def test_every_subscription_line_multiplies_to_the_cent(design):
    _, a = design
    subs = [ln for ln in _lines(a) if ln["per_year"]]
    assert subs
    for ln in _lines(a):
        if not ln["per_year"] or ln["extended_price"] is None:
            assert ln["unit_price_per_year"] is None, ln["id"]
            continue
        unit = Decimal(str(ln["unit_price_per_year"]))
        assert unit == Decimal(str(ln["net_unit_price"]))
        assert ln["quantity"] * ln["term_years"] * unit == Decimal(str(ln["extended_price"])), ln["id"]


def test_subscription_columns_multiply_with_a_discount_and_another_term(catalog):
    project = load(DGX_B200_SU, catalog)
    quote = (project.quote or QuoteSettings()).updated(term_years=5, discounts={"software": 7.5})
    a = analyze(project.with_quote(quote), catalog)
    (nvaie,) = [ln for ln in _lines(a) if ln["id"] == "nvaie"]
    assert nvaie["term_years"] == 5 and nvaie["unit_price"] == 4500
    assert nvaie["unit_price_per_year"] == nvaie["net_unit_price"] == 4162.5
    assert nvaie["quantity"] * 5 * Decimal("4162.5") == Decimal(str(nvaie["extended_price"]))


def test_the_software_lines_carry_their_price_list_part_numbers_as_unconfirmed(design):
    _, a = design
    by_id = {ln["id"]: ln for ln in _lines(a)}
    assert by_id["nvaie"]["part_number"] == "731-AI7003+P1CMI36"
    assert by_id["mission-control"]["part_number"] == "744-SW7001+P1CMI36"
    assert by_id["nvaie"]["part_number_unconfirmed"] and by_id["mission-control"]["part_number_unconfirmed"]


def test_a_planning_item_says_it_has_no_vendor_model(design, catalog):
    _, a = design
    nodes = [ln for ln in _lines(a) if ln["id"] == "mgmt-node"]
    assert len(nodes) == (1 if a["devices"]["by_type"].get("mgmt-node") else 0)
    for node in nodes:
        assert node["part_number"] == "" and node["part_number_note"].startswith("no vendor model")
    assert catalog.get("mgmt-node").figure("part_number").source == "R1"


def test_the_typed_view_reads_the_new_keys(design):
    _, a = design
    views = [build(BomLine, ln, "bom.sections[].lines[]") for ln in _lines(a)]
    assert any(v.part_number_note for v in views)
    assert any(v.unit_price_per_year for v in views)
