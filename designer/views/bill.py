"""Typed views of the ``bom`` and ``cost`` sections: the priced bill, its sections and lines, and the cost of ownership.

Each class mirrors one object of the section, attribute for key; the docstring names its JSON path.
"""
from __future__ import annotations

from collections.abc import Mapping

from .base import Rows, view


@view
class BomLine:
    """``bom.sections[].lines[]``"""
    section: str
    id: str
    manufacturer: str
    part_number: str
    alt_part_number: str
    part_number_unconfirmed: bool
    alt_part_number_unconfirmed: bool
    description: str
    quantity: int
    unit: str
    per_year: bool
    term_years: int
    spare: bool
    basis: str
    flags: tuple[str, ...]
    discount_percent: float
    price_source: str
    price_date: str
    price_confirmed: bool
    price_from_list: bool
    line: int
    #: why the vendor calls the part's figures preliminary; "" when they are not
    preliminary: str = ""
    #: why the line has no part number to order it by (it is then flagged "no-part-number"); "" when it has one
    part_number_note: str = ""
    #: list price of one unit (per year on a subscription line)
    unit_price: float | None = None
    #: the list unit price less the section's discount (per year on a subscription line)
    net_unit_price: float | None = None
    #: subscription lines: the net price of one unit for one year, so that quantity × term_years × it equals
    #: extended_price; None on one-off and unpriced lines
    unit_price_per_year: float | None = None
    list_extended: float | None = None
    extended_price: float | None = None
    currency: str | None = None
    price_unconfirmed: bool | None = None
    length_m: float | None = None
    #: a price converted from another currency (flag "converted"): its list unit price and currency there, and
    #: the factor it was multiplied by (one of the quote's stated exchange rates, or its inverse)
    original_unit_price: float | None = None
    original_currency: str | None = None
    exchange_rate: float | None = None
    #: the part number is the seller's own (a seller's price list's), for a part the vendor numbers nothing for
    part_number_by_seller: bool = False
    #: what one unit (one unit-year on a subscription) costs the seller, from a seller's price list; None = not given
    unit_cost: float | None = None
    #: unit_cost × quantity × term_years
    extended_cost: float | None = None
    #: extended_price - extended_cost: what the line leaves the seller
    margin: float | None = None


@view
class BomSection:
    """``bom.sections[]``"""
    section: str
    title: str
    lines: Rows[BomLine]
    currency: str
    list_subtotal: float
    discount_percent: float
    discount: float
    subtotal: float
    other_currencies: Mapping[str, float]
    subtotals: Mapping[str, float]
    unpriced: int


@view
class PriceListUse:
    """``bom.price_list``"""
    name: str
    entries: int
    used: int
    unused: tuple[str, ...]


@view
class ExchangeRateUse:
    """``bom.exchange_rates[]``: a rate the quote states, and how many lines of the bill it converted"""
    base: str
    quote: str
    rate: float
    date: str
    #: "1 EUR = 1.085 USD (2026-12-01, ECB reference rate)"
    text: str
    lines: int
    source: str = ""


@view
class MarginRow:
    """``bom.margins`` and ``bom.margins.sections[]``: what the bill leaves the seller over its lines with a cost"""
    #: net price of the lines whose cost is known
    net: float
    cost: float
    margin: float
    #: margin / net × 100; None when no line has a cost
    margin_percent: float | None
    costed_lines: int
    #: priced lines (in the bill's currency) whose cost the price list does not give
    uncosted_lines: int
    section: str = ""
    title: str = ""


@view
class Margins(MarginRow):
    """``bom.margins``"""
    sections: Rows[MarginRow] = ()


@view
class BomView:
    """``bom``"""
    currency: str
    as_of: str
    sections: Rows[BomSection]
    list_total: float
    discount_total: float
    price_total: float
    one_off_total: float
    yearly_total: float
    other_currencies: Mapping[str, float]
    totals_by_currency: Mapping[str, float]
    estimated: bool
    unpriced: tuple[str, ...]
    indicative_share: float
    lines: int
    spares_percent: float
    term_years: int
    price_list: PriceListUse
    exclusions: tuple[str, ...]
    notes: tuple[str, ...]
    exchange_rates: Rows[ExchangeRateUse]
    #: the seller's margins: internal, printed in the technical appendix only
    margins: Margins

    def conversion_notes(self) -> list[str]:
        """One sentence per exchange rate the bill's prices were converted at, with its date and source, as
        every copy of the quote states it."""
        out = []
        for r in self.exchange_rates:
            other = r.base if r.quote == self.currency else r.quote
            out.append(f"Prices in {other} are converted to {self.currency} at {r.text}, on "
                       f"{r.lines:,} line{'s' if r.lines != 1 else ''} of the bill.")
        return out


@view
class CostView:
    """``cost``"""
    currency: str
    capital: float
    depreciation_years: float
    utilisation: float
    energy_price_per_kwh: float
    pue: float
    facility_kw: float
    energy_kwh_per_year: float
    energy_per_year: float
    support_per_year: float
    depreciation_per_year: float
    yearly_cost: float
    total_over_period: float
    gpus: int
    gpu_hours_per_year: float
    dominant: str
    excludes_unpriced: tuple[str, ...]
    excludes_currencies: Mapping[str, float]
    assumptions: tuple[str, ...]
    cost_per_gpu_hour: float | None = None
    tokens_per_s: float | None = None
    cost_per_million_tokens: float | None = None

