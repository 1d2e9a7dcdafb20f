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

from ..collector import paused
from ..commands import AddHallCommand, AddObjectsCommand, CommandError
from ..cooling import analyze_cooling
from ..engines import Context
from ..model import FloorDevice, Hall, MountedDevice, Project
from ..power import analyze_power
from ..power.electrical_room import electrical_rooms
from ..settings import Settings
from . import air_handling
from .facility_sizing import busway_for, facility_for
from .layout import TILE, Grid, plan_grid, row_places
from .network_racks import band_places, central_items, group_places, su_network_items
from .campus_fabric import campus_core
from .networks import OOB_PORTS, NetworkPlan, plan_networks
from .phases import phases_of
from .reach import OutOfReach, check_reach, check_reach_early
from .site import (DEFAULT_HALLS_PER_BUILDING, MAX_HALLS, UPPER_TIER_BUILDINGS, Room, building_name, cuts,
                   farthest_from_entry, hall_block_kw, hall_grid, place_room_racks, place_rooms, room_grid,
                   share_upper_tier, split_halls, su_power_kw)
from .rack_filling import CDU_TYPE, FIRST_U, NETWORK_RACK_KW, RACK_TYPE, RackBuilder, fill_by_power
from .sizing import mw_text, nodes_for, rack_density, units_per_su, with_capacities
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
    """One segment of a row pair. A scalable unit of servers fills it: row A holds CDUs, compute racks and
    network racks, row B the same order, so the two network racks face each other across the cold aisle. A
    rack-scale system's SU is one row of it (``per_segment`` 2, the next SU in the row across the cold aisle):
    CDUs at the row's ends, compute racks either side of its network racks in the middle (RA-11338-001 draws
    an SU as one row), so no leaf cable runs further than half the row."""

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
    #: SUs to a segment: 2 where an SU is one row
    per_segment: int = 1

    def row_slots(self, places_a: list, places_b: list, in_segment: int) -> tuple[list, list, list, list]:
        """Where one SU's (CDUs, compute racks, network stack A, network stack B) stand, given the places of its
        segment's row A and row B; ``in_segment``: which SU of the segment (a one-row SU's row: A for the first,
        B for the second)."""
        if self.per_segment == 2:
            row = places_b if in_segment else places_a
            mid, end = self.cdus_a + self.half, len(row) - (self.cdus - self.cdus_a)
            net = row[mid:mid + 2 * self.net_per_row]
            compute = row[self.cdus_a:mid] + row[mid + 2 * self.net_per_row:end]
            return row[:self.cdus_a] + row[end:], compute, net[:self.net_per_row], net[self.net_per_row:]
        b_cdus = self.cdus - self.cdus_a
        cdus = places_a[:self.cdus_a] + places_b[:b_cdus]
        compute = places_a[self.cdus_a:self.cdus_a + self.half] + places_b[b_cdus:b_cdus + self.racks - self.half]
        return cdus, compute, places_a[len(places_a) - self.net_per_row:], places_b[len(places_b) - self.net_per_row:]

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
    if profile.rack_scale:  # one row: CDUs, half the racks, both network stacks, the other half, CDUs
        row = ((2 * TILE,) * cdus_a + (TILE,) * half + (TILE,) * (2 * net_per_row) + (TILE,) * (per_su_racks - half)
               + (2 * TILE,) * (cdus - cdus_a))
        return _Segment(per_rack, su_units, per_su_racks, half, cdus, cdus_a, net_per_row, row, row, items, limit, 2)
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


def design_size(spec: SuperpodSpec, catalog: Catalog) -> tuple[int, int]:
    """(scalable units, GPUs) the generator builds for ``spec``, without building it: what a search over sizes
    walks (the last SU of an NDR InfiniBand fabric gives a DGX to the UFM appliances, so GPUs are not SUs times a
    constant). Raises :class:`GenerateError` as :func:`generate` would for a spec it refuses."""
    spec = check_spec(spec, catalog)
    profile = system_profile(catalog, spec.system, spec.fabric)
    _, reserved_nodes = _ufm_reservation(spec, profile, catalog)
    sus, units, _ = nodes_for(spec, profile, reserved_nodes)
    return sus, units * profile.gpus_per_node


