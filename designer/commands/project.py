"""Edits of the project as a whole: its name, design settings, workload and quote."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..bounds import WORKLOAD_MAX
from ..quote_settings import SECTION_TITLES, QuoteError, check_currency
from ..settings import SettingsError
from .base import Change, Command, CommandError, FieldEdit
from .validation import check_bounded, checked_text


@dataclass
class RenameProjectCommand(Command):
    name: str
    label: str = "Rename project"
    merge_key = "project-name"

    def apply(self, project, catalog):
        name = checked_text(self.name, "project name")
        if not name.strip():
            raise CommandError("a project needs a name")
        return project.renamed(name), Change(project=True)


@dataclass
class UpdateSettingsCommand(FieldEdit):
    """Change design assumptions (PUE, coolant, delta-T ...); out-of-range values are refused, and so is an
    InfiniBand fabric of two planes (its switches' ports do not split; twin planes are Ethernet's)."""

    changes: dict
    label: str = "Edit design settings"

    def apply(self, project, catalog):
        try:
            settings = project.settings.updated(**self.changes)
        except (SettingsError, TypeError) as exc:
            raise CommandError(str(exc)) from None
        if ({"fabric_technology", "fabric_planes"} & set(self.changes) and settings.fabric_technology == "infiniband"
                and settings.fabric_planes > 1):
            raise CommandError("an InfiniBand fabric is one plane: a Quantum switch's ports do not split, so a GPU's "
                               "port cannot be shared by two planes; twin planes are built of Ethernet switches "
                               "(Spectrum-X or RoCE)")
        return project.with_settings(settings), Change(project=True)


@dataclass
class SetWorkloadCommand(Command):
    """Set the training job the design is sized for (None clears it)."""

    workload: dict | None
    label: str = "Edit workload"
    merge_key = "workload"

    def apply(self, project, catalog):
        workload = {}
        for key, value in (self.workload or {}).items():
            key = checked_text(key, "workload setting")
            if isinstance(value, str):
                value = checked_text(value, f"workload {key}")
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                check_bounded(value, f"workload {key}", (-WORKLOAD_MAX, WORKLOAD_MAX))
            elif not isinstance(value, bool) and value is not None:
                raise CommandError(f"workload {key} must be text, a number or true/false")
            workload[key] = value
        return project.with_workload(workload), Change(project=True)


@dataclass
class UpdateQuoteCommand(FieldEdit):
    """Change the quote's settings (customer, validity, spares, term, cost settings, price list ...).

    ``changes`` maps :class:`~designer.quote_settings.QuoteSettings` fields to new values; a value
    out of range is refused with the setting named.
    """

    changes: dict
    label: str = "Edit quote"

    def apply(self, project, catalog):
        try:
            quote = project.quote.updated(**self.changes)
        except (QuoteError, TypeError) as exc:
            raise CommandError(str(exc)) from None
        return project.with_quote(quote), Change(project=True)


@dataclass
class SetCurrencyCommand(Command):
    """Set the currency the quote is totalled in (ISO 4217, such as USD or EUR). A price in another currency is
    converted at one of the quote's stated exchange rates, or stays out of the total and says so."""

    currency: str
    label: str = "Set quote currency"
    merge_key = "project-currency"

    def apply(self, project, catalog):
        try:
            code = check_currency(self.currency.strip().upper() if isinstance(self.currency, str) else self.currency,
                                  "currency")
        except QuoteError as exc:
            raise CommandError(str(exc)) from None
        return replace(project, currency=code), Change(project=True)


@dataclass
class SetDiscountCommand(Command):
    """Set one bill section's discount, in percent off list (0 removes it)."""

    section: str
    percent: float
    label: str = "Set discount"

    @property
    def merge_key(self):
        return ("discount", self.section)

    def apply(self, project, catalog):
        if self.section not in SECTION_TITLES:
            raise CommandError(f"{self.section!r} is not a section of the bill ({', '.join(SECTION_TITLES)})")
        try:
            quote = project.quote.with_discount(self.section, self.percent)
        except (QuoteError, TypeError) as exc:
            raise CommandError(str(exc)) from None
        return project.with_quote(quote), Change(project=True)
