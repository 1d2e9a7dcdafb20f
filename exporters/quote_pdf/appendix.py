"""The back of the quote: the design checks' findings, the quote's assumptions and exclusions, and the source of
every price and part number with its references."""
from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING

from reportlab.platypus import Paragraph

from catalog.records import EVIDENCE
from designer.formatting import adjustment, number, percent, quantity
from designer.quote_settings import QuoteError, parse_date

from .. import pdf_style as st
from .layout import CONTENT_W
from .text import DAGGER, DOUBLE_DAGGER, NAME_ROOM, fit_lines, long_date, name, percent_typed, plural

if TYPE_CHECKING:
    from .quote import Quote

#: At most this many findings get a row; the rest are counted.
MAX_FINDINGS = 200
#: The width of the findings table's columns.
FINDING_WIDTHS = (50.0, 110.0, CONTENT_W - 160)
#: A finding's places are cut to this many lines of their column.
WHERE_LINES = 4
#: A finding's text longer than this may name a place by a long name: each such name is cut in it.
LONG_FINDING = 400
#: ... of its first this many places (a finding about every rack names a few of them).
NAMED_PLACES = 20
#: A catalog figure's key as the sources table names what is unconfirmed.
FIELD_WORDS = {"price.amount": "price", "part_number": "part number", "power_typical_w": "typical power",
               "power_max_w": "maximum power", "weight_kg": "weight", "u_height": "height in U",
               "airflow_cfm": "airflow", "width_mm": "width", "depth_mm": "depth", "height_mm": "height",
               "liquid_fraction": "liquid-cooled share", "cooling_capacity_kw": "cooling capacity",
               "flow_lpm": "coolant flow", "max_load_kg": "rated load", "reach_m": "reach",
               "host_memory_gb": "host memory", "host_memory_gbs": "host memory bandwidth",
               "host_link_gbs": "GPU-to-host link"}


def field_words(key: str) -> str:
    """A catalog figure's key in words: ``power_typical_w`` -> "typical power", ``ports[1].count`` -> "ports"."""
    if key in FIELD_WORDS:
        return FIELD_WORDS[key]
    if key.startswith("ports["):
        return "ports"
    if key.startswith("psu."):
        return "power supplies"
    if key.startswith("gpu_spec"):
        return "GPU figures"
    words = re.sub(r"_(w|kw|mm|kg|gbps|cfm|lpm|m|v|a)$", "", key.split(".")[-1])
    return words.replace("_", " ")


def findings(quote: Quote) -> None:
    """Every finding of the design checks, errors first, at most MAX_FINDINGS rows (the rest counted by severity)."""
    quote.chapter("Findings")
    fs = list(quote.a.findings)
    if not fs:
        quote.story.append(quote.p("The design checks found nothing to report."))
        return
    order = {"error": 0, "warning": 1, "info": 2}
    fs.sort(key=lambda f: order.get(f.severity, 3))
    counts = Counter(f.severity for f in fs)
    words = {"error": "error", "warning": "warning", "info": "note"}
    said = ", ".join(plural(counts[k], words[k]) for k in words if counts.get(k))
    first = " Errors come first, then warnings, then notes." if counts.get("error") or counts.get("warning") else ""
    quote.story.append(quote.p(quote.t(f"The design checks report {said}.{first}")))
    shown = fs[:MAX_FINDINGS]
    rows = [["Severity", "Where", "Finding"]]
    names = PlaceNames(quote.project)
    for f in shown:
        colour = st.SEVERITY_COLOURS.get(f.severity, st.TEXT).hexval()[2:]
        # each long name cut to two lines of the column, so that "+14 more" after it is still read
        where = names.cut(quote.namer.summary(f.places), f.places, 2 * (FINDING_WIDTHS[1] - 7))
        where = fit_lines(where, FINDING_WIDTHS[1], WHERE_LINES)
        rows.append([Paragraph(f'<font color="#{colour}"><b>{quote.t(f.severity)}</b></font>', quote.s["Cell"]),
                     where, names.cut(f.message, f.places)])
    quote.story.append(quote.table(rows, list(FINDING_WIDTHS)))
    if len(fs) > MAX_FINDINGS:
        rest = Counter(f.severity for f in fs[MAX_FINDINGS:])
        quote.story.append(quote.p(quote.t(
            f"{number(len(fs) - MAX_FINDINGS)} more findings are not listed ("
            + ", ".join(plural(rest[k], words[k]) for k in words if rest.get(k)) + ")."), "Note"))


