"""The user's default seller: their own company, address, contact and terms, kept in the application's settings.

A sales engineer quotes many designs as the same seller. Quote ▸ Seller… saves the fields as the default
("Save as my default") and fills them from it ("Fill from my default"); a quote whose seller is empty is
exported with the default (File ▸ Export, the quote's PDF, appendix and XLSX), and the status bar says so.
The design itself is not changed: its quote stays the source of truth, and a seller set on it wins.

The default is kept as the JSON text of :meth:`designer.quote_seller.Seller.to_json` under :data:`KEY` of the
``QSettings`` the window was given (tests give their own, on a temporary file). A stored value that cannot be
read (not JSON, an unknown field, a text too long) is ignored, and the caller is told why in one line.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from PySide6.QtCore import QSettings

from designer.quote_seller import Seller, SellerError, seller_from_json

#: where the default seller is kept in the application's settings
KEY = "quote/default_seller"
#: stored text longer than this is not read (every field at its longest is well under it)
MAX_CHARS = 64 * 1024
#: what an export's status says when it used the default
FROM_DEFAULT = "seller from your default profile"


@dataclass(frozen=True)
class StoredSeller:
    """The default seller as read from the settings: ``seller`` (None when there is none to use), and
    ``problem``, a sentence saying why a stored value was ignored ("" when nothing was wrong)."""

    seller: Seller | None = None
    problem: str = ""


def read_default(settings: QSettings) -> StoredSeller:
    """The stored default seller; a broken stored value gives no seller and a problem, never an exception."""
    raw = settings.value(KEY)
    if raw is None or raw == "":
        return StoredSeller()
    if not isinstance(raw, str):
        return StoredSeller(problem="your default seller profile was ignored: it is not text")
    if len(raw) > MAX_CHARS:
        return StoredSeller(problem=f"your default seller profile was ignored: it is {len(raw):,} characters "
                                    f"long; at most {MAX_CHARS:,}")
    try:
        doc = json.loads(raw)
    except ValueError as exc:
        return StoredSeller(problem=f"your default seller profile was ignored: it is not JSON ({str(exc)[:80]})")
    try:
        seller = seller_from_json(doc, "default seller")
    except (SellerError, TypeError) as exc:
        return StoredSeller(problem=f"your default seller profile was ignored: {str(exc)[:200]}")
    return StoredSeller(None if seller.empty else seller)


def save_default(settings: QSettings, seller: Seller) -> None:
    """Keep ``seller`` as the default (an empty seller removes the default)."""
    if seller.empty:
        settings.remove(KEY)
    else:
        settings.setValue(KEY, json.dumps(seller.to_json(), ensure_ascii=False, sort_keys=True))
    settings.sync()
