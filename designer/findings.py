"""A finding: one violated limit or inconsistency, with its severity and the object it belongs to.

Every engine returns its findings in this one shape, so the CLI, the findings
panel and the exporters treat them alike. ``where`` is ``"rack:<id>"``,
``"hall:<id>"``, ``"floor:<id>"`` or ``"project:<section>"``, so the GUI can
select and centre the object and the JSON output can name it for scripts. It is
never shown to people as it is: :class:`designer.names.Namer` names the place
("Rack A01", "Bill of materials"), and a message names objects by their names.
"""
from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("error", "warning", "info")
SEVERITY_ORDER = {s: i for i, s in enumerate(SEVERITIES)}
#: The CLI and ``analyze --json`` list at most this many findings of one code and count the rest
#: (a hall of 100,000 racks over their limit is a hundred lines and a count, not 100,000 lines).
LISTED_PER_CODE = 100


@dataclass(frozen=True, slots=True)
class Finding:
    severity: str
    code: str
    message: str
    where: str
    #: every object the finding is about, when it is about more than one (``where`` is the first)
    also: tuple[str, ...] = ()

    @property
    def places(self) -> tuple[str, ...]:
        return (self.where, *(p for p in self.also if p != self.where))

    def to_json(self) -> dict:
        return {"severity": self.severity, "code": self.code, "message": self.message, "where": self.where,
                "places": list(self.places)}


def sort_findings(findings) -> list[Finding]:
    """Errors first, then by place and code: the order the CLI and the panel show."""
    return sorted(findings, key=lambda f: (SEVERITY_ORDER[f.severity], f.where, f.code))


@dataclass(frozen=True, slots=True)
class LeftOut:
    """Findings of one code past the first :data:`LISTED_PER_CODE`: how many, and the worst severity among them."""

    code: str
    severity: str
    count: int

    def text(self) -> str:
        return f"and {self.count:,} more {self.code} finding{'' if self.count == 1 else 's'}"


def listed(findings, per_code: int = LISTED_PER_CODE) -> tuple[list[Finding], list[LeftOut]]:
    """The findings to list, in their order (the first ``per_code`` of each code), and what is left out, by code."""
    seen: dict[str, int] = {}
    kept: list[Finding] = []
    worst: dict[str, str] = {}
    for f in findings:
        n = seen[f.code] = seen.get(f.code, 0) + 1
        if n <= per_code:
            kept.append(f)
        elif f.code not in worst or SEVERITY_ORDER[f.severity] < SEVERITY_ORDER[worst[f.code]]:
            worst[f.code] = f.severity
    return kept, [LeftOut(code, severity, seen[code] - per_code) for code, severity in worst.items()]
