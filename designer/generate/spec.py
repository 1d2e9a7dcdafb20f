"""What a user asks the generator for, checked, and what each system brings to a scalable unit.

Why the scalable unit comes from the reference architectures: a DGX SuperPOD is
ordered, cabled and tested one SU at a time (RA-11334-001: 32 DGX B200 per SU;
RA-11338-001: 8 GB200 NVL72 racks per SU), so targets are rounded to whole SUs
and the compute fabric's leaf blocks line up with them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from catalog import Catalog, UnknownDeviceError

from ..bounds import stored_text
from ..facility import NO_WATER, WATER_CLASSES
from ..gpu_power import GpuPowerError, check_cap, gpu_name

#: Systems the generator lays out, with their scalable unit (nodes for servers, racks for rack systems) as
#: the catalog states it (``su_systems``, each with its RA as source; a test keeps the two equal).
SYSTEMS = {"dgx-b200": 32, "dgx-h100": 32, "dgx-h200": 32, "dgx-b300": 72, "dgx-b300-dc": 72,
           "dgx-rubin-nvl8": 72, "gb200-nvl72": 8, "gb300-nvl72": 8}
#: Systems in the catalog for which NVIDIA has published no SuperPOD scalable unit: placed by hand, not generated.
NO_PUBLISHED_SU = {"vera-rubin-nvl72": "NVIDIA has published no DGX SuperPOD scalable unit for Vera Rubin NVL72 "
                                       "(its Enterprise RA builds Spectrum-X racks, not SUs); place its racks by "
                                       "hand, or generate dgx-rubin-nvl8, whose RA gives 72 systems per SU"}
NETWORKS = ("compute", "storage", "inband", "oob")
#: The compute switch of the NDR reference architectures (RA-11334-001 and RA-11338-001: Quantum-2 QM9700).
DEFAULT_SWITCH = "qm9700"
#: The compute switch of the XDR reference architectures (RA-11339-001, DGX Rubin NVL8: Quantum-X800 Q3400),
#: for systems whose compute ports run at 800 Gb/s.
XDR_SWITCH = "q3400"
#: The compute switch of the Spectrum-X reference architectures (RA-11337-001 and the NVL72 AI Factory RA's
#: text: Spectrum-4 SN5610).
ETHERNET_SWITCH = "sn5610"
#: The compute switch of a RoCE fabric: Spectrum-4 SN5600, its 64 x 800G cages run as 128 x 400G.
ROCE_SWITCH = "sn5600"
#: Compute-fabric technologies the generator builds.
FABRICS = ("infiniband", "spectrum-x", "roce")
#: Systems the generator builds a RoCE compute fabric for: their compute NICs are ConnectX-7 (DGX H100, H200,
#: B200: 8 x 400G), which, as every ConnectX-7 and ConnectX-8, run InfiniBand or Ethernet (VPI), so the same
#: ports run RoCE on an Ethernet switch. NVIDIA publishes no SuperPOD RA for them on RoCE: the SU is their
#: InfiniBand RA's (32 systems), the fabric a single plane at 400G, and there is no UFM on Ethernet.
ROCE_SYSTEMS = ("dgx-h100", "dgx-h200", "dgx-b200")
#: Rack power limit when none is asked for: the B200 RA's 2-DGX rack (28.6 kW) in a 40 kW rack position;
#: rack-scale systems get their own rack's figure.
DEFAULT_RACK_KW = 40.0
#: Largest GPU count asked for: beyond any hall, refused in words before any arithmetic.
MAX_LIMIT = 10**7
#: Most phases a build is split into: each is a whole design file.
MAX_PHASES = 64


class GenerateError(ValueError):
    """A target the generator cannot build, with the limit, the shortfall and, where one exists, the nearest fit."""

    def __init__(self, message: str, *, fit: bool = False):
        super().__init__(message)
        #: the target is too big for the room or supply asked for; a smaller one may fit
        self.fit = fit


def _whole(value, what: str, lo: int = 1, hi: int = MAX_LIMIT) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        else:
            raise GenerateError(f"{what} must be a whole number, got {value!r}")
    if not lo <= value <= hi:
        shown = f"a number of {len(str(abs(value)))} digits" if abs(value) > 10**12 else f"{value:,}"
        raise GenerateError(f"{what} must be between {lo:,} and {hi:,}, got {shown}")
    return value


def _number(value, what: str, lo: float, hi: float, *, inclusive: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        raise GenerateError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(v) or (v < lo if inclusive else v <= lo) or v > hi:
        raise GenerateError(f"{what} must be {'at least' if inclusive else 'above'} {lo:g} and at most {hi:g}, "
                            f"got {value!r}")
    return v


@dataclass(frozen=True)
class SuperpodSpec:
    """A target: ``gpus`` or ``sus`` of ``system``, and how to build it. ``None`` means "the generator decides"."""

    system: str = "dgx-b200"
    gpus: int | None = None
    sus: int | None = None
    switch: str | None = None
    rack_kw: float | None = None
    nodes_per_rack: int | None = None
    rails: int | None = None
    oversubscription: float = 1.0
    tiers: str = "auto"
    networks: tuple[str, ...] = NETWORKS
    #: hall width x depth in metres; None fits the hall to the design
    hall: tuple[float, float] | None = None
    hall_power_kw: float | None = None
    hall_cooling_kw: float | None = None
    hall_liquid_kw: float | None = None
    #: data halls to a building on a site of several halls; None: the generator's (designer/generate/site.py)
    halls_per_building: int | None = None
    #: the hall's floor rating, kg/m²; None: the generator's (2,500 for rack-scale and busbar systems, else 1,500)
    floor_kg_m2: float | None = None
    #: the hall's facility water: an ASHRAE class W32 / W40 / W45 or "none"; None: W32 where there is liquid heat
    facility_water: str | None = None
    #: the site: altitude in m above sea level and design outdoor ambient in °C (None: not stated), which derate
    #: the generators and the UPS the hall is given
    altitude_m: float = 0.0
    ambient_c: float | None = None
    #: scalable units per build phase; None builds everything at once
    phase_sus: int | None = None
    name: str = ""
    #: per-GPU power cap the design carries (settings.gpu_power_cap_w), W; None: no cap
    gpu_power_w: float | None = None
    #: compute-fabric technology: "infiniband", "spectrum-x" or "roce"; None: the system's RA default
    fabric: str | None = None
    #: compute-fabric planes (1 or 2); None: the RA's (2 for Spectrum-X, 1 for InfiniBand and RoCE)
    planes: int | None = None
    #: down:up ratio at the spines of a three-tier compute fabric, above the pod (Meta's 24K cluster: 7); None:
    #: 1, or the campus ratios where three tiers at 1 do not reach the GPUs (designer/generate/build.py)
    core_oversubscription: float | None = None
    #: storage tier (designer/storage/tiers.py) the appliances are sized to; None: the family's default
    storage_tier: str | None = None
    #: usable storage capacity the appliances must hold, PB; None: as many as the tier's GB/s takes
    storage_pb: float | None = None
    #: storage appliance catalog id; None: the generator's default (designer/generate/storage.py)
    storage_appliance: str | None = None

    def with_sus(self, sus: int) -> SuperpodSpec:
        return replace(self, sus=sus, gpus=None)


@dataclass(frozen=True)
class SystemProfile:
    """What one system brings: GPUs and fabric ports per node, nodes per SU, power and size."""

    id: str
    name: str
    rack_scale: bool
    gpus_per_node: int
    #: compute-fabric ports (rails) per node; a rack system's node is its compute tray
    rails: int
    nodes_per_su: int
    #: compute trays per rack system (1 for a server)
    trays: int
    node_max_kw: float
    u_height: int
    storage_ports: int
    inband_ports: int
    #: compute-port speed, Gb/s (400 NDR, 800 XDR): it picks the default switch and the UFM appliance
    port_gbps: float = 400.0
    #: systems per rack in the RA's layout (servers; 0 when not stated)
    systems_per_rack: int = 0
    #: fed by the rack's power shelves on a DC busbar (no PDUs)
    busbar: bool = False
    #: the compute fabric's technology ("infiniband", "spectrum-x" or "roce"): it sets the SU and the switch
    fabric: str = "infiniband"

    @property
    def default_switch(self) -> str:
        if self.fabric == "roce":
            return ROCE_SWITCH
        if self.fabric != "infiniband":
            return ETHERNET_SWITCH
        return XDR_SWITCH if self.port_gbps >= 800 else DEFAULT_SWITCH



def fabric_for(catalog: Catalog, system: str, fabric: str | None) -> str:
    """The compute fabric the system is built with: the one asked for, else its SuperPOD RA's; a clear
    GenerateError when the system's RAs build no such fabric."""
    dev = catalog.get(system)
    if fabric is None:
        return dev.default_fabric or "infiniband"
    name = str(fabric).strip().lower()
    if name not in FABRICS:
        raise GenerateError(f"--fabric: {fabric!r} is not a fabric the generator builds; choose "
                            f"{', '.join(FABRICS[:-1])} or {FABRICS[-1]}")
    if name == "spectrum-x" and not dev.ethernet_su_systems:
        have = [d.id for d in catalog if d.id in SYSTEMS and d.ethernet_su_systems]
        raise GenerateError(f"--fabric spectrum-x: {system} has no Ethernet reference architecture with a "
                            f"published scalable unit (its RA builds InfiniBand); allowed for {system}: "
                            f"infiniband. Spectrum-X is built for {', '.join(have)}")
    if name == "roce" and system not in ROCE_SYSTEMS:
        raise GenerateError(f"--fabric roce: built for the 400G ConnectX-7 systems {', '.join(ROCE_SYSTEMS)} "
                            f"(one 400 GbE plane on SN5600, their InfiniBand RA's scalable unit); {system} is not "
                            f"one of them: choose infiniband"
                            + (" or spectrum-x" if dev.ethernet_su_systems else ""))
    return name


