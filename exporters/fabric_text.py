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


def rack_planes(analysis) -> dict[str, dict[str, int]]:
    """Rack id -> {plane name: compute-fabric switches of that plane in the rack}, for a twin-plane fabric
    (a switch's links are all of its plane; a node, cabled to every plane, is none's); empty with one plane."""
    import numpy as np

    from designer.fabric.wiring import plane_name

    if not analysis.has("fabric") or "fabric" not in analysis.results:
        return {}
    fabric = analysis.result("fabric")
    plan = fabric.plan if fabric.error is None else None
    if plan is None or not len(plan) or plan.plane is None or plan.planes < 2:
        return {}
    devs = np.concatenate([plan.a_dev, plan.b_dev]).astype(np.int64)
    planes = np.concatenate([plan.plane, plan.plane]).astype(np.int64)
    pairs = np.unique(np.stack([devs, planes]), axis=1)
    dev_ids, n_planes = np.unique(pairs[0], return_counts=True)
    single = set(dev_ids[n_planes == 1].tolist())
    inv = plan.inv
    out: dict[str, dict[str, int]] = {}
    for d, p in pairs.T.tolist():
        if d in single:
            rack = inv.rack_ids[inv.devices.rack[d]]
            counts = out.setdefault(rack, {})
            counts[plane_name(p)] = counts.get(plane_name(p), 0) + 1
    return {r: dict(sorted(c.items())) for r, c in out.items()}


def planes_text(counts: dict[str, int]) -> str:
    """A rack's switches by plane as one attribute value: "A:4 B:4"."""
    return " ".join(f"{p}:{n}" for p, n in counts.items())
