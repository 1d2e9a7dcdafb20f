"""How every figure a person reads is written: the window, the PDF and XLSX labels, the CLI's text.

One rule per unit for decimals (``DECIMALS``), thousands separators always ("1,140.4 kW", never
"1140.4 kW" beside "1,140.3 kW"), a space between a number and its unit or percent sign ("58 %"),
and one mark for a figure that is not there ("–"). Machine-readable outputs (``--json``, CSV and
XLSX cells, NetBox files) keep raw numbers and do not come here.
"""
from __future__ import annotations

import math
import re
import unicodedata
from decimal import ROUND_HALF_UP, Decimal

#: Decimals shown for each unit, wherever it is shown. A rule per unit, not per screen, so one figure
#: reads the same in the window, the quote and the terminal.
DECIMALS: dict[str, int] = {
    # power and energy
    "W": 0, "kW": 1, "MW": 2, "kVA": 1, "kWh": 0, "MWh": 1, "A": 0, "V": 0,
    # heat and cooling
    "BTU/h": 0, "tons": 1, "l/min": 1, "m³/h": 0, "CFM": 0, "K": 1, "°C": 1,
    # space and weight
    "mm": 0, "m": 1, "km": 1, "m²": 1, "kg": 0, "kg/m²": 0, "t": 1, "U": 0,
    # compute, memory and network
    "GB": 1, "TB": 1, "PB": 2, "Gb/s": 0, "GB/s": 1, "TB/s": 1, "Tb/s": 1, "PFLOPS": 1, "TFLOPS": 0,
    "tokens/s": 0, "ms": 2, "s": 2, "h": 1, "days": 1,
}

#: Written where a figure is missing or could not be computed.
MISSING = "–"


def _finite(x) -> bool:
    return x is not None and not isinstance(x, bool) and isinstance(x, (int, float)) and math.isfinite(x)


def number(x: float | None, digits: int = 0) -> str:
    """``1,234.5`` with ``digits`` decimals; "–" for a missing or non-finite figure."""
    if not _finite(x):
        return MISSING
    # Half up from the figure as written (1140.35 -> 1,140.4), as a person rounds it; binary floats would
    # give 1,140.3 here and 1,140.4 where the same figure went through round().
    d = Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    text = f"{d:,.{digits}f}"
    return text[1:] if text.startswith("-") and not any(c in "123456789" for c in text) else text


def quantity(x: float | None, unit: str, digits: int | None = None) -> str:
    """``1,140.4 kW``: the number with its unit's decimals (``DECIMALS``), a space, the unit."""
    if not _finite(x):
        return MISSING
    return f"{number(x, DECIMALS[unit] if digits is None else digits)} {unit}"


def kw(x: float | None) -> str:
    return quantity(x, "kW")


def mw_text(value_kw: float) -> str:
    """A large power as people read it: MW to two decimals from 1 MW, else kW."""
    return quantity(value_kw / 1000, "MW") if value_kw >= 1000 else kw(value_kw)


def kw_pair(a: float | None, b: float | None) -> str:
    """Two powers read together, typical before maximum: ``998.5 kW / 1,140.4 kW``."""
    return f"{kw(a)} / {kw(b)}"


def percent(share: float | None, digits: int = 0) -> str:
    """A share (0.58) as ``58 %``: always a space before the sign."""
    if not _finite(share):
        return MISSING
    return f"{number(share * 100, digits)} %"


def money(amount: float | None, currency: str = "") -> str:
    """``1,234.50`` or ``USD 1,234.50``; a negative amount with a minus sign in front of the currency;
    "no price" where there is none."""
    if amount is None:
        return "no price"
    text = f"{abs(amount):,.2f}"
    negative = amount < 0 and any(c in "123456789" for c in text)  # -0.001 is 0.00, not −0.00
    text = f"{currency} {text}" if currency else text
    return f"−{text}" if negative else text


def name_code(name: str, limit: int = 16) -> str:
    """A short code of a design's name, for a quote number or a NetBox site's device names:
    ``DGX B200 SuperPOD - 1 scalable unit`` -> ``DGXB200S1SU`` (upper-case words and words with digits whole,
    other words by their initial; accents dropped); "" for a name without a letter or digit."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()  # "Zürich" -> "Zurich"
    parts = re.findall(r"[A-Za-z0-9]+", ascii_name)
    code = "".join(p.upper() if (p.isupper() or any(c.isdigit() for c in p) or len(parts) == 1) else p[0].upper()
                   for p in parts)
    return code[:limit]


def adjustment(pct: float) -> str:
    """A section's or the quote's price adjustment in words: ``discount 8 %`` off list, or ``uplift 5 %`` over it
    (a negative discount), its decimal only when it has one."""
    word = "uplift" if pct < 0 else "discount"
    return f"{word} {percent(abs(pct) / 100, 1 if pct % 1 else 0)}"


def count(n: int, word: str, many: str | None = None) -> str:
    """``1 rack``, ``1,024 racks``."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"