def system_profile(catalog: Catalog, system: str, fabric: str | None = None) -> SystemProfile:
    if system in NO_PUBLISHED_SU:
        raise GenerateError(f"{system}: {NO_PUBLISHED_SU[system]}")
    if system not in SYSTEMS:
        raise GenerateError(f"system {system!r} is not one the generator lays out; choose one of "
                            f"{', '.join(SYSTEMS)}")
    dev = catalog.get(system)
    compute = dev.ports_of("compute")
    if not compute:
        raise GenerateError(f"{system} has no compute-fabric ports in the catalog")
    fabric = fabric_for(catalog, system, fabric)
    # Spectrum-X has its own RA's SU; RoCE has no NVIDIA RA, so it keeps the InfiniBand RA's
    su = (dev.ethernet_su_systems if fabric == "spectrum-x" else 0) or dev.su_systems or SYSTEMS[system]
    speed = float(compute[0].speed_gbps)
    if dev.kind == "rack_system":
        trays = 0
        rails = 0
        for comp in dev.components:
            ctype = catalog.get(comp.id)
            if ctype.ports_of("compute"):
                trays, rails = int(comp.count), int(ctype.ports_of("compute")[0].count)
        if not trays:
            raise GenerateError(f"{system}: the catalog does not say which of its trays carry compute ports")
        storage = sum(g.count for g in dev.ports_of("storage"))
        return SystemProfile(system, dev.name, True, int(dev.gpu_count or 0), rails, su * trays, trays,
                             (dev.power_max_w or 0) / 1000, int(dev.u_height), storage // trays, 0, speed,
                             fabric=fabric)
    return SystemProfile(system, dev.name, False, int(dev.gpu_count or 0), int(compute[0].count), su, 1,
                         (dev.power_max_w or 0) / 1000, int(math.ceil(dev.u_height)),
                         sum(g.count for g in dev.ports_of("storage")), sum(g.count for g in dev.ports_of("inband")),
                         speed, dev.systems_per_rack, dev.busbar, fabric)


