"""The window's watch on its open file: another program changing, replacing or deleting it is noticed.

A :class:`QFileSystemWatcher` watches the file and its folder: a save by rename (ours, the command
line's, an editor's) replaces the file's inode, which drops the watch on the file, so the folder's
change re-adds it. Events are let settle for a moment (a program writing in pieces sends several), then
:func:`.disk_state.compare` says whether the bytes differ from what the window last read or wrote;
only a real difference is reported (a touch, or our own save, is not). The watch only reports: the
window's bar offers what to do, and Save asks again itself (:meth:`FileWatch.check`).
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from .disk_state import DiskState, Fingerprint, compare

#: Quiet time after the last file-system event before the file is read.
SETTLE_MS = 150


class FileWatch(QObject):
    """Watches one file against the fingerprint the window last read or wrote."""

    #: The file's state changed (a :class:`DiskState`): another writer, a deletion, or back to ours.
    state_changed = Signal(object)

    def __init__(self, parent: QObject | None = None, settle_ms: int = SETTLE_MS):
        super().__init__(parent)
        self.path: Path | None = None
        #: what the window last read from or wrote to ``path``
        self.known: Fingerprint | None = None
        self.state = DiskState.SAME
        self._seen: str | None = None  # the hash of the content last announced
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_event)
        self._watcher.directoryChanged.connect(self._on_event)
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(settle_ms)
        self._settle.timeout.connect(self.check)

    def follow(self, path: Path | None, known: Fingerprint | None) -> DiskState:
        """Watch ``path`` (None: no file), whose content the window holds is ``known``; returns its state now."""
        self._settle.stop()
        for old in self._watcher.files() + self._watcher.directories():
            self._watcher.removePath(old)
        self.path = Path(path) if path is not None else None
        self.known = known
        self.state = DiskState.SAME
        self._seen = None
        if self.path is not None:
            self._watch()
            return self.check()
        self.state_changed.emit(self.state)
        return self.state

    def check(self) -> DiskState:
        """Compare the file with what the window holds now; a change of state is announced."""
        if self.path is None:
            return DiskState.SAME
        self._watch()
        state, now = compare(self.path, self.known)
        if state is DiskState.SAME:
            self.known = now  # the same bytes, touched: the cheap check holds again
        seen = now.sha256 if now is not None else None
        if state is not self.state or seen != self._seen:  # a second rewrite is announced again
            self.state, self._seen = state, seen
            self.state_changed.emit(state)
        return state

    def _watch(self) -> None:
        """(Re-)add the file and its folder: a rename over the file dropped the file's watch."""
        folder = str(self.path.parent)
        if folder not in self._watcher.directories() and Path(folder).is_dir():
            self._watcher.addPath(folder)
        if str(self.path) not in self._watcher.files() and self.path.exists():
            self._watcher.addPath(str(self.path))

    def _on_event(self, _changed: str) -> None:
        self._settle.start()