def _check_phases(spec: SuperpodSpec, sus: int) -> None:
    if spec.phase_sus is not None and spec.phase_sus > sus:
        raise GenerateError(f"{spec.phase_sus} scalable units per phase is more than the design's {sus}")
    if spec.phase_sus is not None and math.ceil(sus / spec.phase_sus) > MAX_PHASES:
        raise GenerateError(f"{math.ceil(sus / spec.phase_sus)} phases of {spec.phase_sus} scalable "
                            f"unit{'s' if spec.phase_sus != 1 else ''} are more than {MAX_PHASES}; build in steps "
                            f"of at least {math.ceil(sus / MAX_PHASES)}")


@paused()  # a million-GPU site is a million new objects and no cycle: collections walking them cost a third of it
def generate(spec: SuperpodSpec, catalog: Catalog, *, with_phases: bool = True,
             layout_only: bool = False, one_hall: bool = False) -> Generated | None:
    """The design for ``spec``; raises :class:`GenerateError` for a target that cannot be built.

    ``layout_only`` stops once the floor grid is planned (None when it fits the hall): the quick
    test the nearest-fit search runs before building a candidate. ``one_hall`` refuses a design that would be a
    site (a phased build's candidates).
    """
    try:
        return _generate(spec, catalog, with_phases=with_phases, layout_only=layout_only, reach_fallback=True,
                         one_hall=one_hall)
    except OutOfReach as exc:
        try:  # the system's Ethernet RA, whose 2 x FR4 optics reach 2 km
            out = _generate(replace(spec, fabric="spectrum-x"), catalog, with_phases=with_phases,
                            layout_only=layout_only, reach_fallback=False, one_hall=one_hall)
        except GenerateError as other:
            raise GenerateError(f"{exc}; on Spectrum-X, whose 2 x FR4 optics reach 2 km, it cannot be built either: "
                                f"{other}") from None
        if out is not None:
            out.notes.insert(0, f"built on Spectrum-X Ethernet, not the reference architecture's InfiniBand: {exc}; "
                                "the Spectrum-X switches' 2 x FR4 optics reach 2 km (ask --fabric infiniband for "
                                "InfiniBand all the same)")
        return out


