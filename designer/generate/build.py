"""From a target to a project: racks, switches, power and cooling, placed through the domain's commands.

Nothing is written into the project that a user could not have placed: the hall
is added with :class:`AddHallCommand` and every rack and CDU with one
:class:`AddObjectsCommand`, which refuses overlaps, racks outside the hall,
unknown types and U collisions exactly as it does for a drag in the window.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from catalog import Catalog

from ..commands import AddHallCommand, AddObjectsCommand, CommandError
from ..cooling import analyze_cooling
from ..engines import Context
from ..model import FloorDevice, Hall, MountedDevice, Project, Rack
from ..power import analyze_power, pdu_capacity_kw
from ..settings import Settings
from .facility_sizing import facility_for
from .layout import TILE, Grid, plan_grid, row_places
from .networks import NetworkPlan, compute_fabric, plan_networks
from .spec import (
    DEFAULT_RACK_KW,
    MAX_PHASES,
    GenerateError,
    SuperpodSpec,
    SystemProfile,
    check_spec,
    system_profile,
)

RACK_TYPE = "rack-48u-600x1200"
CDU_TYPE = "cdu-inrow-2mw"
PDU_TYPES = ("pdu-415v-60a-3ph", "pdu-415v-32a-3ph")
#: Capacity the generator gives a hall it fits to the design: 15 % above the design's need, rounded up to
#: 100 kW, so the 90 % headroom warning stays quiet and the first change has room.
FIT_MARGIN = 1.15
FLOOR_RATING = {False: 1500.0, True: 2500.0}
#: Most a network or management rack is filled to (90 % of it): they are air-cooled, and air-cooled racks
#: much above 25-30 kW need rear-door or in-row cooling (dcim.md), whatever the compute racks draw.
NETWORK_RACK_KW = 30.0
#: Lowest U used in network and management racks (U1 left for cable management).
FIRST_U = 2


@dataclass
class Generated:
    """A generated design and what the generator decided on the way."""

    project: Project
    spec: SuperpodSpec
    profile: SystemProfile
    networks: NetworkPlan
    sus: int
    nodes: int
    gpus: int
    grid: Grid
    notes: list[str] = field(default_factory=list)
    it_max_kw: float = 0.0
    liquid_kw: float = 0.0
    air_kw: float = 0.0
    #: the design at the end of each phase (empty unless phases were asked for)
    phases: list[Project] = field(default_factory=list)


def _pdu_usable_kw(catalog: Catalog, type_id: str, settings: Settings) -> float:
    d = catalog.get(type_id)
    return pdu_capacity_kw(d.voltage_v, d.current_a, d.phases, settings.power_factor) * settings.derating


def _pdus(catalog: Catalog, rack_id: str, max_kw: float, failover_kw: float, supplies: int, settings: Settings,
          memo: dict | None = None) -> list[MountedDevice]:
    """PDUs for a rack drawing ``max_kw``: on each of feeds A and B enough for half the rack in normal
    operation and for ``failover_kw`` (what the rack draws on one feed) when the other is lost, and enough
    outlets for half the rack's supplies each."""
    if max_kw <= 0:
        return []
    key = (max_kw, failover_kw, supplies)
    best = None if memo is None else memo.get(key)
    if best is None:
        best = _pdu_choice(catalog, max_kw / 2, failover_kw, supplies, settings)
        if memo is not None:
            memo[key] = best
    per_feed, type_id = best
    # Alternating A, B, A, B: the order the power engine assigns feeds in.
    return [MountedDevice(f"{rack_id}-pdu{i + 1}", type_id, None, "rear", f"PDU {'AB'[i % 2]}{i // 2 + 1}")
            for i in range(2 * per_feed)]


def _pdu_choice(catalog: Catalog, normal_kw: float, failover_kw: float, supplies: int,
                settings: Settings) -> tuple[int, str]:
    """(PDUs per feed, PDU type): the type that needs the fewest, the smaller rating on a tie.

    Each feed carries its half of the rack within the continuous limit, and the rack's failover load
    (devices throttled to their surviving supplies) within the rating: the rule that gives NVIDIA's
    2 x 32 A for a 2-DGX B200 rack and 2 x 60 A for a 4-DGX rack."""
    best = None
    for type_id in sorted(PDU_TYPES, key=lambda k: _pdu_usable_kw(catalog, k, settings)):
        usable = _pdu_usable_kw(catalog, type_id, settings)
        full = usable / settings.derating * settings.failover_derating
        dev = catalog.get(type_id)
        outlets = (dev.outlets_c19 + dev.outlets_c13) or dev.outlets or 1
        per_feed = max(math.ceil(normal_kw / usable - 1e-9), math.ceil(failover_kw / full - 1e-9),
                       math.ceil(math.ceil(supplies / 2) / outlets))
        if best is None or per_feed < best[0]:
            best = (per_feed, type_id)
    return best


