"""Key paths of a JSON document, for comparing the shape of ``analyze --json`` with a golden list.

Lists contribute ``[]`` and the union of their items' keys; maps whose keys are data
(catalog ids, lengths, currencies) contribute ``*``, so the list names the schema,
not the design's contents.
"""
from __future__ import annotations

#: Maps keyed by data rather than by field name.
DATA_MAPS = frozenset({"by_type", "by_kind", "cables", "transceivers", "cables_by_length", "totals_by_currency",
                       "subtotals", "placed_by_type", "memory_breakdown_gb"})


def key_paths(doc, prefix: str = "") -> set[str]:
    out: set[str] = set()
    if isinstance(doc, dict):
        parts = prefix.replace("[]", "").split(".")
        # cables_by_length is keyed twice by data: cable id, then length in metres
        data = parts[-1] in DATA_MAPS or parts[-2:] == ["cables_by_length", "*"]
        for key, value in doc.items():
            path = f"{prefix}.{'*' if data else key}" if prefix else key
            out.add(path)
            out |= key_paths(value, path)
    elif isinstance(doc, list):
        for item in doc:
            out |= key_paths(item, f"{prefix}[]")
    return out
