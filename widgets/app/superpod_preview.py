"""The New SuperPOD dialog's worker part: the preview of a target, and the generator's words made the form's.

Pure, no Qt: :func:`compute_preview` runs on the dialog's worker thread, and a refusal is a result, not a raise.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from catalog import Catalog
from designer.analysis import analyze
from designer.generate import GenerateError, Generated, SuperpodSpec, generate
from designer.generate.build import nearest_fit
from designer.generate.summary import key_lines, key_numbers

from ..dashboards.figures import fabric_kind, plane_text

MAX_SUS = 100_000
#: Hall power and cooling fields: 0 shows as this and means "fitted to the design".
FITTED = "fitted to the design"
#: Secondary text in the form and the preview: the GPUs built beside those asked, the busy status.
MUTED_STYLE = "color: #5C6673;"


# -- the worker's part: pure, no Qt ----------------------------------------------------------------------
@dataclass(frozen=True)
class Preview:
    """What the worker found for ``spec``: a design and its key numbers, or the generator's refusal."""

    spec: SuperpodSpec
    generated: Generated | None = None
    lines: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: the generator's message when it refused the target
    error: str | None = None
    #: for a target too big for its hall: (scalable units, GPUs) of the largest that fits; None if none does
    nearest: tuple[int, int] | None = None
    #: the refusal was "too big for the hall" (so ``nearest`` was looked for)
    fit: bool = False
    numbers: dict = field(default_factory=dict, compare=False)

    @property
    def ok(self) -> bool:
        return self.generated is not None


def compute_preview(spec: SuperpodSpec, catalog: Catalog) -> Preview:
    """Generate, analyse and summarise ``spec`` (runs on the worker thread); a refusal is a result, not a raise."""
    try:
        generated = generate(spec, catalog, with_phases=False)  # the window opens the final design only
    except GenerateError as exc:
        nearest = None
        if exc.fit:
            try:
                near = nearest_fit(spec, catalog)
            except GenerateError:
                near = None
            nearest = None if near is None else (near.sus, near.gpus)
        return Preview(spec, error=str(exc), nearest=nearest, fit=exc.fit)
    analysis = analyze(generated.project, catalog)
    numbers = key_numbers(generated, analysis, catalog)
    return Preview(spec, generated, tuple(_with_fabric_kind(key_lines(numbers), analysis.fabric)),
                   tuple(generated.notes), numbers=numbers)


def _with_fabric_kind(lines: list[str], fabric) -> list[str]:
    """``lines`` with the compute fabric's technology and planes after its switch counts:
    'fabric technology: Spectrum-X Ethernet, 2 planes (16 leaf + 8 spine per plane)'."""
    lines = list(lines)
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("compute fabric")), len(lines))
    per = plane_text(fabric)
    lines.insert(at, f"fabric technology: {fabric_kind(fabric)}" + (f" ({per})" if per else ""))
    return lines


# -- words: the generator speaks in command-line flags; the dialog in its own field names ----------------
def readable(message: str, catalog: Catalog) -> str:
    """``message`` with the command line's flags put as the dialog's fields."""
    def switch(m: re.Match) -> str:
        try:
            return f"the {catalog.get(m.group(1)).name} as compute switch"
        except Exception:  # noqa: BLE001 - an unknown id stays as written
            return f"compute switch {m.group(1)}"

    text = re.sub(r"--switch (\S+)", switch, message)
    text = re.sub(r"--rack-kw (\S+)", r"rack power \1 kW", text)
    text = re.sub(r"--nodes-per-rack (\S+)", r"\1 DGX per rack", text)
    text = re.sub(r"--sus (\S+)", r"\1 scalable units", text)
    text = re.sub(r"--storage-tier\b", "storage tier", text)
    text = re.sub(r"--storage-pb\b", "storage capacity (PB)", text)
    text = re.sub(r"--storage-appliance\b", "storage appliance", text)

    def named(m: re.Match) -> str:  # a catalog id left in the advice reads as the model's name
        dev = catalog.find(m.group(0))
        named_kind = dev is not None and (dev.kind in ("switch", "server", "rack_system") or dev.is_storage)
        return system_name(catalog, dev.id) if named_kind else m.group(0)

    text = re.sub(r"\b[a-z0-9]+(?:-[a-z0-9]+)+\b|\b[a-z]+\d+[a-z0-9]*\b", named, text)
    return text[:1].upper() + text[1:]


def system_name(catalog: Catalog, system: str) -> str:
    """'NVIDIA DGX B200' for dgx-b200: the catalog's name without its kind in brackets."""
    try:
        return catalog.get(system).name.split(" (")[0]
    except Exception:  # noqa: BLE001 - a catalog without the system: its id is all there is
        return system


def fabric_switches(catalog: Catalog, fabric: str = "infiniband") -> list:
    """The switches a compute fabric of ``fabric`` ("infiniband" or "spectrum-x") is built of."""
    protocol = "infiniband" if fabric == "infiniband" else "ethernet"
    return [d for d in catalog if d.kind == "switch"
            and any(g.role == "fabric" and g.protocol == protocol for g in d.ports)]
