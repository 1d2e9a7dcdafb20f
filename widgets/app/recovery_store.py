"""Autosaved work on disk: one folder per window session, its last few versions, and a trash kept a week.

::

    recovery/
      <pid>-<random>/          what one window autosaved (a "session")
        session.json           whose it is: pid, the file it was opened from (and what that file held when
                               the window read it: size, time, SHA-256), its title
        lock                   locked while the window lives; the kernel unlocks it when the process dies
        v00001.podplan.json    versions, oldest first; the newest is replaced until VERSION_EVERY_S passed
      trash/<session>-<when>/  sessions the user discarded, removed after TRASH_KEEP_S

Why a lock and not only the pid: pids are reused, and two windows of one process share one; a lock is
released however its process ends. Why nothing is ever deleted but by a save or by the trash's age: a
second crash right after a restore, or a "no" clicked in haste, must not lose the work.

Pure Python (no Qt): the file controller runs these calls on its autosave thread, in order.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import threading
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from catalog import Catalog
from catalog.files import FileReadError, pid_alive, read_text, sweep_temporaries, write_atomic
from designer.fileformat import SUFFIX, save
from designer.model import Project

from .disk_state import Fingerprint

try:  # POSIX; elsewhere the pid alone tells a live session
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

#: Versions kept per session.
KEEP_VERSIONS = 5
#: A new version is started when the newest is this old; until then each autosave replaces it.
VERSION_EVERY_S = 300
#: How long discarded work stays in the trash.
TRASH_KEEP_S = 7 * 24 * 3600

_VERSION_RE = re.compile(r"^v(\d{5,})" + re.escape(SUFFIX) + "$")
_LEGACY_RE = re.compile(r"^autosave-(\d+)" + re.escape(SUFFIX) + "$")


@dataclass(frozen=True)
class Version:
    path: Path
    saved_at: float

    def when(self, now: float | None = None) -> str:
        """'14:05 (3 min ago)', or a date when it is not today."""
        now = time.time() if now is None else now
        stamp = time.localtime(self.saved_at)
        same_day = time.localtime(now)[:3] == stamp[:3]
        text = time.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M", stamp)
        ago = max(0, now - self.saved_at)
        if ago < 60:
            return f"{text} (just now)"
        if ago < 3600:
            return f"{text} ({int(ago // 60)} min ago)"
        if ago < 86400:
            return f"{text} ({int(ago // 3600)} h ago)"
        return text


@dataclass(frozen=True)
class Session:
    """A window's autosaves: ``versions`` newest first."""

    folder: Path
    title: str
    original: str | None
    versions: tuple[Version, ...]
    #: what ``original`` held when the window read or last saved it (None: not recorded)
    original_disk: Fingerprint | None = None

    @property
    def latest(self) -> Version:
        return self.versions[0]

    @property
    def saved_at(self) -> float:
        return self.latest.saved_at

    def describe(self) -> str:
        where = self.original or "an unsaved project"
        return f"{self.title} ({where}), autosaved {self.latest.when()}"


