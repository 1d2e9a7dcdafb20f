"""A hall's single-line diagram: utility and generators, switchgear, UPS systems, the rows' busways (or panels) per
feed and the rows of racks they feed, each with its rating and the load the analysis finds on it.

Built from the power analysis (its typed view) and the hall's facility, so the diagram says what the figures say,
and laid out here (boxes and wires in millimetres on a sheet), so the window, the PDF appendix and the DXF draw one
drawing. The topology follows the hall's UPS scheme: 2N is two chains, switchgear A to UPS A to every row's A
busway and the same for B, the rows fed by both; N and N+1 one UPS feeding both busways of each row; distributed
redundant one chain per block, a row's A busway on block k and its B on block k + 1 (as the power chain loads
them). The switchgear and the transfer from the generators are drawn as the design implies them and carry the
load through them; the design states no rating for them. A hall of many rows shows its busways per feed and its
rows as one box each, naming the busiest.

A box is marked ``over`` where its load passes its design margin (or its rating): the UPS and generators against
their margins at the site, a busway with its other feed lost against the hall's distribution margin.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..formatting import number, percent

#: at most this many rows are drawn one by one (two busways each: six boxes fill an A4 page's width at full
#: size); more are drawn as one box per feed
MAX_ROWS = 3
#: a box holds a title and three lines of about 24 characters at 6.5 pt: 28 x 13 mm, so that the six boxes of
#: three rows fit an A4 page's width at full size
BOX_W, BOX_H = 28.0, 13.0
GAP_X, GAP_Y = 2.0, 8.0
MARGIN = 2.0


@dataclass(frozen=True)
class Box:
    key: str
    kind: str  # utility, generators, switchgear, ups, busway, racks
    title: str
    lines: tuple[str, ...]
    x: float = 0.0  # left, mm from the sheet's left
    y: float = 0.0  # top, mm from the sheet's top
    w: float = BOX_W
    h: float = BOX_H
    over: bool = False


@dataclass(frozen=True)
class Wire:
    """A connection from box ``a`` (above) to box ``b`` (below), on feed ``side`` ("A", "B" or "")."""

    a: str
    b: str
    side: str = ""


@dataclass(frozen=True)
class SingleLine:
    hall: str
    title: str
    boxes: tuple[Box, ...]
    wires: tuple[Wire, ...]
    width: float
    height: float

    def box(self, key: str) -> Box:
        return next(b for b in self.boxes if b.key == key)


#: the longest row or hall name a box's title or the diagram's title shows whole (a box is 28 mm wide: a busway's
#: title is the row's name and "busway A")
ROW_CHARS, TITLE_CHARS = 7, 60


def _short(text: str, n: int) -> str:
    """A user's name cut to ``n`` characters with an ellipsis (a row may be named anything, at any length)."""
    return text if len(text) <= n else text[:n - 1] + "…"


def _share(load: float, cap: float | None) -> str:
    return f" ({percent(load / cap)})" if cap else ""


def kw(value: float) -> str:
    """Whole kilowatts (a box is small), MW from 10 MW."""
    return f"{number(value / 1000.0, 1)} MW" if value >= 10_000 else f"{number(value, 0)} kW"


