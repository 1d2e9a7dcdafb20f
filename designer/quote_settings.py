"""What a quote needs beyond the design: who it is for, discounts, optional lines, price lists, cost settings.

It lives in the project file (``quote``) so that a design quotes the same everywhere. The
cost-of-ownership defaults carry their sources (shared reference ``quote.md`` §5):
depreciation 4 years ("4 yr is common for clusters", a public compute-cost framework, [S]);
utilisation 80 % (owning beats renting above about 70 %, [U]); energy US$0.10 per kWh (the
worked example of a public energy-versus-capex comparison, [S]). Spares default to 3 %
of optics and cables, inside the 2-5 % the DCIM reference suggests; NVIDIA publishes none.
"""
from __future__ import annotations

import math
import re
import unicodedata
from .quote_seller import Seller, SellerError, seller_from_json
from dataclasses import dataclass, fields, replace
from datetime import date

from .bounds import MAX_TEXT_CHARS, encodable, text_problem

#: Bill sections in quote order: (key, title).
SECTIONS = (
    ("compute", "Compute"),
    ("network", "Networking"),
    ("storage", "Storage"),
    ("optics", "Optics and cables"),
    ("power", "Power"),
    ("cooling", "Cooling"),
    ("racks", "Racks and facility"),
    ("software", "Software and support"),
    ("services", "Services"),
)
SECTION_KEYS = tuple(k for k, _ in SECTIONS)
SECTION_TITLES = dict(SECTIONS)

_DATE_RE = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")
_CURRENCY_RE = re.compile(r"^[A-Z]{3}$")
_REVISION_RE = re.compile(r"^[A-Z]{1,2}$")
#: the lowest discount: an uplift of 100 % over list (a negative discount is an uplift)
MIN_DISCOUNT = -100.0
#: Longest text field a quote keeps (a customer name, a quote number): the design's one bound for a text.
MAX_TEXT = MAX_TEXT_CHARS


class QuoteError(ValueError):
    """A quote setting or price-list entry that cannot be used, with the place in words."""


def parse_date(text: str, where: str) -> date:
    """``YYYY-MM-DD`` or ``YYYY-MM`` (the first of the month) as a date."""
    if not isinstance(text, str) or not _DATE_RE.match(text.strip()):
        raise QuoteError(f"{where}: {text!r} is not a date such as 2026-03-16")
    parts = [int(p) for p in text.strip().split("-")]
    try:
        return date(parts[0], parts[1], parts[2] if len(parts) == 3 else 1)
    except ValueError as exc:
        raise QuoteError(f"{where}: {text!r} is not a date ({exc})") from None


@dataclass(frozen=True, slots=True)
class PriceEntry:
    """One line of a user's price list: a part's price in a currency, as of a date."""

    part_number: str
    amount: float
    currency: str
    date: str = ""
    #: where the price came from ("Acme distributor quote 4711"); the list's file name when not given
    source: str = ""
    #: what one unit costs the seller, in the price's currency: the internal appendix's margins; None = not given
    cost: float | None = None
    #: the seller's own number for the part, put on a bill line that has no vendor part number (a service, a
    #: generic cord); "" = none
    seller_part_number: str = ""

    def __post_init__(self) -> None:
        _keep_nfc(self, ("part_number", "date", "source", "seller_part_number"))

    @property
    def key(self) -> str:
        return part_key(self.part_number)

    def to_json(self) -> dict:
        d = {"part_number": self.part_number, "amount": self.amount, "currency": self.currency}
        if self.date:
            d["date"] = self.date
        if self.source:
            d["source"] = self.source
        if self.cost is not None:
            d["cost"] = self.cost
        if self.seller_part_number:
            d["seller_part_number"] = self.seller_part_number
        return d


#: the keys a price entry may have in a project file, and those it must
PRICE_KEYS = frozenset({"part_number", "amount", "currency", "date", "source", "cost", "seller_part_number"})
PRICE_REQUIRED = frozenset({"part_number", "amount", "currency"})


def _nfc(value: object) -> object:
    return unicodedata.normalize("NFC", value) if isinstance(value, str) and not value.isascii() else value


