"""The one safe reader and the one atomic writer that every layer reads and writes files through.

They live here because ``catalog`` is the layer everything else stands on: the catalog
loader, the project file format and every exporter import them, and none of those may
import another's layer.

Why the reader refuses what is not a regular file: reading a FIFO or a character device
blocks or never ends, and a user can name one by mistake; a size limit keeps a wrong
file from filling memory. Why the writer renames: a crash or a full disk mid-write must
leave either the old file or the new one, never half of one.
"""
from __future__ import annotations

import errno
import os
import re
import shutil
import secrets
import stat
import threading
import time
from contextlib import suppress
from pathlib import Path
from typing import Callable, IO

#: Large enough for a 100,000-GPU project file (about 10 MB), small enough to refuse a disk image.
DEFAULT_READ_LIMIT = 200 * 1024 * 1024
#: The setting that changes it, in MB (the desktop app sets it from its preference, widgets.app.file_limit).
READ_LIMIT_ENV = "PODPLANNER_MAX_FILE_MB"
MAX_READ_LIMIT_MB = 64 * 1024


def read_limit() -> int:
    """The size limit in bytes: ``PODPLANNER_MAX_FILE_MB`` when it is a whole number of MB from 1 to
    65,536, else 200 MB (an unusable value is ignored rather than making every file unreadable)."""
    raw = os.environ.get(READ_LIMIT_ENV, "").strip()
    if raw.isdigit() and len(raw) <= 6 and 1 <= int(raw) <= MAX_READ_LIMIT_MB:
        return int(raw) * 1024 * 1024
    return DEFAULT_READ_LIMIT


class FileReadError(OSError):
    """A file that cannot be read, with the reason in words (``str(exc)``)."""

    def __init__(self, path, reason: str):
        super().__init__(reason)
        self.path = str(path)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


def read_bytes(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The whole content of a regular file; :class:`FileReadError` for anything else.
    ``limit`` in bytes, by default :func:`read_limit`."""
    path = Path(path)
    limit = read_limit() if limit is None else limit
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise FileReadError(path, "no such file") from None
    except IsADirectoryError:
        raise FileReadError(path, "is a folder, not a file") from None
    except OSError as exc:
        raise FileReadError(path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise FileReadError(path, "is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise FileReadError(path, "is not a regular file (a pipe, socket or device)")
        if info.st_size > limit:
            raise FileReadError(path, f"is {info.st_size:,} bytes, more than the {limit:,} bytes allowed")
        chunks, total = [], 0
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
            except OSError as exc:
                raise FileReadError(path, f"cannot be read ({exc.strerror or exc})") from None
            if not chunk:
                break
            total += len(chunk)
            if total > limit:  # the file grew while being read
                raise FileReadError(path, f"is more than the {limit:,} bytes allowed")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike, limit: int | None = None) -> str:
    """A regular file decoded as UTF-8 (a leading byte-order mark is dropped)."""
    raw = read_bytes(path, limit)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileReadError(path, f"is not UTF-8 text (byte {exc.start})") from None


#: Temporary files are named ``.<target>.<pid>-<random>.podplanner-tmp``: the random part makes the name
#: unguessable, the pid lets a later start tell a temporary of a killed writer from one being written.
TEMP_SUFFIX = ".podplanner-tmp"
_TEMP_RE = re.compile(r"^\..+\.(?P<pid>\d+)-[0-9a-f]{16}" + re.escape(TEMP_SUFFIX) + "$")
#: What earlier versions named their temporaries (no pid: only their age tells they are stale).
_OLD_TEMP_RE = re.compile(r"^\..+\.[0-9a-f]{12}\.tmp$")
#: A multi-format export's temporaries and the old targets it keeps aside while it renames (exporters/staging.py):
#: ``.<target>.<pid>-<random>-<n>.staged<suffix>`` or ``.old<suffix>``, files or (NetBox) folders.
_STAGED_RE = re.compile(r"^\..+\.(?P<pid>\d+)-[0-9a-f]{16}-\d+\.(staged|old)(\.[A-Za-z0-9]{1,15})?$")
#: A temporary this old belongs to no write still running, whoever made it.
STALE_AFTER_S = 24 * 3600

_swept: set[str] = set()
_swept_lock = threading.Lock()


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (one we may not signal counts as running)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process, or a platform that cannot tell: assume it runs
    return True


def sweep_temporaries(folder: str | os.PathLike, *, now: float | None = None) -> list[Path]:
    """Remove the temporaries a killed writer left in ``folder``: those of this naming whose process is
    gone, and any older than a day. Returns what was removed; a folder that cannot be read is left alone."""
    now = time.time() if now is None else now
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        staged = _STAGED_RE.match(entry.name)
        ours = _TEMP_RE.match(entry.name) or staged
        if not ours and not _OLD_TEMP_RE.match(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        folder_of_export = staged is not None and stat.S_ISDIR(info.st_mode)
        if not stat.S_ISREG(info.st_mode) and not folder_of_export:
            continue
        old = now - info.st_mtime > STALE_AFTER_S
        orphan = ours is not None and int(ours["pid"]) != os.getpid() and not pid_alive(int(ours["pid"]))
        if old or orphan:
            with suppress(OSError):
                if folder_of_export:
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


def _sweep_once(folder: Path) -> None:
    key = os.path.abspath(folder)
    with _swept_lock:
        if key in _swept:
            return
        _swept.add(key)
    sweep_temporaries(folder)


#: Bytes of the target's name kept in its temporary's: 255 less the dot, pid, random part and suffix.
_TEMP_NAME_KEEP = 200


def _create_temporary(folder: Path, name: str) -> tuple[int, Path]:
    """A new, empty file beside the target. Created with mode 0o666 so the kernel applies the umask:
    reading the umask means setting it, which would race with other threads. ``O_EXCL`` and
    ``O_NOFOLLOW``: a name planted in advance (a symlink to elsewhere) is never written through."""
    flags = (os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
    # The temporary's name adds some 40 bytes to the target's: a long, legal name (most file systems take
    # 255 bytes) is shortened in it, so that such a file can be saved at all.
    raw = os.fsencode(name)
    if len(raw) > _TEMP_NAME_KEEP:
        name = os.fsdecode(raw[:_TEMP_NAME_KEEP])  # a character cut in two stays bytes, as a file name may
    while True:
        tmp = folder / f".{name}.{os.getpid()}-{secrets.token_hex(8)}{TEMP_SUFFIX}"
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue


def check_target(path: Path) -> os.stat_result | None:
    """The existing target's status, after refusing what must not be replaced (an OSError whose ``strerror`` says
    why); None when it is new. A command that writes after long work asks this first."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    if not stat.S_ISREG(info.st_mode):
        # renaming over a device, a pipe or a socket would replace it with a regular file (as root, /dev/null)
        raise OSError(errno.EINVAL, "is not a regular file (a pipe, socket or device)", str(path))
    # Judged by the mode bits, not only by access(): root may write anything, but a file its owner made
    # read-only is a file somebody meant to keep.
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(path, os.W_OK):
        raise PermissionError(errno.EACCES, "is read-only; make it writable or save elsewhere", str(path))
    return info


