"""The quote's "Changes since revision X" page: what changed in the bill since an earlier revision's design.

The lines added, removed and changed are :func:`designer.compare_bill.bill_changes` of the two analyses,
as ``podplanner compare`` prints them; nothing is recomputed here. The table lists them section by section in
the bill's order, at most :data:`MAX_ROWS` of them (then how many more there are), and the two net totals and
their difference below. Bills in two currencies are compared by quantity only, and the page says so.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Paragraph, Spacer

from designer.formatting import money, number
from designer.quote_settings import SECTION_KEYS, SECTION_TITLES

from .. import pdf_style as st
from ..base import ExportError
from .layout import CONTENT_W
from .text import keep_units, plural

if TYPE_CHECKING:
    from designer.analysis import Analysis

    from .quote import Quote

#: Most changed lines the page lists; the rest are counted ("… and 12 more lines").
MAX_ROWS = 60
#: How each kind of change is named in the table, in the order a section lists them.
KINDS = (("added", "Added"), ("removed", "Removed"), ("changed", "Changed"))


def earlier_analysis(path, catalog) -> Analysis:
    """The analysis of an earlier revision's design file, or an ExportError naming the file and what is wrong."""
    from catalog.registry import UnknownDeviceError
    from designer.analysis import analyze
    from designer.fileformat import load

    name = str(path)[-120:]
    try:
        project = load(path, catalog)
    except (ValueError, UnknownDeviceError, OSError) as exc:  # ProjectFileError names the file itself
        text = str(exc).strip("'\"")
        raise ExportError(text if name in text else f"{name}: {text}") from None
    try:
        analysis = analyze(project, catalog)
    except (ValueError, KeyError) as exc:
        raise ExportError(f"{name}: the design cannot be analysed ({str(exc)[:200]})") from None
    if not analysis.has("bom"):
        raise ExportError(f"{name}: the design has no bill of materials to compare with")
    return analysis


def since_revision(quote: Quote) -> str:
    """The earlier revision's letter, as its design file's quote settings hold it."""
    return quote.since.project.quote.revision


def changes(quote: Quote) -> None:
    """The chapter "Changes since revision X", after the priced bill; nothing when no earlier revision is given."""
    if quote.changes is None:
        return
    ch, old, cur = quote.changes, since_revision(quote), quote.cur
    added, removed, changed = ch["added"], ch["removed"], ch["changed"]
    quote.chapter(f"Changes since revision {old}")
    s = quote.story
    now = quote.project.quote.revision
    if not (added or removed or changed):
        s.append(quote.p(quote.t(f"No line of the bill changed between revision {old} and revision {now}: "
                                 "the same parts in the same quantities at the same prices.")))
        return
    s.append(quote.p(quote.t(
        f"What changed in the bill of materials between revision {old} and this revision {now}: "
        f"{plural(len(added), 'line')} added, {len(removed):,} removed and {len(changed):,} changed. A line is "
        "the same in both when it is the same part on the same kind of line (a cable of another length is another "
        "line). Changes are listed by section in the bill's order."
        + (" Unit prices are list prices, as the bill prints them; a change is of the line's extended price, net of "
           "its section's discount." if ch["comparable"] else ""))))
    if not ch["comparable"]:
        s.append(quote.p(quote.t(
            f"Prices cannot be compared: revision {old} is priced in {quote.since.bom.currency} and this revision "
            f"in {cur}. Only the lines and their quantities are compared."), "Note"))
    rows, shown = change_rows(ch)
    s.append(changes_table(quote, rows, ch["comparable"]))
    left = len(added) + len(removed) + len(changed) - shown
    if left:
        s.append(quote.p(quote.t(f"… and {plural(left, 'more line')} (podplanner compare lists every line)."),
                         "Note"))
    if ch["comparable"]:
        s += [Spacer(1, 10), totals_table(quote, old, now)]


def change_rows(ch: dict) -> tuple[list[tuple[str, str, dict]], int]:
    """(section, kind, row) of the changes in the bill's section order, added before removed before changed, cut
    to MAX_ROWS; and how many are kept."""
    order = {k: i for i, k in enumerate(SECTION_KEYS)}
    every = [(r["section"], kind, r) for kind, _ in KINDS for r in ch[kind]]
    kinds = {k: i for i, (k, _) in enumerate(KINDS)}
    every.sort(key=lambda x: (order.get(x[0], len(order)), kinds[x[1]]))  # stable: each kind keeps its order
    kept = every[:MAX_ROWS]
    return kept, len(kept)