def _keep_nfc(obj, names: tuple[str, ...]) -> None:
    """Text is kept in NFC, as every text a design holds (designer.bounds): "é" typed as one character or
    as e and an accent is one part number, and a length is counted as the file will hold it."""
    for name in names:
        value = getattr(obj, name)
        if isinstance(value, str) and not value.isascii():
            object.__setattr__(obj, name, unicodedata.normalize("NFC", value))


def part_key(part_number: str) -> str:
    """How part numbers are matched: case and surrounding blanks do not matter."""
    return part_number.strip().upper()


@dataclass(frozen=True, slots=True)
class ExchangeRate:
    """One unit of ``base`` buys ``rate`` units of ``quote``, as stated on ``date`` by ``source`` (a bank's
    reference rate, the seller's treasury): how a price in ``base`` is put on a quote in ``quote``."""

    base: str
    quote: str
    rate: float
    date: str
    source: str = ""

    def __post_init__(self) -> None:
        _keep_nfc(self, ("date", "source"))

    def to_json(self) -> dict:
        d = {"base": self.base, "quote": self.quote, "rate": self.rate, "date": self.date}
        if self.source:
            d["source"] = self.source
        return d

    def text(self) -> str:
        """"1 EUR = 1.0850 USD (2026-12-01, ECB reference rate)" — how the quote states it."""
        return (f"1 {self.base} = {self.rate:,.6g} {self.quote} ({self.date}"
                + (f", {self.source}" if self.source else "") + ")")


#: most exchange rates a quote keeps (one per currency pair is all a quote needs)
MAX_EXCHANGE_RATES = 50


def check_exchange_rate(r: ExchangeRate, where: str) -> None:
    for name in ("base", "quote"):
        value = getattr(r, name)
        if not isinstance(value, str) or not _CURRENCY_RE.match(value):
            raise QuoteError(f"{where}.{name}: {value!r:.40} is not an ISO 4217 code such as USD")
    if r.base == r.quote:
        raise QuoteError(f"{where}: converts {r.base} to itself")
    _number(r.rate, f"{where}.rate", 1e-6, 1e6)
    if r.rate <= 0:
        raise QuoteError(f"{where}.rate: must be more than 0")
    _text(r.date, f"{where}.date")
    if not r.date:
        raise QuoteError(f"{where}.date: a rate is stated as of a date; give one such as 2026-12-01")
    parse_date(r.date, f"{where}.date")
    _text(r.source, f"{where}.source")


def exchange_rate_from_json(doc: object, where: str) -> ExchangeRate:
    keys = {"base", "quote", "rate", "date", "source"}
    if not isinstance(doc, dict) or set(doc) - keys or not {"base", "quote", "rate", "date"} <= set(doc):
        raise QuoteError(f"{where}: must be an object with base, quote, rate, date and optionally source")
    rate = ExchangeRate(**doc)
    check_exchange_rate(rate, where)
    return rate


class CheckedPrices(tuple):
    """Price entries already checked: a quote edit that keeps them (typing a customer's name with a
    100,000-line list loaded) does not check them again."""


