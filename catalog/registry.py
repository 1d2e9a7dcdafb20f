"""The catalog: every device type by id, built-in data plus the user's own folders."""
from __future__ import annotations

import difflib
import os
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator

from .files import package_folder
from .loader import CatalogError, load_sources, parse_entry, read_json
from .records import DeviceType, Source

DATA_DIR = package_folder("catalog", "data")
#: Environment variable naming extra catalog folders (``os.pathsep``-separated).
USER_ENV = "PODPLANNER_CATALOG"


def default_user_dirs() -> list[Path]:
    dirs = [Path(p) for p in os.environ.get(USER_ENV, "").split(os.pathsep) if p]
    config = Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config")) / "podplanner" / "catalog"
    if config.is_dir():
        dirs.insert(0, config)
    return dirs


class UnknownDeviceError(KeyError):
    def __init__(self, device_id: str, suggestions: list[str]):
        self.device_id = device_id
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        self.message = f"unknown device id {device_id!r}{hint}"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class Catalog:
    """Read-only map of device types by id (ids are matched in any case)."""

    def __init__(self, devices: Iterable[DeviceType], sources: dict[str, Source]):
        self._devices = {d.id: d for d in devices}
        self.sources = dict(sources)

    def __contains__(self, device_id: object) -> bool:
        return isinstance(device_id, str) and device_id.lower() in self._devices

    def __iter__(self) -> Iterator[DeviceType]:
        return iter(sorted(self._devices.values(), key=lambda d: (d.kind, d.id)))

    def __len__(self) -> int:
        return len(self._devices)

    def get(self, device_id: str) -> DeviceType:
        try:
            return self._devices[device_id.lower()]
        except (KeyError, AttributeError):
            close = difflib.get_close_matches(str(device_id).lower(), list(self._devices), n=3, cutoff=0.5)
            raise UnknownDeviceError(str(device_id), close) from None

    def find(self, device_id: str) -> DeviceType | None:
        return self._devices.get(device_id.lower()) if isinstance(device_id, str) else None

    def of_kind(self, *kinds: str) -> list[DeviceType]:
        return [d for d in self if d.kind in kinds]

    def gpu_spec_of(self, device: DeviceType):
        """The per-GPU figures of a system, or None when it has no GPUs."""
        if not device.gpu:
            return None
        return self.get(device.gpu).gpu_spec


def _entries(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix.lower() in {".json", ".yaml", ".yml"} and path.name != "sources.json":
            yield path


def _read_entry(path: Path, sources: dict[str, Source]) -> DeviceType:
    if path.suffix.lower() in {".yaml", ".yml"}:
        from .netbox import import_devicetype  # YAML only matters for NetBox files

        return import_devicetype(path)
    return parse_entry(read_json(path), str(path), sources)


def _check_references(devices: dict[str, DeviceType]) -> None:
    for d in devices.values():
        if d.gpu:
            g = devices.get(d.gpu)
            if g is None or g.kind != "gpu":
                raise CatalogError(d.origin, "gpu", f"{d.gpu!r} is not a GPU in the catalog")
        for i, c in enumerate(d.components):
            if c.id not in devices:
                raise CatalogError(d.origin, f"components[{i}].id", f"{c.id!r} is not in the catalog")
        if d.basis.startswith(("device:", "node:")):
            for ref in d.basis.partition(":")[2].split(","):
                if ref.strip().lower() not in devices:
                    raise CatalogError(d.origin, "basis", f"{ref.strip()!r} is not in the catalog")


def load_catalog(user_dirs: Iterable[Path | str] | None = None, *, builtin: Path = DATA_DIR) -> Catalog:
    """Load the built-in catalog, then each user folder in turn (later ids override earlier)."""
    sources = load_sources(builtin / "sources.json")
    devices: dict[str, DeviceType] = {}
    seen: dict[str, str] = {}
    for path in _entries(builtin):
        dev = _read_entry(path, sources)
        if dev.id in seen:
            raise CatalogError(str(path), "id", f"{dev.id!r} is already defined in {seen[dev.id]}")
        seen[dev.id] = str(path)
        devices[dev.id] = dev
    for folder in [Path(p) for p in (default_user_dirs() if user_dirs is None else user_dirs)]:
        if not folder.is_dir():
            raise CatalogError(str(folder), "", "user catalog folder does not exist")
        if (folder / "sources.json").is_file():
            sources.update(load_sources(folder / "sources.json"))
        for path in _entries(folder):
            dev = _read_entry(path, sources)
            devices[dev.id] = dev
    _check_references(devices)
    return Catalog(devices.values(), sources)


@lru_cache(maxsize=1)
def default_catalog() -> Catalog:
    """The catalog as the user's environment defines it, loaded once per process."""
    return load_catalog()
