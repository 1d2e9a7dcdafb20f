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
