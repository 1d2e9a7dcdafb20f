"""What one unit of a bill line costs the buyer (and, from a seller's price list, the seller): from the user's price
list when it names the part, else from the catalog; converted to the quote's currency at one of its stated
exchange rates; and the flags its source and age earn it (indicative, stale, undated).

Money is decimal and rounded to the cent here, once per unit, so that every line's columns multiply.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

from catalog import Catalog, DeviceType

from ..quote_settings import ExchangeRate, PriceEntry, QuoteError, QuoteSettings, conversion, parse_date

CENT = Decimal("0.01")
#: evidence tags of a price a buyer can rely on: a vendor's own list read directly (or verbatim)
CONFIRMED_EVIDENCE = {"P", "P*"}
#: flag of a line whose price was converted from another currency at one of the quote's stated rates
CONVERTED = "converted"
#: decimals a conversion factor is taken to (a bank's reference rate has four to six)
_FACTOR = Decimal("0.000001")


def money(x: Decimal) -> Decimal:
    return x.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class UnitPrice:
    unit: Decimal
    currency: str
    source: str
    date: str
    confirmed: bool
    from_list: bool
    #: a price converted from another currency: (its unit price there, that currency, the rate's factor, the rate)
    converted: tuple[Decimal, str, Decimal, ExchangeRate] | None = None
    #: what one unit costs the seller (a seller's price list's cost column), in ``currency``; None = not given
    cost: Decimal | None = None
    #: the seller's own number for the part, for a line the vendor gives none
    seller_part_number: str = ""


def converted(price: UnitPrice, quote: QuoteSettings, wanted: str) -> UnitPrice:
    """``price`` in ``wanted`` when it is in another currency and the quote states a rate between the two: the
    unit price (and cost) times the rate, rounded to the cent, so that a line's columns multiply in the quote's
    currency."""
    if price.currency == wanted:
        return price
    found = conversion(quote, price.currency, wanted)
    if found is None:
        return price
    factor = Decimal(str(found[0])).quantize(_FACTOR, rounding=ROUND_HALF_UP)
    return replace(price, unit=money(price.unit * factor), currency=wanted,
                   cost=None if price.cost is None else money(price.cost * factor),
                   converted=(price.unit, price.currency, factor, found[1]))


def catalog_price(dev: DeviceType, catalog: Catalog) -> UnitPrice | None:
    if dev.price is None:
        return None
    fig = dev.figure("price.amount")
    source = catalog.sources.get(fig.source).title if fig and fig.source in catalog.sources else ""
    evidence = fig.evidence if fig else "U"
    return UnitPrice(money(Decimal(str(dev.price.amount))), dev.price.currency, source, dev.price.date,
                     evidence in CONFIRMED_EVIDENCE, False)


def list_price(entry: PriceEntry, list_name: str) -> UnitPrice:
    source = entry.source or (f"price list {list_name}" if list_name else "user price list")
    return UnitPrice(money(Decimal(str(entry.amount))), entry.currency, source, entry.date, True, True,
                     cost=None if entry.cost is None else money(Decimal(str(entry.cost))),
                     seller_part_number=entry.seller_part_number)


def price_flags(price: UnitPrice | None, as_of: date, max_age_days: int) -> list[str]:
    if price is None:
        return ["unpriced"]
    flags = []
    if not price.confirmed:
        flags.append("unconfirmed")
    if price.date:
        try:
            age = (as_of - parse_date(price.date, "price date")).days
        except QuoteError:
            age = None
        if age is not None and age > max_age_days:
            flags.append("stale")
    elif price.confirmed:
        flags.append("undated")
    return flags
