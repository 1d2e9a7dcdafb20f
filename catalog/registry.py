"""The catalog: every device type by id, built-in data plus the user's own folders.

Folders the user names (``load_catalog([...])``, ``--catalog DIR``) must load whole: a
problem in one is an error. Folders found implicitly (``$XDG_CONFIG_HOME/podplanner/catalog``
and ``PODPLANNER_CATALOG``) are the user's environment, not the command at hand: a broken
one must not stop every command, so each broken folder or entry becomes one line of
:attr:`Catalog.warnings` and is left out, and the rest loads.
"""
from __future__ import annotations

import difflib
import os
from functools import cached_property, lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Iterator, Mapping

from .files import package_folder
from .loader import CatalogError, load_sources, one_line, parse_entry, quoted, read_json
from .records import DeviceType, Source
from .version import catalog_version

DATA_DIR = package_folder("catalog", "data")
#: Environment variable naming extra catalog folders (``os.pathsep``-separated).
USER_ENV = "PODPLANNER_CATALOG"


#: Names a catalog folder's walk may visit: a catalog is hundreds of files; a folder of more (a home
#: folder named by mistake) is refused rather than walked for minutes.
MAX_FOLDER_NAMES = 100_000


def default_user_dirs() -> list[Path]:
    """The implicit folders: the config folder (when anything is there: a file or an unreadable folder
    there is reported, not skipped) and each folder of ``PODPLANNER_CATALOG``."""
    dirs = [Path(p) for p in os.environ.get(USER_ENV, "").split(os.pathsep) if p]
    config = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "podplanner" / "catalog"
    if os.path.lexists(config):
        dirs.insert(0, config)
    return dirs


class UnknownDeviceError(KeyError):
    def __init__(self, device_id: str, suggestions: list[str]):
        self.device_id = device_id
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        self.message = f"unknown device id {quoted(device_id)}{hint}"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class Catalog:
    """Read-only map of device types by id (ids are matched in any case)."""

    def __init__(self, devices: Iterable[DeviceType], sources: dict[str, Source], warnings: Iterable[str] = ()):
        self._devices = {d.id: d for d in devices}
        self.sources = dict(sources)
        #: one line per implicit user folder or entry that could not be loaded and was left out
        #: (``/path/catalog: cannot be read (Permission denied); its entries are not loaded``)
        self.warnings: tuple[str, ...] = tuple(warnings)
        # A renamed entry keeps answering to its old ids (load_catalog has checked that no entry has one and
        # no two entries claim one), so a design saved before the rename opens and is saved with the new id.
        self._renamed = {old: d.id for d in self._devices.values() for old in d.replaces}

    @property
    def renames(self) -> Mapping[str, str]:
        """Old id -> the id of the entry that replaces it (``"replaces"`` in the entry's file)."""
        return MappingProxyType(self._renamed)

    @cached_property
    def version(self) -> str:
        """``release+fingerprint`` of the entries loaded (see :mod:`catalog.version`); a project file keeps it."""
        return catalog_version(self._devices.values())

    def __contains__(self, device_id: object) -> bool:
        return isinstance(device_id, str) and (device_id.lower() in self._devices or device_id.lower() in self._renamed)

    def __iter__(self) -> Iterator[DeviceType]:
        return iter(sorted(self._devices.values(), key=lambda d: (d.kind, d.id)))

    def __len__(self) -> int:
        return len(self._devices)

    def get(self, device_id: str) -> DeviceType:
        """The entry ``device_id`` names, in any case; an old id of a renamed entry names the entry."""
        try:
            return self._devices[device_id.lower()]
        except (KeyError, AttributeError):
            new = self._renamed.get(device_id.lower()) if isinstance(device_id, str) else None
            if new is not None:
                return self._devices[new]
            text = str(device_id)
            close = difflib.get_close_matches(text.lower(), list(self._devices), n=3, cutoff=0.5) \
                if len(text) <= 200 else []  # no id is that long
            raise UnknownDeviceError(str(device_id), close) from None

    def find(self, device_id: str) -> DeviceType | None:
        if not isinstance(device_id, str):
            return None
        key = device_id.lower()
        found = self._devices.get(key)
        if found is None and key in self._renamed:
            found = self._devices[self._renamed[key]]
        return found

    def of_kind(self, *kinds: str) -> list[DeviceType]:
        return [d for d in self if d.kind in kinds]

    def gpu_spec_of(self, device: DeviceType):
        """The per-GPU figures of a system, or None when it has no GPUs."""
        if not device.gpu:
            return None
        return self.get(device.gpu).gpu_spec