def _generate(spec: SuperpodSpec, catalog: Catalog, *, with_phases: bool, layout_only: bool,
              reach_fallback: bool, one_hall: bool = False) -> Generated | None:
    """:func:`generate`; ``reach_fallback``: a site whose InfiniBand fabric no optic spans raises
    :class:`OutOfReach` (the fabric was not asked for), to be built on Spectrum-X instead."""
    reach_fallback = reach_fallback and spec.fabric is None
    spec = check_spec(spec, catalog)
    profile = system_profile(catalog, spec.system, spec.fabric)
    ufm_ports, reserved_nodes = _ufm_reservation(spec, profile, catalog)
    sus, units, notes = nodes_for(spec, profile, reserved_nodes)
    spec = campus_core(spec, profile, catalog, units * profile.trays, notes)
    settings = Settings(fabric_tiers=spec.tiers, fabric_oversubscription=spec.oversubscription,
                        gpu_power_cap_w=spec.gpu_power_w, fabric_technology=profile.fabric,
                        fabric_planes=spec.planes or 1,
                        fabric_core_oversubscription=spec.core_oversubscription,
                        storage_tier=spec.storage_tier or "auto", storage_capacity_pb=spec.storage_pb)
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
    halls = _hall_ranges(spec, profile, catalog, net, seg, sus, band_groups, hall_mm, gallery, one_hall)
    if len(halls) > 1:
        if layout_only:
            return None
        return _generate_site(spec, catalog, profile, settings, net, seg, sus, units, notes, band_groups, halls,
                              hall_mm, gallery, rack_kw, reach_fallback)
    grid = plan_grid(seg.mm, sus, sum(len(g) for _, g in band_groups), hall_mm, side_mm=gallery,
                     per_segment=seg.per_segment)
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
                          units: int, first: int = 0, last: int | None = None) -> None:
    """SUs ``first`` to ``last`` (all by default) of ``sus``: each one's compute racks, CDUs and network racks,
    in its segment of its row pair of ``grid``, in the builder's hall."""
    catalog, units_u = b.catalog, b.catalog.get(RACK_TYPE).rack_units
    width = max(2, len(str(sus)))
    node_width = max(4, len(str(units)))
    per_rack = seg.per_rack
    # every SU before the last is whole: the systems numbered before this hall's first SU
    node_no = first * seg.units
    for su in range(first, sus if last is None else last):
        k_all, in_segment = divmod(su - first, seg.per_segment)
        pair, k_seg = divmod(k_all, grid.segments_per_pair)
        x0, y0 = grid.pair_origin(pair)
        x0 += k_seg * grid.segment_mm
        places_a, places_b = row_places(x0, y0, list(seg.widths_a), list(seg.widths_b), f"R{pair + 1:02d}")
        cdu_places, compute_places, net_a, net_b = seg.row_slots(places_a, places_b, in_segment)
        su_name = f"SU{su + 1:0{width}d}"
        units_here = min(seg.units, units - su * seg.units)
        racks_here = units_here if profile.rack_scale else math.ceil(units_here / per_rack)
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
            place = cdu_places[c]
            b.cdus.append(FloorDevice(f"{su_name.lower()}-cdu{c + 1}", CDU_TYPE, b.hall, place.x, place.y,
                                      place.rotation, f"{su_name} CDU-{c + 1}", served))
        # The SU's network racks (at the row ends, or in the middle of a one-row SU): its leaves (rails split
        # between the two stacks), storage and out-of-band switches, and in a three-tier fabric its share of its
        # pod's spines.
        for side, items, places in (("a", seg.network_items[su][0], net_a), ("b", seg.network_items[su][1], net_b)):
            stacks = fill_by_power(items, catalog, units_u, seg.limit_kw)
            for n, devs in enumerate(stacks):
                rid = f"{su_name.lower()}-net{side}{n + 1 if len(stacks) > 1 else ''}"
                b.rack(rid, f"{su_name}-NET-{side.upper()}{n + 1 if len(stacks) > 1 else ''}",
                       places[n], [replace(d, id=f"{rid}-{d.id}") for d in devs])


def _place_band(b: RackBuilder, grid: Grid, band_groups: list[tuple[str, list]]) -> None:
    """The band's racks, nearest the hall's centre line first: spines, cores, storage, in-band, management (the
    storage appliances' racks side by side, :func:`.network_racks.group_places`)."""
    slots = band_places(grid)
    if sum(len(g) for _, g in band_groups) > len(slots):
        raise GenerateError("the network band has no room for every network rack")
    k = 0
    for title, groups in band_groups:
        places = group_places(slots, k, len(groups), title)
        for n, devs in enumerate(groups):
            rid = f"{title.lower()}-{n + 1:02d}"
            b.rack(rid, f"{title}-{n + 1:02d}", places[n], [replace(d, id=f"{rid}-{d.id}") for d in devs])
        k += len(groups)


