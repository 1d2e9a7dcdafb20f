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
import stat
import secrets
from contextlib import suppress
from pathlib import Path
from typing import Callable, IO

#: Large enough for a 100,000-GPU project file (about 10 MB), small enough to refuse a disk image.
DEFAULT_READ_LIMIT = 256 * 1024 * 1024


class FileReadError(OSError):
    """A file that cannot be read, with the reason in words (``str(exc)``)."""

    def __init__(self, path, reason: str):
        super().__init__(reason)
        self.path = str(path)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


def read_bytes(path: str | os.PathLike, limit: int = DEFAULT_READ_LIMIT) -> bytes:
    """The whole content of a regular file; :class:`FileReadError` for anything else."""
    path = Path(path)
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


def read_text(path: str | os.PathLike, limit: int = DEFAULT_READ_LIMIT) -> str:
    """A regular file decoded as UTF-8 (a leading byte-order mark is dropped)."""
    raw = read_bytes(path, limit)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileReadError(path, f"is not UTF-8 text (byte {exc.start})") from None


def _existing_mode(path: Path) -> int | None:
    """The file's own mode when it exists (a shared file stays readable by the team)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


def _create_temporary(folder: Path, name: str) -> tuple[int, Path]:
    """A new, empty file beside the target. Created with mode 0o666 so the kernel applies the umask:
    reading the umask means setting it, which would race with other threads."""
    while True:
        tmp = folder / f".{name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0), 0o666), tmp
        except FileExistsError:
            continue


def write_atomic(path: str | os.PathLike, content: bytes | str | Callable[[IO], None], *,
                 text: bool | None = None, newline: str | None = None) -> None:
    """Write ``content`` to ``path`` all at once or not at all.

    ``content`` is bytes, text (UTF-8), or a function that writes into the open file
    (text mode unless ``text=False``). A temporary file in the target folder is
    written, flushed and fsynced, given the old file's mode, and renamed over the
    target; on any error, the temporary file is removed and the target is untouched.
    """
    path = Path(path)
    if path.is_symlink():  # write where the link points, and keep the link
        path = Path(os.path.realpath(path))
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise FileNotFoundError(2, "no such folder", str(folder))
    if path.exists() and not path.is_file():
        # renaming over a device, a pipe or a folder would replace it with a regular file (as root, /dev/null)
        raise OSError(errno.EINVAL, "is not a regular file", str(path))
    binary = isinstance(content, bytes) or text is False
    mode = _existing_mode(path)
    fd, tmp = _create_temporary(folder, path.name)
    try:
        if mode is not None:
            os.chmod(tmp, mode)
        with (os.fdopen(fd, "wb") if binary else
              os.fdopen(fd, "w", encoding="utf-8", newline=newline)) as fh:
            if callable(content):
                content(fh)
            else:
                fh.write(content)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    with suppress(OSError):  # make the rename itself durable where the platform allows it
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def package_folder(package: str, *parts: str) -> Path:
    """A folder of data shipped inside ``package`` (``package_folder("catalog", "data")``), found through
    ``importlib.resources`` rather than ``__file__``, so it is found the same way in the installed
    package and in the packaged app, where the data sits beside the frozen modules."""
    from importlib.resources import files

    return Path(str(files(package).joinpath(*parts)))
