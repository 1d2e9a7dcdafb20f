"""Two one-SU designs drawn by hand before the generator drew the bundled samples.

Tests that name particular racks, devices and positions (rack ``a01``, its second
DGX at U17, CDU ``cdu-2``) read these, so they keep testing the same behaviour
whatever the generator's layout becomes; tests of the bundled samples themselves
read :mod:`designer.samples`.
"""
from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parent
DGX_B200_SU = FOLDER / "dgx-b200-su-drawn.podplan.json"
GB200_NVL72_SU = FOLDER / "gb200-nvl72-su-drawn.podplan.json"
DEFAULT = DGX_B200_SU


def all_samples() -> list[Path]:
    return sorted(FOLDER.glob("*.podplan.json"))