def _fabric_switch(d, protocol: str = "infiniband") -> bool:
    return d.kind == "switch" and any(g.role == "fabric" and g.protocol == protocol for g in d.ports)


def _ib_fabric_switch(d) -> bool:
    return _fabric_switch(d)


def check_spec(spec: SuperpodSpec, catalog: Catalog) -> SuperpodSpec:
    """``spec`` with every value checked (a clear GenerateError otherwise)."""
    if not isinstance(spec.system, str):
        raise GenerateError("system must be a catalog id such as dgx-b200")
    system = spec.system.strip().lower()
    if (spec.gpus is None) == (spec.sus is None):
        raise GenerateError("give the size as GPUs or as scalable units, one of the two")
    gpus = None if spec.gpus is None else _whole(spec.gpus, "GPUs")
    sus = None if spec.sus is None else _whole(spec.sus, "scalable units", hi=100_000)
    profile = system_profile(catalog, system, spec.fabric)
    fabric = profile.fabric
    switch = (spec.switch or profile.default_switch).strip().lower()
    try:
        sw = catalog.get(switch)
    except UnknownDeviceError as exc:
        raise GenerateError(str(exc)) from None
    protocol = "infiniband" if fabric == "infiniband" else "ethernet"
    if not _fabric_switch(sw, protocol):
        kind = "an InfiniBand" if protocol == "infiniband" else "an Ethernet"
        raise GenerateError(f"--switch: {switch} is not {kind} fabric switch, which --fabric {fabric} needs; "
                            f"allowed: {', '.join(d.id for d in catalog if _fabric_switch(d, protocol))}")
    planes = _planes(spec.planes, fabric, catalog.get(system), sw)
    if fabric == "infiniband":
        _check_cages(catalog, system, sw)
    if spec.planes is not None:
        _check_parts(catalog, profile, sw, planes)
    rack_kw = None if spec.rack_kw is None else _number(spec.rack_kw, "rack power (kW)", 0.0, 10_000.0)
    npr = None if spec.nodes_per_rack is None else _whole(spec.nodes_per_rack, "nodes per rack", hi=64)
    rails = None if spec.rails is None else _whole(spec.rails, "rails", hi=64)
    if rails is not None and rails != profile.rails:
        raise GenerateError(f"{system} has {profile.rails} compute-fabric ports per "
                            f"{'compute tray' if profile.rack_scale else 'system'}, one per rail: rails must be "
                            f"{profile.rails}, got {rails}")
    if npr is not None and profile.rack_scale:
        raise GenerateError(f"a {system} is a whole rack: nodes per rack does not apply to it")
    over = _number(spec.oversubscription, "oversubscription", 1.0, 64.0, inclusive=True)
    core_over = (None if spec.core_oversubscription is None else
                 _number(spec.core_oversubscription, "--core-oversubscription", 1.0, 64.0, inclusive=True))
    tiers = str(spec.tiers).strip().lower()
    if tiers not in ("auto", "2", "3"):
        raise GenerateError(f"tiers must be auto, 2 or 3, got {spec.tiers!r}")
    if isinstance(spec.networks, str) or not all(isinstance(n, str) for n in spec.networks):
        raise GenerateError(f"networks are a list of names: {', '.join(NETWORKS)}")
    networks = tuple(dict.fromkeys(n.strip().lower() for n in spec.networks if n.strip()))
    unknown = [n for n in networks if n not in NETWORKS]
    if unknown:
        raise GenerateError(f"unknown network {unknown[0]!r}; networks: {', '.join(NETWORKS)}")
    if "compute" not in networks:
        raise GenerateError("the compute network is part of every SuperPOD; add it to the networks")
    hall = None
    if spec.hall is not None:
        try:
            w, d = spec.hall
        except (TypeError, ValueError):
            raise GenerateError("hall is WIDTHxDEPTH in metres, for example 40x30") from None
        hall = (_number(w, "hall width (m)", 1.0, 10_000.0), _number(d, "hall depth (m)", 1.0, 10_000.0))
    caps = {k: None if getattr(spec, k) is None else _number(getattr(spec, k), what, 0.0, 1e9)
            for k, what in (("hall_power_kw", "hall power (kW)"), ("hall_cooling_kw", "hall air cooling (kW)"),
                            ("hall_liquid_kw", "hall liquid cooling (kW)"))}
    floor = None if spec.floor_kg_m2 is None else _number(spec.floor_kg_m2, "--floor-kg-m2 (kg/m²)", 0.0, 100_000.0)
    per_building = (None if spec.halls_per_building is None
                    else _whole(spec.halls_per_building, "--halls-per-building", hi=100))
    water = spec.facility_water
    if water is not None:
        water = str(water).strip()
        water = {w.lower(): w for w in (*WATER_CLASSES, NO_WATER)}.get(water.lower())
        if water is None:
            raise GenerateError(f"--facility-water: one of none, {', '.join(WATER_CLASSES)} (ASHRAE facility water "
                                f"classes, the warmest supply in °C), got {spec.facility_water!r:.40}")
    # the facility's own ranges (designer/facility.py), both ends allowed
    altitude = _number(spec.altitude_m, "--altitude-m (m above sea level)", -500.0, 5000.0, inclusive=True)
    ambient = (None if spec.ambient_c is None else
               _number(spec.ambient_c, "--ambient-c (°C)", -60.0, 60.0, inclusive=True))
    phase = None if spec.phase_sus is None else _whole(spec.phase_sus, "scalable units per phase", hi=100_000)
    if phase is not None and sus is not None and math.ceil(sus / phase) > MAX_PHASES:
        raise GenerateError(f"{math.ceil(sus / phase)} phases of {phase} scalable unit{'s' if phase != 1 else ''} "
                            f"are more than {MAX_PHASES}; build in steps of at least {math.ceil(sus / MAX_PHASES)}")
    gpu_w = None if spec.gpu_power_w is None else _number(spec.gpu_power_w, "GPU power cap (W)", 0.0, 1e9)
    gpu = catalog.get(catalog.get(system).gpu)
    try:  # the GPU's own range (its modelled floor to its TDP), in the model's words
        check_cap(gpu_w, gpu.gpu_spec.tdp_w, gpu_name(gpu.id))
    except GpuPowerError as exc:
        raise GenerateError(str(exc)) from None
    if not isinstance(spec.name, str):
        raise GenerateError(f"the design's name must be text, got {spec.name!r:.40}")
    try:  # held to what a project file keeps: the design written must open again
        name = stored_text(spec.name)
    except ValueError as exc:
        raise GenerateError(f"--name {exc}") from None
    from .storage import check_storage  # the storage plan reads this module's errors

    storage_tier, storage_pb, appliance = check_storage(spec, catalog, system, profile.rack_scale, networks)
    return replace(spec, system=system, gpus=gpus, sus=sus, switch=switch, rack_kw=rack_kw, nodes_per_rack=npr,
                   storage_tier=storage_tier, storage_pb=storage_pb, storage_appliance=appliance,
                   name=name, rails=rails, oversubscription=over, tiers=tiers, networks=networks, hall=hall,
                   phase_sus=phase, gpu_power_w=gpu_w, fabric=fabric, planes=planes,
                   core_oversubscription=core_over, floor_kg_m2=floor, facility_water=water,
                   altitude_m=altitude, ambient_c=ambient, halls_per_building=per_building, **caps)


