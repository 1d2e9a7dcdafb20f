"""A design's error findings in words, for whatever writes the design out: an export of a design with errors
is written (a draft has its uses) but never silently. The command line exits 1 and names the first errors,
the quote PDF carries a banner on every page, the window asks before it writes.
"""
from __future__ import annotations

from dataclasses import dataclass

from .formatting import count
from .names import Namer

#: errors named in full in a message or on a cover; the rest are counted
SHOWN = 3
#: characters of one error's message kept in a one-line summary
MESSAGE_CHARS = 160


@dataclass(frozen=True)
class DesignErrors:
    """How many error findings a design has and the first :data:`SHOWN` of them ("Rack A01: ...")."""

    count: int
    first: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return self.count > 0

    @property
    def phrase(self) -> str:
        """"the design has 3 errors", to go inside a sentence."""
        return f"the design has {count(self.count, 'error')}"

    @property
    def headline(self) -> str:
        """"The design has 3 errors"."""
        return self.phrase[0].upper() + self.phrase[1:]

    def listing(self) -> str:
        """The first errors, one per line, and how many more."""
        more = self.count - len(self.first)
        return "\n".join(self.first + ((f"… and {count(more, 'more error')}",) if more > 0 else ()))


def design_errors(analysis, shown: int = SHOWN) -> DesignErrors:
    """The error findings of ``analysis`` (an :class:`designer.analysis.Analysis`), their places named as the
    findings panel names them."""
    errors = [f for f in analysis.findings if f.severity == "error"]
    if not errors:
        return DesignErrors(0)
    namer = Namer(analysis.project, analysis.catalog)
    first = []
    for f in errors[:shown]:
        message = " ".join(f.message.split())
        if len(message) > MESSAGE_CHARS:
            message = message[:MESSAGE_CHARS - 1].rstrip() + "…"
        place = namer(f.where)
        if message.lower().startswith((place.lower() + ":", place.lower() + " ")):
            # the message names its place first already ("rack A02 draws ..."): said once
            first.append(message[0].upper() + message[1:])
        else:
            first.append(f"{place}: {message}")
    return DesignErrors(len(errors), tuple(first))
