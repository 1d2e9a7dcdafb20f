"""What changed in the bill between two designs (two revisions of one quote): lines added, removed, and the
quantity and price changes of the lines both hold.

A line is the same line in both when it is the same part on the same kind of line: its section, catalog id,
description (which holds a cable's length and the storage fabric's suffix) and whether it is a spare. Both
bills are read from their analyses; nothing is recomputed. Money is compared only in one currency, as
:mod:`designer.compare` does.
"""
from __future__ import annotations

from .analysis import Analysis
from .formatting import money, number

#: most lines of each kind the text lists (the JSON holds them all)
SHOWN = 40


def _lines(a: Analysis) -> dict[tuple, object]:
    out = {}
    for section in a.bom.sections:
        for ln in section.lines:
            out[(section.section, ln.id, ln.description, ln.spare)] = ln
    return out


def _row(ln, section: str) -> dict:
    return {"section": section, "id": ln.id, "part_number": ln.part_number, "description": ln.description,
            "quantity": ln.quantity, "unit_price": ln.unit_price, "extended_price": ln.extended_price}


def bill_changes(a: Analysis, b: Analysis) -> dict:
    """The ``bill`` part of ``compare --json``: ``added`` and ``removed`` lines, ``changed`` ones (quantity,
    unit price and extended price on each side), and the change of the net total; prices only when both
    bills are in one currency (``comparable``)."""
    la, lb = _lines(a), _lines(b)
    comparable = a.bom.currency == b.bom.currency
    added = [_row(lb[k], k[0]) for k in lb if k not in la]
    removed = [_row(la[k], k[0]) for k in la if k not in lb]
    changed = []
    for k in la.keys() & lb.keys():
        x, y = la[k], lb[k]
        if x.quantity == y.quantity and x.unit_price == y.unit_price and x.extended_price == y.extended_price:
            continue
        delta = (y.extended_price - x.extended_price if comparable and x.extended_price is not None
                 and y.extended_price is not None else None)
        changed.append({"section": k[0], "id": x.id, "part_number": y.part_number, "description": y.description,
                        "quantity_a": x.quantity, "quantity_b": y.quantity, "unit_price_a": x.unit_price,
                        "unit_price_b": y.unit_price, "extended_a": x.extended_price, "extended_b": y.extended_price,
                        "delta": None if delta is None else round(delta, 2)})
    order = {k[0]: i for i, k in enumerate(list(la) + list(lb))}
    changed.sort(key=lambda r: (order.get(r["section"], 0), r["description"]))
    return {"currency": a.bom.currency if comparable else None, "comparable": comparable,
            "added": added, "removed": removed, "changed": changed,
            "total_delta": round(b.bom.price_total - a.bom.price_total, 2) if comparable else None}


def bill_changes_text(changes: dict) -> list[str]:
    """The bill's changes as lines a person reads, after the figures."""
    cur = changes["currency"]
    added, removed, changed = changes["added"], changes["removed"], changes["changed"]
    if not (added or removed or changed):
        return ["Bill: no line changed"]

    def price(x) -> str:
        return "" if x is None or cur is None else f" {'+' if x > 0 else ''}{money(x, cur)}"

    out = [f"Bill changes: {len(added)} added, {len(removed)} removed, {len(changed)} changed"
           + (f"; net total{price(changes['total_delta'])}" if changes["total_delta"] is not None else "")]
    for r in added[:SHOWN]:
        out.append(f"  + {number(r['quantity'])} × {r['description']} ({r['part_number'] or 'no part number'})"
                   + price(r["extended_price"]))
    for r in removed[:SHOWN]:
        out.append(f"  − {number(r['quantity'])} × {r['description']} ({r['part_number'] or 'no part number'})"
                   + price(-r["extended_price"] if r["extended_price"] is not None else None))
    for r in changed[:SHOWN]:
        qty = (f"{number(r['quantity_a'])} → {number(r['quantity_b'])}" if r["quantity_a"] != r["quantity_b"]
               else f"{number(r['quantity_b'])}")
        unit = ""
        if r["unit_price_a"] != r["unit_price_b"] and cur is not None and None not in (r["unit_price_a"],
                                                                                      r["unit_price_b"]):
            unit = f", unit {money(r['unit_price_a'], cur)} → {money(r['unit_price_b'], cur)}"
        out.append(f"  ~ {r['description']}: {qty}{unit}{price(r['delta'])}")
    left = sum(max(0, len(x) - SHOWN) for x in (added, removed, changed))
    if left:
        out.append(f"  and {left:,} more (compare --json lists every line)")
    return out
