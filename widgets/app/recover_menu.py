"""File ▸ Recover unsaved work: every autosaved version the recovery folder holds, filled when opened.

Three kinds of entry: work of windows that closed without saving (a crash), the earlier versions of
this window's own document, and what was discarded in the last week. Choosing one opens it as an
unsaved document; nothing is removed by choosing.
"""
from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMenu

from .recovery_store import TRASH_KEEP_S, Session, Version


class RecoverMenu:
    """Builds the submenu of ``file_menu`` and refills it each time it opens (the folder changes behind it)."""

    def __init__(self, window, file_menu: QMenu):
        self.window = window
        self.menu = file_menu.addMenu("Re&cover unsaved work")
        self.menu.aboutToShow.connect(self.fill)
        self.menu.setToolTipsVisible(True)

    def fill(self) -> None:
        menu, files = self.menu, self.window.files
        menu.clear()
        crashed, own, trashed = files.orphaned_recoveries(), files.own_versions(), files.trashed()
        for session in crashed:
            self._session_section(menu, session, f"{session.title} — closed without saving")
        earlier = own[1:]  # the newest is what is open now
        if earlier:
            menu.addSection("This window: earlier versions")
            for version in earlier:
                act = menu.addAction(f"Autosaved {version.when()}",
                                     lambda v=version: self._go_back(v))
                act.setToolTip(str(version.path))
        if trashed:
            sub = menu.addMenu(f"Discarded (kept {TRASH_KEEP_S // 86400} days)")
            for session in trashed:
                act = sub.addAction(f"{session.title} — autosaved {session.latest.when()}",
                                    lambda s=session: self._restore(s, None))
                act.setToolTip(session.original or "an unsaved project")
        if not (crashed or earlier or trashed):
            menu.addAction("No autosaved work").setEnabled(False)
        menu.addSeparator()
        menu.addAction("Open the recovery folder",
                       lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(files.recovery_dir))))

    def _session_section(self, menu: QMenu, session: Session, title: str) -> None:
        menu.addSection(title)
        for i, version in enumerate(session.versions):
            label = f"Autosaved {version.when()}" + (" — newest" if i == 0 and len(session.versions) > 1 else "")
            act = menu.addAction(label, lambda s=session, v=version: self._restore(s, v))
            act.setToolTip(session.original or "an unsaved project")
        menu.addAction("Discard…", lambda s=session: self.window.files.discard_session(s))

    def _restore(self, session: Session, version: Version | None) -> None:
        # the open document first: saved, or discarded to the trash (the user is asked)
        if self.window.files.maybe_save():
            self.window.files.restore(session, version)

    def _go_back(self, version: Version) -> None:
        self.window.files.go_back_to(version)
