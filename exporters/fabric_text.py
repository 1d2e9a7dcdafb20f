"""How the exports name a compute fabric's technology, planes and switch tiers, the same way in every file.

An InfiniBand fat tree's third tier is its core; a Spectrum-X (Ethernet) fabric calls it the super-spine, as
NVIDIA's Spectrum-X reference architectures do. A twin-plane fabric's counts include both planes; the text
adds one plane's.
"""
from __future__ import annotations

from designer.formatting import number

#: the analysis' ``fabric.technology`` -> the name a reader knows it by
TECHNOLOGY_NAMES = {"infiniband": "InfiniBand", "spectrum-x": "Spectrum-X Ethernet", "roce": "RoCE Ethernet"}


def technology_name(technology: str | None) -> str:
    return TECHNOLOGY_NAMES.get(technology or "infiniband", technology or "InfiniBand")


def is_ethernet(fabric) -> bool:
    return fabric is not None and (fabric.technology or "infiniband") != "infiniband"


def tier_names(fabric) -> tuple[str, str, str]:
    """The three tiers' names, capitalised: Leaf, Spine, Core (Super-spine on Ethernet)."""
    return ("Leaf", "Spine", "Super-spine" if is_ethernet(fabric) else "Core")


def switches_label(fabric) -> str:
    """"Switches: leaf / spine / core", with the Ethernet fabric's super-spine."""
    return "Switches: " + " / ".join(t.lower() for t in tier_names(fabric))


def switches_value(fabric, leaf: int, spine: int, core: int) -> str:
    """"32 / 16 / 0"; on an Ethernet or twin-plane fabric with its technology and one plane's counts first:
    "Spectrum-X Ethernet, 2 planes: 32 / 16 / 0 (16 / 8 / 0 per plane)"."""
    counts = f"{number(leaf)} / {number(spine)} / {number(core)}"
    if fabric is None or (not is_ethernet(fabric) and (fabric.planes or 1) <= 1):
        return counts
    planes = fabric.planes or 1
    head = technology_name(fabric.technology) + (f", {planes} planes" if planes > 1 else "")
    pp = fabric.per_plane
    if planes > 1 and pp is not None:
        counts += f" ({number(pp.leaf)} / {number(pp.spine)} / {number(pp.core)} per plane)"
    return f"{head}: {counts}"
