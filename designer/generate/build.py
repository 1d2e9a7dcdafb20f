"""From a target to a project: racks, switches, power and cooling, placed through the domain's commands.

Nothing is written into the project that a user could not have placed: the hall
is added with :class:`AddHallCommand` and every rack and CDU with one
:class:`AddObjectsCommand`, which refuses overlaps, racks outside the hall,
unknown types and U collisions exactly as it does for a drag in the window.

:func:`generate` goes in steps, each a function here or a module beside it: how much
to build (:mod:`.sizing`), the networks (:mod:`.networks`), one scalable unit's
segment of a row pair and the hall's grid (:mod:`.layout`), filling racks
(:mod:`.rack_filling`, :mod:`.network_racks`), the hall through the commands, and
the phases of a phased build (:mod:`.phases`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from catalog import Catalog

from ..commands import AddHallCommand, AddObjectsCommand, CommandError
from ..cooling import analyze_cooling
from ..engines import Context
from ..model import FloorDevice, Hall, MountedDevice, Project
from ..power import analyze_power
from ..settings import Settings
from . import air_handling
from .facility_sizing import facility_for
from .layout import TILE, Grid, plan_grid, row_places
from .network_racks import band_places, central_items, su_network_items
from .networks import NetworkPlan, plan_networks
from .phases import phases_of
from .rack_filling import CDU_TYPE, FIRST_U, NETWORK_RACK_KW, RACK_TYPE, RackBuilder, fill_by_power
from .sizing import nodes_for, rack_density, units_per_su, with_capacities
from .storage import cluster_note
from .spec import MAX_PHASES, GenerateError, SuperpodSpec, SystemProfile, check_spec, system_profile, ufm_for
from .titles import design_description, design_title

FLOOR_RATING = {False: 1500.0, True: 2500.0}


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



@dataclass(frozen=True)
class _Segment:
    """One scalable unit's segment of a row pair: row A holds CDUs, compute racks and network racks, row B
    the same order, so the two network racks face each other across the cold aisle."""

    per_rack: int  #: systems per compute rack (1 for a rack-scale system)
    units: int  #: systems (or racks, rack-scale) per SU
    racks: int  #: compute racks per SU
    half: int  #: of which in row A
    cdus: int  #: CDUs per SU (N+1 on the SU's loop; rack-scale only)
    cdus_a: int  #: of which in row A
    net_per_row: int  #: network racks at the end of each row
    widths_a: tuple[float, ...]
    widths_b: tuple[float, ...]
    #: per SU, the switches of its network racks in row A and row B
    network_items: list[tuple[list, list]]
    #: most a network rack is filled to, in kW
    limit_kw: float

    @property
    def mm(self) -> float:
        return max(sum(self.widths_a), sum(self.widths_b))


def _segment(profile: SystemProfile, spec: SuperpodSpec, catalog: Catalog, net: NetworkPlan, sus: int,
             per_rack: int, rack_kw: float) -> _Segment:
    su_units = units_per_su(profile)
    per_su_racks = su_units if profile.rack_scale else math.ceil(su_units / per_rack)
    half = math.ceil(per_su_racks / 2)
    cdus = 0
    if net is not None:  # rack-scale systems and liquid-cooled servers (DGX Rubin NVL8) share an SU loop
        liquid = profile.node_max_kw * (catalog.get(profile.id).liquid_fraction or 0) * su_units
        cdu_kw = catalog.get(CDU_TYPE).cooling_capacity_kw
        cdus = (math.ceil(liquid / cdu_kw) + 1) if liquid > 0 else 0  # N+1 per SU loop
    cdus_a = math.ceil(cdus / 2)
    items = su_network_items(net, profile, sus, spec.phase_sus is not None)
    limit = min(rack_kw, NETWORK_RACK_KW) * 0.9
    units_u = catalog.get(RACK_TYPE).rack_units
    net_per_row = max(1, max(len(fill_by_power(side, catalog, units_u, limit)) for pair in items for side in pair))
    widths_a = (2 * TILE,) * cdus_a + (TILE,) * half + (TILE,) * net_per_row
    widths_b = (2 * TILE,) * (cdus - cdus_a) + (TILE,) * (per_su_racks - half) + (TILE,) * net_per_row
    return _Segment(per_rack, su_units, per_su_racks, half, cdus, cdus_a, net_per_row, widths_a, widths_b, items,
                    limit)


def _ufm_reservation(spec: SuperpodSpec, profile: SystemProfile, catalog: Catalog) -> tuple[int, int]:
    """(leaf ports the compute UFM appliances take, DGX of the last SU that give way to them)."""
    ufm_id = ufm_for(catalog, spec.switch)
    if ufm_id is None:  # an Ethernet fabric has no UFM appliances: every node slot carries a node
        return 0, 0
    ufm = catalog.get(ufm_id)
    rails = spec.rails or profile.rails
    ufm_ports = sum(g.count for g in ufm.ports if g.role == "fabric") * 2
    # The NDR RAs take one DGX of the last SU out for the UFM links (B200 Table 4: 31 nodes); the XDR RA
    # builds 72 per SU with none removed (RA-11339-001 Table 3), and a rack system's slots are its trays.
    displaced = not profile.rack_scale and profile.port_gbps < 800
    return ufm_ports, math.ceil(ufm_ports / rails) if displaced else 0


def _check_phases(spec: SuperpodSpec, sus: int) -> None:
    if spec.phase_sus is not None and spec.phase_sus > sus:
        raise GenerateError(f"{spec.phase_sus} scalable units per phase is more than the design's {sus}")
    if spec.phase_sus is not None and math.ceil(sus / spec.phase_sus) > MAX_PHASES:
        raise GenerateError(f"{math.ceil(sus / spec.phase_sus)} phases of {spec.phase_sus} scalable "
                            f"unit{'s' if spec.phase_sus != 1 else ''} are more than {MAX_PHASES}; build in steps "
                            f"of at least {math.ceil(sus / MAX_PHASES)}")


def generate(spec: SuperpodSpec, catalog: Catalog, *, with_phases: bool = True,
             layout_only: bool = False) -> Generated | None:
    """The design for ``spec``; raises :class:`GenerateError` for a target that cannot be built.

    ``layout_only`` stops once the floor grid is planned (None when it fits the hall): the quick
    test the nearest-fit search runs before building a candidate.
    """
    spec = check_spec(spec, catalog)
    profile = system_profile(catalog, spec.system, spec.fabric)
    settings = Settings(fabric_tiers=spec.tiers, fabric_oversubscription=spec.oversubscription,
                        gpu_power_cap_w=spec.gpu_power_w, fabric_technology=profile.fabric,
                        fabric_planes=spec.planes or 1,
                        fabric_core_oversubscription=spec.core_oversubscription,
                        storage_tier=spec.storage_tier or "auto", storage_capacity_pb=spec.storage_pb)
    ufm_ports, reserved_nodes = _ufm_reservation(spec, profile, catalog)
    sus, units, notes = nodes_for(spec, profile, reserved_nodes)
    _check_phases(spec, sus)
    rack_kw, per_rack = rack_density(spec, profile, catalog, settings)
    if profile.systems_per_rack > per_rack and spec.nodes_per_rack is None and spec.rack_kw is None:
        notes.append(f"{per_rack} {profile.name.split(' (')[0]} per rack, not the reference architecture's "
                     f"{profile.systems_per_rack}: {profile.systems_per_rack} reject more heat to air than a contained "
                     f"row takes without rear-door heat exchangers; ask --nodes-per-rack "
                     f"{profile.systems_per_rack} for the RA's rack")
    racks_compute = units if profile.rack_scale else math.ceil(units / per_rack)
    net = plan_networks(profile, spec, catalog, units * profile.trays, racks_compute)
    note = cluster_note(net.storage_plan, catalog, profile.id, profile.rack_scale, units * profile.gpus_per_node)
    if note:
        notes.append(note)
    if spec.core_oversubscription != 1 and net.compute.tiers < 3:
        notes.append(f"the spines' {spec.core_oversubscription:g}:1 above the pod is not used: "
                     f"{net.compute.tiers} tiers reach these GPUs, and a ratio above the pod needs a third; "
                     f"ask --tiers 3 for one")
    seg = _segment(profile, spec, catalog, net, sus, per_rack, rack_kw)
    # the band: spines, cores, storage spines, in-band, UFM and management nodes; a phased build keeps its
    # UFM there, where the last SU cannot move it
    central = central_items(net, ufm_in_band=spec.phase_sus is not None)
    units_u = catalog.get(RACK_TYPE).rack_units
    band_groups = [(title, fill_by_power(items, catalog, units_u, seg.limit_kw)) for title, items in central.items()]
    hall_mm = None if spec.hall is None else (spec.hall[0] * 1000, spec.hall[1] * 1000)
    gallery = air_handling.gallery_mm(catalog)
    grid = plan_grid(seg.mm, sus, sum(len(g) for _, g in band_groups), hall_mm, side_mm=gallery)
    if layout_only:
        return None

    b = RackBuilder(catalog, settings)
    _place_scalable_units(b, grid, seg, profile, sus, units)
    _place_band(b, grid, band_groups)
    project = Project(name=spec.name or design_title(profile, sus, units),
                      description=design_description(profile, sus, units, per_rack, net), settings=settings)
    hall = Hall("hall-1", "Data hall 1", ((0.0, 0.0), (grid.width_mm, 0.0), (grid.width_mm, grid.depth_mm),
                                          (0.0, grid.depth_mm)), tile_mm=TILE,
                floor_rating_kg_m2=(spec.floor_kg_m2 if spec.floor_kg_m2 is not None
                                    else FLOOR_RATING[profile.rack_scale or profile.busbar]),
                # a rack-scale system is held to its feeds' capacity unless a limit is asked for: its own
                # maximum as the hall's limit painted every such rack "at the limit"
                rack_power_limit_kw=None if profile.rack_scale and spec.rack_kw is None else rack_kw)
    # the air heat and airflow (where the racks stand changes neither) say how many air handlers the room needs,
    # and those where the racks go: past the galleries along the walls they stand against
    cooling = analyze_cooling(Context.build(replace(project, halls=(hall,), racks=tuple(b.racks),
                                                    floor_devices=tuple(b.cdus)), catalog)).section
    liquid, air = float(cooling["liquid_kw"]), float(cooling["air_kw"])
    room = air_handling.plan_room(air_handling.units_needed(air, float(cooling["air_cfm"]), catalog),
                                  (grid.width_mm, grid.depth_mm), hall_mm, air, catalog)
    if room.note:
        notes.append(room.note)
    w, d = room.width_mm, room.depth_mm
    hall = replace(hall, outline=((0.0, 0.0), (w, 0.0), (w, d), (0.0, d)))
    racks = tuple(replace(r, x=r.x + room.dx, y=r.y + room.dy) for r in b.racks)
    floor = tuple(replace(c, x=c.x + room.dx, y=c.y + room.dy) for c in b.cdus) + room.units
    try:
        project, _ = AddHallCommand(hall).apply(project, catalog)
        project, _ = AddObjectsCommand(racks=racks, floor_devices=floor).apply(project, catalog)
    except CommandError as exc:  # the generator's own geometry broke a rule: say so, do not write the file
        raise GenerateError(f"the generated layout breaks a placement rule: {exc}") from None

    ctx = Context.build(project, catalog)
    power = analyze_power(ctx)  # with the air handlers' fans
    it_max = power.it_max_kw
    project = with_capacities(project, spec, it_max, liquid, air)
    facility = facility_for(power, ctx.arrays, liquid, settings, hall_kw=project.halls[0].power_capacity_kw,
                            water=spec.facility_water, altitude_m=spec.altitude_m, ambient_c=spec.ambient_c)
    project = project.with_hall(replace(project.halls[0], facility=facility))
    gpus = units * profile.gpus_per_node
    out = Generated(project, spec, profile, net, sus, units, gpus, grid, notes, it_max, liquid, air)
    if with_phases and spec.phase_sus is not None:
        out.phases = phases_of(spec, catalog, out, ufm_ports, reserved_nodes)
    return out


def _place_scalable_units(b: RackBuilder, grid: Grid, seg: _Segment, profile: SystemProfile, sus: int,
                          units: int) -> None:
    """Every SU's compute racks, CDUs and network racks, in its segment of its row pair."""
    catalog, units_u = b.catalog, b.catalog.get(RACK_TYPE).rack_units
    width = max(2, len(str(sus)))
    node_width = max(4, len(str(units)))
    per_rack = seg.per_rack
    node_no = 0
    for su in range(sus):
        pair, k_seg = divmod(su, grid.segments_per_pair)
        x0, y0 = grid.pair_origin(pair)
        x0 += k_seg * grid.segment_mm
        places_a, places_b = row_places(x0, y0, list(seg.widths_a), list(seg.widths_b), f"R{pair + 1:02d}")
        su_name = f"SU{su + 1:0{width}d}"
        units_here = min(seg.units, units - su * seg.units)
        racks_here = units_here if profile.rack_scale else math.ceil(units_here / per_rack)
        b_cdus = seg.cdus - seg.cdus_a
        compute_places = places_a[seg.cdus_a:seg.cdus_a + seg.half] + places_b[b_cdus:b_cdus + seg.racks - seg.half]
        made = []
        for k in range(racks_here):
            rid = f"{su_name.lower()}-{k + 1:02d}"
            devs = []
            if profile.rack_scale:
                node_no += 1
                devs.append(MountedDevice(f"{rid}-sys", profile.id, 1, "front", f"nvl72-{node_no:0{node_width}d}"
                                          if profile.id.endswith("nvl72") else f"{profile.id}-{node_no}"))
            else:
                shelves = b.shelves_for(profile.id, min(per_rack, units_here - k * per_rack)) if profile.busbar else []
                for j in range(min(per_rack, units_here - k * per_rack)):
                    node_no += 1
                    devs.append(MountedDevice(f"{rid}-n{j + 1}", profile.id,
                                              FIRST_U + len(shelves) + j * profile.u_height, "front",
                                              f"dgx-{node_no:0{node_width}d}"))
                devs = [replace(d, id=f"{rid}-{d.id}") for d in shelves] + devs
            made.append(b.rack(rid, f"{su_name}-{k + 1:02d}", compute_places[k], devs,
                               pdus=not profile.rack_scale and not profile.busbar))
        served = tuple(r.id for r in made)
        for c in range(seg.cdus if served else 0):
            place = places_a[c] if c < seg.cdus_a else places_b[c - seg.cdus_a]
            b.cdus.append(FloorDevice(f"{su_name.lower()}-cdu{c + 1}", CDU_TYPE, "hall-1", place.x, place.y,
                                      place.rotation, f"{su_name} CDU-{c + 1}", served))
        # The SU's network racks at the row ends: its leaves (rails split between the rows), storage and
        # out-of-band switches, and in a three-tier fabric its share of its pod's spines.
        for side, items, places in (("a", seg.network_items[su][0], places_a),
                                    ("b", seg.network_items[su][1], places_b)):
            stacks = fill_by_power(items, catalog, units_u, seg.limit_kw)
            for n, devs in enumerate(stacks):
                rid = f"{su_name.lower()}-net{side}{n + 1 if len(stacks) > 1 else ''}"
                b.rack(rid, f"{su_name}-NET-{side.upper()}{n + 1 if len(stacks) > 1 else ''}",
                       places[len(places) - seg.net_per_row + n], [replace(d, id=f"{rid}-{d.id}") for d in devs])