def _cells(kind: str, r: dict, cur: str | None) -> tuple[str, str, str, str, str]:
    """Quantity and what it was, unit price and what it was ("" when it did not change), and the change of the
    extended price of one changed line, as the table prints them."""
    if kind == "added":
        return number(r["quantity"]), "", money(r["unit_price"]) if cur else "", "", _signed(r["extended_price"], cur)
    if kind == "removed":
        ext = r["extended_price"]
        return (number(r["quantity"]), "", money(r["unit_price"]) if cur else "", "",
                _signed(-ext if ext is not None else None, cur))
    qa, qb = r["quantity_a"], r["quantity_b"]
    ua, ub = r["unit_price_a"], r["unit_price_b"]
    return (number(qb), number(qa) if qa != qb else "", money(ub) if cur else "",
            money(ua) if cur and ua != ub else "", _signed(r["delta"], cur))


def _signed(x: float | None, cur: str | None, currency: str = "") -> str:
    """A change of price with its sign: +1,200.00, −350.00 (with ``currency`` in front when given); "" when
    prices are not compared."""
    if cur is None:
        return ""
    if x is None:
        return "no price"
    text = money(x, currency)
    return f"+{text}" if x > 0 and any(c in "123456789" for c in text) else text


def widths(quote: Quote, rows: list[tuple[str, str, dict]], comparable: bool) -> list[float]:
    """Kind, part number, description, quantity, unit price, change: the figures never break (a unit price
    that changed takes two lines), the description takes what is left."""
    cur = quote.cur if comparable else None
    cells = [_cells(kind, r, cur) for _, kind, r in rows]
    pad = 7.5

    def widest(texts, least: float) -> float:
        return min(max([least] + [stringWidth(st.printable(x), st.FONT, 7.5) + pad for x in texts]), 150.0)

    w = [widest(["Removed"], 0), widest([r["part_number"] or "–" for _, _, r in rows], 50), 0.0,
         widest([x for c in cells for x in (c[0], f"was {c[1]}")], stringWidth("Qty", st.BOLD, 7.5) + pad)]
    if comparable:
        w += [widest([x for c in cells for x in (c[2], f"was {c[3]}")], 60), widest([c[4] for c in cells], 64)]
    w[1] = min(w[1], 110.0)
    w[2] = CONTENT_W - sum(w)
    return w


def changes_table(quote: Quote, rows: list[tuple[str, str, dict]], comparable: bool):
    """The changed lines under a row per section: kind, part number, description, quantity (a → b), net unit
    price (a → b) and the change of the line's extended price."""
    cur = quote.cur if comparable else None
    w = widths(quote, rows, comparable)
    head = ["", "Part number", "Description", "Qty"] + ([f"Unit price ({cur})", f"Change ({cur})"] if comparable
                                                         else [])
    out: list[list] = [head]
    extra: list = []
    names = dict(KINDS)
    section = None
    for sec, kind, r in rows:
        if sec != section:
            section = sec
            out.append([Paragraph(quote.t(SECTION_TITLES.get(sec, sec)), quote.s["CellBold"])] + [""] * (len(w) - 1))
            n = len(out) - 1
            extra += [("SPAN", (0, n), (-1, n)), ("BACKGROUND", (0, n), (-1, n), st.WHITE),
                      ("LINEBELOW", (0, n), (-1, n), 0.6, st.ACCENT)]
        qty, qty_was, unit, unit_was, change = _cells(kind, r, cur)
        row = [names[kind], r["part_number"] or "–", keep_units(r["description"]), was(quote, qty, qty_was),
               was(quote, unit, unit_was), change]
        out.append(row[:len(w)])
    return quote.table(out, w, numeric=(3, 4, 5)[:len(w) - 3], extra=extra, zebra=False)


def was(quote: Quote, now: str, before: str):
    """A figure, with what it was in the earlier revision in small grey under it (as the bill prints a net
    price under a list price); the plain figure when it did not change."""
    if not before:
        return now
    return Paragraph(f'{quote.t(now)}<br/><font size="6.3" color="#5C6673">was {quote.t(before)}</font>',
                     quote.s["CellRight"])


def totals_table(quote: Quote, old: str, now: str):
    """The two revisions' net totals, as each bill rounded it, and the net change between them."""
    cur = quote.cur
    delta = quote.changes["total_delta"]
    rows = [[f"Total (net), revision {old}", money(quote.since.bom.price_total, cur)],
            [f"Total (net), revision {now} (this quote)", money(quote.bom.price_total, cur)],
            [Paragraph("<b>Net change</b>", quote.s["Cell"]),
             Paragraph(quote.t(_signed(delta, cur, cur)), quote.s["CellRightBold"])]]
    w = [CONTENT_W - 150, 150]
    extra = [("BACKGROUND", (0, 2), (-1, 2), st.TOTAL_FILL), ("LINEABOVE", (0, 0), (-1, 0), 0.8, st.ACCENT)]
    return quote.table(rows, w, head=0, numeric=(1,), extra=extra, zebra=False)
