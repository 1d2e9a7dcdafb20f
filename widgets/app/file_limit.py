"""The largest file the window opens, a preference: every read (projects, catalog entries, NetBox files,
price lists) goes through :func:`catalog.files.read_bytes`, which refuses a larger one unread, so a wrong
file (a disk image, a log) cannot fill memory. The limit is the reader's setting, ``PODPLANNER_MAX_FILE_MB``;
the window keeps the user's choice in its settings and sets it at start, unless the environment already
gives one (a script's or an administrator's choice wins)."""
from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QInputDialog, QWidget

from catalog.files import DEFAULT_READ_LIMIT, MAX_READ_LIMIT_MB, READ_LIMIT_ENV, read_limit

#: Where the preference is kept in the window's settings.
SETTING = "files/max_file_mb"
_MB = 1024 * 1024
#: READ_LIMIT_ENV as the process was started with (None: not given), so the preference knows whether to apply.
_GIVEN_AT_START = os.environ.get(READ_LIMIT_ENV)


def limit_mb() -> int:
    """The limit in force, in whole MB."""
    return max(1, read_limit() // _MB)


def apply_saved(settings: QSettings) -> None:
    """Put the saved preference in force, unless the environment gave a limit when the process started."""
    if _GIVEN_AT_START is not None:
        return
    try:
        saved = int(settings.value(SETTING, 0) or 0)
    except (TypeError, ValueError):
        return
    if 1 <= saved <= MAX_READ_LIMIT_MB:
        set_limit(settings, saved)


def set_limit(settings: QSettings, mb: int) -> None:
    mb = max(1, min(int(mb), MAX_READ_LIMIT_MB))
    os.environ[READ_LIMIT_ENV] = str(mb)
    settings.setValue(SETTING, mb)


def ask(parent: QWidget, settings: QSettings) -> bool:
    """File ▸ Largest file to open…: the user's new limit, kept and put in force; False if cancelled."""
    mb, ok = QInputDialog.getInt(
        parent, "Largest file to open",
        "Files larger than this are refused without being read, so that a wrong file\n"
        f"(a disk image, a log) cannot fill memory. A 100,000-GPU design is about 10 MB.\n"
        f"Default {DEFAULT_READ_LIMIT // _MB} MB.\n\nLargest file to open, MB:",
        limit_mb(), 1, MAX_READ_LIMIT_MB, 50)
    if ok:
        set_limit(settings, mb)
    return ok


def too_large(path: str | Path) -> int | None:
    """The size in MB (rounded up) of ``path`` when it is a regular file above the limit, else None."""
    try:
        size = Path(path).stat().st_size if Path(path).is_file() else 0
    except OSError:
        return None
    return -(-size // _MB) if size > read_limit() else None