def _entries(folder: Path) -> tuple[list[Path], list[CatalogError]]:
    """The entry files under ``folder`` (sorted), and the subfolders that could not be read.
    CatalogError when ``folder`` itself is missing, not a folder, unreadable or far too large.
    Anything named like an entry that is not a folder is listed: a pipe or a dangling link
    named ``x.json`` is then reported by the reader, not skipped in silence."""
    if not folder.is_dir():
        reason = "is not a folder" if os.path.lexists(folder) else "user catalog folder does not exist"
        raise CatalogError(str(folder), "", reason)
    found: list[Path] = []
    unreadable: list[CatalogError] = []
    visited = 0

    def failed(exc: OSError) -> None:
        error = CatalogError(str(exc.filename or folder), "", f"cannot be read ({exc.strerror or exc})")
        if os.path.abspath(exc.filename or folder) == os.path.abspath(folder):
            raise error
        unreadable.append(error)

    for root, dirs, files in os.walk(folder, onerror=failed):
        visited += len(dirs) + len(files)
        if visited > MAX_FOLDER_NAMES:
            raise CatalogError(str(folder), "", f"holds more than {MAX_FOLDER_NAMES:,} files and folders; "
                                                "is it a catalog folder?")
        found += [Path(root, name) for name in files
                  if Path(name).suffix.lower() in {".json", ".yaml", ".yml"} and name != "sources.json"]
    return sorted(found), unreadable


def _read_entry(path: Path, sources: dict[str, Source]) -> DeviceType:
    if path.suffix.lower() in {".yaml", ".yml"}:
        from .netbox import import_devicetype  # YAML only matters for NetBox files

        return import_devicetype(path)
    return parse_entry(read_json(path), str(path), sources)


def _references(d: DeviceType) -> Iterator[tuple[str, str, bool]]:
    """(field, id, must be a GPU) of every id ``d`` refers to."""
    if d.gpu:
        yield "gpu", d.gpu, True
    for i, c in enumerate(d.components):
        yield f"components[{i}].id", c.id, False
    if d.basis.startswith(("device:", "node:")):
        for ref in d.basis.partition(":")[2].split(","):
            yield "basis", ref.strip().lower(), False


def _broken_reference(d: DeviceType, devices: dict[str, DeviceType]) -> CatalogError | None:
    for field, ref, gpu in _references(d):
        target = devices.get(ref)
        if target is None or (gpu and target.kind != "gpu"):
            return CatalogError(d.origin, field, f"{quoted(ref)} is not {'a GPU ' if gpu else ''}in the catalog")
    return None


def _check_references(devices: dict[str, DeviceType]) -> None:
    for d in devices.values():
        error = _broken_reference(d, devices)
        if error:
            raise error


def _drop_broken_references(devices: dict[str, DeviceType], builtin: dict[str, DeviceType],
                            warnings: list[str]) -> None:
    """Leave out, with a warning each, the user entries whose references do not resolve: an entry that
    names a missing id, or a user entry that replaced one a built-in entry needs (the built-in one comes
    back). A built-in entry broken by nothing of the user's is a bug in our data: raised."""
    while True:
        for d in devices.values():
            error = _broken_reference(d, devices)
            if error:
                break
        else:
            return
        culprits = [d] if d is not builtin.get(d.id) else [
            devices[ref] for _, ref, _ in _references(d) if ref in devices and devices[ref] is not builtin.get(ref)]
        if not culprits:
            raise error
        for bad in culprits:
            why = str(error) if bad is d else f"{bad.origin}: replaces {bad.id!r}, which {d.id} needs ({error.reason})"
            warnings.append(f"{why}; this entry is not loaded")
            if bad.id in builtin:
                devices[bad.id] = builtin[bad.id]
            else:
                del devices[bad.id]


def _replace_problem(devices: dict[str, DeviceType]) -> tuple[DeviceType, DeviceType, CatalogError] | None:
    """The first ``replaces`` the catalog cannot follow, as (the entry that names it, the other entry, the error):
    an old id that an entry still has, or that two entries replace (a design naming it must become one entry)."""
    claimed: dict[str, DeviceType] = {}
    for d in sorted(devices.values(), key=lambda d: d.id):
        for i, old in enumerate(d.replaces):
            other = devices.get(old)
            if other is not None:
                return d, other, CatalogError(d.origin, f"replaces[{i}]", f"{old!r} is the id of an entry in the "
                                              f"catalog ({other.origin}); an entry replaces only an id no entry has")
            if old in claimed:
                other = claimed[old]
                return d, other, CatalogError(d.origin, f"replaces[{i}]", f"{old!r} is also replaced by {other.id!r} "
                                              f"({other.origin}); an old id can name one entry only")
            claimed[old] = d
    return None