def _check_cages(catalog: Catalog, system: str, switch) -> None:
    """Refuse a switch whose cages no catalog part joins to the system's compute ports (a 400G DGX B200 on an 800G
    Quantum-X800: no NDR part fits an XDR cage), rather than write a design of unwired links."""
    from ..fabric.geometry import _fabric_role
    from ..fabric.media import cage_of, longest_reach

    role = _fabric_role(catalog, system)
    group = next((g for g in switch.ports if g.role == "fabric" and g.protocol == "infiniband"), None)
    if role[0] not in ("node", "system") or group is None:
        return
    node, cage = cage_of(role[2], False), cage_of(group, True)
    if longest_reach(catalog, node, cage) > 0:
        return
    fits = [d.id for d in catalog if d.kind == "switch" and d.id != switch.id and any(
        g.role == "fabric" and g.protocol == "infiniband" and longest_reach(catalog, node, cage_of(g, True)) > 0
        for g in d.ports)]
    # NDR (4 x 100G-PAM4) meets XDR (4 x 200G-PAM4) through no part at all: NVIDIA's XDR list says 200G-PAM4
    # transceivers cannot downshift to 100G-PAM4, and its DACs are too short at that rate
    lanes = ("; 800G XDR optics run 200G-PAM4 lanes and cannot downshift to a 400G NDR port's 100G-PAM4 (NVIDIA LinkX "
             "XDR parts list), so no such part exists" if {node.speed_gbps, cage.speed_gbps} == {400.0, 800.0} else "")
    raise GenerateError(f"no catalog part joins the {system}'s compute ports ({node.label()}) to the {switch.id}'s "
                        f"({cage.label()}): every compute link would be unwired{lanes}"
                        + (f"; switches its ports do reach: {', '.join(fits)}" if fits else ""))