def _read_meta(path: Path) -> dict:
    try:
        meta = json.loads(read_text(path, 1 << 20))
    except (FileReadError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _versions(folder: Path) -> list[Version]:
    """The session's versions, newest first (by number: clocks may step back)."""
    found = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        m = _VERSION_RE.match(entry.name)
        if m and entry.is_file(follow_symlinks=False):
            with suppress(OSError):
                found.append((int(m.group(1)), Version(Path(entry.path), entry.stat().st_mtime)))
    return [v for _, v in sorted(found, key=lambda item: item[0], reverse=True)]


def _session(folder: Path) -> Session | None:
    versions = _versions(folder)
    if not versions:
        return None
    meta = _read_meta(folder / "session.json")
    original = meta.get("original") if isinstance(meta.get("original"), str) else None
    title = meta.get("title") if isinstance(meta.get("title"), str) and meta.get("title") else (
        Path(original).name if original else "Untitled project")
    return Session(folder, title, original, tuple(versions), _fingerprint(meta.get("original_disk")))


def _fingerprint(value) -> Fingerprint | None:
    if not isinstance(value, dict):
        return None
    size, mtime_ns, sha256 = value.get("size"), value.get("mtime_ns"), value.get("sha256")
    if isinstance(size, int) and isinstance(mtime_ns, int) and isinstance(sha256, str):
        return Fingerprint(size, mtime_ns, sha256)
    return None


class RecoveryStore:
    """The recovery folder as one window sees it: its own session, and what others left."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.trash = self.root / "trash"
        self.folder = self.root / f"{os.getpid()}-{secrets.token_hex(4)}"
        self._lock_fd: int | None = None
        self._seq = 0
        self._seq_started = 0.0
        self._mutex = threading.Lock()

    # -- this window's session ----------------------------------------------
    def write(self, project: Project, original: str | None, title: str, now: float | None = None, *,
              catalog: Catalog | None = None, original_disk: Fingerprint | None = None) -> Path:
        """Autosave ``project`` as the session's newest version, with ``catalog``'s version (the window's:
        the catalog the design is edited with), and what ``original`` held when the window read it;
        returns the file written. Only the recovery folder is written, never ``original``."""
        now = time.time() if now is None else now
        with self._mutex:
            self._open()
            if self._seq == 0 or now - self._seq_started >= VERSION_EVERY_S:
                self._seq += 1
                self._seq_started = now
            path = self.folder / f"v{self._seq:05d}{SUFFIX}"
            save(project, path, pretty=False, catalog=catalog)
            disk = None if original_disk is None else {
                "size": original_disk.size, "mtime_ns": original_disk.mtime_ns, "sha256": original_disk.sha256}
            # ASCII: a path may hold bytes UTF-8 cannot
            write_atomic(self.folder / "session.json",
                         json.dumps({"pid": os.getpid(), "original": original, "title": title,
                                     "saved_at": now, "original_disk": disk}))
            for old in _versions(self.folder)[KEEP_VERSIONS:]:
                with suppress(OSError):
                    old.path.unlink()
            return path

    def own(self) -> Session | None:
        return _session(self.folder) if self.folder.is_dir() else None

    def latest_path(self) -> Path | None:
        session = self.own()
        return session.latest.path if session else None

    def start_new_version(self) -> None:
        """The next autosave starts a version of its own (after going back to an older one, say)."""
        with self._mutex:
            self._seq_started = float("-inf")

    def clear(self) -> None:
        """The document was saved: its autosaves are no longer needed."""
        with self._mutex:
            self._release()
            with suppress(OSError):
                shutil.rmtree(self.folder)
            self._seq = 0

    def discard(self, now: float | None = None) -> Path | None:
        """The user closed the document without saving: keep its autosaves in the trash for a week."""
        with self._mutex:
            self._release()
            moved = self._to_trash(self.folder, now) if _versions(self.folder) else None
            with suppress(OSError):
                shutil.rmtree(self.folder)
            self._seq = 0
            return moved

    def adopt(self, session: Session, now: float | None = None) -> None:
        """Make ``session`` (a crashed window's, or one from the trash) this window's own, versions and all:
        the restored work stays on disk until it is saved or discarded again."""
        now = time.time() if now is None else now
        with self._mutex:
            self._release()
            if self.folder.exists():  # whatever was here belonged to a document already closed
                self._to_trash(self.folder, now)
                with suppress(OSError):
                    shutil.rmtree(self.folder)
            os.replace(session.folder, self.folder)
            self._open()
            versions = _versions(self.folder)
            self._seq = int(_VERSION_RE.match(versions[0].path.name).group(1)) if versions else 0
            self._seq_started = float("-inf")  # the restored version stays as it is; edits start a new one
            meta = _read_meta(self.folder / "session.json")
            meta.update(pid=os.getpid(), original=session.original, title=session.title)
            write_atomic(self.folder / "session.json", json.dumps(meta))

    def close(self) -> None:
        """The window is gone (its document saved or discarded first)."""
        with self._mutex:
            self._release()

    def _open(self) -> None:
        if self._lock_fd is not None and self.folder.is_dir():
            return
        self._release()
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.folder / "lock", os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise
        self._lock_fd = fd

    def _release(self) -> None:
        if self._lock_fd is not None:
            with suppress(OSError):
                os.close(self._lock_fd)  # closing the descriptor releases its lock
            self._lock_fd = None

    # -- what other windows left ----------------------------------------------
    def orphans(self) -> list[Session]:
        """Sessions whose window is gone without saving or discarding (a crash), newest first."""
        found = []
        try:
            entries = list(os.scandir(self.root))
        except OSError:
            return []
        for entry in entries:
            path = Path(entry.path)
            if path == self.folder or path == self.trash:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if self._live(path):
                        continue
                    session = _session(path)
                    if session is not None:
                        found.append(session)
                    elif time.time() - entry.stat().st_mtime > 60:
                        # a session that crashed before its first autosave holds nothing (one a minute old
                        # may be a window starting up, between making its folder and locking it)
                        with suppress(OSError):
                            shutil.rmtree(path)
                elif _LEGACY_RE.match(entry.name):
                    legacy = self._legacy(path)
                    if legacy is not None:
                        found.append(legacy)
            except OSError:
                continue  # another window took it (restored, discarded or tidied it) meanwhile: not ours
        return sorted(found, key=lambda s: s.saved_at, reverse=True)

    def _legacy(self, path: Path) -> Session | None:
        """An autosave of an earlier version (one file and its ``.meta``), wrapped as a session folder."""
        meta = _read_meta(path.with_suffix(".meta"))
        pid = meta.get("pid") if isinstance(meta.get("pid"), int) else -1
        if pid_alive(pid) and pid != os.getpid():
            return None
        folder = self.root / f"legacy-{secrets.token_hex(4)}"
        folder.mkdir()
        os.replace(path, folder / f"v00001{SUFFIX}")
        original = meta.get("original") if isinstance(meta.get("original"), str) else None
        write_atomic(folder / "session.json", json.dumps({"pid": -1, "original": original,
                                                          "title": Path(original).name if original else ""}))
        with suppress(OSError):
            path.with_suffix(".meta").unlink()
        return _session(folder)

    def _live(self, folder: Path) -> bool:
        if fcntl is None:
            pid = _read_meta(folder / "session.json").get("pid")
            return isinstance(pid, int) and pid_alive(pid)
        try:
            fd = os.open(folder / "lock", os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return False
        except OSError:
            return True  # cannot tell: leave it to whoever owns it
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)
        return False

    def discard_session(self, session: Session, now: float | None = None) -> Path | None:
        """Move another window's session to the trash."""
        with self._mutex:
            moved = self._to_trash(session.folder, now)
            with suppress(OSError):
                shutil.rmtree(session.folder)
            return moved

    # -- the trash --------------------------------------------------------------
    def trashed(self) -> list[Session]:
        """Discarded sessions still kept, newest discard first."""
        found = []
        try:
            entries = list(os.scandir(self.trash))
        except OSError:
            return []
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                session = _session(Path(entry.path))
                if session is not None:
                    with suppress(OSError):  # restored or purged by another window meanwhile
                        found.append((entry.stat().st_mtime, session))
        return [s for _, s in sorted(found, key=lambda item: item[0], reverse=True)]

    def purge(self, now: float | None = None) -> list[Path]:
        """Empty the trash of what was discarded more than a week ago, and sweep killed writers' temporaries."""
        now = time.time() if now is None else now
        removed = []
        for folder in (self.root, self.trash):
            sweep_temporaries(folder, now=now)
        try:
            entries = list(os.scandir(self.trash))
        except OSError:
            return removed
        for entry in entries:
            with suppress(OSError):
                if now - entry.stat(follow_symlinks=False).st_mtime > TRASH_KEEP_S:
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(entry.path)
                    else:
                        os.unlink(entry.path)
                    removed.append(Path(entry.path))
        return removed

    def _to_trash(self, folder: Path, now: float | None) -> Path | None:
        """Move ``folder`` into the trash, stamped with the time of the discard (its age counts from then)."""
        if not folder.is_dir():
            return None
        now = time.time() if now is None else now
        self.trash.mkdir(parents=True, exist_ok=True)
        target = self.trash / f"{folder.name}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}"
        while target.exists():
            target = target.with_name(f"{target.name}-{secrets.token_hex(2)}")
        os.replace(folder, target)
        with suppress(OSError):
            (target / "lock").unlink()
        os.utime(target, (now, now))
        return target