def _hall_ranges(spec: SuperpodSpec, profile: SystemProfile, catalog: Catalog, net: NetworkPlan, seg: _Segment,
                 sus: int, band_groups: list, hall_mm: tuple[float, float] | None, gallery: float,
                 one_hall: bool = False) -> list[tuple[int, int]]:
    """The SU ranges of the design's data halls: one hall while the design fits one hall's power block (and its
    floor, where a hall size is asked for), else as many as hold it (:mod:`.site`)."""
    per_su = su_power_kw(seg.network_items, seg.units, profile, catalog)
    per_su += seg.cdus * (catalog.get(CDU_TYPE).power_max_w or 0.0) / 1000.0  # the SU loop's pumps
    block = hall_block_kw(spec, profile, catalog)
    max_sus = int(block // per_su) if per_su > 0 else sus
    band_kw = sum((catalog.get(d.type).power_max_w or 0.0) / 1000.0 for _, stacks in band_groups
                  for devs in stacks for d in devs)
    if sus * per_su + band_kw <= block:  # one hall holds it, its band too
        return [(0, sus)]
    if max_sus < 1:
        raise GenerateError(f"hall power {mw_text(block)}, one scalable unit needs {mw_text(per_su)} "
                            f"(+{(per_su - block) / block * 100:.0f} %): no hall of that power holds one", fit=True)
    if hall_mm is not None:
        # the most SUs a hall of the asked size holds without a band (fitting is not monotonic: count down)
        floor_max = 0
        for n in range(min(max_sus, sus), 0, -1):
            try:
                hall_grid(seg.mm, n, hall_mm, gallery, seg.per_segment)
            except GenerateError:
                continue
            floor_max = n
            break
        if not floor_max:
            # raises: the hall is too small for one SU, and says by how much
            hall_grid(seg.mm, 1, hall_mm, gallery, seg.per_segment)
        max_sus = floor_max
    if spec.phase_sus is not None or one_hall:
        raise GenerateError(f"a design of {sus} scalable units needs several halls of at most {max_sus}; phased "
                            "builds are generated for one hall only: ask for fewer scalable units, or a larger "
                            "--hall-mw", fit=True)
    # whole pods to a hall where a pod fits one, else whole leaf blocks (a pod's leaves then run to spines in the
    # next hall, along the building's corridor or to the building beside it); two halls at least (one would hold
    # the SUs but not the band with them)
    most = min(max_sus, max(1, math.ceil(sus / 2)))
    ranges = split_halls(sus, most, cuts(net.compute, profile.nodes_per_su, sus)) or \
        split_halls(sus, most, cuts(net.compute, profile.nodes_per_su, sus, pods=False))
    if not ranges:
        raise GenerateError(f"a hall of {mw_text(block)} holds {max_sus} scalable unit{'s' if max_sus != 1 else ''}, "
                            "fewer than one leaf block of the compute fabric spans (its leaves cable every node of "
                            "their block): ask for larger halls (--hall-mw)", fit=True)
    if len(ranges) > MAX_HALLS:
        raise GenerateError(f"{len(ranges)} halls of at most {max_sus} scalable units are more than {MAX_HALLS}; "
                            "ask for larger halls (--hall-mw)")
    return ranges


def _generate_site(spec: SuperpodSpec, catalog: Catalog, profile: SystemProfile, settings: Settings,
                   net: NetworkPlan, seg: _Segment, sus: int, units: int, notes: list[str], band_groups: list,
                   ranges: list[tuple[int, int]], hall_mm: tuple[float, float] | None, gallery: float,
                   rack_kw: float, reach_fallback: bool = False) -> Generated:
    """A site of data halls and network rooms in buildings (:mod:`.site`), through the same commands."""
    per_building = spec.halls_per_building or DEFAULT_HALLS_PER_BUILDING
    buildings = math.ceil(len(ranges) / per_building)
    nets: list[tuple[Room, RackBuilder, Grid]] = []
    numbers: dict[str, int] = {}
    oob_next = net.oob
    for k, groups in enumerate(share_upper_tier(band_groups, net.compute, buildings)):
        if not groups:
            continue
        if "oob" in spec.networks:
            # the room's own out-of-band switches, one port for each device it holds: a 1 GbE copper run from a
            # network room to a hall's SU racks would be past Cat6A's 100 m
            devices = sum(len(devs) for _, stacks in groups for devs in stacks)
            items = [(f"oob{oob_next + i + 1}", "sn2201", f"oob-{oob_next + i + 1:04d}", "rear")
                     for i in range(math.ceil(devices / OOB_PORTS))]
            oob_next += len(items)
            groups = groups + [("OOB", fill_by_power(items, catalog, catalog.get(RACK_TYPE).rack_units,
                                                     seg.limit_kw))]
        b = RackBuilder(catalog, settings, f"network-{k + 1}")
        grid = room_grid(sum(len(stacks) for _, stacks in groups))
        place_room_racks(b, groups, grid, numbers)
        nets.append((Room(b.hall, f"Network room {k + 1}", k, "network"), b, grid))
    grids = [hall_grid(seg.mm, last - first, hall_mm, gallery, seg.per_segment) for first, last in ranges]
    if reach_fallback and profile.fabric == "infiniband":
        check_reach_early(ranges, grids, nets, seg, buildings, catalog, spec, profile, hall_mm, gallery)
    rooms: list[tuple[Room, RackBuilder, Grid]] = []
    for h, ((first, last), grid) in enumerate(zip(ranges, grids)):
        b = RackBuilder(catalog, settings, f"hall-{h + 1}")
        _place_scalable_units(b, grid, seg, profile, sus, units, first, last)
        rooms.append((Room(b.hall, f"Data hall {h + 1}", h // per_building, "data"), b, grid))
    rooms += nets

    floor_kg = spec.floor_kg_m2 if spec.floor_kg_m2 is not None else FLOOR_RATING[profile.rack_scale or profile.busbar]
    rack_limit = None if profile.rack_scale and spec.rack_kw is None else rack_kw

    def hall_of(room: Room, w: float, d: float, origin=None) -> Hall:
        return Hall(room.id, room.name, ((0.0, 0.0), (w, 0.0), (w, d), (0.0, d)), tile_mm=TILE,
                    floor_rating_kg_m2=floor_kg, rack_power_limit_kw=rack_limit, building=building_name(room.building),
                    site_origin=origin, kind=room.kind)

    # the rooms' air heat and airflow, in one analysis of every room, size each room's air handlers
    draft = Project(settings=settings, halls=tuple(hall_of(r, g.width_mm, g.depth_mm) for r, _, g in rooms),
                    racks=tuple(x for _, b, _ in rooms for x in b.racks),
                    floor_devices=tuple(c for _, b, _ in rooms for c in b.cdus))
    cooling = analyze_cooling(Context.build(draft, catalog)).section
    by_hall = {c["id"]: c for c in cooling["halls"]}
    laid: list[Room] = []
    racks, floor = [], []
    longer: list[str] = []  # rooms lengthened for their air handlers
    for room, b, grid in rooms:
        heat = by_hall[room.id]
        air = float(heat["air_kw"])
        stated = hall_mm if room.kind == "data" else None
        plan = air_handling.plan_room(air_handling.units_needed(air, float(heat["air_cfm"]), catalog),
                                      (grid.width_mm, grid.depth_mm), stated, air, catalog, room.id)
        if plan.note and stated is None:
            longer.append(room.name)
        elif plan.note:  # a hall of the size asked for whose walls hold too few air handlers
            notes.append(f"{room.name}: {plan.note}")
        laid.append(replace(room, width_mm=plan.width_mm, depth_mm=plan.depth_mm))
        racks += [replace(r, x=r.x + plan.dx, y=r.y + plan.dy) for r in b.racks]
        floor += [replace(c, x=c.x + plan.dx, y=c.y + plan.dy) for c in b.cdus]
        floor += [replace(u, id=f"{room.id}-{u.id}") for u in plan.units]
    origins = place_rooms(laid, buildings)
    if reach_fallback and profile.fabric == "infiniband":
        # the electrical rooms added below only move rooms apart (each deepens its room's footprint and widens none:
        # it is as wide as its room, or 5 m, and every room here is wider), so a site already past the optics' reach
        # without them is past it with them, and is rebuilt on Spectrum-X before half a million objects are added
        check_reach(laid, origins, farthest_from_entry(laid, racks), catalog, spec, profile, "at least")
    project = Project(name=spec.name or design_title(profile, sus, units),
                      description=design_description(profile, sus, units, seg.per_rack, net), settings=settings)
    try:
        for room in laid:
            project, _ = AddHallCommand(hall_of(room, room.width_mm, room.depth_mm, origins[room.id])).apply(
                project, catalog)
        project, _ = AddObjectsCommand(racks=tuple(racks), floor_devices=tuple(floor)).apply(project, catalog)
    except CommandError as exc:
        raise GenerateError(f"the generated layout breaks a placement rule: {exc}") from None

    ctx = Context.build(project, catalog)
    power = analyze_power(ctx)
    busway = busway_for(power, ctx.arrays, settings)
    liquid_total, air_total = float(cooling["liquid_kw"]), float(cooling["air_kw"])
    for h, hall in enumerate(project.halls):
        heat, it = by_hall[hall.id], power.section["halls"][h]["it_max_kw"]
        liquid, air = float(heat["liquid_kw"]), float(heat["air_kw"])
        stated = spec if hall.kind == "data" else _fitted(spec)
        project = with_capacities(project, stated, it, liquid, air, hall=h)
        facility = facility_for(power, ctx.arrays, liquid, settings, hall_kw=project.halls[h].power_capacity_kw,
                                water=spec.facility_water, altitude_m=spec.altitude_m, ambient_c=spec.ambient_c,
                                hall=h, busway=busway)
        project = project.with_hall(replace(project.halls[h], facility=facility))
    # each room's electrical room, sized by its facility now, stands beyond its far wall: the buildings make room
    rooms = electrical_rooms(project)
    laid = [replace(r, annex=(rooms[r.id].width, rooms[r.id].y + rooms[r.id].depth - r.depth_mm))
            if r.id in rooms else r for r in laid]
    origins = place_rooms(laid, buildings)
    for hall in project.halls:
        project = project.with_hall(replace(hall, site_origin=origins[hall.id]))
    if reach_fallback and profile.fabric == "infiniband":
        check_reach(laid, origins, farthest_from_entry(laid, racks), catalog, spec, profile, "about")
    data_halls = sum(r.kind == "data" for r in laid)
    block = hall_block_kw(spec, profile, catalog) / 1000
    most = max(last - first for first, last in ranges)
    notes.append(f"{data_halls} data halls of at most {most} scalable unit{'s' if most != 1 else ''} in {buildings} "
                 f"building{'s' if buildings != 1 else ''}, each hall its own power block of {block:,.3g} MW or "
                 f"less{'' if spec.hall_power_kw is not None else ' (ask --hall-mw for another)'}; the fabric's "
                 f"upper tier in the network rooms of "
                 + ("the buildings" if buildings <= UPPER_TIER_BUILDINGS else
                    f"the {UPPER_TIER_BUILDINGS} buildings in the middle of the site, where its runs from every hall "
                    "are the shortest"))
    if longer:
        notes.append(f"{len(longer)} of the {len(laid)} rooms are deeper than their racks, so that their side walls "
                     f"hold the air handlers their air heat needs (N+1), a metre of wall for about 60 kW: "
                     f"{', '.join(longer[:3])}{' …' if len(longer) > 3 else ''}")
    first = hall_grid(seg.mm, ranges[0][1] - ranges[0][0], hall_mm, gallery, seg.per_segment)
    gpus = units * profile.gpus_per_node
    return Generated(project, spec, profile, net, sus, units, gpus, first, notes, power.it_max_kw, liquid_total,
                     air_total)


def _fitted(spec: SuperpodSpec) -> SuperpodSpec:
    """A network room's capacities are fitted to it: the hall limits asked for are the data halls'."""
    return replace(spec, hall_power_kw=None, hall_cooling_kw=None, hall_liquid_kw=None)


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
            # a phased build is one hall: a candidate that would be a site does not fit it
            one = spec.phase_sus is not None
            generate(candidate, catalog, layout_only=True, one_hall=one)
            return generate(candidate, catalog, with_phases=False, one_hall=one)
        except GenerateError as exc:
            if not exc.fit:
                return None
    return None