def _place_band(b: RackBuilder, grid: Grid, band_groups: list[tuple[str, list]]) -> None:
    """The band's racks, nearest the hall's centre line first: spines, cores, storage, in-band, management."""
    slots = band_places(grid)
    if sum(len(g) for _, g in band_groups) > len(slots):
        raise GenerateError("the network band has no room for every network rack")
    k = 0
    for title, groups in band_groups:
        for n, devs in enumerate(groups):
            rid = f"{title.lower()}-{n + 1:02d}"
            b.rack(rid, f"{title}-{n + 1:02d}", slots[k], [replace(d, id=f"{rid}-{d.id}") for d in devs])
            k += 1


def nearest_fit(spec: SuperpodSpec, catalog: Catalog) -> Generated | None:
    """The largest design of fewer scalable units than ``spec`` asks for that fits its hall, or None.

    Fitting a given floor is not monotonic in the SU count (rows are balanced over row pairs), so
    the candidates are tried from the largest down, each first on its floor grid alone (quick) and
    then whole. Power and cooling grow with every SU: a straight line through the needs of 1 and 2
    SUs says where to start, so a hall far too small for the target is not searched SU by SU.
    """
    spec = check_spec(spec, catalog)
    profile = system_profile(catalog, spec.system, spec.fabric)
    target = spec.sus if spec.sus is not None else \
        math.ceil(math.ceil(spec.gpus / profile.gpus_per_node) / units_per_su(profile))
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
