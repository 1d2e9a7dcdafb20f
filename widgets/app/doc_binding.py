"""Subscribe a widget to a :class:`designer.commands.Document` without keeping it alive.

``Document`` has no ``unsubscribe``: a panel that rebinds to a newly opened
file leaves its old listener behind, and a closed panel's listener would still
run on the next edit. The listener made here holds the widget weakly and only
forwards changes of the document the widget is bound to *now*, so both cases
become no-ops instead of stale refreshes or calls into deleted Qt objects.
"""
from __future__ import annotations

import weakref
from typing import Callable

from designer.commands import Change, CommandError, Document
from designer.model import Project


def bind(document: Document, owner: object, method: str) -> None:
    """Call ``owner.<method>(project, change)`` for changes of ``document`` while ``owner._document is document``."""
    ref = weakref.ref(owner)

    def listener(project: Project, change: Change) -> None:
        target = ref()
        if target is None or getattr(target, "_document", None) is not document:
            return
        try:
            getattr(target, method)(project, change)
        except RuntimeError as exc:  # the C++ side of a closed panel is gone
            if "already deleted" not in str(exc):
                raise

    document.subscribe(listener)


def push(document: Document | None, command, report: Callable[[str], None]) -> bool:
    """Push ``command``; a refusal goes to ``report`` (never an exception into the event loop)."""
    if document is None:
        report("no document is open")
        return False
    try:
        document.push(command)
    except CommandError as exc:
        report(str(exc))
        return False
    return True