@dataclass(frozen=True, slots=True)
class QuoteSettings:
    customer: str = ""
    prepared_by: str = ""
    quote_number: str = ""
    #: the quote's revision letter: A for the first issue, then B, C, ... Z, AA ... as it is re-issued
    revision: str = "A"
    #: ISO date the prices are quoted on; "" = the day the design is analysed
    quote_date: str = ""
    validity_days: int = 30
    #: section key -> discount in percent off list; a negative one is an uplift over list (down to -100: double)
    discounts: tuple[tuple[str, float], ...] = ()
    #: spare optics and cables, percent of each part's quantity (rounded up per part)
    spares_percent: float = 3.0
    #: years of subscriptions and support on the quote
    term_years: int = 3
    #: catalog ids of optional quote lines the user took off (e.g. "nvaie", "service-install-dgx")
    excluded: tuple[str, ...] = ()
    #: a price older than this many days (or from an unconfirmed source) is flagged
    price_max_age_days: int = 365
    #: the user's price list, overriding catalog prices by part number
    prices: tuple[PriceEntry, ...] = ()
    price_list_name: str = ""
    #: the rates prices in another currency are converted at, each stated with its date
    exchange_rates: tuple[ExchangeRate, ...] = ()
    # cost of ownership
    depreciation_years: float = 4.0
    utilisation: float = 0.8
    energy_price_per_kwh: float = 0.10
    #: who sells: company, address, contact, logo and default terms (designer/quote_seller.py)
    seller: Seller = Seller()

    def __post_init__(self) -> None:
        _keep_nfc(self, _TEXT_FIELDS)
        if isinstance(self.excluded, tuple) and not all(type(e) is str and e.isascii() for e in self.excluded):
            object.__setattr__(self, "excluded", tuple(_nfc(e) for e in self.excluded))
        check_quote(self)
        if not isinstance(self.prices, CheckedPrices):
            object.__setattr__(self, "prices", CheckedPrices(self.prices))

    @property
    def discount_map(self) -> dict[str, float]:
        return dict(self.discounts)

    def discount(self, section: str) -> float:
        return self.discount_map.get(section, 0.0)

    def updated(self, **changes) -> QuoteSettings:
        """A copy with some settings changed; lists are taken as tuples, anything else of a wrong type refused."""
        if "discounts" in changes and isinstance(changes["discounts"], dict):
            changes["discounts"] = tuple(sorted((k, v) for k, v in changes["discounts"].items() if v != 0))
        for key in ("excluded", "prices", "exchange_rates"):
            if isinstance(changes.get(key), list):
                changes[key] = tuple(changes[key])
        if isinstance(changes.get("seller"), dict):
            try:
                changes["seller"] = seller_from_json(changes["seller"])
            except SellerError as exc:
                raise QuoteError(str(exc)) from None
        return replace(self, **changes)

    def with_discount(self, section: str, percent: float) -> QuoteSettings:
        d = self.discount_map
        d[section] = percent
        return self.updated(discounts=d)

    def to_json(self) -> dict:
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "discounts":
                value = dict(value)
            elif f.name == "prices":
                value = [p.to_json() for p in value]
            elif f.name == "excluded":
                value = list(value)
            elif f.name == "exchange_rates":
                if not value:  # a quote without rates saves as it did before rates existed
                    continue
                value = [r.to_json() for r in value]
            elif f.name == "revision" and value == "A":  # a first issue saves as it did before revisions
                continue
            elif f.name == "seller":
                if value.empty:  # a quote without a seller saves as it did before sellers existed
                    continue
                value = value.to_json()
            out[f.name] = value
        return out


def _text(value: object, where: str) -> None:
    if not isinstance(value, str):
        raise QuoteError(f"{where}: must be text, got {value!r}")
    # the one bound every text of a design is held to (designer/bounds.py), and what XML (so XLSX) and PDF
    # text cannot carry besides
    if not encodable(value) or any(c in "\ufffe\uffff" for c in value):
        raise QuoteError(f"{where}: holds a lone surrogate or a non-character")
    problem = text_problem(value)
    if problem is not None:
        raise QuoteError(f"{where}: {problem}")


def _number(value: object, where: str, lo: float, hi: float, *, whole: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and not isinstance(value, int)):
        raise QuoteError(f"{where}: must be a {'whole ' if whole else ''}number, got {value!r}")
    try:
        ok = math.isfinite(value) and lo <= value <= hi
    except OverflowError:
        ok = False
    if not ok:
        raise QuoteError(f"{where}: must be between {lo:g} and {hi:g}, got {value!r:.40}")


def check_currency(code: object, where: str) -> str:
    """``code`` when it is an ISO 4217 code such as USD; a QuoteError naming ``where`` otherwise."""
    if not isinstance(code, str) or not _CURRENCY_RE.match(code):
        raise QuoteError(f"{where}: {code!r:.40} is not an ISO 4217 code such as USD")
    return code