class PlaceNames:
    """The user's names a finding's places go by (a rack's name, row and hall; a device's name and its rack's),
    to cut where a long text holds them: a 2,000-character rack name in a finding prints as its first hundred
    characters and an ellipsis, and the rest of the finding after it."""

    def __init__(self, project):
        self.project = project
        self._devices: dict[str, tuple] | None = None

    def of(self, place: str) -> list[str]:
        p = self.project
        kind, _, ident = place.partition(":")
        if kind == "rack" and p.has_rack(ident):
            r = p.rack(ident)
            return [r.name, r.row] + self.of(f"hall:{r.hall}")
        if kind == "hall" and p.has_hall(ident):
            return [p.hall(ident).name]
        if kind == "floor" and p.has_floor_device(ident):
            f = p.floor_device(ident)
            return [f.name] + self.of(f"hall:{f.hall}")
        if kind == "device":
            if self._devices is None:
                self._devices = {d.id: (r, d) for r in p.racks for d in r.devices}
            found = self._devices.get(ident)
            if found is not None:
                return [found[1].name] + self.of(f"rack:{found[0].id}")
        return []

    def cut(self, text: str, places, room: float = NAME_ROOM) -> str:
        """``text`` with every long name of ``places`` in it cut to ``room`` as :func:`~.text.name` cuts names."""
        if len(text) <= LONG_FINDING:
            return text
        raw = sorted({n for place in places[:NAMED_PLACES] for n in self.of(place) if n}, key=len, reverse=True)
        for n in raw:
            short = name(n, room)
            if short != n and n in text:
                text = text.replace(n, short)
        return text


def sources(quote: Quote) -> None:
    """The last chapter: what the quote assumes and leaves out, and where every price and part number comes
    from, with the references they cite."""
    quote.chapter("Assumptions and sources")
    s = quote.story
    s += quote.subheading("Quote assumptions")
    for text in assumptions(quote):
        s.append(Paragraph(quote.t(text), quote.s["Bullet"], bulletText="•"))
    if quote.bom.exclusions:
        s += quote.subheading("Not included")
        for text in quote.bom.exclusions:
            s.append(Paragraph(quote.t(text), quote.s["Bullet"], bulletText="•"))
    part_sources(quote)


def assumptions(quote: Quote) -> list[str]:
    """The terms of the quote (date, currency, term, spares, marks, discounts, exclusions) and the settings its
    engineering figures rest on, one sentence each."""
    b, q = quote.bom, quote.project.quote
    rates = "; ".join(r.text for r in b.exchange_rates)
    items = [f"Prices as of {long_date(parse_date(b.as_of, 'as of'))}, in {quote.cur}, excluding tax and "
             "shipping; " + (f"prices in other currencies converted at {rates}." if rates
                             else "no currency is converted."),
             f"Subscriptions and support are quoted for {plural(b.term_years, 'year')}.",
             f"Spare optics and cables: {percent_typed(b.spares_percent)} of each part, rounded up.",
             f"A price older than {plural(q.price_max_age_days, 'day')} is marked {DOUBLE_DAGGER}; a price from a "
             f"press, third-party or planning source is marked {DAGGER}."]
    disc = {k: v for k, v in q.discounts if v}
    if disc:
        titles = {sec.section: sec.title for sec in b.sections}
        items.append("Price adjustments on list: "
                     + ", ".join(f"{titles.get(k, k)} {adjustment(v)}" for k, v in disc.items()) + ".")
    else:
        items.append("No discount is applied: every price is the list price.")
    if q.excluded:
        items.append("Left off at the customer's request: " + ", ".join(quote.name_of(i) for i in q.excluded) + ".")
    power, cooling, training = quote.optional("power"), quote.optional("cooling"), quote.optional("training")
    if power is not None:
        pw = power.settings
        items.append(f"Power: PUE {pw.pue:g}, power factor {pw.power_factor:g}, PDUs loaded "
                     f"to at most {percent(pw.derating)} of their rating.")
    if cooling is not None:
        co = cooling.settings
        items.append(f"Cooling: {co.coolant_name} at "
                     f"{quantity(co.coolant_delta_t_k, 'K')} rise, air at {quantity(co.air_delta_t_k, 'K')} rise.")
    if training is not None and training.workload_source:
        items.append(f"Training estimate: workload {training.workload_source}.")
    return items + list(b.notes)