def _check_replaces(devices: dict[str, DeviceType], builtin: dict[str, DeviceType],
                    warnings: list[str] | None) -> None:
    """Refuse a ``replaces`` the catalog cannot follow: raised without ``warnings`` (built-in data, folders the
    user named); with them (implicit folders) the user's entry is left out with a warning (a built-in entry
    it overrode comes back), and the rest loads."""
    while (problem := _replace_problem(devices)) is not None:
        entry, other, error = problem
        culprit = entry if entry is not builtin.get(entry.id) else other
        if warnings is None or culprit is builtin.get(culprit.id):
            raise error
        warnings.append(f"{error}; this entry is not loaded" if culprit is entry else
                        f"{culprit.origin}: id: {culprit.id!r} is replaced by {entry.id!r} ({entry.origin}); "
                        "this entry is not loaded")
        if culprit.id in builtin:
            devices[culprit.id] = builtin[culprit.id]
        else:
            del devices[culprit.id]


def _load_folder(folder: Path, sources: dict[str, Source], devices: dict[str, DeviceType],
                 warnings: list[str] | None) -> None:
    """Add ``folder``'s entries to ``devices`` (its sources to ``sources``). With ``warnings`` (an implicit
    folder) a broken folder or entry is a line there and is left out; without, it is raised."""
    def problem(error: CatalogError, what: str) -> None:
        if warnings is None:
            raise error
        warnings.append(f"{error}; {what}")

    try:
        paths, unreadable = _entries(folder)
        if os.path.lexists(folder / "sources.json"):
            sources.update(load_sources(folder / "sources.json"))
    except CatalogError as exc:
        # the folder's entries cite its sources: without them, none of them can load
        problem(exc, "its entries are not loaded" if exc.file == str(folder) else
                f"the entries of {folder} are not loaded")
        return
    for error in unreadable:
        problem(error, "its entries are not loaded")
    # id -> (the file of this folder that defines it, what the id named before this folder)
    here: dict[str, tuple[str, DeviceType | None]] = {}
    for path in paths:
        try:
            dev = _read_entry(path, sources)
        except CatalogError as exc:
            problem(exc, "this entry is not loaded")
            continue
        if dev.id in here:  # which of two would win is a matter of file names: neither is taken
            first, before = here[dev.id]
            problem(CatalogError(str(path), "id", f"{dev.id!r} is also defined in {first}"), "neither is loaded")
            if before is None:
                devices.pop(dev.id, None)
            else:
                devices[dev.id] = before
            continue
        here[dev.id] = (str(path), devices.get(dev.id))
        devices[dev.id] = dev


def load_catalog(user_dirs: Iterable[Path | str] | None = None, *, builtin: Path = DATA_DIR) -> Catalog:
    """Load the built-in catalog, then each user folder in turn (later ids override earlier).

    ``user_dirs`` None: the implicit folders (:func:`default_user_dirs`), whose problems become
    :attr:`Catalog.warnings`; given: those folders, whose problems raise :class:`CatalogError`."""
    sources = load_sources(builtin / "sources.json")
    devices: dict[str, DeviceType] = {}
    seen: dict[str, str] = {}
    paths, unreadable = _entries(builtin)
    if unreadable:
        raise unreadable[0]
    for path in paths:
        dev = _read_entry(path, sources)
        if dev.id in seen:
            raise CatalogError(str(path), "id", f"{dev.id!r} is already defined in {seen[dev.id]}")
        seen[dev.id] = str(path)
        devices[dev.id] = dev
    _check_references(devices)
    _check_replaces(devices, devices, None)
    builtin_devices = dict(devices)
    warnings: list[str] | None = [] if user_dirs is None else None
    for folder in [Path(p) for p in (default_user_dirs() if user_dirs is None else user_dirs)]:
        _load_folder(folder, sources, devices, warnings)
    if warnings is None:
        _check_references(devices)
    else:
        _drop_broken_references(devices, builtin_devices, warnings)
    _check_replaces(devices, builtin_devices, warnings)
    return Catalog(devices.values(), sources, [one_line(w) for w in warnings or ()])


@lru_cache(maxsize=1)
def default_catalog() -> Catalog:
    """The catalog as the user's environment defines it, loaded once per process."""
    return load_catalog()