def write_atomic(path: str | os.PathLike, content: bytes | str | Callable[[IO], None], *,
                 text: bool | None = None, newline: str | None = None, durable: bool = True) -> None:
    """Write ``content`` to ``path`` all at once or not at all.

    ``content`` is bytes, text (UTF-8), or a function that writes into the open file
    (text mode unless ``text=False``). A temporary file in the target folder is
    written, flushed and fsynced, given the old file's mode, owner and group, and
    renamed over the target; on any error, the temporary file is removed and the
    target is untouched. A symlink is written through (the link stays); a folder,
    device, FIFO or socket, and a read-only file, are refused with an ``OSError``
    whose ``strerror`` says why. ``durable=False`` leaves out the fsyncs (still whole
    or nothing, but not yet on disk when this returns): for the many parts of one
    export, whose last file is written durably.
    """
    path = Path(path)
    if path.is_symlink():  # write where the link points, and keep the link
        path = Path(os.path.realpath(path))
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, "no such folder", str(folder))
    info = check_target(path)
    _sweep_once(folder)
    binary = isinstance(content, bytes) or text is False
    fd, tmp = _create_temporary(folder, path.name)
    try:
        if info is not None:
            os.chmod(tmp, stat.S_IMODE(info.st_mode))
            _keep_owner(tmp, info)
        with (os.fdopen(fd, "wb") if binary else
              os.fdopen(fd, "w", encoding="utf-8", newline=newline)) as fh:
            if callable(content):
                content(fh)
            else:
                fh.write(content)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    if not durable:
        return
    with suppress(OSError):  # make the rename itself durable where the platform allows it
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _keep_owner(tmp: Path, info: os.stat_result) -> None:
    """Give the new file the old one's owner and group where this process may (root may; a user may keep
    a group they belong to); where it may not, the file is the writer's, as any new file would be."""
    mine = os.stat(tmp)
    if (mine.st_uid, mine.st_gid) == (info.st_uid, info.st_gid) or not hasattr(os, "chown"):
        return
    try:
        os.chown(tmp, info.st_uid, info.st_gid)
    except OSError:
        with suppress(OSError):
            os.chown(tmp, -1, info.st_gid)


def package_folder(package: str, *parts: str) -> Path:
    """A folder of data shipped inside ``package`` (``package_folder("catalog", "data")``), found through
    ``importlib.resources`` rather than ``__file__``, so it is found the same way in the installed
    package and in the packaged app, where the data sits beside the frozen modules."""
    from importlib.resources import files

    return Path(str(files(package).joinpath(*parts)))