def part_sources(quote: Quote) -> None:
    """Each part's price source and part number source, numbered references to the documents they cite, and
    the list of those references."""
    s = quote.story
    s += quote.subheading("Where prices and part numbers come from")
    s.append(quote.p(quote.t(
        "For every part on the bill: the source of its price, with its date and age, and of its part number, "
        "with how sure each is. "
        "Unconfirmed figures (not found in a vendor document) are marked; numbers in brackets refer to the "
        "references below."), "Note"))
    refs: dict[str, int] = {}
    ref_rows: list[tuple[str, str]] = []

    def ref(key: str, title: str, url: str = "") -> str:
        if key not in refs:
            refs[key] = len(refs) + 1
            ref_rows.append((title, url))
        return f"[{refs[key]}]"

    rows = [["Part", "Price source", "Part number source"]]
    seen = set()
    for sec in quote.bom.sections:
        for ln in sec.lines:
            if ln.id in seen:
                continue
            seen.add(ln.id)
            dev = quote.catalog.find(ln.id)
            price_cell = figure_text(quote, dev, "price.amount", ref) if dev is not None else ""
            if ln.price_from_list:
                price_cell = f"{ref('list:' + ln.price_source, ln.price_source)} the price list loaded"
            elif ln.unit_price is None:
                price_cell = "no price known"
            if ln.unit_price is not None:
                price_cell += price_age(quote, ln.price_date)
            pn_cell = figure_text(quote, dev, "part_number", ref) if dev is not None and ln.part_number else \
                "no part number known"
            part = quote.t(dev.name if dev is not None else ln.description.removeprefix("Spare: "))
            unconf = list(dict.fromkeys(field_words(k) for k in (dev.unconfirmed_fields if dev else ())
                                        if k not in ("price.amount", "part_number")))
            if unconf:
                part += f'<br/><font size="6.3" color="#5C6673">unconfirmed: {quote.t(", ".join(unconf))}</font>'
            rows.append([Paragraph(part, quote.s["Cell"]), Paragraph(price_cell, quote.s["Cell"]),
                         Paragraph(pn_cell, quote.s["Cell"])])
    s.append(quote.table(rows, [150, (CONTENT_W - 150) / 2, (CONTENT_W - 150) / 2]))
    if ref_rows:
        s += quote.subheading("References")
        rrows = [["#", "Source"]]
        for i, (title, url) in enumerate(ref_rows, 1):
            text = quote.t(title) + (f'<br/><font size="6.3" color="#5C6673">{quote.t(url)}</font>' if url else "")
            rrows.append([str(i), Paragraph(text, quote.s["Cell"])])
        s.append(quote.table(rrows, [24, CONTENT_W - 24], numeric=(0,)))


def price_age(quote: Quote, dated: str) -> str:
    """A price's date and its age on the quote's date, as a grey line under its source; "undated" without one."""
    if not dated:
        return '<br/><font size="6.3" color="#5C6673">undated</font>'
    try:
        on = parse_date(dated, "price date")
    except QuoteError:  # a date the price list spells its own way: printed as it is
        return f'<br/><font size="6.3" color="#5C6673">dated {quote.t(dated)}</font>'
    age = (quote.on - on).days
    when = f"{plural(age, 'day')} before the quote" if age >= 0 else f"{plural(-age, 'day')} after the quote"
    return f'<br/><font size="6.3" color="#5C6673">dated {quote.t(long_date(on))}, {when}</font>'


def figure_text(quote: Quote, dev, field: str, ref) -> str:
    """How sure a catalog figure is and the reference it rests on; an indicative price gets its dagger."""
    fig = dev.figure(field)
    if fig is None:
        return '<font color="#5C6673">no source recorded</font>'
    src = quote.catalog.sources.get(fig.source)
    label = ref(fig.source, src.title if src else fig.source, src.url if src else "")
    how = EVIDENCE.get(fig.evidence, fig.evidence)
    text = f"{label} {quote.t(how)}"
    if fig.unconfirmed:
        text = f"{label} <b>unconfirmed</b>: {quote.t(how.split(': ', 1)[-1])}"
    elif fig.evidence not in ("P", "P*"):
        text += f" {DAGGER}" if field == "price.amount" else ""
    if fig.note:
        text += f'<br/><font size="6.3" color="#5C6673">{quote.t(fig.note)}</font>'
    return text