def check_price_entry(p: PriceEntry, where: str) -> None:
    _text(p.part_number, f"{where}.part_number")
    if not p.part_number.strip():
        raise QuoteError(f"{where}.part_number: is empty")
    _number(p.amount, f"{where}.amount", 0, 1e12)
    if not isinstance(p.currency, str) or not _CURRENCY_RE.match(p.currency):
        raise QuoteError(f"{where}.currency: {p.currency!r} is not an ISO 4217 code such as USD")
    _text(p.date, f"{where}.date")  # "" when not given; 0 or false is no date either
    if p.date:
        parse_date(p.date, f"{where}.date")
    _text(p.source, f"{where}.source")
    if p.cost is not None:
        _number(p.cost, f"{where}.cost", 0, 1e12)
    _text(p.seller_part_number, f"{where}.seller_part_number")


_TEXT_FIELDS = ("customer", "prepared_by", "quote_number", "price_list_name", "quote_date", "revision")


def check_quote(q: QuoteSettings) -> None:
    for name in _TEXT_FIELDS:
        _text(getattr(q, name), f"quote.{name}")
    if q.quote_date:
        parse_date(q.quote_date, "quote.quote_date")
    if not _REVISION_RE.match(q.revision):
        raise QuoteError(f"quote.revision: {q.revision!r:.40} is not a revision letter (A to Z, then AA to ZZ)")
    _number(q.validity_days, "quote.validity_days", 1, 3650, whole=True)
    if not isinstance(q.discounts, tuple):
        raise QuoteError("quote.discounts: must map sections to percentages")
    for key, pct in q.discounts:
        if key not in SECTION_TITLES:
            raise QuoteError(f"quote.discounts.{key}: is not a section ({', '.join(SECTION_KEYS)})")
        _number(pct, f"quote.discounts.{key}", MIN_DISCOUNT, 100)
        # net prices are rounded to the cent from list × (100 - discount); three decimals keep that exact
        if round(pct, 3) != pct:
            raise QuoteError(f"quote.discounts.{key}: give at most three decimals, got {pct!r}")
    _number(q.spares_percent, "quote.spares_percent", 0, 100)
    _number(q.term_years, "quote.term_years", 1, 10, whole=True)
    if not isinstance(q.excluded, tuple):
        raise QuoteError(f"quote.excluded: must be a list of catalog ids, got {q.excluded!r:.40}")
    for i, ident in enumerate(q.excluded):
        _text(ident, f"quote.excluded[{i}]")
    _number(q.price_max_age_days, "quote.price_max_age_days", 1, 36500, whole=True)
    if not isinstance(q.prices, tuple):
        raise QuoteError("quote.prices: must be a list of prices")
    if not isinstance(q.prices, CheckedPrices):
        _check_prices(q.prices)
    if not isinstance(q.exchange_rates, tuple):
        raise QuoteError("quote.exchange_rates: must be a list of rates")
    if len(q.exchange_rates) > MAX_EXCHANGE_RATES:
        raise QuoteError(f"quote.exchange_rates: {len(q.exchange_rates):,} rates; at most {MAX_EXCHANGE_RATES}")
    pairs: set[frozenset] = set()
    for i, r in enumerate(q.exchange_rates):
        if not isinstance(r, ExchangeRate):
            raise QuoteError(f"quote.exchange_rates[{i}]: must be an exchange rate, got {r!r:.40}")
        check_exchange_rate(r, f"quote.exchange_rates[{i}]")
        pair = frozenset((r.base, r.quote))
        if pair in pairs:  # EUR->USD and USD->EUR both given could disagree: one rate per pair
            raise QuoteError(f"quote.exchange_rates[{i}]: a rate between {r.base} and {r.quote} is given twice")
        pairs.add(pair)
    _number(q.depreciation_years, "quote.depreciation_years", 0.5, 30)
    _number(q.utilisation, "quote.utilisation", 0.01, 1)
    _number(q.energy_price_per_kwh, "quote.energy_price_per_kwh", 0, 100)
    if not isinstance(q.seller, Seller):
        raise QuoteError(f"quote.seller: must be a seller, got {q.seller!r:.40}")


def _check_prices(prices: tuple) -> None:
    seen: set[str] = set()
    for i, p in enumerate(prices):
        if not isinstance(p, PriceEntry):
            raise QuoteError(f"quote.prices[{i}]: must be a price entry, got {p!r:.40}")
        check_price_entry(p, f"quote.prices[{i}]")
        if p.key in seen:
            raise QuoteError(f"quote.prices[{i}]: part number {p.part_number!r} is listed twice")
        seen.add(p.key)