def _check_parts(catalog: Catalog, profile: SystemProfile, switch, planes: int) -> None:
    """Refuse a plane count whose ports no catalog optic joins (a DGX B300's 800G port whole on an SN5610
    cage: the catalog has no single-port 800G Ethernet module), rather than write a design of unwired links."""
    from ..fabric.sizing import FabricError, size_fat_tree

    try:
        tree = size_fat_tree(profile.rails, switch, rails=profile.rails, su_nodes=1, node_port_gbps=profile.port_gbps,
                             node_cage_ports=1, planes=planes)
    except FabricError as exc:
        raise GenerateError(f"--planes {planes}: {exc}") from None
    notes = tree.optics(catalog)[2]
    if notes:
        run = profile.port_gbps / planes
        other = 2 if planes == 1 else 1
        raise GenerateError(f"--planes {planes}: each {profile.id} port would run at {run:g}G, and the catalog has "
                            f"no optic that joins it to the {switch.id}'s cages ({notes[0].split(': the ')[0]}); "
                            f"--planes {other}, the reference architecture's, has them")


def _planes(value, fabric: str, system, switch) -> int:
    """Planes asked for (1 or 2), else the RA's: twin-plane Spectrum-X, one InfiniBand or RoCE plane."""
    if value is None:
        return (system.ethernet_planes or 1) if fabric == "spectrum-x" else 1
    if isinstance(value, bool) or str(value).strip() not in ("1", "2"):
        raise GenerateError(f"--planes: must be 1 or 2, got {value!r}")
    planes = int(str(value).strip())
    group = next(g for g in switch.ports if g.role == "fabric")
    if planes == 2 and group.breakout < 2:
        raise GenerateError(f"--planes 2: the {switch.id}'s {group.speed_gbps:g}G ports do not split, so a node "
                            f"port cannot be shared by two planes; twin planes are built of Ethernet switches "
                            f"(--fabric spectrum-x)")
    return planes


def parse_hall(text: str) -> tuple[float, float] | None:
    """``"40x30"`` (metres) as (40.0, 30.0); ``"fit"`` as None."""
    t = str(text).strip().lower()
    if t == "fit":
        return None
    parts = t.replace("×", "x").split("x")
    if len(parts) != 2:
        raise GenerateError(f"hall {text!r}: give WIDTHxDEPTH in metres (for example 40x30) or fit")
    try:
        return float(parts[0]), float(parts[1])
    except ValueError:
        raise GenerateError(f"hall {text!r}: give WIDTHxDEPTH in metres (for example 40x30) or fit") from None


def ufm_for(catalog: Catalog, switch: str) -> str | None:
    """The compute fabric's UFM appliance: the one whose fabric ports run at the switch's speed (the XDR
    appliance on a Quantum-X800, the NDR one on a Quantum-2), whatever the nodes' ports run at."""
    group = next((g for g in catalog.get(switch).ports if g.role == "fabric"), None)
    if group is not None and group.protocol == "ethernet":
        return None  # UFM manages InfiniBand; a Spectrum-X fabric is managed from its switches' own OS
    speed = group.speed_gbps if group is not None else 400.0
    return "ufm-appliance-xdr" if speed >= 800 else "ufm-appliance"
