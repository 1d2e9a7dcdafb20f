"""Selection on the floor plan, reported once per change.

Objects are named by where-strings (``"rack:a01"``, ``"floor:cdu-1"``), the same
names findings and commands use, so the findings panel, the inspector and the
canvas tools all select through the scene's ``select`` methods. Qt says
``selectionChanged`` once per item; :class:`SelectionReport` turns a burst (a
rebuild, a select-all) into one report of what is selected now.
"""
from __future__ import annotations

from contextlib import contextmanager


class SelectionReport:
    """What the plan last reported as selected, and whether a batch of selection changes is under way."""

    def __init__(self):
        self._depth = 0
        #: the last report: kind ("rack", "floor" or "") and the ids of that kind
        self.last: tuple[str, list] = ("", [])

    @property
    def batching(self) -> bool:
        return self._depth > 0

    @contextmanager
    def batch(self):
        """Qt's selection changes inside this block are reported once, by the caller, after it."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    def reset(self) -> None:
        """Nothing was reported yet (a new document)."""
        self.last = ("", [])

    def update(self, ids: list[str]) -> tuple[str, list] | None:
        """The report for the selected where-strings ``ids`` if it differs from the last one, else None.

        A mixed selection reports its racks.
        """
        racks = [w[5:] for w in ids if w.startswith("rack:")]
        floors = [w[6:] for w in ids if w.startswith("floor:")]
        current = ("rack", racks) if racks else ("floor", floors) if floors else ("", [])
        if current == self.last:
            return None
        self.last = current
        return current