def single_line(power, hall) -> SingleLine | None:
    """The single-line diagram of ``hall`` (a model Hall) from ``power`` (the analysis's PowerView); None for a
    hall without rows of racks."""
    f = hall.facility
    # every row the power chain loads, racks without a row as one more (it counts them so, and a DR scheme deals
    # rows to blocks by their place in this list)
    rows = [r for r in power.rows if r.hall == hall.id]
    if not rows:
        return None
    ups = next((u for u in power.ups if u.hall == hall.id), None)
    gen = next((g for g in power.generators if g.hall == hall.id), None)
    scheme = ups.scheme if ups is not None else None
    chains = ([s.name for s in ups.systems] if ups is not None and scheme in ("2N", "DR") else
              [ups.systems[0].name] if ups is not None else ["Switchgear"])
    levels: list[list[Box]] = [[], [], [], [], []]
    wires: list[Wire] = []
    # -- sources ---------------------------------------------------------------------------------------
    levels[0].append(Box("utility", "utility", "Utility supply", ("not rated in the design",)))
    if gen is not None:
        blocks = f", {gen.blocks} blocks" if gen.blocks > 1 else ""  # N+1 in each block
        site = " at site" if gen.derating < 1.0 else ""  # what they deliver there, not their rating
        levels[0].append(Box("generators", "generators", "Generators",
                             (f"{gen.units} x {kw(gen.unit_kw)}, N+{gen.redundant}", f"load {kw(gen.load_kw)}{blocks}",
                              f"of {kw(gen.capacity_kw)}{site}{_share(gen.load_kw, gen.capacity_kw)}"),
                             over=gen.margin_kw is not None and gen.load_kw > gen.margin_kw + 1e-9))
    # -- switchgear and UPS, one chain per system ------------------------------------------------------
    systems = {s.name: s for s in ups.systems} if ups is not None else {}
    for k, chain in enumerate(chains):
        side = "AB"[k] if scheme == "2N" else ""
        sw = f"switchgear-{k}"
        system = systems.get(chain)
        through = (system.normal_kw if system is not None else
                   sum(r.feeds.A.normal_kw + r.feeds.B.normal_kw for r in rows))
        levels[1].append(Box(sw, "switchgear", f"Switchgear {side}".strip() if scheme != "DR" else
                             f"Switchgear {k + 1}", (f"carries {kw(through)}", "transfer to generators"
                                                     if gen is not None else "utility only", "not rated")))
        wires.append(Wire("utility", sw, side))
        if gen is not None:
            wires.append(Wire("generators", sw, side))
        if system is not None:
            key = f"ups-{k}"
            worst = max(system.normal_kw, system.failover_kw)
            partner = ("its partner" if scheme == "2N" else "a block" if scheme == "DR" else "")
            lines = [f"{scheme}, {kw(system.capacity_kw)}", f"normal {kw(system.normal_kw)}"
                     f"{_share(system.normal_kw, system.capacity_kw)}"]
            if partner:
                other = ("B" if k == 0 else "A") if scheme == "2N" else "block"
                lines.append(f"{other} lost {kw(system.failover_kw)}{_share(system.failover_kw, system.capacity_kw)}")
            levels[2].append(Box(key, "ups", chain, tuple(lines),
                                 over=system.margin_kw is not None and worst > system.margin_kw + 1e-9))
            wires.append(Wire(sw, key, side))
    feeders = [f"ups-{k}" if systems.get(c) is not None else f"switchgear-{k}" for k, c in enumerate(chains)]
    # -- busways per row and feed, and the rows -------------------------------------------------------
    element = "RPP" if f.distribution == "rpp" else "busway"
    margin = f.distribution_margin

    def fed_by(pos: int, side: str) -> str:
        if scheme == "2N":
            return feeders[0 if side == "A" else 1]
        if scheme == "DR":
            return feeders[(pos + (0 if side == "A" else 1)) % len(feeders)]
        return feeders[0]

    def run_share(r, feed) -> float:
        """What the row's busiest run carries with the other feed lost, against one run's rating (the figure the
        power chain checks)."""
        return feed.run_failover_kw / (r.rating_kw / r.runs) if r.rating_kw else 0.0

    def over(r, feed) -> bool:
        run = (r.rating_kw or 0.0) / max(r.runs, 1)
        return bool(r.rating_kw) and (feed.run_failover_kw > margin * run + 1e-9
                                      or (r.capacity_kw is not None and feed.run_normal_kw > r.capacity_kw / r.runs
                                          + 1e-9))

    def title(r) -> str:
        return _short(r.row, ROW_CHARS) if r.row else "no row"

    if len(rows) <= MAX_ROWS:
        for pos, r in enumerate(rows):
            for side in ("A", "B"):
                feed = getattr(r.feeds, side)
                key = f"busway-{pos}-{side}"
                rating = (f"{r.runs} x " if r.runs > 1 else "") + (
                    f"{number(r.rating_a)} A" if r.rating_a else "not rated")
                per_run = (r.rating_kw / r.runs) if r.rating_kw else None
                lines = (rating, f"normal {kw(feed.run_normal_kw)}{_share(feed.run_normal_kw, per_run)}",
                         f"{'B' if side == 'A' else 'A'} lost {kw(feed.run_failover_kw)}"
                         f"{_share(feed.run_failover_kw, per_run)}")
                levels[3].append(Box(key, "busway", f"{title(r)} {element} {side}", lines, over=over(r, feed)))
                wires.append(Wire(fed_by(pos, side), key, side))
                wires.append(Wire(key, f"racks-{pos}", side))
            levels[4].append(Box(f"racks-{pos}", "racks", f"Row {_short(r.row, ROW_CHARS)}" if r.row else
                                 "Racks in no row", (f"{number(r.racks)} racks", f"{kw(r.max_kw)} maximum")))
    else:
        for side in ("A", "B"):
            worst = max(rows, key=lambda r: run_share(r, getattr(r.feeds, side)))
            feed = getattr(worst.feeds, side)
            ratings = sorted({r.rating_a for r in rows if r.rating_a})
            key = f"busways-{side}"
            per_run = (worst.rating_kw / worst.runs) if worst.rating_kw else None
            levels[3].append(Box(key, "busway", f"{len(rows)} {element}s {side}",
                                 (", ".join(f"{number(a)} A" for a in ratings) or "not rated",
                                  f"busiest {title(worst)}",
                                  f"{'B' if side == 'A' else 'A'} lost {kw(feed.run_failover_kw)}"
                                  f"{_share(feed.run_failover_kw, per_run)}"),
                                 over=any(over(r, getattr(r.feeds, side)) for r in rows)))
            for feeder in dict.fromkeys(fed_by(pos, side) for pos in range(len(rows))):
                wires.append(Wire(feeder, key, side))
            wires.append(Wire(key, "racks-all", side))
        levels[4].append(Box("racks-all", "racks", f"{number(len(rows))} rows",
                             (f"{number(sum(r.racks for r in rows))} racks",
                              f"{kw(sum(r.max_kw for r in rows))} maximum")))
    return _laid_out(hall, levels, wires)


def _laid_out(hall, levels: list[list[Box]], wires: list[Wire]) -> SingleLine:
    """Each level a line of boxes, centred on the widest."""
    widest = max(len(level) for level in levels if level)
    width = 2 * MARGIN + widest * BOX_W + (widest - 1) * GAP_X
    placed, y = [], MARGIN
    for level in levels:
        if not level:
            continue
        span = len(level) * BOX_W + (len(level) - 1) * GAP_X
        x = (width - span) / 2.0
        for b in level:
            placed.append(Box(b.key, b.kind, b.title, b.lines, x=x, y=y, over=b.over))
            x += BOX_W + GAP_X
        y += BOX_H + GAP_Y
    return SingleLine(hall=hall.id, title=f"{_short(hall.label, TITLE_CHARS)}: single-line diagram",
                      boxes=tuple(placed), wires=tuple(wires), width=width, height=y - GAP_Y + MARGIN)
