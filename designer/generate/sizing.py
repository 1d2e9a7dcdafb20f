"""How much the generator builds: scalable units and systems for the target, systems per rack, and the
hall's power and cooling capacities. Each refuses a target that cannot be built with the reason and the
nearest figure that would be (``--rack-kw 15``)."""
from __future__ import annotations

import math
from dataclasses import replace

from catalog import Catalog

from ..formatting import kw, mw_text
from ..model import Project
from ..settings import Settings
from .rack_filling import FIRST_U, RACK_TYPE, RackBuilder
from .spec import DEFAULT_RACK_KW, GenerateError, SuperpodSpec, SystemProfile

#: Capacity the generator gives a hall it fits to the design: 15 % above the design's need, rounded up to
#: 100 kW, so the 90 % headroom warning stays quiet and the first change has room.
FIT_MARGIN = 1.15


def nodes_for(spec: SuperpodSpec, profile: SystemProfile, reserved_nodes: int) -> tuple[int, int, list[str]]:
    """(scalable units, nodes or racks, notes) for the target."""
    notes = []
    per_su = units_per_su(profile)
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


def units_per_su(profile: SystemProfile) -> int:
    """Servers per SU, or racks per SU for a rack-scale system."""
    return profile.nodes_per_su // profile.trays


def rack_density(spec: SuperpodSpec, profile: SystemProfile, catalog: Catalog, settings: Settings
                 ) -> tuple[float, int]:
    """(rack limit in kW, systems per rack) for ``spec``; a rack-scale system is one per rack."""
    if profile.rack_scale:
        rack_kw = spec.rack_kw if spec.rack_kw is not None else profile.node_max_kw
        if rack_kw + 1e-9 < profile.node_max_kw:
            raise GenerateError(f"a {profile.id} rack draws up to {profile.node_max_kw:g} kW, over the "
                                f"{rack_kw:g} kW rack limit asked for (-{profile.node_max_kw - rack_kw:g} kW); "
                                f"it needs racks of at least {profile.node_max_kw:g} kW")
        per_rack = 1
    else:
        air_kw = profile.node_max_kw * (1.0 - catalog.get(profile.id).liquid_fraction)
        asked_ra = spec.nodes_per_rack is not None and spec.nodes_per_rack == profile.systems_per_rack
        ra = profile.systems_per_rack if spec.nodes_per_rack is None or asked_ra else 0
        if ra and not asked_ra and spec.rack_kw is None and ra * air_kw > settings.air_rack_limit_kw + 1e-9:
            ra = 0  # the RA's rack needs rear-door heat exchangers (not modelled): air decides, as below
        # Unasked, a system whose RA states its rack (four DGX B300 at about 56 kW) gets that rack; others
        # the B200 RA's 40 kW position.
        if spec.rack_kw is not None:
            rack_kw = spec.rack_kw
        elif ra or (spec.nodes_per_rack and profile.systems_per_rack):
            # a system whose RA states its rack takes the rack its count draws (busbar racks are sized to them)
            rack_kw = float(math.ceil((ra or spec.nodes_per_rack) * profile.node_max_kw))
        else:
            rack_kw = DEFAULT_RACK_KW
        shelves = len(RackBuilder(catalog, settings).shelves_for(profile.id, ra or 1)) if profile.busbar else 0
        fit_u = (catalog.get(RACK_TYPE).rack_units - FIRST_U + 1 - shelves) // profile.u_height
        by_power = int(rack_kw // profile.node_max_kw + 1e-9)
        if spec.rack_kw is None and air_kw > 0 and not ra:
            # unasked, a rack holds no more air-cooled systems than a contained row can cool by air
            by_power = min(by_power, max(1, int(settings.air_rack_limit_kw // air_kw + 1e-9)))
        per_rack = spec.nodes_per_rack or min(ra or by_power, by_power, fit_u)
        if per_rack < 1:
            raise GenerateError(f"one {profile.id} draws up to {profile.node_max_kw:g} kW, over the {rack_kw:g} kW "
                                f"rack limit (-{kw(profile.node_max_kw - rack_kw)}); nearest that fits: "
                                f"--rack-kw {math.ceil(profile.node_max_kw)}")
        if per_rack * profile.node_max_kw > rack_kw + 1e-9:
            raise GenerateError(f"{per_rack} {profile.id} per rack draw up to {per_rack * profile.node_max_kw:g} kW, "
                                f"over the {rack_kw:g} kW rack limit (+{per_rack * profile.node_max_kw - rack_kw:.1f} "
                                f"kW); nearest that fits: --nodes-per-rack {max(1, by_power)}")
        if per_rack > fit_u:
            raise GenerateError(f"{per_rack} {profile.id} ({profile.u_height}U each) do not fit a 48U rack; "
                                f"at most {fit_u}")
    return rack_kw, per_rack


def with_capacities(project: Project, spec: SuperpodSpec, it_max: float, liquid: float, air: float,
                    hall: int = 0) -> Project:
    """Hall ``hall``'s power and cooling: as given (refused when its racks need more), or fitted to them."""
    short = []
    for given, need, what in ((spec.hall_power_kw, it_max, "hall power"),
                              (spec.hall_cooling_kw, air, "hall air cooling"),
                              (spec.hall_liquid_kw, liquid, "hall liquid cooling")):
        if given is not None and need > given + 1e-9:
            short.append(f"{what} {mw_text(given)}, design needs {mw_text(need)} "
                         f"(+{(need - given) / given * 100:.0f} %)"
                         if given > 0 else f"{what} 0 kW, design needs {mw_text(need)}")
    if short:
        raise GenerateError("; ".join(short), fit=True)

    def fit(need: float) -> float | None:
        return math.ceil(need * FIT_MARGIN / 100.0) * 100.0 if need > 0 else None

    hall = replace(project.halls[hall],
                   power_capacity_kw=spec.hall_power_kw if spec.hall_power_kw is not None else fit(it_max),
                   cooling_capacity_kw=spec.hall_cooling_kw if spec.hall_cooling_kw is not None else fit(air),
                   liquid_cooling_capacity_kw=spec.hall_liquid_kw if spec.hall_liquid_kw is not None else fit(liquid))
    return project.with_hall(hall)

