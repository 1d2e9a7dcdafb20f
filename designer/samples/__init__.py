"""Bundled sample designs."""
from __future__ import annotations

from pathlib import Path

from catalog.files import package_folder

FOLDER: Path = package_folder("designer.samples")
DGX_B200_SU = FOLDER / "dgx-b200-su.podplan.json"
GB200_NVL72_SU = FOLDER / "gb200-nvl72-su.podplan.json"
DEFAULT = DGX_B200_SU


def all_samples() -> list[Path]:
    return sorted(FOLDER.glob("*.podplan.json"))
