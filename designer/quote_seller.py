"""Who sells: the seller's company, address, contact and tax id, its logo, and its default terms (payment,
delivery, warranty, incoterm), printed on the quote's cover, in every page's footer and in its terms.

A seller is kept with the quote it is on (``quote.seller`` in the project file), so a quote reads the same
anywhere; ``podplanner export --seller FILE`` sets it for one export. Every text is held to the bounds every
text of a design is (designer/bounds.py); a logo is a PNG, JPEG or SVG file's path, read when the quote is drawn
(an SVG logo stays a vector drawing in the PDF).
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from .bounds import encodable, text_problem

#: the texts a seller has, in the order a form shows them, and how long each may be
FIELDS = (("company", 200), ("address", 1000), ("contact", 200), ("email", 200), ("phone", 100),
          ("tax_id", 100), ("logo", 1000), ("payment_terms", 1000), ("delivery_terms", 1000),
          ("warranty_terms", 1000), ("incoterm", 100))
#: the names people read for them
LABELS = {"company": "Company", "address": "Address", "contact": "Contact", "email": "E-mail", "phone": "Phone",
          "tax_id": "Tax id", "logo": "Logo (PNG, JPEG or SVG file)", "payment_terms": "Payment terms",
          "delivery_terms": "Delivery", "warranty_terms": "Warranty", "incoterm": "Incoterm"}
LOGO_SUFFIXES = (".png", ".jpg", ".jpeg", ".svg")
#: the texts that may run over several lines
MULTILINE = frozenset({"address", "payment_terms", "delivery_terms", "warranty_terms"})


class SellerError(ValueError):
    """A seller's field is wrong: the message names it."""


@dataclass(frozen=True, slots=True)
class Seller:
    company: str = ""
    address: str = ""
    contact: str = ""
    email: str = ""
    phone: str = ""
    tax_id: str = ""
    logo: str = ""
    payment_terms: str = ""
    delivery_terms: str = ""
    warranty_terms: str = ""
    incoterm: str = ""

    def __post_init__(self) -> None:
        for name, limit in FIELDS:
            value = getattr(self, name)
            where = f"quote.seller.{name}"
            if not isinstance(value, str):
                raise SellerError(f"{where}: must be text, got {value!r:.40}")
            if len(value) > limit:
                raise SellerError(f"{where}: is {len(value):,} characters long; at most {limit:,}")
            if not encodable(value):
                raise SellerError(f"{where}: holds a lone surrogate")
            # an address and terms run over lines; every other text is one line
            problem = text_problem(value, prose=name in MULTILINE)
            if problem is not None:
                raise SellerError(f"{where}: {problem}")
        if self.logo and not self.logo.lower().endswith(LOGO_SUFFIXES):
            raise SellerError(f"quote.seller.logo: {self.logo[-40:]!r} is not a PNG, JPEG or SVG file")

    @property
    def empty(self) -> bool:
        return not any(getattr(self, f.name) for f in fields(self))

    @property
    def terms(self) -> list[tuple[str, str]]:
        """(label, text) of the terms the seller states, in the order a quote prints them."""
        return [(LABELS[k], getattr(self, k)) for k in ("payment_terms", "delivery_terms", "warranty_terms",
                                                        "incoterm") if getattr(self, k)]

    def address_lines(self) -> list[str]:
        return [line.strip() for line in self.address.splitlines() if line.strip()]

    def to_json(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name)}


def seller_from_json(doc: object, where: str = "quote.seller") -> Seller:
    """A seller from a project file's ``quote.seller`` object (or a ``--seller`` file); errors name the key."""
    if not isinstance(doc, dict):
        raise SellerError(f"{where}: must be an object")
    known = {name for name, _ in FIELDS}
    for key in doc:
        if key not in known:
            raise SellerError(f"{where}.{key}: is not a seller field ({', '.join(sorted(known))})")
    return Seller(**doc)
