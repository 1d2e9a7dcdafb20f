"""Design assumptions the power and cooling engines need, with their checks.

They live in the project file (``settings``) so a design analyses the same way
everywhere, and can be overridden on the command line for what-if runs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from .bounds import RACK_KW_MIN
from .gpu_power import FLOOR_W

#: Coolant properties at typical secondary-loop temperatures (about 25-35 °C).
#: Water: density 997 kg/m³, specific heat 4,186 J/(kg·K) -> 1.44 L/min per kW at 10 K.
#: PG25 (25 % propylene glycol): 1,021 kg/m³ and 3,900 J/(kg·K) -> 1.51 L/min per kW at 10 K,
#: the figure OCP liquid-cooling guidance and the DCIM reference use.
COOLANTS = {
    "water": {"name": "Water", "density_kg_m3": 997.0, "specific_heat_j_kgk": 4186.0},
    "pg25": {"name": "PG25 (25 % propylene glycol)", "density_kg_m3": 1021.0, "specific_heat_j_kgk": 3900.0},
}


class SettingsError(ValueError):
    """A design assumption out of its physical range."""


@dataclass(frozen=True, slots=True)
class Settings:
    #: Power usage effectiveness: facility power / IT power.
    pue: float = 1.3
    #: Real / apparent power of the rack load (modern server PSUs: 0.95-0.99).
    power_factor: float = 0.95
    #: Continuous-load cap on a circuit, as a share of its rating (NEC-style 80 %).
    derating: float = 0.8
    coolant: str = "water"
    #: Supply/return temperature difference of the liquid loop, K.
    coolant_delta_t_k: float = 10.0
    #: Inlet/outlet temperature rise of the air through IT equipment, K (20 °F = 11.1 K).
    air_delta_t_k: float = 11.1
    #: Temperature of the air the air handlers supply, °C: a design point inside ASHRAE's recommended inlet
    #: envelope (18-27 °C for A1-A4, [S]); 24 is an assumption ([U]), the hall's own figure belongs here.
    air_supply_c: float = 24.0
    #: Rack power limit when neither the rack nor its hall sets one; rack-scale systems get their own class.
    rack_limit_kw: float = 100.0
    #: The limit of a rack holding a rack-scale system, when neither it nor its hall sets one; None (the
    #: default): what one of its feeds carries continuously (designer/power/engine.py), its draw on one feed
    #: held to it. A file of an earlier version keeps the number it saved.
    rack_system_limit_kw: float | None = None
    #: Compute-fabric tiers the design may use: "auto", "2" or "3" (a fabric that needs more is a finding).
    fabric_tiers: str = "auto"
    #: Down:up ratio at the leaf switches; 1 is non-blocking.
    fabric_oversubscription: float = 1.0
    #: Share of a circuit's rating its surviving side may carry while the other feed is lost. A
    #: failover lasts until the repair, not for good, so the default holds it to the breaker's rating
    #: (1.0): NVIDIA's own DGX B200 guidance (2 x 32 A for a 28.6 kW rack, 2 x 60 A for 57.2 kW) only
    #: holds at that. Set 0.8 to hold failover to the continuous limit too.
    failover_derating: float = 1.0
    #: Largest phase imbalance accepted on a loaded circuit: max deviation from the mean over the mean
    #: (the DCIM reference: aim for 10-20 %; 10 % here).
    phase_imbalance_limit: float = 0.1
    #: Air-cooled heat a rack may reject to the room: 25-30 kW with hot/cold aisle containment (DCIM
    #: reference §3.3, [S]); about 15 kW without (APC WP156, where cost flattens, [S] as a limit [U]).
    air_rack_limit_kw: float = 30.0
    air_rack_limit_open_kw: float = 15.0
    #: Power limit set on every GPU of the design (nvidia-smi -pl), W; None: the GPUs run at their TDP.
    #: It lowers the draw the power and cooling engines see and the clock the training estimate runs at
    #: (designer/gpu_power.py).
    gpu_power_cap_w: float | None = None
    #: What the compute fabric's switches run: "infiniband" (Quantum), "spectrum-x" (NVIDIA's Ethernet
    #: for AI, as the DGX B300 Spectrum-4 RA builds it) or "roce" (other RoCE Ethernet). Only switches
    #: of that kind are taken as compute-fabric switches.
    fabric_technology: str = "infiniband"
    #: Independent compute-fabric planes: 2 splits each GPU port in two halves, one per plane (Spectrum-X
    #: twin-plane); a lost plane leaves every job running at half bandwidth.
    fabric_planes: int = 1
    #: Down:up ratio at the spine switches of a three-tier fabric, above the pod (Meta's RoCE clusters: 7,
    #: pods of full bisection joined at 1:7); 1 gives the cores as many links as the pods take in.
    fabric_core_oversubscription: float = 1.0
    #: Storage performance tier the design is held to, as the SuperPOD RAs name them (good, better, best for
    #: 8-GPU DGX; standard, enhanced for NVL72 racks); "auto": the family's middle tier (designer/storage/tiers.py).
    storage_tier: str = "auto"
    #: Usable storage capacity the design must hold, PB; None: no capacity target.
    storage_capacity_pb: float | None = None

    def __post_init__(self) -> None:
        check_settings(self)

    def to_json(self) -> dict:
        # an absent cap is left out, so that a design without one saves as it did before the setting existed
        return {f.name: getattr(self, f.name) for f in fields(self)
                if not (f.name in OPTIONAL and getattr(self, f.name) is None)
                and not (f.name in OMITTED_AT_DEFAULT and getattr(self, f.name) == f.default)}

    def updated(self, **changes) -> Settings:
        return replace(self, **changes)


#: Settings that may be absent (None): no value means the feature is off.
OPTIONAL = frozenset({"gpu_power_cap_w", "storage_capacity_pb", "rack_system_limit_kw"})
#: Settings left out of the file at their default, so that a design saves as it did before they existed.
OMITTED_AT_DEFAULT = frozenset({"fabric_technology", "fabric_planes", "fabric_core_oversubscription",
                                "storage_tier", "air_supply_c"})
#: Compute-fabric technologies (``fabric.technology`` in the analysis).
FABRIC_TECHNOLOGIES = ("infiniband", "spectrum-x", "roce")
#: Storage tiers a design may state (designer/storage/tiers.py: which apply to which systems).
STORAGE_TIERS = ("auto", "good", "better", "best", "standard", "enhanced")
#: Those technologies as people name them (forms, figures, comparisons show these, never the ids).
FABRIC_NAMES = {"infiniband": "InfiniBand", "spectrum-x": "Spectrum-X Ethernet", "roce": "RoCE Ethernet"}
#: The highest GPU power cap a design may state, W: above every GPU's TDP in the catalog (Rubin, about
#: 1,800 W). The design's own GPUs bound it tighter (their floor to their TDP); the power engine reports a
#: cap outside that range, since these settings do not know which GPUs the design holds.
GPU_POWER_CAP_MAX_W = 5000.0


def _positive(name: str, value: object, lo: float = 0.0, hi: float = math.inf, *, inclusive_lo: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SettingsError(f"{name} must be a number, got {value!r}")
    try:
        finite = math.isfinite(value)
    except OverflowError:  # an integer beyond any float
        digits = int(abs(value).bit_length() * 0.30103) + 1
        raise SettingsError(f"{name} must be a number a float can hold, got one of {digits} digits") from None
    if not finite:
        raise SettingsError(f"{name} must be a number, got {value!r}")
    if (value < lo if inclusive_lo else value <= lo) or value > hi:
        lo_text = f">= {lo:g}" if inclusive_lo else f"> {lo:g}"
        raise SettingsError(f"{name} must be {lo_text} and <= {hi:g}, got {value:g}")


def check_settings(s: Settings) -> None:
    _positive("pue", s.pue, 1.0, 5.0, inclusive_lo=True)
    # Lower bounds are physical, as the settings form's (widgets.facility.project_form): no server PSU has a power
    # factor below 0.5, no circuit is held to less than half its rating, no loop runs on under 1 K; and a
    # value a few floats above zero would make every load divided by it infinite.
    _positive("power_factor", s.power_factor, 0.5, 1.0, inclusive_lo=True)
    _positive("derating", s.derating, 0.5, 1.0, inclusive_lo=True)
    if not isinstance(s.coolant, str) or s.coolant not in COOLANTS:
        raise SettingsError(f"coolant {s.coolant!r} is unknown; choose one of {', '.join(COOLANTS)}")
    _positive("coolant_delta_t_k", s.coolant_delta_t_k, 1.0, 50.0, inclusive_lo=True)
    _positive("air_delta_t_k", s.air_delta_t_k, 1.0, 50.0, inclusive_lo=True)
    # from below every class's recommended envelope (18 °C) to the top of the warmest allowable one (A4, 45 °C)
    _positive("air_supply_c", s.air_supply_c, 10.0, 45.0, inclusive_lo=True)
    _positive("rack_limit_kw", s.rack_limit_kw, RACK_KW_MIN, 10000.0, inclusive_lo=True)
    if s.fabric_tiers not in ("auto", "2", "3"):
        raise SettingsError(f"fabric_tiers must be auto, 2 or 3, got {s.fabric_tiers!r}")
    _positive("fabric_oversubscription", s.fabric_oversubscription, 1.0, 64.0, inclusive_lo=True)
    if s.rack_system_limit_kw is not None:
        _positive("rack_system_limit_kw", s.rack_system_limit_kw, RACK_KW_MIN, 10000.0, inclusive_lo=True)
    _positive("failover_derating", s.failover_derating, 0.5, 1.0, inclusive_lo=True)
    _positive("phase_imbalance_limit", s.phase_imbalance_limit, 0.0, 3.0)
    _positive("air_rack_limit_kw", s.air_rack_limit_kw, RACK_KW_MIN, 10000.0, inclusive_lo=True)
    _positive("air_rack_limit_open_kw", s.air_rack_limit_open_kw, RACK_KW_MIN, 10000.0, inclusive_lo=True)
    if s.gpu_power_cap_w is not None:
        _positive("gpu_power_cap_w", s.gpu_power_cap_w, FLOOR_W, GPU_POWER_CAP_MAX_W, inclusive_lo=True)
    if not isinstance(s.fabric_technology, str) or s.fabric_technology not in FABRIC_TECHNOLOGIES:
        raise SettingsError(f"fabric_technology must be one of {', '.join(FABRIC_TECHNOLOGIES)}, "
                            f"got {s.fabric_technology!r}")
    if isinstance(s.fabric_planes, bool) or not isinstance(s.fabric_planes, int) or s.fabric_planes not in (1, 2):
        raise SettingsError(f"fabric_planes must be 1 or 2, got {s.fabric_planes!r}")
    if s.fabric_planes == 2 and s.fabric_technology == "infiniband":
        raise SettingsError("fabric_planes must be 1 on an InfiniBand fabric, got 2: two planes share each node "
                            "port, which only Ethernet switches whose ports split carry (fabric_technology "
                            "spectrum-x or roce)")
    _positive("fabric_core_oversubscription", s.fabric_core_oversubscription, 1.0, 64.0, inclusive_lo=True)
    if not isinstance(s.storage_tier, str) or s.storage_tier not in STORAGE_TIERS:
        raise SettingsError(f"storage_tier must be one of {', '.join(STORAGE_TIERS)}, got {s.storage_tier!r}")
    if s.storage_capacity_pb is not None:
        _positive("storage_capacity_pb", s.storage_capacity_pb, 0.0, 1e6)


def settings_from_json(doc: object, where: str = "settings") -> Settings:
    """Build settings from a file's ``settings`` object; errors name the exact key."""
    if not isinstance(doc, dict):
        raise SettingsError(f"{where}: must be an object")
    known = {f.name for f in fields(Settings)}
    for key in doc:
        if key not in known:
            raise SettingsError(f"{where}.{key}: is not a known setting ({', '.join(sorted(known))})")
    doc = dict(doc)
    if isinstance(doc.get("fabric_tiers"), int) and not isinstance(doc.get("fabric_tiers"), bool):
        doc["fabric_tiers"] = str(doc["fabric_tiers"])  # 2 and "2" mean the same
    if isinstance(doc.get("storage_tier"), str):
        doc["storage_tier"] = doc["storage_tier"].strip().lower()  # "Best" as the command line takes it
    try:
        return Settings(**doc)
    except SettingsError as exc:
        key = str(exc).split(" ")[0]
        raise SettingsError(f"{where}.{key}: {exc}") from None