def quote_from_json(doc: object, where: str = "quote") -> QuoteSettings:
    """Quote settings from a project file's ``quote`` object; errors name the exact key."""
    if not isinstance(doc, dict):
        raise QuoteError(f"{where}: must be an object")
    known = {f.name for f in fields(QuoteSettings)}
    for key in doc:
        if key not in known:
            raise QuoteError(f"{where}.{key}: is not a quote setting ({', '.join(sorted(known))})")
    d = dict(doc)  # (the settings keep their text in NFC themselves)
    if "discounts" in d:
        if not isinstance(d["discounts"], dict):
            raise QuoteError(f"{where}.discounts: must map sections to percentages")
        d["discounts"] = tuple(sorted(d["discounts"].items()))
    if "excluded" in d:
        if not isinstance(d["excluded"], list):
            raise QuoteError(f"{where}.excluded: must be a list of catalog ids")
        d["excluded"] = tuple(d["excluded"])
    if "prices" in d:
        if not isinstance(d["prices"], list):
            raise QuoteError(f"{where}.prices: must be a list")
        entries = []
        for i, p in enumerate(d["prices"]):
            if not isinstance(p, dict) or set(p) - PRICE_KEYS or not set(p) >= PRICE_REQUIRED:
                raise QuoteError(f"{where}.prices[{i}]: must be an object with part_number, amount, currency "
                                 "and optionally date, source, cost and seller_part_number")
            entry = PriceEntry(**p)
            check_price_entry(entry, f"{where}.prices[{i}]")
            if entry.amount == 0:  # -0.0 is 0.0
                entry = replace(entry, amount=entry.amount + 0)
            entries.append(entry)
        d["prices"] = tuple(entries)
    if "exchange_rates" in d:
        if not isinstance(d["exchange_rates"], list):
            raise QuoteError(f"{where}.exchange_rates: must be a list")
        if len(d["exchange_rates"]) > MAX_EXCHANGE_RATES:
            raise QuoteError(f"{where}.exchange_rates: {len(d['exchange_rates']):,} rates; "
                             f"at most {MAX_EXCHANGE_RATES}")
        d["exchange_rates"] = tuple(exchange_rate_from_json(r, f"{where}.exchange_rates[{i}]")
                                    for i, r in enumerate(d["exchange_rates"]))
    if "seller" in d:
        try:
            d["seller"] = seller_from_json(d["seller"], f"{where}.seller")
        except SellerError as exc:
            raise QuoteError(str(exc)) from None
    return QuoteSettings(**d)


def next_revision(letter: str) -> str:
    """The revision after ``letter``: B after A, AA after Z, AB after AA; ZZ is the last."""
    if letter == "ZZ":
        raise QuoteError("quote.revision: ZZ is the last revision letter")
    if len(letter) == 1:
        return "AA" if letter == "Z" else chr(ord(letter) + 1)
    head, tail = letter
    return chr(ord(head) + 1) + "A" if tail == "Z" else head + chr(ord(tail) + 1)


def conversion(q: QuoteSettings, base: str, to: str) -> tuple[float, ExchangeRate] | None:
    """(factor, the stated rate) that turns an amount in ``base`` into ``to``: the rate stated for the pair, or
    the inverse of the one stated the other way; None when the quote states none."""
    for r in q.exchange_rates:
        if r.base == base and r.quote == to:
            return r.rate, r
        if r.base == to and r.quote == base:
            return 1 / r.rate, r
    return None


def effective_date(q: QuoteSettings, today: date | None = None) -> date:
    """The day prices are quoted on: the quote's own date, or today."""
    return parse_date(q.quote_date, "quote.quote_date") if q.quote_date else (today or date.today())


__all__ = ["SECTIONS", "SECTION_KEYS", "SECTION_TITLES", "ExchangeRate", "PriceEntry", "QuoteError", "QuoteSettings",
           "check_currency", "check_quote", "conversion", "effective_date", "next_revision", "parse_date", "part_key",
           "quote_from_json"]