class _Builder:
    """Collects racks and CDUs with their places, then hands them to the commands in one step."""

    def __init__(self, catalog: Catalog, settings: Settings):
        self.catalog = catalog
        self.settings = settings
        self.racks: list[Rack] = []
        self.cdus: list[FloorDevice] = []
        self._types: dict = {}
        self._pdu_memo: dict = {}

    def _one_feed_kw(self, devices: list[MountedDevice]) -> float:
        """What the rack draws on one feed: each device capped by the half (rounded up) of its supplies."""
        total = 0.0
        for d in devices:
            t = self.dtype(d.type)
            mx = (t.power_max_w or 0) / 1000
            total += min(mx, math.ceil(t.psu.count / 2) * t.psu.rating_w / 1000) if t.psu else mx
        return total

    def dtype(self, type_id: str):
        t = self._types.get(type_id)
        if t is None:
            t = self._types[type_id] = self.catalog.get(type_id)
        return t

    def rack(self, rid: str, name: str, place, devices: list[MountedDevice], *, pdus: bool = True) -> Rack:
        if pdus:
            kw = sum((self.dtype(d.type).power_max_w or 0) for d in devices) / 1000
            supplies = sum((self.dtype(d.type).psu.count if self.dtype(d.type).psu else 1) for d in devices)
            devices = devices + _pdus(self.catalog, rid, kw, self._one_feed_kw(devices), supplies, self.settings,
                                      self._pdu_memo)
        rack = Rack(rid, name, "hall-1", RACK_TYPE, place.x, place.y, place.rotation, place.row, tuple(devices))
        self.racks.append(rack)
        return rack


def _stack(items: list[tuple[str, str, str, str]], catalog: Catalog, units: int) -> list[list[MountedDevice]]:
    """``(id suffix, type, name, face)`` stacked from U2 upward, a new rack whenever one is full."""
    racks: list[list[MountedDevice]] = [[]]
    u = FIRST_U
    for suffix, type_id, name, face in items:
        h = int(math.ceil(catalog.get(type_id).u_height or 1))
        if u + h - 1 > units - 1:
            racks.append([])
            u = FIRST_U
        racks[-1].append(MountedDevice(suffix, type_id, u, face, name))
        u += h
    return [r for r in racks if r]


def _fill_by_power(items, catalog: Catalog, units: int, limit_kw: float) -> list[list[MountedDevice]]:
    """Like :func:`_stack`, but a rack also closes when its devices would draw more than ``limit_kw``."""
    groups: list[list] = [[]]
    kw = 0.0
    for item in items:
        p = (catalog.get(item[1]).power_max_w or 0) / 1000
        if groups[-1] and kw + p > limit_kw:
            groups.append([])
            kw = 0.0
        groups[-1].append(item)
        kw += p
    out = []
    for g in groups:
        out += _stack(g, catalog, units)
    return out


def _nodes_for(spec: SuperpodSpec, profile: SystemProfile, reserved_nodes: int) -> tuple[int, int, list[str]]:
    """(scalable units, nodes or racks, notes) for the target."""
    notes = []
    per_su = _units_per_su(profile)
    if spec.sus is not None:
        sus = spec.sus
        units = sus * per_su - (0 if profile.rack_scale else reserved_nodes)
    else:
        per_unit = profile.gpus_per_node
        want = math.ceil(spec.gpus / per_unit)
        sus = math.ceil(want / per_su)
        units = want if profile.rack_scale else min(want, sus * per_su - reserved_nodes)
        got = units * per_unit
        if got < spec.gpus:
            notes.append(f"{got:,} GPUs of the {spec.gpus:,} asked for: {reserved_nodes} DGX of the last scalable "
                         f"unit gives its leaf ports to the compute UFM appliances, as in the reference "
                         f"architecture (Table 4); ask for {sus + 1} scalable units for more")
        elif got > spec.gpus:
            notes.append(f"{got:,} GPUs: the {spec.gpus:,} asked for, rounded up to whole "
                         f"{'racks' if profile.rack_scale else 'systems'}")
    return sus, units, notes


