"""Storage performance tiers as the DGX SuperPOD reference architectures state them.

The H100 RA's Table 6 (RA-11333-001, catalog source S5) gives read/write GB/s for a single node, one
scalable unit (32 DGX, 256 GPUs) and four, as Good, Better and Best; the GB200 RA (RA-11338-001, read
through a summary, R2) gives Standard and Enhanced per SU of 8 NVL72 racks (576 GPUs), with the same
figures as Better and Best but per an SU of 2.25 times the GPUs. The aggregate a design needs is the
RA's four-SU figure, the largest size it states, per GPU times the design's GPUs: at one SU that gives
7.5 GB/s of write for Good where the table rounds to 7.

No B300, GB300 or Rubin RA read states a table (hardware-2026.md §7). Those systems take their form
factor's figures per GPU (an 8-GPU DGX the H100 RA's, an NVL72 rack the GB200 RA's), and the tier says
so: its evidence is U and the product shows it as unconfirmed.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

#: the tiers of each family, lowest first, as the RA names them
DGX_TIERS = ("good", "better", "best")
NVL72_TIERS = ("standard", "enhanced")
#: what a design without a stated tier gets: the middle of each family (the RA states no default; Better
#: and Standard are the same figures, the ones the GB200 RA calls its base)
DEFAULT_TIER = {"dgx": "better", "nvl72": "standard"}
#: tiers as people name them
TIER_NAMES = {"good": "Good", "better": "Better", "best": "Best", "standard": "Standard", "enhanced": "Enhanced"}
ALL_TIERS = DGX_TIERS + NVL72_TIERS


@dataclass(frozen=True)
class Tier:
    """One RA tier: aggregate GB/s per GPU (from the RA's four-SU row) and a single node's."""

    id: str
    family: str  # dgx | nvl72
    read_gbs_4su: float
    write_gbs_4su: float
    gpus_4su: int
    node_read_gbs: float | None
    node_write_gbs: float | None
    source: str
    evidence: str
    note: str = ""

    @property
    def name(self) -> str:
        return TIER_NAMES[self.id]

    @property
    def read_gbs_per_gpu(self) -> float:
        return self.read_gbs_4su / self.gpus_4su

    @property
    def write_gbs_per_gpu(self) -> float:
        return self.write_gbs_4su / self.gpus_4su

    def need(self, gpus: int) -> tuple[float, float]:
        """(read, write) GB/s the tier asks of a design of ``gpus`` GPUs."""
        return self.read_gbs_per_gpu * gpus, self.write_gbs_per_gpu * gpus


_H100_RA = "H100 SuperPOD RA Table 6: 4-SU aggregate (128 DGX, 1,024 GPUs)"
_GB200_RA = "GB200 SuperPOD RA: 4 SU of 8 NVL72 racks (2,304 GPUs)"
TIERS = {
    "good": Tier("good", "dgx", 60, 30, 1024, 4, 2, "S5", "P*", _H100_RA),
    "better": Tier("better", "dgx", 160, 80, 1024, 8, 4, "S5", "P*", _H100_RA),
    "best": Tier("best", "dgx", 500, 250, 1024, 40, 20, "S5", "P*",
                 _H100_RA + "; a single node's read should approach the network's 80 GB/s"),
    "standard": Tier("standard", "nvl72", 160, 80, 2304, None, None, "R2", "S", _GB200_RA),
    "enhanced": Tier("enhanced", "nvl72", 500, 250, 2304, None, None, "R2", "S", _GB200_RA),
}
#: systems whose own RA states the tiers; every other system of the family borrows them (evidence U)
RA_SYSTEMS = {"dgx": ("dgx-h100", "dgx-h200", "dgx-b200", "dgx-a100"), "nvl72": ("gb200-nvl72",)}


class TierError(ValueError):
    """A storage tier the design's systems have no figures for."""


def family_of(rack_scale: bool) -> str:
    return "nvl72" if rack_scale else "dgx"


def tier_for(name: str | None, system_id: str, rack_scale: bool) -> Tier:
    """The tier ``name`` (None or "auto": the family's default) for ``system_id``, borrowed figures marked U."""
    family = family_of(rack_scale)
    own = DGX_TIERS if family == "dgx" else NVL72_TIERS
    key = (name or "auto").strip().lower()
    if key == "auto":
        key = DEFAULT_TIER[family]
    # the GB200 RA's Standard and Enhanced have the H100 RA's Better and Best per-SU figures, but its SU holds
    # 576 GPUs, not 256: per GPU they ask less, so one family's name is never taken for the other's tier
    if key not in own:
        raise TierError(f"storage tier {name!r} is not one the {'NVL72' if family == 'nvl72' else 'DGX'} SuperPOD "
                        f"RA states; choose {', '.join(own)}")
    tier = TIERS[key]
    if system_id not in RA_SYSTEMS[family]:
        tier = replace(tier, evidence="U", note=tier.note + "; no storage table was found in this system's own "
                                                         "RA, so its form factor's figures per GPU are used")
    return tier


def tiers_above(tier: Tier) -> tuple[str, ...]:
    """The family's tiers higher than ``tier``, lowest first."""
    own = DGX_TIERS if tier.family == "dgx" else NVL72_TIERS
    return own[own.index(tier.id) + 1:]


def lowest_tier(family: str) -> str:
    return (DGX_TIERS if family == "dgx" else NVL72_TIERS)[0]
