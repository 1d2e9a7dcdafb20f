"""The drawings: each hall's floor plan to scale, and one elevation per distinct rack build."""
from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING

from reportlab.platypus import CondPageBreak, Flowable, PageBreak, Spacer, Table

from ..elevation_drawing import elevation_drawing, short_name
from ..plan_drawing import plan_drawing
from .layout import CONTENT_W, Deferred, PageCount, table_style
from designer.formatting import number

from .text import name, plural

if TYPE_CHECKING:
    from designer.analysis import Analysis

    from .quote import Quote

#: At most this many rack builds get an elevation (the most common first), halls a plan.
MAX_ELEVATIONS = 12
MAX_HALLS = 12
#: Height of one rack elevation: two side by side fill a page with their captions.
ELEVATION_H = 560.0


class PlanFlowable(Flowable):
    """A hall plan drawn for the room left on the page (at a standard scale), or moved to the next page
    when less than ``min_height`` is left; like :class:`Deferred`, not drawn in the first pass."""

    def __init__(self, analysis: Analysis, hall_id: str, colour_by: str, pages: PageCount,
                 min_height: float = 320.0, max_height: float = 760.0):
        super().__init__()
        self.analysis, self.hall_id, self.colour_by, self.pages = analysis, hall_id, colour_by, pages
        self.min_height, self.max_height = min_height, max_height
        self._cache: dict[tuple[float, float], object] = {}
        self.drawing = None

    def wrap(self, availWidth, availHeight):
        if availHeight < self.min_height:
            return availWidth, self.min_height
        # rounded down: a drawing a hundredth of a point taller than the room left goes to the next page
        key = (math.floor(availWidth * 10) / 10, math.floor(min(availHeight, self.max_height) * 10) / 10)
        if key not in self._cache:
            self._cache[key] = plan_drawing(self.analysis, self.hall_id, width=key[0], height=key[1] - 2,
                                            colour_by=self.colour_by)
        self.drawing = self._cache[key]
        self.width, self.height = self.drawing.width, self.drawing.height + 2
        return self.width, self.height

    def draw(self):
        if self.pages.total is not None:
            self.drawing.drawOn(self.canv, 0, 0)


def floor_plan(quote: Quote) -> None:
    """Each hall's plan, at most MAX_HALLS of them, racks coloured by what they hold."""
    quote.chapter("Floor plan")
    halls = quote.project.halls
    if not halls:
        quote.story.append(quote.p("The design has no hall to draw."))
        return
    quote.story.append(quote.p(
        "Each hall to scale, racks coloured by what they hold; the dark edge of a rack is its front "
        "(cold aisle side). Rack names are printed where the rack is large enough on paper to carry one.", "Note"))
    for i, hall in enumerate(halls[:MAX_HALLS]):
        if len(halls) > 1:
            if i:
                quote.story.append(PageBreak())
            quote.story += quote.subheading(hall.name or hall.id)
        quote.story.append(PlanFlowable(quote.a, hall.id, "role", quote.pages))
    if len(halls) > MAX_HALLS:
        quote.story.append(quote.p(f"{number(len(halls) - MAX_HALLS)} more halls are not drawn: "
                                   + quote.t(", ".join(name(h.name or h.id) for h in halls[MAX_HALLS:])), "Note"))


def builds(quote: Quote) -> list[list]:
    """Racks grouped by build (rack type, and every device's type, U and face), most common first."""
    groups: dict[tuple, list] = {}
    for r in quote.project.racks:
        key = (r.type, tuple(sorted((d.type, -1.0 if d.u is None else float(d.u), d.face) for d in r.devices)))
        groups.setdefault(key, []).append(r)
    return sorted(groups.values(), key=lambda rs: -len(rs))


def elevations(quote: Quote) -> None:
    """One elevation per distinct rack build, two to a row, the most common builds first."""
    quote.chapter("Rack elevations")
    groups = builds(quote)
    if not groups:
        quote.story.append(quote.p("The design has no racks."))
        return
    shown = groups[:MAX_ELEVATIONS]
    racks = len(quote.project.racks)
    covered = sum(len(b) for b in shown)
    intro = (f"{plural(racks, 'rack')} in {plural(len(groups), 'distinct build')}: racks with the same rack "
             "type and the same devices at the same U positions share one elevation. Labels name the catalog "
             "part; a device mounted on one face also takes its U on the other, shown there as an outline.")
    if len(groups) > len(shown):
        intro += (f" The {len(shown)} most common builds are drawn ({number(covered)} of {number(racks)} racks); "
                  f"the other {number(len(groups) - len(shown))} builds ({number(racks - covered)} racks) are "
                  "summarised in the bill of materials only.")
    quote.story.append(quote.p(quote.t(intro), "Note"))
    cells = [elevation_cell(quote, i + 1, b) for i, b in enumerate(shown)]
    col = CONTENT_W / 2
    for i in range(0, len(cells), 2):
        pair = cells[i:i + 2] + ([""] if len(cells[i:i + 2]) == 1 else [])
        t = Table([pair], colWidths=[col, col])
        t.setStyle(table_style([("VALIGN", (0, 0), (-1, -1), "TOP"), ("LEFTPADDING", (0, 0), (-1, -1), 2),
                                ("RIGHTPADDING", (0, 0), (-1, -1), 10), ("TOPPADDING", (0, 0), (-1, -1), 4)]))
        quote.story += [CondPageBreak(ELEVATION_H + 60), t, Spacer(1, 8)]


def elevation_cell(quote: Quote, n: int, racks: list) -> list:
    """A build's elevation with what it holds, named by catalog part and face, as its caption."""
    rack = racks[0]
    names = [r.name or r.id for r in racks]
    e_g = ", ".join(names[:3]) + (" …" if len(names) > 3 else "")
    title = f"Build {n}  × {plural(len(racks), 'rack')}"
    drawing = Deferred(elevation_drawing(rack, quote.catalog, width=CONTENT_W / 2 - 14, height=ELEVATION_H,
                                         title=title, subtitle=f"e.g. {e_g}"), quote.pages)
    parts = Counter()
    for d in rack.devices:
        dev = quote.catalog.find(d.type)
        if dev is None:
            continue
        where = f"{d.face}, 0U" if d.u is None or not dev.u_height else d.face
        parts[(short_name(dev), where)] += 1
    contents = "; ".join(f"{n} × {name} ({where})" for (name, where), n in sorted(parts.items())) or "empty"
    rtype = quote.catalog.find(rack.type)
    caption = f"<b>{quote.t(rtype.name if rtype else rack.type)}</b>: {quote.t(contents)}"
    return [drawing, Spacer(1, 4), quote.p(caption, "Caption")]