def _units_per_su(profile: SystemProfile) -> int:
    """Servers per SU, or racks per SU for a rack-scale system."""
    return profile.nodes_per_su // profile.trays


def generate(spec: SuperpodSpec, catalog: Catalog, *, with_phases: bool = True,
             layout_only: bool = False) -> Generated | None:
    """The design for ``spec``; raises :class:`GenerateError` for a target that cannot be built.

    ``layout_only`` stops once the floor grid is planned (None when it fits the hall): the quick
    test the nearest-fit search runs before building a candidate.
    """
    spec = check_spec(spec, catalog)
    profile = system_profile(catalog, spec.system)
    settings = Settings(fabric_tiers=spec.tiers, fabric_oversubscription=spec.oversubscription)
    ufm = catalog.get("ufm-appliance")
    rails = spec.rails or profile.rails
    ufm_ports = sum(g.count for g in ufm.ports if g.role == "fabric") * 2
    reserved_nodes = 0 if profile.rack_scale else math.ceil(ufm_ports / rails)
    sus, units, notes = _nodes_for(spec, profile, reserved_nodes)
    if spec.phase_sus is not None and spec.phase_sus > sus:
        raise GenerateError(f"{spec.phase_sus} scalable units per phase is more than the design's {sus}")
    if spec.phase_sus is not None and math.ceil(sus / spec.phase_sus) > MAX_PHASES:
        raise GenerateError(f"{math.ceil(sus / spec.phase_sus)} phases of {spec.phase_sus} scalable "
                            f"unit{'s' if spec.phase_sus != 1 else ''} are more than {MAX_PHASES}; build in steps "
                            f"of at least {math.ceil(sus / MAX_PHASES)}")

    # -- density --------------------------------------------------------------------------------------
    if profile.rack_scale:
        rack_kw = spec.rack_kw if spec.rack_kw is not None else profile.node_max_kw
        if rack_kw + 1e-9 < profile.node_max_kw:
            raise GenerateError(f"a {profile.id} rack draws up to {profile.node_max_kw:g} kW, over the "
                                f"{rack_kw:g} kW rack limit asked for (-{profile.node_max_kw - rack_kw:g} kW); "
                                f"it needs racks of at least {profile.node_max_kw:g} kW")
        per_rack = 1
    else:
        rack_kw = spec.rack_kw if spec.rack_kw is not None else DEFAULT_RACK_KW
        fit_u = (catalog.get(RACK_TYPE).rack_units - FIRST_U + 1) // profile.u_height
        by_power = int(rack_kw // profile.node_max_kw + 1e-9)
        air_kw = profile.node_max_kw * (1.0 - catalog.get(profile.id).liquid_fraction)
        if spec.rack_kw is None and air_kw > 0:
            # unasked, a rack holds no more air-cooled systems than a contained row can cool by air
            by_power = min(by_power, max(1, int(settings.air_rack_limit_kw // air_kw + 1e-9)))
        per_rack = spec.nodes_per_rack or min(by_power, fit_u)
        if per_rack < 1:
            raise GenerateError(f"one {profile.id} draws up to {profile.node_max_kw:g} kW, over the {rack_kw:g} kW "
                                f"rack limit (-{profile.node_max_kw - rack_kw:.1f} kW); nearest that fits: "
                                f"--rack-kw {math.ceil(profile.node_max_kw)}")
        if per_rack * profile.node_max_kw > rack_kw + 1e-9:
            raise GenerateError(f"{per_rack} {profile.id} per rack draw up to {per_rack * profile.node_max_kw:g} kW, "
                                f"over the {rack_kw:g} kW rack limit (+{per_rack * profile.node_max_kw - rack_kw:.1f} "
                                f"kW); nearest that fits: --nodes-per-rack {max(1, by_power)}")
        if per_rack > fit_u:
            raise GenerateError(f"{per_rack} {profile.id} ({profile.u_height}U each) do not fit a 48U rack; "
                                f"at most {fit_u}")

    nodes = units * profile.trays
    racks_compute = units if profile.rack_scale else math.ceil(units / per_rack)
    net = plan_networks(profile, spec, catalog, nodes, racks_compute)
    b = _Builder(catalog, settings)
    units_u = catalog.get(RACK_TYPE).rack_units
    width = max(2, len(str(sus)))
    node_width = max(4, len(str(units)))

    # -- scalable-unit segments: compute racks, with two network racks in the middle of the rows ---------
    su_units = _units_per_su(profile)
    per_su_racks = su_units if profile.rack_scale else math.ceil(su_units / per_rack)
    half = math.ceil(per_su_racks / 2)
    cdus_per_su = 0
    if profile.rack_scale and net is not None:
        liquid = profile.node_max_kw * (catalog.get(profile.id).liquid_fraction or 0) * su_units
        cdu_kw = catalog.get(CDU_TYPE).cooling_capacity_kw
        cdus_per_su = (math.ceil(liquid / cdu_kw) + 1) if liquid > 0 else 0  # N+1 per SU loop
    cdu_a = math.ceil(cdus_per_su / 2)
    su_items = _su_network_items(net, profile, sus, spec.phase_sus is not None)
    limit = min(rack_kw, NETWORK_RACK_KW) * 0.9
    net_per_row = max(1, max(len(_fill_by_power(items, catalog, units_u, limit)) for pair in su_items for items in pair))
    seg_a = [2 * TILE] * cdu_a + [TILE] * half + [TILE] * net_per_row
    seg_b = [2 * TILE] * (cdus_per_su - cdu_a) + [TILE] * (per_su_racks - half) + [TILE] * net_per_row
    segment_mm = max(sum(seg_a), sum(seg_b))

    ufm_in_band = spec.phase_sus is not None  # a phased build keeps its UFM where the last SU cannot move it
    central = _central_items(net, ufm_in_band)
    band_racks = sum(len(_fill_by_power(items, catalog, units_u, limit)) for items in central.values())
    hall_mm = None if spec.hall is None else (spec.hall[0] * 1000, spec.hall[1] * 1000)
    grid = plan_grid(segment_mm, sus, band_racks, hall_mm)
    if layout_only:
        return None

    node_no = 0
    for su in range(sus):
        pair, seg = divmod(su, grid.segments_per_pair)
        x0, y0 = grid.pair_origin(pair)
        x0 += seg * grid.segment_mm
        row_name = f"R{pair + 1:02d}"
        places_a, places_b = row_places(x0, y0, seg_a, seg_b, row_name)
        su_name = f"SU{su + 1:0{width}d}"
        units_here = min(su_units, units - su * su_units)
        racks_here = units_here if profile.rack_scale else math.ceil(units_here / per_rack)
        # Row A: CDUs, compute racks, network rack; row B the same order, so the two network racks face.
        compute_places = places_a[cdu_a:cdu_a + half] + places_b[cdus_per_su - cdu_a:cdus_per_su - cdu_a
                                                                 + per_su_racks - half]
        made = []
        for k in range(racks_here):
            rid = f"{su_name.lower()}-{k + 1:02d}"
            devs = []
            if profile.rack_scale:
                node_no += 1
                devs.append(MountedDevice(f"{rid}-sys", profile.id, 1, "front", f"nvl72-{node_no:0{node_width}d}"
                                          if profile.id == "gb200-nvl72" else f"{profile.id}-{node_no}"))
            else:
                n_here = min(per_rack, units_here - k * per_rack)
                for j in range(n_here):
                    node_no += 1
                    devs.append(MountedDevice(f"{rid}-n{j + 1}", profile.id, FIRST_U + j * profile.u_height,
                                              "front", f"dgx-{node_no:0{node_width}d}"))
            made.append(b.rack(rid, f"{su_name}-{k + 1:02d}", compute_places[k], devs, pdus=not profile.rack_scale))
        served = tuple(r.id for r in made)
        for c in range(cdus_per_su if served else 0):
            place = places_a[c] if c < cdu_a else places_b[c - cdu_a]
            b.cdus.append(FloorDevice(f"{su_name.lower()}-cdu{c + 1}", CDU_TYPE, "hall-1", place.x, place.y,
                                      place.rotation, f"{su_name} CDU-{c + 1}", served))
        # The SU's network racks at the row ends: its leaves (rails split between the rows), storage and
        # out-of-band switches, and in a three-tier fabric its share of its pod's spines.
        for side, items, places in (("a", su_items[su][0], places_a), ("b", su_items[su][1], places_b)):
            stacks = _fill_by_power(items, catalog, units_u, limit)
            for n, devs in enumerate(stacks):
                rid = f"{su_name.lower()}-net{side}{n + 1 if len(stacks) > 1 else ''}"
                b.rack(rid, f"{su_name}-NET-{side.upper()}{n + 1 if len(stacks) > 1 else ''}",
                       places[len(places) - net_per_row + n], [replace(d, id=f"{rid}-{d.id}") for d in devs])

    # -- the band: spines, cores, storage spines, in-band, UFM and management nodes ---------------------
    band_groups = [(title, _fill_by_power(items, catalog, units_u, limit)) for title, items in central.items()]
    slots = _band_places(grid)
    if sum(len(g) for _, g in band_groups) > len(slots):
        raise GenerateError("the network band has no room for every network rack")
    k = 0
    for title, groups in band_groups:
        for n, devs in enumerate(groups):
            rid = f"{title.lower()}-{n + 1:02d}"
            b.rack(rid, f"{title}-{n + 1:02d}", slots[k], [replace(d, id=f"{rid}-{d.id}") for d in devs])
            k += 1

    # -- the hall, through the commands -----------------------------------------------------------------
    w, d = (hall_mm if hall_mm is not None else (grid.width_mm, grid.depth_mm))
    name = spec.name or _title(profile, sus, units)
    project = Project(name=name, description=_description(profile, sus, units, per_rack, net), settings=settings)
    outline = ((0.0, 0.0), (w, 0.0), (w, d), (0.0, d))
    hall = Hall("hall-1", "Data hall 1", outline, tile_mm=TILE, floor_rating_kg_m2=FLOOR_RATING[profile.rack_scale],
                rack_power_limit_kw=rack_kw)
    try:
        project, _ = AddHallCommand(hall).apply(project, catalog)
        project, _ = AddObjectsCommand(racks=tuple(b.racks), floor_devices=tuple(b.cdus)).apply(project, catalog)
    except CommandError as exc:  # the generator's own geometry broke a rule: say so, do not write the file
        raise GenerateError(f"the generated layout breaks a placement rule: {exc}") from None

    ctx = Context.build(project, catalog)
    power = analyze_power(ctx)
    cooling = analyze_cooling(ctx).section
    it_max, liquid, air = power.it_max_kw, float(cooling["liquid_kw"]), float(cooling["air_kw"])
    project = _with_capacities(project, spec, it_max, liquid, air)
    project = project.with_hall(replace(project.halls[0], facility=facility_for(power, ctx.arrays, liquid, settings)))
    gpus = units * profile.gpus_per_node
    out = Generated(project, spec, profile, net, sus, units, gpus, grid, notes, it_max, liquid, air)
    if with_phases and spec.phase_sus is not None:
        out.phases = _phases(spec, catalog, out, ufm_ports, reserved_nodes)
    return out


def _su_network_items(net: NetworkPlan, profile: SystemProfile, sus: int, ufm_in_band: bool = False
                      ) -> list[tuple[list, list]]:
    """Per scalable unit, the switches of its two network racks (row A, row B) as ``(id, type, name, face)``.

    A leaf block goes to the SU of its first node slot (reserved UFM slots: the last SU). In a
    three-tier fabric each pod's spines are spread over the network racks of the pod's SUs, so a
    leaf's uplinks stay in its part of the hall and only the spine-to-core runs cross to the band.
    """
    tree = net.compute
    su_of_block = [min(blk * tree.leaf_down // profile.nodes_per_su, sus - 1) for blk in range(tree.blocks)]
    out: list[tuple[list, list]] = [([], []) for _ in range(sus)]
    blk_width = max(4, len(str(tree.blocks)))
    for blk, su in enumerate(su_of_block):
        for r in range(tree.rails):
            out[su][0 if r < tree.rails / 2 else 1].append(
                (f"leaf{blk + 1}r{r}", tree.switch, f"leaf-{blk + 1:0{blk_width}d}-r{r}", "rear"))
    if tree.tiers == 3:
        first_spine = 0
        width = max(4, len(str(tree.spine)))
        for pod in range(tree.pods):
            leaves, spines = tree.pod_of_leaf(pod)
            first_blk = pod * tree.pod_leaves // tree.rails
            pod_sus = sorted({su_of_block[k] for k in range(first_blk, first_blk + leaves // tree.rails)})
            for j in range(spines):
                su = pod_sus[j % len(pod_sus)]
                i = first_spine + j
                out[su][(j // len(pod_sus)) % 2].append((f"spine{i + 1}", tree.switch, f"spine-{i + 1:0{width}d}",
                                                         "rear"))
            first_spine += spines
    if net.storage is not None:
        spread = _spread(net.storage.leaf, sus)
        first = 0
        for su in range(sus):
            for k in range(spread[su]):
                first += 1
                out[su][k % 2].append((f"st{first}", net.storage.switch, f"storage-leaf-{first:04d}", "rear"))
    # The compute UFM appliances plug into the last leaf block's reserved slots (RA Table 4): they stand
    # beside those leaves, in the last SU's row-B network rack, so their cables stay short.
    if not ufm_in_band:
        out[sus - 1][1].extend((f"ufm{i + 1}", "ufm-appliance", f"ufm-compute-{i + 1}", "front")
                               for i in range(net.ufm_compute))
    first = 0
    for su, n in enumerate(_spread(net.oob, sus)):
        for k in range(n):
            first += 1
            out[su][k % 2].append((f"oob{first}", "sn2201", f"oob-{first:04d}", "rear"))
    return out


def _spread(total: int, parts: int) -> list[int]:
    """``total`` split over ``parts`` as evenly as whole numbers allow, earlier parts first."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _central_items(net: NetworkPlan, ufm_in_band: bool = False) -> dict[str, list]:
    """The band's racks by title: each a list of ``(id suffix, type, name, face)``."""
    tree = net.compute
    out: dict[str, list] = {}
    if tree.tiers < 3:  # three-tier spines stand with their pods (see _su_network_items)
        out["SPINE"] = [(f"spine{i + 1}", tree.switch, f"spine-{i + 1:04d}", "rear") for i in range(tree.spine)]
    if tree.core:
        out["CORE"] = [(f"core{i + 1}", tree.switch, f"core-{i + 1:04d}", "rear") for i in range(tree.core)]
    if net.storage is not None:
        s = net.storage
        out["STORAGE"] = [(f"sts{i + 1}", s.switch, f"storage-spine-{i + 1:04d}", "rear") for i in range(s.spine)] + \
                         [(f"stc{i + 1}", s.switch, f"storage-core-{i + 1:04d}", "rear") for i in range(s.core)]
    if net.inband is not None or net.inband_management:
        items = []
        if net.inband is not None:
            items += [(f"ibs{i + 1}", "sn5600", f"inband-spine-{i + 1:02d}", "rear") for i in range(net.inband.spine)]
            items += [(f"ibl{i + 1}", "sn5600", f"inband-leaf-{i + 1:02d}", "rear") for i in range(net.inband.leaf)]
        items += [(f"ibm{i + 1}", "sn2201", f"inband-mgmt-leaf-{i + 1:02d}", "rear")
                  for i in range(net.inband_management)]
        out["INBAND"] = items
    mgmt = [(f"ufm{i + 1}", "ufm-appliance", f"ufm-compute-{i + 1}", "front")
            for i in range(net.ufm_compute if ufm_in_band else 0)]
    mgmt += [(f"sufm{i + 1}", "ufm-appliance", f"storage-ufm-{i + 1}", "front") for i in range(net.ufm_storage)]
    mgmt += [(f"mn{i + 1}", "mgmt-node", f"mgmt-node-{i + 1:02d}", "front") for i in range(net.management_nodes)]
    out["MGMT"] = mgmt
    return {k: v for k, v in out.items() if v}


def _band_places(grid: Grid):
    """Rack positions of the band, nearest the hall's centre line first (spines go there)."""
    places = []
    slots = int(grid.row_mm // TILE)
    for bp in range(grid.band_pairs):
        for col in range(grid.columns):
            x0, y0 = grid.band_origin(bp, col)
            a, b_ = row_places(x0, y0, [TILE] * slots, [TILE] * slots, f"N{bp + 1}{chr(65 + col) if grid.columns > 1 else ''}")
            places += a + b_
    cx = grid.width_mm / 2
    cy = grid.depth_mm / 2
    return sorted(places, key=lambda p: (abs(p.x - cx) + abs(p.y - cy), p.x, p.y))


def _with_capacities(project: Project, spec: SuperpodSpec, it_max: float, liquid: float, air: float) -> Project:
    """The hall's power and cooling: as given (refused when the design needs more), or fitted to it."""
    short = []
    for given, need, what in ((spec.hall_power_kw, it_max, "hall power"),
                              (spec.hall_cooling_kw, air, "hall air cooling"),
                              (spec.hall_liquid_kw, liquid, "hall liquid cooling")):
        if given is not None and need > given + 1e-9:
            short.append(f"{what} {_mw(given)}, design needs {_mw(need)} (+{(need - given) / given * 100:.0f} %)"
                         if given > 0 else f"{what} 0 kW, design needs {_mw(need)}")
    if short:
        raise GenerateError("; ".join(short), fit=True)

    def fit(need: float) -> float | None:
        return math.ceil(need * FIT_MARGIN / 100.0) * 100.0 if need > 0 else None

    hall = project.halls[0]
    hall = replace(hall,
                   power_capacity_kw=spec.hall_power_kw if spec.hall_power_kw is not None else fit(it_max),
                   cooling_capacity_kw=spec.hall_cooling_kw if spec.hall_cooling_kw is not None else fit(air),
                   liquid_cooling_capacity_kw=spec.hall_liquid_kw if spec.hall_liquid_kw is not None else fit(liquid))
    return project.with_hall(hall)


def _mw(kw: float) -> str:
    return f"{kw / 1000:.1f} MW" if kw >= 1000 else f"{kw:,.0f} kW"


def _title(profile: SystemProfile, sus: int, units: int) -> str:
    what = "racks" if profile.rack_scale else "systems"
    return f"{profile.name.split(' (')[0]} SuperPOD - {sus} scalable unit{'s' if sus != 1 else ''} ({units:,} {what})"


def _description(profile: SystemProfile, sus: int, units: int, per_rack: int, net: NetworkPlan) -> str:
    # Model names as people print them (QM9700, SN5600), never catalog ids.
    t = net.compute
    gpus = units * profile.gpus_per_node
    what = "racks" if profile.rack_scale else "systems"
    parts = [f"{units:,} {profile.name.split(' (')[0]} {what} ({gpus:,} GPUs) in {sus} scalable "
             f"unit{'s' if sus != 1 else ''}" + ("" if profile.rack_scale else f", {per_rack} per rack"),
             f"compute fabric {t.leaf} leaf + {t.spine} spine" + (f" + {t.core} core" if t.core else "")
             + f" {t.switch.upper()} ({t.tiers} tiers, {t.rails} rails)"]
    if net.storage:
        parts.append(f"storage {net.storage.leaf} leaf + {net.storage.spine} spine {net.storage.switch.upper()}")
    if net.oob:
        parts.append(f"out-of-band {net.oob} SN2201")
    return "Generated from the DGX SuperPOD reference architecture: " + "; ".join(parts) + "."


_LEAF = re.compile(r"^leaf-(\d+)-r\d+$")
_SPINE = re.compile(r"^spine-(\d+)$")
_NODE_UNIT = re.compile(r"^su(\d+)-\d+$")
_SU_RACK = re.compile(r"^su(\d+)-")


def _phases(spec: SuperpodSpec, catalog: Catalog, final: Generated, reserved: int, reserved_nodes: int
            ) -> list[Project]:
    """The design at the end of each phase of ``spec.phase_sus`` scalable units; the last is the design.

    A phase is the final design cut back, never a layout of its own: its scalable units stand where
    they stand at the end, the band (spines of a two-tier fabric, cores, storage spines, in-band,
    UFM and management) is there from the first phase, and a later phase only adds racks, devices
    and cables. As in the RA, the phase's last SU leaves one DGX out for the UFM's leaf ports; the
    next phase adds it. Leaves a phase needs for its UFM ports beyond its last SU, and a three-tier
    pod's spines, come with their racks at the places the later SUs keep for them.
    """
    profile, sus = final.profile, final.sus
    count = math.ceil(sus / spec.phase_sus)
    # A fabric that ends with three tiers is built with three from the first phase: going from two
    # tiers to three would recable every leaf.
    tiers = str(final.networks.compute.tiers)
    settings = final.project.settings.updated(fabric_tiers=tiers) if tiers == "3" else final.project.settings
    spec = replace(spec, tiers=tiers) if tiers == "3" else spec
    hall = final.project.halls[0]
    out = []
    for n in range(1, count):
        k = n * spec.phase_sus
        units = k * _units_per_su(profile) - (0 if profile.rack_scale else reserved_nodes)
        tree = compute_fabric(profile, spec, catalog, units * profile.trays, reserved)
        final_tree = final.networks.compute
        # every spine of each pod the phase reaches (three tiers): a pod's spines come with its first leaf
        spines = min(final_tree.spine, tree.pods * final_tree.pod_spines) if tree.tiers == 3 else 0
        racks = []
        for rack in final.project.racks:
            m = _SU_RACK.match(rack.id)
            if m is None:  # the band
                racks.append(rack)
                continue
            su = int(m.group(1))
            if su <= k:
                if su == k and not profile.rack_scale and _NODE_UNIT.match(rack.id):
                    rack = replace(rack, devices=_without_last_node(rack, profile.id, k, final, reserved_nodes))
                racks.append(rack)
                continue
            kept = tuple(d for d in rack.devices if _needed_early(d.name, tree.blocks, spines))
            if kept:  # the rack comes early for these switches, with its PDUs
                pdus = tuple(d for d in rack.devices if catalog.get(d.type).kind == "pdu")
                racks.append(replace(rack, devices=kept + pdus))
        racks = [r for r in racks if r.devices]
        ids = {r.id for r in racks}
        cdus = tuple(f for f in final.project.floor_devices if f.serves and set(f.serves) <= ids)
        project = Project(name=f"{final.project.name} - phase {n} of {count}",
                          description=f"Phase {n} of {count}: scalable units 1-{k} of the design. "
                                      + final.project.description, settings=settings)
        project, _ = AddHallCommand(hall).apply(project, catalog)
        project, _ = AddObjectsCommand(racks=tuple(racks), floor_devices=cdus).apply(project, catalog)
        out.append(project)
    out.append(replace(final.project, name=f"{final.project.name} - phase {count} of {count}"))
    return out


def _without_last_node(rack: Rack, system: str, k: int, final: Generated, reserved_nodes: int):
    """The devices of SU ``k``'s rack without the DGX that makes way for the UFM (the SU's last ones)."""
    su_prefix = f"su{k:0{max(2, len(str(final.sus)))}d}-"
    su_racks = [r for r in final.project.racks if r.id.startswith(su_prefix) and _NODE_UNIT.match(r.id)]
    nodes = [d.id for r in su_racks for d in r.devices if d.type == system]
    drop = set(nodes[len(nodes) - reserved_nodes:]) if reserved_nodes else set()
    return tuple(d for d in rack.devices if d.id not in drop)


def _needed_early(name: str, blocks: int, spines: int) -> bool:
    """A leaf of a block the phase's endpoints reach, or a spine of a pod they reach (three tiers)."""
    m = _LEAF.match(name)
    if m:
        return int(m.group(1)) <= blocks
    m = _SPINE.match(name)
    return bool(m) and int(m.group(1)) <= spines


def nearest_fit(spec: SuperpodSpec, catalog: Catalog) -> Generated | None:
    """The largest design of fewer scalable units than ``spec`` asks for that fits its hall, or None.

    Fitting a given floor is not monotonic in the SU count (rows are balanced over row pairs), so
    the candidates are tried from the largest down, each first on its floor grid alone (quick) and
    then whole. Power and cooling grow with every SU: a straight line through the needs of 1 and 2
    SUs says where to start, so a hall far too small for the target is not searched SU by SU.
    """
    spec = check_spec(spec, catalog)
    profile = system_profile(catalog, spec.system)
    target = spec.sus if spec.sus is not None else \
        math.ceil(math.ceil(spec.gpus / profile.gpus_per_node) / _units_per_su(profile))
    start = target - 1
    caps = [(spec.hall_power_kw, "it_max_kw"), (spec.hall_cooling_kw, "air_kw"), (spec.hall_liquid_kw, "liquid_kw")]
    if start > 2 and any(cap is not None for cap, _ in caps):
        free = replace(spec, hall_power_kw=None, hall_cooling_kw=None, hall_liquid_kw=None, hall=None, phase_sus=None)
        try:
            one, two = (generate(free.with_sus(n), catalog, with_phases=False) for n in (1, 2))
        except GenerateError:
            return None
        for cap, need in caps:
            slope = getattr(two, need) - getattr(one, need)
            if cap is not None and slope > 0:
                start = min(start, max(1, math.floor((cap - getattr(one, need)) / slope) + 2))
    for sus in range(start, 0, -1):
        candidate = replace(spec.with_sus(sus), phase_sus=None)
        try:
            generate(candidate, catalog, layout_only=True)
            return generate(candidate, catalog, with_phases=False)
        except GenerateError as exc:
            if not exc.fit:
                return None
    return None
